"""Whole kernels in the styles NKIBench uses: block dimensions, identity transposes, PSUM accumulation, masks;
and the timing-only mode producing the same trace as the numeric mode."""
import numpy as np

import nkisim
from nkisim_helpers import ok, rnd, src

SILU = """
@nki.jit
def kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    J, N = x.shape[1], x.shape[2]
    xs = nl.ndarray((J, nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf, name="xs")
    es = nl.ndarray((J, nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf, name="es")
    rs = nl.ndarray((J, nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf, name="rs")
    ys = nl.ndarray((J, nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf, name="ys")
    for j in nl.affine_range(J):
        i_p = nl.arange(128)[:, None]
        i_f = nl.arange(N)[None, :]
        xs[j, i_p, i_f] = nl.load(x[i_p, j, i_f], dtype=np.float32, mask=None)
        es[j, i_p, i_f] = nisa.activation(op=nl.exp, data=xs[j, i_p, i_f], scale=-1.0, mask=None, dtype=np.float32)
        es[j, i_p, i_f] = nisa.tensor_scalar(data=es[j, i_p, i_f], op0=nl.add, operand0=np.float32(1.0),
                                             reverse0=False, dtype=np.float32, mask=None)
        rs[j, i_p, i_f] = nisa.reciprocal(data=es[j, i_p, i_f], mask=None, dtype=np.float32)
        ys[j, i_p, i_f] = nl.multiply(xs[j, i_p, i_f], rs[j, i_p, i_f], mask=None, dtype=np.float32)
        nl.store(out[i_p, j, i_f], value=ys[j, i_p, i_f], mask=None)
        ''' end loop j '''
    return out
"""

MATMUL = """
@nki.jit
def kernel(lhs, rhs):
    # lhs (M/128, 128, K/128, 128), rhs (K/128, 128, N): out (M/128, 128, N)
    MT, KT, N = lhs.shape[0], lhs.shape[2], rhs.shape[2]
    out = nl.ndarray((MT, 128, N), dtype=lhs.dtype, buffer=nl.shared_hbm)
    ident = nl.shared_constant(np.identity(128, dtype=np.float32))
    id_sb = nl.ndarray((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="identity")
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(128)[None, :]
    id_sb[i_p, i_f] = nl.load(ident[i_p, i_f], dtype=np.float32)
    for m in nl.affine_range(MT):
        a_sb = nl.ndarray((KT, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="a")
        aT_sb = nl.ndarray((KT, nl.par_dim(128), 128), dtype=np.float32, buffer=nl.sbuf, name="aT")
        for k in nl.affine_range(KT):
            a_sb[k, i_p, i_f] = nl.load(lhs[m, i_p, k, i_f], dtype=np.float32)
            tp = nl.zeros((nl.par_dim(128), 128), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
            tp[i_p, i_f] += nisa.nc_matmul(a_sb[k, i_p, i_f], id_sb[i_p, i_f], is_stationary_onezero=False,
                                           is_moving_onezero=True, is_transpose=True)
            aT_sb[k, i_p, i_f] = nl.copy(tp[i_p, i_f], dtype=np.float32)
        for n in nl.affine_range(N // 512):
            i_n = nl.arange(512)[None, :]
            acc = nl.zeros((nl.par_dim(128), 512), dtype=np.float32, buffer=nl.psum, lazy_initialization=True)
            for k in nl.affine_range(KT):
                b_sb = nl.ndarray((nl.par_dim(128), 512), dtype=np.float32, buffer=nl.sbuf, name="b")
                b_sb[i_p, i_n] = nl.load(rhs[k, i_p, n * 512 + i_n], dtype=np.float32)
                acc[i_p, i_n] += nisa.nc_matmul(aT_sb[k, i_p, i_f], b_sb[i_p, i_n], is_stationary_onezero=False,
                                                is_moving_onezero=False)
            res = nl.ndarray((nl.par_dim(128), 512), dtype=np.float32, buffer=nl.sbuf, name="res")
            res[i_p, i_n] = nl.copy(acc[i_p, i_n], dtype=np.float32)
            nl.store(out[m, i_p, n * 512 + i_n], value=res[i_p, i_n])
    return out
"""

