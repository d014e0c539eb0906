"""The current-API (nki.*) baselines of the 14 NKIBench tasks (nkibench/tasks/<name>/baseline_current.py, issue 17):
each is a translation of the task's classic baseline.py and must be

* a current-API kernel with the classic baseline's signature (the runner calls both the same way);
* correct against the task's reference at the small parameters, on trn1, trn2 and trn3 (two seeds, as
  test_tasks.py checks the classic baselines);
* runnable at the full parameters (timing-only, from task.json's declared kernel shapes, trn2), with the declared
  output shape, and as fast as the classic baseline within LATENCY_FACTOR on nkisim's model: a translation keeps
  the tiling and the engines, so it is neither a deliberately slow nor a different algorithm;
* numerically equal to the classic baseline on the same inputs within the task's rel_tol (the port check: what
  `accelopt port` will require of a port from one generation to the other).

The translations are instruction for instruction, so today the latencies are equal and the outputs bit-identical;
the tests hold them to the looser bounds a port has to meet."""
import ast
import re

import numpy as np
import pytest

import nkisim
from nkisim.perf import estimate
from tasks_helpers import TASK_NAMES, declared_inputs, eval_expr, l2_rel, load_task, run_baseline

SEEDS = (0, 21)
# current / classic modelled latency (trn2, full size) must lie in [1 / LATENCY_FACTOR, LATENCY_FACTOR]
LATENCY_FACTOR = 1.05


def _signature(src):
    fn = next(n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.FunctionDef) and n.name == "kernel")
    return [a.arg for a in fn.args.args]


@pytest.mark.parametrize("name", TASK_NAMES)
def test_current_baseline_source(name):
    """Written against nki.* only, defines `kernel` with the classic baseline's parameters, passes the float16
    precision guard, and nkisim sees it as a current-API kernel."""
    _, _, classic, _ = load_task(name, "classic")
    _, _, src, path = load_task(name, "current")
    code = re.sub(r"#.*", "", src)
    assert "import nki.language as nl" in src and "import nki.isa as nisa" in src
    assert "neuronxcc" not in code
    assert "float16" not in code
    for removed in ("nl.arange", "nl.mgrid", "nl.par_dim", "mask="):
        assert removed not in code, removed
    assert _signature(src) == _signature(classic)
    fn = nkisim.load_kernel(src, filename=path)
    assert nkisim.current.generation.detect(fn) == "current"


@pytest.mark.parametrize("target", ["trn1", "trn2", "trn3"])
@pytest.mark.parametrize("name", TASK_NAMES)
def test_current_baseline_correct_small(name, target):
    for seed in SEEDS:
        meta, res, outs, expected, _ = run_baseline(name, seed, target, api="current")
        assert res.ok, f"{name} seed {seed}: {res.status}: {res.error}"
        assert res.generation == "current"
        assert len(outs) == len(expected)
        for o, e in zip(outs, expected):
            assert o.shape == e.shape and o.dtype == np.float32
            assert np.all(np.isfinite(o))
            err = l2_rel(o, e)
            assert err < meta["rel_tol"], f"{name} seed {seed}: L2 rel err {err:.3g} >= {meta['rel_tol']}"


def _full_latency_ns(name, api, target="trn2"):
    meta, _, src, path = load_task(name, api)
    p = meta["parameters"]
    res = nkisim.run_kernel(nkisim.load_kernel(src, filename=path), declared_inputs(meta, p), target=target,
                            numeric=False)
    assert res.ok, f"{name} ({api}) at full size: {res.status}: {res.error}"
    want = tuple(eval_expr(e, p) for e in meta["outputs"][0]["kernel_shape_expr"])
    assert len(res.outputs) == 1 and tuple(res.outputs[0].shape) == want
    return estimate(res.trace, target, timeline_cap=0).latency_ns


@pytest.mark.parametrize("name", TASK_NAMES)
def test_current_baseline_full_size_latency_matches_classic(name):
    classic, current = _full_latency_ns(name, "classic"), _full_latency_ns(name, "current")
    assert classic > 0
    ratio = current / classic
    assert 1 / LATENCY_FACTOR <= ratio <= LATENCY_FACTOR, \
        f"{name}: current {current / 1e3:.1f} us vs classic {classic / 1e3:.1f} us (x{ratio:.3f})"


def port_rel_err(name, seed, target="trn2", params_key="small_parameters"):
    """L2 relative difference ||current - classic|| / ||classic|| of the two baselines' outputs (in the reference's
    layout) on the same inputs, and the task's rel_tol."""
    meta, rc, classic, _, _ = run_baseline(name, seed, target, params_key, api="classic")
    _, ru, current, _, _ = run_baseline(name, seed, target, params_key, api="current")
    assert rc.ok and ru.ok, (rc.error, ru.error)
    assert [o.shape for o in current] == [o.shape for o in classic]
    return max(l2_rel(u, c) for u, c in zip(current, classic)), meta["rel_tol"]


@pytest.mark.parametrize("name", TASK_NAMES)
def test_port_check_classic_and_current_baselines_agree(name):
    for seed in SEEDS:
        err, tol = port_rel_err(name, seed)
        assert err <= tol, f"{name} seed {seed}: current vs classic L2 rel {err:.3g} > rel_tol {tol}"


def test_port_check_is_not_vacuous():
    """A current output off by 1e-4 relative fails the port check's tolerance."""
    meta, _, classic, _, _ = run_baseline("silu", 0, "trn2", api="classic")
    _, _, current, _, _ = run_baseline("silu", 0, "trn2", api="current")
    assert l2_rel(current[0] * (1 + 1e-4), classic[0]) > meta["rel_tol"]
