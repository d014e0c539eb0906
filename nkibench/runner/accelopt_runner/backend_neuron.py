"""Backend `neuron`: the real Neuron SDK (nki-facts §6, accelopt-method §4), in the kernel's child.

Where nrtpy is installed (Neuron SDK 2.33+) the kernel's child only compiles (kernelside.compile_neff, step 2
below) and hands the NEFF over; the judge's child runs it on the cases, checks and times it (neffjudge.py), so the
kernel's Python takes no part in its verdict or its latency. Without nrtpy every step below runs in the kernel's
one process (evaluate.run), and the result carries a warning that says so.

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
     artifacts (neffmetrics.py).
  6. profile: unavailable on the classic route, with the reason per field (neffmetrics.PROFILE_MISSING); on the
     current one from Neuron Explorer's Instruction and DMA tables where it writes them (explorerprofile.py).
Exceptions during compile are compile_error; during a later run runtime_error; both name the kernel line when the
traceback or message points into kernel.py.

That is the classic route (a kernel importing neuronxcc.nki, SDK <= 2.29). A current kernel (`import nki`, SDK 2.27+;
the job's `generation`, decided in the serving process by generations.py) takes the current route, as AWS documents
it for standalone NKI kernels (nki.benchmark / nki.baremetal are not in the nki namespace):
  1. NKI_ARTIFACTS_DIR=<workdir>/nki_artifacts is set before `import nki` (the compiler keeps the NEFF there,
     kernel.neff) and NEURON_LOGICAL_NC_CONFIG=1 (LNC 1, as --logical-nc-config=1 in the classic route);
  2. compile + first run and each seed: the @nki.jit kernel called with numpy arrays (compiles and runs standalone);
  3. latency (without nrtpy): `neuron-explorer capture -n kernel.neff -s profile.ntff --profile-nth-exec=<warmup+1>`
     and the latency of that one profiled execution (Summary total_time), with a warning;
  4. metrics: `neuron-explorer view -n kernel.neff -s profile.ntff` (neffmetrics.py);
  5. profile: from Neuron Explorer's Instruction and DMA tables (explorerprofile.py) when it writes them (Parquet
     with pyarrow, or the full-profile JSON through SDK 2.33), else unavailable with the reason per field.
"""
from __future__ import annotations

import importlib.util
import inspect
import glob
import os
import re
import subprocess
import sys
import traceback

