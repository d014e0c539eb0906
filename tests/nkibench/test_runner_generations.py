"""The neuron backend and the NKI generations, against the two STAND-IN SDKs: tests/fixtures/runner/fake_neuronxcc
(classic, SDK <= 2.26) and tests/fixtures/runner/fake_nki_current (current, SDK 2.33, NKI 0.7.0). hello reports
each SDK's generations; a kernel of a generation the host does not take is refused with compile_error (the port
offered for a classic kernel on a current SDK); a current kernel runs the current route (nki.jit, nrtpy,
neuron-explorer) with its metrics converted to the protocol's names."""
import json

import pytest

from runner_helpers import ADD_KERNEL, FAKE_NEURON, FAKE_NKI_CURRENT, Serve, make_add_task, run_cli, runner_env

# A current-API add kernel; the stand-in's Explorer export of it is the fixture beside it (test_explorer_profile.py)
CURRENT_ADD = (FAKE_NKI_CURRENT.parent / "explorer_csv" / "kernel.py").read_text()


def sdk_env(root, log=None):
    env = runner_env(extra_pythonpath=[root], path_prefix=[root / "bin"])
    if log is not None:
        env["FAKE_NEURON_LOG"] = str(log)
        env["ACCELOPT_RUNNER_CHILD_ENV"] = "FAKE_NEURON_LOG"
    return env


def hello_neuron(env):
    p = run_cli(["probe"], env=env)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["backends"]["neuron"]


def test_hello_reports_each_sdks_generations():
    classic = hello_neuron(sdk_env(FAKE_NEURON))
    assert classic["generations"] == ["classic"]
    assert classic["nki_classic"]["present"] is True and classic["nki_current"]["present"] is False
    assert classic["sdk_release"] == "<=2.26" and "2.27" in classic["generation_notes"]["current"]
    current = hello_neuron(sdk_env(FAKE_NKI_CURRENT))
    assert current["generations"] == ["current"]
    assert current["neuronx_cc"] == "2.28.7631.0+standin"
    assert current["nki_current"] == {"module": "nki", "present": True, "version": "0.7.0+standin",
                                      "version_from": "nki.__version__"}
    assert current["sdk_release"] == "2.33" and current["nrtpy"] is True and current["neuron_explorer"] is True
    # neuronxcc.nki is installed but refuses to import, as on SDK 2.30+: present, not accepted
    assert current["nki_classic"]["present"] is True and "2.30" in current["generation_notes"]["classic"]


def test_generation_rules_follow_the_release_timeline():
    import sys
    sys.path.insert(0, str(FAKE_NEURON.parents[3] / "nkibench" / "runner"))
    from accelopt_runner import neuron_sdk as ns
    assert ns.release_of_nki("0.3.0") == "2.29" and ns.release_of_nki("0.4.1") == "2.30"
    assert ns.release_of_nki("0.9.0") == ">2.33 (?)" and ns.release_of_nki("garbage") is None
    assert ns.generations(True, "0.1.0", True, "2.27")[0] == ["classic", "current"]
    gens, notes = ns.generations(True, "0.3.0", True, "2.29")  # unsupported but still importable
    assert gens == ["classic", "current"] and "no longer supports" in notes["classic"]
    assert ns.generations(True, "0.4.0", True, "2.30")[0] == ["current"]
    assert ns.generations(True, "0.9.0", True, ">2.33 (?)")[0] == ["current"]
    assert ns.generations(True, None, False, "<=2.26")[0] == ["classic"]
    assert ns.generations(True, "x", True, None, classic_import="ok")[0] == ["classic", "current"]
    assert ns.generations(True, "x", True, None, classic_import="ImportError: no")[0] == ["current"]


def test_classic_kernel_on_the_current_sdk_is_refused_with_the_port(tmp_path):
    make_add_task(tmp_path)
    log = tmp_path / "calls.jsonl"
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"id": "c1", "task": {"dir": str(tmp_path / "add")}, "size": "small",
                               "kernel": ADD_KERNEL, "backend": "neuron"}))
    r = json.loads(run_cli(["eval", "--job", str(job)], env=sdk_env(FAKE_NKI_CURRENT, log)).stdout)
    assert r["status"] == "compile_error", r
    assert r["error"].startswith("this host's Neuron SDK 2.33 (NKI 0.7.0+standin) no longer accepts the classic "
                                 "neuronxcc.nki API")
    assert "accelopt port KERNEL --task T" in r["error"] and "Port to Current NKI" in r["error"]
    assert r["port"] == {"from": "classic", "to": "current", "host_generations": ["current"]}
    assert r["generation"] == "classic"
    assert not log.exists()  # refused before the SDK was asked anything
    # A kernel without imports gets the classic header, so it is classic too.
    bare = ADD_KERNEL.split("\n\n\n", 1)[1]
    job.write_text(json.dumps({"id": "c2", "task": {"dir": str(tmp_path / "add")}, "size": "small",
                               "kernel": bare, "backend": "neuron"}))
    r = json.loads(run_cli(["eval", "--job", str(job)], env=sdk_env(FAKE_NKI_CURRENT, log)).stdout)
    assert r["status"] == "compile_error" and r["port"]["from"] == "classic"


def test_current_kernel_on_the_classic_sdk_is_refused(tmp_path):
    make_add_task(tmp_path)
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"id": "c3", "task": {"dir": str(tmp_path / "add")}, "size": "small",
                               "kernel": CURRENT_ADD, "backend": "neuron"}))
    r = json.loads(run_cli(["eval", "--job", str(job)], env=sdk_env(FAKE_NEURON)).stdout)
    assert r["status"] == "compile_error", r
    assert "has only the classic neuronxcc.nki API" in r["error"] and "Neuron SDK 2.27 or later" in r["error"]
    assert r["port"]["from"] == "current" and r["port"]["to"] is None


