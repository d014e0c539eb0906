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
               f_lo, f_hi); "levels", int64 [m, 3]: every distinct loop level once (loop_id, kind code, index);
               "nests", int64: every distinct loop nest once, each as its depth and then the row in "levels" of each
               level, outermost first (the instructions of one iteration share one nest, the nests of one loop
               share their outer levels). The model reads the loops for affine_range vectorisation
               (perf/vectorize.py).
Both sides convert whole columns with numpy rather than record by record: a full-size trace holds ~70,000
instructions and ~200,000 accesses, and a per-record conversion cost as much as recording the trace.
The loader gives each instruction a family from its signature and the memories it touches: instructions with one
family have equal cost inputs by construction, so the model computes their cost once. Families the writer chose
are not read (a forged family would hand one instruction's cost to many).
"""
from __future__ import annotations

import json
import math
import os
import re
from functools import partial
from itertools import chain
from operator import itemgetter

import numpy as np

from .memory import paused_gc
from .trace import ENGINES, Access, Instr, Loop

VERSION = 2  # 2: loop levels in a table of their own
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
    sig_index, sigs, rows, accesses = {}, [], [], []
    add_row, add_acc = rows.extend, accesses.extend
    kind_code = {k: i for i, k in enumerate(LOOP_KINDS)}
    level_index, levels = {}, []
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
                    lv = level_index.get(lp)
                    if lv is None:
                        lv = level_index[lp] = len(level_index)
                        levels.extend((lp[0], kind_code[lp[1]], lp[2]))
                    nests.append(lv)
                kept.append(loops)  # alive, so its id is not reused while this runs
            nest_by_id[id(loops)] = nest
        reads, writes = ins.reads, ins.writes
        add_row((s, len(reads), len(writes), nest))
        add_acc(reads)
        add_acc(writes)
    n = len(accesses)
    acc = np.empty((n, 6), dtype=np.int64)
    if n:
        acc[:, [0, 2, 3, 4, 5]] = np.fromiter(chain.from_iterable(map(itemgetter(0, 2, 3, 4, 5), accesses)),
                                              dtype=np.int64, count=5 * n).reshape(n, 5)
        mem_code = {m: i for i, m in enumerate(MEMORIES)}
        acc[:, 1] = np.fromiter(map(mem_code.__getitem__, map(itemgetter(1), accesses)), dtype=np.int64, count=n)
    np.savez(stem + ".npz", instrs=np.array(rows, dtype=np.int64).reshape(-1, 4), accesses=acc,
             levels=np.array(levels, dtype=np.int64).reshape(-1, 3), nests=np.array(nests, dtype=np.int64))
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
            rows, acc = np.array(z["instrs"]), np.array(z["accesses"])
            levels, nests = np.array(z["levels"]), np.array(z["nests"])
    except (OSError, ValueError, KeyError) as e:
        raise TraceFormatError(f"the trace's records cannot be read: {type(e).__name__}: {e}") from None
    if any(a.dtype != np.int64 for a in (rows, acc, levels, nests)) or rows.shape != (count, 4) or \
            acc.ndim != 2 or acc.shape[1] != 6 or levels.ndim != 2 or levels.shape[1] != 3 or nests.ndim != 1:
        raise TraceFormatError(f"the trace's records are not int64 [{count}, 4], [n, 6], [m, 3] and [k] arrays")
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
    if len(levels):
        bad = (levels[:, 0] < 0) | (levels[:, 1] < 0) | (levels[:, 1] >= len(LOOP_KINDS)) | (levels[:, 2] < 0)
        if bad.any():
            k = int(np.argmax(bad))
            raise TraceFormatError(f"loop level {k} is not (loop id, kind, index): {tuple(levels[k].tolist())}")
    table = _nests(nests.tolist(), _levels(levels))
    if count and (rows[:, 3].min() < 0 or rows[:, 3].max() >= len(table)):
        raise TraceFormatError("an instruction names a loop nest the records do not hold")
    return rows.tolist(), acc, table


def _levels(levels) -> list:
    kinds = np.array(LOOP_KINDS, dtype=object)[levels[:, 1]].tolist() if len(levels) else []
    return list(map(partial(tuple.__new__, Loop), zip(levels[:, 0].tolist(), kinds, levels[:, 2].tolist())))


def _nests(flat: list, levels: list) -> list:
    """The loop nests save() wrote, each a tuple of Loop, outermost first; nests share their Loop objects."""
    out, pos, n, nlevels = [], 0, len(flat), len(levels)
    while pos < n:
        depth = flat[pos]
        end = pos + 1 + depth
        if not 0 <= depth <= 64 or end > n:
            raise TraceFormatError(f"loop nest {len(out)} has a depth of {depth} or ends early")
        idx = flat[pos + 1:end]
        if idx and (min(idx) < 0 or max(idx) >= nlevels):
            raise TraceFormatError(f"loop nest {len(out)} names a loop level the records do not hold")
        out.append(tuple(map(levels.__getitem__, idx)))
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
    mems = np.array(MEMORIES, dtype=object)[acc[:, 1]].tolist() if len(acc) else []
    accesses = list(map(partial(tuple.__new__, Access), zip(acc[:, 0].tolist(), mems, acc[:, 2].tolist(),
                                                             acc[:, 3].tolist(), acc[:, 4].tolist(),
                                                             acc[:, 5].tolist())))
    codes = acc[:, 1].tolist()
    out, families, pos = [], {}, 0
    add, family = out.append, families.get
    for seq, (s, nr, nw, nest) in enumerate(rows):
        mid = pos + nr
        end = mid + nw
        fkey = (s, nr, *codes[pos:end])
        fam = family(fkey)
        if fam is None:
            fam = families[fkey] = object()
        op, engine, line, parts, free, dtype, in_dtypes, dma_bytes, attrs = sigs[s]
        add(Instr(seq, op, engine, line, parts, free, dtype, in_dtypes, dma_bytes, tuple(accesses[pos:mid]),
                  tuple(accesses[mid:end]), nests[nest], attrs, fam))
        pos = end
    return out
