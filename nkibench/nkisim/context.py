"""The state of one kernel run: the trace being recorded, the loop nest, SPMD coordinates, and the SBUF/PSUM
liveness accounting behind the capacity rule.

Capacity rule: the on-chip bytes live at one instruction must fit (SBUF 192 KiB (trn1) / 224 KiB (trn2) / 256 KiB (trn3) per
partition, PSUM 16 KiB per partition). An allocation is live from the first instruction that accesses it to the last
one (the compiler's liveness: it reuses a tile's space after its last use, and it drops a tensor nothing accesses).

Checked in two steps, because the last use is known only afterwards:
  * While the kernel runs, a cheap upper bound: an allocation counts from its creation until the end of the loop
    iteration it was created in, until Python drops the last reference to it (temporaries such as the result of
    `buf[...] = nl.exp(x)`), or until the kernel ends (allocations outside any loop). A tensor with leading block
    dimensions counts one physical (P, F) tile per block index touched in the current iteration of the innermost
    enclosing loop (at least one): blocks touched in earlier iterations are recycled or spilled, as the compiler
    does, so a kernel may declare far more than fits.
  * Where that bound exceeds the capacity, the run keeps a window of the allocations involved, and at the end
    (check_capacity) the bytes live by first and last use are summed at every instruction of the window. Only that
    is an error. The bound alone rejected kernels the compiler accepts: the original NKIBench mamba keeps a dozen
    28 KiB tiles bound to names in one loop body, but no more than six of them are in use at once.
A timing-only run under loop replay (replay.py) does not record windows: it hands an over-bound run to a plain run.
"""
from __future__ import annotations

import sys
import weakref

from . import errors, opregistry, replay
from .hardware import PSUM_BYTES, SBUF_BYTES
from .taint import file_kind
from .trace import Instr, Loop, Trace

_REGISTERED = set()  # (op, engine) pairs opregistry.check has passed
MAX_WINDOWS = 4096  # capacity windows kept before the earlier ones are settled

_current = None
# The kernel line of the request being served, when the kernel's code runs in another process (remote/server.py):
# there are no kernel frames here to read it from.
LINE = [None]


def _kib(n: int) -> str:
    """Bytes as KiB, with a decimal where it matters: 16.5 KiB over a 16 KiB limit must not read "16 KiB"."""
    return f"{n // 1024} KiB" if n % 1024 == 0 else f"{n / 1024:.1f} KiB"


def current() -> "Context":
    if _current is None:
        raise errors.NkiCompileError("NKI API called outside a kernel run (call the kernel through nkisim)")
    return _current


def active():
    return _current


def kernel_line() -> int:
    """Line of the innermost frame outside nkisim: the kernel statement that called the API."""
    if LINE[0] is not None:
        return LINE[0]
    f = sys._getframe(1)
    while f is not None:
        if not file_kind(f.f_code.co_filename):
            return f.f_lineno
        f = f.f_back
    return 0


