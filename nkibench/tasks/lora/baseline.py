import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w, a, b):
    # x: (MO, 4, 128, KT, 128); w: (KT, 128, N); a: (KT, 128, R); b: (R, N).
    # out: (MO, 4, 128, N/128, 128) = x @ w + (x @ a) @ b.
    MO, MI, _, KT, _ = x.shape
    N = w.shape[2]
    R = a.shape[2]
    NB = 512
    NC = N // NB
    Q = NB // 128  # 128-column slices of the output per column tile
    out = nl.ndarray((MO, MI, 128, N // 128, 128), dtype=x.dtype, buffer=nl.shared_hbm)

    ip = nl.arange(128)[:, None]
    i128 = nl.arange(128)[None, :]
    inb = nl.arange(NB)[None, :]
    ir_p = nl.arange(R)[:, None]
    ir_f = nl.arange(R)[None, :]

    ident_hbm = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="ident")
    ident[ip, i128] = nl.load(ident_hbm[ip, i128], dtype=np.float32)

    # The adapter weights are small: keep them in SBUF for the whole kernel.
    a_sb = nl.ndarray((KT, nl.par_dim(128), R), dtype=np.float32, buffer=nl.sbuf, name="a_sb")
    for kt in nl.affine_range(KT):
        a_sb[kt, ip, ir_f] = nl.load(a[kt, ip, ir_f], dtype=np.float32)
    b_sb = nl.ndarray((nl.par_dim(R), N), dtype=np.float32, buffer=nl.sbuf, name="b_sb")
    b_sb[ir_p, nl.arange(N)[None, :]] = nl.load(b[ir_p, nl.arange(N)[None, :]], dtype=np.float32)

    for mo in nl.affine_range(MO):
        for mi in nl.affine_range(MI):
            # x^T blocks [K-block, rows].
            xT = nl.ndarray((KT, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="xT")
            for kt in nl.affine_range(KT):
                xs = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="xs")
                xs[ip, i128] = nl.load(x[mo, mi, ip, kt, i128], dtype=np.float32)
                tp = nl.zeros((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                tp[ip, i128] += nisa.nc_matmul(xs[ip, i128], ident[ip, i128], is_stationary_onezero=False,
                                               is_moving_onezero=True, is_transpose=True)
                xT[kt, ip, i128] = nl.copy(tp[ip, i128], dtype=np.float32)

            # xa = x @ a: [rows, R], then (xa)^T: [R, rows] as the stationary operand of the adapter product.
            xa_ps = nl.zeros((nl.par_dim(128), R), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
            for kt in nl.affine_range(KT):
                xa_ps[ip, ir_f] += nisa.nc_matmul(xT[kt, ip, i128], a_sb[kt, ip, ir_f])
            xa = nl.ndarray((nl.par_dim(128), R), dtype=np.float32, buffer=nl.sbuf, name="xa")
            xa[ip, ir_f] = nl.copy(xa_ps[ip, ir_f], dtype=np.float32)
            xaT_ps = nl.zeros((nl.par_dim(R), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
            xaT_ps[ir_p, i128] += nisa.nc_matmul(xa[ip, ir_f], ident[ip, i128], is_stationary_onezero=False,
                                                 is_moving_onezero=True, is_transpose=True)
            xaT = nl.ndarray((nl.par_dim(R), 128), dtype=np.float32, buffer=nl.sbuf, name="xaT")
            xaT[ir_p, i128] = nl.copy(xaT_ps[ir_p, i128], dtype=np.float32)

            for nc in nl.affine_range(NC):
                acc = nl.zeros((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                for kt in nl.affine_range(KT):
                    w_sb = nl.ndarray((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.sbuf, name="w_sb")
                    w_sb[ip, inb] = nl.load(w[kt, ip, nc * NB + inb], dtype=np.float32)
                    acc[ip, inb] += nisa.nc_matmul(xT[kt, ip, i128], w_sb[ip, inb])
                acc[ip, inb] += nisa.nc_matmul(xaT[ir_p, i128], b_sb[ir_p, nc * NB + inb])
                res = nl.ndarray((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.sbuf, name="res")
                res[ip, inb] = nl.copy(acc[ip, inb], dtype=np.float32)
                for q in nl.affine_range(Q):
                    nl.store(out[mo, mi, ip, nc * Q + q, i128], value=res[ip, q * 128 + i128])
    return out
