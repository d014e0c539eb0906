"""nkisim.traceio: the instruction trace as data between the kernel's process and the judge's. A trace read back
must model to the same nanosecond, metric and line cost as the one recorded; a file that is not what save() wrote
must be refused with what is wrong, never crash the judge or turn into a latency."""
import json

import numpy as np
import pytest

import nkisim
from nkisim import traceio
from nkisim.perf import estimate, profile
from tasks_helpers import TASK_NAMES, declared_inputs, load_task, run_baseline


def _same_model(instrs, loaded):
    a, b = estimate(instrs, "trn1", timeline_cap=0), estimate(loaded, "trn1", timeline_cap=0)
    assert a.latency_ns == b.latency_ns
    assert a.metrics == b.metrics
    assert profile.line_costs(instrs, a.schedule).as_list() == profile.line_costs(loaded, b.schedule).as_list()


@pytest.mark.parametrize("name", TASK_NAMES)
def test_a_baseline_trace_models_the_same_after_the_handover(name, tmp_path):
    """Numeric at the small size (what a checked eval hands over), and timing-only at full size, where replay
    gives its instructions families that the loader must not need."""
    _, res, _, _, _ = run_baseline(name, 0)
    assert res.ok, res.error
    assert traceio.save(res.trace, str(tmp_path / "small")) == len(res.trace)
    _same_model(res.trace.instrs, traceio.load(str(tmp_path / "small")))

    meta, _, src, path = load_task(name)
    fn = nkisim.load_kernel(src, filename=path)
    full = nkisim.run_kernel(fn, declared_inputs(meta, meta["parameters"]), numeric=False)
    assert full.ok, full.error
    traceio.save(full.trace, str(tmp_path / "full"))
    loaded = traceio.load(str(tmp_path / "full"))
    assert len(loaded) == len(full.trace)
    _same_model(full.trace.instrs, loaded)


def _saved(tmp_path):
    _, res, _, _, _ = run_baseline("silu", 0)
    stem = str(tmp_path / "t")
    traceio.save(res.trace, stem)
    with open(stem + ".json") as f:
        meta = json.load(f)
    with np.load(stem + ".npz") as z:
        arrays = {k: np.array(z[k]) for k in z.files}
    return stem, meta, arrays


def _write(stem, meta=None, arrays=None):
    if meta is not None:
        with open(stem + ".json", "w") as f:
            json.dump(meta, f)
    if arrays is not None:
        np.savez(stem + ".npz", **arrays)


def _sig_field(meta, i, value):
    meta["signatures"][0][i] = value
    return meta


