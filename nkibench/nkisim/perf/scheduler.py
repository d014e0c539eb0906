"""List scheduler: places each traced instruction in time on a model of one NeuronCore.

Model (nki-facts §3.3, §3.4, §8):
- tensor, vector, scalar and gpsimd are in-order queues, one instruction at a time each, in trace order.
- 16 DMA queues, each in order; a DMA goes to the queue that frees first. The queues share one DMA pipe: the
  16 DMA engines' time, kept as a calendar of time buckets, so concurrent transfers split the engines and a
  transfer that can use few engines (one per 8 partitions) leaves the rest to the others. A DMA's demand is its
  bytes with every descriptor counted as at least constants.dma_descriptor_bytes; its fixed latency
  (dma_fixed_ns) overlaps the transfer: it ends no earlier than that after it starts.
- An instruction waits for the instructions whose buffers it touches: read-after-write (plus a semaphore /
  pipeline latency), write-after-read and write-after-write, on overlapping bounding boxes of the same
  tensor_id. Tiles allocated in an affine_range body get fresh tensor_ids each iteration, so iterations overlap.
- sequential_range and Python range loops are ordered only through the real dependencies, like affine_range.
  We tried a pipeline barrier per iteration (no cross-iteration overlap): it puts the matmul tutorial's Opt 3,
  whose K blocks are a sequential_range (§4.2), at +42% (9.9 ms against 6.97 ms), while dependencies alone give
  +0%, and Opt 3's published 85% HFU leaves no room for a drain per K block. The barrier stays available as
  schedule(..., sequential_barrier=True) for experiments.

- NC-v2 (trn1) only: VectorE and GpSimdE cannot access SBUF at the same time, nor VectorE and ScalarE PSUM; the
  compiler serialises them (constants.shared_sbuf_psum_ports, §3.3). Each such instruction holds its shared port
  for its whole duration and starts at the first time from its ready time when the port is free for that long
  (_Ports): it may fill a gap the other engine leaves, not only follow it.

Processing in trace order is exact for in-order queues since every dependency points backwards in the trace.
Per-tensor region lists are pruned when a write covers older regions, so tracking stays near-linear.
"""
from __future__ import annotations

import dataclasses
from bisect import bisect_right

from .constants import HwTarget
from .costs import compute_ns, dma_cost
from .vectorize import vectorised_ns

COMPUTE_ENGINES = ("tensor", "vector", "scalar", "gpsimd")
_REGION_CAP = 256  # per tensor and list; beyond it the list collapses to one conservative bounding box
_BUCKET_NS = 256.0  # DMA pipe calendar resolution
_SEQ_KINDS = ("sequential", "python")


# Per tensor_id, a list [writes, reads, writes index, reads index]: writes holds [p_lo, p_hi, f_lo, f_hi, end_ns,
# engine] and reads [p_lo, p_hi, f_lo, f_hi, end_ns]; an index is a _CoverIndex of a long list, or None. (A list
# rather than an object: one is created for every tile.)


_INDEX_MIN = 8  # lists shorter than this are scanned directly


class _CoverIndex:
    """Which regions of a long list a new write could cover, without scanning it: covering needs f_lo >= the
    write's f_lo and f_hi <= its f_hi, so with the list's f_hi sorted and the running maximum of f_lo over that
    order, one bisection tells whether any region qualifies. A tensor written in many disjoint pieces (an HBM
    output) would otherwise be scanned at every write. Partitions are checked by the scan that follows a hit."""

    __slots__ = ("fh", "pm")

    def __init__(self, regions):
        pairs = sorted((r[3], r[2]) for r in regions)
        self.fh = [fh for fh, _ in pairs]
        self.pm = []
        m = None
        for _, fl in pairs:
            m = fl if m is None or fl > m else m
            self.pm.append(m)

    def maybe_covers(self, fl, fh):
        j = bisect_right(self.fh, fh) - 1
        return j >= 0 and self.pm[j] >= fl

    def add(self, fl, fh):
        p = bisect_right(self.fh, fh)
        pm = self.pm
        v = fl if p == 0 or fl > pm[p - 1] else pm[p - 1]
        self.fh.insert(p, fh)
        pm.insert(p, v)
        for j in range(p + 1, len(pm)):
            if pm[j] >= v:
                break
            pm[j] = v


