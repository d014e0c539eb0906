import nki
import nki.language as nl
import nki.isa as nisa


@nki.jit
def kernel(x, cos, sin):
    # Current NKI API (nki.*): the classic baseline.py's algorithm and tiling, with explicit destinations.
    # x: [D, S]; cos, sin: [D/2, S]; D/2 rows sit on partitions, S is walked in 512-column tiles.
    D, S = x.shape
    H2 = D // 2
    TS = 512
    out = nl.ndarray((D, S), dtype=x.dtype, buffer=nl.shared_hbm)

    def tile():
        return nl.ndarray((H2, TS), dtype=x.dtype, buffer=nl.sbuf)

    for s in nl.sequential_range(S // TS):
        c0 = s * TS
        x0, x1, c, sn = tile(), tile(), tile(), tile()
        nisa.dma_copy(dst=x0, src=x[0:H2, c0:c0 + TS])
        nisa.dma_copy(dst=x1, src=x[H2:D, c0:c0 + TS])
        nisa.dma_copy(dst=c, src=cos[0:H2, c0:c0 + TS])
        nisa.dma_copy(dst=sn, src=sin[0:H2, c0:c0 + TS])
        # top = x0*cos - x1*sin; bottom = x0*sin + x1*cos
        a, b, top, d, e, bot = tile(), tile(), tile(), tile(), tile(), tile()
        nisa.tensor_tensor(dst=a, data1=x0, data2=c, op=nl.multiply)
        nisa.tensor_tensor(dst=b, data1=x1, data2=sn, op=nl.multiply)
        nisa.tensor_tensor(dst=top, data1=a, data2=b, op=nl.subtract)
        nisa.tensor_tensor(dst=d, data1=x0, data2=sn, op=nl.multiply)
        nisa.tensor_tensor(dst=e, data1=x1, data2=c, op=nl.multiply)
        nisa.tensor_tensor(dst=bot, data1=d, data2=e, op=nl.add)
        nisa.dma_copy(dst=out[0:H2, c0:c0 + TS], src=top)
        nisa.dma_copy(dst=out[H2:D, c0:c0 + TS], src=bot)
    return out
