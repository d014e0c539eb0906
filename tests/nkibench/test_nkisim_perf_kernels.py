"""The performance model on traces of real (small) kernels run through nkisim's executor."""
import pytest

import nkisim
from nkisim.perf import estimate

nt = nkisim.typing.tensor
nl = nkisim.language


@pytest.fixture(scope="module")
def kernels():
    """The calibration kernels import neuronxcc.nki: import them with the redirection on, then restore it."""
    import sys
    was = nkisim.is_active()
    before = set(sys.modules)
    nkisim.activate()
    try:
        from nkisim.calibration import layernorm, mamba, matmul
    finally:
        if not was:
            nkisim.deactivate()
    yield {"matmul": matmul, "mamba": mamba, "layernorm": layernorm}
    for name in set(sys.modules) - before:
        if name.startswith("nkisim.calibration"):
            del sys.modules[name]


def run(fn, args, target="trn1"):
    res = nkisim.run_kernel(fn, args, target=target, numeric=False)
    assert res.error is None, res.error
    return res.trace, estimate(res.trace, target)


def mm_args(K=1024, M=256, N=1024):
    return [nt[[K, M], nl.bfloat16], nt[[K, N], nl.bfloat16]]


def test_matmul_versions_get_faster_and_bytes_add_up(kernels):
    matmul = kernels["matmul"]
    K, M, N = 1024, 256, 1024
    lat = {}
    for fn in (matmul.matmul_tiled, matmul.matmul_hoisted, matmul.matmul_block_free):
        trace, est = run(fn, mm_args(K, M, N))
        lat[fn.__name__ if hasattr(fn, "__name__") else str(fn)] = est.latency_ns
        m = est.metrics
        loaded = sum(i.dma_bytes for i in trace if i.engine == "dma" and i.attrs.get("src") == "hbm")
        assert m["hbm_read_bytes"] == loaded
        assert m["hbm_write_bytes"] == M * N * 2
        assert m["hardware_flops"] == 2 * K * M * N
        assert 0 < m["hfu_estimated_percent"] <= 1
        assert 0 < m["dma_active_time_percent"] <= 1
    a, b, c = lat.values()
    assert a > b > c  # hoisting and blocking cut DMA traffic


def test_mamba_v2_beats_v1(kernels):
    mamba = kernels["mamba"]
    args = [nt[[1, 256, 512], nl.float32], nt[[1, 256, 512], nl.float32], nt[[256, 16], nl.float32],
            nt[[1, 16, 512], nl.float32], nt[[1, 16, 512], nl.float32]]
    _, e1 = run(mamba.mamba_v1, args)
    _, e2 = run(mamba.mamba_v2, args)
    assert e2.latency_ns < e1.latency_ns
    assert e1.metrics["vector_engine_active_time_percent"] > 0.8  # VectorE-bound, as §4.3 reports


def test_layernorm_timeline_and_trn2(kernels):
    layernorm = kernels["layernorm"]
    args = [nt[[256, 2048], nl.float32], nt[[1, 2048], nl.float32], nt[[1, 2048], nl.float32]]
    trace, e1 = run(layernorm.layernorm_v2, args)
    assert len(e1.timeline) == len(trace)
    assert all(t["end_ns"] >= t["start_ns"] for t in e1.timeline)
    assert max(t["end_ns"] for t in e1.timeline) == pytest.approx(e1.latency_ns)
    _, e2 = run(layernorm.layernorm_v2, args, target="trn2")
    assert e2.latency_ns > 0 and e2.target == "trn2"
