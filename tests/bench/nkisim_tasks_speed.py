#!/usr/bin/python3
"""Speed benchmark over the 14 NKIBench tasks (issue 3): for each task's baseline kernel, the cost of nkisim's
numeric mode against the task's own numpy reference, and of timing-only mode against numeric mode.

Targets: numeric <= 3x the numpy reference of the same task at full NKIBench size; timing-only >= 10x faster than
numeric. The benchmark prints its figures and flags misses; it never fails on a missed target (exit status 1 only
if a kernel run itself fails).

Per task, with inputs generated once (get_inputs, transform_to_nki_inputs and output transforms are NOT timed):
  numpy      reference.forward(*inputs) on the numpy-layout inputs. The task references compute in float64
             internally (inputs cast up, result cast back to float32); that is reported as is.
  numeric    nkisim.load_kernel(baseline source) + run_kernel(kernel, kernel-layout arrays, numeric=True).
  timing     nkisim.load_kernel(baseline source) + run_kernel(kernel, shape-only nt.tensor placeholders,
             numeric=False) - the same placeholders tests/nkibench/tasks_helpers.timing_inputs builds.
  estimate   nkisim.perf.estimate(trace, target, timeline_cap=0) on the timing-only trace, timed separately; the
             num/(t+e) column compares numeric against timing-only run plus the estimate.
Each figure is the minimum over --repeat rounds; within a round the four are measured in turn, so that a slow
spell of a shared machine slows all four rather than one. Wall time is time.perf_counter (the reported seconds and the
flagged ratios); process CPU time (time.process_time) is printed as the ratios "cpu n/np", "cpu n/t" and
"cpu n/t+e" (numeric against timing-only run plus estimate) - on a shared, busy machine those are the less noisy.

Usage: /usr/bin/python3 tests/bench/nkisim_tasks_speed.py [--tasks a,b] [--size small|full] [--repeat N]
       [--target trn1|trn2]
Full size takes a long time (the big matmul tasks need minutes each in both numpy and numeric mode with a
reference BLAS); progress goes to stderr.
"""
import argparse
import gc
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "nkibench"))
sys.path.insert(0, os.path.join(HERE, "..", "nkibench"))

import nkisim  # noqa: E402
from nkisim.perf import estimate  # noqa: E402
from tasks_helpers import TASK_NAMES, l2_rel, load_task, timing_inputs  # noqa: E402


def timed(fn):
    """(wall s, cpu s, result) of one call."""
    gc.collect()
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def bench_task(name, size, repeat, target):
    meta, ref, src, path = load_task(name)
    params = meta["parameters" if size == "full" else "small_parameters"]
    t0 = time.perf_counter()
    inputs = ref.get_inputs(0, params)
    kin = ref.transform_to_nki_inputs(inputs, params)
    tin = timing_inputs(kin)
    log(f"[{name}] {params}: inputs ready in {time.perf_counter() - t0:.1f} s")

    def numeric():
        fn = nkisim.load_kernel(src, filename=path)
        return nkisim.run_kernel(fn, kin, target=target, numeric=True)

    def timing_only():
        fn = nkisim.load_kernel(src, filename=path)
        return nkisim.run_kernel(fn, tin, target=target, numeric=False)

    # The four measurements take turns within each repeat, so that a slow spell of a shared machine hits all of
    # them rather than one; each figure is the minimum over the repeats.
    best = {}
    row = dict(name=name, error=None)
    for _ in range(repeat):
        for kind, fn in (("ref", lambda: ref.forward(*inputs)), ("num", numeric), ("tim", timing_only)):
            w, c, out = timed(fn)
            best[kind] = (min(w, best[kind][0]), min(c, best[kind][1])) if kind in best else (w, c)
            if kind == "ref":
                expected = list(out) if isinstance(out, tuple) else [out]
            elif kind == "num":
                if not out.ok:
                    row.update(w_ref=best["ref"][0], w_num=w, error=f"numeric run failed: {out.status}: {out.error}")
                    return row
                outs = ref.transform_nki_outputs(out.outputs, params)
                row["err"] = max(l2_rel(o, e) for o, e in zip(outs, expected))
                n_num = len(out.trace)
            else:
                if not out.ok:
                    row.update(w_ref=best["ref"][0], w_num=best["num"][0],
                               error=f"timing-only run failed: {out.status}: {out.error}")
                    return row
                tres = out
            out = outs = None
            log(f"[{name}] {kind} {w:.3f} s")
        w, c, est = timed(lambda: estimate(tres.trace, target, timeline_cap=0))
        best["est"] = (min(w, best["est"][0]), min(c, best["est"][1])) if "est" in best else (w, c)
        log(f"[{name}] estimate {w:.3f} s -> {est.latency_ns / 1e3:.1f} us")
    for kind, (w, c) in best.items():
        row["w_" + kind], row["c_" + kind] = w, c
    row.update(rel_tol=meta["rel_tol"], instrs=len(tres.trace), instrs_numeric=n_num,
               latency_us=est.latency_ns / 1e3)
    return row


