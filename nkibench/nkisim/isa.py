"""nki.isa: one call per hardware instruction (classic signatures, return-value style)."""
from __future__ import annotations

import enum

import numpy as np

from . import assign, compute, core, dtypes, opregistry, ops, taint
from . import hardware as hw
from .context import current
from .core import cerr, out_dtype, run_op, tile_arg
from .tensor import MaskedOperand, Tile


class _Engine:
    __slots__ = ("name", "value")

    def __init__(self, name, value):
        self.name = name
        self.value = value

    def __repr__(self):
        return f"nisa.{self.name}_engine"


tensor_engine = _Engine("tensor", 1)
vector_engine = _Engine("vector", 2)
scalar_engine = _Engine("scalar", 3)
gpsimd_engine = _Engine("gpsimd", 4)
dma_engine = _Engine("dma", 5)
sync_engine = _Engine("sync", 6)
unknown_engine = _Engine("unknown", 0)


class engine:
    tensor = tensor_engine
    vector = vector_engine
    scalar = scalar_engine
    gpsimd = gpsimd_engine
    dma = dma_engine
    sync = sync_engine
    unknown = unknown_engine


class reduce_cmd(enum.Enum):
    idle = 0
    reset = 1
    reset_reduce = 2
    reduce = 3


class dge_mode(enum.Enum):
    none = 0
    swdge = 1
    hwdge = 2
    unknown = 3


class oob_mode(enum.Enum):
    error = 0
    skip = 1


class nc_version(enum.IntEnum):
    gen2 = 2
    gen3 = 3


def get_nc_version():
    return nc_version.gen3 if current().target == "trn2" else nc_version.gen2


def _eng(e, default, allowed=("vector", "scalar", "gpsimd")):
    """(engine name, chosen_by_compiler)."""
    if e is None or e is unknown_engine:
        return default, True
    name = e.name if isinstance(e, _Engine) else str(e)
    if name not in allowed:
        raise cerr(f"engine {name!r} cannot run this instruction (allowed: {', '.join(allowed)})")
    return name, False


# --- TensorE ------------------------------------------------------------------------------------------------------

_FP8_NAMES = ("float8_e4m3", "float8_e4m3fn", "float8_e5m2")
_MATMUL = opregistry.operands("nc_matmul", "tensor")  # SBUF operands, the result in PSUM


def _double_row(perf_mode):
    """Whether perf_mode asks for the Tensor engine's double-row FP8 mode: 'double_row' (nisa.matmul_perf_mode) or
    'double_row_gen3' (the classic string nki-samples' double_row_matmul passes)."""
    if perf_mode is None:
        return False
    name = str(getattr(perf_mode, "value", getattr(perf_mode, "name", perf_mode)))
    if name in ("none", ""):
        return False
    if name in ("double_row", "double_row_gen3"):
        return True
    raise cerr(f"nisa.nc_matmul: unknown perf_mode {perf_mode!r} (nkisim knows 'double_row' and 'double_row_gen3')")


def nc_matmul(stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False,
              tile_position=(), tile_size=(), mask=None, dtype=None, perf_mode=None, **kwargs):
    api = "nisa.nc_matmul"
    if _double_row(perf_mode):
        return _double_row_matmul(api, stationary, moving, mask, dtype)
    stationary, moving, mask = unmask(api, stationary, moving, mask)
    stationary = _operand_to_sbuf(api, stationary, "stationary")
    moving = _operand_to_sbuf(api, moving, "moving")
    k, m = stationary.shape[0], compute.free_size(stationary)
    k2, n = moving.shape[0], compute.free_size(moving)
    if k != k2:
        raise cerr(f"nc_matmul contraction (partition) sizes differ: stationary {stationary.shape}, moving "
                   f"{moving.shape}", "err_num_partition_mismatch")
    if k > hw.MATMUL_K_MAX:
        raise cerr(f"nc_matmul contraction size {k} exceeds the {hw.MATMUL_K_MAX} partitions",
                   "err_num_partition_exceed_arch_limit")
    if m > hw.MATMUL_STATIONARY_FMAX:
        raise cerr(f"nc_matmul stationary free size {m} exceeds gemm_stationary_fmax={hw.MATMUL_STATIONARY_FMAX}",
                   "err_size_of_dimension_exceed_arch_limit")
    if n > hw.MATMUL_MOVING_FMAX:
        raise cerr(f"nc_matmul moving free size {n} exceeds gemm_moving_fmax={hw.MATMUL_MOVING_FMAX}",
                   "err_size_of_dimension_exceed_arch_limit")
    return _matmul(api, "nc_matmul", stationary, moving, k, m, n, mask, dtype, is_transpose=bool(is_transpose),
                   is_stationary_onezero=bool(is_stationary_onezero), is_moving_onezero=bool(is_moving_onezero))


