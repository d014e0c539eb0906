"""ALU and activation functions by NKI name, and how op tokens (nl.exp, np.add, "max", ...) map to them.

Everything computes in fp32 like VectorE/ScalarE do; bitvec ops get int64 operands. Binary entries are
(function, kind) with kind "arith", "cmp", "logical" or "bitvec".
"""
from __future__ import annotations

import numpy as np

_SQRT2 = np.float32(np.sqrt(2.0))
_INV_SQRT_PI2 = np.float32(2.0 / np.sqrt(np.pi))


def erf(x):
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf and scipy is not a dependency.
    x = np.asarray(x, dtype=np.float32)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * \
        np.exp(-a * a)
    return np.copysign(y, x).astype(np.float32)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _gelu(x):
    return 0.5 * x * (1.0 + erf(x / _SQRT2))


def _gelu_dx(x):
    return 0.5 * (1.0 + erf(x / _SQRT2)) + x * np.exp(-0.5 * x * x) / np.float32(np.sqrt(2 * np.pi))


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(np.float32(0.7978845608) * (x + 0.044715 * x * x * x)))


def _silu_dx(x):
    s = _sigmoid(x)
    return s * (1.0 + x * (1.0 - s))


def _softplus(x):
    return np.logaddexp(np.float32(0), x)


UNARY = {
    "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
    "arctan": np.arctan, "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "reciprocal": lambda x: 1.0 / x,
    "sigmoid": _sigmoid, "relu": lambda x: np.maximum(x, np.float32(0)), "gelu": _gelu, "gelu_dx": _gelu_dx,
    "gelu_apprx_tanh": _gelu_tanh, "gelu_apprx_sigmoid": lambda x: x * _sigmoid(np.float32(1.702) * x),
    "silu": lambda x: x * _sigmoid(x), "silu_dx": _silu_dx, "erf": erf,
    "erf_dx": lambda x: _INV_SQRT_PI2 * np.exp(-x * x), "softplus": _softplus,
    "mish": lambda x: x * np.tanh(_softplus(x)), "square": np.square, "sign": np.sign, "abs": np.abs,
    "copy": lambda x: x, "identity": lambda x: x, "negative": np.negative, "trunc": np.trunc, "floor": np.floor,
    "ceil": np.ceil, "logical_not": lambda x: (x == 0).astype(np.float32),
}


def _f(fn):
    return lambda a, b: fn(a, b).astype(np.float32) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) \
        else np.float32(fn(a, b))


BINARY = {
    "add": (np.add, "arith"), "subtract": (np.subtract, "arith"), "multiply": (np.multiply, "arith"),
    "divide": (np.divide, "arith"), "maximum": (np.maximum, "arith"), "minimum": (np.minimum, "arith"),
    "power": (np.power, "arith"), "mod": (np.mod, "arith"), "fmod": (np.fmod, "arith"),
    "equal": (_f(np.equal), "cmp"), "not_equal": (_f(np.not_equal), "cmp"), "greater": (_f(np.greater), "cmp"),
    "greater_equal": (_f(np.greater_equal), "cmp"), "less": (_f(np.less), "cmp"),
    "less_equal": (_f(np.less_equal), "cmp"),
    "logical_and": (_f(lambda a, b: np.logical_and(a != 0, b != 0)), "logical"),
    "logical_or": (_f(lambda a, b: np.logical_or(a != 0, b != 0)), "logical"),
    "logical_xor": (_f(lambda a, b: np.logical_xor(a != 0, b != 0)), "logical"),
    "bitwise_and": (np.bitwise_and, "bitvec"), "bitwise_or": (np.bitwise_or, "bitvec"),
    "bitwise_xor": (np.bitwise_xor, "bitvec"), "left_shift": (np.left_shift, "bitvec"),
    "right_shift": (np.right_shift, "bitvec"), "arith_shift_right": (np.right_shift, "bitvec"),
    # The ISA's operator table ("Supported Math Operators for NKI ISA", nki.api.shared) lists Absolute (nl.abs) among
    # the arithmetic ALU operators of Vector/Scalar Engine; it takes one input, the instruction's data, and ignores
    # the operand (nki-samples' rmsnorm_quant: tensor_scalar_reduce(data, op0=nl.abs, operand0=0.0, reduce_op=max))
    "abs": (lambda a, b: np.abs(a), "arith"),
}

# name -> function(array, axis tuple, keepdims)
REDUCE = {
    "add": lambda a, ax, kd: np.sum(a, axis=ax, keepdims=kd, dtype=np.float32),
    "maximum": lambda a, ax, kd: np.max(a, axis=ax, keepdims=kd),
    "minimum": lambda a, ax, kd: np.min(a, axis=ax, keepdims=kd),
    "multiply": lambda a, ax, kd: np.prod(a, axis=ax, keepdims=kd, dtype=np.float32),
    "logical_and": lambda a, ax, kd: np.all(a != 0, axis=ax, keepdims=kd).astype(np.float32),
    "logical_or": lambda a, ax, kd: np.any(a != 0, axis=ax, keepdims=kd).astype(np.float32),
    "bitwise_and": lambda a, ax, kd: np.bitwise_and.reduce(a, axis=ax, keepdims=kd),
    "bitwise_or": lambda a, ax, kd: np.bitwise_or.reduce(a, axis=ax, keepdims=kd),
    "bitwise_xor": lambda a, ax, kd: np.bitwise_xor.reduce(a, axis=ax, keepdims=kd),
    "subtract": lambda a, ax, kd: np.subtract.reduce(a, axis=ax, keepdims=kd),
}

_ALIASES = {"max": "maximum", "min": "minimum", "sum": "add", "prod": "multiply", "all": "logical_and",
            "any": "logical_or", "true_divide": "divide", "absolute": "abs", "amax": "maximum", "amin": "minimum",
            "remainder": "mod", "invert": "invert", "bitwise_not": "invert"}

_NUMPY = {}
for _name in list(UNARY) + list(BINARY) + list(_ALIASES):
    _fn = getattr(np, _name, None)
    if _fn is not None and callable(_fn):
        _NUMPY.setdefault(id(_fn), _name)


def canon(token) -> str:
    """The NKI op name of a token: an nl function, a numpy function or ufunc, or a string."""
    name = getattr(token, "nki_op", None)
    if name is None:
        if isinstance(token, str):
            name = token
        else:
            name = _NUMPY.get(id(token)) or getattr(token, "__name__", None)
    if name is None:
        raise ValueError(f"unsupported op {token!r}")
    return _ALIASES.get(name, name)


def binary(token):
    name = canon(token)
    if name not in BINARY:
        raise ValueError(f"'{name}' is not an ALU binary op")
    return name


def unary(token):
    name = canon(token)
    if name not in UNARY:
        raise ValueError(f"'{name}' is not an activation function")
    return name


def reduce(token):
    name = canon(token)
    if name not in REDUCE:
        raise ValueError(f"'{name}' cannot be used as a reduction")
    return name
