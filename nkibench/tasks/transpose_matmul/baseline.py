import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # lhs: (128, KJ, M), rhs: (128, KJ, N); contraction index k = p*KJ + j. out: (M/128, 128, N).
    _, KJ, M = lhs.shape
    N = rhs.shape[2]
    MT = M // 128
    NB = 512
    NT = (N + NB - 1) // NB  # the last column tile may be partial
    out = nl.ndarray((MT, 128, N), dtype=lhs.dtype, buffer=nl.shared_hbm)

    ip = nl.arange(128)[:, None]
    i128 = nl.arange(128)[None, :]
    inb = nl.arange(NB)[None, :]

    for m in nl.affine_range(MT):
        # Stationary operands: for each j, lhs[:, j, m-block] is already [K-part (128), M-block (128)].
        a_sb = nl.ndarray((KJ, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="a_sb")
        for j in nl.affine_range(KJ):
            a_sb[j, ip, i128] = nl.load(lhs[ip, j, m * 128 + i128], dtype=np.float32)
        for n in nl.affine_range(NT):
            cols = n * NB + inb
            acc = nl.zeros((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
            for j in nl.affine_range(KJ):
                b_sb = nl.ndarray((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.sbuf, name="b_sb")
                b_sb[ip, inb] = nl.load(rhs[ip, j, cols], mask=(cols < N), dtype=np.float32)
                acc[ip, inb] += nisa.nc_matmul(a_sb[j, ip, i128], b_sb[ip, inb], mask=(cols < N))
            res = nl.ndarray((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.sbuf, name="res")
            res[ip, inb] = nl.copy(acc[ip, inb], mask=(cols < N), dtype=np.float32)
            nl.store(out[m, ip, cols], value=res[ip, inb], mask=(cols < N))
    return out
