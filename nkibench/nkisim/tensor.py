"""Allocations and tiles: the one tensor representation shared by the numeric and the timing-only modes.

An Alloc is one allocation call (ndarray/zeros/..., an op's result, or a kernel argument) with a fresh tensor_id.
It holds a numpy array only in numeric mode. A Tile is a view of an Alloc through an index key; it is what kernels
hold and pass around. Keys are kept per allocation dimension as ints, normalized slices, integer index arrays
(advanced indexing) or a Tile (indirect DMA); advanced keys that are plain aranges are turned back into slices so
numpy takes its fast path. Bounds are checked when a view is accessed, after masks have shrunk it, because NKI
kernels routinely build out-of-range indices that their mask removes.
"""
from __future__ import annotations

import math

import numpy as np

from . import dtypes, errors, taint
from .context import current, kernel_line
from .hardware import PARTITIONS as PMAX, PSUM_BANK_BYTES
from .trace import Access

MEMORIES = ("sbuf", "psum", "hbm")
_tuple_new = tuple.__new__  # Access(...) without the named tuple's Python-level __new__


class ParDim(int):
    """nl.par_dim(n): marks the partition dimension inside a shape; an int so shape arithmetic keeps working."""


def _cerr(msg, code=""):
    return errors.NkiCompileError(msg, kernel_line(), code)


class Alloc:
    __slots__ = ("tid", "memory", "hbm_kind", "dtype", "shape", "pdim", "data", "name", "block_bytes", "nblocks",
                 "footprint", "live", "epoch", "blocks", "pending", "raw", "fstrides", "ctx", "written", "reduce_op",
                 "lazy", "fill", "groups", "psum_reads", "use", "source", "__weakref__")

    def label(self):
        return self.name or f"tensor#{self.tid}"

    def __del__(self):
        if self.live:
            try:
                self.ctx.release(self)
            except Exception:  # interpreter shutdown or a finished run: nothing left to account
                pass

    def source_values(self):
        """For a .view(dtype) alias: the source allocation's current bytes, read as this allocation's dtype."""
        src = self.source
        return dtypes.from_bytes(dtypes.to_bytes(src.dense(), src.dtype), self.dtype).reshape(self.shape)

    def dense(self):
        """The whole numpy array (numeric mode), with every block never written set to the fill value."""
        if self.source is not None:
            self.data = self.source_values()
        if self.raw is not None:
            self.materialize()
        if self.lazy is not None:
            unset = np.frombuffer(self.lazy, np.uint8) == 0
            if unset.any():
                self.data.reshape((-1,) + self.shape[self.pdim:])[unset] = self.fill
            self.lazy = None
        return self.data

    def _first_write(self, b, covers):
        """Block b is written for the first time; fill it first unless the write covers all of it."""
        if not covers:
            self.data.reshape((-1,) + self.shape[self.pdim:])[b] = self.fill
        self.lazy[b] = 1

    def materialize(self):
        """Turn a pending op result (kept unrounded so an assignment can cast once to its destination) into data."""
        raw, box, submask = self.raw
        self.raw = None
        full = box is None or all(lo == 0 and hi == n for (lo, hi), n in zip(box, self.shape))
        if full and submask is None:
            self.data = np.ascontiguousarray(np.broadcast_to(self.dtype.cast(raw), self.shape))
            return
        self.data = np.full(self.shape, self.dtype.garbage(), self.dtype.dtype)
        sl = tuple(slice(lo, hi) for lo, hi in box)
        region = self.data[sl]
        vals = np.broadcast_to(self.dtype.cast(raw), region.shape)
        if submask is None:
            region[...] = vals
        else:
            np.copyto(region, vals, where=submask)


# Checked layouts by (shape, its element types, memory, dtype): kernels allocate the same few shapes over and over,
# and working the layout out again was a good part of an instruction's bookkeeping.
_LAYOUTS = {}


def _layout(shape, memory, dt):
    """(shape as ints, partition dim, bytes per partition, blocks, strides over the free elements) of a new
    allocation, or the compiler's error."""
    if memory not in MEMORIES:
        raise _cerr(f"unsupported buffer {memory!r}", "err_unsupported_memory")
    pdim = None
    for i, s in enumerate(shape):
        if isinstance(s, ParDim):
            pdim = i
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise _cerr(f"shape must be a tuple of ints, got {shape!r}") from None
    if any(s < 0 for s in shape):
        raise _cerr(f"negative dimension in shape {shape}")
    if memory == "hbm":
        st = 1
        strides = []
        for s in reversed(shape):
            strides.append(st)
            st *= s
        return shape, None, 0, 1, tuple(reversed(strides))
    if pdim is None:
        pdim = 0
    if len(shape) - pdim < 2:
        raise _cerr(f"Insufficient rank for a {memory.upper()} tile of shape {shape}: tiles need a partition and "
                    f"at least one free dimension, e.g. (128, 1)", "err_insufficient_rank")
    if shape[pdim] > PMAX:
        raise _cerr(f"Size of partition dimension {shape[pdim]} exceeds architecture limitation of {PMAX}.",
                    "err_num_partition_exceed_arch_limit")
    block_bytes = math.prod(shape[pdim + 1:]) * dt.itemsize
    if memory == "psum" and block_bytes > PSUM_BANK_BYTES:
        raise _cerr(f"PSUM tile of shape {shape} needs {block_bytes} bytes per partition, more than one 2 KiB "
                    f"PSUM bank (at most 512 fp32 elements per partition)", "err_size_of_dimension_exceed_arch_limit")
    st = 1
    strides = [0] * len(shape)
    for i in range(len(shape) - 1, -1, -1):
        if i != pdim:
            strides[i] = st
            st *= shape[i]
    return shape, pdim, block_bytes, math.prod(shape[:pdim]), tuple(strides)