def _operand_to_sbuf(api, t, name):
    """TensorE reads its operands from SBUF only. The compiler accepts a matmul operand in PSUM and copies it to
    SBUF first; that copy (a tensor_copy the compiler picks the engine of, here VectorE, which reads PSUM) is what it
    costs. HBM operands stay an error: the compiler does not insert a DMA."""
    if isinstance(t, Tile) and t.alloc.memory == "psum":
        return compute.copy_op(api, t, t.alloc.dtype, None)
    tile_arg(t, api, name, _MATMUL.reads)
    return t


def _double_row_matmul(api, stationary, moving, mask, dtype):
    """FP8 double-row mode (NeuronCore-v3 and later; "Double FP8 mode, 2x matmul throughput by packing two FP8
    weight/ifmap element pairs", nki.isa.matmul_perf_mode): each operand holds two rows of the contraction per
    partition, stationary (K, 2, M) and moving (K, 2, N), and the instruction contracts over both, 2K rows:
    out[m, n] = sum over k, r of stationary[k, r, m] * moving[k, r, n]. That is what nki-samples'
    double_row_matmul computes with it (perf_mode='double_row_gen3' on tiles of two consecutive K tiles of lhs^T
    and rhs), and its numeric test checks the kernel against np.matmul. The trace records one pass over K
    partitions, as the engine makes it."""
    for x, nm in ((stationary, "stationary"), (moving, "moving")):
        if isinstance(x, MaskedOperand):
            raise cerr(f"{api}: operand masks are not supported with perf_mode double_row")
        tile_arg(x, api, nm, _MATMUL.reads)
        if len(x.shape) != 3 or x.shape[1] != 2:
            raise cerr(f"{api}: with perf_mode double_row the {nm} tile must be (K, 2, free): two contraction rows "
                       f"per partition, got shape {tuple(x.shape)}")
        if x.alloc.dtype.name not in _FP8_NAMES:
            raise cerr(f"{api}: perf_mode double_row is the Tensor engine's FP8 mode; the {nm} tile is "
                       f"{x.alloc.dtype.name}", "err_unsupported_dtype")
    k, m, n = stationary.shape[0], stationary.shape[2], moving.shape[2]
    if moving.shape[0] != k:
        raise cerr(f"nc_matmul contraction (partition) sizes differ: stationary {stationary.shape}, moving "
                   f"{moving.shape}", "err_num_partition_mismatch")
    if k > hw.MATMUL_K_MAX or m > hw.MATMUL_STATIONARY_FMAX or n > hw.MATMUL_MOVING_FMAX:
        raise cerr(f"{api}: double_row tiles exceed the Tensor engine (K <= 128, stationary free <= 128, moving free "
                   f"<= 512 per row): stationary {stationary.shape}, moving {moving.shape}",
                   "err_size_of_dimension_exceed_arch_limit")
    return _matmul(api, "nc_matmul", stationary, moving, k, m, n, mask, dtype, perf_mode="double_row")


def _operand_box(api, x, name):
    """(tile, ((k_lo, k_hi), (f_lo, f_hi)) or None) for a matmul operand, masked (`t[pred]`) or not."""
    if not isinstance(x, MaskedOperand):
        return x, None
    t = tile_arg(x.tile, api, name, _MATMUL.reads)
    if len(t.shape) != 2:
        raise cerr(f"{api}: operand masks need a 2-D operand, '{name}' has shape {t.shape}")
    mb = core.analyze_mask(x.pred, t.shape)
    if mb is None:
        return t, None
    if mb is core.EMPTY:
        return t, ((0, 0), (0, 0))
    if mb[1] is not None:
        raise cerr(f"{api}: the operand mask of '{name}' must select a rectangle (comparisons of the partition and "
                   f"free indices against constants)")
    return t, mb[0]


