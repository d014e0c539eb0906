"""An nkisim evaluation whose NKI calls run in the judge's sandbox (nkisim/remote): the kernel's child runs the
kernel's Python and holds only handles ("kernel" role, remote), the judge's "simserver" child runs every call in
nkisim, keeps the data, and saves the outputs and the trace the verdict reads. The two talk over a pair of FIFOs
the runner links into both folders (handover.run_remote). See the runner README, "What the judge trusts".
"""
from __future__ import annotations

import os
import signal

from .backend_sim import SimBackend, add_header
from .evaluate import PHASE, CLOCK, KernelFailure, empty_result

C2S, S2C = "rpc-c2s", "rpc-s2c"  # the kernel's requests, the server's answers


def make_fifos(folder: str) -> None:
    os.makedirs(folder, exist_ok=True)
    for name in (C2S, S2C):
        os.mkfifo(os.path.join(folder, name), 0o600)


def link_fifos(folder: str, into: str) -> str:
    """into, holding hard links to the FIFOs in folder (the same pipes under another name)."""
    for name in (C2S, S2C):
        os.link(os.path.join(folder, name), os.path.join(into, name))
    return into


def unblock(folder: str) -> None:
    """Open and close both FIFOs from this side without blocking, so a child waiting in open() for a peer that
    ended gets past it (and then reads the end of the stream)."""
    for name in (C2S, S2C):
        for mode in (os.O_RDONLY, os.O_WRONLY):
            try:
                os.close(os.open(os.path.join(folder, name), mode | os.O_NONBLOCK))
            except OSError:
                pass


class ClientSide:
    """The kernel's child: connect, then run what the server asks for. What it reports is never believed (the
    server's result is the evaluation's) except to say where a kernel that hung or died was."""

    def __init__(self, job: dict):
        self.job = job
        self.filename = "<kernel>"
        self.source, self.offset = add_header(job["kernel"])

    def run(self, workdir: str) -> dict:
        res = empty_result(self.job)
        res.update(backend=self.job["backend"], target=self.job["target"])
        PHASE["now"] = "running the kernel"
        CLOCK.start("kernel")
        wfd = os.open(os.path.join(workdir, C2S), os.O_WRONLY)
        rfd = os.open(os.path.join(workdir, S2C), os.O_RDONLY)
        from nkisim.remote import client
        client.run(rfd, wfd, self.source, self.filename)
        res.update(status="ok", error=None)
        return res


class RemoteBackend(SimBackend):
    """SimBackend whose kernel function runs in the kernel's process and whose NKI calls run here."""

    def __init__(self, target: str, limits: dict | None, folder: str):
        super().__init__(target, limits)
        self.folder = folder
        self.server = None
        self.generation = None

    def load(self, source: str, function: str | None = None):
        from nkisim import errors, kernelfn
        from nkisim.remote import server, wire
        src, self.offset = add_header(source)
        self.source_lines = len(source.splitlines())
        self.filename = "<kernel>"
        try:
            try:
                compile(src, self.filename, "exec")
            except SyntaxError as e:
                raise errors.KernelLoadError(f"syntax error: {e.msg}" + (f": {e.text.strip()}" if e.text else ""),
                                             e.lineno or 0, filename=self.filename) from None
            name = kernelfn.choose_in_source(src, function, None)
            self.generation = server.generation_of(src, self.filename)
        except kernelfn.NoKernelFunction as e:
            raise KernelFailure("compile_error", str(e)) from None
        except errors.NkiError as e:
            raise self._fail(e) from None
        PHASE["now"] = "waiting for the kernel's process"
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a kernel's process that went away is an error, not a kill
        rfd = os.open(os.path.join(self.folder, C2S), os.O_RDONLY)
        wfd = os.open(os.path.join(self.folder, S2C), os.O_WRONLY)
        self.server = server.Server(wire.Channel(rfd, wfd), self.filename)
        PHASE["now"] = "loading the kernel"
        try:
            self.fn = self.server.load(name)
        except errors.NkiError as e:
            raise self._fail(e) from None
        self.arg_names = list(self.fn.__signature__.parameters)

    def close(self):
        if self.server is not None:
            self.server.close()
            self.server = None


def serve(job: dict, workdir: str, limits: dict) -> dict:
    """The "simserver" child, in the judge's folder: the task's cases (judge.prepare; the kernel's child needs none
    of them and waits meanwhile), the kernel's run on each, then, when it ran, the verdict on its outputs and the
    trace it recorded here (result["verdict"]). The verdict needs no process of its own: this one never runs the
    kernel's Python, and what the kernel's requests can reach here is nkisim's API (nkisim/remote/server.py), not
    the comparison or the model; so one fork and a write and read of the trace less, and one fork less again for
    the prepare step."""
    from . import judge, kernelside
    from .child import KERNEL_CASES
    cases = os.path.join(workdir, KERNEL_CASES)
    prepared = judge.prepare(job, workdir, cases)
    if prepared.get("status") != "prepared":
        return prepared
    judge.PREPARED.update(judge.prepared_fields(prepared))
    backend = RemoteBackend(job["target"], limits, os.path.join(workdir, os.path.basename(job.get("rpc") or "rpc")))
    try:
        res = kernelside.run(job, cases, backend, save_trace=False)
    finally:
        backend.close()
    from .handover import move_outputs
    move_outputs(cases, workdir)
    if res.get("status") == "ok":
        trace = backend.last.trace.instrs
        backend.last = None
        res["verdict"] = judge.verdict(job, workdir, trace=trace)
    return res
