import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # lhs: (B, M, K) with K <= 128; rhs: (B, K, N); out: (B, M/128, 128, N).
    B, M, K = lhs.shape
    N = rhs.shape[2]
    MT = M // 128
    NB = 512
    NT = N // NB
    out = nl.ndarray((B, MT, 128, N), dtype=lhs.dtype, buffer=nl.shared_hbm)

    ip = nl.arange(128)[:, None]
    i128 = nl.arange(128)[None, :]
    ik_p = nl.arange(K)[:, None]
    ik_f = nl.arange(K)[None, :]
    i_n = nl.arange(N)[None, :]
    inb = nl.arange(NB)[None, :]

    ident_hbm = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="ident")
    ident[ip, i128] = nl.load(ident_hbm[ip, i128], dtype=np.float32)

    for b in nl.affine_range(B):
        # The whole rhs[b] (K partitions x N) stays in SBUF for this batch.
        r_sb = nl.ndarray((nl.par_dim(K), N), dtype=np.float32, buffer=nl.sbuf, name="r_sb")
        r_sb[ik_p, i_n] = nl.load(rhs[b, ik_p, i_n], dtype=np.float32)
        for m in nl.affine_range(MT):
            a_sb = nl.ndarray((nl.par_dim(128), K), dtype=np.float32, buffer=nl.sbuf, name="a_sb")
            a_sb[ip, ik_f] = nl.load(lhs[b, m * 128 + ip, ik_f], dtype=np.float32)
            # a^T: [K, 128] with K on partitions.
            tp = nl.zeros((nl.par_dim(K), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
            tp[ik_p, i128] += nisa.nc_matmul(a_sb[ip, ik_f], ident[ip, i128], is_stationary_onezero=False,
                                             is_moving_onezero=True, is_transpose=True)
            aT = nl.ndarray((nl.par_dim(K), 128), dtype=np.float32, buffer=nl.sbuf, name="aT")
            aT[ik_p, i128] = nl.copy(tp[ik_p, i128], dtype=np.float32)
            for n in nl.affine_range(NT):
                acc = nl.zeros((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                acc[ip, inb] += nisa.nc_matmul(aT[ik_p, i128], r_sb[ik_p, n * NB + inb])
                res = nl.ndarray((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.sbuf, name="res")
                res[ip, inb] = nl.copy(acc[ip, inb], dtype=np.float32)
                nl.store(out[b, m, ip, n * NB + inb], value=res[ip, inb])
    return out
