import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, w, eps, z, g):
    # x: [M, K], w: [K, N], z: [M, N], g: [N]; out[M, N] = rmsnorm(x @ w + z) * g.
    M, K = x.shape
    N = w.shape[1]
    MT, KT = M // 128, K // 128
    NB = 512
    NT = N // NB
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)

    ip = nl.arange(128)[:, None]
    i128 = nl.arange(128)[None, :]
    ik = nl.arange(K)[None, :]
    i_n = nl.arange(N)[None, :]
    inb = nl.arange(NB)[None, :]

    # The gain, broadcast once to all 128 partitions.
    g_row = nl.load(g.reshape((1, N)))
    g_b = g_row.broadcast_to((128, N))

    for m in nl.affine_range(MT):
        x_sb = nl.load(x[m * 128 + ip, ik])
        xT = nl.ndarray((KT, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            xT[k, ip, i128] = nl.copy(nl.transpose(x_sb[ip, k * 128 + i128]))

        y = nl.ndarray((nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf)
        for n in nl.affine_range(NT):
            acc = nl.zeros((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                w_sb = nl.load(w[k * 128 + ip, n * NB + inb])
                acc += nl.matmul(xT[k, ip, i128], w_sb, transpose_x=True)
            z_sb = nl.load(z[m * 128 + ip, n * NB + inb])
            y[ip, n * NB + inb] = nl.add(acc, z_sb)

        # rstd = 1 / sqrt(mean(y^2) + eps)
        ss = nl.sum(nl.square(y), axis=[1])
        rstd = nl.rsqrt(nl.add(nl.multiply(ss, 1.0 / N), eps))
        res = nl.multiply(nl.multiply(y, rstd), g_b)
        nl.store(out[m * 128 + ip, i_n], value=res)
    return out
