"""nki.compiler: allocation hints. nkisim always allocates automatically, so these only have to resolve."""
from __future__ import annotations

from . import language as _nl


class _Space:
    def __init__(self, buf):
        self._buf = buf

    def auto_alloc(self, *args, **kwargs):
        return self._buf

    def alloc(self, *args, **kwargs):
        return self._buf

    def mod_alloc(self, *args, **kwargs):
        return self._buf

    def __call__(self, *args, **kwargs):
        return self._buf


sbuf = _Space(_nl.sbuf)
psum = _Space(_nl.psum)


def skip_middle_end_transformations(fn):
    return fn


def enable_stack_allocator(*args, **kwargs):
    return (lambda f: f) if not (args and callable(args[0])) else args[0]


def force_auto_alloc(*args, **kwargs):
    return (lambda f: f) if not (args and callable(args[0])) else args[0]


class no_reorder:  # noqa: N801 - the SDK's name
    """A scheduling directive: `nl.sequential_range(n, directives=nki.compiler.no_reorder())` (nki-samples' attention
    tutorial v10, v11) or `with nki.compiler.no_reorder():` keep instructions in program order. nkisim runs every
    instruction in program order anyway, so the loop or block runs as written."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class multi_buffer(no_reorder):  # noqa: N801 - the SDK's name
    """A scheduling directive: `nl.sequential_range(n, directives=ncc.multi_buffer(k))` lets the compiler keep k
    iterations' buffers in flight (nki-samples' rmsnorm_quant, over its PSUM banks). It changes no result; nkisim
    runs the loop as written."""
