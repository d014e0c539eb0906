"""nkisim.perf.vectorize: small compute instructions in an affine_range loop are charged as the compiler's
vectorisation merges them; the same instructions in a sequential_range loop, and instructions already big
enough to clear the per-instruction floor, are charged as written."""
import pytest

from nkisim.perf import estimate
from nkisim.perf.constants import get_target
from nkisim.perf.explain import explain
from nkisim.perf.vectorize import factors
from nkisim_helpers import ok, rnd

TINY = """
@nki.jit
def kernel(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    u = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    for j in nl.LOOP(a.shape[1] // W):
        u[:, j * W:(j + 1) * W] = nl.multiply(t[:, j * W:(j + 1) * W], 2.0)
    nl.store(out, value=u)
    return out
"""


def _run(loop, width, cols=512):
    r = ok(TINY.replace("LOOP", loop).replace("W", str(width)), rnd(128, cols))
    est = estimate(r.trace, "trn1", timeline_cap=0)
    return r, est


@pytest.mark.parametrize("width", [1, 2, 8])
def test_tiny_instructions_of_an_affine_loop_are_merged(width):
    r, affine = _run("affine_range", width)
    _, seq = _run("sequential_range", width)
    n = 512 // width
    vf = factors(r.trace.instrs, get_target("trn1"))
    assert sorted({v for v in vf if v > 1}) == [n]
    # As written, each of the n instructions costs the 64-cycle floor; merged, they cost their elements.
    assert seq.per_engine_busy_ns["vector"] == pytest.approx(n * 64 / 1.12)
    assert affine.per_engine_busy_ns["vector"] == pytest.approx(max(512, 64) / 1.12)
    assert affine.latency_ns < seq.latency_ns
    x = explain(r.trace.instrs, affine.schedule, "trn1")
    assert x["vectorised"]["instructions"] == n
    assert x["vectorised"]["saved_ns"] == pytest.approx((n * 64 - 512) / 1.12)


def test_instructions_past_the_floor_are_left_as_written():
    r, affine = _run("affine_range", 128, cols=1024)
    _, seq = _run("sequential_range", 128, cols=1024)
    assert factors(r.trace.instrs, get_target("trn1")) is None
    assert affine.per_engine_busy_ns["vector"] == seq.per_engine_busy_ns["vector"]


def test_merging_stops_at_the_instruction_size_limit():
    """With a PSUM operand an instruction holds at most 4 Ki elements per partition: 8192 one-element instances
    merge in groups of 4096, so the floor is paid twice."""
    r = ok("""
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 8192), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        u = nl.ndarray((128, 8192), dtype=a.dtype, buffer=nl.sbuf)
        for j in nl.affine_range(8192):
            u[:, j:j + 1] = nl.multiply(t[:, 0:1], 2.0)
        nl.store(out, value=u)
        return out
    """, rnd(128, 1), numeric=False)
    vf = factors(r.trace.instrs, get_target("trn1"))
    assert max(vf) == 8192  # SBUF: 64 Ki elements fit in one
    ps = ok("""
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 8192), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        acc = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.psum)
        acc[...] = nisa.nc_matmul(nl.load(a[0:128, 0:128]), t[:, 0:1])
        u = nl.ndarray((128, 8192), dtype=a.dtype, buffer=nl.sbuf)
        for j in nl.affine_range(8192):
            u[:, j:j + 1] = nl.multiply(acc, 2.0)
        nl.store(out, value=u)
        return out
    """, rnd(128, 128), numeric=False)
    vf = factors(ps.trace.instrs, get_target("trn1"))
    assert max(vf) == 4096
