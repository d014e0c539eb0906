import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(lhs, rhs):
    # Current NKI API (nki.*): the classic baseline.py's algorithm and tiling, with explicit destinations.
    # lhs: (128, KJ, M), rhs: (128, KJ, N); contraction index k = p*KJ + j. out: (M/128, 128, N).
    _, KJ, M = lhs.shape
    N = rhs.shape[2]
    MT = M // 128
    NB = 512
    NT = (N + NB - 1) // NB  # the last column tile may be partial: w columns (classic: a mask; here: slices)
    out = nl.ndarray((MT, 128, N), dtype=lhs.dtype, buffer=nl.shared_hbm)

    for m in nl.affine_range(MT):
        # Stationary operands: for each j, lhs[:, j, m-block] is already [K-part (128), M-block (128)].
        a_sb = nl.ndarray((128, KJ, 128), dtype=nl.float32, buffer=nl.sbuf)
        for j in nl.affine_range(KJ):
            nisa.dma_copy(dst=a_sb[0:128, j, 0:128], src=lhs[0:128, j, m * 128:(m + 1) * 128])
        for n in nl.affine_range(NT):
            c0 = n * NB
            w = min(NB, N - c0)
            acc = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.psum)
            for j in nl.affine_range(KJ):
                b_sb = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.sbuf)
                nisa.dma_copy(dst=b_sb[0:128, 0:w], src=rhs[0:128, j, c0:c0 + w])
                nisa.nc_matmul(dst=acc[0:128, 0:w], stationary=a_sb[0:128, j, 0:128], moving=b_sb[0:128, 0:w])
            res = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res[0:128, 0:w], src=acc[0:128, 0:w])
            nisa.dma_copy(dst=out[m, 0:128, c0:c0 + w], src=res[0:128, 0:w])
    return out
