"""Effects the NC-v2 architecture guide states and the model charges (nki-facts §3.3): on trn1 VectorE and GpSimdE
cannot access SBUF at the same time, nor VectorE and ScalarE PSUM, so the compiler serialises them (NC-v3 lifts
both); and a most-minor free stride over 16 bytes halves an engine's SBUF/PSUM bandwidth. The trace records the
stride (minor_stride_bytes), carries it through traceio, and `--explain` names both effects."""
import pytest

from nkisim import traceio
from nkisim.perf import estimate, get_target
from nkisim.perf.costs import compute_ns
from nkisim.perf.explain import explain
from nkisim.trace import Access, Instr, Trace
from nkisim_helpers import line_of, ok, rnd

_ids = iter(range(1, 10**9))


def sb(parts=128, nbytes=2048):
    return Access(next(_ids), "sbuf", 0, parts, 0, nbytes)


def ps(parts=128, nbytes=2048):
    return Access(next(_ids), "psum", 0, parts, 0, nbytes)


def op(tr, name, engine, reads, writes, n=2048, **attrs):
    return tr.add(Instr(0, name, engine, 1, 128, n, "float32", ("float32",) * len(reads), 0, reads=tuple(reads),
                        writes=tuple(writes), attrs=attrs))


def _spans(tr, target):
    sch = estimate(tr, target, timeline_cap=0).schedule
    return [(sch.start[i], sch.end[i]) for i in range(len(tr))], sch


def _overlap(a, b):
    return a[0] < b[1] and b[0] < a[1]


# --- NC-v2 engine sharing --------------------------------------------------------------------------------------

def test_vector_and_gpsimd_over_sbuf_do_not_overlap_on_trn1_but_do_on_trn2():
    tr = Trace()
    op(tr, "tensor_scalar", "vector", [sb()], [sb()], op0="multiply")
    op(tr, "tensor_scalar", "gpsimd", [sb()], [sb()], op0="multiply")
    (v, g), sch = _spans(tr, "trn1")
    assert not _overlap(v, g)
    assert g[0] == pytest.approx(v[1])  # the GpSimd instruction runs as soon as VectorE releases SBUF
    assert sch.port_wait == {1: pytest.approx(v[1])}
    (v2, g2), sch2 = _spans(tr, "trn2")
    assert v2[0] == g2[0] == 0.0 and not sch2.port_wait
    assert estimate(tr, "trn1").latency_ns == pytest.approx(v[1] - v[0] + g[1] - g[0])


def test_vector_and_scalar_over_psum_do_not_overlap_on_trn1():
    tr = Trace()
    op(tr, "tensor_copy", "vector", [ps()], [sb()], psum_operand=True)
    op(tr, "activation", "scalar", [ps()], [sb()], psum_operand=True, func="exp")
    (v, s), _ = _spans(tr, "trn1")
    assert not _overlap(v, s)
    (v2, s2), _ = _spans(tr, "trn2")
    assert _overlap(v2, s2)


@pytest.mark.parametrize("pair", [
    # (engine, reads, engine, reads): pairs the guide lets run together on NC-v2
    ("vector", "sbuf", "scalar", "sbuf"),  # SBUF feeds Vector, Scalar and Tensor at once
    ("gpsimd", "sbuf", "scalar", "sbuf"),  # ... or GpSimd, Scalar and Tensor
    ("vector", "sbuf", "scalar", "psum"),  # VectorE on SBUF only, ScalarE on PSUM
])
def test_pairs_without_a_shared_port_overlap_on_trn1(pair):
    e1, m1, e2, m2 = pair
    tr = Trace()
    acc = {"sbuf": sb, "psum": ps}
    op(tr, "tensor_copy" if e1 != "scalar" else "activation", e1, [acc[m1]()], [sb()], func="exp")
    op(tr, "tensor_copy" if e2 != "scalar" else "activation", e2, [acc[m2]()], [sb()], func="exp",
       psum_operand=m2 == "psum")
    (a, b), sch = _spans(tr, "trn1")
    assert a[0] == b[0] == 0.0 and not sch.port_wait


def test_an_instruction_fills_a_gap_the_other_engine_leaves():
    # VectorE: a short instruction, then one that waits for a long GpSimd-free dependency chain on ScalarE; a GpSimd
    # instruction issued after both in the trace runs in the gap between them rather than after the second.
    tr = Trace()
    x = sb()
    op(tr, "tensor_scalar", "vector", [sb()], [sb()], n=256, op0="multiply")
    op(tr, "activation", "scalar", [sb()], [x], n=8192, func="exp")
    op(tr, "tensor_scalar", "vector", [x], [sb()], n=256, op0="multiply")
    op(tr, "tensor_scalar", "gpsimd", [sb()], [sb()], n=256, op0="multiply")
    (v1, _, v2, g), _ = _spans(tr, "trn1")
    assert v1[1] <= g[0] and g[1] <= v2[0]


