"""More indexing ops: put / put_ (writes into the flattened tensor) and index_reduce / index_reduce_.

``put(index, source, accumulate)`` writes (or adds) ``source`` at the flat positions ``index``
of a copy of the input (PutBackward0). ``index_reduce(dim, index, source, reduce, include_self)``
reduces the slices of ``source`` into the slices ``index`` of the input along ``dim`` with prod,
mean, amax or amin (IndexReduceBackward0); it is scatter_reduce with the 1-D index spread over
the source's shape, and takes its gradient formulas (torch's index_reduce_backward has the same
terms as scatter_reduce_backward).
"""

from __future__ import annotations

import warnings

from .._backend import xp
from .._dtype import scalar_type_name
from .._tensor import Tensor, _wrap_dim, wrap
from .indexing import ScatterReduceBackward0, take
from .registry import Op, apply, register

# ------------------------------------------------------------------ put


def _put_array(a, index, src, accumulate):
    out = a.copy()
    flat = out.reshape(-1)  # a fresh copy is contiguous: this is a view
    idx = index.reshape(-1)
    vals = src.reshape(-1)
    if accumulate:
        xp.add.at(flat, idx, vals)
    else:
        flat[idx] = vals  # with repeated indices the last value stays, as torch's CPU kernel
    return out


@register
class PutBackward0(Op):
    """put(index, source, accumulate): ``source`` written (or added) at the flat positions ``index``.

    Shapes: any input; ``index`` int64 of any shape with ``source.numel()`` elements, values in
    [-numel, numel). Gradients (derivatives.yaml, put): input: grad when accumulating, else grad
    with zeros put at ``index``; source: grad.take(index) reshaped as source (a position written
    several times gives its gradient to every value sent there, as torch).
    """

    @staticmethod
    def forward(a, src, index, accumulate):
        return _put_array(a, index, src, accumulate)

    def backward(self, g):
        index, accumulate = self._params
        ga = gs = None
        if self.needs_input_grad(0):
            if accumulate:
                ga = g
            else:
                zeros = wrap(xp.zeros(index.shape, dtype=g._data.dtype))
                ga = apply(PutBackward0, (g, zeros), (index, False))
        if self.needs_input_grad(1):
            gs = take(g, wrap(index))
        return ga, gs


