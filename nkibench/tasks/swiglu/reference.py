"""swiglu: out = (silu(x @ w_gate) * (x @ w_up)) @ w_down, silu(t) = t / (1 + exp(-t)).

Inputs (in this order): x[M, K], w_up[K, N], w_down[N, K], w_gate[K, N].
Kernel layout: x -> (M/512, 4, 128, K/128, 128); w_up, w_gate -> (K/128, 128, N); w_down -> (N/128, 128, K).
Kernel output (M/128, 128, K)."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    M, N, K = params["M"], params["N"], params["K"]
    x = rng.normal(0.0, 1.0, size=(M, K)).astype(np.float32)
    w_up = rng.normal(0.0, 1.0, size=(K, N)).astype(np.float32)
    w_down = rng.normal(0.0, 1.0, size=(N, K)).astype(np.float32)
    w_gate = rng.normal(0.0, 1.0, size=(K, N)).astype(np.float32)
    return [x, w_up, w_down, w_gate]


def forward(x, w_up, w_down, w_gate):
    x = x.astype(np.float64)
    gate = x @ w_gate.astype(np.float64)
    up = x @ w_up.astype(np.float64)
    h = gate / (1.0 + np.exp(-gate)) * up
    return (h @ w_down.astype(np.float64)).astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    x, w_up, w_down, w_gate = inputs
    M, N, K = params["M"], params["N"], params["K"]
    return [np.reshape(x, (M // 512, 4, 128, K // 128, 128)), np.reshape(w_up, (K // 128, 128, N)),
            np.reshape(w_down, (N // 128, 128, K)), np.reshape(w_gate, (K // 128, 128, N))]


def transform_nki_outputs(outputs, params):
    return [np.reshape(outputs[0], (params["M"], params["K"]))]