def test_mixed_generations_are_refused_on_neuron(tmp_path):
    make_add_task(tmp_path)
    job = tmp_path / "job.json"
    mixed = "import neuronxcc.nki.language as nl\n" + CURRENT_ADD
    job.write_text(json.dumps({"id": "c4", "task": {"dir": str(tmp_path / "add")}, "size": "small",
                               "kernel": mixed, "backend": "neuron"}))
    r = json.loads(run_cli(["eval", "--job", str(job)], env=sdk_env(FAKE_NKI_CURRENT)).stdout)
    assert r["status"] == "compile_error" and "mixes NKI generations" in r["error"]


def test_current_kernel_runs_the_current_route_on_the_current_sdk(tmp_path):
    make_add_task(tmp_path)
    log = tmp_path / "calls.jsonl"
    s = Serve(["--tasks", str(tmp_path), "--no-sandbox"], env=sdk_env(FAKE_NKI_CURRENT, log))
    try:
        r = s.eval("k1", {"name": "add"}, CURRENT_ADD, size="small", backend="neuron", core=1, target="trn2",
                   seeds=[1, 2], warmup=3, iters=7, timeout=180)
        assert r["status"] == "ok", r["error"]
        assert r["correct"] is True and r["generation"] == "current"
        lat = r["latency_ms"]
        assert 0 < lat["min"] <= lat["mean"] <= lat["max"] and 0 < r["rel_spread"] <= 0.01
        # the Explorer summary (0-100 percents in the stand-in) converted to the protocol's names and fractions
        m = r["metrics"]
        assert m["total_time"] > 0 and m["hbm_read_bytes"] == 2 * 128 * 256 * 4
        assert 0 < m["dma_active_time_percent"] <= 1 and 0 <= m["vector_engine_active_time_percent"] <= 1
        assert any(w.startswith("metrics: Neuron Explorer reported its _percent") for w in r["warnings"])
        assert r["roofline"]["percent_of_peak"] > 0
        prof = r["profile"]  # the stand-in's Instruction rows (test_explorer_profile.py checks the numbers)
        assert prof["source"] == "neuron-explorer" and prof["available"] is True and prof["instruction_count"] > 0
        # a current kernel that fails to compile names its line
        bad = CURRENT_ADD.replace("    n, d = a.shape\n", "    n, d = a.shape\n    q = undefined_name\n")
        r2 = s.eval("k2", {"name": "add"}, bad, size="small", backend="neuron", core=1)
        assert r2["status"] in ("compile_error", "runtime_error") and "line 9" in r2["error"], r2["error"]
    finally:
        s.close()
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    jit = [c for c in calls if c["api"] == "nki.jit"]
    assert len(jit) >= 2 and all(c["env"]["NEURON_RT_VISIBLE_CORES"] == "1" for c in jit)
    assert jit[0]["env"]["NEURON_PLATFORM_TARGET_OVERRIDE"] == "trn2"  # k1; k2 ran on the default trn1
    assert all(c["env"]["NKI_ARTIFACTS_DIR"].endswith("nki_artifacts") for c in jit)
    assert all(c["env"]["NEURON_LOGICAL_NC_CONFIG"] == "1" for c in jit)
    bench = [c for c in calls if c["api"] == "nrtpy.benchmark"]
    assert bench and bench[0]["warmup_iter"] == 3 and bench[0]["benchmark_iter"] == 7 and bench[0]["mode"] == "device"
    assert bench[0]["inputs"] == ["a", "b"]
    traced = [c for c in calls if c["api"] == "nrtpy.execute" and c["save_trace"]]
    assert len(traced) == 1 and traced[0]["ntff_name"].endswith("profile.ntff")
    ex = [c for c in calls if c["api"] == "neuron-explorer"]
    assert ex and ex[0]["argv"][0] == "view" and "--output-format" in ex[0]["argv"]
    assert not [c for c in calls if c["api"] in ("baremetal", "benchmark", "neuron-profile")]


def test_explorer_metrics_conversion():
    import sys
    sys.path.insert(0, str(FAKE_NEURON.parents[3] / "nkibench" / "runner"))
    from accelopt_runner.neffmetrics import explorer_metrics, find_summary
    row = find_summary({"device_profile": {"Summary": [{"total_time": 2e-6, "hbm_read_bytes": "1024",
                                                         "dma_active_time_percent": 50.0, "name": "k"}]}})
    m, note = explorer_metrics(row)
    assert m == {"total_time": 2e-6, "hbm_read_bytes": 1024.0, "dma_active_time_percent": 0.5} and note
    m, note = explorer_metrics({"total_time": 1e-6, "dma_active_time_percent": 0.25})
    assert m["dma_active_time_percent"] == 0.25 and note is None
    assert find_summary({"summary": {"total_time": 1.0}}) == {"total_time": 1.0}
    assert find_summary({"nothing": [1, 2]}) is None


@pytest.mark.parametrize("sdk", ["classic", "current"])
def test_sim_accepts_both_generations(tmp_path, sdk):
    make_add_task(tmp_path)
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"id": "s", "task": {"dir": str(tmp_path / "add")}, "size": "small",
                               "kernel": ADD_KERNEL if sdk == "classic" else CURRENT_ADD, "seeds": [1]}))
    r = json.loads(run_cli(["eval", "--job", str(job)]).stdout)
    assert r["status"] == "ok" and r["correct"] is True, r["error"]
