"""The hardware profile on a current SDK (issue 34): Neuron Explorer's Instruction and DMA tables turned into the
protocol's profile (explorerprofile.py), from the full-profile JSON the runner asks neuron-explorer for and from
the CSV files the Explorer UI exports, against the STAND-IN current SDK (tests/fixtures/runner/fake_nki_current:
its NTFF carries nkisim's schedule on the stand-in device's clock, in the documented schema)."""
import csv
import glob
import json
import subprocess
import sys

import pytest

from runner_helpers import FAKE_NKI_CURRENT, Serve, make_add_task, run_cli
from test_runner_generations import CURRENT_ADD, sdk_env

sys.path.insert(0, str(FAKE_NKI_CURRENT.parents[3] / "nkibench" / "runner"))
from accelopt_runner import explorerprofile  # noqa: E402

ENGINES = ("tensor", "vector", "scalar", "gpsimd", "dma")
# CURRENT_ADD's lines: 13 and 14 load a and b, 16 adds, 17 stores
LOAD_A, LOAD_B, ADD, STORE = 13, 14, 16, 17


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    """One eval of CURRENT_ADD on the stand-in Neuron host, its eval folder kept (the NTFF is in it)."""
    tmp = tmp_path_factory.mktemp("explorer")
    make_add_task(tmp)
    env = sdk_env(FAKE_NKI_CURRENT)
    env["TMPDIR"] = str(tmp / "work")
    (tmp / "work").mkdir()
    s = Serve(["--tasks", str(tmp), "--no-sandbox", "--keep-workdirs"], env=env)
    try:
        r = s.eval("k1", {"name": "add"}, CURRENT_ADD, size="small", backend="neuron", core=1, target="trn2",
                   seeds=[1], warmup=2, iters=5, timeout=180, timeline_cap=100)
    finally:
        s.close()
    assert r["status"] == "ok", r["error"]
    ntffs = glob.glob(str(tmp / "work" / "**" / "profile.ntff"), recursive=True)
    assert len(ntffs) == 1, ntffs
    with open(ntffs[0]) as f:
        ntff = json.load(f)
    return r, ntff, tmp


def hand_profile(ntff):
    """The profile computed by hand from the stand-in NTFF's rows: engine sums, DMA lines through the triggering
    Sync instruction, lines from nki_source_location (kernel.py:N)."""
    busy = dict.fromkeys(ENGINES, 0)
    lines = {}
    line_at = {}
    for r in ntff["Instruction"]:
        loc = r.get("nki_source_location")  # none on the SETUP and TEARDOWN rows
        line = int(loc.rsplit(":", 1)[1]) if loc else 0
        line_at[r["start_ts"]] = line
        if r["engine"] in ENGINES:
            busy[r["engine"]] += r["duration_ns"]
        lines.setdefault(line, [dict.fromkeys(ENGINES, 0), 0])[1] += 1
        if r["engine"] in ENGINES:
            lines[line][0][r["engine"]] += r["duration_ns"]
    for d in ntff["DmaPacketAggregated"]:
        line = line_at[d["trigger"]]
        busy["dma"] += d["duration_ns"]
        lines.setdefault(line, [dict.fromkeys(ENGINES, 0), 0])[0]["dma"] += d["duration_ns"]
        lines[line][1] += 1
    return busy, lines


