"""The judge's side of a Neuron evaluation where nrtpy is installed (Neuron SDK 2.33+): the NEFF the kernel's child
compiled (kernelside.compile_neff) is run here, in a process that never imported the kernel, on every prepared case
(the outputs the verdict compares), benchmarked, and traced once for the metrics (neffmetrics.py). What the kernel
still decides is the NEFF, its instruction stream, which is what is run, checked and timed.

nrtpy's API (Neuron docs, neuron-runtime/nrtpy/model.rst): NrtpyModel.load_from_neff(path); model(inputs={name:
NrtpyTensor}) returns {name: NrtpyTensor} when no outputs are given; model.benchmark(inputs=, warmup_iter=,
benchmark_iter=, mode="device") returns mean_ms, min_ms, max_ms, std_dev_ms (no median); save_trace=True with
ntff_name writes the execution trace. Outputs may come back with a void dtype (libnrt does not always report it):
they are read with the dtype the kernel's compile run returned, when the sizes agree.
"""
from __future__ import annotations

import json
import os

import numpy as np

from . import arrays, neffmetrics, timing
from .child import KERNEL_CASES
from .evaluate import CLOCK, PHASE, EvalTimeout, KernelFailure
from .judge import CASES, case_stem, out_stem
from .kernelside import NEFF, NEFF_META

MAX_META_BYTES = 1 << 20


