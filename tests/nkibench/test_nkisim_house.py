"""How nkisim is put together (issue 30): Tile defines its own operators, core stands on neither front end, current/
stands on public helpers only, and every registered instruction carries operand rules that both front ends enforce
with the same words."""
import ast
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nkisim
from nkisim import opregistry
from nkisim.tensor import Tile
from nkisim_helpers import rnd
from nkisim_helpers import run as run_classic

SOURCE = pathlib.Path(nkisim.__file__).parent
CURRENT_HEADER = "import numpy as np\nimport nki\nimport nki.language as nl\nimport nki.isa as nisa\n"

OPERATORS = ("__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__add__", "__radd__", "__sub__",
             "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__mod__",
             "__rmod__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__",
             "__rlshift__", "__rshift__", "__rrshift__", "__floordiv__", "__rfloordiv__", "__lt__", "__le__",
             "__gt__", "__ge__", "__eq__", "__ne__", "__neg__", "__abs__", "__invert__", "astype", "broadcast_to",
             "reshape", "view")


def run_current(body, *args, **kw):
    return nkisim.run_kernel(CURRENT_HEADER + textwrap.dedent(body), list(args), **kw)


# --- Tile in one module -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", OPERATORS)
def test_tile_defines_each_operator_in_its_class_body(name):
    fn = Tile.__dict__[name]
    assert fn.__module__ == "nkisim.tensor" and fn.__qualname__ == f"Tile.{name}", (fn.__module__, fn.__qualname__)


def test_tile_has_its_operators_without_the_front_ends_loaded():
    """tensor.py on its own (the package's __init__, which loads both front ends, is bypassed) already gives Tile
    every operator; neither language.py nor isa.py nor the modules that issue instructions are imported for it."""
    code = textwrap.dedent(f"""
        import sys, types
        pkg = types.ModuleType("nkisim")
        pkg.__path__ = [{str(SOURCE)!r}]
        sys.modules["nkisim"] = pkg
        from nkisim.tensor import Tile
        missing = [n for n in {OPERATORS!r} if n not in Tile.__dict__]
        loaded = sorted(m for m in sys.modules if m.startswith("nkisim."))
        print(missing, loaded)
        assert not missing, missing
        assert not {{"nkisim.language", "nkisim.isa", "nkisim.core", "nkisim.tileops"}} & set(loaded), loaded
    """)
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)


def _assignments_to_tile(path):
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "Tile":
                found.append(f"{path.name}:{node.lineno} Tile.{t.attr}")
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr" and node.args and \
                isinstance(node.args[0], ast.Name) and node.args[0].id == "Tile":
            found.append(f"{path.name}:{node.lineno} setattr(Tile, ...)")
    return found


def test_no_module_attaches_anything_to_tile():
    found = [f for p in SOURCE.rglob("*.py") for f in _assignments_to_tile(p)]
    assert found == [], found


# --- who imports whom ---------------------------------------------------------------------------------------------

def _modules_imported(path):
    """The nkisim modules a source file imports (`from . import x`, `from .x import y`, `from ..x import y`)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(a.name for a in node.names)
    return out


def test_core_stands_on_neither_front_end():
    """core issues instructions; what a front end or a tile operator means is built above it."""
    mods = _modules_imported(SOURCE / "core.py")
    assert not mods & {"isa", "language", "current", "tileops", "assign", "compute", "creation"}, mods


def test_the_shared_layers_do_not_import_a_front_end():
    for name in ("compute.py", "assign.py", "creation.py", "tileops.py", "tensor.py"):
        mods = _modules_imported(SOURCE / name)
        assert not mods & {"isa", "language", "current"}, (name, mods)


@pytest.mark.parametrize("path", ["core.py", "assign.py", "compute.py", "tileops.py", "current/isa.py",
                                  "current/language.py", "current/tensor.py"])
def test_no_private_helper_of_another_module_is_called(path):
    """`module._name` reaches into another module's privates (isa._memset_into, language._create used to be)."""
    tree = ast.parse((SOURCE / path).read_text())
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            modules.update(a.asname or a.name for a in node.names)
    bad = sorted({f"{n.value.id}.{n.attr}" for n in ast.walk(tree) if isinstance(n, ast.Attribute) and
                  isinstance(n.value, ast.Name) and n.value.id in modules and n.attr.startswith("_") and
                  not n.attr.startswith("__")})
    assert bad == [], bad


