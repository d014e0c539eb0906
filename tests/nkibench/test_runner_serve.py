"""Protocol round trips through a real `python3 -m accelopt_runner serve` subprocess (nkibench/runner/README.md)."""
import time

import pytest

from runner_helpers import ADD_KERNEL, KERNEL_HEAD, Serve, add_kernel, make_add_task

RESULT_FIELDS = {"id", "status", "error", "correct", "l2_rel_err", "max_abs_err", "latency_ms", "rel_spread",
                 "metrics", "roofline", "profile", "wall_s"}
TASK = {"name": "add", "size": "small"}


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    tasks = tmp_path_factory.mktemp("tasks")
    make_add_task(tasks)
    s = Serve(["--tasks", str(tasks), "--max-message-mib", "0.25"])
    yield s
    s.close()


def ev(srv, id_, kernel, **kw):
    kw.setdefault("size", "small")
    kw.setdefault("timeout_s", 30)
    r = srv.eval(id_, {"name": "add"}, kernel, **kw)
    assert r["id"] == id_ and RESULT_FIELDS <= set(r), r
    if r["status"] != "ok":
        assert r["error"], r
    return r


def test_hello(srv):
    srv.send({"op": "hello"})
    h = srv.recv()
    assert h["op"] == "hello" and h["protocol_version"] == 1 and h["runner_version"]
    assert h["python"] and h["numpy"]
    assert sorted(h["backends"]["sim"]["targets"]) == ["trn1", "trn2", "trn3"]
    assert "neuron" not in h["backends"] and "Neuron SDK not found" in h["unavailable"]["neuron"]
    assert isinstance(h["sandbox"]["active"], bool)
    assert h["tasks"] == ["add"]


def test_eval_ok(srv):
    r = ev(srv, "ok1", ADD_KERNEL, seeds=[1, 2, 3], target="trn2", warmup=1, iters=5)
    assert r["status"] == "ok" and r["error"] is None and r["correct"] is True
    assert r["l2_rel_err"] == 0.0 and r["max_abs_err"] == 0.0
    lat = r["latency_ms"]
    assert set(lat) == {"mean", "min", "max", "p50"} and lat["mean"] > 0 and r["rel_spread"] == 0.0
    assert r["roofline"]["bound"] in ("vector", "memory") and 0 < r["roofline"]["percent_of_peak"] <= 100
    assert "hbm_read_bytes" in r["metrics"] and 0 <= r["metrics"]["dma_active_time_percent"] <= 1
    prof = r["profile"]
    assert prof["source"] == "nkisim" and prof["instruction_count"] > 0 and prof["line_costs"]
    assert "timeline" not in prof  # only when the request asks for one (timeline_cap)
    assert r["seeds"] == [1, 2, 3] and r["target"] == "trn2"


def test_eval_on_trn3(srv):
    r = ev(srv, "trn3", ADD_KERNEL, seeds=[1], target="trn3", warmup=1, iters=2)
    assert r["status"] == "ok" and r["correct"] is True and r["target"] == "trn3"
    assert r["roofline"]["bound"] in ("vector", "memory") and 0 < r["roofline"]["percent_of_peak"] <= 100
    r2 = ev(srv, "trn2", ADD_KERNEL, seeds=[1], target="trn2", warmup=1, iters=2)
    assert r["latency_ms"]["mean"] < r2["latency_ms"]["mean"]  # faster DMA and clocks than NC-v3
    bad = ev(srv, "trn4", ADD_KERNEL, seeds=[1], target="trn4")
    assert bad["status"] != "ok" and "trn3" in bad["error"]


def test_timing_only(srv):
    r = ev(srv, "t1", ADD_KERNEL, timing_only=True)
    assert r["status"] == "ok" and r["correct"] is None and r["latency_ms"]["mean"] > 0


def test_protocol_errors_keep_serving(srv):
    srv.send_raw(b"{not json\n")
    m = srv.recv()
    assert m["op"] == "error" and "malformed JSON" in m["error"]
    srv.send({"op": "frobnicate", "id": 7})
    m = srv.recv()
    assert m["op"] == "error" and "unknown op" in m["error"] and m["id"] == 7
    big = '{"op":"eval","id":"big","kernel":"' + "#" * 400000 + '"}\n'
    srv.send_raw(big.encode())
    m = srv.recv()
    assert m["id"] == "big" and m["status"] == "infra_error" and m["op"] == "result"
    assert f"message of {len(big)} bytes exceeds the runner's limit of 262144 bytes" in m["error"]
    srv.send({"op": "eval", "id": "nokernel", "task": TASK})
    m = srv.recv()
    assert m["status"] == "infra_error" and "bad eval request" in m["error"]
    srv.send({"op": "eval", "id": "notask", "task": {"name": "nope"}, "kernel": ADD_KERNEL})
    m = srv.recv()
    assert m["status"] == "infra_error" and "unknown task 'nope'" in m["error"]
    srv.send({"op": "hello"})
    assert srv.recv()["op"] == "hello"


def test_syntax_error(srv):
    r = ev(srv, "syn", KERNEL_HEAD + "def kernel(a, b)\n    return a\n")
    assert r["status"] == "compile_error" and "line 6" in r["error"] and "syntax" in r["error"]


