"""neuronxcc.nki.compiler.backends.neuron.indexing and .tensor: two names from the SDK's compiler internals that public
kernels import (nki-samples' reference util/tile_info.py and util/kernel_helpers.py, used by rmsnorm_quant), only for
type annotations (`Union[int, TileIndex]`) or not at all. The SDK compiles them; so the imports resolve here, to
nkisim's own types for the same things:
- TileIndex, the type of an index expression (what nl.mgrid / nl.arange give and arithmetic on them keeps): in
  nkisim an integer numpy array;
- local_tile, the type of an on-chip (SBUF/PSUM) tile: nkisim's Tile.
Nothing else of the compiler internals is offered (importer.py names the modules nkisim provides)."""
from __future__ import annotations

import types

import numpy as np

from .tensor import Tile

NAME = "neuronxcc.nki.compiler.backends"

backends = types.ModuleType(NAME)
neuron = types.ModuleType(NAME + ".neuron")
indexing = types.ModuleType(NAME + ".neuron.indexing")
tensor = types.ModuleType(NAME + ".neuron.tensor")
indexing.TileIndex = np.ndarray
tensor.local_tile = Tile
neuron.indexing = indexing
neuron.tensor = tensor
backends.neuron = neuron

MODULES = {NAME: backends, NAME + ".neuron": neuron, NAME + ".neuron.indexing": indexing,
           NAME + ".neuron.tensor": tensor}
