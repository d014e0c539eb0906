"""The signals of a timing-only nkisim eval (handover.run_timed), whose judge child stays alive across the kernel's
step and whose kernel child starts before its inputs exist. Between the runner and the judge, two FIFOs in the
judge's folder, which the kernel's sandbox cannot see: the judge says the kernel's cases are ready; the runner says
the kernel's trace is there to model, or that there is nothing to judge. Between the runner and the kernel's child,
one FIFO in the kernel's folder (a Gate): the inputs are there, or the kernel will not run. The kernel's process
can write into its own FIFO, but learns nothing from it but when its inputs came; a word it forges only makes it
look for inputs that are not there yet.

The runner opens its ends before the judge starts, so the judge never blocks in open(): "go" read-write (a
judge's read then waits for the runner's word, and a runner that dies closes it), "ready" read-only and
non-blocking, polled while the judge's step is alive (a judge that dies before it is ready never opens its end).
"""
from __future__ import annotations

import os
import select

READY, GO = "ready", "go"
TRACE, STOP = "trace", "stop"  # the runner's words on GO
INPUTS = "inputs-ready"  # the Gate in the kernel's folder; its words: GO or STOP


class RunnerEnd:
    def __init__(self, folder: str):
        self.folder = folder
        os.makedirs(folder, exist_ok=True)
        for name in (READY, GO):
            os.mkfifo(os.path.join(folder, name), 0o600)
        self._ready = os.open(os.path.join(folder, READY), os.O_RDONLY | os.O_NONBLOCK)
        self._go = os.open(os.path.join(folder, GO), os.O_RDWR)

    def wait_ready(self, alive) -> bool:
        """Whether the judge said it is ready before its step ended; alive() says whether the step still runs."""
        poller = select.poll()
        poller.register(self._ready, select.POLLIN | select.POLLHUP)
        while True:
            if poller.poll(50):
                return self._said_ready()
            if not alive():
                return self._said_ready()

    def _said_ready(self) -> bool:
        try:
            return os.read(self._ready, 64).startswith(READY.encode())
        except BlockingIOError:
            return False

    def tell(self, word: str) -> None:
        """The judge's go: once only; the judge reads it whenever it gets there (a pipe holds it meanwhile)."""
        if self._go >= 0:
            os.write(self._go, word.encode())
            os.close(self._go)
            self._go = -1

    def close(self) -> None:
        for fd in (self._ready, self._go):
            if fd >= 0:
                os.close(fd)
        self._ready = self._go = -1


class Gate:
    """A word for a child that may ask for it before it is said: the runner holds the FIFO read-write from the start,
    so the child's open() never blocks and the word stays in the pipe until read; closed when the child's step
    ended."""

    def __init__(self, path: str):
        os.mkfifo(path, 0o600)
        self._fd = os.open(path, os.O_RDWR)
        self._said = False

    def say(self, word: str) -> None:
        if not self._said and self._fd >= 0:
            os.write(self._fd, word.encode())  # a few bytes: one atomic write, read whole
            self._said = True

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def await_word(path: str) -> str:
    """The child's side of a Gate: the word, or "" when the runner went away without one."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 16).decode(errors="replace")
    finally:
        os.close(fd)


def ready_then_wait(folder: str) -> str:
    """The judge's side: say ready, then wait for the runner's word (TRACE or STOP; "" when the runner went away
    without one). "go" is opened first: a pipe keeps what is written to it only while someone holds it, and the
    runner may answer as soon as it hears "ready"."""
    go = os.open(os.path.join(folder, GO), os.O_RDONLY)
    try:
        fd = os.open(os.path.join(folder, READY), os.O_WRONLY)
        try:
            os.write(fd, READY.encode())
        finally:
            os.close(fd)
        got = b""
        while True:
            part = os.read(go, 64)
            if not part:
                return got.decode(errors="replace")
            got += part
    finally:
        os.close(go)
