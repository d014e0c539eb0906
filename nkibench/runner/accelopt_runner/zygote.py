"""A pre-forked evaluation template per slot (a zygote): `python -m accelopt_runner _zygote <slotdir> [--confined]`.

A fresh sandboxed Python per evaluation spent about 250 ms importing numpy, nkisim and the harness before any kernel
ran. The zygote pays that once: it starts inside the same sandbox as a cold eval child (confinement.py: its own
namespaces, no capabilities, a seccomp filter, only <slotdir> writable), imports what an nkisim evaluation needs,
and then forks one child per evaluation step. A slot has two, the kernel's and the judge's (sandbox.run_child). The
child is a fresh copy of a template that never ran kernel or task code and is not dumpable. The child makes its own
session, applies the job's resource limits to itself as a cold child does (child.main), and dies with the zygote.
With --confined (in its own PID namespace) the zygote, before it reports a step, kills and reaps every other process
in the namespace; after the report it empties /tmp and /dev/shm, and when the next job arrives <slotdir> but for
that job's folder, so nothing one evaluation does reaches the next; a timeout or cancel there ends the whole sandbox
(the runner cannot use the namespace's pids).

Control protocol on the zygote's stdin/stdout, one JSON object per line:
  zygote -> runner  {"ready": true, "pid": P}                      once the imports are done
  runner -> zygote  {"workdir": W, "env": {...}, "cap": C}         run the job in W/job.json
  zygote -> runner  {"pid": p}                                     forked (p is also the process group)
  zygote -> runner  {"pid": p, "returncode": rc, "stdout": s, "stderr": s, "dropped": [n, n]}
The child's stdout and stderr are pipes the zygote drains, keeping the first C bytes of each. The next job's process
is forked after the report and waits for its job.
"""
from __future__ import annotations

import json
import os
import re
import select
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36


def _preimport():
    """What every nkisim evaluation imports; numpy alone is about 150 ms, tempfile 10 ms."""
    import tempfile  # noqa: F401
    import numpy  # noqa: F401
    import nkisim  # noqa: F401
    import nkisim.perf  # noqa: F401
    import nkisim.perf.profile  # noqa: F401
    import nkisim.traceio  # noqa: F401
    from . import (arrays, backend_sim, child, correctness, evaluate, judge, kernelremote, kernelside,  # noqa: F401
                   limits, roofline, stepsync, taskspec, timing, tracetiming)
    import nkisim.remote.client  # noqa: F401  (a checked eval's two sides: 10-20 ms a child otherwise)
    import nkisim.remote.server  # noqa: F401
    try:
        import nkisim.current  # noqa: F401  (the current `nki` front end)
    except ImportError:
        pass


_LIBC = []  # libc, looked up once in the template (importing ctypes in each child took 10 ms)
MADV_POPULATE_WRITE = 23  # Linux 5.14


def _libc():
    if not _LIBC:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        _LIBC.append(libc)
    return _LIBC[0]


def _die_with_parent():
    try:
        _libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


POPULATE_STEP = 256 * 1024


def _own_pages(job_fd: int):
    """Copies the template's writable pages into this child while it waits for a job. A forked Python writes to
    most of its pages at once (reference counts), and each first write is a copy-on-write fault: in a virtual
    machine that cost a trivial evaluation 25 ms, more than its own work. Done in steps, and left as soon as the
    job arrives: under back-to-back jobs the faults happen lazily, as they would anyway. Without
    MADV_POPULATE_WRITE (Linux before 5.14) they always do."""
    try:
        libc = _libc()
        with open("/proc/self/maps", encoding="ascii") as f:
            spans = [tuple(int(x, 16) for x in p[0].split("-")) for p in map(str.split, f)
                     if len(p) >= 2 and p[1] == "rw-p"]
    except (OSError, AttributeError, ValueError):
        return
    for lo, hi in spans:
        for at in range(lo, hi, POPULATE_STEP):
            if select.select([job_fd], [], [], 0)[0]:
                return
            if libc.madvise(at, min(POPULATE_STEP, hi - at), MADV_POPULATE_WRITE) != 0:
                break  # EINVAL on an older kernel, or a mapping that cannot be populated


