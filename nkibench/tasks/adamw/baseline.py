import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(theta, g, m, v):
    # All four tensors are [M, N]; rows go in tiles of 128 partitions, the last tile is masked when M % 128 != 0.
    M, N = theta.shape
    out = nl.ndarray((M, N), dtype=theta.dtype, buffer=nl.shared_hbm)
    n_tiles = (M + 127) // 128
    ip = nl.arange(128)[:, None]
    jf = nl.arange(N)[None, :]
    for t in nl.affine_range(n_tiles):
        rows = t * 128 + ip
        live = rows < M
        th = nl.load(theta[rows, jf], mask=live, dtype=np.float32)
        gg = nl.load(g[rows, jf], mask=live, dtype=np.float32)
        mm = nl.load(m[rows, jf], mask=live, dtype=np.float32)
        vv = nl.load(v[rows, jf], mask=live, dtype=np.float32)
        # m_t = 0.9 m + 0.1 g
        mt = nisa.tensor_scalar(data=mm, op0=nl.multiply, operand0=0.9, mask=live, dtype=np.float32)
        g1 = nisa.tensor_scalar(data=gg, op0=nl.multiply, operand0=0.1, mask=live, dtype=np.float32)
        mt = nl.add(mt, g1, mask=live, dtype=np.float32)
        # v_t = 0.999 v + 0.001 g^2
        g2 = nl.multiply(gg, gg, mask=live, dtype=np.float32)
        g2 = nisa.tensor_scalar(data=g2, op0=nl.multiply, operand0=0.001, mask=live, dtype=np.float32)
        vt = nisa.tensor_scalar(data=vv, op0=nl.multiply, operand0=0.999, mask=live, dtype=np.float32)
        vt = nl.add(vt, g2, mask=live, dtype=np.float32)
        # den = sqrt(1000 v_t) + 1e-8; step = 0.01 m_t / den
        den = nisa.activation(op=nl.sqrt, data=vt, scale=1000.0, mask=live, dtype=np.float32)
        den = nisa.tensor_scalar(data=den, op0=nl.add, operand0=1e-8, mask=live, dtype=np.float32)
        inv = nisa.reciprocal(data=den, mask=live, dtype=np.float32)
        step = nl.multiply(mt, inv, mask=live, dtype=np.float32)
        step = nisa.tensor_scalar(data=step, op0=nl.multiply, operand0=0.01, mask=live, dtype=np.float32)
        # theta' = theta (1 - 1e-5) - step
        th = nisa.tensor_scalar(data=th, op0=nl.multiply, operand0=1.0 - 1e-5, mask=live, dtype=np.float32)
        res = nl.subtract(th, step, mask=live, dtype=np.float32)
        nl.store(out[rows, jf], value=res, mask=live)
    return out
