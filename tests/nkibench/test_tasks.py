"""The 14 NKIBench tasks (nkibench/tasks/<name>): task.json contract, reference transforms at full size (shapes
only), and each baseline kernel on nkisim at the small parameters, for trn1 and trn2."""
import inspect
import json
import os

import numpy as np
import pytest

import nkisim
from tasks_helpers import TASK_NAMES, TASKS_DIR, eval_expr, l2_rel, load_task, run_baseline

SEEDS = (0, 21)

# The catalogue's kernel arguments (after the reshape) and kernel outputs at the full parameters.
FULL_KERNEL_ARGS = {
    "swiglu": [(8, 4, 128, 8, 128), (8, 128, 3072), (24, 128, 1024), (8, 128, 3072)],
    "matmul_add_rmsnorm": [(4096, 2048), (2048, 2048), None, (4096, 2048), (2048,)],
    "add_rmsnorm_matmul": [(4096, 1024), (1024, 2048), None, (4096, 1024), (1024,)],
    "matmul": [(32, 128, 40, 128), (40, 128, 12288)],
    "gqa_full": [(32, 128, 16, 128), (1, 8, 4, 128, 8, 128), (1, 32, 128, 1024)],
    "rmsnorm_matmul": [(32, 128, 1024), (8, 128, 2048)],
    "rope_single_freq_apply": [(128, 262144), (64, 262144), (64, 262144)],
    "bmm": [(16, 4096, 64), (16, 64, 4096)],
    "bmm_softmax": [(16, 4096, 64), (16, 64, 4096)],
    "transpose_matmul": [(128, 16, 4096), (128, 16, 10944)],
    "lora": [(8, 4, 128, 40, 128), (40, 128, 12288), (40, 128, 128), (128, 12288)],
    "adamw": [(10944, 2048)] * 4,
    "silu": [(128, 32, 7168)],
    "mamba": [(256, 7168), (256, 7168), (256, 16), (16, 7168), (16, 7168)],
}
FULL_KERNEL_OUT = {
    "swiglu": ((32, 128, 1024), (4096, 1024)),
    "matmul_add_rmsnorm": ((4096, 2048), (4096, 2048)),
    "add_rmsnorm_matmul": ((4096, 2048), (4096, 2048)),
    "matmul": ((32, 128, 12288), (4096, 12288)),
    "gqa_full": ((1, 8, 2, 32, 128, 128), (1, 16, 4096, 128)),
    "rmsnorm_matmul": ((32, 128, 2048), (4096, 2048)),
    "rope_single_freq_apply": ((128, 262144), (128, 262144)),
    "bmm": ((16, 32, 128, 4096), (16, 4096, 4096)),
    "bmm_softmax": ((16, 32, 128, 4096), (16, 4096, 4096)),
    "transpose_matmul": ((32, 128, 10944), (4096, 10944)),
    "lora": ((8, 4, 128, 96, 128), (4096, 12288)),
    "adamw": ((10944, 2048), (10944, 2048)),
    "silu": ((128, 32, 7168), (4096, 7168)),
    "mamba": ((256, 7168), (256, 7168)),
}
# §5.4 roofline figures at the full parameters, worked out by hand: (vector FLOPs, matmul FLOPs, bytes).
FULL_ROOFLINE = {
    "silu": (88080384, 0, 234881024),
    "matmul": (0, 515396075520, 536870912),
    "gqa_full": (1342177280, 137438953472, 100663296),
    "mamba": (293601280, 0, 22953984),
    "lora": (50331648, 533649686528, 545783808),
    "adamw": (156893184, 0, 448266240),
    "swiglu": (62914560, 77309411328, 71303168),
}
FULL_PARAMS = {
    "swiglu": dict(M=4096, N=3072, K=1024), "matmul_add_rmsnorm": dict(M=4096, N=2048, K=2048),
    "add_rmsnorm_matmul": dict(M=4096, N=2048, K=1024), "matmul": dict(M=4096, N=12288, K=5120),
    "gqa_full": dict(B=1, N=4096, QH=16, KH=8, D=128), "rmsnorm_matmul": dict(M=4096, N=2048, K=1024),
    "rope_single_freq_apply": dict(B=1, H=64, N=4096, D=128), "bmm": dict(B=16, M=4096, K=64, N=4096),
    "bmm_softmax": dict(B=16, M=4096, K=64, N=4096), "transpose_matmul": dict(M=4096, K=2048, N=10944),
    "lora": dict(M=4096, N=12288, K=5120, R=128), "adamw": dict(M=10944, N=2048), "silu": dict(M=4096, N=7168),
    "mamba": dict(M=7168, C=256, S=16),
}


