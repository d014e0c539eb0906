"""The runner's eval and probe subcommands, the original-NKIBench dataset reader, the neuron backend against the
STAND-IN SDK (tests/fixtures/runner/fake_neuronxcc), and every real task's baseline on sim."""
import json
import pathlib
import textwrap

import pytest

from runner_helpers import (ADD_KERNEL, FAKE_NEURON, REPO, Serve, make_add_task, run_cli, runner_env)


def test_probe():
    p = run_cli(["probe"])
    assert p.returncode == 0, p.stderr
    h = json.loads(p.stdout)
    assert h["op"] == "hello" and "sim" in h["backends"] and "neuron" not in h["backends"]


def test_eval_subcommand_with_job_file_and_flags(tmp_path):
    make_add_task(tmp_path / "tasks")
    kern = tmp_path / "k.py"
    kern.write_text(ADD_KERNEL)
    p = run_cli(["eval", "--tasks", str(tmp_path / "tasks"), "--task", "add", "--kernel", str(kern),
                 "--size", "small", "--seeds", "3,4", "--target", "trn2"])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 1
    r = json.loads(lines[0])
    assert r["status"] == "ok" and r["seeds"] == [3, 4] and r["target"] == "trn2" and r["size"] == "small"
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"id": "j1", "task": {"dir": str(tmp_path / "tasks" / "add")},
                               "kernel": ADD_KERNEL, "timing_only": True}))
    p = run_cli(["eval", "--job", str(job)])
    r = json.loads(p.stdout)
    assert r["id"] == "j1" and r["status"] == "ok" and r["correct"] is None
    # no --kernel: the task's baseline
    p = run_cli(["eval", "--tasks", str(tmp_path / "tasks"), "--task", "add", "--size", "small"])
    assert json.loads(p.stdout)["status"] == "ok"


CURRENT_ADD_KERNEL = textwrap.dedent('''\
    import nki
    import nki.language as nl
    import nki.isa as nisa


    @nki.jit
    def kernel(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        n, d = a.shape
        for t in nl.affine_range(n // 128):
            x = nl.ndarray((128, d), dtype=a.dtype, buffer=nl.sbuf)
            y = nl.ndarray((128, d), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=x, src=a[t * 128:(t + 1) * 128, :])
            nisa.dma_copy(dst=y, src=b[t * 128:(t + 1) * 128, :])
            s = nl.ndarray((128, d), dtype=a.dtype, buffer=nl.sbuf)
            nisa.tensor_tensor(dst=s, data1=x, data2=y, op=nl.add)
            nisa.dma_copy(dst=out[t * 128:(t + 1) * 128, :], src=s)
        return out
    ''')


def test_eval_api_picks_the_classic_or_the_current_baseline(tmp_path):
    """eval without --kernel evaluates baseline.py (--api classic, the default) or baseline_current.py (--api
    current); a task without the chosen baseline, a dataset problem with --api current, or --api beside a kernel
    are usage errors that say why."""
    import sys
    sys.path.insert(0, str(REPO / "nkibench" / "runner"))
    from accelopt_runner import taskspec
    d = make_add_task(tmp_path / "tasks")
    base = ["eval", "--tasks", str(tmp_path / "tasks"), "--task", "add", "--size", "small", "--seeds", "1"]
    p = run_cli(base + ["--api", "current"])
    assert p.returncode == 2 and "no current-API baseline" in p.stderr and "baseline_current.py" in p.stderr
    (d / "baseline_current.py").write_text(CURRENT_ADD_KERNEL)
    spec = taskspec.resolve({"name": "add"}, "small", str(tmp_path / "tasks"))
    assert taskspec.baseline_path(spec) == str(d / "baseline.py")
    assert taskspec.baseline_path(spec, "current") == str(d / "baseline_current.py")
    with pytest.raises(taskspec.TaskError, match="'api' must be one of classic, current"):
        taskspec.baseline_path(spec, "beta2")
    # Which file ran is visible in the result: the kernel's lines are those of the file evaluated.
    for api, first_dma_line in (("classic", 11), ("current", 13)):
        args = base + ["--timeline-cap", "1"] + (["--api", api] if api == "current" else [])
        p = run_cli(args)
        assert p.returncode == 0, p.stderr
        r = json.loads(p.stdout)
        assert r["status"] == "ok" and r["correct"] is True, (api, r["error"])
        assert r["profile"]["timeline"]["line"][0] == first_dma_line, api
    p = run_cli(base + ["--api", "current", "--kernel", str(d / "baseline.py")])
    assert p.returncode == 2 and "cannot be combined with a kernel" in p.stderr
    root = make_dataset(tmp_path / "NKIBench")
    p = run_cli(["eval", "--task", str(root), "--problem", "silu", "--api", "current"])
    assert p.returncode == 2 and "classic-API kernels only" in p.stderr


