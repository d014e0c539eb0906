"""Our own current-API (nki.*) example kernels (tests/fixtures/kernels/current) run on nkisim and match numpy, on
every target, numerically and in timing-only mode."""
import pathlib

import numpy as np
import pytest

import nkisim
from nkisim.perf import estimate

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "kernels" / "current"


def _rng(seed):
    return np.random.default_rng(seed)


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


CASES = {
    "tiled_add": (lambda r: [r.standard_normal((300, 1100)).astype(np.float32),
                             r.standard_normal((300, 1100)).astype(np.float32)],
                  lambda a, b: a + 2 * b, 1e-6),
    "matmul_blocked": (lambda r: [r.standard_normal((512, 256)).astype(np.float32),
                                  r.standard_normal((512, 1024)).astype(np.float32)],
                       lambda a, b: a.astype(np.float64).T @ b, 1e-5),
    "softmax_rows": (lambda r: [r.standard_normal((200, 300)).astype(np.float32) * 3], _softmax, 1e-5),
    "transpose_tiles": (lambda r: [r.standard_normal((256, 384)).astype(np.float32)], lambda x: x.T, 0),
    "rmsnorm": (lambda r: [r.standard_normal((300, 256)).astype(np.float32),
                           r.standard_normal((256,)).astype(np.float32)],
                lambda x, w: x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + 1e-6) * w, 1e-5),
    "avgpool_ap": (lambda r: [r.standard_normal((64, 12, 16)).astype(np.float32), 2],
                   lambda x, p: x.reshape(64, 6, 2, 8, 2).mean(axis=(2, 4)), 1e-6),
}


def test_every_current_fixture_has_a_case():
    files = sorted(p.stem for p in FIXTURES.glob("*.py"))
    assert files and files == sorted(CASES), (files, sorted(CASES))


@pytest.mark.parametrize("target", ["trn1", "trn2", "trn3"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_current_fixture_kernel_matches_numpy(name, target):
    make, ref, rtol = CASES[name]
    path = FIXTURES / f"{name}.py"
    fn = nkisim.load_kernel(path.read_text(encoding="utf-8"), filename=str(path))
    args = make(_rng(17))
    r = nkisim.run_kernel(fn, args, target=target)
    assert r.error is None, f"{name}: {r.error}"
    assert r.generation == "current"
    want = ref(*args)
    got = r.outputs[0]
    assert got.shape == want.shape
    err = np.linalg.norm(got - want) / np.linalg.norm(want)
    assert err <= max(rtol, 1e-12), f"{name}: L2 relative error {err:.3g}"
    t = nkisim.run_kernel(fn, args, target=target, numeric=False)
    assert t.error is None, t.error
    assert [i.op for i in t.trace.instrs] == [i.op for i in r.trace.instrs]
    assert estimate(t.trace, target).latency_us > 0