def test_all_task_folders_present():
    found = sorted(d for d in os.listdir(TASKS_DIR) if os.path.isfile(os.path.join(TASKS_DIR, d, "task.json")))
    assert found == sorted(TASK_NAMES)


@pytest.mark.parametrize("name", TASK_NAMES)
def test_task_json(name):
    with open(os.path.join(TASKS_DIR, name, "task.json")) as f:
        meta = json.load(f)
    for key in ("name", "description", "parameters", "small_parameters", "rel_tol", "dtype", "inputs", "roofline"):
        assert key in meta, key
    assert meta["name"] == name
    assert isinstance(meta["description"], str) and "\n" not in meta["description"]
    assert meta["parameters"] == FULL_PARAMS[name]
    assert set(meta["small_parameters"]) == set(meta["parameters"])
    assert meta["rel_tol"] == (3e-5 if name == "mamba" else 2e-5)
    assert meta["dtype"] == "float32"
    assert set(meta["roofline"]) == {"vector_flops", "matmul_flops", "min_bytes"}
    for params in (meta["parameters"], meta["small_parameters"]):
        vec, mm, by = (eval_expr(meta["roofline"][k], params) for k in ("vector_flops", "matmul_flops", "min_bytes"))
        assert vec >= 0 and mm >= 0 and by > 0 and vec + mm > 0
    if name in FULL_ROOFLINE:
        got = tuple(eval_expr(meta["roofline"][k], meta["parameters"])
                    for k in ("vector_flops", "matmul_flops", "min_bytes"))
        assert got == FULL_ROOFLINE[name]


@pytest.mark.parametrize("name", TASK_NAMES)
def test_reference_module_contract(name):
    meta, ref, src, _ = load_task(name)
    for fn in ("get_inputs", "forward", "transform_to_nki_inputs", "transform_nki_outputs"):
        assert callable(getattr(ref, fn, None)), fn
    assert list(inspect.signature(ref.get_inputs).parameters) == ["seed", "params"]
    p = meta["small_parameters"]
    a, b = ref.get_inputs(5, p), ref.get_inputs(5, p)
    assert len(a) == len(meta["inputs"])
    for x, y, spec in zip(a, b, meta["inputs"]):
        if isinstance(x, np.ndarray):
            assert x.dtype == np.float32
            assert x.shape == tuple(eval_expr(e, p) for e in spec["shape_expr"])
            np.testing.assert_array_equal(x, y)  # deterministic
        else:
            assert x == 1e-5 and isinstance(x, float)
    # the reference does not modify its inputs
    before = [x.copy() if isinstance(x, np.ndarray) else x for x in a]
    ref.forward(*a)
    for x, y in zip(a, before):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("name", TASK_NAMES)
def test_full_size_layouts(name):
    """transform_to_nki_inputs / transform_nki_outputs at full size, on zero-stride arrays (no memory)."""
    meta, ref, _, _ = load_task(name)
    p = meta["parameters"]
    inputs = []
    for spec in meta["inputs"]:
        if "shape_expr" in spec:
            inputs.append(np.broadcast_to(np.float32(0), tuple(eval_expr(e, p) for e in spec["shape_expr"])))
        else:
            inputs.append(1e-5)
    kin = ref.transform_to_nki_inputs(inputs, p)
    want = FULL_KERNEL_ARGS[name]
    assert len(kin) == len(want)
    for arg, shape, spec in zip(kin, want, meta["inputs"]):
        if shape is None:
            assert arg == 1e-5
        else:
            assert arg.shape == shape
            assert tuple(eval_expr(e, p) for e in spec["kernel_shape_expr"]) == shape
    kout, rout = FULL_KERNEL_OUT[name]
    outs = ref.transform_nki_outputs([np.broadcast_to(np.float32(0), kout)], p)
    assert len(outs) == 1 and outs[0].shape == rout
    assert tuple(eval_expr(e, p) for e in meta["outputs"][0]["kernel_shape_expr"]) == kout


@pytest.mark.parametrize("target", ["trn1", "trn2"])
@pytest.mark.parametrize("name", TASK_NAMES)
def test_baseline_correct_small(name, target):
    for seed in SEEDS:
        meta, res, outs, expected, wall = run_baseline(name, seed, target)
        assert res.ok, f"{name} seed {seed}: {res.status}: {res.error}"
        assert len(outs) == len(expected)
        for o, e in zip(outs, expected):
            assert o.shape == e.shape and o.dtype == np.float32
            assert np.all(np.isfinite(o))
            err = l2_rel(o, e)
            assert err < meta["rel_tol"], f"{name} seed {seed}: L2 rel err {err:.3g} >= {meta['rel_tol']}"


