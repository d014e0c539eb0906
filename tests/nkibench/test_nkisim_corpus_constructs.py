"""Constructs the classic-API kernel corpus showed nkisim lacked (issue 18), each exercised by our own kernel
(tests/fixtures/kernels) and checked against numpy: a kernel file inside a package with relative imports
(nki-samples' rmsnorm_quant), a frozen @dataclass at a kernel module's top level (nki-samples' attention),
`@nki.jit(mode='trace')` sub-kernels, nl.finfo (nki-samples' vision), and neuronxcc.nki.language.constants."""
import pathlib
import sys

import numpy as np
import pytest

import nkisim

FIX = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "kernels" / "relative_import"


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_relative_imports_resolve_against_the_kernel_file_folder():
    path = FIX / "scaled_rows.py"
    before = set(sys.modules)
    fn = nkisim.load_kernel(path.read_text(), filename=str(path), name="kernel")
    assert set(sys.modules) == before  # the kernel's modules were in sys.modules only while they ran
    a = rnd(128, 64)
    r = nkisim.run_kernel(fn, [a])
    assert r.error is None, r.error
    want = np.where(a[:, :1] >= 0, a * 3.0 + 2.0, np.finfo(np.float32).min)
    np.testing.assert_allclose(r.outputs[0], want, rtol=1e-6)


def test_a_relative_import_in_kernel_text_without_a_file_says_why():
    with pytest.raises(nkisim.KernelLoadError, match="relative import.*not a file on disk"):
        nkisim.load_kernel("from .helpers import x\n")


def test_a_missing_relative_module_names_the_file_it_looked_for(tmp_path):
    k = tmp_path / "k.py"
    k.write_text("from .nowhere import x\n")
    with pytest.raises(nkisim.KernelLoadError, match=r"\.nowhere.*nowhere\.py"):
        nkisim.load_kernel(k.read_text(), filename=str(k))


def test_dataclass_and_trace_mode_at_the_kernel_module_top_level():
    fn = nkisim.load_kernel(
        "from dataclasses import dataclass\n"
        "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n"
        "@dataclass(frozen=True)\nclass Cfg:\n    scale: float = 0.5\n"
        "@nki.jit(mode='trace')\ndef half(t, cfg):\n    return nl.multiply(t, cfg.scale)\n"
        "@nki.jit\ndef kernel(a):\n"
        "    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
        "    nl.store(out, half(nl.load(a), Cfg()))\n    return out\n")
    a = rnd(128, 32)
    r = nkisim.run_kernel(fn, [a])
    assert r.error is None, r.error
    np.testing.assert_allclose(r.outputs[0], a * 0.5)


def test_language_constants_is_an_importable_submodule():
    nkisim.activate()
    try:
        import neuronxcc.nki.language.constants as c
        from neuronxcc.nki.language.constants import sizeinbytes
        import neuronxcc.nki.language as nl
        assert c.sizeinbytes is sizeinbytes
        assert [sizeinbytes(d) for d in (nl.float32, nl.bfloat16, nl.float8_e4m3, np.float16, np.int32)] == \
            [4, 2, 1, 2, 4]
    finally:
        nkisim.deactivate()


def test_finfo_and_iinfo_of_nki_dtypes():
    nl = nkisim.language
    assert nl.finfo(nl.float32).min == float(np.finfo(np.float32).min)
    assert nl.finfo(nl.bfloat16).max == pytest.approx(3.3895e38, rel=1e-4) and nl.finfo(nl.bfloat16).eps == 2 ** -7
    assert nl.finfo(nl.float8_e4m3).max == 240.0
    assert nl.iinfo(nl.int8).min == -128 and nl.iinfo(nl.uint16).max == 65535
    with pytest.raises(nkisim.NkiError):
        nl.finfo(nl.int32)


