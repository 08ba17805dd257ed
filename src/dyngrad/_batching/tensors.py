"""Batched tensors: a tensor whose ``_data`` is a ``BatchedArray``.

Note [Autograd under vmap is physical]
As in torch, where the autograd of a vmapped function records the ops on the physical tensors,
a batched tensor's autograd identity (``_grad_fn``, ``_output_nr``, ``_requires_grad``, ``_vc``,
its leaf's ``AccumulateGrad``) is the one of its innermost physical array: every node records the
physical shapes of its outputs (``_meta``), and the engine only ever moves physical gradients.
A node recorded on batched values (``dispatch.batched_node``) wraps the incoming physical
gradients into batched ones, runs its op's own backward formula on them, and lays the results
out as its inputs' physical arrays (summing over a batch level an input did not have,
broadcasting over one the gradient lacks). So ``vmap(f)(x).sum().backward()`` works outside the
vmap, ``grad`` inside ``vmap`` gives per-sample gradients, and ``create_graph`` records the backward
of batched nodes as batched nodes again, to any order.

Adding or removing a level is only a new way to read the same physical array, so the tensors on
either side share that identity; moving a batch dim where a caller wants it is a recorded op
(``movedim``, ``sum``, ``expand``), as torch's vmap records ``movedim`` on its outputs.
"""

from __future__ import annotations

from .._tensor import Tensor, wrap
from ..autograd.grad_mode import _state
from .array import BatchedArray, add_level, levels, move_front, remove_level

_new = object.__new__


def share_identity(src: Tensor, data, tangent=None) -> Tensor:
    """A tensor of ``data`` (another reading of ``src``'s physical array) with ``src``'s autograd identity;
    ``tangent``: its forward-AD tangent, read the same way (the caller's business)."""
    t = _new(Tensor)
    t._data = data
    t._requires_grad = src._requires_grad
    t._vc = src._vc
    fn = src._grad_fn
    if fn is not None:
        t._grad_fn = fn
        t._output_nr = src._output_nr
    elif src._requires_grad:  # a leaf: both readings accumulate into the one leaf
        from .._ops.registry import grad_accumulator

        acc = grad_accumulator(src)
        t._accumulator = src._accumulator
        t._keep_accumulator = acc
    if tangent is not None:
        from ..autograd.forward_ad import _register

        _register(t, tangent)
    return t


def add_batch_level(t: Tensor, dim: int, level: int) -> Tensor:
    """``t`` with its dim ``dim`` read as the batch dim of ``level``."""
    tan = t._fw_grad
    if tan is not None:
        tan = _diagonal_level(tan, dim, level) if level in levels(tan._data) else add_batch_level(tan, dim, level)
    return share_identity(t, add_level(t._data, dim, level), tan)


def _diagonal_level(t: Tensor, dim: int, level: int) -> Tensor:
    """``t`` (already batched at ``level``) with its dim ``dim`` also read as that level: sample b takes entry b
    of dim ``dim`` (a tangent batched by a vmap around a transform that batches its primal there too)."""
    u, p = strip_level(t, level)
    d = dim if dim < p else dim + 1
    return add_batch_level(u.diagonal(0, p, d).movedim(-1, 0), 0, level)


def strip_level(t: Tensor, level: int):
    """(u, p): ``t`` without the batch level ``level``, which is dim ``p`` of ``u`` (same physical array)."""
    data, p = remove_level(t._data, level)
    tan = t._fw_grad
    if tan is not None:  # the tangent laid out as the value: its own batch dim of ``level`` at p
        size = data.shape[p]
        if level in levels(tan._data):
            tan, q = strip_level(tan, level)
            if q != p:
                tan = tan.movedim(q, p)
        else:
            shape = list(tan.shape)
            shape.insert(p, size)
            tan = tan.unsqueeze(p).expand(shape)
    return share_identity(t, data, tan), p


def to_logical(g: Tensor, lay: tuple) -> Tensor:
    """A physical gradient read through the layout ``lay`` ((level, bdim) outermost first) of the value it
    belongs to; batch levels ``g`` already has (a vmap over the backward itself) stay outside."""
    if not lay:
        return g
    tan = g._fw_grad
    data = g._data
    for level, bdim in reversed(lay):
        data = add_level(data, bdim, level)
    return share_identity(g, data, None if tan is None else to_logical(tan, lay))


def to_physical(g: Tensor, lay: tuple, own: dict) -> Tensor:
    """The logical gradient ``g`` laid out as the physical array of an input of layout ``lay``.

    ``own``: {level: size} of the node's batch levels. A level of ``own`` the input lacks is summed
    (the input was broadcast over it); one ``g`` lacks is broadcast (the gradient is the same for every
    sample); other levels of ``g`` (vmaps around the backward) stay batched.
    """
    data = g._data
    if type(data) is not BatchedArray and not lay:
        return g
    if not _state.enabled:
        return wrap(physical_layout(data, lay, own))
    have = levels(data)
    wanted = {lv for lv, _ in lay}
    for lv in have:
        if lv in own and lv not in wanted:
            g, p = strip_level(g, lv)
            g = g.sum(p)
    for lv, b in lay:
        if lv in levels(g._data):
            g, p = strip_level(g, lv)
            if p != b:
                g = g.movedim(p, b)
        else:
            shape = list(g.shape)
            shape.insert(b, own[lv])
            g = g.unsqueeze(b).expand(shape)
    return g


