"""Hostile and malformed input to a real `serve` (and to `eval`): every bad line or field gets a message saying what
was wrong, and the server keeps serving the next request (the hardening issue's runner items)."""
import json
import sys
import time

import pytest

from runner_helpers import ADD_KERNEL, RUNNER_DIR, Serve, add_kernel, make_add_task, run_cli, runner_env

sys.path.insert(0, str(RUNNER_DIR))
from accelopt_runner import jobs, limits, protocol  # noqa: E402

TASK = {"name": "add"}


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    d = tmp_path_factory.mktemp("tasks")
    make_add_task(d)
    return d


@pytest.fixture(scope="module")
def srv(tasks):
    s = Serve(["--tasks", str(tasks)])  # the default line limit, so a kernel over its own limit fits in a line
    yield s
    s.close()


def still_serving(srv):
    srv.send({"op": "hello"})
    m = srv.recv()
    assert m["op"] == "hello", m
    assert srv.p.poll() is None


def deep(n, kind):
    if kind == "array":
        return "[" * n + "]" * n
    return '{"a":' * n + "1" + "}" * n


# --------------------------------------------------------------------------------------- malformed lines (item 1)

@pytest.mark.parametrize("kind", ["array", "object"])
def test_deep_nesting_is_an_error_line_not_a_crash(srv, kind):
    line = deep(990, kind)
    assert len(line) < 6000
    srv.send_raw(line.encode() + b"\n")
    m = srv.recv()
    assert m["op"] == "error" and m["id"] is None and m["status"] == "infra_error"
    assert "990 levels deep" in m["error"] and f"at most {protocol.MAX_DEPTH}" in m["error"], m
    still_serving(srv)


def test_deep_nesting_inside_an_eval_answers_that_eval(srv):
    line = '{"op":"eval","id":"deep1","kernel":"x","task":' + deep(990, "array") + "}"
    srv.send_raw(line.encode() + b"\n")
    m = srv.recv()
    assert m["op"] == "result" and m["id"] == "deep1" and m["status"] == "infra_error"
    assert "levels deep" in m["error"]
    still_serving(srv)


@pytest.mark.parametrize("raw,says", [
    (b'{"op":"hello","x":NaN}', "NaN is not a JSON number"),
    (b'{"op":"hello","x":Infinity}', "Infinity is not a JSON number"),
    (b'{"op":"hello","x":-Infinity}', "-Infinity is not a JSON number"),
    (b'{"op":"hello","x":1e999}', "the number 1e999 is out of range"),
    (b'{"op":"hello","x":' + b"9" * 5000 + b"}", "(5000 digits) is out of range"),
    (b'{"op":"hello","x":9223372036854775808}', "out of range (integers must lie in [-2^63, 2^63))"),
    (b'{"op":"hello","op":"eval"}', "the key 'op' appears twice"),
    (b'[{"op":"hello"}]', "must be a JSON object"),
    (b'"hello"', "got a JSON string"),
    (b"42", "got a JSON number"),
    (b"null", "got a JSON null"),
    (b'{"op":"hello","x":"\xff\xfe"}', "not valid UTF-8 (byte 0xff at offset 19"),
    (b"{not json", "malformed JSON message"),
])
def test_bad_line_says_what_is_wrong_and_serving_goes_on(srv, raw, says):
    srv.send_raw(raw + b"\n")
    m = srv.recv()
    assert m["op"] == "error" and m["status"] == "infra_error" and m["id"] is None, m
    assert says in m["error"], m["error"]
    still_serving(srv)


def test_malformed_eval_with_an_id_gets_its_result(srv):
    """A client waiting for eval "nan1" gets an answer for it, not an anonymous error line."""
    srv.send_raw(b'{"op":"eval","id":"nan1","task":"add","kernel":"x","timeout_s":NaN}\n')
    m = srv.recv()
    assert m["op"] == "result" and m["id"] == "nan1" and m["status"] == "infra_error"
    assert "NaN is not a JSON number" in m["error"]
    still_serving(srv)


def test_nesting_scan_ignores_brackets_in_strings_and_is_linear():
    assert protocol.nesting_depth(b'{"a":"[[[[{{{{\\"[[[[","b":[[1]]}') == 3
    assert protocol.nesting_depth(b'"[[[[[') == 0  # an unterminated string runs to the end of the line
    assert protocol.nesting_depth(b"") == 0
    wide = b"[" + b"[]," * 3_000_000 + b"[]]"  # 9 MB of shallow brackets
    t0 = time.monotonic()
    assert protocol.nesting_depth(wide) == 2
    assert time.monotonic() - t0 < 5
    with pytest.raises(protocol.ProtocolError, match="levels deep"):
        protocol.parse(deep(protocol.MAX_DEPTH + 1, "array").encode())
    assert protocol.parse(b'{"a":' + deep(protocol.MAX_DEPTH - 1, "array").encode() + b"}")


