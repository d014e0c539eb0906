"""NkiTensor: the current API's view of a tensor, over the same Alloc/Tile the engine uses.

What differs from a classic tile is only how views are made:
- indexing takes integers, slices (nl.ds is a slice) and Ellipsis; index arrays (nl.arange/mgrid) and boolean
  masks belong to classic NKI;
- an integer on the partition dimension of an SBUF/PSUM tensor keeps that dimension (size 1), while on HBM it
  drops the dimension, as the nki.* docs define `NkiTensor.__getitem__`;
- the view methods (.ap, .reshape, .permute, .expand_dim, ...) build index views without copying.
Every view is a Tile underneath, so reads, writes, bounds checks and the trace are the classic engine's."""
from __future__ import annotations

import math

import numpy as np

from .. import tensor as _t
from ..tensor import Tile
from .generation import cerr


class NkiTensor(Tile):
    __slots__ = ()

    def __getitem__(self, raw):
        return adopt(Tile.__getitem__(self, _check_key(self, raw)))

    def __repr__(self):
        return f"NkiTensor({self.alloc.label()}, shape={self.shape}, dtype={self.alloc.dtype}, " \
               f"buffer={self.alloc.memory})"

    @property
    def is_on_chip(self):
        return self.alloc.memory != "hbm"

    # --- view methods (nki.language.NkiTensor) -------------------------------------------------------------
    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        if self.key is None and self.inner is None:
            return adopt(Tile.reshape(self, shape))  # a whole tensor: an alias of the same memory
        shape = _infer(shape, self.size, "reshape")
        if self.is_on_chip and shape[0] != self.shape[0]:
            raise cerr(f"reshape keeps the partition dimension of an on-chip tensor ({self.shape[0]} -> {shape[0]})")
        return _from_arrays(self, [a.reshape(shape) for a in _coords(self)], shape)

    def permute(self, dims):
        dims = tuple(int(d) for d in dims)
        if sorted(dims) != list(range(self.ndim)):
            raise cerr(f"permute needs a permutation of the {self.ndim} dimensions, got {dims}")
        if self.is_on_chip and dims[0] != 0:
            raise cerr("permute cannot move the partition dimension (dims[0] must be 0 for SBUF/PSUM tensors)")
        return _from_arrays(self, [a.transpose(dims) for a in _coords(self)], tuple(self.shape[d] for d in dims))

    def expand_dim(self, dim):
        dim = int(dim)
        if self.is_on_chip and dim == 0:
            raise cerr("expand_dim cannot insert before the partition dimension of an on-chip tensor")
        shape = self.shape[:dim] + (1,) + self.shape[dim:]
        return _from_arrays(self, [a.reshape(shape) for a in _coords(self)], shape)

    def squeeze_dim(self, dim):
        dim = int(dim)
        if self.shape[dim] != 1 or (self.is_on_chip and dim == 0):
            raise cerr(f"squeeze_dim({dim}) needs a free dimension of size 1 (shape {self.shape})")
        shape = self.shape[:dim] + self.shape[dim + 1:]
        return _from_arrays(self, [a.reshape(shape) for a in _coords(self)], shape)

    def reshape_dim(self, dim, shape):
        dim = int(dim)
        part = _infer(shape, self.shape[dim], "reshape_dim")
        if self.is_on_chip and dim == 0 and len(part) != 1:
            raise cerr("reshape_dim cannot split the partition dimension of an on-chip tensor")
        new = self.shape[:dim] + part + self.shape[dim + 1:]
        return _from_arrays(self, [a.reshape(new) for a in _coords(self)], new)

    def flatten_dims(self, start_dim, end_dim):
        s, e = int(start_dim), int(end_dim)
        if self.is_on_chip and s == 0:
            raise cerr("flatten_dims cannot merge the partition dimension of an on-chip tensor")
        new = self.shape[:s] + (math.prod(self.shape[s:e + 1]),) + self.shape[e + 1:]
        return _from_arrays(self, [a.reshape(new) for a in _coords(self)], new)

    def broadcast(self, dim, size):
        dim, size = int(dim), int(size)
        if self.shape[dim] != 1 or (self.is_on_chip and dim == 0):
            raise cerr(f"broadcast({dim}, {size}) needs a free dimension of size 1 (shape {self.shape})")
        shape = self.shape[:dim] + (size,) + self.shape[dim + 1:]
        return _from_arrays(self, [np.broadcast_to(a, shape) for a in _coords(self)], shape)

    def slice(self, dim, start, end, step=1):
        key = [slice(None)] * self.ndim
        key[int(dim)] = slice(start, end, step)
        return self[tuple(key)]

    def select(self, dim, index):
        if isinstance(index, Tile):
            raise cerr("select with a tensor index (a runtime offset) is not simulated by nkisim")
        key = [slice(None)] * self.ndim
        key[int(dim)] = index
        v = self[tuple(key)]
        if self.is_on_chip and int(dim) == 0:
            raise cerr("select cannot remove the partition dimension of an on-chip tensor (use t[i:i+1, ...])")
        return v

    def ap(self, pattern, offset=None, scalar_offset=None, vector_offset=None, indirect_dim=0, dtype=None):
        """An explicit access pattern [[stride, count], ...] over the tensor's storage (row-major elements; an
        on-chip tensor's partition p starts at element p * (its free size)), starting at this view's first
        element plus offset."""
        if scalar_offset is not None or vector_offset is not None:
            raise cerr(".ap with scalar_offset/vector_offset (runtime indirection) is not simulated by nkisim")
        if dtype is not None:
            raise cerr(".ap(dtype=...) reinterpreting storage is not simulated by nkisim")
        try:
            pairs = [(int(s), int(n)) for s, n in pattern]
        except (TypeError, ValueError):
            raise cerr(f".ap pattern must be a list of [stride, count] pairs, got {pattern!r}") from None
        if not pairs or any(n <= 0 for _, n in pairs):
            raise cerr(f".ap pattern needs positive counts, got {pattern!r}")
        a = self.alloc
        flat = _first_element(self) + (int(offset) if offset is not None else 0)
        shape = tuple(n for _, n in pairs)
        for i, (s, n) in enumerate(pairs):
            flat = flat + s * np.arange(n, dtype=np.int64).reshape((1,) * i + (n,) + (1,) * (len(pairs) - i - 1))
        flat = np.broadcast_to(flat, shape)
        size = math.prod(a.shape)
        if flat.size and (flat.min() < 0 or flat.max() >= size):
            raise cerr(f".ap pattern {pattern} reaches elements [{int(flat.min())}, {int(flat.max())}] of "
                       f"{a.label()}, which has {size} (shape {a.shape})", "err_tensor_access_out_of_bound")
        if self.is_on_chip:
            part = flat // math.prod(a.shape[1:])
            if (part != part[(slice(None),) + (slice(0, 1),) * (len(shape) - 1)]).any():
                raise cerr(".ap on an on-chip tensor: the first [stride, count] pair must walk the partitions and the "
                           "others stay inside one partition")
        return _from_arrays(self, list(np.unravel_index(flat, a.shape)), shape)

    def view(self, dtype):
        raise cerr(".view(dtype) (reinterpreting bytes) is not simulated by nkisim")

    def get_pattern(self):
        raise cerr(".get_pattern() is not simulated by nkisim")


