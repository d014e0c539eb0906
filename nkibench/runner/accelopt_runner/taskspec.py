"""Task resolution (in the serving process; cheap, no task code runs) and task loading (in the eval's child).

An eval's "task" field may be:
  {"name": "silu"}                          a task folder under the tasks dir (nkibench/tasks/, or --tasks)
  {"dir": "/abs/tasks/silu"}                a task folder (task.json, reference.py, baseline.py)
  {"dir": "/abs/NKIBench", "name": "silu"}  a problem of an original NKIBench dataset (summary.json, reference/,
  {"dataset": "/abs/NKIBench", "name": "silu", "case": "2"}   kernels/); "case" picks a case (default: the first)
  {"name": "add", "reference": "<python source>", "parameters": {...}, "small_parameters": {...},
   "rel_tol": 1e-5, "dtype": "float32", "roofline": {...}}   an inline task (the reference source in the message)
  "silu"                                    shorthand for {"name": "silu"}
Any form may also carry "parameters" (merged over the task's), "rel_tol", "dtype" and "roofline" overrides.
The eval's "size": "full" (default) uses task.json "parameters", "small" uses "small_parameters".
"""
from __future__ import annotations

import importlib.util
import inspect
import itertools
import json
import os
import sys

import numpy as np

from . import dataset, roofline

DEFAULT_REL_TOL = 2e-5
_count = itertools.count()


class TaskError(ValueError):
    pass


def _read_task_json(d: str) -> dict:
    p = os.path.join(d, "task.json")
    try:
        with open(p, encoding="utf-8") as f:
            tj = json.load(f)
    except OSError as e:
        raise TaskError(f"cannot read {p}: {e.strerror}") from None
    except ValueError as e:
        raise TaskError(f"{p} is not valid JSON: {e}") from None
    if not isinstance(tj, dict):
        raise TaskError(f"{p} must hold a JSON object")
    return tj


def _folder_spec(d: str, size: str) -> dict:
    d = os.path.abspath(d)
    tj = _read_task_json(d)
    ref = os.path.join(d, "reference.py")
    if not os.path.isfile(ref):
        raise TaskError(f"task folder {d} has no reference.py")
    params = tj.get("parameters") or {}
    if size == "small" and isinstance(tj.get("small_parameters"), dict):
        params = tj["small_parameters"]
    base = os.path.join(d, "baseline.py")
    spec = {"kind": "folder", "name": tj.get("name") or os.path.basename(d), "dir": d, "reference_path": ref,
            "baseline_path": base if os.path.isfile(base) else None, "params": dict(params),
            "dtype": tj.get("dtype") or "float32", "rel_tol": tj.get("rel_tol") or DEFAULT_REL_TOL,
            "roofline": tj.get("roofline")}
    # Declared argument shapes let a timing-only eval skip building full-size inputs (LoadedTask.nki_input_shapes).
    if isinstance(tj.get("inputs"), list) and isinstance(tj.get("small_parameters"), dict):
        spec["inputs"] = tj["inputs"]
        spec["small_params"] = dict(tj["small_parameters"])
    return spec


