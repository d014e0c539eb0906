"""A user's own task folder (nkibench/tasks/README.md, "User tasks"): the short task.json, the reference forms, the
roofline without formulas, the kernel function rule, and the task check (`task_check` op, `task-check` command),
each through a real runner (the command, or `serve`), no mocks. Fixtures: tests/fixtures/usertasks/."""
import json
import os
import shutil
import time

import pytest

from runner_helpers import REPO, Serve, run_cli, runner_env

FIX = REPO / "tests" / "fixtures" / "usertasks"
NO_TORCH = FIX / "no_torch"  # a `torch` package that raises ImportError, first on the runner's PYTHONPATH
CHECKS = ["task_json", "kernel_function", "reference_loads", "reference_runs", "deterministic", "shapes", "memory",
          "baseline_small", "baseline_full", "flops"]


@pytest.fixture
def torch_required():
    """PyTorch tests fail (not skip) without torch where CI sets ACCELOPT_REQUIRE_TORCH=1 (CMakePresets.json)."""
    import importlib
    try:
        importlib.import_module("torch")
    except ImportError:
        if os.environ.get("ACCELOPT_REQUIRE_TORCH") == "1":
            pytest.fail("ACCELOPT_REQUIRE_TORCH=1 but torch is not importable (apt-get install python3-torch)")
        pytest.skip("PyTorch is not installed (apt-get install python3-torch); set ACCELOPT_REQUIRE_TORCH=1 to fail")


def folder(tmp_path, name, **files):
    """A copy of a fixture task folder, with files replaced (None removes one)."""
    d = tmp_path / name
    shutil.copytree(FIX / name, d)
    for fn, text in files.items():
        fn = fn.replace("__", ".")
        if text is None:
            (d / fn).unlink()
        else:
            (d / fn).write_text(text if isinstance(text, str) else json.dumps(text))
    return d


def check(d, *args, env=None, timeout=300):
    p = run_cli(["task-check", str(d), *map(str, args)], env=env, timeout=timeout)
    assert p.stdout.count("\n") == 1, (p.stdout, p.stderr[-2000:])
    return p.returncode, json.loads(p.stdout)


def failed(r, check_id, *says):
    assert not r["ok"] and r["checks"][-1]["check"] == check_id and not r["checks"][-1]["ok"], r
    assert all(c["ok"] for c in r["checks"][:-1]), r["checks"]
    assert [c["check"] for c in r["checks"]] == CHECKS[:CHECKS.index(check_id) + 1]
    for s in says:
        assert s in r["error"], (s, r["error"])


SOFTMAX = (FIX / "softmax" / "baseline.py").read_text()
SOFTMAX_TJ = json.loads((FIX / "softmax" / "task.json").read_text())


# ------------------------------------------------------------------------------------------------ the ok cases

def test_softmax_task_check_reports_the_figures_from_the_baseline_trace():
    t0 = time.monotonic()
    rc, r = check(FIX / "softmax")
    took = time.monotonic() - t0
    assert rc == 0 and r["ok"] and r["error"] == "", r
    assert [c["check"] for c in r["checks"]] == CHECKS and all(c["ok"] for c in r["checks"])
    assert r["op"] == "task_check_result" and r["function"] == "row_softmax" and r["reference_kind"] == "numpy"
    assert r["inputs"] == [{"name": "x", "shape": [256, 2048], "dtype": "float32"}]
    assert r["small_inputs"] == [{"name": "x", "shape": [128, 512], "dtype": "float32"}]
    assert r["outputs"] == [{"shape": [256, 2048], "dtype": "float32"}]
    # each input read and each output written once, at each size
    assert r["roofline"]["min_bytes"] == 2 * 4 * 256 * 2048 and r["small_roofline"]["min_bytes"] == 2 * 4 * 128 * 512
    # the baseline's trace: no matmul; exp, reductions and the multiply write about 2 elements per input element
    assert r["roofline"]["matmul_flops"] == 0 and 256 * 2048 <= r["roofline"]["vector_flops"] <= 8 * 256 * 2048
    assert r["roofline_source"] == {"flops": "baseline trace", "min_bytes": "input and output sizes"}
    assert r["latency_ms"] > r["small_latency_ms"] > 0
    print(f"task-check softmax: {took:.2f} s wall (runner's wall_s {r['wall_s']})")


