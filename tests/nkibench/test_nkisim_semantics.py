"""Lazily filled on-chip buffers, the fast indexing path, operand masks, elementwise ==/!=, per-instruction free-size
limits, PSUM accumulation groups on a reused buffer, and nl.nc/spmd_dim grids."""
import importlib

import numpy as np
import pytest

import nkisim
from nkisim import context, dtypes
from nkisim_helpers import line_of, ok, out, rnd, run, src

tensor = importlib.import_module("nkisim.tensor")  # nkisim.tensor is the nt.tensor placeholder factory

# --- lazily filled buffers ----------------------------------------------------------------------------------------


def test_block_buffer_unwritten_blocks_read_as_nan_and_written_ones_keep_data():
    a = rnd(128, 64)
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray((3, 128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        buf = nl.ndarray((3, nl.par_dim(128), 64), dtype=nl.float32, buffer=nl.sbuf)
        buf[0] = nl.load(a)
        buf[2, 0:64, 0:32] = nl.load(a[0:64, 0:32])  # partial write: the rest of block 2 stays NaN
        for j in nl.affine_range(3):
            nl.store(o[j], value=nl.copy(buf[j]))
        return o
    """, a)
    np.testing.assert_array_equal(got[0], a)
    assert np.isnan(got[1]).all()
    np.testing.assert_array_equal(got[2, :64, :32], a[:64, :32])
    assert np.isnan(got[2, 64:]).all() and np.isnan(got[2, :64, 32:]).all()


def test_lazy_fill_values_and_views_across_blocks():
    r = ok("""
    @nki.jit
    def kernel(a):
        o1 = nl.ndarray((2, 128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        o2 = nl.ndarray((128, 4), dtype=nl.int32, buffer=nl.shared_hbm)
        f = nl.full((2, nl.par_dim(128), 4), 2.5, dtype=nl.float32)
        f[1] = nl.load(a)
        i_b = nl.arange(2)[:, None, None]
        i_p = nl.arange(128)[None, :, None]
        i_f = nl.arange(4)[None, None, :]
        whole = f[i_b, i_p, i_f]  # an index over the block dimension: takes the general path
        nl.store(o1[0], value=nl.copy(f[0]))
        nl.store(o1[1], value=nl.copy(f[1]))
        g = nl.ndarray((2, nl.par_dim(128), 4), dtype=nl.int32)
        nl.store(o2, value=nl.copy(g[1]))
        return o1, o2
    """, rnd(128, 4))
    o1, o2 = r.outputs
    assert (o1[0] == 2.5).all()
    np.testing.assert_array_equal(o1[1], rnd(128, 4))
    assert (o2 == np.iinfo(np.int32).max).all()  # integer garbage


def test_huge_declared_block_buffer_costs_only_what_is_written():
    # 16 Ki blocks x 128 partitions x 128 fp32 = 1 GiB declared; only two blocks are ever written.
    a = rnd(128, 128)
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        big = nl.ndarray((16384, nl.par_dim(128), 128), dtype=nl.float32, buffer=nl.sbuf)
        big[7] = nl.load(a)
        big[16383] = nl.exp(big[7])
        nl.store(o, value=big[16383])
        return o
    """, a)
    np.testing.assert_allclose(got, np.exp(a), rtol=1e-6)


def test_fast_index_path_matches_general_path():
    ctx = context.Context("trn1", False)
    prev, context._current = context._current, ctx
    try:
        t = tensor.Tile(tensor.new_alloc((4, 128, 512), dtypes.float32, "hbm", init=None))
        ip = np.arange(128)[:, None]
        jf = np.arange(256)[None, :]
        keys = [(1, ip, jf), (-1, 2 * 0 + ip, 256 + jf), (2, ip, 2 * jf), (1,), (slice(None), 0),
                (0, slice(0, 64), slice(8, None, 2)), 3, (1, 5 + ip[:64], jf[:, ::-1])]
        for raw in keys:
            fast = tensor._fast_key(raw, t.shape)
            comps = tensor.simplify_key(tensor._norm_user_key(raw, t.shape))
            if fast is None:
                continue
            assert [(c.start, c.stop, c.step) if isinstance(c, slice) else c for c in fast] == \
                [(c.start, c.stop, c.step) if isinstance(c, slice) else c for c in comps], raw
            assert t[raw].shape == tensor._key_shape(comps)
        assert tensor._fast_key((1, ip, jf[:, ::-1]), t.shape) is None  # a descending index stays advanced
        assert tensor._fast_key((1, np.arange(8)), t.shape) is None  # 1-D aranges go to the general path's error
    finally:
        context._current = prev


# --- operand masks ------------------------------------------------------------------------------------------------

def test_nc_matmul_operand_masks_restrict_output_region():
    lhsT, rhs = rnd(128, 128), rnd(128, 512, seed=1)
    r = ok("""
    @nki.jit
    def kernel(lhsT, rhs):
        o = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        a = nl.load(lhsT)
        b = nl.load(rhs)
        i_a_f = nl.arange(128)[None, :]
        i_b_f = nl.arange(512)[None, :]
        acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
        acc += nisa.nc_matmul(a[i_a_f < 64], b[i_b_f < 256])
        nl.store(o, value=nl.copy(acc))
        return o
    """, lhsT, rhs)
    got = r.outputs[0]
    np.testing.assert_allclose(got[:64, :256], lhsT[:, :64].T @ rhs[:, :256], rtol=1e-4, atol=1e-4)
    assert (got[64:] == 0).all() and (got[:, 256:] == 0).all()
    mm = [i for i in r.trace if i.op == "nc_matmul"][0]
    assert (mm.attrs["m"], mm.attrs["n"], mm.attrs["k"]) == (64, 256, 128)


def test_operand_mask_on_partitions_shrinks_the_contraction():
    lhsT, rhs = rnd(128, 32), rnd(128, 64, seed=1)
    r = ok("""
    @nki.jit
    def kernel(lhsT, rhs):
        o = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        a = nl.load(lhsT)
        b = nl.load(rhs)
        i_p = nl.arange(128)[:, None]
        nl.store(o, value=nl.copy(nisa.nc_matmul(a[i_p < 96], b)))
        return o
    """, lhsT, rhs)
    np.testing.assert_allclose(r.outputs[0], lhsT[:96].T @ rhs[:96], rtol=1e-4, atol=1e-4)
    assert [i for i in r.trace if i.op == "nc_matmul"][0].attrs["k"] == 96


def test_nl_matmul_operand_mask_follows_the_transpose():
    x, y = rnd(64, 128), rnd(128, 100, seed=1)
    got = out("""
    @nki.jit
    def kernel(x, y):
        o = nl.ndarray((64, 100), dtype=nl.float32, buffer=nl.shared_hbm)
        xt = nl.load(x)
        yt = nl.load(y)
        i_xp = nl.arange(64)[:, None]
        res = nl.zeros((64, 100), dtype=nl.float32, buffer=nl.psum)
        res[...] = nl.matmul(xt[i_xp < 16], yt)
        nl.store(o, value=nl.copy(res))
        return o
    """, x, y)
    np.testing.assert_allclose(got[:16], x[:16] @ y, rtol=1e-4, atol=1e-4)
    assert (got[16:] == 0).all()


@pytest.mark.parametrize("expr, msg", [
    ("nisa.nc_matmul(a[i_p < 64], b[i_p < 32])", "different contraction partitions"),
    ("nisa.nc_matmul(a[i_f <= i_p], b)", "must select a rectangle"),
    ("nl.exp(a[i_f < 64])", "only supported for matmul operands"),
])
def test_operand_mask_errors(expr, msg):
    body = f"""
    @nki.jit
    def kernel(lhsT, rhs):
        a = nl.load(lhsT)
        b = nl.load(rhs)
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(128)[None, :]
        r = {expr}  # BAD
        return lhsT
    """
    r = run(body, rnd(128, 128), rnd(128, 128))
    assert isinstance(r.error, nkisim.NkiCompileError) and msg in str(r.error), str(r.error)
    assert r.error.line == line_of(body, "# BAD")


# --- == and != ----------------------------------------------------------------------------------------------------

def test_tile_equality_is_elementwise_and_tiles_stay_hashable():
    a = np.array([[1, 2, 3, 4]] * 8, dtype=np.float32)
    b = np.array([[1, 0, 3, 0]] * 8, dtype=np.float32)
    r = ok("""
    @nki.jit
    def kernel(a, b):
        o1 = nl.ndarray((8, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        o2 = nl.ndarray((8, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        o3 = nl.ndarray((8, 4), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nl.load(b)
        assert not (x == None) and x != "x" and x in [x] and {x: 1}[x] == 1 and len({x, y, x}) == 2
        nl.store(o1, value=nl.copy(x == y, dtype=nl.float32))
        nl.store(o2, value=nl.copy(x != y, dtype=nl.float32))
        nl.store(o3, value=nl.copy(3.0 == x, dtype=nl.float32))
        return o1, o2, o3
    """, a, b)
    o1, o2, o3 = r.outputs
    np.testing.assert_array_equal(o1, (a == b).astype(np.float32))
    np.testing.assert_array_equal(o2, (a != b).astype(np.float32))
    np.testing.assert_array_equal(o3, (a == 3).astype(np.float32))


# --- free-size limits and partition offsets -----------------------------------------------------------------------

def test_vector_instruction_free_size_limit_on_sbuf():
    body = """
    @nki.jit
    def kernel(a):
        t = nl.load(a)
        u = nl.exp(t)  # BAD
        return a
    """
    # uint8 so that the tile and its result fit in SBUF: the limit counts elements, not bytes.
    spec = nkisim.typing.tensor[[128, 65537], nkisim.language.uint8]
    r = nkisim.run_kernel(src(body), [spec], numeric=False)
    assert isinstance(r.error, nkisim.NkiCompileError) and "limit on SBUF is 65536" in str(r.error)
    assert r.error.line == line_of(body, "# BAD")
    ok_spec = nkisim.typing.tensor[[128, 65536], nkisim.language.uint8]
    assert nkisim.run_kernel(src(body), [ok_spec], numeric=False).error is None
    # A DMA is not a Vector/Scalar instruction: loading more is fine.
    body2 = """
    @nki.jit
    def kernel(a):
        t = nl.load(a)
        return a
    """
    assert nkisim.run_kernel(src(body2), [spec], numeric=False).error is None


def test_free_size_limit_with_psum_operand():
    from nkisim import core
    core.check_free_size("x", "vector", 4096, True)
    with pytest.raises(nkisim.NkiCompileError, match="limit with a PSUM operand is 4096"):
        core.check_free_size("x", "vector", 4097, True)


def test_partition_offsets_inside_a_tile_are_not_restricted():
    # The start-offset rule belongs to the allocator (where whole tiles go); accesses at partition 16 are legal.
    a = rnd(128, 8)
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray((32, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(a)
        nl.store(o, value=nl.exp(t[16:48, :]))
        return o
    """, a)
    np.testing.assert_allclose(got, np.exp(a[16:48]), rtol=1e-6)


# --- PSUM accumulation groups -------------------------------------------------------------------------------------

MM_REUSE = """
@nki.jit
def kernel(lhsT, rhs):
    # lhsT (K, M), rhs (K, N) with N a multiple of 128; out (M, N) in 128-column pieces
    K, M = lhsT.shape
    N = rhs.shape[1]
    o = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    i_k = nl.arange(128)[:, None]
    i_m = nl.arange(M)[None, :]
    i_n = nl.arange(128)[None, :]
    {alloc_outer}
    for n in nl.affine_range(N // 128):
        {alloc_inner}
        for k in nl.affine_range(K // 128):
            a = nl.load(lhsT[k * 128 + i_k, i_m])
            b = nl.load(rhs[k * 128 + i_k, n * 128 + i_n])
            acc += nisa.nc_matmul(a, b)
        res = nl.copy(acc)
        nl.store(o[nl.arange(M)[:, None], n * 128 + i_n], value=res)
    return o
"""
ALLOC = "acc = nl.zeros((nl.par_dim(M), 128), dtype=nl.float32, buffer=nl.psum)"


@pytest.mark.parametrize("where", ["inner", "outer"])
def test_psum_group_restarts_in_a_new_outer_iteration(where):
    lhsT, rhs = rnd(256, 64), rnd(256, 384, seed=1)
    body = MM_REUSE.format(alloc_outer=ALLOC if where == "outer" else "",
                           alloc_inner=ALLOC if where == "inner" else "")
    r = ok(body, lhsT, rhs)
    np.testing.assert_allclose(r.outputs[0], lhsT.T @ rhs, rtol=1e-4, atol=1e-4)
    flags = [i.attrs["accumulate"] for i in r.trace if i.op == "nc_matmul"]
    if where == "inner":  # the standard pattern: every `+=` accumulates onto a fresh zeros tile
        assert flags == [True] * 6
    else:  # the reused buffer: each later group's first matmul overwrites
        assert flags == [True, True, False, True, False, True]


def test_nested_contraction_loops_stay_one_group():
    lhsT, rhs = rnd(512, 64), rnd(512, 128, seed=1)
    got = out("""
    @nki.jit
    def kernel(lhsT, rhs):
        o = nl.ndarray((64, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((64, 128), dtype=nl.float32, buffer=nl.psum)
        for kb in nl.affine_range(2):
            for ki in nl.affine_range(2):
                k0 = (kb * 2 + ki) * 128
                acc += nisa.nc_matmul(nl.load(lhsT[k0:k0 + 128, :]), nl.load(rhs[k0:k0 + 128, :]))
        nl.store(o, value=nl.copy(acc))
        return o
    """, lhsT, rhs)
    np.testing.assert_allclose(got, lhsT.T @ rhs, rtol=1e-4, atol=1e-4)


# --- SPMD grids with nl.nc / nl.spmd_dim --------------------------------------------------------------------------

SPMD = """
@nki.jit
def kernel(a):
    b = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    j = nl.program_id(1)
    t = nl.load(a[i, j])
    nl.store(b[i, j], value=nl.add(t, nl.num_programs(0) * 100 + nl.num_programs()))
    return b
"""


def test_grids_with_nc_and_spmd_dim():
    nl = nkisim.language
    a = rnd(4, 2, 128, 4)
    k = nkisim.load_kernel(src(SPMD))
    for grid in ((4, 2), (nl.spmd_dim(nl.nc(2), 2), 2), (nl.spmd_dim(2, nl.nc(2)), 2)):
        r = nkisim.run_kernel(k, [a], grid=grid)
        assert r.error is None and r.grid == (4, 2), (grid, r.error)
        np.testing.assert_allclose(r.outputs[0], a + 408, rtol=1e-6)
    got = nkisim.jit(k)[nl.nc(2), 2](a[:2])
    np.testing.assert_allclose(got, a[:2] + 204, rtol=1e-6)


def test_malloc_tuning_is_idempotent():
    from nkisim import memory
    first = memory.tune_malloc()
    assert memory.tune_malloc() == first


CYCLES = """
import gc
import weakref


class Node:
    pass


@nki.jit
def kernel(a):
    o = nl.ndarray((128, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    first = None
    for i in range(20000):
        n = Node()
        n.me = n
        n.tile = nl.zeros((128, 4), dtype=nl.float32)
        first = first or weakref.ref(n)
    SEEN.append((gc.get_threshold(), first() is None))
    nl.store(o, value=nl.load(a))
    return o
"""


def test_numeric_runs_skip_full_collections_but_free_young_cycles():
    import gc
    k = nkisim.load_kernel(src(CYCLES))
    seen = k.__globals__["SEEN"] = []
    before = gc.get_threshold()
    r = nkisim.run_kernel(k, [rnd(128, 4)])
    assert r.error is None, r.error
    (inside, freed), = seen
    assert inside[:2] == before[:2] and inside[2] > 10 ** 8
    assert freed, "a cycle the kernel dropped early was still alive at the end of the run"
    assert gc.get_threshold() == before
    k2 = nkisim.load_kernel(src(CYCLES.replace("SEEN.append", "raise ValueError; SEEN.append")))
    k2.__globals__["SEEN"] = []
    assert nkisim.run_kernel(k2, [rnd(128, 4)]).error is not None
    assert gc.get_threshold() == before


def test_rebinding_a_top_level_tile_frees_the_old_one():
    body = ("@nki.jit\n"
            "def kernel(a):\n"
            "    o = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)\n" +
            "    t = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)\n" * 9 +
            "    nl.store(o, value=nl.copy(t))\n"
            "    return o\n")
    r = ok(body, np.zeros((4, 4), np.float32))
    assert r.peak_psum_bytes == 2 * 2048  # the new tile exists before the old one is dropped


# --- 1-D partition vectors ----------------------------------------------------------------------------------------
# `nl.load(a[0:128, j])` leaves a 1-D access; the compiler loads it as a (128, 1) partition vector (the fused-mamba
# tutorial and the original NKIBench mamba use it as activation's scale). A 1-D on-chip tile stays an error
# (test_nkisim_rules: insufficient_rank), as in the compiler.


@pytest.mark.parametrize("numeric", [True, False])
def test_column_load_with_an_integer_index_is_a_partition_vector(numeric):
    a, s = rnd(256, 64), rnd(256, 4, seed=1)
    r = run("""
    @nki.jit
    def kernel(a, s):
        o = nl.ndarray((256, 64), dtype=a.dtype, buffer=nl.shared_hbm)
        col = nl.ndarray((256, 4), dtype=a.dtype, buffer=nl.shared_hbm)
        for t in nl.affine_range(2):
            for j in nl.affine_range(4):
                v = nl.load(s[t * 128:(t + 1) * 128, j])
                assert v.shape == (128, 1)
                x = nl.load(a[t * 128:(t + 1) * 128, 0:64])
                y = nisa.activation(op=nl.exp, data=x, scale=v)
                nl.store(o[t * 128:(t + 1) * 128, 0:64], value=y)
                nl.store(col[t * 128:(t + 1) * 128, j], value=nl.multiply(v, 2.0))
        return o, col
    """, a, s, numeric=numeric)
    assert r.error is None, r.error
    if numeric:
        np.testing.assert_allclose(r.outputs[0], np.exp(a * s[:, 3:4]), rtol=1e-5)
        np.testing.assert_allclose(r.outputs[1], 2 * s, rtol=1e-6)
    loads = [i for i in r.trace if i.attrs.get("api") == "nl.load" and i.partitions == 128 and i.free_elems == 1]
    assert len(loads) == 8


def test_row_load_with_an_integer_index_keeps_the_row_axis():
    b = rnd(4, 64)
    got = out("""
    @nki.jit
    def kernel(b):
        o = nl.ndarray((128, 64), dtype=b.dtype, buffer=nl.shared_hbm)
        r = nl.load(b[2, 0:64])
        assert r.shape == (1, 64)
        nl.store(o, value=r.broadcast_to((128, 64)))
        return o
    """, b)
    np.testing.assert_allclose(got, np.broadcast_to(b[2], (128, 64)))


def test_on_chip_column_with_an_integer_index_is_an_n_by_1_tile():
    # the fused-mamba tutorial (v3) carries a scan's last column into the next chunk as `scan[0:128, n - 1]`
    a = rnd(128, 64)
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        last = nl.ndarray((128, 1), dtype=nl.float32)
        last[...] = t[0:128, 63]
        assert t[0:128, 63].shape == (128, 1)
        nl.store(o, value=nl.add(last, t[0:128, 0]))
        return o
    """, a)
    np.testing.assert_allclose(got, a[:, 63:64] + a[:, 0:1], rtol=1e-6)


def test_reduction_over_inner_free_axes_of_a_strided_view():
    # max/avg pooling reduce axes [2, 4] of a 5-D view (C, H/p, p, W/p, p): free axes that are not trailing
    x = rnd(16, 8, 8)
    got = out("""
    @nki.jit
    def kernel(x):
        c, h, w = x.shape
        o = nl.ndarray((c, h // 2, w // 2), dtype=x.dtype, buffer=nl.shared_hbm)
        i0, i1, i2, i3, i4 = nl.mgrid[0:c, 0:h // 2, 0:2, 0:w // 2, 0:2]
        t = nl.load(x)
        nl.store(o, value=nl.max(t[i0, 2 * i1 + i2, 2 * i3 + i4], axis=[2, 4]))
        return o
    """, x)
    np.testing.assert_allclose(got, x.reshape(16, 4, 2, 4, 2).max(axis=(2, 4)))
    r = run("""
    @nki.jit
    def kernel(x):
        t = nl.load(x)
        s = nl.sum(t, axis=[0])  # BAD
        return x
    """, x)
    assert r.status == "compile_error" and "free axes" in str(r.error)


def test_writing_into_an_op_result_under_a_mask():
    # rmsnorm tutorial: `out_tile[...] = nl.multiply(out_tile, g, mask=...)` writes into an op's result tile
    a, g = rnd(128, 32), rnd(1, 32, seed=2)
    got = out("""
    @nki.jit
    def kernel(a, g):
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(32)[None, :]
        t = nl.multiply(nl.load(a), 2.0)
        t[...] = nl.multiply(t, nl.load(g).broadcast_to((128, 32)), mask=(i_p < 100))
        nl.store(o[i_p, i_f], value=t)
        return o
    """, a, g)
    want = 2 * a
    want[:100] *= g
    np.testing.assert_allclose(got, want, rtol=1e-6)
