"""The short task.json a user writes for their own kernel (nkibench/tasks/README.md, "User tasks"), turned into the
form the rest of the runner knows, in the serving process (no task code runs here):

  {"name": "row_softmax", "function": "row_softmax", "rel_tol": 2e-5,
   "inputs": [{"name": "x", "shape": [256, 2048], "small_shape": [64, 512], "dtype": "float32"}]}

When every input declares a concrete `shape`, `parameters`/`small_parameters` may be absent: each input's dimensions
become parameters (x_0, x_1, ...) and its `shape_expr` those names, so shape_expr, kernel_shape_expr and the
timing-only declared shapes keep working unchanged. A missing small_shape means small == full.
"""
from __future__ import annotations

import os

SHAPE_KEYS = ("shape", "small_shape")
ROOFLINE_SOURCES = {"flops": ("baseline trace", "pytorch flop counter", "formulas"),
                    "min_bytes": ("input and output sizes", "formulas")}


class UserTaskError(ValueError):
    pass


def _dims_ok(v) -> bool:
    return isinstance(v, list) and all(isinstance(e, int) and not isinstance(e, bool) and e >= 1 for e in v)


def validate(tj: dict, where: str, in_folder: bool) -> None:
    """The short format's fields: input shapes, function, reference file, the per-size roofline numbers and their
    sources. Raises UserTaskError naming the field, what it holds and what to do."""
    from .kernelfn import valid_name
    fn = tj.get("function")
    if "function" in tj and not valid_name(fn):
        raise UserTaskError(f"{where}: 'function' must be the kernel function's name (a Python identifier), got "
                            f"{fn!r}; or leave it out and decorate the kernel with @nki.jit")
    if in_folder and "reference" in tj:
        ref = tj["reference"]
        if not isinstance(ref, str) or not ref.endswith(".py") or os.sep in ref or ref.startswith("."):
            raise UserTaskError(f"{where}: 'reference' must be the file name of the reference in the task folder "
                                f"(e.g. \"reference.py\"), got {ref!r}")
    for i, d in enumerate(tj.get("inputs") or []):
        if not isinstance(d, dict):
            continue
        for k in SHAPE_KEYS:
            if k in d and not _dims_ok(d[k]):
                raise UserTaskError(f"{where}: inputs[{i}].{k} must be an array of whole numbers >= 1 (the "
                                    f"input's dimensions, e.g. [256, 2048]), got {d[k]!r}")
        if "small_shape" in d and "shape" not in d:
            raise UserTaskError(f"{where}: inputs[{i}] has 'small_shape' but no 'shape'; give the full-size "
                                f"'shape' too")
        if "shape" in d and "small_shape" in d and len(d["shape"]) != len(d["small_shape"]):
            raise UserTaskError(f"{where}: inputs[{i}].small_shape {d['small_shape']} has {len(d['small_shape'])} "
                                f"dimensions and shape {d['shape']} has {len(d['shape'])}; give both the same rank")
    src = tj.get("roofline_source")
    if "roofline_source" in tj:
        if not isinstance(src, dict):
            raise UserTaskError(f"{where}: 'roofline_source' must be an object {{\"flops\": ..., \"min_bytes\": "
                                f"...}}, got {src!r}")
        for k, v in src.items():
            if k not in ROOFLINE_SOURCES or v not in ROOFLINE_SOURCES[k]:
                allowed = "; ".join(f"{f}: " + " | ".join(f'"{s}"' for s in ss) for f, ss in ROOFLINE_SOURCES.items())
                raise UserTaskError(f"{where}: roofline_source.{k} = {v!r} is not a roofline source ({allowed})")


def declares_all_shapes(tj: dict) -> bool:
    ins = tj.get("inputs")
    return isinstance(ins, list) and bool(ins) and all(isinstance(d, dict) and "shape" in d for d in ins)


def _param_stem(d: dict, i: int) -> str:
    name = d.get("name")
    return name if isinstance(name, str) and name.isidentifier() else f"in{i}"


def expand(tj: dict) -> dict:
    """A copy of tj with parameters/small_parameters and shape_expr derived from the inputs' concrete shapes (only
    where the task does not give them itself)."""
    if not declares_all_shapes(tj):
        return tj
    tj = dict(tj)
    full, small, inputs = {}, {}, []
    for i, d in enumerate(tj["inputs"]):
        d = dict(d)
        stem = _param_stem(d, i)
        names = [f"{stem}_{j}" for j in range(len(d["shape"]))]
        for j, n in enumerate(names):
            full[n] = d["shape"][j]
            small[n] = (d.get("small_shape") or d["shape"])[j]
        d.setdefault("shape_expr", names)
        inputs.append(d)
    tj["inputs"] = inputs
    if "parameters" not in tj:
        tj["parameters"] = full
        tj["small_parameters"] = small
    return tj


def roofline_for_size(tj: dict, size: str) -> tuple:
    """(the roofline fields that hold at `size`, {field: source}). A formula holds at both sizes; a number in
    "roofline" is a full-size figure and one in "small_roofline" a small-size one, so a number measured at one size
    is never used at the other. Fields absent here are filled per eval (roofline_sources.py)."""
    full = tj.get("roofline") or {}
    small = tj.get("small_roofline") or {}
    given = tj.get("roofline_source") or {}
    out = {}
    for k in ("vector_flops", "matmul_flops", "min_bytes"):
        if size == "small" and k in small:
            out[k] = small[k]
        elif k in full and (size == "full" or isinstance(full[k], str)):
            out[k] = full[k]
    origin = {}
    if "vector_flops" in out or "matmul_flops" in out:
        origin["flops"] = given.get("flops") or "formulas"
    if "min_bytes" in out:
        origin["min_bytes"] = given.get("min_bytes") or "formulas"
    return out or None, origin