def _declare_inputs(task_dir, kernel_shape=("N", "D")):
    tj = json.loads((task_dir / "task.json").read_text())
    tj["inputs"] = [{"name": n, "shape_expr": ["N", "D"], "kernel_shape_expr": list(kernel_shape), "dtype": "float32"}
                    for n in ("a", "b")]
    (task_dir / "task.json").write_text(json.dumps(tj))


def test_timing_only_eval_takes_declared_shapes_instead_of_building_inputs(tmp_path):
    make_add_task(tmp_path / "tasks", "plain")
    declared = make_add_task(tmp_path / "tasks", "declared")
    _declare_inputs(declared)
    # A reference that cannot build full-size inputs (N=256): the declared shapes must be enough.
    ref = (declared / "reference.py").read_text()
    (declared / "reference.py").write_text(ref.replace("    n, d = params", "    assert params['N'] != 256, 'built'\n"
                                                                             "    n, d = params"))
    wrong = make_add_task(tmp_path / "tasks", "wrong")
    _declare_inputs(wrong, ("N", "2*D"))  # a declaration the small inputs contradict: not trusted

    def timing_only(name):
        p = run_cli(["eval", "--tasks", str(tmp_path / "tasks"), "--task", name, "--timing-only"])
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)

    base, fast, fallback = timing_only("plain"), timing_only("declared"), timing_only("wrong")
    assert base["status"] == fast["status"] == fallback["status"] == "ok", (base, fast, fallback)
    assert (base["timing_inputs"], fast["timing_inputs"], fallback["timing_inputs"]) == \
        ("built", "declared shapes", "built")
    assert fast["latency_ms"] == base["latency_ms"] == fallback["latency_ms"]
    assert fast["metrics"] == base["metrics"]
    # A numeric eval of the declared task still builds (and here fails to build) the full-size inputs.
    p = run_cli(["eval", "--tasks", str(tmp_path / "tasks"), "--task", "declared"])
    r = json.loads(p.stdout)
    assert r["status"] == "infra_error" and "built" in r["error"]


def test_serve_checks_a_declaration_once_and_again_after_an_edit(tmp_path):
    """A runner checks a task's declared shapes in its first timing-only eval and trusts them after, until the
    task's files change: a declaration made wrong by an edit is caught again."""
    import os
    import time as clock
    from runner_helpers import Serve
    task = make_add_task(tmp_path / "tasks", "declared")
    _declare_inputs(task)
    ref = (task / "reference.py").read_text()  # says when the check builds the small inputs
    (task / "reference.py").write_text(ref.replace("    n, d = params", "    print('building', params)\n"
                                                                      "    n, d = params"))
    srv = Serve(["--tasks", str(tmp_path / "tasks")])
    try:
        first = srv.eval("a", {"name": "declared"}, ADD_KERNEL, timing_only=True)
        again = srv.eval("b", {"name": "declared"}, ADD_KERNEL, timing_only=True)
        assert (first["timing_inputs"], again["timing_inputs"]) == ("declared shapes", "declared shapes")
        assert "declaration_verified" not in first  # the runner's own bookkeeping, not part of the result
        assert "building" in first["output"] and "building" not in again["output"], (first["output"], again["output"])
        _declare_inputs(task, ("N", "2*D"))  # now the small inputs contradict it
        later = clock.time() + 2
        os.utime(task / "task.json", (later, later))
        edited = srv.eval("c", {"name": "declared"}, ADD_KERNEL, timing_only=True)
        assert edited["status"] == "ok" and edited["timing_inputs"] == "built", edited
    finally:
        srv.close()


def test_inline_task(tmp_path):
    from runner_helpers import ADD_REFERENCE
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"id": "inl", "kernel": ADD_KERNEL, "task": {
        "name": "add_inline", "reference": ADD_REFERENCE, "parameters": {"N": 128, "D": 128},
        "roofline": {"min_bytes": "12*N*D"}}}))
    r = json.loads(run_cli(["eval", "--job", str(job)]).stdout)
    assert r["status"] == "ok" and r["roofline"]["bound"] == "memory" and r["params"] == {"N": 128, "D": 128}


