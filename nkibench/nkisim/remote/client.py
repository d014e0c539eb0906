"""The kernel's side of nkisim's remote front end: runs the kernel's Python, and sends every NKI call to the server.

The kernel's NKI modules are handles here (Remote): an attribute, a call, an index or an operator on one is a
request, answered with a plain value (ints, shapes, index arrays) or another handle. No tensor's data is ever in
this process, so a kernel cannot read its inputs, and nothing it patches here changes what the server records.
"""
from __future__ import annotations

import builtins
import signal
import sys
import types
import weakref

import numpy as np

from . import wire

_conn = None  # the one connection of this process


class Done(Exception):
    """The server has what it needs: end the kernel's process."""


class ServerGone(Exception):
    """The server closed the connection."""


class RemoteError(Exception):
    """An error the server raised for a request; `token` lets the server recognise it if the kernel lets it
    through."""
    token = None


_ERROR_TYPES = {t.__name__: t for t in (TypeError, ValueError, IndexError, KeyError, AttributeError,
                                        ZeroDivisionError, AssertionError, NotImplementedError, RuntimeError,
                                        StopIteration, OverflowError, ImportError, ModuleNotFoundError,
                                        ArithmeticError, LookupError)}
_NKI_TYPES = {}


def _error(err: dict) -> BaseException:
    name, message = str(err.get("type", "RuntimeError")), str(err.get("message", ""))
    if err.get("kind") == "nki":
        cls = _NKI_TYPES.get(name)
        if cls is None:
            cls = _NKI_TYPES[name] = type(name, (RemoteError,), {})
        e = cls(message)
    else:
        e = _ERROR_TYPES.get(name, RuntimeError)(message)
    e.token = err.get("token")
    return e


class Remote:
    """An object that lives in the server."""
    __slots__ = ("_h", "__weakref__")

    def __init__(self, h):
        object.__setattr__(self, "_h", h)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _conn.request("getattr", obj=_enc_handle(self), name=name)

    def __setattr__(self, name, value):
        raise AttributeError(f"NKI objects cannot be given attributes ('{name}')")

    def __call__(self, *args, **kwargs):
        return _conn.request("call", obj=_enc_handle(self), args=encode(args), kwargs=encode(kwargs))

    def __del__(self):
        if _conn is not None:
            _conn.released.append(object.__getattribute__(self, "_h"))

    def __repr__(self):
        try:
            return _conn.op("repr", self)
        except Exception:  # noqa: BLE001 - printing must not fail
            return f"<NKI object {object.__getattribute__(self, '_h')}>"

    def __str__(self):
        try:
            return _conn.op("str", self)
        except Exception:  # noqa: BLE001
            return repr(self)

    def __format__(self, spec):
        return _conn.op("format", self, spec)

    def __instancecheck__(self, obj):
        # isinstance(t, nl.Tile): the handle stands for a class in the server, which decides
        return isinstance(obj, Remote) and bool(_conn.op("isinstance", obj, self))

    def __enter__(self):
        return _conn.op("enter", self)

    def __exit__(self, *exc):
        return _conn.op("exit", self, exc[0] is not None)


def _method(op, reflected=False):
    if reflected:
        return lambda self, other: _conn.op(op, other, self)
    return lambda self, *args: _conn.op(op, self, *args)


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift",
              "rshift"):
    setattr(Remote, f"__{_name}__", _method(_name))
    setattr(Remote, f"__r{_name}__", _method(_name, True))
    setattr(Remote, f"__i{_name}__", _method("i" + _name))
for _name in ("neg", "pos", "abs", "invert", "lt", "le", "eq", "ne", "gt", "ge", "getitem", "setitem", "delitem",
              "contains", "bool", "len", "hash", "next", "int", "float", "index"):
    setattr(Remote, f"__{_name}__", _method(_name))


def _iter(self):
    it = _conn.op("iter", self)
    return iter(it) if isinstance(it, list) else it  # a sequence comes whole; a loop's iterator stays there


Remote.__iter__ = _iter


class RemoteModule(Remote):
    """An NKI module: a handle with its name, whose decorators (nki.jit and friends) work here, on the kernel's own
    functions, which never leave this process."""
    __slots__ = ("_name",)

    def __init__(self, h, name):
        super().__init__(h)
        object.__setattr__(self, "_name", name)

    def __getattr__(self, name):
        if name in _DECORATORS and object.__getattribute__(self, "_name") in ("neuronxcc.nki", "nki"):
            return _DECORATORS[name]
        return super().__getattr__(name)


class Jit:
    """What @nki.jit makes of a function in the kernel's process: the function, callable as it was."""

    def __init__(self, func, **options):
        self.func = getattr(func, "func", func)
        self.options = options

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)

    def __getitem__(self, grid):
        return self


