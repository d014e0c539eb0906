import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # Current NKI API (nki.*): the classic baseline.py's algorithm and tiling, with explicit destinations.
    # lhs: (MT, 128, KT, 128) row-blocked [M, K]; rhs: (KT, 128, N); out: (MT, 128, N).
    MT, KT = lhs.shape[0], lhs.shape[2]
    N = rhs.shape[2]
    NB = 512  # moving free size / one PSUM bank of fp32
    NT = N // NB
    out = nl.ndarray((MT, 128, N), dtype=lhs.dtype, buffer=nl.shared_hbm)

    ident = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ident, src=nl.shared_constant(np.identity(128, dtype=np.float32)))

    for m in nl.affine_range(MT):
        # Transpose the lhs row block so the contraction dim (K) is on partitions: aT[:, k, :] = lhs[m, :, k, :]^T.
        a_sb = nl.ndarray((128, KT, 128), dtype=nl.float32, buffer=nl.sbuf)
        aT = nl.ndarray((128, KT, 128), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            nisa.dma_copy(dst=a_sb[0:128, k, 0:128], src=lhs[m, 0:128, k, 0:128])
            tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
            nisa.nc_matmul(dst=tp, stationary=a_sb[0:128, k, 0:128], moving=ident, is_moving_onezero=True,
                           is_transpose=True)
            nisa.tensor_copy(dst=aT[0:128, k, 0:128], src=tp)
        for n in nl.affine_range(NT):
            acc = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                b_sb = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.sbuf)
                nisa.dma_copy(dst=b_sb, src=rhs[k, 0:128, n * NB:(n + 1) * NB])
                nisa.nc_matmul(dst=acc, stationary=aT[0:128, k, 0:128], moving=b_sb)  # accumulates over k
            res = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nisa.dma_copy(dst=out[m, 0:128, n * NB:(n + 1) * NB], src=res)
    return out
