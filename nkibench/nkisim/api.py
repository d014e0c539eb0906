"""The top-level `nki` drop-in: jit and its modes, baremetal, benchmark, profile, simulate_kernel.

A decorated kernel is a Kernel object: call it with numpy arrays to run it (numeric), with nt.tensor placeholders to
trace it without data, or index it with a grid (`kernel[2, 3](...)`) to launch SPMD instances one after another.
Called from inside another running kernel it is simply inlined, as the compiler does."""
from __future__ import annotations

import json
import os

from . import context
from .run import DEFAULT_TARGET, run_kernel
from .typing import TensorSpec

MODES = ("auto", "trace", "baremetal", "benchmark", "simulation", "jax", "torchxla", "profile")


class _Latency:
    def __init__(self, us):
        self._us = us

    def get_latency_percentile(self, p=50):
        return self._us


class BenchmarkResult:
    def __init__(self, latency_us, estimate=None):
        self.nc_latency = _Latency(latency_us)
        self.estimate = estimate


def _estimate(res):
    from .perf import estimate
    return estimate(res.trace, res.target)


class Kernel:
    def __init__(self, func, mode="auto", grid=None, target=None, **options):
        if mode not in MODES:
            raise ValueError(f"unknown nki.jit mode {mode!r} (expected one of {', '.join(MODES)})")
        self.func = func
        self.mode = mode
        self.grid = grid
        self.target = target
        self.options = options
        self.last_result = None
        self.benchmark_result = None
        self.profile_result = None
        self.__name__ = getattr(func, "__name__", "kernel")
        self.__doc__ = getattr(func, "__doc__", None)
        self.__wrapped__ = func

    def __getitem__(self, grid):
        return Kernel(self.func, self.mode, grid, self.target, **self.options)

    def __call__(self, *args, **kwargs):
        if context.active() is not None:
            return self.func(*args, **kwargs)
        numeric = not any(isinstance(a, TensorSpec) for a in args) and self.mode not in ("benchmark", "profile")
        target = self.target or DEFAULT_TARGET
        res = run_kernel(self.func, list(args), target=target, numeric=numeric, grid=self.grid, kwargs=kwargs,
                         raise_errors=True, generation=getattr(self, "generation", None))
        self.last_result = res
        if self.mode == "benchmark":
            est = _estimate(res)
            self.benchmark_result = BenchmarkResult(est.latency_us, est)
            print(f"NCLatency: p50 = {est.latency_us:.1f}us (nkisim estimate, {target})")
        elif self.mode == "profile":
            est = _estimate(res)
            self.profile_result = est
            wd = self.options.get("working_directory")
            if wd:
                os.makedirs(wd, exist_ok=True)
                with open(os.path.join(wd, "profile_summary.json"), "w") as f:
                    json.dump({"summary": [dict(est.metrics, total_time=est.latency_ns * 1e-9)]}, f, default=str)
        outs = res.outputs
        if res.style != "return":
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)


def _decorator(mode, func, options):
    if func is None:
        return lambda f: Kernel(f, mode, **options)
    return Kernel(getattr(func, "func", func), mode, **options)


def jit(func=None, mode="auto", **options):
    return _decorator(mode, func, options)


def baremetal(kernel=None, **options):
    return _decorator("baremetal", kernel, options)


def benchmark(kernel=None, warmup=10, iters=100, **options):
    return _decorator("benchmark", kernel, options)


def profile(func=None, working_directory=None, **options):
    options["working_directory"] = working_directory
    return _decorator("profile", func, options)


def simulate_kernel(kernel, *args, **kwargs):
    k = kernel if isinstance(kernel, Kernel) else Kernel(kernel, "simulation")
    return Kernel(k.func, "simulation", k.grid)(*args, **kwargs)


def simulate(kernel):
    """New-API style `nki.simulate(kernel)(*args)`."""
    k = kernel if isinstance(kernel, Kernel) else Kernel(kernel, "simulation")
    return Kernel(k.func, "simulation", k.grid)
