"""Every kernel the nkisim tests run, run again through the remote front end (nkisim/remote), and the two compared.

Loaded as a pytest plugin (`-p remote_twin`): nkisim.load_kernel remembers each kernel's
source, and nkisim.run_kernel, for a numeric run of such a kernel, also runs it with the kernel's Python in a forked
process that holds only handles and every NKI call served here. The outputs, the trace (op, engine, line, sizes,
dtypes) and the outcome (ok, or the error's status and message) must be the same; the test's own assertions then
see the in-process result. A checked evaluation in the runner takes the remote route, so this is what says that
route runs every construct the suite covers.

    PYTHONPATH=nkibench:tests/nkibench /usr/bin/python3 -m pytest -q -p remote_twin tests/nkibench -k nkisim
"""
from __future__ import annotations

import os

import numpy as np

import nkisim
from nkisim import run as nkrun
from nkisim.remote import server as srv, wire

_load, _run = nkrun.load_kernel, nkrun.run_kernel
SOURCES = {}  # id(kernel function) -> (the function, its source, its name); the function kept so its id stays its own
# Tests that reach into a kernel function's globals from outside, which a kernel in another process cannot share.
# And a kernel that imports both NKI generations inside its body: nkisim refuses it when the import runs, naming the
# caller's line; the remote front end refuses it before it runs, at the import's own line.
NOT_TWINNABLE = ("test_numeric_runs_skip_full_collections_but_free_young_cycles",
                 "test_mixed_generation_inside_the_kernel_body_is_refused_too")
checked = {"same": 0, "skipped": 0}


def load_kernel(source, filename="<kernel>", name=None, task_function=None):
    fn = _load(source, filename, name, task_function)
    if "from ." not in source:  # relative imports resolve against the kernel's file: not for a kernel as text
        if not any(t in os.environ.get("PYTEST_CURRENT_TEST", "") for t in NOT_TWINNABLE):
            SOURCES[id(fn)] = (fn, source, fn.__name__)
    return fn


def _remote(source, name, args, kwargs, target, grid):
    c2s_r, c2s_w = os.pipe()
    s2c_r, s2c_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the kernel's side
        code = 0
        try:
            os.close(c2s_r)
            os.close(s2c_w)
            from nkisim.remote import client
            client.run(s2c_r, c2s_w, source, "<kernel>")
        except BaseException:  # noqa: BLE001
            code = 1
        os._exit(code)
    os.close(c2s_w)
    os.close(s2c_r)
    server = srv.Server(wire.Channel(c2s_r, s2c_w), "<kernel>")
    try:
        try:
            gen = srv.generation_of(source, "<kernel>")
            fn = server.load(name)
        except nkisim.NkiError as e:  # refused before it ran, as the runner reports it
            return nkrun.RunResult([], nkrun.Trace(), error=e, status=e.status, target=target)
        return _run(fn, args, target=target, numeric=True, grid=grid, kwargs=kwargs, generation=gen)
    finally:
        server.close()
        os.waitpid(pid, 0)


def _copy(a):
    return a.copy() if isinstance(a, np.ndarray) else a


def _shape(r):
    return [(i.op, i.engine, i.line, i.partitions, i.free_elems, i.dtype, tuple(i.in_dtypes), i.dma_bytes)
            for i in r.trace]


def run_kernel(fn_or_source, args, target=nkrun.DEFAULT_TARGET, numeric=True, grid=None, kwargs=None,
               raise_errors=False, name=None, generation=None):
    if isinstance(fn_or_source, str):
        try:
            fn_or_source = load_kernel(fn_or_source, name=name)
        except nkisim.NkiError:  # run_kernel reports a kernel that does not load as its result
            return _run(fn_or_source, args, target, numeric, grid, kwargs, raise_errors, name, generation)
    fn = getattr(fn_or_source, "func", fn_or_source)
    entry = SOURCES.get(id(fn))
    entry = entry[1:] if entry and entry[0] is fn else None
    twin_args = [_copy(a) for a in args]
    local = _run(fn_or_source, args, target, numeric, grid, kwargs, False, name, generation)
    if entry is None or not numeric or kwargs:
        checked["skipped"] += 1
    else:
        source, kname = entry
        remote = _remote(source, kname, twin_args, dict(kwargs or {}), target, grid)
        assert (local.status, str(local.error) if local.error else None) == \
            (remote.status, str(remote.error) if remote.error else None), (local.error, remote.error)
        if local.ok:
            assert _shape(local) == _shape(remote), "the remote trace differs"
            assert len(local.outputs) == len(remote.outputs)
            for a, b in zip(local.outputs, remote.outputs):
                np.testing.assert_array_equal(a, b)
        checked["same"] += 1
    if local.error is not None and raise_errors:
        raise local.error
    return local


def install():
    nkisim.load_kernel = nkrun.load_kernel = load_kernel
    nkisim.run_kernel = nkrun.run_kernel = run_kernel


def pytest_configure(config):
    install()


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"remote twin: {checked['same']} kernel runs the same through nkisim/remote, "
                                f"{checked['skipped']} not twinned (timing-only, keyword arguments or relative imports)")
