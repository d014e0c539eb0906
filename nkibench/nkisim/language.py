"""nki.language (nl): buffers, dtypes, tile creation, indexing helpers, loops, and the high-level ops, each lowered
to the ISA instruction(s) the compiler would emit."""
from __future__ import annotations

import builtins as _b
import math
import sys

import numpy as np

from . import compute, core, creation, dtypes, isa, ops, replay, taint, tileops
from .context import active, current, kernel_line
from .core import cerr, out_dtype, tile_arg
from .dtypes import (bfloat16, bool_, float8_e4m3, float8_e4m3fn, float8_e5m2, float16, float32, float32r,  # noqa
                     int8, int16, int32, int64, tfloat32, uint8, uint16, uint32, uint64)
from .tensor import MaskedOperand, ParDim, Tile, cached_arange, new_alloc



# --- buffers ------------------------------------------------------------------------------------------------------

class Buffer:
    def __init__(self, name, memory):
        self.name = name
        self.memory = memory

    def __repr__(self):
        return f"nl.{self.name}"

    def auto_alloc(self, *args, **kwargs):
        return self

    def __call__(self, *args, **kwargs):
        return self


sbuf = Buffer("sbuf", "sbuf")
psum = Buffer("psum", "psum")
private_hbm = Buffer("private_hbm", "hbm")
hbm = private_hbm
shared_hbm = Buffer("shared_hbm", "hbm")


def _buffer(buffer):
    if buffer is None:
        return sbuf
    if isinstance(buffer, Buffer):
        return buffer
    if isinstance(buffer, str) and buffer in ("sbuf", "psum", "hbm", "private_hbm", "shared_hbm"):
        return {"sbuf": sbuf, "psum": psum, "hbm": hbm, "private_hbm": private_hbm, "shared_hbm": shared_hbm}[buffer]
    raise cerr(f"unsupported buffer {buffer!r}", "err_unsupported_memory")


class _TileSize:
    pmax = 128
    psum_fmax = 512
    psum_bank_fmax = 512
    psum_num_banks = 8
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512
    psum_min_align = 4
    sbuf_min_align = 4
    sbuf_fmax = 64 * 1024

    @property
    def total_available_sbuf_size(self):
        from .context import active
        from .hardware import SBUF_BYTES
        c = active()
        return SBUF_BYTES[c.target if c else "trn1"]

    sbuf_size_bytes = total_available_sbuf_size


tile_size = _TileSize()


class _FMin:
    def __init__(self, v):
        self.min = v


fp32 = _FMin(np.float32(-3.4028235e38))
bfp16 = _FMin(np.float32(-3.3895314e38))


def par_dim(n):
    return ParDim(int(n))


# --- creation -----------------------------------------------------------------------------------------------------

def ndarray(shape, dtype=float32, buffer=None, name="", **kwargs):
    return _create(shape, dtype, buffer, name, "garbage")


def _create(shape, dtype, buffer, name, init):
    b = _buffer(buffer)
    return creation.create(shape, dtype, b.memory, b.name, name, init)


def zeros(shape, dtype=float32, buffer=None, name="", **kwargs):
    return _create(shape, dtype, buffer, name, "zeros")


def ones(shape, dtype=float32, buffer=None, name="", **kwargs):
    return _create(shape, dtype, buffer, name, 1)


def full(shape, fill_value, dtype=float32, buffer=None, name="", **kwargs):
    return _create(shape, dtype, buffer, name, fill_value)


def empty_like(a, dtype=None, buffer=None, name="", **kwargs):
    return ndarray(a.shape, dtype or a.dtype, buffer if buffer is not None else _like_buffer(a), name)


def zeros_like(a, dtype=None, buffer=None, name="", **kwargs):
    return zeros(a.shape, dtype or a.dtype, buffer if buffer is not None else _like_buffer(a), name)


def ones_like(a, dtype=None, buffer=None, name="", **kwargs):
    return ones(a.shape, dtype or a.dtype, buffer if buffer is not None else _like_buffer(a), name)


