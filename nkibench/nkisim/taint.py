"""Loop-index taint for timing-only loop replay (replay.py).

While replay probes a loop, the loop yields a TInt instead of an int. Everything a kernel computes from it stays
tainted: TInt arithmetic gives TInts, and mixing with numpy arrays gives TArrays. Each tainted value keeps an
expression (Node) that recomputes it for other loop indices, which is how replay checks, iteration by iteration,
that a mask built from the index (`rows < M`) still selects what it selected in the template iteration. Sums and
constant multiples of indices get a "lin" Node: the value shifted by coefficient x (index change) per loop; an
index key must be of that kind with scalar coefficients, which is what makes the regions of replayed instructions
shift by constant strides.

What a tainted value cannot carry - Python control flow on it (comparisons, bool, hash), conversions to plain
numbers by kernel code, floats - marks its drivers unsafe, and the loop runs plainly. The values themselves behave
as ints and arrays, so the kernel computes exactly what it computes with plain indices.
"""
from __future__ import annotations

import operator
import os
import sys

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_KERNELS_DIR = _PKG_DIR + "calibration" + os.sep  # kernels that live inside the package
_int = int.__int__
_FILE_KIND = {}  # code file name -> file_kind


def file_kind(filename):
    """0 for code outside nkisim, 1 for nkisim's own, 2 for the kernels inside it (calibration). By normalised path:
    nkisim imported as .../tests/bench/../../nkibench/nkisim has code file names that do not start with its
    directory."""
    k = _FILE_KIND.get(filename)
    if k is None:
        p = os.path.abspath(filename)
        k = _FILE_KIND[filename] = 2 if p.startswith(_KERNELS_DIR) else 1 if p.startswith(_PKG_DIR) else 0
    return k

# Set by replay while any loop is probing, so that the hooks in tensor/core cost one check otherwise.
ACTIVE = [False]


def flag(drivers):
    for d in drivers:
        d.unsafe = True


def _from_kernel():
    """Whether the code that triggered a conversion hook is outside nkisim (the kernel, or numpy called by it)."""
    return file_kind(sys._getframe(2).f_code.co_filename) != 1


class Node:
    """How to recompute a tainted value: kind "lin" (a = value, b = lin), "op" (a = function, b = arguments, Nodes
    or constants) or "view" (a = function of one array, b = the Node it applies to)."""

    __slots__ = ("kind", "a", "b", "drivers")

    def __init__(self, kind, a, b, drivers):
        self.kind = kind
        self.a = a
        self.b = b
        self.drivers = drivers


def evaluate(node, bindings, memo=None):
    """The value of node with the loop indices in bindings ({driver: index}); other drivers keep theirs."""
    if memo is None:
        memo = {}
    hit = memo.get(id(node))
    if hit is not None:
        return hit[0]
    if node.kind == "lin":
        v = node.a
        for d, (c, at) in node.b.items():
            k = bindings.get(d)
            if k is not None and k != at:
                v = v + c * (k - at)
    elif node.kind == "op":
        v = node.a(*[evaluate(x, bindings, memo) if isinstance(x, Node) else x for x in node.b])
    else:
        v = node.a(evaluate(node.b, bindings, memo))
    memo[id(node)] = (v,)
    return v


def node_of(x):
    """(Node or None, is_tainted) for any value."""
    if isinstance(x, (TInt, TArray)):
        return x.node, True
    return None, False


def _merge_lin(a, b, sb):
    """lin of a + sb * b (sb = +1 / -1), or None when the two disagree about a driver's index."""
    out = dict(a)
    for d, (c, at) in b.items():
        if d in out:
            c0, at0 = out[d]
            if at0 != at:
                return None
            out[d] = (c0 + sb * c, at)
        else:
            out[d] = (sb * c, at)
    return out


