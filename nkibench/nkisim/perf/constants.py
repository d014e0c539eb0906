"""Per-target hardware constants for the performance model.

Every number carries its source: a section of reference/nki-facts.md (§) or a page of AWS's public Neuron docs
(the DMA block names them). Numbers no public source fixes are marked TUNED, with the calibration evidence
(nki-facts §4) that fixed them, or UNSOURCED; the calibration benchmark is tests/bench/nkisim_calibration.py.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import hardware


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
    # Extra latency, in consumer-engine cycles, before an instruction may start after an instruction it depends
    # on (semaphore wait + pipeline drain): the arch guide's "static instruction overhead of 100 engine cycles" for
    # instructions that each depend on the previous one's output (nki/guides/architecture/
    # trainium_inferentia2_arch.rst, VectorE "Cost Model"; nki-facts §3.3). The perf guide's measured 264-cycle
    # interval between dependent 1-element ScalarE instructions (Opt #5a) is MIN_II (64) + this 100 + the same
    # guide's ~100-cycle overhead of tiny back-to-back instructions, which is not modelled apart from MIN_II.
    # (Was 150, TUNED to the mamba cases; 100 keeps every mamba case within -11%/+9%.)
    dep_latency_cycles: int = 100
    # NC-v2 only: "VectorE and GpSimdE cannot access SBUF in parallel" and "VectorE and ScalarE cannot access PSUM
    # in parallel", so "VectorE and GpSimdE instructions that access SBUF must be serialized, similarly for VectorE
    # and ScalarE instructions that access PSUM. This is enforced by Neuron Compiler" (nki/guides/architecture/
    # trainium_inferentia2_arch.rst, "Memory hierarchy" and "Concurrent SBUF/PSUM accesses by engines"; nki-facts
    # §3.3). The scheduler keeps such a pair from overlapping in time: an instruction holds the shared port for
    # its whole duration (engines stream their operands throughout). NC-v3 lifts both restrictions ([T2A]
    # "VectorE and GpSimdE can access SBUF in parallel", "VectorE and ScalarE can access PSUM in parallel", as
    # long as the PSUM accesses do not collide on a bank, which is not modelled).
    shared_sbuf_psum_ports: bool = True
    # Access pattern: "When the most-minor F dimension stride is less than 16 bytes, SBUF/PSUM on NeuronCore-v2 can
    # supply a peak bandwidth of 128 elements/cycle ... If the most-minor F dimension stride exceeds 16 bytes, the
    # achievable bandwidth of each tensor read/write interface will be half of the peak bandwidth, which translates
    # to roughly 50% performance hit on the instructions" (trainium_inferentia2_arch.rst, "Access pattern";
    # nki-facts §3.3). Charged as twice the data-proportional cycles of a Vector/Scalar/GpSimd instruction with such
    # an operand (costs.stride_factor). The statement names NeuronCore-v2; the trn2 and trn3 guides say nothing of
    # strides beyond perf mode's "minor dimension is contiguous" condition, so 0 (no penalty) there.
    strided_access_bytes: int = 16
    # Not charged on their own: the "static overhead approximately 60 cycles" of "initiating a tensor access
    # request" ("Compute engines can typically hide some of this latency through instruction level parallelism";
    # same guide, "Tensor access overhead") and the "static instruction overhead of 100 engine cycles" of "many
    # back-to-back instructions either with N << 128 or with every instruction depending on the output tile of the
    # previous instruction" (VectorE "Cost Model"; the perf guide Opt #5a: "in the order of ~100 cycles"). The ISA
    # reference's per-instruction formulas already floor every instruction at MIN_II ("the minimum instruction
    # initiation interval for small input tiles", nki.api.shared), and the dependent case is dep_latency_cycles
    # above. No source says how much of the 60 cycles ILP hides, what "N << 128" means as a size, or how the four
    # published figures (MIN_II 64, 60, 100, the measured 264) combine (nki-facts §7.8); adding them separately
    # would make a fraction and a threshold that only a fit could fix. So MIN_II stands for both.
    vector_perf_mode: bool = False  # §3.3 NC-v3 VectorE perf mode (2x/4x for bf16/fp16 in SBUF)
    # nki.isa.tensor_copy: "engine ... unknown_engine (default, compiler selects best engine based on engine
    # workload)"; supported engines "NeuronCore v2: Vector, GpSimd; NeuronCore v3+: Vector, Scalar, GpSimd", and
    # GpSimd cannot access PSUM (NKI API reference, nki.isa.tensor_copy, Neuron 2.28). The engines a copy the
    # kernel leaves to the compiler may run on, in order of preference on a tie (scheduler._auto_copy). NC-v2
    # keeps VectorE alone: its GpSimd shares VectorE's SBUF port and the compiler serialises the two (§3.3), so a
    # copy moved there runs no sooner; NC-v3 removes that restriction.
    auto_copy_engines: tuple = ("vector",)
    transpose_mode_fp32_speedup: float = 1.0  # §3.2 NC-v3 transpose mode is 2x faster for fp32
    # DMA. Sources (aws-neuron/aws-neuron-sdk @81ce03ae unless noted; "figure" = a published plot or profile):
    # [BWG] nki/deep-dives/nki-dma-bandwidth-guide.rst; [DOV] nki/get-started/about/nki-dma-overview.rst;
    # [PG] nki/deep-dives/nki_perf_guide.rst (first published with Neuron 2.20, Sept 2024, when NKI ran on NC-v2
    # only); [T2A] nki/guides/architecture/trainium2_arch.rst.
    dma_queues: int = 16  # [DOV] "Each NeuronCore (v2-v4) is paired with 16 DMA engines"
    # [BWG] table "BW / Engine": 17 B/ns (trn1), 23 (trn2), 33 (trn3); 16 engines give 272 / 368 / 528 GB/s.
    # Cross-check, trn1: [PG] Opt #9, fig30 (a Neuron 2.20 profile, so NC-v2) shows one 32 KiB transfer taking
    # 1810 ns (18.1 B/ns), and all 16 engines busy back to back with 32 KiB transfers at ~1.95 us each, i.e.
    # 16.3-17.0 B/ns per engine and ~265 GB/s in all (read off the figure's time axis; loads ~2.0 us, stores ~1.8).
    dma_engine_bytes_per_ns: float = 17.0
    # [DOV] "each DMA engine is typically responsible for moving data for eight SBUF partitions (128 partitions /
    # 16 DMA engines)"; its Example 1 moves a [4, 4096] tile with a single engine, Example 2 a [128, 128] one with 16.
    dma_partitions_per_engine: int = 8
    hbm_bytes_per_ns: float = 410.0  # §3.1 derived per-core HBM share (820/2 GB/s) on trn1
    # Per-descriptor cost, as bytes at the engine's full rate: every contiguous piece (DMA buffer; at least one per
    # partition row, [DOV], nki-facts §3.4) occupies its engine at least as long as this many bytes would. From
    # [DOV]'s figure "DMA Throughput varying Bytes per Partition for p_dim = 128" (nki/img/overviews/
    # nki-dma-intro-1.jpg; the y axis is unlabelled, so the points are read relative to the 32 KiB plateau, which
    # the text calls "nearly saturate DMA bandwidth"): throughput grows in proportion to the row size up to 2 KiB
    # (256 B: 10.3%, 512 B: 20.9%, 1 KiB: 42.4%, 2 KiB: 81%), then 4 KiB: 97%, 8 KiB: 98%. Proportional growth is a
    # fixed time per row: 256/0.103 = 2485, 512/0.209 = 2450, 1024/0.424 = 2415, 2048/0.81 = 2520 bytes' worth;
    # 2450 is their middle. [BWG] says the same in words: "< 256 B per partition: severely overhead-bound",
    # ">= 2 KiB approaches peak", ">= 4 KiB saturates the DMA engines"; the runtime's default DMA packet of 4 KiB
    # is "the empirically determined minimum for DMA/HBM efficiency" (neuron-runtime/explore/compute-comm-overlap.rst).
    # Replaces the TUNED efficiency 0.47 and knee 260 B, which had rows >= 4 KiB at 44% of [BWG]'s peak.
    dma_descriptor_bytes: float = 2450.0
    # Per-DMA latency: "descriptor setup, synchronization, and semaphore-to-start latency (~1300 ns
    # cross-engine)" [BWG]. It overlaps with the transfer rather than adding to it: in [DOV]'s figure the time of a
    # p_dim = 128 transfer stays flat up to 2 KiB rows and then grows with the bytes, and [DOV]'s Example 1 (trn2)
    # moves 32 KiB on one engine in 1416 ns, i.e. at the engine's 23 B/ns with nothing added; "large contiguous
    # payloads amortize this fixed overhead" [BWG]. So a DMA ends no earlier than 1300 ns after it starts.
    dma_fixed_ns: float = 1300.0
    # DMA transpose, as a fraction of a plain copy's throughput. trn2/trn3: [T2A] "DMA transpose on Trainium2 can
    # achieve up to 90% DMA throughput utilization" (HBM to SBUF) and "SBUF2SBUF transpose can achieve up to 50%".
    # trn1 (nl.load_transpose2d): [PG] Opt #10 says only "much lower DMA bandwidth"; no number is published, so
    # 0.25 is a guess (UNSOURCED) that no calibration case exercises.
    dma_transpose_efficiency: float = 0.25
    dma_transpose_sbuf_efficiency: float = 0.25
    # Memories (§3.1)
    partitions: int = hardware.PARTITIONS
    sbuf_bytes_per_partition: int = hardware.SBUF_BYTES["trn1"]
    psum_bytes_per_partition: int = hardware.PSUM_BYTES
    psum_banks: int = hardware.PSUM_BANKS
    psum_bank_bytes: int = hardware.PSUM_BANK_BYTES

    @property
    def dma_aggregate_bytes_per_ns(self) -> float:
        # The 16 engines together, capped by this core's HBM share (the cap binds on no target: 272 < 410 GB/s on
        # trn1, 368 < 725 on trn2, 528 < 587 on trn3).
        return min(self.dma_queues * self.dma_engine_bytes_per_ns, self.hbm_bytes_per_ns)

    @property
    def dma_engine_rate(self) -> float:
        """Bytes per ns one engine moves: its [BWG] rate, or its share of the HBM cap if that is lower."""
        return self.dma_aggregate_bytes_per_ns / self.dma_queues

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
    # transpose mode (§3.2, §3.3). DMA transpose 90% (HBM to SBUF) and 50% (SBUF to SBUF) of a copy [T2A]. The
    # per-descriptor cost and latency are the same as trn1's: [DOV]'s figure and [BWG]'s 1300 ns name no generation.
    "trn2": HwTarget(name="trn2", tensor_ghz=2.4, vector_ghz=0.96, scalar_ghz=1.2, gpsimd_ghz=1.2, base_ghz=1.2,
                     shared_sbuf_psum_ports=False, strided_access_bytes=0,
                     vector_perf_mode=True, transpose_mode_fp32_speedup=2.0,
                     auto_copy_engines=("vector", "scalar", "gpsimd"),
                     dma_engine_bytes_per_ns=23.0, hbm_bytes_per_ns=725.0,
                     dma_transpose_efficiency=0.9, dma_transpose_sbuf_efficiency=0.5,
                     sbuf_bytes_per_partition=hardware.SBUF_BYTES["trn2"]),
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
    # The DMA per-descriptor cost and latency are trn1's and trn2's, and DMA transpose is taken as trn2's
    # (nothing for trn3 is published). Background transpose,
    # MX matmul, the Vector engine's exponential and DMA read-add-write are not modelled separately.
    "trn3": HwTarget(name="trn3", tensor_ghz=2.4, vector_ghz=1.2, scalar_ghz=1.2, gpsimd_ghz=1.2, base_ghz=1.2,
                     shared_sbuf_psum_ports=False, strided_access_bytes=0,
                     vector_perf_mode=True, transpose_mode_fp32_speedup=2.0,
                     auto_copy_engines=("vector", "scalar", "gpsimd"),
                     dma_engine_bytes_per_ns=33.0, hbm_bytes_per_ns=587.5,
                     dma_transpose_efficiency=0.9, dma_transpose_sbuf_efficiency=0.5,
                     sbuf_bytes_per_partition=hardware.SBUF_BYTES["trn3"]),
}


def get_target(target) -> HwTarget:
    if isinstance(target, HwTarget):
        return target
    try:
        return TARGETS[str(target).lower()]
    except KeyError:
        raise ValueError(f"unknown target {target!r}; expected one of {sorted(TARGETS)}") from None
