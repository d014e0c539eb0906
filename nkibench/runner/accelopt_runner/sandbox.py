"""Runs one evaluation in its own child process: a private temporary working folder (the child's cwd, HOME and
TMPDIR), resource limits (the child applies RLIMIT_AS / RLIMIT_CPU / RLIMIT_FSIZE to itself before any task or
kernel code runs), a wall-clock timeout, cancellation, captured and capped output, and the sandbox
(confinement.py: own namespaces, no capabilities, a seccomp filter, a file system of only what an evaluation
reads, only the working folder writable). Without the sandbox an eval is refused unless it was turned off.
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from . import NKIBENCH_DIR, RUNNER_DIR, confinement
from .limits import BLAS_THREAD_VARS, how_to_raise
from .zygote_client import ZygoteClient, ZygoteError

log = logging.getLogger("accelopt_runner.sandbox")
_bwrap_cache: dict = {}


def bwrap_status(disabled: bool = False) -> dict:
    """{"active": bool, "bwrap": path|None, "reason": str, "required": bool}: whether evaluations get the sandbox
    (confinement.py), checked from inside once per runner. "required": an eval without it is refused (unless the
    runner was started with --no-sandbox or ACCELOPT_RUNNER_NO_SANDBOX=1)."""
    if disabled or confinement.disabled_by_environment():
        how = "--no-sandbox" if disabled else f"{confinement.NO_SANDBOX_VAR}=1"
        return {"active": False, "bwrap": None, "required": False,
                "reason": f"disabled by {how}: kernels run with the runner's own rights"}
    if "v" in _bwrap_cache:
        return _bwrap_cache["v"]
    path = shutil.which("bwrap")
    if not path:
        st = {"active": False, "bwrap": None, "required": True, "reason": "bubblewrap (bwrap) is not installed"}
    else:
        ok, reason, disable_userns = confinement.probe(path, sys.executable)
        st = {"active": ok, "bwrap": path, "required": True, "reason": reason, "disable_userns": disable_userns}
    _bwrap_cache["v"] = st
    return st


class _Drain(threading.Thread):
    """Reads a pipe to the end, keeping the first `cap` bytes (the rest is read and dropped, so the child never
    blocks on a full pipe)."""

    def __init__(self, stream, cap: int):
        super().__init__(daemon=True)
        self.stream, self.cap = stream, cap
        self.buf = bytearray()
        self.dropped = 0

    def run(self):
        try:
            while True:
                chunk = self.stream.read1(65536) if hasattr(self.stream, "read1") else self.stream.read(65536)
                if not chunk:
                    break
                room = self.cap - len(self.buf)
                if room > 0:
                    self.buf += chunk[:room]
                self.dropped += max(len(chunk) - max(room, 0), 0)
        except (OSError, ValueError):
            pass

    def text(self) -> str:
        t = self.buf.decode("utf-8", errors="replace")
        return t + (f"\n[... {self.dropped} more bytes dropped]" if self.dropped else "")


# The eval child's environment is built from an allow-list, not inherited: the runner's own environment may hold
# secrets (the workbench's local host used to hand its whole environment on, LLM API keys included), and the child
# runs untrusted kernel code. Passed on from the runner's environment: these names, and names with these prefixes.
CHILD_ENV_NAMES = ("PATH", "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME", "LD_LIBRARY_PATH", "VIRTUAL_ENV")
CHILD_ENV_PREFIXES = ("LC_",  # locale
                      "NEURON_",  # the Neuron SDK's compiler and runtime settings (NEURON_RT_* are set per eval)
                      "NKISIM_",  # nkisim's switches (NKISIM_REPLAY, NKISIM_TARGET, NKISIM_NO_MALLOPT)
                      "MALLOC_",  # glibc malloc tuning, which nkisim's memory setup defers to
                      "OPENBLAS_", "OMP_", "MKL_", "GOTO_")  # BLAS threads (BLAS_THREAD_VARS) and tuning
# More names for a host that needs them (comma-separated), e.g. a site's SDK variable or a test stand-in's log.
CHILD_ENV_EXTRA = "ACCELOPT_RUNNER_CHILD_ENV"


def child_env(job: dict, workdir: str, environ=None) -> dict:
    """The eval child's environment: the allow-listed variables of the runner's environment, then HOME and TMPDIR
    (the private workdir), PYTHONPATH (the runner and nkisim, then the runner's own PYTHONPATH), Python's I/O
    settings, BLAS threads per eval unless the host set them, and for the neuron backend its core and target."""
    environ = os.environ if environ is None else environ
    extra = {n.strip() for n in environ.get(CHILD_ENV_EXTRA, "").split(",") if n.strip()}
    env = {k: v for k, v in environ.items()
           if (k in CHILD_ENV_NAMES or k in extra or k.startswith(CHILD_ENV_PREFIXES))
           and not k.startswith("NEURON_RT_")}
    env.setdefault("PATH", os.defpath)
    pp = [RUNNER_DIR, NKIBENCH_DIR] + [p for p in environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env.update(PYTHONPATH=os.pathsep.join(dict.fromkeys(pp)), HOME=workdir, TMPDIR=workdir,
               PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8")
    for var in BLAS_THREAD_VARS:  # a value the host's owner set wins
        env.setdefault(var, str(job["limits"].get("blas_threads", 1)))
    if job["backend"] == "neuron":
        env["NEURON_RT_VISIBLE_CORES"] = str(job.get("core", 0))
        flags = env.get("NEURON_CC_FLAGS", "")
        if "--auto-cast" not in flags:
            env["NEURON_CC_FLAGS"] = (flags + " --auto-cast=none").strip()
        env["NEURON_PLATFORM_TARGET_OVERRIDE"] = job["target"]
    return env


def _signame(n: int) -> str:
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


_ZYGOTE: dict = {"client": None}  # evals run one at a time per runner process (one slot), so one zygote


def close_zygote():
    """Stops the slot's zygote, if one runs (at shutdown, and when a job needs another sandbox)."""
    client, _ZYGOTE["client"] = _ZYGOTE["client"], None
    if client is not None:
        client.close()


def _wrap_for(job: dict, env: dict, sandbox: dict, python: str | None):
    """writable_dir -> the sandbox's command prefix (empty without bwrap), and the key that says which zygote may run
    this job: the same interpreter, environment and sandbox."""
    if not sandbox.get("active"):
        return (lambda _dir: []), ("plain", python)
    spec = job.get("task_spec") or {}
    readable = [RUNNER_DIR, NKIBENCH_DIR, spec.get("dir"), os.path.dirname(spec.get("reference_path") or ""),
                os.path.dirname(os.path.dirname(os.path.abspath(python or sys.executable)))]
    readable += env["PYTHONPATH"].split(os.pathsep)
    readable = tuple(dict.fromkeys(p for p in readable if p))
    neuron = job["backend"] == "neuron"

    def wrap(writable: str) -> list:
        return confinement.wrap_command(sandbox["bwrap"], sandbox.get("disable_userns", True), neuron, readable,
                                        writable)
    return wrap, ("bwrap", python, neuron, readable)


def _zygote_for(job: dict, env: dict, wrap, key, python: str | None):
    """The slot's zygote for this job, started or replaced as needed; None when it cannot start (the job then runs
    in a cold child, as every job did before)."""
    key = (key, tuple(sorted((k, v) for k, v in env.items() if k not in ("HOME", "TMPDIR"))))
    client = _ZYGOTE["client"]
    if client is not None and (client.key != key or not client.alive()):
        close_zygote()
        client = None
    if client is None:
        try:
            client = ZygoteClient(key, wrap, python or sys.executable, env)
        except ZygoteError as e:
            log.warning("evaluations run in cold children: %s", e)
            return None
        _ZYGOTE["client"] = client
    return client


def _run_cold(wrap, env: dict, workdir: str, python: str | None, cap: int, cancel: threading.Event,
              hard_deadline: float) -> dict:
    """One evaluation in a fresh Python (in the sandbox when active): the same outcome as ZygoteClient.run."""
    cmd = wrap(workdir) + [python or sys.executable, "-m", "accelopt_runner", "_child", workdir]
    proc = confinement.launch(cmd, cwd=workdir, env=dict(env, HOME=workdir, TMPDIR=workdir),
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              start_new_session=True)
    d_out, d_err = _Drain(proc.stdout, cap), _Drain(proc.stderr, cap)
    d_out.start()
    d_err.start()
    why = None
    while True:
        # exited, but not yet reaped: its pid still names its process group, which is killed below
        if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            break
        time.sleep(0.02)
        if cancel.is_set():
            why = "cancelled"
        elif time.monotonic() > hard_deadline:
            why = "timeout"
        if why:
            break
    try:  # what the evaluation left running in its group goes with it
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
    d_out.join(5)
    d_err.join(5)
    return {"returncode": proc.returncode, "stdout": d_out.text(), "stderr": d_err.text(), "why": why}


def run_child(job: dict, cancel: threading.Event, sandbox: dict, python: str | None = None,
              keep_workdir: bool = False, collect_dir: str | None = None, zygote: bool = False) -> dict:
    """Run job (a normalised eval request, see jobs.py) in a child; always returns a result dict. collect_dir: move
    the outputs the child saved (job "save_outputs": outputs_seed<i>.npz) there before the workdir goes. zygote: fork
    the child from the slot's warm template (nkisim evals only; a kept workdir would go with the zygote's folder)."""
    t0 = time.monotonic()
    if sandbox.get("required") and not sandbox.get("active"):
        return _fail(job, "infra_error", confinement.refusal(sandbox.get("reason") or "it is unavailable"), t0)
    env = child_env(job, "")
    wrap, key = _wrap_for(job, env, sandbox, python)
    client = None
    if zygote and job["backend"] == "sim" and not keep_workdir:
        client = _zygote_for(job, env, wrap, key, python)
    workdirs = [_workdir_for(job, client.slotdir if client else None)]
    broken = None
    try:
        cap = int(job["limits"].get("output_cap_chars", 16384))
        hard = t0 + float(job["timeout_s"]) + float(job["limits"].get("grace_s", 5.0))
        outcome = None
        if client is not None:
            try:
                outcome = client.run(workdirs[-1], {"HOME": workdirs[-1], "TMPDIR": workdirs[-1]}, cap, cancel, hard)
            except ZygoteError as e:  # the zygote failed, not the kernel: run this one cold, start afresh next time
                log.warning("the slot's zygote failed (%s); this evaluation runs in a cold child", e)
                broken, _ZYGOTE["client"] = client, None
                # a folder of its own: nothing the first attempt wrote there (a result.json) may be taken for this
                # one's
                workdirs.append(_workdir_for(job, None))
        if outcome is None:
            try:
                outcome = _run_cold(wrap, env, workdirs[-1], python, cap, cancel, hard)
            except OSError as e:
                return _fail(job, "infra_error", f"cannot start the evaluation process: {e}", t0)
        return _outcome_result(job, outcome, workdirs[-1], sandbox, t0)
    finally:
        if collect_dir:
            for fn in os.listdir(workdirs[-1]):
                if fn.startswith("outputs_seed") and fn.endswith(".npz"):
                    shutil.move(os.path.join(workdirs[-1], fn), os.path.join(collect_dir, fn))
        if not keep_workdir:
            for workdir in workdirs:
                shutil.rmtree(workdir, ignore_errors=True)
        if broken is not None:
            broken.close()


def _workdir_for(job: dict, parent: str | None) -> str:
    """A new eval folder holding the job (which the child reads, then deletes)."""
    workdir = tempfile.mkdtemp(prefix="accelopt-eval-", dir=parent)
    with open(os.path.join(workdir, "job.json"), "w", encoding="utf-8") as f:
        json.dump(job, f)
    return workdir


def _outcome_result(job: dict, outcome: dict, workdir: str, sandbox: dict, t0: float) -> dict:
    """The result of a finished, killed or crashed child from its result.json, exit status and output."""
    why, err_text = outcome["why"], outcome["stderr"]
    if err_text.strip():
        log.info("eval %s child stderr:\n%s", job.get("id"), err_text[-4000:])
    if why == "cancelled":
        r = _fail(job, "infra_error", "cancelled by the client", t0)
        r["cancelled"] = True
        return r
    if why == "timeout":
        return _fail(job, "timeout", f"the evaluation exceeded its time limit of {job['timeout_s']:g} s and was "
                                     f"killed (the kernel did not return to Python to be interrupted)", t0)
    rp = os.path.join(workdir, "result.json")
    if os.path.isfile(rp):
        try:
            with open(rp, encoding="utf-8") as f:
                res = json.load(f)
            extra = outcome["stdout"]
            if extra.strip():
                res["output"] = (res.get("output") or "") + extra
            res["wall_s"] = time.monotonic() - t0
            return _physics(job, res)
        except (OSError, ValueError) as e:
            return _fail(job, "crashed", f"the evaluation process wrote an unreadable result: {e}", t0)
    rc = outcome["returncode"]
    tail = err_text.strip()[-1500:]
    mem = job["limits"].get("memory_limit_mb")
    if rc is not None and rc < 0:
        sig = -rc
        if sig == signal.SIGXCPU:
            return _fail(job, "timeout", f"the evaluation exceeded its CPU time limit of "
                                         f"{job['limits'].get('cpu_limit_s')} s", t0)
        hint = ""
        if sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT):
            hint = (f" (most likely memory exhaustion: {how_to_raise(job['limits'])})" if mem else
                    " (possibly memory exhaustion: the host ran out of memory)")
        if sig == signal.SIGXFSZ:
            hint = " (it wrote more than the file size limit)"
        return _fail(job, "crashed", f"the evaluation process died from {_signame(sig)}{hint}"
                                     + (f"; stderr: {tail}" if tail else ""), t0)
    if sandbox.get("active") and "bwrap:" in tail:
        return _fail(job, "infra_error", f"the sandbox (bwrap) failed: {tail}", t0)
    if "MemoryError" in tail:
        return _fail(job, "crashed", f"the evaluation process ran out of memory ({how_to_raise(job['limits'])}): "
                                     f"{tail}", t0)
    return _fail(job, "crashed", f"the evaluation process exited with code {rc} without a result"
                                 + (f"; stderr: {tail}" if tail else ""), t0)


def _physics(job: dict, res: dict) -> dict:
    """The roofline and the physics tripwires once more, here in the runner: the eval child ran the kernel, so what
    it says of its own % of peak could be anything. From the task and the reported latency: faster than the task's
    least memory traffic at peak bandwidth, or above 100 % of peak, is "rejected" with the numbers."""
    if not isinstance(res, dict) or res.get("status") != "ok":
        return res
    lat = res.get("latency_ms")
    mean = lat.get("mean") if isinstance(lat, dict) else None
    if isinstance(mean, bool) or not isinstance(mean, (int, float)):
        res.update(status="infra_error", error="the evaluation reported no latency")
        return res
    from .evaluate import faster_than_memory, roofline_or_warning
    rf, _ = roofline_or_warning(job.get("task_spec") or {}, job, mean)
    res["roofline"] = rf
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


def _fail(job: dict, status: str, error: str, t0: float) -> dict:
    from .evaluate import empty_result
    r = empty_result(job)
    r.update(status=status, error=error, wall_s=time.monotonic() - t0, backend=job.get("backend"),
             target=job.get("target"))
    return r