def unmask(api, stationary, moving, mask):
    """Turn operand masks into what the instruction does: a contraction over the selected partitions, and an
    output region of the selected stationary columns x moving columns (the rest is not written, as with mask=)."""
    if not isinstance(stationary, MaskedOperand) and not isinstance(moving, MaskedOperand):
        return stationary, moving, mask
    s, sb = _operand_box(api, stationary, "stationary")
    mv, mb = _operand_box(api, moving, "moving")
    tile_arg(s, api, "stationary", _MATMUL.reads)
    tile_arg(mv, api, "moving", _MATMUL.reads)
    m, n = compute.free_size(s), compute.free_size(mv)
    if ((0, 0), (0, 0)) in (sb, mb):
        return s, mv, np.zeros((m, n), bool)  # an operand mask that selects nothing drops the instruction
    kr = []
    for t, b in ((s, sb), (mv, mb)):
        if b is not None and b[0] != (0, t.shape[0]):
            kr.append(b[0])
    if len(kr) == 2 and kr[0] != kr[1]:
        raise cerr(f"{api}: the operand masks select different contraction partitions {kr[0]} and {kr[1]}",
                   "err_num_partition_mismatch")
    if kr:
        k_lo, k_hi = kr[0]
        s = s.restrict(((k_lo, k_hi), (0, m)))
        mv = mv.restrict(((k_lo, k_hi), (0, n)))
    rows = np.zeros((m, 1), bool)
    cols = np.zeros((1, n), bool)
    lo, hi = sb[1] if sb is not None else (0, m)
    rows[lo:hi] = True
    lo, hi = mb[1] if mb is not None else (0, n)
    cols[:, lo:hi] = True
    out = rows & cols
    if mask is not None and not isinstance(mask, (bool, np.bool_)):
        out = out & (mask if isinstance(mask, taint.TArray) else np.asarray(mask))
    elif mask is not None and not mask:
        out = np.zeros((m, n), bool)
    return s, mv, out


def _matmul(api, op, stationary, moving, k, m, n, mask, dtype, **flags):
    mb = core.analyze_mask(mask, (m, n))
    mm, nn = (m, n) if mb is None or mb is core.EMPTY else (mb[0][0][1] - mb[0][0][0], mb[0][1][1] - mb[0][1][0])
    attrs = {"k": k, "m": mm, "n": nn, "moving_dtype": moving.alloc.dtype.name,
             "stationary_dtype": stationary.alloc.dtype.name, "accumulate": False}
    attrs.update(flags)
    odt = dtypes.normalize(dtype) if dtype is not None else dtypes.float32
    two_d = len(stationary.shape) == 2 and len(moving.shape) == 2

    def boxes(box):
        if not two_d:
            return (None, None)
        return ((0, k), box[0]), ((0, k), box[1])

    def fn(s, mv):
        if flags.get("perf_mode") == "double_row":  # (K, 2, free): the two rows of each partition both contract
            return np.matmul(s.transpose(1, 0, 2).reshape(-1, m).T, mv.transpose(1, 0, 2).reshape(-1, n))
        return np.matmul(s.reshape(s.shape[0], -1).T, mv.reshape(mv.shape[0], -1))

    return run_op(api, op, "tensor", [stationary, moving], fn, (m, n), odt, mask=mask, out_mem=_MATMUL.writes[0],
                  attrs=attrs,
                  boxes=boxes, counts_override=(k, nn))


def _transpose_rule(api, data, eng):
    """Check a transpose's input against the registry's rule for eng (where it may be, the largest side the engine
    handles); the rule (its result goes to rule.writes[0])."""
    rule = core.operand_rule("nc_transpose", eng)
    tile_arg(data, api, "data", rule.reads)
    n = rule.max_side
    if data.shape[0] > n or compute.free_size(data) > n:
        raise cerr(f"nc_transpose on the {eng.capitalize()} engine handles at most {n}x{n}, got {data.shape}",
                   "err_size_of_dimension_exceed_arch_limit")
    return rule


