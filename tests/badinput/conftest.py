import concurrent.futures
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402


def cli_path() -> str | None:
    """ACCELOPT_CLI (CTest passes the built target), else a build of this checkout."""
    given = os.environ.get("ACCELOPT_CLI")
    if given:
        return given
    for preset in ("ci", "dev", "asan"):
        p = harness.REPO / "build" / preset / "bin" / "accelopt"
        if p.is_file():
            return str(p)
    return None


def _jobs() -> int:
    """Cases run side by side, each in its own sandbox: most are a process that fails in milliseconds, the rest wait
    on a runner's start. No case depends on how fast a neighbour is."""
    given = os.environ.get("ACCELOPT_BADINPUT_JOBS")
    if given:
        return max(1, int(given))
    return max(2, min(8, 2 * (os.cpu_count() or 1)))


def _expected_cost(case: harness.Case) -> int:
    """Slow cases first, so they overlap the many quick ones: a case that may hang until its timeout (a known bug),
    then those that start a runner (they evaluate or have the runner refuse), then the rest."""
    if case.timeout < harness.Case.timeout:
        return 0
    if "--size" in case.args or "--json" in case.args or case.args[:1] in (["suite"], ["compare"]):
        return 1
    return 2


def _seed_memory(cli: str, root: pathlib.Path) -> pathlib.Path:
    box = harness.Sandbox(root, None)
    doc = root / "work" / "seed.json"
    doc.write_bytes(harness.SEED_EXPERIENCES)
    db = root / "memory.sqlite"
    r = subprocess.run([cli, "memory", "import", str(doc), "--memory", str(db)], env=box.env({}),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "imported 2" in r.stdout, f"cannot seed a memory database: {r.stdout}{r.stderr}"
    assert not pathlib.Path(str(db) + "-wal").exists()
    return db


@pytest.fixture(scope="session")
def cli_outcomes(request, tmp_path_factory):
    """Runs every selected CLI case once (in parallel, each in a sandbox of its own) the first time a test asks;
    each test then judges its own outcome."""
    cli = cli_path()
    if not cli:
        pytest.skip("no accelopt binary: set ACCELOPT_CLI (CTest does) or build the ci preset")
    base = tmp_path_factory.mktemp("badinput")
    seeded = _seed_memory(cli, base / "seed")
    cases = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        case = callspec.params.get("case") if callspec else None
        if isinstance(case, harness.Case):
            cases.append(case)
    outcomes = {}
    with concurrent.futures.ThreadPoolExecutor(_jobs()) as pool:
        futures = {pool.submit(harness.run_case, c, cli, base / f"c{i:03d}", seeded): c.id
                   for i, c in sorted(enumerate(cases), key=lambda ic: _expected_cost(ic[1]))}
        for f in concurrent.futures.as_completed(futures):
            try:
                outcomes[futures[f]] = f.result()
            except Exception as e:  # noqa: BLE001 - a broken setup fails its own case, not the run
                outcomes[futures[f]] = e
    dump = os.environ.get("ACCELOPT_BADINPUT_DUMP")  # every command and what it printed, for reading them all
    if dump:
        with open(dump, "w", encoding="utf-8") as f:
            for c in cases:
                o = outcomes[c.id]
                if isinstance(o, harness.Outcome):
                    f.write(f"== {c.id}  exit {o.returncode}  {o.seconds:.2f} s\n$ {' '.join(o.argv[1:])}\n"
                            f"{o.out.rstrip()}\n{o.err.rstrip()}\n\n")
                else:
                    f.write(f"== {c.id}  {o!r}\n\n")
    return outcomes
