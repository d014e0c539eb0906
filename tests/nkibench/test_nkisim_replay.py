"""Timing-only loop replay (nkisim/replay.py): a replayed run records exactly the trace a plain run records - every
field of every instruction, tensor ids, regions, loop ids, lines - and the same peaks, outputs and errors; loops whose
body is not affine in the index fall back to running every iteration."""
import textwrap

import numpy as np
import pytest

import nkisim
from nkisim import replay
from nkisim.perf import estimate
from nkisim.perf.scheduler import _DmaPipe
from nkisim_helpers import rnd, src
from tasks_helpers import TASK_NAMES, load_task, timing_inputs


def records(trace):
    return [(i.seq, i.op, i.engine, i.line, i.partitions, i.free_elems, i.dtype, i.in_dtypes, i.dma_bytes, i.reads,
             i.writes, i.loops, sorted(i.attrs.items(), key=lambda kv: kv[0])) for i in trace]


def both(body, args, monkeypatch, numeric=False):
    """(plain run, replayed run, replay stats of the replayed run)."""
    text = src(body)
    monkeypatch.setattr(replay, "ENABLED", False)
    plain = nkisim.run_kernel(text, args, numeric=numeric)
    monkeypatch.setattr(replay, "ENABLED", True)
    replay.reset_stats()
    rep = nkisim.run_kernel(text, args, numeric=numeric)
    stats = {k: (dict(v) if isinstance(v, dict) else v) for k, v in replay.stats.items()}
    return plain, rep, stats


def same(plain, rep):
    assert rep.status == plain.status
    assert str(rep.error) == str(plain.error)
    assert (rep.error.line if rep.error else 0) == (plain.error.line if plain.error else 0)
    assert records(rep.trace) == records(plain.trace)
    assert (rep.peak_sbuf_bytes, rep.peak_psum_bytes) == (plain.peak_sbuf_bytes, plain.peak_psum_bytes)
    assert repr(rep.outputs) == repr(plain.outputs)
    if plain.ok and len(plain.trace):
        a, b = estimate(plain.trace), estimate(rep.trace)
        assert (a.latency_ns, a.metrics, a.timeline) == (b.latency_ns, b.metrics, b.timeline)


AFFINE = """
@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    ip = nl.arange(128)[:, None]
    jf = nl.arange(256)[None, :]
    for t in nl.affine_range(x.shape[0] // 128):
        a = nl.load(x[t * 128 + ip, jf])
        b = nl.exp(a)
        c = nisa.tensor_scalar(b, op0=nl.multiply, operand0=2.0)
        nl.store(out[t * 128 + ip, jf], value=c)
    return out
"""


def test_affine_loop_is_replayed_exactly(monkeypatch):
    plain, rep, st = both(AFFINE, [rnd(128 * 12, 256)], monkeypatch)
    same(plain, rep)
    assert st["replayed"] == 1 and st["iterations"] == 9 and st["reruns"] == 0  # 0, 1 and 11 run for real


def test_numeric_runs_are_never_replayed(monkeypatch):
    x = rnd(128 * 12, 256)
    plain, rep, st = both(AFFINE, [x], monkeypatch, numeric=True)
    same(plain, rep)
    assert st["probed"] == 0 and st["replayed"] == 0
    assert np.allclose(rep.outputs[0], 2 * np.exp(x), rtol=1e-5)


NESTED = """
@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    buf = nl.ndarray((8, nl.par_dim(128), 64), dtype=np.float32, buffer=nl.sbuf)
    for r in nl.affine_range(x.shape[0] // 128):
        for c in range(8):
            buf[c] = nl.load(x[nl.ds(r * 128, 128), nl.ds(c * 64, 64)])
        for c in nl.sequential_range(8):
            y = nl.multiply(buf[c], buf[c])
            nl.store(out[nl.ds(r * 128, 128), nl.ds(c * 64, 64)], value=y)
    return out
"""


def test_nested_loops_are_replayed_exactly(monkeypatch):
    plain, rep, st = both(NESTED, [rnd(128 * 7, 512)], monkeypatch)
    same(plain, rep)
    assert st["replayed"] >= 3 and st["reruns"] == 0  # the outer loop and the inner loops of its real iterations


MASKED = """
@nki.jit
def kernel(x):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    ip = nl.arange(128)[:, None]
    jf = nl.arange(N)[None, :]
    for t in nl.affine_range((M + 127) // 128):
        rows = t * 128 + ip
        live = {cond}
        a = nl.load(x[rows, jf], mask=live)
        b = nisa.activation(op=nl.exp, data=a, mask=live)
        nl.store(out[rows, jf], value=b, mask=live)
    return out
"""