class NeffJudge:
    retry_pause_s = 1.0

    def __init__(self, job: dict, workdir: str):
        self.job, self.workdir = job, workdir
        self.current = (job.get("generation") or "classic") == "current"
        self.cases = os.path.join(workdir, KERNEL_CASES)
        self.neff = os.path.join(workdir, NEFF)
        self.ntff = os.path.join(workdir, "profile.ntff")
        self.warnings = list(job.get("warnings") or [])
        self.traced = False
        self.meta = self._meta()
        PHASE["now"] = "loading the compiled kernel"
        CLOCK.start("load")
        if not os.path.isfile(self.neff) or os.path.islink(self.neff):
            raise KernelFailure("runtime_error", "the kernel's compile step handed over no NEFF")
        try:
            from nrtpy import NrtpyModel, NrtpyTensor
        except Exception as e:  # noqa: BLE001 - the serving process found it; this interpreter does not
            raise KernelFailure("infra_error", f"nrtpy is not importable in the judge's process "
                                               f"({type(e).__name__}: {e}); install it in the runner's Python") from None
        self.tensor = NrtpyTensor
        try:
            self.model = NrtpyModel.load_from_neff(self.neff)
        except EvalTimeout:
            raise
        except BaseException as e:  # noqa: BLE001 - the kernel's artifact would not load
            raise KernelFailure("runtime_error", f"the compiled kernel (NEFF) could not be loaded: "
                                                 f"{type(e).__name__}: {e}") from None

    def _meta(self) -> dict:
        path = os.path.join(self.workdir, NEFF_META)
        try:
            if os.path.islink(path) or os.path.getsize(path) > MAX_META_BYTES:
                raise ValueError("not a regular file of at most 1 MiB")
            with open(path, encoding="utf-8") as f:
                meta = json.load(f)
            if not isinstance(meta, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as e:
            raise KernelFailure("runtime_error", f"the kernel's compile step handed over no readable description "
                                                 f"of its NEFF: {e}") from None
        params = meta.get("parameters")
        outs = meta.get("outputs")
        return {"parameters": [p for p in params if isinstance(p, str)] if isinstance(params, list) else [],
                "outputs": [o for o in outs if isinstance(o, dict)][:arrays.MAX_VALUES] if isinstance(outs, list)
                else [], "single": bool(meta.get("single", True))}

    def count(self) -> int:
        with open(os.path.join(self.cases, CASES), encoding="utf-8") as f:
            return int(json.load(f).get("count", 0))

    def _feeds(self, inputs) -> dict:
        """The kernel's array arguments by parameter name when the NEFF names its inputs so (as in AWS's examples),
        else in order."""
        names = list(getattr(self.model, "input_tensors_info", {}) or {})
        arrays_in = [a for a in inputs if isinstance(a, np.ndarray)]
        named = list(zip(self.meta["parameters"], arrays_in))
        if names and named and set(names) <= {n for n, _ in named}:
            feeds = [(n, a) for n, a in named if n in names]
        elif names:
            note = (f"the NEFF's inputs {names} are not named as the kernel's array parameters "
                    f"{[n for n, _ in named]}; fed in order")
            if note not in self.warnings:
                self.warnings.append(note)
            feeds = list(zip(names, arrays_in))
        else:
            feeds = named or [(f"input{i}", a) for i, a in enumerate(arrays_in)]
        return {n: self.tensor.from_numpy(np.ascontiguousarray(a), name=n) for n, a in feeds}

    def _outputs(self, got) -> list:
        if not isinstance(got, dict) or not got:
            raise KernelFailure("runtime_error", "the compiled kernel returned no outputs")
        order = [n for n in (getattr(self.model, "output_tensors_info", {}) or {}) if n in got]
        order += [n for n in got if n not in order]
        outs = []
        for i, name in enumerate(order):
            a = np.asarray(got[name].numpy())
            hint = self.meta["outputs"][i] if i < len(self.meta["outputs"]) else {}
            outs.append(_as_declared(a, hint))
        return outs

    def run_cases(self):
        """Each case through the NEFF; its outputs saved where the verdict reads the kernel's."""
        n = self.count()
        for i in range(n):
            PHASE["now"] = f"running the compiled kernel (check {i + 1} of {n})"
            CLOCK.start("kernel")
            inputs, _ = arrays.load(case_stem(self.cases, i))
            feeds = self._feeds(inputs)
            try:
                got = self.model(inputs=feeds)
            except EvalTimeout:
                raise
            except BaseException as e:  # noqa: BLE001
                raise KernelFailure("runtime_error", f"the compiled kernel failed on the device: "
                                                     f"{type(e).__name__}: {e}") from None
            outs = self._outputs(got)
            single = self.meta["single"] and len(outs) == 1
            arrays.save(out_stem(self.workdir, i), outs, single=single)

    def measure(self, inputs, warmup: int, iters: int) -> dict:
        feeds = self._feeds(inputs)
        try:
            st = self.model.benchmark(inputs=feeds, warmup_iter=int(warmup), benchmark_iter=int(iters),
                                      mode="device")
            lat = {"mean": float(st.mean_ms), "min": float(st.min_ms), "max": float(st.max_ms)}
            p50 = getattr(st, "p50_ms", None)
            durations = getattr(st, "durations_ms", None)
            if p50 is None and durations:
                p50 = timing.stats(durations)["p50"]
            lat["p50"] = float(p50) if p50 is not None else lat["mean"]
            if getattr(st, "std_dev_ms", None) is not None:
                lat["std_dev"] = float(st.std_dev_ms)
            if p50 is None and not any(w.startswith("timing: nrtpy") for w in self.warnings):
                self.warnings.append("timing: nrtpy's device benchmark reported mean, min, max and standard "
                                     "deviation, no median or durations; latency_ms.p50 is the mean")
            if not self.traced:  # one more execution, traced, for the metrics
                self.model(inputs=feeds, save_trace=True, ntff_name=self.ntff)
                self.traced = True
            return lat
        except EvalTimeout:
            raise
        except BaseException as e:  # noqa: BLE001
            raise KernelFailure("runtime_error", f"benchmark failed (nrtpy): {type(e).__name__}: {e}") from None

    def timing(self, res: dict) -> dict:
        """latency_ms, rel_spread, timing_attempts, metrics and profile of the NEFF on the last case's inputs."""
        job = self.job
        inputs, _ = arrays.load(case_stem(self.cases, max(self.count() - 1, 0)))
        PHASE["now"] = "timing the compiled kernel"
        CLOCK.start("timing")
        lat, rs, attempts = timing.benchmark(lambda w, n: self.measure(inputs, w, n), job["warmup"], job["iters"],
                                             job["spread_tol"], job["max_attempts"], pause_s=self.retry_pause_s)
        res.update(latency_ms=lat, rel_spread=rs, timing_attempts=attempts)
        PHASE["now"] = "collecting metrics"
        CLOCK.start("metrics")
        res["metrics"] = neffmetrics.read(self.current, self.neff, self.ntff, self.workdir, self.warnings)
        total = res["metrics"].get("total_time")
        res["profile"] = neffmetrics.profile(self.current, self.neff, self.ntff, self.workdir, kernel_lines(job),
                                             int(job.get("timeline_cap") or 0), float(total) * 1e9 if total else None)
        res["warnings"] = list(dict.fromkeys(list(res.get("warnings") or []) + self.warnings))
        return res


def kernel_lines(job: dict) -> tuple:
    """(file, header offset, line count) of the kernel as its child compiled it (backend_neuron writes kernel.py,
    with the header add_header may prepend), to map the NEFF's NKI source locations to lines as sent."""
    from .backend_sim import add_header
    src = str(job.get("kernel") or "")
    return "kernel.py", add_header(src)[1], len(src.splitlines())


def _as_declared(a: np.ndarray, hint: dict) -> np.ndarray:
    """An output as the kernel's compile run declared it: a void dtype reinterpreted with the declared one, a flat
    buffer given the declared shape, when the bytes agree; otherwise as it came (the comparison then says why)."""
    try:
        dtype = np.dtype(str(hint.get("dtype") or ""))
    except (TypeError, ValueError):
        dtype = None
    shape = hint.get("shape")
    if dtype is not None and a.dtype.kind == "V" and a.dtype.itemsize == dtype.itemsize:
        a = a.view(dtype)
    if isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape) and \
            tuple(shape) != a.shape and int(np.prod(shape)) == a.size:
        a = a.reshape(shape)
    return a
