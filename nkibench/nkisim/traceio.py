"""The instruction trace as data: written by the process that ran the kernel, read by the one that models it.

The runner times an nkisim kernel in a process the kernel never ran in (the judge): the kernel's process records
the trace and saves it here; the judge loads it, checks every field, and runs the performance model on it. So
nothing the kernel does to its own interpreter (the timer, the model, the estimate) reaches its latency; what it
decides is the instruction stream it hands over.

Two files per trace, never pickles:
  <stem>.json  {"version", "count", "signatures": [[op, engine, line, partitions, free_elems, dtype, in_dtypes,
               dma_bytes, attrs], ...]}: every distinct instruction shape once;
  <stem>.npz   "instrs", int64 [count, 4]: signature, reads, writes and loop nest per instruction; "accesses", int64
               [n, 6]: the reads then the writes of each instruction in turn (tensor_id, memory code, p_lo, p_hi,
               f_lo, f_hi); "nests", int64: every distinct loop nest once, each as its depth and then (loop_id, kind
               code, index) per level, outermost first (the instructions of one iteration share one). The model
               reads the loops for affine_range vectorisation (perf/vectorize.py).
The loader gives each instruction a family from its signature and the memories it touches: instructions with one
family have equal cost inputs by construction, so the model computes their cost once. Families the writer chose
are not read (a forged family would hand one instruction's cost to many).
"""
from __future__ import annotations

import json
import math
import os
import re

import numpy as np

from .memory import paused_gc
from .trace import ENGINES, Access, Instr, Loop

VERSION = 1
MEMORIES = ("hbm", "sbuf", "psum")
LOOP_KINDS = ("affine", "sequential", "static", "python")
_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_MAX_ATTRS = 64
# Attributes the model reads as counts, checked as such. minor_stride_bytes (core.run_op; trace.Instr) is the
# largest most-minor free stride of a compute instruction's SBUF/PSUM operands; an ISA stride is an int16 count
# of elements (the NC-v2 architecture guide, "Access pattern"), so at most 32767 x 8 bytes. A trace written before
# it was recorded has none: the operands count as unit-stride, so the format stays version 1.
_COUNT_ATTRS = ("minor_stride_bytes",)
_MAX_STRIDE = 32767 * 8


class TraceFormatError(ValueError):
    """A trace file that is missing, not regular, or not what save() writes."""


