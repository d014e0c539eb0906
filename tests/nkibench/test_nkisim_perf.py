"""Sanity tests of nkisim's performance model on hand-built traces (no executor needed)."""
import pytest

from nkisim.perf import estimate, get_target
from nkisim.perf.costs import compute_ns, dma_cost
from nkisim.trace import Access, Instr, Loop, Trace

_ids = iter(range(1, 10**9))


def new_id():
    return next(_ids)


def sb(tid, parts=128, nbytes=2048, f_lo=0):
    return Access(tid, "sbuf", 0, parts, f_lo, f_lo + nbytes)


def ps(tid, parts=128, nbytes=2048):
    return Access(tid, "psum", 0, parts, 0, nbytes)


def hbm(tid, lo, hi):
    return Access(tid, "hbm", 0, 1, lo, hi)


def dma_load(tr, src_id, dst_id, parts, bpp, lo=0, loops=()):
    total = parts * bpp
    return tr.add(Instr(0, "dma", "dma", 1, parts, bpp // 4, "float32", ("float32",), total,
                        reads=(hbm(src_id, lo, lo + total),), writes=(sb(dst_id, parts, bpp),), loops=loops,
                        attrs={"src": "hbm", "dst": "sbuf", "bytes_per_partition": bpp}))


def dma_store(tr, src_id, dst_id, parts, bpp, lo=0):
    total = parts * bpp
    return tr.add(Instr(0, "dma", "dma", 1, parts, bpp // 4, "float32", ("float32",), total,
                        reads=(sb(src_id, parts, bpp),), writes=(hbm(dst_id, lo, lo + total),),
                        attrs={"src": "sbuf", "dst": "hbm", "bytes_per_partition": bpp}))


def vec(tr, op, reads, writes, n=512, engine="vector", dtype="float32", loops=(), **attrs):
    return tr.add(Instr(0, op, engine, 2, 128, n, dtype, (dtype,) * len(reads), 0, reads=tuple(reads),
                        writes=tuple(writes), loops=loops, attrs=attrs))


def matmul(tr, stat, mov, out, dtype="bfloat16", n=512, acc=False):
    return tr.add(Instr(0, "nc_matmul", "tensor", 3, 128, n, "float32", (dtype, dtype), 0,
                        reads=(sb(stat, 128, 256), sb(mov, 128, n * 2)), writes=(ps(out, 128, n * 4),),
                        attrs={"k": 128, "m": 128, "n": n, "moving_dtype": dtype, "accumulate": acc}))


def test_fp32_matmul_costs_4x_bf16():
    hw = get_target("trn1")
    tr = Trace()
    a = matmul(tr, new_id(), new_id(), new_id(), dtype="bfloat16")
    b = matmul(tr, new_id(), new_id(), new_id(), dtype="float32")
    assert compute_ns(b, hw) == pytest.approx(4 * compute_ns(a, hw))
    # 512 moving columns at 2.8 GHz: the published 92 TFLOPS rate (nki-facts §3.1).
    assert compute_ns(a, hw) == pytest.approx(512 / 2.8)


def test_psum_operand_halves_tensor_tensor():
    hw = get_target("trn1")
    tr = Trace()
    x, y, z, p = new_id(), new_id(), new_id(), new_id()
    slow = vec(tr, "tensor_tensor", [sb(x), sb(y)], [sb(z)], n=512)
    fast = vec(tr, "tensor_tensor", [sb(x), ps(p)], [sb(z)], n=512, psum_operand=True)
    assert compute_ns(slow, hw) == pytest.approx(2 * compute_ns(fast, hw))


def test_min_ii_floor():
    hw = get_target("trn1")
    tr = Trace()
    tiny = vec(tr, "activation", [sb(new_id())], [sb(new_id())], n=1, engine="scalar")
    assert compute_ns(tiny, hw) == pytest.approx(64 / 1.4)


