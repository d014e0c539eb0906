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
import stat
import signal
import subprocess
import sys
import tempfile
import threading
import time

from . import NKIBENCH_DIR, RUNNER_DIR, confinement, handover
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


# Evals run one at a time per runner process (one slot), so one zygote per role: "kernel" forks the processes that
# run kernel code, "judge" those that prepare and judge them. A kernel never shares a sandbox with its judge.
_ZYGOTES: dict = {}


# Folders of evaluations whose result is out, removed by tidy(): a serving runner sends the result first.
_DONE_FOLDERS: list = []


def tidy():
    """Removes the folders of the evaluations that ended: once their result is sent (serve's worker), and at the
    latest before the next evaluation starts. Removing them took 1-10 ms of the evaluation's own time on a 2-core
    machine. Nothing of an evaluation reaches the next meanwhile: none of its processes runs after its steps'
    reports (zygote.py), and a zygote empties its slot folder but for the new job's before it hands the job out."""
    while _DONE_FOLDERS:
        shutil.rmtree(_DONE_FOLDERS.pop(), ignore_errors=True)


def close_zygote(role: str | None = None):
    """Stops the slot's zygotes (at shutdown), or the one of role (when a job needs another sandbox, or it died):
    then its folder goes with tidy(), since a step of the running evaluation may have its folder there."""
    for r in [role] if role else list(_ZYGOTES):
        client = _ZYGOTES.pop(r, None)
        if client is not None:
            client.close(keep_slot=role is not None)
            if role is not None:
                _DONE_FOLDERS.append(client.slotdir)


def _wrap_for(job: dict, env: dict, sandbox: dict, python: str | None):
    """writable_dir -> the sandbox's command prefix (empty without bwrap), and the key that says which zygote may run
    this job: the same interpreter, environment and sandbox."""
    if not sandbox.get("active"):
        return (lambda _dir: []), ("plain", python)
    spec = job.get("task_spec") or {}
    readable = [RUNNER_DIR, NKIBENCH_DIR, spec.get("dir"), os.path.dirname(spec.get("reference_path") or ""),
                os.path.dirname(os.path.dirname(os.path.abspath(python or sys.executable)))]
    readable += env["PYTHONPATH"].split(os.pathsep)
    readable = _outermost(p for p in readable if p)
    neuron = job["backend"] == "neuron"

    def wrap(writable: str) -> list:
        return confinement.wrap_command(sandbox["bwrap"], sandbox.get("disable_userns", True), neuron, readable,
                                        writable)
    return wrap, ("bwrap", python, neuron, readable)


def _outermost(paths) -> tuple:
    """The folders of paths that no other one contains: the same view, and the same zygote key for every task
    whose folder is already readable (the built-in tasks under nkibench/), so a suite does not start the judge's
    zygote afresh for each task."""
    ps = list(dict.fromkeys(os.path.abspath(p) for p in paths))
    return tuple(p for p in ps if not any(q != p and p.startswith(q.rstrip(os.sep) + os.sep) for q in ps))


def _zygote_for(role: str, env: dict, wrap, key, python: str | None):
    """The slot's zygote of role for this job, started or replaced as needed; None when it cannot start (the job
    then runs in a cold child, as every job did before)."""
    key = (key, tuple(sorted((k, v) for k, v in env.items() if k not in ("HOME", "TMPDIR"))))
    client = _ZYGOTES.get(role)
    if client is not None and (client.key != key or not client.alive()):
        close_zygote(role)
        client = None
    if client is None:
        try:
            client = ZygoteClient(key, wrap, python or sys.executable, env)
        except ZygoteError as e:
            log.warning("evaluations run in cold children: %s", e)
            return None
        _ZYGOTES[role] = client
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
    """Run job (a normalised eval request, see jobs.py) in child processes; always returns a result dict.
    collect_dir: move the outputs the judge saved (job "save_outputs": outputs_seed<i>.npz) there before the folders
    go. zygote: fork the children from the slot's warm templates (nkisim evals only; a kept workdir would go with
    the zygote's folder).

    A checked nkisim eval takes two children side by side, the kernel's and the judge's server (which prepares the
    inputs and references, runs the kernel's NKI calls and judges); a timing-only one two, the judge's "timer"
    around the kernel's: the judge prepares, the kernel runs on the inputs and records its trace, the judge models
    the trace. Data moves
    between their folders through this process only, and the kernel's sandbox sees none of the judge's. A Neuron
    eval splits the same way where nrtpy is installed (the kernel's child compiles, the judge runs the NEFF), else
    it is one child ("whole")."""
    t0 = time.monotonic()
    tidy()
    if sandbox.get("required") and not sandbox.get("active"):
        return _fail(job, "infra_error", confinement.refusal(sandbox.get("reason") or "it is unavailable"), t0)
    steps = _Steps(job, cancel, sandbox, python, keep_workdir, zygote, t0)
    try:
        if job["backend"] != "sim" and not handover.judges_neff(job):
            res, _ = steps.run("kernel", dict(job, role="whole"))
        else:
            res = handover.split(job, steps)
        if collect_dir and steps.judge_folder:
            for fn in os.listdir(steps.judge_folder):
                if fn.startswith("outputs_seed") and fn.endswith(".npz"):
                    shutil.move(os.path.join(steps.judge_folder, fn), os.path.join(collect_dir, fn))
        res["wall_s"] = time.monotonic() - t0
        return handover.physics(job, res)
    finally:
        steps.close()


