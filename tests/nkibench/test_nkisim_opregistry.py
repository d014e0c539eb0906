"""nkisim's op registry: every instruction the executor can record is registered, with engines and a cost rule;
every registered instruction costs something finite on each of its engines; an unregistered one is refused by
the executor and by the model."""
import ast
import math
import pathlib

import pytest

import nkisim
from nkisim import opregistry
from nkisim.context import Context
from nkisim.perf.constants import TARGETS
from nkisim.perf.costs import compute_ns, dma_cost
from nkisim.trace import Access, Instr

SOURCE = pathlib.Path(nkisim.__file__).parent


def _recorded_names():
    """Every string literal the executor's sources pass as an instruction name: the op argument of run_op and
    Context.record, the op of _matmul, and the opname defaults of the helpers that forward it to run_op."""
    names = set()
    for path in SOURCE.rglob("*.py"):
        if "calibration" in path.parts:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fn = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if fn in ("run_op", "record", "_matmul") and len(node.args) >= 2 and \
                        isinstance(node.args[1 if fn != "record" else 0], ast.Constant):
                    value = node.args[1 if fn != "record" else 0].value
                    if isinstance(value, str):
                        names.add((value, str(path.relative_to(SOURCE))))
                for kw in node.keywords:
                    if kw.arg == "opname" and isinstance(kw.value, ast.Constant):
                        names.add((kw.value.value, str(path.relative_to(SOURCE))))
            if isinstance(node, ast.FunctionDef):
                args = node.args
                for a, d in zip(args.args[len(args.args) - len(args.defaults):], args.defaults):
                    if a.arg == "opname" and isinstance(d, ast.Constant):
                        names.add((d.value, str(path.relative_to(SOURCE))))
    return names


def test_every_instruction_the_executor_records_is_registered():
    names = _recorded_names()
    assert len({n for n, _ in names}) >= 25, names  # the walk finds the executor's calls at all
    missing = sorted((n, where) for n, where in names if n not in opregistry.OPS)
    assert missing == [], missing


def _instr(op, engine):
    sb = Access(1, "sbuf", 0, 128, 0, 512 * 4)
    attrs = {"k": 128, "m": 128, "n": 512, "moving_dtype": "bfloat16", "partitions": 128,
             "bytes_per_partition": 2048, "runs_per_partition": 1} if engine in ("tensor", "dma") else {}
    return Instr(0, op, engine, 1, 128, 512, "float32", ("float32",), 128 * 2048 if engine == "dma" else 0,
                 reads=(sb,), writes=(Access(2, "sbuf", 0, 128, 0, 512 * 4),), attrs=attrs)


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("op", sorted(opregistry.OPS))
def test_every_registered_instruction_costs_something_on_each_of_its_engines(op, target):
    reg = opregistry.OPS[op]
    assert reg.rule in opregistry.RULES
    hw = TARGETS[target]
    for engine in reg.engines:
        ins = _instr(op, engine)
        ns = dma_cost(ins, hw).own_ns if engine == "dma" else compute_ns(ins, hw)
        assert math.isfinite(ns) and ns > 0, (op, engine, ns)
        if engine == "gpsimd":
            assert ns * hw.gpsimd_ghz >= hw.gpsimd_overhead  # GpSimd pays its start-up on every rule


def test_the_executor_refuses_an_unregistered_instruction():
    ctx = Context("trn1", numeric=False)
    with pytest.raises(opregistry.UnknownInstruction, match="no instruction 'frobnicate'"):
        ctx.record("frobnicate", "vector", 128, 1, "float32", line=1)
    with pytest.raises(opregistry.UnknownInstruction, match="cannot run on scalar"):
        ctx.record("nc_matmul", "scalar", 128, 1, "float32", line=1)
    assert len(ctx.trace) == 0
    ctx.record("tensor_copy", "vector", 128, 1, "float32", line=1)
    assert len(ctx.trace) == 1


def test_an_activation_with_a_fused_reduction_pays_the_accumulator_read():
    """nki-facts §2.2: activation_reduce is max(MIN_II, N) + MIN_II; the executor records an activation with
    reduce_res as "activation" with its reduce_op, and the registry's reduce_rule charges the second MIN_II."""
    from nkisim.perf import estimate
    from nkisim_helpers import ok, rnd
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        e = nisa.activation(op=nl.exp, data=t, reduce_op=nl.add, reduce_res=s)
        nl.store(out, value=s)
        return out
    """
    r = ok(body, rnd(128, 512))
    act = [i for i in r.trace.instrs if i.op == "activation"]
    assert len(act) == 1 and act[0].attrs.get("reduce_op") == "add", act
    hw = TARGETS["trn1"]
    assert compute_ns(act[0], hw) == pytest.approx((512 + hw.min_ii) / hw.scalar_ghz)
    plain = Instr(0, "activation", "scalar", 1, 128, 512, "float32", ("float32",), 0, attrs={"func": "exp"})
    assert compute_ns(plain, hw) == pytest.approx(512 / hw.scalar_ghz)
    assert estimate(r.trace, "trn1").latency_ns > 0
