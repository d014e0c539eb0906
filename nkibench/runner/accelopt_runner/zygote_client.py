"""The runner's side of a zygote (zygote.py): starts it in the sandbox, hands it one evaluation at a time, enforces
the wall-clock limit and cancellation by killing the evaluation's process group, and stops it. Any failure of the
zygote itself (it died, it did not answer, it could not start) is a ZygoteError, after which the caller runs that
evaluation in a cold child and starts a fresh zygote next time."""
from __future__ import annotations

import json
import logging
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from . import confinement

log = logging.getLogger("accelopt_runner.zygote")
START_TIMEOUT_S = 120.0  # imports on a loaded host; a cold eval would pay the same
ANSWER_TIMEOUT_S = 10.0  # a fork, or the report after a kill


class ZygoteError(Exception):
    pass


class ZygoteClient:
    def __init__(self, key, wrap, python: str, env: dict):
        """wrap(slotdir) -> the sandbox's command prefix with slotdir as the only writable folder."""
        self.key = key
        self.slotdir = tempfile.mkdtemp(prefix="accelopt-slot-")
        self._buf = b""
        prefix = wrap(self.slotdir)
        # Confined, the zygote lives in a PID namespace of its own: the pids it reports mean nothing out here (a
        # kill by them would hit an unrelated host process), and it may clean its namespace between evaluations.
        self.confined = bool(prefix)
        cmd = prefix + [python, "-m", "accelopt_runner", "_zygote", self.slotdir] + (["--confined"] if prefix else [])
        zenv = dict(env, HOME=self.slotdir, TMPDIR=self.slotdir)
        try:
            self.proc = confinement.launch(cmd, cwd=self.slotdir, env=zenv, stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            shutil.rmtree(self.slotdir, ignore_errors=True)
            raise ZygoteError(f"cannot start the zygote: {e}") from e
        threading.Thread(target=self._log_stderr, daemon=True).start()
        hello = self._read(START_TIMEOUT_S)
        if not hello.get("ready"):
            self.close()
            raise ZygoteError(f"the zygote did not get ready: {hello}")
        log.info("zygote %s ready in %s", hello.get("pid"), self.slotdir)

    def _log_stderr(self):
        for line in self.proc.stderr:
            log.info("zygote: %s", line.decode("utf-8", "replace").rstrip()[:2000])

    def _read(self, timeout: float, cancel=None) -> dict:
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ZygoteError(f"the zygote did not answer within {timeout:g} s")
            if not select.select([fd], [], [], min(left, 0.05))[0]:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                raise ZygoteError(f"the zygote exited (code {self.proc.poll()})")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError as e:
            raise ZygoteError(f"the zygote wrote an unreadable line: {line[:200]!r}") from e

    def _wait_done(self, pid: int, cancel: threading.Event, hard_deadline: float):
        """(report, why): why is "cancelled" or "timeout" when the runner killed the evaluation."""
        why = None
        while True:
            wait = 0.05 if why is None else ANSWER_TIMEOUT_S
            try:
                return self._read(wait), why
            except ZygoteError as e:
                if why is not None or "did not answer" not in str(e):
                    raise
            if cancel.is_set():
                why = "cancelled"
            elif time.monotonic() > hard_deadline:
                why = "timeout"
            if why and self.confined:
                # the whole sandbox goes (bwrap's PID namespace takes every process in it along); the next
                # evaluation starts a fresh zygote
                self._kill_sandbox()
                return {}, why
            if why:  # the child itself (it may not lead its group yet), then its group; the zygote reaps the rest
                for kill in (os.kill, os.killpg):
                    try:
                        kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass

    def _kill_sandbox(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()

    def run(self, workdir: str, env: dict, cap: int, cancel: threading.Event, hard_deadline: float) -> dict:
        """{"returncode", "stdout", "stderr", "why"} for one evaluation whose job.json is in workdir."""
        try:
            self.proc.stdin.write((json.dumps({"workdir": workdir, "env": env, "cap": cap}) + "\n").encode())
            self.proc.stdin.flush()
        except OSError as e:
            raise ZygoteError(f"the zygote is gone: {e}") from e
        forked = self._read(ANSWER_TIMEOUT_S)
        pid = int(forked["pid"])
        report, why = self._wait_done(pid, cancel, hard_deadline)
        dropped = report.get("dropped") or [0, 0]
        out, err = report.get("stdout", ""), report.get("stderr", "")
        if dropped[0]:
            out += f"\n[... {dropped[0]} more bytes dropped]"
        if dropped[1]:
            err += f"\n[... {dropped[1]} more bytes dropped]"
        return {"returncode": report.get("returncode"), "stdout": out, "stderr": err, "why": why}

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self, keep_slot: bool = False):
        """Stops the zygote and removes its slot folder, unless keep_slot (the caller removes it later)."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
        if not keep_slot:
            shutil.rmtree(self.slotdir, ignore_errors=True)
