"""Task folders whose task.json (or reference.py, or dataset layout) is wrong. `accelopt bench K --task DIR` sends
the folder to the runner, which refuses it before any kernel runs: an infra_error naming the file, the field, what it
holds and what it should hold (exit 1, nothing written). What the CLI reads itself (optimize reads reference.py and
baseline.py) is refused as a usage error naming the file."""
import json

from harness import Big, Case, Dir, Fifo, SeededTask

TASK = "work/t"


def c(id_, args, exit_, *says, **kw):
    return Case(id="taskjson/" + id_, args=list(args), exit=exit_, says=tuple(says), **kw)


def bench(id_, task, *says, size="small", **kw):
    """bench the shipped silu baseline on the task folder {work}/t: the runner's refusal in the JSON row."""
    return c(id_, ["bench", "{silu}", "--task", "{work}/t", "--size", size, "--json"], 1,
             '"status":"infra_error"', *says, stream="out", files={TASK: task}, **kw)


def setter(key, value):
    return lambda tj: tj.__setitem__(key, value)


def dropper(key):
    return lambda tj: tj.pop(key)


def shapes(expr):
    def change(tj):
        tj["inputs"][0]["shape_expr"] = expr
    return change


WHERE = "{work}/t/task.json"

CASES = [
    bench("rel-tol-string", SeededTask(change=setter("rel_tol", "tight")), WHERE,
          "'rel_tol' must be a number in (0, 1)", "got the string 'tight'", "the shipped tasks use 2e-05"),
    bench("rel-tol-negative", SeededTask(change=setter("rel_tol", -1)), WHERE, "'rel_tol' must be a number in (0, 1)",
          "got the number -1"),
    bench("rel-tol-one", SeededTask(change=setter("rel_tol", 1)), "'rel_tol' must be a number in (0, 1)"),
    bench("atol-given", SeededTask(change=setter("atol", 1e-6)), "'atol' must be absent", "set 'rel_tol' instead"),
    bench("dtype-unknown", SeededTask(change=setter("dtype", "complex512")), WHERE, "'dtype' must be one of",
          "\\\"float32\\\"", "'complex512'"),
    bench("dtype-number", SeededTask(change=setter("dtype", 32)), "'dtype' must be one of", "got the number 32"),
    bench("name-empty", SeededTask(change=setter("name", "")), "'name' must be a non-empty string"),
    bench("description-number", SeededTask(change=setter("description", 5)), "'description' must be a string"),
    bench("parameters-array", SeededTask(change=setter("parameters", [4096, 7168])),
          "'parameters' must be an object mapping parameter names to numbers, got an array"),
    bench("parameters-missing", SeededTask(change=dropper("parameters")), "'parameters' is missing"),
    bench("small-parameters-missing", SeededTask(change=dropper("small_parameters")),
          "an eval of size \\\"small\\\" needs 'small_parameters'", "or evaluate at size \\\"full\\\""),
    bench("small-parameter-string", SeededTask(change=lambda tj: tj["small_parameters"].update(M="big")),
          "'small_parameters.M' must be a finite number, got the string 'big'"),
    bench("small-parameter-zero", SeededTask(change=lambda tj: tj["small_parameters"].update(M=0)),
          "inputs[0].shape_expr[0] = 'M' is 0 at the small parameters", "at least 1"),
    bench("small-parameter-fraction", SeededTask(change=lambda tj: tj["small_parameters"].update(N=1000.5)),
          "is 1000.5 at the small parameters"),
    bench("shape-power", SeededTask(change=shapes(["9**9**9", "N"])),
          "'9**9**9' is not a dimension expression the runner evaluates", "write the product out"),
    bench("shape-unknown-name", SeededTask(change=shapes(["Q", "N"])), "inputs[0].shape_expr[0] = 'Q' cannot be "
                                                                       "evaluated at the small parameters"),
    bench("shape-not-a-list", SeededTask(change=shapes("M,N")), "'inputs[0].shape_expr' must be an array of "
                                                                 "dimensions"),
    bench("inputs-object", SeededTask(change=setter("inputs", {"x": [1]})), "'inputs' must be an array of objects"),
    bench("output-dtype-unknown", SeededTask(change=lambda tj: tj["outputs"][0].update(dtype="float128x")),
          "'outputs[0].dtype' must be a numpy dtype name"),
    bench("roofline-string", SeededTask(change=setter("roofline", "fast")),
          "'roofline' must be an object with vector_flops, matmul_flops, min_bytes"),
    bench("roofline-unknown-field", SeededTask(change=lambda tj: tj["roofline"].update(peak="1")),
          "'roofline.peak' must be absent; the roofline fields are vector_flops, matmul_flops, min_bytes"),
    bench("not-json", SeededTask(task_json='{"name": "silu", '), WHERE, "is not a valid task description",
          "malformed JSON file"),
    bench("empty-file", SeededTask(task_json=b""), WHERE, "is not a valid task description"),
    bench("array", SeededTask(task_json='[{"name": "silu"}]'), "is not a valid task description", "got a JSON array"),
    bench("nan", SeededTask(task_json='{"name": "silu", "rel_tol": NaN, "parameters": {}}'),
          "NaN is not a JSON number"),
    bench("number-out-of-range", SeededTask(task_json='{"name": "silu", "rel_tol": 1e999, "parameters": {}}'),
          "the number 1e999 is out of range"),
    bench("duplicate-key", SeededTask(task_json='{"name": "silu", "name": "other", "parameters": {}}'),
          "the key 'name' appears twice"),
    bench("nested-too-deep", SeededTask(task_json='{"name": "silu", "x": ' + "[" * 100 + "]" * 100 + "}"),
          "101 levels deep"),
    bench("not-utf8", SeededTask(task_json=b'{"name": "silu", "description": "caf\xe9"}'), WHERE,
          "not valid UTF-8"),
    bench("utf8-bom", SeededTask(task_json=b"\xef\xbb\xbf" + json.dumps(
        {"name": "silu", "parameters": {"M": 1}, "small_parameters": {"M": 1}, "rel_tol": "x"}).encode()),
          "'rel_tol' must be a number in (0, 1)"),
    bench("task-json-folder", SeededTask(files={"task.json": Dir()}),
          "{work}/t/task.json is a folder, not a regular file; a task folder keeps its task.json as a file"),
    bench("task-json-fifo", SeededTask(files={"task.json": Fifo()}),
          "{work}/t/task.json is a named pipe (FIFO), not a regular file"),
    bench("task-json-huge", SeededTask(task_json=Big(17 * 1024 * 1024, line=b" " * 1023 + b"\n")),
          "{work}/t/task.json is 17.0 MiB, over the 16 MiB a task description may be"),
    bench("reference-folder", SeededTask(files={"reference.py": Dir()}),
          "{work}/t/reference.py is a folder, not a regular file"),
    bench("task-json-missing", SeededTask(files={"task.json": None}), "{work}/t is neither a task folder (task.json) "
                                                                      "nor an NKIBench dataset (summary.json)"),
    bench("reference-missing", SeededTask(files={"reference.py": None}), "task folder {work}/t has no reference.py"),
    bench("reference-syntax-error", SeededTask(files={"reference.py": "def forward(x:\n"}),
          "the task reference {work}/t/reference.py (line 1) failed to load: SyntaxError: '(' was never closed",
          "the task's reference.py needs fixing"),
    bench("reference-no-forward", SeededTask(files={"reference.py": "def get_inputs(seed, params):\n    return []\n"}),
          "the task reference {work}/t/reference.py defines no forward()"),
    bench("reference-inputs-raise", SeededTask(files={"reference.py": (
        "import numpy as np\n\ndef get_inputs(seed, params):\n    raise KeyError('K')\n\n"
        "def forward(x):\n    return x\n")}),
        "the task reference {work}/t/reference.py (line 4, in get_inputs) failed for seed", "KeyError: 'K'"),
    c("reference-inputs-raise-timing-only", ["bench", "{silu}", "--task", "{work}/t", "--size", "small", "--json",
                                             "--timing-only"], 1, '"status":"infra_error"',
      "the task reference {work}/t/reference.py (line 4, in get_inputs) failed to build the inputs", "KeyError",
      stream="out", files={TASK: SeededTask(change=lambda tj: tj.pop("inputs"), files={"reference.py": (
          "import numpy as np\n\ndef get_inputs(seed, params):\n    raise KeyError('K')\n\n"
          "def forward(x):\n    return x\n")})}),
    bench("reference-forward-raises", SeededTask(files={"reference.py": (
        "import numpy as np\n\ndef get_inputs(seed, params):\n    return [np.ones((params['M'], params['N']), "
        "np.float32)]\n\ndef forward(x):\n    return x / 0 + undefined_name\n")}),
        "the task reference {work}/t/reference.py (line 7, in forward) failed for seed",
        "NameError: name 'undefined_name' is not defined"),
    bench("reference-raises", SeededTask(files={"reference.py": "raise ImportError('numpy too old')\n"}),
          "the task reference {work}/t/reference.py (line 1) failed to load: ImportError: numpy too old"),

    # ------------------------------------------------------------------ what optimize reads itself
    c("optimize-folder-without-reference", ["optimize", "--task", "{work}/t"], 2,
      "cannot read the task's reference: {work}/t/reference.py does not exist",
      files={TASK: SeededTask(files={"reference.py": None})}),
    c("optimize-folder-without-baseline", ["optimize", "--task", "{work}/t"], 2,
      "cannot read the task's starting kernel: {work}/t/baseline.py does not exist",
      files={TASK: SeededTask(files={"baseline.py": None})}),
    c("optimize-reference-latin1", ["optimize", "--task", "{work}/t"], 2,
      "cannot read the task's reference", "is not valid UTF-8",
      files={TASK: SeededTask(files={"reference.py": b"# caf\xe9\n"})}),
    c("optimize-reference-fifo", ["optimize", "--task", "{work}/t"], 2,
      "cannot read the task's reference", "is not a regular file", files={TASK: SeededTask(files={
          "reference.py": Fifo()})}),
    c("optimize-dataset-without-kernel", ["optimize", "--task", "silu", "--dataset", "{work}/ds"], 2,
      "dataset {work}/ds has no kernel for problem 'silu'", "kernels/silu_*_0.py", "--kernel",
      files={"work/ds": Dir({"reference/silu_1.py": "def forward(x):\n    return x\n"})}),

    # ------------------------------------------------------------------ an original-layout dataset
    c("dataset-kernel-without-reference", ["bench", "{silu}", "--task", "silu", "--dataset", "{work}/ds", "--size",
                                           "small", "--json"], 1, '"status":"infra_error"', "silu", stream="out",
      files={"work/ds": Dir({"kernels/silu_1_0.py": "def kernel(x):\n    return x\n"})}),
    c("dataset-unknown-problem", ["bench", "{silu}", "--task", "nosuch", "--dataset", "{work}/ds", "--size", "small",
                                  "--json"], 1, '"status":"infra_error"', "nosuch", stream="out",
      files={"work/ds": Dir({"reference/silu_1.py": "def forward(x):\n    return x\n"})}),
]
