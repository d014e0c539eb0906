"""Roofline peak latency per target (accelopt-method §5.4): t_peak = max(vector_flops / PEAK_VEC,
matmul_flops / PEAK_MM, min_bytes / PEAK_BW), bound = the arg-max, percent_of_peak = 100 * t_peak / latency.

percent_of_peak is a PERCENT (0-100), unlike neuron-profile's `*_percent` metrics, which are fractions 0-1.

Constants (per NeuronCore, fp32 unless noted):

trn1 (NeuronCore-v2), the original's constants (accelopt-method §5.4):
  PEAK_VEC = 2 engines x 128 lanes x 1.12 GHz = 286.72 GFLOP/s
  PEAK_MM  = 23.75 TFLOP/s fp32 (x4 = 95 TFLOP/s for bf16/fp16/tf32 tasks)
  PEAK_BW  = 410 GB/s = 410e9 B/s.  The GiB/GB pitfall: the original script uses 410 * 1024**3 B/s (440 GB/s).
             We use 410e9 B/s: it is what the profiler's MBU ratio implies (nki-facts §5.3), the per-core share of
             the documented 820 GB/s device (nki-facts §3.1) and nkisim's HBM figure, so a kernel that saturates
             HBM reaches ~100 % rather than ~93 %. Our memory-bound percentages are therefore 7.4 % higher than the
             paper's for the same latency; pass "roofline_compat": "accelopt" in an eval to use the original GiB figure.

trn2 (NeuronCore-v3, one physical core; the original has no trn2 constants), chosen from nki-facts §3.1:
  PEAK_VEC = 2 x 128 x 0.96 GHz = 245.76 GFLOP/s  (the original's formula with the trn2 VectorE clock; fp32 gets no
             VectorE perf mode, §3.3)
  PEAK_MM  = 20 TFLOP/s fp32 (the documented dense FP32 per-core figure; = 78.6 TFLOP/s / 4, §3.1/§3.2), and
             79 TFLOP/s for bf16/fp16/tf32 tasks
  PEAK_BW  = 368 GB/s: the per-core DMA aggregate (16 engines x 23 B/ns, DMA bandwidth guide), which is what one
             core can pull alone from its HBM stack (725-750 GB/s per stack shared by two cores) and the cap nkisim
             applies; 2.9 TB/s / 8 cores = 362.5 GB/s is within 2 %.

trn3 (NeuronCore-v4, one physical core), from AWS's Trainium3 pages (Trainium3 Architecture Guide for NKI; NKI DMA
bandwidth guide), as nkisim's perf/constants.py:
  PEAK_VEC = 2 x 128 x 1.2 GHz = 307.2 GFLOP/s  (the same formula with the NC-v4 VectorE/ScalarE clock, 1.2 GHz)
  PEAK_MM  = 20 TFLOP/s fp32 and 79 TFLOP/s for bf16/fp16/tf32 (the guide's per-core TensorE figures, unchanged
             from NC-v3; MXFP8/MXFP4 reach 315 TFLOP/s, which no NKIBench task uses)
  PEAK_BW  = 528 GB/s: the per-core DMA aggregate (16 engines x 33 B/ns), below the core's HBM share (4.7 TB/s / 8 =
             587.5 GB/s; the device page says 4.9 TB/s)
"""
from __future__ import annotations

import ast
import math

GB = 1e9
GIB = 1024 ** 3

CONSTANTS = {
    "trn1": {"vector_flops_per_s": 2 * 128 * 1.12e9, "matmul_flops_per_s": {"fp32": 23.75e12, "bf16": 95e12},
             "bytes_per_s": 410 * GB},
    "trn2": {"vector_flops_per_s": 2 * 128 * 0.96e9, "matmul_flops_per_s": {"fp32": 20e12, "bf16": 79e12},
             "bytes_per_s": 368 * GB},
    "trn3": {"vector_flops_per_s": 2 * 128 * 1.2e9, "matmul_flops_per_s": {"fp32": 20e12, "bf16": 79e12},
             "bytes_per_s": 528 * GB},
}
ACCELOPT_TRN1_BYTES_PER_S = 410 * GIB  # the original script's figure (see the module docstring)
# roofline_compat: "" (or "none") ours; "accelopt" the original's peak constants, for comparing with the paper.
COMPAT_MODES = ("", "none", "accelopt")
COMPAT_ENV = "ACCELOPT_ROOFLINE_COMPAT"


