"""What Tile's Python operators and instruction-issuing methods mean (tensor.py defines them and calls these):
each is the instruction(s) the compiler emits for it, built from the shared instruction helpers (compute.py) and
assignment (assign.py), so a tile's `+`, `==`, `t[...] = v` or `t += v` is the same instruction in both front ends
and needs neither of them loaded."""
from __future__ import annotations

import math

import numpy as np

from . import assign, compute, core, dtypes
from .core import cerr, tile_arg
from .creation import create
from .tensor import Tile

setitem = assign.setitem
inplace = assign.inplace


def binary(name, a, b):
    """a <op> b for an ALU op name (`a + b` is binary("add", a, b), `2 - t` is binary("subtract", 2, t))."""
    return compute.elementwise(name, a, b, bool_out=compute.is_boolean(name))


def equality(name, a, b):
    """`==` / `!=` are elementwise (nl.equal / nl.not_equal) against a tile or a scalar. Anything else (None, a
    string, an index array) gets NotImplemented, so Python falls back to identity and `t == None` stays False."""
    if isinstance(b, Tile) or core.is_scalar(b) or (isinstance(b, np.ndarray) and b.ndim == 0):
        return binary(name, a, b)
    return NotImplemented


def negative(t):
    return compute.scalar_op("neg", t, "multiply", -1.0, False, None, None, False, t.dtype, None, "vector", True)


def absolute(t):
    return compute.activation("nl.abs", "abs", t, None, 1.0, None, None, None, None)


def invert(t):
    return compute.vector_unary("invert", t)


def floordiv(a, b):
    """a // b: a divide, then floor on ScalarE (as nl.floor(nl.divide(a, b)))."""
    return compute.activation("nl.floor", "floor", binary("divide", a, b), None, 1.0, None, None, None, None)


def astype(t, dtype):
    return compute.copy(t, dtype=dtype)


def broadcast_to(src, shape):
    """src broadcast to shape: a stride-0 view along free axes (and from HBM), no instruction; along the partition
    axis TensorE multiplies a ones column by the row, 512 columns at a time, and the result is evicted from PSUM."""
    shape = tuple(int(s) for s in shape)
    if tuple(src.shape) == shape:
        return src
    try:
        ok = np.broadcast_shapes(src.shape, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise cerr(f"cannot broadcast shape {src.shape} to {shape}")
    if src.alloc.memory == "hbm" or len(src.shape) != len(shape) or src.shape[0] == shape[0]:
        if src.inner is not None:
            return Tile(src.alloc, src.key, shape, src.inner)
        return Tile(src.alloc, src.key, shape, src.shape)
    tile_arg(src, "broadcast_to", "src")
    p, f = shape[0], math.prod(shape[1:])
    out = create(shape, src.dtype, "sbuf", "sbuf", "", "garbage")
    flat = src.reshape((1, f)) if len(src.shape) != 2 else src
    srcv = flat if flat.shape[1] == f else Tile(flat.alloc, flat.key, (1, f), flat.shape)
    outv = out.reshape((p, f)) if len(shape) != 2 else out
    for c0 in range(0, f, 512):
        c1 = min(f, c0 + 512)
        piece = srcv[0:1, c0:c1]
        mm = core.run_op("broadcast_to", "nc_matmul", "tensor", [piece],
                         lambda v, p=p: np.broadcast_to(v, (p, v.shape[1])), (p, c1 - c0), dtypes.float32,
                         out_mem="psum", counts_override=(1, c1 - c0),
                         attrs={"k": 1, "m": p, "n": c1 - c0, "moving_dtype": src.alloc.dtype.name,
                                "stationary_dtype": src.alloc.dtype.name, "accumulate": False,
                                "is_stationary_onezero": True, "broadcast": True})
        outv[0:p, c0:c1] = mm
    return out
