"""Lines sent to the runner's JSON-lines protocol (`python3 -m accelopt_runner serve`) that are wrong: not JSON, not
an object, hostile numbers and nesting, unknown ops, evals with bad fields or tasks. Each gets one answer line that
says what was wrong (an `error` line, or the eval's own `result` with infra_error when the eval has an id), stdout
carries nothing but JSON lines, no traceback, and the server keeps serving (a hello after every case). Also the
runner's own command line (`accelopt_runner eval|serve|probe|port`): usage errors exit 2 with the reason."""
from __future__ import annotations

import dataclasses
import json

from harness import Big, Dir, Fifo, SeededTask

SILU_KERNEL = "@SILU@"  # replaced by the shipped baseline's source


@dataclasses.dataclass
class RunnerCase:
    """send: lines (dict -> JSON, bytes -> as is, str -> UTF-8), each followed by a newline. expect: one dict per
    answer line: keys that must equal (op, id, status, cancelled...), and 'says': substrings of its error. files:
    relpath (under the case's folder, {case} in the lines) -> content, byte-identical afterwards. server: "main" or
    "small" (a 10 KiB line limit)."""
    id: str
    send: list
    expect: list
    files: dict = dataclasses.field(default_factory=dict)
    server: str = "main"
    xfail: str | None = None
    timeout: float = 60.0


@dataclasses.dataclass
class RunnerCli:
    """The runner's own command line: args after `python3 -m accelopt_runner`; exit status; substrings of stderr."""
    id: str
    args: list
    exit: int
    says: tuple = ()
    files: dict = dataclasses.field(default_factory=dict)
    xfail: str | None = None


def r(id_, send, *expect, **kw):
    return RunnerCase(id="runner/" + id_, send=send if isinstance(send, list) else [send], expect=list(expect), **kw)


def err(*says, id_=None, **fields):
    """An error line (not tied to an eval)."""
    return {"op": "error", "id": id_, "status": "infra_error", "says": says, **fields}


def res(id_, *says, status="infra_error", **fields):
    """The result line of eval id_."""
    return {"op": "result", "id": id_, "status": status, "says": says, **fields}


def ev(id_="e1", task="silu", kernel=SILU_KERNEL, **fields):
    return {"op": "eval", "id": id_, "task": task, "kernel": kernel, "size": "small", **fields}


def bad(field, value, *says, id_="f1"):
    """An eval with one bad field: its result says 'bad eval request: ...' naming the field."""
    return r(f"field-{field}-{_slug(value)}", ev(id_, **{field: value}), res(id_, "bad eval request: ", *says))


def _slug(v) -> str:
    t = json.dumps(v)
    return "".join(ch if ch.isalnum() else "-" for ch in t).strip("-")[:24] or "empty"


def deep(n):
    return "[" * n + "]" * n


LOOP = ("import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n\n"
        "def kernel(x):\n    while True:\n        pass\n")

