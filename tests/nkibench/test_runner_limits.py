"""The sim memory limit derived from the host (accelopt_runner.limits), its overrides and its out-of-memory advice,
and the blocked output check (correctness.compare) against a whole-array float64 check."""
import json
import os
import sys
import textwrap

import numpy as np
import pytest

from runner_helpers import ADD_KERNEL, RUNNER_DIR, Serve, add_kernel, run_cli, runner_env

sys.path.insert(0, str(RUNNER_DIR))
from accelopt_runner import correctness, limits  # noqa: E402

ENV_KEYS = (limits.ENV_MEMORY, limits.ENV_SLOTS)


def clean_env(**extra):
    env = runner_env()
    for k in ENV_KEYS:
        env.pop(k, None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def probe(args=(), **env):
    p = run_cli(["probe", *args], env=clean_env(**env))
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def expected_derived(phys_mb, slots):
    return max(limits.FLOOR_MB, int(phys_mb * limits.FRACTION / slots) // 256 * 256)


def test_probe_reports_the_derived_limit():
    h = probe()
    lim = h["limits"]
    phys = lim["physical_memory_mb"]
    ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1024 * 1024)
    assert 0 < phys <= ram
    assert lim["slots"] == len(os.sched_getaffinity(0))
    assert lim["memory_limit_mb"] == expected_derived(phys, lim["slots"])
    assert h["sandbox"]["memory_limit_mb"] == lim["memory_limit_mb"]
    assert lim["memory_limit_source"].startswith("derived: 75% of") and f"{lim['slots']} slot" in \
        lim["memory_limit_source"]
    assert lim["memory_limit_mb"] >= limits.FLOOR_MB


def test_slots_divide_the_memory():
    one = probe(["--slots", "1"])["limits"]
    many = probe(["--slots", "64"])["limits"]
    env = probe(**{limits.ENV_SLOTS: 64})["limits"]
    assert one["slots"] == 1 and one["memory_limit_mb"] == expected_derived(one["physical_memory_mb"], 1)
    assert many["memory_limit_mb"] == expected_derived(many["physical_memory_mb"], 64)
    assert env["slots"] == 64 and env["memory_limit_mb"] == many["memory_limit_mb"]
    assert one["memory_limit_mb"] >= many["memory_limit_mb"]


def test_floor_when_memory_is_small(monkeypatch):
    monkeypatch.setattr(limits, "physical_memory_mb", lambda: 6000)
    for k in ENV_KEYS:
        monkeypatch.delenv(k, raising=False)
    r = limits.resolve(None, 4)  # 75% of 6000 / 4 = 1125 MiB -> the floor
    assert r["memory_limit_mb"] == limits.FLOOR_MB and "floor" in r["source"]
    r = limits.resolve(None, 1)
    assert r["memory_limit_mb"] == 4352  # 4500 rounded down to 256 MiB
    monkeypatch.setattr(limits, "physical_memory_mb", lambda: None)
    assert limits.resolve()["memory_limit_mb"] == limits.FLOOR_MB


def test_overrides_win():
    assert probe(["--memory-limit-mb", "5000"])["limits"]["memory_limit_mb"] == 5000
    h = probe(**{limits.ENV_MEMORY: 6000})
    assert h["limits"]["memory_limit_mb"] == 6000 and h["limits"]["memory_limit_source"] == f"${limits.ENV_MEMORY}"
    h = probe(["--memory-limit-mb", "0"], **{limits.ENV_MEMORY: 6000})  # the option beats the environment
    assert h["limits"]["memory_limit_mb"] == 0 and h["limits"]["memory_limit_source"] == "--memory-limit-mb"


def test_bad_settings_are_refused():
    p = run_cli(["probe"], env=clean_env(**{limits.ENV_MEMORY: "lots"}))
    assert p.returncode == 2 and limits.ENV_MEMORY in p.stderr
    p = run_cli(["probe"], env=clean_env(**{limits.ENV_MEMORY: "100"}))
    assert p.returncode == 2 and "at least 256" in p.stderr
    p = run_cli(["probe", "--memory-limit-mb", "10"], env=clean_env())
    assert p.returncode == 2 and "--memory-limit-mb" in p.stderr


# An inline task whose reference reserves 1 GiB of address space (np.empty: nothing is touched, so it costs no RAM
# but counts against RLIMIT_AS).
BIG_REFERENCE = textwrap.dedent('''\
    import numpy as np

    def get_inputs(seed, params):
        rng = np.random.default_rng(seed)
        return [rng.normal(size=(256, 512)).astype(np.float32), rng.normal(size=(256, 512)).astype(np.float32)]

    def forward(a, b):
        scratch = np.empty(1 << 27)  # 1 GiB of float64
        del scratch
        return a + b
    ''')
BIG_TASK = {"name": "big_ref", "reference": BIG_REFERENCE, "parameters": {}}


@pytest.fixture(scope="module")
def srv():
    s = Serve(env=clean_env())
    yield s
    s.close()


def test_serve_hello_and_default_limit_fits(srv):
    srv.send({"op": "hello"})
    h = srv.recv()
    assert h["limits"]["memory_limit_mb"] == probe()["limits"]["memory_limit_mb"]
    r = srv.eval("fits", BIG_TASK, ADD_KERNEL, seeds=[1])
    assert r["status"] == "ok", r["error"]


def test_too_small_limit_names_the_setting(srv):
    r = srv.eval("tight", BIG_TASK, ADD_KERNEL, seeds=[1], memory_limit_mb=700)
    assert r["status"] == "infra_error", r
    err = r["error"]
    assert "out of memory while checking correctness" in err and "not in the kernel" in err
    assert "700 MiB" in err and "the eval request's memory_limit_mb" in err
    assert "--memory-limit-mb" in err and limits.ENV_MEMORY in err


ADD_TASK = {"name": "add_inline", "parameters": {}, "reference": textwrap.dedent('''\
    import numpy as np

    def get_inputs(seed, params):
        return [np.ones((256, 512), np.float32), np.ones((256, 512), np.float32)]

    def forward(a, b):
        return a + b
    ''')}


def test_kernel_out_of_memory_names_the_setting(srv):
    hog = add_kernel(body_before_return="hog = []\nwhile True:\n    hog.append(np.ones(10**7))")
    r = srv.eval("hog", ADD_TASK, hog, seeds=[1], memory_limit_mb=600)
    assert r["status"] in ("runtime_error", "crashed"), r
    assert "memory" in r["error"] and "--memory-limit-mb" in r["error"] and limits.ENV_MEMORY in r["error"]


# ---------------------------------------------------------------- the blocked output check


def plain_check(k, r):
    """The whole-array float64 figures the check computed before it was blocked."""
    k64, r64 = k.astype(np.float64), r.astype(np.float64)
    rbad = ~np.isfinite(r64)
    k64, r64 = np.where(rbad, 0.0, k64), np.where(rbad, 0.0, r64)
    d = k64 - r64
    nd, nr = float(np.linalg.norm(d.ravel())), float(np.linalg.norm(r64.ravel()))
    return nd / nr, float(np.max(np.abs(d)))


@pytest.mark.parametrize("chunk", [7, 1000, 1 << 22])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_blocked_check_equals_whole_array_check(monkeypatch, chunk, layout):
    monkeypatch.setattr(correctness, "CHUNK_ELEMENTS", chunk)
    rng = np.random.default_rng(3)
    r = rng.normal(size=(6, 50, 40)).astype(np.float32)
    k = (r + rng.normal(scale=1e-6, size=r.shape)).astype(np.float32)
    if layout == "transposed":
        r, k = r.transpose(2, 0, 1), k.transpose(2, 0, 1)
    elif layout == "strided":
        r, k = r[:, ::2, 1:], k[:, ::2, 1:]
    rel, mabs = correctness.compare([k], [r], 1e-3)
    prel, pmabs = plain_check(k, r)
    assert rel == pytest.approx(prel, rel=1e-12) and mabs == pmabs
    with pytest.raises(correctness.Mismatch) as e:
        correctness.compare([k], [r], prel / 2)
    assert e.value.l2_rel_err == pytest.approx(prel, rel=1e-12)


@pytest.mark.parametrize("chunk", [5, 1 << 22])
def test_blocked_check_non_finite(monkeypatch, chunk):
    monkeypatch.setattr(correctness, "CHUNK_ELEMENTS", chunk)
    r = np.arange(1.0, 61.0, dtype=np.float32).reshape(3, 4, 5)
    k = r.copy()
    k[2, 1, 3] = np.nan
    with pytest.raises(correctness.Mismatch, match=r"1 NaN/Inf value\(s\) \(first at index \(2, 1, 3\)\)"):
        correctness.compare([k], [r], 1e-5)
    r2, k2 = r.copy(), r.copy()
    r2[0, 0, 1] = k2[0, 0, 1] = np.inf  # same positions: equal, left out of the norms
    assert correctness.compare([k2], [r2], 1e-5) == (0.0, 0.0)
    r2[1, 2, 2] = np.nan  # the reference has one more
    with pytest.raises(correctness.Mismatch, match="positions differ"):
        correctness.compare([k2], [r2], 1e-5)


def test_digest_distinguishes_and_does_not_copy():
    a = np.zeros((4, 4), np.float32)
    assert correctness.digest([a]) == correctness.digest([a.copy()])
    assert correctness.digest([a]) != correctness.digest([a.astype(np.float64)])
    assert correctness.digest([a]) != correctness.digest([a.reshape(16)])
    b = a.copy()
    b[3, 3] = 1
    assert correctness.digest([a]) != correctness.digest([b])
    assert correctness.digest([a.T]) == correctness.digest([np.ascontiguousarray(a.T)])


# ---------------------------------------------------------------- the default eval timeout


def test_default_timeout_grows_with_seeds_at_full_size(tmp_path):
    from accelopt_runner import jobs
    from runner_helpers import make_add_task
    tasks = tmp_path / "tasks"
    make_add_task(tasks)
    cfg = {"tasks_dir": str(tasks), "timeout_s": None, "memory_limit_mb": 4096}
    base = {"id": 1, "task": "add", "kernel": ADD_KERNEL}

    def timeout(**req):
        return jobs.normalize({**base, **req}, cfg)["timeout_s"]

    assert timeout() == 300 + 600 * 3  # full size, 3 fresh seeds
    assert timeout(seeds=[1]) == 900
    assert timeout(seeds=[1], size="small") == 600
    assert timeout(timing_only=True) == 600
    assert timeout(seeds=[1], timeout_s=42) == 42  # the request wins
    assert jobs.normalize(base, {**cfg, "timeout_s": 77})["timeout_s"] == 77  # then --timeout-s
    assert probe()["limits"]["timeout_s"] is None
    assert probe(["--timeout-s", "99"])["limits"]["timeout_s"] == 99


# ---------------------------------------------------------------- BLAS


def test_probe_reports_blas_and_threads_per_eval(tmp_path):
    from accelopt_runner import jobs
    from runner_helpers import make_add_task
    h = probe()
    assert h["blas"]["library"].startswith("/") and isinstance(h["blas"]["optimized"], bool)
    ncpu = len(os.sched_getaffinity(0))
    assert h["blas"]["threads_per_eval"] == max(1, ncpu // h["limits"]["slots"])
    assert probe(["--slots", "1"])["blas"]["threads_per_eval"] == ncpu
    assert probe(["--slots", "64"])["blas"]["threads_per_eval"] == 1
    make_add_task(tmp_path / "tasks")
    cfg = {"tasks_dir": str(tmp_path / "tasks"), "memory_limit_mb": 4096, "memory": limits.resolve(None, 1)}
    job = jobs.normalize({"id": 1, "task": "add", "kernel": ADD_KERNEL}, cfg)
    assert job["limits"]["blas_threads"] == ncpu  # what sandbox.run_child puts in OPENBLAS_NUM_THREADS