def put(a: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """torch.put / Tensor.put: a copy of ``a`` with ``source`` put at the flat positions ``index``.

    Raises (torch's checks, in its order):
        RuntimeError: ``index`` not int64; ``source``'s dtype not ``a``'s.
        IndexError: ``source`` and ``index`` with different numbers of elements; a non-empty
            ``index`` into an empty tensor; an index out of range.
    """
    idx = index._data
    if idx.dtype != xp.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {scalar_type_name(idx.dtype)}")
    if a._data.dtype != source._data.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{scalar_type_name(a._data.dtype)} and source.dtype = {scalar_type_name(source._data.dtype)}"
        )
    if source._data.size != idx.size:
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source._data.size}, index.numel() = {idx.size}"
        )
    n = a._data.size
    if n == 0 and idx.size:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    bad = idx[(idx >= n) | (idx < -n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {bad.reshape(-1)[0]} on a tensor of {n} elements.")
    return apply(PutBackward0, (a, source), (idx.reshape(source._data.shape), bool(accumulate)))


def put_(a: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Tensor.put_: put in place (PutBackward0 on a non-leaf; torch's refusal for a leaf that requires grad)."""
    from .inplace import inplace

    return inplace(a, lambda t, s: put(t, index, s, accumulate), source)


# ------------------------------------------------------------------ index_reduce

_INDEX_REDUCE_WARNED = []


def _warn_beta(stacklevel: int) -> None:
    """torch's once-per-process warning, pointing at the user's call."""
    if not _INDEX_REDUCE_WARNED:
        _INDEX_REDUCE_WARNED.append(True)
        warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning,
                      stacklevel=stacklevel)


@register
class IndexReduceBackward0(ScatterReduceBackward0):
    """index_reduce(dim, index, source, reduce, include_self): prod / mean / amax / amin of the slices of
    ``source`` sent to each slice ``index[i]`` of the input along ``dim`` (with the input's own value
    unless ``include_self=False``; an integer mean rounds down, as torch).

    Run as scatter_reduce with the index spread over the source's shape (the node's params hold that
    spread index). Gradients: FunctionsManual index_reduce_backward, the same terms as
    scatter_reduce_backward: mean divides by the counts; amax/amin split the gradient evenly among the
    values equal to the result; prod uses the products leaving each element out (single zeros exact);
    with include_self=False the input's reduced slices get no gradient.
    """

    def backward(self, g):
        dim, index, reduce, include_self = self._params
        if reduce == "mean" and g._data.ndim == 0:
            # a 0-d input and source: one value reduced with the input's own (or alone)
            share = g / (2.0 if include_self else 1.0)
            ga = share if include_self else g * 0.0
            return (ga if self.needs_input_grad(0) else None, share if self.needs_input_grad(1) else None)
        return super().backward(g)


def index_reduce(a: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """torch.index_reduce / Tensor.index_reduce (torch marks it beta and warns once, as here).

    Raises (torch's checks, in its order):
        RuntimeError: ``reduce`` not prod/mean/amax/amin; ``index`` not int32/int64; dtypes of ``a``
            and ``source`` differ; ``dim`` out of the source's dims; the number of indices not
            ``source.size(dim)``; shapes differing outside ``dim``.
        IndexError: ``dim`` out of range; ``index`` with more than 1 dim; an index outside
            [0, a.size(dim)) (negative indices are refused, as torch).
    """
    _warn_beta(3)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    ad, idx, sd = a._data, index._data, source._data
    d = _wrap_dim(dim, ad.ndim)
    if idx.ndim > 1:
        raise IndexError(
            f"index_reduce_(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
            f"{scalar_type_name(idx.dtype)} and size: [{', '.join(map(str, idx.shape))}]"
        )
    if idx.dtype not in (xp.int64, xp.int32):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {scalar_type_name(idx.dtype)}")
    if ad.dtype != sd.dtype:
        raise RuntimeError(
            f"index_reduce_(): self ({scalar_type_name(ad.dtype)}) and source ({scalar_type_name(sd.dtype)}) must "
            "have the same scalar type"
        )
    if not (d == 0 or d < sd.ndim):
        raise RuntimeError(
            f"index_reduce_(): Indexing dim {d} is out of bounds of the source tensor with dim {sd.ndim}"
        )
    count = 1 if sd.ndim == 0 else sd.shape[d]
    if idx.size != count:
        raise RuntimeError(
            f"index_reduce_(): Number of indices ({idx.size}) should be equal to source.size(dim): ({count}), "
            f"for dim: {d}"
        )
    a_sizes, s_sizes = list(ad.shape), list(sd.shape)
    if ad.ndim and sd.ndim:
        del a_sizes[d], s_sizes[d]
    if a_sizes != s_sizes:
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
            f"[{', '.join(map(str, ad.shape))}] source.shape = [{', '.join(map(str, sd.shape))}]"
        )
    complex_input = ad.dtype.kind == "c"
    if complex_input:  # which of torch's kernels meets the complex dtype first (none has a complex form)
        from .complex_support import kernel_error

        if not include_self:  # the init fill
            raise kernel_error("index_reduce_func_exclude_input_init", ad.dtype)
        if ad.ndim <= 1:  # the element loop; more dims run slice ops, where prod and mean take complex values
            raise kernel_error("index_func_", ad.dtype)
    n = ad.shape[d] if ad.ndim else 1
    if complex_input and idx.size and reduce in ("amax", "amin") and 0 <= idx.reshape(-1)[0] < n:
        # torch's slice loop checks each index, then runs maximum / minimum on its slice: the first one decides
        raise kernel_error("maximum_cpu" if reduce == "amax" else "minimum_cpu", ad.dtype)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    idx = idx.astype(xp.int64).reshape(-1)
    if sd.ndim == 0:
        spread = idx.reshape(())
    else:
        shape = [1] * sd.ndim
        shape[d] = idx.size
        spread = xp.broadcast_to(idx.reshape(shape), sd.shape).copy()
    return apply(IndexReduceBackward0, (a, source), (d, spread, reduce, include_self))


def index_reduce_(a: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    """Tensor.index_reduce_: index_reduce in place."""
    from .inplace import inplace

    _warn_beta(3)

    return inplace(a, lambda t, s: index_reduce(t, dim, index, s, reduce, include_self=include_self), source)


# ------------------------------------------------------------------ index_put / index_put_: torch's argument checks


def _shape_text(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _check_index_put(fname: str, a: Tensor, indices, values, accumulate: bool):
    """torch's checks of index_put's arguments, in its order; returns the indices with byte masks made bool.

    Python-level types first (a tuple or list of tensors, a tensor of values), then the number of
    indexed dims, the index dtypes, each mask's shape against the dims it covers, the broadcast of
    the index tensors, and last the first index out of range (in the order torch's kernel meets them).
    """
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{fname}(): argument 'indices' (position 1) must be tuple of Tensors, not {type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"{fname}(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if not indices:
        return indices  # torch fails inside its kernel here, with texts that depend on the values
    shape = a._data.shape
    arrays = [t._data for t in indices]
    masks = [x.dtype == xp.bool_ or x.dtype == xp.uint8 for x in arrays]
    count = sum(x.ndim if m else 1 for x, m in zip(arrays, masks))
    if count > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)} (got {count})")
    for x, m in zip(arrays, masks):
        if not m and x.dtype not in (xp.int64, xp.int32):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if len(arrays) == 1 and arrays[0].dtype == xp.uint8 and values._data.ndim == 0 and not accumulate:
        # torch's shortcut for one mask and a 0-d value is masked_fill_, which takes bool masks only
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    if any(x.dtype == xp.uint8 for x in arrays):
        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                      UserWarning, stacklevel=3)
    dim = 0
    long_indices = []  # (dim, array) after masks became their nonzero positions
    for x, m in zip(arrays, masks):
        if m:
            for j, n in enumerate(x.shape):
                if n != shape[dim + j]:
                    raise IndexError(
                        f"The shape of the mask {_shape_text(x.shape)} at index {j} does not match the shape of the "
                        f"indexed tensor {_shape_text(shape)} at index {dim + j}"
                    )
            long_indices.extend(zip(range(dim, dim + x.ndim), xp.nonzero(x)))
            dim += x.ndim
        else:
            long_indices.append((dim, x.astype(xp.int64)))
            dim += 1
    try:
        spread = xp.broadcast_arrays(*[x for _, x in long_indices])
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes "
            + ", ".join(_shape_text(x.shape) for _, x in long_indices)
        ) from None
    if spread and spread[0].size:
        bad = xp.stack([(x < -shape[d]) | (x >= shape[d]) for (d, _), x in zip(long_indices, spread)])
        flat = bad.reshape(len(spread), -1)
        hit = flat.any(axis=0)
        if hit.any():
            k = int(xp.argmax(hit))
            i = int(xp.argmax(flat[:, k]))
            d = long_indices[i][0]
            raise IndexError(
                f"index {spread[i].reshape(-1)[k]} is out of bounds for dimension {d} with size {shape[d]}"
            )
    return [wrap(t._data.astype(xp.bool_)) if t._data.dtype == xp.uint8 else t for t in indices]


def index_put(a: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """torch.index_put / Tensor.index_put with torch's argument checks (``_check_index_put``); the op itself is
    the indexing family's (IndexPutBackward0)."""
    from . import indexing

    indices = _check_index_put("index_put", a, indices, values, accumulate)
    return indexing.index_put(a, indices, values, accumulate)


def index_put_(a: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """torch.index_put_ / Tensor.index_put_: index_put in place, with torch's argument checks."""
    from ..autograd.grad_mode import _state
    from . import indexing
    from .inplace import _check_inplace_allowed

    if _state.enabled:  # torch refuses a leaf that requires grad before looking at the arguments
        _check_inplace_allowed(a)
    indices = _check_index_put("index_put_", a, indices, values, accumulate)
    return indexing.index_put_(a, indices, values, accumulate)


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
# index_put / index_put_ wrap the indexing family's functions with torch's argument checks: this family must
# come after indexing in _tensor_methods.FAMILIES.
EXPORTS: dict = {"put": put, "index_reduce": index_reduce, "index_put": index_put, "index_put_": index_put_}
TENSOR_METHODS: dict = {"put": put, "put_": put_, "index_reduce": index_reduce, "index_reduce_": index_reduce_,
                        "index_put": index_put, "index_put_": index_put_}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
