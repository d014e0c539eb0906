"""The judge's side of an nkisim evaluation, in processes that never run kernel code (sandbox.run_child starts them
in a sandbox of their own, which the kernel's process cannot see):

  prepare  builds the task's inputs for every seed and runs the reference; the kernel's inputs go to the kernel's
           folder as data (case<i>.npz/.json), the reference outputs stay here (ref<i>.npz/.json);
  verdict  takes the kernel's outputs as data (out<i>.npz/.json, moved here by the runner) and compares them with
           the references: correct or not, and the errors; then (timing) runs nkisim's performance model on the
           instruction trace the kernel's process recorded (trace.json/.npz, nkisim.traceio, checked field by
           field): the latency, metrics and profile. A timing-only eval has the timing step alone.

The kernel's process (kernelside.py) is told neither the seeds, nor the size, nor the task: it gets arrays, runs
the kernel on them and records its instruction trace. Whatever it does to its own interpreter cannot reach these
processes.
"""
from __future__ import annotations

import json
import math
import os
import re

import numpy as np

from . import arrays, correctness
from .evaluate import (CLOCK, PHASE, EvalTimeout, InfraError, _copy_inputs, _empty_arrays, empty_result,
                       reference_failure)
from .taskspec import LoadedTask, TaskError

CASES = "cases.json"
TRACE = "trace"  # the stem of the kernel's instruction trace (nkisim.traceio)
SYNC = "sync"  # the "timer" child's signals with the runner (stepsync.py)

# The prepare step's fields once it succeeded in a child that goes on after it (the "simserver" and "timer" roles):
# child.main adds them to whatever result the child ends with (a kernel that failed or hung too), so the runner can
# tell a task the judge could not prepare from a kernel that failed.
PREPARED: dict = {}


def case_stem(folder: str, i: int) -> str:
    return os.path.join(folder, f"case{i}")


def out_stem(folder: str, i: int) -> str:
    return os.path.join(folder, f"out{i}")


def _ref_stem(folder: str, i: int) -> str:
    return os.path.join(folder, f"ref{i}")


def _load_task(job: dict, workdir: str) -> LoadedTask:
    spec = job["task_spec"]
    PHASE["now"] = "loading the task"
    CLOCK.start("load")
    try:
        return LoadedTask(spec, workdir)
    except EvalTimeout:
        raise
    except TaskError as e:
        raise InfraError(str(e)) from None
    except BaseException as e:  # noqa: BLE001
        raise reference_failure(e, spec, workdir, "failed to load") from None


def header(job: dict) -> dict:
    res = empty_result(job)
    spec = job["task_spec"]
    res.update({"backend": job["backend"], "sdk": job.get("sdk"), "target": job["target"], "task": spec.get("name"),
                "size": spec.get("size"), "params": spec.get("params"), "seeds": list(job["seeds"])})
    return res


def prepared_fields(prepared: dict) -> dict:
    """What a prepare step adds to the eval's result (the task's arrays, how the timing inputs were made, ...)."""
    return {k: v for k, v in prepared.items() if k not in ("status", "error", "output", "phase_s", "peak_rss_mb")}