def nc_transpose(data, engine=None, mask=None, dtype=None, **kwargs):
    api = "nisa.nc_transpose"
    eng, _ = _eng(engine, "tensor", ("tensor", "vector"))
    rule = _transpose_rule(api, data, eng)
    p, f = data.shape[0], compute.free_size(data)
    odt = out_dtype(dtype, data)
    two_d = len(data.shape) == 2

    def boxes(box):
        return ((box[1], box[0]),) if two_d else (None,)

    attrs = {"k": p, "m": f, "n": p, "is_transpose": True, "moving_dtype": data.alloc.dtype.name,
             "stationary_dtype": data.alloc.dtype.name, "accumulate": False} if eng == "tensor" else {}
    return run_op(api, "nc_transpose", eng, [data], lambda d: d.reshape(d.shape[0], -1).T, (f, p), odt, mask=mask,
                  out_mem=rule.writes[0], attrs=attrs, boxes=boxes)


# --- ScalarE ------------------------------------------------------------------------------------------------------

def activation(op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=None, mask=None,
               dtype=None, **kwargs):
    return compute.activation("nisa.activation", op, data, bias, scale, reduce_op, reduce_res, mask, dtype)


def activation_reduce(op, data, reduce_op=None, reduce_res=None, bias=None, scale=1.0, mask=None, dtype=None,
                      **kwargs):
    if reduce_res is None:
        raise cerr("activation_reduce needs reduce_res")
    return compute.activation("nisa.activation_reduce", op, data, bias, scale, reduce_op or np.add, reduce_res, mask,
                              dtype)


# --- VectorE / GpSimd elementwise ---------------------------------------------------------------------------------

def tensor_tensor(data1, data2, op, engine=None, mask=None, dtype=None, **kwargs):
    api = "nisa.tensor_tensor"
    tile_arg(data1, api, "data1")
    tile_arg(data2, api, "data2")
    name = compute.binop(api, op)
    if data1.alloc.memory == "psum" and data2.alloc.memory == "psum":
        raise cerr("tensor_tensor inputs cannot both be in PSUM", "err_unsupported_memory")
    odt = out_dtype(dtype, data1, data2)
    eng, auto = _eng(engine, compute.binary_engine(name, data1, data2))
    core.check_engine_access(api, "tensor_tensor", eng, data1, data2)
    return compute.binary_op(api, name, data1, data2, odt, mask, eng, auto)


def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False, engine=None,
                  mask=None, dtype=None, **kwargs):
    api = "nisa.tensor_scalar"
    tile_arg(data, api, "data")
    n0 = compute.binop(api, op0)
    n1 = compute.binop(api, op1) if op1 is not None else None
    eng, auto = _eng(engine, "vector")
    core.check_engine_access(api, "tensor_scalar", eng, data)
    return compute.scalar_op(api, data, n0, operand0, reverse0, n1, operand1, reverse1, out_dtype(dtype, data), mask,
                             eng, auto)


def scalar_tensor_tensor(data, op0, operand0, op1, operand1, reverse0=False, reverse1=False, mask=None, dtype=None,
                         **kwargs):
    api = "nisa.scalar_tensor_tensor"
    tile_arg(data, api, "data")
    tile_arg(operand1, api, "operand1")
    n0, n1 = compute.binop(api, op0), compute.binop(api, op1)
    o0 = compute.operand(api, operand0, "operand0", data)
    f0, f1 = ops.BINARY[n0][0], ops.BINARY[n1][0]
    t0 = isinstance(o0, Tile)
    operands = [data, operand1] + ([o0] if t0 else [])
    c0 = None if t0 else np.float32(o0)

    def fn(d, t, *rest):
        a0 = rest[0] if t0 else c0
        r = f0(a0, d) if reverse0 else f0(d, a0)
        return f1(t, r) if reverse1 else f1(r, t)

    return run_op(api, "scalar_tensor_tensor", "vector", operands, fn, data.shape, out_dtype(dtype, data, operand1),
                  mask=mask, attrs={"op0": n0, "op1": n1})


