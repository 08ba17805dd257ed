"""Batching rules of indexing: ``a[key]``, ``a[key] = v`` and ``ufunc.at`` on batched arrays.

The key indexes the logical array; on the physical array (batch dim first) it is the same key after
a full slice for the batch dim. NumPy's rule for advanced indices then decides where the batch dim
lands: first when the advanced indices are adjacent, after their broadcast dims when they are not
(integers count as advanced indices next to arrays, as in NumPy). Batched index arrays join an
``arange`` over the batch as one more advanced index, so sample ``b`` reads its own indices.
"""

from __future__ import annotations

import numpy as np

from .array import BatchedArray, fail, max_level, move_front, unbatched_write

BOOL_MASK_MESSAGE = (
    "vmap: We do not support batching operators that can support dynamic shape. Attempting to batch over indexing "
    "with a boolean mask."
)

_ndarray = np.ndarray


def _is_array(k) -> bool:
    t = type(k)
    return t is _ndarray or t is BatchedArray


def _normalize(key, ndim: int) -> list:
    """The key as a list of items: Ellipsis expanded to slices, sequences as arrays, boolean masks as
    integer arrays (their nonzero positions; a batched mask has a shape per sample: no rule)."""
    if type(key) is not tuple:
        key = (key,)
    items = []
    for k in key:
        t = type(k)
        if k is None or k is Ellipsis or t is slice or t is int:
            items.append(k)
        elif t is _ndarray or t is BatchedArray:
            items.append(k)
        elif isinstance(k, (np.integer,)):
            items.append(int(k))
        else:
            items.append(np.asarray(k))
    out = []
    for k in items:
        if _is_array(k) and k.dtype.kind == "b":
            if type(k) is BatchedArray:  # one shape per sample (inside a kernel: once per sample)
                fail(BOOL_MASK_MESSAGE)
            if k.ndim == 0:  # x[True]: a new dim of size 1 (or 0)
                out.append(None if k else np.zeros(0, dtype=np.intp))
                continue
            out.extend(np.nonzero(k))
        else:
            out.append(k)
    consumed = sum(1 for k in out if k is not None and k is not Ellipsis)
    for i, k in enumerate(out):
        if k is Ellipsis:
            return out[:i] + [slice(None)] * (ndim - consumed) + [x for x in out[i + 1 :] if x is not Ellipsis]
    return out


class _Plan:
    """Where each piece of ``a[key]`` goes on the physical array."""

    __slots__ = ("key", "bdim", "perm", "ndim")


def _plan(items: list, level: int, batch: int, ndim: int) -> _Plan:
    """The physical key of ``items`` and the layout of the result: batch dim ``bdim`` then, when ``perm``
    is set, the transpose that gives the logical order with the batch dim first."""
    p = _Plan()
    p.perm = None
    arrays = [i for i, k in enumerate(items) if _is_array(k)]
    consumed = sum(1 for k in items if k is not None)
    trailing = ndim - consumed
    if not arrays:
        p.key = (slice(None),) + tuple(items)
        p.bdim = 0
        p.ndim = sum(1 for k in items if k is None or type(k) is slice) + trailing
        return p
    adv = [i for i, k in enumerate(items) if _is_array(k) or type(k) is int]
    adjacent = adv == list(range(adv[0], adv[-1] + 1))
    shapes = [np.shape(items[i]) for i in adv]
    m = len(np.broadcast_shapes(*shapes))
    basic = sum(1 for k in items if k is None or type(k) is slice) + trailing
    p.ndim = m + basic
    batched = [i for i in adv if type(items[i]) is BatchedArray and items[i].level == level]
    if not batched:
        p.key = (slice(None),) + tuple(items)
        p.bdim = 0 if adjacent else m
        return p
    key = [np.arange(batch).reshape((batch,) + (1,) * m)]
    for i, k in enumerate(items):
        if i in batched:
            v = move_front(k.value, k.bdim)
            if k.ndim < m:
                v = v[(slice(None),) + (None,) * (m - k.ndim)]
            key.append(v)
        else:
            key.append(k)
    p.key = tuple(key)
    p.bdim = 0
    if adjacent and adv[0] > 0:  # NumPy puts every advanced dim first; the logical result has them at adv[0]
        nb = adv[0]
        p.perm = (0,) + tuple(range(1 + m, 1 + m + nb)) + tuple(range(1, 1 + m)) + tuple(range(1 + m + nb, 1 + m + basic))
    return p