CASES = [
    # ----------------------------------------------------------------------------------- lines that are no message
    r("not-json", b"{not json", err("malformed JSON message")),
    r("two-objects-on-a-line", b'{"op":"hello"}{"op":"hello"}', err("malformed JSON message")),
    r("json-with-comment", b'{"op":"hello"} // hi', err("malformed JSON message")),
    r("single-quotes", b"{'op':'hello'}", err("malformed JSON message")),
    r("nan", b'{"op":"hello","x":NaN}', err("NaN is not a JSON number")),
    r("infinity", b'{"op":"hello","x":-Infinity}', err("-Infinity is not a JSON number")),
    r("float-overflow", b'{"op":"hello","x":1e999}', err("the number 1e999 is out of range")),
    r("int-overflow", b'{"op":"hello","x":-9223372036854775809}', err("out of range (integers must lie in "
                                                                         "[-2^63, 2^63))")),
    r("many-digits", b'{"op":"hello","x":' + b"1" * 6000 + b"}", err("(6000 digits) is out of range")),
    r("duplicate-key", b'{"op":"eval","op":"hello"}', err("the key 'op' appears twice")),
    r("array", b'[{"op":"hello"}]', err("a message must be a JSON object", "got a JSON array")),
    r("string", b'"hello"', err("got a JSON string")),
    r("number", b"7", err("got a JSON number")),
    r("null", b"null", err("got a JSON null")),
    r("true", b"true", err("got a JSON boolean")),
    r("not-utf8", b'{"op":"hello","who":"caf\xe9"}', err("not valid UTF-8 (byte 0xe9 at offset 24")),
    r("utf16", '{"op":"hello"}'.encode("utf-16-le"), err("malformed JSON message")),
    r("nested-deep", deep(500).encode(), err("nests arrays/objects 500 levels deep", "at most 64")),
    r("nested-deep-in-eval", b'{"op":"eval","id":"d1","kernel":"x","task":' + deep(300).encode() + b"}",
      res("d1", "levels deep")),
    r("blank-lines-are-ignored", [b"", b"   \t", b"\r"], ),
    r("crlf-line-end", b'{"op":"hello"}\r', {"op": "hello"}),
    r("byte-order-mark", b'\xef\xbb\xbf{"op":"hello"}', err("malformed JSON message")),

    # ----------------------------------------------------------------------------------- the op
    r("no-op", {}, err("the message has no 'op'", "hello, eval, port, task_check, cancel or shutdown")),
    r("op-null", {"op": None, "id": 3}, err("the message has no 'op'", id_=3)),
    r("op-number", {"op": 5}, err("'op' must be a string", "got 5")),
    r("op-array", {"op": ["eval"]}, err("'op' must be a string", 'got ["eval"]')),
    r("op-capitals", {"op": "HELLO", "id": "x"}, err("unknown op 'HELLO' (expected hello, eval, port, task_check, "
                                                     "cancel or shutdown)", id_="x")),
    r("op-unknown-id-object", {"op": "frob", "id": {"a": 1}}, err("unknown op 'frob'", id_=None)),
    r("eval-without-id", {"op": "eval", "task": "silu", "kernel": "x"},
      err("an eval needs an 'id' (a string or number that no queued or running eval has), got none")),
    r("eval-id-true", {"op": "eval", "id": True, "task": "silu", "kernel": "x"}, err("an eval needs an 'id'",
                                                                                      "got true")),
    r("eval-id-array", {"op": "eval", "id": [1], "task": "silu", "kernel": "x"}, err("got [1]")),
    r("port-without-id", {"op": "port", "task": "silu", "kernel": "x"}, err("a port needs an 'id'")),
    r("cancel-without-id", {"op": "cancel"}, err("a cancel needs the 'id' of the eval to cancel", "got none")),
    r("cancel-id-object", {"op": "cancel", "id": {"id": 1}}, err("a cancel needs the 'id'")),
    r("cancel-unknown", {"op": "cancel", "id": "nobody"}, err('cancel: no queued or running eval with id "nobody"',
                                                             id_="nobody")),
    r("cancel-true-is-not-1", [ev(1, kernel=LOOP, timeout_s=60), {"op": "cancel", "id": True},
                               {"op": "cancel", "id": 1}],
      err("a cancel needs the 'id'", "got true"), res(1, "cancelled by the client", cancelled=True)),
    r("cancel-1-0-is-1", [ev(2, kernel=LOOP, timeout_s=60), {"op": "cancel", "id": 2.0}],
      res(2, "cancelled by the client", cancelled=True)),
    r("cancel-string-is-not-number", [ev(3, kernel=LOOP, timeout_s=60), {"op": "cancel", "id": "3"},
                                      {"op": "cancel", "id": 3}],
      err('no queued or running eval with id "3"', id_="3"), res(3, "cancelled by the client", cancelled=True)),
    r("duplicate-pending-id", [ev("dup", kernel=LOOP, timeout_s=60), ev("dup"), {"op": "cancel", "id": "dup"}],
      err('an eval with id "dup" is already queued or running; this eval was not started', request_id="dup"),
      res("dup", "cancelled by the client", cancelled=True)),

    # ----------------------------------------------------------------------------------- the kernel
    r("kernel-missing", {"op": "eval", "id": "k1", "task": "silu"}, res("k1", "'kernel' must be the kernel's Python "
                                                                              "source text (a JSON string), got "
                                                                              "nothing")),
    r("kernel-number", ev("k2", kernel=42), res("k2", "got int")),
    r("kernel-list", ev("k3", kernel=["def kernel(x): pass"]), res("k3", "got list")),
    r("kernel-empty", ev("k4", kernel=""), res("k4", "the kernel is empty; send the NKI source")),
    r("kernel-blank", ev("k5", kernel="\n\n  \n"), res("k5", "the kernel is empty (only whitespace)")),
    r("kernel-nul", ev("k6", kernel="def kernel(x):\n    return x\0\n"), res("k6", "NUL character (line 2, column "
                                                                                  "13)")),
    r("kernel-surrogate", b'{"op":"eval","id":"k7","task":"silu","size":"small","kernel":"def kernel(x):\\n'
                          b'    return x # \\udc80\\n"}',
      res("k7", "not valid Unicode text: line 2 holds an unpaired surrogate (\\udc80)")),
    r("kernel-over-4mib", ev("k8", kernel="#" * (4 * 1024 * 1024 + 1)), res("k8", "the kernel is 4194305 bytes of "
                                                                                 "UTF-8 source, over the runner's "
                                                                                 "limit of 4194304 bytes (4 MiB)")),
    r("kernel-syntax", ev("k9", kernel="def kernel(x:\n"), res("k9", "line 1: syntax error", status="compile_error")),

    # ----------------------------------------------------------------------------------- the task
    r("task-missing", {"op": "eval", "id": "t1", "kernel": "x", "size": "small"},
      res("t1", "'task' must be an object (or a task name)")),
    r("task-array", ev("t2", task=["silu"]), res("t2", "'task' must be an object (or a task name)")),
    r("task-name-climbs", ev("t3", task="../silu"), res("t3", "bad task name '../silu'")),
    r("task-name-unknown", ev("t4", task="nosuch"), res("t4", "unknown task 'nosuch'", "known tasks: ", "silu")),
    r("task-object-empty", ev("t5", task={}), res("t5", "'task' needs 'name', 'dir', 'dataset' or an inline "
                                                        "'reference'")),
    r("task-dir-relative", ev("t6", task={"dir": "tasks/silu"}), res("t6", "task 'dir' must be an absolute path, got "
                                                                           "'tasks/silu'")),
    r("task-dir-missing", ev("t7", task={"dir": "{case}/nowhere"}), res("t7", "{case}/nowhere is neither a task "
                                                                              "folder (task.json) nor an NKIBench "
                                                                              "dataset")),
    r("task-dir-number", ev("t8", task={"dir": 5}), res("t8", "'dir' must be an absolute folder path (a string), got "
                                                              "the number 5")),
    r("task-dataset-missing", ev("t9", task={"dataset": "{case}/nodata", "name": "silu"}),
      res("t9", "dataset folder not found: {case}/nodata")),
    r("task-dataset-without-name", ev("t10", task={"dataset": "{case}/ds"}),
      res("t10", "a dataset task needs 'name' (the problem)"), files={"ds": Dir()}),
    r("task-inline-no-small", ev("t11", task={"name": "inl", "reference": "def forward(x):\n    return x\n",
                                              "parameters": {"N": 4}}),
      res("t11", "the eval's inline task: an eval of size \"small\" needs 'small_parameters'")),
    r("task-parameter-string", ev("t12", task={"name": "silu", "parameters": {"M": "big"}}),
      res("t12", "the eval's 'task': 'parameters.M' must be a finite number, got the string 'big'")),
    r("task-parameter-zero", ev("t13", task={"name": "silu", "parameters": {"M": 0}}),
      res("t13", "'M' is 0 at the small parameters")),
    r("task-rel-tol-override", ev("t14", task={"name": "silu", "rel_tol": 2}),
      res("t14", "the eval's 'task': 'rel_tol' must be a number in (0, 1)")),
    r("task-dtype-override", ev("t15", task={"name": "silu", "dtype": "int4"}), res("t15", "'dtype' must be one of")),
    r("task-impl-word", ev("t16", task={"dataset": "{case}", "name": "silu", "impl": "x"}),
      res("t16", "'impl' must be a whole number >= 0")),
    r("task-folder-bad-json", ev("t17", task={"dir": "{case}/t"}), res("t17", "{case}/t/task.json is not a valid "
                                                                              "task description"),
      files={"t": SeededTask(task_json="{")}),
    r("task-folder-json-fifo", ev("t18", task={"dir": "{case}/t"}), res("t18", "{case}/t/task.json is a named pipe "
                                                                              "(FIFO), not a regular file"),
      files={"t": SeededTask(files={"task.json": Fifo()})}),
    r("task-folder-rel-tol", ev("t19", task={"dir": "{case}/t"}),
      res("t19", "{case}/t/task.json: 'rel_tol' must be a number in (0, 1)"),
      files={"t": SeededTask(change=lambda tj: tj.update(rel_tol=[1]))}),
    r("task-folder-huge-json", ev("t20", task={"dir": "{case}/t"}), res("t20", "over the 16 MiB a task description "
                                                                              "may be"),
      files={"t": SeededTask(task_json=Big(16 * 1024 * 1024 + 1))}),

    # ----------------------------------------------------------------------------------- the eval's fields
    bad("timeout_s", -1, "'timeout_s' must be a number of seconds in [0.5, 604800], got -1"),
    bad("timeout_s", "60", "got '60'"),
    bad("timeout_s", False, "got False"),
    bad("timeout_s", 0.25, "got 0.25"),
    bad("seeds", [], "'seeds' must be a list of 1-64 integers in [0, 2^32)"),
    bad("seeds", [1.5], "'seeds' must be a list"),
    bad("seeds", [True], "got [True]"),
    bad("seeds", [2 ** 32], "got [4294967296]"),
    bad("seeds", list(range(65)), "'seeds' must be a list of 1-64 integers"),
    bad("seeds", "1,2", "'seeds' must be a list"),
    bad("num_seeds", 0, "'num_seeds' must be an integer in [1, 64], got 0"),
    bad("timing_only", "false", "'timing_only' must be true or false, got 'false'"),
    bad("timing_only", 1, "'timing_only' must be true or false, got 1"),
    bad("warmup", -1, "'warmup' must be an integer in [0, 10000]"),
    bad("iters", 0, "'iters' must be an integer in [1, 100000], got 0"),
    bad("iters", 2.5, "got 2.5"),
    bad("backend", "gpu", "'backend' must be one of sim, neuron"),
    bad("target", "trn9", "'target' must be one of trn1, trn2, trn3"),
    bad("size", "medium", "'size' must be \"full\" or \"small\", got 'medium'"),
    bad("memory_limit_mb", 100, "'memory_limit_mb' must be 0 (no limit) or at least 256"),
    bad("timeline_cap", 10 ** 7, "'timeline_cap' must be an integer in [0, 1000000]"),
    bad("rel_tol", "tight", "'rel_tol' must be a number in (0, 1), got 'tight'"),
    bad("rel_tol", 0, "'rel_tol' must be a number in (0, 1), got 0"),
    bad("roofline_compat", "paper", "'roofline_compat' must be one of"),
    bad("core", -1, "'core' must be an integer in [0, 4096], got -1"),
    bad("spread_tol", -1, "'spread_tol' must be a number in [0, 100], got -1"),
    bad("max_attempts", 0, "'max_attempts' must be an integer in [1, 100], got 0"),
    bad("cpu_limit_s", -1, "'cpu_limit_s' must be an integer in [1, 1073741824], got -1"),
    r("backend-neuron-unavailable", ev("n1", backend="neuron"), res("n1", "Neuron SDK not found on this host")),

    # ----------------------------------------------------------------------------------- port
    r("port-without-task", {"op": "port", "id": "p1", "kernel": "x"},
      {"op": "port_result", "id": "p1", "status": "error", "says": ("bad port request: 'task' is required",)}),
    r("port-backend-neuron", {"op": "port", "id": "p2", "task": "silu", "kernel": "x", "backend": "neuron"},
      {"op": "port_result", "id": "p2", "status": "error", "says": ("'backend' must be \"sim\"",)}),
    r("port-current-kernel", {"op": "port", "id": "p3", "task": "silu",
                              "kernel": "import nki\nimport nki.language as nl\n\ndef kernel(x):\n    return x\n"},
      {"op": "port_result", "id": "p3", "status": "error", "says": ("'kernel' is already written against the "
                                                                     "current API",)}),

    # ----------------------------------------------------------------------------------- over the line limit
    r("line-over-limit", b'{"op":"hello","pad":"' + b"x" * 20000 + b'"}', err("message of 20024 bytes exceeds the "
                                                                            "runner's limit of 10485 bytes"),
      server="small"),
    r("eval-over-limit-gets-its-result", b'{"op":"eval","id":"big1","kernel":"' + b"x" * 20000 + b'"}',
      res("big1", "exceeds the runner's limit"), server="small"),
]

