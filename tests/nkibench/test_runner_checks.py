"""Static checks on kernel source (accelopt_runner.checks): unit tests."""
import sys

import pytest

from runner_helpers import ADD_KERNEL, KERNEL_HEAD, RUNNER_DIR

sys.path.insert(0, str(RUNNER_DIR))
from accelopt_runner import checks, roofline  # noqa: E402


def kinds(src, dtype="float32"):
    return [(f.line, f.kind) for f in checks.check_kernel(src, dtype)]


def test_clean_kernel_passes():
    assert checks.check_kernel(ADD_KERNEL, "float32") == []


@pytest.mark.parametrize("snippet", [
    "import os", "import subprocess", "import socket", "from os import path", "import ctypes",
    "import importlib", "import pickle", "import threading", "from numpy.random import seed", "import sys",
    "from . import x",
])
def test_forbidden_imports(snippet):
    found = checks.check_kernel(KERNEL_HEAD + snippet + "\n", "float32")
    assert found and found[0].line == 6, found


@pytest.mark.parametrize("line", [
    "open('/etc/passwd')", "eval('1')", "exec('x=1')", "compile('1', 'f', 'eval')", "__import__('os')",
    "globals()", "setattr(nl, 'load', None)", "np.random.seed(0)", "np.seterr(all='ignore')",
    "np.set_printoptions(precision=1)", "x = ().__class__.__bases__[0].__subclasses__()", "f.__globals__",
    "getattr(nl, name)", "getattr(nl, '__dict__')", "nl.load = None", "np.load('x.npy')", "breakpoint()",
    "__builtins__['open']", "np.ctypeslib", "vars()",
])
def test_forbidden_calls_and_attributes(line):
    found = checks.check_kernel(KERNEL_HEAD + "def kernel(a):\n    " + line + "\n", "float32")
    assert found, line
    assert all(f.line == 7 for f in found), found


def test_precision_downgrade_heuristic():
    src = KERNEL_HEAD + "def kernel(a):\n    t = nl.ndarray((128, 128), dtype=nl.bfloat16)\n    return t\n"
    found = checks.check_kernel(src, "float32")
    assert [(f.line, f.kind) for f in found] == [(7, "precision")]
    assert "bfloat16" in found[0].message
    assert checks.check_kernel(src, "bfloat16") == []  # not a downgrade for a bf16 task
    for tok in ("np.float16", "nl.tfloat32", "nl.float8_e4m3", "'bfloat16'"):
        assert kinds(KERNEL_HEAD + f"def kernel(a):\n    x = {tok}\n") == [(7, "precision")], tok
    # docstrings and comments may mention dtypes
    doc = KERNEL_HEAD + 'def kernel(a):\n    """no bfloat16 here"""\n    # nl.bfloat16\n    return a\n'
    assert checks.check_kernel(doc, "float32") == []


def test_main_guard_skipped_and_name_assignment_rejected():
    src = KERNEL_HEAD + "def kernel(a):\n    return a\n\nif __name__ == '__main__':\n    import os\n"
    assert checks.check_kernel(src, "float32") == []
    assert checks.check_kernel("__name__ = '__main__'\n", "float32")


def test_parameter_named_input_is_fine():
    assert checks.check_kernel(KERNEL_HEAD + "def kernel(input):\n    return nl.load(input)\n", "float32") == []


def test_format_findings_names_lines():
    found = checks.check_kernel("import os\nimport sys\n", "float32")
    msg = checks.format_findings(found)
    assert "line 1" in msg and "line 2" in msg


def test_roofline_constants_and_expressions():
    r = roofline.peak({"vector_flops": "3*M*N", "matmul_flops": "0", "min_bytes": "4*2*M*N"},
                      {"M": 4096, "N": 7168}, "trn1")
    assert r["bound"] == "memory"
    assert abs(r["peak_ms"] - 4 * 2 * 4096 * 7168 / 410e9 * 1e3) < 1e-9
    r_compat = roofline.peak({"min_bytes": "4*2*M*N"}, {"M": 4096, "N": 7168}, "trn1", compat="accelopt")
    assert abs(r_compat["peak_ms"] - 4 * 2 * 4096 * 7168 / (410 * 1024 ** 3) * 1e3) < 1e-9
    mm = roofline.peak({"vector_flops": "0", "matmul_flops": "2*M*N*K", "min_bytes": "4*(M*N+N*K+M*K)"},
                       {"M": 4096, "N": 12288, "K": 5120}, "trn2")
    assert mm["bound"] == "matmul" and abs(mm["peak_ms"] - 2 * 4096 * 12288 * 5120 / 20e12 * 1e3) < 1e-6
    mem3 = roofline.peak({"min_bytes": "4*2*M*N"}, {"M": 4096, "N": 7168}, "trn3")
    assert mem3["bound"] == "memory" and abs(mem3["peak_ms"] - 4 * 2 * 4096 * 7168 / 528e9 * 1e3) < 1e-9
    vec3 = roofline.peak({"vector_flops": "N", "min_bytes": "0"}, {"N": 307200}, "trn3")
    assert vec3["bound"] == "vector" and abs(vec3["peak_ms"] - 1e-3) < 1e-12
    with pytest.raises(roofline.ExprError):
        roofline.peak({"min_bytes": "1"}, {}, "trn4")
    res = roofline.roofline_result({"vector_flops": "N"}, {"N": 286720}, "trn1", latency_ms=0.002)
    assert res["bound"] == "vector" and abs(res["percent_of_peak"] - 50.0) < 1e-6
    with pytest.raises(roofline.ExprError):
        roofline.eval_expr("__import__('os')", {})
    with pytest.raises(roofline.ExprError):
        roofline.eval_expr("M*Q", {"M": 1})
