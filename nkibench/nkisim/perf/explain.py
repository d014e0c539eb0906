"""Why the model thinks a kernel takes as long as it does: the modelled effects behind an estimate, each as time.

Read from a finished Schedule next to its trace (like profile.py), and from the same cost formulas (costs.py), so
nothing here changes the estimate. Effects, per engine:

  fixed_overhead     the part of compute instructions' time that does not scale with the data: VectorE/ScalarE's
                     MIN_II floor, GpSimd's start-up, TensorE's minimum matmul interval. The formula run again
                     with those floors at 0 gives the data-proportional part; the rest is overhead.
  fp32_passes        TensorE's extra passes for fp32 operands (4 against 1 for bf16/fp16).
  strided_access     the data-proportional time a most-minor free stride over 16 bytes adds on NC-v2 (it halves
                     the SBUF/PSUM interface's bandwidth, costs.stride_factor): the formula run again with the
                     stride rule off gives the rest.
  throughput         the data-proportional rest of compute time.
  dependency_stall   time an engine sat idle between its first and last instruction, its next instruction waiting
                     for another's result (read-after-write plus the semaphore latency, or a write-after-read).
  port_sharing_stall time an engine sat idle waiting for NC-v2's shared SBUF port (VectorE/GpSimdE) or PSUM
                     port (VectorE/ScalarE) while the other engine of the pair used it (scheduler._Ports); listed
                     for every engine, since it says which pair the compiler serialises.
  dma_fixed_latency  DMA queue time past the end of the data transfer: the ~1.3 us a transfer takes at least.
  dma_small_rows     the share of transfer time beyond what the bytes need, because rows (descriptors) under
                     dma_descriptor_bytes cost that much each: the DMA size class.
  dma_transfer       the rest of the DMA queues' time: moving the bytes.
  psum_operand       compute time of instructions that read or write PSUM (a subset of the above, as information).

`vectorised` counts the instructions the compiler's affine_range vectorisation merges (vectorize.py) and the time
that saves against issuing them one by one.

Each effect's `ns` is summed over its instructions (DMA: over the 16 queues, so it can exceed the run); `share` is
that time over the run (DMA: over the run times the 16 queues). The bound is the busiest engine (DMA counted per
queue); only its stalls are listed as an effect, since the other engines mostly wait for it.
"""
from __future__ import annotations

import dataclasses

from .constants import get_target
from .costs import compute_ns, dma_cost, stride_factor
from .scheduler import COMPUTE_ENGINES
from .vectorize import vectorised_ns

EFFECTS = ("fixed_overhead", "fp32_passes", "strided_access", "throughput", "dependency_stall", "port_sharing_stall",
           "dma_fixed_latency", "dma_small_rows", "dma_transfer", "psum_operand")

_WHAT = {
    "fixed_overhead": "per-instruction fixed cost (MIN_II floor, GpSimd start-up, TensorE minimum interval)",
    "fp32_passes": "fp32 matmul passes (4x the bf16/fp16 time)",
    "strided_access": "operands read or written with a minor free stride over 16 bytes (half bandwidth, NC-v2)",
    "throughput": "data-proportional compute",
    "dependency_stall": "waiting for another instruction's result",
    "port_sharing_stall": "waiting for the SBUF/PSUM port another engine shares (NC-v2: Vector/GpSimd, Vector/Scalar)",
    "dma_fixed_latency": "DMA fixed latency (each transfer takes at least dma_fixed_ns)",
    "dma_small_rows": "DMA rows under the descriptor size (each costs a full descriptor)",
    "dma_transfer": "moving the bytes",
    "psum_operand": "instructions with a PSUM operand (part of the above)",
}