CLI = [
    RunnerCli("runner/cli-no-command", [], 2, ("the following arguments are required: cmd",)),
    RunnerCli("runner/cli-unknown-command", ["frob"], 2, ("invalid choice: 'frob'",)),
    RunnerCli("runner/cli-eval-size", ["eval", "--task", "silu", "--size", "huge"], 2, ("argument --size: invalid "
                                                                                        "choice: 'huge'",)),
    RunnerCli("runner/cli-eval-timeout", ["eval", "--task", "silu", "--timeout", "nan"], 2,
              ("--timeout must be a number of seconds in [0.5, 604800], got nan",)),
    RunnerCli("runner/cli-eval-seeds", ["eval", "--task", "silu", "--seeds", "1;2"], 2,
              ("--seeds must be comma-separated whole numbers",)),
    RunnerCli("runner/cli-eval-unknown-task", ["eval", "--task", "nosuch"], 2, ("bad task: unknown task 'nosuch'",)),
    RunnerCli("runner/cli-eval-kernel-missing", ["eval", "--task", "silu", "--kernel", "{case}/none.py"], 2,
              ("cannot read the kernel {case}/none.py: No such file or directory",)),
    RunnerCli("runner/cli-eval-kernel-fifo", ["eval", "--task", "silu", "--kernel", "{case}/k.py"], 2,
              ("cannot read the kernel {case}/k.py: it is a named pipe (FIFO), not a regular file",),
              files={"k.py": Fifo()}),
    RunnerCli("runner/cli-eval-kernel-folder", ["eval", "--task", "silu", "--kernel", "{case}"], 2,
              ("cannot read the kernel {case}: it is a folder, not a regular file",)),
    RunnerCli("runner/cli-eval-kernel-latin1", ["eval", "--task", "silu", "--kernel", "{case}/k.py"], 2,
              ("is not valid UTF-8 text (line 2, byte 0xe9",), files={"k.py": b"x = 1\n# caf\xe9\n"}),
    RunnerCli("runner/cli-eval-job-fifo", ["eval", "--job", "{case}/job.json"], 2,
              ("cannot read the job {case}/job.json: it is a named pipe (FIFO)",), files={"job.json": Fifo()}),
    RunnerCli("runner/cli-eval-job-nan", ["eval", "--job", "{case}/job.json"], 2,
              ("the job {case}/job.json is not an eval request", "NaN is not a JSON number"),
              files={"job.json": b'{"id": "j", "task": "silu", "timeout_s": NaN}'}),
    RunnerCli("runner/cli-eval-api-with-kernel", ["eval", "--task", "silu", "--api", "current", "--kernel",
                                                  "{case}/k.py"], 2,
              ("--api picks the task's baseline; it cannot be combined with a kernel",),
              files={"k.py": b"def kernel(x):\n    return x\n"}),
    RunnerCli("runner/cli-serve-slots", ["serve", "--slots", "0"], 2, ("--slots must be at least 1",)),
    RunnerCli("runner/cli-serve-message-limit", ["serve", "--max-message-mib", "nan"], 2,
              ("--max-message-mib must be a number of MiB in [0.001, 1024], got nan",)),
    RunnerCli("runner/cli-serve-memory-limit", ["serve", "--memory-limit-mb", "64"], 2,
              ("--memory-limit-mb must be 0 (no limit) or at least 256",)),
    RunnerCli("runner/cli-serve-tasks-missing", ["serve", "--tasks", "{case}/none"], 2,
              ("--tasks {case}/none is not a folder",)),
    RunnerCli("runner/cli-probe-nkibench-wrong", ["probe", "--nkibench", "{case}"], 2,
              ("--nkibench {case} holds no nkisim/ folder",)),
    RunnerCli("runner/cli-port-kernel-fifo", ["port", "--task", "silu", "--kernel", "{case}/k.py"], 2,
              ("cannot read the kernel {case}/k.py: it is a named pipe (FIFO)",), files={"k.py": Fifo()}),
]
