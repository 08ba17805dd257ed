"""dyngrad.masked: torch.masked's reductions and normalizations of strided tensors with a ``mask=``.

A mask is a bool tensor (other dtypes are read as bool) broadcastable to the input; ``mask=None`` keeps every
element. Each function replaces the masked-out elements by the identity of its operation and runs the ordinary op
(the semantics of torch/masked/_ops.py, PyTorch RFC 27 "Masked reductions and normalizations"):

- sum, cumsum, normalize: 0; prod, cumprod: 1; amax, argmax, softmax, log_softmax, logaddexp, logsumexp: -inf
  (the smallest integer for integer inputs); amin, argmin, softmin: +inf (the largest integer); norm: 0
  (+inf for ord = -inf); median: nan, through nanmedian.
- mean = masked sum / the count of kept elements; var / std = the masked sum of |x - mean|^2 over
  max(count - correction, 0) (nan for a row with nothing kept).

So a row with every element masked out holds the identity (sum: 0, amax: -inf, softmax: nan, mean: nan), as
torch's. Gradients are the ordinary ops' gradients through ``where`` (zero at masked-out elements); the grad_fn
of each result is its last op's (SumBackward1, AmaxBackward0, SoftmaxBackward0, DivBackward0, ...), as torch's.
Sparse layouts and MaskedTensor are not supported.
"""

from __future__ import annotations

import math

import dyngrad as _dg

__all__ = [
    "amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp", "logsumexp", "mean",
    "median", "norm", "normalize", "prod", "softmax", "softmin", "std", "sum", "var",
]

_SMALL_INTS = ("uint8", "bool", "int8", "int16", "int32")


def _canonical_dims(dim, ndim: int) -> tuple:
    """``dim`` (None, (), an int or a sequence) as a sorted tuple of non-negative dims; None and () mean all."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    bound = max(ndim, 1)
    dims: list = []
    for d in ((dim,) if isinstance(dim, int) else tuple(dim)):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= bound or d < -bound:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {d})")
        dims.append(d % bound)
    return tuple(sorted(dims))


def _input_mask(input, mask):  # noqa: A002 - torch's name
    """The mask broadcast to the input's shape, as bool."""
    if mask.shape != input.shape:
        if mask.dim() > input.dim():
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the "
                             "input)")
        mask = _dg.broadcast_to(mask.clone(), input.shape)
    return mask.to(dtype=_dg.bool)


def _dtype_name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1]


def _identity(kind: str, input, ord=None):  # noqa: A002 - torch's names
    """The fill value for the masked-out elements of ``input`` under the operation ``kind``."""
    dtype = input.dtype
    floating = dtype.is_floating_point
    if kind == "sum":
        return _dg.tensor(0, dtype=dtype)
    if kind == "prod":
        return _dg.tensor(1, dtype=dtype)
    if kind in ("max", "logsumexp"):
        if floating or (kind == "logsumexp" and dtype.is_complex):
            return _dg.tensor(-math.inf, dtype=dtype)
        return _dg.tensor(_dg.iinfo(dtype).min, dtype=dtype)
    if kind == "min":
        if floating:
            return _dg.tensor(math.inf, dtype=dtype)
        return _dg.tensor(_dg.iinfo(dtype).max, dtype=dtype)
    if kind == "norm":
        return _dg.tensor(math.inf if ord == -math.inf else 0, dtype=dtype)
    if kind == "median":
        return _dg.tensor(math.nan, dtype=dtype if floating else _dg.float32)
    raise NotImplementedError(f"identity of {kind} on {_dtype_name(dtype)} input")


def _filled(kind: str, input, mask, ord=None):  # noqa: A002
    """``input`` with its masked-out elements replaced by the identity of ``kind`` (the input itself for no mask)."""
    if mask is None:
        return input
    return _dg.where(_input_mask(input, mask), input, _identity(kind, input, ord))


def _sum_dtype(input, dtype):  # noqa: A002
    if dtype is None:
        dtype = input.dtype
        if _dtype_name(dtype) in _SMALL_INTS:
            dtype = _dg.int64
    return dtype


