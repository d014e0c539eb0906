"""Which function of a kernel source is the kernel: one rule, decided from the source's AST alone (nothing runs), for
the runner's static check (accelopt_runner/jobs.py), nkisim.load_kernel and the Neuron backend, for both NKI
generations. Standard library only, so the serving process can apply it without importing nkisim's engine.

  1. the request names it ("function"): that function, or an error if the source does not define it;
  2. the task names it (task.json "function") and the source defines it at top level: that one;
  3. the top-level functions with a jit decorator (@nki.jit, @jit, @nki.jit(...), @nki.baremetal: any decorator
     whose final name is jit or baremetal): exactly one is the kernel; of several, the only one no other function
     of the file calls (the others are traced helpers), else one named `kernel`; otherwise an error listing them;
  4. nothing decorated (the original dataset's kernels): `kernel`, else `optimized_kernel`, else the only top-level
     function; otherwise an error asking for @nki.jit.
A user's kernel keeps its own name (row_softmax), and a file with helpers beside the kernel needs no renaming.
"""
from __future__ import annotations

import ast

JIT_NAMES = ("jit", "baremetal")
LEGACY_NAMES = ("kernel", "optimized_kernel")


class NoKernelFunction(ValueError):
    """The source has no function the rule can take as the kernel; the message says what to do."""


def _final_name(dec) -> str:
    """The last name of a decorator expression: nki.jit -> jit, nki.jit(mode=...) -> jit, jit -> jit."""
    if isinstance(dec, ast.Call):
        dec = dec.func
    if isinstance(dec, ast.Attribute):
        return dec.attr
    if isinstance(dec, ast.Name):
        return dec.id
    return ""


def _top_level(tree: ast.Module):
    """(function definitions by name in source order, names bound at top level by assignment)."""
    funcs = {}
    assigned = set()
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            funcs[n.name] = n
        elif isinstance(n, ast.Assign):
            assigned |= {t.id for t in n.targets if isinstance(t, ast.Name)}
    return funcs, assigned


def valid_name(name) -> bool:
    return isinstance(name, str) and name.isidentifier()


def choose(tree: ast.Module, requested: str | None = None, task_function: str | None = None) -> str:
    """The kernel function's name by the rule above; raises NoKernelFunction."""
    funcs, assigned = _top_level(tree)
    if requested:
        if requested not in funcs and requested not in assigned:
            raise NoKernelFunction(f"the source defines no function named '{requested}'")
        return requested
    if task_function and (task_function in funcs or task_function in assigned):
        return task_function
    jitted = [name for name, f in funcs.items() if any(_final_name(d) in JIT_NAMES for d in f.decorator_list)]
    if len(jitted) > 1:
        # A jit function another function of the file calls is a helper (a traced sub-kernel), not the kernel.
        called = {c.func.id for name, f in funcs.items() for c in ast.walk(f)
                  if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id != name}
        entry = [name for name in jitted if name not in called]
        legacy = [name for name in LEGACY_NAMES if name in jitted]
        jitted = entry if len(entry) == 1 else (legacy[:1] or jitted)
    if len(jitted) == 1:
        return jitted[0]
    if len(jitted) > 1:
        raise NoKernelFunction(f"the source has several @nki.jit functions ({', '.join(jitted)}); name the kernel "
                               f"with the request's 'function' field (accelopt: --function)")
    for name in LEGACY_NAMES:
        # an assignment counts too, so `kernel = 5` is reported at load time as "'kernel' is not a function"
        if name in funcs or name in assigned:
            return name
    if len(funcs) == 1:
        return next(iter(funcs))
    raise NoKernelFunction("the source defines no @nki.jit function (decorate the kernel function with @nki.jit)")


def choose_in_source(source: str, requested: str | None = None, task_function: str | None = None) -> str:
    """choose() on source text; a syntax error is left to the caller's compile step (returns the legacy default)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return requested or "kernel"
    return choose(tree, requested, task_function)
