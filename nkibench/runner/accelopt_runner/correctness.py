"""Output checks (accelopt-method §4.3, made stricter): output count, shape, dtype, NaN/Inf, and the L2 relative
error ||k - r||_2 <= rel_tol * ||r||_2 in float64 (the original uses a strict <, which fails an all-zero output
that is exactly right). Non-floating outputs must be equal."""
from __future__ import annotations

import hashlib

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
        h.update(a.tobytes())
    return h.hexdigest()


def compare(outs: list, refs: list, rel_tol: float):
    """Returns (l2_rel_err, max_abs_err) over all outputs; raises Mismatch with a readable message on failure."""
    if len(outs) != len(refs):
        raise Mismatch(f"the kernel produced {len(outs)} output(s), the reference {len(refs)}")
    worst_rel, worst_abs = 0.0, 0.0
    for i, (k, r) in enumerate(zip(outs, refs)):
        k = np.asarray(k)
        r = np.asarray(r)
        if k.shape != r.shape:
            raise Mismatch(f"output {i} has shape {tuple(k.shape)}, the reference {tuple(r.shape)}")
        rf = np.issubdtype(r.dtype, np.floating) or np.issubdtype(r.dtype, np.complexfloating)
        kf = np.issubdtype(k.dtype, np.floating) or np.issubdtype(k.dtype, np.complexfloating)
        if rf != kf:
            raise Mismatch(f"output {i} has dtype {k.dtype}, the reference {r.dtype}")
        if rf and k.dtype.itemsize < r.dtype.itemsize:
            raise Mismatch(f"output {i} has dtype {k.dtype}, lower precision than the reference's {r.dtype}")
        if not rf:
            if not np.array_equal(k, r):
                n = int(np.count_nonzero(k != r))
                raise Mismatch(f"output {i}: {n} of {r.size} elements differ (exact match required for "
                               f"{r.dtype})")
            continue
        k64 = k.astype(np.float64)
        r64 = r.astype(np.float64)
        kbad = ~np.isfinite(k64)
        rbad = ~np.isfinite(r64)
        if kbad.any() and not np.array_equal(kbad, rbad):
            raise Mismatch(f"output {i} contains {int(kbad.sum())} NaN/Inf value(s) (first at index "
                           f"{tuple(int(x) for x in np.argwhere(kbad & ~rbad)[0])})"
                           if (kbad & ~rbad).any() else f"output {i} has NaN/Inf where the reference has none")
        if rbad.any():
            if not np.array_equal(kbad, rbad):
                raise Mismatch(f"output {i}: NaN/Inf positions differ from the reference")
            k64 = np.where(rbad, 0.0, k64)
            r64 = np.where(rbad, 0.0, r64)
        diff = k64 - r64
        nd = float(np.linalg.norm(diff.ravel()))
        nr = float(np.linalg.norm(r64.ravel()))
        rel = nd / nr if nr > 0 else (0.0 if nd == 0 else float("inf"))
        mabs = float(np.max(np.abs(diff))) if diff.size else 0.0
        worst_rel, worst_abs = max(worst_rel, rel), max(worst_abs, mabs)
        if not nd <= rel_tol * nr:
            raise Mismatch(f"output {i}: L2 relative error {rel:.3e} exceeds rel_tol {rel_tol:.1e} (max abs diff "
                           f"{mabs:.3e}, mean abs diff {float(np.mean(np.abs(diff))):.3e}, ||diff|| {nd:.3e}, "
                           f"||ref|| {nr:.3e})", rel, mabs)
    return worst_rel, worst_abs
