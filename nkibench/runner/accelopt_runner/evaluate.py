"""One evaluation, inside the eval's child process (started by sandbox.py): load the task, load the kernel,
check correctness over the seeds, time it, compute the roofline. Both backends share this flow; they differ in
how a kernel is loaded, run and timed (backend_sim.py, backend_neuron.py).

Status mapping: a kernel failure carries its own status (compile_error / runtime_error / timeout); wrong
results are "incorrect"; a broken task or harness is "infra_error".
"""
from __future__ import annotations

import os
import signal
import time
import traceback

import numpy as np

from . import correctness, roofline, timing
from .taskspec import LoadedTask, TaskError


class KernelFailure(Exception):
    def __init__(self, status: str, message: str, line: int = 0):
        super().__init__(message)
        self.status = status
        self.message = message
        self.line = line or 0

    def text(self) -> str:
        if self.line and not self.message.startswith("line "):
            return f"line {self.line}: {self.message}"
        return self.message


class EvalTimeout(BaseException):
    """Raised by the soft wall-clock timer, wherever the child is (BaseException so a kernel's `except Exception`
    cannot swallow it)."""


class InfraError(Exception):
    pass


PHASE = {"now": "starting"}  # what the child is doing, for timeout and crash messages


class PhaseClock:
    """Seconds spent per phase of an eval (the result's `phase_s`), so a slow or timed-out eval says where its
    time went: inputs, reference, kernel (nkisim's numeric run or the neuron run), check, timing."""

    def __init__(self):
        self.spent: dict = {}
        self._name, self._t0 = None, 0.0

    def start(self, name: str):
        self.stop()
        self._name, self._t0 = name, time.monotonic()

    def stop(self):
        if self._name:
            self.spent[self._name] = self.spent.get(self._name, 0.0) + time.monotonic() - self._t0
            self._name = None

    def result(self) -> dict:
        self.stop()
        return {k: round(v, 3) for k, v in self.spent.items()}


CLOCK = PhaseClock()


def empty_result(job: dict) -> dict:
    return {"op": "result", "id": job.get("id"), "status": "infra_error", "error": None, "correct": None,
            "l2_rel_err": None, "max_abs_err": None, "latency_ms": None, "rel_spread": None, "metrics": {},
            "roofline": None, "profile": None, "warnings": [], "wall_s": 0.0}


def _empty_arrays(xs, what: str, params: dict):
    """An InfraError when one of xs is an array with a 0 dimension: an eval of empty tensors is meaningless (it ran
    "ok" in 0 ms when a task's parameters held a 0)."""
    for i, x in enumerate(xs):
        shape = tuple(np.shape(x)) if isinstance(x, np.ndarray) else None
        if shape is not None and 0 in shape:
            ps = ", ".join(f"{k}={v}" for k, v in list((params or {}).items())[:12]) or "none"
            raise InfraError(f"the task's {what} #{i} has shape {shape}, with a 0 dimension, at the parameters "
                             f"{ps}; every dimension must be at least 1: fix the task's parameters")


def _copy_inputs(xs):
    return [np.array(x, copy=True) if isinstance(x, np.ndarray) else x for x in xs]


def _written_inputs(before, after, names):
    bad = []
    for i, (b, a) in enumerate(zip(before, after)):
        if isinstance(b, np.ndarray) and isinstance(a, np.ndarray):
            if b.shape != a.shape or not np.array_equal(b, a, equal_nan=b.dtype.kind in "fc"):
                bad.append(f"'{names[i]}'" if i < len(names) and names[i] else f"#{i}")
    return bad


