"""The roofline of an eval when task.json gives no formulas for some of it (a user's task, nkibench/tasks/README.md,
"User tasks"): each missing figure from what the judge measured in this very eval, so it is right at any size.

  min_bytes  the kernel's input arrays' + the reference outputs' bytes (judge.prepare)    "input and output sizes"
  FLOPs      PyTorch reference: torch's profiler around one forward                     "pytorch flop counter"
             numpy reference: only what task.json holds (the task check measures the
             baseline's trace and reports the figures to write there)                   "baseline trace"
A roofline written as formulas counts a FLOP field it omits as 0 (as before). A figure nobody knows stays unknown:
without FLOPs % of peak is null, never made up; min_bytes still arms the physics tripwire (handover.physics)."""
from __future__ import annotations

FLOP_FIELDS = ("vector_flops", "matmul_flops")


def effective(spec: dict, measures: dict | None) -> tuple:
    """(roofline fields to evaluate, {"flops": source|None, "min_bytes": source|None}, flops_known)."""
    rf = dict(spec.get("roofline") or {})
    origin = dict(spec.get("roofline_origin") or {})
    if spec.get("kind") == "dataset":  # the dataset reader says whose formulas (result field "formulas")
        return rf, {"flops": "formulas", "min_bytes": "formulas"} if rf else {}, bool(rf)
    m = measures or {}
    if "min_bytes" not in rf and isinstance(m.get("min_bytes"), int) and m["min_bytes"] > 0:
        rf["min_bytes"] = m["min_bytes"]
        origin["min_bytes"] = "input and output sizes"
    # A roofline written as formulas names what it counts: a FLOP field it leaves out is 0, as it always was (a
    # copy's "min_bytes" alone is a complete, memory-bound roofline). Only numbers-or-nothing leaves FLOPs unknown.
    written = any(isinstance(v, str) for v in (spec.get("roofline") or {}).values())
    flops_known = written or any(k in rf for k in FLOP_FIELDS)
    if written and not origin.get("flops"):
        origin["flops"] = "formulas"
    # torch 1.13's counter knows matmul, conv, add and mul only: a total of 0 (a softmax) is no count, not a zero
    if not flops_known and isinstance(m.get("flops"), dict) and sum(m["flops"].values()) > 0:
        rf.update({k: int(m["flops"].get(k) or 0) for k in FLOP_FIELDS})
        origin["flops"] = "pytorch flop counter"
        flops_known = True
    origin = {"flops": origin.get("flops") if flops_known else None, "min_bytes": origin.get("min_bytes")}
    return rf, origin, flops_known
