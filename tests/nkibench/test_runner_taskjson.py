"""task.json validation (taskspec.validate_task / check_shapes): a bad field is refused before anything runs, with a
message naming the file, the field, what it holds and what it should hold; empty tensors never run "ok"."""
import json
import sys

import pytest

from runner_helpers import ADD_KERNEL, RUNNER_DIR, Serve, make_add_task

sys.path.insert(0, str(RUNNER_DIR))
from accelopt_runner import taskspec  # noqa: E402

DECLARED = {"inputs": [{"name": "a", "shape_expr": ["N", "D"], "dtype": "float32"},
                       {"name": "b", "shape_expr": ["N", "D"], "dtype": "float32"}],
            "outputs": [{"name": "out", "shape_expr": ["N", "D"], "dtype": "float32"}]}


def task_with(root, name, change=None, raw=None):
    d = make_add_task(root, name)
    if raw is not None:
        (d / "task.json").write_text(raw)
        return d
    tj = json.loads((d / "task.json").read_text())
    change(tj)
    (d / "task.json").write_text(json.dumps(tj))
    return d


def refused(root, name, size="small", change=None, raw=None):
    d = task_with(root, name, change, raw)
    with pytest.raises(taskspec.TaskError) as e:
        taskspec.resolve({"name": name}, size, str(root))
    msg = str(e.value)
    assert msg.startswith(str(d / "task.json") + ": ") or str(d / "task.json") in msg, msg
    return msg


def set_(key, value):
    return lambda tj: tj.__setitem__(key, value)


@pytest.mark.parametrize("change,says", [
    (set_("rel_tol", "tight"), "'rel_tol' must be a number in (0, 1): the allowed L2 relative error ||k-r|| / ||r||, "
                               "got the string 'tight'; the shipped tasks use 2e-05"),
    (set_("rel_tol", -1), "'rel_tol' must be a number in (0, 1)"),
    (set_("rel_tol", 0), "'rel_tol' must be a number in (0, 1)"),
    (set_("rel_tol", 1.5), "got the number 1.5"),
    (set_("rel_tol", True), "got a boolean"),
    (set_("atol", 1e-6), "'atol' must be absent, got the number 1e-06; the runner checks only the L2 relative "
                         "error; set 'rel_tol' instead"),
    (set_("dtype", "complex512"), "'dtype' must be one of \"float32\", \"bfloat16\", \"float16\", got the string "
                                  "'complex512'"),
    (set_("dtype", 32), "'dtype' must be one of"),
    (set_("parameters", [256, 512]), "'parameters' must be an object mapping parameter names to numbers, got an "
                                     "array"),
    (set_("small_parameters", {"N": "big", "D": 256}), "'small_parameters.N' must be a finite number, got the "
                                                        "string 'big'"),
    (set_("name", ""), "'name' must be a non-empty string"),
    (set_("description", 5), "'description' must be a string"),
    (set_("roofline", "fast"), "'roofline' must be an object with vector_flops, matmul_flops, min_bytes"),
    (set_("roofline", {"min_bytes": [1]}), "'roofline.min_bytes' must be an expression string"),
    (set_("roofline", {"peak": "1"}), "'roofline.peak' must be absent; the roofline fields are vector_flops, "
                                      "matmul_flops, min_bytes"),
    (set_("inputs", {"a": 1}), "'inputs' must be an array of objects"),
    (set_("inputs", [{"shape_expr": "N,D"}]), "'inputs[0].shape_expr' must be an array of dimensions"),
    (set_("outputs", [{"shape_expr": ["N"], "dtype": "complex512"}]), "'outputs[0].dtype' must be a numpy dtype "
                                                                      "name"),
    (lambda tj: tj.pop("parameters"), "'parameters' is missing; it must be an object"),
    (lambda tj: tj.pop("small_parameters"), "an eval of size \"small\" needs 'small_parameters'"),
])
def test_bad_field_is_named_with_file_and_expected_type(tmp_path, change, says):
    msg = refused(tmp_path, "t", change=change)
    assert says in msg, msg