def tensor_scalar_reduce(data, op0, operand0, reduce_op, reduce_res, reverse0=False, mask=None, dtype=None,
                         **kwargs):
    api = "nisa.tensor_scalar_reduce"
    tile_arg(data, api, "data")
    tile_arg(reduce_res, api, "reduce_res")
    n0 = compute.binop(api, op0)
    rname = ops.reduce(reduce_op)
    held = {}
    axes = tuple(range(1, len(data.shape)))
    side = ((reduce_res, lambda: ops.REDUCE[rname](held["r"], axes, True)),)
    return compute.scalar_op(api, data, n0, operand0, reverse0, None, None, False, out_dtype(dtype, data), mask,
                             "vector", False, side=side, held=held, opname="tensor_scalar_reduce")


def tensor_reduce(op, data, axis, mask=None, dtype=None, negate=False, keepdims=False, **kwargs):
    api = "nisa.tensor_reduce"
    tile_arg(data, api, "data")
    try:
        name = ops.reduce(op)
    except ValueError as e:
        raise cerr(f"{api}: {e}") from None
    return compute.reduce_op(api, name, data, axis, out_dtype(dtype, data), mask, keepdims, negate)


def tensor_partition_reduce(op, data, mask=None, dtype=None, **kwargs):
    api = "nisa.tensor_partition_reduce"
    tile_arg(data, api, "data", core.operand_rule("tensor_partition_reduce", "gpsimd").reads)
    name = ops.reduce(op)
    f = ops.REDUCE[name]
    shape = (1,) + tuple(data.shape[1:])
    return run_op(api, "tensor_partition_reduce", "gpsimd", [data], lambda d: f(d, (0,), True), shape,
                  out_dtype(dtype, data), mask=mask, attrs={"reduce_op": name})


def tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0=False, reverse1=False, mask=None, dtype=None,
                       **kwargs):
    api = "nisa.tensor_tensor_scan"
    tile_arg(data0, api, "data0")
    tile_arg(data1, api, "data1")
    n0, n1 = compute.binop(api, op0), compute.binop(api, op1)
    f0, f1 = ops.BINARY[n0][0], ops.BINARY[n1][0]
    init = compute.operand(api, initial, "initial", data0)
    operands = [data0, data1] + ([init] if isinstance(init, Tile) else [])
    cinit = None if isinstance(init, Tile) else np.float32(init)

    def fn(d0, d1, *rest):
        p = d0.shape[0]
        a = np.ascontiguousarray(d0.reshape(p, -1).T)
        b = np.ascontiguousarray(d1.reshape(p, -1).T)
        out = np.empty_like(a)
        prev = (rest[0].reshape(p) if rest else np.full(p, cinit, np.float32)).astype(np.float32)
        for i in range(a.shape[0]):
            prev = f1(f0(a[i], prev), b[i])
            out[i] = prev
        return out.T.reshape(d0.shape)

    return run_op(api, "tensor_tensor_scan", "vector", operands, fn, data0.shape, out_dtype(dtype, data0, data1),
                  mask=mask, attrs={"op0": n0, "op1": n1})


def tensor_copy(src, mask=None, dtype=None, engine=None, **kwargs):
    api = "nisa.tensor_copy"
    tile_arg(src, api, "src")
    eng, auto = _eng(engine, "vector")
    core.check_engine_access(api, "tensor_copy", eng, src)
    return compute.copy_op(api, src, out_dtype(dtype, src), mask, eng, auto)


def tensor_copy_predicated(src, dst, predicate, mask=None, dtype=None, reverse_pred=False, **kwargs):
    api = "nisa.tensor_copy_predicated"
    tile_arg(src, api, "src")
    tile_arg(dst, api, "dst")
    tile_arg(predicate, api, "predicate")

    def fn(s, p, d):
        keep = (p == 0) if reverse_pred else (p != 0)
        return np.where(keep, s, d)

    res = run_op(api, "tensor_copy_predicated", "vector", [src, predicate, dst], fn, dst.shape, dst.alloc.dtype,
                 mask=mask)
    assign.store_into(dst, res)
    return dst


def memset(shape, value, dtype, mask=None, engine=None, **kwargs):
    eng, auto = _eng(engine, "vector", ("vector", "gpsimd"))
    return compute.memset(shape, value, dtypes.normalize(dtype), mask, eng, auto)


