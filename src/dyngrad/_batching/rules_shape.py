"""Batching rules of NumPy's shape and movement functions, sorting, cumulative ops and selections.

Each rule moves the batch dim of its batched array to the front, shifts the logical axes it is
given by one (``phys_axis``), runs the NumPy function once and returns the result with its batch
dim first. Operands not batched at the level are broadcast along the batch where the function
needs equal shapes (``concatenate``, ``stack``, ``take_along_axis``).
"""

from __future__ import annotations

import numpy as np

from .array import BatchedArray, batch_size_at, loop, move_front, unbatched_write
from .rules_ufunc import _ndim, _wrap, align, phys_axis

RULES: dict = {}


def rule(*funcs):
    def deco(fn):
        for f in funcs:
            RULES[f] = fn
        return fn

    return deco


def _front_of(a, level: int):
    """The physical array of ``a`` at ``level`` (batch first); a broadcast view for ``a`` not batched there."""
    if type(a) is BatchedArray and a.level == level:
        return move_front(a.value, a.bdim)
    return None


def _batched(a, level: int) -> bool:
    return type(a) is BatchedArray and a.level == level


def _broadcast_front(a, level: int, batch: int):
    f = _front_of(a, level)
    if f is not None:
        return f
    return np.broadcast_to(a, (batch,) + tuple(np.shape(a)))


def _flat(f):
    return f.reshape(f.shape[0], -1)


# ------------------------------------------------------------------ views and reshapes
@rule(np.reshape)
def _reshape(level, a, shape=None, order="C", **kw):
    if "newshape" in kw:
        shape = kw.pop("newshape")
    f = _front_of(a, level)
    if f is None or order != "C" or kw:
        return loop(np.reshape, (a, shape), {"order": order, **kw}, level, "reshape")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    return BatchedArray(f.reshape((f.shape[0],) + shape), 0, level)


@rule(np.transpose, np.permute_dims)
def _transpose(level, a, axes=None):
    n = a.ndim
    if axes is None:
        perm = (a.bdim,) + tuple(_inner(a.bdim, i) for i in range(n - 1, -1, -1))
    else:
        perm = (a.bdim,) + tuple(_inner(a.bdim, _wrap(i, n)) for i in axes)
    return BatchedArray(a.value.transpose(perm), 0, level)


def _inner(bdim: int, i: int) -> int:
    """Logical dim ``i`` of a batched array as a dim of its value."""
    return i if i < bdim else i + 1


@rule(np.swapaxes)
def _swapaxes(level, a, axis1, axis2):
    n = a.ndim
    i, j = _inner(a.bdim, _wrap(axis1, n)), _inner(a.bdim, _wrap(axis2, n))
    return BatchedArray(np.swapaxes(a.value, i, j), a.bdim, level)


@rule(np.moveaxis)
def _moveaxis(level, a, source, destination):
    f = _front_of(a, level)
    n = a.ndim
    src = [_wrap(s, n) + 1 for s in (source if isinstance(source, (tuple, list)) else [source])]
    dst = [_wrap(d, n) + 1 for d in (destination if isinstance(destination, (tuple, list)) else [destination])]
    return BatchedArray(np.moveaxis(f, src, dst), 0, level)


@rule(np.expand_dims)
def _expand_dims(level, a, axis):
    f = _front_of(a, level)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    n = a.ndim + len(axes)
    return BatchedArray(np.expand_dims(f, tuple(_wrap(x, n) + 1 for x in axes)), 0, level)


@rule(np.squeeze)
def _squeeze(level, a, axis=None):
    f = _front_of(a, level)
    if axis is None:
        axes = tuple(i + 1 for i, s in enumerate(a.shape) if s == 1)
    else:
        axes = phys_axis(axis, a.ndim)
        axes = axes if isinstance(axes, tuple) else (axes,)
        for x in axes:
            if f.shape[x] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return BatchedArray(f.reshape(tuple(s for i, s in enumerate(f.shape) if i not in axes)) if axes else f, 0, level)


@rule(np.broadcast_to)
def _broadcast_to(level, a, shape, subok=False):
    f = _front_of(a, level)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    f = align(a, level, len(shape)) if a.ndim < len(shape) else f
    return BatchedArray(np.broadcast_to(f, (f.shape[0],) + shape), 0, level)