def explain(instrs, sch, target="trn1") -> dict:
    """{"latency_ns", "bound", "engines": {engine: {"busy_ns", "stall_ns", "instructions"}}, "effects": [...]}
    with effects largest first: {"effect", "engine", "ns", "share", "instructions", "what"}."""
    hw = get_target(target)
    bare = dataclasses.replace(hw, min_ii=0, gpsimd_overhead=0, mm_min_ii=0)
    single = dataclasses.replace(hw, mm_fp32_passes=1)
    port_wait = getattr(sch, "port_wait", {})
    acc = {}  # (effect, engine) -> [ns, instructions]
    engines = {e: {"busy_ns": 0.0, "stall_ns": 0.0, "instructions": 0} for e in COMPUTE_ENGINES + ("dma",)}
    last_end = {}
    memo = {}
    dma_index = 0  # sch.dma_data holds one (start, data end) per DMA, in trace order
    vectorised = [0, 0.0]  # instructions merged by affine_range vectorisation, and the time that saved
    factors = sch.vector_factors
    units, starts, ends, dma_data = sch.unit, sch.start, sch.end, sch.dma_data

    def cell(effect, engine):
        c = acc.get((effect, engine))
        if c is None:
            c = acc[(effect, engine)] = [0.0, 0]
        return c

    for i, ins in enumerate(instrs):
        unit = units[i]
        start, end = starts[i], ends[i]
        dur = end - start
        is_dma = unit.startswith("dma")
        engine = "dma" if is_dma else unit
        e = engines[engine]
        e["busy_ns"] += dur
        e["instructions"] += 1
        vf = factors[i] if factors is not None else 1
        key = (ins.family, vf, engine) if ins.family is not None else None
        cells = memo.get(key) if key is not None else None
        if cells is None:
            cells = _cells(ins, hw, bare, single, vf, engine, cell)
            if key is not None:
                memo[key] = cells
        if is_dma:
            data_end = dma_data[dma_index][1]
            dma_index += 1
            fixed = end - (data_end if data_end > start else start)
            fixed = fixed if fixed > 0 else 0.0
            moving = dur - fixed
            rows = moving * cells[0]
            for c, ns in ((cells[1], fixed), (cells[2], rows), (cells[3], moving - rows)):
                if ns > 0:
                    c[0] += ns
                    c[1] += 1
            continue
        prev = last_end.get(unit)
        if prev is not None and start > prev:
            e["stall_ns"] += start - prev
            pw = port_wait.get(i, 0.0)
            if start - prev - pw > 0:
                c = cell("dependency_stall", engine)
                c[0] += start - prev - pw
                c[1] += 1
        else:
            pw = port_wait.get(i, 0.0) if prev is None else 0.0
        if pw > 0:
            c = cell("port_sharing_stall", engine)
            c[0] += pw
            c[1] += 1
        last_end[unit] = end
        for c, ns in cells[0]:
            c[0] += ns
            c[1] += 1
        if cells[1] is not None:
            cells[1][0] += dur
            cells[1][1] += 1
        if vf > 1:
            vectorised[0] += 1
            vectorised[1] += cells[2] - dur
    run = sch.latency_ns
    lanes = {k: (hw.dma_queues if k == "dma" else 1) for k in engines}
    busy = {k: v["busy_ns"] / lanes[k] for k, v in engines.items() if v["instructions"]}
    bound = max(busy, key=busy.get) if busy else ""
    effects = []
    for (effect, engine), (ns, count) in acc.items():
        if ns <= 0:
            continue
        if effect == "dependency_stall" and engine != bound:
            continue  # an engine that is not the busiest waits for the one that is: that says nothing new
        share = ns / (run * lanes[engine]) if run > 0 else 0.0
        effects.append({"effect": effect, "engine": engine, "ns": ns, "share": share, "instructions": count,
                        "what": _WHAT[effect]})
    effects.sort(key=lambda x: (x["effect"] == "psum_operand", -x["share"]))
    return {"latency_ns": run, "target": hw.name, "bound": bound,
            "engines": {k: dict(v, share=busy[k] / run if run > 0 else 0.0) for k, v in engines.items()
                        if v["instructions"]},
            "effects": effects,
            "vectorised": {"instructions": vectorised[0], "saved_ns": max(vectorised[1], 0.0)}}


def _cells(ins, hw, bare, single, vf, engine, cell):
    """What one instruction adds, by its family: for a DMA (the fraction its small rows waste, and the fixed
    latency, small rows and transfer cells); for a compute instruction ([(cell, ns)] of its fixed overhead, fp32
    passes and data-proportional parts, the PSUM cell or None, its cost as written)."""
    if engine == "dma":
        return (_dma_parts(ins, hw), cell("dma_fixed_latency", engine), cell("dma_small_rows", engine),
                cell("dma_transfer", engine))
    moved = ins if ins.engine == engine else dataclasses.replace(ins, engine=engine)  # scheduler._auto_copy
    parts = _compute_parts(moved, hw, bare, single, vf)
    named = [(cell(effect, engine), ns) for effect, ns in zip(("fixed_overhead", "fp32_passes", "strided_access",
                                                               "throughput"), parts) if ns > 0]
    psum = any(a.memory == "psum" for a in ins.reads) or any(a.memory == "psum" for a in ins.writes)
    return named, cell("psum_operand", engine) if psum else None, compute_ns(moved, hw)


def _compute_parts(ins, hw, bare, single, vf=1):
    """(fixed overhead, fp32 passes, strided access, data-proportional) ns of a compute instruction; they sum to its
    cost (its share of a merged instruction when affine_range vectorisation merges vf instances, vectorize.py)."""
    full = vectorised_ns(ins, hw, vf)
    no_floor = min(compute_ns(ins, bare), full)
    passes = 0.0
    if ins.engine == "tensor":
        one_pass = compute_ns(ins, single)
        passes = max(full - one_pass, 0.0)
        # the floors and the passes multiply: split the floor's share in the one-pass time
        one_pass_bare = min(compute_ns(ins, dataclasses.replace(bare, mm_fp32_passes=1)), one_pass)
        return one_pass - one_pass_bare, passes, 0.0, one_pass_bare
    strided = 0.0
    if stride_factor(ins, hw) > 1:
        # the data-proportional part without the stride rule; the rest of it is the stride's
        unstrided = min(compute_ns(ins, dataclasses.replace(bare, strided_access_bytes=0)), no_floor)
        strided, no_floor = no_floor - unstrided, unstrided
    return full - no_floor - strided, passes, strided, no_floor


def _dma_parts(ins, hw):
    """The fraction of a DMA's transfer time its small rows waste: every row (descriptor) costs at least
    dma_descriptor_bytes of engine time (costs.dma_cost)."""
    c = dma_cost(ins, hw)
    raw = float(ins.dma_bytes or 0)
    return max(c.effective_bytes - raw, 0.0) / c.effective_bytes if c.effective_bytes > 0 else 0.0
