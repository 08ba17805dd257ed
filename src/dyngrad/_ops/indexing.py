"""Indexing: ``tensor[key]`` for ints, slices, None, Ellipsis, bool masks and integer arrays.

Basic indexing returns a view (shared memory), named as the last op torch would
apply (``SelectBackward0``, ``SliceBackward0``, ``UnsqueezeBackward0``,
``AliasBackward0``); advanced indexing copies (``IndexBackward0``). One node is
recorded per ``__getitem__``. The backward scatters the gradient into zeros of
the input's shape with ``IndexPutBackward`` below, itself differentiable
(its backward is indexing again), so higher derivatives work.
"""

from __future__ import annotations

from .._backend import along_axis_key, index_add, xp
from .._tensor import Tensor, wrap
from .registry import Op, apply, register


class _BasicIndex(Op):
    @staticmethod
    def forward(a, key, in_shape, advanced):
        try:
            return a[key]
        except IndexError as e:
            if "too many indices" in str(e):
                raise IndexError(f"too many indices for tensor of dimension {a.ndim}") from None
            raise IndexError(str(e).replace("axis", "dimension")) from None

    def backward(self, g):
        key, shape, advanced = self._params
        return (index_backward(g, shape, key, advanced),)

    def backward_arrays(self, g):
        key, shape, advanced = self._params
        return (wrap(IndexPutBackward.forward(g, key, shape, advanced)),)


@register
class SelectBackward0(_BasicIndex):
    """x[i]: the gradient lands at index i of zeros shaped like x."""


@register
class SliceBackward0(_BasicIndex):
    """x[a:b:c]."""


@register
class AliasBackward0(_BasicIndex):
    """x[...]: the same elements."""


@register
class IndexBackward0(_BasicIndex):
    """x[int array / bool mask]: a copy; repeated indices accumulate in backward."""


class _UnsqueezeIndex(_BasicIndex):
    pass


_UnsqueezeIndex.__name__ = "UnsqueezeBackward0"
_UnsqueezeIndex.__qualname__ = "UnsqueezeBackward0"


@register
class IndexPutBackward(Op):
    """The backward of indexing: zeros of ``shape`` with ``grad`` put (added) at ``key``."""

    @staticmethod
    def forward(g, key, shape, advanced):
        out = xp.zeros(shape, dtype=g.dtype)
        if advanced is True:  # repeated indices must add up; "unique" keys can be assigned
            index_add(out, key, g)
        else:
            out[key] = g
        return out

    def backward(self, gg):
        key, shape, advanced = self._params
        return (getitem_raw(gg, key, shape, advanced),)


IndexPutBackward.__name__ = IndexPutBackward.__qualname__ = "IndexPutBackward0"


def index_backward(g: Tensor, shape, key, advanced: bool) -> Tensor:
    return apply(IndexPutBackward, (g,), (key, shape, advanced))


def getitem_raw(a: Tensor, key, shape, advanced) -> Tensor:
    op = IndexBackward0 if advanced else SliceBackward0
    return apply(op, (a,), (key, shape, advanced))


def _normalise_key(key, shape):
    """Convert tensors in the key to arrays; return (key, is_advanced, grad_fn class).

    The class is the last op torch's indexing would apply: ``SelectBackward0`` for an int,
    ``SliceBackward0`` for a slice, ``UnsqueezeBackward0`` for None. Inside a tuple key a slice
    that keeps its whole dim is skipped by torch (``x[:, :]`` is an ``AliasBackward0``); a bare
    slice (``x[:]``) is always a ``SliceBackward0``.
    """
    bare = not isinstance(key, tuple)
    if bare:
        key = (key,)
    items = []
    advanced = False
    name = None
    for k in key:
        if isinstance(k, Tensor):
            d = k._data
            if d.dtype.kind in "iu" and d.ndim == 0:
                k = int(d)
            elif d.dtype.kind in "biu":
                k = d
            else:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
        elif isinstance(k, (list, xp.ndarray)):
            arr = xp.asarray(k)
            if arr.dtype.kind not in "iub":
                if arr.size != 0:
                    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
                arr = arr.astype(xp.int64)
            k = arr
        elif k is not None and k is not Ellipsis and not isinstance(k, bool):
            if isinstance(k, int) or (hasattr(k, "__index__") and not isinstance(k, float)):
                k = int(k.__index__())
            else:
                raise IndexError(
                    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                    f"indices (got {type(k).__name__})"
                )
        items.append(k)
    # Which dim does each item index? (Ellipsis stands for the dims no other item consumes.)
    consumed = 0
    for k in items:
        if isinstance(k, xp.ndarray):
            consumed += k.ndim if k.dtype.kind == "b" else 1
        elif k is not None and k is not Ellipsis and not isinstance(k, bool):
            consumed += 1
    dim = 0
    for k in items:
        if k is None:
            name = _UnsqueezeIndex
        elif k is Ellipsis:
            dim += max(len(shape) - consumed, 0)
        elif isinstance(k, bool) or isinstance(k, xp.ndarray):
            advanced = True
            dim += k.ndim if isinstance(k, xp.ndarray) and k.dtype.kind == "b" else (0 if isinstance(k, bool) else 1)
        elif isinstance(k, slice):
            size = shape[dim] if dim < len(shape) else 0
            # torch skips a slice only when its literal bounds cover the dim (no normalisation of -1)
            whole = (k.start in (None, 0)) and (k.stop is None or k.stop >= size) and k.step in (None, 1)
            if bare or not whole:
                name = SliceBackward0
            dim += 1
        else:
            name = SelectBackward0
            dim += 1
    if advanced:
        name = IndexBackward0
    elif name is None:
        name = AliasBackward0
    return tuple(items), advanced, name


def getitem(a: Tensor, key) -> Tensor:
    key, advanced, op = _normalise_key(key, a._data.shape)
    if a._data.ndim == 0 and not advanced and any(k is not None and k is not Ellipsis for k in key):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    out = apply(op, (a,), (key, a._data.shape, advanced))
    if not advanced:
        out._vc = a._vc
        out._base = a if a._base is None else a._base
    return out


def scatter_along(g: Tensor, shape, axis: int, index) -> Tensor:
    """Zeros of ``shape`` with ``g`` placed at ``index`` along ``axis`` (backward of max/min over a dim)."""
    return index_backward(g, shape, along_axis_key(index, axis), "unique")


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
