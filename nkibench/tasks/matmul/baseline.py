import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # lhs: (MT, 128, KT, 128) row-blocked [M, K]; rhs: (KT, 128, N); out: (MT, 128, N).
    MT, KT = lhs.shape[0], lhs.shape[2]
    N = rhs.shape[2]
    NB = 512  # moving free size / one PSUM bank of fp32
    NT = N // NB
    out = nl.ndarray((MT, 128, N), dtype=lhs.dtype, buffer=nl.shared_hbm)

    ip = nl.arange(128)[:, None]
    i128 = nl.arange(128)[None, :]
    inb = nl.arange(NB)[None, :]

    ident_hbm = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="ident")
    ident[ip, i128] = nl.load(ident_hbm[ip, i128], dtype=np.float32)

    for m in nl.affine_range(MT):
        # Transpose the lhs row block so the contraction dim (K) is on partitions: aT[k] = lhs[m, :, k, :]^T.
        a_sb = nl.ndarray((KT, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="a_sb")
        aT = nl.ndarray((KT, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="aT")
        for k in nl.affine_range(KT):
            a_sb[k, ip, i128] = nl.load(lhs[m, ip, k, i128], dtype=np.float32)
            tp = nl.zeros((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
            tp[ip, i128] += nisa.nc_matmul(a_sb[k, ip, i128], ident[ip, i128], is_stationary_onezero=False,
                                           is_moving_onezero=True, is_transpose=True)
            aT[k, ip, i128] = nl.copy(tp[ip, i128], dtype=np.float32)
        for n in nl.affine_range(NT):
            acc = nl.zeros((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
            for k in nl.affine_range(KT):
                b_sb = nl.ndarray((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.sbuf, name="b_sb")
                b_sb[ip, inb] = nl.load(rhs[k, ip, n * NB + inb], dtype=np.float32)
                acc[ip, inb] += nisa.nc_matmul(aT[k, ip, i128], b_sb[ip, inb])
            res = nl.ndarray((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.sbuf, name="res")
            res[ip, inb] = nl.copy(acc[ip, inb], dtype=np.float32)
            nl.store(out[m, ip, n * NB + inb], value=res[ip, inb])
    return out
