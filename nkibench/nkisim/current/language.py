"""nki.language (nl) of the current NKI API, over the classic engine.

Tensors are NkiTensor views (tensor.py). The convenience functions (nl.add, nl.exp, nl.sum, nl.load, ...) are the
classic implementations with the current signatures: no mask=, results handed back as NkiTensors, and the classic
op objects kept as they are so that `op=nl.add` names the same ALU op in nisa calls. Names the nki.* namespace
dropped (nl.arange, nl.mgrid, nl.par_dim, ...) raise an error that says what replaced them."""
from __future__ import annotations

import contextlib

from .. import creation, language as _cl
from ..context import active
from ..core import tile_arg
from ..dtypes import (bfloat16, bool_, float8_e4m3, float8_e4m3fn, float8_e5m2, float16, float32,  # noqa: F401
                      int8, int16, int32, tfloat32, uint8, uint16, uint32)
from ..tensor import Tile
from .generation import cerr
from .tensor import NkiTensor, adopt  # noqa: F401  (nl.NkiTensor)

sbuf, psum, hbm, private_hbm, shared_hbm = _cl.sbuf, _cl.psum, _cl.private_hbm, _cl.private_hbm, _cl.shared_hbm
_BUFFERS = (sbuf, psum, private_hbm, shared_hbm)


