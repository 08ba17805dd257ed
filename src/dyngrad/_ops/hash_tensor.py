"""``torch.hash_tensor``: a uint64 hash of a tensor's elements, over all or some dims.

PyTorch doc (torch.hash_tensor) and aten's kernel (``xor_sum``): every element is widened to its 64-bit type
(floating and bfloat16/float16 values to float64, integers and bool to int64, signed values sign-extended), its
64 bits read as a uint64 (a bitcast), and the bits of the reduced elements combined by xor. Only ``mode=0`` (the xor
reduction) exists. The result is a uint64 tensor (a limited dtype, Note [Limited dtypes]); it has no gradient.

Shapes: ``input`` (any shape); ``dim`` an int, a list/tuple of ints, or None/``[]`` for every dim; the result has
``input``'s shape without the reduced dims (kept as size 1 with ``keepdim=True``).

Raises (torch's types and texts):
    RuntimeError: ``Unknown hash_tensor mode: 1``; no ``dim`` for an empty input; a dim given twice;
        an ``out=`` tensor that is not uint64.
    IndexError: a dim out of range; a reduced dim of size 0.
    NotImplementedError: ``"xor_sum_cpu" not implemented for 'ComplexFloat'`` (complex, uint16/32/64, float8).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor, wrap
from .out_param import write_out
from .reduction import _dims

_U64 = np.dtype(np.uint64)


def _bits(d: np.ndarray) -> np.ndarray:
    """The elements widened to 64 bits (float64 / int64) and read as uint64."""
    kind = d.dtype.kind
    if kind == "c" or d.dtype in _dtype.LIMITED_NP:
        from .limited_dtypes import not_implemented

        raise not_implemented("xor_sum_cpu", d.dtype)
    wide = d.astype(np.int64 if kind in "biu" else np.float64, order="C")  # (a fresh C-ordered copy: it may be viewed)
    return wide.view(_U64)


def hash_tensor(input: Tensor, dim=(), *, keepdim: bool = False, mode: int = 0, out=None) -> Tensor:  # noqa: A002
    """The xor of ``input``'s elements' 64-bit patterns over ``dim`` (all dims when None or empty), as uint64.

    See the module docstring for shapes, dtypes and errors (source: the PyTorch doc of torch.hash_tensor).
    """
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    d = input._data
    every = dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0)
    if every:
        if d.size == 0:
            raise RuntimeError("hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
                               "Specify the reduction dim with the 'dim' argument.")
        axes = tuple(range(d.ndim))
    else:
        axes = _dims(dim, d.ndim)
        for axis in axes:
            if d.shape[axis] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {axis} to have non-zero size.")
    bits = _bits(d)
    if d.ndim == 0:
        result = bits.copy()
    else:
        result = np.bitwise_xor.reduce(bits, axis=axes, keepdims=keepdim)
    if out is not None:
        if isinstance(out, Tensor) and out._data.dtype != _U64:
            raise RuntimeError(f"Expected result to be of dtype uint64, but got {_dtype.scalar_type_name(out._data.dtype)}")
        return write_out(wrap(np.asarray(result, _U64)), out)
    _dtype.use_limited()  # (a uint64 tensor: the limited-dtype checks turn on)
    return wrap(np.asarray(result, _U64))


EXPORTS = {"hash_tensor": hash_tensor}
TENSOR_METHODS = {"hash_tensor": hash_tensor}