def resolve(task, size: str = "full", tasks_dir: str | None = None) -> dict:
    """Turn an eval's task field into a spec dict (JSON-serialisable) for the child. Raises TaskError."""
    if isinstance(task, str):
        task = {"name": task}
    if not isinstance(task, dict):
        raise TaskError("'task' must be an object (or a task name)")
    if size not in ("full", "small"):
        raise TaskError(f"'size' must be \"full\" or \"small\", got {size!r}")
    name = task.get("name")
    try:
        if task.get("dataset"):
            if not name:
                raise TaskError("a dataset task needs 'name' (the problem)")
            spec = dataset.resolve(str(task["dataset"]), str(name), task.get("case"), int(task.get("impl", 0)),
                                   tasks_dir)
        elif isinstance(task.get("reference"), str) and ("\n" in task["reference"] or "def " in task["reference"]):
            params = task.get("parameters") or {}
            if size == "small" and isinstance(task.get("small_parameters"), dict):
                params = task["small_parameters"]
            spec = {"kind": "inline", "name": name or "inline", "reference_source": task["reference"],
                    "baseline_path": None, "params": dict(params), "dtype": task.get("dtype") or "float32",
                    "rel_tol": task.get("rel_tol") or DEFAULT_REL_TOL, "roofline": task.get("roofline")}
            task = {k: v for k, v in task.items() if k != "parameters"}
        elif task.get("dir"):
            d = str(task["dir"])
            if not os.path.isabs(d):
                raise TaskError(f"task 'dir' must be an absolute path, got {d!r}")
            if os.path.isfile(os.path.join(d, "task.json")):
                spec = _folder_spec(d, size)
            elif os.path.isfile(os.path.join(d, "summary.json")) or os.path.isdir(os.path.join(d, "reference")):
                if not name:
                    raise TaskError(f"{d} is an NKIBench dataset; give the problem as 'name'")
                spec = dataset.resolve(d, str(name), task.get("case"), int(task.get("impl", 0)), tasks_dir)
            else:
                raise TaskError(f"{d} is neither a task folder (task.json) nor an NKIBench dataset (summary.json)")
        elif name:
            if not isinstance(name, str) or "/" in name or name.startswith(".") or not name.strip():
                raise TaskError(f"bad task name {name!r}")
            tdir = tasks_dir or ""
            d = os.path.join(tdir, name)
            if not os.path.isfile(os.path.join(d, "task.json")):
                known = sorted(n for n in (os.listdir(tdir) if os.path.isdir(tdir) else [])
                               if os.path.isfile(os.path.join(tdir, n, "task.json")))
                raise TaskError(f"unknown task {name!r} (no {d}/task.json; known tasks: "
                                f"{', '.join(known) or 'none'})")
            spec = _folder_spec(d, size)
        else:
            raise TaskError("'task' needs 'name', 'dir', 'dataset' or an inline 'reference'")
    except dataset.DatasetError as e:
        raise TaskError(str(e)) from None
    if isinstance(task.get("parameters"), dict):
        spec["params"].update(task["parameters"])
    for k in ("rel_tol", "dtype", "roofline"):
        if task.get(k) is not None and spec["kind"] != "inline":
            spec[k] = task[k]
    spec["size"] = size
    return spec


def list_tasks(tasks_dir: str) -> list:
    if not tasks_dir or not os.path.isdir(tasks_dir):
        return []
    return sorted(n for n in os.listdir(tasks_dir) if os.path.isfile(os.path.join(tasks_dir, n, "task.json")))


# ---------------------------------------------------------------- child side: load and call the task module


def _npos(fn) -> list:
    try:
        ps = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _as_list(x) -> list:
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


