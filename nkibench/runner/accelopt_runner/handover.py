"""What passes between the children of an nkisim evaluation, and what the runner makes of it (sandbox.run_child
starts the children; the runner README's "What the judge trusts" has the design).

The judge prepares the cases and keeps the references; the kernel's child gets only KERNEL_JOB_FIELDS and the
cases; the runner moves the kernel's outputs and its instruction trace to the judge as regular files, takes from
the kernel's result only KERNEL_RESULT_FIELDS of the expected types, the verdict and the timing from the judge, and
then applies physics() itself.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading

from . import child, kernelremote, stepsync
from .judge import SYNC, TRACE, case_stem, prepared_fields
from .kernelside import NEFF, NEFF_META

# What the kernel's child is told: how to run it, nothing of the task, the size or the seeds (the timing
# protocol's fields stay for a Neuron host without nrtpy, which times in the one process of evaluate.run).
KERNEL_JOB_FIELDS = ("id", "backend", "target", "kernel", "timeout_s", "limits", "warmup", "iters", "spread_tol",
                     "max_attempts", "timeline_cap", "timing_only", "generation", "function", "core")


def split(job: dict, steps) -> dict:
    """The eval's steps (steps: sandbox._Steps), and the result the runner composes of them: a checked nkisim eval
    in run_remote, a timing-only one in run_timed, a Neuron one here (the judge prepares the cases, the kernel's
    child compiles, the judge runs the NEFF and gives the verdict)."""
    kjob = {k: job[k] for k in KERNEL_JOB_FIELDS if k in job}
    kjob["role"] = "kernel"
    if remote(job):
        return run_remote(job, kjob, steps)
    if job["backend"] == "sim":
        return run_timed(job, kjob, steps)
    prepared, judge_folder = steps.run("judge", dict(job, role="prepare", times_shapes=False))  # a NEFF runs on arrays
    if prepared.get("status") != "prepared":
        return prepared
    if steps.cancel.is_set():
        return steps.fail("infra_error", "cancelled by the client") | {"cancelled": True}
    steps.judge_folder = judge_folder
    base = prepared_fields(prepared)
    if job.get("generation"):
        base["generation"] = job["generation"]  # the NKI generation that chose the route
    ran = compile_neff(kjob, steps)
    if ran.get("status") != "ok":  # the serving process's notes (generation, trust) still go with it
        return merge(base, prepared, ran, {"warnings": list(job.get("warnings") or [])})
    judged, _ = steps.run("judge", dict(job, role="verdict"), folder=judge_folder)
    return merge(base, prepared, ran, judged, status_from=judged, timing_from=judged)


def run_timed(job: dict, kjob: dict, steps) -> dict:
    """A timing-only nkisim eval: the judge's "timer" child (judge.timed) prepares the cases and stays alive while
    the kernel's child runs on them, then models the trace the runner hands over. The kernel's child starts with the
    judge and loads the kernel meanwhile, then waits for its inputs (kernelside.run, "await_inputs"); the two never
    compute at once (stepsync.py), so they never compete for a core."""
    steps.judge_folder = judge_folder = steps.make_folder("judge", job)
    kernel_folder = steps.make_folder("kernel", kjob)  # both zygotes warmed from this thread (sandbox.warm)
    sync = stepsync.RunnerEnd(os.path.join(judge_folder, SYNC))
    inputs = stepsync.Gate(os.path.join(kernel_folder, stepsync.INPUTS))
    out = {}

    unwanted = threading.Event()  # the task failed the judge: the kernel's child is stopped wherever it is

    def step(role, child_job, folder, **kw):
        return threading.Thread(target=lambda: out.update({role: steps.run(role, child_job, folder=folder, **kw)[0]}),
                                daemon=True)
    judge_t = step("judge", dict(job, role="timer"), judge_folder)
    kernel_t = step("kernel", dict(kjob, await_inputs=True), kernel_folder, retry=False, stop=unwanted)
    judge_t.start()
    kernel_t.start()
    ran = None
    try:
        if sync.wait_ready(judge_t.is_alive) and not steps.cancel.is_set():
            _move_regular(os.path.join(judge_folder, child.KERNEL_CASES), kernel_folder,
                          lambda name: name.startswith("case"))
            inputs.say(stepsync.GO)
            kernel_t.join()
            ran = out.get("kernel") or steps.fail("infra_error", "the kernel's step ended without a result")
            if ran.get("zygote_failed"):  # the kernel took its zygote down: once more in a fresh child
                ran, kernel_folder = steps.run("kernel", kjob, inputs_from=kernel_folder, cold=True)
            if ran.get("status") == "ok":
                move_outputs(kernel_folder, judge_folder)
    finally:
        if ran is None:
            unwanted.set()
        inputs.say(stepsync.STOP)
        sync.tell(stepsync.TRACE if ran is not None and ran.get("status") == "ok" else stepsync.STOP)
        kernel_t.join()
        judge_t.join()
        inputs.close()
        sync.close()
    if steps.cancel.is_set():  # whichever step saw it first, the eval was cancelled
        return steps.fail("infra_error", "cancelled by the client") | {"cancelled": True}
    judged = out.get("judge") or steps.fail("infra_error", "the judge's step ended without a result")
    prepared = judged.pop("prepared", None)
    if ran is None or not isinstance(prepared, dict):  # the task failed the judge: the kernel's run does not count
        return judged
    if ran.get("status") != "ok":
        return merge(prepared, judged, ran)
    return merge(prepared, {}, ran, judged, status_from=judged, timing_from=judged)


def judges_neff(job: dict) -> bool:
    """Whether a Neuron eval splits like an nkisim one, the judge running the NEFF (neffjudge.py): where the serving
    process found nrtpy. Without it the eval is one process, as before, and its result says so."""
    return job["backend"] == "neuron" and bool(job.get("neff_judge"))


def compile_neff(kjob: dict, steps) -> dict:
    """The kernel's child compiles on a copy of the first case (the judge keeps every case to run the NEFF on);
    its NEFF and the description of it move to the judge's folder as regular files."""
    judge_folder = steps.judge_folder
    one = os.path.join(judge_folder, "for-compile")
    os.makedirs(one, exist_ok=True)
    for ext in (".npz", ".json"):
        shutil.copyfile(case_stem(os.path.join(judge_folder, child.KERNEL_CASES), 0) + ext,
                        case_stem(one, 0) + ext)
    ran, kernel_folder = steps.run("kernel", dict(kjob, compile_only=True), inputs_from=one)
    if ran.get("status") == "ok":
        _move_regular(kernel_folder, judge_folder, lambda name: name in (NEFF, NEFF_META))
    return ran


