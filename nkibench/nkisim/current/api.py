"""nki.jit and nki.simulate of the current API: a current kernel is the classic Kernel with its generation fixed,
so its arguments become NkiTensors and its outputs must be nl.shared_hbm tensors (run.py)."""
from __future__ import annotations

from .. import api as _api
from .generation import CURRENT


class Kernel(_api.Kernel):
    generation = CURRENT

    def __getitem__(self, grid):
        # kernel[n](...) launches n programs (the LNC degree in nki.*), run one after another as classic grids are.
        return Kernel(self.func, self.mode, grid, self.target, **self.options)


def _options(kwargs):
    if "platform_target" in kwargs:
        raise TypeError("nki.jit(platform_target=...) raises an error since NKI 0.3.0: set the target with the "
                        "NEURON_PLATFORM_TARGET_OVERRIDE environment variable (nkisim: NKISIM_TARGET)")
    kwargs.pop("mode", None)  # deprecated and ignored since NKI 0.3.0: the arguments decide the framework
    return kwargs


def jit(fn=None, **kwargs):
    opts = _options(kwargs)
    if fn is None:
        return lambda f: Kernel(getattr(f, "func", f), "auto", **opts)
    return Kernel(getattr(fn, "func", fn), "auto", getattr(fn, "grid", None), **opts)


def simulate(kernel):
    """`nki.simulate(kernel)(*args)`: run on nkisim (numerically, with the instruction trace) and return the outputs
    as numpy arrays. The SDK's simulator is functional only; nkisim also keeps the trace for its performance model
    (Kernel.last_result)."""
    if isinstance(kernel, _api.Kernel):
        return Kernel(kernel.func, "simulation", kernel.grid, kernel.target, **kernel.options)
    if not callable(kernel):
        raise TypeError(f"nki.simulate needs a kernel function, got {type(kernel).__name__}")
    return Kernel(kernel, "simulation")
