"""neuron-profile summary metrics (names and definitions: nki-facts §5.2; the runner README's "Result").

`_percent` values are fractions 0-1, as neuron-profile writes them. Times are in seconds, as in the profile.
"""
from __future__ import annotations

from .constants import HwTarget
from .scheduler import COMPUTE_ENGINES, Schedule


def _matmul_flops(instr) -> int:
    at = instr.attrs
    if instr.op == "nc_transpose":
        p = int(at.get("k", instr.partitions))
        f = int(at.get("m", at.get("f", instr.free_elems)))
        return 2 * p * f * p  # a matmul of the [P, F] data against a P x P identity
    k = int(at.get("k", instr.partitions))
    m = int(at.get("m", 128))
    n = int(at.get("n", instr.free_elems))
    return 2 * k * m * n


def _union_length(intervals) -> float:
    total = 0.0
    cur_s = cur_e = None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        elif e > cur_e:
            cur_e = e
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def compute_metrics(trace, sch: Schedule, hw: HwTarget) -> dict:
    instrs = trace.instrs if hasattr(trace, "instrs") else list(trace)
    mem_r = {"hbm": 0, "sbuf": 0, "psum": 0}
    mem_w = {"hbm": 0, "sbuf": 0, "psum": 0}
    flops = 0
    tflops = 0
    counts = {e: 0 for e in COMPUTE_ENGINES}
    dma_count = 0
    dma_bytes = 0
    mm_count = 0
    for i, ins in enumerate(instrs):
        eng = ins.engine
        if eng != "dma":
            eng = sch.unit[i]  # where the scheduler ran it: a copy the compiler places may move (scheduler._auto_copy)
        if eng == "dma":
            nbytes = int(ins.dma_bytes or 0)
            dma_count += 1
            dma_bytes += nbytes
            at = ins.attrs
            src = at.get("src") or (ins.reads[0].memory if ins.reads else "hbm")
            dst = at.get("dst") or (ins.writes[0].memory if ins.writes else "hbm")
            mem_r[src] = mem_r.get(src, 0) + nbytes
            mem_w[dst] = mem_w.get(dst, 0) + nbytes
            continue
        counts[eng if eng in counts else "vector"] += 1
        for _, mem, pl, ph, fl, fh in ins.reads:
            mem_r[mem] = mem_r.get(mem, 0) + (ph - pl if ph > pl else 0) * (fh - fl if fh > fl else 0)
        for _, mem, pl, ph, fl, fh in ins.writes:
            mem_w[mem] = mem_w.get(mem, 0) + (ph - pl if ph > pl else 0) * (fh - fl if fh > fl else 0)
        if eng == "tensor":
            f = _matmul_flops(ins)
            flops += f
            if ins.op == "nc_transpose" or ins.attrs.get("is_transpose"):
                tflops += f
            else:
                mm_count += 1

    t_ns = sch.latency_ns
    t_s = t_ns * 1e-9
    hbm = mem_r["hbm"] + mem_w["hbm"]
    peak_flops_per_s = hw.tensor_peak_flops_per_ns * 1e9
    hbm_bw_per_s = hw.hbm_bytes_per_ns * 1e9
    frac = (lambda x: x / t_ns) if t_ns > 0 else (lambda x: 0.0)
    m = {
        "total_time": t_s,
        "neuroncore_cycle_count": int(round(t_ns * hw.base_ghz)),
        "hbm_read_bytes": mem_r["hbm"],
        "hbm_write_bytes": mem_w["hbm"],
        "sbuf_read_bytes": mem_r["sbuf"],
        "sbuf_write_bytes": mem_w["sbuf"],
        "psum_read_bytes": mem_r["psum"],
        "psum_write_bytes": mem_w["psum"],
        "spill_save_bytes": 0,
        "spill_reload_bytes": 0,
        "hardware_flops": flops,
        "transpose_flops": tflops,
        "model_flops": 0,  # §5.2: NKI kernels have no HLO stats
        "mm_arithmetic_intensity": (flops - tflops) / hbm if hbm else 0.0,
        "peak_flops_bandwidth_ratio": peak_flops_per_s / hbm_bw_per_s,
        "hfu_estimated_percent": flops / (peak_flops_per_s * t_s) if t_s > 0 else 0.0,
        "mbu_estimated_percent": hbm / t_s / hbm_bw_per_s if t_s > 0 else 0.0,
        "matmul_instruction_count": mm_count,
        "dma_transfer_count": dma_count,
        "dma_transfer_total_bytes": dma_bytes,
        "dma_transfer_average_bytes": dma_bytes / dma_count if dma_count else 0.0,
        "dma_queue_count": hw.dma_queues,
    }
    for e in COMPUTE_ENGINES:
        m[f"{e}_engine_instruction_count"] = counts[e]
        m[f"{e}_engine_active_time"] = sch.busy_ns[e] * 1e-9
        m[f"{e}_engine_active_time_percent"] = min(frac(sch.busy_ns[e]), 1.0)
    dma_active = _union_length(sch.dma_data)
    m["dma_active_time"] = dma_active * 1e-9
    m["dma_active_time_percent"] = min(frac(dma_active), 1.0)
    m["dma_active_cycles"] = int(round(dma_active * hw.base_ghz))
    return m