@pytest.mark.parametrize("raw,says", [
    ('[{"name": "t"}]', "must be a JSON object ({\"op\": ...}), got a JSON array"),
    ('{"name": "t", "rel_tol": NaN, "parameters": {}}', "NaN is not a JSON number"),
    ('{"name": "t", "rel_tol": 1e999, "parameters": {}}', "the number 1e999 is out of range"),
    ('{"name": "t", "name": "u", "parameters": {}}', "the key 'name' appears twice"),
    ('{"name": ', "is not a valid task description: malformed JSON file"),
])
def test_unparseable_task_json_names_the_file(tmp_path, raw, says):
    msg = refused(tmp_path, "t", raw=raw)
    assert "is not a valid task description" in msg and says in msg, msg


@pytest.mark.parametrize("dims,says", [
    ({"N": 0}, "inputs[0].shape_expr[0] = 'N' is 0 at the small parameters (N=0, D=256); every dimension must be "
               "a whole number of at least 1"),
    ({"N": -128}, "is -128 at the small parameters"),
    ({"N": 128.5}, "is 128.5 at the small parameters"),
])
def test_declared_dimensions_must_be_whole_and_positive(tmp_path, dims, says):
    def change(tj):
        tj.update(DECLARED)
        tj["small_parameters"].update(dims)
    msg = refused(tmp_path, "t", change=change)
    assert says in msg, msg
    # the full-size parameters are fine: a full eval of the same task resolves
    assert taskspec.resolve({"name": "t"}, "full", str(tmp_path))["params"] == {"N": 256, "D": 512}


def test_power_in_a_shape_cannot_stall_the_server(tmp_path):
    """Shapes are checked in the serving process, with no time limit: 9**9**9 must be refused, not computed."""
    def change(tj):
        tj.update(DECLARED)
        tj["inputs"][0]["shape_expr"] = ["9**9**9", "D"]
    msg = refused(tmp_path, "t", change=change)
    assert "inputs[0].shape_expr[0] = '9**9**9' is not a dimension expression the runner evaluates" in msg, msg


def test_the_shipped_tasks_validate():
    tasks = RUNNER_DIR.parent / "tasks"
    names = taskspec.list_tasks(str(tasks))
    assert len(names) >= 14
    for n in names:
        for size in ("small", "full"):
            assert taskspec.resolve({"name": n}, size, str(tasks))["name"] == n


def test_eval_overrides_are_checked(tmp_path):
    make_add_task(tmp_path)
    for task, says in (({"name": "add", "rel_tol": "tight"}, "the eval's 'task': 'rel_tol' must be a number in (0, 1)"),
                       ({"name": "add", "dtype": "complex512"}, "the eval's 'task': 'dtype' must be one of"),
                       ({"name": "add", "parameters": [1]}, "the eval's 'task': 'parameters' must be an object"),
                       ({"name": "add", "parameters": {"N": float("inf")}}, "'parameters.N' must be a finite number"),
                       ({"dataset": "/nonexistent", "name": "silu", "impl": "x"},
                        "'impl' must be a whole number >= 0"),
                       ({"dir": 5}, "'dir' must be an absolute folder path (a string), got the number 5")):
        with pytest.raises(taskspec.TaskError) as e:
            taskspec.resolve(task, "small", str(tmp_path))
        assert says in str(e.value), (task, str(e.value))


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    root = tmp_path_factory.mktemp("tasks")
    make_add_task(root)
    task_with(root, "tight", set_("rel_tol", "tight"))
    s = Serve(["--tasks", str(root)])
    yield s
    s.close()


def test_through_serve_a_bad_task_json_is_a_clear_infra_error(srv):
    r = srv.eval("tj1", {"name": "tight"}, ADD_KERNEL, size="small")
    assert r["status"] == "infra_error" and "Traceback" not in r["error"]
    assert "tight/task.json: 'rel_tol' must be a number in (0, 1)" in r["error"], r["error"]


@pytest.mark.parametrize("timing_only", [False, True])
def test_zero_dimension_without_declarations_is_refused_at_run_time(srv, timing_only):
    """The add task declares no shapes, so only the built inputs show the 0: it used to run "ok" in 0 ms."""
    r = srv.eval("zero", {"name": "add", "parameters": {"N": 0}}, ADD_KERNEL, size="full",
                 timing_only=timing_only, timeout_s=60)
    assert r["status"] == "infra_error" and r["latency_ms"] is None, r
    assert "has shape (0, 512), with a 0 dimension, at the parameters N=0, D=512; every dimension must be at " \
           "least 1" in r["error"], r["error"]


