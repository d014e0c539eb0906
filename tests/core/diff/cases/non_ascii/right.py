# σ(x) = x · sigmoid(x): the β-blend
def kernel(x):
    # 日本語のコメント
    return x  # ✗ 🚀
s = "🚀🛸"
