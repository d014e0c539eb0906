"""Every instruction nkisim's executor can record, registered once: the engines it may run on, where its operands
may be on each engine (its operand rules), and the rule that costs it (perf/costs.py). The executor refuses to
record an instruction the registry does not know (context.Context.record), and the cost model refuses to cost one
(an instruction without a cost rule used to cost one cycle per element without a word), so a new instruction needs
its entry here before anything runs it.

Cost rules (nki-facts §2.2, §3.2-3.4; the formulas are in perf/costs.py):
  stream        max(MIN_II, k * N): k cycles per element per partition
  two_input     N with a PSUM operand or for bf16 add/multiply/subtract in SBUF, else 2N (tensor_tensor)
  stt           scalar_tensor_tensor: N for bf16 subtract-then-multiply on an even N, else 2N
  reduce        N/2 for bf16 add/max, else N
  memset        N/2 for a bf16 zero fill, else N
  dynamic_copy  max(~600, N)
  plus_min_ii   max(MIN_II, N) + MIN_II: a second, accumulator-read instruction
  gpsimd_index  GpSimd start-up + N (iota, affine_select, local_gather)
  matmul        TensorE initiation interval, max(min(64, N_stat), N_mov), 4 passes for fp32
  transpose     on TensorE as a matmul against the identity, max(P, min(64, F)); on VectorE a stream of k = 1
  dma           DMA queues and pipe (costs.dma_cost)
Any rule on GpSimd adds its start-up overhead (§2). `copy_perf_mode`: NC-v3's VectorE perf mode speeds the
instruction up 2x/4x for bf16/fp16 in SBUF (§3.3). `reduce_rule`: the rule of the instruction with a fused
reduction (an activation with reduce_res is activation_reduce, §2.2).

Operand rules (`Operands`, per engine): the memories an instruction reads its inputs from and writes its result to,
and for a transpose the largest side the engine handles (hardware.py). Vector and Scalar read and write SBUF and
PSUM; GpSimd cannot access PSUM (nki.isa.tensor_tensor: "Since GpSimd Engine cannot access PSUM"); TensorE reads
SBUF and writes PSUM (nki-facts §3.1). Both front ends check operands against these (core.check_engine_access,
core.operand_rule), and an assignment lands a result in place only where the rule lets it write (assign.py).
Where an API narrows a rule further (nl.load reads HBM; the nki.* DMAs refuse PSUM since NKI 0.3.0) the API says so
itself.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import hardware as hw

COMPUTE = ("vector", "scalar", "gpsimd")
MEMORIES = ("sbuf", "psum", "hbm")
SBUF, PSUM, ON_CHIP = ("sbuf",), ("psum",), ("sbuf", "psum")
RULES = ("stream", "two_input", "stt", "reduce", "memset", "dynamic_copy", "plus_min_ii", "gpsimd_index", "matmul",
         "transpose", "dma")


@dataclass(frozen=True)
class Operands:
    """Where one instruction's operands may be on one engine."""
    reads: tuple = ON_CHIP  # memories its input tiles may be in
    writes: tuple = ON_CHIP  # memories its result may land in; the first is where a new result tile goes
    max_side: int = 0  # a transpose: the largest partition and free size the engine handles


# The rules of Vector/Scalar/GpSimd instructions, by engine.
_ENGINE_RULES = {"vector": Operands(), "scalar": Operands(), "gpsimd": Operands(SBUF, SBUF)}
# GpSimd instructions whose API reference sets no memory rule for their input, where it does for the instructions
# that cannot read PSUM: the classic affine_select (nki-samples' flash_fwd passes its PSUM scores straight in, and
# was tested under the SDK's simulator and on hardware) and nl.gather_flattened.
_GPSIMD_READS_PSUM = {"gpsimd": Operands(ON_CHIP, SBUF)}


@dataclass(frozen=True)
class Op:
    name: str
    engines: tuple
    rule: str
    k: float = 1.0  # cycles per element, for the stream rules
    copy_perf_mode: bool = False
    reduce_rule: str = ""  # the rule when the instruction fuses a free-axis reduction (attrs "reduce_op")
    operands: tuple = ()  # ((engine, Operands), ...) where the engine's rule is not _ENGINE_RULES'

    def rules(self) -> dict:
        """{engine: Operands} for every engine the instruction may run on."""
        own = dict(self.operands)
        return {e: own.get(e) or _ENGINE_RULES.get(e) for e in self.engines}


class UnknownInstruction(ValueError):
    """An instruction name the registry does not hold (for the model: one it has no cost rule for)."""