# ------------------------------------------------------------------ the roofline warning (result field `warnings`)

@pytest.mark.parametrize("roof,roofline_null,says", [
    (None, True, "roofline: task 'noroof' has no roofline formulas, so % of peak and bound cannot be computed; add "
                 "\"roofline\""),
    ({"min_bytes": "N/0"}, True, "roofline: the formulas of task 'noroof' cannot be evaluated at its parameters for "
                                 "trn1: "),
    ({"min_bytes": "X*N"}, True, "unknown name 'X'"),
    ({"vector_flops": "0", "matmul_flops": "0", "min_bytes": "0"}, False, "give a peak time of 0"),
])
def test_roofline_problems_reach_the_result_as_warnings(srv, tmp_path, roof, roofline_null, says):
    d = task_with(tmp_path, "noroof", lambda tj: tj.pop("roofline"))
    task = {"dir": str(d), **({"roofline": roof} if roof else {})}
    r = srv.eval("roof", task, ADD_KERNEL, size="small", timing_only=True)
    assert r["status"] == "ok" and r["latency_ms"]["mean"] > 0, r
    assert (r["roofline"] is None) == roofline_null
    assert len(r["warnings"]) == 1 and says in r["warnings"][0], r["warnings"]


def test_every_result_carries_warnings(srv):
    r = srv.eval("w0", {"name": "add"}, ADD_KERNEL, size="small", timing_only=True)
    assert r["status"] == "ok" and r["warnings"] == [] and r["roofline"]["percent_of_peak"] > 0
    r = srv.eval("w1", {"name": "add"}, "", size="small")
    assert r["status"] == "infra_error" and r["warnings"] == []


# ------------------------------------------------------------------ files that are not files, a BOM, a broken reference

def test_task_json_that_is_no_regular_file_is_named(tmp_path):
    """A folder (or a FIFO, which would block the serving process) where task.json should be: said as such, not
    "neither a task folder nor a dataset"."""
    import os
    d = make_add_task(tmp_path, "dirtask")
    (d / "task.json").unlink()
    (d / "task.json").mkdir()
    f = make_add_task(tmp_path, "fifotask")
    (f / "task.json").unlink()
    os.mkfifo(f / "task.json")
    for task, kind in (({"dir": str(d)}, "a folder"), ({"name": "fifotask"}, "a named pipe (FIFO)")):
        with pytest.raises(taskspec.TaskError) as e:
            taskspec.resolve(task, "small", str(tmp_path))
        assert f"task.json is {kind}, not a regular file" in str(e.value), str(e.value)


def test_task_json_with_a_byte_order_mark_is_read(tmp_path):
    d = make_add_task(tmp_path, "bom")
    (d / "task.json").write_bytes(b"\xef\xbb\xbf" + (d / "task.json").read_bytes())
    assert taskspec.resolve({"name": "bom"}, "small", str(tmp_path))["params"] == {"N": 128, "D": 256}


def test_oversized_task_json_is_refused_unread(tmp_path):
    d = make_add_task(tmp_path, "big")
    with open(d / "task.json", "ab") as f:
        f.truncate(taskspec.MAX_TASK_JSON_BYTES + 1)
    with pytest.raises(taskspec.TaskError) as e:
        taskspec.resolve({"name": "big"}, "small", str(tmp_path))
    assert f"{d / 'task.json'} is 16.0 MiB, over the 16 MiB a task description may be" in str(e.value), str(e.value)


@pytest.mark.parametrize("reference,says", [
    ("def forward(x:\n", "reference.py (line 1) failed to load: SyntaxError: '(' was never closed"),
    ("import numpy as np\n\ndef get_inputs(seed, params):\n    return {}['missing']\n\ndef forward(a, b):\n"
     "    return a\n", "reference.py (line 4, in get_inputs) failed for seed 1: KeyError: 'missing'"),
])
def test_a_broken_reference_is_named_with_its_line_and_no_traceback(srv, tmp_path, reference, says):
    d = make_add_task(tmp_path, "broken")
    (d / "reference.py").write_text(reference)
    r = srv.eval("ref1", {"dir": str(d)}, ADD_KERNEL, size="small", seeds=[1])
    assert r["status"] == "infra_error" and "Traceback" not in r["error"], r["error"]
    assert f"the task reference {d / 'reference.py'}" in r["error"] and says in r["error"], r["error"]
