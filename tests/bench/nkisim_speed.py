#!/usr/bin/python3
"""Speed benchmark: for each calibration kernel at a size where numeric mode is feasible, the wall time of the
numpy reference, of nkisim's numeric mode (run_kernel numeric=True) and of timing-only mode (run_kernel
numeric=False plus the performance model), and their ratios.

Targets: numeric <= 3x the numpy reference; timing-only >= 10x faster than numeric.
Usage: /usr/bin/python3 tests/bench/nkisim_speed.py [--repeat N]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "nkibench"))

import nkisim  # noqa: E402
from nkisim.perf import estimate  # noqa: E402

nkisim.activate()
from nkisim.calibration import layernorm, mamba, matmul  # noqa: E402


def bf16(a):
    return nkisim.language.bfloat16.cast(a)


def cases(rng):
    K, M, N = 1024, 512, 1024
    lhsT = bf16(rng.standard_normal((K, M)).astype(np.float32))
    rhs = bf16(rng.standard_normal((K, N)).astype(np.float32))
    mm_ref = lambda a, b: a.T.astype(np.float32) @ b.astype(np.float32)  # noqa: E731
    yield "matmul_tiled", matmul.matmul_tiled, (lhsT, rhs), mm_ref
    yield "matmul_hoisted", matmul.matmul_hoisted, (lhsT, rhs), mm_ref
    yield "matmul_block_free", matmul.matmul_block_free, (lhsT, rhs), mm_ref
    K3, M3, N3 = 2048, 2048, 1024  # one block of the Opt 3 kernel
    lhsT3 = bf16(rng.standard_normal((K3, M3)).astype(np.float32))
    rhs3 = bf16(rng.standard_normal((K3, N3)).astype(np.float32))
    yield "matmul_block_mnk", matmul.matmul_block_mnk, (lhsT3, rhs3), mm_ref
    b, c, t, s = 1, 256, 512, 16
    margs = (rng.uniform(0.01, 0.1, (b, c, t)).astype(np.float32), rng.standard_normal((b, c, t)).astype(np.float32),
             -rng.uniform(0.5, 2, (c, s)).astype(np.float32), rng.standard_normal((b, s, t)).astype(np.float32),
             rng.standard_normal((b, s, t)).astype(np.float32))
    yield "mamba_v1", mamba.mamba_v1, margs, mamba.reference
    yield "mamba_v2", mamba.mamba_v2, margs, mamba.reference
    yield "mamba_v3", mamba.mamba_v3, margs, mamba.reference
    r, cols = 512, 8192
    largs = (rng.standard_normal((r, cols)).astype(np.float32), rng.standard_normal((1, cols)).astype(np.float32),
             rng.standard_normal((1, cols)).astype(np.float32))
    yield "layernorm_v1", layernorm.layernorm_v1, largs, layernorm.reference
    yield "layernorm_v2", layernorm.layernorm_v2, largs, layernorm.reference


def best(fn, repeat):
    t = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t.append(time.perf_counter() - t0)
    return min(t), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'kernel':18s} {'numpy ms':>9s} {'numeric ms':>11s} {'timing ms':>10s} {'num/np':>7s} {'num/tim':>8s} "
          f"{'instrs':>7s} {'max rel err':>11s}")
    misses = 0
    for name, fn, args, ref in cases(rng):
        t_ref, want = best(lambda: ref(*args), a.repeat)
        t_num, res = best(lambda: nkisim.run_kernel(fn, args, target="trn1", numeric=True), a.repeat)
        if res.error is not None:
            print(f"{name:18s} numeric run failed: {res.error}")
            misses += 1
            continue

        def timing_only():
            r = nkisim.run_kernel(fn, args, target="trn1", numeric=False)
            return estimate(r.trace, "trn1", timeline_cap=0)
        t_tim, _ = best(timing_only, a.repeat)
        got = np.asarray(res.outputs[0], dtype=np.float32)
        err = float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-30))
        r1, r2 = t_num / t_ref, t_num / t_tim
        flag = ("" if r1 <= 3 else " numeric>3x") + ("" if r2 >= 10 else " timing<10x")
        misses += bool(flag)
        print(f"{name:18s} {t_ref * 1e3:9.2f} {t_num * 1e3:11.2f} {t_tim * 1e3:10.2f} {r1:7.2f} {r2:8.2f} "
              f"{len(res.trace):7d} {err:11.2e}{flag}")
    print("ALL TARGETS MET" if not misses else f"{misses} kernel(s) missed a target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
