"""The kernel's side of an nkisim evaluation (role "kernel"): load the kernel, run it on the cases the judge
prepared (case<i>, arrays handed over as data), and hand back, the same way, its outputs (out<i>) and the
instruction trace of its last run (trace.json/.npz, nkisim.traceio). On a Neuron host (evaluate.run, one process)
it times the kernel on the device instead.

Its job names no task, size or seeds, and this process computes neither a verdict nor a time: judge.py compares
the outputs and models the trace in a process the kernel never ran in, and the runner computes the roofline and
its tripwires from the task itself. What the kernel still decides is the instruction stream it hands over, which
is what is timed (see the runner README, "What the judge trusts").
"""
from __future__ import annotations

import json
import os

from . import arrays, timing
from .evaluate import CLOCK, PHASE, KernelFailure, _copy_inputs, _written_inputs, empty_result
from .judge import CASES, TRACE, case_stem, out_stem


def run(job: dict, workdir: str, backend, save_trace: bool = True) -> dict:
    """save_trace: hand the trace over as files (the judge's own server keeps it in memory instead)."""
    res = empty_result(job)
    res.update(backend=job["backend"], target=job["target"])
    PHASE["now"] = "loading the kernel"
    CLOCK.start("load")
    backend.load(job["kernel"], job.get("function"))
    if job.get("await_inputs"):  # started before the judge had prepared them (handover.run_timed)
        from . import stepsync
        PHASE["now"] = "waiting for the kernel's inputs"
        CLOCK.stop()
        # The runner says STOP only when it will not use this result; anything else but its GO, or a GO before
        # the inputs, was written by the kernel's own process.
        word = stepsync.await_word(os.path.join(workdir, stepsync.INPUTS))
        if not word.startswith(stepsync.GO) or not os.path.isfile(os.path.join(workdir, CASES)):
            raise KernelFailure("runtime_error", f"not run: no inputs ({word[:16]!r} on the runner's FIFO in the "
                                                 f"kernel's folder, which the kernel's process may have written)")
    with open(os.path.join(workdir, CASES), encoding="utf-8") as f:
        cases = json.load(f)
    bench_inputs = None
    if cases.get("shapes") is not None:
        bench_inputs = backend.placeholders([(tuple(s), d) for s, d in cases["shapes"]])
    for i in range(int(cases.get("count", 0))):
        PHASE["now"] = f"running the kernel (check {i + 1} of {cases['count']})"
        CLOCK.start("inputs")
        nki_in, _ = arrays.load(case_stem(workdir, i))
        if job.get("timing_only"):
            bench_inputs = nki_in
            break
        saved = _copy_inputs(nki_in)
        CLOCK.start("kernel")
        kres = backend.run(nki_in, numeric=True)  # raises KernelFailure
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
        CLOCK.start("check")
        single = not isinstance(kres, (tuple, list))
        arrays.save(out_stem(workdir, i), [kres] if single else list(kres), single=single)
        bench_inputs = nki_in
        del kres, saved
    if getattr(backend, "records_trace", False):
        PHASE["now"] = "recording the instruction trace"
        CLOCK.start("timing")
        if backend.last is None:  # timing-only: trace without numerics
            backend.run(bench_inputs, numeric=False)
        if save_trace:
            from nkisim import traceio
            traceio.save(backend.last.trace, os.path.join(workdir, TRACE))
    else:  # a Neuron host: the device is timed here, in the one process of evaluate.run
        PHASE["now"] = "timing"
        CLOCK.start("timing")
        lat, rs, attempts = timing.benchmark(lambda w, n: backend.measure(bench_inputs, w, n),
                                             job["warmup"], job["iters"], job["spread_tol"], job["max_attempts"],
                                             pause_s=backend.retry_pause_s)
        res.update(latency_ms=lat, rel_spread=rs, timing_attempts=attempts)
        PHASE["now"] = "collecting metrics"
        CLOCK.start("metrics")
        res["metrics"] = backend.metrics()
        res["profile"] = backend.profile(job["timeline_cap"])
    res["warnings"] = [str(w) for w in getattr(backend, "warnings", None) or []]
    res.update(status="ok", error=None)
    return res


NEFF, NEFF_META = "compiled.neff", "compiled.json"  # what a Neuron kernel's child hands to the judge


def compile_neff(job: dict, workdir: str, backend) -> dict:
    """The kernel's side of a Neuron evaluation where the judge runs the NEFF (neffjudge.py): compile on the one
    case it is given and hand over the NEFF, with what the judge needs to feed it and read its outputs (the
    kernel's array parameters, the shapes and dtypes its compile run returned). Nothing of this is believed beyond
    that: the judge runs the NEFF itself."""
    import shutil
    res = empty_result(job)
    res.update(backend=job["backend"], target=job["target"])
    PHASE["now"] = "loading the kernel"
    CLOCK.start("load")
    backend.load(job["kernel"], job.get("function"))
    nki_in, _ = arrays.load(case_stem(workdir, 0))
    PHASE["now"] = "compiling the kernel"
    CLOCK.start("kernel")
    neff = backend.compile(nki_in)  # raises KernelFailure
    first = backend.first_outputs
    outs = list(first) if isinstance(first, (tuple, list)) else [first]
    meta = {"parameters": [n for n, a in zip(backend.arg_names, nki_in) if hasattr(a, "shape")],
            "outputs": [{"shape": [int(d) for d in getattr(o, "shape", ())], "dtype": str(getattr(o, "dtype", ""))}
                        for o in outs if hasattr(o, "shape")],
            "single": not isinstance(first, (tuple, list))}
    shutil.copyfile(neff, os.path.join(workdir, NEFF))
    with open(os.path.join(workdir, NEFF_META), "w", encoding="utf-8") as f:
        json.dump(meta, f)
    res["warnings"] = [str(w) for w in getattr(backend, "warnings", None) or []]
    res.update(status="ok", error=None)
    return res
