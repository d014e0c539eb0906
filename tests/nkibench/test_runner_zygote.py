"""The slot's zygote (accelopt_runner/zygote.py) keeps every property of a cold eval child: no network, a read-only
file system but for the eval's own folder, the job's resource limits, nothing left running afterwards, and nothing
one evaluation does reaching the next. The probe is an inline task whose reference (which the static checks do not
see, and which runs in the eval child like the kernel) reports what it could do."""
import json
import os
import pathlib
import signal
import socket
import sys
import textwrap
import time
import uuid

import pytest

from runner_helpers import ADD_KERNEL, ADD_REFERENCE, RUNNER_DIR, Serve, running_with, runner_env

sys.path.insert(0, str(RUNNER_DIR))
from accelopt_runner import sandbox  # noqa: E402

PROBE = textwrap.dedent('''\
    import json, os, resource, socket, subprocess, sys
    import numpy

    def _probe():
        found = {"pid": os.getpid(), "cwd_is_home": os.environ.get("HOME") == os.getcwd(), "tag": TAG}
        try:
            socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
            found["net"] = "reached"
        except OSError as e:
            found["net"] = type(e).__name__
        try:
            with open(OUTSIDE, "a") as f:
                f.write("written by an evaluation")
            found["outside"] = "written"
        except OSError as e:
            found["outside"] = type(e).__name__
        with open("mine.txt", "w") as f:
            f.write("the eval's own folder is writable")
        found["as_limit_mb"] = resource.getrlimit(resource.RLIMIT_AS)[0] // (1024 * 1024)
        found["left_by_earlier"] = getattr(numpy, "_left_by_an_evaluation", None)
        numpy._left_by_an_evaluation = MARK
        # GNU sleep adds its arguments up: the second one makes the processes findable from the host, where
        # their pids (which are the sandbox's PID namespace's) mean nothing
        found["children"] = [subprocess.Popen(["sleep", "300", TAG]).pid,
                             subprocess.Popen(["sleep", "300", TAG], start_new_session=True).pid]
        os.write(1, b"#" * 300000)  # below Python, straight to the process's stdout
        print("PROBE " + json.dumps(found))

    _probe()
    ''')


def probe_task(port: int, outside: pathlib.Path, mark: str) -> dict:
    tag = f"0.{uuid.uuid4().int % 10**12:012d}"
    head = f"PORT = {port}\nOUTSIDE = {str(outside)!r}\nMARK = {mark!r}\nTAG = {tag!r}\n"
    return {"name": "probe", "reference": head + PROBE + ADD_REFERENCE, "parameters": {"N": 128, "D": 128}}


def found_by(result: dict) -> dict:
    line = next(ln for ln in (result.get("output") or "").splitlines() if ln.startswith("PROBE "))
    return json.loads(line[len("PROBE "):])


