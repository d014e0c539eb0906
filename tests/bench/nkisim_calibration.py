#!/usr/bin/python3
"""Calibration benchmark: runs our calibration kernels (nkibench/nkisim/calibration) in timing-only mode at the
published shapes and compares nkisim's predicted latency with the published measurements (nki-facts §4), and the model's DMA figures with the published DMA measurements
(published.DMA_CASES: a transfer's duration in a profile, a stream's throughput).

Targets: within each family the predicted order matches the published order; median absolute relative error
<= 25%; no case off by more than 2x. Exit status 1 when a target is missed.

Usage: /usr/bin/python3 tests/bench/nkisim_calibration.py [--only SUBSTRING] [--target trn1]
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "nkibench"))

import nkisim  # noqa: E402
from nkisim.perf import estimate, get_target  # noqa: E402

nkisim.activate()  # the calibration kernels import neuronxcc.nki
from nkisim.calibration import published  # noqa: E402
from nkisim.calibration import dma, layernorm, mamba, matmul  # noqa: E402,F401
from nkisim.perf.costs import dma_cost  # noqa: E402

MODULES = {"matmul": matmul, "mamba": mamba, "layernorm": layernorm}
TIE = 0.03  # published values closer than this are a tie: no order to check


def placeholders(case):
    nt = nkisim.typing.tensor
    nl = nkisim.language
    s = case.shape
    if case.module == "matmul":
        return [nt[[s["K"], s["M"]], nl.bfloat16], nt[[s["K"], s["N"]], nl.bfloat16]]
    if case.module == "mamba":
        b, c, t, st = s["batch"], s["channels"], s["seq"], s["state"]
        return [nt[[b, c, t], nl.float32], nt[[b, c, t], nl.float32], nt[[c, st], nl.float32],
                nt[[b, st, t], nl.float32], nt[[b, st, t], nl.float32]]
    if case.module == "layernorm":
        r, c = s["rows"], s["cols"]
        return [nt[[r, c], nl.float32], nt[[1, c], nl.float32], nt[[1, c], nl.float32]]
    raise ValueError(case.module)


def predict(case):
    fn = getattr(MODULES[case.module], case.kernel)
    t0 = time.perf_counter()
    res = nkisim.run_kernel(fn, placeholders(case), target=case.target, numeric=False)
    t1 = time.perf_counter()
    if res.error is not None:
        return None, f"{res.status}: {res.error}", t1 - t0, 0.0, 0
    est = estimate(res.trace, case.target, timeline_cap=0)
    return est, None, t1 - t0, time.perf_counter() - t1, len(res.trace)


def predict_dma(case):
    """The model's figure for a DmaCase (published.py): a transfer's engine time in ns, or a stream's GB/s."""
    nt = nkisim.typing.tensor
    arg = nt[list(case.shape), getattr(nkisim.language, case.dtype)]
    res = nkisim.run_kernel(getattr(dma, case.kernel), [arg], target=case.target, numeric=False)
    if res.error is not None:
        return None, f"{res.status}: {res.error}"
    if case.quantity == "transfer_ns":
        first = next(i for i in res.trace.instrs if i.engine == "dma")
        return dma_cost(first, get_target(case.target)).own_ns, None
    est = estimate(res.trace, case.target, timeline_cap=0)
    moved = sum(int(i.dma_bytes or 0) for i in res.trace.instrs if i.engine == "dma")
    return moved / est.latency_ns, None


def order_ok(pairs):
    """pairs: [(published, predicted)]; every pair of members that is not a tie keeps its published order."""
    bad = []
    for i in range(len(pairs)):
        for j in range(i + 1, len(pairs)):
            (pa, qa, na), (pb, qb, nb) = pairs[i], pairs[j]
            if abs(pa - pb) <= TIE * max(pa, pb):
                continue
            if (pa < pb) != (qa < qb):
                bad.append(f"{na} vs {nb}")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    cases = [c for c in published.CASES if args.only in c.name]
    rows = []
    print(f"{'case':28s} {'published':>12s} {'predicted':>12s} {'rel.err':>8s} {'ratio':>6s}  "
          f"{'instrs':>7s} {'trace s':>7s} {'model s':>7s}  source")
    for c in cases:
        est, err, t_trace, t_model, n = predict(c)
        if est is None:
            if c.spills:
                print(f"{c.name:28s} {c.published_us:10.1f}us {'not scored':>12s}  spilled on hardware; nkisim: {err}")
                continue
            print(f"{c.name:28s} {c.published_us:10.1f}us {'FAILED':>12s}  {err}")
            rows.append((c, None))
            continue
        pred = est.latency_us
        rel = (pred - c.published_us) / c.published_us
        ratio = max(pred, c.published_us) / min(pred, c.published_us)
        print(f"{c.name:28s} {c.published_us:10.1f}us {pred:10.1f}us {rel:+8.1%} {ratio:6.2f}  {n:7d} "
              f"{t_trace:7.2f} {t_model:7.2f}  {c.source}")
        rows.append((c, pred))
    print()
    print(f"{'memory-bound (DMA) case':34s} {'published':>11s} {'predicted':>11s} {'rel.err':>8s} {'ratio':>6s}  source")
    dma_rows = []
    for c in published.DMA_CASES:
        if args.only not in c.name:
            continue
        pred, err = predict_dma(c)
        unit = "ns" if c.quantity == "transfer_ns" else "GB/s"
        if pred is None:
            print(f"{c.name:34s} {c.published:9.1f}{unit:>2s} {'FAILED':>11s}  {err}")
            rows.append((c, None))
            continue
        rel = (pred - c.published) / c.published
        ratio = max(pred, c.published) / min(pred, c.published)
        print(f"{c.name:34s} {c.published:7.1f}{unit:>4s} {pred:7.1f}{unit:>4s} {rel:+8.1%} {ratio:6.2f}  "
              f"{c.source} [{c.target}]")
        dma_rows.append((c, pred))
    done = [(c, p) for c, p in rows if p is not None]
    failed = [c.name for c, p in rows if p is None]
    errs = [abs(p - c.published_us) / c.published_us for c, p in done]
    errs += [abs(p - c.published) / c.published for c, p in dma_rows]
    ratios = [max(p, c.published_us) / min(p, c.published_us) for c, p in done]
    ratios += [max(p, c.published) / min(p, c.published) for c, p in dma_rows]
    names = [c.name for c, _ in done] + [c.name for c, _ in dma_rows]
    ok = True
    print()
    if errs:
        med = statistics.median(errs)
        worst = max(ratios)
        worst_case = names[ratios.index(worst)]
        print(f"median |rel.err| = {med:.1%}  (target <= 25%)")
        print(f"worst ratio      = {worst:.2f}x ({worst_case})  (target <= 2x)")
        ok &= med <= 0.25 and worst <= 2.0
    fams = {}
    for c, p in done:
        fams.setdefault(c.family, []).append((c.published_us, p, c.name))
    by_name = {c.name: (c.published_us, p, c.name) for c, p in done}
    for sname, names in published.SERIES.items():
        fams[sname] = [by_name[n] for n in names if n in by_name]
    print("order within families:")
    for fam, pairs in fams.items():
        if len(pairs) < 2:
            continue
        bad = order_ok(pairs)
        print(f"  {fam:24s} {'ok' if not bad else 'MISMATCH: ' + '; '.join(bad)}")
        ok &= not bad
    if failed:
        print("failed to run: " + ", ".join(failed))
        ok = False
    print("ALL TARGETS MET" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
