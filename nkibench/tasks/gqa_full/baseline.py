import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(q, k, v):
    # q: (B*N/128, 128, QH, D); k: (B, N/512, 4, 128, KH, D); v: (B, N/128, 128, KH*D).
    # out: (B, KH, G, N/128, 128, D) with query head h = kh*G + g attending to KV head kh.
    B, NJ, NI, _, KH, D = k.shape
    QH = q.shape[2]
    G = QH // KH
    NT = NJ * NI          # 128-token tiles
    N = NT * 128
    NB = 512              # score columns per PSUM bank
    NC = N // NB
    scale = 1.0 / float(np.sqrt(D))
    out = nl.ndarray((B, KH, G, NT, 128, D), dtype=q.dtype, buffer=nl.shared_hbm)

    ip = nl.arange(128)[:, None]
    i128 = nl.arange(128)[None, :]
    id_p = nl.arange(D)[:, None]
    id_f = nl.arange(D)[None, :]
    i_n = nl.arange(N)[None, :]
    inb = nl.arange(NB)[None, :]
    i1 = nl.arange(1)[None, :]

    ident_hbm = nl.shared_constant(np.identity(128, dtype=np.float32))
    ident = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="ident")
    ident[ip, i128] = nl.load(ident_hbm[ip, i128], dtype=np.float32)

    for b in nl.affine_range(B):
        for kh in nl.affine_range(KH):
            # K^T for this head: [D, N]; V for this head: NT tiles of [128 tokens, D].
            kT = nl.ndarray((nl.par_dim(D), N), dtype=np.float32, buffer=nl.sbuf, name="kT")
            v_sb = nl.ndarray((NT, nl.par_dim(128), D), dtype=np.float32, buffer=nl.sbuf, name="v_sb")
            for j in nl.affine_range(NJ):
                for i in nl.affine_range(NI):
                    ks = nl.ndarray((nl.par_dim(128), D), dtype=np.float32, buffer=nl.sbuf, name="ks")
                    ks[ip, id_f] = nl.load(k[b, j, i, ip, kh, id_f], dtype=np.float32)
                    tp = nl.zeros((nl.par_dim(D), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                    tp[id_p, i128] += nisa.nc_matmul(ks[ip, id_f], ident[ip, i128], is_stationary_onezero=False,
                                                     is_moving_onezero=True, is_transpose=True)
                    kT[id_p, (j * NI + i) * 128 + i128] = nl.copy(tp[id_p, i128], dtype=np.float32)
                    v_sb[j * NI + i, ip, id_f] = nl.load(v[b, j * NI + i, ip, kh * D + id_f], dtype=np.float32)

            for g in nl.affine_range(G):
                for qt in nl.affine_range(NT):
                    qs = nl.ndarray((nl.par_dim(128), D), dtype=np.float32, buffer=nl.sbuf, name="qs")
                    qs[ip, id_f] = nl.load(q[b * NT + qt, ip, kh * G + g, id_f], dtype=np.float32)
                    tq = nl.zeros((nl.par_dim(D), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                    tq[id_p, i128] += nisa.nc_matmul(qs[ip, id_f], ident[ip, i128], is_stationary_onezero=False,
                                                     is_moving_onezero=True, is_transpose=True)
                    qT = nl.ndarray((nl.par_dim(D), 128), dtype=np.float32, buffer=nl.sbuf, name="qT")
                    qT[id_p, i128] = nl.copy(tq[id_p, i128], dtype=np.float32)

                    # Scaled scores for the full row: s[128 queries, N keys].
                    s = nl.ndarray((nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf, name="s")
                    for c in nl.affine_range(NC):
                        sp = nl.zeros((nl.par_dim(128), NB), dtype=np.float32, buffer=nl.psum,
                                      lazy_initialization=True)
                        sp[ip, inb] += nisa.nc_matmul(qT[id_p, i128], kT[id_p, c * NB + inb])
                        s[ip, c * NB + inb] = nisa.tensor_scalar(data=sp[ip, inb], op0=nl.multiply,
                                                                 operand0=scale, dtype=np.float32)

                    # p = exp(s - max(s)), row sums kept for the final normalisation.
                    neg_max = nl.ndarray((nl.par_dim(128), 1), dtype=np.float32, buffer=nl.sbuf, name="neg_max")
                    neg_max[ip, i1] = nisa.tensor_reduce(nl.max, data=s[ip, i_n], axis=[1], negate=True,
                                                         dtype=np.float32)
                    p = nl.ndarray((nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf, name="p")
                    p[ip, i_n] = nisa.activation(op=nl.exp, data=s[ip, i_n], bias=neg_max[ip, i1], scale=1.0,
                                                 dtype=np.float32)
                    tot = nl.ndarray((nl.par_dim(128), 1), dtype=np.float32, buffer=nl.sbuf, name="tot")
                    tot[ip, i1] = nisa.tensor_reduce(nl.add, data=p[ip, i_n], axis=[1], dtype=np.float32)

                    # o = p @ v: transpose each 128-key block of p, accumulate over key blocks.
                    acc = nl.zeros((nl.par_dim(128), D), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
                    for t in nl.affine_range(NT):
                        tpp = nl.zeros((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.psum,
                                       lazy_initialization=True)
                        tpp[ip, i128] += nisa.nc_matmul(p[ip, t * 128 + i128], ident[ip, i128],
                                                        is_stationary_onezero=False, is_moving_onezero=True,
                                                        is_transpose=True)
                        pT = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="pT")
                        pT[ip, i128] = nl.copy(tpp[ip, i128], dtype=np.float32)
                        acc[ip, id_f] += nisa.nc_matmul(pT[ip, i128], v_sb[t, ip, id_f])

                    inv = nisa.reciprocal(data=tot[ip, i1], dtype=np.float32)
                    o = nisa.tensor_scalar(data=acc[ip, id_f], op0=nl.multiply, operand0=inv, dtype=np.float32)
                    nl.store(out[b, kh, g, qt, ip, id_f], value=o)
    return out