def test_sixteen_short_row_dmas_cost_more_than_one_long_row_dma():
    # The same bytes as one [128, 4 KiB] DMA, moved as sixteen [128, 256 B] ones: every row is a descriptor that
    # costs at least dma_descriptor_bytes of engine time (the DMA overview's bytes-per-partition figure), so short
    # rows are slower. (Sixteen [8, 4 KiB] DMAs are not: each uses one of the 16 engines, as the [128, 4 KiB] one
    # does, 8 partitions per engine.)
    parts, total = 128, 128 * 4096
    one = Trace()
    dma_load(one, new_id(), new_id(), parts, total // parts)
    many = Trace()
    src = new_id()
    for i in range(16):
        dma_load(many, src, new_id(), parts, total // 16 // parts, lo=i * total // 16)
    assert estimate(many).latency_ns > 2 * estimate(one).latency_ns
    hw = get_target("trn1")
    small_rows = dma_cost(Instr(0, "dma", "dma", 0, 128, 0, "float32", dma_bytes=128 * 64,
                                attrs={"bytes_per_partition": 64}), hw)
    long_rows = dma_cost(Instr(0, "dma", "dma", 0, 128, 0, "float32", dma_bytes=128 * 4096,
                               attrs={"bytes_per_partition": 4096}), hw)
    assert small_rows.pipe_ns / 64 > 10 * long_rows.pipe_ns / 4096  # per byte


def test_dma_descriptor_curve_matches_the_published_figure():
    # nki-dma-overview's "DMA Throughput varying Bytes per Partition for p_dim = 128", read relative to its 32 KiB
    # plateau: 256 B 10.3%, 512 B 20.9%, 1 KiB 42.4%, 2 KiB 81%, 4 KiB 97%.
    from nkisim.perf.costs import dma_efficiency
    hw = get_target("trn1")
    for b, pub in ((256, 0.103), (512, 0.209), (1024, 0.424), (2048, 0.81), (4096, 0.97)):
        assert dma_efficiency(b, hw) == pytest.approx(pub, abs=0.04)


def test_one_engine_per_eight_partitions():
    # The DMA overview's Example 1: a [4, 4096] bf16 tile (32 KiB) goes on one engine; on trn2 it took 1416 ns,
    # i.e. that engine's 23 B/ns.
    hw = get_target("trn2")
    c = dma_cost(Instr(0, "dma", "dma", 0, 4, 4096, "bfloat16", dma_bytes=4 * 8192,
                       attrs={"bytes_per_partition": 8192, "partitions": 4}), hw)
    assert c.engines == 1
    assert c.own_ns == pytest.approx(32768 / 23.0)
    assert c.own_ns == pytest.approx(1416, rel=0.02)


def test_dma_queues_share_bandwidth():
    # Sixteen big loads on sixteen queues cannot beat the engines' aggregate bandwidth (272 GB/s on trn1, the DMA
    # bandwidth guide).
    hw = get_target("trn1")
    tr = Trace()
    bpp = 32768
    for _ in range(16):
        dma_load(tr, new_id(), new_id(), 128, bpp)
    est = estimate(tr, hw)
    total = 16 * 128 * bpp
    floor = total / hw.dma_aggregate_bytes_per_ns
    assert hw.dma_aggregate_bytes_per_ns == pytest.approx(272.0)
    assert est.latency_ns >= floor * 0.99
    assert est.latency_ns == pytest.approx(floor, rel=0.01)  # long rows run at the full rate
    # Small DMAs on few partitions overlap their fixed latencies across queues: sixteen [1, 64 B] loads take
    # little more than one.
    tiny = Trace()
    for _ in range(16):
        dma_load(tiny, new_id(), new_id(), 1, 64)
    one = Trace()
    dma_load(one, new_id(), new_id(), 1, 64)
    assert estimate(tiny, hw).latency_ns < 1.5 * estimate(one, hw).latency_ns


def test_dma_fixed_latency_overlaps_the_transfer():
    # ~1300 ns per DMA (bandwidth guide) is a floor, not an addition: a small DMA takes 1300 ns, a big one its
    # transfer time.
    hw = get_target("trn1")
    small, big = Trace(), Trace()
    dma_load(small, new_id(), new_id(), 128, 64)
    dma_load(big, new_id(), new_id(), 128, 65536)
    assert estimate(small, hw).latency_ns == pytest.approx(hw.dma_fixed_ns)
    assert estimate(big, hw).latency_ns == pytest.approx(128 * 65536 / 272.0)


def test_hoisting_a_load_out_of_a_loop_lowers_latency():
    def build(hoist):
        tr = Trace()
        w_src, x_src = new_id(), new_id()
        lp = new_id()
        w = new_id()
        if hoist:
            dma_load(tr, w_src, w, 128, 2048)
        for i in range(8):
            loops = (Loop(lp, "affine", i),)
            if not hoist:
                w = new_id()
                dma_load(tr, w_src, w, 128, 2048, loops=loops)
            x, y = new_id(), new_id()
            dma_load(tr, x_src, x, 128, 2048, lo=i * 128 * 2048, loops=loops)
            vec(tr, "tensor_tensor", [sb(x), sb(w)], [sb(y)], loops=loops)
        return estimate(tr)
    assert build(True).latency_ns < build(False).latency_ns


def test_independent_engines_overlap():
    tr = Trace()
    vec(tr, "tensor_tensor", [sb(new_id()), sb(new_id())], [sb(new_id())], n=4096)
    vec(tr, "activation", [sb(new_id())], [sb(new_id())], n=4096, engine="scalar")
    est = estimate(tr)
    busy = est.per_engine_busy_ns
    assert est.latency_ns < busy["vector"] + busy["scalar"]
    assert est.latency_ns == pytest.approx(max(busy["vector"], busy["scalar"]))


def test_raw_dependency_serializes():
    tr = Trace()
    mid = new_id()
    vec(tr, "tensor_tensor", [sb(new_id()), sb(new_id())], [sb(mid)], n=4096)
    vec(tr, "activation", [sb(mid)], [sb(new_id())], n=4096, engine="scalar")
    est = estimate(tr)
    busy = est.per_engine_busy_ns
    assert est.latency_ns > busy["vector"] + busy["scalar"]
    assert est.timeline[1]["start_ns"] >= est.timeline[0]["end_ns"]


def test_war_dependency_and_disjoint_regions():
    tr = Trace()
    t = new_id()
    vec(tr, "activation", [sb(t, 128, 2048)], [sb(new_id())], n=4096, engine="scalar")
    # Writing another part of the same tensor does not wait; overwriting the part being read does.
    vec(tr, "tensor_copy", [sb(new_id())], [sb(t, 128, 2048, f_lo=4096)], n=64)
    vec(tr, "tensor_copy", [sb(new_id())], [sb(t, 128, 2048)], n=64)
    est = estimate(tr)
    assert est.timeline[1]["start_ns"] == 0.0
    assert est.timeline[2]["start_ns"] >= est.timeline[0]["end_ns"]


def test_accumulating_matmuls_pipeline():
    hw = get_target("trn1")
    tr = Trace()
    out = new_id()
    for k in range(8):
        matmul(tr, new_id(), new_id(), out, acc=k > 0)
    est = estimate(tr, hw)
    assert est.latency_ns == pytest.approx(8 * 512 / 2.8)


def test_loop_iterations_overlap_through_fresh_tiles():
    def build(kind, barrier=False):
        tr = Trace()
        lp = new_id()
        for i in range(4):
            loops = (Loop(lp, kind, i),)
            x, y = new_id(), new_id()
            dma_load(tr, new_id(), x, 128, 4096, loops=loops)
            vec(tr, "tensor_tensor", [sb(x), sb(x)], [sb(y)], n=1024, loops=loops)
        return estimate(tr, sequential_barrier=barrier).latency_ns
    # Sequential loops are ordered by their real dependencies only (see scheduler.py); the barrier is optional.
    assert build("sequential") == pytest.approx(build("affine"))
    assert build("affine") < build("sequential", barrier=True)
    assert build("static") == pytest.approx(build("affine"))


def test_metrics_add_up():
    hw = get_target("trn1")
    tr = Trace()
    src, dst = new_id(), new_id()
    x, y, p = new_id(), new_id(), new_id()
    dma_load(tr, src, x, 128, 2048)
    matmul(tr, x, x, p, dtype="bfloat16", n=512)
    vec(tr, "tensor_copy", [ps(p, 128, 2048)], [sb(y, 128, 2048)], n=512)
    dma_store(tr, y, dst, 128, 2048)
    est = estimate(tr, hw)
    m = est.metrics
    assert m["hbm_read_bytes"] == 128 * 2048
    assert m["hbm_write_bytes"] == 128 * 2048
    assert m["hardware_flops"] == 2 * 128 * 128 * 512
    assert m["transpose_flops"] == 0
    assert m["psum_write_bytes"] == 128 * 2048 and m["psum_read_bytes"] == 128 * 2048
    assert m["sbuf_write_bytes"] == 128 * 2048 * 2  # the load and the PSUM eviction
    assert m["mm_arithmetic_intensity"] == pytest.approx(m["hardware_flops"] / (2 * 128 * 2048))
    t = est.latency_ns * 1e-9
    assert m["hfu_estimated_percent"] == pytest.approx(m["hardware_flops"] / (2 * 128 * 128 * 2.8e9 * t))
    for e in ("tensor", "vector", "scalar", "gpsimd", "dma"):
        assert 0.0 <= m[f"{e}_engine_active_time_percent" if e != "dma" else "dma_active_time_percent"] <= 1.0
    assert m["scalar_engine_active_time_percent"] == 0.0
    assert est.latency_ms == pytest.approx(est.latency_ns / 1e6)


def test_timeline_is_capped():
    tr = Trace()
    for _ in range(50):
        vec(tr, "tensor_copy", [sb(new_id())], [sb(new_id())], n=128)
    est = estimate(tr, timeline_cap=10)
    assert len(est.timeline) == 10 and est.timeline_truncated
    assert set(est.timeline[0]) == {"engine", "op", "line", "start_ns", "end_ns"}


def test_trn2_is_a_target_and_unknown_is_refused():
    tr = Trace()
    matmul(tr, new_id(), new_id(), new_id())
    assert estimate(tr, "trn2").latency_ns == pytest.approx(512 / 2.4)
    with pytest.raises(ValueError):
        estimate(tr, "trn9")


def test_large_trace_is_scheduled_whole():
    # How fast this runs is a benchmark's business (tests/bench); here: a 60k-instruction trace is handled whole.
    tr = Trace()
    lp = new_id()
    src = new_id()
    for i in range(20000):
        loops = (Loop(lp, "affine", i),)
        x, y = new_id(), new_id()
        dma_load(tr, src, x, 128, 2048, lo=i * 128 * 2048, loops=loops)
        vec(tr, "tensor_tensor", [sb(x), sb(x)], [sb(y)], loops=loops)
        vec(tr, "activation", [sb(y)], [sb(new_id())], engine="scalar", loops=loops)
    est = estimate(tr)
    assert est.instruction_count == 60000
    total = 20000 * 128 * 2048
    assert est.metrics["hbm_read_bytes"] == total
    # No schedule moves 5 GiB faster than a NeuronCore's HBM share allows (well under 500 bytes per ns).
    assert est.latency_ns >= total / 500.0


def _small_pipeline():
    """A load (line 1), a matmul (line 3), a PSUM eviction on vector (line 2), an iota on GpSimd (line 2) and a
    store (line 1)."""
    tr = Trace()
    x, y, p = new_id(), new_id(), new_id()
    dma_load(tr, new_id(), x, 128, 2048)
    matmul(tr, x, x, p, dtype="bfloat16", n=512)
    vec(tr, "tensor_copy", [ps(p, 128, 2048)], [sb(y, 128, 2048)], n=512)
    vec(tr, "iota", [], [sb(new_id(), 128, 64)], n=16, engine="gpsimd")
    dma_store(tr, y, new_id(), 128, 2048)
    return tr


@pytest.mark.parametrize("op, engine, says", [("frobnicate", "vector", "no instruction 'frobnicate'"),
                                              ("iota", "pool", "cannot run on pool"),
                                              ("nc_matmul", "vector", "cannot run on vector")])
def test_an_instruction_without_a_cost_rule_fails_loudly(op, engine, says):
    """It used to cost one cycle per element on whatever engine it named (costs._K.get(op, 1))."""
    from nkisim.opregistry import UnknownInstruction
    tr = Trace()
    vec(tr, op, [sb(new_id())], [sb(new_id())], engine=engine)
    with pytest.raises(UnknownInstruction, match=says):
        estimate(tr)


def test_line_costs_add_up_to_busy_time_and_bytes():
    from nkisim.perf import profile
    tr = _small_pipeline()
    est = estimate(tr)
    costs = profile.line_costs(tr.instrs, est.schedule)
    assert costs.instruction_count == 5
    busy = costs.busy_ns()
    for e in ("tensor", "vector", "scalar", "gpsimd", "dma"):
        assert busy[e] == pytest.approx(est.per_engine_busy_ns[e], rel=1e-12, abs=1e-9)
    rows = costs.rows
    assert sorted(rows) == [1, 2, 3]
    assert rows[1][5] == 2 and rows[1][6] == 2 * 128 * 2048  # two DMAs, dma_bytes each
    assert rows[1][4] > 0 and rows[1][:4] == [0.0] * 4
    assert rows[3][0] > 0 and rows[3][6] == 128 * 256 + 128 * 1024 + 128 * 2048  # stationary + moving + PSUM out
    assert rows[2][1] > 0 and rows[2][6] == 128 * 2048 * 2 + 128 * 64  # the eviction, then the iota
    m = est.metrics
    memory = sum(m[f"{mem}_{rw}_bytes"] for mem in ("hbm", "sbuf", "psum") for rw in ("read", "write"))
    # a DMA counts once here, and as a read and a write in the metrics
    assert sum(r[6] for r in rows.values()) == memory - m["dma_transfer_total_bytes"]


def test_line_costs_remapped_merges_lines():
    from nkisim.perf import profile
    tr = _small_pipeline()
    costs = profile.line_costs(tr.instrs, estimate(tr).schedule)
    merged = costs.remapped(lambda line: 0 if line < 3 else line - 2)
    assert sorted(merged.rows) == [0, 1]
    assert merged.rows[0][5] == 4 and merged.rows[1][5] == 1
    assert merged.busy_ns() == pytest.approx(costs.busy_ns())
    listed = merged.as_list()
    assert [c["line"] for c in listed] == [0, 1]
    assert set(listed[0]["ns"]) == {"tensor", "vector", "scalar", "gpsimd", "dma"}


def test_timeline_columns():
    from nkisim.perf import profile
    tr = _small_pipeline()
    est = estimate(tr)
    tl = profile.timeline_columns(tr.instrs, est.schedule, 3, map_line=lambda line: line * 10)
    assert tl["count"] == 3 and tl["truncated"]
    assert tl["units"] == ["dma0", "tensor", "vector"] and tl["ops"] == ["dma", "nc_matmul", "tensor_copy"]
    assert tl["unit"] == [0, 1, 2] and tl["op"] == [0, 1, 2] and tl["line"] == [10, 30, 20]
    assert tl["partitions"] == [128, 128, 128] and tl["free"] == [512, 512, 512]
    assert tl["bytes"][0] == 128 * 2048
    assert tl["dur_ns"][1] == round(est.schedule.end[1] - est.schedule.start[1], 2)
    assert tl["start_ns"][2] >= tl["start_ns"][1] + tl["dur_ns"][1] - 0.01  # the eviction waits for the matmul
    whole = profile.timeline_columns(tr.instrs, est.schedule, 10**6)
    assert whole["count"] == 5 and not whole["truncated"] and whole["units"][-1] in ("dma0", "dma1")
    assert profile.timeline_columns(tr.instrs, est.schedule, 0)["count"] == 0
