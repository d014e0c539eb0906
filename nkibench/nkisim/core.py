"""Issuing instructions: operand checks (against the op registry's operand rules), masks, the numeric computation
and the trace record. Every NKI API of both front ends funnels through run_op or dma (and assignment, assign.py),
so the trace conventions live here in one place.
"""
from __future__ import annotations

import math

import numpy as np

from . import dtypes, errors, opregistry, replay, taint
from .context import current, kernel_line
from .hardware import FREE_MAX_PSUM, FREE_MAX_SBUF
from .tensor import MaskedOperand, Tile, new_alloc

EMPTY = "empty"


def cerr(msg, code=""):
    return errors.NkiCompileError(msg, kernel_line(), code)


# --- operands -----------------------------------------------------------------------------------------------------

def is_scalar(x):
    return isinstance(x, (int, float, np.integer, np.floating, np.bool_)) and not isinstance(x, Tile)


def tile_arg(x, api, name, allow=("sbuf", "psum")):
    """Check that an operand is a tile in an on-chip buffer the engine can read."""
    if isinstance(x, MaskedOperand):
        raise cerr(f"operand '{name}' of '{api}' is masked with t[predicate]; operand masks are only supported for "
                   f"matmul operands (pass mask= to other instructions)")
    if not isinstance(x, Tile):
        raise cerr(f"operand '{name}' of '{api}' must be a tile, got {type(x).__name__}")
    if x.alloc.memory not in allow:
        mem = x.alloc.memory
        if mem == "hbm":
            raise cerr(f"operand '{name}' of '{api}' is in HBM; compute engines only read SBUF/PSUM (nl.load it first)",
                       "err_unsupported_memory")
        raise cerr(f"operand '{name}' of '{api}' cannot be in {mem.upper()} (expected {'/'.join(allow).upper()})",
                   "err_unsupported_memory")
    return x


def operand_rule(op, engine):
    """Where instruction op's operands may be on engine (opregistry.Operands): what the front ends check."""
    return opregistry.operands(op, engine)


_ENGINE_NAMES = {"vector": "VectorE", "scalar": "ScalarE", "gpsimd": "GpSimd", "tensor": "TensorE"}


def check_engine_access(api, op, engine, *tiles):
    """Refuse an input tile in a memory instruction op cannot read on engine (GpSimd and PSUM), once the engine is
    known: the same tile is fine for the instruction on another engine."""
    reads = opregistry.operands(op, engine).reads
    for t in tiles:
        if isinstance(t, Tile) and t.alloc.memory not in reads:
            raise cerr(f"'{api}' on {_ENGINE_NAMES.get(engine, engine)} cannot access {t.alloc.memory.upper()}",
                       "err_unsupported_memory")


def out_dtype(dtype, *operands):
    if dtype is not None:
        return dtypes.normalize(dtype)
    dt = None
    for o in operands:
        if isinstance(o, Tile):
            dt = o.alloc.dtype if dt is None else dtypes.promote(dt, o.alloc.dtype)
    return dt if dt is not None else dtypes.float32


def values(t, as_int=False):
    """An operand's numeric value: fp32 as the engines compute, or int64 for bitvec ops."""
    if not isinstance(t, Tile):
        if as_int:
            return np.int64(t)
        return np.float32(t) if not isinstance(t, np.ndarray) else t
    t.alloc.pending = None
    d = t.read()
    if as_int:
        return d.astype(np.int64) if d.dtype.kind != "f" else np.rint(d).astype(np.int64)
    return d if d.dtype == np.float32 else d.astype(np.float32)


def consumed(*tiles):
    """Reading a pending result means it can no longer be redirected into a later assignment's destination."""
    for t in tiles:
        if isinstance(t, Tile):
            t.alloc.pending = None


# --- masks --------------------------------------------------------------------------------------------------------

def analyze_mask(mask, space):
    """None (everything), EMPTY (the instruction is dropped), or (box, submask): the mask's bounding box in the
    iteration space and, when the mask is not a rectangle, the boolean pattern inside the box."""
    if mask is None:
        return None
    if isinstance(mask, (bool, np.bool_)):
        return None if mask else EMPTY
    if isinstance(mask, Tile):
        raise cerr("mask= must be an affine predicate of nl.arange/loop indices, not a tile")
    if taint.ACTIVE[0] and isinstance(mask, taint.TArray):
        mask = replay.note_mask(current(), mask)
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise cerr("mask= must be a boolean predicate (comparisons combined with &)")
    if m.size > _MASK_CACHE_MAX_ELEMS:
        return _analyze_mask(m, space)
    # Kernels pass the same small predicate (e.g. `rows < M`) to every instruction of a tile; the analysis costs
    # more than the rest of a timing-only instruction, so it is cached by value (the key holds the mask's bytes).
    key = (m.shape, tuple(space), m.tobytes())
    hit = _MASK_CACHE.get(key, _MISS)
    if hit is _MISS:
        hit = _analyze_mask(m, space)
        if len(_MASK_CACHE) >= _MASK_CACHE_ENTRIES:
            _MASK_CACHE.clear()
        _MASK_CACHE[key] = hit
    return hit


