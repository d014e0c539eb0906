"""The current NKI API (`import nki`, issue 17): each instruction against numpy, the nki.* indexing model, the
calling conventions, and the errors that name the generation and its rule."""
import textwrap

import numpy as np
import pytest

import nkisim
from nkisim_helpers import rnd

HEADER = ("import numpy as np\n"
          "import nki\n"
          "import nki.language as nl\n"
          "import nki.isa as nisa\n")


def run(body, *args, **kw):
    return nkisim.run_kernel(HEADER + textwrap.dedent(body), list(args), **kw)


def out(body, *args, **kw):
    r = run(body, *args, **kw)
    assert r.error is None, str(r.error)
    assert r.generation == "current"
    t = run(body, *args, numeric=False, **kw)  # the timing-only path runs the same kernel
    assert t.error is None, str(t.error)
    return r.outputs[0] if len(r.outputs) == 1 else r.outputs


def err(body, *args, **kw):
    r = run(body, *args, **kw)
    assert r.error is not None, "expected an error"
    return str(r.error)


# --- instructions -------------------------------------------------------------------------------------------------

MATMUL = """
@nki.jit
def kernel(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    res = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    ps = nl.ndarray((M, N), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(K // 128):
        a = nl.ndarray((128, M), dtype=lhsT.dtype, buffer=nl.sbuf)
        b = nl.ndarray((128, N), dtype=rhs.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=lhsT[k * 128:(k + 1) * 128, 0:M])
        nisa.dma_copy(dst=b, src=rhs[k * 128:(k + 1) * 128, 0:N])
        nisa.nc_matmul(dst=ps, stationary=a, moving=b{acc})
    sb = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=sb, src=ps)
    nisa.dma_copy(dst=res, src=sb)
    return res
"""


def test_nc_matmul_accumulates_over_k_by_default():
    a, b = rnd(384, 96, seed=1), rnd(384, 200, seed=2)
    np.testing.assert_allclose(out(MATMUL.format(acc=""), a, b), a.T @ b, rtol=1e-4, atol=1e-4)


def test_nc_matmul_accumulate_false_overwrites():
    a, b = rnd(384, 96, seed=1), rnd(384, 200, seed=2)
    got = out(MATMUL.format(acc=", accumulate=False"), a, b)
    np.testing.assert_allclose(got, a[256:].T @ b[256:], rtol=1e-4, atol=1e-4)  # only the last k tile is left


def test_nc_matmul_accumulate_true_adds_to_what_psum_holds():
    body = """
    @nki.jit
    def kernel(lhsT, rhs):
        res = nl.ndarray((64, 100), dtype=nl.float32, buffer=nl.shared_hbm)
        a = nl.load(lhsT)
        b = nl.load(rhs)
        ps = nl.ndarray((64, 100), nl.float32, buffer=nl.psum)
        nisa.nc_matmul(ps, a, b)
        nisa.nc_matmul(ps, a, b, accumulate=True)
        sb = nl.ndarray((64, 100), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(sb, ps)
        nl.store(res, sb)
        return res
    """
    a, b = rnd(128, 64, seed=3), rnd(128, 100, seed=4)
    np.testing.assert_allclose(out(body, a, b), 2 * (a.T @ b), rtol=1e-4, atol=1e-4)


def test_nc_transpose_on_the_tensor_engine_writes_psum():
    body = """
    @nki.jit
    def kernel(x):
        res = nl.ndarray((x.shape[1], x.shape[0]), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x)
        ps = nl.ndarray((x.shape[1], x.shape[0]), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_transpose(dst=ps, data=t)
        sb = nl.ndarray((x.shape[1], x.shape[0]), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=sb, src=ps)
        nl.store(res, sb)
        return res
    """
    x = rnd(96, 40)
    np.testing.assert_allclose(out(body, x), x.T)


def test_nc_transpose_into_sbuf_uses_the_vector_engine():
    body = """
    @nki.jit
    def kernel(x):
        res = nl.ndarray((x.shape[1], x.shape[0]), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x)
        sb = nl.ndarray((x.shape[1], x.shape[0]), dtype=x.dtype, buffer=nl.sbuf)
        nisa.nc_transpose(dst=sb, data=t)
        nl.store(res, sb)
        return res
    """
    x = rnd(32, 20)
    r = run(body, x)
    assert r.error is None, r.error
    np.testing.assert_allclose(r.outputs[0], x.T)
    assert [i.engine for i in r.trace.instrs if i.op == "nc_transpose"] == ["vector"]