def _lift(fa, items: list, level: int):
    """Index arrays batched at lower levels than ``a``: broadcast ``a`` over those levels, so the indexing
    dispatches to their rules."""
    for k in items:
        if type(k) is BatchedArray and k.level < level and (type(fa) is not BatchedArray or fa.level < k.level):
            fa = BatchedArray(np.broadcast_to(fa, (k.batch_size,) + tuple(np.shape(fa))), 0, k.level)
    return fa


def getitem(a, key):
    keys = list(key) if type(key) is tuple else [key]
    level = max_level([a] + keys)
    if type(a) is BatchedArray and a.level == level:
        fa = move_front(a.value, a.bdim)
        batch = a.batch_size
    else:  # only the indices are batched here
        batch = next(k.batch_size for k in keys if type(k) is BatchedArray and k.level == level)
        fa = np.broadcast_to(a, (batch,) + tuple(np.shape(a)))
    items = _normalize(key, len(np.shape(a)))
    fa = _lift(fa, items, level)
    plan = _plan(items, level, batch, len(np.shape(a)))
    r = fa[plan.key]
    if plan.perm is not None:
        r = r.transpose(plan.perm)
    return BatchedArray(r, plan.bdim, level)


def _physical_values(values, plan: _Plan, level: int):
    """``values`` (broadcastable to the logical region) laid out as the physical region of ``plan``."""
    n = plan.ndim
    if type(values) is BatchedArray and values.level == level:
        v = move_front(values.value, values.bdim)
        if values.ndim < n:
            v = v[(slice(None),) + (None,) * (n - values.ndim)]
        if plan.perm is not None:
            v = v.transpose(np.argsort(plan.perm))
        elif plan.bdim:
            v = np.moveaxis(v, 0, plan.bdim)
        return v
    if plan.bdim == 0 and plan.perm is None:
        return values  # broadcasts over the batch dim in front
    nd = np.ndim(values)
    v = np.reshape(values, (1,) * (n - nd) + tuple(np.shape(values))) if nd < n else values
    v = np.expand_dims(v, 0)
    if plan.perm is not None:
        return v.transpose(np.argsort(plan.perm))
    return np.moveaxis(v, 0, plan.bdim)


def setitem(a, key, values) -> None:
    keys = list(key) if type(key) is tuple else [key]
    level = max_level([a, values] + keys)
    if type(a) is not BatchedArray or a.level != level:
        batch = next(k.batch_size for k in [values] + keys if type(k) is BatchedArray and k.level == level)
        unbatched_write(np.shape(a), batch)
    fa = move_front(a.value, a.bdim)
    if _mask_fill(fa, a, key, values, level):
        return
    items = _normalize(key, a.ndim)
    plan = _plan(items, level, a.batch_size, a.ndim)
    v = _physical_values(values, plan, level)
    if type(v) is BatchedArray and type(fa) is not BatchedArray:
        unbatched_write(a.shape, v.batch_size)
    fa[plan.key] = v


def _mask_fill(fa, a, key, values, level) -> bool:
    """``a[mask] = value`` with a mask per sample shaped as ``a`` and one value (a kernel's ``count[count == 0] = 1``):
    every sample at once on the physical arrays, the mask's batch dim moved as ``a``'s. False when not that form."""
    if not (type(key) is BatchedArray and key.level == level and key.dtype.kind == "b" and key.shape == a.shape
            and type(values) is not BatchedArray and np.ndim(values) == 0):
        return False
    mask = move_front(key.value, key.bdim)
    if type(mask) is not _ndarray or type(fa) is not _ndarray or mask.shape != fa.shape:
        return False
    fa[mask] = values
    return True


def ufunc_at(ufunc, inputs: tuple, level: int) -> None:
    a, key = inputs[0], inputs[1]
    if type(a) is not BatchedArray or a.level != level:
        batch = next(k.batch_size for k in list(inputs) + (list(key) if type(key) is tuple else [key])
                     if type(k) is BatchedArray and k.level == level)
        unbatched_write(np.shape(a), batch)
    fa = move_front(a.value, a.bdim)
    items = _normalize(key, a.ndim)
    plan = _plan(items, level, a.batch_size, a.ndim)
    if len(inputs) == 2:
        ufunc.at(fa, plan.key)
        return
    ufunc.at(fa, plan.key, _physical_values(inputs[2], plan, level))