def remote(job: dict) -> bool:
    """Whether the kernel's NKI calls run in the judge's sandbox (kernelremote.py): every checked nkisim eval. A
    timing-only one still records its trace in the kernel's process (loop replay needs the kernel's frames); its
    latency only decides whether the candidate gets checked, and the checked run is timed again here."""
    return job["backend"] == "sim" and not job.get("timing_only")


def run_remote(job: dict, kjob: dict, steps) -> dict:
    """The kernel's child and the judge's "simserver" child side by side, joined by two FIFOs. The server prepares
    the cases first (the kernel's child needs none of them, so it starts at once and waits for the server to
    open its end), then serves the kernel's calls, then judges what it ran: one judge process per checked eval. The
    kernel's child adds only what it printed, or why it died when the server saw only that it went away."""
    kjob = dict(kjob, remote=True)
    kjob.pop("timing_only", None)
    steps.judge_folder = steps.make_folder("judge", job)
    ran = _remote_attempt(job, kjob, steps, "rpc", cold=False)
    if ran.get("zygote_failed"):  # the kernel took its zygote down: both sides again, the kernel in a fresh child
        ran = _remote_attempt(job, kjob, steps, "rpc-again", cold=True)
    prepared = ran.pop("prepared", None)
    if not isinstance(prepared, dict):  # the task failed the judge before the kernel ran: that is the result
        return ran
    judged = ran.pop("verdict", None)
    if ran.get("status") != "ok":
        return merge(prepared, {}, ran)
    if not isinstance(judged, dict):
        judged, _ = steps.run("judge", dict(job, role="verdict"), folder=steps.judge_folder)
    return merge(prepared, {}, ran, judged, status_from=judged, timing_from=judged)