def _prune(regions, idx, pl, ph, fl, fh):
    """regions without those covered by the write box, or None when none is covered."""
    if idx is not None and not idx.maybe_covers(fl, fh):
        return None
    kept = [r for r in regions if not (pl <= r[0] and r[1] <= ph and fl <= r[2] and r[3] <= fh)]
    return kept if len(kept) != len(regions) else None


def _collapse(regions, with_engine):
    cols = list(zip(*regions))
    box = [min(cols[0]), max(cols[1]), min(cols[2]), max(cols[3]), max(cols[4])]
    if with_engine:
        box.append(None)
    return [box]


class _Ports:
    """NC-v2's shared SBUF/PSUM ports: per port, the busy intervals of each of the two engines sharing it.

    Every engine is an in-order queue, so each engine's intervals are appended in time order; an engine only ever
    looks at its partner's intervals, from its own free time on, so a head index per list skips the ones that end
    before it for good (and the lists are trimmed as the heads advance)."""

    # port -> the two engines that share it (trainium_inferentia2_arch.rst, "Memory hierarchy")
    SHARED = {"sbuf": ("vector", "gpsimd"), "psum": ("vector", "scalar")}

    def __init__(self):
        self.busy = {(port, e): [] for port, pair in self.SHARED.items() for e in pair}
        self.head = dict.fromkeys(self.busy, 0)

    @staticmethod
    def ports(ins, eng):
        """The shared ports instruction ins holds when it runs on engine eng: () for most."""
        if eng == "tensor" or eng == "dma":
            return ()
        mems = {a[1] for a in ins.reads}
        mems.update(a[1] for a in ins.writes)
        if ins.attrs.get("psum_operand"):
            mems.add("psum")
        out = ()
        if "sbuf" in mems and eng in ("vector", "gpsimd"):
            out = ("sbuf",)
        if "psum" in mems and eng in ("vector", "scalar"):
            out += ("psum",)
        return out

    def place(self, ports, eng, t, dur):
        """The earliest start >= t at which eng may hold every port in ports for dur ns."""
        if dur <= 0:
            return t
        lists = []
        for port in ports:
            a, b = self.SHARED[port]
            key = (port, b if eng == a else a)
            lst = self.busy[key]
            h = self.head[key]
            while h < len(lst) and lst[h][1] <= t:  # ends before this engine's next start: no one needs it again
                h += 1
            if h > 4096:
                del lst[:h]
                h = 0
            self.head[key] = h
            lists.append([lst, h])
        moved = True
        while moved:
            moved = False
            for cur in lists:
                lst, k = cur
                n = len(lst)
                while k < n and lst[k][1] <= t:
                    k += 1
                cur[1] = k
                if k < n and lst[k][0] < t + dur:
                    t = lst[k][1]  # overlaps the partner's access: try again after it
                    moved = True
        return t

    def hold(self, ports, eng, start, end):
        for port in ports:
            self.busy[(port, eng)].append((start, end))


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
        self.vector_factors = None  # per instruction (vectorize.py), or None
        self.port_wait = {}  # instruction index -> ns it waited for a shared SBUF/PSUM port (NC-v2), when > 0


_END = 1 << 62  # start of the sentinel run closing the calendar: no transfer reaches it


