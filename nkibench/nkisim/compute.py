"""The Vector/Scalar/GpSimd instructions both front ends (classic isa.py and language.py, current/) and the tile
operators (tileops.py) are built from: operand forms, ALU and activation instructions, reductions, copies and
memsets, each issued through core.run_op. The front ends check their own signatures and hand over to these, so an
instruction is lowered the same way whichever API a kernel is written in."""
from __future__ import annotations

import math

import numpy as np

from . import dtypes, ops
from .core import cerr, is_scalar, out_dtype, run_op, tile_arg
from .dtypes import bool_
from .tensor import MaskedOperand, Tile


def engine_attrs(auto, **kw):
    a = dict(kw)
    if auto:
        a["engine_auto"] = True
    return a


def free_size(t):
    return math.prod(t.shape[1:])


def binop(api, op):
    try:
        return ops.binary(op)
    except ValueError as e:
        raise cerr(f"{api}: {e}") from None


def operand(api, x, name, data):
    if isinstance(x, Tile):
        tile_arg(x, api, name)
        if x.shape[0] != data.shape[0] or free_size(x) != 1:
            raise cerr(f"{api}: {name} must be a scalar or a per-partition ({data.shape[0]}, 1) vector, got "
                       f"{x.shape}", "err_num_partition_mismatch")
        return x
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x[()]
    if is_scalar(x):
        return x
    raise cerr(f"{api}: {name} must be a scalar or a tile, got {type(x).__name__}")


def binary_op(api, name, a, b, odt, mask, eng, auto, opname="tensor_tensor"):
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise cerr(f"{api}: operand shapes {a.shape} and {b.shape} do not match", "err_num_partition_mismatch") \
            from None
    f, kind = ops.BINARY[name]
    bitvec = kind == "bitvec"
    return run_op(api, opname, eng, [a, b], lambda x, y: f(x, y), shape, odt, mask=mask,
                  attrs=engine_attrs(auto, alu_op=name), as_int=bitvec)


def scalar_op(api, data, n0, operand0, reverse0, n1, operand1, reverse1, odt, mask, eng, auto,
              side=(), held=None, opname="tensor_scalar"):
    o0 = operand(api, operand0, "operand0", data)
    operands = [data]
    if isinstance(o0, Tile):
        operands.append(o0)
    o1 = None
    if n1 is not None:
        o1 = operand(api, operand1, "operand1", data)
        if isinstance(o1, Tile):
            operands.append(o1)
    f0, k0 = ops.BINARY[n0]
    f1, k1 = ops.BINARY[n1] if n1 is not None else (None, None)
    bitvec = k0 == "bitvec" or k1 == "bitvec"
    t0, t1 = isinstance(o0, Tile), isinstance(o1, Tile)
    c0 = None if t0 else (np.int64(o0) if bitvec else np.float32(o0))
    c1 = None if (t1 or n1 is None) else (np.int64(o1) if bitvec else np.float32(o1))

    def fn(d, *rest):
        rest = list(rest)
        a0 = rest.pop(0) if t0 else c0
        r = f0(a0, d) if reverse0 else f0(d, a0)
        if f1 is not None:
            a1 = rest.pop(0) if t1 else c1
            r = f1(a1, r) if reverse1 else f1(r, a1)
        if held is not None:
            held["r"] = r
        return r

    attrs = engine_attrs(auto, op0=n0, op1=n1)
    return run_op(api, opname, eng, operands, fn, data.shape, odt, mask=mask, attrs=attrs, as_int=bitvec,
                  side_writes=side)


def reduce_axes(api, data, axis):
    if axis is None:
        axes = tuple(range(1, len(data.shape)))
    elif isinstance(axis, (list, tuple)):
        axes = tuple(int(a) for a in axis)
    else:
        axes = (int(axis),)
    nd = len(data.shape)
    axes = tuple(sorted(a + nd if a < 0 else a for a in axes))
    # Any free axes, not only trailing ones: the documented max/avg-pool examples reduce axes [2, 4] of a 5-D view
    # (nki-facts §1.4). The partition axis (0) cannot be reduced by these instructions.
    if not axes or 0 in axes or len(set(axes)) != len(axes) or axes[-1] >= nd:
        raise cerr(f"{api}: reduction axes must be free axes of the tile (1 to {nd - 1}), got {list(axes)} "
                   f"for shape {data.shape}", "err_unsupported_reduction_axis")
    return axes