def full_like(a, fill_value, dtype=None, buffer=None, name="", **kwargs):
    return full(a.shape, fill_value, dtype or a.dtype, buffer if buffer is not None else _like_buffer(a), name)


def _like_buffer(a):
    """The buffer a new tensor "like" a goes in: a's own, and private HBM for a tensor in HBM unless shared."""
    if isinstance(a, Tile):
        return {"sbuf": sbuf, "psum": psum}.get(a.alloc.memory, shared_hbm if a.alloc.hbm_kind == "shared_hbm"
                                                else private_hbm)
    return sbuf


def shared_constant(constant, dtype=None, **kwargs):
    arr = np.asarray(constant)
    dt = dtypes.normalize(dtype) if dtype is not None else dtypes.normalize(arr.dtype)
    ctx = current()
    data = np.ascontiguousarray(dt.cast(arr)) if ctx.numeric else None
    return Tile(new_alloc(arr.shape, dt, "hbm", name="shared_constant", init=None, data=data, hbm_kind="constant"))


def shared_identity_matrix(n, dtype=uint8, **kwargs):
    return shared_constant(np.identity(n), dtype)


class finfo:  # noqa: N801 - numpy's name, as NKI spells it
    """nl.finfo(dtype): the limits of a float dtype, NKI's narrow formats included (nki-samples' vision kernels fill
    masked scores with nl.finfo(dtype).min). Values are float32 numbers, as nkisim holds every narrow float."""

    _NARROW = {"bfloat16": (3.3895313892515355e38, 2.0 ** -7, 1.1754943508222875e-38, 16),
               "float8_e4m3": (240.0, 2.0 ** -3, 2.0 ** -6, 8), "float8_e4m3fn": (448.0, 2.0 ** -3, 2.0 ** -6, 8),
               "float8_e5m2": (57344.0, 2.0 ** -2, 2.0 ** -14, 8), "tfloat32": (3.4028234663852886e38,
                                                                               2.0 ** -10, 1.1754943508222875e-38, 19)}

    def __init__(self, dtype):
        self.dtype = dtypes.normalize(dtype)
        if not self.dtype.is_float:
            raise cerr(f"nl.finfo takes a float dtype, not {self.dtype.name} (nl.iinfo is for integers)")
        if self.dtype.name in self._NARROW:
            mx, self.eps, self.tiny, self.bits = self._NARROW[self.dtype.name]
        else:
            fi = np.finfo(self.dtype.dtype)
            mx, self.eps, self.tiny, self.bits = float(fi.max), float(fi.eps), float(fi.tiny), fi.bits
        self.max = mx
        self.min = -mx
        self.smallest_normal = self.tiny

    def __repr__(self):
        return f"nl.finfo(max={self.max}, min={self.min}, eps={self.eps}, dtype={self.dtype.name})"


class iinfo:  # noqa: N801
    """nl.iinfo(dtype): the limits of an integer dtype."""

    def __init__(self, dtype):
        self.dtype = dtypes.normalize(dtype)
        if self.dtype.is_float:
            raise cerr(f"nl.iinfo takes an integer dtype, not {self.dtype.name} (nl.finfo is for floats)")
        ii = np.iinfo(self.dtype.dtype)
        self.min, self.max, self.bits = int(ii.min), int(ii.max), ii.bits


def static_cast(x, dtype):
    """Host-side cast: a scalar to the dtype's storage type; an array to a host array of the dtype, its values rounded
    to it (a dtypes.HostArray for the narrow ones numpy lacks, which a kernel then receives as that dtype)."""
    dt = dtypes.normalize(dtype)
    if isinstance(x, (np.ndarray, list, tuple)):
        return dtypes.host_array(x, dt)
    return dt.type(x)


# --- indexing helpers ---------------------------------------------------------------------------------------------

def arange(start, stop=None, step=1, dtype=None):
    if taint.ACTIVE[0] and (taint.tainted(start) or taint.tainted(stop) or taint.tainted(step)):
        if stop is None:
            start, stop = 0, start
        return taint.arange(start, stop, step)
    if stop is None and step == 1 and isinstance(start, (int, np.integer)):
        return cached_arange(int(start))
    if stop is None:
        start, stop = 0, start
    return np.arange(start, stop, step, dtype=np.int64)


