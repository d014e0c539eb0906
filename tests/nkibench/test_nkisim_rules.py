"""Compiler rules: each violation is an NkiCompileError naming the offending kernel line."""
import numpy as np
import pytest

import nkisim
from nkisim_helpers import line_of, rnd, run

CASES = [
    ("partition_over_128", """
    @nki.jit
    def kernel(a):
        t = nl.ndarray((256, 4), dtype=nl.float32)  # BAD
        return a
    """, "exceeds architecture limitation of 128"),
    ("load_partition_over_128", """
    @nki.jit
    def kernel(a):
        t = nl.load(a)  # BAD
        return a
    """, "exceeds architecture limitation of 128"),
    ("psum_tile_over_2k", """
    @nki.jit
    def kernel(a):
        t = nl.zeros((128, 1024), dtype=nl.float32, buffer=nl.psum)  # BAD
        return a
    """, "2 KiB"),
    ("insufficient_rank", """
    @nki.jit
    def kernel(a):
        t = nl.ndarray((128,), dtype=nl.float32)  # BAD
        return a
    """, "Insufficient rank"),
    ("stationary_over_128", """
    @nki.jit
    def kernel(a):
        s = nl.ndarray((128, 256), dtype=nl.float32)
        m = nl.ndarray((128, 256), dtype=nl.float32)
        r = nisa.nc_matmul(s, m)  # BAD
        return a
    """, "stationary free size 256"),
    ("moving_over_512", """
    @nki.jit
    def kernel(a):
        s = nl.ndarray((128, 128), dtype=nl.float32)
        m = nl.ndarray((128, 1024), dtype=nl.float32)
        r = nisa.nc_matmul(s, m)  # BAD
        return a
    """, "moving free size 1024"),
    ("contraction_mismatch", """
    @nki.jit
    def kernel(a):
        s = nl.ndarray((128, 128), dtype=nl.float32)
        m = nl.ndarray((64, 128), dtype=nl.float32)
        r = nisa.nc_matmul(s, m)  # BAD
        return a
    """, "contraction"),
    ("mixing_basic_advanced", """
    @nki.jit
    def kernel(a):
        x = nl.load(a[nl.arange(128)[:, None], :])  # BAD
        return a
    """, "cannot be mixed"),
    ("arange_1d", """
    @nki.jit
    def kernel(a):
        x = nl.load(a[nl.arange(128)])  # BAD
        return a
    """, "1-D arange"),
    ("compute_on_hbm", """
    @nki.jit
    def kernel(a):
        y = nl.exp(a)  # BAD
        return a
    """, "HBM"),
    ("load_from_sbuf", """
    @nki.jit
    def kernel(a):
        t = nl.ndarray((128, 4), dtype=nl.float32)
        y = nl.load(t)  # BAD
        return a
    """, "address space 'hbm'"),
    ("output_in_sbuf", """
    @nki.jit
    def kernel(a):
        t = nl.ndarray((128, 4), dtype=nl.float32)
        return t  # BAD
    """, "HBM"),
    ("static_out_of_bounds", """
    @nki.jit
    def kernel(a):
        x = nl.load(a[0:128, 0:600])  # BAD
        return a
    """, "out of bounds"),
    ("sbuf_capacity", """
    @nki.jit
    def kernel(a):
        big = nl.zeros((128, 40000), dtype=nl.float32)
        more = nl.zeros((128, 10000), dtype=nl.float32)  # BAD
        t = nl.add(big[:, 0:10000], more)
        return a
    """, "SBUF capacity exceeded"),
    ("psum_capacity", """
    @nki.jit
    def kernel(a):
        p0 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
        p1 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
        p2 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
        p3 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
        p4 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
        p5 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
        p6 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
        p7 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
        p8 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)  # BAD
        s = nl.add(nl.add(nl.add(p0, p1), nl.add(p2, p3)), nl.add(nl.add(p4, p5), nl.add(p6, p7)))
        s = nl.add(s, p8)
        return a
    """, "PSUM capacity exceeded"),
    ("store_to_hbm_by_assignment", """
    @nki.jit
    def kernel(a):
        o = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(a[0:128, :])
        o[...] = nl.exp(t)  # BAD
        return o
    """, "DMA"),
]


@pytest.mark.parametrize("name,body,msg", CASES, ids=[c[0] for c in CASES])
def test_rule_violation_names_line(name, body, msg):
    a = rnd(256, 512)
    r = run(body, a)
    assert isinstance(r.error, nkisim.NkiCompileError), r.error
    assert r.status == "compile_error"
    assert msg in str(r.error)
    assert r.error.line == line_of(body, "# BAD")
    assert f"line {r.error.line}:" in str(r.error)


def test_capacity_depends_on_target():
    body = """
    @nki.jit
    def kernel(a):
        t = nl.zeros((128, 50 * 1024), dtype=nl.float32)
        return a
    """
    assert run(body, rnd(2, 2), target="trn1").status == "compile_error"  # 200 KiB > 192 KiB
    assert run(body, rnd(2, 2), target="trn2").error is None  # 200 KiB <= 224 KiB


def test_loop_body_tiles_are_freed_each_iteration():
    # 100 KiB per iteration, 50 iterations: fine, because each iteration's tile dies with the iteration.
    r = run("""
    @nki.jit
    def kernel(a):
        for i in nl.affine_range(50):
            t = nl.zeros((128, 25600), dtype=nl.float32)
            u = nl.zeros((128, 25600), dtype=nl.float32)
            v = nl.add(t[:, 0:2], u[:, 0:2])
        return a
    """, rnd(2, 2))
    assert r.error is not None and "SBUF capacity" in str(r.error)  # 2 x 100 KiB in use in one iteration
    r = run("""
    @nki.jit
    def kernel(a):
        for i in nl.affine_range(50):
            t = nl.zeros((128, 25600), dtype=nl.float32)
        return a
    """, rnd(2, 2))
    assert r.error is None, r.error
    assert r.peak_sbuf_bytes == 100 * 1024


