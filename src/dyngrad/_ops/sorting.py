"""Sorting-based ops: sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, unique.

Each differentiable op returns values and the indices they came from; the gradient
is the incoming gradient put back at those indices (derivatives.yaml:
value_selecting_reduction_backward), except ``median()``/``nanmedian()`` over all
elements, which split it evenly among the elements equal to the result
(evenly_distribute_backward). ``unique`` records a node whose backward raises, as torch's.

Sorting is stable, which is what torch's CPU sort does; ``median(dim)`` picks position
(n - 1) // 2 of the stable order, which matches torch on the inputs we checked. For
``topk``, ``kthvalue`` and ``mode`` torch picks among tied values in an order set by its
selection algorithm, so with ties their indices (and where the gradient goes) may differ.
"""

from __future__ import annotations

from .._backend import along_axis_key, xp
from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS, LIMITED_NP, _limited_in_use
from .._tensor import Tensor, _wrap_dim, wrap
from . import complex_support as cs
from .limited_dtypes import refuse as refuse_limited
from .reduction import _const, _scatter, _unsqueeze_to, values_indices
from .registry import Op, apply, apply_multi, register


def _stable_order(a, axis: int, descending: bool):
    """Stable argsort along ``axis``; NaN sorts above every number (first when descending), as torch's."""
    if a.dtype.kind == "b":
        a = a.astype(xp.int8)
    if not descending:
        return xp.argsort(a, axis=axis, kind="stable")
    if a.dtype.kind in FLOATING_KINDS and xp.isnan(a).any():
        return xp.lexsort((-a, ~xp.isnan(a)), axis=axis)
    if a.dtype.kind == "u":
        a = a.astype(xp.int64)
    return xp.argsort(-a, axis=axis, kind="stable")


class _Selecting(Op):
    """An op whose outputs are (values, indices); the gradient goes back to the indices."""

    # _params hold the reduced axis at ``axis_param``, keepdim at ``keepdim_param`` (None: the
    # indices keep every dim) and, last, the input's shape; the indices are the node's second
    # output, which apply_multi keeps on the node as ``_indices``.
    axis_param = 0
    keepdim_param = None

    def backward(self, g, _gi):
        params = self._params
        shape, axis = params[-1], params[self.axis_param]
        if len(shape) == 0:
            return (g,)
        idx = self._indices
        keepdim = True if self.keepdim_param is None else params[self.keepdim_param]
        if not keepdim:
            g = _unsqueeze_to(g, (axis,), False)
            idx = xp.expand_dims(idx, axis)
        return (_scatter(g, shape, axis, idx),)


def _run(op, name, a: Tensor, params: tuple):
    values, indices = apply_multi(op, (a,), params + (a._data.shape,))
    if values._grad_fn is not None:
        values._grad_fn._indices = indices._data
    return values_indices(values, indices, name)


@register
class SortBackward0(_Selecting):
    """sort(input, dim=-1, descending=False, stable=False) -> (values, indices); stable in dyngrad."""

    @staticmethod
    def forward(a, axis, descending, shape):
        if a.ndim == 0:
            return a.copy(), xp.zeros((), dtype=xp.int64)
        order = _stable_order(a, axis, descending)
        return a[along_axis_key(order, axis)], order.astype(xp.int64)


@register
class SortBackward1(SortBackward0):
    """sort(input, *, stable, dim=-1, descending=False): torch's sort.stable overload, taken whenever ``stable``
    is passed (even False or None); the same stable sort and gradient as SortBackward0."""


_NO_STABLE = object()  # sort() called without ``stable``: torch's sort() overload (SortBackward0)


def sort(a: Tensor, dim: int = -1, descending: bool = False, stable=_NO_STABLE):
    axis = _wrap_dim(dim, a._data.ndim)
    cs.refuse_complex(a._data, cs.SORT, RuntimeError)
    return _run(SortBackward0 if stable is _NO_STABLE else SortBackward1, "sort", a, (axis, descending))


