"""Our numpy references for the kernel corpus (manifest.json names them). Each takes the kernel's inputs (numpy
arrays and scalars, as the manifest builds them) and returns the expected output, or a tuple of them. They compute
in float64 and are written from what each kernel is documented to compute, not from its code."""
import numpy as np


def _f(*xs):
    return [np.asarray(x, dtype=np.float64) for x in xs]


def add(a, b):
    a, b = _f(a, b)
    return a + b


def exp(x):
    return np.exp(_f(x)[0])


def transpose_rows(x, shape2d):
    # every row holds a row-major (rows, cols) matrix; the result holds its transpose, row-major
    r, c = shape2d
    return _f(x)[0].reshape(x.shape[0], r, c).transpose(0, 2, 1).reshape(x.shape)


def split_even_odd(x):
    x = _f(x)[0]
    return x[:, 0::2], x[:, 1::2]


def _pool(x, p):
    c, h, w = x.shape
    return _f(x)[0].reshape(c, h // p, p, w // p, p)


def maxpool(x, p):
    return _pool(x, p).max(axis=(2, 4))


def avgpool(x, p):
    return _pool(x, p).mean(axis=(2, 4))


def matmul_t(lhs_t, rhs):
    # the left operand arrives transposed: contraction on its first axis
    a, b = _f(lhs_t, rhs)
    return a.T @ b


def matmul(a, b):
    a, b = _f(a, b)
    return a @ b


def rmsnorm(x, g):
    x, g = _f(x, g)
    return x / np.sqrt(np.mean(x * x, axis=1, keepdims=True)) * g


def layernorm(x, eps, gamma, beta):
    x, gamma, beta = _f(x, gamma, beta)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def _scan(delta, u, a, b, c):
    # one batch: h_t = exp(delta_t * A) h_{t-1} + delta_t u_t B_t, y_t = sum over states of C_t h_t
    ch, seq = delta.shape
    y = np.zeros((ch, seq))
    for s in range(a.shape[1]):
        decay = np.exp(delta * a[:, s:s + 1])
        drive = delta * u * b[s]
        h = np.zeros(ch)
        for t in range(seq):
            h = decay[:, t] * h + drive[:, t]
            y[:, t] += c[s, t] * h
    return y


def mamba_batched(delta, u, a, b, c):
    delta, u, a, b, c = _f(delta, u, a, b, c)
    return np.stack([_scan(delta[i], u[i], a, b[i], c[i]) for i in range(delta.shape[0])])


def mamba(delta, u, a, b, c):
    return _scan(*_f(delta, u, a, b, c))


def rope_halves(x, cos, sin):
    # x: (d_head, seq); its first and second halves rotate as pairs by the angle whose cos/sin are given
    x, cos, sin = _f(x, cos, sin)
    h = x.shape[0] // 2
    x1, x2 = x[:h], x[h:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos])
