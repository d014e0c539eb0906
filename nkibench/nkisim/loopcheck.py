"""Whether a loop body may be replayed (replay.py) as far as its Python state goes.

Replay skips running the body for most iterations, so every effect of the body other than the instructions it
issues must be the same in every iteration, or absent:
  * no name may carry a value from one iteration to the next (read in the body before the body assigns it), except a
    tile that stays the same object (`acc += ...` on a tile); found from the loop's source (AST) and checked live;
  * no statement that leaves the iteration early or has effects outside it (break, continue, return, yield, try,
    with, while, global, nonlocal, del, assignments to attributes, item assignment into anything but a tile);
  * an index computed in the body (or the loop index itself) may only subscript tiles: `offsets[i]` on a Python
    list or numpy array reads a value the taint cannot follow (CPython indexes with an int subclass directly). The
    same holds in the functions the body calls, checked as each returns while an iteration runs under observation;
  * the containers and arrays the body can see (the kernel's locals it does not assign, and its module globals) must
    not change while it runs: checked by comparing snapshots.
"""
from __future__ import annotations

import ast
import linecache

import numpy as np

_FORBIDDEN = (ast.While, ast.Try, ast.With, ast.AsyncWith, ast.AsyncFor, ast.Return, ast.Yield, ast.YieldFrom,
              ast.Await, ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Delete, ast.Raise, ast.FunctionDef,
              ast.AsyncFunctionDef, ast.ClassDef, ast.NamedExpr, ast.Import, ast.ImportFrom)
if hasattr(ast, "TryStar"):
    _FORBIDDEN += (ast.TryStar,)
if hasattr(ast, "Match"):
    _FORBIDDEN += (ast.Match,)

_CACHE = {}  # (filename, source length, line) -> BodyInfo or None


class BodyInfo:
    __slots__ = ("target", "assigned", "carried", "outer", "item_bases", "index_bases", "calls", "attr_calls")

    def __init__(self, target, assigned, carried, outer, item_bases, index_bases, calls, attr_calls):
        self.target = target  # the loop variable
        self.assigned = assigned  # names the body binds
        self.carried = carried  # names read before the body binds them (they come from the previous iteration)
        self.outer = outer  # names the body reads but never binds
        self.item_bases = item_bases  # outer names the body item-assigns into (must be tiles)
        self.index_bases = index_bases  # names the body subscripts with an index it computes (must be tiles)
        self.calls = calls  # names the body calls (user functions among them are watched, see HelperWatch)
        self.attr_calls = attr_calls  # (name, attribute) pairs the body calls as name.attribute(...)


def body_info(frame):
    """BodyInfo for the `for` statement the frame is executing, or None when it cannot be replayed."""
    code = frame.f_code
    line = frame.f_lineno
    lines = linecache.getlines(code.co_filename)
    key = (code.co_filename, len(lines), sum(len(x) for x in lines), line)
    if key in _CACHE:
        return _CACHE[key]
    info = None
    try:
        if lines:
            tree = ast.parse("".join(lines))
            fors = [n for n in ast.walk(tree) if isinstance(n, ast.For) and n.lineno == line]
            if len(fors) == 1:
                info = _analyze(fors[0])
    except (SyntaxError, ValueError, RecursionError):
        info = None
    _CACHE[key] = info
    return info


def _analyze(node):
    if not isinstance(node.target, ast.Name) or node.orelse:
        return None
    nodes = list(ast.walk(ast.Module(body=node.body, type_ignores=[])))  # one walk, then filters
    loads, calls, attr_calls, subscripts = set(), set(), set(), []
    for n in nodes:
        if isinstance(n, _FORBIDDEN) or (isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)):
            return None
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load):
                loads.add(n.id)
        elif isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name):
                calls.add(f.id)
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                attr_calls.add((f.value.id, f.attr))
        elif isinstance(n, ast.Subscript):
            subscripts.append(n)
    assigned = _stores(node.body) | {node.target.id}
    carried = set()
    item_bases = set()
    _flow(node.body, {node.target.id}, assigned, carried, item_bases)
    return BodyInfo(node.target.id, frozenset(assigned), frozenset(carried), frozenset(loads - assigned),
                    frozenset(item_bases - assigned), _index_bases(subscripts, assigned), frozenset(calls),
                    frozenset(attr_calls))


def _index_bases(subscripts, assigned):
    """Names subscripted with an index built from `assigned` names ("" for a base that is not a plain name)."""
    out = set()
    for x in subscripts:
        if any(isinstance(n, ast.Name) and n.id in assigned for n in ast.walk(x.slice)):
            out.add(x.value.id if isinstance(x.value, ast.Name) else "")
    return frozenset(out)


