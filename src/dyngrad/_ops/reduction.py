"""Reductions (and ``sum_to``, the engine's broadcast reducer).

sum, mean, prod, max, min, amax, amin, argmax, argmin, var, std, var_mean,
std_mean, norm, linalg.vector_norm, linalg.matrix_norm, linalg.norm, logsumexp,
cumsum, cumprod, cummax, cummin, nansum, nanmean, all, any, count_nonzero.
Sorting-based ops (sort, topk, median, mode, unique, ...) live in sorting.py.

Derivative formulas follow PyTorch's tools/autograd/derivatives.yaml and the
functions it names in torch/csrc/autograd/FunctionsManual.cpp, including their
choices at non-smooth points: ``max()``/``min()``/``amax``/``amin`` split the
gradient evenly among ties (evenly_distribute_backward, scale_grad_by_count);
``max(dim)`` routes it to the returned index; ``prod`` with zeros uses products
of the other elements (prod_safe_zeros_backward); the 2-norm has gradient 0 at 0.
"""

from __future__ import annotations

import math
import operator
import warnings

from .._backend import along_axis_key, broadcast_to, sum_to_axes, xp
from .._batching.array import any_sample
from .._dtype import FLOATING_OR_COMPLEX_KINDS, _limited_in_use
from .._tensor import Tensor, _wrap_dim, wrap
from . import complex_support as cs
from .complex import conj_value as conj
from .limited_dtypes import refuse as refuse_limited
from .registry import Op, apply, apply_multi, register


def _dims(dim, ndim: int) -> tuple:
    """Normalise an int / tuple / list ``dim`` argument to sorted non-negative axes."""
    if ndim == 0:  # a 0-d tensor accepts dim 0 / -1 and reduces nothing
        for d in dim if isinstance(dim, (list, tuple)) else (dim,):
            _wrap_dim(d, 0)
        return ()
    if isinstance(dim, (list, tuple)):
        axes = tuple(sorted({_wrap_dim(d, ndim) for d in dim}))
        if len(axes) != len(dim):
            raise RuntimeError(f"dim {dim[0]} appears multiple times in the list of dims")
        return axes
    return (_wrap_dim(dim, ndim),)


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _nonempty(dim) -> bool:
    return not (isinstance(dim, (list, tuple)) and len(dim) == 0)


def _unsqueeze_to(g: Tensor, axes: tuple, keepdim: bool) -> Tensor:
    """Restore the reduced axes of a gradient as size-1 dims."""
    if keepdim:
        return g
    shape = list(g._data.shape)
    for a in axes:
        shape.insert(a, 1)
    return g.reshape(shape)


@register
class SumBackward0(Op):
    """sum(input): the gradient expands back to the input's shape."""

    @staticmethod
    def forward(a, dtype, shape):
        return xp.asarray(a.sum(dtype=dtype))

    def backward(self, g):
        return (g.expand(self._params[1]),)

    def backward_arrays(self, g):
        return (wrap(broadcast_to(g, self._params[1])),)


@register
class SumBackward1(Op):
    """sum(input, dim, keepdim): the gradient is unsqueezed at ``dim`` and expanded."""

    @staticmethod
    def forward(a, axes, keepdim, dtype, shape):
        return xp.asarray(a.sum(axis=axes, keepdims=keepdim, dtype=dtype))

    def backward(self, g):
        axes, keepdim, _, shape = self._params
        return (_unsqueeze_to(g, axes, keepdim).expand(shape),)

    def backward_arrays(self, g):
        axes, keepdim, _, shape = self._params
        return (wrap(broadcast_to(g if keepdim else xp.expand_dims(g, axes), shape)),)


def _sum_dtype(a: Tensor, dtype):
    if dtype is not None:
        from .._dtype import to_numpy

        return to_numpy(dtype)
    k = a._data.dtype.kind
    return xp.int64 if k in "biu" else None


