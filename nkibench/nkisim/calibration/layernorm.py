"""LayerNorm calibration kernels: our own v1 (nl.* only) and v2 (bn_stats/bn_aggr + tensor_scalar)
(nki-facts §4.4). x [rows, cols] fp32, gamma and beta [1, cols]; rows in tiles of 128 partitions.
"""
import numpy as np

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

P = 128
CH = 512  # bn_stats_fmax and one PSUM bank of fp32
EPS = 1e-5
OUT_CH = 2048  # columns per output chunk: keeps the temporaries small (8 KiB rows, still efficient DMA)


def _broadcast_cols(ones, row, n):
    """A [1, n] row -> [128, n] in SBUF, through TensorE 512 columns at a time. Done per output chunk rather than
    once for the whole row, so a 4096x8192 fp32 input fits SBUF."""
    full = nl.ndarray((P, n), dtype=nl.float32)
    for j in nl.affine_range(n // CH):
        full[:, j * CH:(j + 1) * CH] = nisa.tensor_copy(nisa.nc_matmul(ones, row[:, j * CH:(j + 1) * CH]),
                                                        engine=nisa.scalar_engine)
    return full


@nki.jit
def layernorm_v1(x, gamma, beta):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    ones = nl.ones((1, P), dtype=nl.float32)
    for i in nl.affine_range(rows // P):
        xt = nl.load(x[i * P:(i + 1) * P, 0:cols])
        mean = nl.mean(xt, axis=[1], keepdims=True)
        xc = nl.subtract(xt, mean)
        del xt
        sq = nl.square(xc)
        var = nl.mean(sq, axis=[1], keepdims=True)
        del sq
        rstd = nl.rsqrt(nl.add(var, EPS))
        for j in nl.affine_range(cols // OUT_CH):
            cs = slice(j * OUT_CH, (j + 1) * OUT_CH)
            y = nl.multiply(xc[:, cs], rstd)
            y = nl.multiply(y, _broadcast_cols(ones, nl.load(gamma[0:1, cs]), OUT_CH))
            y = nl.add(y, _broadcast_cols(ones, nl.load(beta[0:1, cs]), OUT_CH))
            nl.store(out[i * P:(i + 1) * P, cs], value=y)
    return out


@nki.jit
def layernorm_v2(x, gamma, beta):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    ones = nl.ones((1, P), dtype=nl.float32)
    for i in nl.affine_range(rows // P):
        xt = nl.load(x[i * P:(i + 1) * P, 0:cols])
        stats = nl.ndarray((P, 6 * (cols // CH)), dtype=nl.float32)
        for j in nl.affine_range(cols // CH):
            stats[:, j * 6:(j + 1) * 6] = nisa.bn_stats(xt[:, j * CH:(j + 1) * CH])
        mv = nisa.bn_aggr(stats)
        rstd = nl.rsqrt(nl.add(mv[:, 1:2], EPS))
        for j in nl.affine_range(cols // OUT_CH):
            cs = slice(j * OUT_CH, (j + 1) * OUT_CH)
            y = nisa.tensor_scalar(xt[:, cs], op0=np.subtract, operand0=mv[:, 0:1], op1=np.multiply, operand1=rstd)
            y = nl.multiply(y, _broadcast_cols(ones, nl.load(gamma[0:1, cs]), OUT_CH))
            y = nl.add(y, _broadcast_cols(ones, nl.load(beta[0:1, cs]), OUT_CH))
            nl.store(out[i * P:(i + 1) * P, cs], value=y)
    return out


def reference(x, gamma, beta):
    x = x.astype(np.float32)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * gamma + beta