def test_reshape_with_the_shape_keyword_and_the_no_reorder_directive():
    # an adaptive-pool-like view (vision kernels) and a sequential loop under no_reorder (attention tutorial v10)
    fn = nkisim.load_kernel(
        "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n"
        "@nki.jit\ndef kernel(a):\n"
        "    n, c, h, w = a.shape\n"
        "    out = nl.ndarray((n, c, w), dtype=a.dtype, buffer=nl.shared_hbm)\n"
        "    flat = a.reshape(shape=(n * c, h, w))\n    oflat = out.reshape(shape=(n * c, w))\n"
        "    for i in nl.sequential_range(1, directives=nki.compiler.no_reorder()):\n"
        "        t = nl.load(flat[0:n * c, 0:h, 0:w])\n"
        "        nl.store(oflat[0:n * c, 0:w], nl.sum(t, axis=1))\n"
        "    return out\n")
    a = rnd(2, 64, 4, 8)
    r = nkisim.run_kernel(fn, [a])
    assert r.error is None, r.error
    np.testing.assert_allclose(r.outputs[0], a.sum(axis=2), rtol=1e-5)
    bad = nkisim.load_kernel("import neuronxcc.nki.language as nl\ndef kernel(a):\n"
                             "    return a.reshape((4, 4), shape=(4, 4))\n")
    assert "shape once" in str(nkisim.run_kernel(bad, [rnd(4, 4)]).error)


def test_affine_select_reads_its_on_true_tile_from_psum():
    # a causal mask applied straight to matmul scores in PSUM (nki-samples' reference flash_fwd); the classic
    # nisa.affine_select sets no memory rule for on_true_tile (isa.affine_select)
    fn = nkisim.load_kernel(
        "import numpy as np\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n"
        "import neuronxcc.nki.isa as nisa\n"
        "@nki.jit\ndef kernel(q, k):\n"
        "    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)\n"
        "    qk = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)\n"
        "    qk[...] = nisa.nc_matmul(nl.load(q), nl.load(k))\n"
        "    i_q, i_k = nl.mgrid[0:128, 0:128]\n"
        "    masked = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)\n"
        "    masked[...] = nisa.affine_select(pred=(i_q >= i_k), on_true_tile=qk, on_false_value=-9984.0,\n"
        "                                     dtype=nl.float32)\n"
        "    nl.store(out, masked)\n    return out\n")
    q, k = rnd(64, 128), rnd(64, 128, seed=1)
    r = nkisim.run_kernel(fn, [q, k])
    assert r.error is None, r.error
    want = np.where(np.tril(np.ones((128, 128), bool)), q.T @ k, -9984.0)
    np.testing.assert_allclose(r.outputs[0], want, rtol=1e-4, atol=1e-4)
    sel = [i for i in r.trace if i.op == "affine_select"]
    assert sel and sel[0].engine == "gpsimd" and sel[0].attrs.get("psum_operand")


HEAD = "import numpy as np\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n" \
       "import neuronxcc.nki.isa as nisa\n"


def test_sdk_internal_type_names_public_kernels_import():
    # nki-samples' reference util/tile_info.py and util/kernel_helpers.py (used by rmsnorm_quant) import these for
    # type annotations; the SDK compiles them, so the imports resolve (backends.py)
    fn = nkisim.load_kernel(
        HEAD + "from typing import Union\n"
        "from neuronxcc.nki.compiler.backends.neuron.indexing import TileIndex\n"
        "from neuronxcc.nki.compiler.backends.neuron.tensor import local_tile\n"
        "import neuronxcc.nki.compiler.backends.neuron.tensor as nt_internal\n"
        "def rows(tile_num: Union[int, TileIndex], offset: Union[int, TileIndex]) -> Union[int, TileIndex]:\n"
        "    return tile_num * 64 + offset\n"
        "@nki.jit\ndef kernel(a):\n"
        "    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n"
        "    i_p, i_f = nl.mgrid[0:64, 0:32]\n"
        "    for t in nl.affine_range(2):\n"
        "        x = nl.load(a[rows(t, i_p), i_f])\n"
        "        assert isinstance(x, local_tile) and isinstance(i_p, TileIndex) and nt_internal.local_tile is local_tile\n"
        "        nl.store(out[rows(t, i_p), i_f], nl.multiply(x, 2.0))\n"
        "    return out\n")
    a = rnd(128, 32)
    r = nkisim.run_kernel(fn, [a])
    assert r.error is None, r.error
    np.testing.assert_allclose(r.outputs[0], a * 2)
    with pytest.raises(nkisim.KernelLoadError, match="not other parts of the Neuron compiler"):
        nkisim.load_kernel("from neuronxcc.nki.compiler.backends.neuron.scheduler import x\n")