def _plain(v):
    """An attribute value as JSON: the model reads scalars and names only."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, np.generic):
        return v.item()
    if callable(v):
        return getattr(v, "__name__", "function")
    return str(v)


def save(trace, stem: str) -> int:
    """Write trace (a Trace or a list of Instr) to stem.json and stem.npz; returns the instruction count."""
    with paused_gc():
        return _save(trace, stem)


def _intern(ins, sig_index: dict, sigs: list) -> int:
    key = (ins.op, ins.engine, ins.line, ins.partitions, ins.free_elems, ins.dtype, tuple(ins.in_dtypes),
           ins.dma_bytes, tuple(sorted((k, repr(v)) for k, v in ins.attrs.items())))
    s = sig_index.get(key)
    if s is None:
        s = sig_index[key] = len(sigs)
        sigs.append([ins.op, ins.engine, int(ins.line), int(ins.partitions), int(ins.free_elems), str(ins.dtype),
                     [str(d) for d in ins.in_dtypes], int(ins.dma_bytes),
                     {str(k): _plain(v) for k, v in ins.attrs.items()}])
    return s


def _save(trace, stem: str) -> int:
    instrs = trace.instrs if hasattr(trace, "instrs") else list(trace)
    sig_index, sigs, rows, acc = {}, [], [], []
    add_row, add_acc = rows.append, acc.append
    mem_code = {m: i for i, m in enumerate(MEMORIES)}
    kind_code = {k: i for i, k in enumerate(LOOP_KINDS)}
    nest_by_id, nest_by_value, nests, kept = {}, {}, [], []
    by_family = {}  # replay's repeats share every signature field (trace.Instr.family)
    for ins in instrs:
        fam = ins.family
        s = by_family.get(fam) if fam is not None else None
        if s is None:
            s = _intern(ins, sig_index, sigs)
            if fam is not None:
                by_family[fam] = s
        loops = ins.loops
        nest = nest_by_id.get(id(loops))
        if nest is None:
            nest = nest_by_value.get(loops)
            if nest is None:
                nest = nest_by_value[loops] = len(kept)
                nests.append(len(loops))
                for lp in loops:
                    nests.extend((lp[0], kind_code[lp[1]], lp[2]))
                kept.append(loops)  # alive, so its id is not reused while this runs
            nest_by_id[id(loops)] = nest
        add_row((s, len(ins.reads), len(ins.writes), nest))
        for a in ins.reads:
            add_acc((a[0], mem_code[a[1]], a[2], a[3], a[4], a[5]))
        for a in ins.writes:
            add_acc((a[0], mem_code[a[1]], a[2], a[3], a[4], a[5]))
    np.savez(stem + ".npz", instrs=np.array(rows, dtype=np.int64).reshape(-1, 4),
             accesses=np.array(acc, dtype=np.int64).reshape(-1, 6), nests=np.array(nests, dtype=np.int64))
    with open(stem + ".json", "w", encoding="utf-8") as f:
        json.dump({"version": VERSION, "count": len(instrs), "signatures": sigs}, f)
    return len(instrs)


def _regular(path: str):
    if not os.path.isfile(path) or os.path.islink(path):
        raise TraceFormatError(f"{os.path.basename(path)} is missing or not a regular file")


def _signature(i: int, s) -> tuple:
    where = f"signature {i}"
    if not isinstance(s, list) or len(s) != 9:
        raise TraceFormatError(f"{where} is not a list of 9 fields")
    op, engine, line, parts, free, dtype, in_dtypes, dma_bytes, attrs = s
    if not isinstance(op, str) or not _NAME.match(op):
        raise TraceFormatError(f"{where}: op {str(op)[:40]!r} is not an instruction name")
    if engine not in ENGINES:
        raise TraceFormatError(f"{where}: engine {str(engine)[:40]!r} is not one of {', '.join(ENGINES)}")
    for name, v in (("line", line), ("partitions", parts), ("free_elems", free), ("dma_bytes", dma_bytes)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise TraceFormatError(f"{where}: {name} must be a non-negative integer, got {str(v)[:40]}")
    if parts > 128:
        raise TraceFormatError(f"{where}: {parts} partitions; the hardware has 128")
    if not isinstance(dtype, str) or not _NAME.match(dtype) or not isinstance(in_dtypes, list) or \
            len(in_dtypes) > 8 or not all(isinstance(d, str) and _NAME.match(d) for d in in_dtypes):
        raise TraceFormatError(f"{where}: dtypes must be dtype names")
    if not isinstance(attrs, dict) or len(attrs) > _MAX_ATTRS:
        raise TraceFormatError(f"{where}: attrs must be an object of at most {_MAX_ATTRS} entries")
    for k, v in attrs.items():
        if not _NAME.match(k) or not (v is None or isinstance(v, (bool, int, float)) or
                                      (isinstance(v, str) and len(v) <= 200)):
            raise TraceFormatError(f"{where}: attribute {k[:40]!r} is not a name with a scalar value")
        if isinstance(v, float) and not math.isfinite(v):
            raise TraceFormatError(f"{where}: attribute {k[:40]!r} is not finite")
    for k in _COUNT_ATTRS:
        v = attrs.get(k)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _MAX_STRIDE):
            raise TraceFormatError(f"{where}: attribute {k!r} must be an integer from 0 to {_MAX_STRIDE}, "
                                   f"got {str(v)[:40]}")
    return op, engine, line, parts, free, dtype, tuple(in_dtypes), dma_bytes, attrs


def _arrays(stem: str, count: int, nsigs: int):
    try:
        with np.load(stem + ".npz", allow_pickle=False) as z:
            rows, acc, nests = np.array(z["instrs"]), np.array(z["accesses"]), np.array(z["nests"])
    except (OSError, ValueError, KeyError) as e:
        raise TraceFormatError(f"the trace's records cannot be read: {type(e).__name__}: {e}") from None
    if rows.dtype != np.int64 or acc.dtype != np.int64 or nests.dtype != np.int64 or rows.shape != (count, 4) or \
            acc.ndim != 2 or acc.shape[1] != 6 or nests.ndim != 1:
        raise TraceFormatError(f"the trace's records are not int64 [{count}, 4], [n, 6] and [m] arrays")
    if count and (rows[:, 0].min() < 0 or rows[:, 0].max() >= nsigs):
        raise TraceFormatError("an instruction names a signature the header does not hold")
    if count and (rows[:, 1:3].min() < 0 or rows[:, 1:3].max() > 64):
        raise TraceFormatError("an instruction has a negative count of accesses, or more than 64")
    if int(rows[:, 1:3].sum()) != len(acc):
        raise TraceFormatError(f"the instructions name {int(rows[:, 1:3].sum())} accesses, the records hold "
                               f"{len(acc)}")
    if len(acc):
        tid, mem, pl, ph, fl, fh = acc.T
        bad = (tid < 0) | (mem < 0) | (mem >= len(MEMORIES)) | (pl < 0) | (pl > ph) | (fl < 0) | (fl > fh)
        if bad.any():
            k = int(np.argmax(bad))
            raise TraceFormatError(f"access {k} is not a tensor region {tuple(acc[k].tolist())}")
    table = _nests(nests.tolist())
    if count and (rows[:, 3].min() < 0 or rows[:, 3].max() >= len(table)):
        raise TraceFormatError("an instruction names a loop nest the records do not hold")
    return rows.tolist(), acc.tolist(), table


def _nests(flat: list) -> list:
    """The loop nests save() wrote, each a tuple of Loop, outermost first."""
    out, pos, n = [], 0, len(flat)
    while pos < n:
        depth = flat[pos]
        end = pos + 1 + 3 * depth
        if not 0 <= depth <= 64 or end > n:
            raise TraceFormatError(f"loop nest {len(out)} has a depth of {depth} or ends early")
        levels = []
        for k in range(pos + 1, end, 3):
            lid, kind, index = flat[k:k + 3]
            if lid < 0 or not 0 <= kind < len(LOOP_KINDS) or index < 0:
                raise TraceFormatError(f"loop nest {len(out)} holds a level that is not (loop id, kind, index): "
                                       f"{(lid, kind, index)}")
            levels.append(Loop(lid, LOOP_KINDS[kind], index))
        out.append(tuple(levels))
        pos = end
    return out


def load(stem: str) -> list:
    """The instructions save() wrote, each field checked; TraceFormatError says what is wrong and where."""
    with paused_gc():
        return _load(stem)


def _load(stem: str) -> list:
    for ext in (".json", ".npz"):
        _regular(stem + ext)
    try:
        with open(stem + ".json", encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise TraceFormatError(f"the trace's header cannot be read: {type(e).__name__}: {e}") from None
    if not isinstance(meta, dict) or meta.get("version") != VERSION:
        raise TraceFormatError(f"the trace is not version {VERSION} of nkisim's trace format")
    sigs_raw, count = meta.get("signatures"), meta.get("count")
    if not isinstance(sigs_raw, list) or isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise TraceFormatError("the trace's header has no signatures list or count")
    sigs = [_signature(i, s) for i, s in enumerate(sigs_raw)]
    rows, acc, nests = _arrays(stem, count, len(sigs))
    mems = MEMORIES
    accesses = [Access(t, mems[m], a, b, c, d) for t, m, a, b, c, d in acc]
    codes = [a[1] for a in acc]
    out, families, pos = [], {}, 0
    for seq, (s, nr, nw, nest) in enumerate(rows):
        mid, end = pos + nr, pos + nr + nw
        reads, writes = tuple(accesses[pos:mid]), tuple(accesses[mid:end])
        fkey = (s, nr, tuple(codes[pos:end]))
        pos = end
        loops = nests[nest]
        fam = families.get(fkey)
        if fam is None:
            fam = families[fkey] = object()
        op, engine, line, parts, free, dtype, in_dtypes, dma_bytes, attrs = sigs[s]
        out.append(Instr(seq, op, engine, line, parts, free, dtype, in_dtypes, dma_bytes, reads, writes, loops,
                         attrs, fam))
    return out
