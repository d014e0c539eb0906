"""neuronxcc.nki.language.constants: a submodule of the SDK's nki.language that kernels import from
(`from neuronxcc.nki.language.constants import sizeinbytes`, nki-samples' rmsnorm_quant)."""
from __future__ import annotations

from . import dtypes


def sizeinbytes(dtype) -> int:
    """The size of one element of `dtype` on the device, in bytes (bfloat16 2, the fp8 formats 1)."""
    return dtypes.normalize(dtype).itemsize
