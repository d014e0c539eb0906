"""The eval child: `python -m accelopt_runner _child <workdir>` (started by sandbox.py, never by hand).

Reads <workdir>/job.json, applies the resource limits to itself, captures what the kernel prints, runs its part of
the evaluation with a soft wall-clock timer (so a timeout can name the kernel line), and writes
<workdir>/result.json. The job's role says which part: "prepare" and "verdict" (judge.py: the task's inputs and
reference, then the comparison; never kernel code), "timer" (both around the kernel's step: judge.timed),
"simserver" (kernelremote.py), "kernel" (kernelside.py: the kernel on the prepared inputs,
timed), or "whole" (evaluate.run, everything in one process: the Neuron backend).
"""
from __future__ import annotations

import io
import json
import os
import resource
import sys
import time
import traceback


class CappedWriter(io.TextIOBase):
    """Keeps the first `cap` characters written and counts the rest, so a kernel printing megabytes neither fills
    memory nor blocks on a pipe."""

    def __init__(self, cap: int):
        self.cap = cap
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, s):
        s = str(s)
        room = self.cap - self.kept
        if room > 0:
            self.parts.append(s[:room])
            self.kept += min(len(s), room)
        self.dropped += max(len(s) - max(room, 0), 0)
        return len(s)

    def flush(self):
        pass

    def text(self) -> str:
        t = "".join(self.parts)
        if self.dropped:
            t += f"\n[... {self.dropped} more characters of output dropped]"
        return t


def _limit(which, value):
    if value and value > 0:
        try:
            soft, hard = resource.getrlimit(which)
            v = int(value)
            if hard != resource.RLIM_INFINITY:
                v = min(v, hard)
            resource.setrlimit(which, (v, hard if hard != resource.RLIM_INFINITY else v))
        except (ValueError, OSError):
            pass


KERNEL_CASES = "for-kernel"  # where a "prepare" child leaves the kernel's inputs, for the runner to hand on


