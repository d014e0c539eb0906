"""Loop replay for timing-only runs: most iterations of a loop are recorded without running the loop body.

In timing-only mode nothing is computed, and what remains per instruction - Python bookkeeping - is as costly as in
numeric mode, so a loop of cheap instructions costs about the same in both. Replay runs iterations 0 and 1 of a
loop, takes iteration 1's instructions as a template and 0 -> 1 as the per-iteration stride of every number in them
(region bounds; tensor ids of tiles the iteration allocates; loop ids of loops it starts; template.py), and records
iterations 2 .. R-1 by shifting the template. (When iteration 0 differs - an accumulation that starts there - it
runs iteration 2 too and uses 1 -> 2.) Iteration R is run for real and must match the template shifted to R
exactly; the iterations after it run for real.

This is exact when the body is affine in the loop index, which replay establishes rather than assumes:
  * the loop yields taint.TInt indices in the iterations it runs; values computed from them carry how to recompute
    them, and Python control flow or conversions on them mark the loop unsafe (taint.py);
  * every index key must shift affinely; every mask computed from an index is recomputed for each iteration and must
    select what it selected in the template, else replay stops before that iteration (R is the one before);
  * the two template iterations must agree on everything but the strides (instruction fields, attrs, tiles
    allocated, live SBUF/PSUM bytes and their peak), and the Python state the body can see must not change
    (loopcheck.py);
  * reading a PSUM tile from outside the loop, accumulating (`+=`) into one in regions that differ between
    iterations, device_print and shared HBM allocation inside the body disable replay of the loops around them.
Region bounds are affine in the index, so bounds that hold at the template iteration and at R hold in between. Any
mismatch at R, and any error in a run that used tainted indices, makes run.py run the whole kernel again without
replay, so results and errors are always those of a plain run. NKISIM_REPLAY=0 turns replay off.

Limit: C code that reads an int subclass's value directly (ndarray.item(i), operator.getitem(seq, i)) hands the
kernel an untainted value; if that value departs from the template's strides only strictly between the template
iteration and R, the replayed records are wrong. Indexing with `[]` and everything Python-level is checked.
"""
from __future__ import annotations

import os
import sys

import numpy as np

from . import loopcheck, taint, template
from .memory import paused_gc

ENABLED = os.environ.get("NKISIM_REPLAY", "1") != "0"
MIN_ITERS = 6  # iterations run for real: 0, 1 (maybe 2) and R; fewer iterations leave too little to replay

# Counters for tests and benchmarks: loops probed, loops replayed, iterations recorded by replay, refusals by reason,
# and whole runs repeated without replay (run.py).
stats = {"probed": 0, "replayed": 0, "iterations": 0, "refused": {}, "reruns": 0}


def reset_stats():
    stats.update(probed=0, replayed=0, iterations=0, refused={}, reruns=0)


def _refuse(why):
    stats["refused"][why] = stats["refused"].get(why, 0) + 1


class ReplayMismatch(BaseException):
    """A replayed loop did not match the plain execution; run.py runs the kernel again without replay. A
    BaseException so that a kernel's own `except Exception` cannot swallow it."""


def flag_active(ctx):
    """Something in the running iteration cannot be replayed (see the module docstring)."""
    taint.flag(ctx.replay_active)


def note_outer_psum(ctx, alloc, region=None):
    """PSUM accumulation state of alloc is read (region None: an instruction reads the tile) or updated (`+=` of a
    matmul into region) by an iteration that did not allocate it. A read makes the loop unsafe: the count of reads
    decides where later accumulation groups start (core._continues_group). An update is replayable when every
    iteration updates the same regions and none reads the tile: the group state each iteration leaves is then the
    same, and the last iteration, run for real, leaves it as a plain run would; run() checks that."""
    for d in ctx.replay_active:
        if alloc.tid <= d.cur.tid0:
            if region is None:
                d.unsafe = True
            else:
                d.cur.psum.add((alloc.tid, region))


def note_mask(ctx, mask):
    """A mask computed from loop indices: the innermost probing loop checks it again for each iteration it replays
    (and hands it to the loops around it)."""
    if ctx.replay_active:
        ctx.replay_active[-1].cur.guards.append((mask.node, None, mask.value))
    return mask.value


