"""Kernels that attack the machine, the runner and each other, as a hostile user (or a reward-hacking model) wrote
them; every one gets past the static checks the way issue 23 found (`G = getattr` and dunder names built at run time
give it the whole of Python), so what stops it is the sandbox (confinement.py) and the runner's own judgement.

Each runs through a real `serve`, in the zygote and in cold children, as the user running the tests (root on CI)
and, where the tests run as root, also under a runner started as an unprivileged user. The attack code runs when
the kernel module loads and prints what it managed as one `ATTACK {...}` line, which the runner hands back as the
kernel's output."""
import json
import os
import pathlib
import shutil
import socket
import stat
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from runner_helpers import ADD_KERNEL, ADD_REFERENCE, RUNNER_DIR, Serve, add_kernel, running_with, runner_env

sys.path.insert(0, str(RUNNER_DIR))
from accelopt_runner import checks, sandbox  # noqa: E402

# What the static checks let through: getattr under another name and dunder names assembled at run time reach the
# builtins, whose exec then runs any Python at all (the attack's text is a string constant the checks do not read).
ESCAPE = textwrap.dedent('''\
    G = getattr
    D = "_" * 2
    B = G(print, D + "self" + D)
    G(B, "ex" + "ec")(ATTACK_CODE, {})
    ''')

INLINE_TASK = {"name": "add_inline", "reference": ADD_REFERENCE, "parameters": {"N": 128, "D": 128},
               "roofline": {"vector_flops": "N*D", "matmul_flops": "0", "min_bytes": "4*3*N*D"}}


def attack(body: str, **names) -> str:
    """A kernel (the add kernel, correct) whose module code runs body, with os and json imported and a dict found
    to fill, then prints found."""
    consts = "".join(f"{k} = {v!r}\n" for k, v in names.items())
    code = "import os, json\nfound = {}\n" + consts + textwrap.dedent(body) + \
        '\nprint("ATTACK " + json.dumps(found))\n'
    head, kernel = ADD_KERNEL.split("@nki.jit", 1)
    return head + f"ATTACK_CODE = {code!r}\n" + ESCAPE + "\n\n@nki.jit" + kernel


def found_by(result: dict) -> dict:
    lines = [ln for ln in (result.get("output") or "").splitlines() if ln.startswith("ATTACK ")]
    assert lines, result
    return json.loads(lines[-1][len("ATTACK "):])


def others_can_reach(path) -> bool:
    """Whether a user who owns nothing here can get to path (every folder on the way searchable by others)."""
    p = pathlib.Path(path).resolve()
    return all(d.stat().st_mode & stat.S_IXOTH for d in [p, *p.parents])


AS_ROOT = os.geteuid() == 0
UNPRIVILEGED = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
# The unprivileged runner must read its own code: not from a checkout under a private folder (/root, a 0700 tmp).
USERS = ["self"] + (["unprivileged"] if AS_ROOT and shutil.which("setpriv") and others_can_reach(RUNNER_DIR)
                    else [])
MODES = ["zygote", "cold"]

pytestmark = pytest.mark.skipif(not sandbox.bwrap_status()["active"],
                                reason="the sandbox cannot run here: " + sandbox.bwrap_status()["reason"])


class Runner(Serve):
    def __init__(self, mode: str, user: str, env=None):
        self.mode, self.user = mode, user
        args = [] if mode == "zygote" else ["--no-zygote"]
        if user == "unprivileged":  # the runner's own files must be readable by it (they are: the checkout)
            self.p = None
            self._start(UNPRIVILEGED, args, env)
        else:
            super().__init__(args, env=env)

    def _start(self, prefix, args, env):
        import queue
        import threading
        self.p = subprocess.Popen(prefix + [sys.executable, "-m", "accelopt_runner", "serve", *args],
                                  env=env or runner_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, bufsize=0, cwd="/")
        self.q = queue.Queue()
        self.raw = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_err, daemon=True).start()

    def run(self, kernel: str, id_: str = "k", **fields) -> dict:
        fields.setdefault("seeds", [1])
        r = self.eval(id_, INLINE_TASK, kernel, timeout_s=60, **fields)
        assert r["sandbox"] is True, r
        return r