class _DmaPipe:
    """Shared DMA bandwidth as a calendar of buckets holding the normalised bytes still free in each.

    The calendar is run-length encoded: bucket b holds vals[k] for the run k with starts[k] <= b < starts[k + 1]
    (untouched buckets hold the full capacity; a sentinel run starts at _END). A transfer at a steady rate leaves
    the same remainder in every whole bucket it crosses, so runs stay few, and a transfer walks runs rather than
    buckets. The arithmetic per bucket is the plain bucket walk's (the same takes in the same order), so times
    are exact; only the bookkeeping is per run."""

    def __init__(self, rate_bytes_per_ns):
        self.rate = rate_bytes_per_ns
        self.cap = _BUCKET_NS * rate_bytes_per_ns
        self.starts = [0, _END]
        self.vals = [self.cap, self.cap]

    def _set(self, k, lo, hi, v):
        """Set buckets [lo, hi), which lie in run k, to v; return the index of the run holding bucket hi."""
        starts, vals = self.starts, self.vals
        old = vals[k]
        if old == v:
            return k if hi < starts[k + 1] else k + 1
        if hi < starts[k + 1]:
            starts.insert(k + 1, hi)
            vals.insert(k + 1, old)
        if lo > starts[k]:
            starts.insert(k + 1, lo)
            vals.insert(k + 1, v)
            k += 1
        else:
            vals[k] = v
        # merge with equal neighbours so that exhausted stretches stay one run
        if vals[k + 1] == v and k + 2 < len(starts):
            del starts[k + 1], vals[k + 1]
        if k > 0 and vals[k - 1] == v:
            del starts[k], vals[k]
            k -= 1
        return k if hi < starts[k + 1] else k + 1

    def transfer(self, t0, demand, own_rate):
        """Move `demand` normalised bytes from t0 at no more than own_rate; return the end time."""
        if demand <= 0:
            return t0
        starts, vals = self.starts, self.vals
        w = _BUCKET_NS
        step = own_rate * w  # the most a whole bucket can give this transfer
        b = int(t0 // w)
        k = bisect_right(starts, b) - 1
        if t0 != b * w:  # a partial first bucket
            v = vals[k]
            if v > 0:
                take = own_rate * ((b + 1) * w - t0)
                if v < take:
                    take = v
                if demand < take:
                    take = demand
                k = self._set(k, b, b + 1, v - take)
                demand -= take
                if demand <= 1e-9:
                    return t0 + take / own_rate
            b += 1
            if b >= starts[k + 1]:
                k += 1
        while True:
            v = vals[k]
            if v <= 0:  # an exhausted run gives nothing; skip it whole
                k += 1
                b = starts[k]
                continue
            # Whole buckets of this run: each gives m = min(v, step) until the demand is no larger (then it gives
            # the demand); the transfer ends in the bucket where what is left drops to 1e-9 or below.
            m = v if v < step else step
            first = b
            lim = starts[k + 1]
            while b < lim:
                if demand <= m:
                    take = demand
                    break
                rest = demand - m
                if rest <= 1e-9:
                    take = m
                    break
                demand = rest
                b += 1
            else:
                k = self._set(k, first, b, v - m)
                continue
            if b > first:
                k = self._set(k, first, b, v - m)
            self._set(k, b, b + 1, v - take)
            return b * w + take / own_rate


def schedule(trace, hw: HwTarget, sequential_barrier: bool = False, vector_factors=None) -> Schedule:
    """vector_factors: per instruction, how many instances the compiler's affine_range vectorisation merges
    (vectorize.py; None: all as written)."""
    instrs = trace.instrs if hasattr(trace, "instrs") else list(trace)
    n = len(instrs)
    sch = Schedule(n)
    sch.vector_factors = vector_factors
    free = {e: 0.0 for e in COMPUTE_ENGINES}
    dma_free = [0.0] * hw.dma_queues
    pipe = _DmaPipe(hw.dma_aggregate_bytes_per_ns)
    transfer = pipe.transfer
    states = {}
    states_get = states.get
    lat_ns = {e: hw.dep_latency_cycles / hw.ghz(e) for e in COMPUTE_ENGINES}
    # sequential loop_id -> [current index, max end so far, barrier time for the current iteration]
    seq = {}
    busy = sch.busy_ns
    starts, ends, units = sch.start, sch.end, sch.unit
    dma_data = sch.dma_data
    last_end = 0.0
    dma_busy = 0.0
    cap = _REGION_CAP
    index_min = _INDEX_MIN
    dma_units = ["dma%d" % q for q in range(hw.dma_queues)]
    memo = {}  # Instr.family -> cost
    memo_get = memo.get
    # A region is kept only while some later instruction can consult it: a read by a later write (WAR), a write by
    # a later read (RAW) or, outside HBM, a later write (WAW). Regions past that point would never be looked at.
    last_read, last_write = _last_accesses(instrs)
    lr_get, lw_get = last_read.get, last_write.get
    ports = _Ports() if hw.shared_sbuf_psum_ports else None
    port_wait = sch.port_wait
    port_memo = {}  # (Instr.family, engine) -> the shared ports it holds

    for i, ins in enumerate(instrs):
        eng = ins.engine
        is_dma = eng == "dma"
        lat = 0.0 if is_dma else lat_ns.get(eng, 0.0)
        vf = vector_factors[i] if vector_factors is not None else 1
        if vf > 1:
            lat /= vf  # a merged instruction waits for its inputs once, for all the instances it stands for
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
        reads = ins.reads
        writes = ins.writes
        # Dependencies through buffers.
        for tid, _, pl, ph, fl, fh in reads:
            st = states_get(tid)
            if st is None:
                continue
            for w in st[0]:
                if w[0] < ph and pl < w[1] and w[2] < fh and fl < w[3]:
                    # Accumulating matmuls into one PSUM bank are ordered by TensorE itself (§1.7), no semaphore.
                    t = w[4] if (w[5] == eng and eng == "tensor") else w[4] + lat
                    if t > ready:
                        ready = t
        for tid, mem, pl, ph, fl, fh in writes:
            st = states_get(tid)
            if st is None:
                continue
            if mem != "hbm":
                # WAW on HBM is skipped: HBM boxes are flat byte ranges, so the boxes of strided tiles of one
                # output overlap without sharing bytes, and the hardware does not order independent stores.
                for w in st[0]:
                    if w[0] < ph and pl < w[1] and w[2] < fh and fl < w[3] and w[4] > ready:
                        ready = w[4]
            for r in st[1]:
                if r[0] < ph and pl < r[1] and r[2] < fh and fl < r[3] and r[4] > ready:
                    ready = r[4]

        fam = ins.family if vf == 1 or ins.family is None else (ins.family, vf)
        c = memo_get(fam) if fam is not None else None
        if is_dma:
            if c is None:
                c = _dma_terms(ins, hw)
                if fam is not None:
                    memo[fam] = c
            dm = min(dma_free)
            q = dma_free.index(dm)  # the first queue that frees first
            start = ready if ready > dm else dm
            # The data moves from the start; the fixed latency overlaps it (constants.dma_fixed_ns).
            end = transfer(start, c[1], c[2])
            data_end = end
            if end < start + c[0]:
                end = start + c[0]
            dma_free[q] = end
            dma_data.append((start, data_end))
            dma_busy += end - start
            units[i] = dma_units[q]
        else:
            if ins.op == "tensor_copy" and ins.attrs.get("engine_auto"):
                eng, c = _auto_copy(ins, hw, vf, ready, free, memo, fam)
            elif c is None:
                c = compute_ns(ins, hw) if vf == 1 else vectorised_ns(ins, hw, vf)
                if fam is not None:
                    memo[fam] = c
            fe = free[eng]
            start = ready if ready > fe else fe
            if ports is not None:
                pk = (ins.family, eng) if ins.family is not None else None
                held = port_memo.get(pk) if pk is not None else None
                if held is None:
                    held = ports.ports(ins, eng)
                    if pk is not None:
                        port_memo[pk] = held
                if held:
                    t = ports.place(held, eng, start, c)
                    if t > start:
                        port_wait[i] = t - start
                        start = t
                    ports.hold(held, eng, start, start + c)
            end = start + c
            free[eng] = end
            busy[eng] += c
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
        for tid, mem, pl, ph, fl, fh in writes:
            if lr_get(tid, -1) <= i and (mem == "hbm" or lw_get(tid) <= i):
                continue
            st = states_get(tid)
            if st is None:
                states[tid] = [[[pl, ph, fl, fh, end, eng]], [], None, None]
                continue
            # A write that covers an older region supersedes it: later accesses depend on this (later) write.
            for k in (0, 1):  # writes, then reads; st[k + 2] is the list's cover index
                regions = st[k]
                if regions:
                    if st[k + 2] is None and len(regions) >= index_min:
                        st[k + 2] = _CoverIndex(regions)
                    kept = _prune(regions, st[k + 2], pl, ph, fl, fh)
                    if kept is not None:
                        st[k] = kept
                        st[k + 2] = None
            ws = st[0]
            ws.append([pl, ph, fl, fh, end, eng])
            if st[2] is not None:
                st[2].add(fl, fh)
            if len(ws) > cap:
                st[0] = _collapse(ws, True)
                st[2] = None
        for tid, _, pl, ph, fl, fh in reads:
            if lw_get(tid, -1) <= i:
                continue
            st = states_get(tid)
            if st is None:
                states[tid] = [[], [[pl, ph, fl, fh, end]], None, None]
                continue
            rd = st[1]
            if rd:
                r = rd[-1]
                if r[0] == pl and r[1] == ph and r[2] == fl and r[3] == fh:
                    if end > r[4]:
                        r[4] = end
                    continue
            rd.append([pl, ph, fl, fh, end])
            if st[3] is not None:
                st[3].add(fl, fh)
            if len(rd) > cap:
                st[1] = _collapse(rd, False)
                st[3] = None

    busy["dma"] += dma_busy
    sch.latency_ns = last_end
    return sch


def _auto_copy(ins, hw, vf, ready, free, memo, fam):
    """(engine, ns) of a tensor_copy whose engine the compiler picks "based on engine workload"
    (constants.auto_copy_engines): the allowed engine that would finish it first, GpSimd only when no operand is
    in PSUM; on a tie the first in the target's order."""
    psum = any(a.memory == "psum" for a in ins.reads) or any(a.memory == "psum" for a in ins.writes)
    best = None
    for eng in hw.auto_copy_engines:
        if eng == "gpsimd" and psum:
            continue
        key = (fam, eng) if fam is not None else None
        c = memo.get(key) if key is not None else None
        if c is None:
            moved = ins if ins.engine == eng else dataclasses.replace(ins, engine=eng)
            c = compute_ns(moved, hw) if vf == 1 else vectorised_ns(moved, hw, vf)
            if key is not None:
                memo[key] = c
        fe = free[eng]
        end = (ready if ready > fe else fe) + c
        if best is None or end < best[0]:
            best = (end, eng, c)
    return best[1], best[2]


def _last_accesses(instrs):
    """{tensor_id: index of its last read} and {tensor_id: index of its last write}."""
    last_read, last_write = {}, {}
    for i, ins in enumerate(instrs):
        for a in ins.reads:
            last_read[a[0]] = i
        for a in ins.writes:
            last_write[a[0]] = i
    return last_read, last_write


def _dma_terms(ins, hw):
    """(fixed latency, demand on the pipe, own rate) of a DMA. The pipe's unit is the byte at the engines' full
    rate: a DMA demands its effective bytes (descriptor costs included) and draws at most the rate of its engines."""
    c = dma_cost(ins, hw)
    return c.fixed_ns, c.effective_bytes, c.engines * hw.dma_engine_rate