@pytest.mark.parametrize("damage, says", [
    (lambda m, a: (dict(m, version=1), a), "not version 2"),
    (lambda m, a: (dict(m, count="many"), a), "no signatures list or count"),
    (lambda m, a: (dict(m, count=m["count"] + 1), a), "not int64"),
    (lambda m, a: (_sig_field(m, 0, "os.system('x')"), a), "is not an instruction name"),
    (lambda m, a: (_sig_field(m, 1, "warp"), a), "engine 'warp'"),
    (lambda m, a: (_sig_field(m, 3, -5), a), "partitions must be a non-negative integer"),
    (lambda m, a: (_sig_field(m, 3, 4096), a), "the hardware has 128"),
    (lambda m, a: (_sig_field(m, 4, True), a), "free_elems must be a non-negative integer"),
    (lambda m, a: (_sig_field(m, 8, {"k": [1, 2]}), a), "not a name with a scalar value"),
    (lambda m, a: (_sig_field(m, 8, {"k": float("nan")}), a), "not finite"),
    (lambda m, a: (dict(m, signatures=[["x"]]), a), "not a list of 9 fields"),
    (lambda m, a: (m, dict(a, instrs=a["instrs"].astype(np.float64))), "not int64"),
    (lambda m, a: (m, dict(a, instrs=np.where(np.arange(4) == 0, 10 ** 6, a["instrs"]))),
     "names a signature the header does not hold"),
    (lambda m, a: (m, dict(a, instrs=np.where(np.arange(4) == 1, -1, a["instrs"]))), "negative count"),
    (lambda m, a: (m, dict(a, nests=a["nests"][:-1])), "ends early"),
    (lambda m, a: (m, dict(a, nests=np.concatenate([a["nests"], [1, len(a["levels"])]]))),
     "names a loop level the records do not hold"),
    (lambda m, a: (m, dict(a, levels=np.concatenate([a["levels"], [[5, 9, 0]]]))), "is not \\(loop id"),
    (lambda m, a: (m, dict(a, levels=np.concatenate([a["levels"], [[-1, 0, 0]]]))), "is not \\(loop id"),
    (lambda m, a: (m, dict(a, levels=a["levels"][:, :2])), "not int64"),
    (lambda m, a: (m, dict(a, instrs=np.where(np.arange(4) == 3, 999, a["instrs"]))), "a loop nest the records"),
    (lambda m, a: (m, dict(a, accesses=a["accesses"][:-1])), "the records hold"),
    (lambda m, a: (m, dict(a, accesses=np.where(np.arange(6) == 1, 7, a["accesses"]))), "is not a tensor region"),
    (lambda m, a: (m, dict(a, accesses=np.where(np.arange(6) == 2, 99, a["accesses"]))), "is not a tensor region"),
])
def test_a_damaged_trace_is_refused_with_the_reason(tmp_path, damage, says):
    stem, meta, arrays = _saved(tmp_path)
    meta, arrays = damage(meta, arrays)
    _write(stem, meta, arrays)
    with pytest.raises(traceio.TraceFormatError, match=says if "\\" in says else
                       says.replace("(", r"\(").replace(")", r"\)")):
        traceio.load(stem)


@pytest.mark.parametrize("what", ["missing", "link", "not json", "not npz", "pickle"])
def test_files_that_are_not_a_trace_are_refused(tmp_path, what):
    stem, meta, arrays = _saved(tmp_path)
    if what == "missing":
        (tmp_path / "t.npz").unlink()
        says = "t.npz is missing"
    elif what == "link":
        (tmp_path / "elsewhere.json").write_text((tmp_path / "t.json").read_text())
        (tmp_path / "t.json").unlink()
        (tmp_path / "t.json").symlink_to(tmp_path / "elsewhere.json")
        says = "not a regular file"
    elif what == "not json":
        (tmp_path / "t.json").write_text("{ not json")
        says = "header cannot be read"
    elif what == "not npz":
        (tmp_path / "t.npz").write_bytes(b"PK but not really")
        says = "records cannot be read"
    else:
        np.savez(stem + ".npz", instrs=np.array([object()], dtype=object), accesses=arrays["accesses"])
        says = "records cannot be read"
    with pytest.raises(traceio.TraceFormatError, match=says):
        traceio.load(stem)


def test_families_are_the_loaders_own(tmp_path):
    """Instructions share a family only when every field the cost model reads is equal: a writer cannot hand one
    instruction's cost to others by naming a family."""
    _, res, _, _, _ = run_baseline("swiglu", 0)
    traceio.save(res.trace, str(tmp_path / "t"))
    loaded = traceio.load(str(tmp_path / "t"))
    by_family = {}
    for ins in loaded:
        by_family.setdefault(id(ins.family), []).append(ins)
    for group in by_family.values():
        first = group[0]
        for ins in group[1:]:
            assert (ins.op, ins.engine, ins.partitions, ins.free_elems, ins.dtype, ins.in_dtypes, ins.dma_bytes,
                    ins.attrs, [a.memory for a in ins.reads], [a.memory for a in ins.writes]) == \
                (first.op, first.engine, first.partitions, first.free_elems, first.dtype, first.in_dtypes,
                 first.dma_bytes, first.attrs, [a.memory for a in first.reads], [a.memory for a in first.writes])
    assert len(by_family) < len(loaded)  # the repeats of a loop do share one
