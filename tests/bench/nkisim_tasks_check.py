#!/usr/bin/python3
"""Independent check of nkisim's performance model on the 14 NKIBench tasks (issue 18). NOT a calibration: no
constant may be fitted to these numbers.

For each task, at full size (timing-only): nkisim's predicted latency of our baseline.py on trn1 and trn2, and of
AccelOpt's original kernel for the task (the NKIBench corpus, kernels/<task>_..._0.py) on trn1, next to the trn1
latency AccelOpt measured on hardware for that original kernel (experiments/full_complete_local/profile_results.csv
of the AccelOpt repository). Only the corpus kernel is the measured one; our baselines are rewrites.

Usage: /usr/bin/python3 tests/bench/nkisim_tasks_check.py [--tasks a,b] [--json out.json]
       [--corpus /work/corpus/NKIBench] [--accelopt-git /work/.mirror/zhang677+AccelOpt/repo]
"""
import argparse
import csv
import glob
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "nkibench"))
sys.path.insert(0, os.path.join(HERE, "..", "nkibench"))

import nkisim  # noqa: E402
from nkisim.perf import estimate  # noqa: E402
from tasks_helpers import TASK_NAMES, declared_inputs, load_task  # noqa: E402


def hardware_latencies(git_dir):
    """{task: latency in us} from AccelOpt's profile_results.csv, or {} when the repository is not available."""
    try:
        raw = subprocess.run(["git", f"--git-dir={git_dir}", "show",
                              "HEAD:experiments/full_complete_local/profile_results.csv"],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    return {r["problem"]: json.loads(r["profile"])["latency"] * 1000 for r in csv.DictReader(io.StringIO(raw))}


def predict(src, path, args, target):
    res = nkisim.run_kernel(nkisim.load_kernel(src, filename=path), args, target=target, numeric=False)
    return estimate(res.trace, target, timeline_cap=0).latency_us if res.ok else f"{res.status}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", default=",".join(TASK_NAMES))
    ap.add_argument("--json", default="")
    ap.add_argument("--corpus", default="/work/corpus/NKIBench")
    ap.add_argument("--accelopt-git", default="/work/.mirror/zhang677+AccelOpt/repo")
    a = ap.parse_args()
    hw = hardware_latencies(a.accelopt_git)
    out = {}
    fmt = lambda v: f"{v:10.1f}" if isinstance(v, float) else f"{str(v)[:10]:>10s}"  # noqa: E731
    ratio = lambda p, h: f"{p / h:5.2f}x" if isinstance(p, float) and h else "   - "  # noqa: E731
    print(f"{'task':24s} {'hw trn1 us':>10s}  {'corpus trn1':>10s} {'ratio':>6s}  {'ours trn1':>10s} {'ours trn2':>10s}")
    for name in a.tasks.split(","):
        meta, _, src, path = load_task(name)
        args = declared_inputs(meta, meta["parameters"])
        row = {"hw_trn1_us": hw.get(name), "ours_trn1": predict(src, path, args, "trn1"),
               "ours_trn2": predict(src, path, args, "trn2")}
        cp = sorted(glob.glob(os.path.join(a.corpus, "kernels", f"{name}_[A-Z]*_0.py")))
        if cp:
            with open(cp[0]) as f:
                row["corpus_trn1"] = predict(f.read(), cp[0], args, "trn1")
        out[name] = row
        h = row["hw_trn1_us"]
        print(f"{name:24s} {fmt(h) if h else '         -'}  {fmt(row.get('corpus_trn1', '-'))} "
              f"{ratio(row.get('corpus_trn1'), h):>6s}  {fmt(row['ours_trn1'])} {fmt(row['ours_trn2'])}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
