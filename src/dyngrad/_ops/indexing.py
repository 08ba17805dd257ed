"""Indexing: ``tensor[key]`` for ints, slices, None, Ellipsis, bool masks and integer arrays.

Basic indexing returns a view (shared memory), named as the last op torch would
apply (``SelectBackward0``, ``SliceBackward0``, ``UnsqueezeBackward0``,
``AliasBackward0``); advanced indexing copies (``IndexBackward0``). One node is
recorded per ``__getitem__``. The backward scatters the gradient into zeros of
the input's shape with ``IndexPutBackward`` below, itself differentiable
(its backward is indexing again), so higher derivatives work.
"""

from __future__ import annotations

from .._backend import along_axis_key, xp
from .._backend import index_add as _add_at
from .._batching.array import BatchedArray as _BatchedArray
from .._dtype import FLOATING_OR_COMPLEX_KINDS, _limited_in_use
from .._tensor import Tensor, _wrap_dim, wrap
from ..autograd.grad_mode import is_grad_enabled
from .limited_dtypes import refuse as refuse_limited
from .registry import Op, apply, register
from .shape import _mark_view

_ndarray = xp.ndarray
_ARRAYS = (xp.ndarray, _BatchedArray)  # index arrays: NumPy's, or batched by dyngrad.func.vmap


class _BasicIndex(Op):
    @staticmethod
    def forward(a, key, in_shape, advanced):
        try:
            out = a[key]
            if type(out) is not _ndarray:
                # NumPy returns a scalar copy for a key of ints only; a trailing Ellipsis gives a 0-d view instead,
                # so that writes through the result reach ``a`` as in torch
                out = a[tuple(k for k in key if k is not Ellipsis) + (Ellipsis,)]
            return out
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
            _add_at(out, key, g)
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
            if d.dtype.kind in "iu" and d.ndim == 0 and type(d) is _ndarray:
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
        if isinstance(k, _ARRAYS):
            consumed += k.ndim if k.dtype.kind == "b" else 1
        elif k is not None and k is not Ellipsis and not isinstance(k, bool):
            consumed += 1
    dim = 0
    for k in items:
        if k is None:
            name = _UnsqueezeIndex
        elif k is Ellipsis:
            dim += max(len(shape) - consumed, 0)
        elif isinstance(k, bool) or isinstance(k, _ARRAYS):
            advanced = True
            dim += k.ndim if isinstance(k, _ARRAYS) and k.dtype.kind == "b" else (0 if isinstance(k, bool) else 1)
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
        if consumed <= len(shape) and any(isinstance(k, _ARRAYS) and k.dtype.kind == "b" and k.ndim for k in items):
            _check_masks(items, shape, consumed)
    elif name is None:
        name = AliasBackward0
    return tuple(items), advanced, name


def _check_masks(items, shape, consumed: int) -> None:
    """torch's IndexError for a bool mask whose shape differs from the dims it indexes.

    torch compares against the tensor as the basic part of the key leaves it (ints remove their dim,
    None adds one, slices shorten theirs), so the message names that shape and the mismatching positions.
    """
    sizes = list(shape)
    pos = 0
    for k in items:
        if k is None or isinstance(k, bool):
            sizes.insert(pos, 1)
            pos += 1
        elif k is Ellipsis:
            pos += max(len(shape) - consumed, 0)
        elif isinstance(k, slice):
            if pos < len(sizes):
                sizes[pos] = len(range(*k.indices(sizes[pos])))
            pos += 1
        elif isinstance(k, _ARRAYS):
            if k.dtype.kind == "b":
                for j, n in enumerate(k.shape):
                    if pos + j < len(sizes) and n != sizes[pos + j]:
                        raise IndexError(
                            f"The shape of the mask [{', '.join(map(str, k.shape))}] at index {j} does not match the "
                            f"shape of the indexed tensor [{', '.join(map(str, sizes))}] at index {pos + j}"
                        )
                pos += k.ndim
            else:
                pos += 1
        elif pos < len(sizes):  # an int: its dim goes
            del sizes[pos]


def getitem(a: Tensor, key) -> Tensor:
    key, advanced, op = _normalise_key(key, a._data.shape)
    if a._data.ndim == 0 and not advanced and any(k is not None and k is not Ellipsis for k in key):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    out = apply(op, (a,), (key, a._data.shape, advanced))
    if not advanced:
        _mark_view(out, a)
    return out


def scatter_along(g: Tensor, shape, axis: int, index) -> Tensor:
    """Zeros of ``shape`` with ``g`` placed at ``index`` along ``axis`` (backward of max/min over a dim)."""
    return index_backward(g, shape, along_axis_key(index, axis), "unique")


def slice_view(a: Tensor, dim: int, start: int, stop: int) -> Tensor:
    """``a`` sliced to [start, stop) along ``dim``: a view recorded as SliceBackward0 (narrow, split)."""
    key = (slice(None),) * dim + (slice(start, stop),)
    out = apply(SliceBackward0, (a,), (key, a._data.shape, False))
    return _mark_view(out, a)


# ------------------------------------------------------------ ops along a dim
def _along(dim: int, index) -> tuple:
    """The advanced-indexing key that picks ``index`` (1-D) along ``dim``, every other dim whole."""
    return (slice(None),) * dim + (index,)


