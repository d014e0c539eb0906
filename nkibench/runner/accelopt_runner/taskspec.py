"""Task resolution (in the serving process; cheap, no task code runs) and task loading (in the eval's child).

An eval's "task" field may be:
  {"name": "silu"}                          a task folder under the tasks dir (nkibench/tasks/, or --tasks)
  {"dir": "/abs/tasks/silu"}                a task folder (task.json, reference.py, baseline.py and optionally
                                            baseline_current.py)
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

from . import dataset, roofline, usertask

DEFAULT_REL_TOL = 2e-5
_count = itertools.count()


class TaskError(ValueError):
    pass


# The dtypes a task may declare (its precision: checks.py rejects narrower floats in a kernel; the roofline picks
# the matmul peak by it).
TASK_DTYPES = ("float32", "bfloat16", "float16")
ROOFLINE_FIELDS = ("vector_flops", "matmul_flops", "min_bytes")
SHAPE_FIELDS = ("shape_expr", "kernel_shape_expr")
# A task folder's baseline kernel per NKI generation ("api"): the classic API (neuronxcc.nki, what NKIBench and the
# AccelOpt paper use) and the current one (nki.*, Neuron SDK 2.27 on). The classic baseline is the default.
BASELINE_FILES = {"classic": "baseline.py", "current": "baseline_current.py"}
APIS = tuple(BASELINE_FILES)


def _json_type(v) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return f"the number {v!r}"
    if isinstance(v, str):
        return f"the string {v[:40]!r}"
    return {list: "an array", dict: "an object", type(None): "null"}.get(type(v), type(v).__name__)


def _finite_number(v) -> bool:
    import math
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def validate_task(tj: dict, where: str, *, fields=None, in_folder: bool = False) -> None:
    """Check the fields of a task description (task.json, an inline task or an eval's task overrides) before anything
    runs. Raises TaskError naming where, the field, what it holds and what it should hold. fields: only these
    (overrides); None: all of them. in_folder: a task.json ('reference' names a file there)."""
    def bad(field, want, got=None, hint=""):
        shown = "" if got is _MISSING else f", got {_json_type(got)}"
        raise TaskError(f"{where}: '{field}' must be {want}{shown}" + (f"; {hint}" if hint else ""))

    def present(k):
        return k in tj and (fields is None or k in fields)

    if present("name") and (not isinstance(tj["name"], str) or not tj["name"].strip()):
        bad("name", "a non-empty string", tj["name"])
    if present("description") and not isinstance(tj["description"], str):
        bad("description", "a string", tj["description"])
    for k in ("parameters", "small_parameters"):
        if not present(k):
            continue
        ps = tj[k]
        if not isinstance(ps, dict):
            bad(k, "an object mapping parameter names to numbers", ps)
        for name, v in ps.items():
            if not _finite_number(v):
                bad(f"{k}.{name}", "a finite number", v)
    if present("rel_tol"):
        v = tj["rel_tol"]
        if not _finite_number(v) or not 0 < v < 1:
            bad("rel_tol", "a number in (0, 1): the allowed L2 relative error ||k-r|| / ||r||", v,
                "the shipped tasks use 2e-05")
    if present("atol"):
        bad("atol", "absent", tj["atol"], "the runner checks only the L2 relative error; set 'rel_tol' instead")
    if present("dtype") and tj["dtype"] not in TASK_DTYPES:
        bad("dtype", "one of " + ", ".join(f'"{d}"' for d in TASK_DTYPES), tj["dtype"])
    for k in ("inputs", "outputs"):
        if not present(k):
            continue
        decl = tj[k]
        if not isinstance(decl, list):
            bad(k, "an array of objects ({\"name\", \"shape_expr\", \"kernel_shape_expr\", \"dtype\"})", decl)
        for i, d in enumerate(decl):
            at = f"{k}[{i}]"
            if not isinstance(d, dict):
                bad(at, "an object", d)
            if "name" in d and not isinstance(d["name"], str):
                bad(f"{at}.name", "a string", d["name"])
            for sk in SHAPE_FIELDS:
                if sk in d and (not isinstance(d[sk], list) or
                                not all(isinstance(e, str) or (isinstance(e, int) and not isinstance(e, bool))
                                        for e in d[sk])):
                    bad(f"{at}.{sk}", "an array of dimensions, each an integer or an expression string over the "
                                      "parameters", d[sk])
            if "dtype" in d:
                try:
                    if not isinstance(d["dtype"], str):
                        raise TypeError
                    np.dtype(d["dtype"])
                except TypeError:
                    bad(f"{at}.dtype", "a numpy dtype name (float32, float16, int32, ...)", d["dtype"])
    for key in ("roofline", "small_roofline"):  # small_roofline: figures at the small size (usertask.py)
        if not present(key) or tj[key] is None:
            continue
        rf = tj[key]
        if not isinstance(rf, dict):
            bad(key, "an object with " + ", ".join(ROOFLINE_FIELDS), rf)
        for k, v in rf.items():
            if k not in ROOFLINE_FIELDS:
                bad(f"{key}.{k}", "absent", _MISSING, "the roofline fields are " + ", ".join(ROOFLINE_FIELDS))
            if not (isinstance(v, str) or _finite_number(v)):
                bad(f"{key}.{k}", "an expression string over the parameters or a number", v)
    if fields is None:
        try:
            usertask.validate(tj, where, in_folder)
        except usertask.UserTaskError as e:
            raise TaskError(str(e)) from None


_MISSING = object()


def check_shapes(tj: dict, params: dict, which: str, where: str) -> None:
    """Every declared dimension of the inputs and outputs, at the parameters an eval uses, is a whole number >= 1
    (a 0 dimension made an empty eval that ran "ok" in 0 ms). Raises TaskError naming the field and the values."""
    for k in ("inputs", "outputs"):
        for i, d in enumerate(tj.get(k) or []):
            for sk in SHAPE_FIELDS:
                for j, e in enumerate(d.get(sk) or []):
                    at = f"{k}[{i}].{sk}[{j}]"
                    if isinstance(e, str) and ("**" in e or len(e) > 200):
                        # evaluated here, in the serving process without a time limit: 9**9**9 would stall it
                        raise TaskError(f"{where}: {at} = {e[:60]!r} is not a dimension expression the runner "
                                        f"evaluates (no '**', at most 200 characters); write the product out")
                    try:
                        v = roofline.eval_expr(e, params)
                    except (roofline.ExprError, ArithmeticError, ValueError, TypeError) as ex:
                        raise TaskError(f"{where}: {at} = {e!r} cannot be evaluated at the {which}: {ex}") from None
                    if v != int(v) or v < 1:
                        raise TaskError(f"{where}: {at} = {e!r} is {v:g} at the {which} "
                                        f"({_fmt_params(params)}); every dimension must be a whole number of at "
                                        f"least 1: fix the parameters or the expression")


def _fmt_params(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in list(params.items())[:12]) or "none"


MAX_TASK_JSON_BYTES = 16 * 1024 * 1024  # a task description is a few KiB; this only stops a wrong file


def _not_a_file(p: str) -> str:
    """What p is, when it exists but is not a regular file ("" when it is one or does not exist)."""
    import stat
    try:
        mode = os.stat(p).st_mode
    except OSError:
        return "a symbolic link to nothing" if os.path.islink(p) else ""
    if stat.S_ISREG(mode):
        return ""
    return ("a folder" if stat.S_ISDIR(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "not a regular file")


def _refuse_special(d: str, name: str) -> None:
    """A task folder's file that exists but is no regular file (reading a FIFO would block the serving process)."""
    p = os.path.join(d, name)
    kind = _not_a_file(p)
    if kind:
        raise TaskError(f"{p} is {kind}, not a regular file; a task folder keeps its {name} as a file")


def _read_task_json(d: str) -> dict:
    p = os.path.join(d, "task.json")
    _refuse_special(d, "task.json")
    try:
        size = os.path.getsize(p)
        if size > MAX_TASK_JSON_BYTES:
            raise TaskError(f"{p} is {size / 1048576:.1f} MiB, over the {MAX_TASK_JSON_BYTES // 1048576} MiB a task "
                            f"description may be; check that this is the task's task.json")
        with open(p, "rb") as f:
            data = f.read(MAX_TASK_JSON_BYTES + 1)
    except OSError as e:
        raise TaskError(f"cannot read {p}: {e.strerror}") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]  # a UTF-8 byte order mark, as some editors write: not part of the JSON
    from . import protocol
    try:
        tj = protocol.parse(data.strip())  # the same refusals as a request line: depth, NaN, duplicate keys
    except protocol.ProtocolError as e:
        raise TaskError(f"{p} is not a valid task description: {str(e).replace('message', 'file')}") from None
    validate_task(tj, p, in_folder=True)
    return usertask.expand(tj)


