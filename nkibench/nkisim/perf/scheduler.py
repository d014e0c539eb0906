"""List scheduler: places each traced instruction in time on a model of one NeuronCore.

Model (nki-facts §3.3, §3.4, §8):
- tensor, vector, scalar and gpsimd are in-order queues, one instruction at a time each, in trace order.
- 16 DMA queues, each in order; a DMA goes to the queue that frees first. The queues share one DMA pipe
  of fixed aggregate bandwidth, kept as a calendar of time buckets, so concurrent transfers split the bandwidth
  and a transfer that can use few engines (few partitions) leaves the rest to the others.
- An instruction waits for the instructions whose buffers it touches: read-after-write (plus a semaphore /
  pipeline latency), write-after-read and write-after-write, on overlapping bounding boxes of the same
  tensor_id. Tiles allocated in an affine_range body get fresh tensor_ids each iteration, so iterations overlap.
- sequential_range and Python range loops are ordered only through the real dependencies, like affine_range.
  We tried a pipeline barrier per iteration (no cross-iteration overlap): it puts the matmul tutorial's Opt 3,
  whose K blocks are a sequential_range (§4.2), at +42% (9.9 ms against 6.97 ms), while dependencies alone give
  +0%, and Opt 3's published 85% HFU leaves no room for a drain per K block. The barrier stays available as
  schedule(..., sequential_barrier=True) for experiments.

Processing in trace order is exact for in-order queues since every dependency points backwards in the trace.
Per-tensor region lists are pruned when a write covers older regions, so tracking stays near-linear.
"""
from __future__ import annotations

from .constants import HwTarget
from .costs import compute_ns, dma_cost

COMPUTE_ENGINES = ("tensor", "vector", "scalar", "gpsimd")
_REGION_CAP = 256  # per tensor and list; beyond it the list collapses to one conservative bounding box
_BUCKET_NS = 256.0  # DMA pipe calendar resolution
_SEQ_KINDS = ("sequential", "python")


class _TensorState:
    __slots__ = ("writes", "reads")

    def __init__(self):
        self.writes = []  # [p_lo, p_hi, f_lo, f_hi, end_ns, engine]
        self.reads = []  # [p_lo, p_hi, f_lo, f_hi, end_ns]


def _collapse(regions, with_engine):
    p_lo = min(r[0] for r in regions)
    p_hi = max(r[1] for r in regions)
    f_lo = min(r[2] for r in regions)
    f_hi = max(r[3] for r in regions)
    end = max(r[4] for r in regions)
    return [[p_lo, p_hi, f_lo, f_hi, end, None]] if with_engine else [[p_lo, p_hi, f_lo, f_hi, end]]


class Schedule:
    """What the scheduler produces: per-instruction start/end, placement, and DMA pipe intervals."""

    def __init__(self, n):
        self.start = [0.0] * n
        self.end = [0.0] * n
        self.unit = [""] * n  # engine name, or "dma<q>"
        self.dma_data = []  # (data_start, data_end) per DMA
        self.latency_ns = 0.0
        self.busy_ns = {e: 0.0 for e in COMPUTE_ENGINES}
        self.busy_ns["dma"] = 0.0