ORIGINAL_REFERENCE = textwrap.dedent('''\
    import numpy as np
    N = 256
    D = 512

    def get_inputs():
        return [np.random.normal(0, 1, (N, D)).astype(np.float32)]

    def forward(x):
        return x / (1 + np.exp(-x))

    def transform_to_nki_inputs(inputs):
        return [np.reshape(inputs[0], (128, N // 128, D))]

    def transform_nki_outputs(kernel_result, ref):
        return np.reshape(kernel_result, ref.shape)
    ''')

# an original-style kernel without imports (the original harness prepends an import header)
ORIGINAL_KERNEL = textwrap.dedent('''\
    @nki.jit
    def kernel(x):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        for j in nl.affine_range(x.shape[1]):
            t = nl.load(x[:, j, :])
            nl.store(out[:, j, :], value=nl.multiply(t, nl.sigmoid(t)))
        return out
    ''')


def make_dataset(root: pathlib.Path):
    (root / "reference").mkdir(parents=True)
    (root / "kernels").mkdir()
    (root / "seeds").mkdir()
    (root / "reference" / "silu_numpy_N256_D512.py").write_text(ORIGINAL_REFERENCE)
    (root / "kernels" / "silu_N256_D512_0.py").write_text(ORIGINAL_KERNEL)
    (root / "summary.json").write_text(json.dumps({"silu": {"seed": "seeds/silu.yaml", "cases": {"2": {
        "values": {"M": 256, "N": 512},
        "impls": [{"task": "NKIBench/reference/silu_numpy_N256_D512.py",
                   "kernel": "NKIBench/kernels/silu_N256_D512_0.py"}]}}}}))
    return root


def test_original_dataset_reader(tmp_path):
    import sys
    sys.path.insert(0, str(REPO / "nkibench" / "runner"))
    from accelopt_runner import dataset
    root = make_dataset(tmp_path / "NKIBench")
    spec = dataset.resolve(str(root), "silu")
    assert spec["case"] == "2" and spec["params"] == {"M": 256, "N": 512}
    assert spec["reference_path"].endswith("silu_numpy_N256_D512.py")
    assert spec["baseline_path"].endswith("silu_N256_D512_0.py") and spec["roofline"]["vector_flops"] == "3*M*N"
    with pytest.raises(dataset.DatasetError):
        dataset.resolve(str(root), "nope")
    with pytest.raises(dataset.DatasetError):
        dataset.resolve(str(root), "silu", case="9")
    # without summary.json: found by file name, parameters parsed from it
    (root / "summary.json").unlink()
    spec = dataset.resolve(str(root), "silu")
    assert spec["params"] == {"N": 256, "D": 512} and spec["baseline_path"]
    assert dataset.list_problems(str(root)) == ["silu"]


def test_eval_from_original_dataset(tmp_path):
    root = make_dataset(tmp_path / "NKIBench")
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"id": "ds", "task": {"dataset": str(root), "name": "silu"},
                               "kernel": ORIGINAL_KERNEL, "seeds": [0, 21, 42, 63, 84]}))
    r = json.loads(run_cli(["eval", "--job", str(job)]).stdout)
    assert r["status"] == "ok", r["error"]
    assert r["roofline"]["bound"] == "memory" and r["task"] == "silu"
    # a broken kernel reports the kernel's own line despite the prepended header
    bad = ORIGINAL_KERNEL.replace("t = nl.load(x[:, j, :])", "t = nl.load(x[:, j, :]) + undefined_name")
    job.write_text(json.dumps({"id": "ds2", "task": {"dir": str(root), "name": "silu"}, "kernel": bad}))
    r = json.loads(run_cli(["eval", "--job", str(job)]).stdout)
    assert r["status"] != "ok" and "line 5" in r["error"] and "undefined_name" in r["error"]


def test_neuron_absent_is_infra_error(tmp_path):
    make_add_task(tmp_path)
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"id": "n0", "task": {"dir": str(tmp_path / "add")}, "kernel": ADD_KERNEL,
                               "backend": "neuron"}))
    r = json.loads(run_cli(["eval", "--job", str(job)]).stdout)
    assert r["status"] == "infra_error" and r["error"].startswith("Neuron SDK not found on this host:")


