"""A Neuron host with nrtpy: the kernel's child only compiles, and the judge runs the NEFF it handed over (checks
and times it) in a process that never ran the kernel's Python (runner README, "What the judge trusts"). Against the
current-SDK STAND-IN (tests/fixtures/runner/fake_nki_current), whose nrtpy runs a NEFF's kernel in a process of its
own and serves its NKI calls itself, as a device runs a NEFF without the kernel's Python. Each attack patches the
harness in the kernel's interpreter through sys.modules, as issue 23 found a kernel could; before the split the
kernel's child also checked and timed it, so the patches decided its verdict and its latency."""
import json
import textwrap

import pytest

from runner_helpers import FAKE_NEURON, FAKE_NKI_CURRENT, Serve, make_add_task, runner_env
from test_runner_generations import CURRENT_ADD, sdk_env
from test_runner_sandbox import ESCAPE, found_by

MODES = ["sandbox", "no-sandbox"]


def attack(body: str, kernel: str = CURRENT_ADD) -> str:
    """The current add kernel whose module code runs body (past the static checks, as in test_runner_sandbox)."""
    code = "import os, json\nfound = {}\n" + textwrap.dedent(body) + '\nprint("ATTACK " + json.dumps(found))\n'
    head, rest = kernel.split("@nki.jit", 1)
    return head + f"ATTACK_CODE = {code!r}\n" + ESCAPE + "\n\n@nki.jit" + rest


@pytest.fixture(params=MODES)
def host(request, tmp_path):
    make_add_task(tmp_path)
    log = tmp_path / "calls.jsonl"
    args = ["--tasks", str(tmp_path)] + (["--no-sandbox"] if request.param == "no-sandbox" else [])
    # a sandboxed child cannot write the stand-in's call log (it sees its own folder only)
    s = Serve(args, env=sdk_env(FAKE_NKI_CURRENT, log if request.param == "no-sandbox" else None))
    s.log = log if request.param == "no-sandbox" else None

    def run(kernel, id_="k", **fields):
        fields.setdefault("seeds", [1, 2])
        return s.eval(id_, {"name": "add"}, kernel, size="small", backend="neuron", core=0, timeout=180, **fields)
    s.run = run
    yield s
    s.close()


def calls(log) -> list:
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def test_the_kernels_child_compiles_and_the_judge_runs_the_neff(host):
    r = host.run(CURRENT_ADD, seeds=[1, 2, 3])
    assert r["status"] == "ok" and r["correct"] is True, r
    assert not any(w.startswith("trust:") for w in r["warnings"]), r["warnings"]
    if host.log is None:
        return
    log = calls(host.log)
    jit = [c for c in log if c["api"] == "nki.jit"]
    runs = [c for c in log if c["api"] == "nrtpy.execute"]
    bench = [c for c in log if c["api"] == "nrtpy.benchmark"]
    assert len(jit) == 1, jit  # compile (and the SDK's one run), nothing more
    assert len(runs) == 3 + 1 and sum(c["save_trace"] for c in runs) == 1  # each seed, then one traced run
    assert bench and {c["pid"] for c in runs + bench} and jit[0]["pid"] not in {c["pid"] for c in runs + bench}


def test_a_forged_verdict_does_not_count(host):
    """A kernel that computes a - b replaces every comparison its interpreter can reach: the outputs the verdict
    compares are the NEFF's, run by the judge."""
    wrong = attack('''
        import sys
        import importlib
        for name in ("accelopt_runner.correctness", "accelopt_runner.judge"):
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        for name, mod in list(sys.modules.items()):
            if name.startswith("accelopt_runner") and hasattr(mod, "compare"):
                mod.compare = lambda *a, **k: (0.0, 0.0)
                found.setdefault("patched", []).append(name)
        ''', CURRENT_ADD.replace("op=nl.add", "op=nl.subtract"))
    r = host.run(wrong)
    assert "accelopt_runner.correctness" in found_by(r)["patched"], r
    assert r["status"] == "incorrect" and r["correct"] is False, r


def test_a_patched_timer_changes_nothing_of_the_latency(host):
    """The kernel halves every latency its interpreter can compute (the timing protocol, nrtpy's benchmark, nkisim's
    model under the stand-in): the NEFF is timed by the judge, so it gets the honest kernel's latency."""
    honest = host.run(attack("found['patched'] = []\n"), id_="honest")
    assert honest["status"] == "ok", honest
    r = host.run(attack('''
        import sys
        import importlib
        for name in ("accelopt_runner.timing", "nrtpy", "nkisim.perf", "nkisim.perf.estimate"):
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        def half(f):
            def g(*a, **k):
                v = f(*a, **k)
                for attr in ("latency_ns", "mean_ms", "min_ms", "max_ms"):
                    if hasattr(v, attr):
                        setattr(v, attr, getattr(v, attr) * 0.5)
                if isinstance(v, tuple) and v and isinstance(v[0], dict):
                    v = ({k: x * 0.5 for k, x in v[0].items()},) + v[1:]
                return v
            return g
        found["patched"] = []
        for name, mod in list(sys.modules.items()):
            if name.startswith(("accelopt_runner", "nkisim.perf", "nrtpy")):
                for attr in ("benchmark", "estimate", "measure"):
                    if callable(getattr(mod, attr, None)):
                        setattr(mod, attr, half(getattr(mod, attr)))
                        found["patched"].append(name + "." + attr)
        model = getattr(sys.modules.get("nrtpy"), "NrtpyModel", None)
        if model is not None:
            model.benchmark = half(model.benchmark)
            found["patched"].append("nrtpy.NrtpyModel.benchmark")
        '''), id_="forger")
    f = found_by(r)
    assert "accelopt_runner.timing.benchmark" in f["patched"] and "nrtpy.NrtpyModel.benchmark" in f["patched"], f
    assert r["status"] == "ok", r
    assert r["latency_ms"]["mean"] == pytest.approx(honest["latency_ms"]["mean"], rel=0.01), \
        (r["latency_ms"], honest["latency_ms"])


def test_a_garbled_neff_description_is_the_kernels_failure(host):
    """The kernel rewrites what its child hands over beside the NEFF: a clear runtime_error, not a crash."""
    r = host.run(attack('''
        import json as j
        real = j.dump
        def dump(obj, f, *a, **k):
            if isinstance(obj, dict) and "outputs" in obj:
                f.write("{not json")
                found["garbled"] = True
                return None
            return real(obj, f, *a, **k)
        j.dump = dump
        '''))
    assert r["status"] == "runtime_error" and "description of its NEFF" in r["error"], r


def test_without_nrtpy_the_result_says_who_judged(tmp_path):
    """The classic stand-in has no nrtpy: the eval stays in one process, and its result says what that gives up."""
    make_add_task(tmp_path)
    from runner_helpers import ADD_KERNEL
    env = runner_env(extra_pythonpath=[FAKE_NEURON], path_prefix=[FAKE_NEURON / "bin"])
    s = Serve(["--tasks", str(tmp_path), "--no-sandbox"], env=env)
    try:
        r = s.eval("n1", {"name": "add", "size": "small"}, ADD_KERNEL, backend="neuron", core=0, seeds=[1])
    finally:
        s.close()
    assert r["status"] == "ok", r
    assert any(w.startswith("trust: this host has no nrtpy") for w in r["warnings"]), r["warnings"]
