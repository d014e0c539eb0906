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
