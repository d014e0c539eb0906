"""bmm: per-batch product lhs[b] @ rhs[b].

Kernel arguments keep the shapes lhs[B, M, K], rhs[B, K, N]; the kernel output is (B, M/128, 128, N)."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    B, M, K, N = params["B"], params["M"], params["K"], params["N"]
    lhs = rng.normal(0.0, 1.0, size=(B, M, K)).astype(np.float32)
    rhs = rng.normal(0.0, 1.0, size=(B, K, N)).astype(np.float32)
    return [lhs, rhs]


def forward(lhs, rhs):
    # float64 products and sums, one batch at a time: the same arithmetic as one float64 np.matmul over the whole
    # batch, but only one (M, N) float64 block is alive (128 MiB at full size instead of 2 GiB).
    B, M, _ = lhs.shape
    out = np.empty((B, M, rhs.shape[2]), np.float32)
    for b in range(B):
        out[b] = lhs[b].astype(np.float64) @ rhs[b].astype(np.float64)
    return out


def transform_to_nki_inputs(inputs, params):
    lhs, rhs = inputs
    B, M, K, N = params["B"], params["M"], params["K"], params["N"]
    return [np.reshape(lhs, (B, M, K)), np.reshape(rhs, (B, K, N))]


def transform_nki_outputs(outputs, params):
    return [np.reshape(outputs[0], (params["B"], params["M"], params["N"]))]