class _Grid(tuple):
    @property
    def p(self):
        return self[0]

    @property
    def x(self):
        return self[1]

    @property
    def y(self):
        return self[2]

    @property
    def z(self):
        return self[3]


class _MGrid:
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        n = len(key)
        out = []
        for i, s in enumerate(key):
            if isinstance(s, slice):
                v = arange(0 if s.start is None else s.start, s.stop, 1 if s.step is None else s.step)
            elif taint.tainted(s):
                v = taint.arange(s, s + 1, 1)
            else:
                v = np.asarray([int(s)], dtype=np.int64)
            out.append(v.reshape((1,) * i + (-1,) + (1,) * (n - i - 1)))
        return _Grid(out)


mgrid = _MGrid()


def ds(start, size):
    return slice(start, start + size, 1)


def expand_dims(data, axis):
    axes = [axis] if isinstance(axis, int) else list(axis)
    shape = list(data.shape)
    for a in sorted(a + len(shape) + 1 if a < 0 else a for a in axes):
        shape.insert(a, 1)
    return data.reshape(tuple(shape))


# --- loops --------------------------------------------------------------------------------------------------------

class _Range:
    """A loop statement's iterable: records the loop for the trace; also behaves like a range (len, indexing)."""

    def __init__(self, kind, args):
        self.kind = kind
        self.range = range(*[int(a) for a in args])

    def __iter__(self):
        ctx = active()
        if ctx is None:
            return iter(self.range)
        return ctx.loop(self.kind, self.range)

    def __len__(self):
        return len(self.range)

    def __getitem__(self, i):
        return self.range[i]

    def __reversed__(self):
        return reversed(self.range)

    def __contains__(self, v):
        return v in self.range

    def __repr__(self):
        return f"{self.kind}_range{self.range!r}"[0:200]


def affine_range(*args, **kwargs):
    return _Range("affine", args)


def sequential_range(*args, **kwargs):
    return _Range("sequential", args)


def static_range(*args, **kwargs):
    return _Range("static", args)


def python_range(*args):
    """What a kernel's plain `range` becomes: the compiler treats it like sequential_range."""
    return _Range("python", args)


def loop_reduce(x, op, loop_indices, mask=None, dtype=None, **kwargs):
    api = "nl.loop_reduce"
    tile_arg(x, api, "x")
    try:
        name = ops.binary(op)
    except ValueError as e:
        raise cerr(f"{api}: {e}") from None
    res = compute.copy_op(api, x, out_dtype(dtype, x), mask, "vector", False)
    ins = res.alloc.pending[0] if res.alloc.pending else None
    if ins is not None:
        ins.op = "tensor_tensor"
        ins.attrs = {"alu_op": name, "loop_reduce": True}
    idx = list(loop_indices) if isinstance(loop_indices, (list, tuple)) else [loop_indices]
    if not _b.all(int(i) == 0 for i in idx):
        res.alloc.reduce_op = name  # combine with the destination when assigned; the first iteration overwrites
    return res


def program_id(axis=0):
    ctx = current()
    if axis >= len(ctx.program):
        return 0
    return ctx.program[axis]


def num_programs(axes=None):
    ctx = current()
    if axes is None:
        return math.prod(ctx.grid) if ctx.grid else 1
    if isinstance(axes, (list, tuple)):
        return math.prod(ctx.grid[a] if a < len(ctx.grid) else 1 for a in axes)
    return ctx.grid[axes] if axes < len(ctx.grid) else 1


def program_ndim():
    return len(current().grid)


class nc:
    """nl.nc(n): spread SPMD instances over n physical cores (trn2). Instances still run one after another here."""

    def __init__(self, n):
        self.n = int(n)

    def __index__(self):
        return self.n

    def __int__(self):
        return self.n


def spmd_dim(*args):
    return math.prod(int(a) for a in args)


