"""lora: out = x @ w + (x @ a) @ b (a rank-R adapter on a dense layer).

Inputs x[M, K], w[K, N], a[K, R], b[R, N]. Kernel layout: x -> (M/512, 4, 128, K/128, 128);
w -> (K/128, 128, N); a -> (K/128, 128, R); b -> (R, N). Kernel output (M/512, 4, 128, N/128, 128)."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    M, N, K, R = params["M"], params["N"], params["K"], params["R"]
    x = rng.normal(0.0, 1.0, size=(M, K)).astype(np.float32)
    w = rng.normal(0.0, 1.0, size=(K, N)).astype(np.float32)
    a = rng.normal(0.0, 1.0, size=(K, R)).astype(np.float32)
    b = rng.normal(0.0, 1.0, size=(R, N)).astype(np.float32)
    return [x, w, a, b]


def forward(x, w, a, b):
    x = x.astype(np.float64)
    return (x @ w.astype(np.float64) + (x @ a.astype(np.float64)) @ b.astype(np.float64)).astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    x, w, a, b = inputs
    M, N, K, R = params["M"], params["N"], params["K"], params["R"]
    return [np.reshape(x, (M // 512, 4, 128, K // 128, 128)), np.reshape(w, (K // 128, 128, N)),
            np.reshape(a, (K // 128, 128, R)), np.reshape(b, (R, N))]


def transform_nki_outputs(outputs, params):
    return [np.reshape(outputs[0], (params["M"], params["N"]))]
