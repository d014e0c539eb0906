"""silu: elementwise SiLU, out = x / (1 + exp(-x)).

Kernel layout: x[M, N] is reshaped to (128, M/128, N), so kernel row (p, j) is matrix row p*(M/128) + j."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    M, N = params["M"], params["N"]
    x = rng.normal(0.0, 1.0, size=(M, N)).astype(np.float32)
    return [x]


def forward(x):
    x64 = x.astype(np.float64)
    return (x64 / (1.0 + np.exp(-x64))).astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    (x,) = inputs
    M, N = params["M"], params["N"]
    return [np.reshape(x, (128, M // 128, N))]


def transform_nki_outputs(outputs, params):
    return [np.reshape(outputs[0], (params["M"], params["N"]))]