def sum(a: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    dt = _sum_dtype(a, dtype)
    if dim is None:
        if not keepdim:
            return apply(SumBackward0, (a,), (dt, a._data.shape))
        dim = ()  # sum(None, True): every dim, kept (torch's dim=None is the empty list: SumBackward1)
    # An empty dim list reduces every dim, but torch still records SumBackward1.
    axes = _dims(dim, a._data.ndim) if _nonempty(dim) else tuple(range(a._data.ndim))
    return apply(SumBackward1, (a,), (axes, keepdim, dt, a._data.shape))


def sum_to(g: Tensor, shape: tuple) -> Tensor:
    """Sum ``g`` down to ``shape`` (undo broadcasting); differentiable."""
    gshape = g._data.shape
    if gshape == tuple(shape):
        return g
    axes = sum_to_axes(gshape, shape)
    out = sum(g, axes, keepdim=True) if axes else g
    return out.reshape(shape) if len(gshape) != len(shape) else out


@register
class MeanBackward0(Op):
    """mean(input): grad / numel expanded to the input's shape."""

    linear_tangent = True  # forward AD: the tangent is the mean of the tangent (NaN when empty, as torch)

    @staticmethod
    def forward(a, shape):
        # sum / count: the same value as a.mean() at half its cost on small arrays
        return xp.asarray(a.sum() / a.size) if a.size else xp.asarray(xp.nan, dtype=a.dtype)

    def backward(self, g):
        shape = self._params[0]
        n = 1
        for s in shape:
            n *= s
        return (g.expand(shape) / n,)

    def backward_arrays(self, g):
        shape = self._params[0]
        return (wrap(broadcast_to(g / _numel(shape), shape)),)


@register
class MeanBackward1(Op):
    """mean(input, dim, keepdim): grad / (reduced count), unsqueezed and expanded."""

    linear_tangent = True

    @staticmethod
    def forward(a, axes, keepdim, shape):
        if a.size == 0:  # sum / count gives torch's nan (or empty) without NumPy's "Mean of empty slice"
            count = _numel(tuple(shape[ax] for ax in axes))
            return xp.asarray(a.sum(axis=axes, keepdims=keepdim) / count).astype(a.dtype, copy=False)
        return xp.asarray(a.mean(axis=axes, keepdims=keepdim))

    def backward(self, g):
        axes, keepdim, shape = self._params
        n = 1
        for ax in axes:
            n *= shape[ax]
        return (_unsqueeze_to(g, axes, keepdim).expand(shape) / n,)

    def backward_arrays(self, g):
        axes, keepdim, shape = self._params
        n = _numel(tuple(shape[ax] for ax in axes))
        return (wrap(broadcast_to((g if keepdim else xp.expand_dims(g, axes)) / n, shape)),)


def _check_float_for_mean(a: Tensor, name: str = "mean", which: str = "Input") -> None:
    if a._data.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        from .._dtype import scalar_type_name

        raise RuntimeError(
            f"{name}(): could not infer output dtype. {which} dtype must be either a floating point or complex dtype. "
            f"Got: {scalar_type_name(a._data.dtype)}"
        )


def mean(a: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    if dtype is not None:
        a = a.to(dtype)
        _check_float_for_mean(a, which="Optional")
    _check_float_for_mean(a)
    if dim is None:
        if not keepdim:
            return apply(MeanBackward0, (a,), (a._data.shape,))
        dim = ()  # mean(None, True): every dim, kept (MeanBackward1, as torch's)
    axes = _dims(dim, a._data.ndim) if _nonempty(dim) else tuple(range(a._data.ndim))
    return apply(MeanBackward1, (a,), (axes, keepdim, a._data.shape))


# ------------------------------------------------------------------ max / min


def _evenly_distribute(g: Tensor, a: Tensor, result: Tensor) -> Tensor:
    ad, r = a._data, result._data
    mask = xp.isnan(ad) if xp.isnan(r) else ad == r
    mask = mask.astype(ad.dtype)
    count = mask.sum()
    return g * wrap(mask / count)


@register
class MaxBackward1(Op):
    """max(input) over all elements: the gradient is split evenly among the maximal elements."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a):
        return xp.asarray(a.max())

    def backward(self, g):
        a, _ = self.saved()
        return (_evenly_distribute(g, a, self.saved_result()),)


@register
class MinBackward1(Op):
    """min(input) over all elements: the gradient is split evenly among the minimal elements."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a):
        return xp.asarray(a.min())

    def backward(self, g):
        a, _ = self.saved()
        return (_evenly_distribute(g, a, self.saved_result()),)


class _ValuesIndicesOp(Op):
    """max/min along a dim: outputs (values, indices); the gradient goes to the chosen index."""

    save_inputs = True
    pick = None

    @classmethod
    def forward(cls, a, axis, keepdim):
        if a.ndim == 0:
            return a.copy(), xp.zeros((), dtype=xp.int64)
        idx = cls.pick(a, axis=axis, keepdims=True)
        values = a[along_axis_key(idx, axis)]
        if not keepdim:
            idx = idx.squeeze(axis)
            values = values.squeeze(axis)
        return values, idx.astype(xp.int64)

    def backward(self, g, _gi):
        (a,) = self.saved()
        axis, keepdim = self._params
        if a._data.ndim == 0:
            return (g,)
        idx = self._indices
        from .indexing import scatter_along

        gk = g if keepdim else g.unsqueeze(axis)
        ik = idx if keepdim else xp.expand_dims(idx, axis)
        return (scatter_along(gk, a._data.shape, axis, ik),)


@register
class MaxBackward0(_ValuesIndicesOp):
    """max(input, dim, keepdim) -> (values, indices)."""

    @staticmethod
    def pick(a, axis, keepdims):
        return a.argmax(axis=axis, keepdims=keepdims)


@register
class MinBackward0(_ValuesIndicesOp):
    """min(input, dim, keepdim) -> (values, indices)."""

    @staticmethod
    def pick(a, axis, keepdims):
        return a.argmin(axis=axis, keepdims=keepdims)


def return_type(name: str, fields: tuple) -> type:
    """A tuple type printing as torch's ``torch.return_types.<name>`` (fields by name or position)."""

    def __repr__(self) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    ns = {"__slots__": (), "__repr__": __repr__, "n_fields": len(fields), "n_sequence_fields": len(fields)}
    for i, f in enumerate(fields):
        ns[f] = property(operator.itemgetter(i))
    cls = type(name, (tuple,), ns)
    cls.__module__ = "dyngrad.return_types"
    return cls


_RETURN_TYPES: dict = {}


def values_indices(values, indices, name: str = "max"):
    """``torch.return_types.<name>(values=..., indices=...)``."""
    cls = _RETURN_TYPES.get(name)
    if cls is None:
        cls = _RETURN_TYPES[name] = return_type(name, ("values", "indices"))
    return cls((values, indices))


def _max_min(a: Tensor, dim, keepdim, other, all_op, dim_op, name):
    if other is not None:  # max(input, other): the elementwise form
        from .clamp_minmax import maximum, minimum

        return maximum(a, other) if name == "max" else minimum(a, other)
    if dim is None:
        if a._data.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
                "with the 'dim' argument."
            )
        if a._data.dtype.kind == "c":
            raise cs.kernel_error(f"{name}_all", a._data.dtype)
        return apply(all_op, (a,))
    axis = _wrap_dim(dim, a._data.ndim)
    if a._data.shape and a._data.shape[axis] == 0:
        raise IndexError(
            f"{name}(): Expected reduction dim {axis} to have non-zero size."
        )
    if a._data.dtype.kind == "c":
        raise RuntimeError(f"{name}(): does not support complex input")
    values, indices = apply_multi(dim_op, (a,), (axis, keepdim))
    if values._grad_fn is not None:
        values._grad_fn._indices = indices._data
    return values_indices(values, indices, name)


def _dim_or_other(dim_or_other, dim, other) -> tuple:
    """(dim, other) of ``max(x, ARG)``: a tensor given by position is ``other`` (torch's ``(Tensor other)``
    overload comes first), one given as ``dim=`` is a dim (a 0-d integer tensor reads as an int there)."""
    if dim_or_other is None:
        return dim, other
    if isinstance(dim_or_other, Tensor):
        return dim, dim_or_other
    return dim_or_other, other


def max(a: Tensor, dim_or_other=None, /, keepdim: bool = False, *, dim=None, other=None):  # noqa: A001
    """``max(input)``, ``max(input, other)`` (elementwise) or ``max(input, dim, keepdim=False)`` (values and
    indices); see torch.max. The second argument is positional-only so that ``dim=`` given by name is a dim
    even when it is a tensor (``x.max(dim=torch.tensor(1))``)."""
    dim, other = _dim_or_other(dim_or_other, dim, other)
    return _max_min(a, dim, keepdim, other, MaxBackward1, MaxBackward0, "max")


def min(a: Tensor, dim_or_other=None, /, keepdim: bool = False, *, dim=None, other=None):  # noqa: A001
    """``min(input)``, ``min(input, other)`` or ``min(input, dim, keepdim=False)``: as ``max``."""
    dim, other = _dim_or_other(dim_or_other, dim, other)
    return _max_min(a, dim, keepdim, other, MinBackward1, MinBackward0, "min")


# ------------------------------------------------------------------ helpers for the ops below


def _reduce_axes(a: Tensor, dim) -> tuple:
    """Axes for a dim argument that may be None or an empty list (both mean every dim)."""
    if dim is None or not _nonempty(dim):
        return tuple(range(a._data.ndim))
    return _dims(dim, a._data.ndim)


def _const(array) -> Tensor:
    """A constant (non-differentiable) tensor around an array, for masks and scales in backward."""
    return wrap(xp.asarray(array))


def _axis_key(ndim: int, axis: int, item) -> tuple:
    return (slice(None),) * axis + (item,)


def _slice(t: Tensor, axis: int, start=None, stop=None, step=None) -> Tensor:
    """``t`` sliced along ``axis``, differentiably (a SliceBackward0 node)."""
    from .indexing import getitem_raw

    key = _axis_key(t._data.ndim, axis, slice(start, stop, step))
    return getitem_raw(t, key, t._data.shape, False)


def _flip(t: Tensor, axis: int) -> Tensor:
    return _slice(t, axis, None, None, -1)


def _pad_front_with_one(t: Tensor, axis: int, shape: tuple) -> Tensor:
    """``cat([ones, t], axis)`` with one leading 1 along ``axis`` (differentiable in ``t``)."""
    from .indexing import index_backward

    n = shape[axis]
    placed = index_backward(t, shape, _axis_key(len(shape), axis, slice(1, n)), False)
    first = xp.zeros(shape, dtype=t._data.dtype)
    first[_axis_key(len(shape), axis, slice(0, 1))] = 1
    return placed + _const(first)


def _scatter(g: Tensor, shape: tuple, axis: int, index, accumulate: bool = False) -> Tensor:
    """Zeros of ``shape`` with ``g`` put at ``index`` along ``axis`` (added up when ``accumulate``)."""
    from .indexing import index_backward

    return index_backward(g, shape, along_axis_key(index, axis), True if accumulate else "unique")


def _float_check(a: Tensor, message: str) -> None:
    if a._data.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        from .._dtype import scalar_type_name

        raise RuntimeError(message.format(scalar_type_name(a._data.dtype)))


def _check_nonempty_reduction(name: str, a: Tensor, axes, dim_given: bool, exc=IndexError) -> None:
    """torch's errors for max-like reductions (no identity) over empty dims."""
    shape = a._data.shape
    if not dim_given:
        if a._data.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                "dim with the 'dim' argument."
            )
        return
    for ax in axes:
        if shape and shape[ax] == 0:
            raise exc(f"{name}(): Expected reduction dim {ax} to have non-zero size.")


