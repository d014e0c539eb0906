"""The timing-only nkisim eval's one judge child (handover.run_timed, judge.timed): it prepares, waits on a FIFO
while the kernel's child runs, then models the trace. Every way the kernel's step can end must end the judge too,
with the kernel's result, and leave the runner serving; a task the judge cannot prepare never reaches the kernel.
Through a real `serve`, warm (zygotes) and cold."""
import json
import time

import pytest

from runner_helpers import ADD_KERNEL, Serve, add_kernel, make_add_task
from test_runner_sandbox import attack  # the add kernel with module code past the static checks


@pytest.fixture(scope="module", params=["zygote", "cold"])
def srv(request, tmp_path_factory):
    tasks = tmp_path_factory.mktemp("tasks")
    make_add_task(tasks)
    broken = make_add_task(tasks, name="broken")
    (broken / "reference.py").write_text((broken / "reference.py").read_text() +
                                         "\nraise RuntimeError('the reference is broken')\n")
    s = Serve(["--tasks", str(tasks)] + (["--no-zygote"] if request.param == "cold" else []))
    yield s
    s.close()


def timed(srv, id_, kernel, task="add", **kw):
    kw.setdefault("timeout_s", 30)
    return srv.eval(id_, {"name": task}, kernel, size="small", timing_only=True, **kw)


def still_serving(srv):
    r = timed(srv, "after", ADD_KERNEL)
    assert r["status"] == "ok" and r["latency_ms"]["mean"] > 0, r


def test_a_timed_eval_has_the_judges_prepare_and_timing(srv):
    r = timed(srv, "ok", ADD_KERNEL)
    assert r["status"] == "ok" and r["correct"] is None and r["latency_ms"]["mean"] > 0, r
    assert r["timing_inputs"] == "built" and r["seeds"], r  # the prepare step's fields reach the result
    assert {"load", "inputs", "timing"} <= set(r["phase_s"]), r["phase_s"]
    assert r["metrics"] and r["profile"]["instruction_count"] > 0


def test_a_kernel_that_raises_ends_its_judge(srv):
    r = timed(srv, "raise", add_kernel(body_before_return="raise ValueError('boom')"))
    assert r["status"] in ("compile_error", "runtime_error") and "boom" in r["error"] and r["latency_ms"] is None, r
    assert r["timing_inputs"] == "built"  # the prepare step's fields, though the kernel failed
    still_serving(srv)


def test_a_kernel_that_hangs_times_out(srv):
    r = timed(srv, "hang", add_kernel(body_before_return="while True:\n    pass"), timeout_s=3)
    assert r["status"] == "timeout" and "time limit of 3 s" in r["error"], r
    still_serving(srv)


def test_a_kernel_that_dies_is_a_crash(srv):
    r = timed(srv, "die", attack("os.kill(os.getpid(), 9)"))
    assert r["status"] == "crashed" and "SIGKILL" in r["error"], r
    still_serving(srv)


def test_a_cancelled_timed_eval(srv):
    srv.send({"op": "eval", "id": "c1", "task": {"name": "add", "size": "small"}, "timing_only": True,
              "kernel": add_kernel(body_before_return="while True:\n    pass"), "timeout_s": 60})
    time.sleep(1.0)
    srv.send({"op": "cancel", "id": "c1"})
    m = srv.recv(timeout=20)
    assert m["id"] == "c1" and m.get("cancelled") is True and "cancelled" in m["error"], m
    still_serving(srv)


def test_a_task_the_judge_cannot_prepare_is_the_result(srv):
    """The kernel's child starts with the judge, but its run does not count: nothing of it reaches the result, and
    it is stopped where it is (a kernel whose module code never ends does not hold the eval to its time limit)."""
    marker = add_kernel(prelude="print('KERNEL RAN')\n")
    r = timed(srv, "broken", marker, task="broken")
    assert r["status"] == "infra_error" and "the reference is broken" in r["error"], r
    assert "KERNEL RAN" not in (r.get("output") or ""), r
    t0 = time.monotonic()
    r = timed(srv, "broken-and-stuck", add_kernel(prelude="while True:\n    pass\n"), task="broken", timeout_s=600)
    assert r["status"] == "infra_error" and "the reference is broken" in r["error"], r
    assert time.monotonic() - t0 < 300, "the kernel's child was not stopped when its run stopped mattering"
    still_serving(srv)


def test_back_to_back_timed_evals_are_independent(srv):
    """The judge's FIFOs are the eval's own: ten in a row, the kernel's output each time its own."""
    for i in range(10):
        r = timed(srv, f"b{i}", add_kernel(prelude=f"print({json.dumps('run ' + str(i))})\n"))
        assert r["status"] == "ok" and f"run {i}" in r["output"] and f"run {i - 1}" not in r["output"], r


def test_a_kernel_that_forges_its_inputs_word_only_fails_itself(srv):
    """The kernel's module code says "go" on its own FIFO before the judge has prepared anything: its run fails as
    the kernel's own error, and nothing else changes."""
    r = timed(srv, "forged-go", attack('''
        fd = os.open("inputs-ready", os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, b"go")
        os.close(fd)
        found["wrote"] = True
        '''))
    assert r["status"] in ("ok", "runtime_error"), r  # "ok" when the inputs happened to be there already
    if r["status"] == "runtime_error":
        assert "not run: no inputs" in r["error"], r
    still_serving(srv)