def _derive(fn, args, value):
    """Node for value = fn(*args), where some args are tainted."""
    nodes = []
    drivers = set()
    for x in args:
        n, t = node_of(x)
        if t:
            if n is None:
                return None, drivers_of(args)
            drivers |= n.drivers
        nodes.append(n if t else x)
    drivers = frozenset(drivers)
    lin = _lin_of(fn, nodes)
    if lin is not None:
        return Node("lin", value, lin, drivers), drivers
    return Node("op", fn, nodes, drivers), drivers


def drivers_of(args):
    out = set()
    for x in args:
        if isinstance(x, (TInt, TArray)):
            out |= x.drivers
    return frozenset(out)


_ADD = (np.add, operator.add)
_SUB = (np.subtract, operator.sub)
_MUL = (np.multiply, operator.mul)
_NEG = (np.negative, operator.neg)
_POS = (np.positive, operator.pos)


def _lin_of(fn, nodes):
    lins = [n.b if isinstance(n, Node) and n.kind == "lin" else None for n in nodes]
    tainted = [isinstance(n, Node) for n in nodes]
    if any(t and lin is None for t, lin in zip(tainted, lins)):
        return None
    if fn in _NEG:
        return {d: (-c, at) for d, (c, at) in lins[0].items()}
    if fn in _POS:
        return lins[0]
    if len(nodes) != 2:
        return None
    a, b = lins
    if fn in _ADD or fn in _SUB:
        sb = 1 if fn in _ADD else -1
        if a is not None and b is not None:
            return _merge_lin(a, b, sb)
        if a is not None:
            return a
        return {d: (sb * c, at) for d, (c, at) in b.items()}
    if fn in _MUL:
        if a is not None and b is None:
            k = nodes[1]
        elif b is not None and a is None:
            a, k = b, nodes[0]
        else:
            return None
        if isinstance(k, (float, np.floating)) or (isinstance(k, np.ndarray) and k.dtype.kind not in "iub"):
            return None
        return {d: (c * k, at) for d, (c, at) in a.items()}
    return None


def scalar_lin(lin):
    return lin is not None and all(np.ndim(c) == 0 for c, _ in lin.values())


# --- tainted ints ----------------------------------------------------------------------------------------------------

class TInt(int):
    """A loop index (or an int computed from one). `node` recomputes it; `drivers` are the loops it depends on."""

    def __new__(cls, value, node):
        self = int.__new__(cls, value)
        self.node = node
        return self

    @property
    def drivers(self):
        return self.node.drivers if self.node is not None else frozenset()

    @staticmethod
    def index(k, driver):
        return TInt(k, Node("lin", k, {driver: (1, k)}, frozenset((driver,))))

    def _binary(self, other, fn, reflected=False):
        if isinstance(other, (np.ndarray, TArray, np.generic)):
            return _ufunc(_NP_OF[fn], (other, self) if reflected else (self, other))
        if not isinstance(other, int):
            if isinstance(other, float):
                flag(self.drivers)  # floats lose the index structure
                return fn(other, _int(self)) if reflected else fn(_int(self), other)
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        va = _int(a) if isinstance(a, TInt) else a
        vb = _int(b) if isinstance(b, TInt) else b
        v = fn(va, vb)
        node, _ = _derive(fn, (a, b), v)
        if node is None:
            flag(drivers_of((a, b)))
            return v
        return TInt(v, node)

    def __add__(self, o):
        return self._binary(o, operator.add)

    def __radd__(self, o):
        return self._binary(o, operator.add, True)

    def __sub__(self, o):
        return self._binary(o, operator.sub)

    def __rsub__(self, o):
        return self._binary(o, operator.sub, True)

    def __mul__(self, o):
        return self._binary(o, operator.mul)

    def __rmul__(self, o):
        return self._binary(o, operator.mul, True)

    def __floordiv__(self, o):
        return self._binary(o, operator.floordiv)

    def __rfloordiv__(self, o):
        return self._binary(o, operator.floordiv, True)

    def __mod__(self, o):
        return self._binary(o, operator.mod)

    def __rmod__(self, o):
        return self._binary(o, operator.mod, True)

    def __neg__(self):
        v = -_int(self)
        return TInt(v, _derive(operator.neg, (self,), v)[0])

    def __pos__(self):
        return self

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _ufunc(ufunc, inputs, method, kwargs)

    def __reduce__(self):
        return (int, (_int(self),))