def new_alloc(shape, dtype, memory, name=None, init="garbage", data=None, hbm_kind=None, track=True):
    """Create an allocation. init: "garbage" (NaN for floats), "zeros", a fill value, or None with `data` given."""
    ctx = current()
    dt = dtypes.normalize(dtype)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    key = (shape, tuple(map(type, shape)), memory, dt)
    try:
        lay = _LAYOUTS.get(key)
    except TypeError:  # an unhashable shape element: _layout says what is wrong with it
        key = lay = None
    if lay is None:
        lay = _layout(shape, memory, dt)
        if key is not None:
            if len(_LAYOUTS) >= 4096:
                _LAYOUTS.clear()
            _LAYOUTS[key] = lay
    a = Alloc()
    a.tid = ctx.new_tid()
    a.memory = memory
    a.hbm_kind = hbm_kind
    a.dtype = dt
    a.shape, a.pdim, a.block_bytes, a.nblocks, a.fstrides = lay
    a.name = name
    a.ctx = ctx
    a.live = False
    a.use = None  # on-chip: [first use, last use, footprint, label] (context.py, capacity rule)
    a.pending = None
    a.raw = None
    a.epoch = -1
    a.blocks = None
    a.written = False
    a.reduce_op = None  # loop_reduce: the op that combines this result into its destination on assignment
    a.footprint = 0
    a.lazy = None
    a.fill = None
    a.groups = None  # PSUM: region -> (loop_id, psum_reads) at its last matmul `+=` (see assign.continues_group)
    a.psum_reads = 0
    a.source = None  # a .view(dtype) alias: the allocation whose bytes it reads (Tile.view)
    shape = a.shape
    if not ctx.numeric:
        a.data = None
    elif data is not None:
        a.data = data
    elif init is None:
        a.data = None
    elif memory != "hbm":
        # On-chip tensors are filled lazily, per block (one (P, F...) tile of the leading block dimensions): kernels
        # declare large block-dimensioned buffers, and NaN-filling them up front cost more than the kernel's own
        # arithmetic. np.empty leaves the memory untouched (large arrays are backed by huge pages that are faulted in
        # on first write); `lazy` flags the blocks written so far, and reading a block never written gives the fill
        # value (NaN for ndarray's garbage).
        a.data = np.empty(shape, dt.dtype)
        a.lazy = bytearray(max(1, a.nblocks))
        if isinstance(init, str):
            a.fill = dt.dtype.type(dt.garbage() if init == "garbage" else 0)
        else:
            a.fill = dt.cast(np.asarray(init, dtype=np.float32 if dt.is_float else None))[()]
    elif isinstance(init, str) and init == "garbage":
        a.data = np.full(shape, dt.garbage(), dt.dtype)
    elif isinstance(init, str) and init == "zeros":
        a.data = np.zeros(shape, dt.dtype)
    else:
        a.data = np.full(shape, dt.cast(np.asarray(init, dtype=np.float32 if dt.is_float else None)), dt.dtype)
    if memory != "hbm" and track:
        ctx.track(a)
        if not (init is None or (isinstance(init, str) and init == "garbage")):
            ctx.note_use(a, filled=True)  # nl.zeros / nl.full: filled here, so in use from here on
            if memory == "psum" and _is_zero(init):
                a.use.append(True)  # use[5]: zeros an accumulating matmul can stand for (Context.fold_zero_fill)
    return a


def _is_zero(init) -> bool:
    if isinstance(init, str):
        return init == "zeros"
    try:
        return not np.any(np.asarray(init))
    except (TypeError, ValueError):
        return False


# ----------------------------------------------------------------------------------------------------------------
# index keys

_ARANGE_CACHE = {}


def cached_arange(n):
    a = _ARANGE_CACHE.get(n)
    if a is None:
        a = np.arange(n, dtype=np.int64)
        a.setflags(write=False)
        _ARANGE_CACHE[n] = a
    return a


def _slice_len(s):
    return len(range(s.start, s.stop, s.step))