def test_no_kernel(srv):
    # two undecorated functions, neither named kernel: the rule (nkisim/kernelfn.py) has nothing to take
    r = ev(srv, "nok", KERNEL_HEAD + "def other(a, b):\n    return a\n\ndef another(a, b):\n    return b\n")
    assert r["status"] == "compile_error" and "the source defines no @nki.jit function" in r["error"], r


def test_raising_kernel_names_line(srv):
    r = ev(srv, "raise", add_kernel(body_before_return="raise ValueError('boom')"))
    assert r["status"] in ("compile_error", "runtime_error")
    assert "line 14" in r["error"] and "boom" in r["error"]


def test_infinite_loop_times_out(srv):
    t0 = time.monotonic()
    r = ev(srv, "loop", add_kernel(body_before_return="while True:\n    pass"), timeout_s=2)
    assert r["status"] == "timeout" and ("line 14" in r["error"] or "line 15" in r["error"]), r["error"]
    assert time.monotonic() - t0 < 60  # the 2 s limit was enforced, not merely reported


def test_unbounded_allocation(srv):
    r = ev(srv, "mem", add_kernel(body_before_return="hog = []\nwhile True:\n    hog.append(np.ones(10**7))"),
           memory_limit_mb=600)
    assert r["status"] in ("runtime_error", "crashed"), r
    assert "memory" in r["error"]


def test_printing_megabytes(srv):
    r = ev(srv, "print", add_kernel(body_before_return="print('x' * 5_000_000)"))
    assert r["status"] == "ok"
    assert len(r["output"]) < 40000 and "dropped" in r["output"]


@pytest.mark.parametrize("twist", ["import os", "import subprocess", "import socket",
                                   "f = open('/etc/hostname')"])
def test_forbidden_is_rejected(srv, twist):
    r = ev(srv, "rej", add_kernel(prelude=twist + "\n"))
    assert r["status"] == "rejected" and "line 6" in r["error"]


def test_writes_to_inputs(srv):
    src = add_kernel(body_before_return="nl.store(a[0:128, :], value=nl.load(b[0:128, :]))")
    r = ev(srv, "wr", src)
    assert r["status"] == "incorrect" and "wrote to its input" in r["error"] and "'a'" in r["error"]


def test_wrong_shape(srv):
    src = KERNEL_HEAD + (
        "@nki.jit\ndef kernel(a, b):\n"
        "    out = nl.ndarray((128, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)\n"
        "    nl.store(out, value=nl.add(nl.load(a[0:128, :]), nl.load(b[0:128, :])))\n"
        "    return out\n")
    r = ev(srv, "shape", src, size="full")
    assert r["status"] == "incorrect" and "shape" in r["error"]


def test_constant_result(srv):
    src = add_kernel(store_value="nl.add(nl.multiply(x, 0.0), 1.0)")
    r = ev(srv, "const", src, seeds=[5, 6])
    assert r["status"] == "incorrect" and "same output for different inputs" in r["error"]


def test_faster_than_its_least_memory_traffic_is_suspect(srv):
    # Reads half its inputs: too fast to be correct, and a timing-only eval (the search's first pass) catches it.
    half = KERNEL_HEAD + (
        "@nki.jit\ndef kernel(a, b):\n"
        "    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
        "    x = nl.load(a[0:128, :])\n"
        "    nl.store(out[0:128, :], value=x)\n"
        "    return out\n")
    r = ev(srv, "half", half, timing_only=True, size="full")
    assert r["status"] == "rejected" and r["error"].startswith("suspect:") and "GB/s" in r["error"], r
    assert r["latency_ms"]["mean"] > 0  # the measurement stays, for whoever looks
    honest = ev(srv, "honest", ADD_KERNEL, timing_only=True, size="full")
    assert honest["status"] == "ok", honest


def test_precision_downgrade_rejected(srv):
    src = add_kernel(store_value="nl.add(x, y, dtype=nl.bfloat16)")
    r = ev(srv, "bf16", src)
    assert r["status"] == "rejected" and "precision downgrade" in r["error"] and "line 13" in r["error"]


def test_cancel_running_eval(srv):
    srv.send({"op": "eval", "id": "c1", "task": TASK, "kernel": add_kernel(body_before_return="while True:\n"
                                                                                               "    pass"),
              "timeout_s": 60})
    time.sleep(1.0)
    srv.send({"op": "cancel", "id": "c1"})
    m = srv.recv(timeout=20)
    assert m["id"] == "c1" and m.get("cancelled") is True and "cancelled" in m["error"]
    srv.send({"op": "cancel", "id": "nothing"})
    assert srv.recv()["op"] == "error"
    assert ev(srv, "after", ADD_KERNEL)["status"] == "ok"  # still serving


def test_shutdown(tmp_path):
    make_add_task(tmp_path)
    s = Serve(["--tasks", str(tmp_path)])
    s.send({"op": "shutdown"})
    assert s.recv()["op"] == "bye"
    assert s.p.wait(20) == 0
    # every stdout line was a protocol line
    assert all(line.startswith(b"{") for line in s.raw)