def device_print(prefix, x=None, **kwargs):
    ctx = current()
    replay.flag_active(ctx)  # a replayed iteration would not print
    if x is None:
        print(f"[device_print line {kernel_line()}] {prefix}", file=sys.stderr)
        return
    if isinstance(x, Tile):
        val = x.read() if ctx.numeric else f"<{x.shape} {x.dtype}: no data in timing-only mode>"
    else:
        val = x
    print(f"[device_print line {kernel_line()}] {prefix} {val}", file=sys.stderr)


# --- memory ops ---------------------------------------------------------------------------------------------------

def load(src, mask=None, dtype=None, **kwargs):
    if not isinstance(src, Tile) or src.alloc.memory != "hbm":
        mem = src.alloc.memory if isinstance(src, Tile) else type(src).__name__
        raise cerr(f"Expected operand 'src' of 'load' to be in address space 'hbm', but got a tile in {mem}",
                   "err_unsupported_memory")
    vec = src.as_partition_vector()  # a[0:128, j] loads as a (128, 1) partition vector, as compiled
    if vec is not None:
        src = vec
    return core.dma("nl.load", src, None, mask=mask, dtype=dtype)


def store(dst, value, mask=None, **kwargs):
    if not isinstance(dst, Tile) or dst.alloc.memory != "hbm":
        raise cerr("Expected operand 'dst' of 'store' to be in address space 'hbm'", "err_unsupported_memory")
    if core.is_scalar(value):
        value = isa.memset(dst.shape, value, dst.dtype)
    tile_arg(value, "nl.store", "value")
    if value.alloc.memory == "psum":
        value = compute.copy_op("nl.store", value, value.alloc.dtype, mask)  # DMA cannot read PSUM: evict first
    core.dma("nl.store", value, dst, mask=mask)


def load_transpose2d(src, mask=None, dtype=None, **kwargs):
    if not isinstance(src, Tile) or src.alloc.memory != "hbm" or len(src.shape) != 2:
        raise cerr("load_transpose2d expects a 2-D HBM tensor", "err_unsupported_memory")
    return core.dma("nl.load_transpose2d", src, None, mask=mask, dtype=dtype, out_shape=src.shape[::-1],
                    transform=lambda v: v.T, attrs={"transpose": True})


def atomic_rmw(dst, value, op, mask=None, **kwargs):
    if ops.canon(op) != "add":
        raise cerr("atomic_rmw supports only np.add")
    tile_arg(value, "nl.atomic_rmw", "value")
    core.dma("nl.atomic_rmw", value, dst, mask=mask, rmw=np.add)


def copy(src, mask=None, dtype=None, **kwargs):
    return compute.copy(src, dtype, mask)


def broadcast_to(src, shape, **kwargs):
    return tileops.broadcast_to(src, shape)


# --- elementwise, math, reductions --------------------------------------------------------------------------------

class _NlOp:
    """An nl function that is also an op token (nisa.activation(op=nl.exp), tensor_reduce(nl.max, ...))."""

    def __init__(self, name, impl, nki_op=None):
        self.__name__ = name
        self.nki_op = nki_op or name
        self._impl = impl

    def __call__(self, *args, **kwargs):
        return self._impl(*args, **kwargs)

    def __repr__(self):
        return f"nl.{self.__name__}"


def _activation_fn(name):
    def f(x, dtype=None, mask=None, **kwargs):
        if not isinstance(x, (Tile, MaskedOperand)):
            return ops.UNARY[name](np.float32(x))
        return compute.activation(f"nl.{name}", name, x, None, 1.0, None, None, mask, dtype)
    return _NlOp(name, f)


for _n in ("exp", "log", "sin", "cos", "tan", "tanh", "arctan", "sqrt", "rsqrt", "sigmoid", "relu", "gelu",
           "gelu_dx", "gelu_apprx_tanh", "gelu_apprx_sigmoid", "silu", "silu_dx", "erf", "erf_dx", "softplus", "mish",
           "square", "sign", "abs", "negative", "trunc", "floor", "ceil", "reciprocal"):
    globals()[_n] = _activation_fn(_n)


