"""DMA calibration kernels: the memory-bound cases behind the published DMA measurements (constants.py DMA block).

- load_tile: one HBM -> SBUF load of the whole input, as in the DMA overview's Example 1 ([4, 4096] bf16 on one
  DMA engine, 1416 ns on trn2) and Example 2 ([128, 128] bf16, 2 KiB per engine).
- stream_copy: load and store [128, cols] tiles back to back, the shape of the perf guide's Opt #9 example
  (128 x 1024 fp32 tiles: 16 transfers of 32 KiB, one per engine) whose profile (fig30) shows all 16 engines busy.
"""
from neuronxcc import nki
import neuronxcc.nki.language as nl


@nki.jit
def load_tile(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=t)
    return out


@nki.jit
def stream_copy(x):
    """x [n, 128, cols]: tile i is loaded and stored back to out[i]."""
    n, p, cols = x.shape
    out = nl.ndarray((n, p, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n):
        t = nl.load(x[i])
        nl.store(out[i], value=t)
    return out