SEQUENTIAL_USES = """
@nki.jit
def kernel(a):
    o = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(4):
        # Five 60 KiB tiles stay bound to names for the whole body (300 KiB), but at most three are in use at
        # any instruction: the compiler reuses a tile's space after its last use, and so must nkisim.
        t1 = nl.zeros((128, 15360), dtype=nl.float32)
        t2 = nl.exp(t1)
        t3 = nl.add(t2, 1.0)
        t4 = nl.multiply(t3, 2.0)
        t5 = nl.add(t4, t3)
        nl.store(o, value=t5[:, 0:512])
    return o
"""


@pytest.mark.parametrize("numeric", [True, False])
def test_capacity_counts_tiles_from_first_to_last_use(numeric):
    r = run(SEQUENTIAL_USES, rnd(2, 2), numeric=numeric)
    assert r.error is None, r.error
    if numeric:
        np.testing.assert_allclose(r.outputs[0], np.full((128, 512), 6.0, np.float32))
    # the cheap bound went over, so the check by use ran; the same tiles, kept in use, do not fit
    assert r.peak_sbuf_bytes > 192 * 1024
    r = run(SEQUENTIAL_USES.replace("t5 = nl.add(t4, t3)", "t5 = nl.add(nl.add(t4, t3), nl.add(t2, t1))"),
            rnd(2, 2), numeric=numeric)
    assert r.status == "compile_error" and "SBUF capacity exceeded" in str(r.error)
    assert "from first to last use" in str(r.error) and r.error.line == 15


EIGHT_ACCUMULATORS = """
@nki.jit
def kernel(aT, b):
    out = nl.ndarray((128, 4096), dtype=nl.float32, buffer=nl.shared_hbm)
    out_t = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    p0 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    p1 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    p2 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    p3 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    p4 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    p5 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    p6 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    p7 = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    accs = [p0, p1, p2, p3, p4, p5, p6, p7]
    xt = nl.copy(nisa.nc_transpose(nl.load(aT[0:128, 0:128])))  # a ninth PSUM tile, done with before the matmuls
    nl.store(out_t, value=xt)
    for k in nl.affine_range(2):
        a_t = nl.load(aT[k * 128:(k + 1) * 128, :])
        for j in range(8):
            accs[j] += nisa.nc_matmul(a_t, nl.load(b[k * 128:(k + 1) * 128, j * 512:(j + 1) * 512]))
    for j in range(8):
        nl.store(out[:, j * 512:(j + 1) * 512], value=nl.copy(accs[j]))
    return out, out_t
"""


@pytest.mark.parametrize("numeric", [True, False])
def test_eight_full_bank_accumulators_fit_psum(numeric):
    """Eight [128, 512] fp32 accumulators fill trn1's 16 KiB of PSUM exactly, as GEMMs the compiler accepts use
    them. Two things counted more: each matmul's own result (it lands in the accumulator, no bank of its own), and
    the accumulators from their nl.zeros (the group's first matmul overwrites instead; the bank is in use from
    there), which made the transpose's PSUM tile before the loop a ninth bank."""
    aT, b = rnd(256, 128), rnd(256, 4096, seed=1)
    r = run(EIGHT_ACCUMULATORS, aT, b, numeric=numeric)
    assert r.error is None, r.error
    if numeric:
        np.testing.assert_allclose(r.outputs[0], aT.T @ b, rtol=1e-4, atol=1e-4)
        np.testing.assert_array_equal(r.outputs[1], aT[:128, :128].T)
    # Zeros that something reads before the first matmul are a fill of their own: then the ninth tile overlaps.
    read_first = EIGHT_ACCUMULATORS.replace(
        "    accs = [p0,", "    seen = nl.add(nl.add(nl.add(p0, p1), nl.add(p2, p3)), nl.add(nl.add(p4, p5), nl.add(p6, p7)))\n"
                          "    accs = [p0,", 1)
    r = run(read_first, aT, b, numeric=numeric)
    assert r.status == "compile_error" and "PSUM capacity exceeded: 16.5 KiB" in str(r.error), r.error


def test_a_tensor_nothing_accesses_takes_no_space():
    # The compiler allocates nothing for a tensor no instruction touches.
    r = run("""
    @nki.jit
    def kernel(a):
        unused = nl.ndarray((128, 50000), dtype=nl.float32)
        t = nl.zeros((128, 20000), dtype=nl.float32)
        return a
    """, rnd(2, 2))
    assert r.error is None, r.error


def test_out_of_range_indirect_index_is_runtime_error():
    idx = np.full((128, 1), 99, dtype=np.int32)
    r = run("""
    @nki.jit
    def kernel(data, idx):
        o = nl.ndarray((128, 8), dtype=data.dtype, buffer=nl.shared_hbm)
        it = nl.load(idx)
        rows = nl.load(data[it[nl.arange(128)[:, None], 0], nl.arange(8)[None, :]])  # BAD
        nl.store(o, value=rows)
        return o
    """, rnd(10, 8), idx)
    assert isinstance(r.error, nkisim.NkiRuntimeError)
    assert r.status == "runtime_error"