def run(job: dict, workdir: str, backend) -> dict:
    """Evaluate job with backend (an object of backend_sim.SimBackend or backend_neuron.NeuronBackend)."""
    res = empty_result(job)
    spec = job["task_spec"]
    res.update({"backend": job["backend"], "target": job["target"], "task": spec.get("name"),
                "size": spec.get("size"), "params": spec.get("params"), "seeds": list(job["seeds"])})
    if job.get("generation"):
        res["generation"] = job["generation"]  # neuron: the NKI generation that chose the route (generations.py)
    phase = PHASE
    clock = CLOCK
    phase["now"] = "loading the task"
    clock.start("load")
    try:
        task = LoadedTask(spec, workdir)
    except EvalTimeout:
        raise
    except TaskError as e:
        raise InfraError(str(e)) from None  # names the file and what it lacks
    except BaseException as e:  # noqa: BLE001
        raise reference_failure(e, spec, workdir, "failed to load") from None
    rel_tol = float(job.get("rel_tol") or spec.get("rel_tol") or 2e-5)

    phase["now"] = "loading the kernel"
    backend.load(job["kernel"])

    seeds = list(job["seeds"])
    timing_only = bool(job.get("timing_only"))
    bench_inputs = None
    if timing_only:
        phase["now"] = "building inputs"
        clock.start("inputs")
        verified = bool(job.get("declaration_verified"))
        shapes = task.nki_input_shapes(seeds[-1], verified) if backend.times_shapes else None
        if shapes is not None and not verified:
            res["declaration_verified"] = True  # the runner skips the check for this task's next evals
        if shapes is not None:
            for i, (shape, _) in enumerate(shapes):
                if 0 in shape:
                    raise InfraError(f"the task's kernel input #{i} is declared with shape {shape}, with a 0 "
                                     f"dimension; every dimension must be at least 1: fix the task's parameters")
            bench_inputs = backend.placeholders(shapes)
            res["timing_inputs"] = "declared shapes"
        else:
            try:
                bench_inputs = task.to_nki(task.get_inputs(seeds[-1]))
            except (EvalTimeout, MemoryError):
                raise
            except BaseException as e:  # noqa: BLE001
                raise reference_failure(e, spec, workdir, f"failed to build the inputs (seed {seeds[-1]})") from None
            _empty_arrays(bench_inputs, "kernel input", spec.get("params"))
            res["timing_inputs"] = "built"
        res["correct"] = None
    else:
        worst_rel = worst_abs = 0.0
        first_mismatch = None  # save_outputs only: (seed, index, Mismatch)
        prev = None  # (output digest, reference digest) of the previous seed: catches cached/constant results
        for si, seed in enumerate(seeds):
            phase["now"] = f"checking correctness (seed {seed}): building inputs"
            clock.start("inputs")
            try:
                inputs = task.get_inputs(seed)
                phase["now"] = f"checking correctness (seed {seed}): running the task reference"
                clock.start("reference")
                ref = task.forward(_copy_inputs(inputs))
                phase["now"] = f"checking correctness (seed {seed}): building inputs"
                clock.start("inputs")
                nki_in = task.to_nki(inputs)
            except (EvalTimeout, MemoryError):
                raise  # a MemoryError gets the memory limit's advice in child.py
            except BaseException as e:  # noqa: BLE001
                raise reference_failure(e, spec, workdir, f"failed for seed {seed}") from None
            _empty_arrays(inputs, "input", spec.get("params"))
            _empty_arrays(ref, "reference output", spec.get("params"))
            saved = _copy_inputs(nki_in)
            phase["now"] = f"checking correctness (seed {seed}): running the kernel"
            clock.start("kernel")
            kres = backend.run(nki_in, numeric=True)  # raises KernelFailure
            phase["now"] = f"checking correctness (seed {seed}): comparing with the reference"
            clock.start("check")
            written = _written_inputs(saved, nki_in, backend.arg_names)
            if written or backend.wrote_arguments:
                which = ", ".join(written) or ", ".join(backend.wrote_arguments)
                res.update(status="incorrect", correct=False,
                           error=f"the kernel wrote to its input argument(s) {which}; a kernel must leave its inputs "
                                 f"unchanged and return its outputs in new HBM tensors (nl.shared_hbm)")
                return res
            if kres is None:
                res.update(status="incorrect", correct=False,
                           error="the kernel returned nothing; it must return its output tensor(s)")
                return res
            try:
                outs = task.from_nki(kres, ref)
            except EvalTimeout:
                raise
            except BaseException as e:  # noqa: BLE001 - a wrong-shaped output breaks the reshape back
                shapes = [tuple(np.shape(o)) for o in (kres if isinstance(kres, (tuple, list)) else [kres])]
                res.update(status="incorrect", correct=False,
                           error=f"the kernel's outputs (shapes {shapes}) could not be transformed to the "
                                 f"reference's (shapes {[tuple(r.shape) for r in ref]}): {type(e).__name__}: {e}")
                return res
            if job.get("save_outputs"):
                # the port check (port/equality.py) compares two kernels' outputs with each other: keep this seed's
                # outputs (after the task's transform, as the reference sees them) for the parent to collect
                np.savez(os.path.join(workdir, f"outputs_seed{si}.npz"), *[np.asarray(o) for o in outs])
            try:
                rel, mabs = correctness.compare(outs, ref, rel_tol)
            except correctness.Mismatch as m:
                if job.get("save_outputs"):
                    # the port check needs every seed's outputs, whatever the reference says: note the first
                    # mismatch and go on (the result is still "incorrect", below)
                    if first_mismatch is None:
                        first_mismatch = (seed, si, m)
                    del kres, outs, ref, saved, inputs
                    continue
                msg = str(m)
                if prev is None and si + 1 < len(seeds):
                    # is it a constant result? one more run on the next seed's inputs tells (a clearer message)
                    try:
                        nxt = task.get_inputs(seeds[si + 1])
                        nref = task.forward(_copy_inputs(nxt))
                        nout = task.from_nki(backend.run(task.to_nki(nxt), numeric=True), nref)
                        if correctness.digest(nout) == correctness.digest(outs) and \
                                correctness.digest(nref) != correctness.digest(ref):
                            msg = ("the kernel returned the same output for different inputs (a cached or "
                                   "constant result): " + msg)
                    except EvalTimeout:
                        raise
                    except BaseException:  # noqa: BLE001 - only a hint; the mismatch stands
                        pass
                if prev is not None:
                    same_out = correctness.digest(outs) == prev[0]
                    same_ref = correctness.digest(ref) == prev[1]
                    if same_out and not same_ref:
                        msg = ("the kernel returned the same output for different inputs (a cached or constant "
                               "result): " + msg)
                res.update(status="incorrect", correct=False, error=f"seed {seed} (check {si + 1} of "
                           f"{len(seeds)}): {msg}", l2_rel_err=m.l2_rel_err, max_abs_err=m.max_abs_err)
                return res
            worst_rel, worst_abs = max(worst_rel, rel), max(worst_abs, mabs)
            prev = (correctness.digest(outs), correctness.digest(ref))
            bench_inputs = nki_in
            # let this seed's reference and outputs go before the next seed builds its own (at full size each is
            # up to 1 GiB)
            del kres, outs, ref, saved, inputs
        if first_mismatch is not None:
            seed, si, m = first_mismatch
            res.update(status="incorrect", correct=False, error=f"seed {seed} (check {si + 1} of {len(seeds)}): "
                       f"{m}", l2_rel_err=m.l2_rel_err, max_abs_err=m.max_abs_err)
            return res
        res.update(correct=True, l2_rel_err=worst_rel, max_abs_err=worst_abs)

    phase["now"] = "timing"
    clock.start("timing")
    lat, rs, attempts = timing.benchmark(lambda w, n: backend.measure(bench_inputs, w, n),
                                         job["warmup"], job["iters"], job["spread_tol"], job["max_attempts"],
                                         pause_s=backend.retry_pause_s)
    res.update(latency_ms=lat, rel_spread=rs, timing_attempts=attempts)
    phase["now"] = "collecting metrics"
    clock.start("metrics")
    res["metrics"] = backend.metrics()
    res["profile"] = backend.profile(job["timeline_cap"])
    res["roofline"], why = roofline_or_warning(spec, job, lat["mean"])
    if why:
        res["warnings"].append(why)
    suspect = faster_than_memory(res["roofline"], lat["mean"])
    if suspect:
        res["warnings"] += [str(w) for w in getattr(backend, "warnings", None) or []]
        res.update(status="rejected", error=suspect)
        return res
    res["warnings"] += [str(w) for w in getattr(backend, "warnings", None) or []]
    res["status"] = "ok"
    res["error"] = None
    return res