def test_a_transpose_too_big_for_the_vector_engine_runs_on_the_tensor_engine_and_costs_its_copy():
    """No engine named, dst in SBUF, 128x64: the compiler accepts it (issue 30's holdout kernels did), on TensorE
    (VectorE stops at 32x32), and the result reaches SBUF through a copy the trace charges."""
    body = """
    @nki.jit
    def kernel(x):
        res = nl.ndarray((x.shape[1], x.shape[0]), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x)
        sb = nl.ndarray((x.shape[1], x.shape[0]), dtype=x.dtype, buffer=nl.sbuf)
        nisa.nc_transpose(dst=sb, data=t)
        nl.store(res, sb)
        return res
    """
    x = rnd(128, 64)
    np.testing.assert_allclose(out(body, x), x.T)
    r = run(body, x)
    ops = [(i.op, i.engine) for i in r.trace.instrs if i.engine != "dma"]
    assert ops == [("nc_transpose", "tensor"), ("tensor_copy", "vector")], ops
    named = err(body.replace("nisa.nc_transpose(dst=sb, data=t)",
                             "nisa.nc_transpose(dst=sb, data=t, engine=nisa.engine.vector)"), x)
    assert "at most 32x32" in named  # an engine the kernel names is the kernel's choice


@pytest.mark.parametrize("op,ref", [("exp", np.exp), ("tanh", np.tanh), ("relu", lambda v: np.maximum(v, 0)),
                                    ("sigmoid", lambda v: 1 / (1 + np.exp(-v)))])
def test_activation_with_scale_and_per_partition_bias(op, ref):
    body = f"""
    @nki.jit
    def kernel(x, bias):
        res = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x)
        b = nl.load(bias)
        o = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
        nisa.activation(dst=o, op=nl.{op}, data=t, bias=b, scale=0.5)
        nl.store(res, o)
        return res
    """
    x, bias = rnd(100, 300, seed=5), rnd(100, 1, seed=6)
    np.testing.assert_allclose(out(body, x, bias), ref(0.5 * x + bias), rtol=2e-5, atol=2e-6)


def test_activation_reduce_sums_each_partition():
    body = """
    @nki.jit
    def kernel(x):
        res = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        tot = nl.ndarray((x.shape[0], 1), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x)
        o = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
        s = nl.ndarray((x.shape[0], 1), dtype=x.dtype, buffer=nl.sbuf)
        nisa.activation_reduce(dst=o, op=nl.exp, data=t, reduce_op=nl.add, reduce_res=s)
        nl.store(res, o)
        nl.store(tot, s)
        return res, tot
    """
    x = rnd(64, 200, seed=7)
    got, tot = out(body, x)
    np.testing.assert_allclose(got, np.exp(x), rtol=2e-5)
    np.testing.assert_allclose(tot, np.exp(x).sum(axis=1, keepdims=True), rtol=2e-5)


@pytest.mark.parametrize("op,ref", [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
                                    ("maximum", np.maximum), ("divide", np.divide)])
def test_tensor_tensor(op, ref):
    body = f"""
    @nki.jit
    def kernel(a, b):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nl.load(b)
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=o, data1=x, data2=y, op=nl.{op})
        nl.store(res, o)
        return res
    """
    a, b = rnd(77, 130, seed=1), rnd(77, 130, seed=2) + 3.0
    np.testing.assert_allclose(out(body, a, b), ref(a, b), rtol=1e-6)


def test_tensor_tensor_in_place_accumulation_on_a_slice():
    body = """
    @nki.jit
    def kernel(a, b):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        acc = nl.load(a)
        y = nl.load(b)
        nisa.tensor_tensor(dst=acc[0:64, 10:40], data1=acc[0:64, 10:40], data2=y[0:64, 0:30], op=nl.add)
        nl.store(res, acc)
        return res
    """
    a, b = rnd(100, 50, seed=1), rnd(100, 50, seed=2)
    want = a.copy()
    want[0:64, 10:40] += b[0:64, 0:30]
    np.testing.assert_allclose(out(body, a, b), want, rtol=1e-6)


