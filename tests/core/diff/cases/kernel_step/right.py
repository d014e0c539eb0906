import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x):
    # x: (128, J, N); row tile j is x[:, j, :] (partition p holds matrix row p*J + j).
    # Change against the baseline: SiLU is a single ScalarE activation (op=nl.silu), one pass over the tile.
    # The baseline needed exp on ScalarE and then +1, an 8-cycle-per-element nisa.reciprocal and a two-input
    # multiply on VectorE, which made VectorE the busiest engine.
    P, J, N = x.shape
    out = nl.ndarray((P, J, N), dtype=x.dtype, buffer=nl.shared_hbm)
    ip = nl.arange(P)[:, None]
    jf = nl.arange(N)[None, :]
    for j in nl.affine_range(J):
        xt = nl.ndarray((nl.par_dim(P), N), dtype=np.float32, buffer=nl.sbuf, name="xt")
        xt[ip, jf] = nl.load(x[ip, j, jf], dtype=np.float32)
        y = nisa.activation(op=nl.silu, data=xt[ip, jf], dtype=np.float32)
        nl.store(out[ip, j, jf], value=y)
    return out
