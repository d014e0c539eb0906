"""The `profile` object of eval results (nkibench/runner/README.md): line costs that add up, the columnar timeline,
its size, and the request's timeline_cap. Real `serve` and nkisim, no stand-ins."""
import json

import pytest

from runner_helpers import ADD_KERNEL, KERNEL_HEAD, REPO, Serve, make_add_task

ENGINES = ("tensor", "vector", "scalar", "gpsimd", "dma")
TASKS = REPO / "nkibench" / "tasks"
COLUMNS = ("unit", "op", "line", "start_ns", "dur_ns", "partitions", "free", "bytes")


@pytest.fixture(scope="module")
def srv():
    s = Serve()
    yield s
    s.close()


@pytest.fixture(scope="module")
def add_task(tmp_path_factory):
    return {"dir": str(make_add_task(tmp_path_factory.mktemp("tasks")))}


def baseline(name):
    return (TASKS / name / "baseline.py").read_text()


def evaluate(srv, task, kernel, **fields):
    fields.setdefault("size", "small")
    fields.setdefault("seeds", [1])
    fields.setdefault("timeout_s", 120)
    r = srv.eval("p", task, kernel, timeout=180, **fields)
    assert r["status"] == "ok", r["error"]
    return r


def check_line_costs(r, kernel):
    p, m = r["profile"], r["metrics"]
    assert p["source"] == "nkisim" and p["available"] is True and p["missing"] == {}
    costs, busy = p["line_costs"], p["engine_busy_ns"]
    lines = [c["line"] for c in costs]
    assert lines == sorted(set(lines)) and all(0 <= x <= len(kernel.splitlines()) for x in lines)
    for e in ENGINES:
        assert sum(c["ns"][e] for c in costs) == pytest.approx(busy[e], rel=1e-12, abs=1e-9), e
    for e in ENGINES[:4]:  # the scheduler's busy time, which the metrics report in seconds
        assert busy[e] == pytest.approx(m[f"{e}_engine_active_time"] * 1e9, rel=1e-9, abs=1e-9), e
    # dma is queue-busy time summed over the queues: never less than the union of transfers the metrics report
    assert busy["dma"] >= m["dma_active_time"] * 1e9 * (1 - 1e-9)
    count = sum(m[f"{e}_engine_instruction_count"] for e in ENGINES[:4]) + m["dma_transfer_count"]
    assert sum(c["instructions"] for c in costs) == p["instruction_count"] == count
    memory = sum(m[f"{mem}_{rw}_bytes"] for mem in ("hbm", "sbuf", "psum") for rw in ("read", "write"))
    # the metrics count a DMA's bytes as a read and as a write; an instruction's bytes count them once
    assert sum(c["bytes"] for c in costs) == memory - m["dma_transfer_total_bytes"]
    return {c["line"]: c for c in costs}


def test_matmul_line_costs(srv):
    kernel = baseline("matmul")
    r = evaluate(srv, {"name": "matmul"}, kernel)
    assert "timeline" not in r["profile"]  # timeline_cap defaults to 0
    by_line = check_line_costs(r, kernel)
    matmul_line = next(i for i, text in enumerate(kernel.splitlines(), 1) if "acc[ip, inb] += nisa.nc_matmul" in text)
    assert by_line[matmul_line]["ns"]["tensor"] > 0 and r["profile"]["engine_busy_ns"]["tensor"] > 0


def test_elementwise_line_costs(srv):
    kernel = baseline("silu")
    r = evaluate(srv, {"name": "silu"}, kernel)
    by_line = check_line_costs(r, kernel)
    reciprocal_line = next(i for i, text in enumerate(kernel.splitlines(), 1) if "nisa.reciprocal" in text)
    assert by_line[reciprocal_line]["ns"]["vector"] > 0 and by_line[reciprocal_line]["bytes"] > 0


def test_dma_line_costs_with_the_import_header_prepended(srv, add_task):
    # Without imports the runner prepends a header line; lines must still be the source's as sent.
    kernel = ADD_KERNEL[len(KERNEL_HEAD):]
    text = kernel.splitlines()
    load_x = next(i for i, t in enumerate(text, 1) if "x = nl.load" in t)
    store = next(i for i, t in enumerate(text, 1) if "nl.store" in t)
    r = evaluate(srv, add_task, kernel, timeline_cap=1000)
    by_line = check_line_costs(r, kernel)
    assert by_line[load_x]["ns"]["dma"] > 0 and by_line[load_x]["bytes"] == 128 * 256 * 4  # N=128, D=256 float32
    assert by_line[store]["ns"]["dma"] > 0 and by_line[store]["ns"]["vector"] > 0  # the store and its nl.add
    tl = r["profile"]["timeline"]
    assert set(tl["line"]) <= {load_x, load_x + 1, store}


