"""NKI dtypes on top of numpy, without ml_dtypes.

Narrow float formats (bfloat16, tfloat32, fp8) are stored as float32 arrays whose values have been rounded to the
narrow format (round to nearest even on the mantissa bits). fp8 rounding handles the mantissa and saturates at the
largest finite value but ignores fp8 subnormals: close enough for a functional check, and documented as such.
float16 is stored as real numpy float16. bool_ is stored as uint8 (0/1), as on the device.
"""
from __future__ import annotations

import numpy as np


class DType:
    """One NKI dtype. `dtype` is the numpy storage dtype, so np.dtype(nl.bfloat16) and np.zeros(dtype=nl.float32)
    work; itemsize is the size on the device (bytes the perf model counts), not the storage size."""

    __slots__ = ("name", "dtype", "itemsize", "kind", "_drop", "_maxval")

    def __init__(self, name, storage, itemsize, kind, drop_bits=0, maxval=None):
        self.name = name
        self.dtype = np.dtype(storage)
        self.itemsize = itemsize
        self.kind = kind  # "f" float, "i" signed int, "u" unsigned int, "b" bool
        self._drop = drop_bits
        self._maxval = maxval

    @property
    def type(self):
        return self.dtype.type

    @property
    def is_float(self):
        return self.kind == "f"

    def __repr__(self):
        return f"nl.{self.name}"

    def __str__(self):
        return self.name

    def __eq__(self, other):
        if other is self:
            return True
        try:
            return normalize(other) is self
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.name)

    def __call__(self, value):
        """nl.float32(3) style scalar construction."""
        return self.dtype.type(value)

    def cast(self, a):
        """Round an fp32 (or any) numpy array to this dtype's storage, the way an engine's output cast does."""
        if self._drop:
            a = np.asarray(a, dtype=np.float32)
            return _round_mantissa(a, self._drop, self._maxval)
        if self.kind == "f":
            return np.asarray(a, dtype=self.dtype)
        a = np.asarray(a)
        if self.kind == "b":
            return (a != 0).astype(np.uint8)
        if a.dtype.kind == "f":
            # Engines convert float to int by rounding to nearest and saturating.
            info = np.iinfo(self.dtype)
            a = np.clip(np.rint(np.nan_to_num(a)), info.min, info.max)
        return a.astype(self.dtype)

    def garbage(self):
        """The value a never-written element reads as: NaN for floats, so a kernel that skips work cannot pass."""
        if self.kind == "f":
            return np.nan
        if self.kind == "b":
            return 0xFF
        return np.iinfo(self.dtype).max


def _round_mantissa(a, drop, maxval):
    bits = a.view(np.uint32)
    half = np.uint32((1 << (drop - 1)) - 1)
    rounded = (bits + half + ((bits >> np.uint32(drop)) & np.uint32(1))) & np.uint32(~((1 << drop) - 1) & 0xFFFFFFFF)
    out = rounded.view(np.float32)
    if maxval is not None:
        # finite values beyond the format saturate
        out = np.clip(out, -maxval, maxval, out=out) if out.ndim else np.clip(out, -maxval, maxval)
    # Rounding can carry a NaN payload into Inf; keep non-finite inputs as they were (an fp8 infinity stays one: a
    # float32 scale's bytes read as float8_e4m3 can hold 0x78, rmsnorm_quant stores them so).
    out = np.where(np.isfinite(a), out, a)
    return np.float32(out) if out.ndim == 0 else out.astype(np.float32, copy=False)


float32 = DType("float32", np.float32, 4, "f")
float16 = DType("float16", np.float16, 2, "f")
bfloat16 = DType("bfloat16", np.float32, 2, "f", drop_bits=16)
tfloat32 = DType("tfloat32", np.float32, 4, "f", drop_bits=13)
float8_e4m3 = DType("float8_e4m3", np.float32, 1, "f", drop_bits=20, maxval=240.0)
float8_e4m3fn = DType("float8_e4m3fn", np.float32, 1, "f", drop_bits=20, maxval=448.0)
float8_e5m2 = DType("float8_e5m2", np.float32, 1, "f", drop_bits=21, maxval=57344.0)
float32r = DType("float32r", np.float32, 4, "f")
int8 = DType("int8", np.int8, 1, "i")
int16 = DType("int16", np.int16, 2, "i")
int32 = DType("int32", np.int32, 4, "i")
int64 = DType("int64", np.int64, 8, "i")
uint8 = DType("uint8", np.uint8, 1, "u")
uint16 = DType("uint16", np.uint16, 2, "u")
uint32 = DType("uint32", np.uint32, 4, "u")
uint64 = DType("uint64", np.uint64, 8, "u")
bool_ = DType("bool", np.uint8, 1, "b")
float64 = DType("float64", np.float64, 8, "f")  # host-side only; kernels rarely see it