_NP_OF = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
          operator.floordiv: np.floor_divide, operator.mod: np.remainder}


def _leaking(name):
    """An int operation that turns the index into a plain Python value or control flow (comparisons, bool, hash,
    floats, bit operations): the loop cannot be replayed; the result is the plain int's."""
    op = getattr(int, name)

    def method(self, *args):
        flag(self.drivers)
        return op(_int(self), *args)
    method.__name__ = name
    return method


for _name in ("__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__divmod__", "__rdivmod__", "__and__",
              "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__", "__rlshift__", "__rshift__",
              "__rrshift__", "__abs__", "__invert__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
              "__bool__", "__hash__", "__round__", "__trunc__", "__floor__", "__ceil__", "bit_length", "bit_count",
              "to_bytes", "as_integer_ratio", "conjugate"):
    setattr(TInt, _name, _leaking(_name))


def _converting(name):
    """A conversion nkisim itself makes (its effect shows in the recorded instructions) but that, made by the kernel,
    carries the value on untainted - or prints it, which a replayed iteration would not."""
    op = getattr(int, name)

    def method(self, *args):
        if _from_kernel():
            flag(self.drivers)
        return op(_int(self), *args)
    method.__name__ = name
    return method


for _name in ("__int__", "__index__", "__float__", "__str__", "__repr__", "__format__"):
    setattr(TInt, _name, _converting(_name))


# --- tainted arrays --------------------------------------------------------------------------------------------------

class TArray(NDArrayOperatorsMixin):
    """An index expression computed from loop indices. Not an ndarray subclass: numpy hands it back to us for every
    ufunc and asks __array__ for any other conversion, so the expression cannot be lost silently."""

    __slots__ = ("value", "node")

    def __init__(self, value, node):
        self.value = value
        self.node = node

    @property
    def drivers(self):
        return self.node.drivers

    @property
    def shape(self):
        return self.value.shape

    @property
    def ndim(self):
        return self.value.ndim

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def size(self):
        return self.value.size

    def __len__(self):
        return len(self.value)

    def __repr__(self):
        return f"TArray({self.value!r})"

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _ufunc(ufunc, inputs, method, kwargs)

    def __array__(self, dtype=None, copy=None):
        flag(self.drivers)
        return self.value if dtype is None else self.value.astype(dtype)

    def __array_function__(self, func, types, args, kwargs):
        if func in _VIEW_FUNCS and isinstance(args[0], TArray) and not any(
                isinstance(x, (TArray, TInt)) for x in list(args[1:]) + list(kwargs.values())):
            return _view(args[0], lambda v: func(v, *args[1:], **kwargs))
        flag(drivers_of(list(args) + list(kwargs.values())))
        return func(*[plain(x) for x in args], **{k: plain(v) for k, v in kwargs.items()})

    def _method(self, name, *args, **kwargs):
        if any(isinstance(x, (TArray, TInt)) for x in args):
            flag(self.drivers)
            return getattr(self.value, name)(*[plain(x) for x in args], **kwargs)
        return _view(self, lambda v: getattr(v, name)(*args, **kwargs))

    def __getitem__(self, key):
        if isinstance(key, (TArray, TInt)) or (isinstance(key, tuple) and any(isinstance(x, (TArray, TInt))
                                                                             for x in key)):
            flag(self.drivers)
            return plain(self)[plain_key(key)]
        return _view(self, lambda v: v[key])

    def reshape(self, *a, **k):
        return self._method("reshape", *a, **k)

    def transpose(self, *a):
        return self._method("transpose", *a)

    @property
    def T(self):  # noqa: N802
        return _view(self, lambda v: v.T)

    def astype(self, dtype, **k):
        return self._method("astype", dtype, **k)

    def copy(self):
        return self

    def squeeze(self, *a, **k):
        return self._method("squeeze", *a, **k)

    def ravel(self):
        return self._method("ravel")

    def flatten(self):
        return self._method("flatten")

    def __getattr__(self, name):
        # anything else (reductions, tolist, tobytes, item, iteration helpers) reads the values untainted
        flag(self.drivers)
        return getattr(self.value, name)

    def __iter__(self):
        flag(self.drivers)
        return iter(self.value)

    def __bool__(self):
        flag(self.drivers)
        return bool(self.value)

    def __int__(self):
        flag(self.drivers)
        return int(self.value)

    def __float__(self):
        flag(self.drivers)
        return float(self.value)

    def __index__(self):
        flag(self.drivers)
        return self.value.__index__()


