"""Running kernels: loading from source, argument checks, SPMD grids, and turning failures into NkiErrors that name
the kernel line. The runner (accelopt_runner) and the nki.jit drop-in both come through run_kernel."""
from __future__ import annotations

import inspect
import itertools
import linecache
import os
import sys
import time
import traceback
import types
from dataclasses import dataclass, field

import numpy as np

from . import context, errors, importer, kernelfn, memory, replay, taint
from .dtypes import of_array
from .taint import file_kind
from .tensor import Tile, new_alloc
from .trace import Trace
from .current import generation as _generation
from .current.tensor import adopt
from .typing import TensorSpec

DEFAULT_TARGET = os.environ.get("NKISIM_TARGET", "trn1")
_load_count = itertools.count()


@dataclass
class OutputSpec:
    """An output in timing-only mode: its shape and dtype, no data."""
    shape: tuple
    dtype: str


@dataclass
class RunResult:
    outputs: list  # numpy arrays in numeric mode (bf16/fp8 values held in float32), OutputSpec in timing-only mode
    trace: Trace
    error: errors.NkiError | None = None
    status: str = "ok"  # "ok", "compile_error" or "runtime_error"
    style: str = "return"  # "return" (outputs returned), "by_reference" (written into arguments) or "none"
    target: str = "trn1"
    numeric: bool = True
    grid: tuple = ()
    wall_s: float = 0.0
    peak_sbuf_bytes: int = 0  # per partition, under the liveness rule in context.py
    peak_psum_bytes: int = 0
    output_arg_indices: list = field(default_factory=list)  # by_reference: which arguments were written
    generation: str = "classic"  # the NKI API the kernel is written against (current/generation.py)

    @property
    def ok(self) -> bool:
        return self.error is None


def load_kernel(source: str, filename: str = "<kernel>", name: str | None = None,
                task_function: str | None = None):
    """Execute kernel source text and return its kernel function: `name` when given, else the one kernelfn's rule
    picks (the task's `function`, the only @nki.jit function, else `kernel` / `optimized_kernel` / the only one).

    The module's imports of neuronxcc.nki resolve to nkisim, at load time and whenever its functions run later."""
    if not isinstance(source, str):
        raise errors.KernelLoadError("kernel source must be text")
    if filename == "<kernel>":
        filename = f"<kernel-{next(_load_count)}>"
    try:
        code = compile(source, filename, "exec")
    except SyntaxError as e:
        raise errors.KernelLoadError(f"syntax error: {e.msg}" + (f": {e.text.strip()}" if e.text else ""),
                                     e.lineno or 0, filename=filename) from None
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    from . import language
    # Chosen from the text, but told after the module ran: its own import error says more than a missing kernel.
    try:
        name, no_kernel = kernelfn.choose_in_source(source, name, task_function), None
    except kernelfn.NoKernelFunction as e:
        no_kernel = str(e)
    # The kernel's own builtins resolve neuronxcc.nki* imports to nkisim wherever they run (importer.py).
    # The kernel module is a real module, in sys.modules while its top level runs: @dataclass (and typing's
    # NamedTuple) look their class's module up there, and the SDK imports a kernel file as an ordinary module.
    # On disk, its relative imports (`from .helpers import x`) resolve against its folder (importer.py).
    mod = types.ModuleType(f"nki_kernel_{next(_load_count)}")
    ns = mod.__dict__
    ns.update({"__file__": filename, "__builtins__": importer.kernel_builtins(), "range": language.python_range})
    sys.modules[mod.__name__] = mod
    try:
        exec(code, ns)
    except errors.NkiError:
        raise
    except BaseException as e:  # noqa: BLE001 - the kernel's top level can raise anything
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        raise errors.KernelLoadError(f"the kernel module raised {type(e).__name__}: {e}",
                                     _line_of(e, filename), filename=filename) from None
    finally:
        sys.modules.pop(mod.__name__, None)
    if no_kernel:
        raise errors.KernelLoadError(no_kernel, 0, filename=filename)
    fn = ns.get(name)
    if fn is None:
        raise errors.KernelLoadError(f"the source defines no function named '{name}'", 0, filename=filename)
    fn = getattr(fn, "func", fn)  # an @nki.jit Kernel wraps the function
    if not callable(fn):
        raise errors.KernelLoadError(f"'{name}' is not a function", 0, filename=filename)
    return fn


def _line_of(exc, filename=None):
    """The kernel line an exception came from: the deepest frame in the kernel file, else outside nkisim."""
    tb = traceback.extract_tb(exc.__traceback__)
    if filename:
        for fr in reversed(tb):
            if fr.filename == filename:
                return fr.lineno
    for fr in reversed(tb):
        if not file_kind(fr.filename) and "numpy" not in fr.filename:
            return fr.lineno
    return 0


def _rebind(fn):
    """A copy of fn whose global `range` is the recorded python_range (the compiler treats range loops as
    sequential loops; we want them in the trace)."""
    from . import language
    g = fn.__globals__
    if g.get("range") is language.python_range:
        return fn
    g2 = dict(g)
    g2["range"] = language.python_range
    f2 = types.FunctionType(fn.__code__, g2, fn.__name__, fn.__defaults__, fn.__closure__)
    f2.__kwdefaults__ = fn.__kwdefaults__
    return f2


