"""transpose_matmul: out = lhs^T @ rhs, with lhs stored as [K, M] and rhs as [K, N].

Kernel layout: K is split as 128 x (K/128) with k = p*(K/128) + j: lhs -> (128, K/128, M), rhs -> (128, K/128, N).
N need not be a multiple of the 512-column tile (full size: 10944), so the kernel masks its last column tile.
Kernel output (M/128, 128, N)."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    M, K, N = params["M"], params["K"], params["N"]
    lhs = rng.normal(0.0, 1.0, size=(K, M)).astype(np.float32)
    rhs = rng.normal(0.0, 1.0, size=(K, N)).astype(np.float32)
    return [lhs, rhs]


def forward(lhs, rhs):
    return (lhs.astype(np.float64).T @ rhs.astype(np.float64)).astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    lhs, rhs = inputs
    M, K, N = params["M"], params["K"], params["N"]
    return [np.reshape(lhs, (128, K // 128, M)), np.reshape(rhs, (128, K // 128, N))]


def transform_nki_outputs(outputs, params):
    return [np.reshape(outputs[0], (params["M"], params["N"]))]
