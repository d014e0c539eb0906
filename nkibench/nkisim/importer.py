"""Make `neuronxcc.nki` (and its submodules) resolve to nkisim, and `nki` (and its submodules) to nkisim's current-API
front end (nkisim.current), so Neuron SDK kernels of either generation run unchanged.

Two ways, for two kinds of caller:
- kernel_builtins(): the builtins a kernel module runs with. Its `__import__` resolves neuronxcc.nki* to nkisim at
  any time: at the module's top level, inside the kernel's body, in nested helpers, at call time. Generated kernels
  (the original NKIBench's among them) import neuronxcc.nki again inside the function, which the compiler accepts;
  a redirection that lives only while the module loads made them fail with ModuleNotFoundError. It touches no
  global state, so a kernel on a Neuron host's interpreter still sees the real SDK everywhere else.
- activate()/deactivate(): the redirection in sys.modules, for host code (tests, scripts) that imports
  neuronxcc.nki or nki itself. Outside activate() a real `nki` package in host code is left alone.
A kernel module's NKI imports are recorded in its globals (current/generation.py): importing both generations in one
kernel module is refused at the second import, naming the rule.
"""
from __future__ import annotations

import builtins
import os
import sys
import types

_saved = None
_package = None


def _names():
    import nkisim
    from nkisim import backends, compiler, constants, isa, language, typing
    return {"neuronxcc.nki": nkisim, "neuronxcc.nki.language": language, "neuronxcc.nki.isa": isa,
            "neuronxcc.nki.typing": typing, "neuronxcc.nki.compiler": compiler,
            "neuronxcc.nki.language.constants": constants, **backends.MODULES}


def _current_names():
    from nkisim import current
    return {"nki": current, "nki.language": current.language, "nki.isa": current.isa, "nki.typing": current.typing}


def _neuronxcc():
    """The stand-in `neuronxcc` package: a package (so `import neuronxcc.nki.x` looks up submodules in
    sys.modules while activate() is in force) whose `nki` is nkisim."""
    global _package
    if _package is None:
        pkg = types.ModuleType("neuronxcc")
        pkg.__path__ = []
        pkg.__nkisim__ = True
        pkg.nki = _names()["neuronxcc.nki"]
        _package = pkg
    return _package


def _kernel_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level > 0:
        return _relative_import(name, globals, fromlist, level)
    if level == 0 and (name == "nki" or name.startswith("nki.")):
        return _current_import(name, globals, fromlist)
    if level != 0 or not (name == "neuronxcc" or name.startswith("neuronxcc.")):
        return builtins.__import__(name, globals, locals, fromlist, level)
    from nkisim.current import generation
    generation.note_import(globals, name)
    mods = _names()
    if name != "neuronxcc" and name not in mods:
        # Deeper SDK internals (neuronxcc.starfish..., private kernels) are not part of the NKI API nkisim offers.
        raise ModuleNotFoundError(f"No module named {name!r}: nkisim provides the classic NKI API "
                                  f"({', '.join(sorted(mods))}), not other parts of the Neuron compiler",
                                  name=name)
    if fromlist:
        return _neuronxcc() if name == "neuronxcc" else mods[name]
    # `import neuronxcc.nki.language as nl` gets the top package and walks the attributes (nki, language).
    return _neuronxcc()


def _module_file(base, parts):
    path = os.path.join(base, *parts)
    for f in (path + ".py", os.path.join(path, "__init__.py")):
        if os.path.isfile(f):
            return f
    return None


def _relative_import(name, globals, fromlist, level):
    """`from .sibling import x` / `from ..pkg.mod import y` in a kernel file on disk: the module is the file at that
    place relative to the kernel's folder, run as a kernel module (its NKI imports resolve to nkisim too). Each module
    runs once per kernel load: the modules one kernel file pulls in share one cache, as sys.modules would hold them
    (packages' __init__ files are not run, only the modules named). The SDK imports a kernel file as part of its
    package, so its relative imports work there; a kernel given as text alone has no folder to resolve them in."""
    here = (globals or {}).get("__file__") or ""
    if not os.path.isfile(here):
        raise ImportError(f"attempted relative import ({'.' * level}{name}) in a kernel that is not a file on disk: "
                          "nkisim resolves relative imports against the kernel file's folder", name=name)
    base = os.path.dirname(os.path.abspath(here))
    for _ in range(level - 1):
        base = os.path.dirname(base)
    cache = globals.setdefault("__nkisim_modules__", {})
    parts = name.split(".") if name else []
    if parts:
        mod = _load_module(base, parts, cache, name, level)
        if not fromlist:
            return mod  # `from . import` forms always have a fromlist; `import .x` is not Python
        out = mod
    else:
        out = types.SimpleNamespace()  # `from . import a, b`: the names are modules of that folder
    for item in fromlist or ():
        if item == "*" or hasattr(out, item):
            continue
        if _module_file(os.path.join(base, *parts), [item]) is not None:
            setattr(out, item, _load_module(base, parts + [item], cache, ".".join(parts + [item]), level))
    return out


def _load_module(base, parts, cache, name, level):
    f = _module_file(base, parts)
    if f is None:
        raise ModuleNotFoundError(f"No module named {'.' * level}{name}: no {os.path.join(*parts)}.py beside the "
                                  f"kernel file (relative imports resolve against its folder, {base})", name=name)
    f = os.path.abspath(f)
    if f in cache:
        return cache[f]
    with open(f, encoding="utf-8") as fh:
        source = fh.read()
    mod = types.ModuleType(f"nki_kernel_module_{len(cache)}_{parts[-1]}")
    from nkisim import language
    mod.__dict__.update({"__file__": f, "__builtins__": kernel_builtins(), "__nkisim_modules__": cache,
                         "range": language.python_range})
    cache[f] = mod
    sys.modules[mod.__name__] = mod  # while its top level runs (@dataclass looks its module up there)
    try:
        exec(compile(source, f, "exec"), mod.__dict__)
    except BaseException:
        cache.pop(f, None)
        raise
    finally:
        sys.modules.pop(mod.__name__, None)
    return mod


def _current_import(name, globals, fromlist):
    from nkisim.current import generation
    mods = _current_names()
    if name not in mods:
        raise ModuleNotFoundError(f"No module named {name!r}: nkisim provides the current NKI API as "
                                  f"{', '.join(sorted(mods))} (nki.collectives and the NKI library are not simulated)",
                                  name=name)
    generation.note_import(globals, name)
    # `import nki.language as nl` gets the top package and walks its attributes; `from nki import isa` the module.
    return mods[name] if fromlist else mods["nki"]


def kernel_builtins() -> dict:
    """A fresh builtins dict for one kernel module: the real builtins with the redirecting __import__."""
    b = dict(builtins.__dict__)
    b["__import__"] = _kernel_import
    return b


def activate() -> None:
    """Install the redirection in sys.modules (idempotent)."""
    global _saved
    if _saved is not None:
        return
    mods = _names()
    mods.update(_current_names())
    keys = ["neuronxcc"] + list(mods)
    _saved = {k: sys.modules.get(k) for k in keys}
    sys.modules["neuronxcc"] = _neuronxcc()
    sys.modules.update(mods)


def deactivate() -> None:
    """Remove the redirection and restore whatever was there before."""
    global _saved
    if _saved is None:
        return
    for k, v in _saved.items():
        if v is None:
            sys.modules.pop(k, None)
        else:
            sys.modules[k] = v
    _saved = None


def is_active() -> bool:
    return _saved is not None