@pytest.fixture(params=[(m, u) for u in USERS for m in MODES], ids=lambda p: f"{p[0]}-{p[1]}")
def runner(request):
    r = Runner(*request.param)
    yield r
    r.close()


def test_the_escape_gets_past_the_static_checks():
    """If this fails, the checks closed the hole: the tests below then no longer reach the sandbox, and need another
    way in."""
    assert checks.check_kernel(attack("found['x'] = 1\n"), "float32") == []


def test_the_sandbox_holds_what_the_hello_promises(runner):
    runner.send({"op": "hello"})
    sb = runner.recv()["sandbox"]
    assert sb["active"] is True and sb["required"] is True, sb
    r = runner.run(attack('''
        st = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
        found["cap_eff"] = st["CapEff"].strip()
        found["seccomp"] = st["Seccomp"].strip()
        found["pid1"] = open("/proc/1/comm").read().strip()
        found["processes"] = len([p for p in os.listdir("/proc") if p.isdigit()])
        '''))
    f = found_by(r)
    assert f["cap_eff"] == "0000000000000000" and f["seccomp"] == "2" and f["pid1"] == "bwrap", f
    assert f["processes"] <= 4, f  # bwrap, (the zygote,) the evaluation: nothing of the host


def test_no_write_to_the_host_through_proc_root(runner, tmp_path):
    canary_dir = pathlib.Path("/var/tmp") / f"accelopt-canary-{uuid.uuid4().hex}"
    canary_dir.mkdir()
    try:
        r = runner.run(attack('''
            for pid in (RUNNER, 1):
                try:
                    with open(f"/proc/{pid}/root{DIR}/pwned", "w") as f:
                        f.write("x")
                    found[str(pid)] = "written"
                except OSError as e:
                    found[str(pid)] = type(e).__name__
            ''', RUNNER=runner.p.pid, DIR=str(canary_dir)))
        assert r["status"] == "ok", r
        assert "written" not in found_by(r).values()
        assert list(canary_dir.iterdir()) == []
    finally:
        shutil.rmtree(canary_dir)


def test_no_secret_from_another_process(runner):
    secret = f"sk-{uuid.uuid4().hex}"
    env = runner_env()
    env["OPENAI_API_KEY"] = secret
    other = Runner(runner.mode, runner.user, env=env)  # a runner with a key in its environment, as the CLI has
    try:
        r = runner.run(attack('''
            seen = ""
            for pid in [p for p in os.listdir("/proc") if p.isdigit()] + [str(OTHER)]:
                for what in ("environ", "cmdline", "mem"):
                    try:
                        with open(f"/proc/{pid}/{what}", "rb") as f:
                            seen += f.read(1 << 20).decode("latin-1")
                    except OSError:
                        pass
            found["seen"] = seen
            ''', OTHER=other.p.pid))
    finally:
        other.close()
    assert secret not in found_by(r)["seen"]


def test_no_way_into_the_hosts_network(runner):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.2)
    try:
        r = runner.run(attack('''
            import ctypes, socket
            libc = ctypes.CDLL(None, use_errno=True)
            for pid in (RUNNER, 1):
                try:
                    fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
                    found[f"setns_{pid}"] = libc.setns(fd, 0x40000000)
                    found[f"errno_{pid}"] = ctypes.get_errno()
                except OSError as e:
                    found[f"setns_{pid}"] = type(e).__name__
            found["unshare"] = libc.unshare(0x10000000)
            try:
                socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
                found["connect"] = "reached"
            except OSError as e:
                found["connect"] = type(e).__name__
            ''', RUNNER=runner.p.pid, PORT=listener.getsockname()[1]))
        f = found_by(r)
        assert f["connect"] == "ConnectionRefusedError", f
        assert f["unshare"] == -1, f
        assert f["setns_1"] == -1 and f["errno_1"] == 1, f  # EPERM: seccomp refuses setns
        assert f[f"setns_{runner.p.pid}"] in ("FileNotFoundError", -1), f
        with pytest.raises(socket.timeout):
            listener.accept()
    finally:
        listener.close()


