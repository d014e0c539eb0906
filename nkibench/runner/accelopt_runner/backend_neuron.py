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

That is the classic route (a kernel importing neuronxcc.nki, SDK <= 2.29). A current kernel (`import nki`, SDK 2.27+;
the job's `generation`, decided in the serving process by generations.py) takes the current route, as AWS documents
it for standalone NKI kernels (nki.benchmark / nki.baremetal are not in the nki namespace):
  1. NKI_ARTIFACTS_DIR=<workdir>/nki_artifacts is set before `import nki` (the compiler keeps the NEFF there,
     kernel.neff) and NEURON_LOGICAL_NC_CONFIG=1 (LNC 1, as --logical-nc-config=1 in the classic route);
  2. compile + first run and each seed: the @nki.jit kernel called with numpy arrays (compiles and runs standalone);
  3. latency: nrtpy (Neuron SDK 2.33, beta): NrtpyModel.load_from_neff(kernel.neff).benchmark(inputs=…,
     warmup_iter=, benchmark_iter=, mode="device") → mean/min/max ms; then one execution with save_trace=True
     writes profile.ntff. Without nrtpy: `neuron-explorer capture -n kernel.neff -s profile.ntff
     --profile-nth-exec=<warmup+1>` and the latency of that one profiled execution (Summary total_time), with a
     warning;
  4. metrics: `neuron-explorer view -n kernel.neff -s profile.ntff` to Parquet (read with pyarrow, Summary.parquet)
     or, without pyarrow, `--output-format json` (supported through SDK 2.33), converted by explorer_metrics();
  5. profile: unavailable, like the classic route (per-instruction tables are not read).
"""
from __future__ import annotations

import importlib.util
import inspect
import glob
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
        self.warnings = list(job.get("warnings") or [])  # e.g. classic on SDK 2.28/2.29 (generations.note)
        self.generation = job.get("generation") or "classic"
        self.artifacts = os.path.join(workdir, "nki_artifacts")
        self.model = None  # current route: the nrtpy model of kernel.neff
        self.traced = False

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

    def run(self, inputs, numeric: bool = True):
        if not self.compiled:
            out = self._call(inputs, save_neff_name="file.neff", save_trace_name="profile.ntff")
            self.compiled = True
            if self.current:
                self._find_neff()
            # the first run's outputs are not checked (as in the original): the seeds below are
        out = self._call(inputs)
        return tuple(out) if isinstance(out, list) else out

    def measure(self, inputs, warmup: int, iters: int) -> dict:
        if not self.compiled:  # timing-only
            self._call(inputs, save_neff_name="file.neff", save_trace_name="profile.ntff")
            self.compiled = True
            if self.current:
                self._find_neff()
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

    def _feeds(self, model, inputs):
        """The nrtpy inputs: the kernel's array arguments by parameter name when the NEFF names its inputs so (as
        in AWS's examples), else in order."""
        from nrtpy import NrtpyTensor
        names = list(getattr(model, "input_tensors_info", {}) or {})
        is_array = [hasattr(a, "dtype") and hasattr(a, "shape") for a in inputs]
        named = [(n, a) for n, a, ok in zip(self.arg_names or [], inputs, is_array) if ok]
        arrays = [a for a, ok in zip(inputs, is_array) if ok]
        if names and named and set(names) <= {n for n, _ in named}:
            feeds = [(n, a) for n, a in named if n in names]
        elif names:
            self.warnings.append(f"timing: the NEFF's inputs {names} are not named as the kernel's array parameters "
                                 f"{[n for n, _ in named]}; fed in order")
            feeds = list(zip(names, arrays))
        else:
            feeds = named or [(f"input{i}", a) for i, a in enumerate(arrays)]
        return {n: NrtpyTensor.from_numpy(a, name=n) for n, a in feeds}

    def _measure_current(self, inputs, warmup, iters) -> dict:
        neff = self._find_neff()
        try:
            from nrtpy import NrtpyModel  # noqa: F401
        except Exception as e:  # noqa: BLE001
            return self._measure_by_capture(neff, warmup, f"{type(e).__name__}: {e}")
        try:
            if self.model is None:
                self.model = NrtpyModel.load_from_neff(neff)
            feeds = self._feeds(self.model, inputs)
            st = self.model.benchmark(inputs=feeds, warmup_iter=int(warmup), benchmark_iter=int(iters),
                                      mode="device")
            lat = {"mean": float(st.mean_ms), "min": float(st.min_ms), "max": float(st.max_ms)}
            p50 = getattr(st, "p50_ms", None)
            if p50 is None:
                p50 = getattr(st, "median_ms", None)
            lat["p50"] = float(p50) if p50 is not None else lat["mean"]
            if getattr(st, "std_dev_ms", None) is not None:
                lat["std_dev"] = float(st.std_dev_ms)
            if p50 is None and not any(w.startswith("timing: nrtpy") for w in self.warnings):
                self.warnings.append("timing: nrtpy's device benchmark reports mean, min, max and standard deviation, "
                                     "no median; latency_ms.p50 is the mean")
            if not self.traced:  # one more execution, traced, for neuron-explorer (step 4)
                self.model(inputs=feeds, save_trace=True, ntff_name=self.ntff)
                self.traced = True
            return lat
        except EvalTimeout:
            raise
        except BaseException as e:  # noqa: BLE001
            raise KernelFailure("runtime_error", f"benchmark failed (nrtpy): {type(e).__name__}: {e}", self._line(e))

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
        self.traced = True
        total = self.metrics().get("total_time")
        if not total:
            raise KernelFailure("infra_error", "neuron-explorer's summary of the captured execution has no total_time")
        ms = float(total) * 1e3
        self.warnings.append(f"timing: nrtpy is not importable ({why}); the latency is the device time of one "
                             f"execution profiled by neuron-explorer capture after {int(warmup)} warmup run(s), "
                             f"not a warmup/iters benchmark")
        return {"mean": ms, "min": ms, "max": ms, "p50": ms}

    def _explorer_summary(self):
        tool = neuron_sdk.which("neuron-explorer")
        if not tool or not os.path.isfile(self.neff) or not os.path.isfile(self.ntff):
            return None
        try:
            import pyarrow.parquet as pq
        except Exception:  # noqa: BLE001 - no Parquet reader: the JSON output (supported through SDK 2.33)
            pq = None
        try:
            if pq is not None:
                out = os.path.join(self.workdir, "explorer")
                subprocess.run([tool, "view", "-n", self.neff, "-s", self.ntff, "--output-file", out],
                               cwd=self.workdir, capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
                files = sorted(glob.glob(os.path.join(out, "**", "Summary*.parquet"), recursive=True))
                if files:
                    rows = pq.read_table(files[0]).to_pylist()
                    return rows[0] if rows else None
            out = os.path.join(self.workdir, "explorer.json")
            p = subprocess.run([tool, "view", "-n", self.neff, "-s", self.ntff, "--output-format", "json",
                                "--output-file", out], cwd=self.workdir, capture_output=True, timeout=600,
                               stdin=subprocess.DEVNULL)
            paths = [out] if os.path.isfile(out) else []
            paths += sorted(glob.glob(os.path.join(out if os.path.isdir(out) else self.workdir,
                                                   "device_profile_model_*.json")))
            for path in paths:
                with open(path, encoding="utf-8") as f:
                    row = find_summary(json.load(f))
                if row:
                    return row
            if p.stdout.strip():
                return find_summary(json.loads(p.stdout.decode("utf-8", errors="replace")))
        except (OSError, ValueError, subprocess.TimeoutExpired):
            return None
        return None

    def metrics(self) -> dict:
        if self.current:
            row = self._explorer_summary()
            if not row:
                return {}
            m, note = explorer_metrics(row)
            if note and note not in self.warnings:
                self.warnings.append(note)
            return m
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
        if self.current:
            return {"source": "neuron-explorer", "available": False, "missing": dict(EXPLORER_MISSING)}
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


# The current route reads only Neuron Explorer's Summary table; these need its per-instruction tables.
EXPLORER_MISSING = {
    "instruction_count": "the runner reads only Neuron Explorer's Summary table; counting every instruction needs its "
                         "Instruction and DmaPacket tables (Parquet), which it does not read",
    "engine_busy_ns": "engine_busy_ns is the sum of each engine's instruction durations; the Summary's "
                      "*_engine_instruction_time is that sum per engine but not for the DMA queues, and the runner "
                      "does not read the Instruction/DmaPacket tables that would give all of them",
    "line_costs": "needs each instruction's NKI source line (Neuron Explorer's KernelInstructions table, in a NEFF "
                  "compiled with NKI_DEBUG_INFO), which the runner does not read",
    "timeline": "needs Neuron Explorer's Instruction and DmaPacket tables (per-instruction events), which the runner "
                "does not read",
}


def find_summary(data, depth: int = 0):
    """The first summary row in a Neuron Explorer JSON document: a `summary`/`Summary` entry (an object, or a list
    whose first item is one), else the first object holding total_time. The JSON layout of a device profile is not
    documented (?); the fields are those of the Summary table (Profile Parquet Schema Reference)."""
    if depth > 6:
        return None
    if isinstance(data, dict):
        for key in ("summary", "Summary"):
            v = data.get(key)
            if isinstance(v, list) and v and isinstance(v[0], dict):
                return v[0]
            if isinstance(v, dict) and v:
                return v
        if "total_time" in data:
            return data
        for v in data.values():
            r = find_summary(v, depth + 1)
            if r:
                return r
    elif isinstance(data, list):
        for v in data[:50]:
            r = find_summary(v, depth + 1)
            if r:
                return r
    return None


def explorer_metrics(row: dict):
    """Neuron Explorer's Summary row → the protocol's metrics (neuron-profile's names, `_percent` as fractions 0–1).
    Returns (metrics, warning or None).

    The Summary table's fields carry neuron-profile's names (total_time and *_active_time in seconds, *_bytes,
    *_flops, *_count, *_percent), so the names pass through. Its `_percent` fields have the unit "percent" and the
    schema does not say whether 50 % is 50 or 0.5 (?): when any `_percent` value exceeds 1 the row is taken as
    0–100 and every `_percent` field is divided by 100 (a warning says so); otherwise they are already fractions.
    Non-numeric fields (names, ids) are dropped, numeric strings are parsed."""
    m = summary_metrics(row)
    pct = [k for k in m if k.endswith("_percent")]
    note = None
    if any(float(m[k]) > 1.0 + 1e-9 for k in pct):
        for k in pct:
            m[k] = float(m[k]) / 100.0
        note = ("metrics: Neuron Explorer reported its _percent metrics on a 0-100 scale; converted to fractions "
                "0-1 like neuron-profile's")
    return m, note