_MASK_CACHE = {}
_MASK_CACHE_ENTRIES = 512
_MASK_CACHE_MAX_ELEMS = 4096
_MISS = object()


def _analyze_mask(m, space):
    if m.ndim > len(space):
        raise cerr(f"mask of shape {m.shape} has more dimensions than the instruction's {tuple(space)}")
    m = m.reshape((1,) * (len(space) - m.ndim) + m.shape)
    box = []
    sl = []
    for ax, (k, n) in enumerate(zip(m.shape, space)):
        if k == 1:
            box.append((0, n))
            sl.append(slice(None))
            continue
        if k != n:
            raise cerr(f"mask of shape {m.shape} does not match the instruction's shape {tuple(space)}")
        other = tuple(i for i in range(m.ndim) if i != ax)
        nz = np.flatnonzero(m.any(axis=other) if other else m)
        if nz.size == 0:
            return EMPTY
        lo, hi = int(nz[0]), int(nz[-1]) + 1
        box.append((lo, hi))
        sl.append(slice(lo, hi))
    if not m.any():
        return EMPTY
    sub = m[tuple(sl)]
    submask = None
    if not sub.all():
        # a copy: the result may be cached, and must not alias an array the kernel could modify later
        submask = np.broadcast_to(sub.copy(), tuple(hi - lo for lo, hi in box))
    if submask is None and all(lo == 0 and hi == n for (lo, hi), n in zip(box, space)):
        return None
    return tuple(box), submask


def align_box(box, shape, space):
    """The part of a space box that applies to an operand of `shape` (right-aligned; broadcast axes stay whole)."""
    if box is None:
        return None
    off = len(space) - len(shape)
    out = []
    for i, n in enumerate(shape):
        j = i + off
        if j >= 0 and n == space[j]:
            out.append(box[j])
        else:
            out.append((0, n))
    return tuple(out)


def restrict(t, box, space):
    if box is None or not isinstance(t, Tile):
        return t
    return t.restrict(align_box(box, t.shape, space))


def _restrict_array(a, box, space):
    a = np.broadcast_to(a, np.broadcast_shapes(a.shape, space))
    if box is None:
        return a
    return a[tuple(slice(lo, hi) for lo, hi in box)]


def counts(box, space):
    sizes = [hi - lo for lo, hi in box] if box is not None else list(space)
    if not sizes:
        return 1, 1
    return sizes[0], math.prod(sizes[1:])


# --- compute instructions -----------------------------------------------------------------------------------------

