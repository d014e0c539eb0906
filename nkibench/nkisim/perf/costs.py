"""Cost of one traced instruction, from the published per-instruction formulas (nki-facts §2.2, §3.2-3.4).

Compute instructions get a duration in ns on their engine. DMA instructions get a DmaCost: the engine time they
put on the shared DMA pipe (16 engines) and the fixed latency the transfer overlaps.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import opregistry
from .constants import HwTarget

DTYPE_BYTES = {
    "float32": 4, "float32r": 4, "tfloat32": 4, "int32": 4, "uint32": 4,
    "bfloat16": 2, "float16": 2, "int16": 2, "uint16": 2,
    "float8_e4m3": 1, "float8_e5m2": 1, "float8_e4m3fn": 1, "float8_e3m4": 1, "int8": 1, "uint8": 1, "bool_": 1,
    "bool": 1, "float64": 8, "int64": 8,
}
HALF = ("bfloat16", "float16")
FP32_CLASS = ("float32", "float32r", "int32", "uint32", "float64")


def dtype_bytes(name: str) -> int:
    return DTYPE_BYTES.get(str(name), 4)


def _all_half(instr) -> bool:
    return str(instr.dtype) in HALF and all(str(d) in HALF for d in (instr.in_dtypes or ()))


def _reads_psum(instr) -> bool:
    if instr.attrs.get("psum_operand"):
        return True
    return any(a.memory == "psum" for a in instr.reads)


def _writes_psum(instr) -> bool:
    return any(a.memory == "psum" for a in instr.writes)


def stride_factor(instr, hw: HwTarget) -> int:
    """How many times longer the data takes to stream because of the operands' access pattern: on NC-v2 a
    most-minor free stride over 16 bytes halves the bandwidth of the engine's tensor read/write interface, "roughly
    50% performance hit on the instructions" (constants.strided_access_bytes), so the data-proportional cycles
    double; the fixed floors (MIN_II, GpSimd start-up) do not change. The trace records the largest such stride
    among the instruction's SBUF/PSUM operands as minor_stride_bytes (core.run_op; absent when all are
    unit-stride)."""
    lim = hw.strided_access_bytes
    if lim and instr.attrs.get("minor_stride_bytes", 0) > lim:
        return 2
    return 1


def _stream_cycles(instr, hw: HwTarget) -> float:
    """Vector / Scalar / GpSimd: one element per partition per cycle on 128 lanes (§3.3), by the instruction's rule
    in the op registry (opregistry.py); an instruction it does not hold raises UnknownInstruction."""
    reg = opregistry.get(instr.op)
    attrs = instr.attrs
    rule = reg.reduce_rule if reg.reduce_rule and attrs.get("reduce_op") else reg.rule
    n = max(int(instr.free_elems), 1) * stride_factor(instr, hw)
    mii = hw.min_ii
    if rule == "two_input":
        # §2.2: N with a PSUM operand, or bf16-only add/mul/sub in SBUF (contiguous); otherwise 2N.
        fast = _reads_psum(instr)
        if not fast and instr.op == "tensor_tensor" and _all_half(instr) and not attrs.get("minor_stride_bytes"):
            fast = str(attrs.get("alu_op", attrs.get("op0", "add"))) in ("add", "multiply", "subtract", "mul", "sub")
        cyc = max(mii, (1 if fast else 2) * n)
        if hw.vector_perf_mode and instr.engine == "vector" and instr.op == "tensor_tensor" and _all_half(instr) \
                and not _reads_psum(instr) and not _writes_psum(instr):
            cyc = max(mii, cyc / 2)  # §3.3 NC-v3 perf mode: 2x for bf16/fp16 in SBUF
        return cyc
    if rule == "stt":
        fast = _all_half(instr) and n % 2 == 0 and attrs.get("op0") in ("subtract", "sub") \
            and attrs.get("op1") in ("multiply", "mul")
        return max(mii, (1 if fast else 2) * n)
    if rule == "reduce":
        fast = _all_half(instr) and str(attrs.get("alu_op", attrs.get("op", "add"))) in ("add", "max")
        return max(mii, n / 2 if fast else n)
    if rule == "memset":
        zero = attrs.get("value", 0) == 0
        return max(mii, n / 2 if (zero and str(instr.dtype) in HALF) else n)
    if rule == "dynamic_copy":
        return max(hw.dyn_copy_cycles, n)
    if rule == "plus_min_ii":
        return max(mii, n) + mii
    if rule not in ("stream", "transpose", "gpsimd_index"):
        raise opregistry.UnknownInstruction(f"instruction {instr.op!r} has the {rule!r} cost rule, which does not "
                                            f"run on {instr.engine}")
    cyc = max(mii, reg.k * n)
    if hw.vector_perf_mode and instr.engine == "vector" and reg.copy_perf_mode:
        # §3.3 NC-v3 perf mode ([T2A] "Vector Engine Performance Mode"): 4x when in and out are (a) in SBUF, (b)
        # bf16/fp16 and (c) "physically contiguous ... in the inner-most free dimension"; 2x with (a) and (b) but
        # not (c), or with (b) and (c) and one side in PSUM. (c) is the trace's minor_stride_bytes (absent: every
        # operand unit-stride or broadcast). fp32 in SBUF keeps the 2x it had before (c) was recorded; [T2A]
        # names no 2x without (b) (see the README's "Not modelled").
        half = _all_half(instr)
        sbuf = not _reads_psum(instr) and not _writes_psum(instr)
        contiguous = not attrs.get("minor_stride_bytes")
        speed = 4 if (half and sbuf and contiguous) else 2 if (half and (sbuf or contiguous)) or (sbuf and not half) \
            else 1
        cyc = max(mii, cyc / speed)
    return cyc


def _gpsimd_cycles(instr, hw: HwTarget) -> float:
    # §2.2: iota / affine_select / local_gather are 150 + N; other GpSimd instructions use the general
    # formula, plus the same start-up overhead (§2 "GpSimd start-up overhead ≈ 150 cycles").
    n = max(int(instr.free_elems), 1) * stride_factor(instr, hw)
    if opregistry.get(instr.op).rule == "gpsimd_index":
        return hw.gpsimd_overhead + n
    cyc = _stream_cycles(instr, hw)
    # §3.1: a GpSimd core does 16 fp32 / 32 fp16 per cycle across its 16 partitions -> 1 / 2 per partition.
    if _all_half(instr):
        cyc = max(hw.min_ii, cyc / 2)
    return hw.gpsimd_overhead + cyc


def _tensor_cycles(instr, hw: HwTarget) -> float:
    attrs = instr.attrs
    dts = tuple(str(d) for d in (instr.in_dtypes or ())) + (str(attrs.get("moving_dtype", "")),)
    fp32 = any(d in FP32_CLASS for d in dts if d)
    if instr.op == "nc_transpose" or attrs.get("is_transpose"):
        # §2.2 TensorE transpose: max(P, min(64, F)) back to back; a matmul against identity, so fp32 takes
        # the 4 passes (§3.2), halved by NC-v3 transpose mode.
        p = max(int(attrs.get("k", instr.partitions)), 1)
        f = max(int(attrs.get("m", attrs.get("f", instr.free_elems))), 1)
        cyc = max(p, min(hw.mm_min_ii, f))
        if fp32:
            cyc *= hw.mm_fp32_passes / hw.transpose_mode_fp32_speedup
        return cyc
    m = int(attrs.get("m", 128))
    n = int(attrs.get("n", instr.free_elems))
    # §2.2 / §3.2: II = max(min(64, N_stat), N_mov); fast LoadStationary (N_stat/4) hides behind it.
    cyc = max(min(hw.mm_min_ii, m), n, m / hw.fast_ls_divisor)
    if fp32:
        passes = hw.mm_fp32_passes
        if attrs.get("is_stationary_onezero") or attrs.get("is_moving_onezero"):
            passes /= 2  # §2.2 onezero hints allow up to 2x for fp32
        cyc *= passes
    return cyc


def compute_ns(instr, hw: HwTarget) -> float:
    """Duration in ns of a non-DMA instruction on its engine; UnknownInstruction for one the op registry does not
    hold on that engine."""
    opregistry.check(instr.op, instr.engine)
    eng = instr.engine
    if eng == "tensor":
        cyc = _tensor_cycles(instr, hw)
    elif eng == "gpsimd":
        cyc = _gpsimd_cycles(instr, hw)
    else:
        cyc = _stream_cycles(instr, hw)
    return cyc / hw.ghz(eng)


@dataclass
class DmaCost:
    pipe_ns: float  # time the DMA occupies the whole DMA pipe (all 16 engines) for: engine-time / 16
    own_ns: float  # time it takes on the engines it can use (one per 8 partitions, up to 16) with nothing else
    fixed_ns: float  # latency from trigger to completion that the transfer overlaps (it ends no earlier)
    engines: int = 16  # DMA engines it spreads over
    effective_bytes: float = 0.0  # bytes' worth of engine time: every descriptor costs >= dma_descriptor_bytes


def dma_efficiency(bytes_per_partition: float, hw: HwTarget) -> float:
    """Throughput of rows of this many contiguous bytes, as a fraction of the engines' full rate: each
    descriptor occupies its engine as long as max(bytes, dma_descriptor_bytes) would (constants.py, [DOV] figure)."""
    b = max(float(bytes_per_partition), 1.0)
    return b / max(b, hw.dma_descriptor_bytes)


def dma_cost(instr, hw: HwTarget) -> DmaCost:
    opregistry.check(instr.op, instr.engine)
    attrs = instr.attrs
    total = float(instr.dma_bytes or 0)
    parts = max(int(attrs.get("partitions", instr.partitions) or 1), 1)
    bpp = attrs.get("bytes_per_partition")
    if not bpp:
        bpp = total / parts if total else 0
    transpose = bool(attrs.get("transpose"))
    # Contiguous pieces: one per run (a row split by strides is several descriptors, §3.4). A transposing DMA is
    # costed as the copy of the same rows, scaled by its published efficiency (constants.py), not per element.
    runs = 1 if transpose else max(int(attrs.get("runs_per_partition", 1) or 1), 1)
    piece = max(float(bpp) / runs, 1.0)
    descriptors = parts * runs
    eff_bytes = descriptors * max(piece, hw.dma_descriptor_bytes) if total else 0.0
    if transpose:
        sbuf_src = attrs.get("src") in ("sbuf", "psum")
        eff_bytes /= hw.dma_transpose_sbuf_efficiency if sbuf_src else hw.dma_transpose_efficiency
    # One engine per 8 partitions ([DOV]), at most the 16 of the core.
    engines = min(hw.dma_queues, max(1, -(-parts // hw.dma_partitions_per_engine)))
    rate = hw.dma_engine_rate
    pipe = eff_bytes / (hw.dma_queues * rate)
    own = eff_bytes / (engines * rate)
    return DmaCost(pipe_ns=pipe, own_ns=own, fixed_ns=hw.dma_fixed_ns, engines=engines, effective_bytes=eff_bytes)
