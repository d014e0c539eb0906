"""Which NKI generation a kernel is written against, and the errors that name it.

A kernel's imports decide: `neuronxcc.nki*` is classic NKI (Neuron SDK <= 2.27), `nki` / `nki.*` is current NKI
(the namespace of the NKI compiler, SDK 2.27 on). The two are different languages (ISA calls return results in
one and write an explicit dst in the other, index arrays and masks exist only in the classic one), so a kernel
that mixes them is refused at the import that mixes, rather than failing later on whichever call disagrees."""
from __future__ import annotations

import dis
import types

from .. import errors
from ..context import kernel_line

CLASSIC, CURRENT = "classic", "current"
LABEL = {CLASSIC: "classic NKI (neuronxcc.nki)", CURRENT: "current NKI (nki.*)"}
MARK = "__nkisim_generation__"  # in a kernel module's globals: (generation, the import that set it)


def of_module_name(name: str):
    if name == "neuronxcc" or name.startswith("neuronxcc."):
        return CLASSIC
    if name == "nki" or name.startswith("nki."):
        return CURRENT
    return None


def cerr(rule: str, code: str = "", line: int | None = None) -> errors.NkiCompileError:
    """A compile error of a current-API kernel: says which generation's rule it broke."""
    return errors.NkiCompileError(f"{LABEL[CURRENT]}: {rule}", kernel_line() if line is None else line, code)


def mixed(first, second) -> errors.NkiCompileError:
    (g1, n1), (g2, n2) = first, second
    return errors.NkiCompileError(
        f"the kernel mixes NKI generations: it imports {n1} ({LABEL[g1]}) and {n2} ({LABEL[g2]}). One kernel is "
        f"written against one generation: the nki.* namespace replaced neuronxcc.nki (Neuron SDK 2.27; from 2.30 "
        f"neuronxcc.nki inside a kernel is a compile error), and their APIs differ (ISA calls take dst=, no "
        f"nl.arange/masks). Port the kernel wholly to one of them", kernel_line(), "err_mixed_nki_generations")


def note_import(module_globals, name: str) -> None:
    """Record a kernel module's import of an NKI namespace; raise if it contradicts an earlier one."""
    gen = of_module_name(name)
    if gen is None or not isinstance(module_globals, dict):
        return
    prev = module_globals.get(MARK)
    if prev is None:
        module_globals[MARK] = (gen, name)
    elif prev[0] != gen:
        raise mixed(prev, (gen, name))


def _imports_in(code, seen):
    for ins in dis.get_instructions(code):
        if ins.opname == "IMPORT_NAME" and isinstance(ins.argval, str):
            gen = of_module_name(ins.argval)
            if gen is not None:
                seen.setdefault(gen, ins.argval)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _imports_in(c, seen)


def _module_generation(value):
    """The generation of an nkisim front-end module (or the Kernel/op objects it hands out), else None."""
    mod = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
    if not isinstance(mod, str) or not mod.startswith("nkisim"):
        return None
    if mod.startswith("nkisim.current"):
        return CURRENT
    return CLASSIC if isinstance(value, types.ModuleType) else None


def detect(fn):
    """CURRENT, CLASSIC or None (no NKI import seen) for a kernel function: from the import record of the module it
    was loaded from, the NKI modules bound in its globals, and the imports inside its body (generated kernels import
    inside the function, where nothing is known until it runs)."""
    seen = {}
    g = getattr(fn, "__globals__", None) or {}
    mark = g.get(MARK)
    if mark:
        seen[mark[0]] = mark[1]
    code = getattr(fn, "__code__", None)
    if code is not None:
        _imports_in(code, seen)
        for name in code.co_names:
            v = g.get(name)
            gen = _module_generation(v) if v is not None else None
            if gen is not None:
                seen.setdefault(gen, f"{getattr(v, '__name__', name)} (bound to '{name}')")
    if len(seen) > 1:
        raise mixed((CLASSIC, seen[CLASSIC]), (CURRENT, seen[CURRENT]))
    return next(iter(seen), None)
