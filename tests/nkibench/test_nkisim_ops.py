"""Each instruction against numpy on random data, with masks and odd shapes."""
import numpy as np
import pytest

from nkisim_helpers import ok, out, rnd, run

ELEMENTWISE = """
@nki.jit
def kernel(a):
    o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(o, value=nl.{fn}(t))
    return o
"""


def _gelu(x):
    from math import erf
    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


@pytest.mark.parametrize("fn,ref", [
    ("exp", np.exp), ("tanh", np.tanh), ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    ("relu", lambda x: np.maximum(x, 0)), ("silu", lambda x: x / (1 + np.exp(-x))), ("square", np.square),
    ("abs", np.abs), ("sign", np.sign), ("negative", np.negative), ("gelu", _gelu),
    ("gelu_apprx_tanh", lambda x: 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))),
    ("softplus", lambda x: np.log1p(np.exp(x))), ("floor", np.floor), ("ceil", np.ceil),
])
def test_unary_activation(fn, ref):
    a = rnd(100, 300)
    np.testing.assert_allclose(out(ELEMENTWISE.format(fn=fn), a), ref(a), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("fn,ref", [("sqrt", np.sqrt), ("rsqrt", lambda x: 1 / np.sqrt(x)), ("log", np.log),
                                    ("reciprocal", lambda x: 1 / x)])
def test_unary_positive(fn, ref):
    a = np.abs(rnd(100, 300)) + 0.1
    np.testing.assert_allclose(out(ELEMENTWISE.format(fn=fn), a), ref(a), rtol=2e-5)


BINARY = """
@nki.jit
def kernel(a, b):
    o = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    nl.store(o, value=nl.{fn}(x, y, dtype=nl.float32))
    return o
"""


@pytest.mark.parametrize("fn,ref", [
    ("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply), ("divide", np.divide),
    ("maximum", np.maximum), ("minimum", np.minimum), ("greater", np.greater), ("less_equal", np.less_equal),
    ("equal", np.equal), ("logical_and", lambda a, b: np.logical_and(a > 0, b > 0)),
])
def test_binary(fn, ref):
    a, b = rnd(77, 130, seed=1), rnd(77, 130, seed=2)
    if fn == "equal":
        b[::3] = a[::3]
    if fn == "logical_and":
        a, b = (a > 0).astype(np.float32), (b > 0).astype(np.float32)
    np.testing.assert_allclose(out(BINARY.format(fn=fn), a, b), ref(a, b).astype(np.float32), rtol=1e-6)


def test_bitwise_int32():
    a = np.random.default_rng(0).integers(0, 1 << 30, (64, 40)).astype(np.int32)
    b = np.random.default_rng(1).integers(0, 1 << 30, (64, 40)).astype(np.int32)
    got = out("""
    @nki.jit
    def kernel(a, b):
        o = nl.ndarray(a.shape, dtype=nl.int32, buffer=nl.shared_hbm)
        r = nl.bitwise_xor(nl.load(a), nl.load(b))
        nl.store(o, value=nl.right_shift(r, 3))
        return o
    """, a, b)
    np.testing.assert_array_equal(got, (a ^ b) >> 3)


def test_python_operators_and_tensor_scalar_broadcast():
    a, v = rnd(128, 64), rnd(128, 1, seed=3)
    got = out("""
    @nki.jit
    def kernel(a, v):
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        s = nl.load(v)
        y = (x * 2.0 + 1.0) / 4.0 - x
        z = nl.multiply(y, s)
        nl.store(o, value=z)
        return o
    """, a, v)
    np.testing.assert_allclose(got, ((a * 2 + 1) / 4 - a) * v, rtol=1e-6)


@pytest.mark.parametrize("fn,ref", [("sum", np.sum), ("max", np.max), ("min", np.min), ("mean", np.mean),
                                    ("prod", np.prod)])
def test_reductions(fn, ref):
    a = rnd(100, 3, 10) * 0.5 + 1
    got = out(f"""
    @nki.jit
    def kernel(a):
        o = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        nl.store(o, value=nl.{fn}(t, axis=[1, 2], keepdims=True).reshape((a.shape[0], 1)) if False else
                 nl.{fn}(t, axis=[1, 2]))
        return o
    """, a)
    np.testing.assert_allclose(got, ref(a, axis=(1, 2)).reshape(-1, 1), rtol=1e-5)


def test_masked_load_compute_store_odd_shape():
    # 300 rows in tiles of 128 with a ragged last tile, 300 columns; the mask keeps indices in bounds.
    a = rnd(300, 300)
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(300)[None, :]
        for t in nl.affine_range((a.shape[0] + 127) // 128):
            m = (t * 128 + i_p < a.shape[0])
            x = nl.load(a[t * 128 + i_p, i_f], mask=m)
            y = nl.exp(x, mask=m)
            nl.store(o[t * 128 + i_p, i_f], value=y, mask=m)
        return o
    """, a)
    np.testing.assert_allclose(got, np.exp(a), rtol=1e-6)


def test_triangular_mask_writes_only_selected_elements():
    a = rnd(64, 64)
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        i_p = nl.arange(64)[:, None]
        i_f = nl.arange(64)[None, :]
        x = nl.load(a)
        buf = nl.zeros((64, 64), dtype=nl.float32)
        buf[i_p, i_f] = nl.exp(x, mask=(i_f <= i_p))
        nl.store(o, value=buf)
        return o
    """, a)
    np.testing.assert_allclose(got, np.where(np.tril(np.ones((64, 64))) > 0, np.exp(a), 0), rtol=1e-6)


def test_nc_matmul_and_psum_accumulation():
    lhsT, rhs = rnd(256, 96), rnd(256, 300, seed=1)
    got = out("""
    @nki.jit
    def kernel(lhsT, rhs):
        o = nl.ndarray((96, 300), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((96, 300), dtype=nl.float32, buffer=nl.psum)
        for k in nl.affine_range(2):
            s = nl.load(lhsT[k * 128:(k + 1) * 128, :])
            m = nl.load(rhs[k * 128:(k + 1) * 128, :])
            acc += nisa.nc_matmul(s, m)
        nl.store(o, value=nl.copy(acc))
        return o
    """, lhsT, rhs)
    np.testing.assert_allclose(got, lhsT.T @ rhs, rtol=1e-4, atol=1e-4)


def test_a_matmul_operand_in_psum_is_copied_to_sbuf_first_and_charged_for_it():
    """TensorE reads SBUF only; the compiler accepts a stationary (or moving) tile that sits in PSUM, copying it to
    SBUF first (issue 30's holdout kernels did this). The result is the matmul's, and the trace holds the copy."""
    a, b = rnd(128, 128), rnd(128, 512, seed=1)
    body = """
    @nki.jit
    def kernel(a, b):
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        aT = nisa.nc_transpose(nl.load(a))  # PSUM
        res = nisa.nc_matmul(aT, nl.load(b))
        nl.store(out, value=nl.copy(res))
        return out
    """
    r = ok(body, a, b)
    np.testing.assert_allclose(r.outputs[0], a @ b, rtol=1e-4, atol=1e-4)
    ops = [(i.op, i.engine) for i in r.trace if i.engine != "dma"]
    assert ops == [("nc_transpose", "tensor"), ("tensor_copy", "vector"), ("nc_matmul", "tensor"),
                   ("tensor_copy", "vector")], ops
    hbm = run(body.replace("nisa.nc_matmul(aT, nl.load(b))", "nisa.nc_matmul(aT, b)"), a, b)
    assert "is in HBM" in str(hbm.error)  # no DMA is inserted for an operand left in HBM


def test_an_empty_index_moves_and_computes_nothing():
    """nl.arange(0) past the end of a tensor (a remainder tile of width 0 in a kernel written for any size) selects
    nothing: no out-of-bounds error, and no instruction, since the compiler issues none for zero elements."""
    a = rnd(128, 512)
    r = ok("""
    @nki.jit
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(a.shape[1] % 512)[None, :]
        rest = nl.load(a[i_p, 512 + i_f])
        nl.store(out[i_p, 512 + i_f], value=nl.exp(rest))
        return out
    """, a)
    np.testing.assert_array_equal(r.outputs[0], a)
    assert [i.op for i in r.trace] == ["dma", "dma"]


def test_nl_matmul_both_layouts_and_transpose():
    x, y = rnd(64, 128), rnd(128, 200, seed=1)
    r = ok("""
    @nki.jit
    def kernel(x, y):
        o1 = nl.ndarray((64, 200), dtype=nl.float32, buffer=nl.shared_hbm)
        o2 = nl.ndarray((64, 200), dtype=nl.float32, buffer=nl.shared_hbm)
        o3 = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        xt = nl.load(x)
        yt = nl.load(y)
        r1 = nl.ndarray((64, 200), dtype=nl.float32)
        r1[...] = nl.matmul(xt, yt)
        nl.store(o1, value=r1)
        xT = nl.transpose(xt)
        nl.store(o3, value=xT)
        xTs = nl.copy(xT)
        nl.store(o2, value=nl.matmul(xTs, yt, transpose_x=True))
        return o1, o2, o3
    """, x, y)
    o1, o2, o3 = r.outputs
    np.testing.assert_allclose(o1, x @ y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(o2, x @ y, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(o3, x.T)
    ops = [i.op for i in r.trace]
    # nl.matmul(transpose_x=False) lowers to a transpose, a PSUM eviction and the matmul, then r1's PSUM->SBUF copy.
    assert ops[2:6] == ["nc_transpose", "tensor_copy", "nc_matmul", "tensor_copy"]


def test_generated_style_transpose_with_identity_and_block_dims():
    a = rnd(128, 256)
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray((256, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        ident = nl.shared_constant(np.identity(128, dtype=np.float32))
        id_sb = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="id")
        id_sb[...] = nl.load(ident)
        src = nl.ndarray((2, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="src")
        res = nl.ndarray((2, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="res")
        for i0 in nl.affine_range(2):
            i_p = nl.arange(128)[:, None]
            i_f = nl.arange(128)[None, :]
            src[i0, i_p, i_f] = nl.load(a[i_p, i0 * 128 + i_f], dtype=np.float32)
            ps = nl.zeros((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
            ps[i_p, i_f] += nisa.nc_matmul(src[i0, i_p, i_f], id_sb[i_p, i_f], is_stationary_onezero=False,
                                           is_moving_onezero=True, is_transpose=True)
            res[i0, i_p, i_f] = nl.copy(ps[i_p, i_f], dtype=np.float32)
            nl.store(o[i0 * 128 + i_p, i_f], value=res[i0, i_p, i_f])
        return o
    """, a)
    np.testing.assert_array_equal(got, a.T)


def test_activation_scale_bias_and_reduce():
    a, s, b = rnd(100, 200), rnd(100, 1, seed=1), rnd(100, 1, seed=2)
    r = ok("""
    @nki.jit
    def kernel(a, s, b):
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        o2 = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        sc = nl.load(s)
        bi = nl.load(b)
        red = nl.ndarray((a.shape[0], 1), dtype=nl.float32)
        y = nisa.activation(op=nl.tanh, data=x, scale=sc, bias=bi, reduce_op=nl.add, reduce_res=red)
        nl.store(o, value=y)
        nl.store(o2, value=red)
        return o, o2
    """, a, s, b)
    ref = np.tanh(a * s + b)
    np.testing.assert_allclose(r.outputs[0], ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r.outputs[1], ref.sum(axis=1, keepdims=True), rtol=1e-4, atol=1e-4)


def test_tensor_scalar_reverse_and_two_ops():
    a = rnd(128, 50) + 3
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nisa.tensor_scalar(data=x, op0=np.subtract, operand0=1.0, reverse0=True, op1=nl.multiply,
                               operand1=np.float32(2.0), reverse1=False, engine=nisa.unknown_engine)
        nl.store(o, value=y)
        return o
    """, a)
    np.testing.assert_allclose(got, (1.0 - a) * 2.0, rtol=1e-6)


def test_tensor_reduce_negate_keepdims_loop_reduce():
    a = rnd(128, 4 * 64)
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
        acc = nl.ndarray((nl.par_dim(128), 1), dtype=np.float32, buffer=nl.sbuf)
        for i in nl.affine_range(4):
            x = nl.load(a[:, i * 64:(i + 1) * 64])
            m = nisa.tensor_reduce(nl.max, data=x, axis=[1], negate=True, keepdims=True)
            acc[...] = nl.loop_reduce(m, op=np.min, loop_indices=[i], mask=None, dtype=np.float32)
        nl.store(o, value=acc)
        return o
    """, a)
    np.testing.assert_allclose(got, -a.max(axis=1, keepdims=True), rtol=1e-6)


def test_tensor_tensor_scan_and_sbuf_iadd():
    a, b = rnd(64, 40) * 0.5, rnd(64, 40, seed=1)
    got = out("""
    @nki.jit
    def kernel(a, b):
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nl.load(b)
        s = nisa.tensor_tensor_scan(x, y, initial=0, op0=np.multiply, op1=np.add)
        acc = nl.zeros(a.shape, dtype=nl.float32)
        acc[...] += s
        acc += s
        nl.store(o, value=acc)
        return o
    """, a, b)
    ref = np.zeros_like(a)
    prev = np.zeros(64, np.float32)
    for i in range(40):
        prev = a[:, i] * prev + b[:, i]
        ref[:, i] = prev
    np.testing.assert_allclose(got, 2 * ref, rtol=1e-5, atol=1e-6)


def test_tensor_tensor_copy_memset_iota_reciprocal_where():
    a, b = rnd(32, 16), rnd(32, 16, seed=1)
    r = ok("""
    @nki.jit
    def kernel(a, b):
        o = nl.ndarray((4, 32, 16), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nl.load(b)
        nl.store(o[0], value=nisa.tensor_tensor(x, y, op=np.multiply))
        z = nisa.memset(shape=(32, 16), value=np.float32(7), dtype=np.float32)
        nl.store(o[1], value=nisa.tensor_copy(z))
        io = nisa.iota(nl.arange(32)[:, None] * 16 + nl.arange(16)[None, :], dtype=nl.int32)
        nl.store(o[2], value=nl.copy(io, dtype=nl.float32))
        nl.store(o[3], value=nl.where(nl.greater(x, y), nisa.reciprocal(x), y))
        return o
    """, a, b)
    o = r.outputs[0]
    np.testing.assert_allclose(o[0], a * b, rtol=1e-6)
    np.testing.assert_array_equal(o[1], 7)
    np.testing.assert_array_equal(o[2], np.arange(32 * 16).reshape(32, 16))
    np.testing.assert_allclose(o[3], np.where(a > b, 1 / a, b), rtol=1e-6)


def test_bf16_rounding_on_store():
    a = rnd(16, 16)
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a, dtype=nl.bfloat16)
        nl.store(o, value=nl.copy(x, dtype=nl.float32))
        return o
    """, a)
    bits = a.view(np.uint32)
    ref = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).view(np.float32)
    np.testing.assert_array_equal(got, ref)
    assert not np.array_equal(got, a)


def test_broadcast_to_partition_and_bn_stats():
    g, a = rnd(1, 700), rnd(128, 512, seed=1)
    r = ok("""
    @nki.jit
    def kernel(g, a):
        o = nl.ndarray((128, 700), dtype=nl.float32, buffer=nl.shared_hbm)
        o2 = nl.ndarray((128, 2), dtype=nl.float32, buffer=nl.shared_hbm)
        gt = nl.load(g)
        nl.store(o, value=gt.broadcast_to((128, 700)))
        st = nisa.bn_stats(nl.load(a))
        nl.store(o2, value=nisa.bn_aggr(st))
        return o, o2
    """, g, a)
    np.testing.assert_array_equal(r.outputs[0], np.broadcast_to(g, (128, 700)))
    np.testing.assert_allclose(r.outputs[1][:, 0], a.mean(axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r.outputs[1][:, 1], a.var(axis=1), rtol=1e-4)
    assert sum(1 for i in r.trace if i.op == "nc_matmul" and i.attrs.get("broadcast")) == 2


def test_indirect_dma_gather():
    data = rnd(50, 24)
    idx = np.random.default_rng(3).integers(0, 50, (128, 1)).astype(np.int32)
    r = ok("""
    @nki.jit
    def kernel(data, idx):
        o = nl.ndarray((128, 24), dtype=data.dtype, buffer=nl.shared_hbm)
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(24)[None, :]
        it = nl.load(idx)
        rows = nl.load(data[it[i_p, 0], i_f])
        nl.store(o, value=rows)
        return o
    """, data, idx)
    np.testing.assert_array_equal(r.outputs[0], data[idx[:, 0]])
    assert r.trace.instrs[1].attrs["indirect"] is True


def test_affine_select_and_mgrid_and_ds():
    a = rnd(64, 64)
    got = out("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray((64, 64), dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f = nl.mgrid[0:64, 0:64]
        x = nl.load(a[nl.ds(0, 64), :])
        y = nisa.affine_select(i_p - i_f >= 0, x, -1e9)
        nl.store(o[i_p, i_f], value=y)
        return o
    """, a)
    np.testing.assert_allclose(got, np.where(np.tril(np.ones((64, 64))) > 0, a, np.float32(-1e9)))


def test_select_reduce_and_tensor_scalar_reduce():
    a, pr = rnd(32, 20), (rnd(32, 20, seed=2) > 0).astype(np.float32)
    r = ok("""
    @nki.jit
    def kernel(a, pr):
        o = nl.ndarray((32, 20), dtype=a.dtype, buffer=nl.shared_hbm)
        o2 = nl.ndarray((32, 2), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        p = nl.load(pr)
        d = nl.ndarray((32, 20), dtype=nl.float32)
        red = nl.ndarray((32, 2), dtype=nl.float32)
        nisa.select_reduce(dst=d, predicate=p, on_true=x, on_false=-5.0, reduce_res=red[:, 0:1], reduce_op=np.max)
        nisa.tensor_scalar_reduce(data=x, op0=np.multiply, operand0=2.0, reduce_op=np.add, reduce_res=red[:, 1:2])
        nl.store(o, value=d)
        nl.store(o2, value=red)
        return o, o2
    """, a, pr)
    sel = np.where(pr > 0, a, -5.0)
    np.testing.assert_allclose(r.outputs[0], sel)
    np.testing.assert_allclose(r.outputs[1][:, 0], sel.max(axis=1))
    np.testing.assert_allclose(r.outputs[1][:, 1], (2 * a).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_softmax_and_rms_norm_composites():
    a, w = rnd(128, 96), rnd(1, 96, seed=1)
    r = ok("""
    @nki.jit
    def kernel(a, w):
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        o2 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        wt = nl.load(w).broadcast_to((128, 96))
        nl.store(o, value=nl.softmax(x, axis=1))
        nl.store(o2, value=nl.rms_norm(x, wt, axis=1, n=96))
        return o, o2
    """, a, w)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(r.outputs[0], e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(r.outputs[1], a / np.sqrt((a * a).mean(axis=1, keepdims=True) + 1e-6) * w,
                               rtol=1e-4, atol=1e-5)


def test_dma_copy_and_load_transpose2d():
    a = rnd(40, 72)
    r = ok("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray((72, 40), dtype=a.dtype, buffer=nl.shared_hbm)
        o2 = nl.ndarray((40, 72), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load_transpose2d(a)
        nl.store(o, value=t)
        s = nl.ndarray((40, 72), dtype=a.dtype)
        nisa.dma_copy(dst=s, src=a)
        nisa.dma_copy(dst=o2, src=s)
        return o, o2
    """, a)
    np.testing.assert_array_equal(r.outputs[0], a.T)
    np.testing.assert_array_equal(r.outputs[1], a)