def _grid_tuple(grid):
    """The launch grid as a tuple of sizes. A size of 0 launches one instance along that axis, as the SDK does: the
    NKI docs put no restriction on the sizes of a grid's dimensions, and nki-samples' pipelined_attention (merged
    with its numeric check passing under nki.baremetal, nki-samples PR #63) launches `flash_fwd[0](...)` and checks
    the output it returns against numpy. A grid of no instances would return nothing to check."""
    if grid is None:
        return ()
    if not isinstance(grid, (tuple, list)):
        grid = (grid,)
    sizes = tuple(int(g) for g in grid)
    if any(g < 0 for g in sizes):
        raise errors.ArgumentError(f"a launch grid's sizes cannot be negative: {list(sizes)}")
    return tuple(max(g, 1) for g in sizes)


def run_kernel(fn_or_source, args, target: str = DEFAULT_TARGET, numeric: bool = True, grid=None, kwargs=None,
               raise_errors: bool = False, name: str | None = None, generation: str | None = None) -> RunResult:
    """Run a kernel once (each SPMD instance in turn) and return its outputs and instruction trace.

    fn_or_source: a function, an nki.jit Kernel, or source text (its kernel function: `name`, else kernelfn's rule).
    args: numpy arrays (HBM tensors), nt.tensor placeholders (timing-only), or plain Python scalars.
    numeric=False skips all computation; the trace is the same.
    generation: "classic" or "current" (the NKI API the kernel is written against); None decides by its imports
    (current/generation.py), classic when it has none.
    """
    t0 = time.perf_counter()
    trace = Trace()
    res = RunResult([], trace, target=target, numeric=numeric)
    filename = None
    try:
        res.grid = _grid_tuple(grid)
        if isinstance(fn_or_source, str):
            fn = load_kernel(fn_or_source, name=name)
        else:
            fn = getattr(fn_or_source, "func", fn_or_source)
            if not callable(fn):
                raise errors.ArgumentError(f"not a kernel: {fn_or_source!r}")
        filename = fn.__code__.co_filename
        res.generation = generation or _generation.detect(fn) or _generation.CLASSIC
        _run(fn, list(args), dict(kwargs or {}), res, target, numeric)
    except errors.NkiError as e:
        if not e.line and filename:
            e.line = _line_of(e, filename)
        res.error = e
        res.status = e.status
    res.wall_s = time.perf_counter() - t0
    if res.error is not None and raise_errors:
        raise res.error
    return res