# --------------------------------------------------------------------------------------- the kernel (items 2, 4)

@pytest.mark.parametrize("kernel,says", [
    ("", "the kernel is empty; send the NKI source"),
    ("  \n\t\n", "the kernel is empty (only whitespace)"),
    (ADD_KERNEL.replace("n, d = a.shape", "n, d = a.shape\0"), "NUL character (line 9, column 19)"),
    (None, "got nothing"),
    (123, "got int"),
])
def test_kernel_text_problems_are_named(srv, kernel, says):
    r = srv.eval("k1", TASK, kernel, size="small")
    assert r["op"] == "result" and r["id"] == "k1" and r["status"] == "infra_error", r
    assert says in r["error"], r["error"]


def test_unpaired_surrogate_in_kernel(srv):
    line = json.dumps({"op": "eval", "id": "sur", "task": TASK, "size": "small",
                       "kernel": "# ok\n# \ud800\ndef kernel(a, b):\n    return a\n"})
    assert "\\ud800" in line
    srv.send_raw(line.encode() + b"\n")
    r = srv.recv()
    assert r["id"] == "sur" and r["status"] == "infra_error"
    assert "not valid Unicode text: line 2 holds an unpaired surrogate (\\ud800)" in r["error"], r["error"]


def test_kernel_over_the_limit_names_limit_and_size(srv):
    big = "# " + "x" * (limits.MAX_KERNEL_BYTES - 1) + "\n" + ADD_KERNEL
    size = len(big.encode())
    r = srv.eval("huge", TASK, big, size="small", timeout=120)
    assert r["status"] == "infra_error"
    assert f"the kernel is {size} bytes of UTF-8 source, over the runner's limit of {limits.MAX_KERNEL_BYTES} " \
           f"bytes (4 MiB)" in r["error"], r["error"]
    at_limit = "# " + "x" * (limits.MAX_KERNEL_BYTES - len(ADD_KERNEL) - 4) + "\n" + ADD_KERNEL
    assert len(at_limit.encode()) <= limits.MAX_KERNEL_BYTES
    r = srv.eval("atlimit", TASK, at_limit, size="small", timeout=120, timing_only=True)
    assert r["status"] == "ok", r["error"]


def test_hello_reports_line_limit_that_holds_an_escaped_kernel(srv):
    srv.send({"op": "hello"})
    h = srv.recv()
    assert h["limits"]["max_message_bytes"] == limits.MAX_MESSAGE_MIB * 1024 * 1024
    assert h["limits"]["max_kernel_bytes"] == limits.MAX_KERNEL_BYTES
    assert h["limits"]["max_message_bytes"] >= 3 * limits.MAX_KERNEL_BYTES
    assert h["limits"]["max_json_depth"] == protocol.MAX_DEPTH
    assert h["limits"]["timeout_s_range"] == [jobs.TIMEOUT_MIN_S, jobs.TIMEOUT_MAX_S]
    assert h["limits"]["max_seeds"] == jobs.MAX_SEEDS


def test_cli_kernel_file_problems(tmp_path, tasks):
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"# fine\n# caf\xe9 in latin-1\ndef kernel(a, b):\n    return a\n")
    p = run_cli(["eval", "--tasks", str(tasks), "--task", "add", "--size", "small", "--kernel", str(bad)])
    assert p.returncode == 2 and "is not valid UTF-8 text (line 2, byte 0xe9" in p.stderr, p.stderr
    empty = tmp_path / "empty.py"
    empty.write_text("")
    p = run_cli(["eval", "--tasks", str(tasks), "--task", "add", "--size", "small", "--kernel", str(empty)])
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["status"] == "infra_error" and "the kernel is empty" in r["error"]


# --------------------------------------------------------------------------------------- request fields

