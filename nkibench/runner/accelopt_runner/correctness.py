"""Output checks (accelopt-method §4.3, made stricter): output count, shape, dtype, NaN/Inf, and the L2 relative
error ||k - r||_2 <= rel_tol * ||r||_2 in float64 (the original uses a strict <, which fails an all-zero output
that is exactly right). Non-floating outputs must be equal."""
from __future__ import annotations

import hashlib
import math

import numpy as np


class Mismatch(Exception):
    def __init__(self, message: str, l2_rel_err=None, max_abs_err=None):
        super().__init__(message)
        self.l2_rel_err = l2_rel_err
        self.max_abs_err = max_abs_err


def digest(arrays) -> str:
    h = hashlib.sha1()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.shape).encode())
        h.update(str(a.dtype).encode())
        try:
            h.update(memoryview(a).cast("B"))  # no copy of a big output
        except (TypeError, ValueError):
            h.update(a.tobytes())
    return h.hexdigest()


CHUNK_ELEMENTS = 1 << 16  # float64 temporaries of the check: 512 KiB each (cache-sized), whatever the output size


def compare(outs: list, refs: list, rel_tol: float):
    """Returns (l2_rel_err, max_abs_err) over all outputs; raises Mismatch with a readable message on failure."""
    if len(outs) != len(refs):
        raise Mismatch(f"the kernel produced {len(outs)} output(s), the reference {len(refs)}")
    worst_rel, worst_abs = 0.0, 0.0
    for i, (k, r) in enumerate(zip(outs, refs)):
        k = np.asarray(k)
        r = np.asarray(r)
        # one wording for shape and dtype, both sides in full: "the kernel returns (256, 1024) float32, the
        # reference (256, 2048) float32" says at a glance which of the two differs
        both = f"the kernel returns {tuple(k.shape)} {k.dtype}, the reference {tuple(r.shape)} {r.dtype}"
        if k.shape != r.shape:
            raise Mismatch(f"output {i}: {both}")
        rf = np.issubdtype(r.dtype, np.floating) or np.issubdtype(r.dtype, np.complexfloating)
        kf = np.issubdtype(k.dtype, np.floating) or np.issubdtype(k.dtype, np.complexfloating)
        if rf != kf:
            raise Mismatch(f"output {i}: {both}")
        if rf and k.dtype.itemsize < r.dtype.itemsize:
            raise Mismatch(f"output {i}: {both} (lower precision than the reference's)")
        if not rf:
            if not np.array_equal(k, r):
                n = int(np.count_nonzero(k != r))
                raise Mismatch(f"output {i}: {n} of {r.size} elements differ (exact match required for "
                               f"{r.dtype})")
            continue
        st = _float_stats(k, r)
        if st["k_bad_not_r"] is not None:
            raise Mismatch(f"output {i} contains {st['k_bad']} NaN/Inf value(s) (first at index "
                           f"{tuple(int(x) for x in np.unravel_index(st['k_bad_not_r'], k.shape))})")
        if st["bad_differ"]:
            raise Mismatch(f"output {i}: NaN/Inf positions differ from the reference")
        nd, nr, mabs = st["norm_diff"], st["norm_ref"], st["max_abs"]
        rel = nd / nr if nr > 0 else (0.0 if nd == 0 else float("inf"))
        worst_rel, worst_abs = max(worst_rel, rel), max(worst_abs, mabs)
        if not nd <= rel_tol * nr:
            mean_abs = st["sum_abs"] / r.size if r.size else 0.0
            raise Mismatch(f"output {i}: L2 relative error {rel:.3e} exceeds rel_tol {rel_tol:.1e} (max abs diff "
                           f"{mabs:.3e}, mean abs diff {mean_abs:.3e}, ||diff|| {nd:.3e}, "
                           f"||ref|| {nr:.3e})", rel, mabs)
    return worst_rel, worst_abs


def _blocks(k, r, offset=0):
    """(flat offset, block of k, block of r): matching pieces of two same-shaped arrays in C order, each at most
    CHUNK_ELEMENTS (or one row of the last axis), taken as views where possible so a non-contiguous output (a
    transposed view) is never copied whole."""
    if k.ndim == 0:
        yield offset, k.reshape(1), r.reshape(1)
        return
    if k.ndim == 1 or (k.flags.c_contiguous and r.flags.c_contiguous):
        fk, fr = (k, r) if k.ndim == 1 else (k.reshape(-1), r.reshape(-1))
        for lo in range(0, fk.size, CHUNK_ELEMENTS):
            yield offset + lo, fk[lo:lo + CHUNK_ELEMENTS], fr[lo:lo + CHUNK_ELEMENTS]
        return
    inner = math.prod(k.shape[1:])
    if inner >= CHUNK_ELEMENTS:
        for i in range(k.shape[0]):
            yield from _blocks(k[i], r[i], offset + i * inner)
        return
    rows = max(1, CHUNK_ELEMENTS // max(inner, 1))
    for lo in range(0, k.shape[0], rows):
        yield offset + lo * inner, k[lo:lo + rows].reshape(-1), r[lo:lo + rows].reshape(-1)


def _float_stats(k, r) -> dict:
    """The check's figures for a kernel output k and its reference r (same shape, floating), in float64, one
    block at a time so the temporaries stay small whatever the output's size: sums of squares for ||k - r|| and
    ||r|| (float64 squares of float32 values cannot overflow), the max and sum of |k - r|, and NaN/Inf
    bookkeeping (where both are non-finite the element counts as equal and is left out of the norms; any other
    non-finite value fails). Same figures as one float64 pass over the whole arrays."""
    ss_diff = ss_ref = sum_abs = max_abs = 0.0
    k_bad = 0
    k_bad_not_r = None
    bad_differ = False
    for lo, kb, rb in _blocks(k, r):
        k64 = np.asarray(kb, dtype=np.float64)
        r64 = np.asarray(rb, dtype=np.float64)
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: handled below, no warning in the output
            d = k64 - r64
            sd, sr = float(np.dot(d, d)), float(np.dot(r64, r64))
        if not (math.isfinite(sd) and math.isfinite(sr)):  # rare: some value of the block is NaN/Inf
            kbad = ~np.isfinite(k64)
            rbad = ~np.isfinite(r64)
            nkb = int(np.count_nonzero(kbad))
            k_bad += nkb
            if nkb and k_bad_not_r is None:
                only_k = np.flatnonzero(kbad & ~rbad)
                if only_k.size:
                    k_bad_not_r = lo + int(only_k[0])
            if not np.array_equal(kbad, rbad):
                bad_differ = True
            r64 = np.where(rbad, 0.0, r64)
            d = np.where(rbad, 0.0, k64) - r64
            sd, sr = float(np.dot(d, d)), float(np.dot(r64, r64))
        ss_diff += sd
        ss_ref += sr
        if d.size:
            np.abs(d, out=d)
            max_abs = max(max_abs, float(d.max()))
            sum_abs += float(d.sum())
    return {"norm_diff": math.sqrt(ss_diff), "norm_ref": math.sqrt(ss_ref), "max_abs": max_abs, "sum_abs": sum_abs,
            "k_bad": k_bad, "k_bad_not_r": k_bad_not_r, "bad_differ": bad_differ}
