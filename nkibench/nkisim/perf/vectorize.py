"""What the compiler's vectorisation of affine_range loops does to small compute instructions.

nki-facts §1.6: an affine_range loop has no loop-carried dependency, "is not unrolled until the compiler backend,
and it allows loop optimisations such as vectorisation". Vectorising merges the instances one body instruction
has across the loop's iterations into one instruction over all of them, so the fixed per-instruction cost
(VectorE/ScalarE's MIN_II floor, GpSimd's start-up; §2.2, §3.3) and the semaphore latency between dependent
instructions (the ~100-cycle static overhead, §3.3) are paid once per merged instruction rather than once per
iteration. sequential_range, Python range and static_range loops get no loop optimisations (§1.6), so their
instructions stay as written.

Modelled: a Vector/Scalar/GpSimd instruction whose innermost loop is an affine_range, and whose cost is held up
by the floor (its data-proportional cost is below it), is one of the R instances of its body instruction in that
loop (same line, op, engine, sizes and dtypes). R instances merge in groups of V = min(R, the per-instruction
free-size limit // its free size) (64 Ki elements per partition, 4 Ki with a PSUM operand; hardware.py), and each
instance is charged max(its data-proportional cost, its cost / V), and 1/V of the dependency latency. TensorE
(already pipelined by II, §3.2) and DMAs are left as they are.

Not modelled (the docs do not say): vectorisation across nested affine loops (only the innermost counts),
limits from SBUF capacity on the merged tiles, and vectorisation of instructions that are not held up by the
floor (they gain nothing from it).
"""
from __future__ import annotations

import dataclasses

from ..hardware import FREE_MAX_PSUM, FREE_MAX_SBUF
from .costs import compute_ns

_ENGINES = ("vector", "scalar", "gpsimd")


def factors(instrs, hw) -> list | None:
    """The vectorisation factor V of every instruction (1: as written), or None when no instruction has one."""
    bare = dataclasses.replace(hw, min_ii=0, gpsimd_overhead=0)
    floored = {}  # family -> whether the floor holds its cost up
    counts = {}
    keys = [None] * len(instrs)
    for i, ins in enumerate(instrs):
        if ins.engine not in _ENGINES or not ins.loops or ins.loops[-1].kind != "affine":
            continue
        held = floored.get(ins.family) if ins.family is not None else None
        if held is None:
            held = compute_ns(ins, bare) < compute_ns(ins, hw)
            if ins.family is not None:
                floored[ins.family] = held
        if not held:
            continue
        key = (ins.loops[-1].loop_id, ins.line, ins.op, ins.engine, ins.partitions, ins.free_elems, ins.dtype,
               tuple(ins.in_dtypes))
        keys[i] = key
        counts[key] = counts.get(key, 0) + 1
    if not counts or max(counts.values()) < 2:
        return None
    out = [1] * len(instrs)
    for i, key in enumerate(keys):
        if key is None:
            continue
        ins = instrs[i]
        psum = any(a.memory == "psum" for a in ins.reads) or any(a.memory == "psum" for a in ins.writes)
        room = (FREE_MAX_PSUM if psum else FREE_MAX_SBUF) // max(int(ins.free_elems), 1)
        out[i] = max(1, min(counts[key], room))
    return out


def vectorised_ns(ins, hw, v: int) -> float:
    """One instance's cost when v instances merge: max(data-proportional cost, the instruction's cost / v)."""
    full = compute_ns(ins, hw)
    if v <= 1:
        return full
    bare = compute_ns(ins, dataclasses.replace(hw, min_ii=0, gpsimd_overhead=0))
    return max(bare, full / v)