ALL = {d.name: d for d in (float32, float16, bfloat16, tfloat32, float8_e4m3, float8_e4m3fn, float8_e5m2, float32r,
                           int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool_, float64)}
_BY_NP = {np.dtype(n): ALL[n] for n in ("float32", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                         "uint32", "uint64", "float64")}
_BY_NP[np.dtype(np.bool_)] = bool_


def normalize(d) -> DType:
    """Accept nl dtypes, numpy dtypes and scalar types, strings, or Python float/int/bool."""
    if isinstance(d, DType):
        return d
    if d is float:
        return float32
    if d is int:
        return int32
    if d is bool:
        return bool_
    if isinstance(d, str) and d in ALL:
        return ALL[d]
    if isinstance(d, str) and d in ("bool_", "float8e4", "float8e5", "fp8e4", "fp8e5"):
        return {"bool_": bool_, "float8e4": float8_e4m3, "fp8e4": float8_e4m3, "float8e5": float8_e5m2,
                "fp8e5": float8_e5m2}[d]
    try:
        nd = np.dtype(d)
    except TypeError:
        raise TypeError(f"not a dtype: {d!r}") from None
    if nd in _BY_NP:
        return _BY_NP[nd]
    raise TypeError(f"unsupported dtype: {d!r}")


def of_scalar(v) -> DType:
    """Dtype of a Python or numpy scalar operand: untyped scalars count as int32/fp32/bool, typed ones keep theirs."""
    if isinstance(v, np.generic):
        return normalize(v.dtype)
    if isinstance(v, bool):
        return bool_
    if isinstance(v, int):
        return int32
    return float32


_FLOAT_RANK = {"float8_e4m3": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "bfloat16": 2, "float16": 2, "tfloat32": 3,
               "float32r": 3, "float32": 4, "float64": 5}


def promote(a: DType, b: DType) -> DType:
    """The published NKI promotion rules (nki-facts §1.10)."""
    if a is b:
        return a
    if a.kind == "f" and b.kind == "f":
        ra, rb = _FLOAT_RANK[a.name], _FLOAT_RANK[b.name]
        if ra == rb:
            if ra == 1:
                return bfloat16
            if ra == 2:
                return float32  # fp16 with bf16 widens
            return a
        return a if ra > rb else b
    if a.kind == "f":
        return a
    if b.kind == "f":
        return b
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    if a.kind == b.kind:
        return a if a.itemsize >= b.itemsize else b
    s, u = (a, b) if a.kind == "i" else (b, a)
    if s.itemsize > u.itemsize:
        return s
    if u.itemsize >= 4:
        return float32 if u.itemsize == 4 else int64
    return {1: int16, 2: int32}[u.itemsize]


# --- bytes on the device (Tile.view: reinterpreting a tensor's bytes as another dtype) -------------------------
# Little-endian, as the device and numpy on x86 lay out multi-byte elements. The fp8 formats: float8_e4m3 with an
# IEEE-style top exponent (infinities and NaNs there, so 240 is the largest finite value, as nkisim rounds it),
# float8_e4m3fn (no infinities, S.1111.111 is NaN, 448 the largest), float8_e5m2 (IEEE-style). Subnormals decode
# exactly.
_FP8 = {"float8_e4m3": (4, 3, 7, True), "float8_e4m3fn": (4, 3, 7, False), "float8_e5m2": (5, 2, 15, True)}
_FP8_TABLES = {}