class _DmaPipe:
    """Shared DMA bandwidth as a calendar of buckets holding the normalised bytes still free in each."""

    def __init__(self, rate_bytes_per_ns):
        self.rate = rate_bytes_per_ns
        self.cap = _BUCKET_NS * rate_bytes_per_ns
        self.left = {}

    def transfer(self, t0, demand, own_rate):
        """Move `demand` normalised bytes from t0 at no more than own_rate; return the end time."""
        if demand <= 0:
            return t0
        left = self.left
        cap = self.cap
        w = _BUCKET_NS
        b = int(t0 // w)
        t = t0
        while True:
            avail = left.get(b, cap)
            span = (b + 1) * w - t
            take = min(avail, own_rate * span, demand)
            if take > 0:
                left[b] = avail - take
                demand -= take
                if demand <= 1e-9:
                    return t + take / own_rate
            b += 1
            t = b * w


def schedule(trace, hw: HwTarget, sequential_barrier: bool = False) -> Schedule:
    instrs = trace.instrs if hasattr(trace, "instrs") else list(trace)
    n = len(instrs)
    sch = Schedule(n)
    free = {e: 0.0 for e in COMPUTE_ENGINES}
    dma_free = [0.0] * hw.dma_queues
    pipe = _DmaPipe(hw.dma_aggregate_bytes_per_ns)
    states = {}
    lat_ns = {e: hw.dep_latency_cycles / hw.ghz(e) for e in COMPUTE_ENGINES}
    # sequential loop_id -> [current index, max end so far, barrier time for the current iteration]
    seq = {}
    busy = sch.busy_ns
    starts, ends, units = sch.start, sch.end, sch.unit
    last_end = 0.0

    for i, ins in enumerate(instrs):
        eng = ins.engine
        is_dma = eng == "dma"
        lat = 0.0 if is_dma else lat_ns.get(eng, 0.0)
        ready = 0.0
        seq_loops = None
        if sequential_barrier and ins.loops:
            for lp in ins.loops:
                if lp.kind in _SEQ_KINDS:
                    st = seq.get(lp.loop_id)
                    if st is None:
                        st = seq[lp.loop_id] = [lp.index, 0.0, 0.0]
                    elif lp.index != st[0]:
                        st[0] = lp.index
                        st[2] = st[1]
                    if st[2] > ready:
                        ready = st[2]
                    if seq_loops is None:
                        seq_loops = []
                    seq_loops.append(st)
        # Dependencies through buffers.
        for a in ins.reads:
            st = states.get(a.tensor_id)
            if st is None:
                continue
            pl, ph, fl, fh = a.p_lo, a.p_hi, a.f_lo, a.f_hi
            for w in st.writes:
                if w[0] < ph and pl < w[1] and w[2] < fh and fl < w[3]:
                    # Accumulating matmuls into one PSUM bank are ordered by TensorE itself (§1.7), no semaphore.
                    t = w[4] if (w[5] == eng and eng == "tensor") else w[4] + lat
                    if t > ready:
                        ready = t
        for a in ins.writes:
            st = states.get(a.tensor_id)
            if st is None:
                continue
            pl, ph, fl, fh = a.p_lo, a.p_hi, a.f_lo, a.f_hi
            if a.memory != "hbm":
                # WAW on HBM is skipped: HBM boxes are flat byte ranges, so the boxes of strided tiles of one
                # output overlap without sharing bytes, and the hardware does not order independent stores.
                for w in st.writes:
                    if w[0] < ph and pl < w[1] and w[2] < fh and fl < w[3] and w[4] > ready:
                        ready = w[4]
            for r in st.reads:
                if r[0] < ph and pl < r[1] and r[2] < fh and fl < r[3] and r[4] > ready:
                    ready = r[4]

        if is_dma:
            q = min(range(len(dma_free)), key=dma_free.__getitem__)
            start = max(ready, dma_free[q])
            c = dma_cost(ins, hw)
            data_start = start + c.fixed_ns
            demand = c.pipe_ns * pipe.rate
            own_rate = demand / c.own_ns if c.own_ns > 0 else pipe.rate
            data_end = pipe.transfer(data_start, demand, own_rate)
            end = data_end
            dma_free[q] = end
            sch.dma_data.append((data_start, data_end))
            busy["dma"] += end - start
            units[i] = "dma%d" % q
        else:
            if eng not in free:
                eng = "vector"  # unknown engine names run somewhere; vector is the general-purpose one
            start = ready if ready > free[eng] else free[eng]
            dur = compute_ns(ins, hw)
            end = start + dur
            free[eng] = end
            busy[eng] += dur
            units[i] = eng
        starts[i] = start
        ends[i] = end
        if end > last_end:
            last_end = end
        if seq_loops:
            for st in seq_loops:
                if end > st[1]:
                    st[1] = end

        # Record this instruction's accesses.
        for a in ins.writes:
            st = states.get(a.tensor_id)
            if st is None:
                st = states[a.tensor_id] = _TensorState()
            pl, ph, fl, fh = a.p_lo, a.p_hi, a.f_lo, a.f_hi
            # A write that covers an older region supersedes it: later accesses depend on this (later) write.
            if st.writes:
                st.writes = [w for w in st.writes if not (pl <= w[0] and w[1] <= ph and fl <= w[2] and w[3] <= fh)]
            if st.reads:
                st.reads = [r for r in st.reads if not (pl <= r[0] and r[1] <= ph and fl <= r[2] and r[3] <= fh)]
            st.writes.append([pl, ph, fl, fh, end, eng])
            if len(st.writes) > _REGION_CAP:
                st.writes = _collapse(st.writes, True)
        for a in ins.reads:
            st = states.get(a.tensor_id)
            if st is None:
                st = states[a.tensor_id] = _TensorState()
            rd = st.reads
            if rd:
                r = rd[-1]
                if r[0] == a.p_lo and r[1] == a.p_hi and r[2] == a.f_lo and r[3] == a.f_hi:
                    if end > r[4]:
                        r[4] = end
                    continue
            rd.append([a.p_lo, a.p_hi, a.f_lo, a.f_hi, end])
            if len(rd) > _REGION_CAP:
                st.reads = _collapse(rd, False)

    sch.latency_ns = last_end
    return sch