class Driver:
    """Drives one loop statement (a generator under Context.loop)."""

    def __init__(self, ctx, frame, rng, kframe):
        self.ctx = ctx
        self.frame = frame
        self.rng = rng
        self.kframe = kframe
        self.unsafe = False
        self.cur = None
        self.files = frozenset()

    def _plain(self, start):
        ctx, frame, rng = self.ctx, self.frame, self.rng
        for j in range(start, len(rng)):
            ctx.begin_iteration(frame, rng[j])
            yield rng[j]

    def run(self):
        ctx = self.ctx
        kf = self.kframe
        info = loopcheck.body_info(kf) if kf is not None else None
        if info is None or not loopcheck.static_ok(kf, info):
            _refuse("body")
            yield from self._plain(0)
            return
        self.files = loopcheck.user_files(kf, info)
        if self.files and sys.getprofile() is not None:
            # Helpers need the profile hook, which must not replace (and cannot chain onto) another profiler.
            _refuse("body")
            yield from self._plain(0)
            return
        stats["probed"] += 1
        snap = loopcheck.snapshot(kf, info)
        caps, carried = [], []
        ctx.used_taint = True
        taint.ACTIVE[0] = True
        tpl = None
        why = "template"
        # The template is iteration 1 with strides from 0 -> 1; when the first iteration differs (an accumulation
        # that starts, a result redirected from before the loop), iteration 2 with strides from 1 -> 2.
        for j in range(3):
            cap = yield from self._real(j)
            caps.append(cap)
            carried.append(loopcheck.carried_values(kf, info))
            if self.unsafe:
                why = "unsafe"
                break
            if j == 0:
                if not loopcheck.index_ok(kf, info):
                    why = "state"
                    break
                continue
            if not loopcheck.carried_ok(carried) or loopcheck.snapshot(kf, info) != snap:
                why = "state"
                break
            if caps[-1].psum != caps[-2].psum:
                why = "psum"
                break
            tpl = template.build(ctx.trace.instrs, caps[-2], caps[-1], j, self.frame[0])
            if tpl is not None:
                break
        first = len(caps)  # the first iteration to replay
        last = self._last_on_template(tpl, first) if tpl is not None else 0
        if last <= first:
            _refuse(why if tpl is None else "guards")
            yield from self._plain(first)
            return
        stats["replayed"] += 1
        stats["iterations"] += last - first
        with paused_gc():  # the records hold no cycles; see memory.paused_gc
            for j in range(first, last):
                self._emit(tpl, j, True)
        cap = yield from self._real(last)
        predicted = []
        template.emit(tpl, last, self.rng[last], cap.start, predicted)
        if self.unsafe or cap.psum != caps[-1].psum or not template.matches(ctx.trace.instrs, tpl, cap, predicted) or \
                not loopcheck.carried_ok(carried + [loopcheck.carried_values(kf, info)]) or \
                loopcheck.snapshot(kf, info) != snap:
            raise ReplayMismatch(f"loop at line {kf.f_lineno}: iteration {last} differs from its replay")
        yield from self._plain(last + 1)

    def _real(self, j):
        """Run iteration j for real (a sub-generator around the yield), capturing its records and counters."""
        ctx = self.ctx
        k = self.rng[j]
        c = template.Capture()
        c.start = len(ctx.trace.instrs)
        c.tid0, c.loop0, c.epoch0 = ctx._next_tid, ctx._next_loop, ctx.epoch
        c.live0 = (ctx.live_bytes["sbuf"], ctx.live_bytes["psum"])
        c.saved_peak = dict(ctx.peak_bytes)
        ctx.peak_bytes.update(ctx.live_bytes)  # measure this iteration's own peak
        c.hbm0 = (ctx.shared_hbm_pos, len(ctx.shared_hbm))
        c.guards = []
        c.psum = set()
        self.cur = c
        ctx.replay_active.append(self)
        watch = loopcheck.HelperWatch(self.files, self._helper_violation) if self.files else None
        try:
            ctx.begin_iteration(self.frame, k)
            if watch is None:
                yield taint.TInt.index(k, self)
            else:
                with watch:
                    yield taint.TInt.index(k, self)
            ctx.end_iteration(self.frame)
        finally:
            ctx.replay_active.remove(self)
        c.end = len(ctx.trace.instrs)
        c.tid1, c.loop1, c.epoch1 = ctx._next_tid, ctx._next_loop, ctx.epoch
        c.live1 = (ctx.live_bytes["sbuf"], ctx.live_bytes["psum"])
        c.peak = (ctx.peak_bytes["sbuf"], ctx.peak_bytes["psum"])
        for m, v in c.saved_peak.items():
            if v > ctx.peak_bytes[m]:
                ctx.peak_bytes[m] = v
        c.hbm1 = (ctx.shared_hbm_pos, len(ctx.shared_hbm))
        # The enclosing probing loop sees this iteration's guards as its own (and passes them on in turn).
        if ctx.replay_active:
            ctx.replay_active[-1].cur.guards.extend(c.guards)
        return c

    def _helper_violation(self):
        self.unsafe = True

    def _last_on_template(self, tpl, first):
        """R: the iteration run for real after the replayed ones. Replay stops before the first iteration whose
        masks differ from the template's, so that R still lies on the template."""
        n = len(self.rng)
        if not tpl.guards:
            return n - 1
        for j in range(first, n):
            memo = {}
            for node, bind, shape, expected in tpl.guards:
                b = dict(bind) if bind else {}
                b[self] = self.rng[j]
                v = np.asarray(taint.evaluate(node, b, memo))
                if v.shape != shape or v.tobytes() != expected:
                    return j - 1
        return n - 1

    def _emit(self, tpl, j, advance):
        """Record iteration j from the template and move the run's counters as if it had run; its guards go to the
        enclosing probing loop."""
        ctx = self.ctx
        k = self.rng[j]
        instrs = ctx.trace.instrs
        template.emit(tpl, j, k, len(instrs), instrs, len(self.rng) - j)
        ctx.end_iteration(self.frame)
        self.frame[2] = k
        ctx._next_tid += tpl.tids
        ctx._next_loop += tpl.nloops
        ctx.epoch += tpl.epochs
        if ctx.replay_active and tpl.guards:
            ctx.replay_active[-1].cur.guards.extend(
                (node, _bind(bind, self, k), template.Expected(shape, expected))
                for node, bind, shape, expected in tpl.guards)


def _bind(bind, driver, k):
    b = dict(bind) if bind else {}
    b[driver] = k
    return b