def test_current_route_profile_is_the_explorer_tables(evaluated):
    r, ntff, _ = evaluated
    prof = r["profile"]
    assert prof["source"] == "neuron-explorer" and prof["origin"] == "json" and prof["available"] is True
    assert prof["missing"] == {}
    busy, lines = hand_profile(ntff)
    assert prof["engine_busy_ns"] == {e: float(v) for e, v in busy.items()}
    assert prof["instruction_count"] == len(ntff["Instruction"]) + len(ntff["DmaPacketAggregated"])
    got = {c["line"]: ({e: int(v) for e, v in c["ns"].items()}, c["instructions"]) for c in prof["line_costs"]}
    assert got == {line: (ns, n) for line, (ns, n) in lines.items()}
    # the add is VectorE on its line; each load and the store are DMA time on their own line
    assert got[ADD][0]["vector"] > 0 and got[ADD][0]["dma"] == 0
    assert all(got[line][0]["dma"] > 0 for line in (LOAD_A, LOAD_B, STORE))
    # the line costs add up to the engine totals (README, Profile: sums)
    for e in ENGINES:
        assert sum(c["ns"][e] for c in prof["line_costs"]) == prof["engine_busy_ns"][e]
    # Sync's DMA triggers are counted, in no engine's time, and said so
    assert prof["other_engine_ns"]["sync"] > 0 and any(n.startswith("engines: sync") for n in prof["notes"])
    tl = prof["timeline"]
    assert tl["count"] == prof["instruction_count"] and not tl["truncated"]
    assert {"vector", "sync"} <= set(tl["units"]) and any(u.startswith("dma") for u in tl["units"])
    assert tl["start_ns"][0] == 0 and min(tl["start_ns"]) == 0
    # the rows hold all the instruction time the device's own summary reports
    assert prof["completeness"] == {"vector": pytest.approx(1.0)}
    assert not any(n.startswith("completeness") for n in prof["notes"])
    # the trace spans the device time the benchmark measured (the stand-in's, not nkisim's estimate)
    assert prof["span_ns"] == pytest.approx(r["latency_ms"]["mean"] * 1e6, rel=0.05)


def export_csv(ntff, out, lo=None, hi=None):
    out.mkdir(parents=True, exist_ok=True)
    path = out / "profile.ntff"
    path.write_text(json.dumps(ntff))
    cmd = [sys.executable, str(FAKE_NKI_CURRENT / "bin" / "standin-explorer-export-csv"), "-s", str(path),
           "--out", str(out)]
    if lo is not None:
        cmd += ["--from", str(lo), "--to", str(hi)]
    subprocess.run(cmd, check=True, capture_output=True)
    return [str(out / "Instruction.csv"), str(out / "DmaPacketAggregated.csv")]


def import_csv(files, kernel, total_ns=None, extra=()):
    args = ["explorer-profile", "--kernel", str(kernel), *files, *extra]
    if total_ns:
        args += ["--total-time-ns", str(total_ns)]
    p = run_cli(args)
    return p.returncode, json.loads(p.stdout.strip().splitlines()[-1])


def test_csv_export_gives_the_same_profile_as_the_tables(evaluated, tmp_path):
    r, ntff, _ = evaluated
    files = export_csv(ntff, tmp_path)
    header = next(csv.reader(open(files[0])))
    assert header[0] == "timeline_track" and {"start_ts", "engine", "nki_source_location"} <= set(header)
    kernel = tmp_path / "kernel.py"
    kernel.write_text(CURRENT_ADD)
    total_ns = r["metrics"]["total_time"] * 1e9
    code, out = import_csv(files, kernel, total_ns, ["--timeline-cap", "100"])
    assert code == 0 and out["ok"], out
    prof, auto = out["profile"], r["profile"]
    assert prof["origin"] == "csv export"
    for key in ("instruction_count", "engine_busy_ns", "line_costs", "other_engine_ns", "span_ns", "timeline"):
        assert prof[key] == auto[key], key
    assert prof["coverage"] > 0.95 and not any(n.startswith("coverage") for n in prof["notes"])


def test_sampled_csv_export_shows_as_missing_instruction_time(evaluated, tmp_path):
    r, ntff, _ = evaluated
    sampled = dict(ntff, Instruction=[x for x in ntff["Instruction"] if x["engine"] != "vector"])
    files = export_csv(sampled, tmp_path)
    kernel = tmp_path / "kernel.py"
    kernel.write_text(CURRENT_ADD)
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps(r["metrics"]))
    code, out = import_csv(files, kernel, r["metrics"]["total_time"] * 1e9, ["--summary", str(summary)])
    assert code == 0, out
    prof = out["profile"]
    assert prof["completeness"] == {"vector": 0.0}
    note = [n for n in prof["notes"] if n.startswith("completeness")]
    assert note and "vector 0 %" in note[0] and "Sample at the timeline's resolution" in note[0]
    # the whole export given the same summary is complete
    code, out = import_csv(export_csv(ntff, tmp_path / "whole"), kernel, None, ["--summary", str(summary)])
    assert out["profile"]["completeness"] == {"vector": pytest.approx(1.0)}


