"""Backend `neuron`: the real Neuron SDK (nki-facts §6, accelopt-method §4), inside the eval child.

The serving process sets NEURON_RT_VISIBLE_CORES=<core> (pinning; it takes precedence over NEURON_RT_NUM_CORES),
NEURON_CC_FLAGS=--auto-cast=none and NEURON_PLATFORM_TARGET_OVERRIDE=<target> for the child. Here:
  1. the kernel is written to <workdir>/kernel.py and imported (the NKI front end reads the function's source);
  2. compile + first run: nki.baremetal(kernel, save_neff_name="file.neff", save_trace_name="profile.ntff",
     additional_compile_opt="--disable-dge --logical-nc-config=1")(*inputs) in the workdir;
  3. each correctness seed: nki.baremetal(kernel, additional_compile_opt=...)(*inputs);
  4. latency: nki.benchmark(kernel, warmup=, iters=, additional_compile_opt=...)(*inputs), read from
     .benchmark_result.nc_latency.get_latency_percentile(p) in µs for p in 0,1,10,25,50,90,99,100 (neuron-bench);
     min = p0, max = p100, p50 = p50, and mean = the integral of the piecewise-linear quantile curve through
     those points (neuron-bench reports percentiles, not a mean). Re-measured while (max-min)/min > spread_tol.
  5. metrics: `neuron-profile view --output-format summary-json -n file.neff -s profile.ntff` on step 2's
     artifacts, the first summary entry's numeric fields (neuron-profile names, `_percent` as fractions).
  6. profile: unavailable, with the reason per field (PROFILE_MISSING below): it needs per-instruction data.
Exceptions during compile are compile_error; during a later run runtime_error; both name the kernel line when the
traceback or message points into kernel.py.
"""
from __future__ import annotations

import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import traceback

from . import neuron_sdk
from .backend_sim import add_header
from .evaluate import EvalTimeout, KernelFailure

COMPILE_OPT = "--disable-dge --logical-nc-config=1"
PERCENTILES = (0, 1, 10, 25, 50, 90, 99, 100)
_COMPILE_HINTS = ("compil", "err_", "[NKI", "[GCA", "[NLA", "[TEN", "tensorizer", "SyntaxError", "exceeds",
                  "Expected operand", "neuronx-cc")


