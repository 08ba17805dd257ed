"""aten's private tensor ops that torch exposes at its top level and tests in its OpInfo database:
``torch._chunk_cat`` (aten/src/ATen/native/TensorShape.cpp), ``torch._unsafe_masked_index`` and
``torch._unsafe_masked_index_put_accumulate`` (aten/src/ATen/native/TensorAdvancedIndexing.cpp, the
indexing that torch.compile's decompositions of interpolation and padding emit).
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor, _wrap_dim, wrap
from .registry import Op, apply, register


# ------------------------------------------------------------------ _chunk_cat
def _chunk_cat(tensors, dim: int, num_chunks: int, *, out=None) -> Tensor:
    """torch._chunk_cat(tensors, dim, num_chunks): each tensor split along ``dim`` into ``num_chunks`` chunks of
    ceil(size / num_chunks) elements (the last ones zero-padded), each chunk flattened with the dims after
    ``dim``, and the tensors concatenated chunk by chunk.

    Shapes: tensors (*lead, n_i, *rest_i) with the same ``lead`` -> (*lead, num_chunks, sum_i ceil(n_i /
    num_chunks) * prod(rest_i)). Not differentiable (torch has no derivative for it). Errors: RuntimeError
    with aten's texts for an empty list, an empty tensor, num_chunks < 1, dims out of range, a negative dim
    with tensors of different ranks, different leading sizes or dtypes.
    """
    if len(tensors) == 0:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    arrays = [t._data for t in tensors]
    ndims = {a.ndim for a in arrays}
    if dim < 0 and len(ndims) > 1:
        raise RuntimeError("_chunk_cat expects non-negative dim when input tensors have different ndims")
    if any(dim >= a.ndim for a in arrays):
        raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    if any(a.size == 0 for a in arrays):
        raise RuntimeError("_chunk_cat expects non-empty tensor")
    if len({a.dtype for a in arrays}) > 1:
        raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
    axis = _wrap_dim(dim, arrays[0].ndim)
    if len({a.shape[:axis] for a in arrays}) > 1:
        raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors")
    pieces = []
    for a in arrays:
        size = a.shape[axis]
        chunk = -(-size // num_chunks)
        padded = xp.zeros(a.shape[:axis] + (chunk * num_chunks,) + a.shape[axis + 1:], dtype=a.dtype)
        padded[(slice(None),) * axis + (slice(0, size),)] = a
        pieces.append(padded.reshape(a.shape[:axis] + (num_chunks, -1)))
    result = wrap(xp.concatenate(pieces, axis=axis + 1))
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result


# ------------------------------------------------------------------ _unsafe_masked_index(_put_accumulate)
def _clamped_key(shape, indices) -> tuple:
    """The advanced-indexing key of ``indices`` (arrays, None for a whole dim) clamped into [-size, size - 1]:
    the positions the mask hides may hold any value, and aten clamps them instead of checking them."""
    key = []
    for size, idx in zip(shape, indices):
        key.append(slice(None) if idx is None else xp.clip(idx, -size, size - 1))
    return tuple(key)


@register
class UnsafeMaskedIndexBackward0(Op):
    """_unsafe_masked_index(x, mask, indices, fill) = where(mask, x[clamped indices], fill).

    Backward (derivatives.yaml): x gets _unsafe_masked_index_put_accumulate(zeros_like(x), mask, indices,
    grad); mask and indices get none. Params: (number of indices, fill, x's shape).
    """

    save_inputs = True
    complex_grad = True  # linear in x: the same formula under Note [Complex gradients]

    @staticmethod
    def forward(*args):
        *arrays, n, fill, _ = args
        x, mask, indices = arrays[0], arrays[1], arrays[2:2 + n]
        picked = x[_clamped_key(x.shape, indices)]
        return xp.where(mask, picked, xp.asarray(fill, dtype=x.dtype)).astype(x.dtype, copy=False)

    def backward(self, g):
        saved = self.saved()
        n, _, shape = self._params
        mask, indices = saved[1], list(saved[2:2 + n])
        if self.next_functions[0][0] is None:
            return (None,) * len(saved)
        zeros = wrap(xp.zeros(shape, dtype=g._data.dtype))
        return (unsafe_masked_index_put_accumulate(zeros, mask, indices, g),) + (None,) * (len(saved) - 1)


@register
class UnsafeMaskedIndexPutAccumulateBackward0(Op):
    """_unsafe_masked_index_put_accumulate(x, mask, indices, values): x with where(mask, values, 0) added at the
    clamped indices (repeated positions add up).

    Backward (derivatives.yaml): x gets grad; values get _unsafe_masked_index(grad, mask, indices, 0).
    Params: (number of indices,).
    """

    save_inputs = True
    complex_grad = True  # linear in x and values

    @staticmethod
    def forward(*args):
        *arrays, n = args
        x, mask, indices, values = arrays[0], arrays[1], arrays[2:2 + n], arrays[2 + n]
        out = x.copy()
        xp.add.at(out, _clamped_key(x.shape, indices), xp.where(mask, values, 0).astype(x.dtype, copy=False))
        return out

    def backward(self, g):
        saved = self.saved()
        (n,) = self._params
        mask, indices = saved[1], list(saved[2:2 + n])
        nf = self.next_functions
        gx = g if nf[0][0] is not None else None
        gv = unsafe_masked_index(g, mask, indices, 0) if nf[2 + n][0] is not None else None
        return (gx, None) + (None,) * n + (gv,)


def _check_indices(x: Tensor, indices, name: str) -> list:
    indices = list(indices)
    if len(indices) > x._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x._data.ndim} (got {len(indices)})")
    if all(i is None for i in indices):
        raise RuntimeError(f"{name}: expected at least one index tensor")
    return indices


def unsafe_masked_index(input: Tensor, mask: Tensor, indices, fill) -> Tensor:  # noqa: A002
    """torch._unsafe_masked_index(input, mask, indices, fill): ``input[indices]`` where ``mask`` is True, ``fill``
    elsewhere; the indices where the mask is False are never checked (aten clamps them into range).

    ``indices``: a list of integer tensors (None for a whole dim), broadcast together with ``mask`` to the
    result's shape; same dtype as ``input``. Node UnsafeMaskedIndexBackward0.
    """
    indices = _check_indices(input, indices, "_unsafe_masked_index")
    fill = fill.item() if isinstance(fill, Tensor) else fill
    return apply(UnsafeMaskedIndexBackward0, (input, mask, *indices), (len(indices), fill, input._data.shape))


def unsafe_masked_index_put_accumulate(input: Tensor, mask: Tensor, indices, values: Tensor) -> Tensor:  # noqa: A002
    """torch._unsafe_masked_index_put_accumulate(input, mask, indices, values): a copy of ``input`` with ``values``
    added at ``indices`` where ``mask`` is True (repeated positions accumulate; masked-off indices are clamped,
    never checked). Node UnsafeMaskedIndexPutAccumulateBackward0."""
    indices = _check_indices(input, indices, "_unsafe_masked_index_put_accumulate")
    return apply(UnsafeMaskedIndexPutAccumulateBackward0, (input, mask, *indices, values), (len(indices),))


EXPORTS: dict = {
    "_chunk_cat": _chunk_cat,
    "_unsafe_masked_index": unsafe_masked_index,
    "_unsafe_masked_index_put_accumulate": unsafe_masked_index_put_accumulate,
}
TENSOR_METHODS: dict = {}
