"""The bad-input suite's machinery: a case is data (tables in cases_*.py); this file builds its files in a fresh
sandbox, runs it, and checks what every case must satisfy.

Every CLI case runs `accelopt` in a sandbox of its own:

    <root>/home     HOME (XDG_CONFIG_HOME, XDG_DATA_HOME and XDG_CACHE_HOME under it)
    <root>/state    workspace.sqlite, memory.sqlite, llm.json, hosts.json (ACCELOPT_* point here)
    <root>/work     the current directory, where kernels and other input files go

and is judged on:
  * the exit status (and never a signal: no crash);
  * the message: substrings (and optionally a regex) in the stream the case names, so it says what is wrong, where,
    and what to do;
  * no Python traceback and no Qt warning (QObject::, QSqlDatabase..., "Qt has caught an exception") in the output;
  * files: every file the case created is byte-identical afterwards unless listed in may_change, no file appears
    that the case does not allow in `creates`, and the paths in `absent` do not exist;
  * FIFOs: a FIFO given as input is never opened (reading one blocks until a writer comes, which may be never). A
    helper thread holds the writing end's open() so that a program that does open it reads end-of-file instead of
    hanging, and the case fails with "opened the FIFO".
"""
from __future__ import annotations

import dataclasses
import errno
import hashlib
import os
import pathlib
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
TASKS = REPO / "nkibench" / "tasks"
SILU = TASKS / "silu" / "baseline.py"
RUNNER_DIR = REPO / "nkibench" / "runner"

WORKSPACE_APP_ID = 0x414F5753  # DatabaseSchema::workspaceApplicationId ("AOWS")
MEMORY_APP_ID = 0x414F4D45  # DatabaseSchema::memoryApplicationId ("AOME")

# Output that must never reach a user: a Python traceback, Qt's own warnings, a C++ abort.
LEAKS = re.compile(r"Traceback \(most recent call last\)|^QObject::|^QSql\w+::|^QThread|^QProcess:|^QSocketNotifier"
                   r"|^QIODevice::|^QFile::|^QEventLoop|^QCoreApplication::|Qt has caught an exception"
                   r"|terminate called|Segmentation fault|Aborted \(core dumped\)|AddressSanitizer",
                   re.MULTILINE)


# ----------------------------------------------------------------------------------------------------- file kinds

class Fifo:
    """A named pipe."""


class Dir:
    """A folder (optionally holding files: relpath -> content, as Case.files)."""

    def __init__(self, files=None):
        self.files = files or {}


@dataclasses.dataclass
class Symlink:
    target: str  # placeholders allowed


@dataclasses.dataclass
class Big:
    """size bytes: `line` repeated (cut at size), so a file over a limit costs no memory in the table."""
    size: int
    line: bytes = b"# padding " + b"x" * 100 + b"\n"
    head: bytes = b""


@dataclasses.dataclass
class Sqlite:
    """A SQLite file built by Python's sqlite3: application_id, user_version, statements; wal: the journal mode a
    file AccelOpt wrote has (a refusal must not even switch the mode, so the bytes stay the same)."""
    app_id: int = 0
    version: int = 0
    sql: tuple = ()
    wal: bool = True


@dataclasses.dataclass
class Damaged:
    """A SQLite file of `rows` rows, then damaged: 'truncate' to half, 'pages' (4 KiB of 0x5a over page 2), 'header'
    (the first 100 bytes after the magic overwritten)."""
    how: str
    app_id: int = MEMORY_APP_ID


@dataclasses.dataclass
class ReadOnly:
    """content, then made unwritable: chmod for a normal user; for root, which ignores modes, the immutable attribute
    (chattr +i). Skipped where neither works."""
    content: object


@dataclasses.dataclass
class Mode:
    """content, then chmod'ed to `mode` (e.g. 0o644: a settings file other users can read)."""
    content: object
    mode: int


class SeededMemory:
    """A healthy memory database holding SEED_EXPERIENCES (written by `accelopt memory import`, once per run), then
    `plant`: SQL statements run on the copy (objects AccelOpt did not create)."""

    def __init__(self, plant=()):
        self.plant = tuple(plant)


class SeededTask:
    """A copy of nkibench/tasks/silu with task.json replaced by `task_json` (bytes/str/dict) or changed by `change`
    (a function of the parsed task.json that edits it), and files replaced/removed by `files` (name -> content or
    None to remove)."""

    def __init__(self, task_json=None, change=None, files=None):
        self.task_json, self.change, self.files = task_json, change, files or {}


SEED_EXPERIENCES = (b'{"format": "accelopt-memory", "version": 1, "experiences": ['
                    b'{"task": "silu", "target": "trn1", "title": "Overlap loads with affine_range", '
                    b'"lesson": "Independent iterations let the DMA queues overlap.", "speedup": 1.4},'
                    b'{"task": "silu", "title": "Tiny tiles hurt", "lesson": "DMA overhead dominates small tiles.", '
                    b'"speedup": 0.7}]}')