def iota(expr, dtype, mask=None, **kwargs):
    expr = taint.plain(expr)  # timing-only runs use its shape only
    if isinstance(expr, (int, np.integer)):
        expr = np.asarray(expr).reshape(1, 1)
    expr = np.asarray(expr)
    if expr.ndim < 2:
        raise cerr("iota needs a 2-D index expression such as nl.arange(128)[:, None] + nl.arange(64)[None, :]",
                   "err_1d_arange_not_supported")
    return run_op("nisa.iota", "iota", "gpsimd", [expr], lambda e: e.astype(np.float64), expr.shape,
                  dtypes.normalize(dtype), mask=mask)


def reciprocal(data, mask=None, dtype=None, **kwargs):
    tile_arg(data, "nisa.reciprocal", "data")
    return run_op("nisa.reciprocal", "reciprocal", "vector", [data], lambda d: 1.0 / d, data.shape,
                  out_dtype(dtype, data), mask=mask)


def affine_select(pred, on_true_tile, on_false_value, mask=None, dtype=None, **kwargs):
    api = "nisa.affine_select"
    # on_true_tile may be in SBUF or PSUM. The classic API reference (nki.isa.affine_select, SDK 2.26 and before)
    # sets no memory rule for it, where it does for GpSimd instructions that cannot read PSUM (nki.isa.tensor_tensor:
    # "Since GpSimd Engine cannot access PSUM, the input or output tiles cannot be in PSUM if op is np.power");
    # and nki-samples' reference flash_fwd passes its PSUM scores straight in (`on_true_tile=qk_psum`) and was tested
    # under the SDK's simulate_kernel and on hardware (its test/unit/test_flash_attn_fwd.py). Only the current API's
    # page (nki.isa.affine_select(dst, pattern, ...), NKI 0.x) says "The input on_true_tile must also be in SBUF";
    # that API's affine_select is a different instruction signature, not simulated (current/isa.py).
    tile_arg(on_true_tile, api, "on_true_tile")
    p = np.asarray(taint.plain(pred))  # timing-only runs use its shape only
    if p.dtype != np.bool_:
        raise cerr("affine_select needs an affine predicate built from nl.arange comparisons")
    fv = np.float32(on_false_value)
    return run_op(api, "affine_select", "gpsimd", [on_true_tile, p], lambda t, c: np.where(c, t, fv),
                  on_true_tile.shape, out_dtype(dtype, on_true_tile), mask=mask)


def select_reduce(dst, predicate, on_true, on_false, reduce_res=None, reduce_cmd=None, reduce_op=np.max,
                  reverse_pred=False, mask=None, dtype=None, **kwargs):
    api = "nisa.select_reduce"
    tile_arg(dst, api, "dst")
    tile_arg(predicate, api, "predicate")
    tile_arg(on_true, api, "on_true")
    operands = [predicate, on_true]
    tf = isinstance(on_false, Tile)
    if tf:
        tile_arg(on_false, api, "on_false")
        operands.append(on_false)
    held = {}

    def fn(p, t, *rest):
        f = rest[0] if tf else np.float32(on_false)
        keep = (p == 0) if reverse_pred else (p != 0)
        r = np.where(keep, t, f)
        held["r"] = r
        return r

    side = ()
    if reduce_res is not None:
        tile_arg(reduce_res, api, "reduce_res")
        rname = ops.reduce(reduce_op)
        axes = tuple(range(1, len(on_true.shape)))
        side = ((reduce_res, lambda: ops.REDUCE[rname](held["r"], axes, True)),)
    res = run_op(api, "select_reduce", "vector", operands, fn, on_true.shape, dst.alloc.dtype, mask=mask,
                 side_writes=side)
    assign.store_into(dst, res)
    return dst


