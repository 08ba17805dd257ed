"""Reductions: sum, mean, max, min (and ``sum_to``, the engine's broadcast reducer).

Derivative formulas follow PyTorch's derivatives.yaml: sum and mean expand the
gradient back; ``max()``/``min()`` over all elements split it evenly among ties
(torch's evenly_distribute_backward); ``max(dim)`` routes it to the returned index.
"""

from __future__ import annotations

from collections import namedtuple

from .._backend import along_axis_key, xp
from .._tensor import Tensor, _wrap_dim, wrap
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
        return (wrap(xp.broadcast_to(g, self._params[1])),)


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
        return (wrap(xp.broadcast_to(g if keepdim else xp.expand_dims(g, axes), shape)),)


def _sum_dtype(a: Tensor, dtype):
    if dtype is not None:
        from .._dtype import to_numpy

        return to_numpy(dtype)
    k = a._data.dtype.kind
    return xp.int64 if k in "biu" else None


def sum(a: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:  # noqa: A001
    dt = _sum_dtype(a, dtype)
    if dim is None:
        return apply(SumBackward0, (a,), (dt, a._data.shape))
    # An empty dim list reduces every dim, but torch still records SumBackward1.
    axes = _dims(dim, a._data.ndim) if _nonempty(dim) else tuple(range(a._data.ndim))
    return apply(SumBackward1, (a,), (axes, keepdim, dt, a._data.shape))


def sum_to(g: Tensor, shape: tuple) -> Tensor:
    """Sum ``g`` down to ``shape`` (undo broadcasting); differentiable."""
    gshape = g._data.shape
    if gshape == tuple(shape):
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and gshape[i + lead] != 1)
    out = sum(g, axes, keepdim=True) if axes else g
    return out.reshape(shape) if lead else out


@register
class MeanBackward0(Op):
    """mean(input): grad / numel expanded to the input's shape."""

    @staticmethod
    def forward(a, shape):
        # sum / count: the same value as a.mean() at half its cost on small arrays
        return xp.asarray(a.sum() / a.size) if a.size else xp.asarray(a.mean())

    def backward(self, g):
        shape = self._params[0]
        n = 1
        for s in shape:
            n *= s
        return (g.expand(shape) / n,)

    def backward_arrays(self, g):
        shape = self._params[0]
        return (wrap(xp.broadcast_to(g / _numel(shape), shape)),)


@register
class MeanBackward1(Op):
    """mean(input, dim, keepdim): grad / (reduced count), unsqueezed and expanded."""

    @staticmethod
    def forward(a, axes, keepdim, shape):
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
        return (wrap(xp.broadcast_to((g if keepdim else xp.expand_dims(g, axes)) / n, shape)),)


def _check_float_for_mean(a: Tensor, name: str = "mean") -> None:
    if a._data.dtype.kind not in "fc":
        from .._dtype import scalar_type_name

        raise RuntimeError(
            f"{name}(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {scalar_type_name(a._data.dtype)}"
        )


def mean(a: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    if dtype is not None:
        a = a.to(dtype)
    _check_float_for_mean(a)
    if dim is None:
        return apply(MeanBackward0, (a,), (a._data.shape,))
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


values_indices = namedtuple("values_indices", ["values", "indices"])


def _max_min(a: Tensor, dim, keepdim, other, all_op, dim_op, name):
    if isinstance(dim, Tensor) or other is not None:
        raise NotImplementedError(f"{name}(input, other) is not implemented yet; use torch.maximum/minimum")
    if dim is None:
        if a._data.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
                "with the 'dim' argument."
            )
        return apply(all_op, (a,))
    axis = _wrap_dim(dim, a._data.ndim)
    if a._data.shape and a._data.shape[axis] == 0:
        raise IndexError(
            f"{name}(): Expected reduction dim {axis} to have non-zero size."
        )
    values, indices = apply_multi(dim_op, (a,), (axis, keepdim))
    if values._grad_fn is not None:
        values._grad_fn._indices = indices._data
    return values_indices(values, indices)


def max(a: Tensor, dim=None, keepdim: bool = False, *, other=None):  # noqa: A001
    return _max_min(a, dim, keepdim, other, MaxBackward1, MaxBackward0, "max")


def min(a: Tensor, dim=None, keepdim: bool = False, *, other=None):  # noqa: A001
    return _max_min(a, dim, keepdim, other, MinBackward1, MinBackward0, "min")


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