def faster_than_memory(rf, latency_ms) -> str:
    """Why a latency is impossible, or "": below the time the task's least traffic (its roofline's min_bytes: every
    input read and every output written once) takes at the peak bandwidth. Flop counts are not such a bound (a
    cleverer algorithm may need fewer), bytes are: a kernel that beats them skips inputs or outputs, or reuses a
    result from an earlier run. (nkisim's plain copy of silu reaches 66 % of that peak.)"""
    if not rf or not latency_ms or latency_ms < 0 or not rf.get("min_bytes") or not rf.get("bytes_per_s"):
        return "" if latency_ms else _zero_latency(rf)
    floor_ms = 1e3 * rf["min_bytes"] / rf["bytes_per_s"]
    if latency_ms >= floor_ms:
        return ""
    return (f"suspect: the kernel ran in {latency_ms:.4g} ms, less than the {floor_ms:.4g} ms that moving the task's "
            f"{rf['min_bytes']:.4g} bytes (each input read and each output written once) takes at the peak "
            f"bandwidth of {rf['bytes_per_s'] / 1e9:g} GB/s; no correct kernel is that fast: it skips inputs or "
            f"outputs, or reuses a result from an earlier run")


def _zero_latency(rf) -> str:
    if rf and rf.get("min_bytes"):
        return ("suspect: the kernel took no time at all, though the task moves "
                f"{rf['min_bytes']:.4g} bytes; it does not read its inputs or write its outputs")
    return ""


