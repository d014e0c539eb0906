"""Keep freed numpy memory in the process between instructions (glibc only).

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
import os

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