def _remote_attempt(job: dict, kjob: dict, steps, name: str, cold: bool) -> dict:
    judge_folder = steps.judge_folder
    rpc = os.path.join(judge_folder, name)
    kernelremote.make_fifos(rpc)
    # The kernel's step takes the FIFOs from a folder of the runner's own: when the judge's zygote fails, the judge's
    # step moves its folder, these FIFOs with it, to a cold child's, maybe while the kernel's step is linking them.
    rpc = kernelremote.link_fifos(rpc, tempfile.mkdtemp(prefix="accelopt-rpc-"))
    steps.folders.append(rpc)
    out = {}
    kernel_done = threading.Event()

    def server():
        try:
            out["server"], out["judge_folder"] = steps.run("judge", server_job, folder=judge_folder)
        except Exception as e:  # noqa: BLE001 - the kernel's step must not wait for a server that never comes
            out["server"] = steps.fail("infra_error", f"runner error in the judge's step: {type(e).__name__}: {e}")
        while not kernel_done.wait(0.05):
            kernelremote.unblock(rpc)  # the kernel's child may wait to open its end for a server that is gone

    # Zygotes are started from this thread, never from a helper thread they would die with (sandbox.warm); the
    # kernel's child runs from this one.
    server_job = dict(job, role="simserver", rpc=name)
    steps.warm("judge", server_job)
    t = threading.Thread(target=server, daemon=True)
    t.start()
    try:
        out["kernel"] = steps.run("kernel", kjob, inputs_from=rpc, cold=cold, retry=False)[0]
    finally:
        kernel_done.set()
    while t.is_alive():
        t.join(0.05)
        kernelremote.unblock(rpc)  # the server may wait to open its end for a kernel's child that is gone
    steps.judge_folder = out.get("judge_folder") or judge_folder  # moved if the judge's step ran cold
    srv, ker = out.get("server") or steps.fail("infra_error", "the nkisim server step ended without a result"), \
        out.get("kernel") or {}
    if not isinstance(srv.get("prepared"), dict):  # the task failed the judge, before any kernel call
        srv.pop("prepared", None)
        return srv
    for r in (srv, ker):
        if r.get("cancelled") or r.get("zygote_failed"):
            return r
    ran = dict(srv)
    # A kernel that hung or died: its own child knows the line it was on, or the signal; the server saw only that
    # it stopped answering (or timed out waiting for it).
    if srv.get("status") in ("timeout", "runtime_error") and (ker.get("status") == "timeout" or (
            ker.get("status") == "crashed" and srv.get("status") == "runtime_error")):
        ran.update(status=ker["status"], error=ker.get("error"), line=ker.get("line"))
    ran["output"] = str(ker.get("output") or "") + str(srv.get("output") or "")
    return ran


def move_outputs(kernel_folder: str, judge_folder: str):
    """The kernel's outputs (out<i>.npz/.json) and trace (trace.npz/.json) into the judge's folder, as regular
    files only (a link would make the judge read elsewhere)."""
    _move_regular(kernel_folder, judge_folder,
                  lambda name: name.startswith(("out", TRACE + ".")) and name.endswith((".npz", ".json")))


def _move_regular(src: str, dst: str, wanted):
    for name in os.listdir(src):
        path = os.path.join(src, name)
        if wanted(name) and os.path.isfile(path) and not os.path.islink(path):
            os.replace(path, os.path.join(dst, name))


# From the kernel's child, only these, and only when they have the expected shape: the rest of its result.json is
# the kernel's to write. Its timing comes from the judge, which models the trace (judge.timing).
KERNEL_RESULT_FIELDS = {"line": int}
TIMING_FIELDS = ("latency_ms", "rel_spread", "timing_attempts", "metrics", "profile", "trace_flops")