def _ops():
    s = "stream"
    return (
        Op("nc_matmul", ("tensor",), "matmul", operands=(("tensor", Operands(SBUF, PSUM)),)),
        Op("nc_transpose", ("tensor", "vector"), "transpose",
           operands=(("tensor", Operands(SBUF, PSUM, hw.TENSOR_TRANSPOSE_MAX)),
                     ("vector", Operands(ON_CHIP, ON_CHIP, hw.VECTOR_TRANSPOSE_MAX)))),
        # The DMA queues move between any two memories as the executor records them; the APIs narrow that.
        Op("dma", ("dma",), "dma", operands=(("dma", Operands(MEMORIES, MEMORIES)),)),
        Op("activation", COMPUTE, s, reduce_rule="plus_min_ii"),  # with reduce_res it is activation_reduce
        Op("exponential", COMPUTE, s),
        Op("tensor_scalar", COMPUTE, s, copy_perf_mode=True),
        Op("tensor_copy", COMPUTE, s, copy_perf_mode=True),
        Op("select", COMPUTE, s),
        Op("dropout", COMPUTE, s),
        Op("bn_stats", COMPUTE, s),
        Op("range_select", COMPUTE, s),
        Op("nc_stream_shuffle", COMPUTE, s),
        Op("select_reduce", COMPUTE, s),
        Op("max8", COMPUTE, s),
        Op("nc_find_index8", COMPUTE, s),
        Op("nc_match_replace8", COMPUTE, s),
        Op("tensor_partition_reduce", COMPUTE, s),
        Op("sequence_bounds", COMPUTE, s),
        Op("tensor_scalar_cumulative", COMPUTE, s),
        Op("rng", COMPUTE, s),
        Op("gather_flattened", COMPUTE, s, operands=tuple(_GPSIMD_READS_PSUM.items())),
        Op("tensor_tensor_scan", COMPUTE, s, k=2),
        Op("reciprocal", COMPUTE, s, k=8),
        Op("bn_aggr", COMPUTE, s, k=13.0 / 3.0),
        Op("tensor_tensor", COMPUTE, "two_input"),
        Op("tensor_copy_predicated", COMPUTE, "two_input"),
        Op("scalar_tensor_tensor", COMPUTE, "stt"),
        Op("tensor_reduce", COMPUTE, "reduce"),
        Op("memset", COMPUTE, "memset"),
        # Costed, though the executor does not run them yet (isa._unsupported): the rule is ready when it does.
        Op("tensor_copy_dynamic_src", COMPUTE, "dynamic_copy"),
        Op("tensor_copy_dynamic_dst", COMPUTE, "dynamic_copy"),
        Op("activation_reduce", COMPUTE, "plus_min_ii"),  # the executor records "activation" with reduce_op
        Op("tensor_scalar_reduce", COMPUTE, "plus_min_ii"),
        Op("iota", COMPUTE, "gpsimd_index"),
        Op("affine_select", COMPUTE, "gpsimd_index", operands=tuple(_GPSIMD_READS_PSUM.items())),
        Op("local_gather", COMPUTE, "gpsimd_index"),
    )


OPS = {o.name: o for o in _ops()}


def get(name: str) -> Op:
    op = OPS.get(name)
    if op is None:
        raise UnknownInstruction(f"no instruction {str(name)[:64]!r} in nkisim's op registry (nkisim/opregistry.py), "
                                 f"so nothing says what it costs")
    return op


def check(name: str, engine: str) -> None:
    """For the executor: the instruction is registered and may run on engine."""
    op = get(name)
    if engine not in op.engines:
        raise UnknownInstruction(f"instruction {name!r} cannot run on {engine} (registered for "
                                 f"{', '.join(op.engines)}; nkisim/opregistry.py)")


_RULES = {(o.name, e): r for o in OPS.values() for e, r in o.rules().items()}


def operands(name: str, engine: str) -> Operands:
    """The operand rule of instruction name on engine."""
    r = _RULES.get((name, engine))
    if r is None:
        check(name, engine)  # says which of the two the registry does not know
        raise UnknownInstruction(f"instruction {name!r} on {engine} has no operand rule (nkisim/opregistry.py)")
    return r


def writes_any(name: str) -> tuple:
    """The memories instruction name's result may land in on some engine (an API whose engine is the compiler's
    choice), in MEMORIES order."""
    can = {m for r in get(name).rules().values() for m in r.writes}
    return tuple(m for m in MEMORIES if m in can)
