"""Matmul calibration kernels: our own versions of the four steps the matmul tutorial describes (nki-facts §4.2).

C[M, N] = lhsT.T @ rhs with lhsT [K, M] and rhs [K, N] in bf16, fp32 accumulation in PSUM.
"""
from neuronxcc import nki
import neuronxcc.nki.language as nl

TK = 128  # contraction tile: partitions (TC#3, pmax)
TM = 128  # stationary free size (gemm_stationary_fmax)
TN = 512  # moving free size (gemm_moving_fmax, one PSUM bank of fp32)


@nki.jit
def matmul_tiled(lhsT, rhs):
    """Every (m, n, k) step loads both operand tiles."""
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        for n in nl.affine_range(N // TN):
            acc = nl.zeros((TM, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TK):
                a = nl.load(lhsT[k * TK:(k + 1) * TK, m * TM:(m + 1) * TM])
                b = nl.load(rhs[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN])
                acc += nl.matmul(a, b, transpose_x=True)
            res = nl.copy(acc, dtype=out.dtype)
            nl.store(out[m * TM:(m + 1) * TM, n * TN:(n + 1) * TN], value=res)
    return out


@nki.jit
def matmul_hoisted(lhsT, rhs):
    """The lhsT column strip is loaded once per m and reused for every n."""
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        a_strip = nl.ndarray((K // TK, nl.par_dim(TK), TM), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(K // TK):
            a_strip[k] = nl.load(lhsT[k * TK:(k + 1) * TK, m * TM:(m + 1) * TM])
        for n in nl.affine_range(N // TN):
            b_strip = nl.ndarray((K // TK, nl.par_dim(TK), TN), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(K // TK):
                b_strip[k] = nl.load(rhs[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN])
            acc = nl.zeros((TM, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TK):
                acc += nl.matmul(a_strip[k], b_strip[k], transpose_x=True)
            res = nl.copy(acc, dtype=out.dtype)
            nl.store(out[m * TM:(m + 1) * TM, n * TN:(n + 1) * TN], value=res)
    return out


@nki.jit
def matmul_block_free(lhsT, rhs):
    """M and N blocked: bm x 128 rows of lhsT and bn x 512 columns of rhs are reused bn and bm times."""
    bm, bn = 2, 2
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // (TM * bm)):
        a_blk = nl.ndarray((bm, K // TK, nl.par_dim(TK), TM), dtype=lhsT.dtype, buffer=nl.sbuf)
        for i in nl.affine_range(bm):
            for k in nl.affine_range(K // TK):
                a_blk[i, k] = nl.load(lhsT[k * TK:(k + 1) * TK, (m * bm + i) * TM:(m * bm + i + 1) * TM])
        for n in nl.affine_range(N // (TN * bn)):
            b_blk = nl.ndarray((bn, K // TK, nl.par_dim(TK), TN), dtype=rhs.dtype, buffer=nl.sbuf)
            for j in nl.affine_range(bn):
                for k in nl.affine_range(K // TK):
                    b_blk[j, k] = nl.load(rhs[k * TK:(k + 1) * TK, (n * bn + j) * TN:(n * bn + j + 1) * TN])
            for i in nl.affine_range(bm):
                for j in nl.affine_range(bn):
                    acc = nl.zeros((TM, TN), dtype=nl.float32, buffer=nl.psum)
                    for k in nl.affine_range(K // TK):
                        acc += nl.matmul(a_blk[i, k], b_blk[j, k], transpose_x=True)
                    res = nl.copy(acc, dtype=out.dtype)
                    r0 = (m * bm + i) * TM
                    c0 = (n * bn + j) * TN
                    nl.store(out[r0:r0 + TM, c0:c0 + TN], value=res)
    return out


@nki.jit
def matmul_block_mnk(lhsT, rhs):
    """M, N and K blocked; K blocks run in a sequential_range and accumulate into SBUF partial sums."""
    bm, bn, bk = 16, 2, 8
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    BM, BN, BK = TM * bm, TN * bn, TK * bk
    n_bm = M // BM
    for n in nl.affine_range(N // BN):
        part = nl.zeros((n_bm, bm, bn, nl.par_dim(TM), TN), dtype=nl.float32, buffer=nl.sbuf)
        for kb in nl.sequential_range(K // BK):
            b_blk = nl.ndarray((bk, nl.par_dim(TK), BN), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(bk):
                r0 = (kb * bk + k) * TK
                b_blk[k] = nl.load(rhs[r0:r0 + TK, n * BN:(n + 1) * BN])
            for m in nl.affine_range(n_bm):
                a_blk = nl.ndarray((bk, nl.par_dim(TK), BM), dtype=lhsT.dtype, buffer=nl.sbuf)
                for k in nl.affine_range(bk):
                    r0 = (kb * bk + k) * TK
                    a_blk[k] = nl.load(lhsT[r0:r0 + TK, m * BM:(m + 1) * BM])
                for j in nl.affine_range(bn):
                    for i in nl.affine_range(bm):
                        acc = nl.zeros((TM, TN), dtype=nl.float32, buffer=nl.psum)
                        for k in nl.affine_range(bk):
                            acc += nl.matmul(a_blk[k, :, i * TM:(i + 1) * TM], b_blk[k, :, j * TN:(j + 1) * TN],
                                             transpose_x=True)
                        part[m, i, j] = nl.add(part[m, i, j], acc)
        for m in nl.affine_range(n_bm):
            for i in nl.affine_range(bm):
                res = nl.ndarray((nl.par_dim(TM), BN), dtype=out.dtype, buffer=nl.sbuf)
                for j in nl.affine_range(bn):
                    res[:, j * TN:(j + 1) * TN] = nl.copy(part[m, i, j], dtype=out.dtype)
                r0 = m * BM + i * TM
                nl.store(out[r0:r0 + TM, n * BN:(n + 1) * BN], value=res)
    return out
