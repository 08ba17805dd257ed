"""Batching rules of NumPy's ufuncs (``__array_ufunc__``): elementwise calls, reductions, matmul.

Elementwise (torch's "pointwise and broadcasting ops move the batch dim to the front and pad"):
each input batched at the level moves its batch dim to the front and gets size-1 dims after it up
to the broadcast rank, so that broadcasting lines the samples up; inputs not batched there broadcast
as they are. The ufunc then runs once on the physical arrays and the result has its batch dim first.
"""

from __future__ import annotations

import numpy as np

from .array import BatchedArray, fail, loop, max_level, move_front, unbatched_write

_ndarray = np.ndarray
_matmul = np.matmul


def _ndim(x) -> int:
    t = type(x)
    if t is BatchedArray:
        return len(x._shape)
    if t is _ndarray:
        return x.ndim
    return np.ndim(x)


def align(x, level: int, n: int):
    """``x`` as an operand of rank ``n`` for a broadcast at ``level``: batched -> (B, 1.., *shape)."""
    if type(x) is BatchedArray and x.level == level:
        v = move_front(x.value, x.bdim)
        k = len(x._shape)
        if k < n:
            v = v[(slice(None),) + (None,) * (n - k)]
        return v
    return x


def phys_axis(axis, n: int):
    """A logical axis (int, tuple or None for all) as the axis of the array with its batch dim first."""
    if axis is None:
        return tuple(range(1, n + 1))
    if isinstance(axis, (tuple, list)):
        return tuple(_wrap(a, n) + 1 for a in axis)
    return _wrap(axis, n) + 1


def _wrap(a, n: int) -> int:
    a = int(a)
    if not -n <= a < n and not (n == 0 and a in (0, -1)):
        raise np.exceptions.AxisError(a, n)
    return a + n if a < 0 else a


def _batch_size(items, level: int) -> int:
    for x in items:
        if type(x) is BatchedArray and x.level == level:
            return x.value.shape[x.bdim]
    return -1


def _out_views(out, level: int, batch: int):
    views = []
    for o in out:
        if o is None:
            views.append(None)
        elif type(o) is BatchedArray and o.level == level:
            views.append(move_front(o.value, o.bdim))
        else:
            unbatched_write(np.shape(o), batch)
    return tuple(views)


def dispatch(ufunc, method: str, inputs: tuple, kwargs: dict):
    out = kwargs.get("out")
    where = kwargs.get("where", True)
    items = list(inputs)
    if out is not None:
        items.extend(out)
    if where is not True:
        items.append(where)
    level = max_level(items)
    if method == "__call__":
        return call(ufunc, inputs, kwargs, level)
    if method == "reduce":
        return reduce(ufunc, inputs, kwargs, level)
    if method == "accumulate":
        return accumulate(ufunc, inputs, kwargs, level)
    if method == "outer":
        a, b = inputs
        return call(ufunc, (np.reshape(a, np.shape(a) + (1,) * _ndim(b)), b), kwargs, level)
    if method == "at":
        from .rules_indexing import ufunc_at

        return ufunc_at(ufunc, inputs, level)
    return loop(getattr(ufunc, method), inputs, kwargs, level, f"{ufunc.__name__}.{method}")


def call(ufunc, inputs: tuple, kwargs: dict, level: int):
    if ufunc.signature is not None:
        if ufunc is _matmul:
            return matmul(inputs[0], inputs[1], kwargs, level)
        return gufunc(ufunc, inputs, kwargs, level)
    if len(inputs) == 2 and not kwargs:  # the common binary case, inlined
        a, b = inputs
        ta, tb = type(a) is BatchedArray and a.level == level, type(b) is BatchedArray and b.level == level
        if ta and tb and a.bdim == 0 and b.bdim == 0 and len(a._shape) == len(b._shape):
            return BatchedArray(ufunc(a.value, b.value), 0, level)
        if ta and not tb and a.bdim == 0 and _ndim(b) <= len(a._shape):
            return BatchedArray(ufunc(a.value, b), 0, level)
        if tb and not ta and b.bdim == 0 and _ndim(a) <= len(b._shape):
            return BatchedArray(ufunc(a, b.value), 0, level)
    elif len(inputs) == 1 and not kwargs:
        (a,) = inputs
        r = ufunc(a.value)  # elementwise: the batch dim may stay where it is
        if ufunc.nout == 1:
            return BatchedArray(r, a.bdim, level)
        return tuple(BatchedArray(x, a.bdim, level) for x in r)
    out = kwargs.pop("out", None)
    where = kwargs.pop("where", True)
    arrays = list(inputs) if where is True else list(inputs) + [where]
    n = max(_ndim(x) for x in arrays)
    phys = [align(x, level, n) for x in arrays]
    if where is not True:
        kwargs["where"] = phys.pop()
    if out is not None:
        batch = _batch_size(arrays + list(out), level)
        kwargs["out"] = _out_views(out, level, batch)
        ufunc(*phys, **kwargs)
        return out[0] if len(out) == 1 else out
    r = ufunc(*phys, **kwargs)
    if ufunc.nout == 1:
        return BatchedArray(r, 0, level)
    return tuple(BatchedArray(x, 0, level) for x in r)


