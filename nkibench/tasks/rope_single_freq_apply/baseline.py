import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, cos, sin):
    # x: [D, S]; cos, sin: [D/2, S]; D/2 rows sit on partitions, S is walked in 512-column tiles.
    D, S = x.shape
    H2 = D // 2
    TS = 512
    out = nl.ndarray((D, S), dtype=x.dtype, buffer=nl.shared_hbm)

    ih = nl.arange(H2)[:, None]
    it = nl.arange(TS)[None, :]
    for s in range(S // TS):
        cols = s * TS + it
        x0 = nl.load(x[ih, cols])
        x1 = nl.load(x[H2 + ih, cols])
        c = nl.load(cos[ih, cols])
        sn = nl.load(sin[ih, cols])
        # top = x0*cos - x1*sin; bottom = x0*sin + x1*cos
        a = nisa.tensor_tensor(x0, c, op=nl.multiply)
        b = nisa.tensor_tensor(x1, sn, op=nl.multiply)
        top = nisa.tensor_tensor(a, b, op=nl.subtract)
        d = nisa.tensor_tensor(x0, sn, op=nl.multiply)
        e = nisa.tensor_tensor(x1, c, op=nl.multiply)
        bot = nisa.tensor_tensor(d, e, op=nl.add)
        nl.store(out[ih, cols], top)
        nl.store(out[H2 + ih, cols], bot)
    return out