def _decorator(func=None, **options):
    if func is None:
        return lambda f: Jit(f, **options)
    return Jit(func, **options)


def _simulate(kernel=None, *args, **kwargs):
    raise NotImplementedError("nki.simulate / nki.simulate_kernel run a kernel on the kernel module's own arrays; "
                              "in a checked evaluation the kernel's NKI calls run in the judge's sandbox, which runs "
                              "only the kernel it was asked for: keep such code under "
                              "`if __name__ == \"__main__\":`")


_DECORATORS = {"jit": _decorator, "baremetal": _decorator, "benchmark": _decorator, "profile": _decorator,
               "simulate": _simulate, "simulate_kernel": _simulate}


# --- values ---------------------------------------------------------------------------------------------------

def _enc_handle(r: Remote) -> dict:
    return {"$h": object.__getattribute__(r, "_h")}


def encode(v, depth=0):
    if depth > wire.MAX_DEPTH:
        raise TypeError("a value nested too deeply for an NKI call")
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return wire.float_value(float(v))
    if isinstance(v, Remote):
        return _enc_handle(v)
    tagged = wire.compound(v, lambda x: encode(x, depth + 1), exact=False)
    if tagged is None:
        tagged = wire.numpy_scalar(v)
    if tagged is not None:
        return tagged
    if isinstance(v, np.ndarray):
        return wire.array_value(v)
    name = wire.numpy_type_name(v)
    if name is not None:
        return {"$np": name}
    if isinstance(v, np.ufunc) and getattr(np, v.__name__, None) is v:
        return {"$npf": v.__name__}
    if v is int or v is float or v is bool:
        return {"$py": v.__name__}
    fname = getattr(v, "__name__", None)
    if isinstance(fname, str) and not fname.startswith("_") and getattr(np, fname, None) is v:
        return {"$npf": fname}  # numpy's functions (np.max) as reduce operators
    if isinstance(v, Jit) or callable(v) and isinstance(v, (types.FunctionType, types.MethodType,
                                                          types.BuiltinFunctionType)) or isinstance(v, type):
        if isinstance(v, types.BuiltinFunctionType) and getattr(np, v.__name__, None) is v:
            return {"$npf": v.__name__}
        return {"$cb": _conn.callback_id(v)}
    raise TypeError(f"a {type(v).__name__} cannot be passed to an NKI call")


_PROXIES = weakref.WeakValueDictionary()  # handle -> its proxy while one lives: one object, one proxy


def _proxy(h: int, cls, *extra):
    p = _PROXIES.get(h)
    if p is None:
        p = _PROXIES[h] = cls(h, *extra)
    return p


def decode(v, depth=0):
    if depth > wire.MAX_DEPTH:
        raise wire.WireError("a value nested too deeply")
    if not isinstance(v, (dict, list)):
        return v
    if isinstance(v, list):
        raise wire.WireError("an untagged list")
    if len(v) != 1:
        raise wire.WireError("a tagged value has one key")
    (tag, x), = v.items()
    if tag == "$h":
        return _proxy(int(x), Remote)
    if tag == "$m":
        return _proxy(int(x[0]), RemoteModule, str(x[1]))
    if tag == "$t":
        return tuple(decode(e, depth + 1) for e in x)
    if tag == "$l":
        return [decode(e, depth + 1) for e in x]
    if tag == "$d":
        return {decode(k, depth + 1): decode(e, depth + 1) for k, e in x}
    if tag == "$s":
        return slice(*(decode(e, depth + 1) for e in x))
    if tag == "$e":
        return Ellipsis
    if tag == "$f":
        return wire.float_of(x)
    if tag == "$np":
        return np.dtype(x).type
    if tag == "$npf":
        return getattr(np, str(x))
    if tag == "$cb":
        return _conn.callbacks[int(x)]  # one of the kernel's functions, handed back (a decorator's result)
    if tag == "$py":
        return {"int": int, "float": float, "bool": bool}[x]
    if tag == "$nps":
        return np.dtype(x[0]).type(decode(x[1], depth + 1))
    if tag == "$a":
        return wire.array_of(x)
    raise wire.WireError(f"unknown tag {tag!r}")


# --- the connection -------------------------------------------------------------------------------------------