def run_judge_child(job: dict, cancel: threading.Event, sandbox: dict, python: str | None = None,
                    zygote: bool = False) -> dict:
    """One child of the judge's kind (job["role"], e.g. the task check's "probe"), in the judge's sandbox: task code
    that must not run in the serving process. Always returns a result dict."""
    t0 = time.monotonic()
    tidy()
    if sandbox.get("required") and not sandbox.get("active"):
        return _fail(job, "infra_error", confinement.refusal(sandbox.get("reason") or "it is unavailable"), t0)
    steps = _Steps(job, cancel, sandbox, python, False, zygote, t0)
    try:
        res, _ = steps.run("judge", job)
        return res
    finally:
        steps.close()


class _Either:
    """Set when either event is (all a child's runner asks of its cancel event)."""

    def __init__(self, a: threading.Event, b: threading.Event):
        self.a, self.b = a, b

    def is_set(self) -> bool:
        return self.a.is_set() or self.b.is_set()


class _Steps:
    """The children of one evaluation: each in the sandbox of its role, forked from that role's zygote when there
    is one, else cold; the folders they used, removed at close."""

    def __init__(self, job, cancel, sandbox, python, keep, zygote, t0):
        self.job, self.cancel, self.sandbox, self.python = job, cancel, sandbox, python
        self.keep, self.zygote, self.t0 = keep, zygote, t0
        self.hard = t0 + float(job["timeout_s"]) + float(job["limits"].get("grace_s", 5.0))
        self.cap = int(job["limits"].get("output_cap_chars", 16384))
        self.folders, self.broken = [], []
        self.judge_folder = None

    def run(self, role: str, child_job: dict, folder: str | None = None, inputs_from: str | None = None,
            cold: bool = False, retry: bool = True, stop: threading.Event | None = None):
        """(result, folder) of one child of role; inputs_from: a folder whose files move into the child's first.
        cold: not from the zygote. retry: when the zygote fails, run the child cold at once; without, the result
        says `zygote_failed` and the caller decides (a kernel talking to its server cannot restart alone). stop:
        kills this child alone, as a cancel would (a step whose result is no longer wanted)."""
        cancel = self.cancel if stop is None else _Either(self.cancel, stop)
        env = child_env(child_job, "")
        wrap, key = _wrap_for(child_job, env, self.sandbox, self.python)
        client = None
        if self.zygote and child_job["backend"] == "sim" and not self.keep and not cold:
            client = _zygote_for(role, env, wrap, key, self.python)
        if client is not None and folder is not None and not folder.startswith(client.slotdir + os.sep):
            client = None  # a folder from a cold step (its zygote had failed): this zygote's sandbox cannot see it
        folder = self._folder(child_job, client.slotdir if client else None, folder, inputs_from)
        outcome = None
        if client is not None:
            try:
                outcome = client.run(folder, {"HOME": folder, "TMPDIR": folder}, self.cap, cancel, self.hard)
            except ZygoteError as e:  # the zygote failed, not the kernel: run this one cold, start afresh next time
                log.warning("the slot's %s zygote failed (%s); this step runs in a cold child", role, e)
                self.broken.append(client)
                _ZYGOTES.pop(role, None)
                if not retry:
                    return self.fail("infra_error", f"the slot's {role} zygote failed: {e}") | \
                        {"zygote_failed": True}, folder
                # a folder of its own: nothing the first attempt wrote there (a result.json) may be taken for this
                # one's; what it was handed moves along
                folder = self._folder(child_job, None, None, folder if role == "kernel" else None,
                                      keep_all=role != "kernel", old=folder)
        if outcome is None:
            try:
                outcome = _run_cold(wrap, env, folder, self.python, self.cap, cancel, self.hard)
            except OSError as e:
                return _fail(self.job, "infra_error", f"cannot start the evaluation process: {e}", self.t0), folder
        return _outcome_result(child_job, outcome, folder, self.sandbox, self.t0), folder

    def warm(self, role: str, child_job: dict):
        """Start (or keep) the zygote of role from this thread: the parent death signal of a process follows the
        thread that started it, so a zygote started from a helper thread would die with the thread. Returns it, or
        None when the steps run cold."""
        if self.zygote and child_job["backend"] == "sim" and not self.keep:
            env = child_env(child_job, "")
            wrap, key = _wrap_for(child_job, env, self.sandbox, self.python)
            return _zygote_for(role, env, wrap, key, self.python)
        return None

    def make_folder(self, role: str, child_job: dict) -> str:
        """An empty folder for a step of role that has yet to run, where the runner puts something first (the FIFOs
        of a checked eval): in the slot of role's zygote (started here if need be), which is the only place its
        sandbox can see."""
        client = self.warm(role, child_job)
        folder = tempfile.mkdtemp(prefix="accelopt-eval-", dir=client.slotdir if client else None)
        self.folders.append(folder)
        return folder

    def _folder(self, child_job, parent, folder, inputs_from, keep_all=False, old=None):
        if folder is None:
            folder = tempfile.mkdtemp(prefix="accelopt-eval-", dir=parent)
            self.folders.append(folder)
            if keep_all and old:  # a judge step's folder holds the references: carry everything over
                for name in os.listdir(old):
                    if name not in ("job.json", "result.json", "result.json.tmp"):
                        shutil.move(os.path.join(old, name), os.path.join(folder, name))
            elif inputs_from:
                for name in os.listdir(inputs_from):
                    src = os.path.join(inputs_from, name)
                    if name.startswith("rpc-") and stat.S_ISFIFO(os.lstat(src).st_mode):
                        os.link(src, os.path.join(folder, name))  # the same pipe, seen from both sandboxes
                        continue
                    if os.path.isfile(src) and not os.path.islink(src) and \
                            (name.startswith("case") or name == "cases.json"):
                        shutil.move(src, os.path.join(folder, name))
        for stale in ("result.json", "result.json.tmp"):
            try:
                os.unlink(os.path.join(folder, stale))
            except FileNotFoundError:
                pass
        with open(os.path.join(folder, "job.json"), "w", encoding="utf-8") as f:
            json.dump(child_job, f)
        return folder

    def fail(self, status: str, error: str) -> dict:
        return _fail(self.job, status, error, self.t0)

    def close(self):
        if self.zygote and not self.keep:
            _DONE_FOLDERS.extend(self.folders)  # tidy() removes them once the result is out
        elif not self.keep:
            for folder in self.folders:
                shutil.rmtree(folder, ignore_errors=True)
        for client in self.broken:
            client.close()


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
            if not isinstance(res, dict):
                raise ValueError("not a JSON object")
            res.pop("cancelled", None)  # only the runner cancels: a child cannot make its result look cancelled
            extra = outcome["stdout"]
            if extra.strip():
                res["output"] = (res.get("output") or "") + extra
            res["wall_s"] = time.monotonic() - t0
            return res
        except (OSError, ValueError) as e:
            return _fail(job, "crashed", f"the evaluation process wrote an unreadable result: {e}", t0)
    rc = outcome["returncode"]
    if sandbox.get("active") and rc is not None and 128 < rc < 128 + 65:
        rc = 128 - rc  # bwrap exits with 128 + the signal that ended the process inside
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
    how = f"exited with code {rc}" if rc is not None else "ended"  # None: killed where it had stopped itself
    return _fail(job, "crashed", f"the evaluation process {how} without a result"
                                 + (f"; stderr: {tail}" if tail else ""), t0)


def _fail(job: dict, status: str, error: str, t0: float) -> dict:
    from .evaluate import empty_result
    r = empty_result(job)
    r.update(status=status, error=error, wall_s=time.monotonic() - t0, backend=job.get("backend"),
             target=job.get("target"))
    return r
