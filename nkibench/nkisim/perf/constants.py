"""Per-target hardware constants for the performance model.

Every number carries the nki-facts.md section it comes from (reference/nki-facts.md). Numbers the facts
leave open are marked TUNED, with the calibration evidence (nki-facts §4) that fixed them; the calibration
benchmark is tests/bench/nkisim_calibration.py.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HwTarget:
    name: str
    # Engine clocks in GHz (cycles per ns).
    tensor_ghz: float
    vector_ghz: float
    scalar_ghz: float
    gpsimd_ghz: float
    base_ghz: float  # the profiler's neuroncore_cycle_count clock
    # Instruction timing, in cycles of the engine that runs the instruction.
    min_ii: int = 64  # §2 "MIN_II ≈ 64 engine cycles"
    gpsimd_overhead: int = 150  # §2 "GpSimd start-up overhead ≈ 150 cycles"; iota/affine_select are 150 + N
    mm_min_ii: int = 64  # §3.2 MM_INIT_LATENCY=64; §2.2 nc_matmul max(min(64, N_stat), N_mov)
    mm_fp32_passes: int = 4  # §2.2 / §3.2 "4x that for fp32"
    fast_ls_divisor: int = 4  # §3.2 fast LoadStationary ≈ N_stat/4, runs in the background of the previous MM
    dyn_copy_cycles: int = 600  # §2.2 tensor_copy_dynamic_* max(~600, N)
    # TUNED: extra latency, in consumer-engine cycles, before an instruction may start after an instruction it
    # depends on (semaphore wait + pipeline drain). Bounded by §3.3: ~100 cycles of static overhead for dependent
    # instructions, and dependent 1-element ScalarE instructions every 264 cycles = MIN_II (64) + 200. 150 fits the
    # mamba dependent chains best (§4.3: 200 puts v1/v3 at +10-17%, 100 puts v3 at 8192 at -7%).
    dep_latency_cycles: int = 150
    # NC-v2 only: VectorE/GpSimdE share the SBUF port and VectorE/ScalarE share PSUM (§3.3). We do not model
    # the port conflict (the compiler serialises them; it is second-order in every §4 kernel).
    vector_perf_mode: bool = False  # §3.3 NC-v3 VectorE perf mode (2x/4x for bf16/fp16 in SBUF)
    transpose_mode_fp32_speedup: float = 1.0  # §3.2 NC-v3 transpose mode is 2x faster for fp32
    # DMA (§3.4, §3.1)
    dma_queues: int = 16  # §3.1 "16 per core"
    dma_engine_bytes_per_ns: float = 17.0  # §3.1 bandwidth guide: 17 B/ns per engine (trn1), 23 (trn2)
    hbm_bytes_per_ns: float = 410.0  # §3.1 derived per-core HBM share (820/2 GB/s) on trn1
    # TUNED: fraction of the nominal aggregate DMA rate (272 GB/s, §3.1) that long contiguous rows reach:
    # 0.47 -> 128 GB/s. §4.2: the hoisted and blocked matmuls move their rhs tiles (1 KiB rows) at ≈100 GB/s;
    # §4.4 layernorm moves 268 MB in ≈2 ms (≥ 134 GB/s with some compute showing); §5.3's profile shows 105 GB/s.
    dma_efficiency: float = 0.47
    # TUNED: knee of the efficiency curve eff(b) = b / (b + knee), b = contiguous bytes per partition row. It
    # stands for the per-descriptor cost (one descriptor per contiguous row, §3.4): 1 KiB rows reach 80% (102
    # GB/s, §4.2 hoisted/blocked), 256 B rows 50% (the tiled matmul's lhsT tiles; §4.2 tiled then lands +15%,
    # the one case the curve cannot fit, since §4.2 implies 256 B rows at least as fast as 1 KiB ones), 2-4 KiB
    # rows 89-94% (§3.4 "≥ 2-4 KiB saturates"; Opt 3 then lands at +1%), < 256 B "severely overhead-bound".
    dma_row_knee_bytes: float = 260.0
    # TUNED: fixed latency per DMA instruction (descriptor processing, completion semaphore). §3.4 names ~1300 ns
    # per DMA across engines; §3.4's 32 KiB-in-1416 ns single-engine measurement shows it is latency that
    # overlaps with other queues' transfers rather than occupancy of the shared bandwidth.
    dma_fixed_ns: float = 1300.0
    dma_transpose_efficiency: float = 0.25  # §3.4 load_transpose2d "much lower bandwidth" (open: TUNED guess)
    # Memories (§3.1)
    partitions: int = 128
    sbuf_bytes_per_partition: int = 192 * 1024
    psum_bytes_per_partition: int = 16 * 1024
    psum_banks: int = 8
    psum_bank_bytes: int = 2048

    @property
    def dma_aggregate_bytes_per_ns(self) -> float:
        # The shared pipe the 16 queues draw from: the DMA engines' aggregate, capped by this core's HBM share
        # (§7.1 suggests min(HBM share, 272 GB/s) as the starting point).
        return min(self.dma_queues * self.dma_engine_bytes_per_ns, self.hbm_bytes_per_ns)

    @property
    def tensor_peak_flops_per_ns(self) -> float:
        # §3.1 / §5.2: max_ops = 2 x #PE x TensorE clock (91.75 TFLOPS trn1, 78.6 trn2 per physical core)
        return 2.0 * 128 * 128 * self.tensor_ghz

    def ghz(self, engine: str) -> float:
        return {"tensor": self.tensor_ghz, "vector": self.vector_ghz, "scalar": self.scalar_ghz,
                "gpsimd": self.gpsimd_ghz}.get(engine, self.base_ghz)


TARGETS = {
    # §3.1 trn1 / NeuronCore-v2: TensorE 2.8 GHz (the cost formulas' cycles, §7.3), VectorE 1.12 GHz,
    # ScalarE and GpSimdE 1.4 GHz, profiler clock 1.4 GHz (§5.3). SBUF 128 x 192 KiB, PSUM 128 x 16 KiB.
    "trn1": HwTarget(name="trn1", tensor_ghz=2.8, vector_ghz=1.12, scalar_ghz=1.4, gpsimd_ghz=1.4, base_ghz=1.4),
    # §3.1 trn2 / NeuronCore-v3: TensorE 2.4 GHz, VectorE 0.96 GHz, ScalarE and GpSimdE 1.2 GHz, profiler 1.2 GHz.
    # DMA 23 B/ns per engine (368 GB/s aggregate, bandwidth guide); HBM ≈ 725 GB/s per LNC2 pair / stack (§3.1
    # derived, §7.2), so the DMA aggregate is the cap. SBUF 128 x 224 KiB. VectorE perf mode and fp32
    # transpose mode (§3.2, §3.3). The DMA efficiency curve is taken from trn1 (no trn2 latencies are published).
    "trn2": HwTarget(name="trn2", tensor_ghz=2.4, vector_ghz=0.96, scalar_ghz=1.2, gpsimd_ghz=1.2, base_ghz=1.2,
                     vector_perf_mode=True, transpose_mode_fp32_speedup=2.0,
                     dma_engine_bytes_per_ns=23.0, hbm_bytes_per_ns=725.0,
                     sbuf_bytes_per_partition=224 * 1024),
    # trn3 / NeuronCore-v4, from AWS's Trainium3 pages (Neuron docs, aws-neuron-sdk @81ce03ae, Aug 2026):
    # - "Trainium3 Architecture Guide for NKI" (nki/guides/architecture/trainium3_arch.rst): TensorE 2.4 GHz,
    #   VectorE, ScalarE and GpSimdE 1.2 GHz; SBUF 32 MiB per core (= 128 x 256 KiB), PSUM 2 MiB (= 128 x 16 KiB,
    #   8 banks of 2 KiB, as NC-v2/v3); TensorE 79 BF16/FP16/TF32 and 20 FP32 TFLOPS per core (2 x 128 x 128 x
    #   2.4 GHz = 78.6, as trn2); VectorE 512 BF16/FP16/FP8 elements per cycle, 256 for other types (the same
    #   widths as NC-v3, so its perf mode carries over; NC-v3's fp32 transpose mode is assumed to carry over too);
    #   8 cores and 4.7 TB/s of HBM per device.
    # - "NKI DMA bandwidth guide" (nki/deep-dives/nki-dma-bandwidth-guide.rst): 33 B/ns per DMA engine, 16 engines
    #   per core, 528 GB/s aggregate (trn1 272, trn2 368 by the same table).
    # - HBM share per physical core: 4.7 TB/s / 8 cores = 587.5 GB/s (the device page about-neuron/.../trainium3.rst
    #   says 4.9 TB/s, i.e. 612 GB/s; either is above the 528 GB/s DMA aggregate, which is therefore the cap).
    # - The profiler clock is not published for trn3: the 1.2 GHz engine clock, as trn2's (an assumption).
    # The DMA efficiency curve and fixed costs are trn1's (nothing for trn3 is published). Background transpose,
    # MX matmul, the Vector engine's exponential and DMA read-add-write are not modelled separately.
    "trn3": HwTarget(name="trn3", tensor_ghz=2.4, vector_ghz=1.2, scalar_ghz=1.2, gpsimd_ghz=1.2, base_ghz=1.2,
                     vector_perf_mode=True, transpose_mode_fp32_speedup=2.0,
                     dma_engine_bytes_per_ns=33.0, hbm_bytes_per_ns=587.5,
                     sbuf_bytes_per_partition=256 * 1024),
}


def get_target(target) -> HwTarget:
    if isinstance(target, HwTarget):
        return target
    try:
        return TARGETS[str(target).lower()]
    except KeyError:
        raise ValueError(f"unknown target {target!r}; expected one of {sorted(TARGETS)}") from None
