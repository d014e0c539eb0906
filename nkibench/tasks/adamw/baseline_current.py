import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(theta, g, m, v):
    # Current NKI API (nki.*): the classic baseline.py's algorithm and tiling, with explicit destinations.
    # All four tensors are [M, N]; rows go in tiles of 128 partitions. The last tile covers only the M % 128 rows
    # left (the classic kernel masks it; here every access is sliced to those rows).
    M, N = theta.shape
    out = nl.ndarray((M, N), dtype=theta.dtype, buffer=nl.shared_hbm)
    n_tiles = (M + 127) // 128

    def tile():
        return nl.ndarray((128, N), dtype=nl.float32, buffer=nl.sbuf)

    for t in nl.affine_range(n_tiles):
        r0 = t * 128
        n = min(128, M - r0)
        th, gg, mm, vv = tile(), tile(), tile(), tile()
        nisa.dma_copy(dst=th[0:n, :], src=theta[r0:r0 + n, :])
        nisa.dma_copy(dst=gg[0:n, :], src=g[r0:r0 + n, :])
        nisa.dma_copy(dst=mm[0:n, :], src=m[r0:r0 + n, :])
        nisa.dma_copy(dst=vv[0:n, :], src=v[r0:r0 + n, :])
        # m_t = 0.9 m + 0.1 g
        mt, g1, mt2 = tile(), tile(), tile()
        nisa.tensor_scalar(dst=mt[0:n, :], data=mm[0:n, :], op0=nl.multiply, operand0=0.9)
        nisa.tensor_scalar(dst=g1[0:n, :], data=gg[0:n, :], op0=nl.multiply, operand0=0.1)
        nisa.tensor_tensor(dst=mt2[0:n, :], data1=mt[0:n, :], data2=g1[0:n, :], op=nl.add)
        # v_t = 0.999 v + 0.001 g^2
        g2, g2s, vt, vt2 = tile(), tile(), tile(), tile()
        nisa.tensor_tensor(dst=g2[0:n, :], data1=gg[0:n, :], data2=gg[0:n, :], op=nl.multiply)
        nisa.tensor_scalar(dst=g2s[0:n, :], data=g2[0:n, :], op0=nl.multiply, operand0=0.001)
        nisa.tensor_scalar(dst=vt[0:n, :], data=vv[0:n, :], op0=nl.multiply, operand0=0.999)
        nisa.tensor_tensor(dst=vt2[0:n, :], data1=vt[0:n, :], data2=g2s[0:n, :], op=nl.add)
        # den = sqrt(1000 v_t) + 1e-8; step = 0.01 m_t / den
        den, den2, inv, step, step2 = tile(), tile(), tile(), tile(), tile()
        nisa.activation(dst=den[0:n, :], op=nl.sqrt, data=vt2[0:n, :], scale=1000.0)
        nisa.tensor_scalar(dst=den2[0:n, :], data=den[0:n, :], op0=nl.add, operand0=1e-8)
        nisa.reciprocal(dst=inv[0:n, :], data=den2[0:n, :])
        nisa.tensor_tensor(dst=step[0:n, :], data1=mt2[0:n, :], data2=inv[0:n, :], op=nl.multiply)
        nisa.tensor_scalar(dst=step2[0:n, :], data=step[0:n, :], op0=nl.multiply, operand0=0.01)
        # theta' = theta (1 - 1e-5) - step
        th2, res = tile(), tile()
        nisa.tensor_scalar(dst=th2[0:n, :], data=th[0:n, :], op0=nl.multiply, operand0=1.0 - 1e-5)
        nisa.tensor_tensor(dst=res[0:n, :], data1=th2[0:n, :], data2=step2[0:n, :], op=nl.subtract)
        nisa.dma_copy(dst=out[r0:r0 + n, :], src=res[0:n, :])
    return out