class LoadedTask:
    """A task's reference module, called with either our signatures (seed/params) or the original's (none)."""

    def __init__(self, spec: dict, workdir: str):
        self.spec = spec
        self.params = dict(spec.get("params") or {})
        path = spec.get("reference_path")
        if spec.get("kind") == "inline":
            path = os.path.join(workdir, "reference.py")
            with open(path, "w", encoding="utf-8") as f:
                f.write(spec["reference_source"])
        modname = f"accelopt_task_{next(_count)}"
        d = os.path.dirname(path)
        if d not in sys.path:
            sys.path.append(d)  # like the original: the reference may import siblings
        sp = importlib.util.spec_from_file_location(modname, path)
        if sp is None or sp.loader is None:
            raise TaskError(f"cannot load the task reference {path}")
        mod = importlib.util.module_from_spec(sp)
        sys.modules[modname] = mod
        sp.loader.exec_module(mod)
        for fn in ("get_inputs", "forward"):
            if not callable(getattr(mod, fn, None)):
                raise TaskError(f"the task reference {path} defines no {fn}()")
        self.mod = mod

    def get_inputs(self, seed: int, params: dict | None = None) -> list:
        params = self.params if params is None else params
        np.random.seed(seed & 0xFFFFFFFF)  # the original seeds numpy's global generator, then calls get_inputs()
        fn = self.mod.get_inputs
        ps = _npos(fn)
        if not ps:
            out = fn()
        elif len(ps) == 1:
            out = fn(params) if ps[0].name in ("params", "parameters", "p", "cfg", "config", "shapes") \
                else fn(seed)
        else:
            out = fn(seed, params)
        return _as_list(out)

    def forward(self, inputs: list) -> list:
        return [np.asarray(o) if not isinstance(o, np.ndarray) else o for o in _as_list(self.mod.forward(*inputs))]

    def to_nki(self, inputs: list, params: dict | None = None) -> list:
        fn = getattr(self.mod, "transform_to_nki_inputs", None)
        if fn is None:
            return list(inputs)
        return _as_list(fn(inputs) if len(_npos(fn)) < 2 else fn(inputs, self.params if params is None else params))

    def nki_input_shapes(self, seed: int) -> list | None:
        """[(shape, numpy dtype)] of the kernel's arguments as task.json declares them ("kernel_shape_expr", or
        "shape_expr" when the reference has no transform_to_nki_inputs), or None when it does not declare them
        all. A timing-only eval needs no more than that, and building full-size inputs took longer than timing
        (matmul: 2.4 s against 1.0 s). The declaration is trusted only if, at the small parameters, it gives the
        shapes and dtypes the reference really builds; a mismatch means None, and the eval builds the inputs."""
        decl, small = self.spec.get("inputs"), self.spec.get("small_params")
        if not isinstance(decl, list) or not decl or not isinstance(small, dict):
            return None
        relaid = callable(getattr(self.mod, "transform_to_nki_inputs", None))
        try:
            want = _declared_shapes(decl, self.params, relaid, self.spec.get("dtype"))
            check = _declared_shapes(decl, small, relaid, self.spec.get("dtype"))
            if want is None or check is None:
                return None
            real = self.to_nki(self.get_inputs(seed, small), small)
        except Exception:  # noqa: BLE001 - a reference that fails here fails again, with its message, on the full path
            return None
        if len(real) != len(check) or any(not isinstance(a, np.ndarray) or (a.shape, a.dtype) != c
                                          for a, c in zip(real, check)):
            return None
        return want

    def from_nki(self, kernel_result, ref: list) -> list:
        """kernel_result as nki.baremetal returns it: one array, or a tuple for several outputs.

        Our contract, transform_nki_outputs(outputs, params), gets the outputs as a list; the original's,
        transform_nki_outputs(kernel_result, ref), gets kernel_result as the kernel returned it."""
        fn = getattr(self.mod, "transform_nki_outputs", None)
        as_list = _as_list(kernel_result)
        if fn is None:
            return as_list
        ps = _npos(fn)
        if len(ps) >= 2 and ps[1].name in ("ref", "reference", "expected", "ref_out", "reference_outputs",
                                           "golden", "ref_output", "reference_output"):
            return _as_list(fn(kernel_result, ref[0] if len(ref) == 1 else ref))
        if len(ps) < 2:
            return _as_list(fn(kernel_result if self.spec.get("kind") == "dataset" else as_list))
        return _as_list(fn(as_list, self.params))


def _declared_shapes(decl: list, params: dict, relaid: bool, task_dtype) -> list | None:
    """[(shape, numpy dtype)] from task.json's input declarations at params, or None if one is missing."""
    out = []
    for d in decl:
        if not isinstance(d, dict):
            return None
        expr = d.get("kernel_shape_expr") if relaid else (d.get("kernel_shape_expr") or d.get("shape_expr"))
        if not isinstance(expr, list):
            return None
        dims = [roofline.eval_expr(e, params) for e in expr]
        if any(x != int(x) or x < 0 for x in dims):
            return None
        out.append((tuple(int(x) for x in dims), np.dtype(d.get("dtype") or task_dtype or "float32")))
    return out