def reduce_op(api, name, data, axis, odt, mask, keepdims=False, negate=False, engine="vector", opname="tensor_reduce",
              auto=False):
    axes = reduce_axes(api, data, axis)
    shape = tuple(data.shape)
    if keepdims:
        out_shape = tuple(1 if i in axes else n for i, n in enumerate(shape))
    else:
        out_shape = tuple(n for i, n in enumerate(shape) if i not in axes)
    pad = max(0, 2 - len(out_shape))
    out_shape = out_shape + (1,) * pad
    f = ops.REDUCE[name]
    bitvec = name.startswith("bitwise")

    def obox_fn(box):
        if keepdims:
            return tuple((0, 1) if i in axes else b for i, b in enumerate(box))
        return tuple(b for i, b in enumerate(box) if i not in axes) + ((0, 1),) * pad

    def fn(d):
        r = f(d, axes, keepdims)
        if negate:
            r = -r
        return r.reshape(r.shape + (1,) * pad)

    return run_op(api, opname, engine, [data], fn, out_shape, odt, mask=mask, space=shape, obox_fn=obox_fn,
                  attrs=engine_attrs(auto, reduce_op=name, negate=bool(negate)), as_int=bitvec)


def is_boolean(name):
    """Whether ALU op name gives a boolean result (comparisons and logical ops)."""
    return ops.BINARY[name][1] in ("cmp", "logical")


def binary_engine(name, a, b):
    """The engine the compiler gives a two-tile ALU op it was not told where to run: GpSimd for power and for
    integer add/subtract/multiply of 32-bit or wider, else VectorE."""
    if name == "power" or (name in ("add", "subtract", "multiply") and a.alloc.dtype.kind in "iu" and
                           b.alloc.dtype.kind in "iu" and max(a.alloc.dtype.itemsize, b.alloc.dtype.itemsize) >= 4):
        return "gpsimd"
    return "vector"


def copy(src, dtype=None, mask=None):
    """nl.copy and `t.astype(dtype)`: a VectorE tensor_copy the compiler may move to another engine."""
    tile_arg(src, "nl.copy", "src")
    return copy_op("nl.copy", src, out_dtype(dtype, src), mask, "vector", True)


def copy_op(api, src, odt, mask, eng="vector", auto=True):
    return run_op(api, "tensor_copy", eng, [src], lambda d: d, src.shape, odt, mask=mask, attrs=engine_attrs(auto))


def activation(api, op, data, bias, scale, reduce_op, reduce_res, mask, dtype, engine="scalar", opname="activation"):
    try:
        name = ops.unary(op)
    except ValueError as e:
        raise cerr(f"{api}: {e}") from None
    tile_arg(data, api, "data")
    operands = [data]
    if isinstance(bias, Tile):
        tile_arg(bias, api, "bias")
        operands.append(bias)
    if isinstance(scale, Tile):
        tile_arg(scale, api, "scale")
        operands.append(scale)
    f = ops.UNARY[name]
    has_bias = isinstance(bias, Tile)
    has_scale = isinstance(scale, Tile)
    const_bias = np.float32(bias) if bias is not None and not has_bias else None
    const_scale = np.float32(scale) if not has_scale else None
    held = {}

    def fn(d, *rest):
        rest = list(rest)
        b = rest.pop(0) if has_bias else const_bias
        s = rest.pop(0) if has_scale else const_scale
        x = d * s if s is not None and not (not has_scale and s == 1.0) else d
        if b is not None:
            x = x + b
        r = f(x)
        held["r"] = r
        return r

    side = ()
    attrs = {"func": name}
    if reduce_res is not None:
        tile_arg(reduce_res, api, "reduce_res")
        rname = ops.reduce(reduce_op or np.add)
        attrs["reduce_op"] = rname
        axes = tuple(range(1, len(data.shape)))
        side = ((reduce_res, lambda: ops.REDUCE[rname](held["r"], axes, True)),)
    return run_op(api, opname, engine, operands, fn, data.shape, out_dtype(dtype, data), mask=mask, attrs=attrs,
                  side_writes=side)