def reduce(ufunc, inputs: tuple, kwargs: dict, level: int):
    (a,) = inputs
    if type(a) is not BatchedArray or a.level != level:
        return loop(ufunc.reduce, inputs, kwargs, level, f"{ufunc.__name__}.reduce")
    n = len(a._shape)
    kwargs["axis"] = phys_axis(kwargs.get("axis", 0), n)
    where = kwargs.get("where", True)
    if where is not True:
        kwargs["where"] = align(where, level, n)
    out = kwargs.get("out")
    if out is not None:
        kwargs["out"] = _out_views(out, level, a.batch_size)
        ufunc.reduce(move_front(a.value, a.bdim), **kwargs)
        return out[0]
    return BatchedArray(ufunc.reduce(move_front(a.value, a.bdim), **kwargs), 0, level)


def accumulate(ufunc, inputs: tuple, kwargs: dict, level: int):
    (a,) = inputs
    if type(a) is not BatchedArray or a.level != level or kwargs.get("out") is not None:
        return loop(ufunc.accumulate, inputs, kwargs, level, f"{ufunc.__name__}.accumulate")
    kwargs["axis"] = phys_axis(kwargs.get("axis", 0), len(a._shape))
    return BatchedArray(ufunc.accumulate(move_front(a.value, a.bdim), **kwargs), 0, level)


def gufunc(ufunc, inputs: tuple, kwargs: dict, level: int):
    """A generalized ufunc (``vecdot``, ``matvec``, pocketfft's transforms): core dims last (or where ``axes``
    puts them), loop dims broadcast as elementwise, the batch dim in front of them; an ``out`` batched at this
    level is written through its physical view."""
    out = kwargs.get("out")
    outs = out if type(out) is tuple else (out,)
    if "axis" in kwargs or (out is not None and not all(type(o) is BatchedArray and o.level == level for o in outs)):
        return loop(ufunc, inputs, kwargs, level, ufunc.__name__)
    parts_in, parts_out = ufunc.signature.split("->")
    core = [_core_count(part) for part in parts_in[1:-1].split("),(")]
    loops = [_ndim(x) - c for x, c in zip(inputs, core)]
    m = max(loops)
    axes = kwargs.get("axes")
    if axes is not None:  # core dims counted from the end, so that the batch dim and padding in front keep them
        core_out = [_core_count(part) for part in parts_out[1:-1].split("),(")]
        ndims = [_ndim(x) for x in inputs] + [m + c for c in core_out]
        kwargs["axes"] = [tuple(a - nd if a >= 0 else a for a in (ax if isinstance(ax, (tuple, list)) else (ax,)))
                          for ax, nd in zip(axes, ndims)]
    phys = []
    for x, k in zip(inputs, loops):
        if type(x) is BatchedArray and x.level == level:
            v = move_front(x.value, x.bdim)
            if k < m:
                v = v[(slice(None),) + (None,) * (m - k)]
            phys.append(v)
        else:
            phys.append(x)
    if out is not None:
        kwargs["out"] = tuple(move_front(o.value, o.bdim) for o in outs)
        ufunc(*phys, **kwargs)
        return out
    return BatchedArray(ufunc(*phys, **kwargs), 0, level)


def _core_count(part: str) -> int:
    """The number of core dims in one operand of a gufunc signature ("n", "n,m", "" or "()")."""
    return len([d for d in part.strip("()").split(",") if d])