def test_layer_norm_with_get_inputs_over_serve_and_hello_lists_the_op():
    srv = Serve()
    try:
        srv.send({"op": "hello"})
        assert "task_check" in srv.recv()["ops"]
        srv.send({"op": "task_check", "id": "ln", "task": {"dir": str(FIX / "layernorm")}})
        r = srv.recv(300)
        assert r["op"] == "task_check_result" and r["id"] == "ln" and r["ok"], r
        assert r["function"] == "layer_norm" and [x["name"] for x in r["inputs"]] == ["x", "gamma", "beta"]
        assert r["inputs"][1]["shape"] == [1, 1024] and r["small_inputs"][0]["shape"] == [128, 256]
        assert r["roofline"]["vector_flops"] > 0 and r["roofline_source"]["flops"] == "baseline trace"
        # a second check with a kernel and function of the request's, on a task in the short format
        two = SOFTMAX + ("\n\n@nki.jit" + SOFTMAX.split("@nki.jit", 1)[1]).replace("def row_softmax", "def other")
        srv.send({"op": "task_check", "id": 2, "task": {"dir": str(FIX / "softmax")}, "kernel": two,
                  "function": "row_softmax"})
        r = srv.recv(300)
        assert r["ok"] and r["function"] == "row_softmax", r
    finally:
        srv.close()


def test_an_eval_without_flops_reports_bytes_and_no_percent(tmp_path):
    srv = Serve()
    try:
        r = srv.eval("e", {"dir": str(FIX / "softmax")}, SOFTMAX, size="small", seeds=[1, 2])
        assert r["status"] == "ok" and r["correct"], r
        rf = r["roofline"]
        assert rf["min_bytes"] == 2 * 4 * 128 * 512 and rf["percent_of_peak"] is None and rf["bound"] is None
        assert rf["roofline_source"] == {"flops": None, "min_bytes": "input and output sizes"}
        assert any("gives no FLOP count" in w for w in r["warnings"]), r["warnings"]
        # the check's figures written into task.json: numbers per size, and % of peak is reported
        _, c = check(FIX / "softmax")
        tj = dict(SOFTMAX_TJ, roofline={k: c["roofline"][k] for k in ("matmul_flops", "vector_flops")},
                  small_roofline={k: c["small_roofline"][k] for k in ("matmul_flops", "vector_flops")},
                  roofline_source={"flops": "baseline trace"})
        d = folder(tmp_path, "softmax", task__json=tj)
        for size in ("small", "full"):
            r = srv.eval(f"n{size}", {"dir": str(d)}, SOFTMAX, size=size, seeds=[1])
            rf = r["roofline"]
            assert r["status"] == "ok" and 0 < rf["percent_of_peak"] <= 100, r
            assert rf["roofline_source"] == {"flops": "baseline trace", "min_bytes": "input and output sizes"}
            fig = c["roofline" if size == "full" else "small_roofline"]
            assert rf["vector_flops"] == fig["vector_flops"] and rf["min_bytes"] == fig["min_bytes"]
    finally:
        srv.close()


def test_kernel_function_rule_over_evals(tmp_path):
    cur = (FIX / "softmax_current.py").read_text()
    two = SOFTMAX + ("\n\n@nki.jit" + SOFTMAX.split("@nki.jit", 1)[1]).replace("def row_softmax", "def spare")
    d = folder(tmp_path, "softmax", task__json=dict(SOFTMAX_TJ, function="row_softmax"))
    srv = Serve()
    try:
        task = {"dir": str(FIX / "softmax")}
        r = srv.eval("cur", task, cur, size="small")  # the current API, a kernel named softmax_rows
        assert r["status"] == "ok" and r["correct"], r
        r = srv.eval("two", task, two, size="small")
        assert r["status"] == "compile_error" and "the source has several @nki.jit functions (row_softmax, spare); " \
            "name the kernel with the request's 'function' field (accelopt: --function)" in r["error"], r
        r = srv.eval("twof", task, two, size="small", function="spare")
        assert r["status"] == "ok", r
        r = srv.eval("tj", {"dir": str(d)}, two, size="small")  # task.json's "function"
        assert r["status"] == "ok", r
        r = srv.eval("nofn", task, two, size="small", function="nope")
        assert r["status"] == "compile_error" and "the source defines no function named 'nope'" in r["error"]
        r = srv.eval("badfn", task, two, size="small", function="not a name")
        assert r["status"] == "infra_error" and "'function' must be the name of the kernel function" in r["error"]
    finally:
        srv.close()