def test_neuron_backend_against_stand_in(tmp_path):
    """The STAND-IN SDK records what the real one would receive: pinning, flags, artifacts, benchmark, profile."""
    make_add_task(tmp_path)
    log = tmp_path / "calls.jsonl"
    env = runner_env(extra_pythonpath=[FAKE_NEURON], path_prefix=[FAKE_NEURON / "bin"])
    env["FAKE_NEURON_LOG"] = str(log)
    env["ACCELOPT_RUNNER_CHILD_ENV"] = "FAKE_NEURON_LOG"  # the eval child gets allow-listed variables only
    h = json.loads(run_cli(["probe"], env=env).stdout)
    assert h["backends"]["neuron"]["neuronx_cc"] == "0.0.0+standin"
    assert h["backends"]["neuron"]["neuron_cores"] == 2
    s = Serve(["--tasks", str(tmp_path), "--no-sandbox"], env=env)
    try:
        r = s.eval("n1", {"name": "add", "size": "small"}, ADD_KERNEL, backend="neuron", core=1, target="trn1",
                   seeds=[1, 2], warmup=3, iters=7, timeline_cap=100)
        assert r["status"] == "ok", r["error"]
        # Only the summary is parsed from neuron-profile: the profile says so, field by field, with no numbers.
        prof = r["profile"]
        assert prof["source"] == "neuron-profile" and prof["available"] is False
        assert set(prof["missing"]) == {"instruction_count", "engine_busy_ns", "line_costs", "timeline"}
        assert all("profile.ntff" in why for why in prof["missing"].values())
        assert not {"instruction_count", "engine_busy_ns", "line_costs", "timeline"} & set(prof)
        assert r["correct"] is True and r["latency_ms"]["min"] <= r["latency_ms"]["p50"] <= r["latency_ms"]["max"]
        assert 0 < r["rel_spread"] <= 0.01 and r["timing_attempts"] == 1
        assert r["metrics"]["hbm_read_bytes"] > 0 and r["metrics"]["total_time"] > 0
        assert r["roofline"]["percent_of_peak"] > 0
        r2 = s.eval("n2", {"name": "add", "size": "small"}, "import neuronxcc.nki as nki\ndef kernel(a, b):\n"
                    "    return undefined\n", backend="neuron", core=1)
        assert r2["status"] in ("compile_error", "runtime_error") and "line 3" in r2["error"]
        assert r2["profile"] is None
    finally:
        s.close()
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    bm = [c for c in calls if c["api"] == "baremetal"]
    assert bm[0]["save_neff_name"] == "file.neff" and bm[0]["save_trace_name"] == "profile.ntff"
    assert all(c["additional_compile_opt"] == "--disable-dge --logical-nc-config=1" for c in bm)
    assert all(c["env"]["NEURON_RT_VISIBLE_CORES"] == "1" for c in bm)
    assert all("--auto-cast=none" in c["env"]["NEURON_CC_FLAGS"] for c in bm)
    assert len(bm) >= 3  # compile + first run, then one per seed
    bench = [c for c in calls if c["api"] == "benchmark"]
    assert bench and bench[0]["warmup"] == 3 and bench[0]["iters"] == 7
    prof = [c for c in calls if c["api"] == "neuron-profile"]
    assert prof and prof[0]["argv"][:3] == ["view", "--output-format", "summary-json"]


def test_every_task_baseline_small_on_sim():
    tasks_dir = REPO / "nkibench" / "tasks"
    names = sorted(p.parent.name for p in tasks_dir.glob("*/task.json")) if tasks_dir.is_dir() else []
    names = [n for n in names if (tasks_dir / n / "baseline.py").is_file()]
    if not names:
        pytest.skip(f"no tasks with a baseline under {tasks_dir} yet")
    s = Serve()
    failures = []
    try:
        for n in names:
            r = s.eval(n, {"name": n}, (tasks_dir / n / "baseline.py").read_text(), size="small", target="trn1",
                       seeds=[0, 1], timeout_s=120, timeout=180)
            if r["status"] != "ok":
                failures.append(f"{n}: {r['status']}: {r['error']}")
            else:
                assert r["roofline"] and 0 < r["roofline"]["percent_of_peak"] <= 100.5, (n, r["roofline"])
    finally:
        s.close()
    assert not failures, "\n".join(failures)
