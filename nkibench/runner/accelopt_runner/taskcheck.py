"""The protocol op `task_check` (serve.py) and `python -m accelopt_runner task-check DIR` (__main__.py): does a task
folder a user wrote work, and what are its figures. The checks run in order and stop at the first failure (later
checks are omitted from `checks`); the runner README documents the fields.

Nothing of the task runs in this process: the reference runs in the judge's sandbox (taskprobe.py, role "probe")
and the baseline through the eval machinery (serve.evaluate_request: prechecks, sandboxed children,
physics), exactly as an eval of the task would."""
from __future__ import annotations

import ast
import threading
import time

import numpy as np

from . import jobs, kernelfn, roofline, sandbox, taskspec

CHECKS = ("task_json", "kernel_function", "reference_loads", "reference_runs", "deterministic", "shapes", "memory",
          "baseline_small", "baseline_full", "flops")
SEEDS_SMALL = [11, 12]  # fixed seeds: a check a user repeats sees the same cases (two: a constant result shows)
SEEDS_FULL = [13]  # one full-size seed: a full-size numeric eval is the slow part
# Full-size memory estimate (before anything is built): inputs + outputs, x3 for the float64 temporaries a reference
# computing in float64 holds, plus what the interpreter, numpy and nkisim take themselves.
TEMPORARIES_FACTOR = 3
BASE_MB = 256


class _Stop(Exception):
    pass


def empty(req: dict) -> dict:
    return {"op": "task_check_result", "id": req.get("id"), "ok": False, "error": "", "checks": [],
            "function": None, "reference_kind": None, "inputs": [], "outputs": [], "small_inputs": [],
            "roofline": None, "small_roofline": None, "roofline_source": None, "latency_ms": None,
            "small_latency_ms": None, "wall_s": 0.0}


def handle(req: dict, cfg: dict, cancel: threading.Event | None = None) -> dict:
    """One task_check request to one task_check_result dict (never raises for bad input)."""
    t0 = time.monotonic()
    res = empty(req)
    cancel = cancel or threading.Event()
    run = _Check(req, cfg, cancel, res)
    try:
        run.all()
    except _Stop:
        pass
    res["ok"] = not res["error"]
    if cancel.is_set():
        res.update(ok=False, cancelled=True, error=res["error"] or "cancelled by the client")
    res["wall_s"] = round(time.monotonic() - t0, 3)
    return res


def _lat(ev: dict):
    lat = ev.get("latency_ms")
    return lat.get("mean") if isinstance(lat, dict) else None


