"""Make `neuronxcc.nki` (and its submodules) resolve to nkisim, so Neuron SDK kernels run unchanged."""
from __future__ import annotations

import sys
import types

_saved = None


def _names():
    import nkisim
    from nkisim import compiler, isa, language, typing
    return {"neuronxcc.nki": nkisim, "neuronxcc.nki.language": language, "neuronxcc.nki.isa": isa,
            "neuronxcc.nki.typing": typing, "neuronxcc.nki.compiler": compiler}


def activate() -> None:
    """Install the redirection (idempotent)."""
    global _saved
    if _saved is not None:
        return
    mods = _names()
    keys = ["neuronxcc"] + list(mods)
    _saved = {k: sys.modules.get(k) for k in keys}
    pkg = types.ModuleType("neuronxcc")
    pkg.__path__ = []  # a package, so `import neuronxcc.nki.x` looks up submodules in sys.modules
    pkg.__nkisim__ = True
    pkg.nki = mods["neuronxcc.nki"]
    sys.modules["neuronxcc"] = pkg
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