def test_no_signal_to_a_host_process(runner):
    victim = subprocess.Popen(["sleep", "300"])
    try:
        # kill(-1) reaches every process the caller may signal: only where PID 1 is the sandbox's own (a runner
        # without a PID namespace would take the whole machine down with it)
        r = runner.run(attack('''
            for pid in (VICTIM, -1) if open("/proc/1/comm").read().strip() == "bwrap" else (VICTIM,):
                try:
                    os.kill(pid, 9)
                    found[str(pid)] = "sent"
                except OSError as e:
                    found[str(pid)] = type(e).__name__
            ''', VICTIM=victim.pid))
        assert found_by(r)[str(victim.pid)] == "ProcessLookupError"
        assert victim.poll() is None  # alive
    finally:
        victim.kill()
        victim.wait()


def test_no_daemon_outlives_its_evaluation_even_when_it_kills_the_zygote(runner):
    tag = f"0.{uuid.uuid4().int % 10**12:012d}"
    r = runner.run(attack('''
        pid = os.fork()
        if pid == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "300", TAG])
            os._exit(0)
        os.waitpid(pid, 0)
        parent = os.getppid()
        found["parent"] = parent
        if parent != 1:
            os.kill(parent, 9)  # the zygote: the runner then runs this evaluation again, cold
        ''', TAG=tag))
    assert r["status"] == "ok", r
    deadline_polls = 200
    while running_with(tag) and deadline_polls:
        deadline_polls -= 1
        time.sleep(0.05)
    assert running_with(tag) == []
    # and the runner goes on serving
    assert runner.run(ADD_KERNEL, "after")["status"] == "ok"


def test_nothing_an_evaluation_leaves_reaches_the_next(runner):
    counter = attack('''
        # the slot folder (the zygote's) is the working folder's parent; for a cold child that is /tmp itself
        for where in dict.fromkeys(("/tmp", "/dev/shm", os.path.dirname(os.getcwd()), os.getcwd())):
            path = os.path.join(where, "accelopt-counter")
            try:
                with open(path) as f:
                    n = int(f.read())
            except (OSError, ValueError):
                n = 0
            try:
                with open(path, "w") as f:
                    f.write(str(n + 1))
            except OSError:
                pass
            found[where] = n
        ''')
    seen = [found_by(runner.run(counter, f"c{i}")) for i in range(3)]
    for f in seen:
        assert set(f.values()) == {0}, seen


@pytest.mark.parametrize("timing_only", [False, True], ids=["checked", "timing-only"])
def test_an_evaluations_folder_is_gone_when_the_next_runs(runner, timing_only):
    """A serving runner removes an evaluation's folders after it sent the result, no longer before: by the time the
    next kernel runs (in the zygote, its sandbox sees the slot folder that held the last one's), they are gone."""
    first = found_by(runner.run(attack('''
        found["cwd"] = os.getcwd()
        with open("left-behind", "w") as f:
            f.write("for the next evaluation")
        '''), "f1", timing_only=timing_only))
    second = found_by(runner.run(attack('''
        found["earlier"] = os.path.exists(EARLIER)
        ''', EARLIER=first["cwd"]), "f2", timing_only=timing_only))
    assert second["earlier"] is False and not os.path.exists(first["cwd"]), (first, second)


@pytest.mark.parametrize("timing_only", [False, True], ids=["checked", "timing-only"])
def test_the_kernel_is_not_told_how_it_is_judged(runner, timing_only):
    """Its process is told no seeds, size or task, in no file, variable or object it could find in memory; and it
    sees nothing of its judge (the timing-only judge's signals to the runner are in the judge's folder). (A
    timing-only pass stays recognisable: it has shapes without data, or is not asked for outputs; its result is
    never a verdict of correct.)"""
    r = runner.run(attack('''
        import gc, sys
        found["files"] = sorted(os.listdir("."))
        found["env"] = sorted(f"{k}={v}" for k, v in os.environ.items() if "SEED" in k.upper() or "TIMING" in k.upper()
                              or "SIZE" in k.upper() or "JOB" in k.upper())
        objects = gc.get_objects()
        seed = int("".join(reversed(SEED_BACKWARDS)))  # made at run time: the code's own constants hold no seed
        found["in_memory"] = sorted({k for o in objects if isinstance(o, dict)
                                     for k in ("seeds", "task_spec", "reference_path") if k in o} |
                                    {"size" for o in objects if isinstance(o, dict) and o.get("size") in ("small", "full")} |
                                    {"the seed" for o in objects if isinstance(o, (list, tuple)) and seed in o})
        found["reference_loaded"] = [m for m in sys.modules if m.startswith("accelopt_task")]
        ''', SEED_BACKWARDS="3562951413"), seeds=[3141592653], timing_only=timing_only)
    f = found_by(r)
    assert not {"sync", "ready", "go"} & set(f["files"]), f
    assert r["status"] == "ok" and r["seeds"] == [3141592653], r
    # a host's own setting passed through as it is (OPENBLAS_L2_SIZE on some machines) tells nothing of the job
    told = [e for e in f["env"] if os.environ.get(e.split("=", 1)[0]) != e.split("=", 1)[1]]
    assert "job.json" not in f["files"] and told == [], f
    assert f["in_memory"] == [] and f["reference_loaded"] == [], f


