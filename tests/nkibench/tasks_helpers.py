"""Helpers for the NKIBench task tests: load a task folder and run its baseline on nkisim.

A task has a baseline per NKI generation (API): baseline.py in the classic API (neuronxcc.nki) and
baseline_current.py in the current one (nki.*); `api` picks one."""
import importlib.util
import json
import os
import time

import numpy as np

import nkisim

TASKS_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "nkibench", "tasks"))
TASK_NAMES = ["swiglu", "matmul_add_rmsnorm", "add_rmsnorm_matmul", "matmul", "gqa_full", "rmsnorm_matmul",
              "rope_single_freq_apply", "bmm", "bmm_softmax", "transpose_matmul", "lora", "adamw", "silu", "mamba"]


BASELINE_FILES = {"classic": "baseline.py", "current": "baseline_current.py"}


def load_task(name, api="classic"):
    d = os.path.join(TASKS_DIR, name)
    with open(os.path.join(d, "task.json")) as f:
        meta = json.load(f)
    spec = importlib.util.spec_from_file_location(f"nkibench_task_{name}", os.path.join(d, "reference.py"))
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    path = os.path.join(d, BASELINE_FILES[api])
    with open(path) as f:
        src = f.read()
    return meta, ref, src, path


def eval_expr(expr, params):
    return eval(expr, {"__builtins__": {}}, dict(params))  # noqa: S307 - our own task files


def l2_rel(out, ref):
    out = np.asarray(out, np.float64)
    ref = np.asarray(ref, np.float64)
    return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


def run_baseline(name, seed, target="trn1", params_key="small_parameters", api="classic"):
    meta, ref, src, path = load_task(name, api)
    params = meta[params_key]
    inputs = ref.get_inputs(seed, params)
    expected = ref.forward(*inputs)
    expected = list(expected) if isinstance(expected, tuple) else [expected]
    kin = ref.transform_to_nki_inputs(inputs, params)
    fn = nkisim.load_kernel(src, filename=path)
    t0 = time.perf_counter()
    res = nkisim.run_kernel(fn, kin, target=target)
    wall = time.perf_counter() - t0
    outs = ref.transform_nki_outputs(res.outputs, params) if res.ok else None
    return meta, res, outs, expected, wall


def timing_inputs(kin):
    """Shape-only placeholders for the kernel arguments (scalars passed through)."""
    return [nkisim.typing.tensor[list(a.shape), nkisim.language.float32] if isinstance(a, np.ndarray) else a
            for a in kin]


def declared_inputs(meta, params):
    """Timing-only kernel arguments at params from task.json's kernel_shape_expr (a scalar input, which has no
    shape, is eps = 1e-5 in every shipped task)."""
    return [nkisim.typing.tensor[[eval_expr(e, params) for e in spec["kernel_shape_expr"]], nkisim.language.float32]
            if "kernel_shape_expr" in spec else 1e-5 for spec in meta["inputs"]]