@rule(np.broadcast_arrays)
def _broadcast_arrays(level, *args, subok=False):
    shape = np.broadcast_shapes(*[np.shape(x) for x in args])
    return tuple(np.broadcast_to(x, shape) for x in args)


def _atleast(shapes):
    def rule_fn(level, *arys):
        out = [np.reshape(a, shapes[np.ndim(a)](np.shape(a))) if np.ndim(a) < len(shapes) else a for a in arys]
        return out[0] if len(out) == 1 else out

    return rule_fn


RULES[np.atleast_1d] = _atleast([lambda s: (1,)])
RULES[np.atleast_2d] = _atleast([lambda s: (1, 1), lambda s: (1,) + s])
RULES[np.atleast_3d] = _atleast([lambda s: (1, 1, 1), lambda s: (1,) + s + (1,), lambda s: s + (1,)])


@rule(np.ravel)
def _ravel(level, a, order="C"):
    return np.reshape(a, (-1,))


@rule(np.copy)
def _copy(level, a, order="K", subok=False):
    return a.copy()


def _ascontiguous(level, a, dtype=None):
    f = _front_of(a, level)
    f = np.ascontiguousarray(f, dtype=dtype) if type(f) is np.ndarray else _ascontiguous(f.level, f, dtype)
    return BatchedArray(f, 0, level)


@rule(np.flip)
def _flip(level, m, axis=None):
    f = _front_of(m, level)
    return BatchedArray(np.flip(f, phys_axis(axis, m.ndim)), 0, level)


@rule(np.roll)
def _roll(level, a, shift, axis=None):
    f = _front_of(a, level)
    if f is None or type(shift) is BatchedArray:
        return loop(np.roll, (a, shift), {"axis": axis}, level, "roll")
    if axis is None:
        return BatchedArray(np.roll(_flat(f), shift, axis=1).reshape(f.shape), 0, level)
    return BatchedArray(np.roll(f, shift, axis=phys_axis(axis, a.ndim)), 0, level)


@rule(np.rot90)
def _rot90(level, m, k=1, axes=(0, 1)):
    f = _front_of(m, level)
    return BatchedArray(np.rot90(f, k, axes=tuple(_wrap(x, m.ndim) + 1 for x in axes)), 0, level)


@rule(np.tile)
def _tile(level, A, reps):
    f = _front_of(A, level)
    reps = (reps,) if isinstance(reps, (int, np.integer)) else tuple(reps)
    n = max(A.ndim, len(reps))
    f = align(A, level, n)
    reps = (1,) * (n - len(reps)) + reps
    return BatchedArray(np.tile(f, (1,) + reps), 0, level)


@rule(np.repeat)
def _repeat(level, a, repeats, axis=None):
    f = _front_of(a, level)
    if f is None or type(repeats) is BatchedArray:
        return loop(np.repeat, (a, repeats), {"axis": axis}, level, "repeat")
    if axis is None:
        return BatchedArray(np.repeat(_flat(f), repeats, axis=1), 0, level)
    return BatchedArray(np.repeat(f, repeats, axis=phys_axis(axis, a.ndim)), 0, level)


@rule(np.pad)
def _pad(level, array, pad_width, mode="constant", **kw):
    f = _front_of(array, level)
    if f is None or any(type(v) is BatchedArray for v in kw.values()) or type(pad_width) is BatchedArray:
        return loop(np.pad, (array, pad_width), {"mode": mode, **kw}, level, "pad")
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (array.ndim, 2))
    kw2 = dict(kw)
    for key in ("constant_values", "end_values", "stat_length"):
        if key in kw2 and np.ndim(kw2[key]) >= 2:
            kw2[key] = np.concatenate([np.zeros((1, 2), dtype=np.asarray(kw2[key]).dtype),
                                       np.broadcast_to(kw2[key], (array.ndim, 2))])
    return BatchedArray(np.pad(f, np.concatenate([[[0, 0]], widths]), mode=mode, **kw2), 0, level)


