"""An nkisim kernel's latency, metrics and profile from its instruction trace: the performance model's side of an
eval. The judge (judge.timing) runs it on the trace the kernel's process handed over as data; the in-process path
(evaluate.run, backend_sim) runs it on the trace it has just recorded. Either way the figures come from the trace
alone, so the two agree to the nanosecond.

nkisim's estimate is deterministic, so the timing protocol runs on it once: warmup and iters are honoured (each
iteration reads the same modelled latency), rel_spread is 0 and one attempt suffices.
"""
from __future__ import annotations

from . import timing


class TraceTiming:
    def __init__(self, instrs: list, target: str, offset: int = 0, source_lines: int = 0):
        """offset: lines the runner put above the kernel's source (backend_sim.add_header); source_lines: the
        source's length, so that a line outside it (an instruction issued from elsewhere) is not attributed."""
        self.instrs = instrs
        self.target = target
        self.offset = offset
        self.source_lines = source_lines
        self._est = None

    def estimate(self):
        if self._est is None:
            from nkisim.perf import estimate
            # no dict timeline: profile() builds its columns from the estimate's schedule
            self._est = estimate(self.instrs, self.target, timeline_cap=0)
        return self._est

    def measure(self, warmup: int, iters: int) -> dict:
        lat = self.estimate().latency_ns * 1e-6
        return timing.stats([lat] * max(1, int(iters)))

    def benchmark(self, job: dict) -> dict:
        """latency_ms, rel_spread and timing_attempts under the job's timing protocol."""
        lat, rs, attempts = timing.benchmark(self.measure, job["warmup"], job["iters"], job["spread_tol"],
                                             job["max_attempts"], pause_s=0.0)
        return {"latency_ms": lat, "rel_spread": rs, "timing_attempts": attempts}

    def metrics(self) -> dict:
        return {k: v for k, v in (self.estimate().metrics or {}).items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)}

    def flop_counts(self) -> dict:
        """{"matmul_flops", "vector_flops"} of the trace: TensorE's multiply-adds (2 per MAC, transposes excluded, as
        nkisim's hardware_flops counts them) and one FLOP per element each other compute instruction processes
        (partitions x free elements). A
        task without FLOP formulas takes its baseline's counts as its roofline (the task check measures them)."""
        from nkisim.perf.metrics import _matmul_flops
        mm = vec = 0
        for ins in self.instrs:
            if ins.engine == "dma":
                continue
            if ins.engine == "tensor":
                if ins.op != "nc_transpose" and not ins.attrs.get("is_transpose"):
                    mm += _matmul_flops(ins)
                continue
            vec += int(ins.partitions or 0) * int(ins.free_elems or 0)
        return {"matmul_flops": int(mm), "vector_flops": int(vec)}

    def user_line(self, line: int) -> int:
        """A trace line as a line of the kernel source as sent: the header is taken off, and a line outside the
        source becomes 0, not attributable."""
        line = int(line or 0) - self.offset
        return line if 0 < line <= self.source_lines else 0

    def profile(self, timeline_cap: int) -> dict:
        from nkisim.perf import profile
        est = self.estimate()
        costs = profile.line_costs(self.instrs, est.schedule).remapped(self.user_line)
        from nkisim.perf.explain import explain
        out = {"source": "nkisim", "available": True, "missing": {},
               "instruction_count": costs.instruction_count, "engine_busy_ns": costs.busy_ns(),
               "line_costs": costs.as_list(), "explain": explain(self.instrs, est.schedule, self.target)}
        if timeline_cap > 0:
            out["timeline"] = profile.timeline_columns(self.instrs, est.schedule, timeline_cap, self.user_line)
        return out