def _norm_slice(c, n):
    start, stop, step = c.start, c.stop, c.step
    step = 1 if step is None else int(step)
    if step == 0:
        raise _cerr("slice step cannot be zero")
    if step > 0:
        start = 0 if start is None else int(start)
        stop = n if stop is None else int(stop)
    else:
        start = n - 1 if start is None else int(start)
        stop = -n - 1 if stop is None else int(stop)
    if start < 0:
        start += n
    if stop < 0 and not (step < 0 and c.stop is None):
        stop += n
    return slice(start, stop, step)


def _norm_user_key(raw, shape):
    """Per-view-axis components from a user index; enforces NKI's indexing rules."""
    if not isinstance(raw, tuple):
        raw = (raw,)
    if any(c is Ellipsis for c in raw):
        i = next(i for i, c in enumerate(raw) if c is Ellipsis)
        fill = len(shape) - (len(raw) - 1)
        raw = raw[:i] + (slice(None),) * fill + raw[i + 1:]
    if len(raw) > len(shape):
        raise _cerr(f"too many indices ({len(raw)}) for a tensor of rank {len(shape)} (shape {shape})",
                    "err_tensor_access_out_of_bound")
    comps = []
    has_slice = has_adv = False
    for c, n in zip(raw, shape):
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            v = int(c)
            comps.append(v + n if v < 0 else v)
        elif isinstance(c, slice):
            has_slice = True
            comps.append(_norm_slice(c, n))
        elif isinstance(c, np.ndarray):
            if c.dtype == np.bool_:
                raise _cerr("indexing a tile with a boolean predicate is not supported; pass the predicate as mask=")
            if c.dtype.kind not in "iu":
                raise _cerr(f"index arrays must be integer (got {c.dtype})")
            if c.ndim == 0:
                comps.append(int(c))
            elif c.ndim == 1:
                raise _cerr("a 1-D arange cannot be used as an index; use nl.arange(n)[:, None] or [None, :]",
                            "err_1d_arange_not_supported")
            else:
                has_adv = True
                comps.append(c)
        elif isinstance(c, Tile):
            has_adv = True
            comps.append(c)
        else:
            raise _cerr(f"unsupported index {c!r} of type {type(c).__name__}")
    missing = len(shape) - len(raw)
    if has_slice and has_adv:
        raise _cerr("basic indexing (slices) and advanced indexing (nl.arange/mgrid) cannot be mixed in one index",
                    "err_unsupported_mixing_basic_advanced_tensor_indexing")
    if missing:
        if has_adv:
            # Trailing dimensions left out of an advanced index follow numpy: they come after the indexed ones.
            r = len(np.broadcast_shapes(*[c.shape for c in comps if not isinstance(c, int)]))
            comps = [c if isinstance(c, int) else _pad_adv(c, missing) for c in comps]
            for k in range(missing):
                n = shape[len(raw) + k]
                comps.append(cached_arange(n).reshape((1,) * (r + k) + (n,) + (1,) * (missing - k - 1)))
        else:
            comps.extend(slice(0, n, 1) for n in shape[len(raw):])
    return comps


def _pad_adv(c, k):
    if isinstance(c, Tile):
        raise _cerr("an indirect index must index every dimension")
    return c.reshape(c.shape + (1,) * k)


def simplify_key(comps):
    """Turn an advanced key whose arrays are plain strided aranges, one per result axis in order, into slices."""
    arrays = [c for c in comps if isinstance(c, np.ndarray)]
    if not arrays or any(isinstance(c, Tile) for c in comps):
        return comps
    r = max(a.ndim for a in arrays)
    if len(arrays) != r:
        return comps
    out = []
    k = 0
    for c in comps:
        if isinstance(c, int):
            out.append(c)
            continue
        if c.ndim != r:
            return comps
        sh = c.shape
        for ax, n in enumerate(sh):
            if n != 1 and ax != k:
                return comps
        sl = _progression(c, k)
        if sl is None:
            return comps
        out.append(sl)
        k += 1
    return out


_PROG_CACHE = {}  # id(array) -> (array, slice or None)
_VALUE_CACHE = {}  # (dtype, bytes) -> slice or None


