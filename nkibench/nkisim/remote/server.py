"""The trusted side of nkisim's remote front end: runs every NKI call a kernel's process asks for, in nkisim.

Every object stays here; the kernel's process gets handles to the NKI API (its modules, functions, tiles, loop
iterators, dtypes) and plain values (ints, shapes, integer index arrays, strings), never a tensor's data and never
nkisim's own machinery: an attribute is served only on an NKI module or an NKI object, never when its name starts
with "_" or names an internal (a tile's allocation, its raw read and write), and a value outside that surface is
refused. The outputs and the instruction trace come from this process, so they are one stream.

Use: Server(chan, source, function, filename).kernel() is a function for nkisim.run_kernel whose calls run the
kernel's function in the kernel's process; close() ends the conversation.
"""
from __future__ import annotations

import ast
import inspect
import operator
import os
import types

import numpy as np

from .. import context, errors, importer
from ..current import generation
from . import wire

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Where the NKI API's functions and types are defined; functions from elsewhere in nkisim are its machinery.
API_CODE = frozenset({"nkisim.language", "nkisim.isa", "nkisim.typing", "nkisim.compiler", "nkisim.constants",
                      "nkisim.dtypes", "nkisim.tensor", "nkisim.current.language", "nkisim.current.isa",
                      "nkisim.current.tensor"})
# Names in those modules that are machinery all the same.
INTERNAL_NAMES = frozenset({"new_alloc", "cached_arange", "adopt", "cerr", "tile_arg", "run_op",
                            "current", "active", "kernel_line", "dim_box", "whole", "Alloc", "Access"})
# A tile's own bookkeeping: its allocation, raw reads and writes that would bypass the instruction stream.
TILE_INTERNALS = frozenset({"access", "alloc", "box", "contiguous_elems", "inner", "key", "np_key", "read",
                            "restrict", "write", "as_partition_vector"})
NUMPY_FUNCS = frozenset({"max", "min", "sum", "prod", "mean", "amax", "amin", "all", "any", "ndarray"})
ITERATORS = (type(iter(())), type(iter([])), type(iter(range(0))))

OPS = {
    **{n: getattr(operator, n) for n in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                                        "lshift", "rshift", "neg", "pos", "abs", "invert", "lt", "le", "eq",
                                        "ne", "gt", "ge", "getitem", "setitem", "delitem", "contains", "index",
                                        "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow",
                                        "imatmul", "ilshift", "irshift")},
    "and": operator.and_, "or": operator.or_, "xor": operator.xor, "iand": operator.iand, "ior": operator.ior,
    "ixor": operator.ixor, "bool": bool, "len": len, "hash": hash, "int": int, "float": float, "str": str,
    "repr": repr, "format": format, "next": next,
}
MAX_ARRAY_ELEMS = 1 << 22


def _tile_types() -> tuple:
    """The tensor types whose bookkeeping (allocation, raw reads and writes) stays here."""
    from ..current.tensor import NkiTensor
    from ..tensor import MaskedOperand, Tile
    return Tile, MaskedOperand, NkiTensor


class PolicyError(TypeError):
    """A request for something outside the NKI API."""


class KernelProcessEnded(errors.NkiRuntimeError):
    """The kernel's process closed the connection while the server waited for it."""


def api_modules() -> dict:
    mods = {**importer._names(), **importer._current_names(), "neuronxcc": importer._neuronxcc()}
    return mods


def _signature(params) -> inspect.Signature:
    """The kernel function's parameters as its process reports them (they decide only how its arguments are
    matched, as nkisim matches a kernel's; a wrong report is the kernel's own argument error)."""
    P = inspect.Parameter
    if not isinstance(params, list) or len(params) > 256:
        raise wire.WireError("malformed parameters")
    out = []
    for p in params:
        if not (isinstance(p, list) and len(p) == 3 and isinstance(p[0], str) and p[0].isidentifier()
                and isinstance(p[1], int) and 0 <= p[1] <= 4 and isinstance(p[2], bool)):
            raise wire.WireError("malformed parameter")
        kind = (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD, P.VAR_POSITIONAL, P.KEYWORD_ONLY, P.VAR_KEYWORD)[p[1]]
        out.append(P(p[0], kind, default=None if p[2] else P.empty))
    try:
        return inspect.Signature(out)
    except ValueError as e:
        raise wire.WireError(f"malformed parameters: {e}") from None


