"""`accelopt task new` with a kernel, a reference or flags that are wrong (issue 31). A usage error (flags, a kernel
file without a kernel function) exits 2 before anything runs; a task whose check fails exits 1 naming the failed
check. Either way nothing is created: the harness checks that no file appears."""
from harness import Case

K = "{repo}/tests/fixtures/usertasks/cli/my_silu.py"
OK_REF = "{repo}/tests/fixtures/usertasks/cli/my_silu_ref.py"
SHAPE = ["--input", "x=128x2x512:float32"]


def c(id_, args, exit_, *says, **kw):
    return Case(id="usertask/" + id_, args=["task", "new", *args], exit=exit_, says=tuple(says), **kw)


def ref(id_, source, *says):
    """A reference that fails the task check."""
    return c(id_, ["t", "--kernel", K, "--reference", "{work}/r.py", *SHAPE, "--out", "{work}/tasks"], 1,
             "not created", *says, files={"work/r.py": source}, quiet_stdout=False)


CASES = [
    ref("reference-raises", "import numpy as np\n\ndef forward(x):\n    return x.reshape(-1, 7)[:, 9]\n",
        "line 4"),
    ref("reference-nan", "import numpy as np\n\ndef forward(x):\n    return x * np.float32('nan')\n", "NaN"),
    ref("reference-wrong-shape", "def forward(x):\n    return x[:, :1]\n", "output 0"),
    ref("reference-not-deterministic",
        "import os\nimport numpy as np\n\ndef forward(x):\n"
        "    return x + np.frombuffer(os.urandom(4), np.uint8)[0]\n", "different outputs for the same inputs"),
    ref("reference-without-forward", "def backward(x):\n    return x\n", "forward"),
    c("full-size-too-big", ["t", "--kernel", K, "--reference", OK_REF, "--input", "x=128x65536x65536",
                            "--small", "x=128x2x512", "--out", "{work}/tasks"], 1, "not created", "memory",
      quiet_stdout=False),
    c("name-of-a-shipped-task", ["silu", "--kernel", K, "--reference", OK_REF, *SHAPE, "--out", "{work}/tasks"], 1,
      "a task named 'silu' exists already", quiet_stdout=False),
    c("no-kernel-function", ["t", "--kernel", "{work}/k.py", "--reference", OK_REF, *SHAPE], 2,
      "no @nki.jit function", files={"work/k.py": "def a(x):\n    pass\n\ndef b(x):\n    pass\n"}),
    c("several-jit-functions", ["t", "--kernel", "{work}/k.py", "--reference", OK_REF, *SHAPE], 2,
      "several @nki.jit functions (a, b)", "--function",
      files={"work/k.py": "@nki.jit\ndef a(x):\n    pass\n\n@nki.jit\ndef b(x):\n    pass\n"}),
    c("function-not-there", ["t", "--kernel", K, "--reference", OK_REF, *SHAPE, "--function", "nope"], 2,
      "no function named 'nope'", "my_silu"),
    c("bad-name", ["../up", "--kernel", K, "--reference", OK_REF, *SHAPE], 2, "cannot name a task"),
    c("bad-input-spec", ["t", "--kernel", K, "--reference", OK_REF, "--input", "x=128xx2"], 2,
      "'128xx2' is not a shape"),
    c("bad-dtype", ["t", "--kernel", K, "--reference", OK_REF, "--input", "x=4x4:float128"], 2, "unknown dtype"),
    c("small-of-no-input", ["t", "--kernel", K, "--reference", OK_REF, *SHAPE, "--small", "y=4x4"], 2,
      "no --input named y"),
    c("small-rank-differs", ["t", "--kernel", K, "--reference", OK_REF, *SHAPE, "--small", "x=4"], 2,
      "1 dimensions"),
    c("rel-tol-out-of-range", ["t", "--kernel", K, "--reference", OK_REF, *SHAPE, "--rel-tol", "2"], 2,
      "--rel-tol takes a number in (0, 1)"),
    c("no-reference", ["t", "--kernel", K, *SHAPE], 2, "--reference R.py are both required"),
    c("reference-missing", ["t", "--kernel", K, "--reference", "{work}/none.py", *SHAPE], 2, "--reference:"),
    c("out-and-user", ["t", "--kernel", K, "--reference", OK_REF, *SHAPE, "--out", "{work}", "--user"], 2,
      "give one"),
    c("shape-not-stated", ["t", "--kernel", K, "--reference", OK_REF], 2, "does not state the shape of 'x'"),
    Case(id="usertask/check-not-a-task", args=["task", "check", "{work}"], exit=2, says=("holds no task.json",)),
    Case(id="usertask/unknown-subcommand", args=["task", "frob"], exit=2, says=("unknown subcommand 'frob'",)),
    Case(id="usertask/tasks-unknown-subcommand", args=["tasks", "show"], exit=2, says=("unknown subcommand",)),
]
