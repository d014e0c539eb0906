"""Creating tensors: what nl.ndarray / zeros / ones / full do in both front ends, given the memory and the buffer's
kind ("sbuf", "psum", "private_hbm", "shared_hbm") the front end resolved from its own buffer objects."""
from __future__ import annotations

import math

from .context import current
from .core import cerr
from .tensor import Tile, new_alloc


def create(shape, dtype, memory, kind, name, init):
    """A new tensor; init is "garbage" (nl.ndarray), "zeros", or a fill value."""
    ctx = current()
    garbage = isinstance(init, str) and init == "garbage"
    if kind == "shared_hbm":
        # SPMD instances share shared_hbm tensors: the k-th allocation of every instance is the same tensor.
        pos = ctx.shared_hbm_pos
        ctx.shared_hbm_pos += 1
        if pos < len(ctx.shared_hbm):
            return Tile(ctx.shared_hbm[pos])
    if memory == "hbm" and not garbage:
        raise cerr("HBM tensors cannot have an initial value (use nl.ndarray and write them with nl.store)")
    if memory == "psum" and garbage:
        init = "zeros"  # PSUM starts an accumulation group from zero: the first matmul overwrites on hardware
    a = new_alloc(shape, dtype, memory, name=name or None, init=init, hbm_kind=kind)
    if kind == "shared_hbm":
        ctx.shared_hbm.append(a)
    t = Tile(a)
    if memory == "sbuf" and not garbage:
        # The compiler initializes SBUF tensors with memset instructions; PSUM zeros fold into the matmul group.
        value = 0 if isinstance(init, str) else init
        ctx.record("memset", "vector", a.shape[a.pdim], math.prod(a.shape[a.pdim + 1:]) * max(1, a.nblocks),
                   a.dtype.name, (), (), (t.access(touch=False),), attrs={"value": float(value), "engine_auto": True})
    return t
