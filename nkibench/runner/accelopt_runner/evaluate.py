"""What the steps of an evaluation share (the judge's, judge.py; the kernel's, kernelside.py): failures, the
phase clock, the empty result, the roofline and its physics, the soft timeout; and run(), all steps in one process
(a Neuron eval). The backends differ in how a kernel is loaded, run and timed (backend_sim.py, backend_neuron.py).

Status mapping: a kernel failure carries its own status (compile_error / runtime_error / timeout); wrong
results are "incorrect"; a broken task or harness is "infra_error".
"""
from __future__ import annotations

import os
import signal
import time
import traceback

import numpy as np

from . import roofline


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
    """Everything in one process, as a Neuron eval still runs (backend: backend_neuron.NeuronBackend, or
    backend_sim.SimBackend): the same steps as the children of an nkisim eval, one after the other. The
    runner then applies the roofline and its tripwires (handover.physics), as for those."""
    from . import handover, judge, kernelside
    cases = os.path.join(workdir, "for-kernel")
    prepared = judge.prepare(dict(job, times_shapes=backend.times_shapes), workdir, cases)
    if job.get("generation"):
        prepared["generation"] = job["generation"]  # neuron: the NKI generation that chose the route
    if prepared.get("status") != "prepared":
        return prepared
    base = {k: v for k, v in prepared.items() if k not in ("status", "error", "output", "phase_s", "peak_rss_mb")}
    ran = kernelside.run(job, cases, backend)
    traced = getattr(backend, "records_trace", False)  # nkisim: the judge's step models the trace
    if ran.get("status") != "ok" or (job.get("timing_only") and not traced):
        return handover.merge(base, prepared, ran, timing_from=ran)
    handover.move_outputs(cases, workdir)
    judged = judge.verdict(job, workdir)
    return handover.merge(base, prepared, ran, judged, status_from=judged, timing_from=judged if traced else ran)


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


def roofline_or_warning(spec: dict, job: dict, latency_ms, measures: dict | None = None) -> tuple:
    """(the result's roofline object or None, the warning that says why % of peak is missing, or "").

    Every way the roofline can fail ends in a warning on the result (`warnings`, ../README.md), never in a failed
    eval: no formulas in the task, a formula that names an unknown parameter or divides by zero, a target without
    peak constants, a peak time of 0 (no work declared) or no latency. measures: what the judge measured in this
    eval (judge.prepare), for the figures task.json does not give (roofline_sources.py)."""
    from . import roofline_sources
    name = spec.get("name") or "the task"
    rf, origin, flops_known = roofline_sources.effective(spec, measures)
    where = spec.get("dir") and os.path.join(spec["dir"], "task.json") or "the eval's task"
    if not rf:
        if spec.get("kind") == "dataset":
            return None, f"roofline: {spec.get('roofline_source')}"
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
    # compared with the paper's knowingly. roofline_source: where each figure came from.
    r["constants"] = job.get("roofline_compat") or "ours"
    r["roofline_source"] = origin
    if spec.get("roofline_source"):
        r["formulas"] = spec["roofline_source"]
    contradiction = _dataset_contradiction(spec, measures, r)
    if contradiction:
        return r, contradiction
    if not flops_known:  # bytes alone are no roofline: % of peak and bound are not reported, never guessed
        r.update(peak_ms=None, bound=None, percent_of_peak=None, flops=None, vector_flops=None, matmul_flops=None)
        return r, (f"roofline: task {name!r} gives no FLOP count at this size, so % of peak and bound are not "
                   f"reported (min_bytes comes from the inputs' and outputs' sizes); run the task check "
                   f"(accelopt_runner task-check) and write the baseline's FLOPs into {where} as \"roofline\" / "
                   f"\"small_roofline\"")
    if r.get("percent_of_peak") is None:
        if not r.get("peak_ms"):
            return r, (f"roofline: the formulas of task {name!r} give a peak time of 0 (no flops and no bytes at "
                       f"its parameters), so % of peak cannot be computed; check its roofline formulas")
        return r, "roofline: the kernel's latency is 0 or unknown, so % of peak cannot be computed"
    return r, ""


def _dataset_contradiction(spec: dict, measures: dict | None, r: dict) -> str:
    """A dataset case whose parameters do not describe what its reference builds (summary.json says M=4096 while
    the reference hard-codes 256 rows): its formulas then count another problem's traffic, and every correct kernel
    would look impossibly fast. The dataset is to blame, not the kernel: the roofline keeps only the bytes the
    judge measured (which still arm the physics tripwire; a timing-only eval measures none), and the warning says
    so. Seen either way: the reference sets a parameter to another value (judge._param_mismatch), or the arrays it
    builds are not the traffic the formulas count (formulas may leave out small terms, so only a factor of 2)."""
    if spec.get("kind") != "dataset":
        return ""
    m = measures or {}
    measured = m.get("min_bytes") if isinstance(m.get("min_bytes"), int) and m["min_bytes"] > 0 else None
    declared = r.get("min_bytes")
    mismatch = m.get("param_mismatch") or {}
    if not mismatch and (measured is None or not declared or 0.5 <= declared / measured <= 2.0):
        return ""
    params = ", ".join(f"{k}={v}" for k, v in sorted((spec.get("params") or {}).items()))
    ref = os.path.basename(spec.get("reference_path") or "") or "its reference"
    if mismatch:
        sets = ", ".join(f"{k} = {own}" for k, (_, own) in sorted(mismatch.items()))
        but = f"but {ref} sets {sets}"
    else:
        but = f"whose roofline moves {declared:.4g} bytes, but {ref} builds inputs and outputs of {measured} bytes"
    r.update(min_bytes=float(measured) if measured else None, peak_ms=None, bound=None, percent_of_peak=None,
             flops=None, vector_flops=None, matmul_flops=None)
    r.pop("formulas", None)
    r["roofline_source"] = {"flops": None, "min_bytes": "input and output sizes" if measured else None}
    case = f"case {spec['case']} of " if spec.get("case") is not None else ""
    return (f"dataset: {case}problem {spec.get('name')!r} in {spec.get('dir')} declares {params or 'no parameters'}, "
            f"{but}: the case's parameters contradict the reference's shapes, so % of peak and bound are not "
            f"reported" + (" and the physics check uses the measured bytes" if measured else "") +
            "; fix the case's values in summary.json (or the reference)")


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