def _spare() -> dict:
    """Forks the next evaluation's process before its job arrives, so the fork and the child's setup overlap the
    evaluation running now (or the wait for the next request); the child blocks until the zygote hands it a job."""
    job_r, job_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = _become_evaluation(job_r, out_w, err_w)
        except BaseException:  # noqa: BLE001 - the child must never return into the zygote's loop
            import traceback
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
                os.close(1)  # the zygote reports the evaluation on these pipes' end, not on the exit
                os.close(2)
                if code == 0:
                    # Its result is written: it waits, stopped, for the zygote to kill it (_stop_alone), which
                    # then reports at once, where an exit would first free its memory (3-5 ms on a virtual machine)
                    os.kill(os.getpid(), signal.SIGSTOP)
            except Exception:  # noqa: BLE001
                pass
            os._exit(max(code, 0))
    for fd in (job_r, out_w, err_w):
        os.close(fd)
    return {"pid": pid, "job": job_w, "out": out_r, "err": err_r}


NO_JOB = -1  # _become_evaluation's code when the zygote ended before it had a job for the child


def _become_evaluation(job_r: int, out_w: int, err_w: int) -> int:
    """In the forked child: its own session, death with the zygote, only its own pipes open; then wait for the job
    and run it (child.main, as a cold child does)."""
    os.setsid()
    _die_with_parent()
    if os.getppid() == 1:  # the zygote died between fork and prctl
        os._exit(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.dup2(job_r, 3)
    os.closerange(4, 65536)  # the zygote's control pipe and the previous evaluation's pipes
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])  # blocked in the zygote only
    _own_pages(3)
    data = b""
    while True:
        chunk = os.read(3, 65536)
        if not chunk:
            break
        data += chunk
    os.close(3)
    if not data:  # the zygote stopped before it had a job for this child
        return NO_JOB
    req = json.loads(data)
    os.environ.update(req.get("env") or {})
    import tempfile
    tempfile.tempdir = None  # TMPDIR is this evaluation's folder now
    from .child import main
    return main(req["workdir"])


class _Capped:
    def __init__(self, cap: int):
        self.cap, self.buf, self.dropped = cap, bytearray(), 0

    def add(self, chunk: bytes):
        room = self.cap - len(self.buf)
        if room > 0:
            self.buf += chunk[:room]
        self.dropped += max(len(chunk) - max(room, 0), 0)


def _drain(pid: int, fds: dict, result_path: str) -> bool:
    """Reads the child's pipes until it exits or stops, or until it closed them after writing its result; in each
    case then what is left without blocking (a grandchild may hold a pipe open). Whether the child exited or
    stopped (it is not reaped: its pid still names its process group)."""
    while True:
        if fds:
            ready = select.select(list(fds), [], [], 0.01)[0]
        else:
            ready = []
            if os.path.exists(result_path):
                return False
            time.sleep(0.002)
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                fds[fd].add(chunk)
            else:
                os.close(fd)
                del fds[fd]
        # ended, or stopped after its result (a process it started may hold its pipes open)
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WSTOPPED | os.WNOHANG | os.WNOWAIT) is not None:
            break
    for fd in list(fds):
        os.set_blocking(fd, False)
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                fds[fd].add(chunk)
        except (BlockingIOError, OSError):
            pass
        os.close(fd)
    return True