def merge(base: dict, prepared: dict, ran: dict, judged: dict | None = None, status_from: dict | None = None,
          timing_from: dict | None = None) -> dict:
    """One result of the steps' results. timing_from: the result that holds the latency, metrics and profile (the
    judge's)."""
    res = dict(base)
    for k, kinds in KERNEL_RESULT_FIELDS.items():
        if isinstance(ran.get(k), kinds) and not isinstance(ran.get(k), bool):
            res[k] = ran[k]
    notes = [w for r in (ran, judged) if r for w in (r.get("warnings") or []) if isinstance(w, str)]
    res["warnings"] = [w[:2000] for w in dict.fromkeys(notes)][:50]
    res["output"] = "".join(str(r.get("output") or "") for r in (prepared, ran, judged) if r)
    phase = {}
    for r in (prepared, ran, judged):
        for k, v in ((r or {}).get("phase_s") or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                phase[k] = round(phase.get(k, 0.0) + v, 3)
    res["phase_s"] = phase
    rss = [r.get("peak_rss_mb") for r in (prepared, ran, judged) if r and isinstance(r.get("peak_rss_mb"), float)]
    if rss:
        res["peak_rss_mb"] = max(rss)
    status = ran.get("status")
    if status not in ("ok", "incorrect", "compile_error", "runtime_error", "timeout", "crashed", "infra_error",
                      "rejected"):
        status = "crashed"
    res.update(status=status, error=ran.get("error") if status != "ok" else None)
    if status_from is not None:
        for k in ("status", "error", "correct", "l2_rel_err", "max_abs_err"):
            res[k] = status_from.get(k)
    elif status == "ok":  # timing only: nothing was compared
        res["correct"] = None
    for k in TIMING_FIELDS if timing_from is not None else ():
        if k in timing_from:
            res[k] = timing_from[k]
    if status == "incorrect":
        res["correct"] = False
    if res.get("status") != "ok":  # a failed eval has no timing, as when it stopped at its first failure
        res.update(latency_ms=None, rel_spread=None, metrics={}, profile=None)
        res.pop("timing_attempts", None)
    for r in (ran, judged):
        if r and r.get("cancelled"):
            res["cancelled"] = True
    return res


def physics(job: dict, res: dict) -> dict:
    """The roofline and the physics tripwires once more, here in the runner: the eval child ran the kernel, so what
    it says of its own % of peak could be anything. From the task and the reported latency: faster than the task's
    least memory traffic at peak bandwidth, or above 100 % of peak, is "rejected" with the numbers."""
    for note in (job.get("task_spec") or {}).get("warnings") or []:  # the task's own (a skipped summary.json)
        if isinstance(res, dict) and note not in res.setdefault("warnings", []):
            res["warnings"].append(note)
    if not isinstance(res, dict) or res.get("status") != "ok":
        if isinstance(res, dict):
            res.pop("task_measures", None)
        return res
    lat = res.get("latency_ms")
    mean = lat.get("mean") if isinstance(lat, dict) else None
    if isinstance(mean, bool) or not isinstance(mean, (int, float)):
        res.update(status="infra_error", error="the evaluation reported no latency")
        return res
    from .evaluate import faster_than_memory, roofline_or_warning
    rf, warning = roofline_or_warning(job.get("task_spec") or {}, job, mean, res.pop("task_measures", None))
    res["roofline"] = rf
    res.setdefault("warnings", [])
    if warning and warning not in res["warnings"]:
        res["warnings"].append(warning)
    why = faster_than_memory(rf, mean) or above_peak(rf, mean)
    if why:
        res.update(status="rejected", error=why)
    return res


def above_peak(rf, latency_ms) -> str:
    """Why a latency is impossible, or "": below the task's peak time (more than 100 % of peak)."""
    pct = (rf or {}).get("percent_of_peak")
    if pct is None or pct <= 100.0:
        return ""
    return (f"impossible: the kernel ran in {latency_ms:.4g} ms, below the {rf['peak_ms']:.4g} ms the task takes at "
            f"the hardware's peak ({pct:.4g} % of peak, bound: {rf.get('bound')}); no kernel exceeds 100 % of "
            f"peak, so this measurement is forged or broken")
