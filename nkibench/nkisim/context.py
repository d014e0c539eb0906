"""The state of one kernel run: the trace being recorded, the loop nest, SPMD coordinates, and the SBUF/PSUM
liveness accounting behind the capacity rule.

Liveness rule (a lower bound of what the compiler must keep on chip; beyond it the compiler spills, but never below):
  * An allocation is live from its creation until the end of the loop iteration it was created in (a tile allocated
    in a loop body dies when the iteration ends), or until Python drops the last reference to it (temporaries such as
    the result of `buf[...] = nl.exp(x)`), or until the kernel ends (allocations outside any loop).
  * A tensor without block dimensions occupies its full per-partition size while live.
  * A tensor with leading block dimensions is backed by one physical (P, F) tile per block index touched in the
    current iteration of the innermost enclosing loop (at least one). Blocks touched in earlier iterations are assumed
    recycled or spilled, which is what the compiler does; so a kernel may declare far more than fits.
Capacity: SBUF 192 KiB (trn1) / 224 KiB (trn2) per partition, PSUM 16 KiB per partition.
"""
from __future__ import annotations

import sys
import weakref

from . import errors, replay
from .taint import file_kind
from .trace import Instr, Loop, Trace

SBUF_BYTES = {"trn1": 192 * 1024, "trn2": 224 * 1024}
PSUM_BYTES = 16 * 1024
PSUM_BANK_BYTES = 2 * 1024
PMAX = 128

_current = None


def current() -> "Context":
    if _current is None:
        raise errors.NkiCompileError("NKI API called outside a kernel run (call the kernel through nkisim)")
    return _current


def active():
    return _current


def kernel_line() -> int:
    """Line of the innermost frame outside nkisim: the kernel statement that called the API."""
    f = sys._getframe(1)
    while f is not None:
        if not file_kind(f.f_code.co_filename):
            return f.f_lineno
        f = f.f_back
    return 0


class Context:
    def __init__(self, target="trn1", numeric=True):
        if target not in SBUF_BYTES:
            raise errors.ArgumentError(f"unknown target {target!r} (expected 'trn1' or 'trn2')")
        self.target = target
        self.numeric = numeric
        self.trace = Trace()
        self.capacity = {"sbuf": SBUF_BYTES[target], "psum": PSUM_BYTES}
        self.live_bytes = {"sbuf": 0, "psum": 0}
        self.peak_bytes = {"sbuf": 0, "psum": 0}
        # tid -> weak reference to the Alloc, for the error message. Weak, so that dropping the last reference to a
        # tile (rebinding a variable outside any loop) frees it as the liveness rule says; a plain dict kept every
        # tile alive. Plain references without callbacks: release() drops the entry, and a WeakValueDictionary's
        # Python-level bookkeeping cost a microsecond per allocation.
        self.live = {}
        self._next_tid = 0
        self._next_loop = 0
        self.loops = []  # list of [loop_id, kind, index, allocs_this_iteration]
        self.loop_records = ()
        self.epoch = 0  # bumps at every loop iteration start; block-dim footprints reset per epoch
        self.grid = ()
        self.program = ()
        self.shared_hbm = []  # shared_hbm allocations, reused by later SPMD instances in creation order
        self.shared_hbm_pos = 0
        self.hbm_args = []  # Alloc of every HBM kernel argument
        self.prints = []
        self.replay = replay.ENABLED and not numeric  # timing-only loop replay (replay.py)
        self.replay_active = []  # replay.Driver of the loops whose iteration is running under observation
        self.used_taint = False  # a loop yielded tainted indices: errors are re-checked by a run without replay

    # --- ids -------------------------------------------------------------------------------------------------
    def new_tid(self) -> int:
        self._next_tid += 1
        return self._next_tid

    # --- recording -------------------------------------------------------------------------------------------
    def record(self, op, engine, partitions, free_elems, dtype, in_dtypes=(), reads=(), writes=(), dma_bytes=0,
               attrs=None, line=None):
        ins = Instr(0, op, engine, kernel_line() if line is None else line, partitions, free_elems, dtype,
                    in_dtypes, dma_bytes, reads, writes, self.loop_records, attrs if attrs is not None else {})
        return self.trace.add(ins)

    # --- loops -----------------------------------------------------------------------------------------------
    def loop(self, kind, rng):
        """Generator driving one loop statement; yields plain ints so loop indices act as scalars everywhere (in
        timing-only runs, replay.Driver may yield taint.TInt, which are ints too, and skip running iterations)."""
        self._next_loop += 1
        frame = [self._next_loop, kind, 0, []]
        self.loops.append(frame)
        try:
            if self.replay and len(rng) >= replay.MIN_ITERS:
                yield from replay.Driver(self, frame, rng, sys._getframe(1)).run()
            else:
                for i in rng:
                    self.begin_iteration(frame, i)
                    yield i
        finally:
            self._end_iteration(frame)
            if self.loops and self.loops[-1] is frame:
                self.loops.pop()
            else:  # a generator closed out of order (an abandoned inner loop); drop it wherever it is
                self.loops = [f for f in self.loops if f is not frame]
            self.epoch += 1
            self.loop_records = tuple(Loop(f[0], f[1], f[2]) for f in self.loops)

    def begin_iteration(self, frame, i):
        self._end_iteration(frame)
        frame[2] = int(i)
        self.epoch += 1
        self.loop_records = tuple(Loop(f[0], f[1], f[2]) for f in self.loops)

    def end_iteration(self, frame):
        self._end_iteration(frame)

    def _end_iteration(self, frame):
        allocs = frame[3]
        if allocs:
            for a in allocs:
                self.release(a)
            frame[3] = []

    # --- allocation and liveness -----------------------------------------------------------------------------
    def track(self, alloc):
        """Start counting an SBUF/PSUM allocation against capacity."""
        alloc.footprint = alloc.block_bytes
        alloc.live = True
        self.live[alloc.tid] = weakref.ref(alloc)
        if self.loops:
            self.loops[-1][3].append(alloc)
        self._grow(alloc.memory, alloc.footprint, alloc)

    def touch_blocks(self, alloc, blocks):
        """A block-dimensioned tensor was accessed at these flat block indices."""
        if not alloc.live:
            return
        if alloc.epoch != self.epoch:
            alloc.epoch = self.epoch
            alloc.blocks = set()
        alloc.blocks.update(blocks)
        new = max(1, len(alloc.blocks)) * alloc.block_bytes
        delta = new - alloc.footprint
        if delta:
            alloc.footprint = new
            self._grow(alloc.memory, delta, alloc)

    def release(self, alloc):
        if alloc.live:
            alloc.live = False
            self.live_bytes[alloc.memory] -= alloc.footprint
            self.live.pop(alloc.tid, None)

    def _grow(self, mem, delta, alloc):
        total = self.live_bytes[mem] + delta
        self.live_bytes[mem] = total
        if total > self.peak_bytes[mem]:
            self.peak_bytes[mem] = total
            if total > self.capacity[mem]:
                self.live_bytes[mem] -= delta
                alive = (r() for r in self.live.values())
                big = sorted((a for a in alive if a is not None and a.memory == mem), key=lambda a: -a.footprint)[:4]
                names = ", ".join(f"{a.label()} {a.footprint // 1024} KiB" for a in big)
                raise errors.NkiCompileError(
                    f"{mem.upper()} capacity exceeded: {total // 1024} KiB per partition live at once, the "
                    f"{self.target} limit is {self.capacity[mem] // 1024} KiB (largest live: {names})",
                    kernel_line(), "err_out_of_memory")
