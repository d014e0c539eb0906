"""nki.isa (nisa) of the current NKI API: every instruction writes an explicit destination, given first.

Each call runs the classic instruction, which leaves its result pending as the last instruction of the trace, and
then lands that result in dst (assign.store_into / assign.redirect): one instruction writing dst, the same record
and cost as classic `dst[...] = nisa.op(...)`, so the performance model sees current and classic kernels alike.
Where dst may be comes from the op registry's operand rules (opregistry.py), as the classic instruction's operands
do, so a rule is written once for both APIs.
Calls return None, as in nki.*: a classic-style `t = nisa.op(a, b)` has no dst and is refused by name."""
from __future__ import annotations

import enum

import numpy as np

from .. import assign, compute, core, dtypes, isa as _ci, opregistry, ops
from ..context import current
from ..tensor import Tile
from .generation import cerr

_MISSING = object()
unknown_engine = _ci.unknown_engine


class engine:
    tensor = _ci.tensor_engine
    vector = _ci.vector_engine
    scalar = _ci.scalar_engine
    gpsimd = _ci.gpsimd_engine
    dma = _ci.dma_engine
    sync = _ci.sync_engine
    unknown = _ci.unknown_engine


class reduce_cmd(enum.Enum):
    idle = 0
    reset = 1
    reduce = 2
    reset_reduce = 3
    load_reduce = 4


class dge_mode(enum.Enum):
    unknown = 0
    swdge = 1
    hwdge = 2
    none = 3


class oob_mode(enum.Enum):
    error = 0
    skip = 1


class matmul_perf_mode(enum.Enum):
    none = "none"
    double_row = "double_row"


class nc_version(enum.IntEnum):
    gen2 = 2
    gen3 = 3
    gen4 = 4


class dma_engine(enum.Enum):
    dma = 1
    gpsimd_dma = 2


_VERSIONS = {"trn1": nc_version.gen2, "trn2": nc_version.gen3, "trn3": nc_version.gen4}


def get_nc_version():
    return _VERSIONS[current().target]


def _need(api, signature, **args):
    """Refuse a call without dst or a required operand, saying how current ISA calls are written."""
    missing = [k for k, v in args.items() if v is _MISSING]
    if not missing:
        return
    if "dst" in missing or not isinstance(args.get("dst"), Tile):
        raise cerr(f"{api} needs dst=: ISA calls write into an explicit destination tile, given first "
                   f"({api}({signature})), and return nothing; `t = {api}(...)` is the classic form",
                   "err_missing_dst")
    raise cerr(f"{api}({signature}): missing {', '.join(missing)} (in nki.* the destination comes first, so a "
               f"classic-style call shifts every operand by one)", "err_missing_argument")


# The nki.* DMAs write SBUF or HBM: "DMA does not read PSUM since NKI 0.3.0", and dst is on the same footing. The
# classic DMA instruction (opregistry "dma") still moves PSUM for classic kernels, so this is the API's rule.
_DMA_DST = ("sbuf", "hbm")


def _dst(api, dst, op, engine=None):
    """Check dst against where instruction op writes (on engine, or on any engine the compiler may pick); op is a
    registered instruction, or an explicit tuple of memories for a rule of the nki.* API itself."""
    if isinstance(op, tuple):
        allow = op
    elif engine is None:
        allow = opregistry.writes_any(op)
    else:
        allow = core.operand_rule(op, engine).writes
    if not isinstance(dst, Tile):
        raise cerr(f"{api}: dst must be a tensor, got {type(dst).__name__}")
    if dst.alloc.memory not in allow:
        raise cerr(f"{api}: dst is in {dst.alloc.memory.upper()}; this instruction writes "
                   f"{'/'.join(a.upper() for a in allow)}", "err_unsupported_memory")
    return dst


def _land(api, dst, result):
    """Write a pending instruction result into dst."""
    if result is None:
        return None
    n_res, n_dst = int(np.prod(result.shape)), int(np.prod(dst.shape))
    if n_res != n_dst:
        raise cerr(f"{api}: the result has shape {tuple(result.shape)}, dst has shape {tuple(dst.shape)}",
                   "err_num_partition_mismatch")
    assign.store_into(dst, result)
    return None