from . import neffmetrics, neuron_sdk
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
        self.source_lines = 0
        self.kernel = None
        self.nki = None
        self.arg_names = []
        self.wrote_arguments = []
        self.compiled = False
        self.first_outputs = None
        self.neff = os.path.join(workdir, "file.neff")
        self.ntff = os.path.join(workdir, "profile.ntff")
        self.warnings = list(job.get("warnings") or [])  # e.g. classic on SDK 2.28/2.29 (generations.note)
        self.generation = job.get("generation") or "classic"
        self.artifacts = os.path.join(workdir, "nki_artifacts")

    def _line(self, exc) -> int:
        line = 0
        for fr in traceback.extract_tb(exc.__traceback__):
            if fr.filename == self.filename:
                line = fr.lineno
        if not line:
            m = re.search(r'kernel\.py"?, line (\d+)', str(exc))
            line = int(m.group(1)) if m else 0
        return max(line - self.offset, 0) if line else 0

    @property
    def current(self) -> bool:
        return self.generation == "current"

    def _import_nki(self):
        if self.current:
            # both are read when nki is imported (AWS: "must be set before importing nki")
            os.makedirs(self.artifacts, exist_ok=True)
            os.environ["NKI_ARTIFACTS_DIR"] = self.artifacts
            os.environ.setdefault("NEURON_LOGICAL_NC_CONFIG", "1")
            # the NEFF then maps instructions to kernel lines: the profile's line costs (Neuron Explorer docs)
            os.environ.setdefault("NKI_DEBUG_INFO", "True")
            self.neff = os.path.join(self.artifacts, "kernel.neff")
            try:
                import nki
            except Exception as e:  # noqa: BLE001
                raise KernelFailure("infra_error", f"Neuron SDK not usable for a current-API kernel: import nki "
                                                   f"failed: {type(e).__name__}: {e}") from None
            return nki
        try:
            import neuronxcc.nki as nki
        except Exception as e:  # noqa: BLE001
            raise KernelFailure("infra_error", f"Neuron SDK not found on this host: import neuronxcc.nki failed: "
                                               f"{type(e).__name__}: {e}") from None
        return nki

    def load(self, source: str, function: str | None = None):
        """function: the kernel function's name as jobs.prechecks chose it (None: the same rule, here)."""
        self.nki = self._import_nki()
        src, self.offset = add_header(source)
        self.source_lines = len(source.splitlines())
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
        from . import kernelfn
        try:
            name = function or kernelfn.choose_in_source(source)
        except kernelfn.NoKernelFunction as e:
            raise KernelFailure("compile_error", str(e)) from None
        k = getattr(mod, name, None)
        if k is None:
            raise KernelFailure("compile_error", f"the source defines no function named '{name}'")
        self.kernel = k
        fn = getattr(k, "func", k)
        try:
            self.arg_names = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            self.arg_names = []

    def _call(self, inputs, **opts):
        try:
            if self.current:  # numpy arguments: the NKI compiler compiles and runs the kernel standalone
                return self.kernel(*inputs)
            return self.nki.baremetal(self.kernel, additional_compile_opt=COMPILE_OPT, **opts)(*inputs)
        except EvalTimeout:
            raise
        except BaseException as e:  # noqa: BLE001
            msg = f"{type(e).__name__}: {e}"
            status = "compile_error" if (not self.compiled or any(h in msg for h in _COMPILE_HINTS)) \
                else "runtime_error"
            raise KernelFailure(status, msg.strip()[:4000], self._line(e)) from None

    def compile(self, inputs) -> str:
        """Compile the kernel (the SDK runs it once too; that run's outputs are not used) and return the NEFF."""
        if not self.compiled:
            self.first_outputs = self._call(inputs, save_neff_name="file.neff", save_trace_name="profile.ntff")
            self.compiled = True
            if self.current:
                self._find_neff()
        return self.neff

    def run(self, inputs, numeric: bool = True):
        self.compile(inputs)  # the first run's outputs are not checked (as in the original): the seeds' are
        out = self._call(inputs)
        return tuple(out) if isinstance(out, list) else out

    def measure(self, inputs, warmup: int, iters: int) -> dict:
        self.compile(inputs)  # timing-only: not compiled yet
        if self.current:
            return self._measure_current(inputs, warmup, iters)
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

    # ---- the current route (SDK 2.27+, `import nki`) ----

    def _find_neff(self):
        """The NEFF the NKI compiler kept in NKI_ARTIFACTS_DIR: kernel.neff, else the newest *.neff below it."""
        if os.path.isfile(self.neff):
            return self.neff
        found = sorted(glob.glob(os.path.join(self.artifacts, "**", "*.neff"), recursive=True), key=os.path.getmtime)
        if found:
            self.neff = found[-1]
            return self.neff
        raise KernelFailure("infra_error", f"the NKI compiler kept no NEFF in NKI_ARTIFACTS_DIR ({self.artifacts}); "
                                           f"the current route needs it for timing and profiling")

    def _measure_current(self, inputs, warmup, iters) -> dict:
        # nrtpy, where it is installed, runs the NEFF in the judge's process (neffjudge.py); here it is not
        return self._measure_by_capture(self._find_neff(), warmup, "nrtpy is not installed on this host")

    def _measure_by_capture(self, neff, warmup, why) -> dict:
        """Without nrtpy: the documented neuron-explorer capture of one execution after `warmup` ones; its
        device time (Summary total_time) is the latency, one sample."""
        tool = neuron_sdk.which("neuron-explorer")
        if not tool:
            raise KernelFailure("infra_error", f"the current route times a kernel with nrtpy ({why}) or "
                                               f"neuron-explorer capture (not found on PATH or in "
                                               f"{neuron_sdk.TOOLS_DIR}); install aws-neuronx-tools")
        nth = int(warmup) + 1
        try:
            p = subprocess.run([tool, "capture", "-n", neff, "-s", self.ntff, f"--profile-nth-exec={nth}"],
                               cwd=self.workdir, capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise KernelFailure("runtime_error", f"neuron-explorer capture failed: {e}") from None
        # AWS: `-s profile.ntff --profile-nth-exec=2` saves profile_exec_2.ntff
        for cand in (self.ntff, os.path.join(self.workdir, f"profile_exec_{nth}.ntff")):
            if os.path.isfile(cand):
                self.ntff = cand
                break
        else:
            err = (p.stderr or p.stdout).decode("utf-8", errors="replace").strip()[-2000:]
            raise KernelFailure("runtime_error", f"neuron-explorer capture wrote no trace (exit {p.returncode}): {err}")
        total = self.metrics().get("total_time")
        if not total:
            raise KernelFailure("infra_error", "neuron-explorer's summary of the captured execution has no total_time")
        ms = float(total) * 1e3
        self.warnings.append(f"timing: nrtpy is not importable ({why}); the latency is the device time of one "
                             f"execution profiled by neuron-explorer capture after {int(warmup)} warmup run(s), "
                             f"not a warmup/iters benchmark")
        return {"mean": ms, "min": ms, "max": ms, "p50": ms}

    def metrics(self) -> dict:
        return neffmetrics.read(self.current, self.neff, self.ntff, self.workdir, self.warnings)

    def profile(self, timeline_cap: int) -> dict:
        total = self.metrics().get("total_time")
        return neffmetrics.profile(self.current, self.neff, self.ntff, self.workdir,
                                   (self.filename, self.offset, self.source_lines), timeline_cap,
                                   float(total) * 1e9 if total else None)
