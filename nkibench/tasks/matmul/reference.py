"""matmul: out = lhs @ rhs.

Kernel layout: lhs[M, K] -> (M/128, 128, K/128, 128); rhs[K, N] -> (K/128, 128, N); out (M/128, 128, N)."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    M, N, K = params["M"], params["N"], params["K"]
    lhs = rng.normal(0.0, 1.0, size=(M, K)).astype(np.float32)
    rhs = rng.normal(0.0, 1.0, size=(K, N)).astype(np.float32)
    return [lhs, rhs]


def forward(lhs, rhs):
    return (lhs.astype(np.float64) @ rhs.astype(np.float64)).astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    lhs, rhs = inputs
    M, N, K = params["M"], params["N"], params["K"]
    return [np.reshape(lhs, (M // 128, 128, K // 128, 128)), np.reshape(rhs, (K // 128, 128, N))]


def transform_nki_outputs(outputs, params):
    return [np.reshape(outputs[0], (params["M"], params["N"]))]