def run_op(api, op, engine, operands, fn, out_shape, odt, *, mask=None, space=None, out_mem="sbuf", attrs=None,
           side_writes=(), as_int=False, boxes=None, obox_fn=None, counts_override=None):
    """Issue one compute instruction and return its (pending) result tile.

    operands: tiles (already checked) and scalars, restricted by the mask box and passed to fn as numpy values;
    fn returns the result over the (masked) output box in fp32. side_writes: extra (tile, values_fn) outputs such as
    an accumulator register written by the same instruction. boxes: optional function(box) -> per-operand boxes for
    instructions whose operands are not elementwise-aligned with the iteration space (matmul, transpose).
    """
    ctx = current()
    line = kernel_line()
    out_shape = tuple(out_shape)
    space = out_shape if space is None else tuple(space)
    mb = analyze_mask(mask, space)
    out = new_alloc(out_shape, odt, out_mem, init=None)
    res_tile = Tile(out)
    if mb is EMPTY or 0 in space:  # nothing to compute: the compiler issues no instruction
        if ctx.numeric:
            out.data = np.full(out_shape, odt.garbage(), odt.dtype)
        return res_tile
    box, submask = mb if mb is not None else (None, None)
    if boxes is not None and box is not None:
        obs = boxes(box)
        rops = [o.restrict(b) if isinstance(o, Tile) and b is not None else o for o, b in zip(operands, obs)]
    else:
        rops = [restrict(o, box, space) for o in operands]
    # Index-expression operands (iota, affine_select predicates) are restricted like tiles.
    rops = [_restrict_array(o, box, space) if isinstance(o, np.ndarray) and o.ndim else o for o in rops]
    reads = tuple(o.access() for o in rops if isinstance(o, Tile))
    note_psum_reads(rops)
    if box is None:
        obox = None
    elif obox_fn is not None:
        obox = obox_fn(box)
    else:
        obox = align_box(box, out_shape, space)
    if submask is not None and tuple(hi - lo for lo, hi in obox) != submask.shape:
        submask = None  # a non-rectangular mask on a reduction: the box is what the instruction covers
    if ctx.numeric:
        res = fn(*[values(o, as_int) if isinstance(o, Tile) else o for o in rops])
        out.raw = (res, obox, submask)
    else:
        consumed(*rops)
    wt = res_tile.restrict(obox) if obox is not None else res_tile
    writes = [wt.access()]
    for st, vfn in side_writes:
        # A per-partition result (reduce_res): under a mask, only the partitions the instruction covers are written.
        if box is not None and st.shape and st.shape[0] == space[0] and box[0] != (0, space[0]):
            st = st.restrict((box[0],) + tuple((0, n) for n in st.shape[1:]))
        writes.append(st.access())
        if ctx.numeric:
            st.write(st.alloc.dtype.cast(np.reshape(vfn(), st.shape)))
    parts, free = counts(box, space) if counts_override is None else counts_override
    if engine in ("vector", "scalar"):
        check_free_size(api, engine, free, any(r.memory == "psum" for r in reads) or out_mem == "psum")
    a = {} if attrs is None else attrs
    if engine in ("vector", "scalar", "gpsimd"):
        if any(r.memory == "psum" for r in reads):
            a["psum_operand"] = True
        stride = max_minor_stride_bytes([o for o in rops if isinstance(o, Tile)] + [wt])
        if stride:
            a["minor_stride_bytes"] = stride
    ins = tuple(o.alloc.dtype.name for o in rops if isinstance(o, Tile))
    instr = ctx.record(op, engine, parts, free, odt.name, ins, reads, tuple(writes), attrs=a, line=line)
    out.pending = (instr, obox, submask)
    return res_tile


def minor_stride_elems(t):
    """The most-minor free stride of the access pattern an instruction makes on the SBUF/PSUM view t, in elements:
    the step between consecutive elements of its innermost free dimension that has more than one element (0 for a
    broadcast or a single element per partition); None for an HBM view or a dynamic (runtime) index. The engines
    stream a tile along its free dimensions with a stride per dimension (nki-facts §3.3; the NC-v2 architecture
    guide, "Access pattern": a most-minor stride over 16 bytes halves the read/write interface's bandwidth)."""
    a = t.alloc
    pd = a.pdim
    if pd is None:
        return None
    if t.inner is not None and t.shape and t.shape[-1] > 1 and t.inner[-1] == 1:
        return 0  # the innermost dimension is broadcast: the same element again
    key = t.key
    fs = a.fstrides
    if key is None:
        for d in range(len(a.shape) - 1, -1, -1):
            if d != pd and a.shape[d] > 1:
                return fs[d]
        return 0
    arrays = False
    for c in key:
        if isinstance(c, Tile):
            return None
        if isinstance(c, np.ndarray):
            arrays = True
    if not arrays:
        for d in range(len(key) - 1, -1, -1):
            c = key[d]
            if d == pd or type(c) is int:
                continue
            if len(range(c.start, c.stop, c.step)) > 1:
                return abs(c.step) * fs[d]
        return 0
    # An advanced key (ints and index arrays, e.g. a transposed or gathered pattern): the offsets of its elements;
    # the stride is the step along the last axis of theirs that has more than one element.
    off = 0
    for d, c in enumerate(key):
        if d != pd and isinstance(c, np.ndarray):
            off = off + c.astype(np.int64) * fs[d]
    if not isinstance(off, np.ndarray):
        return 0
    for ax in range(off.ndim - 1, -1, -1):
        if off.shape[ax] > 1:
            pair = np.take(off, [0, 1], axis=ax).reshape(2, -1) if off.ndim > 1 else off[:2].reshape(2, 1)
            return int(abs(int(pair[1, 0]) - int(pair[0, 0])))
    return 0


def max_minor_stride_bytes(tiles):
    """The largest most-minor free stride in bytes over tiles' SBUF/PSUM views when one of them is not unit-stride
    (contiguous or broadcast), else 0: what the trace records as an instruction's minor_stride_bytes."""
    worst = 0
    strided = False
    for t in tiles:
        s = minor_stride_elems(t)
        if s is None:
            continue
        if s > 1:
            strided = True
        b = s * t.alloc.dtype.itemsize
        if b > worst:
            worst = b
    return worst if strided else 0


