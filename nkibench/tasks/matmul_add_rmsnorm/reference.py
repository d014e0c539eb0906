"""matmul_add_rmsnorm: y = x @ w + z; out = y * g / sqrt(mean(y^2, axis=-1) + eps).

Inputs x[M, K], w[K, N], eps (Python float 1e-5), z[M, N], g[N]; the kernel takes them unchanged."""
import numpy as np

EPS = 1e-5


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    M, N, K = params["M"], params["N"], params["K"]
    x = rng.normal(0.0, 1.0, size=(M, K)).astype(np.float32)
    w = rng.normal(0.0, 1.0, size=(K, N)).astype(np.float32)
    z = rng.normal(0.0, 1.0, size=(M, N)).astype(np.float32)
    g = rng.normal(0.0, 1.0, size=(N,)).astype(np.float32)
    return [x, w, EPS, z, g]


def forward(x, w, eps, z, g):
    y = x.astype(np.float64) @ w.astype(np.float64) + z.astype(np.float64)
    rstd = 1.0 / np.sqrt(np.mean(y * y, axis=-1, keepdims=True) + eps)
    return (y * rstd * g.astype(np.float64)).astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    x, w, eps, z, g = inputs
    M, N, K = params["M"], params["N"], params["K"]
    return [np.reshape(x, (M, K)), np.reshape(w, (K, N)), eps, np.reshape(z, (M, N)), np.reshape(g, (N,))]


def transform_nki_outputs(outputs, params):
    return [np.reshape(outputs[0], (params["M"], params["N"]))]
