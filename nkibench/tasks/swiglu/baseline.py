import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w_up, w_down, w_gate):
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

    ip = nl.arange(128)[:, None]
    i128 = nl.arange(128)[None, :]
    inb = nl.arange(NB)[None, :]
    ikb = nl.arange(KB)[None, :]

    ident_hbm = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="ident")
    ident[ip, i128] = nl.load(ident_hbm[ip, i128], dtype=np.float32)

    for mo in nl.affine_range(MO):
        # x^T blocks for the 4 row tiles of this group: xT[mi*KT + kt] = x[mo, mi, :, kt, :]^T.
        xT = nl.ndarray((MI * KT, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="xT")
        for mi in nl.affine_range(MI):
            for kt in nl.affine_range(KT):
                xs = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="xs")
                xs[ip, i128] = nl.load(x[mo, mi, ip, kt, i128], dtype=np.float32)
                tp = nl.zeros((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                tp[ip, i128] += nisa.nc_matmul(xs[ip, i128], ident[ip, i128], is_stationary_onezero=False,
                                               is_moving_onezero=True, is_transpose=True)
                xT[mi * KT + kt, ip, i128] = nl.copy(tp[ip, i128], dtype=np.float32)

        # h = silu(x @ w_gate) * (x @ w_up), one 512-column tile at a time; weights loaded once per group.
        h = nl.ndarray((MI, nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf, name="h")
        for nc in nl.affine_range(NC):
            wg = nl.ndarray((KT, nl.par_dim(128), NB), dtype=np.float32, buffer=nl.sbuf, name="wg")
            wu = nl.ndarray((KT, nl.par_dim(128), NB), dtype=np.float32, buffer=nl.sbuf, name="wu")
            for kt in nl.affine_range(KT):
                wg[kt, ip, inb] = nl.load(w_gate[kt, ip, nc * NB + inb], dtype=np.float32)
                wu[kt, ip, inb] = nl.load(w_up[kt, ip, nc * NB + inb], dtype=np.float32)
            for mi in nl.affine_range(MI):
                gp = nl.zeros((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                up = nl.zeros((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                for kt in nl.affine_range(KT):
                    gp[ip, inb] += nisa.nc_matmul(xT[mi * KT + kt, ip, i128], wg[kt, ip, inb])
                    up[ip, inb] += nisa.nc_matmul(xT[mi * KT + kt, ip, i128], wu[kt, ip, inb])
                gs = nl.copy(gp[ip, inb], dtype=np.float32)
                e = nisa.activation(op=nl.exp, data=gs, scale=-1.0, dtype=np.float32)
                d = nisa.tensor_scalar(data=e, op0=nl.add, operand0=1.0, dtype=np.float32)
                r = nisa.reciprocal(data=d, dtype=np.float32)
                sg = nl.multiply(gs, r, dtype=np.float32)
                h[mi, ip, nc * NB + inb] = nl.multiply(sg, up[ip, inb], dtype=np.float32)

        # out = h @ w_down: transpose h into [N-block, rows] tiles, then accumulate over N blocks.
        for mi in nl.affine_range(MI):
            hT = nl.ndarray((NT, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="hT")
            for nt in nl.affine_range(NT):
                tp = nl.zeros((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                tp[ip, i128] += nisa.nc_matmul(h[mi, ip, nt * 128 + i128], ident[ip, i128],
                                               is_stationary_onezero=False, is_moving_onezero=True,
                                               is_transpose=True)
                hT[nt, ip, i128] = nl.copy(tp[ip, i128], dtype=np.float32)
            for kc in nl.affine_range(KC):
                acc = nl.zeros((nl.par_dim(128), KB), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                for nt in nl.affine_range(NT):
                    wd = nl.ndarray((nl.par_dim(128), KB), dtype=np.float32, buffer=nl.sbuf, name="wd")
                    wd[ip, ikb] = nl.load(w_down[nt, ip, kc * KB + ikb], dtype=np.float32)
                    acc[ip, ikb] += nisa.nc_matmul(hT[nt, ip, i128], wd[ip, ikb])
                res = nl.ndarray((nl.par_dim(128), KB), dtype=np.float32, buffer=nl.sbuf, name="res")
                res[ip, ikb] = nl.copy(acc[ip, ikb], dtype=np.float32)
                nl.store(out[mo * MI + mi, ip, kc * KB + ikb], value=res[ip, ikb])
    return out