def test_baseline_sources_are_plain_nki():
    """Baselines use the classic API, define `kernel`, and pass the original's float16 precision guard."""
    import re
    for name in TASK_NAMES:
        _, _, src, path = load_task(name)
        assert "import neuronxcc.nki.language as nl" in src
        assert "def kernel(" in src
        assert "float16" not in re.sub(r"#.*", "", src)
        nkisim.load_kernel(src, filename=path)


def test_wrong_kernel_is_caught():
    """The check is not vacuous: a deliberately wrong output fails the tolerance."""
    meta, res, outs, expected, _ = run_baseline("silu", 0)
    bad = outs[0] * (1 + 1e-4)
    assert l2_rel(bad, expected[0]) > meta["rel_tol"]


# The straightforward float64 references the blocked ones replaced (whole arrays at once). bmm, bmm_softmax and
# gqa_full compute the same float64 arithmetic one batch / head at a time so a full-size check fits in memory.
def _plain_bmm(lhs, rhs):
    return np.matmul(lhs.astype(np.float64), rhs.astype(np.float64)).astype(np.float32)


def _plain_bmm_softmax(lhs, rhs):
    s = np.matmul(lhs.astype(np.float64), rhs.astype(np.float64))
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


def _plain_gqa_full(q, k, v):
    B, N, QH, D = q.shape
    G = QH // k.shape[2]
    qh = q.astype(np.float64).transpose(0, 2, 1, 3)
    kh = np.repeat(k.astype(np.float64).transpose(0, 2, 1, 3), G, axis=1)
    vh = np.repeat(v.astype(np.float64).transpose(0, 2, 1, 3), G, axis=1)
    s = np.matmul(qh, kh.transpose(0, 1, 3, 2)) / np.sqrt(D)
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(axis=-1, keepdims=True)
    return np.matmul(p, vh).astype(np.float32)


PLAIN_REFERENCES = {"bmm": _plain_bmm, "bmm_softmax": _plain_bmm_softmax, "gqa_full": _plain_gqa_full}
# sizes where every loop of the blocked reference runs more than once: several batches / KV heads / query heads
# per KV head
BLOCKED_SIZES = {"bmm": dict(B=3, M=128, K=64, N=384), "bmm_softmax": dict(B=3, M=128, K=64, N=384),
                 "gqa_full": dict(B=2, N=256, QH=6, KH=3, D=64)}


@pytest.mark.parametrize("name", sorted(PLAIN_REFERENCES))
def test_blocked_reference_equals_plain_float64(name):
    """The blocked reference equals the whole-array float64 one within 1e-6 relative (it is in fact the same
    float64 arithmetic: the float32 results agree to the last bit or one ulp)."""
    meta, ref, _, _ = load_task(name)
    for params in (meta["small_parameters"], BLOCKED_SIZES[name]):
        for seed in (0, 7):
            inputs = ref.get_inputs(seed, params)
            got = ref.forward(*inputs)
            want = PLAIN_REFERENCES[name](*inputs)
            assert got.shape == want.shape and got.dtype == want.dtype == np.float32
            rel = np.linalg.norm((got.astype(np.float64) - want).ravel()) / np.linalg.norm(want.astype(np.float64))
            assert rel <= 1e-6, f"{name} {params} seed {seed}: {rel:.3g}"
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * float(np.max(np.abs(want))))


def test_blocked_reference_keeps_memory_small():
    """bmm_softmax at a size whose whole-array float64 reference needs ~10x its float32 output: the blocked one
    stays within ~2 outputs of extra memory (tracemalloc sees numpy's allocations)."""
    import tracemalloc
    _, ref, _, _ = load_task("bmm_softmax")
    params = dict(B=8, M=256, K=64, N=512)
    inputs = ref.get_inputs(1, params)
    out_bytes = params["B"] * params["M"] * params["N"] * 4
    tracemalloc.start()
    try:
        ref.forward(*inputs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * out_bytes, peak


@pytest.mark.parametrize("name", TASK_NAMES)
def test_timing_only_evals_take_the_declared_full_size_shapes(name, tmp_path):
    """The runner's timing-only evals skip building full-size inputs: task.json's declared kernel shapes, checked
    against what the reference builds at the small parameters, give the full-size argument shapes."""
    import sys
    from runner_helpers import RUNNER_DIR
    sys.path.insert(0, str(RUNNER_DIR))
    from accelopt_runner.taskspec import LoadedTask, resolve
    task = LoadedTask(resolve({"name": name}, "full", TASKS_DIR), str(tmp_path))
    shapes = task.nki_input_shapes(7)
    if None in FULL_KERNEL_ARGS[name]:
        assert shapes is None  # a scalar argument's value comes from get_inputs only: those evals build inputs
    else:
        assert shapes == [(s, np.dtype(np.float32)) for s in FULL_KERNEL_ARGS[name]]
