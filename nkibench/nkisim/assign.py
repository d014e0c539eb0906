"""Assignment: `dst[...] = value` and `dst op= value`. An instruction's result assigned to a view lands in it
directly (the instruction writes dst, no extra copy), as the compiler does, where the op registry says the
instruction can write dst's memory; a scalar becomes a memset and anything else a copy. A matmul result `+=` into
PSUM accumulates there, in accumulation groups (continues_group).

Both front ends end here: the classic one through Tile's operators (tensor.py, tileops.py), current/ through
store_into and redirect for its explicit destinations."""
from __future__ import annotations

import math

import numpy as np

from . import compute, opregistry, replay
from .context import current
from .core import broadcastable, cerr, check_free_size, is_scalar, tile_arg, values
from .ops import BINARY
from .tensor import Tile


def _fresh(value):
    if not isinstance(value, Tile) or value.key is not None or value.inner is not None:
        return None
    p = value.alloc.pending
    if p is None:
        return None
    tr = current().trace.instrs
    return p if tr and p[0] is tr[-1] else None


def store_into(view, value, api="assignment", accumulate=False):
    if isinstance(value, np.ndarray) and value.ndim > 0:
        raise cerr("cannot assign an index expression to a tile; use nisa.iota to materialize it")
    if is_scalar(value) or (isinstance(value, np.ndarray) and value.ndim == 0):
        if view.alloc.memory == "hbm":
            raise cerr("HBM tensors can only be written by DMA (nl.store)", "err_unsupported_memory")
        store_into(view, compute.memset(view.shape, value, view.alloc.dtype))
        return
    if not isinstance(value, Tile):
        raise cerr(f"cannot assign a {type(value).__name__} to a tile")
    p = _fresh(value)
    if p is not None and value.shape != view.shape:
        if math.prod(value.shape) != math.prod(view.shape) or p[1] is not None:
            raise cerr(f"shape mismatch: cannot assign a tile of shape {value.shape} to a view of shape {view.shape}",
                       "err_num_partition_mismatch")
    elif value.shape != view.shape:
        try:
            ok = np.broadcast_shapes(value.shape, view.shape) == tuple(view.shape)
        except ValueError:
            ok = False
        if not ok and math.prod(value.shape) != math.prod(view.shape):
            raise cerr(f"shape mismatch: cannot assign a tile of shape {value.shape} to a view of shape {view.shape}",
                       "err_num_partition_mismatch")
    if p is not None:
        instr = p[0]
        # In place where the instruction can write view's memory (a matmul only into PSUM, GpSimd not into PSUM,
        # no engine but DMA into HBM); elsewhere the compiler writes a buffer of its own and copies it over.
        if view.alloc.memory in opregistry.operands(instr.op, instr.engine).writes:
            redirect(view, value, p, accumulate or value.alloc.reduce_op)
            return
        if accumulate:
            raise cerr("matmul results can only accumulate (+=) into PSUM", "err_unsupported_memory")
    if view.alloc.memory == "hbm":
        raise cerr("HBM tensors can only be written by DMA: use nl.store(dst, value)", "err_unsupported_memory")
    if accumulate:
        store_into(view, compute.elementwise(accumulate, view, value, bool_out=compute.is_boolean(accumulate)))
        return
    tile_arg(value, "assignment", "value")
    store_into(view, compute.copy_op("assignment", value, view.alloc.dtype, None))


def redirect(view, value, p, accumulate):
    """Land the pending result p of tile value in view: the instruction writes view directly (accumulating into it
    with the ALU op `accumulate`, when given), and value never gets a buffer of its own."""
    ctx = current()
    instr, obox, submask = p
    alloc = value.alloc
    if view.alloc.memory == "psum" and instr.engine in ("vector", "scalar"):
        check_free_size(instr.attrs.get("api", instr.op), instr.engine, instr.free_elems, True)
    dv = view.restrict(obox) if obox is not None else view
    if accumulate and instr.engine == "tensor" and view.alloc.memory == "psum":
        ctx.fold_zero_fill(view.alloc)
    acc = dv.access()
    if ctx.numeric:
        raw = alloc.raw[0] if alloc.raw is not None else alloc.data
        dt = view.alloc.dtype
        shape = dv.shape
        vals = np.asarray(raw, dtype=np.float32) if accumulate else raw
        if vals.shape != tuple(shape):
            vals = np.broadcast_to(vals, shape) if broadcastable(vals.shape, shape) else vals.reshape(shape)
        if accumulate:
            vals = BINARY[accumulate][0](values(dv), vals)
        dv.write(dt.cast(vals), submask)
    view.alloc.written = True
    instr.writes = (acc,) + tuple(instr.writes[1:])
    instr.dtype = view.alloc.dtype.name
    if accumulate:
        instr.attrs["accumulate"] = True
        instr.reads = tuple(instr.reads) + (acc,)
    elif alloc.reduce_op is not None:
        instr.reads = tuple(instr.reads) + (acc,)
    alloc.pending = None
    alloc.raw = None
    if alloc.use is not None:
        alloc.use[0] = None  # the result was written into view, never into a buffer of its own: nothing to allocate
    ctx.release(alloc)


def setitem(self, key, value):
    """`self[key] = value`."""
    view = self[key]
    if isinstance(value, Tile) and value._done == len(current().trace) and value.alloc is view.alloc:
        value._done = -1  # the `+=` already wrote it
        return
    store_into(view, value)


def inplace(op_name, self, other):
    """`self op= other` (op_name: add, subtract, multiply, divide). `psum += matmul(...)` accumulates in PSUM;
    anything else computes `self op other` and stores it back into self."""
    ctx = current()
    p = _fresh(other)
    if op_name == "add" and p is not None and p[0].engine == "tensor":
        if self.alloc.memory != "psum":
            raise cerr("matmul results can only accumulate (+=) into PSUM", "err_unsupported_memory")
        redirect(self, other, p, "add" if continues_group(self, ctx) else None)
    else:
        store_into(self, compute.elementwise(op_name, self, other))
    self._done = len(ctx.trace)
    return self


def continues_group(view, ctx):
    """Whether `psum[...] += matmul` adds to the region (True) or starts a new accumulation group that overwrites it.

    The compiler turns `+=` inside a loop into an accumulation group whose first matmul overwrites the PSUM bank.
    A fresh nl.zeros per outer iteration (the standard pattern) makes this invisible, but a PSUM tile allocated
    once and reused across iterations of an outer loop must not carry the previous iteration's sums. We start a new
    group when the `+=` runs in a new execution of its innermost loop (a new loop_id) *and* the region has been read
    since the last accumulation (its partial sums were consumed, e.g. copied out). Both conditions are needed: a
    contraction split over two nested loops (`for kb: for ki: acc += ...`) re-enters the inner loop without reading
    acc, and stays one group."""
    a = view.alloc
    loop_id = ctx.loops[-1][0] if ctx.loops else None
    region = view.box()
    if ctx.replay_active:
        replay.note_outer_psum(ctx, a, region)
    groups = a.groups
    if groups is None:
        groups = a.groups = {}
    last = groups.get(region)
    groups[region] = (loop_id, a.psum_reads)
    return last is None or last[0] == loop_id or last[1] == a.psum_reads