def test_pytorch_references(torch_required):
    rc, r = check(FIX / "torch_scale")
    assert rc == 0 and r["ok"] and r["reference_kind"] == "pytorch", r
    # the kernel gets get_inputs()'s tensors, then the model's parameters in named_parameters() order
    assert [x["name"] for x in r["inputs"]] == ["x", "weight"] and r["inputs"][1]["shape"] == [1, 1024]
    # x * weight: torch's counter sees one multiply per element
    assert r["roofline"]["vector_flops"] == 256 * 1024 and r["roofline"]["matmul_flops"] == 0
    assert r["roofline_source"] == {"flops": "pytorch flop counter", "min_bytes": "input and output sizes"}
    # softmax: torch 1.13's counter counts nothing for it, so the check falls back to the baseline's trace
    rc, r = check(FIX / "torch_softmax")
    assert rc == 0 and r["ok"] and r["small_inputs"][0]["shape"] == [128, 512], r
    assert r["roofline_source"]["flops"] == "baseline trace" and r["roofline"]["vector_flops"] > 0


# ------------------------------------------------------------------------------------------------ bad inputs

def test_a_reference_that_raises_names_its_file_and_line(tmp_path):
    d = folder(tmp_path, "softmax", reference__py="import numpy as np\n\n\ndef forward(x):\n"
                                                  "    raise ValueError('no softmax today')\n")
    rc, r = check(d)
    assert rc == 1
    failed(r, "reference_runs", f"{d / 'reference.py'} (line 5, in forward)", "ValueError: no softmax today")


def test_a_reference_that_does_not_load(tmp_path):
    d = folder(tmp_path, "softmax", reference__py="import numpy as np\nx = 1 / 0\n")
    rc, r = check(d)
    failed(r, "reference_loads", f"{d / 'reference.py'} (line 2)", "ZeroDivisionError")


def test_outputs_of_another_shape_or_dtype(tmp_path):
    half = SOFTMAX.replace("out = nl.ndarray((R, C)", "out = nl.ndarray((R, C // 2)").replace(
        "value=nl.multiply(e, inv)", "value=nl.multiply(e, inv)[:, 0:C // 2]")
    (tmp_path / "half.py").write_text(half)
    rc, r = check(FIX / "softmax", "--kernel", tmp_path / "half.py")
    failed(r, "baseline_small", "output 0: the kernel returns (128, 256) float32, the reference (128, 512) float32")
    d = folder(tmp_path, "softmax", reference__py=(FIX / "softmax" / "reference.py").read_text().replace(
        ").astype(np.float32)", ")"))
    rc, r = check(d)
    failed(r, "baseline_small", "output 0: the kernel returns (128, 512) float32, the reference (128, 512) float64")


def test_nan_or_inf_in_the_reference_output(tmp_path):
    d = folder(tmp_path, "softmax", reference__py="import numpy as np\n\n\ndef forward(x):\n    return np.log(x)\n")
    rc, r = check(d)
    failed(r, "reference_runs", "the reference's output 0 holds", "NaN")


def test_a_non_deterministic_reference(tmp_path):
    ref = ("import os\nimport numpy as np\n\n\ndef get_inputs(seed, params):\n"
           "    rng = np.random.default_rng(int.from_bytes(os.urandom(4), 'little'))\n"
           "    return [rng.standard_normal((params['x_0'], params['x_1'])).astype(np.float32)]\n\n\n"
           "def forward(x):\n    return x\n")
    d = folder(tmp_path, "softmax", reference__py=ref)
    rc, r = check(d)
    failed(r, "deterministic", "different inputs for the same seed")


def test_a_kernel_without_a_jit_function_and_several_candidates(tmp_path):
    (tmp_path / "plain.py").write_text("import numpy as np\n\n\ndef a(x):\n    return x\n\n\ndef b(x):\n"
                                       "    return x\n")
    rc, r = check(FIX / "softmax", "--kernel", tmp_path / "plain.py")
    failed(r, "kernel_function", "the source defines no @nki.jit function (decorate the kernel function with "
                                 "@nki.jit)")
    two = SOFTMAX + ("\n\n@nki.jit" + SOFTMAX.split("@nki.jit", 1)[1]).replace("def row_softmax", "def spare")
    d = folder(tmp_path, "softmax", baseline__py=two)
    rc, r = check(d)
    failed(r, "kernel_function", "several @nki.jit functions (row_softmax, spare)", "--function")
    rc, r = check(d, "--function", "spare")
    assert rc == 0 and r["function"] == "spare", r