# ------------------------------------------------------------------ joining and splitting
@rule(np.concatenate)
def _concatenate(level, arrays, axis=0, out=None, **kw):
    arrays = list(arrays)
    batch = batch_size_at(arrays, level)
    if out is not None:
        return loop(np.concatenate, (arrays,), {"axis": axis, "out": out, **kw}, level, "cat")
    if axis is None:
        fronts = [_flat(_broadcast_front(a, level, batch)) for a in arrays]
        return BatchedArray(np.concatenate(fronts, axis=1, **kw), 0, level)
    n = max(_ndim(a) for a in arrays)
    fronts = [_broadcast_front(a, level, batch) for a in arrays]
    return BatchedArray(np.concatenate(fronts, axis=_wrap(axis, n) + 1, **kw), 0, level)


@rule(np.stack)
def _stack(level, arrays, axis=0, out=None, **kw):
    arrays = list(arrays)
    batch = batch_size_at(arrays, level)
    if out is not None:
        return loop(np.stack, (arrays,), {"axis": axis, "out": out, **kw}, level, "stack")
    n = _ndim(arrays[0]) + 1
    fronts = [_broadcast_front(a, level, batch) for a in arrays]
    return BatchedArray(np.stack(fronts, axis=_wrap(axis, n) + 1, **kw), 0, level)


@rule(np.vstack)
def _vstack(level, tup, **kw):
    return np.concatenate([np.reshape(a, (1, -1)) if np.ndim(a) <= 1 else a for a in tup], axis=0)


@rule(np.hstack)
def _hstack(level, tup, **kw):
    arrs = [np.reshape(a, (1,)) if np.ndim(a) == 0 else a for a in tup]
    return np.concatenate(arrs, axis=0 if np.ndim(arrs[0]) == 1 else 1)


@rule(np.append)
def _append(level, arr, values, axis=None):
    if axis is None:
        return np.concatenate([np.reshape(arr, (-1,)), np.reshape(values, (-1,))], axis=0)
    return np.concatenate([arr, values], axis=axis)


@rule(np.split, np.array_split)
def _split(level, ary, indices_or_sections, axis=0):
    f = _front_of(ary, level)
    if f is None or type(indices_or_sections) is BatchedArray:
        return loop(np.array_split, (ary, indices_or_sections), {"axis": axis}, level, "split")
    parts = np.array_split(f, indices_or_sections, axis=_wrap(axis, ary.ndim) + 1)
    return [BatchedArray(p, 0, level) for p in parts]


# ------------------------------------------------------------------ diagonals
@rule(np.diagonal)
def _diagonal(level, a, offset=0, axis1=0, axis2=1):
    n = a.ndim
    i, j = _inner(a.bdim, _wrap(axis1, n)), _inner(a.bdim, _wrap(axis2, n))
    r = np.diagonal(a.value, offset, i, j)  # the diagonal goes last; the batch dim keeps its place among the rest
    b = a.bdim - (i < a.bdim) - (j < a.bdim)
    return BatchedArray(r, b, level)


