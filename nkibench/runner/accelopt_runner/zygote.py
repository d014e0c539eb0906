"""A pre-forked evaluation template per slot (a zygote): `python -m accelopt_runner _zygote <slotdir> [--confined]`.

A fresh sandboxed Python per evaluation spent about 250 ms importing numpy, nkisim and the harness before any kernel
ran. The zygote pays that once: it starts inside the same sandbox as a cold eval child (confinement.py: its own
namespaces, no capabilities, a seccomp filter, only <slotdir> writable), imports what an nkisim evaluation needs,
and then forks one child per evaluation step. A slot has two, the kernel's and the judge's (sandbox.run_child). The
child is a fresh copy of a template that never ran kernel or task code and is not dumpable. The child makes its own
session, applies the job's resource limits to itself as a cold child does (child.main), and dies with the zygote.
With --confined (in its own PID namespace) the zygote, before it reports a step, kills every other process in the
namespace and empties /tmp, /dev/shm and <slotdir> but for the step's folder, so nothing one evaluation does reaches
the next; a timeout or cancel there ends the whole sandbox (the runner cannot use the namespace's pids).

Control protocol on the zygote's stdin/stdout, one JSON object per line:
  zygote -> runner  {"ready": true, "pid": P}                      once the imports are done
  runner -> zygote  {"workdir": W, "env": {...}, "cap": C}         run the job in W/job.json
  zygote -> runner  {"pid": p}                                     forked (p is also the process group)
  zygote -> runner  {"pid": p, "returncode": rc, "stdout": s, "stderr": s, "dropped": [n, n]}
The child's stdout and stderr are pipes the zygote drains, keeping the first C bytes of each.
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
            except Exception:  # noqa: BLE001
                pass
            os._exit(code)
    for fd in (job_r, out_w, err_w):
        os.close(fd)
    return {"pid": pid, "job": job_w, "out": out_r, "err": err_r}


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
    _own_pages(3)
    data = b""
    while True:
        chunk = os.read(3, 65536)
        if not chunk:
            break
        data += chunk
    os.close(3)
    if not data:  # the zygote stopped before it had a job for this child
        return 0
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


def _drain(pid: int, fds: dict, result_path: str):
    """Reads the child's pipes until it exits, or until it closed them after writing its result (its exit, which
    frees tens of MB, then overlaps the report); in both cases then what is left without blocking (a grandchild may
    hold a pipe open). The exit code, or None when the child finished early and still has to be reaped."""
    while True:
        if fds:
            ready = select.select(list(fds), [], [], 0.01)[0]
        else:
            ready = []
            if os.path.exists(result_path):
                return None
            time.sleep(0.002)
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                fds[fd].add(chunk)
            else:
                os.close(fd)
                del fds[fd]
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
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
    return _reap(pid)


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


def _purge(slotdir: str, keep: str):
    """Between evaluations, in a sandbox of its own: nothing one evaluation left reaches the next. Every other
    process in the namespace is killed (a daemon an evaluation started, wherever it re-parented), and /tmp,
    /dev/shm and the slot folder are emptied but for the folder the runner still reads the result from (and the
    folders bound into /tmp: the slot folder itself, a task folder, the runner)."""
    try:
        os.kill(-1, signal.SIGKILL)  # all but this process and PID 1
    except ProcessLookupError:
        pass
    for _ in range(100):
        if not _kill_orphans():
            break
    mounts = _mount_points()
    for root in ("/tmp", "/dev/shm", slotdir):
        _empty(os.path.realpath(root), mounts, {os.path.realpath(keep)})


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
        child, spare = spare, None
        os.write(child["job"], json.dumps(req).encode())
        os.close(child["job"])
        send({"pid": child["pid"]})
        cap = int(req.get("cap", 16384))
        outs = [_Capped(cap), _Capped(cap)]
        rc = _drain(child["pid"], {child["out"]: outs[0], child["err"]: outs[1]},
                    os.path.join(req["workdir"], "result.json"))
        if confined:
            # before the report: once it has the report, the runner may make the next evaluation's folder here
            if rc is None:
                rc = _reap(child["pid"])
            _purge(slotdir, req["workdir"])
        send({"pid": child["pid"], "returncode": rc, "stdout": outs[0].buf.decode("utf-8", "replace"),
              "stderr": outs[1].buf.decode("utf-8", "replace"), "dropped": [outs[0].dropped, outs[1].dropped]})
        if rc is None:
            _reap(child["pid"])
        spare = _spare()  # after, not during, the evaluation: on two cores its copying slowed the evaluation 2x