_INDEX_DTYPE_ERRORS = {  # torch's message for a non-integer index, per op
    "index_select": (RuntimeError, "index_select(): Expected dtype int32 or int64 for index"),
    "take": (RuntimeError, "take(): Expected a long tensor for index, but got {}"),
    "index_add": (RuntimeError, "index_add_(): Expected dtype int32/int64 for index but got: {}"),
    "index_fill": (IndexError, "index_fill_(): Expected dtype int64 for index."),
    "index_copy": (RuntimeError, "index_copy_(): Expected a long tensor for index, but got {}"),
}


def _index_array(index, name: str, vector: bool = True):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    d = index._data
    if d.dtype.kind not in "iu":
        from .._dtype import scalar_type_name

        kind, text = _INDEX_DTYPE_ERRORS.get(name, (RuntimeError, f"{name}(): Expected dtype int32/int64 for index"))
        raise kind(text.format(scalar_type_name(d.dtype)))
    return d.astype(xp.int64, copy=False)


def _check_bounds(idx, n: int, dim: int) -> None:
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = idx[(idx >= n) | (idx < -n)].reshape(-1)[0]
        raise IndexError("index out of range in self") if dim < 0 else RuntimeError(
            f"index {bad} is out of bounds for dimension {dim} with size {n}"
        )


@register
class IndexSelectBackward0(Op):
    """index_select(dim, index): rows picked along ``dim``; the gradient is added back at ``index``
    (repeated indices accumulate; derivatives.yaml: index_select_backward = zeros.index_add)."""

    @staticmethod
    def forward(a, dim, index, shape):
        if a.ndim == 0:  # a scalar stays a scalar (the index holds one 0)
            return a.copy()
        return xp.take(a, index, axis=dim)

    def backward(self, g):
        dim, index, shape = self._params
        if not shape:
            return (index_backward(g.reshape(-1), (1,), (index.reshape(-1),), True).reshape(()),)
        return (index_backward(g, shape, _along(dim, index), True),)


def index_select(a: Tensor, dim: int, index: Tensor) -> Tensor:
    """index_select(dim, index): a copy of the entries at the 1-D ``index`` along ``dim``.

    Raises:
        IndexError: an index with more than one dim, or out of range (torch's messages); RuntimeError for an index
        out of range along dim 1 (torch's dim-1 kernel's text).
    """
    idx = _index_array(index, "index_select")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    nd = a._data.ndim
    d = _wrap_dim(dim, nd)
    n = a._data.shape[d] if nd else 1
    if idx.size and (idx.max() >= n or idx.min() < 0):
        if d == 1:  # torch's CPU kernel for dim 1 has its own check and text (the first bad index)
            flat = idx.reshape(-1)
            bad = int(flat[(flat >= n) | (flat < 0)][0])
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={n}")
        raise IndexError("index out of range in self")
    if nd == 0:
        if idx.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)")
        return apply(IndexSelectBackward0, (a,), (0, idx, ()))
    return apply(IndexSelectBackward0, (a,), (d, idx.reshape(-1), a._data.shape))


def _gather_key(index, dim: int):
    return along_axis_key(index, dim)


@register
class GatherBackward0(Op):
    """gather(dim, index): out[i][j] = input[index[i][j]][j] (dim 0); the gradient is scatter-added back
    (derivatives.yaml: gather_backward)."""

    @staticmethod
    def forward(a, dim, index, shape):
        if index.size == 0:  # (any number of dims: torch checks nothing for an empty index)
            return xp.empty(index.shape, dtype=a.dtype)
        if a.ndim == 0:
            return a.reshape(1)[index.reshape(-1)].reshape(index.shape)
        return a[_gather_key(index, dim)]

    def backward(self, g):
        dim, index, shape = self._params
        if index.size == 0:
            return (g.new_zeros(shape),)
        if not shape:
            return (index_backward(g.reshape(-1), (1,), (index.reshape(-1),), True).reshape(()),)
        return (index_backward(g, shape, _gather_key(index, dim), True),)


def _check_gather_index(a, idx, dim: int, name: str, src=None, keep: bool = False):
    """Check ``idx`` against the input's shape (torch's messages); return it wrapped into [0, size of dim).

    With ``keep`` (a node will save the index) the result never shares memory with ``idx``, so an in-place
    change of the index tensor afterwards does not reach the backward."""
    shape = a._data.shape
    if idx.ndim != len(shape) and not (idx.ndim <= 1 and len(shape) <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for k in range(idx.ndim):
        if k != dim and len(shape) > k and idx.shape[k] > shape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {list(idx.shape)} to be no larger than self "
                f"{list(shape)} apart from dimension {dim}"
            )
    return _wrapped_index(idx, shape[dim] if shape else 1, dim, keep)


def _wrapped_index(idx, n: int, dim: int, keep: bool = False):
    """``idx`` (int64) checked to lie in [0, n) for a dim of size ``n``, as torch's gather/scatter checks it.

    Raises torch's RuntimeError naming the first index outside [0, n) (torch wraps no negative index here).
    One pass: viewed as unsigned, an index in [0, n) is below n and a negative one is huge, so one max decides.
    """
    if not idx.size:
        return idx
    flat = idx
    if type(flat) is not xp.ndarray:  # batched by vmap: every sample's indices at once
        from .._batching.array import physical

        flat = physical(flat)
    if int(flat.view(xp.uint64).max()) >= n:
        bad = flat[(flat >= n) | (flat < 0)].reshape(-1)[0]
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {n}")
    return idx.copy() if keep else idx