def _progression(c, k):
    """slice equivalent to index array c (non-unit along axis k only), or None. Kernels reuse their index arrays
    across iterations, so the answer is cached per array object (the cache keeps the array alive, so ids stay
    unique); index arithmetic such as `k * 128 + i_p` makes a new array each time with values seen before, so
    misses look up the values (comparing bytes is several times cheaper than testing the progression)."""
    hit = _PROG_CACHE.get(id(c))
    if hit is not None and hit[0] is c:
        return hit[1]
    v = c.reshape(-1)
    # Only short index arrays go in the value cache, which keeps it small (at most 2048 x 32 KiB).
    vkey = (v.dtype.char, v.tobytes()) if v.size <= 4096 else None
    sl = _VALUE_CACHE.get(vkey, False) if vkey is not None else False
    if sl is False:
        n = v.shape[0]
        if n == 0:  # an empty index (nl.arange(0)): the empty slice, whatever offset was added to it
            return slice(0, 0, 1)
        v0 = int(v[0])
        sl = None
        if n == 1:
            sl = slice(v0, v0 + 1, 1)
        else:
            d = int(v[1]) - v0
            if d > 0 and (n == 2 or (v == v0 + d * cached_arange(n)).all()):
                sl = slice(v0, v0 + d * (n - 1) + 1, d)
        if vkey is not None:
            if len(_VALUE_CACHE) > 2048:
                _VALUE_CACHE.clear()
            _VALUE_CACHE[vkey] = sl
    if len(_PROG_CACHE) > 2048:
        _PROG_CACHE.clear()
    _PROG_CACHE[id(c)] = (c, sl)
    return sl


def _fast_key(raw, shape):
    """The key for the everyday index of a whole tensor, `t[j, k * 128 + i_p, i_f]` or `t[j, 0:128, 0:512]`, or None
    to take the general path (which also raises the errors). Indexing is the most frequent thing a kernel does, and
    this path gives the same key as _norm_user_key + simplify_key for these forms."""
    if type(raw) is not tuple:
        raw = (raw,)
    if len(raw) > len(shape):
        return None
    arrays = 0
    for c in raw:
        if type(c) is np.ndarray:
            arrays += 1
    if arrays and (arrays < 2 or len(raw) != len(shape)):
        return None
    out = []
    k = 0
    for c, n in zip(raw, shape):
        t = type(c)
        if t is int:
            out.append(c + n if c < 0 else c)
        elif t is np.ndarray:
            sh = c.shape
            if len(sh) != arrays or c.dtype.kind not in "iu":
                return None
            for ax in range(arrays):
                if sh[ax] != 1 and ax != k:
                    return None
            sl = _progression(c, k)
            if sl is None:
                return None
            out.append(sl)
            k += 1
        elif t is slice and not arrays:
            out.append(_norm_slice(c, n))
        else:
            return None
    for n in shape[len(raw):]:
        out.append(slice(0, n, 1))
    return out


def _key_shape(comps):
    if any(isinstance(c, (np.ndarray, Tile)) for c in comps):
        try:
            return tuple(np.broadcast_shapes(*[c.shape for c in comps if not isinstance(c, int)]))
        except ValueError:
            raise _cerr("index arrays do not broadcast: " +
                        ", ".join(str(c.shape) for c in comps if not isinstance(c, int))) from None
    return tuple(_slice_len(c) for c in comps if isinstance(c, slice))


def _compose(parent, comps):
    """Apply per-view-axis components to a view, giving a key over the allocation's dimensions."""
    if parent.key is None:
        return comps
    pk = parent.key
    if not any(isinstance(c, (np.ndarray, Tile)) for c in pk):
        out = []
        it = iter(comps)
        for p in pk:
            if isinstance(p, int):
                out.append(p)
                continue
            c = next(it)
            s, st = p.start, p.step
            if isinstance(c, int):
                out.append(s + c * st)
            elif isinstance(c, slice):
                out.append(slice(s + c.start * st, s + c.stop * st, c.step * st))
            elif isinstance(c, np.ndarray):
                out.append(s + c * st)
            else:
                raise _cerr("an indirect index must be applied to a whole HBM tensor")
        return out
    if any(isinstance(c, Tile) for c in pk):
        # Restricting an indirect view: shrink the index tile along with the other components.
        vs = parent.shape
        sub = tuple(comps)
        out = []
        for p in pk:
            if isinstance(p, int):
                out.append(p)
            elif isinstance(p, Tile):
                off = len(vs) - len(p.shape)
                out.append(p[tuple(sub[off + i] if p.shape[i] == vs[off + i] else slice(0, p.shape[i], 1)
                                   for i in range(len(p.shape)))])
            else:
                out.append(np.broadcast_to(p, vs)[sub])
        return out
    vs = parent.shape
    sub = tuple(comps)
    return [p if isinstance(p, int) else np.broadcast_to(p, vs)[sub] for p in pk]


def dim_box(c, n):
    if isinstance(c, int):
        return c, c + 1
    if isinstance(c, slice):
        ln = len(range(c.start, c.stop, c.step))
        if ln == 0:
            return c.start, c.start
        if c.step > 0:
            return c.start, c.start + (ln - 1) * c.step + 1
        return c.start + (ln - 1) * c.step, c.start + 1
    if isinstance(c, Tile):
        return 0, n
    if c.size == 0:
        return 0, 0
    return int(c.min()), int(c.max()) + 1


