"""The public kernel corpora run unchanged and numerically correct on nkisim: the classic-API one (issue 18) and the
current-API (`import nki`) one (issue 17); the folder's manifest says which kernels it holds, and nkisim tells the
generation from each kernel's imports.

The corpus is third-party code and lives outside the repository, in the folder named by ACCELOPT_KERNEL_CORPUS
(assembled by tests/nkibench/corpus/assemble.py; see corpus/README.md). Without it these tests are skipped. Each
manifest entry names a kernel file and function, its inputs and our numpy reference; every kernel file the folder
holds must be covered by an entry, so a kernel nobody wrote an entry for is a failure, not a silent gap."""
import importlib.util
import json
import os
import pathlib

import numpy as np
import pytest

import nkisim

CORPUS = os.environ.get("ACCELOPT_KERNEL_CORPUS", "")
ROOT = pathlib.Path(CORPUS) if CORPUS else None
SKIP = "ACCELOPT_KERNEL_CORPUS is not set (assemble the corpus: tests/nkibench/corpus/README.md)"


def _manifest():
    if ROOT is None:
        return []
    path = ROOT / "manifest.json"
    if not path.is_file():
        raise pytest.UsageError(f"ACCELOPT_KERNEL_CORPUS={CORPUS} has no manifest.json; assemble it first")
    return json.loads(path.read_text())["entries"]


ENTRIES = _manifest()


def _references():
    spec = importlib.util.spec_from_file_location("corpus_references", ROOT / "references.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _resolve(v, names):
    """A kwargs value of a constructed input: {"global": "Enum.MEMBER"} names something of the kernel's module."""
    if isinstance(v, dict) and set(v) == {"global"}:
        obj = names[v["global"].split(".")[0]]
        for a in v["global"].split(".")[1:]:
            obj = getattr(obj, a)
        return obj
    return v


def _inputs(entry, seed, names=None):
    rng = np.random.default_rng(seed)
    out = []
    for i, d in enumerate(entry["inputs"]):
        if "construct" in d:
            # an object the kernel's own module defines (a frozen dataclass of kernel arguments, a config), built
            # from the kernel's module namespace as its callers build it
            out.append(names[d["construct"]](**{k: _resolve(v, names) for k, v in d.get("kwargs", {}).items()}))
        elif "value" in d:
            v = d["value"]
            out.append(tuple(v) if isinstance(v, list) else v)
        else:
            if d.get("dist") == "uniform":
                x = rng.uniform(d["low"], d["high"], d["shape"])
            else:
                x = rng.standard_normal(d["shape"])
            out.append(_as_dtype(x, d["dtype"]))
    return out


def _as_dtype(x, name):
    """A numpy dtype, or an NKI dtype numpy lacks (bfloat16, float8_e4m3, ...): then the host array nkisim's
    nl.static_cast makes, as the SDK's host code makes it (a kernel receives it as that dtype)."""
    try:
        return x.astype(name)
    except TypeError:
        return nkisim.language.static_cast(x.astype(np.float32), getattr(nkisim.language, name))


def _l2(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    # non-finite values (bytes read as float8, say) must sit where the reference has the same: they then count as equal
    same = (np.isnan(got) & np.isnan(want)) | (np.isinf(got) & (got == want))
    if same.any():
        got, want = np.where(same, 0.0, got), np.where(same, 0.0, want)
    if not (np.isfinite(got).all() and np.isfinite(want).all()):
        return float("inf")
    return float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30))


def _needles(reason):
    """What an error must mention for an unsupported entry: its reason names the modules or APIs it lacks."""
    reason = reason.lower()
    words = [w for w in ("mx_kernel_utils", "nc_matmul_mx", "quantize_mx", "syntax error", "partition", "torch",
                         "scipy", "isfinite", "relative import", "float8_e4m3", "affine_select") if w in reason]
    return words or [reason]


@pytest.mark.skipif(ROOT is None, reason=SKIP)
@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_corpus_kernel_runs_unchanged_and_correct(entry):
    source = (ROOT / entry["file"]).read_text(encoding="utf-8")
    try:
        fn = nkisim.load_kernel(source, filename=str(ROOT / entry["file"]), name=entry["function"])
    except nkisim.NkiError as e:
        # a kernel rejected before it runs (a published syntax error, a module nkisim cannot provide) must be one
        # the entry expects, with its reason in the error
        want = entry.get("expect_error") or entry.get("unsupported", "")
        assert (entry.get("expect_error") or entry.get("unsupported")) and \
            any(w in str(e).lower() for w in _needles(want)), e
        return
    for c in entry.get("covers", []):
        # a kernel file whose kernels are trace-mode sub-kernels of this one: it ran, as a module of this kernel
        assert os.path.abspath(ROOT / c) in fn.__globals__.get("__nkisim_modules__", {}), f"{c} was not loaded"
    args = _inputs(entry, 7, fn.__globals__)
    r = nkisim.run_kernel(fn, args, grid=entry.get("grid"))
    if entry.get("unsupported"):
        assert r.error is not None and any(w in str(r.error).lower() for w in _needles(entry["unsupported"])), \
            r.error
        return
    if entry.get("expect_error"):
        # a documented rule violation: the compiler rejects it, and nkisim must too, saying why
        assert r.error is not None and entry["expect_error"] in str(r.error).lower(), r.error
        return
    assert r.error is None, f"{entry['id']}: {r.error}"
    want = getattr(_references(), entry["reference"])(*args)
    want = list(want) if isinstance(want, tuple) else [want]
    assert len(r.outputs) == len(want), f"{len(r.outputs)} outputs, the reference has {len(want)}"
    for got, w in zip(r.outputs, want):
        assert got.shape == w.shape, (got.shape, w.shape)
        assert _l2(got, w) <= entry["rtol"], f"L2 relative error {_l2(got, w):.3g} over {entry['rtol']}"
    t = nkisim.run_kernel(fn, args, grid=entry.get("grid"), numeric=False)  # the timing-only path agrees
    assert t.error is None, t.error


@pytest.mark.skipif(ROOT is None, reason=SKIP)
def test_every_gathered_kernel_file_has_an_entry():
    # kernel files are flattened into their source's folder, or keep their package's layout when they import its
    # modules relatively; those helper modules (sources.json "support") are not kernel files
    covered = {e["file"] for e in ENTRIES} | {c for e in ENTRIES for c in e.get("covers", [])}
    sources = ROOT / "sources.json"
    support = set(json.loads(sources.read_text()).get("support", {})) if sources.is_file() else set()
    files = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("*/**/*.py"))
    files = [f for f in files if f not in support]
    missing = [f for f in files if f not in covered]
    assert not missing, f"{len(missing)} of {len(files)} gathered kernel files have no manifest entry:\n" + \
        "\n".join(missing)


def test_assemble_follows_relative_imports_within_the_package():
    # assemble.py keeps a kernel file that imports its package's modules in the package's layout, with those modules
    # (and theirs) beside it; this is how it finds them
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).parent / "corpus"))
    try:
        import assemble
    finally:
        sys.path.pop(0)
    text = ("from ..util.common_types import NormType\nfrom .tile_info import TileInfo\nfrom . import sibling, other\n"
            "import numpy as np\nfrom numpy import float32\n")
    assert sorted(assemble.relative_imports("src/pkg/quant/kernel.py", text)) == \
        ["src/pkg/quant/other.py", "src/pkg/quant/sibling.py", "src/pkg/quant/tile_info.py",
         "src/pkg/util/common_types.py"]
    assert assemble.relative_imports("a/b.py", "def broken(:\n") == []