@pytest.mark.parametrize("cond", ["rows < M",  # the last tile is partial
                                  "((rows < 500) | (rows >= 700)) & (rows < M)",  # tiles in the middle are masked
                                  "(rows % 256) < 200"])  # a mask that is not affine in the index
def test_masks_computed_from_the_index_are_checked_per_iteration(monkeypatch, cond):
    plain, rep, st = both(MASKED.format(cond=cond), [rnd(1000, 64)], monkeypatch)
    same(plain, rep)
    assert st["reruns"] == 0


def test_a_partial_last_tile_stops_replay_before_it(monkeypatch):
    plain, rep, st = both(MASKED.format(cond="rows < M"), [rnd(128 * 9 + 40, 64)], monkeypatch)
    same(plain, rep)
    assert st["replayed"] == 1 and st["iterations"] == 6  # 0, 1 run, 2-7 replayed, 8 and 9 (the partial one) run


PY_IF = """
@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(x.shape[0] // 128):
        a = nl.load(x[nl.ds(t * 128, 128), :])
        if {cond}:
            a = nl.exp(a)
        nl.store(out[nl.ds(t * 128, 128), :], value=a)
    return out
"""


@pytest.mark.parametrize("cond", ["t % 2 == 0", "t == 5", "t > 6", "min(t, 4) == 4"])
def test_python_control_flow_on_the_index_falls_back(monkeypatch, cond):
    plain, rep, st = both(PY_IF.format(cond=cond), [rnd(128 * 10, 64)], monkeypatch)
    assert plain.ok, plain.error
    same(plain, rep)
    assert st["replayed"] == 0 and st["refused"] == {"unsafe": 1}


SEQ_STATE = """
@nki.jit
def kernel(x):
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    state = nl.zeros((128, 64), dtype=np.float32, buffer=nl.sbuf)
    for t in nl.sequential_range(x.shape[0] // 128):
        a = nl.load(x[nl.ds(t * 128, 128), :])
        state[...] = nl.add(state, a)
    nl.store(out, value=state)
    return out
"""


def test_a_dependency_carried_through_a_tile_is_replayed(monkeypatch):
    x = rnd(128 * 10, 64)
    plain, rep, st = both(SEQ_STATE, [x], monkeypatch)
    same(plain, rep)
    assert st["replayed"] == 1


