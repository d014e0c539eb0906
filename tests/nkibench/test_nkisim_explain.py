"""nkisim.perf.explain: the effects behind an estimate add up to the model's own figures, and each kernel shape
shows the effect it is built to show."""
import pytest

import nkisim
from nkisim.perf import estimate
from nkisim.perf.explain import EFFECTS, explain
from nkisim_helpers import ok, rnd
from tasks_helpers import TASK_NAMES, declared_inputs, load_task


def _explained(r, target="trn1"):
    est = estimate(r.trace, target, timeline_cap=0)
    return est, explain(r.trace.instrs, est.schedule, target)


def _effect(x, effect, engine):
    return next((e for e in x["effects"] if e["effect"] == effect and e["engine"] == engine), None)


@pytest.mark.parametrize("target", ["trn1", "trn2"])  # trn2: copies the compiler places move off VectorE
@pytest.mark.parametrize("name", TASK_NAMES)
def test_the_effects_add_up_to_the_model_figures(name, target):
    meta, _, src, path = load_task(name)
    fn = nkisim.load_kernel(src, filename=path)
    r = nkisim.run_kernel(fn, declared_inputs(meta, meta["parameters"]), numeric=False, target=target)
    assert r.ok, r.error
    est, x = _explained(r, target)
    assert x["latency_ns"] == est.latency_ns
    for engine, e in x["engines"].items():
        assert e["busy_ns"] == pytest.approx(est.per_engine_busy_ns[engine], rel=1e-9)
        parts = [y["ns"] for y in x["effects"] if y["engine"] == engine and y["effect"] not in
                 ("dependency_stall", "port_sharing_stall", "psum_operand")]
        assert sum(parts) == pytest.approx(e["busy_ns"], rel=1e-6), (engine, parts)
    assert {y["effect"] for y in x["effects"]} <= set(EFFECTS)
    assert x["bound"] == max(x["engines"], key=lambda k: x["engines"][k]["share"])
    shares = [y["share"] for y in x["effects"] if y["effect"] != "psum_operand"]
    assert shares == sorted(shares, reverse=True) and all(0 <= s <= 1.0 + 1e-9 for s in shares)


def test_many_tiny_vector_instructions_are_overhead():
    """One element per partition per instruction, in a sequential_range loop (no loop optimisations): MIN_II (64
    cycles) dwarfs the one cycle of work. In an affine_range loop the compiler vectorises them (vectorize.py)."""
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        for j in nl.sequential_range(64):
            t[:, j:j + 1] = nl.exp(t[:, j:j + 1])
        nl.store(out, value=t)
        return out
    """
    _, x = _explained(ok(body, rnd(128, 64)))
    over = _effect(x, "fixed_overhead", "scalar")
    work = _effect(x, "throughput", "scalar")
    assert over is not None and work is not None
    assert over["ns"] > 30 * work["ns"], (over, work)
    assert over["instructions"] == 64 and x["vectorised"]["instructions"] == 0
    _, v = _explained(ok(body.replace("sequential_range", "affine_range"), rnd(128, 64)))
    assert v["vectorised"]["instructions"] == 64 and v["vectorised"]["saved_ns"] > 0
    merged = _effect(v, "fixed_overhead", "scalar")
    assert merged is None or merged["ns"] < over["ns"] / 30, merged


def test_narrow_rows_show_as_the_dma_size_class():
    """A [128, 16] fp32 load moves 64-byte rows: nearly all of its transfer time is the descriptors' floor."""
    r = ok("""
    @nki.jit
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for j in nl.affine_range(a.shape[1] // 16):
            nl.store(out[:, j * 16:(j + 1) * 16], value=nl.load(a[:, j * 16:(j + 1) * 16]))
        return out
    """, rnd(128, 4096))
    _, x = _explained(r)
    rows = _effect(x, "dma_small_rows", "dma")
    moved = _effect(x, "dma_transfer", "dma")
    assert x["bound"] == "dma"
    assert rows is not None and rows["ns"] > 10 * (moved["ns"] if moved else 0.0), (rows, moved)


def test_a_chain_of_dependent_instructions_stalls_its_engine():
    """Each exp reads the one before (through a DMA round trip): ScalarE waits, and the wait is named."""
    r = ok("""
    @nki.jit
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        for j in nl.sequential_range(8):
            nl.store(out, value=nl.exp(t))
            t = nl.load(out)
        return out
    """, rnd(128, 512))
    _, x = _explained(r)
    assert x["bound"] == "scalar", x["engines"]
    stall = _effect(x, "dependency_stall", "scalar")
    assert stall is not None and stall["ns"] > x["engines"]["scalar"]["busy_ns"], (stall, x["engines"])
    assert _effect(x, "dependency_stall", "dma") is None  # only the bound engine's wait is an effect