# ------------------------------------------------------------------ prod


def _prod_others(a: Tensor, axis: int) -> Tensor:
    """For each element, the product of the other elements along ``axis``, safe with zeros.

    PyTorch's prod_safe_zeros_backward: exclusive cumulative products from the front and
    from the back, multiplied: [a, b, c] -> [1, a, ab] * [bc, c, 1] = [bc, ac, ab].
    Written with differentiable ops, so second derivatives at zeros are right too.
    """
    shape = a._data.shape
    n = shape[axis]
    front = cumprod(_pad_front_with_one(_slice(a, axis, 0, n - 1), axis, shape), axis)
    back = _flip(cumprod(_pad_front_with_one(_flip(_slice(a, axis, 1, n), axis), axis, shape), axis), axis)
    return front * back


def _prod_backward(g: Tensor, a: Tensor, result: Tensor, axis) -> Tensor:
    """prod_backward (FunctionsManual.cpp): grad * (result / input).conj() without zeros, else the zero-safe form
    (prod_safe_zeros_backward, also conjugated)."""
    ad = a._data
    if ad.ndim == 0:
        return g
    if not (ad == 0).any():
        return g * conj(result / a)
    if axis is None:
        return (g * conj(_prod_others(a.reshape(-1), 0))).reshape(ad.shape)
    return g * conj(_prod_others(a, axis))


@register
class ProdBackward0(Op):
    """prod(input) over all elements; int/bool inputs give int64. Gradient: see _prod_backward."""

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, dtype):
        return xp.asarray(a.prod(dtype=dtype))

    def backward(self, g):
        a, _ = self.saved()
        return (_prod_backward(g, a, self.saved_result(), None),)


@register
class ProdBackward1(Op):
    """prod(input, dim, keepdim); the gradient is _prod_backward along ``dim``."""

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, axis, keepdim, dtype):
        if a.ndim == 0:
            return a.astype(dtype) if dtype is not None else a.copy()
        return xp.asarray(a.prod(axis=axis, keepdims=keepdim, dtype=dtype))

    def backward(self, g):
        a, _ = self.saved()
        axis, keepdim, _ = self._params
        result = self.saved_result()
        if a._data.ndim and not keepdim:
            g, result = g.unsqueeze(axis), result.unsqueeze(axis)
        return (_prod_backward(g, a, result, axis),)