def test_abs_as_an_alu_operator_and_masked_per_partition_reductions():
    # rmsnorm_quant: tensor_scalar_reduce(data, op0=nl.abs, operand0=0.0, reduce_op=nl.max, reduce_res=...) over a
    # partial last tile (mask= on the partitions): only the covered partitions of reduce_res are written; and a
    # sequential loop under ncc.multi_buffer(k)
    fn = nkisim.load_kernel(
        HEAD + "import neuronxcc.nki.compiler as ncc\n"
        "@nki.jit\ndef kernel(a):\n"
        "    n, f = a.shape\n"
        "    out = nl.ndarray((n, 1), dtype=nl.float32, buffer=nl.shared_hbm)\n"
        "    i_p, i_f = nl.mgrid[0:128, 0:f]\n    i_q, i_one = nl.mgrid[0:128, 0:1]\n"
        "    for t in nl.sequential_range((n + 127) // 128, directives=ncc.multi_buffer(2)):\n"
        "        x = nl.load(a[t * 128 + i_p, i_f], mask=(t * 128 + i_p < n))\n"
        "        m = nl.full((128, 1), -1.0, dtype=nl.float32)\n"
        "        y = nl.ndarray((128, f), dtype=nl.float32, buffer=nl.sbuf)\n"
        "        y[i_p, i_f] = nisa.tensor_scalar_reduce(data=x[i_p, i_f], op0=nl.abs, operand0=0.0,\n"
        "                                                reduce_op=nl.max, reduce_res=m[i_q, i_one],\n"
        "                                                mask=(t * 128 + i_p < n))\n"
        "        nl.store(out[t * 128 + i_q, i_one], m[i_q, i_one], mask=(t * 128 + i_q < n))\n"
        "        if t == 1:\n"
        "            assert nl.load(a[0:1, 0:1]) is not None\n"
        "    return out\n")
    a = rnd(200, 48)
    r = nkisim.run_kernel(fn, [a])
    assert r.error is None, r.error
    np.testing.assert_allclose(r.outputs[0][:, 0], np.abs(a).max(axis=1))


def test_view_reads_a_tiles_bytes_as_another_dtype():
    # rmsnorm_quant stores each row's float32 scale as 4 float8_e4m3 elements: scales.view(nl.float8_e4m3)
    fn = nkisim.load_kernel(
        HEAD + "@nki.jit\ndef kernel(a):\n"
        "    out = nl.ndarray((128, 4), dtype=nl.float8_e4m3, buffer=nl.shared_hbm)\n"
        "    s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)\n"
        "    s[...] = nl.load(a)\n"
        "    v = s.view(nl.float8_e4m3)\n"
        "    assert v.shape == (128, 4) and v.dtype == nl.float8_e4m3\n"
        "    s[...] = nl.multiply(s, 2.0)\n"  # the view reads the bytes as they are when it is read
        "    nisa.dma_copy(dst=out, src=v)\n"
        "    return out\n")
    # the last value's low byte, 0x7F, reads as a float8 NaN; 0x78 as an infinity
    a = np.array([[1.0], [-3.5], [1e-3], [np.uint32(0x3F00787F).view(np.float32)]] * 32, np.float32)
    r = nkisim.run_kernel(fn, [a])
    assert r.error is None, r.error
    b = np.arange(256)
    e, m = (b >> 3) & 15, b & 7
    table = np.where(e == 0, m * 2.0 ** -9, (1 + m / 8) * 2.0 ** (e - 7))
    table = np.where(e == 15, np.where(m == 0, np.inf, np.nan), table)
    table = np.where(b & 0x80, -table, table)
    want = table[(a * 2).view(np.uint8).reshape(128, 4)]
    got = r.outputs[0]
    assert ((got == want) | (np.isnan(got) & np.isnan(want))).all()
    assert np.isinf(got).any() and np.isnan(got).any()  # the infinity and NaN codes stay what they are
    bad = nkisim.load_kernel(
        HEAD + "@nki.jit\ndef kernel(a):\n"
        "    s = nl.load(a)\n    v = s.view(nl.bfloat16)\n    v[...] = 0.0\n    return a\n")
    assert "writing through" in str(nkisim.run_kernel(bad, [rnd(128, 2)]).error)