# ----------------------------------------------------------------------------------------------------------- case

@dataclasses.dataclass
class Case:
    """One bad input to `accelopt`. args: the command line after `accelopt` ({work}, {state}, {home}, {root},
    {silu}, {tasks}, {repo} are replaced by the sandbox's paths). says: substrings the message must hold (in
    `stream`: "err", "out" or "any"); regex: a pattern it must match. files: relpath (under the sandbox root, e.g.
    "work/k.py", "state/hosts.json") -> content (bytes, str, or one of the kinds above)."""
    id: str
    args: list
    exit: int
    says: tuple = ()
    regex: str | None = None
    stream: str = "err"
    files: dict = dataclasses.field(default_factory=dict)
    may_change: tuple = ()  # relpaths the command may rewrite (it succeeds at something)
    creates: tuple = ()  # relpaths (regexes, fully matched) the command may create
    absent: tuple = ()  # relpaths that must not exist afterwards
    env: dict = dataclasses.field(default_factory=dict)
    stdin: bytes | None = None
    xfail: str | None = None
    quiet_stdout: bool | None = None  # default: True for exit 2 (a usage error prints nothing on stdout)
    timeout: float = 120.0
    memory_limit_mb: int | None = None  # RLIMIT_AS, for a case that may read without end (a device)
    # output lines (a regex) a known, timing-dependent bug may add, which a strict xfail cannot hold: the case still
    # asserts everything else. Each use names the bug (README.md, "Known bugs that are not xfail").
    tolerate: str | None = None

    @property
    def area(self) -> str:
        return self.id.split("/", 1)[0]


# -------------------------------------------------------------------------------------------------------- sandbox

def subst(text: str, root: pathlib.Path) -> str:
    """The case's placeholders replaced by the sandbox's paths."""
    for key, value in (("{work}", root / "work"), ("{state}", root / "state"), ("{home}", root / "home"),
                       ("{root}", root), ("{silu}", SILU), ("{tasks}", TASKS), ("{repo}", REPO)):
        text = text.replace(key, str(value))
    return text


class Sandbox:
    def __init__(self, root: pathlib.Path, seeded_memory: pathlib.Path | None):
        self.root = root
        self.seeded_memory = seeded_memory
        self.fifos: list[pathlib.Path] = []
        self.immutable: list[pathlib.Path] = []
        for d in ("home/.config", "home/.local/share", "home/.cache", "state", "work"):
            (root / d).mkdir(parents=True, exist_ok=True)

    def subst(self, text: str) -> str:
        return subst(text, self.root)

    def env(self, extra: dict) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ACCELOPT_", "XDG_", "QT_", "PYTHON")) and k not in ("HOME",)}
        h, s = self.root / "home", self.root / "state"
        env.update(HOME=str(h), XDG_CONFIG_HOME=str(h / ".config"), XDG_DATA_HOME=str(h / ".local/share"),
                   XDG_CACHE_HOME=str(h / ".cache"), ACCELOPT_WORKSPACE_DB=str(s / "workspace.sqlite"),
                   ACCELOPT_MEMORY_DB=str(s / "memory.sqlite"), ACCELOPT_LLM_CONFIG=str(s / "llm.json"),
                   ACCELOPT_HOSTS_FILE=str(s / "hosts.json"), ACCELOPT_KNOWN_HOSTS=str(h / ".ssh/known_hosts"),
                   ACCELOPT_SSH_CONFIG=str(h / ".ssh/config"), ACCELOPT_NO_KEYCHAIN="1",
                   ACCELOPT_DATA_DIR=str(REPO),  # this checkout's nkibench/ and prompts/, whatever the binary's
                   QT_QPA_PLATFORM="offscreen", PYTHONDONTWRITEBYTECODE="1", LC_ALL="C.UTF-8")
        env.update({k: self.subst(v) for k, v in extra.items()})
        return env

    def make(self, rel: str, content) -> None:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode()
        if isinstance(content, bytes):
            p.write_bytes(content)
        elif isinstance(content, Fifo):
            os.mkfifo(p)
            self.fifos.append(p)
        elif isinstance(content, Dir):
            p.mkdir(exist_ok=True)
            for name, inner in content.files.items():
                self.make(f"{rel}/{name}", inner)
        elif isinstance(content, Symlink):
            os.symlink(self.subst(content.target), p)
        elif isinstance(content, Big):
            _big(p, content)
        elif isinstance(content, Sqlite):
            _sqlite(p, content)
        elif isinstance(content, Damaged):
            _damaged(p, content)
        elif isinstance(content, SeededMemory):
            shutil.copyfile(self.seeded_memory, p)
            if content.plant:
                c = sqlite3.connect(p)
                for s in content.plant:
                    c.execute(s)
                c.commit()
                c.close()
        elif isinstance(content, SeededTask):
            _seeded_task(p, content)
        elif isinstance(content, Mode):
            self.make(rel, content.content)
            p.chmod(content.mode)
        elif isinstance(content, ReadOnly):
            self.make(rel, content.content)
            self._freeze(p)
        else:
            raise TypeError(f"unknown file kind {content!r}")

    def _freeze(self, p: pathlib.Path) -> None:
        import pytest
        if os.geteuid() != 0:
            mode = p.stat().st_mode
            p.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
            return
        r = subprocess.run(["chattr", "+i", str(p)], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"cannot make {p.name} read-only for root here (chattr +i: {r.stderr.strip()})")
        self.immutable.append(p)

    def cleanup(self) -> None:
        for p in self.immutable:
            subprocess.run(["chattr", "-i", str(p)], capture_output=True)
        for p in self.root.rglob("*"):  # chmod'ed folders
            try:
                if p.is_dir() and not p.is_symlink():
                    p.chmod(0o755)
            except OSError:
                pass
        shutil.rmtree(self.root, ignore_errors=True)

    def snapshot(self) -> dict:
        """relpath -> sha256 of every regular file, or the kind of anything else."""
        out = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            for name in dirnames + filenames:
                p = pathlib.Path(dirpath) / name
                rel = str(p.relative_to(self.root))
                st = os.lstat(p)
                if stat.S_ISREG(st.st_mode):
                    out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
                elif stat.S_ISDIR(st.st_mode):
                    out[rel] = "dir"
                elif stat.S_ISLNK(st.st_mode):
                    out[rel] = "link -> " + os.readlink(p)
                else:
                    out[rel] = "special"
        return out


