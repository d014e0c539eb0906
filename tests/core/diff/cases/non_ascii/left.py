# σ(x) = x / (1 + e^-x): the α-blend
def kernel(x):
    # 日本語のコメント
    return x  # ✓
s = "🚀🚀"