def _dtype(api, dst, dtype):
    """dtype= on an ISA call: NKI 0.2.0 kernels (nki-samples' matmul tutorial) pass it, the 0.3.0+ signatures have
    none; dst's dtype is what the instruction writes, so it is accepted when it agrees with dst."""
    if dtype is not None and dtypes.normalize(dtype) != dst.alloc.dtype:
        raise cerr(f"{api}: dtype={dtypes.normalize(dtype).name} disagrees with dst ({dst.alloc.dtype.name}); in "
                   f"nki.* the destination's dtype is the output dtype")


def _eng(e):
    return None if e is None or e is unknown_engine else e


# --- Tensor engine ------------------------------------------------------------------------------------------------

def nc_matmul(dst=_MISSING, stationary=_MISSING, moving=_MISSING, is_stationary_onezero=False,
              is_moving_onezero=False, is_transpose=False, accumulate=None, tile_position=(), tile_size=(),
              perf_mode=None, name=None):
    api = "nisa.nc_matmul"
    _need(api, "dst, stationary, moving, ...", dst=dst, stationary=stationary, moving=moving)
    _dst(api, dst, "nc_matmul", "tensor")
    res = _ci.nc_matmul(stationary, moving, is_stationary_onezero, is_moving_onezero, is_transpose,
                        tile_position, tile_size, dtype=dst.dtype)
    if int(np.prod(res.shape)) != int(np.prod(dst.shape)):
        raise cerr(f"{api}: the product has shape {tuple(res.shape)} (stationary free x moving free), dst has shape "
                   f"{tuple(dst.shape)}", "err_num_partition_mismatch")
    pending = res.alloc.pending
    ctx = current()
    if accumulate is None:
        # 0.3.0: "the first write to a PSUM location overwrites, and subsequent writes accumulate" - the classic
        # accumulation-group rule (assign.continues_group) is that rule with loop-aware group starts.
        acc = "add" if assign.continues_group(dst, ctx) else None
    else:
        acc = "add" if accumulate else None
    assign.redirect(dst, res, pending, acc)


def nc_transpose(dst=_MISSING, data=_MISSING, engine=unknown_engine, name=None):
    api = "nisa.nc_transpose"
    _need(api, "dst, data, engine=...", dst=dst, data=data)
    e = _eng(engine)
    if e is None:
        # The compiler's choice: VectorE transposes up to 32x32 (into SBUF or PSUM), TensorE up to 128x128 into
        # PSUM. A bigger transpose into SBUF runs on TensorE and is then copied to dst, and costs that copy.
        vector_max = core.operand_rule("nc_transpose", "vector").max_side
        small = max(data.shape[0], int(np.prod(data.shape[1:]))) <= vector_max
        if dst.alloc.memory == "psum" or not small:
            res = _ci.nc_transpose(data, engine=_ci.tensor_engine, dtype=dst.dtype if dst.alloc.memory == "psum"
                                   else None)
            if dst.alloc.memory != "psum":
                _dst(api, dst, "nc_transpose")
                res = compute.copy_op(api, res, dst.alloc.dtype, None)
            _land(api, dst, res)
            return
        e = _ci.vector_engine
    _dst(api, dst, "nc_transpose", e.name)
    _land(api, dst, _ci.nc_transpose(data, engine=e, dtype=dst.dtype))


# --- Scalar engine ------------------------------------------------------------------------------------------------

def activation(dst=_MISSING, op=_MISSING, data=_MISSING, bias=None, scale=1.0, reduce_op=None, reduce_res=None,
               reduce_cmd=reduce_cmd.idle, dtype=None, name=None):
    api = "nisa.activation"
    _need(api, "dst, op, data, bias=None, scale=1.0, ...", dst=dst, op=op, data=data)
    _dst(api, dst, "activation")
    _dtype(api, dst, dtype)
    _land(api, dst, compute.activation(api, op, data, bias, scale, reduce_op, reduce_res, None, dst.dtype))


def activation_reduce(dst=_MISSING, op=_MISSING, data=_MISSING, reduce_op=_MISSING, reduce_res=_MISSING, bias=None,
                      scale=1.0, name=None):
    api = "nisa.activation_reduce"
    _need(api, "dst, op, data, reduce_op, reduce_res, ...", dst=dst, op=op, data=data, reduce_op=reduce_op,
          reduce_res=reduce_res)
    _dst(api, dst, "activation")
    _land(api, dst, compute.activation(api, op, data, bias, scale, reduce_op, reduce_res, None, dst.dtype))


