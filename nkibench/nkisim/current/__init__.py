"""The current NKI API (the `nki` namespace of the NKI compiler, Neuron SDK 2.27 on) over nkisim's engine.

Kernel modules that `import nki` (or nki.language / nki.isa / nki.typing) get this package (importer.py); host code
gets it under nkisim.activate(). Classic-only helpers (nki.baremetal, nki.benchmark, nki.profile,
nki.simulate_kernel) are refused with the name of their replacement."""
from __future__ import annotations

from .. import typing  # noqa: F401  (nki.typing: nt.tensor[shape] annotations, unchanged)
from . import isa, language  # noqa: F401
from .generation import CURRENT as GENERATION  # noqa: F401

_API = ("Kernel", "jit", "simulate")  # from .api on first use: nkisim.api imports run, which imports this package

_CLASSIC_ONLY = {
    "baremetal": "nki.baremetal is classic NKI: call the @nki.jit kernel, or nki.simulate(kernel)(*args) on CPU",
    "benchmark": "nki.benchmark is classic NKI: profile with Neuron Explorer (nkisim: accelopt run / the runner)",
    "profile": "nki.profile is classic NKI: profile with Neuron Explorer (nkisim: accelopt run / the runner)",
    "simulate_kernel": "nki.simulate_kernel(kernel, *args) is classic NKI: write nki.simulate(kernel)(*args)",
    "compiler": "nki.compiler is classic NKI (direct allocation moved to nl.ndarray(..., address=...))",
}


def __getattr__(name):
    if name in _API:
        from . import api
        return getattr(api, name)
    if name in _CLASSIC_ONLY:
        raise AttributeError(f"current NKI (nki.*): {_CLASSIC_ONLY[name]}")
    raise AttributeError(f"module 'nki' has no attribute {name!r} (current NKI (nki.*); nkisim)")