_VIEW_FUNCS = {np.broadcast_to, np.expand_dims, np.reshape, np.transpose, np.squeeze, np.ravel, np.copy,
               np.ascontiguousarray}


def _view(t, fn):
    """A shape-only function of a tainted array: the result shifts exactly like its source."""
    v = fn(t.value)
    n = t.node
    if not isinstance(v, np.ndarray):
        flag(t.drivers)
        return v
    if n.kind == "lin" and scalar_lin(n.b):
        return TArray(v, Node("lin", v, n.b, n.drivers))
    return TArray(v, Node("view", fn, n, n.drivers))


def plain(x):
    if isinstance(x, TArray):
        return x.value
    if isinstance(x, TInt):
        return _int(x)
    return x


def plain_key(key):
    if isinstance(key, tuple):
        return tuple(plain(x) for x in key)
    return plain(key)


def _ufunc(ufunc, inputs, method="__call__", kwargs=None):
    kwargs = kwargs or {}
    vals = [plain(x) for x in inputs]
    if method != "__call__" or kwargs:
        # reductions, out=, where=: not recomputed; the result is read untainted
        flag(drivers_of(inputs))
        if "out" in kwargs:
            kwargs = dict(kwargs, out=tuple(plain(o) for o in kwargs["out"]))
        return getattr(ufunc, method)(*vals, **kwargs)
    v = ufunc(*vals)
    node, drivers = _derive(ufunc, inputs, v)
    if node is None:
        flag(drivers)
        return v
    if isinstance(v, np.ndarray) and v.ndim > 0:
        return TArray(v, node)
    # A numpy scalar keeps its own type (its dtype steers promotion), so it cannot carry the expression.
    flag(drivers)
    return v


def arange(start, stop, step):
    """nl.arange with a tainted bound: the same range, shifted with its start (the length must not depend on it)."""
    lo = _int(start) if isinstance(start, TInt) else int(start)
    hi = _int(stop) if isinstance(stop, TInt) else int(stop)
    v = np.arange(lo, hi, int(step), dtype=np.int64)
    n0, t0 = node_of(start)
    n1, t1 = node_of(stop)
    if t0 and t1 and n0.kind == "lin" and n1.kind == "lin" and n1.b == n0.b and scalar_lin(n0.b):
        return TArray(v, Node("lin", v, n0.b, n0.drivers))
    flag(drivers_of((start, stop)))
    return v


def strip_key(raw):
    """An index key with tainted parts made plain; a part whose value does not shift affinely marks its loops."""
    if isinstance(raw, tuple):
        return tuple(_strip_part(c) for c in raw)
    return _strip_part(raw)


def _strip_part(c):
    if isinstance(c, (TInt, TArray)):
        n = c.node
        if n is None or n.kind != "lin" or not scalar_lin(n.b):
            flag(c.drivers)
        return plain(c)
    if isinstance(c, slice) and (isinstance(c.start, TInt) or isinstance(c.stop, TInt) or isinstance(c.step, TInt)):
        return slice(_strip_part(c.start), _strip_part(c.stop), _strip_part(c.step))
    return c


def tainted(x):
    return isinstance(x, (TInt, TArray))