def exponential(dst=_MISSING, src=_MISSING, max_value=0.0, reduce_res=None, reduce_cmd=reduce_cmd.idle,
                reduce_init=0.0, name=None):
    api = "nisa.exponential"
    _need(api, "dst, src, max_value=0.0, ...", dst=dst, src=src)
    if current().target != "trn3":
        raise cerr(f"{api} is available on NeuronCore-v4 (trn3) only; this run targets {current().target}")
    _dst(api, dst, "exponential")
    core.tile_arg(src, api, "src")
    mv = compute.operand(api, max_value, "max_value", src)
    operands = [src] + ([mv] if isinstance(mv, Tile) else [])
    held = {}

    def fn(s, *rest):
        r = np.exp(s - (rest[0] if rest else np.float32(mv)))
        held["r"] = r
        return r

    side = ()
    if reduce_res is not None:
        core.tile_arg(reduce_res, api, "reduce_res")
        axes = tuple(range(1, len(src.shape)))
        side = ((reduce_res, lambda: held["r"].sum(axis=axes, keepdims=True)),)
    # docs: computed on the Vector engine (nki.isa.exponential)
    _land(api, dst, core.run_op(api, "exponential", "vector", operands, fn, src.shape, dst.alloc.dtype,
                                attrs={"func": "exp"}, side_writes=side))


# --- Vector / GpSimd ----------------------------------------------------------------------------------------------

def tensor_tensor(dst=_MISSING, data1=_MISSING, data2=_MISSING, op=_MISSING, engine=unknown_engine, dtype=None, name=None):
    api = "nisa.tensor_tensor"
    _need(api, "dst, data1, data2, op, ...", dst=dst, data1=data1, data2=data2, op=op)
    _dst(api, dst, "tensor_tensor")
    _dtype(api, dst, dtype)
    _land(api, dst, _ci.tensor_tensor(data1, data2, op, engine=_eng(engine), dtype=dst.dtype))


def tensor_scalar(dst=_MISSING, data=_MISSING, op0=_MISSING, operand0=_MISSING, reverse0=False, op1=None,
                  operand1=None, reverse1=False, engine=unknown_engine, dtype=None, name=None):
    api = "nisa.tensor_scalar"
    _need(api, "dst, data, op0, operand0, ...", dst=dst, data=data, op0=op0, operand0=operand0)
    _dst(api, dst, "tensor_scalar")
    _dtype(api, dst, dtype)
    _land(api, dst, _ci.tensor_scalar(data, op0, operand0, reverse0, op1, operand1, reverse1, engine=_eng(engine),
                                      dtype=dst.dtype))


def scalar_tensor_tensor(dst=_MISSING, data=_MISSING, op0=_MISSING, operand0=_MISSING, op1=_MISSING,
                         operand1=_MISSING, reverse0=False, reverse1=False, name=None):
    api = "nisa.scalar_tensor_tensor"
    _need(api, "dst, data, op0, operand0, op1, operand1, ...", dst=dst, data=data, op0=op0, operand0=operand0,
          op1=op1, operand1=operand1)
    _dst(api, dst, "scalar_tensor_tensor")
    _land(api, dst, _ci.scalar_tensor_tensor(data, op0, operand0, op1, operand1, reverse0, reverse1,
                                             dtype=dst.dtype))


def tensor_reduce(dst=_MISSING, op=_MISSING, data=_MISSING, axis=_MISSING, negate=False, keepdims=False, dtype=None, name=None):
    api = "nisa.tensor_reduce"
    _need(api, "dst, op, data, axis, ...", dst=dst, op=op, data=data, axis=axis)
    _dst(api, dst, "tensor_reduce")
    _dtype(api, dst, dtype)
    _land(api, dst, _ci.tensor_reduce(op, data, axis, dtype=dst.dtype, negate=negate, keepdims=keepdims))


def tensor_partition_reduce(dst=_MISSING, op=_MISSING, data=_MISSING, name=None):
    api = "nisa.tensor_partition_reduce"
    _need(api, "dst, op, data", dst=dst, op=op, data=data)
    _dst(api, dst, "tensor_partition_reduce")
    _land(api, dst, _ci.tensor_partition_reduce(op, data, dtype=dst.dtype))