def adopt(t):
    """The same view as an NkiTensor (Tile results of the engine cross into a current kernel through this)."""
    if type(t) is Tile:
        t.__class__ = NkiTensor
    return t


def _infer(shape, total, what):
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise cerr(f"{what} needs a tuple of ints, got {shape!r}") from None
    if shape.count(-1) > 1:
        raise cerr(f"{what}: at most one -1 in {shape}")
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        shape = tuple(total // known if s == -1 else s for s in shape)
    if math.prod(shape) != total:
        raise cerr(f"{what}: {shape} has {math.prod(shape)} elements, the tensor has {total}")
    return shape


def _check_key(t, raw):
    parts = raw if isinstance(raw, tuple) else (raw,)
    for c in parts:
        if c is Ellipsis or isinstance(c, slice) or (isinstance(c, (int, np.integer)) and not isinstance(c, bool)):
            continue
        if isinstance(c, np.ndarray) and c.dtype == np.bool_:
            raise cerr("a boolean mask cannot index a tensor: masks were removed with the nki.* namespace; slice "
                       "the tensor to the valid region instead (e.g. t[0:n, 0:m])", "err_unsupported_mask")
        if isinstance(c, np.ndarray):
            raise cerr("index arrays (nl.arange/nl.mgrid expressions) are classic NKI; in nki.* index with integers "
                       "and slices (t[0:128, k * 512:(k + 1) * 512]) or describe the access with .ap()",
                       "err_unsupported_index")
        if isinstance(c, Tile):
            raise cerr("a tensor cannot index another one in nki.*; runtime (indirect) access goes through "
                       ".ap(vector_offset=...) or .vector_select(), which nkisim does not simulate")
        raise cerr(f"unsupported index {c!r} of type {type(c).__name__} (integers, slices, nl.ds and ... only)")
    if t.alloc.memory == "hbm" or not t.shape:
        return raw
    # On-chip tensors keep the partition dimension under an integer index (size 1), as the nki.* docs define.
    n_ell = sum(1 for c in parts if c is Ellipsis)
    if n_ell > 1:
        raise cerr("an index can contain at most one Ellipsis")
    if parts and parts[0] is Ellipsis:
        if len(parts) - 1 < len(t.shape):
            return raw
        parts = parts[1:]
    if parts and isinstance(parts[0], (int, np.integer)):
        i = int(parts[0])
        i = i + t.shape[0] if i < 0 else i
        return (slice(i, i + 1, 1),) + tuple(parts[1:])
    return raw


def _coords(t):
    """Per allocation dimension, the coordinate of each element of view t (arrays of t's shape)."""
    a = t.alloc
    if t.inner is not None:
        raise cerr("a broadcast view cannot be reshaped or permuted; broadcast last")
    key = t.key if t.key is not None else [slice(0, n, 1) for n in a.shape]
    shape = t.shape
    out = []
    axis = 0
    adv = any(isinstance(c, np.ndarray) for c in key)
    for c in key:
        if isinstance(c, Tile):
            raise cerr("an indirect view cannot be reshaped or permuted")
        if isinstance(c, int):
            out.append(np.full(shape, c, np.int64))
        elif isinstance(c, slice):
            if adv:
                raise cerr("this view cannot be reshaped or permuted")
            n = shape[axis]
            r = (c.start + c.step * np.arange(n, dtype=np.int64)).reshape((1,) * axis + (n,) +
                                                                            (1,) * (len(shape) - axis - 1))
            out.append(np.broadcast_to(r, shape))
            axis += 1
        else:
            out.append(np.broadcast_to(c, shape))
    return out


def _first_element(t):
    """Row-major element offset of the view's first element in its allocation."""
    a = t.alloc
    if t.key is None:
        return 0
    strides = [math.prod(a.shape[i + 1:]) for i in range(len(a.shape))]
    off = 0
    for c, s in zip(t.key, strides):
        if isinstance(c, int):
            off += c * s
        elif isinstance(c, slice):
            off += c.start * s
        else:
            raise cerr(".ap on a view built from index arrays or an indirect index: apply .ap to the tensor itself")
    return off


def _from_arrays(t, arrays, shape):
    key = [np.ascontiguousarray(x) if x.ndim else int(x) for x in arrays]
    key = _t.simplify_key(key)
    v = Tile(t.alloc, key, tuple(int(s) for s in shape))
    return adopt(v)
