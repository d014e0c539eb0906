"""A tensor_copy whose engine the kernel leaves to the compiler runs where the compiler would put it, "based on
engine workload" (nki.isa.tensor_copy): on NC-v3 and later the Vector, Scalar or GpSimd engine that finishes it
first (GpSimd never with a PSUM operand); on NC-v2 VectorE, whose SBUF port GpSimd shares."""
import collections

import pytest

from nkisim.perf import estimate
from nkisim_helpers import ok, rnd

EVICTIONS = """
@nki.jit
def kernel(a, b):
    out = nl.ndarray((128, 8 * 512), dtype=nl.float32, buffer=nl.shared_hbm)
    s = nl.load(a, dtype=nl.bfloat16)
    m = nl.load(b, dtype=nl.bfloat16)
    banks = [nisa.nc_matmul(s, m) for j in range(8)]  # bf16: results come faster than one engine evicts them
    for j in range(8):
        nl.store(out[:, j * 512:(j + 1) * 512], value=nisa.tensor_copy(banks[j] ENGINE))
    return out
"""


def _units(body, target):
    r = ok(body, rnd(128, 128).astype("float32"), rnd(128, 512, seed=1), target=target, numeric=False)
    est = estimate(r.trace, target, timeline_cap=0)
    units = [est.schedule.unit[i] for i, ins in enumerate(r.trace.instrs) if ins.op == "tensor_copy"]
    return collections.Counter(units), est


@pytest.mark.parametrize("target", ["trn2", "trn3"])
def test_psum_evictions_spread_over_vector_and_scalar_on_nc_v3(target):
    auto, est = _units(EVICTIONS.replace(" ENGINE", ""), target)
    assert set(auto) == {"vector", "scalar"}, auto  # never GpSimd: it cannot read PSUM
    named, named_est = _units(EVICTIONS.replace(" ENGINE", ", engine=nisa.vector_engine"), target)
    assert named == {"vector": 8}  # an engine the kernel names is kept
    assert est.latency_ns < named_est.latency_ns
    assert est.metrics["scalar_engine_instruction_count"] == auto["scalar"]


def test_nc_v2_keeps_them_on_vector():
    auto, _ = _units(EVICTIONS.replace(" ENGINE", ""), "trn1")
    assert auto == {"vector": 8}


def test_sbuf_copies_may_go_to_gpsimd_on_nc_v3():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 8 * 512), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(a)
        for j in nl.affine_range(8):
            nl.store(out[:, j * 512:(j + 1) * 512], value=nisa.tensor_copy(t))
        return out
    """
    r = ok(body, rnd(128, 512), target="trn2", numeric=False)
    est = estimate(r.trace, "trn2", timeline_cap=0)
    units = {est.schedule.unit[i] for i, ins in enumerate(r.trace.instrs) if ins.op == "tensor_copy"}
    assert len(units) >= 2 and units <= {"vector", "scalar", "gpsimd"}, units