class Tile:
    """A view of an allocation. The first dimension of an SBUF/PSUM tile view is its partition dimension."""

    __slots__ = ("alloc", "key", "shape", "inner", "_box", "_done")
    __array_ufunc__ = None  # make numpy defer to our reflected operators (arange * tile etc.)

    def __init__(self, alloc, key=None, shape=None, inner=None):
        self.alloc = alloc
        self.key = key
        self.shape = alloc.shape if shape is None else shape
        self.inner = inner  # for a broadcast view: the shape actually indexed; `shape` is what it broadcasts to
        self._box = None
        self._done = -1

    # --- properties kernels use ---------------------------------------------------------------------------
    @property
    def dtype(self):
        return self.alloc.dtype

    @property
    def buffer(self):
        return self.alloc.memory

    @property
    def memory(self):
        return self.alloc.memory

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def itemsize(self):
        return self.alloc.dtype.itemsize

    @property
    def name(self):
        return self.alloc.name

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return f"Tile({self.alloc.label()}, shape={self.shape}, dtype={self.alloc.dtype}, buffer={self.alloc.memory})"

    def __bool__(self):
        raise _cerr("the value of a tile is not known at compile time; Python control flow cannot depend on it",
                    "err_control_flow_condition_depending_on_arange")

    def __iter__(self):
        raise _cerr("tiles cannot be iterated in Python; index them with nl.arange or slices")

    def __index__(self):
        raise _cerr("a tile cannot be used as a Python integer")

    # --- Python operators: each issues the instruction the compiler emits for it (tileops.py says which) ----
    def __setitem__(self, key, value):
        _ops().setitem(self, key, value)

    def __iadd__(self, other):
        return _ops().inplace("add", self, other)

    def __isub__(self, other):
        return _ops().inplace("subtract", self, other)

    def __imul__(self, other):
        return _ops().inplace("multiply", self, other)

    def __itruediv__(self, other):
        return _ops().inplace("divide", self, other)

    def __add__(self, other):
        return _ops().binary("add", self, other)

    def __radd__(self, other):
        return _ops().binary("add", other, self)

    def __sub__(self, other):
        return _ops().binary("subtract", self, other)

    def __rsub__(self, other):
        return _ops().binary("subtract", other, self)

    def __mul__(self, other):
        return _ops().binary("multiply", self, other)

    def __rmul__(self, other):
        return _ops().binary("multiply", other, self)

    def __truediv__(self, other):
        return _ops().binary("divide", self, other)

    def __rtruediv__(self, other):
        return _ops().binary("divide", other, self)

    def __pow__(self, other):
        return _ops().binary("power", self, other)

    def __rpow__(self, other):
        return _ops().binary("power", other, self)

    def __mod__(self, other):
        return _ops().binary("mod", self, other)

    def __rmod__(self, other):
        return _ops().binary("mod", other, self)

    def __and__(self, other):
        return _ops().binary("logical_and", self, other)

    def __rand__(self, other):
        return _ops().binary("logical_and", other, self)

    def __or__(self, other):
        return _ops().binary("logical_or", self, other)

    def __ror__(self, other):
        return _ops().binary("logical_or", other, self)

    def __xor__(self, other):
        return _ops().binary("logical_xor", self, other)

    def __rxor__(self, other):
        return _ops().binary("logical_xor", other, self)

    def __lshift__(self, other):
        return _ops().binary("left_shift", self, other)

    def __rlshift__(self, other):
        return _ops().binary("left_shift", other, self)

    def __rshift__(self, other):
        return _ops().binary("right_shift", self, other)

    def __rrshift__(self, other):
        return _ops().binary("right_shift", other, self)

    def __floordiv__(self, other):
        return _ops().floordiv(self, other)

    def __rfloordiv__(self, other):
        return _ops().floordiv(other, self)

    def __lt__(self, other):
        return _ops().binary("less", self, other)

    def __le__(self, other):
        return _ops().binary("less_equal", self, other)

    def __gt__(self, other):
        return _ops().binary("greater", self, other)

    def __ge__(self, other):
        return _ops().binary("greater_equal", self, other)

    def __eq__(self, other):
        return _ops().equality("equal", self, other)

    def __ne__(self, other):
        return _ops().equality("not_equal", self, other)

    # Tiles stay hashable by identity: nkisim (and kernels) keep them in dicts and sets, and Python's container
    # lookups try `is` before `==`, so an elementwise `==` never runs there.
    __hash__ = object.__hash__

    def __neg__(self):
        return _ops().negative(self)

    def __abs__(self):
        return _ops().absolute(self)

    def __invert__(self):
        return _ops().invert(self)

    # --- methods kernels call ------------------------------------------------------------------------------
    def astype(self, dtype):
        return _ops().astype(self, dtype)

    def broadcast_to(self, *shape):
        return _ops().broadcast_to(self, shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list))
                                   else shape)

    def reshape(self, *shape, **kwargs):
        """The whole tensor under another shape: an alias of the same memory, no instruction."""
        if "shape" in kwargs:  # t.reshape(shape=(...)), as nki-samples' vision kernels write it
            if shape:
                raise _cerr("reshape takes its shape once: positionally or as shape=")
            shape = (kwargs.pop("shape"),)
        if kwargs:
            raise _cerr(f"reshape got unexpected keyword argument(s) {', '.join(sorted(kwargs))}")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = tuple(int(s) for s in shape)
        if -1 in shape:
            known = math.prod(s for s in shape if s != -1)
            shape = tuple(self.size // known if s == -1 else s for s in shape)
        if math.prod(shape) != self.size:
            raise _cerr(f"cannot reshape a tile of shape {self.shape} to {shape}")
        if self.key is not None or self.inner is not None:
            raise _cerr("only whole tensors can be reshaped (reshape the tensor, then index it)")
        a = self.alloc
        if a.memory != "hbm" and shape[0] != a.shape[a.pdim]:
            raise _cerr(f"reshape cannot change the partition dimension ({a.shape[a.pdim]} -> {shape[0]})")
        data = a.dense() if (a.data is not None or a.lazy is not None or a.raw is not None) else None
        a.pending = None
        alias = new_alloc(shape, a.dtype, a.memory, name=a.name, init=None, hbm_kind=a.hbm_kind, track=False,
                          data=data.reshape(shape) if data is not None else None)
        alias.tid = a.tid  # same memory, same tensor as far as the trace is concerned
        return Tile(alias)

    def view(self, dtype):
        """t.view(dtype): the same bytes read as another dtype (nki-samples' rmsnorm_quant stores each row's float32
        dequantizing scale as 4 float8_e4m3 elements through `scales.view(nl.float8_e4m3)`). The last dimension
        scales by the ratio of the itemsizes; the alias is the same tensor to the trace (as reshape's is), and it
        reads the tensor's bytes as they are when read. Writing through it is not simulated."""
        dt = dtypes.normalize(dtype)
        if self.key is not None or self.inner is not None:
            raise _cerr("view(dtype) reinterprets whole tensors only (view the tensor, then index it)")
        a = self.alloc
        last = a.shape[-1] * a.dtype.itemsize
        if last % dt.itemsize or (a.pdim is not None and a.pdim == len(a.shape) - 1):
            raise _cerr(f"cannot view a tensor of shape {a.shape} and dtype {a.dtype.name} as {dt.name}: the bytes of "
                        f"its last free dimension ({last}) must split into {dt.name} elements ({dt.itemsize} bytes)")
        shape = a.shape[:-1] + (last // dt.itemsize,)
        alias = new_alloc(shape, dt, a.memory, name=a.name, init=None, hbm_kind=a.hbm_kind, track=False)
        alias.tid = a.tid  # the same bytes of the same tensor, as far as the trace is concerned
        alias.source = a
        return Tile(alias)

    # --- indexing -----------------------------------------------------------------------------------------
    def __getitem__(self, raw):
        if isinstance(raw, np.ndarray) and raw.dtype == np.bool_:
            return MaskedOperand(self, raw)
        if taint.ACTIVE[0]:
            if isinstance(raw, taint.TArray) and raw.dtype == np.bool_:
                return MaskedOperand(self, raw)
            raw = taint.strip_key(raw)
        if self.key is None and self.inner is None:
            key = _fast_key(raw, self.shape)
            if key is not None:
                view = Tile(self.alloc, key, tuple(_slice_len(c) for c in key if type(c) is slice))
                return view if len(view.shape) != 1 or self.alloc.memory == "hbm" else view._on_chip_vector()
        if self.inner is not None:
            return self._index_broadcast(raw)
        comps = _norm_user_key(raw, self.shape)
        view = self._view(comps)
        return view if len(view.shape) != 1 or self.alloc.memory == "hbm" else view._on_chip_vector()

    def _on_chip_vector(self):
        """`t[0:n, j]` of an on-chip tile is the (n, 1) column the docs recommend for (n, 1) buffers (and the
        fused-mamba tutorial's v3 reads a scan's last column that way); only `t[0:n]` on its own is refused."""
        vec = self.as_partition_vector(any_memory=True)
        return self if vec is None else vec

    def as_partition_vector(self, any_memory=False):
        """This 1-D HBM view as an (n, 1) view of the same elements, or None when it is not one.

        `nl.load(a[0:128, j])` drops the integer-indexed axis and leaves a 1-D access of 128 elements; the Neuron
        compiler loads it as a (128, 1) partition vector (the fused-mamba tutorial and the original NKIBench mamba
        both load their per-channel A this way and use it as activation's scale), so nkisim keeps the last
        integer-indexed axis next to the sliced one as an axis of size 1. A 1-D *on-chip* tile stays an error (the
        compiler's "Insufficient rank"), and so does a whole 1-D HBM tensor, which has no integer index to keep."""
        if (self.alloc.memory != "hbm" and not any_memory) or len(self.shape) != 1 or self.key is None or \
                self.inner is not None:
            return None
        key = list(self.key)
        ints = [i for i, c in enumerate(key) if isinstance(c, int)]
        if not ints or not all(isinstance(c, (int, slice)) for c in key):
            return None  # advanced keys already carry their own axes
        axis = next(i for i, c in enumerate(key) if isinstance(c, slice))
        after = [i for i in ints if i > axis]
        # Keep the integer axis next to the sliced one: after it (a column, (n, 1)), else before it (a row,
        # (1, n) as `a[j:j+1, 0:n]` would give; our inference, the compiler's documents show only the column).
        keep = after[0] if after else ints[-1]
        key[keep] = slice(key[keep], key[keep] + 1, 1)
        return Tile(self.alloc, key, _key_shape(key))

    def _view(self, comps):
        key = _compose(self, comps)
        if any(isinstance(c, np.ndarray) for c in key):
            key = simplify_key(key)
        return Tile(self.alloc, key, _key_shape(key))

    def _index_broadcast(self, raw):
        comps = _norm_user_key(raw, self.shape)
        if any(not isinstance(c, slice) or c.step != 1 for c in comps):
            raise _cerr("a broadcast tile can only be sliced")
        return self.restrict(tuple(dim_box(c, n) for c, n in zip(comps, self.shape)))

    def restrict(self, vbox):
        """The sub-view covering vbox ((lo, hi) per axis of this view; axes of size 1 broadcast and stay)."""
        shape = self.shape
        off = len(vbox) - len(shape)
        vbox = vbox[off:] if off > 0 else vbox
        if all(lo == 0 and hi == n for (lo, hi), n in zip(vbox, shape)):
            return self
        if self.inner is not None:
            inner = self.inner
            io = len(shape) - len(inner)
            sub = tuple(vbox[i] if inner[i - io] == shape[i] else (0, inner[i - io]) for i in range(io, len(shape)))
            base = Tile(self.alloc, self.key, inner).restrict(sub)
            nshape = tuple(hi - lo for lo, hi in vbox)
            return Tile(base.alloc, base.key, nshape, base.shape)
        comps = [slice(lo, hi, 1) if n != 1 else slice(0, 1, 1) for (lo, hi), n in zip(vbox, shape)]
        key = _compose(self, comps)
        if any(isinstance(c, np.ndarray) for c in key):
            key = simplify_key(key)
        return Tile(self.alloc, key, _key_shape(key))

    # --- data (numeric mode only) --------------------------------------------------------------------------
    def np_key(self):
        key = self.key
        if not any(isinstance(c, Tile) for c in key):
            return tuple(key)
        out = []
        for c, n in zip(key, self.alloc.shape):
            if isinstance(c, Tile):
                idx = c.read().astype(np.int64)
                if idx.size and (idx.min() < 0 or idx.max() >= n):
                    raise errors.NkiRuntimeError(
                        f"indirect index out of bounds: values in [{idx.min()}, {idx.max()}] for a dimension of size "
                        f"{n} of {self.alloc.label()}", kernel_line(), "err_tensor_access_out_of_bound")
                out.append(idx)
            else:
                out.append(c)
        return tuple(out)

    def _block(self):
        """For a lazily stored allocation: (block number, key inside the block) when this view stays in one block
        (integer block indices, the usual `buf[j, i_p, i_f]`), else None. Dropping leading integer indices does not
        change numpy's result: keys are all-basic or all-advanced (see _compose) and block dimensions lead."""
        a = self.alloc
        key = self.key
        pd = a.pdim
        if key is None:
            return (0, ()) if pd == 0 else None
        b = 0
        for c, n in zip(key[:pd], a.shape[:pd]):
            if not isinstance(c, int) or c < 0 or c >= n:
                return None
            b = b * n + c
        return b, tuple(key[pd:])

    def read(self):
        a = self.alloc
        if a.source is not None:
            a.data = a.source_values()
        if a.raw is not None:
            a.materialize()
        if a.lazy is not None:
            hit = self._block()
            if hit is None:
                a.dense()
            elif not a.lazy[hit[0]]:
                d = np.full(self.shape if self.inner is None else self.inner, a.fill, a.dtype.dtype)
                return d if self.inner is None else np.broadcast_to(d, self.shape)
        d = a.data if self.key is None else a.data[self.np_key()]
        if self.inner is not None:
            d = np.broadcast_to(d, self.shape)
        return d

    def write(self, values, submask=None):
        a = self.alloc
        if a.source is not None:
            raise _cerr(f"writing through {a.label()}.view({a.dtype.name}) is not simulated by nkisim (it reads "
                        f"the tensor's bytes as {a.dtype.name}; write the tensor itself)")
        if a.raw is not None:
            a.materialize()
        if a.lazy is not None:
            hit = self._block()
            if hit is None:
                a.dense()
            elif not a.lazy[hit[0]]:
                bshape = a.shape[a.pdim:]
                k = hit[1]
                a._first_write(hit[0], submask is None and not any(isinstance(c, np.ndarray) for c in k) and
                               math.prod(self.shape) == math.prod(bshape) and
                               all(lo == 0 and hi == n for (lo, hi), n in zip(self.box()[a.pdim:], bshape)))
        if not a.data.flags.writeable:
            # An op result materialized as a broadcast view (materialize) is shared until written: copy it now,
            # for `out_tile[...] = nl.multiply(out_tile, g, mask=...)` (the rmsnorm tutorial) writes into it.
            a.data = a.data.copy()
        if self.key is None:
            _write(a.data, (), values, submask)
        else:
            _write(a.data, self.np_key(), values, submask)

    # --- access records ------------------------------------------------------------------------------------
    def box(self):
        b = self._box
        if b is None:
            a = self.alloc
            if self.key is None:
                b = tuple((0, n) for n in a.shape)
            else:
                b = []
                for c, n in zip(self.key, a.shape):
                    t = type(c)
                    if t is int:
                        b.append((c, c + 1))
                    elif t is slice and c.step == 1:  # the common case, without range() arithmetic
                        b.append((c.start, c.stop) if c.stop > c.start else (c.start, c.start))
                    else:
                        b.append(dim_box(c, n))
                b = tuple(b)
            self._box = b
        return b

    def access(self, touch=True):
        """The Access record for this view; checks bounds and tells the liveness tracker which blocks are used."""
        a = self.alloc
        box = self.box()
        empty = False
        f_lo = f_hi = 0
        for (lo, hi), n, s in zip(box, a.shape, a.fstrides):
            if hi <= lo:
                empty = True
            elif lo < 0 or hi > n:
                d = next(i for i, ((l0, h0), m) in enumerate(zip(box, a.shape)) if h0 > l0 and (l0 < 0 or h0 > m))
                lo, hi = box[d]
                raise errors.NkiCompileError(
                    f"index out of bounds on dimension {d} of {a.label()} (shape {a.shape}): accessed [{lo}, {hi})",
                    kernel_line(), "err_tensor_access_out_of_bound")
            f_lo += lo * s
            f_hi += (hi - 1) * s
        isz = a.dtype.itemsize
        if empty:
            f_lo = f_hi = 0
        else:
            f_hi += 1
        pdim = a.pdim
        if pdim is None:
            return _tuple_new(Access, (a.tid, "hbm", 0, 1, f_lo * isz, f_hi * isz))
        p_lo, p_hi = box[pdim]
        if touch and a.use is not None and not empty:
            a.ctx.note_use(a)
        if touch and pdim and a.live and not empty:
            a.ctx.touch_blocks(a, _block_ids(box[:pdim], a.shape[:pdim]))
        return _tuple_new(Access, (a.tid, a.memory, p_lo, p_hi, f_lo * isz, f_hi * isz))

    def contiguous_elems(self):
        """Length of the contiguous runs this view reads or writes, in elements (for DMA descriptor counts)."""
        a = self.alloc
        key = self.key if self.key is not None else [slice(0, n, 1) for n in a.shape]
        if any(isinstance(c, np.ndarray) for c in key):
            return 1
        run = 1
        for c, n in zip(reversed(key), reversed(a.shape)):
            if isinstance(c, Tile):
                break
            if isinstance(c, int):
                if run > 1 or n == 1:
                    continue
                break
            ln = _slice_len(c)
            if c.step != 1 and ln > 1:
                break
            run *= ln
            if ln != n:
                break
        return run


class MaskedOperand:
    """`t[predicate]`: NKI's operand masking, where each matmul operand carries its own mask (e.g.
    `nc_matmul(a[i_a_f < 64], b[i_b_f < 256])`). Only matmul accepts it (isa.unmask); the predicate is over the
    operand's own (P, F) index space and must select a rectangle, since the compiler uses it to shrink the
    instruction."""

    __slots__ = ("tile", "pred")

    def __init__(self, tile, pred):
        self.tile = tile
        self.pred = pred

    @property
    def shape(self):
        return self.tile.shape

    def __repr__(self):
        return f"MaskedOperand({self.tile!r})"


def _write(arr, k, values, submask):
    if submask is None:
        arr[k] = values
    else:
        region = arr[k]
        np.copyto(region, np.broadcast_to(values, region.shape), where=submask)
        arr[k] = region


def _block_ids(box, shape):
    if len(shape) == 1:
        return range(box[0][0], box[0][1])
    ids = [0]
    for (lo, hi), n in zip(box, shape):
        ids = [i * n + j for i in ids for j in range(lo, hi)]
    return ids


def whole(alloc):
    return Tile(alloc)


_OPS = []


def _ops():
    """tileops, which gives Tile's operators their meaning. It issues instructions (core, compute, assign), which
    stand on this module, so it is bound when an operator first runs rather than imported here."""
    if not _OPS:
        from . import tileops
        _OPS.append(tileops)
    return _OPS[0]