class Connection:
    def __init__(self, chan: wire.Channel, filename: str):
        self.chan = chan
        self.filename = filename
        self.released = []
        self.callbacks = []
        self.callback_ids = {}

    def callback_id(self, fn) -> int:
        key = id(fn)
        if key not in self.callback_ids:
            self.callback_ids[key] = len(self.callbacks)
            self.callbacks.append(fn)
        return self.callback_ids[key]

    def line(self) -> int:
        """The kernel line that made the request: the innermost frame of the kernel's file."""
        f = sys._getframe(2)
        while f is not None:
            if f.f_code.co_filename == self.filename:
                return f.f_lineno
            f = f.f_back
        return 0

    def send(self, msg: dict):
        if self.released:
            msg["rel"], self.released = self.released, []
        self.chan.send(msg)

    def request(self, op: str, **fields):
        fields["op"] = op
        fields["line"] = self.line()
        self.send(fields)
        return self.wait()

    def op(self, name: str, *args):
        return self.request("op", name=name, args=encode(args))

    def wait(self):
        while True:
            m = self.chan.recv()
            if m is None:
                raise ServerGone()
            if "ok" in m:
                return decode(m["ok"])
            if "err" in m:
                raise _error(m["err"])
            kind = m.get("op")
            if kind == "callback":
                self.run_callback(m)
            elif kind == "done":
                raise Done()
            else:
                raise wire.WireError(f"unexpected message {kind!r}")

    def run_callback(self, m: dict):
        try:
            fn = self.callbacks[int(m["id"])]
            args = decode(m.get("args") or {"$t": []})
            kwargs = decode(m.get("kwargs") or {"$d": []})
            result = fn(*args, **kwargs)
            value = encode(result)
        except (Done, ServerGone):
            raise
        except RemoteError as e:
            self.send({"op": "raise", "token": e.token, "type": type(e).__name__, "message": str(e),
                       "line": _line_of(e, self.filename)})
            return
        except Exception as e:  # noqa: BLE001 - the kernel's code raised: the server decides what it means
            self.send({"op": "raise", "token": getattr(e, "token", None), "type": type(e).__name__,
                       "message": str(e)[:4000], "line": _line_of(e, self.filename)})
            return
        self.send({"op": "return", "value": value})
        del result  # only now: its handle's release must not travel ahead of the value that names it

    def serve(self):
        """Answer the server's callbacks until it says it is done."""
        try:
            self.wait()
        except (Done, ServerGone, BrokenPipeError):
            pass


def _line_of(e: BaseException, filename: str) -> int:
    tb, line = e.__traceback__, 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _shape_of(fn) -> dict:
    """What the server needs of the kernel function to call it as nkisim calls a kernel: its parameters (names,
    kinds, whether they have defaults), its first line and its last `return` line (for nkisim's messages)."""
    import dis
    import inspect
    try:
        params = [[p.name, int(p.kind), p.default is not inspect.Parameter.empty]
                  for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        params = None
    code = getattr(fn, "__code__", None)
    returns = [i.positions.lineno for i in dis.get_instructions(code)
               if i.opname in ("RETURN_VALUE", "RETURN_CONST") and i.positions and i.positions.lineno] \
        if code is not None else []
    return {"params": params, "first_line": code.co_firstlineno if code else 0,
            "return_line": max(returns) if returns else (code.co_firstlineno if code else 0)}


def _kernel_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level > 0:
        raise ImportError(f"attempted relative import ({'.' * level}{name}): a kernel given as text has no folder "
                          "to resolve relative imports in", name=name)
    if name in ("nki", "neuronxcc") or name.startswith(("nki.", "neuronxcc.")):
        return _conn.request("import", name=name, fromlist=encode(tuple(fromlist or ())))
    return builtins.__import__(name, globals, locals, fromlist, level)


def run(rfd: int, wfd: int, source: str, filename: str = "<kernel>") -> None:
    """Connect, load the kernel the server names, and answer its calls until it is done. Failures while loading
    are the server's to report: it is told what happened, never asked to believe a result."""
    global _conn
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a server that went away is an error here, not a kill
    _conn = Connection(wire.Channel(rfd, wfd), filename)
    try:
        start = _conn.chan.recv()
        if start is None or start.get("op") != "load":
            return
        mod = types.ModuleType("nki_kernel")
        ns = mod.__dict__
        ns["__file__"] = filename
        b = dict(builtins.__dict__)
        b["__import__"] = _kernel_import
        ns["__builtins__"] = b
        sys.modules[mod.__name__] = mod  # @dataclass looks its class's module up there
        try:
            ns["range"] = _conn.request("range")
            exec(compile(source, filename, "exec"), ns)  # noqa: S102 - this process exists to run the kernel
            name = str(start.get("function"))
            fn = ns.get(name)
            fn = getattr(fn, "func", fn)
            if fn is None or not callable(fn):
                _conn.send({"op": "failed", "missing": "name" if fn is None else "function"})
                _conn.serve()
                return
        except (Done, ServerGone):
            return
        except Exception as e:  # noqa: BLE001 - the kernel's module code raised
            _conn.send({"op": "failed", "token": getattr(e, "token", None), "type": type(e).__name__,
                        "message": str(e)[:4000], "line": _line_of(e, filename)})
            _conn.serve()
            return
        _conn.send({"op": "ready", "fn": _conn.callback_id(fn), **_shape_of(fn)})
        _conn.serve()
    finally:
        _conn.chan.close()
