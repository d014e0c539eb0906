"""Runs one evaluation in its own child process: a private temporary working folder (the child's cwd, HOME and
TMPDIR), resource limits (the child applies RLIMIT_AS / RLIMIT_CPU / RLIMIT_FSIZE to itself before any task or
kernel code runs), a wall-clock timeout, cancellation, captured and capped output, and bubblewrap when installed:
no network (--unshare-net), a read-only view of / (--ro-bind / /), a private /tmp (--tmpfs /tmp) and only the
working folder writable.
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

from . import NKIBENCH_DIR, RUNNER_DIR
from .limits import BLAS_THREAD_VARS, how_to_raise

log = logging.getLogger("accelopt_runner.sandbox")
_bwrap_cache: dict = {}


def bwrap_status(disabled: bool = False) -> dict:
    """{"active": bool, "bwrap": path|None, "reason": str}; probes once that bwrap can actually run here."""
    if disabled:
        return {"active": False, "bwrap": None, "reason": "disabled by --no-sandbox"}
    if "v" in _bwrap_cache:
        return _bwrap_cache["v"]
    path = shutil.which("bwrap")
    if not path:
        st = {"active": False, "bwrap": None, "reason": "bubblewrap (bwrap) is not installed; evals run with "
                                                         "resource limits only"}
    else:
        try:
            p = subprocess.run([path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                                "--unshare-net", "--die-with-parent", "true"],
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
            ok = p.returncode == 0
            reason = "" if ok else ("bwrap cannot run here (user namespaces unavailable?): "
                                    + p.stderr.decode(errors="replace").strip()[:300])
        except (OSError, subprocess.TimeoutExpired) as e:
            ok, reason = False, f"bwrap cannot run here: {e}"
        st = {"active": ok, "bwrap": path, "reason": reason}
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


def run_child(job: dict, cancel: threading.Event, sandbox: dict, python: str | None = None,
              keep_workdir: bool = False, collect_dir: str | None = None) -> dict:
    """Run job (a normalised eval request, see jobs.py) in a child; always returns a result dict. collect_dir: move
    the outputs the child saved (job "save_outputs": outputs_seed<i>.npz) there before the workdir goes."""
    t0 = time.monotonic()
    workdir = tempfile.mkdtemp(prefix="accelopt-eval-")
    try:
        with open(os.path.join(workdir, "job.json"), "w", encoding="utf-8") as f:
            json.dump(job, f)
        env = child_env(job, workdir)
        cmd = [python or sys.executable, "-m", "accelopt_runner", "_child", workdir]
        if sandbox.get("active"):
            dev = ["--dev-bind", "/dev", "/dev"] if job["backend"] == "neuron" else ["--dev", "/dev"]
            # the private /tmp hides the host's; re-expose (read-only) what the child needs from there
            spec = job.get("task_spec") or {}
            need = [RUNNER_DIR, NKIBENCH_DIR, spec.get("dir"), os.path.dirname(spec.get("reference_path") or ""),
                    os.path.dirname(os.path.dirname(os.path.abspath(python or sys.executable)))]
            need += env["PYTHONPATH"].split(os.pathsep)
            ro = []
            for pth in dict.fromkeys(p for p in need if p):
                real = os.path.realpath(pth)
                if (real == "/tmp" or real.startswith("/tmp/")) and os.path.exists(real):
                    ro += ["--ro-bind", real, real]
            cmd = [sandbox["bwrap"], "--ro-bind", "/", "/", *dev, "--proc", "/proc", "--tmpfs", "/tmp", *ro,
                   "--bind", workdir, workdir, "--unshare-net", "--unshare-ipc", "--die-with-parent",
                   "--chdir", workdir, "--"] + cmd
        try:
            proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            return _fail(job, "infra_error", f"cannot start the evaluation process: {e}", t0)
        cap = int(job["limits"].get("output_cap_chars", 16384))
        d_out, d_err = _Drain(proc.stdout, cap), _Drain(proc.stderr, cap)
        d_out.start()
        d_err.start()
        hard = float(job["timeout_s"]) + float(job["limits"].get("grace_s", 5.0))
        why = None
        while True:
            try:
                proc.wait(timeout=0.05)
                break
            except subprocess.TimeoutExpired:
                pass
            if cancel.is_set():
                why = "cancelled"
            elif time.monotonic() - t0 > hard:
                why = "timeout"
            if why:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                proc.wait()
                break
        d_out.join(5)
        d_err.join(5)
        err_text = d_err.text()
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
                extra = d_out.text()
                if extra.strip():
                    res["output"] = (res.get("output") or "") + extra
                res["wall_s"] = time.monotonic() - t0
                return res
            except (OSError, ValueError) as e:
                return _fail(job, "crashed", f"the evaluation process wrote an unreadable result: {e}", t0)
        rc = proc.returncode
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
    finally:
        if collect_dir:
            for fn in os.listdir(workdir):
                if fn.startswith("outputs_seed") and fn.endswith(".npz"):
                    shutil.move(os.path.join(workdir, fn), os.path.join(collect_dir, fn))
        if not keep_workdir:
            shutil.rmtree(workdir, ignore_errors=True)


def _fail(job: dict, status: str, error: str, t0: float) -> dict:
    from .evaluate import empty_result
    r = empty_result(job)
    r.update(status=status, error=error, wall_s=time.monotonic() - t0, backend=job.get("backend"),
             target=job.get("target"))
    return r