def _identity_impl(x, dtype=None, mask=None, **kwargs):
    return copy(x, mask=mask, dtype=dtype)


identity = _NlOp("identity", _identity_impl, "copy")


def _vector_unary(name):
    def f(x, dtype=None, mask=None, **kwargs):
        return compute.vector_unary(name, x, dtype, mask)
    return _NlOp(name, f)


logical_not = _vector_unary("logical_not")
invert = _vector_unary("invert")
bitwise_not = invert


def _binary_fn(name, bool_out=False):
    def f(x, y, dtype=None, mask=None, **kwargs):
        return compute.elementwise(name, x, y, dtype, mask, bool_out)
    return _NlOp(name, f)


for _n in ("add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "mod", "fmod", "bitwise_and",
           "bitwise_or", "bitwise_xor", "left_shift", "right_shift"):
    globals()[_n] = _binary_fn(_n)
for _n in ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
           "logical_xor"):
    globals()[_n] = _binary_fn(_n, True)


def _reduce_fn(name, rop):
    def f(x, axis, dtype=None, mask=None, keepdims=False, **kwargs):
        api = f"nl.{name}"
        tile_arg(x, api, "x")
        odt = out_dtype(dtype, x)
        if name in ("all", "any") and dtype is None:
            odt = bool_
        return compute.reduce_op(api, rop, x, axis, odt, mask, keepdims, auto=False)
    return _NlOp(name, f, rop)


max = _reduce_fn("max", "maximum")  # noqa: A001 - NKI's names
min = _reduce_fn("min", "minimum")  # noqa: A001
sum = _reduce_fn("sum", "add")  # noqa: A001
prod = _reduce_fn("prod", "multiply")
all = _reduce_fn("all", "logical_and")  # noqa: A001
any = _reduce_fn("any", "logical_or")  # noqa: A001


def _mean(x, axis, dtype=None, mask=None, keepdims=False, **kwargs):
    tile_arg(x, "nl.mean", "x")
    odt = dtypes.normalize(dtype) if dtype is not None else (x.dtype if x.dtype.is_float else float32)
    axes = compute.reduce_axes("nl.mean", x, axis)
    n = math.prod(x.shape[a] for a in axes)
    s = compute.reduce_op("nl.mean", "add", x, axis, float32, mask, keepdims)
    return compute.scalar_op("nl.mean", s, "multiply", 1.0 / n, False, None, None, False, odt, None, "vector", True)


mean = _NlOp("mean", _mean, "mean")


def _var(x, axis, dtype=None, mask=None, **kwargs):
    m = mean(x, axis, keepdims=True, mask=mask)
    d = subtract(x, m, mask=mask)
    return mean(multiply(d, d, mask=mask), axis, dtype=dtype, mask=mask)


var = _NlOp("var", _var, "var")


def where(condition, x, y, dtype=None, mask=None, **kwargs):
    api = "nl.where"
    tile_arg(condition, api, "condition")
    operands = [condition]
    for v, nm in ((x, "x"), (y, "y")):
        if isinstance(v, Tile):
            tile_arg(v, api, nm)
            operands.append(v)
    xt, yt = isinstance(x, Tile), isinstance(y, Tile)
    shape = np.broadcast_shapes(*[o.shape for o in operands])

    def fn(c, *rest):
        rest = list(rest)
        a = rest.pop(0) if xt else np.float32(x)
        b = rest.pop(0) if yt else np.float32(y)
        return np.where(c != 0, a, b)

    odt = out_dtype(dtype, *[v for v in (x, y) if isinstance(v, Tile)]) if (xt or yt or dtype) else float32
    return core.run_op(api, "select", "vector", operands, fn, shape, odt, mask=mask)