def _folder_spec(d: str, size: str) -> dict:
    d = os.path.abspath(d)
    tj = _read_task_json(d)
    ref_name = tj.get("reference") or "reference.py"
    ref = os.path.join(d, ref_name)
    _refuse_special(d, ref_name)
    if not os.path.isfile(ref):
        raise TaskError(f"task folder {d} has no {ref_name}" +
                        ("" if "reference" in tj else " (name another file with task.json 'reference')"))
    where = os.path.join(d, "task.json")
    if "parameters" not in tj:
        raise TaskError(f"{where}: 'parameters' is missing; it must be an object mapping parameter names to numbers "
                        f"(the full-size shapes; {{}} for a reference that takes none), or give every input a "
                        f"concrete \"shape\" (e.g. {{\"name\": \"x\", \"shape\": [256, 2048], \"dtype\": "
                        f"\"float32\"}}) and leave the parameters out")
    params = tj["parameters"]
    if size == "small":
        if "small_parameters" not in tj:
            raise TaskError(f"{where}: an eval of size \"small\" needs 'small_parameters' (the shapes of a quick "
                            f"eval), which this task does not have; add them, or evaluate at size \"full\"")
        params = tj["small_parameters"]
    baselines = {api: os.path.join(d, f) for api, f in BASELINE_FILES.items()}
    baselines = {api: p if os.path.isfile(p) else None for api, p in baselines.items()}
    spec = {"kind": "folder", "name": tj.get("name") or os.path.basename(d), "dir": d, "reference_path": ref,
            "baseline_path": baselines["classic"], "baselines": baselines, "params": dict(params),
            "dtype": tj.get("dtype") or "float32", "rel_tol": tj.get("rel_tol") or DEFAULT_REL_TOL,
            "shape_decl": {k: tj[k] for k in ("inputs", "outputs") if k in tj}, "where": where}
    _user_fields(spec, tj, size)
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
    validate_task(task, "the eval's 'task'", fields=("parameters", "rel_tol", "atol", "dtype", "roofline"))
    for k in ("case", "impl"):
        if k in task and not (isinstance(task[k], (str, int)) and not isinstance(task[k], bool)):
            raise TaskError(f"the eval's 'task': '{k}' must be a string or an integer, got {_json_type(task[k])}")
    if "impl" in task and not str(task["impl"]).isdigit():
        raise TaskError(f"the eval's 'task': 'impl' must be a whole number >= 0 (which implementation of the "
                        f"case), got {_json_type(task['impl'])}")
    for k in ("dataset", "dir"):
        if k in task and not isinstance(task[k], str):
            raise TaskError(f"the eval's 'task': '{k}' must be an absolute folder path (a string), got "
                            f"{_json_type(task[k])}")
    try:
        if task.get("dataset"):
            if not name:
                raise TaskError("a dataset task needs 'name' (the problem)")
            spec = dataset.resolve(str(task["dataset"]), str(name), task.get("case"), int(task.get("impl", 0)),
                                   tasks_dir)
        elif isinstance(task.get("reference"), str) and ("\n" in task["reference"] or "def " in task["reference"]):
            validate_task(task, "the eval's inline task")
            task = usertask.expand(task)
            params = task.get("parameters") or {}
            if size == "small":
                if "small_parameters" not in task:
                    raise TaskError("the eval's inline task: an eval of size \"small\" needs 'small_parameters', "
                                    "which the task does not have; add them, or evaluate at size \"full\"")
                params = task["small_parameters"]
            spec = {"kind": "inline", "name": name or "inline", "reference_source": task["reference"],
                    "baseline_path": None, "params": dict(params), "dtype": task.get("dtype") or "float32",
                    "rel_tol": task.get("rel_tol") or DEFAULT_REL_TOL,
                    "shape_decl": {k: task[k] for k in ("inputs", "outputs") if k in task},
                    "where": "the eval's inline task"}
            _user_fields(spec, task, size)
            task = {k: v for k, v in task.items() if k != "parameters"}
        elif task.get("dir"):
            d = str(task["dir"])
            if not os.path.isabs(d):
                raise TaskError(f"task 'dir' must be an absolute path, got {d!r}")
            if os.path.isfile(os.path.join(d, "task.json")) or _not_a_file(os.path.join(d, "task.json")):
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
            if not os.path.isfile(os.path.join(d, "task.json")) and not _not_a_file(os.path.join(d, "task.json")):
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
    if task.get("roofline") is not None and spec["kind"] != "dataset":  # the eval's own figures, as given
        spec["roofline_origin"] = {f: "formulas" for f, keys in (("flops", ("vector_flops", "matmul_flops")),
                                                                 ("min_bytes", ("min_bytes",)))
                                   if any(k in task["roofline"] for k in keys)}
    spec["size"] = size
    decl = spec.pop("shape_decl", None)
    where = spec.pop("where", "the task")
    if decl:
        check_shapes(decl, spec["params"], f"{size} parameters", where)
    return spec