class NeuronBackend:
    retry_pause_s = 1.0
    times_shapes = False  # nki.benchmark on the device runs the kernel on real arrays

    def __init__(self, target: str, workdir: str, job: dict):
        self.target, self.workdir, self.job = target, workdir, job
        self.filename = os.path.join(workdir, "kernel.py")
        self.offset = 0
        self.kernel = None
        self.nki = None
        self.arg_names = []
        self.wrote_arguments = []
        self.compiled = False
        self.neff = os.path.join(workdir, "file.neff")
        self.ntff = os.path.join(workdir, "profile.ntff")
        self.warnings = []

    def _line(self, exc) -> int:
        line = 0
        for fr in traceback.extract_tb(exc.__traceback__):
            if fr.filename == self.filename:
                line = fr.lineno
        if not line:
            m = re.search(r'kernel\.py"?, line (\d+)', str(exc))
            line = int(m.group(1)) if m else 0
        return max(line - self.offset, 0) if line else 0

    def load(self, source: str):
        try:
            import neuronxcc.nki as nki
        except Exception as e:  # noqa: BLE001
            raise KernelFailure("infra_error", f"Neuron SDK not found on this host: import neuronxcc.nki failed: "
                                               f"{type(e).__name__}: {e}") from None
        self.nki = nki
        src, self.offset = add_header(source)
        with open(self.filename, "w", encoding="utf-8") as f:
            f.write(src)
        sp = importlib.util.spec_from_file_location("accelopt_kernel", self.filename)
        mod = importlib.util.module_from_spec(sp)
        sys.modules["accelopt_kernel"] = mod
        try:
            sp.loader.exec_module(mod)
        except EvalTimeout:
            raise
        except SyntaxError as e:
            raise KernelFailure("compile_error", f"syntax error: {e.msg}", max((e.lineno or 0) - self.offset, 0))
        except BaseException as e:  # noqa: BLE001
            raise KernelFailure("compile_error", f"the kernel module raised {type(e).__name__}: {e}",
                                self._line(e)) from None
        k = getattr(mod, "kernel", None) or getattr(mod, "optimized_kernel", None)
        if k is None:
            raise KernelFailure("compile_error", "the source defines no function named 'kernel'")
        self.kernel = k
        fn = getattr(k, "func", k)
        try:
            self.arg_names = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            self.arg_names = []

    def _call(self, inputs, **opts):
        try:
            return self.nki.baremetal(self.kernel, additional_compile_opt=COMPILE_OPT, **opts)(*inputs)
        except EvalTimeout:
            raise
        except BaseException as e:  # noqa: BLE001
            msg = f"{type(e).__name__}: {e}"
            status = "compile_error" if (not self.compiled or any(h in msg for h in _COMPILE_HINTS)) \
                else "runtime_error"
            raise KernelFailure(status, msg.strip()[:4000], self._line(e)) from None

    def run(self, inputs, numeric: bool = True):
        if not self.compiled:
            out = self._call(inputs, save_neff_name="file.neff", save_trace_name="profile.ntff")
            self.compiled = True
            # the first run's outputs are not checked (as in the original): the seeds below are
        out = self._call(inputs)
        return tuple(out) if isinstance(out, list) else out

    def measure(self, inputs, warmup: int, iters: int) -> dict:
        if not self.compiled:  # timing-only
            self._call(inputs, save_neff_name="file.neff", save_trace_name="profile.ntff")
            self.compiled = True
        try:
            b = self.nki.benchmark(self.kernel, warmup=warmup, iters=iters, additional_compile_opt=COMPILE_OPT)
            b(*inputs)
            lat = b.benchmark_result.nc_latency
            pct = {p: float(lat.get_latency_percentile(p)) / 1000.0 for p in PERCENTILES}  # µs -> ms
        except EvalTimeout:
            raise
        except BaseException as e:  # noqa: BLE001
            raise KernelFailure("runtime_error", f"benchmark failed: {type(e).__name__}: {e}", self._line(e))
        mean = sum((pct[b_] + pct[a]) / 2 * (b_ - a) / 100 for a, b_ in zip(PERCENTILES, PERCENTILES[1:]))
        return {"mean": mean, "min": pct[0], "max": pct[100], "p50": pct[50],
                "percentiles": {str(k): v for k, v in pct.items()}}

    def metrics(self) -> dict:
        tool = neuron_sdk.which("neuron-profile")
        if not tool or not os.path.isfile(self.neff) or not os.path.isfile(self.ntff):
            return {}
        try:
            p = subprocess.run([tool, "view", "--output-format", "summary-json", "-n", self.neff, "-s", self.ntff],
                               cwd=self.workdir, capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
            return summary_metrics(json.loads(p.stdout.decode("utf-8", errors="replace") or "null"))
        except (OSError, ValueError, subprocess.TimeoutExpired):
            return {}

    def profile(self, timeline_cap: int) -> dict:
        return unavailable_profile()


# Why the neuron backend's profile is empty. We parse only neuron-profile's summary-json (passed on as `metrics`);
# every field below needs the per-instruction events of profile.ntff, which the runner does not read yet and which
# we could not check against a real device here (no Trainium hardware).
PROFILE_MISSING = {
    "instruction_count": "the runner reads only neuron-profile's summary-json; counting every instruction on all "
                         "engines and DMA queues needs the per-instruction events of profile.ntff, which it does "
                         "not parse",
    "engine_busy_ns": "engine_busy_ns is the sum of each engine's instruction durations (for dma, over all "
                      "queues); the summary-json's *_active_time metrics (passed on in metrics) are neuron-profile's "
                      "own activity measure, not that sum, and the sum needs the per-instruction start and end "
                      "times of profile.ntff, which the runner does not parse",
    "line_costs": "needs each instruction's duration, engine, bytes and the kernel source line that issued it; the "
                  "summary-json has no per-line data and the runner does not parse profile.ntff's "
                  "per-instruction events or map them back to NKI source lines",
    "timeline": "needs profile.ntff's per-instruction events (engine or DMA queue, opcode, start, duration); the "
                "runner reads only neuron-profile's summary-json, not the instruction trace",
}


def unavailable_profile() -> dict:
    return {"source": "neuron-profile", "available": False, "missing": dict(PROFILE_MISSING)}


def summary_metrics(data) -> dict:
    """The numeric fields of the first summary entry of a neuron-profile summary-json document."""
    s = data
    if isinstance(s, dict) and "summary" in s:
        s = s["summary"]
    if isinstance(s, list):
        s = s[0] if s else {}
    if isinstance(s, dict) and "total_time" not in s and s and isinstance(next(iter(s.values())), dict):
        s = next(iter(s.values()))  # {"<neff name>": {...}}: the first top-level entry
    out = {}
    if isinstance(s, dict):
        for k, v in s.items():
            if isinstance(v, bool):
                continue
            if isinstance(v, (int, float)):
                out[k] = v
            elif isinstance(v, str):
                try:
                    out[k] = float(v)
                except ValueError:
                    pass
    return out