def physical_layout(data, lay: tuple, own: dict):
    """``to_physical`` on arrays (no graph to record)."""
    import numpy as np

    have = levels(data)
    wanted = {lv for lv, _ in lay}
    for lv in have:
        if lv in own and lv not in wanted:
            data, p = remove_level(data, lv)
            data = np.add.reduce(data, axis=p)
    for lv, b in lay:
        if type(data) is BatchedArray and lv in levels(data):
            data, p = remove_level(data, lv)
            if p != b:
                data = np.moveaxis(data, p, b)
        else:
            shape = list(np.shape(data))
            shape.insert(b, own[lv])
            data = np.broadcast_to(np.expand_dims(data, b), tuple(shape))
    return data


def unbatch_output(t: Tensor, level: int, size: int, out_dim: int) -> Tensor:
    """What vmap returns for ``t``: its batch dim of ``level`` moved to ``out_dim`` (recorded as torch records
    its ``movedim``), or ``t`` expanded along a new ``out_dim`` when it is the same for every sample."""
    data = t._data
    if type(data) is BatchedArray and level in levels(data):
        u, p = strip_level(t, level)
        if p != out_dim:
            return u.movedim(p, out_dim)
        return u
    shape = list(t.shape)
    shape.insert(out_dim, size)
    return t.unsqueeze(out_dim).expand(shape)


def front_array(data, level: int):
    """The physical array of ``data`` at ``level`` with the batch dim first."""
    return move_front(data.value, data.bdim)


def expand_over(t: Tensor, wanted: dict) -> Tensor:
    """``t`` broadcast over every batch level of ``wanted`` ({level: size}) it lacks (recorded when ``t``
    requires grad): differentiating a batched output with respect to it then gives each sample's own
    gradient instead of their sum."""
    have = levels(t._data)
    for lv in sorted(wanted):
        if lv not in have:
            size = wanted[lv]
            t = add_batch_level(t.unsqueeze(0).expand((size,) + tuple(t.shape)), 0, lv)
    return t


def levels_of(tensors) -> dict:
    out: dict = {}
    for t in tensors:
        if isinstance(t, Tensor):
            out.update(levels(t._data))
    return out


def batched_as(like: Tensor, t: Tensor) -> Tensor:
    """``t`` (a new tensor made by ``like.new_zeros(...)``, ``new_ones``, ``new_empty``, ``new_full``) batched over
    every vmap level of ``like``, its values repeated for each sample: torch's batching rule for the new_* factories
    (BatchRulesFactory.cpp's NEW_BLAH_BATCH_RULE) makes a tensor of the batch size in front of the requested shape,
    so the result is a batched tensor (in-place ops and "different" random fills work on it per sample)."""
    import numpy as np

    have, own = levels(like._data), levels(t._data)
    missing = sorted(lv for lv in have if lv not in own)  # (a backward's scratch allocation may be batched already)
    if not missing:
        return t
    data = t._data
    if type(data) is not BatchedArray:
        data = np.ascontiguousarray(np.broadcast_to(data, tuple(have[lv] for lv in missing) + data.shape))
        for lv in missing:  # the lowest level's batch dim first
            data = BatchedArray(data, 0, lv)
    else:
        for lv in missing:
            data = add_level(np.broadcast_to(data[None], (have[lv],) + tuple(data.shape)), 0, lv).copy()
    t._data = data
    return t


def copy_keeping_layout(data):
    """A copy of the batched array ``data`` on a physical array laid out as its own (batch dims where they are)."""
    from .array import from_layout, layout, physical
    from .op_rules import copy_in_layout

    return from_layout(copy_in_layout(physical(data)), layout(data))


def output_as(node, output_nr: int, data) -> None:
    """An in-place op wrote its result into the batched array ``data`` and ``node`` becomes its history: the
    node's output ``output_nr`` takes the layout of ``data`` (the gradients of its consumers come laid out as
    ``data``'s physical array, whatever layout the op's own output had)."""
    from .array import layout, physical

    out_layouts = getattr(node, "_out_layouts", None)
    if out_layouts is None:
        return
    lay = layout(data)
    if out_layouts[output_nr] == lay:
        return
    p = physical(data)
    node._out_layouts = out_layouts[:output_nr] + (lay,) + out_layouts[output_nr + 1:]
    meta = node._meta
    node._meta = meta[:output_nr] + ((p.shape, meta[output_nr][1]),) + meta[output_nr + 1:]