@rule(np.trace)
def _trace(level, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if out is not None:
        return loop(np.trace, (a, offset, axis1, axis2, dtype, out), {}, level, "trace")
    return np.sum(np.diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


@rule(np.diag)
def _diag(level, v, k=0):
    if v.ndim == 2:
        return np.diagonal(v, k, 0, 1)
    return loop(np.diag, (v, k), {}, level, "diag")


@rule(np.tril)
def _tril(level, m, k=0):
    if m.ndim < 2:
        return loop(np.tril, (m, k), {}, level, "tril")
    return BatchedArray(np.tril(_front_of(m, level), k), 0, level)


@rule(np.triu)
def _triu(level, m, k=0):
    if m.ndim < 2:
        return loop(np.triu, (m, k), {}, level, "triu")
    return BatchedArray(np.triu(_front_of(m, level), k), 0, level)


# ------------------------------------------------------------------ gathers and scatters along an axis
@rule(np.take)
def _take(level, a, indices, axis=None, out=None, mode="raise"):
    f = _front_of(a, level)
    if out is not None:
        return loop(np.take, (a, indices), {"axis": axis, "out": out, "mode": mode}, level, "take")
    if type(indices) is BatchedArray and indices.level == level and mode == "raise":
        if axis is None:
            a = np.reshape(a, (-1,))
            axis = 0
        n = _ndim(a)
        ax = _wrap(axis, n)
        batch = indices.batch_size
        fa = _broadcast_front(a, level, batch)
        fi = move_front(indices.value, indices.bdim)
        # out[b, i..., j..., k...] = a[b, i..., idx[b, j...], k...]: one advanced index with the batch arange
        lead = fa.shape[1 : 1 + ax]
        key = (np.arange(batch).reshape((batch,) + (1,) * (fi.ndim - 1)),) + (slice(None),) * ax + (fi,)
        r = fa[key]  # (B, j..., lead..., k...) : the advanced dims first
        nj = fi.ndim - 1
        perm = (0,) + tuple(range(1 + nj, 1 + nj + len(lead))) + tuple(range(1, 1 + nj)) + tuple(
            range(1 + nj + len(lead), r.ndim))
        return BatchedArray(r.transpose(perm), 0, level)
    if f is None or type(indices) is BatchedArray:
        return loop(np.take, (a, indices), {"axis": axis, "mode": mode}, level, "take")
    if axis is None:
        return BatchedArray(np.take(_flat(f), indices, axis=1, mode=mode), 0, level)
    return BatchedArray(np.take(f, indices, axis=_wrap(axis, a.ndim) + 1, mode=mode), 0, level)


@rule(np.take_along_axis)
def _take_along_axis(level, arr, indices, axis=-1):
    batch = batch_size_at([arr, indices], level)
    if axis is None:
        arr, axis = np.reshape(arr, (-1,)), 0
    n = _ndim(arr)
    fa = _front_of(arr, level)
    fa = fa if fa is not None else np.expand_dims(arr, 0)
    fi = _front_of(indices, level)
    fi = fi if fi is not None else np.expand_dims(indices, 0)
    if fa.shape[0] != fi.shape[0]:  # one side shared by every sample: broadcast it
        fa = np.broadcast_to(fa, (batch,) + tuple(fa.shape[1:]))
        fi = np.broadcast_to(fi, (batch,) + tuple(fi.shape[1:]))
    return BatchedArray(np.take_along_axis(fa, fi, axis=_wrap(axis, n) + 1), 0, level)


@rule(np.put_along_axis)
def _put_along_axis(level, arr, indices, values, axis):
    fa = _front_of(arr, level)
    if fa is None:
        unbatched_write(np.shape(arr), batch_size_at([indices, values], level))
    n = arr.ndim
    fi = _front_of(indices, level)
    fi = fi if fi is not None else np.broadcast_to(np.expand_dims(indices, 0), (fa.shape[0],) + np.shape(indices))
    fv = _front_of(values, level)
    fv = fv if fv is not None else np.expand_dims(np.asarray(values) if np.ndim(values) else values, 0)
    np.put_along_axis(fa, fi, fv, axis=_wrap(axis, n) + 1)


@rule(np.copyto)
def _copyto(level, dst, src, casting="same_kind", where=True):
    fd = _front_of(dst, level)
    if fd is None:
        unbatched_write(np.shape(dst), batch_size_at([src, where], level))
    n = dst.ndim
    np.copyto(fd, align(src, level, n), casting=casting, where=align(where, level, n) if where is not True else True)


# ------------------------------------------------------------------ sorting, cumulative ops, differences
def _along_axis(func, name, flat_default=True):
    def rule_fn(level, a, axis=-1 if not flat_default else None, *args, **kwargs):
        f = _front_of(a, level)
        if f is None or any(type(x) is BatchedArray for x in args) or any(type(x) is BatchedArray for x in kwargs.values()):
            return loop(func, (a, axis) + args, kwargs, level, name)
        if kwargs.get("out") is not None:
            return loop(func, (a, axis) + args, kwargs, level, name)
        if axis is None:
            return BatchedArray(func(_flat(f), 1, *args, **kwargs), 0, level)
        return BatchedArray(func(f, _wrap(axis, a.ndim) + 1, *args, **kwargs), 0, level)

    return rule_fn


RULES[np.cumsum] = _along_axis(np.cumsum, "cumsum")
RULES[np.cumprod] = _along_axis(np.cumprod, "cumprod")
RULES[np.nancumsum] = _along_axis(np.nancumsum, "nancumsum")
RULES[np.nancumprod] = _along_axis(np.nancumprod, "nancumprod")
RULES[np.sort] = _along_axis(np.sort, "sort", flat_default=False)
RULES[np.argsort] = _along_axis(np.argsort, "argsort", flat_default=False)


def _partition_rule(func, name):
    def rule_fn(level, a, kth, axis=-1, **kw):
        f = _front_of(a, level)
        if f is None or type(kth) is BatchedArray:
            return loop(func, (a, kth), {"axis": axis, **kw}, level, name)
        if axis is None:
            return BatchedArray(func(_flat(f), kth, axis=1, **kw), 0, level)
        return BatchedArray(func(f, kth, axis=_wrap(axis, a.ndim) + 1, **kw), 0, level)

    return rule_fn


RULES[np.partition] = _partition_rule(np.partition, "partition")
RULES[np.argpartition] = _partition_rule(np.argpartition, "argpartition")


@rule(np.diff)
def _diff(level, a, n=1, axis=-1, **kw):
    f = _front_of(a, level)
    if f is None or kw:
        return loop(np.diff, (a, n, axis), kw, level, "diff")
    return BatchedArray(np.diff(f, n, axis=_wrap(axis, a.ndim) + 1), 0, level)


@rule(np.searchsorted)
def _searchsorted(level, a, v, side="left", sorter=None):
    if _batched(a, level) and sorter is None and a.ndim == 1:
        # a sorted row per sample: the insertion point counts the entries below the value (<= for "right")
        fa = _front_of(a, level)
        fv = _broadcast_front(v, level, fa.shape[0])
        nv = np.ndim(fv) - 1
        rows = fa.reshape((fa.shape[0],) + (1,) * nv + (fa.shape[1],))
        cmp = np.less if side == "left" else np.less_equal
        return BatchedArray(np.count_nonzero(cmp(rows, fv[..., None]), axis=-1).astype(np.intp), 0, level)
    if _batched(a, level) or _batched(sorter, level) or not _batched(v, level):
        return loop(np.searchsorted, (a, v), {"side": side, "sorter": sorter}, level, "searchsorted")
    return BatchedArray(np.searchsorted(a, v.value, side=side, sorter=sorter), v.bdim, level)


@rule(np.isin)
def _isin(level, element, test_elements, assume_unique=False, invert=False, **kw):
    if _batched(test_elements, level):  # the tests of each sample against each element of its own
        found = np.any(np.equal(np.expand_dims(element, -1), np.reshape(test_elements, (-1,))), axis=-1)
        return np.logical_not(found) if invert else found
    if not _batched(element, level):
        return loop(np.isin, (element, test_elements), {"assume_unique": assume_unique, "invert": invert, **kw},
                    level, "isin")
    return BatchedArray(np.isin(element.value, test_elements, assume_unique=assume_unique, invert=invert, **kw),
                        element.bdim, level)


@rule(np.lib.stride_tricks.sliding_window_view)
def _sliding_window_view(level, x, window_shape, axis=None, *, subok=False, writeable=False):
    f = _front_of(x, level)
    ws = (window_shape,) if isinstance(window_shape, (int, np.integer)) else tuple(window_shape)
    if axis is None:
        axis = tuple(range(x.ndim))
    axes = phys_axis(axis, x.ndim)
    axes = axes if isinstance(axes, tuple) else (axes,)
    return BatchedArray(np.lib.stride_tricks.sliding_window_view(f, ws, axis=axes, writeable=writeable), 0, level)


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """``np.lib.stride_tricks.as_strided`` in the batched namespace: the logical strides of a batched array
    are the physical ones without the batch dim, so the same view per sample is the physical view with
    the batch stride prepended."""
    if type(x) is not BatchedArray:
        return np.lib.stride_tricks.as_strided(x, shape, strides, subok, writeable)
    if type(x.value) is not np.ndarray:
        return loop(lambda a: as_strided(a, shape, strides, subok, writeable), (x,), {}, x.level, "as_strided")
    v = x.value
    shape = x.shape if shape is None else tuple(shape)
    strides = x.strides if strides is None else tuple(strides)
    r = np.lib.stride_tricks.as_strided(v, (v.shape[x.bdim],) + shape, (v.strides[x.bdim],) + strides,
                                        writeable=writeable)
    return BatchedArray(r, 0, x.level)