def _line(v) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0


def generation_of(source: str, filename: str):
    """The NKI generation of a kernel from its import statements (nothing of it runs here); a kernel that imports
    both is refused at the later import, as nkisim refuses it where the kernel runs."""
    tree = ast.parse(compile(source, filename, "exec", ast.PyCF_ONLY_AST))
    first = None
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))),
                       key=lambda n: (n.lineno, n.col_offset)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            ([node.module] if node.module and not node.level else [])
        for name in names:
            gen = generation.of_module_name(name)
            if gen is None:
                continue
            if first is None:
                first = (gen, name)
            elif first[0] != gen:
                context.LINE[0] = node.lineno
                try:
                    raise generation.mixed(first, (gen, name))
                finally:
                    context.LINE[0] = None
    return first[0] if first else None


class Server:
    def __init__(self, chan: wire.Channel, filename: str):
        self.chan = chan
        self.filename = filename
        self.objs = {}
        self.next_handle = 1
        self.pinned_handles = set()
        self.tokens = {}  # token -> the NkiError raised for a request, for when the kernel lets it through
        self.import_globals = {}
        self.modules = api_modules()
        self.module_names = {}
        for name, mod in self.modules.items():
            self.module_names.setdefault(id(mod), name)
        # The API's own objects (its modules and what they hold: functions, classes, dtypes, buffers) keep one
        # handle each, so `x.dtype is nl.float32` and `a.local_tile is b.local_tile` hold as they do in nkisim.
        self.pinned = {}
        for mod in self.modules.values():
            self.pinned.setdefault(id(mod), None)
            for k, v in vars(mod).items():
                if not k.startswith("_") and not isinstance(v, (int, float, str, bool, type(None))):
                    self.pinned.setdefault(id(v), None)
        self.stubs = {}  # callback id -> its stub, so one of the kernel's functions is one object here
        from .. import language
        self.python_range = language.python_range

    # --- the kernel's function --------------------------------------------------------------------------------
    def load(self, function: str):
        """Have the kernel's process load the kernel and return a function that runs it there."""
        self.chan.send({"op": "load", "function": function})
        try:
            m = self.wait(("ready", "failed"))
        finally:
            context.LINE[0] = None
        if m["op"] == "failed":
            if m.get("missing") == "name":
                raise errors.KernelLoadError(f"the source defines no function named '{function}'", 0,
                                             filename=self.filename)
            if m.get("missing") == "function":
                raise errors.KernelLoadError(f"'{function}' is not a function", 0, filename=self.filename)
            raise self._raised(m, load=True)
        cb = m.get("fn")
        try:
            if not isinstance(cb, int) or isinstance(cb, bool):
                raise wire.WireError("'ready' names no function")
            signature = _signature(m.get("params"))
        except wire.WireError as e:
            raise errors.NkiRuntimeError(f"the kernel's process broke the protocol of nkisim's remote front end: "
                                         f"{e}", 0) from None
        fn = self._stub(cb)
        fn.__signature__ = signature
        fn.__name__ = function
        fn.nkisim_return_line = _line(m.get("return_line"))
        fn.nkisim_first_line = _line(m.get("first_line"))
        return fn

    def close(self):
        try:
            self.chan.send({"op": "done"})
        except OSError:
            pass
        self.chan.close()
        self.objs.clear()

    def _stub(self, cb: int):
        if cb in self.stubs:
            return self.stubs[cb]
        server = self

        def kernel_function(*args, **kwargs):
            return server.call_back(cb, args, kwargs)
        kernel_function.nkisim_callback = cb  # handed back as the kernel's own function (a decorator's result)
        self.stubs[cb] = kernel_function
        return kernel_function

    def call_back(self, cb: int, args, kwargs):
        saved = context.LINE[0]
        self.chan.send({"op": "callback", "id": cb, "args": self.export(tuple(args)),
                        "kwargs": self.export(dict(kwargs))})
        try:
            m = self.wait(("return", "raise"))
        finally:
            context.LINE[0] = saved  # the line of the request that made this call, or none at the top
        if m["op"] == "raise":
            raise self._raised(m)
        try:
            return self.decode(m.get("value"))
        except wire.WireError as e:
            raise errors.NkiRuntimeError(f"the kernel's process returned what is not a value: {e}",
                                         context.LINE[0] or 0) from None

    def _raised(self, m: dict, load: bool = False) -> errors.NkiError:
        token = m.get("token")
        if isinstance(token, int) and token in self.tokens:
            return self.tokens[token]  # nkisim's own error for one of the kernel's calls, as nkisim raised it
        kind, message = str(m.get("type", "Exception"))[:100], str(m.get("message", ""))[:4000]
        line = m.get("line") if isinstance(m.get("line"), int) and not isinstance(m.get("line"), bool) else 0
        if load:
            return errors.KernelLoadError(f"the kernel module raised {kind}: {message}", line,
                                          filename=self.filename)
        return errors.KernelException(f"{kind}: {message}", line, None, self.filename)

    # --- serving ----------------------------------------------------------------------------------------------
    def wait(self, kinds):
        """Serve the kernel's requests until a message of one of kinds arrives."""
        try:
            return self._serve(kinds)
        except wire.WireError as e:  # the kernel's process is the kernel's: what it sends is its failure
            raise errors.NkiRuntimeError(f"the kernel's process broke the protocol of nkisim's remote front end: "
                                         f"{e}", context.LINE[0] or 0) from None

    def _serve(self, kinds):
        while True:
            m = self.chan.recv()
            if m is None:
                raise KernelProcessEnded("the kernel's process ended before the kernel returned (it exited, "
                                         "crashed or was killed)", context.LINE[0] or 0)
            rel = m.get("rel")
            if isinstance(rel, list):
                for h in rel:
                    if isinstance(h, int) and h not in self.pinned_handles:
                        self.objs.pop(h, None)
            op = m.get("op")
            if op in kinds:
                return m
            line = m.get("line")
            context.LINE[0] = line if isinstance(line, int) and not isinstance(line, bool) and line >= 0 else None
            try:
                reply = {"ok": self.handle(op, m)}
            except errors.NkiError as e:
                token = len(self.tokens) + 1
                self.tokens[token] = e
                reply = {"err": {"kind": "nki", "type": type(e).__name__, "message": str(e), "token": token}}
            except wire.WireError:
                raise
            except (MemoryError, RecursionError):
                raise
            except Exception as e:  # noqa: BLE001 - nkisim refused the request's arguments: the kernel's error
                reply = {"err": {"kind": "py", "type": type(e).__name__, "message": str(e)[:4000]}}
            self.chan.send(reply)

    def handle(self, op, m):
        """The request's answer, as it crosses (export)."""
        if op == "getattr":
            obj, name = self.decode(m.get("obj")), m.get("name")
            value = self.getattr(obj, name)
            try:
                return self.export(value)
            except PolicyError as e:
                raise AttributeError(f"'{name}' is not part of the NKI API here ({e})") from None
        return self.export(self.run(op, m))

    def run(self, op, m):
        if op == "import":
            name = m.get("name")
            if not isinstance(name, str):
                raise wire.WireError("'import' without a name")
            fromlist = self.decode(m.get("fromlist"))
            return importer._kernel_import(name, self.import_globals, None, tuple(fromlist or ()), 0)
        if op == "range":
            return self.python_range
        if op == "call":
            fn = self.decode(m.get("obj"))
            if not callable(fn):
                raise TypeError(f"'{type(fn).__name__}' object is not callable")
            args = self.decode(m.get("args"))
            kwargs = self.decode(m.get("kwargs"))
            if not isinstance(args, tuple) or not isinstance(kwargs, dict) or \
                    not all(isinstance(k, str) for k in kwargs):
                raise wire.WireError("malformed call")
            return fn(*args, **kwargs)
        if op == "op":
            return self.operate(m.get("name"), self.decode(m.get("args")))
        raise wire.WireError(f"unknown request {op!r}")

    def getattr(self, obj, name):
        if not isinstance(name, str) or name.startswith("_") or name in INTERNAL_NAMES:
            raise AttributeError(f"NKI objects have no attribute '{name}' here")
        if not (self._is_api_module(obj) or self._is_api_instance(obj) or self._is_api_class(obj)):
            raise AttributeError(f"'{type(obj).__name__}' attributes are not part of the NKI API")
        if name in TILE_INTERNALS and isinstance(obj, _tile_types()):
            raise AttributeError(f"'{name}' is nkisim's own bookkeeping of a tile, not part of the NKI API")
        return getattr(obj, name)

    def operate(self, name, args):
        if not isinstance(args, tuple) or not args:
            raise wire.WireError("malformed operator request")
        if name == "iter":
            obj = args[0]
            if type(obj) in (tuple, list) or (isinstance(obj, (tuple, list)) and self._is_api_instance(obj)):
                return list(obj)
            return iter(obj)
        if name == "isinstance":
            if len(args) != 2 or not self._is_api_class(args[1]):
                raise TypeError("isinstance() arg 2 must be a class of the NKI API here")
            return isinstance(args[0], args[1])
        if name in ("enter", "exit"):
            obj = args[0]
            if not self._is_api_instance(obj):
                raise TypeError(f"'{type(obj).__name__}' is not a context manager of the NKI API")
            if name == "enter":
                return obj.__enter__()
            return obj.__exit__(*((Exception, Exception(), None) if args[1:2] == (True,) else (None, None, None)))
        fn = OPS.get(name)
        if fn is None:
            raise wire.WireError(f"unknown operator {name!r}")
        if fn is next and not isinstance(args[0], (types.GeneratorType,) + ITERATORS):
            raise TypeError(f"'{type(args[0]).__name__}' object is not an iterator")
        return fn(*args)

    # --- what may cross -------------------------------------------------------------------------------------------
    def _is_api_module(self, v) -> bool:
        return isinstance(v, types.ModuleType) and id(v) in self.module_names

    def _is_api_instance(self, v) -> bool:
        t = type(v)
        return t.__module__ in API_CODE and t.__name__ not in INTERNAL_NAMES and not isinstance(v, type)

    @staticmethod
    def _is_api_class(v) -> bool:
        return isinstance(v, type) and v.__module__ in API_CODE and v.__name__ not in INTERNAL_NAMES

    def _is_api_callable(self, v) -> bool:
        if isinstance(v, types.MethodType):
            return self._is_api_instance(v.__self__) and not (
                v.__name__ in TILE_INTERNALS and isinstance(v.__self__, _tile_types()))
        if isinstance(v, (types.FunctionType, type)):
            # Tile.write reached through the class is the same raw write as through a tile
            return getattr(v, "__module__", None) in API_CODE and v.__name__ not in INTERNAL_NAMES | TILE_INTERNALS
        return False

    def _handle(self, v) -> dict:
        pin = id(v) in self.pinned
        if pin and self.pinned[id(v)] is not None:
            return {"$h": self.pinned[id(v)]}
        h = self.next_handle
        self.next_handle += 1
        self.objs[h] = v
        if pin:
            self.pinned[id(v)] = h
            self.pinned_handles.add(h)
        return {"$h": h}

    def export(self, v, depth=0):
        if depth > wire.MAX_DEPTH:
            raise PolicyError("a value nested too deeply to hand over")
        if v is None or isinstance(v, (bool, str)):
            return v
        if type(v) is int:
            return v
        if type(v) is float:
            return wire.float_value(v)
        tagged = wire.compound(v, lambda x: self.export(x, depth + 1), exact=True)
        if tagged is None:
            tagged = wire.numpy_scalar(v)
        if tagged is not None:
            return tagged
        if isinstance(v, np.ndarray):
            # Index expressions (nl.arange, nl.mgrid and arithmetic on them) are integer arrays; a tensor's data
            # never comes out of a call, and no float array crosses at all.
            if v.dtype.kind not in "biu" or v.size > MAX_ARRAY_ELEMS:
                raise PolicyError("nkisim's remote front end hands out no array data")
            return wire.array_value(v)
        if v is int or v is float or v is bool:
            return {"$py": v.__name__}
        if v is np.ndarray:
            return {"$npf": "ndarray"}
        name = wire.numpy_type_name(v)
        if name is not None:
            return {"$np": name}
        if isinstance(v, np.ufunc) and getattr(np, v.__name__, None) is v:
            return {"$npf": v.__name__}
        if isinstance(v, types.ModuleType):
            if id(v) in self.module_names:
                h = self._handle(v)["$h"]
                return {"$m": [h, self.module_names[id(v)]]}
            if v.__name__.startswith("nkisim."):
                # nkisim's own submodules are names in its namespace, and kernels import some unused (`from
                # neuronxcc.nki import trace`): a handle that serves nothing (no attribute, no call)
                return self._handle(v)
            raise PolicyError(f"module '{v.__name__}' is not part of the NKI API")
        if isinstance(v, types.FunctionType) and self.stubs.get(getattr(v, "nkisim_callback", None)) is v:
            return {"$cb": v.nkisim_callback}
        if isinstance(v, types.GeneratorType):
            if os.path.abspath(v.gi_code.co_filename).startswith(_PKG):
                return self._handle(v)
            raise PolicyError("a generator outside the NKI API")
        if isinstance(v, ITERATORS) or self._is_api_callable(v) or self._is_api_instance(v):
            return self._handle(v)
        raise PolicyError(f"a {type(v).__name__} is not part of the NKI API")

    def decode(self, v, depth=0):
        if depth > wire.MAX_DEPTH:
            raise wire.WireError("a value nested too deeply")
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if not isinstance(v, dict) or len(v) != 1:
            raise wire.WireError("an untagged compound value")
        (tag, x), = v.items()
        if tag == "$h":
            try:
                return self.objs[x]
            except (KeyError, TypeError):
                raise wire.WireError(f"unknown handle {x!r}") from None
        if tag in ("$t", "$l", "$d", "$s") and not isinstance(x, list):
            raise wire.WireError(f"malformed {tag}")
        if tag == "$t":
            return tuple(self.decode(e, depth + 1) for e in x)
        if tag == "$l":
            return [self.decode(e, depth + 1) for e in x]
        if tag == "$d":
            out = {}
            for pair in x:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise wire.WireError("malformed $d")
                k = self.decode(pair[0], depth + 1)
                if not isinstance(k, (str, int, float, bool, tuple, type(None))):
                    raise wire.WireError("a dict key must be a plain value")
                out[k] = self.decode(pair[1], depth + 1)
            return out
        if tag == "$s":
            if len(x) != 3:
                raise wire.WireError("malformed $s")
            return slice(*(self.decode(e, depth + 1) for e in x))
        if tag == "$e":
            return Ellipsis
        if tag == "$f":
            return wire.float_of(x)
        if tag == "$py":
            try:
                return {"int": int, "float": float, "bool": bool}[x]
            except (KeyError, TypeError):
                raise wire.WireError(f"unknown type {x!r}") from None
        if tag == "$np":
            return self._numpy_type(x)
        if tag == "$nps":
            if not isinstance(x, list) or len(x) != 2:
                raise wire.WireError("malformed $nps")
            value = self.decode(x[1], depth + 1)
            if not isinstance(value, (bool, int, float)):
                raise wire.WireError("malformed $nps")
            return self._numpy_type(x[0])(value)
        if tag == "$npf":
            f = getattr(np, x, None) if isinstance(x, str) and not x.startswith("_") else None
            if isinstance(f, np.ufunc) or (x in NUMPY_FUNCS and f is not None):
                return f
            raise wire.WireError(f"numpy.{x} cannot be passed to an NKI call")
        if tag == "$a":
            return wire.array_of(x)
        if tag == "$cb":
            if not isinstance(x, int) or isinstance(x, bool):
                raise wire.WireError("malformed $cb")
            return self._stub(x)
        raise wire.WireError(f"unknown tag {tag!r}")

    @staticmethod
    def _numpy_type(name):
        try:
            dt = np.dtype(name) if isinstance(name, str) else None
        except TypeError:
            dt = None
        if dt is None or dt.kind not in "biufc":
            raise wire.WireError(f"unknown numpy type {name!r}")
        return dt.type