def tensor_scalar_reduce(dst=_MISSING, data=_MISSING, op0=_MISSING, operand0=_MISSING, reduce_op=_MISSING,
                         reduce_res=None, reverse0=False, reduce_cmd=reduce_cmd.reset_reduce, reduce_init=None,
                         reduce_res_negate=False, name=None):
    api = "nisa.tensor_scalar_reduce"
    _need(api, "dst, data, op0, operand0, reduce_op, reduce_res=...", dst=dst, data=data, op0=op0,
          operand0=operand0, reduce_op=reduce_op)
    _dst(api, dst, "tensor_scalar_reduce")
    if reduce_res is None:
        raise cerr(f"{api}: reduce_res is needed (where the reduction lands)")
    _land(api, dst, _ci.tensor_scalar_reduce(data, op0, operand0, reduce_op, reduce_res, reverse0, dtype=dst.dtype))


def tensor_tensor_scan(dst=_MISSING, data0=_MISSING, data1=_MISSING, initial=_MISSING, op0=_MISSING, op1=_MISSING,
                       reverse0=False, reverse1=False, name=None):
    api = "nisa.tensor_tensor_scan"
    _need(api, "dst, data0, data1, initial, op0, op1, ...", dst=dst, data0=data0, data1=data1, initial=initial,
          op0=op0, op1=op1)
    _dst(api, dst, "tensor_tensor_scan")
    _land(api, dst, _ci.tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0, reverse1, dtype=dst.dtype))


def tensor_copy(dst=_MISSING, src=_MISSING, engine=unknown_engine, dtype=None, name=None):
    api = "nisa.tensor_copy"
    _need(api, "dst, src, engine=...", dst=dst, src=src)
    _dst(api, dst, "tensor_copy")
    _dtype(api, dst, dtype)
    _land(api, dst, _ci.tensor_copy(src, dtype=dst.dtype, engine=_eng(engine)))


def tensor_copy_predicated(dst=_MISSING, src=_MISSING, predicate=_MISSING, reverse_pred=False, name=None):
    api = "nisa.tensor_copy_predicated"
    _need(api, "dst, src, predicate, ...", dst=dst, src=src, predicate=predicate)
    _dst(api, dst, "tensor_copy_predicated")
    if core.is_scalar(src):
        src = _ci.memset(dst.shape, src, dst.dtype)
    _ci.tensor_copy_predicated(src, dst, predicate, reverse_pred=reverse_pred)


def memset(dst=_MISSING, value=_MISSING, engine=unknown_engine, name=None):
    api = "nisa.memset"
    _need(api, "dst, value, ...", dst=dst, value=value)
    _dst(api, dst, "memset")
    if not dst.alloc.dtype.is_float and isinstance(value, float):
        raise cerr(f"{api}: value {value!r} is a float and dst is {dst.alloc.dtype.name}; since NKI 0.3.0 the value "
                   f"must match dst's dtype (pass an integer)")
    _land(api, dst, _ci.memset(dst.shape, value, dst.dtype, engine=_eng(engine)))


def iota(dst=_MISSING, pattern=_MISSING, offset=0, channel_multiplier=0, name=None):
    api = "nisa.iota"
    _need(api, "dst, pattern, offset=0, channel_multiplier=0", dst=dst, pattern=pattern)
    _dst(api, dst, "iota", "gpsimd")
    try:
        pairs = [(int(s), int(n)) for s, n in pattern]
    except (TypeError, ValueError):
        raise cerr(f"{api}: pattern must be a list of [step, num] pairs, got {pattern!r}") from None
    if len(pairs) > 4:
        raise cerr(f"{api}: pattern has {len(pairs)} dimensions, at most 4")
    free = 1
    vals = np.zeros((1,), np.int64)
    for s, n in pairs:
        vals = (vals[:, None] + s * np.arange(n, dtype=np.int64)[None, :]).reshape(-1)
        free *= n
    p = dst.shape[0]
    if free != int(np.prod(dst.shape[1:])):
        raise cerr(f"{api}: the pattern makes {free} values per partition, dst holds {int(np.prod(dst.shape[1:]))}")
    expr = int(offset) + int(channel_multiplier) * np.arange(p, dtype=np.int64)[:, None] + vals[None, :]
    _land(api, dst, _ci.iota(expr.reshape((p,) + tuple(dst.shape[1:])).astype(np.int32), dst.dtype))