def range_select(on_true_tile, comp_op0, comp_op1, bound0, bound1, reduce_cmd=None, reduce_res=None,
                 reduce_op=np.max, range_start=0, on_false_value=-3.4028235e38, mask=None, dtype=None, **kwargs):
    api = "nisa.range_select"
    if current().target != "trn2":
        raise cerr("range_select is only available on NeuronCore-v3 (trn2)")
    tile_arg(on_true_tile, api, "on_true_tile")
    c0, c1 = ops.BINARY[compute.binop(api, comp_op0)][0], ops.BINARY[compute.binop(api, comp_op1)][0]
    b0 = compute.operand(api, bound0, "bound0", on_true_tile)
    b1 = compute.operand(api, bound1, "bound1", on_true_tile)
    operands = [on_true_tile] + [b for b in (b0, b1) if isinstance(b, Tile)]
    t0, t1 = isinstance(b0, Tile), isinstance(b1, Tile)
    held = {}

    def fn(t, *rest):
        rest = list(rest)
        x0 = rest.pop(0) if t0 else np.float32(b0)
        x1 = rest.pop(0) if t1 else np.float32(b1)
        j = (np.arange(t.shape[-1], dtype=np.float32) + range_start).reshape((1,) * (t.ndim - 1) + (-1,))
        r = np.where((c0(j, x0) != 0) & (c1(j, x1) != 0), t, np.float32(on_false_value))
        held["r"] = r
        return r

    side = ()
    if reduce_res is not None:
        rname = ops.reduce(reduce_op)
        axes = tuple(range(1, len(on_true_tile.shape)))
        side = ((reduce_res, lambda: ops.REDUCE[rname](held["r"], axes, True)),)
    return run_op(api, "range_select", "vector", operands, fn, on_true_tile.shape, out_dtype(dtype, on_true_tile),
                  mask=mask, side_writes=side)


def bn_stats(data, mask=None, dtype=None, **kwargs):
    api = "nisa.bn_stats"
    tile_arg(data, api, "data")
    if compute.free_size(data) > hw.BN_STATS_FMAX:
        raise cerr(f"bn_stats handles at most bn_stats_fmax={hw.BN_STATS_FMAX} elements per partition, got "
                   f"{compute.free_size(data)}",
                   "err_size_of_dimension_exceed_arch_limit")

    def fn(d):
        d = d.reshape(d.shape[0], -1)
        cols = []
        for part in (d[:, 0::2], d[:, 1::2]):
            n = part.shape[1]
            mean = part.mean(axis=1) if n else np.zeros(d.shape[0], np.float32)
            m2 = ((part - mean[:, None]) ** 2).sum(axis=1) if n else np.zeros(d.shape[0], np.float32)
            cols += [np.full(d.shape[0], n, np.float32), mean, m2]
        return np.stack(cols, axis=1).astype(np.float32)

    return run_op(api, "bn_stats", "vector", [data], fn, (data.shape[0], 6), out_dtype(dtype, data), mask=mask,
                  obox_fn=lambda box: (box[0], (0, 6)), space=data.shape)


def bn_aggr(data, mask=None, dtype=None, **kwargs):
    api = "nisa.bn_aggr"
    tile_arg(data, api, "data")
    if compute.free_size(data) % 3:
        raise cerr("bn_aggr expects bn_stats outputs (a multiple of 3 values per partition)")

    def fn(d):
        g = d.reshape(d.shape[0], -1, 3).astype(np.float64)
        n, mean, m2 = g[..., 0], g[..., 1], g[..., 2]
        tot = n.sum(axis=1)
        mu = (n * mean).sum(axis=1) / tot
        var = (m2 + n * (mean - mu[:, None]) ** 2).sum(axis=1) / tot
        return np.stack([mu, var], axis=1).astype(np.float32)

    return run_op(api, "bn_aggr", "vector", [data], fn, (data.shape[0], 2), out_dtype(dtype, data), mask=mask,
                  obox_fn=lambda box: (box[0], (0, 2)), space=data.shape)


def dropout(data, prob, mask=None, dtype=None, **kwargs):
    api = "nisa.dropout"
    tile_arg(data, api, "data")
    p = compute.operand(api, prob, "prob", data)
    operands = [data] + ([p] if isinstance(p, Tile) else [])
    ctx = current()

    def fn(d, *rest):
        rate = rest[0] if rest else np.float32(p)
        keep = ctx_rng(ctx).random(d.shape, dtype=np.float32) >= rate
        return np.where(keep, d, np.float32(0))

    return run_op(api, "dropout", "vector", operands, fn, data.shape, out_dtype(dtype, data), mask=mask)


def ctx_rng(ctx):
    rng = getattr(ctx, "rng", None)
    if rng is None:
        rng = ctx.rng = np.random.default_rng(0)
    return rng


