"""Entry point of the performance model: estimate(trace, target) -> Estimate."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..memory import paused_gc
from .constants import get_target
from .metrics import compute_metrics
from .scheduler import schedule
from .vectorize import factors

TIMELINE_CAP = 20000  # dicts are costly at millions of instructions; `schedule` has every instruction


@dataclass
class Estimate:
    latency_ns: float
    metrics: dict
    timeline: list  # [{engine, op, line, start_ns, end_ns}], in trace order, capped at TIMELINE_CAP
    per_engine_busy_ns: dict
    timeline_truncated: bool = False
    instruction_count: int = 0
    target: str = ""
    extra: dict = field(default_factory=dict)
    # Every instruction's placement (start, end, unit), uncapped: perf.profile builds line costs and columnar
    # timelines of any length from it and the trace.
    schedule: object = field(default=None, repr=False, compare=False)

    @property
    def latency_ms(self) -> float:
        return self.latency_ns * 1e-6

    @property
    def latency_us(self) -> float:
        return self.latency_ns * 1e-3


def estimate(trace, target="trn1", timeline_cap: int = TIMELINE_CAP, sequential_barrier: bool = False) -> Estimate:
    hw = get_target(target)
    instrs = trace.instrs if hasattr(trace, "instrs") else list(trace)
    with paused_gc():
        sch = schedule(instrs, hw, sequential_barrier=sequential_barrier, vector_factors=factors(instrs, hw))
        metrics = compute_metrics(instrs, sch, hw)
    cap = len(instrs) if timeline_cap is None else min(len(instrs), max(int(timeline_cap), 0))
    timeline = [{"engine": sch.unit[i], "op": instrs[i].op, "line": instrs[i].line,
                 "start_ns": sch.start[i], "end_ns": sch.end[i]} for i in range(cap)]
    return Estimate(latency_ns=sch.latency_ns, metrics=metrics, timeline=timeline,
                    per_engine_busy_ns=dict(sch.busy_ns), timeline_truncated=cap < len(instrs),
                    instruction_count=len(instrs), target=hw.name, schedule=sch)