def reciprocal(dst=_MISSING, data=_MISSING, name=None):
    api = "nisa.reciprocal"
    _need(api, "dst, data", dst=dst, data=data)
    _dst(api, dst, "reciprocal")
    _land(api, dst, _ci.reciprocal(data, dtype=dst.dtype))


def bn_stats(dst=_MISSING, data=_MISSING, name=None):
    _need("nisa.bn_stats", "dst, data", dst=dst, data=data)
    _dst("nisa.bn_stats", dst, "bn_stats")
    _land("nisa.bn_stats", dst, _ci.bn_stats(data, dtype=dst.dtype))


def bn_aggr(dst=_MISSING, data=_MISSING, name=None):
    _need("nisa.bn_aggr", "dst, data", dst=dst, data=data)
    _dst("nisa.bn_aggr", dst, "bn_aggr")
    _land("nisa.bn_aggr", dst, _ci.bn_aggr(data, dtype=dst.dtype))


def max8(dst=_MISSING, src=_MISSING, name=None):
    _need("nisa.max8", "dst, src", dst=dst, src=src)
    _dst("nisa.max8", dst, "max8")
    _land("nisa.max8", dst, _ci.max8(src, dtype=dst.dtype))


def dropout(dst=_MISSING, data=_MISSING, prob=_MISSING, name=None):
    _need("nisa.dropout", "dst, data, prob", dst=dst, data=data, prob=prob)
    _dst("nisa.dropout", dst, "dropout")
    _land("nisa.dropout", dst, _ci.dropout(data, prob, dtype=dst.dtype))


def select_reduce(dst=_MISSING, predicate=_MISSING, on_true=_MISSING, on_false=_MISSING, reduce_res=None,
                  reduce_cmd=reduce_cmd.idle, reduce_op=None, reverse_pred=False, name=None):
    _need("nisa.select_reduce", "dst, predicate, on_true, on_false, ...", dst=dst, predicate=predicate,
          on_true=on_true, on_false=on_false)
    _ci.select_reduce(dst, predicate, on_true, on_false, reduce_res, None, reduce_op or np.max, reverse_pred)


# --- DMA ----------------------------------------------------------------------------------------------------------

def dma_copy(dst=_MISSING, src=_MISSING, priority=None, oob_mode=oob_mode.error, dge_mode=dge_mode.unknown,
             engine=unknown_engine, name=None, **removed):
    api = "nisa.dma_copy"
    if "dst_rmw_op" in removed or "unique_indices" in removed:
        raise cerr(f"{api}: dst_rmw_op/unique_indices were removed in NKI 0.3.0; read-modify-write is "
                   f"nisa.dma_compute(dst, [src, dst], reduce_op=...)")
    if removed:
        raise cerr(f"{api}: unexpected argument(s) {', '.join(sorted(removed))}")
    _need(api, "dst, src, ...", dst=dst, src=src)
    if not isinstance(src, Tile):
        raise cerr(f"{api}: src must be a tensor, got {type(src).__name__}")
    _dst(api, dst, _DMA_DST)
    if src.alloc.memory == "psum":
        raise cerr(f"{api}: src is in PSUM; DMA does not read PSUM since NKI 0.3.0 (copy it to SBUF with "
                   f"nisa.tensor_copy first)", "err_unsupported_memory")
    if tuple(src.shape) != tuple(dst.shape) and int(np.prod(src.shape)) != int(np.prod(dst.shape)):
        raise cerr(f"{api}: src has shape {tuple(src.shape)}, dst {tuple(dst.shape)}", "err_num_partition_mismatch")
    if isinstance(dge_mode, int) or isinstance(oob_mode, int):
        raise cerr(f"{api}: integer enum values are not accepted since NKI 0.3.0; use nisa.dge_mode / nisa.oob_mode")
    core.dma(api, src, dst, attrs={"dge_mode": getattr(dge_mode, "name", None)})