def test_kernel_parameters_against_the_inputs(tmp_path):
    two_args = SOFTMAX.replace("def row_softmax(x):", "def row_softmax(x, y):")
    d = folder(tmp_path, "softmax", baseline__py=two_args)
    rc, r = check(d)
    failed(r, "shapes", "row_softmax() takes 2 positional parameter(s) (x, y) but gets 1 input(s) (x)")


def test_a_declared_shape_the_reference_does_not_build(tmp_path):
    tj = json.loads((FIX / "layernorm" / "task.json").read_text())
    tj["inputs"][1]["shape_expr"] = ["D", 1]
    d = folder(tmp_path, "layernorm", task__json=tj)
    rc, r = check(d)
    failed(r, "shapes", "inputs[1] (gamma): task.json declares (256, 1) float32 at the small size, the reference "
                        "builds (1, 256) float32")


def test_a_full_size_that_does_not_fit_is_refused_before_anything_is_built(tmp_path):
    tj = dict(SOFTMAX_TJ, inputs=[{"name": "x", "shape": [65536, 65536], "small_shape": [128, 512],
                                   "dtype": "float32"}])
    d = folder(tmp_path, "softmax", task__json=tj)
    t0 = time.monotonic()
    rc, r = check(d)
    failed(r, "memory", "the full size would not fit in memory: inputs 16384.0 MiB + outputs 16384.0 MiB",
           "over the eval's limit of")
    assert time.monotonic() - t0 < 60


def test_bad_task_json_fields_name_the_field(tmp_path):
    for tj, says in (
            (dict(SOFTMAX_TJ, inputs=[{"name": "x", "shape": [256, 0]}]), "inputs[0].shape must be an array of whole "
                                                                         "numbers >= 1"),
            (dict(SOFTMAX_TJ, inputs=[{"name": "x", "shape": [256], "small_shape": [1, 2]}]), "give both the same "
                                                                                              "rank"),
            (dict(SOFTMAX_TJ, function="row softmax"), "'function' must be the kernel function's name"),
            (dict(SOFTMAX_TJ, roofline_source={"flops": "guess"}), "roofline_source.flops = 'guess'"),
            ({"name": "x", "inputs": [{"name": "x", "dtype": "float32"}]}, "'parameters' is missing")):
        d = tmp_path / f"t{len(list(tmp_path.iterdir()))}"
        shutil.copytree(FIX / "softmax", d)
        (d / "task.json").write_text(json.dumps(tj))
        rc, r = check(d)
        failed(r, "task_json", says)
        assert str(d / "task.json") in r["error"]


def test_a_pytorch_reference_without_pytorch():
    """torch hidden from the runner and its children by a stub package that raises ImportError, first on the
    runner's PYTHONPATH (tests/fixtures/usertasks/no_torch)."""
    rc, r = check(FIX / "torch_scale", env=runner_env(extra_pythonpath=[NO_TORCH]))
    failed(r, "reference_loads", "this reference uses PyTorch, which is not installed for", "install it (Debian: "
           "apt-get install python3-torch; pip: pip install torch)")


def test_usage_errors_exit_2(tmp_path):
    p = run_cli(["task-check", str(tmp_path / "nope")])
    assert p.returncode == 2 and "is not a folder" in p.stderr


def test_a_task_check_queues_with_evals_and_can_be_cancelled():
    srv = Serve()
    try:
        srv.send({"op": "task_check", "id": "run", "task": {"dir": str(FIX / "layernorm")}})
        srv.send({"op": "task_check", "id": "queued", "task": {"dir": str(FIX / "softmax")}})
        srv.send({"op": "cancel", "id": "queued"})
        r = srv.recv(60)
        assert r["op"] == "task_check_result" and r["id"] == "queued" and r["cancelled"] and not r["ok"], r
        srv.send({"op": "cancel", "id": "run"})
        r = srv.recv(120)
        assert r["id"] == "run" and not r["ok"] and r["cancelled"] and "cancelled" in r["error"], r
        srv.send({"op": "task_check", "task": {"dir": str(FIX / "softmax")}})
        m = srv.recv(30)
        assert m["op"] == "error" and "needs an 'id'" in m["error"], m
    finally:
        srv.close()