class _Check:
    def __init__(self, req, cfg, cancel, res):
        self.req, self.cfg, self.cancel, self.res = req, cfg, cancel, res

    def ok(self, check: str, detail: str):
        self.res["checks"].append({"check": check, "ok": True, "detail": detail})

    def fail(self, check: str, message: str):
        self.res["checks"].append({"check": check, "ok": False, "detail": message})
        self.res["error"] = message
        raise _Stop

    def all(self):
        req = self.req
        if self.cancel.is_set():
            self.fail("task_json", "cancelled by the client")
        fn = req.get("function")
        if fn is not None and not kernelfn.valid_name(fn):
            self.fail("kernel_function", f"'function' must be the kernel function's name (a Python identifier), "
                                         f"got {fn!r}")
        small, full = self._specs()
        src = self._kernel(full)
        tree = ast.parse(src)
        try:
            name = kernelfn.choose(tree, fn, full.get("function"))
        except kernelfn.NoKernelFunction as e:
            self.fail("kernel_function", str(e))
        self.res["function"] = name
        self.ok("kernel_function", f"the kernel is {name}()")
        probe = self._probe(small)
        self._shapes(small, full, probe, tree, name)
        self._memory(small, full, probe)
        ev_small = self._baseline("small", src)
        ev_full = self._baseline("full", src)
        self._flops(small, full, ev_small, ev_full)

    def _specs(self):
        task = self.req.get("task")
        if task in (None, "", {}):
            self.fail("task_json", "'task' is required: the task to check (as in eval, e.g. {\"dir\": "
                                   "\"/abs/folder\"})")
        try:
            small = taskspec.resolve(task, "small", self.cfg.get("tasks_dir"))
            full = taskspec.resolve(task, "full", self.cfg.get("tasks_dir"))
        except taskspec.TaskError as e:
            self.fail("task_json", str(e))
        self.ok("task_json", f"task {full.get('name')!r}: full {_fmt(full['params'])}; small "
                             f"{_fmt(small['params'])}")
        return small, full

    def _kernel(self, full: dict) -> str:
        src = self.req.get("kernel")
        if src is None:
            try:
                path = taskspec.baseline_path(full, "classic")
            except taskspec.TaskError as e:
                self.fail("kernel_function", str(e))
            try:
                with open(path, encoding="utf-8") as f:
                    src = f.read()
            except (OSError, UnicodeDecodeError) as e:
                self.fail("kernel_function", f"cannot read the baseline {path}: {e}")
        try:
            src = jobs.check_kernel_text(src)
            ast.parse(src)
        except jobs.BadRequest as e:
            self.fail("kernel_function", str(e))
        except SyntaxError as e:
            self.fail("kernel_function", f"line {e.lineno}: syntax error: {e.msg}")
        except (ValueError, RecursionError, MemoryError) as e:
            self.fail("kernel_function", f"the kernel source cannot be parsed: {e}")
        self.kernel = src
        return src

    def _request(self, size: str, seeds: list) -> dict:
        r = {"op": "eval", "id": f"{self.req.get('id')}:{size}", "task": self.req.get("task"), "size": size,
             "kernel": self.kernel, "seeds": seeds, "warmup": 0, "iters": 1, "max_attempts": 1}
        for k in ("function", "backend", "target", "timeout_s", "memory_limit_mb"):
            if self.req.get(k) is not None:
                r[k] = self.req[k]
        return r

    def _probe(self, small: dict) -> dict:
        try:
            job = jobs.normalize(self._request("small", SEEDS_SMALL[:1]), self.cfg)
        except (jobs.BadRequest, taskspec.TaskError) as e:
            self.fail("reference_loads", f"bad task_check request: {e}")
        job["role"] = "probe"
        sb = sandbox.bwrap_status(self.cfg.get("no_sandbox", False))
        pr = sandbox.run_judge_child(job, self.cancel, sb, self.cfg.get("python"), zygote=self.cfg.get("zygote"))
        if self.cancel.is_set():
            self.fail("reference_loads", "cancelled by the client")
        if pr.get("status") == "failed":
            check = pr.get("failed_check") if pr.get("failed_check") in CHECKS else "reference_runs"
            for c in CHECKS[CHECKS.index("reference_loads"):CHECKS.index(check)]:
                self.ok(c, "passed")
            self.fail(check, str(pr.get("error")))
        if pr.get("status") != "probed":
            self.fail("reference_loads", f"the reference could not be run: {pr.get('status')}: {pr.get('error')}")
        self.res["reference_kind"] = pr["reference_kind"]
        self.ok("reference_loads", f"a {pr['reference_kind']} reference")
        self.ok("reference_runs", f"at the small size: {len(pr['outputs'])} output(s), all finite")
        self.ok("deterministic", "the same seed gives the same inputs and outputs; another seed other inputs")
        return pr

    def _shapes(self, small: dict, full: dict, probe: dict, tree, name: str):
        """Declarations against what the reference builds (small), the full declarations evaluated (nothing is
        built at full size here), and the kernel's positional parameters against the kernel's inputs."""
        decl = small.get("input_decl") or []
        self.decl = [{"name": n} for n in probe.get("input_names") or []] or decl
        built = probe["inputs"]
        if decl:
            n_decl = len(decl)
            if probe["reference_kind"] == "numpy" and n_decl != len(built) or n_decl > len(built):
                self.fail("shapes", f"task.json declares {n_decl} input(s) ({_names(decl)}), the reference builds "
                                    f"{len(built)}: {_shapes(built)}")
            for i, d in enumerate(decl):
                want = self._declared(d, small, i, "small")
                got = tuple(built[i]["shape"])
                dt = d.get("dtype")
                if want is not None and want != got or dt and dt != built[i]["dtype"]:
                    self.fail("shapes", f"inputs[{i}] ({d.get('name') or '?'}): task.json declares "
                                        f"{want} {dt or ''} at the small size, the reference builds {got} "
                                        f"{built[i]['dtype']}".replace("  ", " "))
                self._declared(d, full, i, "full")
        self.res["small_inputs"] = [{"name": _name(self.decl, i), **b} for i, b in enumerate(probe["kernel_inputs"])]
        self.res["inputs"] = self._full_inputs(full, probe)
        # the full-size figures as far as declared; the full baseline eval replaces them with what it built
        self.res["outputs"] = [dict(o, size="small") for o in probe["outputs"]]
        params = _positional(tree, name)
        n_in = len(probe["kernel_inputs"])
        if params is not None:
            required = [p for p, has_default in params if not has_default]
            if not len(required) <= n_in <= len(params):
                self.fail("shapes", f"the kernel {name}() takes {len(params)} positional parameter(s) "
                                    f"({', '.join(p for p, _ in params) or 'none'}) but gets {n_in} input(s) "
                                    f"({', '.join(x['name'] for x in self.res['small_inputs'])})")
        self.ok("shapes", f"{n_in} kernel input(s): " + _shapes(self.res["small_inputs"]) + " at the small size")

    def _declared(self, d: dict, spec: dict, i: int, size: str):
        if not isinstance(d.get("shape_expr"), list):
            return None
        try:
            return tuple(int(roofline.eval_expr(e, spec["params"])) for e in d["shape_expr"])
        except (ValueError, ArithmeticError, TypeError) as e:
            self.fail("shapes", f"inputs[{i}].shape_expr cannot be evaluated at the {size} parameters: {e}")

    def _full_inputs(self, full: dict, probe: dict) -> list:
        """The kernel's inputs at full size from the declarations, when they declare every kernel input (a reference
        with transform_to_nki_inputs or a PyTorch one adds what only running it shows: then the small ones)."""
        decl = full.get("input_decl") or []
        kin = probe["kernel_inputs"]
        if decl and len(decl) == len(kin) and all(isinstance(d.get("shape_expr"), list) for d in decl) and \
                [b["shape"] for b in probe["inputs"]] == [b["shape"] for b in kin]:
            return [{"name": _name(decl, i), "shape": list(self._declared(d, full, i, "full")),
                     "dtype": kin[i]["dtype"]} for i, d in enumerate(decl)]
        return [{"name": _name(decl, i), **b, "size": "small"} for i, b in enumerate(kin)]

    def _memory(self, small: dict, full: dict, probe: dict):
        """Will the full size fit in the eval's memory limit? Estimated from the declared shapes before anything is
        built: TEMPORARIES_FACTOR x (inputs + outputs) + BASE_MB; outputs not declared are scaled from the small
        ones by the inputs' growth."""
        ins = self.res["inputs"]
        if any(x.get("size") == "small" for x in ins):
            self.ok("memory", "not estimated: task.json does not declare every kernel input's full shape")
            return
        in_full = sum(_nbytes(x) for x in ins)
        in_small = sum(_nbytes(x) for x in probe["kernel_inputs"]) or 1
        out_full = sum(_nbytes(x) for x in probe["outputs"]) * in_full / in_small
        need_mb = TEMPORARIES_FACTOR * (in_full + out_full) / 2 ** 20 + BASE_MB
        try:
            job = jobs.normalize(self._request("full", SEEDS_FULL), self.cfg)
        except (jobs.BadRequest, taskspec.TaskError) as e:
            self.fail("memory", f"bad task_check request: {e}")
        limit = job["limits"]["memory_limit_mb"]
        est = (f"inputs {in_full / 2 ** 20:.1f} MiB + outputs {out_full / 2 ** 20:.1f} MiB, x{TEMPORARIES_FACTOR} "
               f"for temporaries + {BASE_MB} MiB = {need_mb:.0f} MiB")
        if limit and need_mb > limit:
            self.fail("memory", f"the full size would not fit in memory: {est}, over the eval's limit of {limit} "
                                f"MiB ({job['limits']['memory_limit_source']}); make the full shapes smaller, or "
                                f"raise the limit (memory_limit_mb, --memory-limit-mb, "
                                f"ACCELOPT_RUNNER_MEMORY_LIMIT_MB)")
        self.ok("memory", f"{est}, within the limit of {limit or 'no'} MiB")

    def _baseline(self, size: str, src: str) -> dict:
        from .serve import evaluate_request
        check = f"baseline_{size}"
        ev = evaluate_request(self._request(size, SEEDS_SMALL if size == "small" else SEEDS_FULL), self.cfg,
                              self.cancel)
        if self.cancel.is_set():
            self.fail(check, "cancelled by the client")
        if ev.get("status") != "ok":
            where = f"line {ev['line']}: " if ev.get("line") and not str(ev.get("error")).startswith("line") else ""
            self.fail(check, f"the kernel at the {size} size: {ev.get('status')}: {where}{ev.get('error')}")
        arrays = ev.get("task_arrays") or {}
        if size == "full" and arrays:  # what the judge built at full size: the authoritative shapes
            self.res["inputs"] = [{"name": _name(self.decl, i), **x} for i, x in enumerate(arrays["kernel_inputs"])]
            self.res["outputs"] = arrays["reference_outputs"]
        key = "small_latency_ms" if size == "small" else "latency_ms"
        self.res[key] = _lat(ev)
        self.ok(check, f"correct at the {size} size (L2 relative error {ev.get('l2_rel_err') or 0:.2e}), "
                       f"{self.res[key]:.4g} ms on {ev.get('backend')} {ev.get('target')}")
        return ev

    def _flops(self, small: dict, full: dict, ev_small: dict, ev_full: dict):
        out = {}
        source = {}
        for key, ev in (("small_roofline", ev_small), ("roofline", ev_full)):
            rf = ev.get("roofline") or {}
            src = dict(rf.get("roofline_source") or {})
            fig = {"min_bytes": _int(rf.get("min_bytes")), "matmul_flops": _int(rf.get("matmul_flops")),
                   "vector_flops": _int(rf.get("vector_flops"))}
            if not src.get("flops") and isinstance(ev.get("trace_flops"), dict):  # numpy reference: the baseline
                fig.update({k: _int(ev["trace_flops"].get(k)) for k in ("matmul_flops", "vector_flops")})
                src["flops"] = "baseline trace"
            out[key] = fig
            source = source or src
            source.update({k: v for k, v in src.items() if v})
        self.res.update(out)
        self.res["roofline_source"] = {"flops": source.get("flops"), "min_bytes": source.get("min_bytes")}
        f = out["roofline"]
        self.ok("flops", f"at full size: matmul_flops {f['matmul_flops']}, vector_flops {f['vector_flops']}, "
                         f"min_bytes {f['min_bytes']} (flops: {source.get('flops')}; min_bytes: "
                         f"{source.get('min_bytes')})")


def _int(v):
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) else None


def _nbytes(x: dict) -> int:
    return int(np.prod(x["shape"], dtype=np.int64)) * np.dtype(x["dtype"]).itemsize


def _fmt(params: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in list(params.items())[:12]) or "no parameters"


def _name(decl: list, i: int) -> str:
    return (decl[i].get("name") if i < len(decl) and isinstance(decl[i], dict) else None) or f"#{i}"


def _names(decl: list) -> str:
    return ", ".join(_name(decl, i) for i in range(len(decl)))


def _shapes(xs: list) -> str:
    return ", ".join(f"{x.get('name', '#' + str(i))} {tuple(x['shape'])} {x['dtype']}" for i, x in enumerate(xs))


def _positional(tree, name: str):
    """[(parameter, has_default)] of the kernel function's positional parameters, or None when it is no def."""
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name:
            ps = list(n.args.posonlyargs) + list(n.args.args)
            if n.args.vararg is not None:
                return None  # *args takes any number
            first_default = len(ps) - len(n.args.defaults)
            return [(p.arg, i >= first_default) for i, p in enumerate(ps)]
    return None