def test_a_forged_verdict_does_not_count(runner):
    """A wrong kernel replaces the comparison in its own interpreter: the verdict is made in a process it never ran
    in, from its outputs handed over as data, so it stays wrong."""
    wrong = attack('''
        import sys
        for name, mod in list(sys.modules.items()):
            if name.startswith("accelopt_runner") and hasattr(mod, "compare"):
                mod.compare = lambda *a, **k: (0.0, 0.0)
                found.setdefault("patched", []).append(name)
        ''').replace("nl.add(x, y)", "nl.subtract(x, y)")
    r = runner.run(wrong)
    assert r["status"] == "incorrect" and r["correct"] is False, r
    assert "l2" in r["error"].lower() or "tolerance" in r["error"].lower(), r["error"]


def test_a_patched_timer_or_model_changes_nothing_of_the_latency(runner):
    """The kernel halves every latency its interpreter can compute: the harness's timing protocol and nkisim's
    performance model, through sys.modules (a plausible 2x, well inside physics). Its time is modelled in the
    judge's process from the trace it handed over, so it gets exactly the latency of the same kernel unpatched."""
    honest = runner.run(attack("found['patched'] = []\n"), id_="honest")
    assert honest["status"] == "ok", honest
    r = runner.run(attack('''
        import sys
        import importlib
        for name in ("accelopt_runner.timing", "accelopt_runner.tracetiming", "nkisim.perf", "nkisim.perf.estimate"):
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        half = lambda f: (lambda *a, **k: _halved(f(*a, **k)))
        def _halved(v):
            if hasattr(v, "latency_ns"):
                v.latency_ns *= 0.5
            elif isinstance(v, tuple) and v and isinstance(v[0], dict):
                v = ({k: x * 0.5 for k, x in v[0].items()},) + v[1:]
            elif isinstance(v, dict) and "mean" in v:
                v = {k: x * 0.5 for k, x in v.items()}
            return v
        found["patched"] = []
        for name, mod in list(sys.modules.items()):
            if name.startswith(("accelopt_runner", "nkisim.perf")):
                for attr in ("benchmark", "stats", "estimate", "measure"):
                    if callable(getattr(mod, attr, None)):
                        setattr(mod, attr, half(getattr(mod, attr)))
                        found["patched"].append(name + "." + attr)
        if "accelopt_runner.tracetiming" in sys.modules:
            tt = sys.modules["accelopt_runner.tracetiming"].TraceTiming
            tt.measure = half(tt.measure)
        '''))
    f = found_by(r)
    assert "nkisim.perf.estimate" in f["patched"] and "accelopt_runner.timing.benchmark" in f["patched"], f
    assert r["status"] == "ok", r
    assert r["latency_ms"] == honest["latency_ms"], (r["latency_ms"], honest["latency_ms"])
    assert r["metrics"]["total_time"] == honest["metrics"]["total_time"]


RECORDER_PATCH = '''
    import nkisim.trace as trace
    import nkisim.context as context
    trace.Trace.add = lambda self, instr: instr
    context.Context.record = lambda self, *a, **k: None
    found["patched"] = True
    '''