def prepare(job: dict, workdir: str, kernel_dir: str) -> dict:
    """Inputs for the kernel in kernel_dir, references in workdir; status "prepared", or why not."""
    res = header(job)
    spec = job["task_spec"]
    os.makedirs(kernel_dir, exist_ok=True)
    task = _load_task(job, workdir)
    seeds = list(job["seeds"])
    cases = {"count": 0}
    measures = {"param_mismatch": _param_mismatch(spec, task)} if spec.get("kind") == "dataset" else {}
    if job.get("timing_only"):
        PHASE["now"] = "building inputs"
        CLOCK.start("inputs")
        verified = bool(job.get("declaration_verified"))
        shapes = task.nki_input_shapes(seeds[-1], verified) if job.get("times_shapes", True) else None
        if shapes is not None and not verified:
            res["declaration_verified"] = True
        if shapes is not None:
            for i, (shape, _) in enumerate(shapes):
                if 0 in shape:
                    raise InfraError(f"the task's kernel input #{i} is declared with shape {shape}, with a 0 "
                                     f"dimension; every dimension must be at least 1: fix the task's parameters")
            cases["shapes"] = [[list(shape), np.dtype(dtype).name] for shape, dtype in shapes]
            res["timing_inputs"] = "declared shapes"
        else:
            try:
                nki_in = task.to_nki(task.get_inputs(seeds[-1]))
            except (EvalTimeout, MemoryError):
                raise
            except BaseException as e:  # noqa: BLE001
                raise reference_failure(e, spec, workdir, f"failed to build the inputs (seed {seeds[-1]})") from None
            _empty_arrays(nki_in, "kernel input", spec.get("params"))
            arrays.save(case_stem(kernel_dir, 0), nki_in)
            cases["count"] = 1
            res["timing_inputs"] = "built"
    else:
        io_bytes = None
        for i, seed in enumerate(seeds):
            PHASE["now"] = f"checking correctness (seed {seed}): building inputs"
            CLOCK.start("inputs")
            try:
                inputs = task.get_inputs(seed)
                PHASE["now"] = f"checking correctness (seed {seed}): running the task reference"
                CLOCK.start("reference")
                # a PyTorch reference counts its FLOPs once per eval (the roofline without formulas)
                ref = task.forward(_copy_inputs(inputs), count_flops=i == 0 and task.kind == "pytorch")
                PHASE["now"] = f"checking correctness (seed {seed}): building inputs"
                CLOCK.start("inputs")
                nki_in = task.to_nki(inputs)
            except (EvalTimeout, MemoryError):
                raise
            except BaseException as e:  # noqa: BLE001
                raise reference_failure(e, spec, workdir, f"failed for seed {seed}") from None
            _empty_arrays(inputs, "input", spec.get("params"))
            _empty_arrays(ref, "reference output", spec.get("params"))
            arrays.save(case_stem(kernel_dir, i), nki_in)
            arrays.save(_ref_stem(workdir, i), ref)
            if io_bytes is None:
                io_bytes = _nbytes(nki_in) + _nbytes(ref)
                # the shapes the task builds at this size (the task check reports them)
                res["task_arrays"] = {"kernel_inputs": _describe(nki_in), "reference_outputs": _describe(ref)}
            del inputs, ref, nki_in  # at full size each is up to 1 GiB
        cases["count"] = len(seeds)
        # what a roofline without formulas is made of (roofline_sources.py): this eval's least traffic, each kernel
        # input read and each output written once, and the FLOPs torch counted; the judge's figures, not the kernel's
        measures.update(min_bytes=io_bytes, flops=task.counted_flops, reference_kind=task.kind)
    if measures:
        res["task_measures"] = measures
    with open(os.path.join(kernel_dir, CASES), "w", encoding="utf-8") as f:
        json.dump(cases, f)
    res.update(status="prepared", error=None)
    return res


def timed(job: dict, workdir: str) -> dict:
    """The "timer" child of a timing-only nkisim eval, in the judge's folder: the cases (prepare); then, while the
    kernel's child runs on them, a wait for the runner's word (stepsync.py); then the model of the trace the runner
    handed over. One judge process across the kernel's step instead of a prepare child and a verdict child: one
    fork, one job and one result less per eval (issue 29's overhead)."""
    from . import stepsync
    from .child import KERNEL_CASES
    prepared = prepare(dict(job, times_shapes=True), workdir, os.path.join(workdir, KERNEL_CASES))
    if prepared.get("status") != "prepared":
        return prepared
    PREPARED.update(prepared_fields(prepared))
    PHASE["now"] = "waiting for the kernel's run"
    CLOCK.stop()  # the kernel's time, not the judge's
    if stepsync.ready_then_wait(os.path.join(workdir, SYNC)) != stepsync.TRACE:
        res = header(job)  # nothing to judge: the kernel's own result is the eval's
        res.update(status="prepared", error=None)
        return res
    return verdict(job, workdir)