# --- operand rules ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", sorted(opregistry.OPS))
def test_every_registered_instruction_has_operand_rules_on_each_of_its_engines(op):
    reg = opregistry.OPS[op]
    rules = reg.rules()
    assert set(rules) == set(reg.engines)
    for engine, rule in rules.items():
        assert isinstance(rule, opregistry.Operands), (op, engine)
        assert rule.writes and set(rule.writes) <= set(opregistry.MEMORIES), (op, engine, rule)
        assert set(rule.reads) <= set(opregistry.MEMORIES), (op, engine, rule)
        assert opregistry.operands(op, engine) is rule
        if engine in ("vector", "scalar", "gpsimd", "tensor"):
            assert "hbm" not in rule.reads and "hbm" not in rule.writes, (op, engine)  # compute engines: on chip
        if engine == "gpsimd":
            assert "psum" not in rule.writes, op  # GpSimd cannot access PSUM
        if engine == "tensor":
            assert rule.reads == ("sbuf",) and rule.writes == ("psum",), op
    if op == "nc_transpose":
        assert rules["tensor"].max_side == 128 and rules["vector"].max_side == 32


def test_an_instruction_without_operand_rules_fails_loudly():
    with pytest.raises(opregistry.UnknownInstruction, match="no instruction 'frobnicate'"):
        opregistry.operands("frobnicate", "vector")
    with pytest.raises(opregistry.UnknownInstruction, match="cannot run on scalar"):
        opregistry.operands("nc_matmul", "scalar")


GPSIMD_COPY_CLASSIC = """
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    ps = nl.zeros((128, 64), nl.float32, buffer=nl.psum)
    t = nisa.tensor_copy(ps, engine=nisa.gpsimd_engine)
    nl.store(out, t)
    return out
"""

GPSIMD_COPY_CURRENT = """
@nki.jit
def kernel(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    ps = nl.zeros((128, 64), nl.float32, buffer=nl.psum)
    sb = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=sb, src=ps, engine=nisa.engine.gpsimd)
    nisa.dma_copy(dst=out, src=sb)
    return out
"""

TRANSPOSE_CLASSIC = """
@nki.jit
def kernel(a):
    out = nl.ndarray((64, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    r = nisa.nc_transpose(t, engine=nisa.vector_engine)
    nl.store(out, r)
    return out
"""

TRANSPOSE_CURRENT = """
@nki.jit
def kernel(a):
    out = nl.ndarray((64, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    sb = nl.ndarray((64, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.nc_transpose(dst=sb, data=t, engine=nisa.engine.vector)
    nisa.dma_copy(dst=out, src=sb)
    return out
"""


@pytest.mark.parametrize("classic,current,words", [
    (GPSIMD_COPY_CLASSIC, GPSIMD_COPY_CURRENT, "'nisa.tensor_copy' on GpSimd cannot access PSUM"),
    (TRANSPOSE_CLASSIC, TRANSPOSE_CURRENT, "nc_transpose on the Vector engine handles at most 32x32, got (64, 64)"),
])
def test_both_front_ends_refuse_a_bad_operand_with_the_same_rule(classic, current, words):
    a = rnd(128, 64) if "ps" in classic else rnd(64, 64)
    errors = [str(run_classic(classic, a).error), str(run_current(current, a).error)]
    for e in errors:
        assert words in e, errors


def test_the_rule_comes_from_the_registry(monkeypatch):
    """Narrow the vector transpose to 16x16 in the registry: both front ends follow."""
    narrowed = opregistry.Operands(opregistry.ON_CHIP, opregistry.ON_CHIP, 16)
    monkeypatch.setitem(opregistry._RULES, ("nc_transpose", "vector"), narrowed)
    a = rnd(32, 32)
    small = TRANSPOSE_CLASSIC.replace("(64, 64)", "(32, 32)")
    assert "at most 16x16, got (32, 32)" in str(run_classic(small, a).error)
    assert "at most 16x16, got (32, 32)" in str(run_current(TRANSPOSE_CURRENT.replace("(64, 64)", "(32, 32)"),
                                                            a).error)


def test_a_matmul_operand_in_psum_still_goes_through_a_charged_copy():
    body = """
    @nki.jit
    def kernel(a, b):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        st = nl.load(a)
        ps = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
        ps[...] = nisa.tensor_copy(nl.load(b))
        r = nisa.nc_matmul(st, ps)
        nl.store(out, nl.copy(r))
        return out
    """
    a, b = rnd(128, 128, seed=1), rnd(128, 128, seed=2)
    r = run_classic(body, a, b)
    assert r.error is None, str(r.error)
    np.testing.assert_allclose(r.outputs[0], a.T @ b, rtol=1e-4, atol=1e-4)
    ops = [(i.op, i.engine) for i in r.trace.instrs if i.engine != "dma"]
    assert ops.index(("nc_matmul", "tensor")) > 0 and ops[ops.index(("nc_matmul", "tensor")) - 1] == \
        ("tensor_copy", "vector"), ops
