"""Process memory settings for runs: keep freed numpy memory in the process between instructions (glibc only), and
keep the cyclic collector off the growing trace (paused for timing-only runs and the estimate, young collections
only for numeric runs).

A numeric run allocates and frees many tile-sized arrays (a few MB each: op results, temporaries). With glibc's
default (dynamic) thresholds, such blocks come from the heap and the heap top is given back to the kernel as soon as
it is freed, so the next instruction faults the same memory in again page by page. On a VM a fresh 4 KiB page costs
far more than computing on it: the silu benchmark kernel spent most of its time in page faults. Raising the trim
threshold keeps that memory in the process; arrays of 4 MiB and more still get their own mmap, which numpy backs
with huge pages, so they fault in cheaply and return to the system when freed.

This changes malloc settings for the whole process, once, at the first numeric run. It is skipped when the user set
MALLOC_* variables themselves or NKISIM_NO_MALLOPT=1, and on non-glibc systems.
"""
from __future__ import annotations

import ctypes
import gc
import os
from contextlib import contextmanager

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD = 4 << 20  # numpy's huge-page threshold
_TRIM_THRESHOLD = 512 << 20  # keep up to this much free heap before returning it to the system

_done = False


def tune_malloc() -> bool:
    """Apply the settings (idempotent); True if they are in effect."""
    global _done
    if _done:
        return _done is True
    _done = "skipped"
    if os.environ.get("NKISIM_NO_MALLOPT") or any(k.startswith("MALLOC_") for k in os.environ):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    if mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD):
        _done = True
    return _done is True


@contextmanager
def paused_gc():
    """Pause the cyclic garbage collector: scheduling creates hundreds of thousands of small lists that cannot
    form cycles, and the collector's passes over them cost a quarter of the time. The caller's setting is kept."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextmanager
def young_collections_only():
    """Let the cyclic collector look only at young objects while the block runs; the caller's thresholds are kept.

    A run keeps every instruction's record alive to its end (gqa_full: over half a million objects), and each full
    collection walks all of them: gqa_full's numeric run took 11.4-12.5 s with them and 8.2 s without (one BLAS
    thread). Records and tiles form no garbage cycles while a run goes on (the young collections find 0 to 13
    objects over a whole run of any NKIBench baseline), so nothing waits on a full pass; a cycle the kernel's own
    code drops is still freed by a young collection, as long as it is dropped within a few thousand allocations."""
    old = gc.get_threshold()
    gc.set_threshold(old[0], old[1], 1 << 30)
    try:
        yield
    finally:
        gc.set_threshold(*old)
