"""The hardware limits the executor enforces and the model reads, in one place (nki-facts §1.3, §3.1, §3.2).

Per NeuronCore: 128 partitions; SBUF 192 KiB (trn1, NC-v2) / 224 KiB (trn2, NC-v3) / 256 KiB (trn3, NC-v4: 32 MiB
over 128 partitions) per partition; PSUM 16 KiB per partition in 8 banks of 2 KiB (512 fp32) on all three. One
Vector/Scalar instruction processes at most 64 Ki elements per partition touching SBUF only, 4 Ki with a PSUM
operand. TensorE: contraction and stationary free size <= 128 (PE rows and columns), moving free size <= 512 (one
PSUM bank); its transpose handles 128x128, VectorE's 32x32. bn_stats reads at most 512 elements per partition.
"""
from __future__ import annotations

PARTITIONS = 128
SBUF_BYTES = {"trn1": 192 * 1024, "trn2": 224 * 1024, "trn3": 256 * 1024}  # per partition
PSUM_BYTES = 16 * 1024  # per partition
PSUM_BANKS = 8
PSUM_BANK_BYTES = PSUM_BYTES // PSUM_BANKS
FREE_MAX_SBUF = 64 * 1024  # elements per partition of one Vector/Scalar instruction
FREE_MAX_PSUM = 4 * 1024
MATMUL_K_MAX = PARTITIONS
MATMUL_STATIONARY_FMAX = 128
MATMUL_MOVING_FMAX = 512
TENSOR_TRANSPOSE_MAX = 128
VECTOR_TRANSPOSE_MAX = 32
BN_STATS_FMAX = 512