@pytest.mark.parametrize("body", [
    # a Python value carried from one iteration to the next
    """
    off = 0
    for t in nl.sequential_range(n):
        a = nl.load(x[nl.ds(off, 128), :])
        nl.store(out[nl.ds(t * 128, 128), :], value=a)
        off += 128
    """,
    # a tile rebound each iteration (a new tile every time)
    """
    acc = nl.zeros((128, 64), dtype=np.float32, buffer=nl.sbuf)
    for t in nl.sequential_range(n):
        acc = nl.add(acc, nl.load(x[nl.ds(t * 128, 128), :]))
    nl.store(out[nl.ds(0, 128), :], value=acc)
    """,
    # a container filled by the body and used after it
    """
    tiles = []
    for t in nl.affine_range(n):
        tiles.append(nl.load(x[nl.ds(t * 128, 128), :]))
    for t in nl.affine_range(3):
        nl.store(out[nl.ds(t * 128, 128), :], value=tiles[n - 1 - t])
    """,
    # a lookup table indexed by the loop index
    """
    offs = [0, 1, 2, 3, 9, 5, 6, 7, 4, 8]
    for t in nl.affine_range(n):
        a = nl.load(x[nl.ds(offs[t] * 128, 128), :])
        nl.store(out[nl.ds(t * 128, 128), :], value=a)
    """,
    # the same lookup inside a helper function
    """
    for t in nl.affine_range(n):
        a = nl.load(x[nl.ds(row_of(t) * 128, 128), :])
        nl.store(out[nl.ds(t * 128, 128), :], value=a)
    """,
    # the same lookup in a method of a user object
    """
    cfg = Rows()
    for t in nl.affine_range(n):
        a = nl.load(x[nl.ds(cfg.row(t) * 128, 128), :])
        nl.store(out[nl.ds(t * 128, 128), :], value=a)
    """,
    # the index converted to a plain number by the kernel
    """
    for t in nl.affine_range(n):
        r = int(t) * 128 % 1000
        a = nl.load(x[nl.ds(r, 128), :])
        nl.store(out[nl.ds(t * 128, 128), :], value=a)
    """,
    # an index array built by numpy from the index
    """
    for t in nl.affine_range(n):
        rows = np.arange(t * 128, t * 128 + 128)[:, None]
        a = nl.load(x[rows, nl.arange(64)[None, :]])
        nl.store(out[nl.ds(t * 128, 128), :], value=a)
    """,
    # a trip count that depends on the index
    """
    for t in nl.affine_range(n):
        for j in range(t + 1):
            a = nl.load(x[nl.ds(j * 128, 128), :])
            nl.store(out[nl.ds(t * 128, 128), :], value=a)
    """,
])
def test_bodies_that_are_not_affine_fall_back(monkeypatch, body):
    kernel = ("OFFS = [0, 1, 2, 3, 9, 5, 6, 7, 4, 8]\n\n\ndef row_of(t):\n    return OFFS[t]\n\n\n"
              "class Rows:\n    def row(self, t):\n        return OFFS[t]\n\n\n"
              "@nki.jit\ndef kernel(x):\n    n = x.shape[0] // 128\n"
              "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)\n" +
              textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n    return out\n")
    plain, rep, st = both(kernel, [rnd(128 * 10, 64)], monkeypatch)
    assert plain.ok, plain.error
    same(plain, rep)
    assert st["refused"] and not st["reruns"]  # refused up front, not caught afterwards


TABLE = """
TBL = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 2])


@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(10):
        a = nl.load(x[nl.ds(TBL.item(t) * 128, 128), :])
        nl.store(out[nl.ds(t * 128, 128), :], value=a)
    return out
"""


def test_a_mismatch_found_at_the_last_iteration_reruns_the_kernel_without_replay(monkeypatch):
    # ndarray.item reads an int subclass's value in C, unseen by the taint: the template predicts row tile 9 for
    # the last iteration, which is checked against the real one and found to differ.
    plain, rep, st = both(TABLE, [rnd(128 * 10, 64)], monkeypatch)
    assert plain.ok
    same(plain, rep)
    assert st["reruns"] == 1


def test_printing_the_index_is_not_replayed(monkeypatch, capsys):
    body = PY_IF.format(cond="False").replace("        a = nl.load(", "        print('tile', t)\n        a = nl.load(")
    plain, rep, st = both(body, [rnd(128 * 10, 64)], monkeypatch)
    same(plain, rep)
    assert st["refused"] == {"unsafe": 1}
    assert capsys.readouterr().out.count("tile") == 20  # ten lines from each run


MATMUL = """
@nki.jit
def kernel(a, b):
    K, M = a.shape
    N = b.shape[1]
    out = nl.ndarray((M, N), dtype=np.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((128, 512), dtype=np.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                lhs = nl.load(a[nl.ds(k * 128, 128), nl.ds(m * 128, 128)])
                rhs = nl.load(b[nl.ds(k * 128, 128), nl.ds(n * 512, 512)])
                acc += nisa.nc_matmul(lhs, rhs)
            nl.store(out[nl.ds(m * 128, 128), nl.ds(n * 512, 512)], value=nl.copy(acc))
    return out
"""


def test_psum_accumulation_into_one_region_is_replayed(monkeypatch):
    """`acc += matmul` over k into a tile from outside the k loop: every iteration updates the same region and
    none reads it, so the k loops replay as well as the loops around them."""
    plain, rep, st = both(MATMUL, [rnd(128 * 6, 128 * 7), rnd(128 * 6, 512 * 6)], monkeypatch)
    same(plain, rep)
    assert not st["refused"] and st["replayed"] >= 3, st


# Accumulating into a region that moves with the index, or reading the accumulator inside the loop, changes the
# group state each iteration leaves: those loops run every iteration (the loops around them still replay).
PSUM_MOVING = """
@nki.jit
def kernel(a, b):
    K, M = a.shape
    out = nl.ndarray((M, 8 * 64), dtype=np.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        acc = nl.zeros((128, 8 * 64), dtype=np.float32, buffer=nl.psum)
        for j in nl.affine_range(8):
            lhs = nl.load(a[nl.ds(0, 128), nl.ds(m * 128, 128)])
            rhs = nl.load(b[nl.ds(0, 128), nl.ds(j * 64, 64)])
            acc[:, nl.ds(j * 64, 64)] += nisa.nc_matmul(lhs, rhs)
        nl.store(out[nl.ds(m * 128, 128), :], value=nl.copy(acc))
    return out
"""

PSUM_READ = """
@nki.jit
def kernel(a, b):
    K, M = a.shape
    out = nl.ndarray((M, 64), dtype=np.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        acc = nl.zeros((128, 64), dtype=np.float32, buffer=nl.psum)
        for k in nl.affine_range(K // 128):
            lhs = nl.load(a[nl.ds(k * 128, 128), nl.ds(m * 128, 128)])
            rhs = nl.load(b[nl.ds(k * 128, 128), nl.ds(0, 64)])
            acc += nisa.nc_matmul(lhs, rhs)
            nl.store(out[nl.ds(m * 128, 128), :], value=nl.copy(acc))
    return out
"""


@pytest.mark.parametrize("body, why", [(PSUM_MOVING, "psum"), (PSUM_READ, "unsafe")])
def test_psum_accumulation_that_changes_group_state_is_not_replayed(monkeypatch, body, why):
    plain, rep, st = both(body, [rnd(128 * 8, 128 * 7), rnd(128 * 8, 512)], monkeypatch)
    same(plain, rep)
    assert st["refused"].get(why, 0) >= 1 and st["replayed"] >= 1, st


OOB = """
@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for t in nl.affine_range(9):
        a = nl.load(x[nl.ds(t * 128, 128), :])
        nl.store(out[nl.ds(t * 128, 128), :], value=a)
    return out
"""


def test_errors_are_those_of_a_plain_run(monkeypatch):
    plain, rep, st = both(OOB, [rnd(1000, 64)], monkeypatch)
    assert plain.status == "compile_error" and "out of bounds" in str(plain.error)
    same(plain, rep)
    assert st["reruns"] == 1


BLOCKS = """
@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    big = nl.ndarray((16, nl.par_dim(128), 2048), dtype=np.float32, buffer=nl.sbuf)
    for t in nl.affine_range(16):
        big[t] = nl.load(x[nl.ds(t * 128, 128), :])
        tmp = nl.exp(big[t])
        big[t] = nl.multiply(tmp, big[t])
        nl.store(out[nl.ds(t * 128, 128), :], value=big[t])
    return out
"""


def test_capacity_accounting_and_peaks_match(monkeypatch):
    plain, rep, st = both(BLOCKS, [rnd(128 * 16, 2048)], monkeypatch)
    same(plain, rep)
    assert st["replayed"] == 1 and plain.peak_sbuf_bytes > 0


def test_dma_pipe_calendar_matches_a_plain_bucket_walk():
    """The run-length calendar against the bucket-by-bucket walk it replaces, on random transfers."""
    class Plain:
        def __init__(self, rate):
            self.cap = 256.0 * rate
            self.left = {}

        def transfer(self, t0, demand, own_rate):
            if demand <= 0:
                return t0
            b, t = int(t0 // 256.0), t0
            while True:
                avail = self.left.get(b, self.cap)
                take = min(avail, own_rate * ((b + 1) * 256.0 - t), demand)
                if take > 0:
                    self.left[b] = avail - take
                    demand -= take
                    if demand <= 1e-9:
                        return t + take / own_rate
                b += 1
                t = b * 256.0

    rng = np.random.default_rng(3)
    a, b = Plain(190.0), _DmaPipe(190.0)
    for _ in range(4000):
        t0 = float(rng.uniform(0, 2e5)) if rng.random() < 0.7 else float(rng.integers(0, 800) * 256.0)
        demand = float(rng.choice([rng.uniform(1, 3e5), 190.0 * 256.0 * rng.integers(1, 9)]))
        rate = float(rng.choice([190.0, rng.uniform(5, 300)]))
        assert a.transfer(t0, demand, rate) == b.transfer(t0, demand, rate)


@pytest.mark.parametrize("name", TASK_NAMES)
def test_every_baseline_times_the_same_with_replay(name, monkeypatch):
    """Each NKIBench baseline at full size, timing-only: replay records exactly the plain run's trace, and the
    estimate (latency, metrics, timeline) is the same."""
    meta, ref, text, path = load_task(name)
    params = meta["parameters"]
    args = timing_inputs(ref.transform_to_nki_inputs(ref.get_inputs(0, params), params))
    monkeypatch.setattr(replay, "ENABLED", False)
    plain = nkisim.run_kernel(nkisim.load_kernel(text, filename=path), args, numeric=False)
    monkeypatch.setattr(replay, "ENABLED", True)
    replay.reset_stats()
    rep = nkisim.run_kernel(nkisim.load_kernel(text, filename=path), args, numeric=False)
    assert plain.ok, plain.error
    assert replay.stats["replayed"] > 0 and replay.stats["reruns"] == 0, replay.stats
    same(plain, rep)