def test_csv_of_part_of_the_run_says_how_much_it_covers(evaluated, tmp_path):
    r, ntff, _ = evaluated
    starts = sorted(x["start_ts"] for x in ntff["Instruction"])
    files = export_csv(ntff, tmp_path, starts[0], starts[len(starts) // 2])
    kernel = tmp_path / "kernel.py"
    kernel.write_text(CURRENT_ADD)
    code, out = import_csv(files, kernel, r["metrics"]["total_time"] * 1e9)
    assert code == 0, out
    prof = out["profile"]
    assert prof["instruction_count"] < r["profile"]["instruction_count"]
    assert prof["coverage"] < 0.95 and any(n.startswith("coverage: the export spans") for n in prof["notes"])


def test_header_offset_and_lines_outside_the_kernel(tmp_path):
    # a kernel sent without imports gets a one-line header (backend_sim.add_header): kernel.py:N is line N-1
    assert explorerprofile.source_line('["kernel.py:14"]', "kernel.py", 1, 20) == 13
    assert explorerprofile.source_line("/tmp/x/kernel.py:3, /usr/lib/nki/isa.py:88", "/w/kernel.py", 0, 20) == 3
    assert explorerprofile.source_line("other.py:3", "kernel.py", 0, 20) == 0
    assert explorerprofile.source_line("kernel.py:99", "kernel.py", 0, 20) == 0
    assert explorerprofile.engine_of("Tensor") == "tensor" and explorerprofile.engine_of("Pool") == "gpsimd"
    assert explorerprofile.engine_of("Act") == "scalar" and explorerprofile.engine_of("Sync") is None


def test_without_debug_info_lines_are_zero_and_said_so():
    rows = {"Instruction": [{"start_ts": "100", "end_ts": "150", "duration_ns": "50", "engine": "vector",
                             "opcode": "TENSOR_TENSOR"}]}
    prof = explorerprofile.build(rows, "kernel.py", 0, 10, origin="csv export")
    assert prof["line_costs"] == [{"line": 0, "ns": {"tensor": 0.0, "vector": 50.0, "scalar": 0.0, "gpsimd": 0.0,
                                                     "dma": 0.0}, "instructions": 1, "bytes": 0}]
    assert any("NKI_DEBUG_INFO" in n for n in prof["notes"]) and any(n.startswith("dma:") for n in prof["notes"])


@pytest.mark.parametrize("name,content,expect", [
    ("Instruction.csv", "timeline_track,engine\nVector,vector\n", "no column start_ts"),
    ("Instruction.csv", "timeline_track,start_ts,engine\nVector,soon,vector\n", "Instruction.csv:2: start_ts is 'soon'"),
    ("Summary.csv", "total_time\n1\n", "not an Instruction, DmaPacketAggregated or DmaPacket export"),
    ("Instruction.csv", b"\xff\xfe\x00bad", "cannot be read as CSV"),
])
def test_bad_exports_are_named(tmp_path, name, content, expect):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    p = run_cli(["explorer-profile", str(path)])
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert p.returncode == 1 and out["ok"] is False and expect in out["error"] and str(tmp_path) in out["error"]


def test_dma_table_alone_is_not_enough(tmp_path):
    path = tmp_path / "DmaPacketAggregated.csv"
    path.write_text("timeline_track,start_ts,end_ts,duration_ns,queue_idx,transfer_bytes\nq,1,5,4,0,64\n")
    p = run_cli(["explorer-profile", str(path)])
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert p.returncode == 1 and "no Instruction.csv" in out["error"]


def test_unavailable_profile_says_why_and_what_to_do():
    from accelopt_runner import neffmetrics
    missing = neffmetrics.explorer_missing("json", True)
    assert set(missing) == {"instruction_count", "engine_busy_ns", "line_costs", "timeline"}
    assert all("pyarrow" in v and "accelopt profile import" in v for v in missing.values())
    assert "not on this host's PATH" in neffmetrics.explorer_missing(None, False)["timeline"]