class Context:
    def __init__(self, target="trn1", numeric=True):
        if target not in SBUF_BYTES:
            raise errors.ArgumentError(f"unknown target {target!r} (expected one of {', '.join(SBUF_BYTES)})")
        self.target = target
        self.numeric = numeric
        self.generation = "classic"  # or "current": the NKI API of the kernel (current/generation.py)
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
        # Capacity windows (module docstring): [memory, first instruction, last instruction or None, use cells].
        # A use cell is [first instruction, last instruction, footprint, label], kept by the allocation (alloc.use).
        self.windows = []
        self._open = {"sbuf": None, "psum": None}
        self._fills = (-1, 0)  # (instruction count, fills since it): see note_use

    # --- ids -------------------------------------------------------------------------------------------------
    def new_tid(self) -> int:
        self._next_tid += 1
        return self._next_tid

    # --- recording -------------------------------------------------------------------------------------------
    def record(self, op, engine, partitions, free_elems, dtype, in_dtypes=(), reads=(), writes=(), dma_bytes=0,
               attrs=None, line=None):
        if (op, engine) not in _REGISTERED:
            opregistry.check(op, engine)  # an instruction nothing can cost is nkisim's bug: refuse it here
            _REGISTERED.add((op, engine))
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
        alloc.use = [None, -1, alloc.footprint, None]
        self.live[alloc.tid] = weakref.ref(alloc)
        if self.loops:
            self.loops[-1][3].append(alloc)
        w = self._open[alloc.memory]
        if w is not None:
            w[3].append(alloc.use)
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
            if new > alloc.use[2]:
                alloc.use[2] = new
            self._grow(alloc.memory, delta, alloc)

    def release(self, alloc):
        if alloc.live:
            alloc.live = False
            mem = alloc.memory
            self.live_bytes[mem] -= alloc.footprint
            self.live.pop(alloc.tid, None)
            w = self._open[mem]
            if w is not None and self.live_bytes[mem] <= self.capacity[mem]:
                w[2] = len(self.trace.instrs)  # back under the bound: the window closes
                self._open[mem] = None

    def _grow(self, mem, delta, alloc):
        total = self.live_bytes[mem] + delta
        self.live_bytes[mem] = total
        if total > self.peak_bytes[mem]:
            self.peak_bytes[mem] = total
        if total > self.capacity[mem] and self._open[mem] is None:
            if self.replay:
                # Replayed iterations keep no use cells; a plain run decides (run._attempts).
                raise replay.ReplayMismatch(f"{mem} over the liveness bound: checked by a plain run")
            if len(self.windows) >= MAX_WINDOWS:
                self.check_capacity()  # settle the windows so far (their allocations' later uses are not seen)
                self.windows = []
            cells = [a.use for a in (r() for r in self.live.values())
                     if a is not None and a.memory == mem and a.use is not None]
            for a in (r() for r in self.live.values()):
                if a is not None and a.memory == mem and a.use is not None and a.use[3] is None:
                    a.use[3] = a.label()
            w = [mem, len(self.trace.instrs) - 0.5, None, cells]
            self.windows.append(w)
            self._open[mem] = w

    def note_use(self, alloc, filled=False):
        """An instruction about to be recorded accesses this on-chip allocation; or, filled, the allocation was
        created with a value (nl.zeros, nl.full), which is a use between the previous instruction and the next."""
        u = alloc.use
        n = len(self.trace.instrs)
        if filled:
            # Fills between two instructions get distinct points, in order, so an error names the right line.
            k = self._fills[1] + 1 if self._fills[0] == n else 0
            self._fills = (n, k)
            n = n - 0.5 + min(k, 100000) * 1e-6
        if u[0] is None:
            u[0] = n
            if filled:
                u.append(kernel_line())  # u[4]: the line that created it, for an error at that point
        u[1] = n
        w = self._open[alloc.memory]
        if w is not None and u[3] is None:
            u[3] = alloc.label()

    def fold_zero_fill(self, alloc):
        """A matmul starts accumulating into a PSUM tile that nl.zeros filled and nothing has touched since: the
        compiler drops the fill (the group's first matmul overwrites the bank instead of adding), so the tile is
        in use from this matmul on, not from its creation. Eight [128, 512] fp32 accumulators created up front fill
        PSUM exactly; counting them from creation refused GEMMs the compiler accepts."""
        u = alloc.use
        if u is not None and len(u) > 5 and u[5] and u[0] is not None and u[0] == u[1] and u[0] != int(u[0]):
            u[0] = None

    def check_capacity(self):
        """Raise the capacity error if, in some window, the bytes live by first and last use exceed the capacity."""
        n = len(self.trace.instrs)
        for mem, t0, t1, cells in self.windows:
            t1 = n - 1 if t1 is None else t1
            events = []
            for c in cells:
                if c[0] is None:
                    continue  # never accessed: the compiler allocates nothing for it
                lo, hi = max(c[0], t0), min(c[1], t1)
                if lo <= hi:
                    events.append((lo, c[2]))
                    events.append((hi + 0.25, -c[2]))  # free before the next use point (uses are n or n - 0.5)
            events.sort(key=lambda e: (e[0], e[1]))  # frees before allocations at the same instruction
            # The first instruction over the capacity is where the compiler runs out; report that one.
            total = peak = 0
            at = t0
            for t, d in events:
                total += d
                if total > self.capacity[mem]:
                    peak, at = total, t
                    break
            if peak:
                live = sorted((c for c in cells if c[0] is not None and c[0] <= at <= c[1]), key=lambda c: -c[2])
                names = ", ".join(f"{c[3] or 'a tile'} {_kib(c[2])}" for c in live[:4])
                if at != int(at):  # a fill at creation: its own line
                    line = next((c[4] for c in cells if c[0] == at and len(c) > 4), 0)
                else:
                    line = self.trace.instrs[int(at)].line if at < n else 0
                raise errors.NkiCompileError(
                    f"{mem.upper()} capacity exceeded: {_kib(peak)} per partition in use at once (from first to "
                    f"last use), the {self.target} limit is {_kib(self.capacity[mem])} (largest: {names})",
                    line, "err_out_of_memory")