def pid_gone(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def gone(tag: str, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not running_with(tag):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def listener():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(4)
    s.settimeout(0.1)
    yield s
    s.close()


@pytest.fixture
def outside():
    # /var/tmp, not /tmp: the sandbox gives the eval a private /tmp, where a write would succeed unseen
    path = pathlib.Path("/var/tmp") / f"accelopt-probe-{uuid.uuid4().hex}"
    path.write_text("before")
    yield path
    path.unlink()


needs_bwrap = pytest.mark.skipif(not sandbox.bwrap_status()["active"],
                                 reason="bubblewrap cannot run here: " + sandbox.bwrap_status()["reason"])


@needs_bwrap
@pytest.mark.parametrize("mode", ["zygote", "cold"])
def test_sandbox_properties_hold_in_both_modes(mode, listener, outside):
    srv = Serve([] if mode == "zygote" else ["--no-zygote"])
    try:
        srv.send({"op": "hello"})
        assert srv.recv()["sandbox"]["zygote"] is (mode == "zygote")
        port = listener.getsockname()[1]
        first = srv.eval("p1", probe_task(port, outside, "first"), ADD_KERNEL, memory_limit_mb=700, seeds=[1])
        second = srv.eval("p2", probe_task(port, outside, "second"), ADD_KERNEL, memory_limit_mb=900, seeds=[1])
    finally:
        srv.close()
    for r in (first, second):
        assert r["status"] == "ok", r
        assert "more bytes dropped" in r["output"]  # raw output is capped as printed output is
    f1, f2 = found_by(first), found_by(second)
    assert f1["net"] == "ConnectionRefusedError"  # a private network: nothing listens on its loopback
    with pytest.raises(socket.timeout):
        listener.accept()
    # /var is not in the sandbox's file system at all, so the file is not there to write (nor to read)
    assert f1["outside"] == "FileNotFoundError" and outside.read_text() == "before"
    assert f1["cwd_is_home"] is True
    assert (f1["as_limit_mb"], f2["as_limit_mb"]) == (700, 900)
    assert f2["left_by_earlier"] is None  # a fresh interpreter state for every evaluation
    # nothing an evaluation started outlives it, in its own session or not: the sandbox's PID namespace ends
    # with it (cold), or the zygote kills everything but itself between evaluations
    assert gone(f1["tag"]) and gone(f2["tag"])


def zygote_pids(server_pid: int) -> list:
    """The zygotes below a serve process (bubblewrap sits between them)."""
    parents, cmdlines = {}, {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
                cmdlines[int(entry)] = pathlib.Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            parents[int(entry)] = int(stat[stat.rfind(")") + 2:].split()[1])

    def below(pid):
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == server_pid:
                return True
        return False
    def zygote(pid):
        cmd = cmdlines.get(pid, [])
        return b"_zygote" in cmd and b"-m" in cmd
    # the zygote's spare child, forked ahead of the next job, carries the same command line
    return [pid for pid in cmdlines if zygote(pid) and not zygote(parents.get(pid, 0)) and below(pid)]


def test_a_dead_zygote_costs_no_evaluation(tmp_path):
    srv = Serve()
    try:
        task = {"name": "add_inline", "reference": ADD_REFERENCE, "parameters": {"N": 128, "D": 128}}
        assert srv.eval("a", task, ADD_KERNEL, seeds=[1])["status"] == "ok"
        pids = zygote_pids(srv.p.pid)
        assert len(pids) == 2  # the kernel's and the judge's
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        r = srv.eval("b", task, ADD_KERNEL, seeds=[1])
        assert r["status"] == "ok", r["error"]  # cold, or from fresh zygotes
        assert srv.eval("c", task, ADD_KERNEL, seeds=[1])["status"] == "ok"
        now = zygote_pids(srv.p.pid)
        assert len(now) == 2 and not set(now) & set(pids)
    finally:
        srv.close()
    assert all(pid_gone(pid) for pid in now)  # the zygotes stop with their runner


def test_zygotes_killed_after_each_evaluation_cost_none():
    """Killed right after a result, while the runner may still see them alive (their bwrap not yet gone) as it
    makes the next evaluation's folders: every next evaluation runs, checked and timing-only. (About one time in ten
    this lost the evaluation: the replaced judge zygote's slot folder went, with the judge's new folder in it, or
    the judge's step moved its folder while the kernel's step was taking the FIFOs from it.)"""
    srv = Serve()
    task = {"name": "add_inline", "reference": ADD_REFERENCE, "parameters": {"N": 128, "D": 128}}
    try:
        for i in range(6):
            fields = {"timing_only": True} if i % 2 else {"seeds": [1]}
            r = srv.eval(f"e{i}", task, ADD_KERNEL, **fields)
            assert r["status"] == "ok", r["error"]
            for pid in zygote_pids(srv.p.pid):
                os.kill(pid, signal.SIGKILL)
        assert srv.eval("last", task, ADD_KERNEL, seeds=[1])["status"] == "ok"
    finally:
        srv.close()


def test_a_job_from_another_sandbox_gets_its_own_zygote(tmp_path):
    """A task folder under /tmp must be bound into the sandbox: the zygote started without it is replaced."""
    from runner_helpers import make_add_task
    make_add_task(tmp_path / "tasks")
    srv = Serve(["--tasks", str(tmp_path / "tasks")])
    try:
        inline = {"name": "add_inline", "reference": ADD_REFERENCE, "parameters": {"N": 128, "D": 128}}
        assert srv.eval("a", inline, ADD_KERNEL, seeds=[1])["status"] == "ok"
        r = srv.eval("b", {"name": "add"}, ADD_KERNEL, seeds=[1], size="small")
        assert r["status"] == "ok", r
    finally:
        srv.close()


def test_zygote_environment_is_the_allow_list(tmp_path, monkeypatch):
    """The zygote is started with the eval child's allow-listed environment, not the runner's."""
    env = runner_env()
    env["ACCELOPT_TEST_SECRET"] = "do-not-pass"
    srv = Serve(env=env)
    try:
        reference = ("import os\nprint('SECRET ' + repr(os.environ.get('ACCELOPT_TEST_SECRET')))\n" + ADD_REFERENCE)
        task = {"name": "env", "reference": reference, "parameters": {"N": 128, "D": 128}}
        r = srv.eval("e", task, ADD_KERNEL, seeds=[1])
    finally:
        srv.close()
    assert r["status"] == "ok" and "SECRET None" in r["output"], r


# How a confined zygote ends a step (zygote._stop_alone, zygote._end_all), run where it runs: in a PID namespace of
# its own (bwrap is its PID 1), as a child subreaper with SIGCHLD blocked. Each case forks a "step" that left
# something behind and reports what the zygote's functions made of it.
ENDINGS = textwrap.dedent('''\
    import json, mmap, os, signal, struct, threading, time
    from accelopt_runner import zygote
    zygote._libc().prctl(zygote.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD])
    counter = mmap.mmap(-1, 8)  # shared with the step: its thread counts here for as long as it runs

    def count():
        return struct.unpack("q", counter[:8])[0]

    def step(body):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGCHLD])
            os.close(r)
            body(w)
            os._exit(0)
        os.close(w)
        os.read(r, 1)  # the step says it is at its end (its result written)
        os.close(r)
        return pid

    def others():
        return sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid()))

    def busy_thread(w):  # a thread that keeps running after the step's main thread is done
        def run():
            while True:
                counter[:8] = struct.pack("q", count() + 1)
        threading.Thread(target=run, daemon=True).start()
        while count() < 1000:
            pass
        os.write(w, b"x")
        time.sleep(300)

    def with_daemon(w):  # a process of its own, in a session of its own
        if os.fork() == 0:
            os.setsid()
            os.write(w, b"x")
            time.sleep(300)
            os._exit(0)
        time.sleep(300)

    def exits(w):
        os.write(w, b"x")
        os._exit(3)

    found = {}
    pid = step(busy_thread)
    how = zygote._stop_alone(pid)
    if how[0] == "others":  # it did not stop within STOP_WAIT_S (a loaded machine): the zygote's slow way
        zygote._end_all(pid, how[1])
    before = count()
    time.sleep(0.3)
    found["thread"] = {"how": list(how), "counted_after": count() - before}
    if how[0] == "killed":
        _, status = os.waitpid(pid, 0)  # the zygote reaps it after the report
        found["thread"].update(signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None)
    found["thread"].update(others=others())

    pid = step(with_daemon)
    how = zygote._stop_alone(pid)
    code = zygote._end_all(pid, how[1]) if how[0] == "others" else None
    found["daemon"] = {"how": list(how), "code": code, "others": others()}

    pid = step(exits)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # it has ended, not yet reaped
    found["exited"] = {"how": list(zygote._stop_alone(pid)), "others": others()}
    print(json.dumps(found))
    ''')


@needs_bwrap
def test_a_step_is_stopped_and_killed_with_all_it_started_before_its_report():
    """The quick end (a step alone in its namespace is stopped, then killed while stopped, its memory freed after the
    report) leaves nothing running: a thread of the step counts no more once _stop_alone returned; a step that
    started a process of its own is ended the slow way, with that process; a step that had exited keeps its code."""
    import subprocess
    cmd = [sandbox.bwrap_status()["bwrap"], "--unshare-pid", "--die-with-parent", "--dev-bind", "/", "/",
           "--proc", "/proc", "--", sys.executable, "-c", ENDINGS]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=runner_env())
    assert p.returncode == 0, p.stderr
    found = json.loads(p.stdout.strip().splitlines()[-1])
    thread = found["thread"]
    # the quick end, or on a machine too loaded for the step to stop within STOP_WAIT_S the slow one: either way
    # nothing of it runs once it returned
    assert thread["how"][0] in ("killed", "others") and thread["counted_after"] == 0 and thread["others"] == [], found
    if thread["how"][0] == "killed":
        assert thread["signal"] == signal.SIGKILL and thread["how"] == ["killed", None]
    daemon = found["daemon"]
    assert daemon["how"][0] == "others" and daemon["code"] == -signal.SIGKILL and daemon["others"] == [], found
    assert found["exited"] == {"how": ["ended", 3], "others": []}, found