def _big(p: pathlib.Path, spec: Big) -> None:
    with open(p, "wb") as f:
        f.write(spec.head)
        left = spec.size - len(spec.head)
        chunk = spec.line * (1 + (1 << 20) // len(spec.line))
        while left > 0:
            f.write(chunk[:left])
            left -= min(left, len(chunk))


def _sqlite(p: pathlib.Path, spec: Sqlite) -> None:
    c = sqlite3.connect(p)
    if spec.wal:
        c.execute("PRAGMA journal_mode=WAL")
    c.execute(f"PRAGMA application_id={spec.app_id}")
    c.execute(f"PRAGMA user_version={spec.version}")
    for s in spec.sql:
        c.execute(s)
    c.commit()
    c.close()


def _damaged(p: pathlib.Path, spec: Damaged) -> None:
    _sqlite(p, Sqlite(spec.app_id, 1, ("CREATE TABLE filler(x)",), wal=False))
    c = sqlite3.connect(p)
    c.executemany("INSERT INTO filler VALUES (?)", [("x" * 400,)] * 100)
    c.commit()
    c.close()
    data = bytearray(p.read_bytes())
    if spec.how == "truncate":
        data = data[:len(data) // 2]
    elif spec.how == "pages":
        data[4096:8192] = b"\x5a" * 4096
    elif spec.how == "header":
        data[16:100] = b"\xff" * 84
    else:
        raise ValueError(spec.how)
    p.write_bytes(bytes(data))


def _seeded_task(p: pathlib.Path, spec: SeededTask) -> None:
    import json
    shutil.copytree(TASKS / "silu", p)
    tj = p / "task.json"
    if spec.task_json is not None:
        content = spec.task_json
        if isinstance(content, dict):
            content = json.dumps(content)
        if isinstance(content, Big):
            _big(tj, content)
        else:
            tj.write_bytes(content.encode() if isinstance(content, str) else content)
    elif spec.change is not None:
        doc = json.loads(tj.read_text())
        spec.change(doc)
        tj.write_text(json.dumps(doc))
    for name, content in spec.files.items():
        f = p / name
        if f.is_dir() and not f.is_symlink():
            shutil.rmtree(f)
        elif f.exists() or f.is_symlink():
            f.unlink()
        if content is None:
            continue
        if isinstance(content, Fifo):
            os.mkfifo(f)
        elif isinstance(content, Dir):
            f.mkdir()
        else:
            f.write_bytes(content.encode() if isinstance(content, str) else content)


# ------------------------------------------------------------------------------------------------------ FIFO guard

class FifoGuard:
    """Holds open() of each FIFO's writing end on a thread: it returns when a reader opens the FIFO, and the thread
    then closes it at once, so that reader reads end-of-file instead of blocking forever. Afterwards, the guard
    releases the threads still waiting by opening the FIFOs itself."""

    def __init__(self, fifos):
        self.fifos = list(fifos)
        self.done = False
        self.opened: list[str] = []
        self.threads = [threading.Thread(target=self._hold, args=(f,), daemon=True) for f in self.fifos]
        for t in self.threads:
            t.start()

    def _hold(self, path):
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError:
            return
        if not self.done:
            self.opened.append(path.name)
        os.close(fd)

    def release(self):
        self.done = True
        for f, t in zip(self.fifos, self.threads):
            if t.is_alive():
                try:
                    fd = os.open(f, os.O_RDONLY | os.O_NONBLOCK)
                except OSError as e:
                    if e.errno != errno.ENOENT:
                        raise
                    continue
                t.join(10)
                os.close(fd)


# ------------------------------------------------------------------------------------------------------------ run

@dataclasses.dataclass
class Outcome:
    root: pathlib.Path
    argv: list
    returncode: int | None
    out: str
    err: str
    before: dict
    after: dict
    fifo_opened: list
    seconds: float
    timed_out: bool = False
    skipped: str | None = None


def run_case(case: Case, cli: str, root: pathlib.Path, seeded_memory: pathlib.Path | None) -> Outcome:
    box = Sandbox(root, seeded_memory)
    try:
        for rel, content in case.files.items():
            try:
                box.make(rel, content)
            except BaseException as e:  # pytest.skip inside make
                if type(e).__name__ == "Skipped":
                    return Outcome(root, [], None, "", "", {}, {}, [], 0.0, skipped=str(e))
                raise
        before = box.snapshot()
        argv = [cli, *(box.subst(a) for a in case.args)]
        guard = FifoGuard(box.fifos)
        t0 = time.monotonic()
        p = subprocess.Popen(argv, cwd=root / "work", env=box.env(case.env), stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                             preexec_fn=_limit_memory(case.memory_limit_mb))
        timed_out = False
        try:
            out, err = p.communicate(case.stdin or b"", timeout=case.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        seconds = time.monotonic() - t0
        guard.release()
        _reap_group(p.pid)
        after = box.snapshot()
        return Outcome(root, argv, p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), before,
                       after, guard.opened, seconds, timed_out)
    finally:
        box.cleanup()


def _limit_memory(mb):
    if not mb:
        return None

    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    return limit


def _reap_group(pgid: int) -> None:
    """Runner processes the CLI started must be gone with it; kill stragglers of this case's own group only."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# ---------------------------------------------------------------------------------------------------------- check

def check(case: Case, o: Outcome) -> None:
    """Every assertion a case makes; the failure message shows the command and what it printed."""
    import pytest
    if o.skipped:
        pytest.skip(o.skipped)
    shown = (f"\n$ {' '.join(o.argv)}\nexit {o.returncode} after {o.seconds:.1f} s\n--- stdout\n{o.out[-3000:]}"
             f"\n--- stderr\n{o.err[-3000:]}")
    assert not o.timed_out, f"hung: no exit within {case.timeout:.0f} s" + shown
    assert o.returncode is not None and o.returncode >= 0, \
        f"killed by signal {-o.returncode if o.returncode else '?'} (a crash)" + shown
    assert not o.fifo_opened, f"opened the FIFO {o.fifo_opened} (reading it blocks until a writer comes)" + shown
    printed = o.out + "\n" + o.err
    if case.tolerate:
        printed = re.sub(case.tolerate, "", printed, flags=re.MULTILINE)
    leak = LEAKS.search(printed)
    assert not leak, f"leaked {leak.group(0)!r} to the user" + shown
    assert o.returncode == case.exit, f"exit status {o.returncode}, expected {case.exit}" + shown
    text = {"err": o.err, "out": o.out, "any": o.out + o.err}[case.stream]
    for s in case.says:
        s = subst(s, o.root)
        assert s in text, f"the message does not say {s!r}" + shown
    if case.regex:
        pattern = subst(case.regex, o.root)
        assert re.search(pattern, text, re.MULTILINE | re.DOTALL), f"the message does not match {pattern!r}" + shown
    quiet = case.quiet_stdout if case.quiet_stdout is not None else case.exit == 2
    if quiet:
        assert not o.out.strip(), "a usage error printed on stdout" + shown
    _check_files(case, o, shown)


def _check_files(case: Case, o: Outcome, shown: str) -> None:
    changed = [rel for rel, h in o.before.items() if rel not in case.may_change and o.after.get(rel) != h]
    assert not changed, f"changed or removed {changed} (a refused input must leave every file as it was)" + shown
    allowed = [re.compile(c) for c in case.creates]
    new = [rel for rel in o.after if rel not in o.before and not any(a.fullmatch(rel) for a in allowed)]
    assert not new, f"created {new}" + shown
    for rel in case.absent:
        assert rel not in o.after, f"{rel} exists afterwards" + shown