def fmt_row(r):
    if r.get("error"):
        return f"{r['name']:23s} {r['w_ref']:9.2f} {r['w_num']:10.2f}  {r['error']}"
    num_np, num_tim = r["w_num"] / r["w_ref"], r["w_num"] / r["w_tim"]
    num_te = r["w_num"] / (r["w_tim"] + r["w_est"])
    cpu_np = r["c_num"] / max(r["c_ref"], 1e-9)
    cpu_t = r["c_num"] / max(r["c_tim"], 1e-9)
    cpu_te = r["c_num"] / max(r["c_tim"] + r["c_est"], 1e-9)
    flags = []
    if num_np > 3:
        flags.append("NUMERIC>3x")
    if num_tim < 10:
        flags.append("TIMING<10x")
    elif num_te < 10:
        flags.append("(t+est<10x)")
    if r["err"] >= r["rel_tol"]:
        flags.append("WRONG")
    if r["instrs"] != r["instrs_numeric"]:
        flags.append(f"trace differs ({r['instrs_numeric']})")
    return (f"{r['name']:23s} {r['w_ref']:9.2f} {r['w_num']:10.2f} {r['w_tim']:9.3f} {r['w_est']:8.3f} "
            f"{num_np:7.2f} {num_tim:8.1f} {num_te:9.1f} {cpu_np:8.2f} {cpu_t:7.1f} {cpu_te:9.1f} {r['instrs']:9d} "
            f"{r['latency_us']:11.1f} {r['err']:8.1e}  {' '.join(flags)}")


HEADER = (f"{'task':23s} {'numpy s':>9s} {'numeric s':>10s} {'timing s':>9s} {'est s':>8s} {'num/np':>7s} "
          f"{'num/tim':>8s} {'num/(t+e)':>9s} {'cpu n/np':>8s} {'cpu n/t':>7s} {'cpu n/t+e':>9s} {'instrs':>9s} "
          f"{'model us':>11s} "
          f"{'l2 err':>8s}  flags")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", default=",".join(TASK_NAMES), help="comma-separated task names (default: all 14)")
    ap.add_argument("--size", choices=("small", "full"), default="full")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--target", default="trn1")
    a = ap.parse_args()
    names = [t.strip() for t in a.tasks.split(",") if t.strip()]
    unknown = [t for t in names if t not in TASK_NAMES]
    if unknown:
        ap.error(f"unknown task(s): {', '.join(unknown)}")
    nkisim.activate()
    print(f"nkisim task speed: size={a.size} target={a.target} repeat={a.repeat} (min of repeats); seconds are wall "
          f"(perf_counter), 'cpu' ratios use process CPU time; numpy reference = task forward() (float64 inside); "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset (one per CPU)')} (the runner sets "
          f"CPUs/slots per eval)",
          flush=True)
    print(HEADER, flush=True)
    rows, failed = [], 0
    t_start = time.perf_counter()
    for name in names:
        r = bench_task(name, a.size, a.repeat, a.target)
        rows.append(r)
        failed += bool(r.get("error"))
        print(fmt_row(r), flush=True)
        gc.collect()
    ok = [r for r in rows if not r.get("error")]
    miss_np = [r["name"] for r in ok if r["w_num"] / r["w_ref"] > 3]
    miss_t = [r["name"] for r in ok if r["w_num"] / r["w_tim"] < 10]
    miss_te = [r["name"] for r in ok if r["w_num"] / (r["w_tim"] + r["w_est"]) < 10]
    miss_cte = [r["name"] for r in ok if r["c_num"] / max(r["c_tim"] + r["c_est"], 1e-9) < 10]
    if ok:
        gm_np = float(np.exp(np.mean([np.log(r["w_num"] / r["w_ref"]) for r in ok])))
        gm_t = float(np.exp(np.mean([np.log(r["w_num"] / r["w_tim"]) for r in ok])))
    else:
        gm_np = gm_t = float("nan")
    print(f"SUMMARY: {len(ok)}/{len(rows)} tasks ran; numeric<=3x numpy: {len(ok) - len(miss_np)}/{len(ok)}"
          f"{' (missed: ' + ', '.join(miss_np) + ')' if miss_np else ''}; timing>=10x faster: "
          f"{len(ok) - len(miss_t)}/{len(ok)}{' (missed: ' + ', '.join(miss_t) + ')' if miss_t else ''}; "
          f"timing+estimate>=10x faster: wall {len(ok) - len(miss_te)}/{len(ok)}"
          f"{' (missed: ' + ', '.join(miss_te) + ')' if miss_te else ''}, cpu {len(ok) - len(miss_cte)}/{len(ok)}"
          f"{' (missed: ' + ', '.join(miss_cte) + ')' if miss_cte else ''}; "
          f"geomean num/np {gm_np:.2f}, num/tim {gm_t:.1f}; total {time.perf_counter() - t_start:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