def test_device_bytes_of_nki_dtypes_round_trip():
    from nkisim import dtypes as D
    x = rnd(4, 8)
    for dt in (D.float32, D.bfloat16, D.float16, D.float8_e4m3, D.float8_e4m3fn, D.float8_e5m2, D.int8):
        v = dt.cast(x * 10)
        raw = D.to_bytes(v, dt)
        assert raw.dtype == np.uint8 and raw.shape == (4, 8 * dt.itemsize)
        np.testing.assert_array_equal(D.from_bytes(raw, dt), v)
    assert D.float8_e4m3.cast(np.array([np.inf, 1e6], np.float32)).tolist() == [np.inf, 240.0]


def test_fp8_host_inputs_and_the_double_row_matmul_mode():
    # nki-samples' double_row_matmul takes its rhs as float8_e4m3 (its test: nl.static_cast(rhs, nl.float8_e4m3)) and
    # contracts two K tiles per nc_matmul with perf_mode='double_row_gen3' on (K, 2, free) tiles
    nl = nkisim.language
    fn = nkisim.load_kernel(
        HEAD + "@nki.jit\ndef kernel(lhsT, rhs):\n"
        "    assert rhs.dtype == nl.float8_e4m3 and lhsT.dtype == nl.float8_e4m3, 'operands must be float8_e4m3'\n"
        "    out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)\n"
        "    s = nl.ndarray((128, 2, 128), dtype=nl.float8_e4m3, buffer=nl.sbuf)\n"
        "    m = nl.ndarray((128, 2, 256), dtype=nl.float8_e4m3, buffer=nl.sbuf)\n"
        "    for r in nl.affine_range(2):\n"
        "        s[:, r, :] = nl.load(lhsT[r * 128:(r + 1) * 128, :])\n"
        "        m[:, r, :] = nl.load(rhs[r * 128:(r + 1) * 128, :])\n"
        "    acc = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.psum)\n"
        "    acc[...] = nisa.nc_matmul(s, m, perf_mode='double_row_gen3')\n"
        "    nl.store(out, nl.copy(acc))\n    return out\n")
    lhsT = nl.static_cast(rnd(256, 128) * 4, nl.float8_e4m3)
    rhs = nl.static_cast(rnd(256, 256, seed=1) * 4, nl.float8_e4m3)
    assert isinstance(lhsT, np.ndarray) and lhsT.nki_dtype == nl.float8_e4m3
    assert np.array_equal(lhsT, nkisim.dtypes.float8_e4m3.cast(rnd(256, 128) * 4))  # the values are rounded
    r = nkisim.run_kernel(fn, [lhsT, rhs])
    assert r.error is None, r.error
    np.testing.assert_allclose(r.outputs[0], np.asarray(lhsT, np.float64).T @ np.asarray(rhs, np.float64), rtol=1e-5,
                               atol=1e-4)
    mm = [i for i in r.trace if i.op == "nc_matmul"]
    assert len(mm) == 1 and mm[0].attrs["perf_mode"] == "double_row" and mm[0].attrs["k"] == 128
    # plain float32 arrays are float32 tensors; double_row is the FP8 mode only
    r = nkisim.run_kernel(fn, [np.asarray(lhsT), rhs])
    assert r.error is not None and "float8_e4m3" in str(r.error)
    bf = nkisim.load_kernel(
        HEAD + "@nki.jit\ndef kernel(a):\n"
        "    s = nl.ndarray((128, 2, 128), dtype=nl.bfloat16, buffer=nl.sbuf)\n"
        "    s[...] = 0.0\n"
        "    acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)\n"
        "    acc[...] = nisa.nc_matmul(s, s, perf_mode='double_row')\n    return a\n")
    assert "FP8 mode" in str(nkisim.run_kernel(bf, [rnd(2, 2)]).error)