def gather(a: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """gather(dim, index): index has the input's number of dims; out has index's shape."""
    d = _wrap_dim(dim, a._data.ndim)
    if index._data.size == 0 and index._data.dtype.kind in "iub":  # torch returns an empty result before its checks
        return apply(GatherBackward0, (a,), (d, index._data.astype(xp.int64), a._data.shape))
    idx = _index_array(index, "gather")
    idx = _check_gather_index(a, idx, d, "gather", keep=a._requires_grad and is_grad_enabled())
    return apply(GatherBackward0, (a,), (d, idx, a._data.shape))


def _src_part(src, index):
    """The leading ``index.shape`` block of ``src`` (scatter reads only that much of a larger src)."""
    if src.shape == index.shape:
        return src
    return src[tuple(slice(0, n) for n in index.shape)]


def _scatter_target(a, dim, index):
    if a.ndim == 0:
        return (index.reshape(-1),)
    return _gather_key(index, dim)


@register
class ScatterBackward0(Op):
    """scatter(dim, index, src): a copy with src written at index; self's gradient is zero there, src's
    gradient is the gradient gathered at index (derivatives.yaml)."""

    @staticmethod
    def forward(a, src, dim, index):
        out = a.copy()
        if a.ndim == 0:
            out = out.reshape(1)
        out[_scatter_target(a, dim, index)] = _src_part(src, index).astype(a.dtype, copy=False).reshape(-1 if a.ndim == 0 else index.shape)
        return out.reshape(a.shape)

    def backward(self, g):
        dim, index = self._params
        gs = scatter(g, dim, wrap(index), 0.0) if self.needs_input_grad(0) else None
        gsrc = gather(g, dim, wrap(index)) if self.needs_input_grad(1) else None
        return gs, gsrc


@register
class ScatterBackward1(Op):
    """scatter(dim, index, value): a copy with a scalar written at index; the gradient is zero there."""

    @staticmethod
    def forward(a, dim, index, value):
        out = a.copy()
        if a.ndim == 0:
            out = out.reshape(1)
        out[_scatter_target(a, dim, index)] = value
        return out.reshape(a.shape)

    def backward(self, g):
        dim, index, _ = self._params
        return (scatter(g, dim, wrap(index), 0.0),)


def _scatter_prepare(a: Tensor, dim: int, index: Tensor, name: str, src=None):
    idx = _index_array(index, name)
    d = _wrap_dim(dim, a._data.ndim)
    shape = a._data.shape
    if idx.ndim != len(shape) and not (idx.ndim <= 1 and len(shape) <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    sshape = src._data.shape if isinstance(src, Tensor) else None
    if sshape is not None and idx.ndim != len(sshape) and not (idx.ndim <= 1 and len(sshape) <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    too_big = any(k != d and len(shape) > k and idx.shape[k] > shape[k] for k in range(idx.ndim))
    if sshape is not None:
        too_big = too_big or any(len(sshape) > k and idx.shape[k] > sshape[k] for k in range(idx.ndim))
    if too_big and idx.size:  # torch checks nothing for an empty index
        msg = f"Expected index {list(idx.shape)} to be no larger than self {list(shape)} apart from dimension {d}"
        if sshape is not None:
            msg += f" and to be no larger size than src {list(sshape)}"
        raise RuntimeError(msg)
    keep = is_grad_enabled() and (a._requires_grad or (isinstance(src, Tensor) and src._requires_grad))
    return d, _check_gather_index(a, idx, d, name, keep=keep)


def scatter(a: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    """scatter(dim, index, src | value): out-of-place scatter (ScatterBackward0 / ScatterBackward1)."""
    if src is None:
        src = value
    d, idx = _scatter_prepare(a, dim, index, "scatter", src)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
        if isinstance(src, Tensor):
            return scatter_reduce(a, dim, index, src, "sum" if reduce == "add" else "prod")
        full = wrap(xp.full(idx.shape, src, dtype=a._data.dtype))
        return scatter_reduce(a, dim, index, full, "sum" if reduce == "add" else "prod")
    if isinstance(src, Tensor):
        if src._data.dtype != a._data.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        return apply(ScatterBackward0, (a, src), (d, idx))
    from .complex_support import check_scalar_fits

    check_scalar_fits(src, a._data.dtype)
    return apply(ScatterBackward1, (a,), (d, idx, src))


@register
class ScatterAddBackward0(Op):
    """scatter_add(dim, index, src): src added at index (repeated indices accumulate); self's gradient passes
    through, src's is the gradient gathered at index (derivatives.yaml)."""

    @staticmethod
    def forward(a, src, dim, index):
        out = a.copy()
        if a.ndim == 0:
            out = out.reshape(1)
        _add_at(out, _scatter_target(a, dim, index), _src_part(src, index).reshape(-1 if a.ndim == 0 else index.shape))
        return out.reshape(a.shape)

    def backward(self, g):
        dim, index = self._params
        # the index was checked and wrapped by the forward: gather it directly, without gather()'s checks
        gsrc = apply(GatherBackward0, (g,), (dim, index, g._data.shape)) if self.needs_input_grad(1) else None
        return (g if self.needs_input_grad(0) else None, gsrc)

    def backward_arrays(self, g):
        dim, index = self._params
        gsrc = wrap(GatherBackward0.forward(g, dim, index, g.shape)) if self.needs_input_grad(1) else None
        return (wrap(g) if self.needs_input_grad(0) else None, gsrc)


def scatter_add(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    d, idx = _scatter_prepare(a, dim, index, "scatter_add", src)
    if src._data.dtype != a._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return apply(ScatterAddBackward0, (a, src), (d, idx))


_REDUCE_UFUNC = {"sum": xp.add, "prod": xp.multiply, "amax": xp.maximum, "amin": xp.minimum, "mean": xp.add}


def _reduce_identity(reduce: str, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind in FLOATING_OR_COMPLEX_KINDS:  # (complex amax/amin only reach here with an empty index)
        return -xp.inf if reduce == "amax" else xp.inf
    info = xp.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


@register
class ScatterReduceBackward0(Op):
    """scatter_reduce(dim, index, src, reduce, include_self): sum, prod, mean, amax or amin of the values sent to
    each position. Gradients follow torch's scatter_reduce_backward (FunctionsManual.cpp): mean divides by the
    count; amax/amin split the gradient evenly among the values equal to the result (self included by value even
    when include_self=False, as torch does); prod uses the products that leave each element out (a single zero
    handled exactly; torch's refusal of double backward with several zeros at one position is not reproduced)."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, src, dim, index, reduce, include_self):
        flat = a.ndim == 0
        out = (a.reshape(1) if flat else a).copy()
        key = _scatter_target(a, dim, index)
        vals = _src_part(src, index).reshape(-1 if flat else index.shape)
        if not include_self:
            out[key] = _reduce_identity(reduce, a.dtype)
        _REDUCE_UFUNC[reduce].at(out, key, vals)
        if reduce == "mean":
            count = xp.ones(out.shape, dtype=out.dtype) if include_self else xp.zeros(out.shape, dtype=out.dtype)
            _add_at(count, key, xp.ones(vals.shape, dtype=out.dtype))
            count[count == 0] = 1
            out = out // count if out.dtype.kind in "iub" else out / count
        return out.reshape(a.shape)

    def backward(self, g):
        from .comparison import eq

        a, src, _ = self.saved()
        dim, index, reduce, include_self = self._params
        idx = wrap(index)
        if reduce == "sum":
            gs, gsrc = g, gather(g, dim, idx)
        elif reduce == "mean":
            shape = g._data.shape or (1,)  # (a 0-d input counts in a 1-element array, as its forward)
            n = xp.ones(shape, g._data.dtype) if include_self else xp.zeros(shape, g._data.dtype)
            _add_at(n, _scatter_target(g._data, dim, index), xp.ones(index.shape, g._data.dtype).reshape(-1)
                    if not g._data.shape else xp.ones(index.shape, g._data.dtype))
            n[n == 0] = 1
            gs = g / wrap(n.reshape(g._data.shape))
            gsrc = gather(gs, dim, idx)
        elif reduce in ("amax", "amin"):
            result = self.saved_result().detach()
            value = gather(result, dim, idx)
            self_is = eq(a.detach(), result).to(g.dtype)
            src_is = eq(_crop(src.detach(), index), value).to(g.dtype)
            n = scatter_add(self_is, dim, idx, src_is)
            dist = g / n
            gs = self_is * dist
            gsrc = src_is * gather(dist, dim, idx)
        else:  # prod: products that leave out the element, computed without dividing by a zero
            from .pointwise import where_

            a_, src_ = a, _crop(src, index)
            masked_self = masked_fill(a_, eq(a_, 0.0), 1.0)
            masked_self_result = scatter_reduce(masked_self, dim, idx, src_, "prod", include_self=include_self)
            gs = g * masked_self_result / masked_self
            src_zero = eq(src_, 0.0)
            zeros = wrap(xp.zeros(g._data.shape, g._data.dtype))
            n_zeros = gather(scatter_add(zeros, dim, idx, src_zero.to(g.dtype)), dim, idx)
            single = wrap(src_zero._data & (n_zeros._data == 1))
            masked_src_result = scatter_reduce(a_, dim, idx, masked_fill(src_, single, 1.0), "prod",
                                               include_self=include_self)
            result = self.saved_result()
            gsrc = where_(single, gather(g * masked_src_result, dim, idx),
                          gather(g * result, dim, idx) / masked_fill(src_, src_zero, 1.0))
        if not include_self:
            gs = scatter(gs, dim, idx, 0.0)
        return (gs if self.needs_input_grad(0) else None, gsrc if self.needs_input_grad(1) else None)


def _crop(src: Tensor, index) -> Tensor:
    if src._data.shape == index.shape:
        return src
    return src[tuple(slice(0, n) for n in index.shape)]


def scatter_reduce(a: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True) -> Tensor:
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # torch accepts these aliases
    if reduce not in _REDUCE_UFUNC:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d, idx = _scatter_prepare(a, dim, index, "scatter_reduce", src)
    if src._data.dtype != a._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if reduce in ("amax", "amin") and a._data.dtype.kind == "c" and idx.size:  # no complex ordering (torch's kernel)
        from .complex_support import kernel_error

        raise kernel_error(f"scatter_gather_tensor_cpu_reduce_{reduce}", a._data.dtype)
    return apply(ScatterReduceBackward0, (a, src), (d, idx, reduce, include_self))


def _check_index_source(a: Tensor, d: int, idx, source: Tensor, name: str) -> None:
    if idx.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    sshape, ashape = source._data.shape, a._data.shape
    if a._data.ndim and source._data.ndim:
        if len(sshape) != len(ashape) or any(sshape[k] != ashape[k] for k in range(len(ashape)) if k != d):
            raise RuntimeError(
                "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = "
                f"{list(ashape)} source.shape = {list(sshape)}"
            )
    n_src = sshape[d] if source._data.ndim else 1
    if idx.size != n_src:
        if name == "index_add":
            raise RuntimeError(
                f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): ({n_src}), for "
                f"dim: {d}"
            )
        raise IndexError(
            f"{name}(): Number of indices ({idx.size}) should be equal to source.size(dim) ({n_src})"
        )
    n = ashape[d] if ashape else 1
    if idx.size and (idx.max() >= n or idx.min() < 0):
        raise IndexError("index out of range in self")


@register
class IndexAddBackward0(Op):
    """index_add(dim, index, source, alpha): source * alpha added at index along dim (repeats accumulate);
    self's gradient passes through, source's is the gradient selected at index times alpha (derivatives.yaml)."""

    @staticmethod
    def forward(a, source, dim, index, alpha, src_shape):
        out = (a.reshape(1) if a.ndim == 0 else a).copy()
        vals = source if alpha == 1 else source * xp.asarray(alpha, dtype=a.dtype)
        _add_at(out, _along(dim, index), vals.reshape(-1) if a.ndim == 0 else vals)
        return out.reshape(a.shape)

    def backward(self, g):
        dim, index, alpha, src_shape = self._params
        gsrc = None
        if self.needs_input_grad(1):
            gsrc = index_select(g, dim, wrap(index))
            if alpha != 1:
                gsrc = gsrc * alpha
            gsrc = gsrc.reshape(src_shape)
        return (g if self.needs_input_grad(0) else None, gsrc)


def index_add(a: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    idx = _index_array(index, "index_add").reshape(-1) if index._data.ndim <= 1 else _index_array(index, "index_add")
    d = _wrap_dim(dim, a._data.ndim)
    _check_index_source(a, d, idx, source, "index_add")
    from .complex_support import check_scalar_fits

    check_scalar_fits(alpha, a._data.dtype)
    if source._data.dtype != a._data.dtype:
        from .._dtype import scalar_type_name as n

        raise RuntimeError(
            f"index_add_(): self ({n(a._data.dtype)}) and source ({n(source._data.dtype)}) must have the same "
            "scalar type"
        )
    return apply(IndexAddBackward0, (a, source), (d, idx, alpha, source._data.shape))


@register
class IndexCopyBackward0(Op):
    """index_copy(dim, index, source): source written at index along dim; self's gradient is zero there,
    source's is the gradient selected at index (derivatives.yaml)."""

    @staticmethod
    def forward(a, source, dim, index, src_shape):
        out = (a.reshape(1) if a.ndim == 0 else a).copy()
        out[_along(dim, index)] = source.reshape(-1) if a.ndim == 0 else source
        return out.reshape(a.shape)

    def backward(self, g):
        dim, index, src_shape = self._params
        gs = index_fill(g, dim, wrap(index), 0.0) if self.needs_input_grad(0) else None
        gsrc = index_select(g, dim, wrap(index)).reshape(src_shape) if self.needs_input_grad(1) else None
        return gs, gsrc


def index_copy(a: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    idx = _index_array(index, "index_copy")
    d = _wrap_dim(dim, a._data.ndim)
    _check_index_source(a, d, idx.reshape(-1) if idx.ndim == 0 else idx, source, "index_copy_")
    if source._data.dtype != a._data.dtype:
        from .._dtype import scalar_type_name as n

        raise RuntimeError(
            f"index_copy_(): self and source expected to have the same dtype, but got (self) {n(a._data.dtype)} "
            f"and (source) {n(source._data.dtype)}"
        )
    return apply(IndexCopyBackward0, (a, source), (d, idx.reshape(-1), source._data.shape))


def _index_fill_array(a, dim, index, value):
    out = (a.reshape(1) if a.ndim == 0 else a).copy()
    out[_along(dim, index)] = value
    return out.reshape(a.shape)


@register
class IndexFillBackward0(Op):
    """index_fill(dim, index, value): a scalar written at index along dim; the gradient is zero there."""

    @staticmethod
    def forward(a, dim, index, value):
        return _index_fill_array(a, dim, index, value)

    def backward(self, g):
        dim, index, _ = self._params
        return (index_fill(g, dim, wrap(index), 0.0),)


@register
class IndexFillBackward1(Op):
    """index_fill(dim, index, value tensor): value's gradient is the sum of the gradient at index."""

    @staticmethod
    def forward(a, value, dim, index):
        return _index_fill_array(a, dim, index, value)

    def backward(self, g):
        from .reduction import sum as _sum

        dim, index = self._params
        gs = index_fill(g, dim, wrap(index), 0.0) if self.needs_input_grad(0) else None
        # torch sums over the distinct filled positions (derivatives.yaml: at::_unique(index))
        gv = _sum(index_select(g, dim, wrap(xp.unique(index)))) if self.needs_input_grad(1) else None
        return gs, gv


def index_fill(a: Tensor, dim: int, index: Tensor, value) -> Tensor:
    if a._data.dtype.kind != "c" and (isinstance(value, complex) or isinstance(value, Tensor)
                                      and value._data.dtype.kind == "c"):
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    idx = _index_array(index, "index_fill").reshape(-1)
    d = _wrap_dim(dim, a._data.ndim)
    n = a._data.shape[d] if a._data.ndim else 1
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = idx[(idx >= n) | (idx < -n)][0]
        raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {n}")
    idx = idx % n if idx.size else idx
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with {value._data.ndim} "
                "dimension(s)."
            )
        return apply(IndexFillBackward1, (a, value), (d, idx))
    return apply(IndexFillBackward0, (a,), (d, idx, value))


def _mask_array(mask, name: str):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name}(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}")
    m = mask._data
    if m.dtype.kind != "b":
        # masked_scatter_ names torch's scalar type (Float, Byte), the others the C++ type (float, unsigned char)
        from .._dtype import scalar_type_name

        kind = scalar_type_name(m.dtype) if name.startswith("masked_scatter") else _dtype_name(m.dtype)
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype {kind}")
    return m


def _dtype_name(npd) -> str:
    """The C++ type name torch prints in mask errors (``float``, ``long int``)."""
    from .._tensor import _C_TYPE_NAMES

    return _C_TYPE_NAMES.get(npd.name, npd.name)


def _masked_fill_array(a, mask, value):
    return xp.where(mask, xp.asarray(value).astype(a.dtype), a)


@register
class MaskedFillBackward0(Op):
    """masked_fill(mask, value): value where mask is True (mask broadcasts); the gradient is zero there."""

    @staticmethod
    def forward(a, mask, value):
        return _masked_fill_array(a, mask, value)

    def backward(self, g):
        return (masked_fill(g, wrap(self._params[0]), 0.0),)


@register
class MaskedFillBackward1(Op):
    """masked_fill(mask, value tensor): value's gradient is the sum of the gradient where mask is True."""

    @staticmethod
    def forward(a, value, mask):
        return _masked_fill_array(a, mask, value)

    def backward(self, g):
        from .reduction import sum as _sum

        mask = self._params[0]
        gs = masked_fill(g, wrap(mask), 0.0) if self.needs_input_grad(0) else None
        gv = _sum(masked_fill(g, wrap(~mask), 0.0)) if self.needs_input_grad(1) else None
        return gs, gv


def masked_fill(a: Tensor, mask: Tensor, value) -> Tensor:
    m = _mask_array(mask, "masked_fill_")
    if m.shape != a._data.shape:  # torch's broadcast error names the mask first
        from .broadcast import broadcast_shape

        broadcast_shape(m.shape, a._data.shape)
    if type(value) is float or type(value) is int:  # (the common case: no complex value to check)
        return apply(MaskedFillBackward0, (a,), (m, value))
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value._data.ndim} "
                "dimension(s)."
            )
        _check_complex_value(a, value._data)
        return apply(MaskedFillBackward1, (a, value), (m,))
    _check_complex_value(a, value)
    return apply(MaskedFillBackward0, (a,), (m, value))


def _check_complex_value(a: Tensor, value) -> None:
    """torch's error for a complex fill value (a number or a 0-d array) of a real tensor."""
    if a._data.dtype.kind != "c" and (isinstance(value, complex) or getattr(value, "dtype", None) is not None
                                      and value.dtype.kind == "c"):
        from .complex_support import check_scalar_fits

        check_scalar_fits(complex(value), a._data.dtype)


@register
class MaskedSelectBackward0(Op):
    """masked_select(mask): the 1-D list of entries where mask (broadcast with the input) is True; the gradient
    is put back at those places (derivatives.yaml: masked_select_backward) and summed to the input's shape."""

    @staticmethod
    def forward(a, mask, shape):
        return xp.broadcast_to(a, shape)[xp.broadcast_to(mask, shape)]

    def backward(self, g):
        mask, shape = self._params
        return (index_backward(g, shape, (xp.broadcast_to(mask, shape),), "unique"),)


def masked_select(a: Tensor, mask: Tensor) -> Tensor:
    m = _mask_array(mask, "masked_select")
    from .broadcast import broadcast_shape

    shape = broadcast_shape(m.shape, a._data.shape)  # torch names the mask "tensor a" in its error
    return apply(MaskedSelectBackward0, (a,), (m, shape))


@register
class MaskedScatterBackward0(Op):
    """masked_scatter(mask, source): source's leading elements written, in order, where mask is True.
    self's gradient is zero there; source's gradient is the masked gradient, zero-padded to source's size
    (derivatives.yaml: masked_scatter_backward)."""

    @staticmethod
    def forward(a, source, mask, shape, src_shape):
        out = xp.broadcast_to(a, shape).copy()
        m = xp.broadcast_to(mask, shape)
        n = int(m.sum())
        out[m] = source.reshape(-1)[:n]
        return out

    def backward(self, g):
        mask, shape, src_shape = self._params
        gs = masked_fill(g, wrap(mask), 0.0) if self.needs_input_grad(0) else None
        gsrc = None
        if self.needs_input_grad(1):
            from .join_split import cat

            sel = masked_select(g, wrap(mask))
            size = 1
            for s in src_shape:
                size *= s
            if sel._data.size < size:
                sel = cat([sel, wrap(xp.zeros(size - sel._data.size, dtype=g._data.dtype))])
            gsrc = sel.reshape(src_shape)
        return gs, gsrc


def masked_scatter(a: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    m = _mask_array(mask, "masked_scatter_")
    from .broadcast import broadcast_shape

    shape = broadcast_shape(a._data.shape, m.shape)
    if source._data.dtype != a._data.dtype:
        from .._dtype import scalar_type_name as n

        raise RuntimeError(  # (torch's text has no space after "got")
            f"masked_scatter: expected self and source to have same dtypes but got{n(a._data.dtype)} and "
            f"{n(source._data.dtype)}"
        )
    if int(xp.broadcast_to(m, shape).sum()) > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return apply(MaskedScatterBackward0, (a, source), (m, shape, source._data.shape))


@register
class TakeBackward0(Op):
    """take(index): entries of the flattened input; the gradient is added back at index (repeats accumulate)."""

    @staticmethod
    def forward(a, index, shape):
        return a.reshape(-1)[index]

    def backward(self, g):
        index, shape = self._params
        n = 1
        for s in shape:
            n *= s
        return (index_backward(g, (n,), (index,), True).reshape(shape),)


def take(a: Tensor, index: Tensor) -> Tensor:
    idx = _index_array(index, "take")
    n = a._data.size
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = idx[(idx >= n) | (idx < -n)].reshape(-1)[0]
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return apply(TakeBackward0, (a,), (idx, a._data.shape))


def take_along_dim(a: Tensor, indices: Tensor, dim=None) -> Tensor:
    """take_along_dim(indices, dim): gather after broadcasting every other dim (GatherBackward0)."""
    from .shape import expand, view

    if dim is None:  # torch flattens with view(-1), so a non-viewable input is refused as view() refuses it
        return gather(view(a, -1), 0, view(indices, -1))
    nd = a._data.ndim
    d = _wrap_dim(dim, nd)
    if indices._data.ndim != nd:
        raise RuntimeError(
            f"torch.take_along_dim(): input and indices should have the same number of dimensions, but got "
            f"{nd} dimensions for input, and {indices._data.ndim} dimensions for indices"
        )
    from .broadcast import broadcast_shape

    ash, ish = list(a._data.shape), list(indices._data.shape)
    ash[d] = ish[d] = 1
    b = list(broadcast_shape(tuple(ash), tuple(ish)))
    sa, si = list(b), list(b)
    sa[d] = a._data.shape[d]
    si[d] = indices._data.shape[d]
    a2 = a if tuple(sa) == a._data.shape else expand(a, sa)
    i2 = indices if tuple(si) == indices._data.shape else wrap(xp.broadcast_to(indices._data, si))
    n = a._data.shape[d] if nd else 1
    if n and i2._data.dtype.kind in "iu" and i2._data.size and ((i2._data < 0) | (i2._data >= n)).any():
        i2 = wrap(i2._data % n)  # torch 2.13 takes the indices of this form modulo the dim's size (-1 is the last)
    return gather(a2, d, i2)


def nonzero(a: Tensor, *, as_tuple: bool = False):
    """Indices of the non-zero entries: an (n, ndim) int64 tensor, or one 1-D tensor per dim."""
    d = a._data
    if _limited_in_use[0]:
        refuse_limited("nonzero_count_cpu", d)
    if as_tuple:
        if d.ndim == 0:
            return (wrap(xp.zeros(int(d != 0), dtype=xp.int64)),)
        return tuple(wrap(i.astype(xp.int64)) for i in xp.nonzero(d))
    if d.ndim == 0:
        return wrap(xp.zeros((int(d != 0), 0), dtype=xp.int64))
    return wrap(xp.argwhere(d).astype(xp.int64))


def argwhere(a: Tensor) -> Tensor:
    return nonzero(a)


# ------------------------------------------------------------- assignment
@register
class IndexPutBackward0(Op):
    """index_put(indices, values) / ``x[int or bool tensor] = values``: values (broadcast) written at an advanced
    key. self's gradient is zero there; values' gradient is the gradient at the key, summed to values' shape
    (derivatives.yaml). With accumulate=True the values are added and self's gradient passes through."""

    @staticmethod
    def forward(a, values, key, accumulate):
        out = a.copy()
        if accumulate:
            _add_at(out, key, xp.broadcast_to(values, out[key].shape))
        else:
            out[key] = values
        return out

    def backward(self, g):
        key, accumulate = self._params
        gs = None
        if self.needs_input_grad(0):
            gs = g if accumulate else apply(IndexPutBackward0, (g, wrap(xp.zeros((), g._data.dtype))), (key, False))
        gv = getitem_raw(g, key, g._data.shape, True) if self.needs_input_grad(1) else None
        return gs, gv


def _check_put_values(target_shape, values) -> None:
    try:
        xp.broadcast_shapes(values.shape, target_shape)
        ok = xp.broadcast_shapes(values.shape, target_shape) == tuple(target_shape)
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to indexing result of "
            f"shape {list(target_shape)}"
        )


def index_put(a: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """index_put(indices, values, accumulate): out-of-place ``a[indices] = values`` (IndexPutBackward0)."""
    key, advanced, _ = _normalise_key(tuple(indices), a._data.shape)
    values = values if isinstance(values, Tensor) else wrap(xp.asarray(values, dtype=a._data.dtype))
    if values._data.dtype != a._data.dtype:
        from .._dtype import scalar_type_name as n

        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got {n(a._data.dtype)} for the destination "
            f"and {n(values._data.dtype)} for the source."
        )
    _check_put_values(a._data[key].shape, values._data)
    return apply(IndexPutBackward0, (a, values), (key, accumulate))


def index_put_(a: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    from .inplace import inplace

    return inplace(a, lambda t, v: index_put(t, indices, v, accumulate), values)


def _key_tuple(key) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def setitem(a: Tensor, key, value) -> None:
    """``a[key] = value``: basic keys write through a view (the base's grad_fn becomes CopySlices); advanced
    keys are an in-place index_put (IndexPutBackward0). ``value`` broadcasts and is cast to ``a``'s dtype
    (an advanced key with a tensor value requires the same dtype, as torch)."""
    from ..autograd.grad_mode import _state
    from .inplace import _check_inplace_allowed, copy_, fill_

    nkey, advanced, _ = _normalise_key(key, a._data.shape)
    if a._data.dtype.kind != "c":  # a complex number into a real tensor: torch's errors (a 0-d tensor is copied)
        from .complex_support import check_scalar_fits

        if not isinstance(value, Tensor):
            check_scalar_fits(value, a._data.dtype)
        elif advanced and value._data.ndim == 0 and value._data.dtype.kind == "c" and _is_mask_key(key):
            check_scalar_fits(complex(value._data), a._data.dtype)  # (a mask fills with the value's number)
    if advanced:
        if isinstance(value, Tensor):
            if value._data.dtype != a._data.dtype:
                complex_into_real = value._data.dtype.kind == "c" and a._data.dtype.kind != "c"
                if value._requires_grad or a._requires_grad or value._data.ndim or complex_into_real:
                    from .._dtype import scalar_type_name as n

                    raise RuntimeError(
                        "Index put requires the source and destination dtypes match, got "
                        f"{n(a._data.dtype)} for the destination and {n(value._data.dtype)} for the source."
                    )
                value = wrap(value._data.astype(a._data.dtype))
        else:
            value = wrap(xp.asarray(value).astype(a._data.dtype))
        _check_put_values(a._data[nkey].shape, value._data)
        tangents = a._fw_grad is not None or value._fw_grad is not None
        if not tangents and not (_state.enabled and (a._requires_grad or value._requires_grad or a._base is not None)):
            if _state.enabled:
                _check_inplace_allowed(a)
            a._data[nkey] = value._data
            a._vc[0] += 1
            return
        index_put_(a, _key_tuple(key), value)
        return
    whole = all(k is Ellipsis or (isinstance(k, slice) and k.step in (None, 1)) for k in nkey)
    target = a if whole and a._data[nkey].shape == a._data.shape else getitem(a, key)
    recorded = _state.enabled and (target._requires_grad or a._requires_grad or (
        isinstance(value, Tensor) and value._requires_grad))
    recorded = recorded or target._fw_grad is not None or a._fw_grad is not None or (
        isinstance(value, Tensor) and value._fw_grad is not None)  # forward-AD tangents must follow
    if not recorded:
        if _state.enabled:
            _check_inplace_allowed(target)
        _assign(target, value._data if isinstance(value, Tensor) else xp.asarray(value))
        return
    if isinstance(value, Tensor) and value._data.ndim:
        _check_expand(value._data.shape, target._data.shape, value._data.dtype)
        copy_(target, value)
    else:
        # torch turns a Python number into a 0-d tensor and fills with it (FillBackward3)
        if not isinstance(value, Tensor):
            value = wrap(xp.asarray(value).astype(a._data.dtype))
        fill_(target, value)


def _is_mask_key(key) -> bool:
    k = key[0] if isinstance(key, tuple) and len(key) == 1 else key
    return isinstance(k, Tensor) and k._data.dtype.kind == "b"


def _check_expand(src, dst, dtype) -> None:
    """torch's copy_ error when the value does not broadcast to the indexed region."""
    lead = len(dst) - len(src)
    if lead < 0:
        # torch strips leading size-1 dims of the value first
        while lead < 0 and src and src[0] == 1:
            src = src[1:]
            lead += 1
    if lead < 0:
        from .._dtype import scalar_type_name

        name = scalar_type_name(dtype)  # (torch names a complex tensor by its type, a real one by its class)
        what = f"CPU{name}Type" if dtype.kind == "c" else f"torch.{name}Tensor"
        raise RuntimeError(
            f"expand({what}{{[{', '.join(map(str, src))}]}}, size=[{', '.join(map(str, dst))}]): the number of sizes "
            f"provided ({len(dst)}) must be greater or equal to the number of dimensions in the tensor ({len(src)})")
    for i, n in enumerate(src):
        want = dst[lead + i] if lead >= 0 else None
        if want is None or (n != want and n != 1):
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({n}) at non-singleton "
                f"dimension {lead + i}.  Target sizes: [{', '.join(map(str, dst))}].  Tensor sizes: "
                f"[{', '.join(map(str, src))}]"
            )


def _assign(view: Tensor, values) -> None:
    _check_expand(values.shape, view._data.shape, values.dtype)
    dst = view._data
    if type(values) is _BatchedArray and type(dst) is _ndarray:  # batched values into a tensor vmap does not batch
        from .._batching.array import unbatched_write

        unbatched_write(dst.shape, values.batch_size)
    if dst.ndim == 0:
        dst[()] = values.reshape(()) if values.ndim else values
    else:
        dst[...] = values.reshape(values.shape[values.ndim - dst.ndim :]) if values.ndim > dst.ndim else values
    view._vc[0] += 1


def _inplace_method(fn):
    def method(self, *args, **kwargs):
        from .inplace import inplace

        return inplace(self, lambda t, *rest: fn(t, *rest, **kwargs), *args)

    method.__name__ = fn.__name__ + "_"
    return method


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
_FUNCTIONS = (
    "index_select gather scatter scatter_add scatter_reduce index_add index_copy index_fill masked_fill masked_select "
    "masked_scatter take take_along_dim nonzero argwhere"
).split()
EXPORTS: dict = {name: globals()[name] for name in _FUNCTIONS}
TENSOR_METHODS: dict = {name: globals()[name] for name in _FUNCTIONS}
EXPORTS["index_put"] = TENSOR_METHODS["index_put"] = index_put
TENSOR_METHODS["index_put_"] = index_put_
TENSOR_METHODS["__setitem__"] = setitem
for _name in "masked_fill masked_scatter index_add index_copy index_fill scatter scatter_add scatter_reduce".split():
    TENSOR_METHODS[_name + "_"] = _inplace_method(globals()[_name])
del _name
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
