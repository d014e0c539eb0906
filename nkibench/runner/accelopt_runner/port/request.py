"""The protocol op `port` (serve.py) and `python -m accelopt_runner port` (__main__.py).

A request carries a classic kernel and a task; the runner ports it by rules (translate.py) or takes the current
`candidate` the client sends (an LLM's port), then runs the original and the port through the eval machinery, one
child each (jobs.normalize, jobs.prechecks, sandbox.run_child, as evals run), saving every seed's outputs, and
compares the port's outputs with the original's within the task's rel_tol. "ok" only when both ran on nkisim and
agree on every seed. README.md documents the fields and statuses."""
from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time

import numpy as np

from .. import correctness, jobs, sandbox, taskspec
from ..generations import of_source
from .translate import PortError, port_source

STATUSES = ("ok", "unported", "not_equal", "error")
FORWARDED = ("task", "size", "seeds", "num_seeds", "target", "rel_tol", "timeout_s", "memory_limit_mb")


class BadPort(Exception):
    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line


def empty(req: dict) -> dict:
    return {"op": "port_result", "id": req.get("id"), "status": "error", "kernel": None, "rules": [],
            "unported": [], "equal": None, "error": None, "line": None, "evals": None, "wall_s": 0.0}


def _source(req: dict, key: str, what: str) -> str:
    try:
        return jobs.check_kernel_text(req.get(key))
    except jobs.BadRequest as e:
        raise BadPort(f"'{key}' ({what}): {e}") from None


def _generation(src: str, key: str) -> str | None:
    import ast
    try:
        tree = ast.parse(src)
    except SyntaxError as e:
        raise BadPort(f"'{key}' line {e.lineno}: syntax error: {e.msg}", e.lineno) from None
    g = of_source(src, tree)
    if g["mixed"]:
        imp = g["imports"]
        raise BadPort(f"'{key}' mixes NKI generations: it imports {imp['classic']} (classic) and {imp['current']} "
                      f"(current); one kernel is written against one generation")
    return g["generation"]


def handle(req: dict, cfg: dict, cancel: threading.Event | None = None) -> dict:
    """One port request to one port_result dict (never raises for bad input)."""
    t0 = time.monotonic()
    res = empty(req)
    cancel = cancel or threading.Event()
    try:
        _handle(req, cfg, cancel, res)
    except BadPort as e:
        res.update(status="error", error=f"bad port request: {e}", line=e.line)
    res["wall_s"] = round(time.monotonic() - t0, 3)
    return res


def _handle(req, cfg, cancel, res):
    if req.get("task") in (None, "", {}):
        raise BadPort("'task' is required: the task whose inputs both kernels run on (as in eval)")
    if req.get("backend") not in (None, "sim"):
        raise BadPort(f"'backend' must be \"sim\" (the equality check runs both generations on nkisim), got "
                      f"{req.get('backend')!r}")
    original = _source(req, "kernel", "the classic kernel")
    gen = _generation(original, "kernel")
    if gen == "current":
        raise BadPort("'kernel' is already written against the current API (it imports nki); the port op takes "
                      "the classic original as 'kernel' (and a current port, if any, as 'candidate')")
    if "candidate" in req and req["candidate"] is not None:
        cand = _source(req, "candidate", "the current port to check")
        cg = _generation(cand, "candidate")
        if cg != "current":
            raise BadPort("'candidate' must be written against the current API (import nki, nki.language, "
                          "nki.isa); it imports " + ("the classic neuronxcc.nki" if cg == "classic" else
                                                     "no NKI namespace"))
        res["rules"] = []
        port = cand
    else:
        try:
            pr = port_source(original)
        except PortError as e:
            raise BadPort(str(e), e.line) from None
        res["rules"] = pr["rules"]
        if not pr["ok"]:
            res.update(status="unported", unported=pr["unported"],
                       error=f"{len(pr['unported'])} construct(s) have no porting rule; port them by hand or with "
                             f"the executor (see 'unported')")
            return
        port = pr["kernel"]
    res["kernel"] = port
    _equality(req, cfg, cancel, res, original, port)