def max8(src, mask=None, dtype=None, **kwargs):
    tile_arg(src, "nisa.max8", "src")
    return run_op("nisa.max8", "max8", "vector", [src],
                  lambda d: -np.sort(-d.reshape(d.shape[0], -1), axis=1)[:, :8], (src.shape[0], 8),
                  out_dtype(dtype, src), mask=mask, space=src.shape, obox_fn=lambda box: (box[0], (0, 8)))


def nc_find_index8(data, vals, mask=None, dtype=None, **kwargs):
    api = "nisa.nc_find_index8"
    tile_arg(data, api, "data")
    tile_arg(vals, api, "vals")

    def fn(d, v):
        d = d.reshape(d.shape[0], -1)
        v = v.reshape(v.shape[0], -1)[:, :8]
        hit = d[:, None, :] == v[:, :, None]
        return np.where(hit.any(axis=2), hit.argmax(axis=2), 0xFFFFFFFF).astype(np.float64)

    return run_op(api, "nc_find_index8", "vector", [data, vals], fn, (data.shape[0], 8),
                  dtypes.normalize(dtype) if dtype is not None else dtypes.uint32, mask=mask)


def nc_match_replace8(data, vals, imm, dst_idx=None, mask=None, dtype=None, **kwargs):
    api = "nisa.nc_match_replace8"
    tile_arg(data, api, "data")
    tile_arg(vals, api, "vals")

    def fn(d, v):
        shape = d.shape
        d = d.reshape(shape[0], -1).copy()
        v = v.reshape(v.shape[0], -1)[:, :8]
        for j in range(v.shape[1]):
            hit = d == v[:, j:j + 1]
            first = hit.argmax(axis=1)
            rows = np.flatnonzero(hit.any(axis=1))
            d[rows, first[rows]] = imm
        return d.reshape(shape)

    return run_op(api, "nc_match_replace8", "vector", [data, vals], fn, data.shape, out_dtype(dtype, data),
                  mask=mask)


def nc_stream_shuffle(src, dst, shuffle_mask, mask=None, dtype=None, **kwargs):
    api = "nisa.nc_stream_shuffle"
    tile_arg(src, api, "src")
    tile_arg(dst, api, "dst")
    sm = list(shuffle_mask)

    def fn(s, d):
        out = d.copy()
        for p in range(min(s.shape[0], out.shape[0])):
            k = sm[p % 32]
            if k != 255:
                out[p] = s[(p // 32) * 32 + k]
        return out

    res = run_op(api, "nc_stream_shuffle", "vector", [src, dst], fn, dst.shape, dst.alloc.dtype, mask=mask)
    assign.store_into(dst, res)
    return dst


# --- DMA ----------------------------------------------------------------------------------------------------------

def dma_copy(dst=None, src=None, mask=None, dst_rmw_op=None, oob_mode=None, dge_mode=None, **kwargs):
    api = "nisa.dma_copy"
    if not isinstance(dst, Tile) or not isinstance(src, Tile):
        raise cerr("dma_copy needs dst and src tiles")
    rmw = None
    if dst_rmw_op is not None:
        rmw = ops.BINARY[compute.binop(api, dst_rmw_op)][0]
    core.dma(api, src, dst, mask=mask, rmw=rmw, attrs={"dge_mode": getattr(dge_mode, "name", None)})
    return dst


def dma_transpose(src, axes=None, mask=None, dtype=None, **kwargs):
    api = "nisa.dma_transpose"
    tile_arg(src, api, "src", ("hbm", "sbuf"))
    axes = tuple(axes) if axes is not None else tuple(reversed(range(len(src.shape))))
    shape = tuple(src.shape[a] for a in axes)
    return core.dma(api, src, None, mask=mask, dtype=dtype, out_shape=shape, transform=lambda v: np.transpose(v, axes),
                    attrs={"transpose": True})


def _unsupported(name):
    def f(*args, **kwargs):
        raise cerr(f"nisa.{name} is not supported by nkisim")
    f.__name__ = name
    return f


local_gather = _unsupported("local_gather")
sequence_bounds = _unsupported("sequence_bounds")
tensor_copy_dynamic_src = _unsupported("tensor_copy_dynamic_src")
tensor_copy_dynamic_dst = _unsupported("tensor_copy_dynamic_dst")