def test_explain_names_the_port_sharing_stall():
    tr = Trace()
    for _ in range(4):
        op(tr, "tensor_scalar", "vector", [sb()], [sb()], op0="multiply")
        op(tr, "tensor_scalar", "gpsimd", [sb()], [sb()], op0="multiply")
    est = estimate(tr, "trn1", timeline_cap=0)
    x = explain(tr.instrs, est.schedule, "trn1")
    stalls = [e for e in x["effects"] if e["effect"] == "port_sharing_stall"]
    assert stalls and sum(e["ns"] for e in stalls) == pytest.approx(sum(est.schedule.port_wait.values()))
    x2 = explain(tr.instrs, estimate(tr, "trn2", timeline_cap=0).schedule, "trn2")
    assert not [e for e in x2["effects"] if e["effect"] == "port_sharing_stall"]


def test_a_kernels_vector_and_gpsimd_copies_serialise_on_trn1_only():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 2048), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(a)
        u = nisa.tensor_scalar(t, np.multiply, 2.0, engine=nisa.vector_engine)
        w = nisa.tensor_copy(t, engine=nisa.gpsimd_engine)
        nl.store(out, value=nl.add(u, w))
        return out
    """
    lat = {}
    for target in ("trn1", "trn2"):
        r = ok(body, rnd(128, 2048), numeric=False, target=target)
        sch = estimate(r.trace, target, timeline_cap=0).schedule
        k = {ins.engine: i for i, ins in enumerate(r.trace.instrs) if ins.engine in ("vector", "gpsimd")
             and ins.op != "tensor_tensor"}
        spans = {e: (sch.start[i], sch.end[i]) for e, i in k.items()}
        lat[target] = _overlap(spans["vector"], spans["gpsimd"])
    assert lat == {"trn1": False, "trn2": True}


# --- free stride over 16 bytes ---------------------------------------------------------------------------------

@pytest.mark.parametrize("stride,factor", [(None, 1), (8, 1), (16, 1), (20, 2), (32, 2), (512, 2)])
def test_a_stride_over_16_bytes_doubles_the_data_time_on_trn1(stride, factor):
    hw = get_target("trn1")
    tr = Trace()
    plain = op(tr, "tensor_scalar", "vector", [sb()], [sb()], n=512, op0="multiply")
    attrs = {"op0": "multiply"} if stride is None else {"op0": "multiply", "minor_stride_bytes": stride}
    strided = op(tr, "tensor_scalar", "vector", [sb()], [sb()], n=512, **attrs)
    assert compute_ns(strided, hw) == pytest.approx(factor * compute_ns(plain, hw))
    # NC-v3's guide states no such penalty
    assert compute_ns(strided, get_target("trn2")) == compute_ns(plain, get_target("trn2"))


@pytest.mark.parametrize("engine,name", [("scalar", "activation"), ("gpsimd", "tensor_scalar"),
                                         ("vector", "tensor_tensor")])
def test_the_stride_rule_covers_every_streaming_engine_and_keeps_the_floors(engine, name):
    hw = get_target("trn1")
    tr = Trace()
    big = [op(tr, name, engine, [sb(), sb()][:1 + (name == "tensor_tensor")], [sb()], n=1024, func="exp",
              op0="multiply", alu_op="add", **kw) for kw in ({}, {"minor_stride_bytes": 64})]
    tiny = [op(tr, name, engine, [sb(), sb()][:1 + (name == "tensor_tensor")], [sb()], n=4, func="exp",
               op0="multiply", alu_op="add", **kw) for kw in ({}, {"minor_stride_bytes": 64})]
    fixed = hw.gpsimd_overhead / hw.ghz(engine) if engine == "gpsimd" else 0.0
    assert compute_ns(big[1], hw) - fixed == pytest.approx(2 * (compute_ns(big[0], hw) - fixed))
    assert compute_ns(tiny[1], hw) == compute_ns(tiny[0], hw)  # held up by MIN_II either way


STRIDES = """
@nki.jit
def kernel(a, h):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(a)
    hb = nl.load(h, dtype=nl.bfloat16)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(64)[None, :]
    s32 = nl.multiply(t[:, 0:512:8], 2.0)          # fp32, every 8th element: 32 B
    s8 = nl.multiply(t[:, 0:128:2], 2.0)           # fp32, every 2nd: 8 B
    c = nl.multiply(t[:, 0:64], 2.0)               # contiguous
    adv = nl.exp(t[i_p, i_f * 8])                  # the same stride as an index expression
    h16 = nl.multiply(hb[:, 0:512:8], 2.0)         # bf16, every 8th: 16 B, not over
    h18 = nl.multiply(hb[:, 0:576:9], 2.0)         # bf16, every 9th: 18 B
    col = nl.add(c, t[:, 0:1])                     # a broadcast column: stride 0
    nl.store(out, value=nl.add(nl.add(s32, s8), nl.add(adv, nl.add(h16, nl.add(h18, col)))))
    return out