def check_timeline(tl, p, kernel):
    n = tl["count"]
    assert all(len(tl[c]) == n for c in COLUMNS)
    assert all(0 <= u < len(tl["units"]) for u in tl["unit"]) and all(0 <= o < len(tl["ops"]) for o in tl["op"])
    assert all(u in ENGINES[:4] or u.startswith("dma") for u in tl["units"])
    assert min(tl["start_ns"]) >= 0 and min(tl["dur_ns"]) >= 0
    assert all(0 <= x <= len(kernel.splitlines()) for x in tl["line"])
    assert tl["truncated"] == (p["instruction_count"] > n)


def test_timeline_cap(srv):
    kernel = baseline("matmul")
    r = evaluate(srv, {"name": "matmul"}, kernel, timeline_cap=7)
    p = r["profile"]
    tl = p["timeline"]
    assert tl["count"] == 7 and tl["truncated"] is True
    check_timeline(tl, p, kernel)
    assert r["profile"]["line_costs"] == evaluate(srv, {"name": "matmul"}, kernel)["profile"]["line_costs"]


def test_whole_timeline_matches_the_line_costs(srv):
    kernel = baseline("silu")
    r = evaluate(srv, {"name": "silu"}, kernel, timeline_cap=1000000)
    p = r["profile"]
    tl = p["timeline"]
    assert tl["count"] == p["instruction_count"] and tl["truncated"] is False
    check_timeline(tl, p, kernel)
    per_line = {}
    for line in tl["line"]:
        per_line[line] = per_line.get(line, 0) + 1
    assert per_line == {c["line"]: c["instructions"] for c in p["line_costs"]}
    assert sum(tl["bytes"]) == sum(c["bytes"] for c in p["line_costs"])
    for e in ENGINES:
        dur = sum(d for u, d in zip(tl["unit"], tl["dur_ns"]) if tl["units"][u].startswith(e))
        assert dur == pytest.approx(p["engine_busy_ns"][e], abs=0.005 * tl["count"] + 1e-6), e  # 0.01 ns rounding


def test_profile_stays_compact(srv):
    # silu at 1700 tiles of [128, 1024]: 6 instructions a tile, 10,200 in all, a 17 ms run.
    kernel = baseline("silu")
    r = evaluate(srv, {"name": "silu", "parameters": {"M": 128 * 1700, "N": 1024}}, kernel, size="full",
                 timing_only=True, timeline_cap=10000)
    p = r["profile"]
    assert p["timeline"]["count"] == 10000 and p["timeline"]["truncated"] is True
    # Per event, the widest each column gets here, with its comma: unit 3, op 2, line 3, start_ns 12 (17 ms is
    # "17209132.17"), dur_ns 8, partitions 4, free 5, bytes 8 = 45 bytes. 48 leaves a little room; the old list
    # of {engine, op, line, start_ns, end_ns} dicts took about 90 for less. 4 KiB covers tables and line costs.
    size = len(json.dumps(p, separators=(",", ":")))
    assert size < 48 * 10000 + 4096, size / 10000


@pytest.mark.parametrize("cap", [-1, 1000001, 2.5, True, "10"])
def test_timeline_cap_is_checked(srv, add_task, cap):
    r = srv.eval("bad", add_task, ADD_KERNEL, timeline_cap=cap)
    assert r["status"] == "infra_error" and "'timeline_cap' must be an integer in [0, 1000000]" in r["error"]
    assert r["profile"] is None


def test_failed_evals_carry_no_profile(srv, add_task):
    r = srv.eval("f1", add_task, ADD_KERNEL.replace("nl.add(x, y)", "nl.subtract(x, y)"), size="small",
                 timeline_cap=100)
    assert r["status"] == "incorrect" and r["profile"] is None
    r = srv.eval("f2", add_task, KERNEL_HEAD + "def kernel(a, b):\n    return undefined_name\n", size="small",
                 timeline_cap=100)
    assert r["status"] != "ok" and r["profile"] is None