ADAMW_LIKE = """
@nki.jit
def kernel(theta, g):
    M, N = theta.shape
    out = nl.ndarray((M, N), dtype=theta.dtype, buffer=nl.shared_hbm)
    for i0 in nl.affine_range((M + 127) // 128):
        p = nl.arange(128)[:, None]
        f = nl.arange(N)[None, :]
        t = nl.ndarray((nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf)
        gg = nl.ndarray((nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf)
        t[p, f] = nl.load(theta[i0 * 128 + p, f], mask=(-128 * i0 - p + (M - 1) >= 0), dtype=np.float32)
        gg[p, f] = nl.load(g[i0 * 128 + p, f], mask=(-128 * i0 - p + (M - 1) >= 0), dtype=np.float32)
        u = nl.ndarray((nl.par_dim(128), N), dtype=np.float32, buffer=nl.sbuf)
        u[p, f] = nisa.tensor_scalar(data=gg[p, f], op0=nl.multiply, operand0=np.float32(0.01),
                                     mask=(-128 * i0 - p + (M - 1) >= 0), dtype=np.float32)
        t[p, f] = nl.subtract(t[p, f], u[p, f], mask=(-128 * i0 - p + (M - 1) >= 0), dtype=np.float32)
        nl.store(out[i0 * 128 + p, f], value=t[p, f], mask=(-128 * i0 - p + (M - 1) >= 0))
    return out
"""


def _trace_key(trace):
    return [(i.op, i.engine, i.line, i.partitions, i.free_elems, i.dtype, i.in_dtypes, i.dma_bytes, i.reads,
             i.writes, i.loops, tuple(sorted(i.attrs.items()))) for i in trace]


def test_silu_block_dims_declaring_far_more_than_sbuf_compiles_and_is_correct():
    x = rnd(128, 32, 1792)  # four (32, 128, 1792) fp32 buffers: 4 x 224 KiB declared per partition
    r = ok(SILU, x)
    np.testing.assert_allclose(r.outputs[0], x / (1 + np.exp(-x)), rtol=1e-5, atol=1e-6)
    assert r.peak_sbuf_bytes <= 4 * 1792 * 4 + 1792 * 4


def test_silu_nkibench_shape_900kib_per_partition_compiles_timing_only():
    spec = nkisim.typing.tensor[[128, 32, 7168], nkisim.language.float32]
    r = nkisim.run_kernel(src(SILU), [spec], numeric=False)
    assert r.error is None, r.error
    assert len(r.trace) == 32 * 6
    assert r.peak_sbuf_bytes < 192 * 1024
    assert r.outputs[0].shape == (128, 32, 7168)


def test_generated_style_matmul():
    M, K, N = 256, 384, 1024
    lhs, rhs = rnd(M, K), rnd(K, N, seed=1)
    r = ok(MATMUL, lhs.reshape(M // 128, 128, K // 128, 128), rhs.reshape(K // 128, 128, N))
    np.testing.assert_allclose(r.outputs[0].reshape(M, N), lhs @ rhs, rtol=1e-4, atol=1e-3)
    mms = [i for i in r.trace if i.op == "nc_matmul"]
    assert len(mms) == 2 * 3 + 2 * 2 * 3
    acc = [i for i in mms if not i.attrs.get("is_transpose")]
    assert all(i.attrs["accumulate"] and i.attrs["k"] == 128 and i.attrs["m"] == 128 and i.attrs["n"] == 512
               for i in acc)
    assert all(i.writes[0].memory == "psum" for i in mms)


def test_masked_ragged_rows():
    theta, g = rnd(300, 64), rnd(300, 64, seed=1)
    r = ok(ADAMW_LIKE, theta, g)
    np.testing.assert_allclose(r.outputs[0], theta - 0.01 * g, rtol=1e-6, atol=1e-7)
    last = [i for i in r.trace if i.loops[0].index == 2]
    assert all(i.partitions == 300 - 256 for i in last)


def test_timing_only_trace_equals_numeric_trace():
    for body, args in ((SILU, [rnd(128, 4, 256)]),
                       (MATMUL, [rnd(2, 128, 2, 128), rnd(2, 128, 512, seed=1)]),
                       (ADAMW_LIKE, [rnd(300, 64), rnd(300, 64, seed=1)])):
        num = nkisim.run_kernel(src(body), args, numeric=True)
        tim = nkisim.run_kernel(src(body), args, numeric=False)
        assert num.error is None and tim.error is None
        assert len(num.trace) == len(tim.trace) > 0
        key_num, key_tim = _trace_key(num.trace), _trace_key(tim.trace)
        # tensor ids differ only if allocation order differed; it must not
        assert key_num == key_tim
        assert tim.outputs[0].shape == num.outputs[0].shape


def test_spill_buffer_in_private_hbm_is_allowed():
    a = rnd(128, 64)
    r = ok("""
    @nki.jit
    def kernel(a):
        o = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        spill = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.hbm, name="_spill_1")
        nl.store(spill, value=nl.load(a))
        nl.store(o, value=nl.load(spill))
        return o
    """, a)
    np.testing.assert_array_equal(r.outputs[0], a)