"""


def _by_line(r):
    return {ins.line: ins for ins in r.trace.instrs if ins.engine != "dma"}


def test_the_front_end_records_the_minor_stride():
    r = ok(STRIDES, rnd(128, 640), rnd(128, 640), numeric=False)
    got = {}
    for needle, name in (("s32 =", "s32"), ("s8 =", "s8"), ("c = nl", "c"), ("adv =", "adv"), ("h16 =", "h16"),
                         ("h18 =", "h18"), ("col =", "col")):
        got[name] = _by_line(r)[line_of(STRIDES, needle)].attrs.get("minor_stride_bytes")
    assert got == {"s32": 32, "s8": 8, "c": None, "adv": 32, "h16": 16, "h18": 18, "col": None}
    hw = get_target("trn1")
    h16, h18 = (_by_line(r)[line_of(STRIDES, k)] for k in ("h16 =", "h18 ="))
    assert compute_ns(h18, hw) == pytest.approx(2 * compute_ns(h16, hw))


def test_a_strided_kernel_is_slower_on_trn1_only():
    body = """
    @nki.jit
    def kernel(a):
        out = nl.ndarray((128, 4096), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(a)
        nl.store(out, value=nl.exp(t[:, 0:STOP:STEP]))
        return out
    """
    lat = {}
    for step in (1, 8):
        for target in ("trn1", "trn2"):
            r = ok(body.replace("STOP", str(4096 * step)).replace("STEP", str(step)), rnd(128, 4096 * 8),
                   numeric=False, target=target)
            est = estimate(r.trace, target, timeline_cap=0)
            lat[step, target] = est.per_engine_busy_ns["scalar"]
    assert lat[8, "trn1"] == pytest.approx(2 * lat[1, "trn1"])
    assert lat[8, "trn2"] == pytest.approx(lat[1, "trn2"])


def test_explain_names_the_strided_access():
    tr = Trace()
    op(tr, "tensor_scalar", "vector", [sb()], [sb()], n=4096, op0="multiply", minor_stride_bytes=64)
    est = estimate(tr, "trn1", timeline_cap=0)
    x = explain(tr.instrs, est.schedule, "trn1")
    eff = {e["effect"]: e["ns"] for e in x["effects"] if e["engine"] == "vector"}
    assert eff["strided_access"] == pytest.approx(eff["throughput"])
    assert sum(eff.values()) == pytest.approx(est.latency_ns)


def test_the_stride_survives_the_trace_handover(tmp_path):
    tr = Trace()
    op(tr, "tensor_scalar", "vector", [sb()], [sb()], n=4096, op0="multiply", minor_stride_bytes=64)
    op(tr, "tensor_scalar", "vector", [sb()], [sb()], n=4096, op0="multiply")
    traceio.save(tr, str(tmp_path / "t"))
    back = traceio.load(str(tmp_path / "t"))
    assert [i.attrs.get("minor_stride_bytes") for i in back] == [64, None]
    assert estimate(back, "trn1").latency_ns == estimate(tr, "trn1").latency_ns


@pytest.mark.parametrize("bad", [-8, 1.5, True, "32", 1 << 40])
def test_a_forged_stride_is_refused(tmp_path, bad):
    tr = Trace()
    op(tr, "tensor_scalar", "vector", [sb()], [sb()], n=64, op0="multiply", minor_stride_bytes=bad)
    traceio.save(tr, str(tmp_path / "t"))
    with pytest.raises(traceio.TraceFormatError, match="minor_stride_bytes"):
        traceio.load(str(tmp_path / "t"))


# --- contiguity, where the docs make it a condition ------------------------------------------------------------

def _half(tr, name, reads, writes, n=4096, **attrs):
    return tr.add(Instr(0, name, "vector", 1, 128, n, "bfloat16", ("bfloat16",) * len(reads), 0,
                        reads=tuple(reads), writes=tuple(writes), attrs=attrs))


def test_nc_v3_perf_mode_needs_a_contiguous_minor_dimension_for_4x():
    # [T2A] "Vector Engine Performance Mode": 4x for bf16 SBUF-to-SBUF tensor_copy with contiguous inner-most
    # elements, 2x with all but contiguity.
    hw = get_target("trn2")
    tr = Trace()
    fast = _half(tr, "tensor_copy", [sb()], [sb()])
    strided = _half(tr, "tensor_copy", [sb()], [sb()], minor_stride_bytes=4)
    assert compute_ns(strided, hw) == pytest.approx(2 * compute_ns(fast, hw))
    assert compute_ns(fast, hw) == pytest.approx(4096 / 4 / hw.vector_ghz)


def test_bf16_tensor_tensor_one_pass_needs_contiguous_data():
    # nki-facts §2.2 tensor_tensor: N when both inputs are in SBUF, all bf16, add/mul/sub "and the data is
    # contiguous"; otherwise 2N (trn1, where no perf mode applies).
    hw = get_target("trn1")
    tr = Trace()
    a = _half(tr, "tensor_tensor", [sb(), sb()], [sb()], alu_op="add")
    b = _half(tr, "tensor_tensor", [sb(), sb()], [sb()], alu_op="add", minor_stride_bytes=4)
    assert compute_ns(b, hw) == pytest.approx(2 * compute_ns(a, hw))