def _stores(stmts):
    """Names bound by the statements in the loop's own scope (not inside comprehensions or lambdas)."""
    out = set()

    def visit(n):
        if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)):
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        for c in ast.iter_child_nodes(n):
            visit(c)
    for s in stmts:
        visit(s)
    return out


def _reads(expr, defined, assigned, carried):
    for x in ast.walk(expr):
        if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load) and x.id in assigned and x.id not in defined:
            carried.add(x.id)


def _target_reads(t, defined, assigned, carried, item_bases):
    """Loads inside an assignment target (item assignment reads the base and the index)."""
    if isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            _target_reads(e, defined, assigned, carried, item_bases)
    elif isinstance(t, ast.Starred):
        _target_reads(t.value, defined, assigned, carried, item_bases)
    elif isinstance(t, ast.Subscript):
        _reads(t.value, defined, assigned, carried)
        _reads(t.slice, defined, assigned, carried)
        base = t.value
        while isinstance(base, ast.Subscript):
            base = base.value
        if isinstance(base, ast.Name):
            item_bases.add(base.id)
        else:
            item_bases.add("")  # an item assignment into something we cannot name: never replay


def _flow(stmts, defined, assigned, carried, item_bases):
    """Walk the statements in order, tracking names certainly bound so far; returns the bound set at the end."""
    defined = set(defined)
    for s in stmts:
        if isinstance(s, ast.Assign):
            _reads(s.value, defined, assigned, carried)
            for t in s.targets:
                _target_reads(t, defined, assigned, carried, item_bases)
            for t in s.targets:
                defined |= _stores([ast.Expr(t)])
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                _reads(s.value, defined, assigned, carried)
            _target_reads(s.target, defined, assigned, carried, item_bases)
            if s.value is not None:
                defined |= _stores([ast.Expr(s.target)])
        elif isinstance(s, ast.AugAssign):
            if isinstance(s.target, ast.Name):
                if s.target.id not in defined:
                    carried.add(s.target.id)
            else:
                _target_reads(s.target, defined, assigned, carried, item_bases)
            _reads(s.value, defined, assigned, carried)
            defined |= _stores([ast.Expr(s.target)])
        elif isinstance(s, ast.If):
            _reads(s.test, defined, assigned, carried)
            a = _flow(s.body, defined, assigned, carried, item_bases)
            b = _flow(s.orelse, defined, assigned, carried, item_bases)
            defined = a & b
        elif isinstance(s, ast.For):
            _reads(s.iter, defined, assigned, carried)
            # the inner body may run zero times: what it binds is not certainly bound after it
            _flow(s.body, defined | _stores([ast.Expr(s.target)]), assigned, carried, item_bases)
            _flow(s.orelse, defined, assigned, carried, item_bases)
        elif isinstance(s, (ast.Expr, ast.Assert)):
            _reads(s, defined, assigned, carried)
        elif isinstance(s, ast.Pass):
            pass
        else:
            carried.add("")  # a statement we do not model: never replay
    return defined


# --- runtime checks ---------------------------------------------------------------------------------------------------

def _lookup(frame, name):
    f_locals = frame.f_locals
    if name in f_locals:
        return f_locals[name]
    if name in frame.f_globals:
        return frame.f_globals[name]
    return frame.f_builtins.get(name)


def _fingerprint(v, depth=0):
    """What may change in place about a value the loop body can see."""
    if isinstance(v, (list, tuple)):
        return (id(v), len(v)) + (tuple(_fingerprint(x, depth + 1) for x in v) if depth < 2 else
                                   tuple(id(x) for x in v))
    if isinstance(v, dict):
        return (id(v), tuple((k, _fingerprint(x, depth + 1) if depth < 2 else id(x)) for k, x in v.items()))
    if isinstance(v, (set, frozenset)):
        return (id(v), frozenset(id(x) for x in v))
    if isinstance(v, bytearray):
        return (id(v), bytes(v))
    if isinstance(v, np.ndarray):
        return (id(v), v.shape, v.dtype.str, v.tobytes() if v.nbytes <= 1 << 16 else v.ctypes.data)
    return id(v)


def snapshot(frame, info):
    """The state of what the body reads but does not bind, and the identity of every module global."""
    outer = tuple(_fingerprint(_lookup(frame, n)) for n in sorted(info.outer))
    globs = tuple((k, id(v)) for k, v in frame.f_globals.items())
    return outer, globs


