"""The current-SDK STAND-IN's device latency model (tests/fixtures/runner/fake_nki_current/nrtpy/standin_latency.py):
its "hardware" time is a documented function of nkisim's estimate (per-engine scales, a launch overhead), so a
DMA-bound kernel is off from nkisim by a different factor than a TensorE-bound one (issue 34). Checked by hand on
the formula, then end to end: the same kernel on the runner's sim backend and on the stand-in's neuron backend."""
import importlib.util

import pytest

from runner_helpers import FAKE_NKI_CURRENT, Serve, make_add_task
from test_runner_generations import CURRENT_ADD, sdk_env


def _model():
    spec = importlib.util.spec_from_file_location("standin_latency",
                                                  FAKE_NKI_CURRENT / "nrtpy" / "standin_latency.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_formula_by_hand():
    m = _model()
    assert m.LAUNCH_OVERHEAD_NS == 3000.0
    assert m.ENGINE_SCALE == {"tensor": 1.0, "vector": 1.2, "scalar": 1.25, "gpsimd": 1.5, "dma": 1.8}
    # half DMA, half TensorE: (1.8 * 100 + 1.0 * 100) / 200 = 1.4; 3000 + 1000 * 1.4
    assert m.device_latency_ns(1000.0, {"dma": 100.0, "tensor": 100.0}) == pytest.approx(4400.0)
    # nothing busy (an empty kernel): only the launch overhead is added
    assert m.device_latency_ns(500.0, {}) == pytest.approx(3500.0)
    # engines the model does not know are ignored, not an error
    assert m.factor({"vector": 10.0, "sync": 99.0}) == pytest.approx(1.2)


@pytest.fixture(scope="module")
def serve(tmp_path_factory):
    root = tmp_path_factory.mktemp("tasks")
    make_add_task(root)
    s = Serve(["--tasks", str(root), "--no-sandbox"], env=sdk_env(FAKE_NKI_CURRENT, None))
    yield s
    s.close()


def _both(serve, name, kernel):
    out = {}
    for backend in ("sim", "neuron"):
        r = serve.eval(f"{name}-{backend}", {"name": "add"}, kernel, size="small", backend=backend, core=0,
                       timeout=180, seeds=[1])
        assert r["status"] == "ok" and r["correct"] is True, r.get("error")
        assert r["sdk"] == ("nkisim" if backend == "sim" else
                            "Neuron SDK 2.33 (nki 0.7.0+standin, neuronx-cc 2.28.7631.0+standin)"), r["sdk"]
        out[backend] = r
    return out["sim"], out["neuron"]


def test_the_stand_in_device_is_the_documented_function_of_nkisim(serve):
    m = _model()
    factors = {}
    add_line = "        nisa.tensor_tensor(dst=z, data1=x, data2=y, op=nl.add)\n"
    assert add_line in CURRENT_ADD
    # the same sum computed 40 times over: VectorE time outweighs the DMA
    vector_bound = CURRENT_ADD.replace(add_line, add_line * 40)
    for name, kernel in (("dma-bound", CURRENT_ADD), ("vector-bound", vector_bound)):
        sim, dev = _both(serve, name, kernel)
        busy = sim["profile"]["engine_busy_ns"]
        predicted_ns = sim["latency_ms"]["mean"] * 1e6
        expected_ms = m.device_latency_ns(predicted_ns, busy) * 1e-6
        # the stand-in reports a 0.1 % spread around its model's value
        assert dev["latency_ms"]["mean"] == pytest.approx(expected_ms, rel=1e-6), (name, busy)
        assert dev["latency_ms"]["mean"] > sim["latency_ms"]["mean"]
        factors[name] = m.factor(busy)
    # kernel-dependent: the DMA-bound kernel is off by nearly DMA's scale, the vector-bound one by nearly VectorE's
    assert factors["dma-bound"] > 1.6 and 1.2 <= factors["vector-bound"] < 1.4, factors
