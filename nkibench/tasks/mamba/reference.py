"""mamba: the selective-scan core of a Mamba block.

For channel c, state s, time t:  h_t[c,s] = exp(delta[c,t]*a[c,s]) * h_{t-1}[c,s] + delta[c,t]*b[s,t]*u[c,t]
(h_{-1} = 0) and out[c,t] = sum_s c[s,t] * h_t[c,s].
Inputs delta[C, M], u[C, M], a[C, S], b[S, M], c[S, M], all normal(0, 0.05); the kernel takes them unchanged.
M is the sequence length, C the channels, S the state size."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    M, C, S = params["M"], params["C"], params["S"]
    delta = rng.normal(0.0, 0.05, size=(C, M)).astype(np.float32)
    u = rng.normal(0.0, 0.05, size=(C, M)).astype(np.float32)
    a = rng.normal(0.0, 0.05, size=(C, S)).astype(np.float32)
    b = rng.normal(0.0, 0.05, size=(S, M)).astype(np.float32)
    c = rng.normal(0.0, 0.05, size=(S, M)).astype(np.float32)
    return [delta, u, a, b, c]


def forward(delta, u, a, b, c):
    delta, u, a, b, c = (x.astype(np.float64) for x in (delta, u, a, b, c))
    C, M = delta.shape
    dA = np.exp(delta[:, None, :] * a[:, :, None])          # (C, S, M)
    dBu = (delta * u)[:, None, :] * b[None, :, :]           # (C, S, M)
    h = np.zeros((C, a.shape[1]), np.float64)
    out = np.empty((C, M), np.float64)
    for t in range(M):
        h = dA[:, :, t] * h + dBu[:, :, t]
        out[:, t] = h @ c[:, t]
    return out.astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    delta, u, a, b, c = inputs
    M, C, S = params["M"], params["C"], params["S"]
    return [np.reshape(delta, (C, M)), np.reshape(u, (C, M)), np.reshape(a, (C, S)), np.reshape(b, (S, M)),
            np.reshape(c, (S, M))]


def transform_nki_outputs(outputs, params):
    return [np.reshape(outputs[0], (params["C"], params["M"]))]