def _param_mismatch(spec: dict, task: LoadedTask) -> dict:
    """A dataset case's parameters that its reference sets otherwise ({"M": [4096, 256]}): the original references
    hard-code their shapes as module constants, so a case whose values differ describes another problem size."""
    out = {}
    params = spec.get("params") or {}
    for k, v in params.items():
        own = getattr(task.mod, k, None) if isinstance(k, str) and k.isidentifier() else None
        if isinstance(own, int) and not isinstance(own, bool) and isinstance(v, int) and own != v:
            out[k] = [v, own]
    # Names are the dataset's choice: a case may call the reference's N and D "M" and "N". The same size is
    # the same problem, so a renaming is no contradiction: the product of the case's values against the
    # product of the reference's dimension constants (capitalised whole numbers) decides.
    dims = [v for k, v in vars(task.mod).items() if re.fullmatch(r"[A-Z][A-Za-z0-9_]{0,7}", k)
            and isinstance(v, int) and not isinstance(v, bool) and v > 0]
    declared = [v for v in params.values() if isinstance(v, int) and not isinstance(v, bool) and v > 0]
    if out and dims and math.prod(dims) == math.prod(declared):
        return {}
    return out


def _describe(xs) -> list:
    return [{"shape": list(np.shape(x)), "dtype": np.asarray(x).dtype.name} for x in xs]


def _nbytes(xs) -> int:
    return int(sum(x.nbytes for x in xs if isinstance(x, np.ndarray)))


def verdict(job: dict, workdir: str, trace: list | None = None) -> dict:
    """Correctness of the kernel's outputs (out<i>) against the references (ref<i>): status "ok" or "incorrect"
    with correct, l2_rel_err, max_abs_err and error; when ok, the timing of its trace (timing()). On a Neuron host
    the outputs and the timing are the NEFF's, run here (neffjudge.py)."""
    res = header(job)
    device = None
    if job["backend"] == "neuron" and job.get("neff_judge"):  # the kernel's child handed over a NEFF: run it here
        from .neffjudge import NeffJudge
        device = NeffJudge(job, workdir)
        if not job.get("timing_only"):
            device.run_cases()
    if not job.get("timing_only"):
        res = _compare(job, workdir, res)
        if res.get("status") != "ok":
            return res
    else:
        res.update(status="ok", correct=None, error=None)
    if device is not None:
        return device.timing(res)
    return timing(job, workdir, res, trace) if job["backend"] == "sim" else res  # else timed in evaluate.run's


def timing(job: dict, workdir: str, res: dict, trace: list | None = None) -> dict:
    """latency_ms, rel_spread, timing_attempts, metrics and profile from the kernel's trace (handed over as files,
    or trace: the one this process recorded); a trace that is not what nkisim writes, or that the model cannot cost,
    is "rejected" with the reason."""
    from nkisim import traceio
    from .backend_sim import add_header
    from .tracetiming import TraceTiming
    PHASE["now"] = "modelling the kernel's instruction trace"
    CLOCK.start("timing")
    instrs = trace
    try:
        if instrs is None:
            instrs = traceio.load(os.path.join(workdir, TRACE))
    except traceio.TraceFormatError as e:
        res.update(status="rejected", correct=None, error=f"the kernel's instruction trace was not accepted: {e}")
        return res
    source = job.get("kernel") or ""
    tt = TraceTiming(instrs, job["target"], add_header(source)[1], len(source.splitlines()))
    try:
        res.update(tt.benchmark(job))
        res["metrics"] = tt.metrics()
        res["profile"] = tt.profile(int(job.get("timeline_cap") or 0))
        res["trace_flops"] = tt.flop_counts()
    except (EvalTimeout, MemoryError):
        raise
    except Exception as e:  # noqa: BLE001 - a trace with fields of the right type but no meaning
        res.update(status="rejected", correct=None, latency_ms=None, metrics={}, profile=None,
                   error=f"nkisim's performance model cannot cost the kernel's instruction trace: "
                         f"{type(e).__name__}: {e}")
    return res