def argsort(a: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    axis = _wrap_dim(dim, a._data.ndim)
    cs.refuse_complex(a._data, cs.SORT, RuntimeError)
    if _limited_in_use[0]:
        refuse_limited("sorting_kernel_method_name", a, unsigned=False)
    if a._data.ndim == 0:
        return wrap(xp.zeros((), dtype=xp.int64))
    return wrap(_stable_order(a._data, axis, descending).astype(xp.int64))


def msort(a: Tensor) -> Tensor:
    return sort(a, 0)[0]


@register
class TopkBackward0(_Selecting):
    """topk(input, k, dim=-1, largest=True, sorted=True) -> (values, indices)."""

    axis_param = 1

    @staticmethod
    def forward(a, k, axis, largest, shape):
        if a.ndim == 0:
            return a.copy(), xp.zeros((), dtype=xp.int64)
        order = _stable_order(a, axis, largest)
        order = order[(slice(None),) * axis + (slice(0, k),)]
        return a[along_axis_key(order, axis)], order.astype(xp.int64)


def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    d = a._data
    axis = _wrap_dim(dim, d.ndim)
    n = d.shape[axis] if d.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    cs.refuse_complex(d, " topk does not support complex dtypes on CPU", RuntimeError)
    return _run(TopkBackward0, "topk", a, (k, axis, largest))


@register
class KthvalueBackward0(_Selecting):
    """kthvalue(input, k, dim=-1, keepdim=False) -> (values, indices): the k-th smallest."""

    axis_param = 1
    keepdim_param = 2
    complex_grad = False  # torch's autograd refuses complex kthvalue (0-d input runs no kernel)

    @staticmethod
    def forward(a, k, axis, keepdim, shape):
        if a.ndim == 0:
            return a.copy(), xp.zeros((), dtype=xp.int64)
        return _pick_sorted(a, axis, k - 1, keepdim)


def _pick_sorted(a, axis: int, position: int, keepdim: bool):
    """The element at ``position`` of the stable ascending order along ``axis``, and its index."""
    order = _stable_order(a, axis, False)
    idx = order[(slice(None),) * axis + (slice(position, position + 1),)]
    values = a[along_axis_key(idx, axis)]
    if not keepdim:
        idx, values = idx.squeeze(axis), values.squeeze(axis)
    return values, idx.astype(xp.int64)


def kthvalue(a: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    d = a._data
    axis = _wrap_dim(dim, d.ndim)
    n = d.shape[axis] if d.ndim else 1
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {axis} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    if d.ndim:  # (a 0-d input is copied, no kernel runs: torch's autograd refuses it instead)
        cs.no_complex(d, "kthvalue_cpu")
    return _run(KthvalueBackward0, "kthvalue", a, (k, axis, keepdim))


# ------------------------------------------------------------------ median, mode


def _evenly(g: Tensor, a: Tensor, value) -> Tensor:
    """evenly_distribute_backward: grad / count at each element equal to the result (NaN matches NaN)."""
    ad = a._data
    mask = xp.isnan(ad) if xp.isnan(value) else ad == value
    return g * _const((mask / mask.sum()).astype(ad.dtype))


@register
class MedianBackward0(Op):
    """median(input) over all elements: the lower of the two middle values; NaN if any is NaN."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a):
        flat = a.reshape(-1)
        if flat.size == 0:  # torch gives NaN, or the lowest value of an integer dtype
            low = xp.nan if a.dtype.kind in FLOATING_OR_COMPLEX_KINDS else xp.iinfo(a.dtype).min
            return xp.asarray(low, dtype=a.dtype)
        s = xp.sort(flat)  # NaN sorts last: a NaN anywhere makes the median NaN below
        return s[-1:].reshape(()).copy() if xp.isnan(s[-1]) else s[(s.size - 1) // 2].copy()

    def backward(self, g):
        a, r = self.saved()
        return (_evenly(g, a, r._data),)


@register
class NanmedianBackward0(MedianBackward0):
    """nanmedian(input): the median of the non-NaN elements (NaN if all are NaN)."""

    @staticmethod
    def forward(a):
        flat = a.reshape(-1)
        flat = flat[~xp.isnan(flat)] if flat.dtype.kind in FLOATING_KINDS else flat
        if flat.size == 0:
            return xp.asarray(xp.nan, dtype=a.dtype)
        s = xp.sort(flat)
        return s[(s.size - 1) // 2].copy()


@register
class MedianBackward1(_Selecting):
    """median(input, dim, keepdim) -> (values, indices); a slice with NaN gives its first NaN."""

    keepdim_param = 1

    @staticmethod
    def forward(a, axis, keepdim, shape):
        if a.ndim == 0:
            return a.copy(), xp.zeros((), dtype=xp.int64)
        n = a.shape[axis]
        values, idx = _pick_sorted(a, axis, (n - 1) // 2, keepdim)
        if a.dtype.kind in FLOATING_KINDS and a.size:
            nan = xp.isnan(a)
            has = nan.any(axis=axis, keepdims=keepdim)
            if has.any():
                first = nan.argmax(axis=axis, keepdims=keepdim)
                idx = xp.where(has, first, idx)
                values = xp.where(has, xp.nan, values).astype(a.dtype)
        return values, idx.astype(xp.int64)


def _no_complex_kernel(d, kernel: str) -> None:
    """torch's kernel error for complex input, raised only when the kernel runs (a non-empty input)."""
    if d.size:
        cs.no_complex(d, kernel)


def median(a: Tensor, dim=None, keepdim: bool = False):
    if dim is None:
        _no_complex_kernel(a._data, "median_cpu")
        return apply(MedianBackward0, (a,))
    d = a._data
    axis = _wrap_dim(dim, d.ndim)
    if d.ndim and d.shape[axis] == 0:
        raise IndexError(f"median(): Expected reduction dim {axis} to have non-zero size.")
    cs.no_complex(d, "median_out")
    return _run(MedianBackward1, "median", a, (axis, keepdim))


def _first_of_equivalent(n: int) -> int:
    """Which index libstdc++'s ``std::nth_element(first, first, last)`` leaves first among n equivalent elements.

    torch's CPU nanmedian(dim) runs nth_element over the slice's indices; in an all-NaN slice every
    element compares equivalent and the median position is 0, so the index it reports (and where the
    gradient goes) is whatever the introselect's partitions leave there (4 NaNs -> index 2). This
    replays those steps: median-of-three moves the middle element first (no element is less than
    another), the unguarded partition swaps the ends inward, and the left part is kept until at most
    three elements remain, which the final insertion sort leaves in place. (Each round halves the
    range, so introselect's depth limit, 2 log2 n rounds, is never reached.) Checked against torch
    for n = 1..39.
    """
    idx = list(range(n))
    last = n
    while last > 3:
        mid = last // 2
        idx[0], idx[mid] = idx[mid], idx[0]
        lo, hi = 1, last
        while True:
            hi -= 1
            if not lo < hi:
                break
            idx[lo], idx[hi] = idx[hi], idx[lo]
            lo += 1
        last = lo  # the cut is past position 0, so the left part is kept
    return idx[0] if n else 0


@register
class NanmedianBackward1(_Selecting):
    """nanmedian(input, dim, keepdim) -> (values, indices): the lower median of each slice's non-NaN values.

    Among equal values the lowest index is taken (torch breaks ties by index); an all-NaN slice gives
    NaN at the index torch's nth_element leaves first (``_first_of_equivalent``). Gradient
    (derivatives.yaml: value_selecting_reduction_backward): the incoming gradient put back at the
    indices.
    """

    keepdim_param = 1

    @staticmethod
    def forward(a, axis, keepdim, shape):
        if a.ndim == 0:
            return a.copy(), xp.zeros((), dtype=xp.int64)
        if a.dtype.kind not in FLOATING_KINDS or a.size == 0:
            return _pick_sorted(a, axis, (a.shape[axis] - 1) // 2, keepdim)
        n = a.shape[axis]
        nan = xp.isnan(a)
        count = n - nan.sum(axis=axis, keepdims=True)  # non-NaN values per slice
        order = _stable_order(a, axis, False)  # NaN sorts last
        position = xp.maximum(count - 1, 0) // 2
        idx = xp.take_along_axis(order, position, axis=axis)
        if type(count) is not xp.ndarray or (count == 0).any():  # (no test of values under vmap)
            idx = xp.where(count == 0, _first_of_equivalent(n), idx)
        values = xp.take_along_axis(a, idx, axis=axis)
        if not keepdim:
            idx, values = idx.squeeze(axis), values.squeeze(axis)
        return values, idx.astype(xp.int64)


def nanmedian(a: Tensor, dim=None, keepdim: bool = False):
    """nanmedian(input) -> the median of the non-NaN elements; nanmedian(input, dim, keepdim) ->
    (values, indices) per slice (NanmedianBackward1).

    Raises:
        IndexError: a dim out of range, or a reduced dim of size 0 (torch's median() text).
    """
    if dim is None:
        _no_complex_kernel(a._data, "median_cpu")
        return apply(NanmedianBackward0, (a,))
    d = a._data
    axis = _wrap_dim(dim, d.ndim)
    if d.ndim and d.shape[axis] == 0:
        raise IndexError(f"median(): Expected reduction dim {axis} to have non-zero size.")
    cs.no_complex(d, "median_out")
    return _run(NanmedianBackward1, "nanmedian", a, (axis, keepdim))


@register
class ModeBackward0(_Selecting):
    """mode(input, dim=-1, keepdim=False) -> (values, indices): the most frequent value (the smallest
    among equally frequent ones) and the last index where it occurs."""

    keepdim_param = 1
    complex_grad = False  # torch's autograd refuses complex mode (reached by 0-d input, which runs no kernel)

    @staticmethod
    def forward(a, axis, keepdim, shape):
        if a.ndim == 0:
            return a.copy(), xp.zeros((), dtype=xp.int64)
        moved = xp.moveaxis(a, axis, -1)
        rows = moved.reshape(-1, moved.shape[-1]) if moved.size else xp.zeros((0, moved.shape[-1]), a.dtype)
        values = xp.empty(rows.shape[0], dtype=a.dtype)
        idx = xp.empty(rows.shape[0], dtype=xp.int64)
        for r, row in enumerate(rows):
            uniq, counts = xp.unique(row, return_counts=True)
            v = uniq[xp.argmax(counts)]  # np.unique sorts, argmax takes the first: the smallest value
            values[r] = v
            idx[r] = row.size - 1 - xp.argmax((row == v)[::-1])
        out_shape = moved.shape[:-1]
        values, idx = values.reshape(out_shape), idx.reshape(out_shape)
        if keepdim:
            values, idx = xp.expand_dims(values, axis), xp.expand_dims(idx, axis)
        return values, idx


def mode(a: Tensor, dim: int = -1, keepdim: bool = False):
    d = a._data
    axis = _wrap_dim(dim, d.ndim)
    if d.ndim and d.shape[axis] == 0:
        raise IndexError(f"mode(): Expected reduction dim {axis} to have non-zero size.")
    if d.ndim:  # (a 0-d input is copied, no kernel runs: torch's autograd refuses it instead)
        _no_complex_kernel(d, "mode_cpu")
    return _run(ModeBackward0, "mode", a, (axis, keepdim))


# ------------------------------------------------------------------ unique


class _NotDifferentiable(Op):
    """A node torch records for an op without a derivative; its backward raises torch's error."""

    what = None

    @staticmethod
    def forward(values):
        return values

    def backward(self, *grads):
        raise NotImplementedError(f"the derivative for '{self.what}' is not implemented.")


@register
class Unique2Backward0(_NotDifferentiable):
    """torch.unique(input) without ``dim``: no derivative."""

    what = "_unique2"


@register
class UniqueDimBackward0(_NotDifferentiable):
    """torch.unique(input, dim=d): no derivative."""

    what = "unique_dim"


def unique(a: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,  # noqa: A002
           dim=None):
    """torch.unique: the distinct values (always sorted in dyngrad), with inverse indices and counts if asked."""
    d = a._data
    cs.no_complex(d, "unique" if dim is None else "unique_dim")
    if dim is None:
        values, inverse, counts = xp.unique(d.reshape(-1), return_inverse=True, return_counts=True)
        inverse = inverse.reshape(d.shape)
        op = Unique2Backward0
    else:
        if d.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        axis = _wrap_dim(dim, d.ndim)
        zero_dims = [i for i, n in enumerate(d.shape) if n == 0]
        if zero_dims and d.shape[axis] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        if len(zero_dims) > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
        if zero_dims:  # (one inverse index and count per slice along dim: none, as that dim is the empty one)
            values, inverse, counts = d.copy(), xp.zeros((0,), xp.int64), xp.zeros((0,), xp.int64)
        else:
            values, inverse, counts = xp.unique(d, return_inverse=True, return_counts=True, axis=axis)
        inverse = inverse.reshape(-1)
        op = UniqueDimBackward0
    out = apply(op, (a,), (), (values,))
    if not out._requires_grad:
        out = wrap(values)
    results = [out]
    if return_inverse:
        results.append(wrap(inverse.astype(xp.int64)))
    if return_counts:
        results.append(wrap(counts.astype(xp.int64)))
    return results[0] if len(results) == 1 else tuple(results)


# ------------------------------------------------------------ searchsorted / isin / bincount
def _shape_list(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False, side=None,  # noqa: A002
                 sorter=None, out=None) -> Tensor:
    """Insertion indices of ``input`` into ``sorted_sequence`` along its last dim (torch.searchsorted).

    The sequence is 1-D, or its leading dims equal ``input``'s (one search per row). ``right`` /
    ``side='right'`` gives the index past equal values. int64 result (int32 with ``out_int32``);
    NaN sorts last. Not differentiable. Raises torch's RuntimeErrors for bad shapes and arguments.
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True"
            )
        right = side == "right"
    seq = sorted_sequence._data
    if _limited_in_use[0]:
        refuse_limited("searchsorted_out_cpu", seq, float8=False)
    scalar = not isinstance(input, Tensor)
    vals = xp.asarray(input) if scalar else input._data
    if seq.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension"
        )
    if seq.ndim > 1 and (scalar or seq.shape[:-1] != vals.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
            f"tensor and input value tensor must match, but we got boundaries tensor {_shape_list(seq.shape)} and "
            f"input value tensor {_shape_list(vals.shape)}"
        )
    if sorter is not None:
        sort_idx = sorter._data
        if sort_idx.shape != seq.shape:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                f"{_shape_list(seq.shape)}and got sorter tensor {_shape_list(sort_idx.shape)}"
            )
        seq = xp.take_along_axis(seq, sort_idx.astype(xp.int64), axis=-1)
    if vals.size and (seq.dtype.kind == "c" or vals.dtype.kind == "c"):
        from .._dtype import result_type

        raise cs.kernel_error("searchsorted_out_cpu", result_type(seq, input if scalar else vals))
    how = "right" if right else "left"
    if seq.ndim == 1:
        res = xp.searchsorted(seq, vals, side=how)
    else:
        lead = 1
        for k in seq.shape[:-1]:
            lead *= k
        rows = seq.reshape(lead, seq.shape[-1])
        vrows = vals.reshape(lead, vals.shape[-1])
        res = xp.stack([xp.searchsorted(r, v, side=how) for r, v in zip(rows, vrows)]).reshape(vals.shape) \
            if rows.shape[0] else xp.zeros(vals.shape, xp.int64)
    return wrap(xp.asarray(res, dtype=xp.int32 if out_int32 else xp.int64))


_ISIN_SIGNATURES = (
    " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
    " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
    " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False, Tensor out = None)\n"
)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False, out=None) -> Tensor:
    """Whether each of ``elements`` is in ``test_elements`` (either may be a number); a bool tensor shaped
    like ``elements``. Values compare after type promotion; NaN matches nothing. Bool tensors are refused."""
    et, tt = isinstance(elements, Tensor), isinstance(test_elements, Tensor)
    if not et and not tt:
        got = ", ".join(type(v).__name__ for v in (elements, test_elements))
        raise TypeError(f"isin() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        f"{_ISIN_SIGNATURES}")
    e = elements._data if et else xp.asarray(elements)
    t = test_elements._data if tt else xp.asarray(test_elements)
    for arr in (e, t):
        if arr.dtype.kind in "bc":
            raise RuntimeError(f"Unsupported input type encountered for isin(): {cs.type_name(arr.dtype)}")
    from .._dtype import result_type

    npd = result_type(elements._data if et else elements, test_elements._data if tt else test_elements)
    found = xp.isin(e.astype(npd), t.astype(npd), invert=invert)
    return wrap(xp.asarray(found, dtype=xp.bool_))


def bincount(input: Tensor, weights=None, minlength: int = 0) -> Tensor:  # noqa: A002 - torch's name
    """Counts of each value 0..max of a 1-D non-negative integer tensor (or sums of ``weights``), at least
    ``minlength`` long. int64 counts; weights give float64 (float32 weights keep float32). A weights tensor
    that requires grad gets torch's NotImplemented node (its backward raises)."""
    a = input._data
    if a.dtype.kind not in "iu" or _limited_in_use[0] and a.dtype in LIMITED_NP:
        from .._dtype import scalar_type_name

        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if a.ndim != 1 or (a.size and a.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None:
        w = weights._data
        if w.ndim != 1 or w.shape[0] != a.shape[0]:
            raise RuntimeError("weights should be 1-d and have the same length as input")
    if a.size == 0:  # torch: an int64 result, weights or not
        return wrap(xp.zeros(minlength, dtype=xp.int64))
    if weights is None:
        return wrap(xp.bincount(a, minlength=minlength).astype(xp.int64))
    npd = xp.float32 if w.dtype == xp.float32 else xp.float64
    res = xp.bincount(a, weights=w.astype(xp.float64), minlength=minlength).astype(npd)
    if weights._requires_grad:
        from .random_ops import NotImplemented

        return apply(NotImplemented, (input, weights), (res, "bincount"))
    return wrap(res)


# ------------------------------------------------------------------ registration
EXPORTS: dict = dict(sort=sort, argsort=argsort, msort=msort, topk=topk, kthvalue=kthvalue, median=median,
                     nanmedian=nanmedian, mode=mode, unique=unique, searchsorted=searchsorted, isin=isin,
                     bincount=bincount)
TENSOR_METHODS: dict = dict(EXPORTS)
del TENSOR_METHODS["searchsorted"], TENSOR_METHODS["isin"]  # torch has no Tensor methods of these
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
