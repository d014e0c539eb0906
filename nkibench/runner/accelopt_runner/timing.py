"""The warmup/iters timing protocol with re-measurement while the spread is too wide (accelopt-method §4.4,
including the fixed behaviour: a wide attempt is re-measured, and the attempt with the smallest spread is kept).

A backend supplies measure(warmup, iters) -> {"mean", "min", "max", "p50"} in ms. rel_spread = (max - min) / min.
"""
from __future__ import annotations

import time


def stats(samples_ms) -> dict:
    s = sorted(float(x) for x in samples_ms)
    n = len(s)
    p50 = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return {"mean": sum(s) / n, "min": s[0], "max": s[-1], "p50": p50}


def spread(lat: dict) -> float:
    return (lat["max"] - lat["min"]) / lat["min"] if lat["min"] > 0 else 0.0


def benchmark(measure, warmup: int, iters: int, spread_tol: float = 0.01, max_attempts: int = 3,
              pause_s: float = 1.0, deadline=None):
    """Returns (latency dict, rel_spread, attempts)."""
    best = None
    attempts = 0
    while attempts < max(1, int(max_attempts)):
        if attempts:
            time.sleep(pause_s)
        attempts += 1
        lat = measure(int(warmup), max(1, int(iters)))
        rs = spread(lat)
        if best is None or rs < best[1]:
            best = (lat, rs)
        if rs <= spread_tol or (deadline is not None and time.monotonic() > deadline):
            break
    return best[0], best[1], attempts
