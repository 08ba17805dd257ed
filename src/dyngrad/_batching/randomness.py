"""Random ops on tensors batched by vmap: torch's randomness rules for ops that draw *for* a tensor (``bernoulli(p)``,
``bernoulli(x, 0.3)``, the in-place fills ``x.normal_()``, ``x.bernoulli_(p)``) rather than for a shape (the factories:
``_creation._vmap_draw``).

torch's batching rules (functorch's BatchRulesRandomness.cpp) run such an op once on the *physical* tensor, so under
``randomness="different"`` every sample gets its own numbers: an out-of-place op draws for the physical tensor with
its batch dims moved to the front (contiguous), an in-place fill draws in the order torch's kernel walks the physical
tensor's memory; here the plain kernel runs on the physical array the same way and its result is batched again. A tensor that a "different" vmap does not batch is expanded over it first (out-of-place ops; an in-place fill
of such a tensor is refused, as torch refuses it); a tensor batched by a "same" vmap is refused by the out-of-place
ops; "error" refuses all.
"""

from __future__ import annotations

import numpy as np

from .array import BatchedArray, from_layout, layout, levels, physical

SAME_BATCHED_MESSAGE = (
    "Vmap does not currently support same randomness with a batched tensor input. Please file an issue with functorch"
)
UNBATCHED_INPLACE_MESSAGE = (
    "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will appear like same randomness. "
    "If this is necessary for your usage, please file an issue with functorch."
)


def _levels_by_kind():
    """(levels of "different" vmaps, levels of "same" vmaps) of the active vmaps; "error" raises torch's error."""
    from . import context

    stack = context.STATE.stack
    if any(lv.randomness == "error" for lv in stack):
        context._raise_randomness()
    return [lv for lv in stack if lv.randomness == "different"], [lv for lv in stack if lv.randomness == "same"]


def dense_strides(a):
    """The strides of ``empty_like(a)`` (preserve_format): ``a``'s own when it is dense, else None (contiguous)."""
    from .. import _random_kernels as kernels

    if a.ndim and not a.flags.c_contiguous and a.size and kernels.is_dense(a):
        return a.strides
    return None


def sample_for(data, draw):
    """An out-of-place random op of the tensor ``data`` under vmap: ``draw(array)`` (the op's plain kernel, numbers
    of the array's shape drawn in the order of ``dense_strides(array)``) run on the physical array with its batch
    dims first (contiguous), the result batched again; None when no vmap batches anything here (the caller's plain
    path then runs)."""
    different, same = _levels_by_kind()
    have = levels(data)
    if any(lv.level in have for lv in same):
        raise RuntimeError(SAME_BATCHED_MESSAGE)
    from .array import add_level

    for lv in sorted(different, key=lambda lv: lv.level):
        if lv.level not in have:  # expanded over the vmap first, as torch's rule does (then drawn contiguously)
            data = add_level(np.broadcast_to(data[None], (lv.size,) + tuple(data.shape)), 0, lv.level)
    if type(data) is not BatchedArray:
        return None
    # torch's rule moves the batch dims to the front and draws for that contiguous tensor
    from .op_rules import _physical_front, _wrap_front

    front, order = _physical_front(data)
    return _wrap_front(draw(np.ascontiguousarray(front)), order)


def refuse_same(data) -> None:
    """torch's error for a tensor argument of a random op batched by a "same" vmap."""
    _different, same = _levels_by_kind()
    have = levels(data)
    if any(lv.level in have for lv in same):
        raise RuntimeError(SAME_BATCHED_MESSAGE)


def fill_for(data, fill):
    """An in-place random fill of the tensor ``data`` under vmap: ``fill(array)`` (values for the array, drawn in
    the order torch's kernel walks its memory) run on the physical array, laid out as ``data``; None for "same"
    vmaps only (the caller's plain path: one sample's numbers for every sample)."""
    different, _same = _levels_by_kind()
    if not different:
        return None
    have = levels(data)
    if any(lv.level not in have for lv in different):
        raise RuntimeError(UNBATCHED_INPLACE_MESSAGE)
    return from_layout(fill(physical(data)), layout(data))


def aligned_physical(values, data):
    """``values`` (a tensor's array broadcast against the batched ``data``) as an array laid out as ``data``'s
    physical array (the probabilities of ``x.bernoulli_(p)``)."""
    from .tensors import physical_layout

    values = np.broadcast_to(values, tuple(data.shape))
    return physical_layout(values, layout(data), levels(data))
