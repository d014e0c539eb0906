"""gqa_full: non-causal grouped-query attention, out[b, h] = softmax(q[b, :, h] @ k[b, :, h//G]^T / sqrt(D)) @ v[b, :, h//G]
with G = QH/KH query heads per KV head.

Inputs q[B, N, QH, D], k[B, N, KH, D], v[B, N, KH, D]; output (B, QH, N, D).
Kernel layout: q -> (B*N/128, 128, QH, D); k -> (B, N/512, 4, 128, KH, D); v -> (B, N/128, 128, KH*D).
Kernel output (B, KH, G, N/128, 128, D), i.e. query head h = kh*G + g."""
import numpy as np


def get_inputs(seed, params):
    rng = np.random.default_rng(seed)
    B, N, QH, KH, D = params["B"], params["N"], params["QH"], params["KH"], params["D"]
    q = rng.normal(0.0, 1.0, size=(B, N, QH, D)).astype(np.float32)
    k = rng.normal(0.0, 1.0, size=(B, N, KH, D)).astype(np.float32)
    v = rng.normal(0.0, 1.0, size=(B, N, KH, D)).astype(np.float32)
    return [q, k, v]


def forward(q, k, v):
    B, N, QH, D = q.shape
    KH = k.shape[2]
    G = QH // KH
    qh = q.astype(np.float64).transpose(0, 2, 1, 3)                          # (B, QH, N, D)
    kh = np.repeat(k.astype(np.float64).transpose(0, 2, 1, 3), G, axis=1)    # (B, QH, N, D)
    vh = np.repeat(v.astype(np.float64).transpose(0, 2, 1, 3), G, axis=1)
    s = np.matmul(qh, kh.transpose(0, 1, 3, 2)) / np.sqrt(D)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(axis=-1, keepdims=True)
    return np.matmul(p, vh).astype(np.float32)


def transform_to_nki_inputs(inputs, params):
    q, k, v = inputs
    B, N, QH, KH, D = params["B"], params["N"], params["QH"], params["KH"], params["D"]
    return [np.reshape(q, (B * N // 128, 128, QH, D)), np.reshape(k, (B, N // 512, 4, 128, KH, D)),
            np.reshape(v, (B, N // 128, 128, KH * D))]


def transform_nki_outputs(outputs, params):
    B, N, QH, D = params["B"], params["N"], params["QH"], params["D"]
    return [np.reshape(outputs[0], (B, QH, N, D))]