def _user_fields(spec: dict, tj: dict, size: str) -> None:
    """What a task folder or inline task may add for a user's own kernel (usertask.py): the roofline that holds at
    this size and where each figure came from, the kernel function's name, and the inputs' declarations, from
    which the runner builds inputs for a reference without get_inputs."""
    spec["roofline"], spec["roofline_origin"] = usertask.roofline_for_size(tj, size)
    if tj.get("function"):
        spec["function"] = tj["function"]
    if isinstance(tj.get("inputs"), list):
        spec["input_decl"] = tj["inputs"]


def baseline_path(spec: dict, api: str = "classic") -> str:
    """The file of the task's baseline kernel in the NKI generation `api` ("classic": baseline.py, "current":
    baseline_current.py). Raises TaskError saying why there is none."""
    if api not in BASELINE_FILES:
        raise TaskError(f"'api' must be one of {', '.join(APIS)} (which NKI generation's baseline), got {api!r}")
    name = spec.get("name")
    if spec.get("kind") == "dataset":
        if api != "classic":
            raise TaskError(f"an original NKIBench dataset has classic-API kernels only (kernels/<problem>_*.py), so "
                            f"problem {name!r} has no {api} baseline; pass the kernel to evaluate")
        path = spec.get("baseline_path")
    elif spec.get("kind") == "folder":
        path = (spec.get("baselines") or {}).get(api)
        if not path:
            missing = os.path.join(spec["dir"], BASELINE_FILES[api])
            raise TaskError(f"task {name!r} has no {api}-API baseline: {missing} does not exist; pass the kernel to "
                            f"evaluate" +
                            (", or choose the classic baseline.py" if api != "classic" else ""))
    else:
        path = None
    if not path:
        raise TaskError(f"task {name!r} has no baseline kernel; pass the kernel to evaluate")
    return path


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
        from . import references
        self.kind = "numpy"
        if references.imports_torch(path):
            self.kind = "pytorch"
            try:
                references.require_torch()  # before the module runs: "not installed", not an ImportError mid-way
            except references.ReferenceError_ as e:
                raise TaskError(str(e)) from None
        mod = importlib.util.module_from_spec(sp)
        sys.modules[modname] = mod
        sp.loader.exec_module(mod)
        self.mod = mod
        self.torch = None
        if references.is_torch_model(mod):
            try:
                self.torch = references.TorchReference(mod, spec)
            except references.ReferenceError_ as e:
                raise TaskError(f"the task reference {path}: {e}") from None
            self.kind = "pytorch"
            return
        if not callable(getattr(mod, "forward", None)):
            raise TaskError(f"the task reference {path} defines no forward() (nor a PyTorch class Model)")
        if not callable(getattr(mod, "get_inputs", None)) and not spec.get("input_decl"):
            raise TaskError(f"the task reference {path} defines no get_inputs(), and task.json declares no inputs "
                            f"to build them from; declare each input's \"shape\" and \"dtype\", or define "
                            f"get_inputs(seed, params)")

    @property
    def counted_flops(self):
        """The FLOPs torch's profiler counted in the last forward(count_flops=True) (PyTorch references only)."""
        return self.torch.flops if self.torch is not None else None

    def get_inputs(self, seed: int, params: dict | None = None) -> list:
        params = self.params if params is None else params
        if self.torch is not None:
            return self.torch.get_inputs(seed, params)
        fn = getattr(self.mod, "get_inputs", None)
        if not callable(fn):  # forward alone: the inputs from task.json's declarations (references.py)
            from . import references
            return references.declared_inputs(self.spec.get("input_decl"), params, seed, self.spec.get("dtype"))
        np.random.seed(seed & 0xFFFFFFFF)  # the original seeds numpy's global generator, then calls get_inputs()
        ps = _npos(fn)
        if not ps:
            out = fn()
        elif len(ps) == 1:
            out = fn(params) if ps[0].name in ("params", "parameters", "p", "cfg", "config", "shapes") \
                else fn(seed)
        else:
            out = fn(seed, params)
        return _as_list(out)

    def forward(self, inputs: list, count_flops: bool = False) -> list:
        if self.torch is not None:
            return self.torch.forward(inputs, count_flops)
        return [np.asarray(o) if not isinstance(o, np.ndarray) else o for o in _as_list(self.mod.forward(*inputs))]

    def to_nki(self, inputs: list, params: dict | None = None) -> list:
        fn = getattr(self.mod, "transform_to_nki_inputs", None)
        if fn is None:
            return list(inputs)
        return _as_list(fn(inputs) if len(_npos(fn)) < 2 else fn(inputs, self.params if params is None else params))

    def nki_input_shapes(self, seed: int, verified: bool = False) -> list | None:
        """[(shape, numpy dtype)] of the kernel's arguments as task.json declares them ("kernel_shape_expr", or
        "shape_expr" when the reference has no transform_to_nki_inputs), or None when it does not declare them
        all. A timing-only eval needs no more than that, and building full-size inputs took longer than timing
        (matmul: 2.4 s against 1.0 s). The declaration is trusted only if, at the small parameters, it gives the
        shapes and dtypes the reference really builds; a mismatch means None, and the eval builds the inputs.
        verified: an earlier eval of this very task (the runner's cache, serve.py) made that check already."""
        decl, small = self.spec.get("inputs"), self.spec.get("small_params")
        if not isinstance(decl, list) or not decl or not isinstance(small, dict):
            return None
        relaid = callable(getattr(self.mod, "transform_to_nki_inputs", None))
        try:
            want = _declared_shapes(decl, self.params, relaid, self.spec.get("dtype"))
            check = _declared_shapes(decl, small, relaid, self.spec.get("dtype"))
            if want is None or check is None:
                return None
            if verified:
                return want
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