def test_tensor_scalar_two_ops_reverse_and_per_partition_operand():
    body = """
    @nki.jit
    def kernel(a, v):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        s = nl.load(v)
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_scalar(dst=o, data=x, op0=nl.subtract, operand0=s, reverse0=True, op1=nl.multiply,
                           operand1=3.0)
        nl.store(res, o)
        return res
    """
    a, v = rnd(90, 70, seed=1), rnd(90, 1, seed=2)
    np.testing.assert_allclose(out(body, a, v), (v - a) * 3.0, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,ref", [("add", np.sum), ("maximum", np.max), ("minimum", np.min)])
def test_tensor_reduce_over_the_free_axis(op, ref):
    body = f"""
    @nki.jit
    def kernel(a):
        res = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        o = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=o, op=nl.{op}, data=x, axis=1, keepdims=True)
        nl.store(res, o)
        return res
    """
    a = rnd(128, 333, seed=9)
    np.testing.assert_allclose(out(body, a), ref(a, axis=1, keepdims=True), rtol=1e-5, atol=1e-5)


def test_tensor_reduce_negate_and_3d_inner_axis():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray((a.shape[0], a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        o = nl.ndarray((a.shape[0], a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=o, op=nl.maximum, data=x, axis=2, negate=True)
        nl.store(res, o)
        return res
    """
    a = rnd(32, 6, 20, seed=3)
    np.testing.assert_allclose(out(body, a), -a.max(axis=2))


def test_tensor_copy_casts_to_the_dst_dtype():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
        x = nl.load(a)
        o = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
        nisa.tensor_copy(dst=o, src=x)
        nl.store(res, o)
        return res
    """
    a = rnd(16, 32, seed=2)
    got = out(body, a)
    np.testing.assert_allclose(got, a, rtol=1e-2)
    assert not np.array_equal(got, a)  # rounded to bfloat16


def test_isa_dtype_keyword_of_nki_0_2_must_agree_with_dst():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        o = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_copy(dst=o, src=x, dtype=nl.float32)
        nisa.tensor_copy(dst=o, src=x, dtype=nl.bfloat16)
        nl.store(res, o)
        return res
    """
    assert "dtype=bfloat16 disagrees with dst (float32)" in err(body, rnd(8, 8))
    np.testing.assert_allclose(out(body.replace("dtype=nl.bfloat16)", "dtype=nl.float32)"), rnd(8, 8)), rnd(8, 8))


def test_memset_and_iota():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray((8, 12), dtype=nl.float32, buffer=nl.shared_hbm)
        ids = nl.ndarray((8, 12), dtype=nl.int32, buffer=nl.sbuf)
        nisa.iota(ids, [[3, 4], [1, 3]], offset=5, channel_multiplier=100)
        f = nl.ndarray((8, 12), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=f, value=0.5)
        o = nl.ndarray((8, 12), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=o, data1=ids, data2=f, op=nl.add)
        nl.store(res, o)
        return res
    """
    p = np.arange(8)[:, None]
    free = (np.arange(4)[:, None] * 3 + np.arange(3)[None, :]).reshape(-1)[None, :]
    np.testing.assert_allclose(out(body, rnd(2, 2)), 5 + 100 * p + free + 0.5)


def test_reciprocal_and_scalar_tensor_tensor():
    body = """
    @nki.jit
    def kernel(a, b):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nl.load(b)
        r = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.reciprocal(dst=r, data=x)
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.scalar_tensor_tensor(dst=o, data=r, op0=nl.multiply, operand0=2.0, op1=nl.add, operand1=y)
        nl.store(res, o)
        return res
    """
    a, b = np.abs(rnd(40, 60, seed=1)) + 0.5, rnd(40, 60, seed=2)
    np.testing.assert_allclose(out(body, a, b), 2.0 / a + b, rtol=1e-5)


def test_tensor_tensor_scan_is_a_running_recurrence():
    body = """
    @nki.jit
    def kernel(a, b):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nl.load(b)
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor_scan(dst=o, data0=x, data1=y, initial=0.0, op0=nl.multiply, op1=nl.add)
        nl.store(res, o)
        return res
    """
    a, b = rnd(16, 30, seed=1) * 0.5, rnd(16, 30, seed=2)
    want = np.zeros_like(a)
    h = np.zeros(16)
    for t in range(30):
        h = a[:, t] * h + b[:, t]
        want[:, t] = h
    np.testing.assert_allclose(out(body, a, b), want, rtol=1e-5, atol=1e-6)


def test_bn_stats_then_bn_aggr_give_mean_and_variance():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray((a.shape[0], 2), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        st = nl.ndarray((a.shape[0], 6), dtype=nl.float32, buffer=nl.sbuf)
        nisa.bn_stats(dst=st, data=x)
        mv = nl.ndarray((a.shape[0], 2), dtype=nl.float32, buffer=nl.sbuf)
        nisa.bn_aggr(dst=mv, data=st)
        nl.store(res, mv)
        return res
    """
    a = rnd(64, 300, seed=4)
    got = out(body, a)
    np.testing.assert_allclose(got[:, 0], a.mean(axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[:, 1], a.var(axis=1), rtol=1e-4)


def test_dma_transpose_and_dma_compute():
    body = """
    @nki.jit
    def kernel(a, b):
        res = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=t, src=a)
        nisa.dma_compute(dst=t, srcs=[b, t], reduce_op=nl.add)
        nisa.dma_copy(dst=res, src=t)
        return res
    """
    a, b = rnd(24, 40, seed=1), rnd(40, 24, seed=2)
    np.testing.assert_allclose(out(body, a, b), a.T + b, rtol=1e-6)


def test_exponential_is_trn3_only_and_subtracts_the_max():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        tot = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        m = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=m, op=nl.maximum, data=x, axis=1, keepdims=True)
        e = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        s = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.sbuf)
        nisa.exponential(dst=e, src=x, max_value=m, reduce_res=s)
        nl.store(res, e)
        nl.store(tot, s)
        return res, tot
    """
    a = rnd(32, 100, seed=8)
    e, s = out(body, a, target="trn3")
    want = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(e, want, rtol=1e-5)
    np.testing.assert_allclose(s, want.sum(axis=1, keepdims=True), rtol=1e-5)
    assert "trn3" in err(body, a, target="trn2")


# --- the language: loads, stores, views, conveniences --------------------------------------------------------------

def test_nl_load_store_and_convenience_ops_return_tiles():
    body = """
    @nki.jit
    def kernel(a, b):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nl.load(b)
        nl.store(res, nl.multiply(nl.exp(x), nl.add(y, 1.0)))
        return res
    """
    a, b = rnd(50, 60, seed=1), rnd(50, 60, seed=2)
    np.testing.assert_allclose(out(body, a, b), np.exp(a) * (b + 1), rtol=1e-5)


def test_nl_sum_max_keepdims_and_broadcast_to():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        m = nl.max(x, axis=1, keepdims=True)
        s = nl.sum(x, axis=1, keepdims=True)
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=o, data1=x, data2=nl.broadcast_to(m, (a.shape[0], a.shape[1])), op=nl.subtract)
        nisa.tensor_tensor(dst=o, data1=o, data2=nl.broadcast_to(s, (a.shape[0], a.shape[1])), op=nl.add)
        nl.store(res, o)
        return res
    """
    a = rnd(20, 30, seed=3)
    np.testing.assert_allclose(out(body, a), a - a.max(1, keepdims=True) + a.sum(1, keepdims=True), rtol=1e-5)


def test_integer_index_keeps_the_partition_dim_on_chip_and_drops_it_in_hbm():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray((1, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        row = x[3, :]
        assert tuple(row.shape) == (1, a.shape[1]), row.shape
        assert tuple(a[3].shape) == (a.shape[1],), a[3].shape
        nl.store(res, row)
        return res
    """
    a = rnd(8, 10)
    np.testing.assert_allclose(out(body, a), a[3:4])


def test_nl_ds_strided_slices_and_reshape():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray((a.shape[0], a.shape[1] // 2), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        o = nl.ndarray((a.shape[0], 2, a.shape[1] // 4), dtype=a.dtype, buffer=nl.sbuf)
        flat = o.reshape((a.shape[0], a.shape[1] // 2))
        nisa.tensor_copy(dst=flat[:, nl.ds(0, a.shape[1] // 2)], src=x[:, 1:a.shape[1]:2])
        nl.store(res, flat)
        return res
    """
    a = rnd(16, 40)
    np.testing.assert_allclose(out(body, a), a[:, 1::2])


def test_ap_builds_a_strided_pooling_view():
    body = """
    @nki.jit
    def kernel(a):
        C, H, W = a.shape
        res = nl.ndarray((C, H // 2, W // 2), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        view = t.ap([[H * W, C], [2 * W, H // 2], [2, W // 2], [W, 2], [1, 2]])
        m = nl.max(view, axis=[3, 4])
        nl.store(res, m)
        return res
    """
    a = rnd(16, 8, 12)
    np.testing.assert_allclose(out(body, a), a.reshape(16, 4, 2, 6, 2).max(axis=(2, 4)))


def test_permute_and_expand_dim_views():
    body = """
    @nki.jit
    def kernel(a):
        P, X, Y = a.shape
        res = nl.ndarray((P, Y, X), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        o = nl.ndarray((P, Y, X), dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=o, src=t.permute((0, 2, 1)))
        e = o.expand_dim(1)
        assert tuple(e.shape) == (P, 1, Y, X)
        nl.store(res, o)
        return res
    """
    a = rnd(8, 3, 5)
    np.testing.assert_allclose(out(body, a), a.transpose(0, 2, 1))


def test_sequential_range_carries_a_dependency_and_fori_loop_counts():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.shared_hbm)
        acc = nl.zeros((a.shape[0], 1), dtype=a.dtype)
        x = nl.load(a)
        for j in nl.sequential_range(a.shape[1]):
            nisa.tensor_tensor(dst=acc, data1=acc, data2=x[:, j:j + 1], op=nl.add)
        def body(i):
            nisa.tensor_scalar(dst=acc, data=acc, op0=nl.multiply, operand0=2.0)
        nl.fori_loop(0, 3, body)
        nl.store(res, acc)
        return res
    """
    a = rnd(12, 9)
    np.testing.assert_allclose(out(body, a), 8 * a.sum(axis=1, keepdims=True), rtol=1e-5)


def test_spmd_programs_with_kernel_brackets():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        p = nl.program_id(0)
        n = a.shape[0] // nl.num_programs(0)
        x = nl.load(a[p * n:(p + 1) * n, :])
        nl.store(res[p * n:(p + 1) * n, :], nl.exp(x))
        return res
    """
    a = rnd(64, 10)
    np.testing.assert_allclose(out(body, a, grid=(4,)), np.exp(a), rtol=1e-6)


def test_nki_simulate_calling_convention_from_host_code():
    nkisim.activate()
    try:
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def add(a, b):
            res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            x = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
            y = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=x, src=a)
            nisa.dma_copy(dst=y, src=b)
            nisa.tensor_tensor(dst=x, data1=x, data2=y, op=nl.add)
            nisa.dma_copy(dst=res, src=x)
            return res

        a, b = rnd(32, 64, seed=1), rnd(32, 64, seed=2)
        np.testing.assert_allclose(nki.simulate(add)(a, b), a + b)
        np.testing.assert_allclose(nki.simulate(add.func)(a, b), a + b)  # a plain function is wrapped
        sim = nki.simulate(add)
        sim(a, b)
        assert sim.last_result.generation == "current" and len(sim.last_result.trace.instrs) == 4
    finally:
        nkisim.deactivate()
    import sys
    assert "nki" not in sys.modules or not getattr(sys.modules["nki"], "__name__", "").startswith("nkisim")


# --- generation rules and their errors -----------------------------------------------------------------------------

def test_mixed_imports_are_refused_naming_the_rule():
    src = ("import nki\nimport nki.language as nl\nimport neuronxcc.nki.isa as nisa\n"
           "def kernel(a):\n    return a\n")
    with pytest.raises(nkisim.NkiError) as e:
        nkisim.load_kernel(src)
    msg = str(e.value)
    assert "mixes NKI generations" in msg and "neuronxcc.nki.isa" in msg and "current NKI (nki.*)" in msg
    assert e.value.line == 3


def test_mixed_generation_inside_the_kernel_body_is_refused_too():
    src = ("import neuronxcc.nki.language as nl\n"
           "def kernel(a):\n    import nki.isa as nisa\n    return a\n")
    r = nkisim.run_kernel(src, [rnd(4, 4)])
    assert r.error is not None and "mixes NKI generations" in str(r.error)


def test_missing_dst_names_the_generation_and_the_rule():
    body = """
    @nki.jit
    def kernel(a, b):
        x = nl.load(a)
        y = nl.load(b)
        ps = nisa.nc_matmul(x, y)
        return a
    """
    msg = err(body, rnd(128, 64), rnd(128, 64))
    # the classic call shifts its operands into dst and stationary: the error says so, at the call's line
    assert msg.startswith("line 10: current NKI (nki.*): nisa.nc_matmul(dst, stationary, moving"), msg
    assert "missing moving" in msg and "destination comes first" in msg


def test_classic_return_style_without_operands_is_refused():
    body = """
    @nki.jit
    def kernel(a):
        x = nl.load(a)
        y = nisa.tensor_copy(src=x)
        return a
    """
    assert "nisa.tensor_copy needs dst=" in err(body, rnd(8, 8))


@pytest.mark.parametrize("construct,needle", [
    ("i = nl.arange(8)[:, None]", "nl.arange was removed"),
    ("i, j = nl.mgrid[0:8, 0:8]", "nl.mgrid was removed"),
    ("t = nl.ndarray((2, nl.par_dim(8), 8), dtype=nl.float32)", "nl.par_dim"),
    ("y = nl.exp(nl.load(a), mask=None)", "mask parameter was removed"),
    ("t = nl.ndarray((8, 8), dtype=nl.float32, buffer='sbuf')", "strings"),
    ("y = nl.load(a)[np.arange(8)[:, None], 0:8]", "index arrays"),
])
def test_classic_only_constructs_are_refused_under_nki(construct, needle):
    body = f"""
    @nki.jit
    def kernel(a):
        {construct}
        return a
    """
    msg = err(body, rnd(8, 8))
    assert "current NKI (nki.*)" in msg and needle in msg, msg


def test_outputs_must_be_shared_hbm():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.hbm)
        nl.store(res, nl.load(a))
        return res
    """
    assert "nl.shared_hbm" in err(body, rnd(8, 8))


def test_dma_from_psum_and_matmul_into_sbuf_are_refused():
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray((8, 8), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        ps = nl.ndarray((8, 8), dtype=nl.float32, buffer=nl.psum)
        nisa.nc_matmul(dst=ps, stationary=x, moving=x)
        nisa.dma_copy(dst=res, src=ps)
        return res
    """
    assert "DMA does not read PSUM" in err(body, rnd(8, 8))
    assert "writes PSUM" in err(body.replace("buffer=nl.psum", "buffer=nl.sbuf"), rnd(8, 8))


def test_memset_value_must_match_an_integer_dst():
    body = """
    @nki.jit
    def kernel(a):
        t = nl.ndarray((8, 8), dtype=nl.int32, buffer=nl.sbuf)
        nisa.memset(dst=t, value=2.0)
        return a
    """
    assert "must match dst's dtype" in err(body, rnd(8, 8))


def test_classic_kernels_still_run_classic_and_classic_helpers_are_refused_under_nki():
    classic = ("import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n"
               "@nki.jit\ndef kernel(a):\n    o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
               "    i_p = nl.arange(8)[:, None]\n    i_f = nl.arange(8)[None, :]\n"
               "    nl.store(o[i_p, i_f], nl.exp(nl.load(a[i_p, i_f])))\n    return o\n")
    a = rnd(8, 8)
    r = nkisim.run_kernel(classic, [a])
    assert r.error is None and r.generation == "classic"
    np.testing.assert_allclose(r.outputs[0], np.exp(a), rtol=1e-6)
    with pytest.raises(nkisim.NkiError) as e:
        nkisim.load_kernel("import nki\nbench = nki.benchmark\ndef kernel(a):\n    return a\n")
    assert "nki.benchmark is classic NKI" in str(e.value)


def test_unknown_nki_submodule_is_a_clear_load_error():
    with pytest.raises(nkisim.NkiError) as e:
        nkisim.load_kernel("import nki.collectives as cc\ndef kernel(a):\n    return a\n")
    assert "nki.collectives" in str(e.value)


# --- trn3 as a target ----------------------------------------------------------------------------------------------

def test_trn3_target_sbuf_capacity_and_performance_model():
    from nkisim.perf import estimate, get_target
    hw = get_target("trn3")
    assert (hw.sbuf_bytes_per_partition, hw.tensor_ghz, hw.vector_ghz) == (256 * 1024, 2.4, 1.2)
    assert hw.dma_aggregate_bytes_per_ns == 528.0  # 16 engines x 33 B/ns, below the HBM share
    body = """
    @nki.jit
    def kernel(a):
        res = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
        big = nl.ndarray((128, 60 * 1024), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=big[:, 0:a.shape[1]], src=a)
        nisa.dma_copy(dst=big[:, 60 * 1024 - a.shape[1]:60 * 1024], src=a)
        s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=s, op=nl.add, data=big[:, 0:a.shape[1]], axis=1)
        nl.store(res, s)
        return res
    """
    a = rnd(128, 64)
    assert "SBUF capacity exceeded" in err(body, a, target="trn2")  # 240 KiB > 224 KiB
    np.testing.assert_allclose(out(body, a, target="trn3"), a.sum(axis=1, keepdims=True), rtol=1e-5)
    t = run(body, a, target="trn3", numeric=False)
    assert estimate(t.trace, "trn3").latency_us < estimate(t.trace, "trn1").latency_us
    assert "trn3" in err(body, a, target="trn4")
