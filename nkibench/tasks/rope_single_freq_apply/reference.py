"""rope_single_freq_apply: rotary embedding with one frequency table.

x is [D, B*H*N] (feature-major), cos and sin are [D/2, B*H*N]. With x0 = x[:D/2], x1 = x[D/2:]:
out[:D/2] = x0*cos - x1*sin and out[D/2:] = x0*sin + x1*cos. The kernel takes the arrays unchanged."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    B, H, N, D = params["B"], params["H"], params["N"], params["D"]
    S = B * H * N
    x = rng.normal(0.0, 1.0, size=(D, S)).astype(np.float32)
    cos = rng.normal(0.0, 1.0, size=(D // 2, S)).astype(np.float32)
    sin = rng.normal(0.0, 1.0, size=(D // 2, S)).astype(np.float32)
    return [x, cos, sin]


def forward(x, cos, sin):
    x = x.astype(np.float64)
    c, s = cos.astype(np.float64), sin.astype(np.float64)
    h = x.shape[0] // 2
    x0, x1 = x[:h], x[h:]
    return np.concatenate([x0 * c - x1 * s, x0 * s + x1 * c], axis=0).astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    x, cos, sin = inputs
    B, H, N, D = params["B"], params["H"], params["N"], params["D"]
    S = B * H * N
    return [np.reshape(x, (D, S)), np.reshape(cos, (D // 2, S)), np.reshape(sin, (D // 2, S))]


def transform_nki_outputs(outputs, params):
    B, H, N, D = params["B"], params["H"], params["N"], params["D"]
    return [np.reshape(outputs[0], (D, B * H * N))]
