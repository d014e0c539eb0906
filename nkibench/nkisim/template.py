"""Loop templates for replay (replay.py): one iteration's instructions, and how every number in them moves from one
iteration to the next, built from two consecutive iterations that ran for real; and the records of any other
iteration, made by shifting the template."""
from __future__ import annotations

import numpy as np

from .trace import Access, Instr, Loop

_new = object.__new__
_tuple_new = tuple.__new__
# Compiling a template into one function costs about 20x one generic emit of it (measured: compile() of the
# generated source is ~60 us per record, a generic emit ~3 us), so it pays off only for templates replayed many
# more times than that, with enough records left for the saving to matter.
COMPILE_MIN = 4000  # records left to replay
COMPILE_MIN_ITERS = 40  # iterations left to replay


class Capture:
    """One iteration run for real: where its records are, and the run's counters around it."""
    __slots__ = ("start", "end", "tid0", "tid1", "loop0", "loop1", "epoch0", "epoch1", "live0", "live1", "peak",
                 "saved_peak", "hbm0", "hbm1", "guards", "psum")


class Expected:
    """A guard's expected mask kept as shape and bytes (what the checks compare)."""
    __slots__ = ("shape", "data")

    def __init__(self, shape, data):
        self.shape = shape
        self.data = data


class Template:
    """at: the iteration the records come from; recs: per record (Instr fields, reads, writes, loops key) where
    reads / writes are None when no access moves, else per access the Access itself (it does not move) or a shift
    list [tid, fresh, memory, p_lo, dp_lo, p_hi, dp_hi, f_lo, df_lo, f_hi, df_hi]; loops: loops key -> per level
    (mode, loop_id, kind, index, Loop) with mode 0 = the same Loop, 1 = the replayed loop (index = the
    iteration's), 2 = a loop started inside the iteration (its id moves with the loop counter); tids, nloops, epochs:
    how far the run's counters move per iteration; guards: (mask Node, bindings, shape, bytes) to check per
    iteration."""
    __slots__ = ("at", "recs", "loops", "guards", "tids", "nloops", "epochs", "emitter")


def build(instrs, c1, c2, at, me):
    """The template of iteration `at` (captured in c2) with strides from the iteration before it (c1), or None if
    the two disagree on anything but those strides. me: the replayed loop's id."""
    tids, nloops, epochs = c1.tid1 - c1.tid0, c1.loop1 - c1.loop0, c1.epoch1 - c1.epoch0
    if (tids, nloops, epochs) != (c2.tid1 - c2.tid0, c2.loop1 - c2.loop0, c2.epoch1 - c2.epoch0):
        return None
    if not (c1.live0 == c1.live1 == c2.live0 == c2.live1) or c1.peak != c2.peak:
        return None
    if c1.hbm0 != c1.hbm1 or c2.hbm0 != c2.hbm1:
        return None
    r1, r2 = instrs[c1.start:c1.end], instrs[c2.start:c2.end]
    if len(r1) != len(r2):
        return None
    t = Template()
    t.at = at
    t.tids, t.nloops, t.epochs = tids, nloops, epochs
    t.emitter = None
    seen = {}  # one check per distinct mask: a kernel passes the same mask to many instructions
    for node, bind, expected in c2.guards:
        key = (id(node), tuple(sorted((id(d), k) for d, k in bind.items())) if bind else (), id(expected))
        if key not in seen:
            if isinstance(expected, Expected):
                seen[key] = (node, bind, expected.shape, expected.data)
            else:
                seen[key] = (node, bind, np.shape(expected), np.asarray(expected).tobytes())
    t.guards = list(seen.values())
    t.recs = []
    t.loops = {}
    for x, y in zip(r1, r2):
        try:
            if (x.op != y.op or x.engine != y.engine or x.line != y.line or x.partitions != y.partitions or
                    x.free_elems != y.free_elems or x.dtype != y.dtype or x.in_dtypes != y.in_dtypes or
                    x.dma_bytes != y.dma_bytes or x.attrs != y.attrs):
                return None
        except (ValueError, TypeError):  # attrs values that do not compare plainly
            return None
        if len(x.reads) != len(y.reads) or len(x.writes) != len(y.writes):
            return None
        rs = [_stride(a, b, c1, c2) for a, b in zip(x.reads, y.reads)]
        ws = [_stride(a, b, c1, c2) for a, b in zip(x.writes, y.writes)]
        if None in rs or None in ws:
            return None
        lk = id(y.loops)
        if lk not in t.loops:
            spec = _loop_stride(x.loops, y.loops, c1, c2, me)
            if spec is None:
                return None
            t.loops[lk] = spec
        if y.family is None:
            y.family = object()
        t.recs.append((dict(y.__dict__), None if all(a.__class__ is Access for a in rs) else tuple(rs),
                       None if all(a.__class__ is Access for a in ws) else tuple(ws), lk))
    return t


def _stride(a, b, c1, c2):
    """How access b (iteration c2) moves per iteration, from a (iteration c1): b itself when it does not move, else a
    shift list (see Template); None when it does not shift by a constant stride."""
    if a.memory != b.memory:
        return None
    if a.tensor_id <= c1.tid0:  # allocated before the iteration: must be the same tensor every time
        if b.tensor_id != a.tensor_id:
            return None
        fresh = False
    else:
        if b.tensor_id <= c2.tid0 or b.tensor_id - c2.tid0 != a.tensor_id - c1.tid0:
            return None
        fresh = True
    d = (b.p_lo - a.p_lo, b.p_hi - a.p_hi, b.f_lo - a.f_lo, b.f_hi - a.f_hi)
    if not fresh and d == (0, 0, 0, 0):
        return b
    return [b.tensor_id, fresh, b.memory, b.p_lo, d[0], b.p_hi, d[1], b.f_lo, d[2], b.f_hi, d[3]]