def _equality(req, cfg, cancel, res, original, port):
    base = {k: req[k] for k in FORWARDED if k in req}
    base.setdefault("size", "small")
    base.setdefault("seeds", jobs.seeds_default(2) if "num_seeds" not in base else None)
    if base.get("seeds") is None:
        base.pop("seeds")
    tmp = tempfile.mkdtemp(prefix="accelopt-port-")
    try:
        runs = {}
        for role, src in (("original", original), ("port", port)):
            r = {**base, "id": f"{req.get('id')}:{role}", "kernel": src, "backend": "sim", "warmup": 0, "iters": 1,
                 "max_attempts": 1}
            try:
                job = jobs.normalize(r, cfg)
            except (jobs.BadRequest, taskspec.TaskError) as e:
                raise BadPort(str(e)) from None
            job["save_outputs"] = True
            out_dir = os.path.join(tmp, role)
            os.mkdir(out_dir)
            pre = jobs.prechecks(job)
            if pre is not None:
                ev = pre
            else:
                sb = sandbox.bwrap_status(cfg.get("no_sandbox", False))
                ev = sandbox.run_child(job, cancel, sb, cfg.get("python"), cfg.get("keep_workdirs", False),
                                       collect_dir=out_dir, zygote=cfg.get("zygote", False))
            runs[role] = (job, ev, out_dir)
            res.setdefault("evals", None)
            res["evals"] = {**(res["evals"] or {}), role: _summary(ev)}
            if cancel.is_set():
                res.update(status="error", error="cancelled by the client", cancelled=True)
                return
            if ev.get("status") not in ("ok", "incorrect"):
                if role == "original":
                    res.update(status="error", error=f"the original (classic) kernel did not run on nkisim: "
                                                     f"{ev.get('status')}: {ev.get('error')}", line=ev.get("line"))
                else:
                    res.update(status="not_equal", error=f"the port did not run on nkisim: {ev.get('status')}: "
                                                         f"{ev.get('error')}", line=ev.get("line"))
                return
        job = runs["original"][0]
        rel_tol = float(job.get("rel_tol") or job["task_spec"].get("rel_tol") or 2e-5)
        seeds = list(job["seeds"])
        worst_rel, worst_abs, per_seed = 0.0, 0.0, []
        for si, seed in enumerate(seeds):
            a = _load(runs["original"][2], si)
            b = _load(runs["port"][2], si)
            if a is None or b is None:
                res.update(status="error", error=f"seed {seed}: the outputs of the "
                                                 f"{'original' if a is None else 'port'} were not saved")
                return
            try:
                rel, mabs = correctness.compare(b, a, rel_tol)
            except correctness.Mismatch as m:
                per_seed.append({"seed": seed, "l2_rel_diff": m.l2_rel_err, "max_abs_diff": m.max_abs_err,
                                 "equal": False})
                res.update(status="not_equal",
                           equal={"l2_rel_diff": m.l2_rel_err, "max_abs_diff": m.max_abs_err, "rel_tol": rel_tol,
                                  "seeds": seeds, "per_seed": per_seed, "equal": False},
                           error=f"seed {seed}: the port's outputs differ from the original's: {m}")
                return
            per_seed.append({"seed": seed, "l2_rel_diff": rel, "max_abs_diff": mabs, "equal": True})
            worst_rel, worst_abs = max(worst_rel, rel), max(worst_abs, mabs)
        res.update(status="ok", error=None,
                   equal={"l2_rel_diff": worst_rel, "max_abs_diff": worst_abs, "rel_tol": rel_tol, "seeds": seeds,
                          "per_seed": per_seed, "equal": True})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _load(d, si):
    p = os.path.join(d, f"outputs_seed{si}.npz")
    if not os.path.isfile(p):
        return None
    with np.load(p) as z:
        return [z[f"arr_{i}"] for i in range(len(z.files))]


def _summary(ev: dict) -> dict:
    """What the port result says about each eval: did it run, its check against the task reference, its latency."""
    lat = ev.get("latency_ms") or {}
    return {"status": ev.get("status"), "correct": ev.get("correct"), "l2_rel_err": ev.get("l2_rel_err"),
            "latency_ms": lat.get("mean") if isinstance(lat, dict) else None, "error": ev.get("error"),
            "line": ev.get("line")}