def _fp8_table(name):
    """The 256 values of an fp8 format, by byte."""
    t = _FP8_TABLES.get(name)
    if t is None:
        ebits, mbits, bias, ieee = _FP8[name]
        b = np.arange(256)
        sign = np.where(b & 0x80, -1.0, 1.0)
        e = (b >> mbits) & ((1 << ebits) - 1)
        m = b & ((1 << mbits) - 1)
        top = (1 << ebits) - 1
        val = np.where(e == 0, m * 2.0 ** (1 - bias - mbits), (1 + m / 2.0 ** mbits) * 2.0 ** (e - bias))
        if ieee:
            val = np.where(e == top, np.where(m == 0, np.inf, np.nan), val)
        else:
            val = np.where((e == top) & (m == (1 << mbits) - 1), np.nan, val)
        t = (sign * val).astype(np.float32)
        _FP8_TABLES[name] = t
    return t


def _fp8_encode(v, name):
    """Bytes of fp8 values (held in float32): the nearest code, ties to the even code; NaN as the canonical NaN."""
    table = _fp8_table(name)
    v = np.asarray(v, np.float32)
    codes = np.arange(128)
    pos = table[:128]
    keep = np.isfinite(pos)
    inf_code = codes[np.isinf(pos)]
    pos, codes = pos[keep], codes[keep]  # ascending with the code
    a = np.abs(v)
    i = np.clip(np.searchsorted(pos, a), 1, len(pos) - 1)
    lo, hi = pos[i - 1], pos[i]
    with np.errstate(invalid="ignore"):
        pick_hi = (a - lo > hi - a) | ((a - lo == hi - a) & (codes[i] % 2 == 0)) | (a > pos[-1])
    out = np.where(pick_hi, codes[i], codes[i - 1]).astype(np.uint8)
    if len(inf_code):
        out = np.where(np.isinf(a), np.uint8(inf_code[0]), out)
    out = np.where(np.signbit(v), out | 0x80, out).astype(np.uint8)
    return np.where(np.isnan(v), np.uint8(0x7F), out).astype(np.uint8)


def to_bytes(values, dt: DType):
    """The device bytes of an array of dt values (as nkisim stores them): shape (..., last * itemsize), uint8."""
    v = np.ascontiguousarray(values)
    if dt.name in _FP8:
        return _fp8_encode(v, dt.name)
    if dt.name == "bfloat16":
        raw = (np.ascontiguousarray(v, np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    elif dt.name in ("tfloat32", "float32r"):
        raw = np.ascontiguousarray(v, np.float32)
    else:
        raw = np.ascontiguousarray(v, dt.dtype)
    return raw.view(np.uint8).reshape(v.shape[:-1] + (-1,))


def from_bytes(raw, dt: DType):
    """dt values (as nkisim stores them) from device bytes, shape (..., n) uint8 -> (..., n / itemsize)."""
    raw = np.ascontiguousarray(raw, np.uint8)
    if dt.name in _FP8:
        return _fp8_table(dt.name)[raw]
    if dt.name == "bfloat16":
        return (raw.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
    if dt.name in ("tfloat32", "float32r"):
        return raw.view(np.float32).copy()
    return raw.view(dt.dtype).copy()


class HostArray(np.ndarray):
    """A host numpy array of a narrow NKI dtype (bfloat16, tfloat32, fp8): its values rounded to the dtype and stored
    as float32, as nkisim stores them on chip, with the dtype they stand for in `nki_dtype`. The SDK's host code makes
    such arrays with nl.static_cast (nki-samples' double_row_matmul test: nl.static_cast(rhs, nl.float8_e4m3)), and a
    kernel given one sees a tensor of that dtype. numpy operations on it give plain float32 arrays."""

    nki_dtype = None

    def __array_finalize__(self, obj):
        self.nki_dtype = getattr(obj, "nki_dtype", None)

    def __array_wrap__(self, out, context=None, return_scalar=False):
        return np.asarray(out)  # arithmetic results are plain arrays: they are no longer of the narrow dtype

    def __reduce__(self):
        return np.asarray(self).__reduce__()


def host_array(values, dt: DType):
    """values as a host array of dt: a plain numpy array when numpy has the dtype, else a HostArray."""
    dt = normalize(dt)
    v = dt.cast(np.asarray(values, dtype=np.float32 if dt.is_float else None))
    if not dt._drop:
        return np.asarray(v, dtype=dt.dtype)
    out = np.asarray(v, dtype=np.float32).view(HostArray)
    out.nki_dtype = dt
    return out


def of_array(a) -> DType:
    """The NKI dtype of a host array (a HostArray says which narrow dtype it holds)."""
    dt = getattr(a, "nki_dtype", None)
    return dt if dt is not None else normalize(a.dtype)