class NKIObject:
    """Base class kernels derive their configuration objects from (as in nki.language)."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)


def _buffer(buffer, api):
    if buffer is None:
        return sbuf
    if isinstance(buffer, str):
        raise cerr(f"{api}: buffer names as strings ({buffer!r}) are not accepted since NKI 0.3.0; pass the buffer "
                   f"object (nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm)")
    if not any(buffer is b for b in _BUFFERS):
        raise cerr(f"{api}: unknown buffer {buffer!r} (nl.sbuf, nl.psum, nl.hbm, nl.private_hbm, nl.shared_hbm)")
    return buffer


def _create(shape, dtype, buffer, name, init):
    return creation.create(shape, dtype, buffer.memory, buffer.name, name, init)


def _no_mask(api, kwargs):
    if "mask" in kwargs:
        raise cerr(f"{api}: the mask parameter was removed with the nki.* namespace; slice the operands to the "
                   f"region to compute instead", "err_unsupported_mask")
    if kwargs:
        raise cerr(f"{api}: unexpected argument(s) {', '.join(sorted(kwargs))}")


def _adopt_all(r):
    if isinstance(r, tuple):
        return tuple(adopt(x) if isinstance(x, Tile) else x for x in r)
    return adopt(r) if isinstance(r, Tile) else r


# --- creation -----------------------------------------------------------------------------------------------------

def ndarray(shape, dtype=None, buffer=sbuf, name="", address=None):
    if dtype is None:
        raise cerr("nl.ndarray needs a dtype (nl.ndarray(shape, dtype, buffer=nl.sbuf))")
    # address= (explicit placement) is accepted: nkisim does not model where a tile lands, only how much is live.
    return adopt(_create(shape, dtype, _buffer(buffer, "nl.ndarray"), name, "garbage"))


def zeros(shape, dtype, buffer=sbuf, name=""):
    return adopt(_create(shape, dtype, _buffer(buffer, "nl.zeros"), name, "zeros"))


def ones(shape, dtype, buffer=sbuf, name=""):
    return adopt(_create(shape, dtype, _buffer(buffer, "nl.ones"), name, 1.0))


def full(shape, fill_value, dtype, buffer=sbuf, name=""):
    return adopt(_create(shape, dtype, _buffer(buffer, "nl.full"), name, fill_value))


def zeros_like(x, dtype=None, buffer=None, name=""):
    return zeros(x.shape, dtype or x.dtype, buffer or sbuf, name)


def empty_like(x, dtype=None, buffer=None, name=""):
    b = buffer if buffer is not None else {"sbuf": sbuf, "psum": psum}.get(x.alloc.memory, shared_hbm)
    return ndarray(x.shape, dtype or x.dtype, b, name)


def shared_identity_matrix(n, dtype=uint8, dst=None):
    ident = adopt(_cl.shared_identity_matrix(n, dtype=dtype))
    if dst is not None:
        from . import isa
        isa.tensor_copy(dst, ident)
        return dst
    return ident


def shared_constant(constant):
    return adopt(_cl.shared_constant(constant))


def rand(shape, dtype, buffer=sbuf, name=""):
    return adopt(_cl.rand(shape, dtype))


# --- memory -------------------------------------------------------------------------------------------------------

def load(src, dtype=None, **kwargs):
    _no_mask("nl.load", kwargs)
    return adopt(_cl.load(src, dtype=dtype))


def store(dst, value, **kwargs):
    _no_mask("nl.store", kwargs)
    if isinstance(value, Tile) and value.alloc.memory == "psum":
        raise cerr("nl.store: value is in PSUM; DMA does not read PSUM since NKI 0.3.0, copy it to SBUF first "
                   "(nisa.tensor_copy)", "err_unsupported_memory")
    _cl.store(dst, value)


def load_transpose2d(src, dtype=None):
    return adopt(_cl.load_transpose2d(src, dtype=dtype))


# --- indexing, loops, SPMD ----------------------------------------------------------------------------------------

def ds(start, size):
    return slice(start, start + size, 1)


def affine_range(start, stop=None, step=1):
    return _cl.affine_range(*((start,) if stop is None else (start, stop, step)))


def sequential_range(start, stop=None, step=1):
    return _cl.sequential_range(*((start,) if stop is None else (start, stop, step)))


def static_range(start, stop=None, step=1):
    return _cl.static_range(*((start,) if stop is None else (start, stop, step)))


def dynamic_range(start, stop=None, step=1):
    # With compile-time bounds a dynamic loop computes what a sequential one does; register bounds are not simulated.
    for b in (start, stop):
        if b is not None and not isinstance(b, int):
            raise cerr("nl.dynamic_range with register (runtime) bounds is not simulated by nkisim")
    return sequential_range(start, stop, step)


def fori_loop(lower, upper, body_fun, step=1):
    if not isinstance(lower, int) or not isinstance(upper, int):
        raise cerr("nl.fori_loop with register (runtime) bounds is not simulated by nkisim")
    if not isinstance(step, int) or step <= 0:
        raise cerr("nl.fori_loop needs a positive compile-time step")
    for i in sequential_range(lower, upper, step):
        if body_fun(i) is not None:
            raise cerr("the body of nl.fori_loop cannot return a value")


def program_id(axis=0):
    return _cl.program_id(axis)


def num_programs(axes=0):
    return _cl.num_programs(axes)


def program_ndim():
    return _cl.program_ndim()


def device_print(print_prefix, tensor):
    _cl.device_print(print_prefix, tensor)


@contextlib.contextmanager
def no_reorder():
    # nkisim runs instructions in program order anyway; the scheduler model orders by dependencies.
    yield


def is_hbm(buffer):
    return buffer in (hbm, private_hbm, shared_hbm) or getattr(buffer, "memory", None) == "hbm"


def is_psum(buffer):
    return buffer is psum or buffer == "psum"


def is_sbuf(buffer):
    return buffer is sbuf or buffer == "sbuf"


def is_on_chip(buffer):
    return is_psum(buffer) or is_sbuf(buffer)


class _TileSize:
    pmax = 128
    psum_fmax = 512  # deprecated in 0.4.0 for psum_bank_fmax
    psum_bank_fmax = 512
    psum_bank_fmax_bytes = 2048
    psum_num_banks = 8
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512
    psum_min_align = 4
    sbuf_min_align = 4

    @property
    def sbuf_fmax_bytes(self):
        from ..hardware import SBUF_BYTES
        c = active()
        return SBUF_BYTES[c.target if c else "trn1"]

    @property
    def sbuf_fmax(self):
        return self.sbuf_fmax_bytes // 4

    total_available_sbuf_size = sbuf_fmax_bytes  # per partition, despite its name (deprecated in 0.4.0)

    @property
    def sbuf_size_bytes(self):
        return self.sbuf_fmax_bytes * self.pmax


tile_size = _TileSize()


# --- compute conveniences -----------------------------------------------------------------------------------------

class _Op:
    """A current nl function that is also an op token: `nisa.tensor_tensor(..., op=nl.add)` reads nki_op, a call
    runs the classic implementation and hands back an NkiTensor."""

    def __init__(self, classic):
        self._classic = classic
        self.__name__ = getattr(classic, "__name__", "op")
        self.nki_op = getattr(classic, "nki_op", self.__name__)

    def __call__(self, *args, **kwargs):
        _no_mask(f"nl.{self.__name__}", {k: v for k, v in kwargs.items() if k not in _OP_KWARGS})
        return _adopt_all(self._classic(*args, **kwargs))

    def __repr__(self):
        return f"nl.{self.__name__}"


_OP_KWARGS = ("dtype", "axis", "keepdims", "transpose_x", "epsilon", "compute_dtype")

for _n in ("add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "fmod", "mod", "equal",
           "not_equal", "less", "less_equal", "greater", "greater_equal", "bitwise_and", "bitwise_or",
           "bitwise_xor", "invert", "left_shift", "right_shift", "logical_and", "logical_or", "logical_xor",
           "logical_not", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu", "gelu_apprx_sigmoid",
           "gelu_apprx_tanh", "gelu_dx", "silu", "silu_dx", "softplus", "mish", "erf", "erf_dx", "reciprocal",
           "sin", "cos", "tan", "arctan", "ceil", "floor", "trunc", "negative", "sign", "abs", "square", "copy",
           "sum", "max", "min", "mean", "prod", "var", "all", "softmax", "rms_norm", "where", "dropout",
           "transpose", "matmul", "expand_dims", "gather_flattened", "abs_max", "abs_min"):
    if hasattr(_cl, _n):
        globals()[_n] = _Op(getattr(_cl, _n))


def broadcast_to(x, shape, dtype=None):
    tile_arg(x, "nl.broadcast_to", "x")
    if len(tuple(shape)) != len(x.shape):
        raise cerr(f"nl.broadcast_to keeps the rank: {x.shape} -> {tuple(shape)}")
    r = adopt(_cl.broadcast_to(x, tuple(shape)))
    return r if dtype is None or r.dtype == dtype else copy(r, dtype=dtype)  # noqa: F821 - defined above


def random_seed(seed):
    _cl.random_seed(seed)


# --- what the nki.* namespace dropped -------------------------------------------------------------------------------

_REMOVED = {
    "arange": "nl.arange was removed: index with integers and slices (t[0:128, j * 512:(j + 1) * 512]), or "
              "describe other accesses with .ap([[stride, count], ...])",
    "mgrid": "nl.mgrid was removed: index with integers and slices, or describe the access with .ap()",
    "par_dim": "nl.par_dim (block dimensions) was removed: the partition dimension is always the first; keep "
               "several tiles in a Python list instead of a block dimension",
    "static_cast": "nl.static_cast was removed: copy into a tile of the new dtype with nisa.tensor_copy(dst, src)",
    "loop_reduce": "nl.loop_reduce was removed: accumulate explicitly with nisa.tensor_tensor(dst=acc, data1=acc, "
                   "data2=x, op=nl.add)",
    "spmd_dim": "nl.spmd_dim was removed: launch the kernel with kernel[n](...) (the LNC degree)",
    "nc": "nl.nc was removed: launch the kernel with kernel[n](...) (the LNC degree)",
    "atomic_rmw": "nl.atomic_rmw was removed: use nisa.dma_compute",
    "ones_like": "nl.ones_like is not in nki.language: use nl.full(x.shape, 1, dtype)",
    "full_like": "nl.full_like is not in nki.language: use nl.full(x.shape, value, dtype)",
    "fp32": "nl.fp32.min is classic NKI: write the constant (-3.4028235e38)",
    "identity": "nl.identity is classic NKI: use nl.copy or nisa.tensor_copy",
}


def __getattr__(name):
    if name in _REMOVED:
        if active() is not None:
            raise cerr(_REMOVED[name])
        raise AttributeError(f"current NKI (nki.*): {_REMOVED[name]}")
    raise AttributeError(f"module 'nki.language' has no attribute {name!r} (current NKI (nki.*); nkisim)")


__all__ = [n for n in dir() if not n.startswith("_")]