def dma_transpose(dst=_MISSING, src=_MISSING, axes=None, priority=None, dge_mode=dge_mode.unknown,
                  oob_mode=oob_mode.error, name=None):
    api = "nisa.dma_transpose"
    _need(api, "dst, src, axes=None, ...", dst=dst, src=src)
    _dst(api, dst, _DMA_DST)
    res = _ci.dma_transpose(src, axes=axes, dtype=dst.dtype)
    if tuple(res.shape) != tuple(dst.shape):
        raise cerr(f"{api}: dst shape {tuple(dst.shape)} must equal the transposed src shape {tuple(res.shape)} "
                   f"(enforced exactly since NKI 0.4.0)")
    _land(api, dst, res)


def dma_compute(dst=_MISSING, srcs=_MISSING, reduce_op=_MISSING, scales=None, unique_indices=True,
                oob_mode=oob_mode.error, name=None):
    api = "nisa.dma_compute"
    _need(api, "dst, srcs, reduce_op, scales=None, ...", dst=dst, srcs=srcs, reduce_op=reduce_op)
    _dst(api, dst, _DMA_DST)
    srcs = list(srcs)
    if not srcs or not all(isinstance(s, Tile) for s in srcs):
        raise cerr(f"{api}: srcs must be a non-empty list of tensors")
    f = ops.BINARY[compute.binop(api, reduce_op)][0]
    sc = list(scales) if scales is not None else [1.0] * len(srcs)
    # One DMA per source into dst, each combining with what dst holds (the DMA engine's read-modify-write), as
    # dma_compute does in one instruction over all sources. A source that is dst itself is already in place, so it
    # goes first; otherwise the first source is a plain copy.
    pairs = list(zip(srcs, sc))
    own = [i for i, (s, _) in enumerate(pairs) if s.alloc is dst.alloc and s.box() == dst.box()]
    if own:
        s, k = pairs.pop(own[0])
        if k != 1.0:
            core.dma(api, s, dst, rmw=lambda d, v, k=np.float32(k): v * k)
    else:
        s, k = pairs.pop(0)
        core.dma(api, s, dst, rmw=(lambda d, v, k=np.float32(k): v * k) if k != 1.0 else None)
    for s, k in pairs:
        core.dma(api, s, dst, rmw=lambda d, v, k=np.float32(k): f(d, v * k))


# --- in the nki.* API, not simulated ------------------------------------------------------------------------------

def _not_simulated(name):
    def f(*args, **kwargs):
        raise cerr(f"nisa.{name} is part of the nki.* API but nkisim does not simulate it")
    f.__name__ = name
    return f


for _n in ("nc_matmul_mx", "quantize_mx", "activate2", "affine_select", "local_gather", "nc_n_gather",
           "nc_stream_shuffle", "nc_find_index8", "nc_match_replace8", "rng", "set_rng_seed", "rand_set_state",
           "rand_get_state", "rand2", "sequence_bounds", "core_barrier", "range_select", "sendrecv",
           "register_alloc", "register_move", "register_load", "register_store", "nonzero_with_count", "topk"):
    globals()[_n] = _not_simulated(_n)

_REMOVED = {
    "tensor_copy_dynamic_src": "nisa.tensor_copy_dynamic_src was removed in NKI 0.4.0: use nisa.tensor_copy with "
                               ".ap(..., scalar_offset=...)",
    "tensor_copy_dynamic_dst": "nisa.tensor_copy_dynamic_dst was removed in NKI 0.4.0: use nisa.tensor_copy with "
                               ".ap(..., scalar_offset=...)",
    "tensor_engine": "nisa.tensor_engine is classic NKI: use nisa.engine.tensor",
    "vector_engine": "nisa.vector_engine is classic NKI: use nisa.engine.vector",
    "scalar_engine": "nisa.scalar_engine is classic NKI: use nisa.engine.scalar",
    "gpsimd_engine": "nisa.gpsimd_engine is classic NKI: use nisa.engine.gpsimd",
}


def __getattr__(name):
    from ..context import active
    if name in _REMOVED:
        if active() is not None:
            raise cerr(_REMOVED[name])
        raise AttributeError(f"current NKI (nki.*): {_REMOVED[name]}")
    raise AttributeError(f"module 'nki.isa' has no attribute {name!r} (current NKI (nki.*); nkisim)")