def matmul(x, y, transpose_x=False, mask=None, dtype=None, **kwargs):
    api = "nl.matmul"
    # Operand masks (x[pred], y[pred]) are over each operand's own indices; x's follows it through the transpose.
    xpred = ypred = None
    if isinstance(x, MaskedOperand):
        x, xpred = x.tile, (x.pred if isinstance(x.pred, taint.TArray) else np.asarray(x.pred))
        if not transpose_x:
            xpred = xpred.reshape((1,) * (2 - xpred.ndim) + xpred.shape).T
    if isinstance(y, MaskedOperand):
        y, ypred = y.tile, y.pred
    tile_arg(x, api, "x")
    tile_arg(y, api, "y")
    if not transpose_x:
        # x is [M, K]; TensorE wants the contraction on partitions, so the compiler transposes x first.
        if x.alloc.memory != "sbuf":
            x = compute.copy_op(api, x, x.alloc.dtype, None)
        t = isa.nc_transpose(x)
        x = compute.copy_op(api, t, x.alloc.dtype, None)
    elif x.alloc.memory != "sbuf":
        x = compute.copy_op(api, x, x.alloc.dtype, None)
    if y.alloc.memory != "sbuf":
        y = compute.copy_op(api, y, y.alloc.dtype, None)
    if xpred is not None:
        x = MaskedOperand(x, xpred)
    if ypred is not None:
        y = MaskedOperand(y, ypred)
    return isa.nc_matmul(x, y, mask=mask, dtype=dtype)


def transpose(x, mask=None, dtype=None, **kwargs):
    tile_arg(x, "nl.transpose", "x")
    n = core.operand_rule("nc_transpose", "tensor").max_side  # the compiler lowers it to a TensorE transpose
    if x.shape[0] > n or math.prod(x.shape[1:]) > n:
        raise cerr(f"nl.transpose handles at most {n}x{n}, got {x.shape}", "err_size_of_dimension_exceed_arch_limit")
    if x.alloc.memory != "sbuf":
        x = compute.copy_op("nl.transpose", x, x.alloc.dtype, None)
    return isa.nc_transpose(x, mask=mask, dtype=dtype)


def softmax(x, axis, dtype=None, mask=None, **kwargs):
    m = max(x, axis, keepdims=True, mask=mask)
    e = exp(subtract(x, m, mask=mask), mask=mask)
    s = sum(e, axis, keepdims=True, mask=mask)
    r = isa.reciprocal(s, mask=mask)
    return multiply(e, r, dtype=dtype, mask=mask)


def rms_norm(x, w, axis, n, epsilon=1e-6, dtype=None, mask=None, **kwargs):
    s = sum(square(x, mask=mask), axis, keepdims=True, mask=mask)
    r = rsqrt(add(multiply(s, 1.0 / n, mask=mask), epsilon, mask=mask), mask=mask)
    y = multiply(x, r, mask=mask)
    return multiply(y, w, dtype=dtype, mask=mask)


def dropout(x, rate, dtype=None, mask=None, **kwargs):
    return isa.dropout(x, rate, mask=mask, dtype=dtype)


def random_seed(seed, **kwargs):
    current().rng = np.random.default_rng(int(seed) if not isinstance(seed, Tile) else 0)


def rand(shape, dtype=float32, **kwargs):
    ctx = current()
    return core.run_op("nl.rand", "rng", "gpsimd", [], lambda: isa.ctx_rng(ctx).random(tuple(shape), np.float32),
                       tuple(shape), dtypes.normalize(dtype))


def gather_flattened(data, indices, mask=None, dtype=None, **kwargs):
    api = "nl.gather_flattened"
    tile_arg(data, api, "data")
    tile_arg(indices, api, "indices")

    def fn(d, i):
        flat = d.reshape(d.shape[0], -1)
        idx = np.clip(np.rint(i).astype(np.int64).reshape(i.shape[0], -1), 0, flat.shape[1] - 1)
        return np.take_along_axis(flat, idx, axis=1).reshape(i.shape)

    return core.run_op(api, "gather_flattened", "gpsimd", [data, indices], fn, indices.shape, out_dtype(dtype, data),
                       mask=mask)


def all_reduce(*args, **kwargs):
    raise cerr("nl.all_reduce (collectives across SPMD programs) is not supported by nkisim")
