"""Why the model thinks a kernel takes as long as it does: the modelled effects behind an estimate, each as time.

Read from a finished Schedule next to its trace (like profile.py), and from the same cost formulas (costs.py), so
nothing here changes the estimate. Effects, per engine:

  fixed_overhead     the part of compute instructions' time that does not scale with the data: VectorE/ScalarE's
                     MIN_II floor, GpSimd's start-up, TensorE's minimum matmul interval. The formula run again
                     with those floors at 0 gives the data-proportional part; the rest is overhead.
  fp32_passes        TensorE's extra passes for fp32 operands (4 against 1 for bf16/fp16).
  throughput         the data-proportional rest of compute time.
  dependency_stall   time an engine sat idle between its first and last instruction, its next instruction waiting
                     for another's result (read-after-write plus the semaphore latency, or a write-after-read).
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
from .costs import compute_ns, dma_cost
from .scheduler import COMPUTE_ENGINES
from .vectorize import vectorised_ns

EFFECTS = ("fixed_overhead", "fp32_passes", "throughput", "dependency_stall", "dma_fixed_latency", "dma_small_rows",
           "dma_transfer", "psum_operand")

_WHAT = {
    "fixed_overhead": "per-instruction fixed cost (MIN_II floor, GpSimd start-up, TensorE minimum interval)",
    "fp32_passes": "fp32 matmul passes (4x the bf16/fp16 time)",
    "throughput": "data-proportional compute",
    "dependency_stall": "waiting for another instruction's result",
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
    acc = {}  # (effect, engine) -> [ns, instructions]
    engines = {e: {"busy_ns": 0.0, "stall_ns": 0.0, "instructions": 0} for e in COMPUTE_ENGINES + ("dma",)}
    last_end = {}
    memo = {}
    dma_index = 0  # sch.dma_data holds one (start, data end) per DMA, in trace order
    vectorised = [0, 0.0]  # instructions merged by affine_range vectorisation, and the time that saved

    def add(effect, engine, ns, count=1):
        if ns > 0:
            cell = acc.setdefault((effect, engine), [0.0, 0])
            cell[0] += ns
            cell[1] += count

    for i, ins in enumerate(instrs):
        unit = sch.unit[i]
        start, end = sch.start[i], sch.end[i]
        engine = "dma" if unit.startswith("dma") else unit
        e = engines.setdefault(engine, {"busy_ns": 0.0, "stall_ns": 0.0, "instructions": 0})
        e["busy_ns"] += end - start
        e["instructions"] += 1
        prev = last_end.get(unit)
        if prev is not None and start > prev and engine != "dma":
            e["stall_ns"] += start - prev
            add("dependency_stall", engine, start - prev)
        last_end[unit] = end
        vf = sch.vector_factors[i] if sch.vector_factors is not None else 1
        key = (ins.family, vf) if ins.family is not None else None
        parts = memo.get(key) if key is not None else None
        if parts is None:
            parts = _dma_parts(ins, hw) if engine == "dma" else _compute_parts(ins, hw, bare, single, vf)
            if key is not None:
                memo[key] = parts
        if vf > 1:
            vectorised[0] += 1
            vectorised[1] += compute_ns(ins, hw) - (end - start)
        if engine == "dma":
            data_end = sch.dma_data[dma_index][1]
            dma_index += 1
            fixed = max(end - max(data_end, start), 0.0)
            moving = end - start - fixed
            rows = moving * parts
            add("dma_fixed_latency", engine, fixed)
            add("dma_small_rows", engine, rows)
            add("dma_transfer", engine, moving - rows)
        else:
            overhead, passes, work = parts
            add("fixed_overhead", engine, overhead)
            add("fp32_passes", engine, passes)
            add("throughput", engine, work)
            if any(a.memory == "psum" for a in ins.reads) or any(a.memory == "psum" for a in ins.writes):
                add("psum_operand", engine, end - start)
    run = sch.latency_ns
    lanes = {k: (hw.dma_queues if k == "dma" else 1) for k in engines}
    busy = {k: v["busy_ns"] / lanes[k] for k, v in engines.items() if v["instructions"]}
    bound = max(busy, key=busy.get) if busy else ""
    effects = []
    for (effect, engine), (ns, count) in acc.items():
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


def _compute_parts(ins, hw, bare, single, vf=1):
    """(fixed overhead, fp32 passes, data-proportional) ns of a compute instruction; they sum to its cost (its
    share of a merged instruction when affine_range vectorisation merges vf instances, vectorize.py)."""
    full = vectorised_ns(ins, hw, vf)
    no_floor = min(compute_ns(ins, bare), full)
    passes = 0.0
    if ins.engine == "tensor":
        one_pass = compute_ns(ins, single)
        passes = max(full - one_pass, 0.0)
        # the floors and the passes multiply: split the floor's share in the one-pass time
        one_pass_bare = min(compute_ns(ins, dataclasses.replace(bare, mm_fp32_passes=1)), one_pass)
        return one_pass - one_pass_bare, passes, one_pass_bare
    return full - no_floor, passes, no_floor


def _dma_parts(ins, hw):
    """The fraction of a DMA's transfer time its small rows waste: every row (descriptor) costs at least
    dma_descriptor_bytes of engine time (costs.dma_cost)."""
    c = dma_cost(ins, hw)
    raw = float(ins.dma_bytes or 0)
    return max(c.effective_bytes - raw, 0.0) / c.effective_bytes if c.effective_bytes > 0 else 0.0