def prod(a: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """torch.prod(input, *, dtype) / torch.prod(input, dim: int, keepdim=False, *, dtype)."""
    if isinstance(dim, (tuple, list)):
        raise TypeError(
            f"prod() received an invalid combination of arguments - got ({type(dim).__name__}), but expected one "
            "of:\n * (*, torch.dtype dtype = None)\n * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n"
        )
    dt = _sum_dtype(a, dtype)
    if dim is None:
        return apply(ProdBackward0, (a,), (dt,))
    axis = _wrap_dim(dim, a._data.ndim)
    return apply(ProdBackward1, (a,), (axis, keepdim, dt))


# ------------------------------------------------------------------ amax / amin / argmax / argmin


class _AmaxAmin(Op):
    """amax/amin(input, dim=(), keepdim): the gradient is split evenly among the extremal elements.

    derivatives.yaml: scale_grad_by_count(restore_reduced_dims(grad), restore_reduced_dims(result) == self, dim).
    """

    save_inputs = True
    save_result = True
    reduce = None

    @classmethod
    def forward(cls, a, axes, keepdim):
        if a.ndim == 0:
            return a.copy()
        return xp.asarray(cls.reduce(a, axis=axes, keepdims=keepdim))

    def backward(self, g):
        a, r = self.saved()
        axes, keepdim = self._params
        rd = r._data if keepdim else xp.expand_dims(r._data, axes)
        mask = a._data == rd
        count = mask.sum(axis=axes, keepdims=True)
        return (_unsqueeze_to(g, axes, keepdim) * _const((mask / count).astype(a._data.dtype)),)


@register
class AmaxBackward0(_AmaxAmin):
    reduce = staticmethod(xp.max)


@register
class AminBackward0(_AmaxAmin):
    reduce = staticmethod(xp.min)


def _empty_dims_given(a: Tensor, dim) -> list:
    """The dims, as the caller wrote them and in their order, that are empty (torch's messages print them raw)."""
    d = a._data
    if not d.ndim:
        return []
    return [x for x in (dim if isinstance(dim, (list, tuple)) else (dim,)) if d.shape[_wrap_dim(x, d.ndim)] == 0]


def _amax_amin(op, name, a: Tensor, dim, keepdim):
    if dim is None:  # amax(x, None): torch's parser reads None as the empty dim list (every dim)
        dim = ()
    axes = _reduce_axes(a, dim) if a._data.ndim else (_dims(dim, 0) if dim is not None else ())
    if not _nonempty(dim):
        _check_nonempty_reduction(name, a, axes, False)
    else:
        empty = _empty_dims_given(a, dim)
        if empty:
            raise IndexError(f"{name}(): Expected reduction dim {empty[0]} to have non-zero size.")
    if a._data.dtype.kind == "c" and a._data.size:  # (an empty result runs no kernel in torch: no error)
        raise cs.kernel_error("max_values_cpu" if name == "amax" else "min_values_cpu", a._data.dtype)
    return apply(op, (a,), (axes, keepdim))


def amax(a: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    return _amax_amin(AmaxBackward0, "amax", a, dim, keepdim)


def amin(a: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    return _amax_amin(AminBackward0, "amin", a, dim, keepdim)


def _arg(name, pick, a: Tensor, dim, keepdim):
    d = a._data
    if _limited_in_use[0]:
        refuse_limited(f"{name}_cpu", d)
    if d.dtype.kind == "c":
        raise RuntimeError(f"{name}(): does not support complex input")
    if dim is None:
        if d.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        out = xp.asarray(pick(d.reshape(-1)), dtype=xp.int64)
        if not keepdim:
            return wrap(out)
        # under vmap torch's batching rule (it flattens each sample) keeps one dim, not all of them
        kept = d.ndim if type(d) is xp.ndarray or d.ndim == 0 else 1
        return wrap(out.reshape((1,) * kept))
    axis = _wrap_dim(dim, d.ndim)
    if d.ndim == 0:
        return wrap(xp.zeros((), dtype=xp.int64))
    if d.shape[axis] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {axis} to have non-zero size.")
    if d.size == 0:
        shape = list(d.shape)
        if keepdim:
            shape[axis] = 1
        else:
            del shape[axis]
        return wrap(xp.zeros(shape, dtype=xp.int64))
    return wrap(pick(d, axis=axis, keepdims=keepdim).astype(xp.int64))


def argmax(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the (first) maximum; NaN counts as the maximum, as in torch."""
    return _arg("argmax", xp.argmax, a, dim, keepdim)


def argmin(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return _arg("argmin", xp.argmin, a, dim, keepdim)


# ------------------------------------------------------------------ var / std


_DOF_WARNING = (
    "{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor (input numel "
    "divided by output numel). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)"
)


def _var_array(a, axes, correction, keepdim):
    if a.dtype.kind == "c":  # torch's std_var_out: var(real) + var(imag), each in the real dtype
        return _var_array(a.real, axes, correction, keepdim) + _var_array(a.imag, axes, correction, keepdim)
    n = _numel(tuple(a.shape[ax] for ax in axes))
    with xp.errstate(divide="ignore", invalid="ignore"):
        if n == 0:
            shape = tuple(1 if i in axes else s for i, s in enumerate(a.shape)) if keepdim else tuple(
                s for i, s in enumerate(a.shape) if i not in axes
            )
            return xp.full(shape, xp.nan, dtype=a.dtype)
        mean = a.mean(axis=axes, keepdims=True)
        ss = ((a - mean) ** 2).sum(axis=axes, keepdims=keepdim)
        dof = n - correction
        return xp.asarray(ss / (dof if dof > 0 else 0), dtype=a.dtype)


def _var_backward(g: Tensor, a: Tensor, axes: tuple, correction, keepdim: bool, full) -> Tensor:
    """var_backward (FunctionsManual.cpp): (2 / (N - correction)) * grad * (self - self.mean(dim, keepdim=True)).

    Without a dim (or on a 0-d input) and N - correction <= 0 torch returns grad * (NaN where
    self equals its mean, else inf); with a dim it keeps the formula (inf for 0, negative below).
    ``full`` is True without a dim, False with one, and "empty" for an explicit empty dim list:
    torch reduces every dim then but its backward counts N as the size of no dims, 1.
    """
    shape = a._data.shape
    n = 1 if full == "empty" else _numel(tuple(shape[ax] for ax in axes))
    g = _unsqueeze_to(g, axes, keepdim)
    dof = n - correction
    if full is True and dof <= 0:
        ad = a._data
        eq = ad == ad.mean() if ad.size else xp.zeros(shape, bool)
        # a real factor (the real dtype for complex input, as torch's at::where of two doubles)
        return g * _const(xp.where(eq, xp.nan, xp.inf).astype(ad.real.dtype))
    scale = 2.0 / dof if dof != 0 else math.inf  # C++'s 2.0 / 0.0
    centred = a - mean(a, list(axes), keepdim=True) if axes else a - a
    return g * scale * centred


def _defined(g: Tensor) -> bool:
    """Whether an output gradient of a multi-output node carries anything.

    torch skips an output's term when its gradient is undefined (the output was not used);
    dyngrad's engine passes zeros instead, so a constant all-zero gradient is skipped: the
    two differ only where the skipped term would be NaN or infinite (e.g. var with dof <= 0).
    """
    return g._requires_grad or bool(g._data.any())


def _std_backward(g: Tensor, std: Tensor, a: Tensor, axes, correction, keepdim, full) -> Tensor:
    """std_backward: var_backward((grad / (2 * result)).masked_fill(result == 0, 0), ...)."""
    from .pointwise import where_

    zero = std._data == 0
    gv = where_(_const(zero), 0.0, g / (std * 2)) if zero.any() else g / (std * 2)
    return _var_backward(gv, a, axes, correction, keepdim, full)


@register
class VarBackward0(Op):
    """var(input, dim, correction, keepdim); real for complex input (var(real) + var(imag)). Gradient: _var_backward."""

    save_inputs = True
    complex_grad = True  # var of complex input is real: the formula holds as it is

    @staticmethod
    def forward(a, axes, correction, keepdim, full):
        return _var_array(a, axes, correction, keepdim)

    def backward(self, g):
        (a,) = self.saved()
        axes, correction, keepdim, full = self._params
        return (_var_backward(g, a, axes, correction, keepdim, full),)


@register
class StdBackward0(Op):
    """std(input, dim, correction, keepdim) = sqrt(var). Gradient: _std_backward (0 where std is 0)."""

    save_inputs = True
    save_result = True
    complex_grad = True  # var of complex input is real: the formula holds as it is

    @staticmethod
    def forward(a, axes, correction, keepdim, full):
        return xp.sqrt(_var_array(a, axes, correction, keepdim))

    def backward(self, g):
        a, _ = self.saved()
        axes, correction, keepdim, full = self._params
        return (_std_backward(g, self.saved_result(), a, axes, correction, keepdim, full),)


def _mean_backward(g: Tensor, shape: tuple, axes: tuple, keepdim: bool) -> Tensor:
    n = _numel(tuple(shape[ax] for ax in axes))
    return _unsqueeze_to(g, axes, keepdim).expand(shape) / n


@register
class VarMeanBackward0(Op):
    """var_mean -> (var, mean): var_backward(grad_var) + mean_backward(grad_mean)."""

    save_inputs = True
    complex_grad = True  # var of complex input is real: the formula holds as it is

    @staticmethod
    def forward(a, axes, correction, keepdim, full):
        with xp.errstate(invalid="ignore"):
            m = a.mean(axis=axes, keepdims=keepdim) if a.size else _var_array(a, axes, 0, keepdim)
        return _var_array(a, axes, correction, keepdim), xp.asarray(m, dtype=a.dtype)

    def backward(self, gv, gm):
        (a,) = self.saved()
        axes, correction, keepdim, full = self._params
        parts = []
        if _defined(gv):
            parts.append(_var_backward(gv, a, axes, correction, keepdim, full))
        if _defined(gm) or not parts:
            parts.append(_mean_backward(gm, a._data.shape, axes, keepdim))
        return (parts[0] + parts[1] if len(parts) == 2 else parts[0],)


@register
class StdMeanBackward0(Op):
    """std_mean -> (std, mean): std_backward(grad_std) + mean_backward(grad_mean)."""

    save_inputs = True
    complex_grad = True  # var of complex input is real: the formula holds as it is

    @staticmethod
    def forward(a, axes, correction, keepdim, full):
        v, m = VarMeanBackward0.forward(a, axes, correction, keepdim, full)
        return xp.sqrt(v), m

    def backward(self, gs, gm):
        (a,) = self.saved()
        axes, correction, keepdim, full = self._params
        parts = []
        if _defined(gs):
            # the std output, recomputed from the input (differentiably, for higher derivatives) as a std node:
            # torch differentiates its saved output through this node's own masked std_backward, which keeps
            # second derivatives at std == 0 at 0 (a sqrt node would give 0 * inf there)
            std = apply(StdBackward0, (a,), (axes, correction, keepdim, full))
            parts.append(_std_backward(gs, std, a, axes, correction, keepdim, full))
        if _defined(gm) or not parts:
            parts.append(_mean_backward(gm, a._data.shape, axes, keepdim))
        return (parts[0] + parts[1] if len(parts) == 2 else parts[0],)


def _var_args(name: str, a: Tensor, dim, unbiased, correction):
    """Sort out torch's overloads: (dim, unbiased, keepdim), (unbiased), (dim, *, correction, keepdim)."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if a._data.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    axes = _reduce_axes(a, dim) if a._data.ndim else (_dims(dim, 0) if dim is not None else ())
    n = _numel(tuple(a._data.shape[ax] for ax in axes))
    if n - correction <= 0:
        warnings.warn(_DOF_WARNING.format(name), UserWarning, stacklevel=3)
    if dim is None or a._data.ndim == 0:
        return axes, correction, True
    return axes, correction, "empty" if not _nonempty(dim) else False


def var(a: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """torch.var: sum(|x - mean|^2) / (N - correction) over ``dim``; real for complex input (the variances of the
    real and imaginary parts added, as torch's std_var_out). RuntimeError for integer input."""
    axes, correction, full = _var_args("var", a, dim, unbiased, correction)
    return apply(VarBackward0, (a,), (axes, correction, keepdim, full))


def std(a: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """torch.std: sqrt(var(...)); real for complex input."""
    axes, correction, full = _var_args("std", a, dim, unbiased, correction)
    return apply(StdBackward0, (a,), (axes, correction, keepdim, full))


def var_mean(a: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    axes, correction, full = _var_args("var_mean", a, dim, unbiased, correction)
    return apply_multi(VarMeanBackward0, (a,), (axes, correction, keepdim, full))


def std_mean(a: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    axes, correction, full = _var_args("std_mean", a, dim, unbiased, correction)
    return apply_multi(StdMeanBackward0, (a,), (axes, correction, keepdim, full))


# ------------------------------------------------------------------ norms


def _vector_norm_array(a, ord, axes, keepdim):
    x = xp.abs(a)  # real, for complex input too
    if ord == 2:
        return xp.sqrt((x * x).sum(axis=axes, keepdims=keepdim))
    if ord == math.inf:
        return x.max(axis=axes, keepdims=keepdim) if x.size else xp.zeros_like(x.sum(axis=axes, keepdims=keepdim))
    if ord == -math.inf:
        return x.min(axis=axes, keepdims=keepdim) if x.size else xp.zeros_like(x.sum(axis=axes, keepdims=keepdim))
    if ord == 0:
        return (x != 0).sum(axis=axes, keepdims=keepdim).astype(x.dtype)
    if ord == 1:
        return x.sum(axis=axes, keepdims=keepdim)
    with xp.errstate(divide="ignore"):
        return (x**ord).sum(axis=axes, keepdims=keepdim) ** (1.0 / ord)


@register
class LinalgVectorNormBackward0(Op):
    """linalg.vector_norm(x, ord, dim, keepdim): the p-norm of |x| over ``dim``.

    Gradient: norm_backward (FunctionsManual.cpp): ord 0 none; ord 1 sgn(x) * grad; ord 2
    grad * x / norm with 0 where the norm is 0; ord inf split evenly among the elements whose
    |x| equals the norm; otherwise sgn(x) |x|^(p-1) grad / norm^(p-1) (0 where the norm is 0).
    """

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, ord, axes, keepdim, dtype):
        if dtype is not None:
            a = a.astype(dtype)
        if a.ndim == 0:
            return _vector_norm_array(a.reshape(1), ord, 0, False).reshape(())
        return xp.asarray(_vector_norm_array(a, ord, axes, keepdim), dtype=a.real.dtype)  # real for complex

    def backward(self, g):
        from .pointwise import where_

        a, _ = self.saved()
        p, axes, keepdim, dtype = self._params
        norm = self.saved_result()
        if dtype is not None and a._data.dtype != dtype:  # the forward computed in ``dtype`` (complex stays complex)
            from .._dtype import from_numpy
            from .shape import to

            a = to(a, from_numpy(xp.dtype(dtype)))
        ad = a._data
        if ad.ndim and not keepdim:
            g, norm = _unsqueeze_to(g, axes, False), _unsqueeze_to(norm, axes, False)
        nd = norm._data
        if ad.dtype.kind == "c":  # sgn(z) = z / |z|, differentiable (norm_backward's self.sgn())
            from .complex import sgn as _sgn

            sgn = _sgn(a)
        else:
            sgn = _const(xp.sign(ad))
        if p == 0:
            return (None,)
        if p == 1:
            return (sgn * g,)
        if p == 2:
            zero = nd == 0
            ratio = a / norm
            return (g * (where_(_const(zero), 0.0, ratio) if any_sample(zero) else ratio),)
        if math.isinf(p):
            mask = (xp.abs(ad) == nd) | xp.isnan(ad)
            count = mask.sum(axis=axes if ad.ndim else None, keepdims=True)
            return (sgn * (g / _const(count.astype(ad.dtype)) * _const(mask.astype(ad.dtype))),)
        from .pointwise import abs as abs_

        if p < 1:
            powed = abs_(a) ** (p - 1)
            scaled = sgn * where_(_const(ad == 0), 0.0, powed)
            return (scaled * g * norm ** (1 - p),)
        scaled = sgn * abs_(a) ** (p - 1) if p < 2 else a * abs_(a) ** (p - 2)
        scale = g / norm ** (p - 1)
        zero = nd == 0
        if zero.any():
            scale = where_(_const(zero), 0.0, scale)
        return (scaled * scale,)


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """torch.linalg.vector_norm: the ``ord``-norm of |x| over ``dim`` (all dims when None), computed in ``dtype``
    when given. Real for complex input (float32 for complex64).

    Raises:
        RuntimeError: an integer input; a ``dtype`` of the other kind (real for complex input or complex for real
            input); ord < 0 or inf over an empty reduction (torch's texts).
    """
    from .._dtype import to_numpy

    _float_check(x, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}")
    ord = float(ord)
    d = x._data
    axes = _reduce_axes(x, dim) if d.ndim else (_dims(dim, 0) if dim is not None and _nonempty(dim) else ())
    if ord < 0 or math.isinf(ord):
        if dim is None or not _nonempty(dim):
            if d.size == 0:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor because the operation "
                    "does not have an identity"
                )
        else:
            empty = _empty_dims_given(x, dim)
            if empty:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {ord:g} norm on the dimension {empty[0]}because this "
                    "dimension is empty and the operation does not have an identity"
                )
    dt = to_numpy(dtype) if dtype is not None else None
    if dt is not None and (dt.kind == "c") != (d.dtype.kind == "c"):
        from .._dtype import scalar_type_name

        kind = "complex" if d.dtype.kind == "c" else "real"
        raise RuntimeError(f"linalg.vector_norm: dtype should be {kind} for {kind} inputs, but got {scalar_type_name(dt)}")
    return apply(LinalgVectorNormBackward0, (x,), (ord, axes, keepdim, dt))


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """torch.linalg.matrix_norm for ord 'fro', inf, -inf, 1, -1 (composites of vector_norm and amax/amin).

    The public ``linalg.matrix_norm`` (linalg.py) checks the arguments, computes 'nuc', 2 and -2
    from singular values and sends the other orders here.
    """
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    _float_check(A, "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {}")
    d0, d1 = (_wrap_dim(d, A._data.ndim) for d in dim)
    if isinstance(ord, str):
        if ord == "fro":
            return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if math.isinf(ord):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    col = vector_norm(A, 1, d0, keepdim, dtype=dtype)
    if ord > 0 and col._data.shape[d1] == 0:
        # the largest of no non-negative numbers: torch returns zeros (not recorded) instead of amax's error
        shape = list(col._data.shape)
        if keepdim:
            shape[d1] = 1
        else:
            del shape[d1]
        return wrap(xp.zeros(shape, dtype=col._data.dtype))
    return (amax if ord > 0 else amin)(col, d1, keepdim)


def norm(a: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """torch.norm / Tensor.norm for 'fro' and numbers (vector norms); linalg.norm handles 'nuc'."""
    if isinstance(dim, int):
        dim = (dim,)
    if p == "fro" or p is None:
        if dim is not None and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(x) for x in dim)}")
        return vector_norm(a, 2, dim, keepdim, dtype=dtype)
    if isinstance(p, str):
        raise RuntimeError(f"norm(): invalid norm type {p}")
    return vector_norm(a, p, dim, keepdim, dtype=dtype)


# ------------------------------------------------------------------ logsumexp



def _logsumexp_array(a, axes, keepdim):
    # torch's formula, max + log(sum(exp(x - max))) with the max of each reduced slice: the same
    # rounding as torch's far more often than any shortcut (a shared shift, no shift); complex
    # input shifts by the max of the real parts, as torch
    if a.size:
        m = (a.real if a.dtype.kind == "c" else a).max(axis=axes, keepdims=True)
    else:
        m = None
    # the common case, without error-state bookkeeping (under vmap the general path: no test of values)
    if m is not None and type(m) is xp.ndarray and xp.isfinite(m).all():
        s = xp.exp(a - m).sum(axis=axes, keepdims=keepdim)
        return xp.log(s) + m.reshape(s.shape)
    with xp.errstate(divide="ignore", invalid="ignore"):
        if m is None:  # empty: log(0) = -inf
            return xp.log(xp.exp(a).sum(axis=axes, keepdims=keepdim))
        m = xp.where(xp.isinf(m), 0, m)  # infinite maxima: shift by 0 so inf - inf never appears
        s = xp.exp(a - m).sum(axis=axes, keepdims=keepdim)
        return xp.log(s) + m.reshape(s.shape)


@register
class LogsumexpBackward0(Op):
    """logsumexp(input, dim, keepdim) = log(sum(exp(x))), computed stably.

    Gradient (logsumexp_backward): grad * exp(self - result).conj(); NaN where the result is
    infinite and self equals it (inf - inf), as in torch.
    """

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, axes, keepdim, kept_shape):
        if a.ndim == 0:  # (complex: log(exp(z)) brings the phase into (-pi, pi], as torch's formula does)
            return a.copy() if a.dtype.kind != "c" else _logsumexp_array(a.reshape(1), 0, False).reshape(())
        return _logsumexp_array(a, axes, keepdim)

    def backward(self, g):
        a, _ = self.saved()
        _, keepdim, kept_shape = self._params
        r = self.saved_result()
        if not keepdim:
            g, r = g.reshape(kept_shape), r.reshape(kept_shape)
        return (g * conj((a - r).exp()),)

    def backward_arrays(self, g):
        a, r = self.saved()
        if a._data.dtype.kind == "c":
            return self.backward(wrap(g))
        kept_shape = self._params[2]
        rd = r._data.reshape(kept_shape)
        if xp.isfinite(rd).all():
            d = a._data - rd
        else:
            with xp.errstate(invalid="ignore"):
                d = a._data - rd
        return (wrap(xp.exp(d) * g.reshape(kept_shape)),)


def logsumexp(a: Tensor, dim, keepdim: bool = False) -> Tensor:
    """torch.logsumexp(input, dim, keepdim=False); integer inputs give the default float dtype."""
    d = a._data
    if not _nonempty(dim) and not keepdim and d.ndim and d.size:
        # torch 2.13 writes its keepdim-shaped result into a 0-d output for dim=() and fails
        raise RuntimeError(f"output with shape [] doesn't match the broadcast shape [{', '.join('1' * d.ndim)}]")
    if d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        from .._dtype import default_float_np

        a = wrap(d.astype(default_float_np()))
    axes = _reduce_axes(a, dim) if d.ndim else (_dims(dim, 0) if _nonempty(dim) else ())
    kept = tuple(1 if i in axes else n for i, n in enumerate(d.shape))
    return apply(LogsumexpBackward0, (a,), (axes, keepdim, kept))


# ------------------------------------------------------------------ cumulative ops


def _cum_dtype(a: Tensor, dtype):
    if dtype is not None:
        from .._dtype import to_numpy

        return to_numpy(dtype)
    return xp.int64 if a._data.dtype.kind in "biu" else a._data.dtype


def _reversed_cumsum(t: Tensor, axis: int) -> Tensor:
    return _flip(cumsum(_flip(t, axis), axis), axis)


@register
class CumsumBackward0(Op):
    """cumsum(input, dim): the gradient is the reversed cumulative sum of grad (cumsum_backward)."""

    @staticmethod
    def forward(a, axis, dtype):
        if a.ndim == 0:
            return a.astype(dtype)
        return xp.cumsum(a, axis=axis, dtype=dtype)

    def backward(self, g):
        axis, _ = self._params
        shape = g._data.shape
        if g._data.size <= 1 or shape[axis] == 1:
            return (g,)
        return (_reversed_cumsum(g, axis),)

    def backward_arrays(self, g):
        axis, _ = self._params
        if g.ndim == 0:
            return (wrap(g),)
        return (wrap(xp.flip(xp.cumsum(xp.flip(g, axis), axis=axis), axis)),)


def cumsum(a: Tensor, dim, *, dtype=None) -> Tensor:
    axis = _wrap_dim(dim, a._data.ndim)
    return apply(CumsumBackward0, (a,), (axis, _cum_dtype(a, dtype)))


@register
class CumprodBackward0(Op):
    """cumprod(input, dim).

    Gradient (cumprod_backward): without zeros, reversed_cumsum(grad * result.conj()) / input.conj();
    with zeros, for each k the sum over i >= k of grad_i times the product of input.conj()[:i+1]
    without input[k] (torch's O(n^2) differentiable form, which is also what it uses for
    second derivatives).
    """

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, axis, dtype):
        if a.ndim == 0:
            return a.astype(dtype)
        return xp.cumprod(a, axis=axis, dtype=dtype)

    def backward(self, g):
        from .join_split import stack

        a, _ = self.saved()
        axis, _ = self._params
        ad = a._data
        if ad.size <= 1 or ad.shape[axis] == 1:
            return (g,)
        if not (ad == 0).any():
            return (_reversed_cumsum(g * conj(self.saved_result()), axis) / conj(a),)
        a = conj(a)
        n = ad.shape[axis]
        parts = []
        for k in range(n):
            gk = _slice(g, axis, k, k + 1)
            before = prod(_slice(a, axis, 0, k), axis, keepdim=True) if k else None
            if k + 1 < n:
                after = cumprod(_slice(a, axis, k + 1, n), axis)
                if before is not None:
                    after = after * before
                rest = sum(_slice(g, axis, k + 1, n) * after, axis, keepdim=True)
                gk = gk * before + rest if before is not None else gk + rest
            else:
                gk = gk * before
            parts.append(gk.squeeze(axis))
        return (stack(parts, axis),)


def cumprod(a: Tensor, dim, *, dtype=None) -> Tensor:
    axis = _wrap_dim(dim, a._data.ndim)
    return apply(CumprodBackward0, (a,), (axis, _cum_dtype(a, dtype)))


class _CumMaxMin(Op):
    """cummax/cummin(input, dim) -> (values, indices); an index is the last position of the running extreme.

    Gradient (cummaxmin_backward): zeros.scatter_add(dim, indices, grad).
    """

    save_inputs = True
    accumulate = None

    @classmethod
    def forward(cls, a, axis):
        if a.ndim == 0:
            return a.copy(), xp.zeros((), dtype=xp.int64)
        values = cls.accumulate(a, axis=axis)
        shape = [1] * a.ndim
        shape[axis] = a.shape[axis]
        pos = xp.arange(a.shape[axis]).reshape(shape)
        hit = (a == values) | (xp.isnan(a) if a.dtype.kind in FLOATING_OR_COMPLEX_KINDS else False)
        idx = xp.maximum.accumulate(xp.where(hit, pos, 0), axis=axis) if a.size else xp.zeros(a.shape, xp.int64)
        return values, idx.astype(xp.int64)

    def backward(self, g, _gi):
        (a,) = self.saved()
        (axis,) = self._params
        if a._data.ndim == 0:
            return (g,)
        return (_scatter(g, a._data.shape, axis, self._indices, accumulate=True),)


@register
class CummaxBackward0(_CumMaxMin):
    accumulate = staticmethod(xp.fmax.accumulate)


@register
class CumminBackward0(_CumMaxMin):
    accumulate = staticmethod(xp.fmin.accumulate)


def _cummaxmin(op, name, a: Tensor, dim):
    axis = _wrap_dim(dim, a._data.ndim)
    if a._data.dtype.kind == "c" and a._data.ndim and a._data.size:  # (empty or 0-d input: no kernel in torch)
        raise cs.kernel_error(f"{name}_cpu", a._data.dtype)
    values, indices = apply_multi(op, (a,), (axis,))
    if values._grad_fn is not None:
        values._grad_fn._indices = indices._data
    return values_indices(values, indices, name)


def cummax(a: Tensor, dim):
    return _cummaxmin(CummaxBackward0, "cummax", a, dim)


def cummin(a: Tensor, dim):
    return _cummaxmin(CumminBackward0, "cummin", a, dim)


# ------------------------------------------------------------------ nan-ignoring reductions


@register
class NansumBackward0(Op):
    """nansum(input, dim, keepdim): sum treating NaN as 0; gradient grad * ~isnan(input)."""

    save_inputs = True

    @staticmethod
    def forward(a, axes, keepdim, dtype):
        return xp.asarray(xp.nansum(a, axis=axes, keepdims=keepdim, dtype=dtype))

    def backward(self, g):
        (a,) = self.saved()
        axes, keepdim, _ = self._params
        ad = a._data
        keep = _const((~xp.isnan(ad)).astype(ad.dtype))
        return (_unsqueeze_to(g, axes, keepdim).expand(ad.shape) * keep,)


def nansum(a: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    cs.refuse_complex(a._data, "nansum on CPU does not support complex inputs", RuntimeError)
    axes = _reduce_axes(a, dim) if a._data.ndim else (_dims(dim, 0) if dim is not None and _nonempty(dim) else ())
    return apply(NansumBackward0, (a,), (axes, keepdim, _sum_dtype(a, dtype)))


def nanmean(a: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """nansum / number of non-NaN elements (torch records it as a DivBackward0)."""
    from .pointwise import div

    if dtype is not None:
        a = a.to(dtype)
    _float_check(a, "nanmean(): expected input to have floating point or complex dtype but got {}")
    count = wrap(xp.asarray((~xp.isnan(a._data)).sum(axis=_reduce_axes(a, dim), keepdims=keepdim)))
    return div(nansum(a, dim, keepdim), count)


# ------------------------------------------------------------------ logical reductions


def _logical(name, fn, a: Tensor, dim, keepdim):
    d = a._data
    out_dtype = xp.uint8 if d.dtype == xp.uint8 else xp.bool_
    axes = _reduce_axes(a, dim) if dim is not None else None
    if d.ndim == 0:
        return wrap(xp.asarray(fn(d), dtype=out_dtype))
    return wrap(xp.asarray(fn(d, axis=axes, keepdims=keepdim), dtype=out_dtype))


def all(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return _logical("all", xp.all, a, dim, keepdim)


def any(a: Tensor, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return _logical("any", xp.any, a, dim, keepdim)


def count_nonzero(a: Tensor, dim=None) -> Tensor:
    d = a._data
    if _limited_in_use[0]:
        refuse_limited("nonzero_count_cpu", d)
    axes = _reduce_axes(a, dim) if dim is not None else None
    return wrap(xp.asarray(xp.count_nonzero(d, axis=axes), dtype=xp.int64))


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.

_OPS = dict(
    prod=prod, amax=amax, amin=amin, argmax=argmax, argmin=argmin, var=var, std=std, norm=norm,
    logsumexp=logsumexp, cumsum=cumsum, cumprod=cumprod, cummax=cummax, cummin=cummin,
    nansum=nansum, nanmean=nanmean, all=all, any=any, count_nonzero=count_nonzero,
)
EXPORTS: dict = dict(_OPS, var_mean=var_mean, std_mean=std_mean)
TENSOR_METHODS: dict = dict(_OPS)
LINALG_EXPORTS: dict = dict(vector_norm=vector_norm)  # matrix_norm and norm: linalg.py
FUNCTIONAL_EXPORTS: dict = {}