@pytest.mark.parametrize("field,value,says", [
    ("timeout_s", -1, "'timeout_s' must be a number of seconds in [0.5, 604800], got -1"),
    ("timeout_s", 1e99, "'timeout_s' must be a number of seconds in [0.5, 604800], got 1e+99"),
    ("timeout_s", 0.001, "in [0.5, 604800], got 0.001"),
    ("timeout_s", "60", "in [0.5, 604800], got '60'"),
    ("timeout_s", True, "in [0.5, 604800], got True"),
    ("num_seeds", 10 ** 9, "'num_seeds' must be an integer in [1, 64], got 1000000000"),
    ("seeds", list(range(65)), "'seeds' must be a list of 1-64 integers in [0, 2^32)"),
    ("seeds", [-1], "'seeds' must be a list of 1-64 integers"),
    ("seeds", [], "'seeds' must be a list of 1-64 integers"),
    ("seeds", "1,2", "'seeds' must be a list"),
    ("timing_only", "false", "'timing_only' must be true or false, got 'false'"),
    ("warmup", -1, "'warmup' must be an integer in [0, 10000]"),
    ("iters", 1.5, "'iters' must be an integer in [1, 100000], got 1.5"),
    ("backend", ["sim"], "'backend' must be one of sim, neuron"),
    ("target", "trn9", "'target' must be one of"),
    ("memory_limit_mb", 100, "'memory_limit_mb' must be 0 (no limit) or at least 256"),
    ("timeline_cap", 10 ** 7, "'timeline_cap' must be an integer in [0, 1000000]"),
    ("rel_tol", "tight", "'rel_tol' must be a number in (0, 1), got 'tight'"),
    ("rel_tol", -1, "'rel_tol' must be a number in (0, 1), got -1"),
    ("roofline_compat", 5, "'roofline_compat' must be one of"),
    ("size", "huge", "'size' must be \"full\" or \"small\""),
])
def test_bad_field_is_refused_with_the_accepted_range(srv, field, value, says):
    req = {"size": "small", field: value}
    r = srv.eval("f1", TASK, ADD_KERNEL, **req)
    assert r["op"] == "result" and r["id"] == "f1" and r["status"] == "infra_error", r
    assert r["error"].startswith("bad eval request: ") and says in r["error"], r["error"]


def test_unknown_op_and_bad_ids(srv):
    srv.send({"op": "frobnicate", "id": 3})
    m = srv.recv()
    assert m["op"] == "error" and \
        "unknown op 'frobnicate' (expected hello, eval, port, task_check, cancel or shutdown)" in m["error"]
    for bad_id in (None, True, [1], {"a": 1}):
        srv.send({"op": "eval", "id": bad_id, "task": TASK, "kernel": ADD_KERNEL})
        m = srv.recv()
        assert m["op"] == "error" and m["id"] is None and "an eval needs an 'id'" in m["error"], m
    srv.send({"op": "cancel", "id": "nobody"})
    m = srv.recv()
    assert m["op"] == "error" and 'no queued or running eval with id "nobody"' in m["error"]
    still_serving(srv)


def test_duplicate_id_of_a_pending_eval_is_refused(srv):
    loop = add_kernel(body_before_return="while True:\n    pass")
    srv.send({"op": "eval", "id": "dup", "task": TASK, "kernel": loop, "size": "small", "timeout_s": 60})
    srv.send({"op": "eval", "id": "dup", "task": TASK, "kernel": ADD_KERNEL, "size": "small"})
    m = srv.recv()
    assert m["op"] == "error" and m["id"] is None and m["request_id"] == "dup", m
    assert 'an eval with id "dup" is already queued or running' in m["error"]
    srv.send({"op": "cancel", "id": "dup"})
    m = srv.recv(60)
    assert m["op"] == "result" and m["id"] == "dup" and m["cancelled"] is True
    r = srv.eval("dup", TASK, ADD_KERNEL, size="small", timing_only=True)  # free again once answered
    assert r["status"] == "ok", r


@pytest.mark.parametrize("opt", [["--timeout-s", "-1"], ["--timeout-s", "nan"], ["--timeout-s", "1e99"],
                                 ["--max-message-mib", "nan"], ["--max-message-mib", "-4"]])
def test_cli_refuses_bad_limits(opt, tasks):
    p = run_cli(["probe", *opt], env=runner_env())
    assert p.returncode == 2 and opt[0] in p.stderr and "must be a number" in p.stderr, p.stderr


def test_cli_eval_timeout_and_seeds(tasks):
    p = run_cli(["eval", "--tasks", str(tasks), "--task", "add", "--size", "small", "--timeout", "0.001"])
    assert p.returncode == 2 and "--timeout must be a number of seconds in [0.5, 604800], got 0.001" in p.stderr
    p = run_cli(["eval", "--tasks", str(tasks), "--task", "add", "--size", "small", "--seeds", "1,x"])
    assert p.returncode == 2 and "--seeds must be comma-separated whole numbers" in p.stderr, p.stderr


