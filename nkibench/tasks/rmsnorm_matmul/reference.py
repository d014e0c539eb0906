"""rmsnorm_matmul: out = (x / sqrt(sum_K(x^2) / K)) @ w; no eps, no gain.

Kernel layout: x[M, K] -> (M/128, 128, K); w[K, N] -> (K/128, 128, N); out (M/128, 128, N)."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    M, N, K = params["M"], params["N"], params["K"]
    x = rng.normal(0.0, 1.0, size=(M, K)).astype(np.float32)
    w = rng.normal(0.0, 1.0, size=(K, N)).astype(np.float32)
    return [x, w]


def forward(x, w):
    x = x.astype(np.float64)
    xn = x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True) / x.shape[-1])
    return (xn @ w.astype(np.float64)).astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    x, w = inputs
    M, N, K = params["M"], params["N"], params["K"]
    return [np.reshape(x, (M // 128, 128, K)), np.reshape(w, (K // 128, 128, N))]


def transform_nki_outputs(outputs, params):
    return [np.reshape(outputs[0], (params["M"], params["N"]))]
