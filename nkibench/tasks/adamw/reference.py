"""adamw: one AdamW step at t=1 with lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight decay 0.01.

m_t = 0.9 m + 0.1 g;  v_t = 0.999 v + 0.001 g^2;  bias-corrected m_hat = 10 m_t, v_hat = 1000 v_t;
theta' = theta (1 - lr*wd) - lr * m_hat / (sqrt(v_hat) + eps) = theta (1 - 1e-5) - 0.01 m_t / (sqrt(1000 v_t) + 1e-8).
Only the new parameters are returned. Kernel arguments keep the [M, N] layout; M need not be a multiple of 128."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    M, N = params["M"], params["N"]
    theta = rng.normal(0.0, 1.0, size=(M, N)).astype(np.float32)
    g = rng.normal(0.0, 1.0, size=(M, N)).astype(np.float32)
    m = rng.normal(0.0, 1.0, size=(M, N)).astype(np.float32)
    v = np.abs(rng.normal(0.0, 1.0, size=(M, N))).astype(np.float32)
    return [theta, g, m, v]


def forward(theta, g, m, v):
    theta, g, m, v = (a.astype(np.float64) for a in (theta, g, m, v))
    m_t = 0.9 * m + 0.1 * g
    v_t = 0.999 * v + 0.001 * g * g
    out = theta * (1.0 - 1e-5) - 0.01 * m_t / (np.sqrt(1000.0 * v_t) + 1e-8)
    return out.astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    M, N = params["M"], params["N"]
    return [np.reshape(a, (M, N)) for a in inputs]


def transform_nki_outputs(outputs, params):
    return [np.reshape(outputs[0], (params["M"], params["N"]))]
