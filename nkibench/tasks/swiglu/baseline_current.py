import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, w_up, w_down, w_gate):
    # Current NKI API (nki.*): the classic baseline.py's algorithm and tiling, with explicit destinations.
    # x: (MO, 4, 128, KT, 128) = [M, K] in 512-row groups; w_up, w_gate: (KT, 128, N); w_down: (NT, 128, K).
    # out: (M/128, 128, K) = (silu(x @ w_gate) * (x @ w_up)) @ w_down.
    MO, MI, _, KT, _ = x.shape
    N = w_up.shape[2]
    NT, _, K = w_down.shape
    NB = 512                      # column tile of the gate/up products
    NC = N // NB
    KB = 512 if K >= 512 else K   # column tile of the down product
    KC = K // KB
    out = nl.ndarray((MO * MI, 128, K), dtype=x.dtype, buffer=nl.shared_hbm)

    ident = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ident, src=nl.shared_constant(np.identity(128, dtype=np.float32)))

    def sbuf(f):
        return nl.ndarray((128, f), dtype=nl.float32, buffer=nl.sbuf)

    for mo in nl.affine_range(MO):
        # x^T blocks for the 4 row tiles of this group: xT[:, mi*KT + kt, :] = x[mo, mi, :, kt, :]^T.
        xT = nl.ndarray((128, MI * KT, 128), dtype=nl.float32, buffer=nl.sbuf)
        for mi in nl.affine_range(MI):
            for kt in nl.affine_range(KT):
                xs = sbuf(128)
                nisa.dma_copy(dst=xs, src=x[mo, mi, 0:128, kt, 0:128])
                tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_matmul(dst=tp, stationary=xs, moving=ident, is_moving_onezero=True, is_transpose=True)
                nisa.tensor_copy(dst=xT[0:128, mi * KT + kt, 0:128], src=tp)

        # h = silu(x @ w_gate) * (x @ w_up), one 512-column tile at a time; weights loaded once per group.
        h = nl.ndarray((128, MI, N), dtype=nl.float32, buffer=nl.sbuf)
        for nc in nl.affine_range(NC):
            c0 = nc * NB
            wg = nl.ndarray((128, KT, NB), dtype=nl.float32, buffer=nl.sbuf)
            wu = nl.ndarray((128, KT, NB), dtype=nl.float32, buffer=nl.sbuf)
            for kt in nl.affine_range(KT):
                nisa.dma_copy(dst=wg[0:128, kt, 0:NB], src=w_gate[kt, 0:128, c0:c0 + NB])
                nisa.dma_copy(dst=wu[0:128, kt, 0:NB], src=w_up[kt, 0:128, c0:c0 + NB])
            for mi in nl.affine_range(MI):
                gp = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.psum)
                up = nl.ndarray((128, NB), dtype=nl.float32, buffer=nl.psum)
                for kt in nl.affine_range(KT):
                    nisa.nc_matmul(dst=gp, stationary=xT[0:128, mi * KT + kt, 0:128], moving=wg[0:128, kt, 0:NB])
                    nisa.nc_matmul(dst=up, stationary=xT[0:128, mi * KT + kt, 0:128], moving=wu[0:128, kt, 0:NB])
                gs, e, d, r, sg = sbuf(NB), sbuf(NB), sbuf(NB), sbuf(NB), sbuf(NB)
                nisa.tensor_copy(dst=gs, src=gp)
                nisa.activation(dst=e, op=nl.exp, data=gs, scale=-1.0)
                nisa.tensor_scalar(dst=d, data=e, op0=nl.add, operand0=1.0)
                nisa.reciprocal(dst=r, data=d)
                nisa.tensor_tensor(dst=sg, data1=gs, data2=r, op=nl.multiply)
                nisa.tensor_tensor(dst=h[0:128, mi, c0:c0 + NB], data1=sg, data2=up, op=nl.multiply)

        # out = h @ w_down: transpose h into [N-block, rows] tiles, then accumulate over N blocks.
        for mi in nl.affine_range(MI):
            hT = nl.ndarray((128, NT, 128), dtype=nl.float32, buffer=nl.sbuf)
            for nt in nl.affine_range(NT):
                tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
                nisa.nc_matmul(dst=tp, stationary=h[0:128, mi, nt * 128:(nt + 1) * 128], moving=ident,
                               is_moving_onezero=True, is_transpose=True)
                nisa.tensor_copy(dst=hT[0:128, nt, 0:128], src=tp)
            for kc in nl.affine_range(KC):
                acc = nl.ndarray((128, KB), dtype=nl.float32, buffer=nl.psum)
                for nt in nl.affine_range(NT):
                    wd = sbuf(KB)
                    nisa.dma_copy(dst=wd, src=w_down[nt, 0:128, kc * KB:(kc + 1) * KB])
                    nisa.nc_matmul(dst=acc, stationary=hT[0:128, nt, 0:128], moving=wd)
                res = sbuf(KB)
                nisa.tensor_copy(dst=res, src=acc)
                nisa.dma_copy(dst=out[mo * MI + mi, 0:128, kc * KB:(kc + 1) * KB], src=res)
    return out