def carried_values(frame, info):
    f_locals = frame.f_locals
    return tuple(f_locals.get(n) for n in sorted(info.carried))


def static_ok(frame, info):
    """Checks that need the values at the loop start: item assignments go into tiles, and so do computed indices
    into names bound outside the body."""
    from .tensor import Tile
    if "" in info.carried or "" in info.item_bases or "" in info.index_bases:
        return False
    return all(isinstance(_lookup(frame, n), Tile) for n in info.item_bases) and index_ok(frame, info, True)


def index_ok(frame, info, outer_only=False):
    """Names subscripted with computed indices hold tiles (or tainted index arrays, whose own indexing is
    watched). Names the body binds are checked once it has run."""
    from .taint import TArray
    from .tensor import Tile
    for n in info.index_bases:
        if outer_only and n in info.assigned:
            continue
        v = _lookup(frame, n)
        if not isinstance(v, (Tile, TArray)):
            return False
    return True


def carried_ok(values_per_iteration):
    """Carried names must hold the same tile object after every iteration."""
    from .tensor import Tile
    first = values_per_iteration[0]
    if any(not isinstance(v, Tile) for v in first):
        return False
    return all(len(vs) == len(first) and all(a is b for a, b in zip(vs, first)) for vs in values_per_iteration)


# --- functions the loop body calls --------------------------------------------------------------------------------------

_FN_CACHE = {}  # code object -> index bases (frozenset) or None when its source cannot be analysed


def user_files(frame, info):
    """Source files of the Python code outside nkisim that the body calls - functions and classes by name, and
    functions or methods reached through a name bound outside the body (`cfg.offset(t)`) - plus the kernel's own
    file, where helpers usually live; empty when the body calls none (then nothing needs watching)."""
    files = set()
    for n in info.calls:
        _add_user_file(files, _lookup(frame, n))
    for base, attr in info.attr_calls:
        if base not in info.assigned:
            _add_user_file(files, getattr(_lookup(frame, base), attr, None))
    if files:
        files.add(frame.f_code.co_filename)
    return frozenset(files)


def _add_user_file(files, obj):
    import inspect
    from .taint import file_kind
    obj = getattr(obj, "func", obj)  # an nki.jit Kernel
    obj = getattr(obj, "__func__", obj)  # a bound method
    if inspect.isclass(obj):
        try:
            fn = inspect.getsourcefile(obj)
        except TypeError:  # a builtin class
            return
    elif inspect.isfunction(obj):
        fn = obj.__code__.co_filename
    else:
        return
    if fn and file_kind(fn) != 1:
        files.add(fn)


def _code_index_bases(code):
    hit = _FN_CACHE.get(code, False)
    if hit is not False:
        return hit
    out = None
    try:
        lines = linecache.getlines(code.co_filename)
        tree = ast.parse("".join(lines)) if lines else None
        for n in ast.walk(tree) if tree is not None else ():
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                first = min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])])
                if first == code.co_firstlineno and getattr(n, "name", "<lambda>") == code.co_name:
                    a = n.args
                    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
                    names |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
                    body = n.body if isinstance(n.body, list) else [ast.Expr(n.body)]
                    subs = [x for x in ast.walk(ast.Module(body=body, type_ignores=[])) if isinstance(x, ast.Subscript)]
                    out = _index_bases(subs, names | _stores(body))
                    break
            elif isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)) and \
                    n.lineno == code.co_firstlineno and code.co_name.startswith("<"):
                names = set()
                for g in n.generators:
                    names |= {x.id for x in ast.walk(g.target) if isinstance(x, ast.Name)}
                out = _index_bases([x for x in ast.walk(n) if isinstance(x, ast.Subscript)], names)
                break
    except (SyntaxError, ValueError, RecursionError):
        out = None
    _FN_CACHE[code] = out
    return out


class HelperWatch:
    """A profile hook for the iterations run under observation: every function from `files` that returns must
    subscript only tiles with the indices it computes; otherwise `violation` is called."""

    def __init__(self, files, violation):
        self.files = files
        self.violation = violation
        self.prev = None

    def __enter__(self):
        import sys
        self.prev = sys.getprofile()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc):
        import sys
        sys.setprofile(self.prev)
        return False

    def _hook(self, frame, event, arg):
        if event != "return" or frame.f_code.co_filename not in self.files:
            return
        from .taint import TArray
        from .tensor import Tile
        bases = _code_index_bases(frame.f_code)
        if bases is None or "" in bases or \
                any(not isinstance(_lookup(frame, n), (Tile, TArray)) for n in bases):
            self.violation()