def _reap(pid: int) -> int:
    """Kills what the child left in its process group (before reaping it, so its pid cannot be reused meanwhile),
    reaps it, then kills whatever escaped the group: the zygote is a child subreaper, so a process the evaluation
    started in a session of its own is handed to the zygote when its parent dies, and ends here too."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    _, status = os.waitpid(pid, 0)
    for _ in range(100):  # each round kills the orphans that the previous round's kills handed over
        if not _kill_orphans():
            break
    return os.waitstatus_to_exitcode(status)


def _kill_orphans() -> bool:
    """Kills and reaps every child of the zygote (between evaluations it has none of its own); whether any was
    found."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[1] == str(me):
            found.append(int(entry))
    for child in found:
        try:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
        except (ProcessLookupError, ChildProcessError, PermissionError):
            pass
    return bool(found)


def _owns_pid_namespace() -> bool:
    """Whether this process's PID 1 is the sandbox's bwrap: only then does kill(-1) reach the sandbox alone, and
    only then are /tmp and /dev/shm this sandbox's own."""
    try:
        with open("/proc/1/comm", encoding="ascii", errors="replace") as f:
            return f.read().strip() == "bwrap" and os.getpid() != 1
    except OSError:
        return False


STOP_WAIT_S = 0.1  # for a process to stop; one that does not (a thread in a long system call) is ended the slow way


def _stop_alone(pid: int) -> tuple:
    """The quick end of a step, in a sandbox of its own: the step's process is stopped (SIGSTOP, which it cannot
    block; once waitpid reports it stopped, none of its threads runs, forks or is inside a system call), and when
    nothing else is left in the namespace it is killed while stopped, so it never runs again. Its memory is freed
    only when it is reaped, after the report: that took 3-5 ms per step on a 2-core virtual machine, on the
    evaluation's time. (how, exit code): "killed" (to be reaped; no code yet), "ended" (it had exited, and is
    reaped now), or "others": other processes exist (it started some) or it did not stop in time, and _end_all
    must end them all, it among them."""
    try:
        os.kill(pid, signal.SIGSTOP)
    except ProcessLookupError:
        return "others", None
    deadline = time.monotonic() + STOP_WAIT_S
    while True:
        done, status = os.waitpid(pid, os.WNOHANG | os.WUNTRACED)
        if done:
            break
        left = deadline - time.monotonic()
        if left <= 0:
            return "others", None
        signal.sigtimedwait([signal.SIGCHLD], left)  # blocked in the zygote (main), so none is missed
    stopped = os.WIFSTOPPED(status)
    code = None if stopped else os.waitstatus_to_exitcode(status)
    me = os.getpid()
    if any(p.isdigit() and int(p) not in (1, me, pid) for p in os.listdir("/proc")):
        return "others", code
    if not stopped:
        return "ended", code
    os.kill(pid, signal.SIGKILL)  # a stopped process dies without running again
    return "killed", None


def _end_all(pid: int, code: int | None = None) -> int | None:
    """In a sandbox of its own, once an evaluation's process finished: every other process in the namespace is
    killed (the evaluation's process and whatever it started, wherever that re-parented: this process is a child
    subreaper, so all of them are its descendants) and reaped, so none of them runs once the runner reads the
    result. A blocking wait per process, no scan of /proc. The evaluation's exit code (code if it was reaped)."""
    for _ in range(100):  # a second round only for what a fork raced past the first kill
        try:
            os.kill(-1, signal.SIGKILL)  # all but this process and PID 1 (bwrap)
        except ProcessLookupError:  # nothing left to signal
            break
        while True:
            try:
                done, status = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            if done == pid:
                code = os.waitstatus_to_exitcode(status)
    return code


def _purge(roots, mounts: set, keep: str | None = None):
    """What an evaluation left in roots (folders) goes: they are emptied but for keep (the folder the next
    evaluation runs in, which the runner made) and the folders bound into them (the slot folder in /tmp, a task
    folder, the runner)."""
    for root in roots:
        _empty(root, mounts, {os.path.realpath(keep)} if keep else set())


def _mount_points() -> set:
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            # field 5 is the mount point, with space, tab, newline and backslash as octal escapes
            return {re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), line.split()[4]) for line in f}
    except (OSError, IndexError):
        return set()