def _compare(job: dict, workdir: str, res: dict) -> dict:
    seeds = list(job["seeds"])
    rel_tol = float(job.get("rel_tol") or job["task_spec"].get("rel_tol") or 2e-5)
    task = _load_task(job, workdir)
    worst_rel = worst_abs = 0.0
    first_mismatch = None
    digests = []  # (output, reference) per seed: a constant or cached result gives one output for all
    for si, seed in enumerate(seeds):
        PHASE["now"] = f"checking correctness (seed {seed}): comparing with the reference"
        CLOCK.start("check")
        ref, _ = arrays.load(_ref_stem(workdir, si))
        try:
            values, single = arrays.load(out_stem(workdir, si))
        except arrays.ArrayError as e:
            res.update(status="incorrect", correct=False, error=f"the kernel's outputs for check {si + 1} of "
                                                                f"{len(seeds)} were not handed over: {e}")
            return res
        kres = values[0] if single and len(values) == 1 else tuple(values)
        try:
            outs = task.from_nki(kres, ref)
        except EvalTimeout:
            raise
        except BaseException as e:  # noqa: BLE001 - a wrong-shaped output breaks the reshape back
            shapes = [tuple(np.shape(o)) for o in values]
            res.update(status="incorrect", correct=False,
                       error=f"the kernel's outputs (shapes {shapes}) could not be transformed to the "
                             f"reference's (shapes {[tuple(r.shape) for r in ref]}): {type(e).__name__}: {e}")
            return res
        if job.get("save_outputs"):
            np.savez(os.path.join(workdir, f"outputs_seed{si}.npz"), *[np.asarray(o) for o in outs])
        digests.append((correctness.digest(outs), correctness.digest(ref)))
        try:
            rel, mabs = correctness.compare(outs, ref, rel_tol)
        except correctness.Mismatch as m:
            if first_mismatch is None:
                first_mismatch = (seed, si, m)
            if not job.get("save_outputs"):
                break
            continue
        worst_rel, worst_abs = max(worst_rel, rel), max(worst_abs, mabs)
    if first_mismatch is not None:
        seed, si, m = first_mismatch
        msg = str(m)
        if _constant(digests, si, job, workdir, task, seeds):
            msg = "the kernel returned the same output for different inputs (a cached or constant result): " + msg
        res.update(status="incorrect", correct=False, error=f"seed {seed} (check {si + 1} of {len(seeds)}): {msg}",
                   l2_rel_err=m.l2_rel_err, max_abs_err=m.max_abs_err)
        return res
    res.update(status="ok", correct=True, l2_rel_err=worst_rel, max_abs_err=worst_abs, error=None)
    return res


def _constant(digests: list, si: int, job: dict, workdir: str, task: LoadedTask, seeds: list) -> bool:
    """Whether the mismatching seed's output equals another seed's while their references differ."""
    if si + 1 < len(seeds) and len(digests) == si + 1:
        try:  # the next seed's output was not compared yet: read it for the hint
            ref, _ = arrays.load(_ref_stem(workdir, si + 1))
            values, single = arrays.load(out_stem(workdir, si + 1))
            kres = values[0] if single and len(values) == 1 else tuple(values)
            digests.append((correctness.digest(task.from_nki(kres, ref)), correctness.digest(ref)))
        except EvalTimeout:
            raise
        except BaseException:  # noqa: BLE001 - only a hint; the mismatch stands
            pass
    out, ref = digests[si]
    return any(o == out and r != ref for j, (o, r) in enumerate(digests) if j != si)
