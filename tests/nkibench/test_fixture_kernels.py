"""The kernel fixtures the Qt tests open must stay valid NKI-style Python defining `kernel`."""
import ast
import pathlib

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "kernels"


def test_every_fixture_kernel_parses_and_defines_kernel():
    files = sorted(FIXTURES.glob("*.py"))
    assert files, f"no fixture kernels under {FIXTURES}"
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        assert "kernel" in names, f"{path.name} defines no kernel()"
