"""Two signals between the runner and a judge child that stays alive across the kernel's step (the timing-only
nkisim eval, handover.run_timed): the judge says the kernel's cases are ready; the runner says the kernel's trace
is there to model, or that there is nothing to judge. Two FIFOs in the judge's folder, which the kernel's sandbox
cannot see.

The runner opens its ends before the judge starts, so the judge never blocks in open(): "go" read-write (a
judge's read then waits for the runner's word, and a runner that dies closes it), "ready" read-only and
non-blocking, polled while the judge's step is alive (a judge that dies before it is ready never opens its end).
"""
from __future__ import annotations

import os
import select

READY, GO = "ready", "go"
TRACE, STOP = "trace", "stop"  # the runner's words on GO


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