def roofline_or_warning(spec: dict, job: dict, latency_ms) -> tuple:
    """(the result's roofline object or None, the warning that says why % of peak is missing, or "").

    Every way the roofline can fail ends in a warning on the result (`warnings`, ../README.md), never in a failed
    eval: no formulas in the task, a formula that names an unknown parameter or divides by zero, a target without
    peak constants, a peak time of 0 (no work declared) or no latency."""
    name = spec.get("name") or "the task"
    rf = spec.get("roofline")
    if not rf:
        if spec.get("kind") == "dataset":
            return None, f"roofline: {spec.get('roofline_source')}"
        where = spec.get("dir") and os.path.join(spec["dir"], "task.json") or "the eval's task"
        return None, (f"roofline: task {name!r} has no roofline formulas, so % of peak and bound cannot be "
                      f"computed; add \"roofline\": {{\"vector_flops\", \"matmul_flops\", \"min_bytes\"}} to "
                      f"{where} (or pass 'roofline' in the eval's task)")
    try:
        r = roofline.roofline_result(rf, spec.get("params") or {}, job["target"], latency_ms,
                                     spec.get("dtype") or "float32", job.get("roofline_compat") or "")
    except (ArithmeticError, ValueError, TypeError) as e:  # roofline.ExprError is a ValueError
        return None, (f"roofline: the formulas of task {name!r} cannot be evaluated at its parameters for "
                      f"{job['target']}: {e}; % of peak is not reported")
    # Which peak constants (ours or the original's) and, for dataset tasks, whose formulas: so a figure can be
    # compared with the paper's knowingly.
    r["constants"] = job.get("roofline_compat") or "ours"
    if spec.get("roofline_source"):
        r["formulas"] = spec["roofline_source"]
    if r.get("percent_of_peak") is None:
        if not r.get("peak_ms"):
            return r, (f"roofline: the formulas of task {name!r} give a peak time of 0 (no flops and no bytes at "
                       f"its parameters), so % of peak cannot be computed; check its roofline formulas")
        return r, "roofline: the kernel's latency is 0 or unknown, so % of peak cannot be computed"
    return r, ""


def reference_failure(e: BaseException, spec: dict, workdir: str, doing: str) -> InfraError:
    """The task reference raised: say which file and line, and what (one line, no traceback: the reference is the
    task author's code, and a traceback through the runner tells them nothing they can act on)."""
    path = os.path.abspath(spec.get("reference_path") or os.path.join(workdir, "reference.py"))
    line, func = 0, ""
    if isinstance(e, SyntaxError) and e.filename and os.path.abspath(e.filename) == path:
        line, what = e.lineno or 0, f"{type(e).__name__}: {e.msg}"
    else:
        for fr in traceback.extract_tb(e.__traceback__):
            if os.path.abspath(fr.filename) == path:
                line, func = fr.lineno, fr.name
        what = f"{type(e).__name__}: {e}"
    where = ""
    if line:
        where = f" (line {line}" + (f", in {func}" if func and func != "<module>" else "") + ")"
    return InfraError(f"the task reference {path}{where} {doing}: {what}; the task's reference.py needs fixing, "
                      f"not the kernel")


def kernel_line(tb, kernel_filenames) -> int:
    """The deepest line of a traceback that lies in the kernel's source."""
    line = 0
    for fr in traceback.extract_tb(tb):
        if fr.filename in kernel_filenames or fr.filename.startswith("<kernel"):
            line = fr.lineno
    return line


def install_soft_timeout(seconds: float):
    def _fire(signum, frame):
        raise EvalTimeout()
    signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, max(0.05, seconds))


def cancel_soft_timeout():
    signal.setitimer(signal.ITIMER_REAL, 0)


def now() -> float:
    return time.monotonic()


def seeds_default(n: int = 3) -> list:
    return [int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF for _ in range(n)]