def elementwise(name, x, y, dtype=None, mask=None, bool_out=False):
    """nl.<name>(x, y) and the Python operators on tiles: a tensor_tensor, or a tensor_scalar when one side is a
    scalar or a (P, 1) vector broadcast along the other's free axis, as the compiler lowers them."""
    api = f"nl.{name}"
    fn, kind = ops.BINARY[name]
    for v, nm in ((x, "x"), (y, "y")):
        if isinstance(v, MaskedOperand):
            tile_arg(v, api, nm)  # raises: operand masks are for matmul only
    xt, yt = isinstance(x, Tile), isinstance(y, Tile)
    if not xt and not yt:
        return fn(np.float32(x), np.float32(y)) if kind != "bitvec" else fn(np.int64(x), np.int64(y))
    for v, nm in ((x, "x"), (y, "y")):
        if isinstance(v, Tile):
            tile_arg(v, api, nm)
        elif not is_scalar(v) and not (isinstance(v, np.ndarray) and v.ndim == 0):
            raise cerr(f"{api}: operand '{nm}' must be a tile or a scalar, got {type(v).__name__}")
    if dtype is not None:
        odt = dtypes.normalize(dtype)
    elif bool_out:
        odt = bool_
    else:
        odt = None
        for v in (x, y):
            d = v.alloc.dtype if isinstance(v, Tile) else dtypes.of_scalar(v)
            odt = d if odt is None else dtypes.promote(odt, d)
    if xt and yt:
        vec = per_partition(x, y) or per_partition(y, x)
        if vec is None:
            eng = binary_engine(name, x, y)
            return binary_op(api, name, x, y, odt, mask, eng, eng == "vector")
        data, other = vec
        reverse = data is y
    elif xt:
        data, other, reverse = x, y, False
    else:
        data, other, reverse = y, x, True
    eng = "gpsimd" if name == "power" else "vector"
    return scalar_op(api, data, name, other, reverse, None, None, False, odt, mask, eng, True)


def per_partition(a, b):
    """(data, operand) when b is a (P, 1) vector broadcast along a's free axis: that is a tensor_scalar."""
    if len(a.shape) >= 2 and len(b.shape) == len(a.shape) and b.shape[0] == a.shape[0] and \
            math.prod(b.shape[1:]) == 1 and math.prod(a.shape[1:]) > 1:
        return a, b
    return None


UNARY_VECTOR = {"logical_not": (lambda a: (a == 0).astype(np.float32), True), "invert": (np.invert, False)}


def vector_unary(name, x, dtype=None, mask=None):
    """nl.logical_not / nl.invert (and `~t`): one-input ALU ops, which run as a tensor_scalar on VectorE."""
    fn, bool_out = UNARY_VECTOR[name]
    api = f"nl.{name}"
    tile_arg(x, api, "x")
    odt = dtypes.normalize(dtype) if dtype is not None else (dtypes.bool_ if bool_out else x.dtype)
    return run_op(api, "tensor_scalar", "vector", [x], fn, x.shape, odt, mask=mask, as_int=name == "invert",
                  attrs={"op0": name})


def memset(shape, value, odt, mask=None, eng="vector", auto=True):
    """A memset instruction making a new tile (nisa.memset, and a scalar assigned to a tile)."""
    v = np.float32(value) if odt.is_float else value
    return run_op("nisa.memset", "memset", eng, [], lambda: np.asarray(v), tuple(shape), odt, mask=mask,
                  attrs=engine_attrs(auto, value=float(value)))