def _loop_stride(x, y, c1, c2, me):
    if len(x) != len(y):
        return None
    out = []
    for a, b in zip(x, y):
        if a.kind != b.kind:
            return None
        if b.loop_id == me:
            if a.loop_id != me:
                return None
            out.append((1, me, b.kind, b.index, b))
        elif a.loop_id <= c1.loop0:
            if b != a:
                return None
            out.append((0, b.loop_id, b.kind, b.index, b))
        else:
            if b.loop_id <= c2.loop0 or b.loop_id - c2.loop0 != a.loop_id - c1.loop0 or a.index != b.index:
                return None
            out.append((2, b.loop_id, b.kind, b.index, b))
    return out


def emit(t, j, k, seq, out, iterations_left=0):
    """Append to out the records of iteration j (loop index k), numbered from seq."""
    m = j - t.at
    dl = t.nloops * m
    loops = {lk: tuple([lp if mode == 0 else _tuple_new(Loop, (lid, kind, k) if mode == 1 else
                                                         (lid + dl, kind, index))
                        for mode, lid, kind, index, lp in spec]) for lk, spec in t.loops.items()}
    if t.emitter is None and iterations_left >= COMPILE_MIN_ITERS and iterations_left * len(t.recs) >= COMPILE_MIN:
        t.emitter = _compile(t) or False
    if t.emitter:
        t.emitter(m, seq, out, loops)
        return
    dt = t.tids * m
    for base, rs, ws, lk in t.recs:
        ins = _new(Instr)
        d = base.copy()
        d["seq"] = seq
        seq += 1
        if rs is not None:
            d["reads"] = tuple([x if x.__class__ is Access else _tuple_new(Access, (
                x[0] + dt if x[1] else x[0], x[2], x[3] + x[4] * m, x[5] + x[6] * m, x[7] + x[8] * m,
                x[9] + x[10] * m)) for x in rs])
        if ws is not None:
            d["writes"] = tuple([x if x.__class__ is Access else _tuple_new(Access, (
                x[0] + dt if x[1] else x[0], x[2], x[3] + x[4] * m, x[5] + x[6] * m, x[7] + x[8] * m,
                x[9] + x[10] * m)) for x in ws])
        d["loops"] = loops[lk]
        ins.__dict__ = d
        out.append(ins)


def _compile(t):
    """The template as one generated function emit(m, seq, out, loops), with every constant written in: the generic
    loop above spends most of its time reading the shift lists. None when a field is not a plain int."""
    env = {"A": Access, "I": Instr, "new": _new, "tn": _tuple_new}
    src = ["def emit(m, seq, out, loops):", f"    dt = {t.tids} * m", "    append = out.append"]

    def lin(v, dv):
        return repr(v) if dv == 0 else f"{v!r} + {dv!r} * m"

    for r, (base, rs, ws, lk) in enumerate(t.recs):
        env[f"B{r}"] = base
        src.append(f"    d = B{r}.copy()")
        src.append(f"    d['seq'] = seq + {r}")
        for key, specs in (("reads", rs), ("writes", ws)):
            if specs is None:
                continue
            parts = []
            for x in specs:
                if x.__class__ is Access:
                    name = f"C{len(env)}"
                    env[name] = x
                    parts.append(name)
                    continue
                if any(type(v) is not int for i, v in enumerate(x) if i not in (1, 2)) or type(x[2]) is not str:
                    return None
                tid, fresh, mem, pl, dpl, ph, dph, fl, dfl, fh, dfh = x
                parts.append(f"tn(A, ({tid!r}{' + dt' if fresh else ''}, {mem!r}, {lin(pl, dpl)}, {lin(ph, dph)}, "
                             f"{lin(fl, dfl)}, {lin(fh, dfh)}))")
            src.append(f"    d[{key!r}] = ({', '.join(parts)},)")
        src.append(f"    d['loops'] = loops[{lk!r}]")
        src.append("    i = new(I)")
        src.append("    i.__dict__ = d")
        src.append("    append(i)")
    exec(compile("\n".join(src), "<nkisim replay template>", "exec"), env)  # noqa: S102 - our own generated code
    return env["emit"]


def matches(instrs, t, c, predicted):
    """Whether the iteration captured in c produced exactly the predicted records and moved the counters by the
    template's strides."""
    actual = instrs[c.start:c.end]
    if (c.tid1 - c.tid0, c.loop1 - c.loop0, c.epoch1 - c.epoch0) != (t.tids, t.nloops, t.epochs):
        return False
    if c.hbm0 != c.hbm1 or len(actual) != len(predicted):
        return False
    for a, p in zip(actual, predicted):
        try:
            if (a.op != p.op or a.engine != p.engine or a.line != p.line or a.partitions != p.partitions or
                    a.free_elems != p.free_elems or a.dtype != p.dtype or a.in_dtypes != p.in_dtypes or
                    a.dma_bytes != p.dma_bytes or a.attrs != p.attrs or a.reads != p.reads or
                    a.writes != p.writes or a.loops != p.loops):
                return False
        except (ValueError, TypeError):
            return False
    return True