def matmul(a, b, kwargs: dict, level: int):
    """np.matmul: the batch dim goes with the loop dims, with one BLAS product where a side is shared."""
    if kwargs.get("out") is not None or "axes" in kwargs or "axis" in kwargs:
        return loop(_matmul, (a, b), kwargs, level, "matmul")
    ba = type(a) is BatchedArray and a.level == level
    bb = type(b) is BatchedArray and b.level == level
    # a side broadcast over the batch (stride 0: grad's shared weight under vmap) is the same for every
    # sample: its one matrix takes the paths with one BLAS product below
    if ba and bb:
        if _shared(a):
            a, ba = _one_sample(a), False
        elif _shared(b):
            b, bb = _one_sample(b), False
    na, nb = _ndim(a), _ndim(b)
    if na == 0 or nb == 0:
        fail("both arguments to matmul need to be at least 1D")
    if ba and not bb:
        pa = move_front(a.value, a.bdim)
        if nb <= 2 and (na == 1 or nb == 2):
            # (B, ..., k) @ (k, m) or (B, k) @ (k,): one product over the flattened rows
            lead = pa.shape[:-1]
            rows = 1
            for n in lead:  # not reshape(-1, k): NumPy cannot infer -1 beside a k of 0
                rows *= n
            r = _matmul(pa.reshape(rows, pa.shape[-1]), b, **kwargs)
            return BatchedArray(r.reshape(lead + r.shape[1:]), 0, level)
    elif bb and not ba:
        pb = move_front(b.value, b.bdim)
        if nb == 1 and na <= 2:
            # a @ v per sample = V @ a.T: one product, the batch dim first
            at = a if na == 1 else np.swapaxes(a, -1, -2)
            return BatchedArray(_matmul(pb, at, **kwargs), 0, level)
    elif ba and bb and na == 1 and nb == 1:
        pa, pb = move_front(a.value, a.bdim), move_front(b.value, b.bdim)
        return BatchedArray(np.einsum("bk,bk->b", pa, pb), 0, level)
    # general: 1-D operands as matrices, loop dims (with the batch dim first) broadcast
    a2 = a if na >= 2 else np.expand_dims(a, 0)
    b2 = b if nb >= 2 else np.expand_dims(b, -1)
    m = max(na if na >= 2 else 2, nb if nb >= 2 else 2)
    pa, pb = align(a2, level, m), align(b2, level, m)
    if ba and bb and pa.shape[-1] == 1:  # outer products (a per-sample weight gradient)
        if type(pa) is _ndarray and type(pb) is _ndarray:
            u, v = pa[..., 0], pb[..., 0, :]
            shape = np.broadcast_shapes(u.shape[:-1], v.shape[:-1]) + (u.shape[-1], v.shape[-1])
            r = np.einsum("...i,...j->...ij", u, v, out=recycled(shape, np.result_type(u, v)))
        else:
            r = pa * pb
    else:
        r = _matmul(pa, pb, **kwargs)
    if na == 1:
        r = r[..., 0, :]
    if nb == 1:
        r = r[..., 0]
    return BatchedArray(r, 0, level)


def _shared(x) -> bool:
    """Whether the batched array ``x`` is one array broadcast over its batch (zero batch stride)."""
    v = x.value
    return type(v) is _ndarray and v.strides[x.bdim] == 0 and v.shape[x.bdim] > 1


def _one_sample(x):
    return x.value[(slice(None),) * x.bdim + (0,)]


# Note [Recycled outputs]
# Per-sample weight gradients are the largest arrays of a vmap(grad) step (batch x in x out), made anew
# each step. NumPy's malloc hands such blocks back to the system between steps, so each one costs a page
# fault per 4 KiB on first touch: as much again as computing it. The outer-product rule keeps its last
# few outputs, and reuses one as soon as nothing else refers to it (the step that got it is done with it).
_RECYCLE: dict = {}


def recycled(shape: tuple, dtype):
    """An uninitialised array of ``shape``: a previous output nobody refers to any more, or a new one."""
    import sys

    dtype = np.dtype(dtype)
    nbytes = dtype.itemsize
    for n in shape:
        nbytes *= n
    if nbytes < 1 << 18:  # small blocks come back from malloc's free lists without faults
        return np.empty(shape, dtype)
    key = (shape, dtype)
    kept = _RECYCLE.setdefault(key, [])
    for a in kept:
        if sys.getrefcount(a) == 3:  # the list, the loop variable and getrefcount's argument
            return a
    a = np.empty(shape, dtype)
    kept.append(a)
    if len(kept) > 4:
        kept.pop(0)
    return a
