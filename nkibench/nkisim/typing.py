"""nki.typing (nt): shape-only tensor placeholders, e.g. `nt.tensor[[8192, 4096], nl.bfloat16]`.

Passing placeholders instead of arrays runs a kernel in timing-only mode (no data), as nki.benchmark does."""
from __future__ import annotations

import math

from . import dtypes


class TensorSpec:
    def __init__(self, shape, dtype=dtypes.float32, buffer=None):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = dtypes.normalize(dtype)
        self.buffer = buffer

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"nt.tensor[{list(self.shape)}, {self.dtype}]"

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and other.shape == self.shape and other.dtype == self.dtype

    def __hash__(self):
        return hash((self.shape, self.dtype.name))


class _TensorFactory:
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        shape = key[0]
        dtype = key[1] if len(key) > 1 else dtypes.float32
        buffer = key[2] if len(key) > 2 else None
        if isinstance(shape, int):
            shape = (shape,)
        return TensorSpec(shape, dtype, buffer)

    def __call__(self, shape, dtype=dtypes.float32, buffer=None):
        return TensorSpec(shape, dtype, buffer)


tensor = _TensorFactory()
mutable_tensor = tensor
scalar = float