def test_a_rewritten_recorder_changes_nothing_of_a_checked_run(runner):
    """The kernel stops nkisim from recording in its own interpreter. In a checked run its NKI calls are executed by
    nkisim in the judge's sandbox (nkisim/remote), so the outputs and the trace come from there: the same latency as
    the same kernel unpatched."""
    honest = runner.run(attack("found['patched'] = False\n"), id_="honest")
    r = runner.run(attack(RECORDER_PATCH))
    assert found_by(r)["patched"] is True
    assert r["status"] == "ok" and r["correct"] is True, r
    assert r["latency_ms"] == honest["latency_ms"], (r["latency_ms"], honest["latency_ms"])
    assert r["profile"]["instruction_count"] == honest["profile"]["instruction_count"] > 0


def test_an_empty_timing_only_trace_is_held_to_physics(runner):
    """A timing-only pass still records in the kernel's process (loop replay needs its frames): a kernel that
    records nothing there is called what it is by the runner's own roofline, and a real check re-times it."""
    r = runner.run(attack(RECORDER_PATCH), timing_only=True)
    assert found_by(r)["patched"] is True
    assert r["status"] == "rejected", r
    assert "took no time at all" in r["error"], r["error"]


HOLDS_NOTHING = add_kernel(body_before_return=textwrap.dedent('''\
    G = getattr
    found = {}
    for what, reach in (("alloc", lambda: a.alloc), ("read", lambda: a.read()), ("write", lambda: a.write),
                        ("key", lambda: a.key), ("new_alloc", lambda: nl.new_alloc),
                        ("context", lambda: nl.current), ("numpy", lambda: nl.np),
                        ("dunder", lambda: G(a, "_" * 2 + "dict" + "_" * 2)),
                        ("globals", lambda: G(nl.load, "_" * 2 + "globals" + "_" * 2)),
                        ("frame", lambda: G(iter(nl.affine_range(2)), "gi_frame"))):
        try:
            reach()
            found[what] = "reached"
        except Exception as e:
            found[what] = repr(e).split("(")[0]
    try:
        float(nl.load(a[0:128, :]))
        found["value"] = "reached"
    except Exception as e:
        found["value"] = repr(e).split("(")[0]
    print("ATTACK " + str(found).replace("'", '"'))
    '''))


def test_a_kernel_that_speaks_for_its_process_gets_no_verdict(runner):
    """The kernel writes its own bytes into the pipe its process talks to nkisim's server through: the server
    takes what it cannot read as the kernel's failure, never as a result."""
    r = runner.run(attack('''
        import sys
        conn = sys.modules["nkisim.remote.client"]._conn
        os.write(conn.chan.wfd, b'{"op": "return", "value": {"$h": 999999}}\\n{not json\\n')
        found["wrote"] = True
        '''))
    assert r["status"] == "runtime_error" and r["latency_ms"] is None, r
    assert "protocol" in r["error"] or "not a value" in r["error"], r["error"]


def test_a_checked_kernel_holds_handles_not_data_or_machinery(runner):
    """In a checked run the kernel's tiles are handles: no value of its inputs, no raw write that would bypass the
    instruction stream, none of nkisim's machinery (its allocations, its context, its module globals, a loop's
    frame) can be had from them, whichever way it asks."""
    r = runner.run(HOLDS_NOTHING)
    f = found_by(r)
    assert r["status"] == "ok" and r["correct"] is True, r
    assert all(not v.startswith("reached") for v in f.values()), f
    assert set(f) == {"alloc", "read", "write", "key", "new_alloc", "context", "numpy", "dunder", "globals",
                      "frame", "value"}, f


def test_a_trace_that_is_not_a_trace_is_rejected(runner):
    """In a timing-only pass (the trace recorded in the kernel's process) the kernel writes its own trace files in
    place of nkisim's: the judge reads them as data and refuses them, saying why; nothing of them becomes a
    latency."""
    r = runner.run(attack('''
        import nkisim.traceio as tio
        def forged(trace, stem):
            with open(stem + ".json", "w") as fh:
                json.dump({"version": tio.VERSION, "count": 1,
                           "signatures": [["nc_matmul", "warp", 0, 1, 1, "float32", [], 0, {}]]}, fh)
            with open(stem + ".npz", "wb") as fh:
                fh.write(b"not an npz")
            return 1
        tio.save = forged
        found["patched"] = True
        '''), timing_only=True)
    assert found_by(r)["patched"] is True
    assert r["status"] == "rejected" and r["latency_ms"] is None, r
    assert "instruction trace was not accepted" in r["error"] and "warp" in r["error"], r["error"]
