"""The instruction trace: the contract between nkisim's executor and its performance model.

The executor (language.py, isa.py and friends) appends one Instr per hardware instruction it would issue.
The performance model (perf/) reads only this trace, so either side can change without the other as long as
these records keep their meaning.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

# Engines an instruction can run on. "dma" instructions are spread over the DMA queues by the model.
ENGINES = ("tensor", "vector", "scalar", "gpsimd", "dma")


class Access(NamedTuple):
    """One buffer region an instruction reads or writes.

    tensor_id is unique per allocation (an ndarray/zeros/full call, or a kernel argument). A tile allocated
    inside a loop body gets a fresh id each iteration, which is how the model sees that the compiler can
    multi-buffer it. The region is a bounding box: partitions [p_lo, p_hi) and, within a partition, bytes
    [f_lo, f_hi) of the tensor's row-major free layout (block dimensions count as part of the free layout for
    the bounding box; for HBM tensors p is 0..1 and f spans the flat byte range).

    Access and Loop are named tuples rather than frozen dataclasses: the same fields, immutability and equality by
    value, and several times cheaper to create, which matters at millions of records.
    """

    tensor_id: int
    memory: str  # "hbm", "sbuf" or "psum"
    p_lo: int
    p_hi: int
    f_lo: int
    f_hi: int


class Loop(NamedTuple):
    """One enclosing loop level at the time the instruction was issued."""

    loop_id: int  # unique per loop statement execution (a new id each time an inner loop starts afresh)
    kind: str  # "affine", "sequential", "static" or "python"
    index: int  # the iteration number within that loop


@dataclass
class Instr:
    seq: int  # issue order, 0-based
    op: str  # e.g. "nc_matmul", "nc_transpose", "activation", "tensor_tensor", "tensor_scalar", "dma", ...
    engine: str  # one of ENGINES
    line: int  # line in the kernel's source that issued it (0 when unknown)
    partitions: int  # partitions the instruction spans (after masks)
    free_elems: int  # elements per partition it processes (after masks); for matmul the moving free size
    dtype: str  # output dtype name ("float32", "bfloat16", ...)
    in_dtypes: tuple = ()  # input dtype names
    dma_bytes: int = 0  # for dma: total bytes moved
    reads: tuple = ()  # tuple[Access]
    writes: tuple = ()  # tuple[Access]
    loops: tuple = ()  # tuple[Loop], outermost first
    # Op-specific facts the cost model needs, for example:
    #   nc_matmul: {"k": contraction, "m": stationary free, "n": moving free, "moving_dtype": ..., "accumulate": bool}
    #   dma: {"src": "hbm"|"sbuf"|"psum", "dst": ..., "bytes_per_partition": int, "descriptors": int}
    #   tensor_tensor etc.: {"psum_operand": bool}
    # Keys the executor records (all optional for readers):
    #   nc_matmul / nc_transpose (tensor): k, m, n (after masks), moving_dtype, stationary_dtype, accumulate (set when
    #     the result was `+=`-accumulated into PSUM), is_transpose, is_stationary_onezero, is_moving_onezero,
    #     broadcast (a partition broadcast lowered to a ones-matmul). For nc_matmul `partitions` is k and
    #     `free_elems` is n.
    #   dma: api ("nl.load", "nl.store", "nisa.dma_copy", ...), src, dst, partitions, bytes_per_partition,
    #     descriptors (contiguous pieces), runs_per_partition, contiguous_bytes, indirect (gathered index),
    #     transpose, rmw (read-modify-write op), dge_mode.
    #   vector/scalar/gpsimd: psum_operand (an input is in PSUM), engine_auto (the compiler picked the engine),
    #     alu_op (tensor_tensor), op0/op1 (tensor_scalar), func (activation function), reduce_op (activation,
    #     tensor_reduce: a free-axis reduction is fused), negate, value (memset), loop_reduce, minor_stride_bytes
    #     (the largest most-minor free stride in bytes among its SBUF/PSUM operands, set only when one of them is
    #     not unit-stride; a broadcast counts as 0: NC-v2 halves the bandwidth of strides over 16 bytes).
    attrs: dict = field(default_factory=dict)
    # Instructions with the same non-None family are repeats of one instruction (nkisim.replay emits them): equal
    # op, engine, line, sizes, dtypes, bytes, attrs and memories; only seq, regions, tensor ids and loops differ.
    # The performance model computes their cost once.
    family: object = field(default=None, compare=False, repr=False)


class Trace:
    """An append-only list of Instr with a running sequence number."""

    def __init__(self) -> None:
        self.instrs: list[Instr] = []

    def add(self, instr: Instr) -> Instr:
        instr.seq = len(self.instrs)
        self.instrs.append(instr)
        return instr

    def __len__(self) -> int:
        return len(self.instrs)

    def __iter__(self):
        return iter(self.instrs)