def main(workdir: str) -> int:
    t0 = time.monotonic()
    with open(os.path.join(workdir, "job.json"), encoding="utf-8") as f:
        job = json.load(f)
    os.unlink(os.path.join(workdir, "job.json"))  # not there for the kernel to read how it will be judged
    os.chdir(workdir)
    lim = job["limits"]
    _limit(resource.RLIMIT_AS, lim.get("memory_limit_mb", 0) * 1024 * 1024)
    _limit(resource.RLIMIT_CPU, lim.get("cpu_limit_s", 0))
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core dumps of a crashed kernel in the workdir
    except (ValueError, OSError):
        pass
    if lim.get("file_size_mb"):
        _limit(resource.RLIMIT_FSIZE, lim["file_size_mb"] * 1024 * 1024)

    from . import evaluate, limits
    out = CappedWriter(int(lim.get("output_cap_chars", 16384)))
    real_stdout, real_stderr = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = out
    res = evaluate.empty_result(job)
    kernel_files = set()
    backend = None
    role = job.get("role", "whole")
    try:
        evaluate.install_soft_timeout(float(job["timeout_s"]) - (time.monotonic() - t0) - 0.25)
        if role == "prepare":
            from . import judge
            res = judge.prepare(job, workdir, os.path.join(workdir, KERNEL_CASES))
        elif role == "verdict":
            from . import judge
            res = judge.verdict(job, workdir)
        elif role == "timer":  # prepare, wait for the kernel's run, model its trace (judge.timed)
            from . import judge
            res = judge.timed(job, workdir)
        elif role == "simserver":  # the kernel's NKI calls, run in the judge's sandbox (kernelremote.py)
            from . import kernelremote
            res = kernelremote.serve(job, workdir, lim)
        elif role == "kernel" and job.get("remote"):
            from . import kernelremote
            backend = kernelremote.ClientSide(job)
            res = backend.run(workdir)
        elif role == "probe":  # the task check's look at the reference (taskprobe.py), judge side
            from . import taskprobe
            res = taskprobe.run(job, workdir)
        elif job["backend"] == "neuron":
            from .backend_neuron import NeuronBackend
            backend = NeuronBackend(job["target"], workdir, job)
            if role == "kernel":  # compile only: the judge runs the NEFF (neffjudge.py)
                from . import kernelside
                res = kernelside.compile_neff(job, workdir, backend)
            else:
                res = evaluate.run(job, workdir, backend)
        else:
            from .backend_sim import SimBackend
            backend = SimBackend(job["target"], lim)
            if role == "kernel":
                from . import kernelside
                res = kernelside.run(job, workdir, backend)
            else:
                res = evaluate.run(job, workdir, backend)
    except evaluate.KernelFailure as kf:
        res.update(status=kf.status, error=kf.text(), line=kf.line or None)
    except evaluate.EvalTimeout as e:
        if backend is not None:
            kernel_files.add(getattr(backend, "filename", ""))
        line = evaluate.kernel_line(e.__traceback__, kernel_files)
        off = getattr(backend, "offset", 0)
        line = max(line - off, 0) if line else 0
        where = f"line {line}: " if line else ""
        res.update(status="timeout", line=line or None,
                   error=f"{where}the evaluation exceeded its time limit of {job['timeout_s']:g} s while "
                         f"{evaluate.PHASE['now']}" + (f" (the kernel was running line {line})" if line else ""))
    except evaluate.InfraError as e:
        res.update(status="infra_error", error=str(e))
    except MemoryError as e:
        # The backend turns a MemoryError while the kernel runs into a runtime_error itself; what arrives here
        # is the kernel's module code (while loading it) or the harness: inputs, the task reference, the check.
        phase = evaluate.PHASE["now"]
        in_kernel = phase == "loading the kernel"
        who = "in the kernel's module code" if in_kernel else \
            "in the evaluation harness (task inputs, reference or output check), not in the kernel"
        res.update(status="runtime_error" if in_kernel else "infra_error",
                   error=f"out of memory while {phase}, {who}: {e}; {limits.how_to_raise(lim)}")
    except BaseException as e:  # noqa: BLE001 - report, never die silently
        if backend is not None:
            kernel_files.add(getattr(backend, "filename", ""))
        line = evaluate.kernel_line(e.__traceback__, kernel_files)
        if line:
            line = max(line - getattr(backend, "offset", 0), 0)
            res.update(status="runtime_error", line=line, error=f"line {line}: the kernel raised "
                                                                 f"{type(e).__name__}: {e}")
        else:
            res.update(status="infra_error", error=f"runner error while {evaluate.PHASE['now']}: "
                                                   f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-6)}")
    finally:
        try:
            evaluate.cancel_soft_timeout()
        except Exception:  # noqa: BLE001
            pass
        sys.stdout, sys.stderr = real_stdout, real_stderr
    if role in ("simserver", "timer"):
        from . import judge
        if judge.PREPARED:
            res["prepared"] = dict(judge.PREPARED)
    res["output"] = out.text()
    res["wall_s"] = time.monotonic() - t0
    res["phase_s"] = evaluate.CLOCK.result()
    try:  # the child's peak resident memory (bwrap's own is small), to size the memory limit
        res["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    except (OSError, ValueError):
        pass
    tmp = os.path.join(workdir, "result.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(sanitize(res), f, allow_nan=False)
    os.replace(tmp, os.path.join(workdir, "result.json"))
    return 0


def _plain_numbers(values) -> bool:
    """Whether a list holds only ints and finite floats, which JSON takes as they are. Checked in bulk: a profile
    timeline's columns hold up to millions of numbers, and one sanitize call each was the slowest step in sending
    them."""
    import math
    types = set(map(type, values))
    if not types <= {int, float}:
        return False
    try:
        return float not in types or all(map(math.isfinite, values))
    except OverflowError:  # an int too large for a float is still plain JSON, but rare: take the slow path
        return False


def sanitize(o):
    """JSON-safe copy: numpy scalars to Python, non-finite floats to None (JSON has no NaN/Inf)."""
    import math
    if isinstance(o, dict):
        return {str(k): sanitize(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        if _plain_numbers(o):
            return list(o)
        return [sanitize(v) for v in o]
    if isinstance(o, bool) or o is None or isinstance(o, str):
        return o
    if isinstance(o, int):
        return o
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    o = _jsonable(o)
    return sanitize(o) if not isinstance(o, str) else o


def _jsonable(o):
    try:
        import numpy as np
        if isinstance(o, np.generic):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
    except ImportError:
        pass
    return str(o)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