def test_job_file_with_nan_is_refused(tmp_path, tasks):
    job = tmp_path / "job.json"
    job.write_text('{"id": "j", "task": "add", "size": "small", "timeout_s": NaN}')
    p = run_cli(["eval", "--tasks", str(tasks), "--job", str(job)])
    assert p.returncode == 2 and "NaN is not a JSON number" in p.stderr, p.stderr


# --------------------------------------------------------------------------------------- the child's environment

ENV_REFERENCE = '''\
import numpy as np

def _report():
    with open("/proc/self/environ", "rb") as f:
        names = sorted(e.split(b"=", 1)[0].decode() for e in f.read().split(b"\\0") if e)
    print("ENVIRON " + " ".join(names))

def get_inputs(seed, params):
    _report()
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(128, 256)).astype(np.float32), rng.normal(size=(128, 256)).astype(np.float32)]

def forward(a, b):
    return a + b
'''


def test_eval_child_gets_an_allow_listed_environment(tmp_path):
    """The runner's environment may hold the LLM API key (the local host passed its whole environment on); the
    child, which runs the untrusted kernel, must not see it. The task reference runs in the same child process as
    the kernel, so what it reads from /proc/self/environ is what the kernel could read."""
    env = runner_env()
    env.update(OPENAI_API_KEY="sk-secret-1", ACCELOPT_API_KEY="secret-2", ANTHROPIC_API_KEY="secret-3",
               AWS_SECRET_ACCESS_KEY="secret-4", NEURON_CC_FLAGS="--verbose", NKISIM_REPLAY="1",
               LC_ALL="C.UTF-8", SITE_SDK_HOME="/opt/site", ACCELOPT_RUNNER_CHILD_ENV="SITE_SDK_HOME, OTHER")
    s = Serve(["--tasks", str(tmp_path)], env=env)
    try:
        task = {"name": "envtask", "reference": ENV_REFERENCE, "parameters": {}}
        r = s.eval("env1", task, ADD_KERNEL, seeds=[1], timeout_s=60)
    finally:
        s.close()
    assert r["status"] == "ok", r
    line = [ln for ln in r["output"].splitlines() if ln.startswith("ENVIRON ")]
    assert len(line) == 1, r["output"]
    names = set(line[0].split()[1:])
    for secret in ("OPENAI_API_KEY", "ACCELOPT_API_KEY", "ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY",
                   "ACCELOPT_RUNNER_CHILD_ENV"):
        assert secret not in names, names
    for needed in ("PATH", "HOME", "TMPDIR", "PYTHONPATH", "NEURON_CC_FLAGS", "NKISIM_REPLAY", "LC_ALL",
                   "OPENBLAS_NUM_THREADS", "SITE_SDK_HOME"):
        assert needed in names, (needed, names)
    allowed = {"PATH", "HOME", "TMPDIR", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED",
               "PYTHONIOENCODING", "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME", "LD_LIBRARY_PATH", "VIRTUAL_ENV",
               "SITE_SDK_HOME", *limits.BLAS_THREAD_VARS,
               "PWD"}  # bwrap --chdir sets PWD (the workdir)
    prefixes = ("LC_", "NEURON_", "NKISIM_", "MALLOC_", "OPENBLAS_", "OMP_", "MKL_", "GOTO_")
    unexpected = {n for n in names if n not in allowed and not n.startswith(prefixes)}
    assert not unexpected, unexpected


def test_child_env_keeps_neuron_settings_and_sets_the_core():
    from accelopt_runner import sandbox
    job = {"backend": "neuron", "core": 3, "target": "trn2", "limits": {"blas_threads": 2}}
    env = sandbox.child_env(job, "/w", {"PATH": "/bin", "NEURON_RT_VISIBLE_CORES": "0-7", "NEURON_CC_FLAGS": "-O2",
                                        "OPENAI_API_KEY": "x", "HOME": "/root", "TMPDIR": "/var/tmp"})
    assert env["NEURON_RT_VISIBLE_CORES"] == "3" and env["NEURON_CC_FLAGS"] == "-O2 --auto-cast=none"
    assert env["NEURON_PLATFORM_TARGET_OVERRIDE"] == "trn2" and env["HOME"] == env["TMPDIR"] == "/w"
    assert "OPENAI_API_KEY" not in env and env["OPENBLAS_NUM_THREADS"] == "2"
    assert sandbox.child_env({**job, "backend": "sim"}, "/w", {})["PATH"]  # a PATH even when the runner had none