def host_compat(option=None) -> str:
    """The host's roofline_compat: the --roofline-compat option, else $ACCELOPT_ROOFLINE_COMPAT, else ours ("").
    A workbench host sets it like the memory limit: `accelopt hosts add NAME --local --env
    ACCELOPT_ROOFLINE_COMPAT=accelopt`. Raises ValueError naming the variable for a bad value."""
    import os
    v = option if option is not None else os.environ.get(COMPAT_ENV, "")
    if v not in COMPAT_MODES:
        raise ValueError(f"{COMPAT_ENV}={v!r} is not a roofline_compat mode (expected \"accelopt\" or \"none\")")
    return "" if v == "none" else v

_FUNCS = {"min": min, "max": max, "ceil": math.ceil, "floor": math.floor, "sqrt": math.sqrt, "log2": math.log2,
          "abs": abs, "int": int, "float": float}
_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
           ast.Pow: lambda a, b: a ** b}


class ExprError(ValueError):
    pass


def eval_expr(expr, params: dict) -> float:
    """Evaluate a roofline expression (a Python arithmetic expression over parameter names) without eval()."""
    if isinstance(expr, (int, float)):
        return float(expr)
    if not isinstance(expr, str):
        raise ExprError(f"expected an expression string, got {type(expr).__name__}")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as e:
        raise ExprError(f"bad roofline expression {expr!r}: {e.msg}") from None

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            return n.value
        if isinstance(n, ast.Name):
            if n.id in params:
                v = params[n.id]
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise ExprError(f"parameter {n.id!r} is not a number")
                return v
            if n.id in ("pi", "e"):
                return getattr(math, n.id)
            raise ExprError(f"unknown name {n.id!r} in roofline expression {expr!r}")
        if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
            return _BINOPS[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCS and not n.keywords:
            return _FUNCS[n.func.id](*[ev(a) for a in n.args])
        raise ExprError(f"unsupported construct in roofline expression {expr!r}")

    return float(ev(tree))


def _precision(dtype: str) -> str:
    d = (dtype or "float32").lower()
    return "bf16" if d in ("bfloat16", "float16", "fp16", "bf16", "tfloat32") else "fp32"


def peak(roofline: dict, params: dict, target: str, dtype: str = "float32", compat: str = "") -> dict:
    """{"peak_ms", "bound", "t_vector_ms", "t_matmul_ms", "t_memory_ms"} for a task's roofline formulas."""
    c = CONSTANTS.get(target)
    if c is None:
        raise ExprError(f"no roofline constants for target {target!r}")
    vec = eval_expr(roofline.get("vector_flops", 0) or 0, params)
    mm = eval_expr(roofline.get("matmul_flops", 0) or 0, params)
    nbytes = eval_expr(roofline.get("min_bytes", 0) or 0, params)
    bw = ACCELOPT_TRN1_BYTES_PER_S if (compat == "accelopt" and target == "trn1") else c["bytes_per_s"]
    times = {"vector": vec / c["vector_flops_per_s"], "matmul": mm / c["matmul_flops_per_s"][_precision(dtype)],
             "memory": nbytes / bw}
    bound = max(times, key=lambda k: times[k])
    # The compute roof a roofline chart draws: the engine that does most of the task's arithmetic.
    compute_peak = c["matmul_flops_per_s"][_precision(dtype)] if mm >= vec else c["vector_flops_per_s"]
    return {"peak_ms": times[bound] * 1e3, "bound": bound, "t_vector_ms": times["vector"] * 1e3,
            "t_matmul_ms": times["matmul"] * 1e3, "t_memory_ms": times["memory"] * 1e3,
            "flops": vec + mm, "vector_flops": vec, "matmul_flops": mm, "min_bytes": nbytes,
            "peak_flops_per_s": compute_peak, "bytes_per_s": bw}


def roofline_result(roofline: dict | None, params: dict, target: str, latency_ms: float | None,
                    dtype: str = "float32", compat: str = "") -> dict | None:
    """The result's "roofline" object, or None when the task has no roofline formulas."""
    if not roofline:
        return None
    p = peak(roofline, params, target, dtype, compat)
    pct = None
    if latency_ms and latency_ms > 0 and p["peak_ms"] > 0:
        pct = 100.0 * p["peak_ms"] / latency_ms
    return {"peak_ms": p["peak_ms"], "bound": p["bound"], "percent_of_peak": pct, "flops": p["flops"],
            "vector_flops": p["vector_flops"], "matmul_flops": p["matmul_flops"], "min_bytes": p["min_bytes"],
            "peak_flops_per_s": p["peak_flops_per_s"], "bytes_per_s": p["bytes_per_s"]}