def _empty(folder: str, mounts: set, keep: set):
    """Deletes what is in folder, except keep and mount points (each purged as a root of its own, or read-only);
    a folder that leads to a mount point is emptied around it."""
    import shutil
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        if path in keep or path in mounts:
            continue
        if any(m.startswith(path + "/") for m in mounts):
            _empty(path, mounts, keep)
            continue
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, onerror=_make_writable)
            else:
                os.unlink(path)
        except OSError:
            pass


def _make_writable(func, path, _exc):
    """rmtree's retry for a folder an evaluation made read-only (same owner: chmod is enough)."""
    try:
        os.chmod(os.path.dirname(path), 0o700)
        os.chmod(path, 0o700)
        func(path)
    except OSError:
        pass


def main(slotdir: str, confined: bool = False) -> int:
    ctl_out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # anything an import prints goes to the log, not into the control stream
    ctl_in = os.fdopen(os.dup(0), "rb", buffering=0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    _die_with_parent()
    try:
        _libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        # No process of the same user may read or write this one's memory through /proc (its forks inherit it):
        # an evaluation cannot reach into the template the next one is forked from.
        _libc().prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    confined = confined and _owns_pid_namespace()
    os.chdir(slotdir)
    _preimport()
    import gc
    gc.collect()
    gc.freeze()  # the template's objects stay out of every child's collections, whose scans would copy their pages

    def send(obj):
        ctl_out.write(json.dumps(obj, separators=(",", ":")) + "\n")
        ctl_out.flush()

    # The sandbox's mounts are fixed for its life (its seccomp filter refuses mount calls): read them once.
    mounts = _mount_points() if confined else set()
    private = [os.path.realpath(p) for p in ("/tmp", "/dev/shm")]
    slot = os.path.realpath(slotdir)
    # SIGCHLD stays pending until _stop_alone waits for it (each child unblocks it again)
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    spare = _spare()
    send({"ready": True, "pid": os.getpid()})
    buf = b""
    while True:
        while b"\n" not in buf:
            chunk = ctl_in.read(65536)
            if not chunk:
                os.close(spare["job"])  # the spare reads end-of-file and exits
                return 0
            buf += chunk
        line, buf = buf.split(b"\n", 1)
        req = json.loads(line)
        if confined:
            # What the last evaluation left in the slot folder goes, but for this job's folder (the runner made it
            # for this job, after the last one's report): not earlier, when the runner may be making it
            _purge([slot], mounts, req["workdir"])
        child, spare = spare, None
        os.write(child["job"], json.dumps(req).encode())
        os.close(child["job"])
        send({"pid": child["pid"]})
        cap = int(req.get("cap", 16384))
        outs = [_Capped(cap), _Capped(cap)]
        exited = _drain(child["pid"], {child["out"]: outs[0], child["err"]: outs[1]},
                        os.path.join(req["workdir"], "result.json"))
        killed = False
        if confined:  # before the report: nothing of the evaluation runs once the runner reads its result
            how, rc = _stop_alone(child["pid"])
            if how == "others":
                rc = _end_all(child["pid"], rc)
            killed = how == "killed"
        else:
            rc = _reap(child["pid"]) if exited else None
        send({"pid": child["pid"], "returncode": rc, "stdout": outs[0].buf.decode("utf-8", "replace"),
              "stderr": outs[1].buf.decode("utf-8", "replace"), "dropped": [outs[0].dropped, outs[1].dropped]})
        if rc is None and not confined:
            _reap(child["pid"])
        if killed:  # killed while stopped, before the report: its memory is freed here, off the evaluation's time
            os.waitpid(child["pid"], 0)
        if confined:  # after the report, off the evaluation's time: the runner never writes there
            _purge(private, mounts)
        spare = _spare()  # into a clean sandbox; it copies the template's pages while the evaluation ends