def _run(fn, args, kwargs, res, target, numeric):
    params = inspect.signature(fn)
    try:
        params.bind(*args, **kwargs)
    except TypeError as e:
        n = len([p for p in params.parameters.values() if p.default is inspect.Parameter.empty and
                 p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
        raise errors.ArgumentError(f"wrong arguments for kernel '{fn.__name__}': it takes {n} positional "
                                   f"argument(s), {len(args)} given ({e})",
                                   getattr(fn, "nkisim_first_line", 0) or fn.__code__.co_firstlineno) from None
    if numeric:
        memory.tune_malloc()
        with memory.young_collections_only():
            _attempts(fn, args, kwargs, res, target, numeric)
        return
    # A timing-only run creates a record per instruction and little else, none of it in cycles: the collector's
    # passes over the growing trace cost as much as a third of a short run. (Numeric runs keep the young
    # collections: a tile the kernel's code leaves in a cycle can hold a large array.)
    with memory.paused_gc():
        _attempts(fn, args, kwargs, res, target, numeric)


def _attempts(fn, args, kwargs, res, target, numeric):
    if not numeric and replay.ENABLED:
        used = [None]
        try:
            _attempt(fn, args, kwargs, res, target, numeric, True, used)
            return
        except replay.ReplayMismatch:
            pass
        except errors.NkiError:
            if used[0] is None or not used[0].used_taint:
                raise
        # Replay gave up on a loop, or a run with tainted loop indices failed: the plain run decides (replay.py).
        replay.stats["reruns"] = replay.stats.get("reruns", 0) + 1
        res.trace = Trace()
        res.outputs, res.output_arg_indices, res.style = [], [], "return"
    _attempt(fn, args, kwargs, res, target, numeric, False, [None])


def _attempt(fn, args, kwargs, res, target, numeric, use_replay, used):
    ctx = context.Context(target, numeric)
    ctx.generation = res.generation
    ctx.replay = use_replay
    used[0] = ctx
    ctx.trace = res.trace
    ctx.grid = res.grid
    prev = context._current
    context._current = ctx
    profiler = sys.getprofile()  # replay watches helper functions with a profile hook (loopcheck.HelperWatch)
    tainting = taint.ACTIVE[0]
    filename = fn.__code__.co_filename
    names = list(inspect.signature(fn).parameters)
    try:
        with np.errstate(all="ignore"):
            wrapped = [_wrap_arg(a, names[i] if i < len(names) else f"arg{i}", ctx) for i, a in enumerate(args)]
            kw = {k: _wrap_arg(v, k, ctx) for k, v in kwargs.items()}
            if ctx.generation == _generation.CURRENT:
                # A current kernel indexes its arguments by the nki.* rules (current/tensor.py).
                wrapped = [_adopt_arg(a) for a in wrapped]
                kw = {k: _adopt_arg(v) for k, v in kw.items()}
            call = _rebind(fn)
            ret = None
            for pid in (itertools.product(*[range(g) for g in res.grid]) if res.grid else [()]):
                ctx.program = pid
                ctx.shared_hbm_pos = 0
                try:
                    ret = call(*wrapped, **kw)
                except errors.NkiError:
                    raise
                except RecursionError as e:
                    raise errors.KernelException(f"RecursionError: {e}", _line_of(e, filename), e, filename)
                except Exception as e:  # noqa: BLE001 - any exception in kernel code is the kernel's error
                    raise errors.KernelException(f"{type(e).__name__}: {e}", _line_of(e, filename), e,
                                                 filename) from None
            ctx.check_capacity()
            _collect(ret, wrapped, res, ctx, fn)
    finally:
        context._current = prev
        taint.ACTIVE[0] = tainting
        if sys.getprofile() is not profiler:  # a watch left behind by an iteration the kernel did not finish
            sys.setprofile(profiler)
        res.peak_sbuf_bytes = ctx.peak_bytes["sbuf"]
        res.peak_psum_bytes = ctx.peak_bytes["psum"]


def _wrap_arg(a, name, ctx):
    if isinstance(a, np.ndarray):
        dt = of_array(a)  # a HostArray (nl.static_cast on the host) is of the narrow dtype it holds
        a = np.asarray(a)
        data = None
        if ctx.numeric:
            data = a if a.flags.c_contiguous and a.dtype == dt.dtype else np.ascontiguousarray(a, dtype=dt.dtype)
        alloc = new_alloc(a.shape, dt, "hbm", name=name, init=None, data=data, hbm_kind="shared_hbm")
        ctx.hbm_args.append(alloc)
        return Tile(alloc)
    if isinstance(a, TensorSpec):
        if ctx.numeric:
            raise errors.ArgumentError(f"argument '{name}' is a shape-only placeholder; numeric runs need arrays")
        alloc = new_alloc(a.shape, a.dtype, "hbm", name=name, init=None, hbm_kind="shared_hbm")
        ctx.hbm_args.append(alloc)
        return Tile(alloc)
    if isinstance(a, (list, tuple)) and a and all(isinstance(x, (np.ndarray, TensorSpec)) for x in a):
        return type(a)(_wrap_arg(x, f"{name}[{i}]", ctx) for i, x in enumerate(a))
    return a


def _adopt_arg(a):
    if isinstance(a, Tile):
        return adopt(a)
    if isinstance(a, (list, tuple)) and a and all(isinstance(x, Tile) for x in a):
        return type(a)(adopt(x) for x in a)
    return a


def _return_line(fn):
    import dis
    if getattr(fn, "nkisim_return_line", 0):  # a kernel whose code runs elsewhere (remote/server.py)
        return fn.nkisim_return_line
    lines = [i.positions.lineno for i in dis.get_instructions(fn.__code__)
             if i.opname in ("RETURN_VALUE", "RETURN_CONST") and i.positions and i.positions.lineno]
    return max(lines) if lines else fn.__code__.co_firstlineno


def _collect(ret, wrapped, res, ctx, fn):
    rets = []
    if isinstance(ret, Tile):
        rets = [ret]
    elif isinstance(ret, (tuple, list)):
        rets = list(ret)
    elif ret is not None:
        raise errors.NkiCompileError(f"a kernel must return HBM tensors (or nothing), got {type(ret).__name__}",
                                     _return_line(fn))
    if rets:
        res.style = "return"
        for r in rets:
            if not isinstance(r, Tile) or r.alloc.memory != "hbm":
                what = r.alloc.memory.upper() if isinstance(r, Tile) else type(r).__name__
                raise errors.NkiCompileError(f"kernel outputs must be HBM tensors (nl.shared_hbm), got {what}",
                                             _return_line(fn), "err_unsupported_memory")
            if ctx.generation == _generation.CURRENT and r.alloc.hbm_kind != "shared_hbm":
                raise _generation.cerr("kernel outputs must be allocated with buffer=nl.shared_hbm (nl.hbm / "
                                       "nl.private_hbm outputs fail to compile since NKI 0.3.0)",
                                       "err_unsupported_memory", _return_line(fn))
        res.outputs = [_output(r, ctx) for r in rets]
        return
    written = [i for i, w in enumerate(wrapped) if isinstance(w, Tile) and w.alloc.written]
    res.style = "by_reference" if written else "none"
    res.output_arg_indices = written
    res.outputs = [_output(wrapped[i], ctx) for i in written]


def _output(t, ctx):
    if not ctx.numeric:
        return OutputSpec(tuple(t.shape), t.alloc.dtype.name)
    d = t.read()
    return np.array(d, copy=True) if t.key is not None or t.alloc.data is not d else d