# Per-instruction free-size limits of VectorE and ScalarE (hardware.FREE_MAX_*): elements per partition one
# instruction may process when it touches only SBUF, or PSUM as well (nki-facts §1.3). The partition start-offset
# rule (65-128 partitions start at 0, 33-64 at 0 or 64, 1-32 at 0/32/64/96) is not enforced: the facts attribute it
# to the compiler's allocator, which places whole tiles, and nkisim does not model where a tile lands. Applying it
# to accesses inside a tile would reject kernels that are legal as written, e.g. an instruction on partitions
# 16..47 of a 128-partition tile.
def check_free_size(api, engine, free, psum):
    limit = FREE_MAX_PSUM if psum else FREE_MAX_SBUF
    if free > limit:
        where = "with a PSUM operand" if psum else "on SBUF"
        raise cerr(f"'{api}' processes {free} elements per partition in one {engine.capitalize()}E instruction; "
                   f"the limit {where} is {limit} (split the free dimension into tiles)",
                   "err_size_of_dimension_exceed_arch_limit")


# --- DMA ----------------------------------------------------------------------------------------------------------

def dma(api, src, dst=None, *, mask=None, dtype=None, attrs=None, out_shape=None, rmw=None, transform=None):
    """One DMA. With dst=None the destination is a new SBUF tile (nl.load); the result is returned pending so that
    `buf[...] = nl.load(...)` lands in buf."""
    ctx = current()
    line = kernel_line()
    space = tuple(dst.shape if dst is not None else (out_shape or src.shape))
    mb = analyze_mask(mask, space)
    result = None
    if dst is None:
        odt = dtypes.normalize(dtype) if dtype is not None else src.alloc.dtype
        result = Tile(new_alloc(space, odt, "sbuf", init=None))
        if mb is EMPTY or 0 in space:  # nothing to move: no DMA is issued
            if ctx.numeric:
                result.alloc.data = np.full(space, odt.garbage(), odt.dtype)
            return result
        dview = result
    else:
        if mb is EMPTY or 0 in space:
            return None
        dview = dst
    box, submask = mb if mb is not None else (None, None)
    s = src if transform is not None else restrict(src, box, space)
    d = restrict(dview, box, space)
    reads = [s.access()]
    indirect = False
    if s.key is not None:
        for c in s.key:
            if isinstance(c, Tile):
                reads.append(c.access())
                indirect = True
    w = d.access()
    parts, free = counts(box, space)
    n = parts * free
    hbm_side = s if s.alloc.memory == "hbm" else d
    isz = hbm_side.alloc.dtype.itemsize
    nbytes = n * isz
    sb_side = d if d.alloc.memory != "hbm" else s
    run = max(1, min(hbm_side.contiguous_elems(), free if sb_side.alloc.memory != "hbm" else n))
    if transform is not None:
        run = 1
    desc = max(1, -(-n // run))
    a = {"api": api, "src": s.alloc.memory, "dst": d.alloc.memory, "partitions": parts,
         "bytes_per_partition": nbytes // max(1, parts), "descriptors": desc,
         "runs_per_partition": max(1, -(-desc // max(1, parts))), "contiguous_bytes": run * isz, "indirect": indirect}
    if rmw is not None:
        a["rmw"] = rmw
    if attrs:
        a.update(attrs)
    if ctx.numeric:
        vals = s.read()
        if transform is not None:
            vals = transform(vals)
            if box is not None:
                vals = vals[tuple(slice(lo, hi) for lo, hi in box)]
        if result is not None:
            result.alloc.raw = (vals, box, submask)
        else:
            if rmw is not None:
                vals = rmw(values(d), np.asarray(vals, dtype=np.float32))
            vals = d.alloc.dtype.cast(vals)
            vals = np.broadcast_to(vals, d.shape) if broadcastable(vals.shape, d.shape) else vals.reshape(d.shape)
            d.write(vals, submask)
    d.alloc.written = True
    instr = ctx.record("dma", "dma", parts, free, d.alloc.dtype.name, (s.alloc.dtype.name,), tuple(reads), (w,),
                       dma_bytes=nbytes, attrs=a, line=line)
    if result is not None:
        result.alloc.pending = (instr, box, submask)
    return result


def note_psum_reads(tiles):
    """Count reads of PSUM tiles by instructions (see _continues_group)."""
    for t in tiles:
        if isinstance(t, Tile) and t.alloc.memory == "psum":
            t.alloc.psum_reads += 1
            if t.alloc.ctx.replay_active:
                replay.note_outer_psum(t.alloc.ctx, t.alloc)


def broadcastable(a, b):
    try:
        return np.broadcast_shapes(a, b) == tuple(b)
    except ValueError:
        return False
