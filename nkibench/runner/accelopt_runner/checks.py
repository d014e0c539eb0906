"""Static checks on untrusted kernel source, run before anything executes it (../README.md, "Untrusted kernels").

check_kernel(source, task_dtype) -> list of Finding (empty: accepted). Any finding means status "rejected"; each
names its line. The checks are an AST scan, a first line of defence; the sandbox (sandbox.py) limits what slips
through. They reject:
  * imports other than neuronxcc.nki*, nki*, numpy, math and a few pure helpers (ALLOWED_IMPORTS);
  * names a kernel has no business using: os, sys, subprocess, socket, open, eval, exec, compile, __import__,
    globals, locals, vars, setattr, delattr, breakpoint, input, ... (FORBIDDEN_NAMES), and getattr with a
    non-constant or dunder attribute name;
  * attributes that reach the same places through a module (np.ctypeslib, np.load, np.fromfile, ...), numpy
    global-state tampering (np.random.*, np.seterr, np.set_printoptions, ...), any dunder attribute
    (__class__, __subclasses__, __globals__, __dict__, ...), assignments to dunder names, and assignments to
    attributes of imported modules (monkey-patching nl.load, np.pi, ...);
  * precision downgrades (heuristic): any reference to a floating dtype narrower than the task's dtype, e.g.
    nl.bfloat16 / np.float16 / "bfloat16" / nl.tfloat32 / nl.float8_e4m3 in a float32 task. Like the original
    harness (which rejects the substring "float16" outside comments) this is deliberately blunt: a float32 task
    has no legitimate use for a bf16 operand, since it trades the task's precision for speed. Docstrings and
    comments are not code and are ignored.
`if __name__ == "__main__":` blocks are skipped (they never run: the kernel module's __name__ is not
"__main__", and assigning to dunder names is rejected).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

ALLOWED_IMPORTS = ("neuronxcc.nki", "nki", "numpy", "math", "functools", "itertools", "operator", "typing",
                   "__future__", "dataclasses", "enum")
# neuronxcc itself (the package) is allowed only as the route to neuronxcc.nki: `import neuronxcc.nki as nki`.

FORBIDDEN_NAMES = {
    # builtins that reach files, code, the harness or the interpreter
    "open", "eval", "exec", "compile", "__import__", "globals", "locals", "vars", "setattr", "delattr",
    "breakpoint", "exit", "quit", "__builtins__", "__loader__", "__spec__",
    # modules (only reachable after an import, which is rejected too; named here for a clearer message)
    "os", "sys", "subprocess", "socket", "importlib", "ctypes", "pickle", "marshal", "threading", "multiprocessing",
    "builtins", "shutil", "pathlib", "tempfile", "asyncio", "urllib", "gc", "faulthandler", "nkisim",
    "accelopt_runner",
}
# attribute names rejected on any object
FORBIDDEN_ATTRS = {
    "ctypeslib", "f2py", "distutils", "system", "popen", "environ", "modules", "_exit", "fork", "forkpty",
    "spawnv", "spawnl", "execv", "execve", "tofile", "open_memmap", "os", "sys", "subprocess", "socket",
    "importlib", "ctypes", "pickle", "builtins", "threading", "multiprocessing", "shutil", "f_globals",
    "f_locals", "f_back", "gi_frame", "cr_frame", "tb_frame",
}
# attribute names rejected on numpy (np.load is file access; np.random / np.seterr / ... are global state)
NUMPY_FORBIDDEN_ATTRS = {
    "random", "seterr", "seterrcall", "seterrobj", "set_printoptions", "setbufsize", "set_string_function",
    "printoptions", "load", "save", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt", "fromfile",
    "fromregex", "memmap", "DataSource", "testing", "lib", "core", "seed", "set_state", "get_state",
}

# Floating dtypes by precision rank (bits of mantissa matter; we rank by the usual "narrower than" order).
_FLOAT_RANK = {
    "float64": 64, "double": 64, "float32": 32, "single": 32, "float": 32, "float32r": 32, "fp32": 32,
    "tfloat32": 19, "tf32": 19, "float16": 16, "half": 16, "fp16": 16, "bfloat16": 16, "bf16": 16,
    "float8_e4m3": 8, "float8_e5m2": 8, "float8_e4m3fn": 8, "float8_e3m4": 8, "float8_e8m0fnu": 8, "fp8": 8,
    "float8": 8, "float4_e2m1fn_x4": 4, "float8_e4m3fn_x4": 8, "float8_e5m2_x4": 8,
}
# names only used as dtype references when they appear as attributes or string constants
_DTYPE_TOKENS = {k for k in _FLOAT_RANK if k not in ("float", "double", "single")}


@dataclass
class Finding:
    line: int
    message: str
    kind: str = "forbidden"  # "import", "forbidden", "dunder", "precision", "monkeypatch"

    def __str__(self):
        return f"line {self.line}: {self.message}" if self.line else self.message


def task_rank(dtype: str | None) -> int:
    return _FLOAT_RANK.get(str(dtype or "float32").lower().replace("np.", "").replace("nl.", ""), 32)


def _import_allowed(mod: str) -> bool:
    if mod == "neuronxcc":
        return True
    parts = mod.split(".")
    if any(p in FORBIDDEN_ATTRS or p in NUMPY_FORBIDDEN_ATTRS or p.startswith("_") for p in parts[1:]):
        return False  # numpy.random, numpy.ctypeslib, numpy.lib.format, ...
    return any(mod == a or mod.startswith(a + ".") for a in ALLOWED_IMPORTS)


def _is_main_guard(node) -> bool:
    t = node.test if isinstance(node, ast.If) else None
    return (isinstance(t, ast.Compare) and isinstance(t.left, ast.Name) and t.left.id == "__name__"
            and len(t.comparators) == 1 and isinstance(t.comparators[0], ast.Constant)
            and t.comparators[0].value == "__main__")


def _docstring_nodes(tree):
    ids = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body:
            first = n.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
                    isinstance(first.value.value, str):
                ids.add(id(first.value))
    return ids


def _root_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.value if not isinstance(node, ast.Call) else node.func
    return node.id if isinstance(node, ast.Name) else None


def check_kernel(source: str, task_dtype: str | None = "float32", tree=None) -> list:
    """All findings for a kernel source (raises SyntaxError when it does not parse)."""
    if tree is None:
        tree = ast.parse(source)
    findings: list[Finding] = []
    docstrings = _docstring_nodes(tree)
    rank = task_rank(task_dtype)
    module_aliases: set[str] = set()
    numpy_aliases: set[str] = {"np", "numpy"}

    skip = set()
    for n in ast.walk(tree):
        if _is_main_guard(n):
            for sub in n.body:
                for s in ast.walk(sub):
                    skip.add(id(s))

    nodes = [n for n in ast.walk(tree) if id(n) not in skip]
    for n in nodes:  # first pass: imports (they define the module aliases the second pass needs)
        if isinstance(n, ast.Import):
            for a in n.names:
                if not _import_allowed(a.name):
                    findings.append(Finding(n.lineno, f"import of '{a.name}' is not allowed (a kernel may import "
                                                      f"only neuronxcc.nki*, numpy, math and pure helpers)",
                                            "import"))
                module_aliases.add((a.asname or a.name).split(".")[0])
                if a.name == "numpy" or a.name.startswith("numpy."):
                    numpy_aliases.add((a.asname or a.name).split(".")[0])
        elif isinstance(n, ast.ImportFrom):
            mod = ("." * n.level) + (n.module or "")
            if n.level or not _import_allowed(mod):
                findings.append(Finding(n.lineno, f"import from '{mod}' is not allowed (a kernel may import only "
                                                  f"neuronxcc.nki*, numpy, math and pure helpers)", "import"))
            for a in n.names:
                if a.name == "*":
                    continue
                full = f"{n.module}.{a.name}" if n.module else a.name
                if n.module and _import_allowed(full) and full != n.module:
                    module_aliases.add(a.asname or a.name)  # from neuronxcc.nki import language as nl
                bad = FORBIDDEN_ATTRS | (NUMPY_FORBIDDEN_ATTRS if (n.module or "").split(".")[0] == "numpy"
                                         else set())
                if a.name in bad or a.name.startswith("__"):
                    findings.append(Finding(n.lineno, f"importing '{a.name}' from '{n.module}' is not allowed"))

    for n in nodes:
        line = getattr(n, "lineno", 0)
        if isinstance(n, ast.Name):
            if n.id in FORBIDDEN_NAMES:
                findings.append(Finding(line, f"use of '{n.id}' is not allowed in a kernel"))
            elif n.id.startswith("__") and n.id.endswith("__") and n.id != "__name__":
                findings.append(Finding(line, f"use of the dunder name '{n.id}' is not allowed", "dunder"))
            elif isinstance(n.ctx, (ast.Store, ast.Del)) and n.id.startswith("__"):
                findings.append(Finding(line, f"assigning to '{n.id}' is not allowed", "dunder"))
            if n.id == "__name__" and isinstance(n.ctx, (ast.Store, ast.Del)):
                findings.append(Finding(line, "assigning to '__name__' is not allowed", "dunder"))
        elif isinstance(n, ast.Attribute):
            if n.attr.startswith("__") and n.attr.endswith("__"):
                findings.append(Finding(line, f"access to the dunder attribute '{n.attr}' is not allowed", "dunder"))
            elif n.attr in FORBIDDEN_ATTRS or (n.attr in NUMPY_FORBIDDEN_ATTRS and _root_name(n.value) in numpy_aliases):
                findings.append(Finding(line, f"use of '.{n.attr}' is not allowed in a kernel (file/process access "
                                              f"or tampering with numpy's global state)"))
            if isinstance(n.ctx, (ast.Store, ast.Del)) and _root_name(n.value) in module_aliases:
                findings.append(Finding(line, f"assigning to '{ast.unparse(n)}' would modify an "
                                              f"imported module (monkey-patching is not allowed)", "monkeypatch"))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr"):
            if len(n.args) < 2 or not (isinstance(n.args[1], ast.Constant) and isinstance(n.args[1].value, str)):
                findings.append(Finding(line, f"{n.func.id}() with a computed attribute name is not allowed"))
            else:
                attr = n.args[1].value
                if attr.startswith("__") or attr in FORBIDDEN_ATTRS or attr in NUMPY_FORBIDDEN_ATTRS:
                    findings.append(Finding(line, f"{n.func.id}(…, {attr!r}) is not allowed", "dunder"))
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings:
            v = n.value.strip().lower()
            if v.startswith("__") and v.endswith("__") and v != "__main__":
                findings.append(Finding(line, f"the dunder string {n.value!r} is not allowed", "dunder"))

        # precision downgrades
        tok = None
        if isinstance(n, ast.Attribute) and n.attr.lower() in _DTYPE_TOKENS:
            tok = n.attr
            shown = f"{_root_name(n) or ''}.{n.attr}".lstrip(".")
        elif isinstance(n, ast.Name) and n.id.lower() in _DTYPE_TOKENS and isinstance(n.ctx, ast.Load):
            tok, shown = n.id, n.id
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings and \
                n.value.strip().lower() in _DTYPE_TOKENS:
            tok, shown = n.value.strip(), repr(n.value)
        if tok is not None and _FLOAT_RANK[tok.lower()] < rank:
            findings.append(Finding(line, f"precision downgrade: {shown} is lower precision than the task's "
                                          f"{task_dtype or 'float32'} (kernels must keep the task's precision)",
                                    "precision"))

    # one finding per (line, message)
    seen, out = set(), []
    for f in sorted(findings, key=lambda f: (f.line, f.message)):
        if (f.line, f.message) not in seen:
            seen.add((f.line, f.message))
            out.append(f)
    return out


def format_findings(findings, limit: int = 5) -> str:
    parts = [str(f) for f in findings[:limit]]
    more = len(findings) - limit
    return "static check failed: " + "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
