"""The bad-input suite (issue 20): every case in the cases_*.py tables is a wrong input to `accelopt` or to the
runner's protocol, and must get a clear message, the right exit status, and leave every file as it was.
See harness.py for what each case asserts, and README.md for how to add one."""
import collections
import hashlib
import json
import os
import pathlib
import queue
import subprocess
import sys
import threading

import pytest

import harness
import cases_runner
import cases_flags
import cases_kernels
import cases_taskjson
import cases_hosts
import cases_llm
import cases_databases
import cases_memory
import cases_usertask

CLI_MODULES = (cases_flags, cases_kernels, cases_taskjson, cases_hosts, cases_llm, cases_databases, cases_memory,
               cases_usertask)
CLI_CASES = [c for m in CLI_MODULES for c in m.CASES]


def _params(cases):
    """A strict xfail for a case that names a known bug: its fix shows as an XPASS, which fails the run."""
    out = []
    for c in cases:
        marks = [pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else []
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


@pytest.mark.parametrize("case", _params(CLI_CASES))
def test_cli(case, cli_outcomes):
    outcome = cli_outcomes[case.id]
    if isinstance(outcome, BaseException):
        raise outcome
    harness.check(case, outcome)


# ------------------------------------------------------------------------------------------------ the runner


class Serve:
    """A real `serve`; every stdout line is kept, and one that is not a JSON object is a failure of its own."""

    def __init__(self, args):
        env = {k: v for k, v in os.environ.items() if not k.startswith("ACCELOPT_")}
        env.update(PYTHONPATH=str(harness.RUNNER_DIR), PYTHONDONTWRITEBYTECODE="1")
        self.p = subprocess.Popen([sys.executable, "-m", "accelopt_runner", "serve", *args], env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.lines = queue.Queue()
        self.garbage = []
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _read(self):
        for raw in self.p.stdout:
            try:
                m = json.loads(raw)
                if not isinstance(m, dict):
                    raise ValueError
            except ValueError:
                self.garbage.append(raw)
                continue
            self.lines.put(m)
        self.lines.put(None)

    def _drain(self):
        for raw in self.p.stderr:
            self.stderr.append(raw.decode("utf-8", "replace"))

    def send(self, line: bytes):
        self.p.stdin.write(line + b"\n")
        self.p.stdin.flush()

    def recv(self, timeout):
        try:
            m = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer within {timeout:.0f} s") from None
        assert m is not None, "the runner closed its stdout (it died); stderr:\n" + "".join(self.stderr[-30:])
        return m

    def close(self):
        if self.p.poll() is None:
            try:
                self.send(b'{"op":"shutdown"}')
                self.p.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                self.p.kill()


@pytest.fixture(scope="module")
def servers():
    made = {}

    def get(name):
        if name not in made:
            made[name] = Serve([] if name == "main" else ["--max-message-mib", "0.01"])
        return made[name]
    yield get
    for s in made.values():
        s.close()


def _fill(value, case_dir: pathlib.Path, kernel: str):
    """{case} and the kernel marker in a message, at any depth."""
    if isinstance(value, str):
        return kernel if value == cases_runner.SILU_KERNEL else value.replace("{case}", str(case_dir))
    if isinstance(value, dict):
        return {k: _fill(v, case_dir, kernel) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, case_dir, kernel) for v in value]
    return value


def _make_files(files, case_dir: pathlib.Path):
    box = harness.Sandbox.__new__(harness.Sandbox)  # only its file maker, rooted at the case folder
    box.root, box.seeded_memory, box.fifos, box.immutable = case_dir, None, [], []
    for rel, content in files.items():
        box.make(rel, content)
    return box


def _tree(root: pathlib.Path) -> dict:
    out = {}
    for p in sorted(root.rglob("*")):
        st = os.lstat(p)
        out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() and \
            not p.is_symlink() and (st.st_mode & 0o170000) == 0o100000 else "other"
    return out


@pytest.mark.parametrize("rcase", _params(cases_runner.CASES))
def test_runner_message(rcase, servers, tmp_path):
    srv = servers(rcase.server)
    kernel = harness.SILU.read_text()
    box = _make_files(rcase.files, tmp_path)
    guard = harness.FifoGuard(box.fifos)
    before = _tree(tmp_path)
    tasks_before = _tree(harness.TASKS)
    try:
        for line in rcase.send:
            if isinstance(line, (dict, list)):
                line = json.dumps(_fill(line, tmp_path, kernel)).encode()
            elif isinstance(line, str):
                line = line.encode()
            else:
                line = line.replace(b"{case}", str(tmp_path).encode())
            srv.send(line)
        answers = [srv.recv(rcase.timeout) for _ in rcase.expect]
        srv.send(b'{"op":"hello"}')
        hello = srv.recv(rcase.timeout)
    finally:
        guard.release()
    for want, got in zip(rcase.expect, answers):
        shown = json.dumps(got)[:1500]
        for key, value in want.items():
            if key == "says":
                for s in value:
                    s = s.replace("{case}", str(tmp_path))
                    assert s in (got.get("error") or ""), f"the answer does not say {s!r}: {shown}"
            else:
                assert key in got and got[key] == value and type(got[key]) is type(value), \
                    f"{key} is {got.get(key)!r}, expected {value!r}: {shown}"
        assert "Traceback" not in json.dumps(got), f"a traceback in the answer: {shown}"
    assert hello.get("op") == "hello", f"after the case the runner answered hello with {json.dumps(hello)[:500]}"
    assert srv.p.poll() is None, "the runner exited"
    assert not srv.garbage, f"stdout carried non-JSON lines: {srv.garbage[:3]}"
    assert not guard.opened, f"opened the FIFO {guard.opened}"
    assert _tree(tmp_path) == before, "the case's files changed"
    assert _tree(harness.TASKS) == tasks_before, "the shipped tasks changed"


@pytest.mark.parametrize("rcli", _params(cases_runner.CLI))
def test_runner_command_line(rcli, tmp_path):
    box = _make_files(rcli.files, tmp_path)
    before = _tree(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACCELOPT_")}
    env.update(PYTHONPATH=str(harness.RUNNER_DIR), PYTHONDONTWRITEBYTECODE="1")
    guard = harness.FifoGuard(box.fifos)
    try:
        p = subprocess.run([sys.executable, "-m", "accelopt_runner",
                            *(a.replace("{case}", str(tmp_path)) for a in rcli.args)],
                           env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    finally:
        guard.release()
    shown = f"\nexit {p.returncode}\n--- stdout\n{p.stdout[-2000:]}\n--- stderr\n{p.stderr[-2000:]}"
    assert not guard.opened, f"opened the FIFO {guard.opened}" + shown
    assert "Traceback" not in p.stdout + p.stderr, "a traceback" + shown
    assert p.returncode == rcli.exit, f"exit {p.returncode}, expected {rcli.exit}" + shown
    for s in rcli.says:
        s = s.replace("{case}", str(tmp_path))
        assert s in p.stderr, f"stderr does not say {s!r}" + shown
    assert not p.stdout.strip(), "a usage error printed on stdout" + shown
    assert _tree(tmp_path) == before, "the case's files changed" + shown


def test_corpus_counts():
    """At least 300 distinct cases over all areas (issue 20), each id once."""
    ids = [c.id for c in CLI_CASES] + [c.id for c in cases_runner.CASES] + [c.id for c in cases_runner.CLI]
    dupes = [i for i, n in collections.Counter(ids).items() if n > 1]
    assert not dupes, dupes
    areas = collections.Counter(i.split("/", 1)[0] for i in ids)
    assert len(ids) >= 300, areas
    for area in ("flags", "kernels", "taskjson", "hostsjson", "llmjson", "databases", "memoryimport", "runner"):
        assert areas[area] >= 10, areas