# ------------------------------------------------------------------ reductions


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A001, A002 - torch's names
    """torch.masked.sum: the sum of the kept elements over ``dim`` (all dims for None); 0 where none is kept.
    Small integer and bool inputs sum in int64."""
    dtype = _sum_dtype(input, dtype)
    dims = _canonical_dims(dim, input.dim())
    return _dg.sum(_filled("sum", input, mask), dims, keepdim=bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.prod: the product of the kept elements, one dim at a time from the last; 1 where none is
    kept."""
    dtype = _sum_dtype(input, dtype)
    result = _filled("prod", input, mask).to(dtype=dtype)
    for d in reversed(_canonical_dims(dim, input.dim())):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):  # noqa: A002
    """torch.masked.cumsum: the cumulative sum along ``dim`` with masked-out elements counted as 0."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    return _dg.cumsum(_filled("sum", input, mask), d, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):  # noqa: A002
    """torch.masked.cumprod: the cumulative product along ``dim`` with masked-out elements counted as 1."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    return _dg.cumprod(_filled("prod", input, mask), d, dtype=dtype).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.amax: the largest kept element; -inf (the smallest integer) where none is kept."""
    dtype = input.dtype if dtype is None else dtype
    filled = _filled("max", input, mask)
    return _dg.amax(filled, _canonical_dims(dim, filled.dim()), bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.amin: the smallest kept element; +inf (the largest integer) where none is kept."""
    dtype = input.dtype if dtype is None else dtype
    filled = _filled("min", input, mask)
    return _dg.amin(filled, _canonical_dims(dim, filled.dim()), bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.argmax: the index of the largest kept element along ``dim`` (int64 unless ``dtype``)."""
    dtype = input.dtype if dtype is None else dtype
    return _dg.argmax(_filled("max", input, mask), dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.argmin: the index of the smallest kept element along ``dim``."""
    dtype = input.dtype if dtype is None else dtype
    return _dg.argmin(_filled("min", input, mask), dim, bool(keepdim)).to(dtype=dtype)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.mean: the masked sum over the number of kept elements (nan where none is kept).

    Raises:
        ValueError: an integer dtype (torch's text)."""
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a floating point or "
                         f"complex dtype. Got: {dtype}")
    if mask is None:
        count = sum(_dg.ones(input.shape, dtype=_dg.int64), dim, keepdim=keepdim)
        total = sum(input, dim, keepdim=keepdim, dtype=dtype)
    else:
        inmask = _input_mask(input, mask)
        count = inmask.sum(dim=_all_if_none(dim, input), keepdim=bool(keepdim))
        total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def _all_if_none(dim, input):  # noqa: A002
    """Tensor.sum's dim for a masked reduction's dim (None and () are every dim)."""
    return _canonical_dims(dim, input.dim())


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.median: nanmedian of the input with masked-out elements as nan (nan where none is kept);
    integer inputs are computed in float32 and cast back.

    Raises:
        ValueError: an integer input with a row that has nothing kept (torch's text)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=_dg.float32)  # noqa: A001
    output = _dg.nanmedian(_filled("median", input, mask), d, keepdim).values
    if is_float:
        return output
    if not bool(_dg.isnan(output).any()):
        return output.to(dtype=dtype)
    raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.logsumexp: log(sum(exp)) of the kept elements; -inf where none is kept."""
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dims(dim, input.dim())
    return _dg.logsumexp(_filled("logsumexp", input, mask), dims, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):  # noqa: A002
    """torch.masked.logaddexp: logaddexp of the two inputs with each one's masked-out elements as -inf."""
    dtype = input.dtype if dtype is None else dtype
    return _dg.logaddexp(_filled("max", input, input_mask), _filled("max", other, other_mask)).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.norm: linalg.vector_norm of the kept elements (masked-out ones as 0, or +inf for
    ord = -inf)."""
    dtype = input.dtype if dtype is None else dtype
    filled = _filled("norm", input, mask, ord)
    return _dg.linalg.vector_norm(filled, ord, _canonical_dims(dim, input.dim()), bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction_opt, keepdim, dtype, mask, take_sqrt):  # noqa: A002
    correction = 1.0
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = _dg.float32
    compute_dtype = dtype if (dtype.is_floating_point or dtype.is_complex) else _dg.float32
    if mask is None:
        count = sum(_dg.ones(input.shape, dtype=_dg.int64), dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype)
        inmask = None
    else:
        inmask = _input_mask(input, mask)
        count = inmask.sum(dim=_all_if_none(dim, input), keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask)
    x = _dg.subtract(input, _dg.divide(sample_total, count))
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        real = _dg.float32 if compute_dtype == _dg.complex64 else (
            _dg.float64 if compute_dtype == _dg.complex128 else compute_dtype)
        count = _dg.subtract(count.to(real), correction)
        count = _dg.maximum(count, count.new_zeros([]))
    output = _dg.divide(total, count).to(dtype=dtype)
    return _dg.sqrt(output) if take_sqrt else output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.var: sum(|x - mean|^2) over the kept elements / max(count - correction, 0), correction 1
    unless ``unbiased=False`` or ``correction`` says otherwise; a real result for complex input."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):  # noqa: A002
    """torch.masked.std: the square root of torch.masked.var."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


# ------------------------------------------------------------------ normalizations


def softmax(input, dim, *, dtype=None, mask=None):  # noqa: A002
    """torch.masked.softmax: softmax along ``dim`` with masked-out elements as -inf (so 0; nan for a row with
    nothing kept)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    return _dg.nn.functional.softmax(_filled("max", input, mask), d, dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):  # noqa: A002
    """torch.masked.log_softmax: log_softmax along ``dim`` with masked-out elements as -inf."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    return _dg.nn.functional.log_softmax(_filled("max", input, mask), d, dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):  # noqa: A002
    """torch.masked.softmin: softmin along ``dim`` with masked-out elements as +inf (so 0)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dims(dim, input.dim())[0]
    return _dg.nn.functional.softmin(_filled("min", input, mask), d, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):  # noqa: A002
    """torch.masked.normalize: the input (masked-out elements as 0) over max(masked norm along ``dim``, eps)."""
    dtype = input.dtype if dtype is None else dtype
    filled = _filled("sum", input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denom = _dg.maximum(nrm, nrm.new_full([], eps))
    return _dg.divide(filled, denom)
