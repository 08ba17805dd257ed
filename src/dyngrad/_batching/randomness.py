"""Random ops on tensors batched by vmap: torch's randomness rules for ops that draw *for* a tensor (``bernoulli(p)``,
``bernoulli(x, 0.3)``, ``rand_like(x)``, the in-place fills ``x.normal_()``, ``x.bernoulli_(p)``) rather than for a
shape (the factories: ``_creation._vmap_draw``).

torch's batching rules (functorch's BatchRulesRandomness.cpp) run level by level, from the innermost vmap out: at each
level the tensor's batch dim moves to the front of its physical tensor (a view) and the op is called again on that
view, which the next vmap out batches in turn; the plain kernel finally runs on a view of the physical memory with
every batch dim in front (innermost level first in the call chain, lowest level first in the view). So the numbers
land where that kernel's walk of the memory puts them:

- an in-place fill (``random_inplace_batching_rule``) fills the view itself, in the order of its memory (the
  physical tensor's layout) and with its contiguity (torch's normal_ draws another way for a non-contiguous
  tensor); under "same" a level whose vmap batches the tensor fills a fresh contiguous tensor of the level's logical
  shape instead (one sample's numbers, copied to every sample); under "different" a level that does not batch the
  tensor is refused;
- ``rand_like`` and friends (``tensor_like_random_batch_rule``) draw for ``empty_like`` of the view (its strides
  kept when dense, the layout's order otherwise): under "same" sample 0's view, under "different" a tensor that the
  level does not batch expanded over it first;
- out-of-place ops of a tensor (``unary_pointwise_random_batch_rule``: ``bernoulli(p)``) draw for a contiguous
  tensor of the view's shape; a tensor batched by a "same" vmap is refused.

Here the same walk runs on the physical NumPy array, and the values come back batched as torch's do.
"""

from __future__ import annotations

import numpy as np

from .array import BatchedArray, add_level, levels, move_front

SAME_BATCHED_MESSAGE = (
    "Vmap does not currently support same randomness with a batched tensor input. Please file an issue with functorch"
)
UNBATCHED_INPLACE_MESSAGE = (
    "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will appear like same randomness. "
    "If this is necessary for your usage, please file an issue with functorch."
)


def _stack_innermost_first() -> list:
    """The active vmaps from the innermost out (the order torch's batching rules run in)."""
    from . import context

    return list(reversed(context.STATE.stack))


def _check(lv) -> None:
    if lv.randomness == "error":
        from . import context

        context._raise_randomness()


def _at_level(x, level: int):
    """(x's physical array at ``level`` with that batch dim first, True), or (x, False) when ``level`` does not batch
    ``x`` (its top wrapper, as the levels of ``x`` never exceed the active innermost one)."""
    if type(x) is BatchedArray and x.level == level:
        return move_front(x.value, x.bdim), True
    return x, False


def _pad_front(x, n: int):
    """``x`` (batch dim first, logical rank ``np.ndim(x) - 1``) with size-1 dims after the batch dim up to logical
    rank ``n`` (torch's maybePadToLogicalRank), so that it broadcasts against a tensor of rank ``n`` + 1."""
    k = np.ndim(x) - 1
    return x[(slice(None),) + (None,) * (n - k)] if k < n else x


def dense_strides(a):
    """The strides of ``empty_like(a)`` (preserve_format) when they are not contiguous: ``a``'s own when it is dense,
    else dense strides in the order of ``a``'s (torch's infer_dense_strides); None for contiguous."""
    from .. import _random_kernels as kernels

    if not a.ndim or a.flags.c_contiguous or not a.size:
        return None
    if kernels.is_dense(a):
        return a.strides
    strides = infer_dense_strides(a.shape, a.strides, a.itemsize)
    return None if strides == _contiguous(a.shape, a.itemsize) else strides


def _contiguous(shape, itemsize) -> tuple:
    out, step = [], itemsize
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def infer_dense_strides(shape, strides, itemsize) -> tuple:
    """torch's ``infer_dense_strides`` (TensorUtils.cpp): dense strides whose order follows ``strides``; a dim of
    stride 0 keeps its place, equal strides put the smaller size inner. An insertion sort, as torch's."""
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))  # innermost first

    def should_swap(d0, d1):
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, ndim):
        d1 = i
        for j in range(1, i + 1):
            d0 = i - j
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out = [0] * ndim
    step = itemsize
    for d in perm:
        out[d] = step
        step *= max(shape[d], 1)
    return tuple(out)


# ---------------------------------------------------------------------------------- in-place fills
def fill_for(data, fill, *others, refuse_nested: bool = False):
    """The values of an in-place random fill of the batched ``data`` (torch's random_inplace_batching_rule and
    bernoulli_'s, level by level): ``fill(view, *other_views)`` draws for a plain array ``view`` (a view of the
    physical memory with the batch dims first, or a fresh array under "same") in the order torch's kernel walks
    its memory; ``others`` (the probabilities of ``x.bernoulli_(p)``) go through the same moves. The result is laid
    out as the view (batched again), or plain where every sample gets the same numbers.

    ``refuse_nested``: torch's ``bernoulli_(float)`` refuses a "different" vmap with another vmap outside it (its
    rule reaches the outer level with a tensor that level does not batch)."""
    return _fill_levels(data, others, fill, _stack_innermost_first(), refuse_nested)


def _fill_levels(data, others, fill, stack, refuse_nested):
    if not stack:
        return fill(data, *others)
    lv, rest = stack[0], stack[1:]
    _check(lv)
    view, batched = _at_level(data, lv.level)
    if lv.randomness == "different":
        if not batched or (refuse_nested and rest):
            raise RuntimeError(UNBATCHED_INPLACE_MESSAGE)
        n = view.ndim - 1
        moved = []
        for o in others:
            o, o_batched = _at_level(o, lv.level)
            moved.append(_pad_front(o, n) if o_batched else o)
        return BatchedArray(_fill_levels(view, moved, fill, rest, refuse_nested), 0, lv.level)
    if batched:  # "same": one sample's numbers, drawn for a fresh tensor of the logical shape, copied to all
        if any(_at_level(o, lv.level)[1] for o in others):
            raise RuntimeError(SAME_BATCHED_MESSAGE)
        return _fill_levels(np.empty(data.shape, data.dtype), others, fill, rest, refuse_nested)
    return _fill_levels(data, others, fill, rest, refuse_nested)


# ---------------------------------------------------------------------------------- out-of-place ops
def sample_for(data, draw):
    """An out-of-place random op of the tensor ``data`` under vmap (torch's unary_pointwise_random_batch_rule,
    level by level): ``draw(array)`` (the op's plain kernel: numbers of the array's shape drawn contiguously) run on
    the physical array with every batch dim first, made contiguous, a tensor a "different" vmap does not batch
    expanded over it first; the result batched again; None when no vmap batches anything here (the caller's plain
    path then runs)."""
    stack = _stack_innermost_first()
    for lv in stack:
        _check(lv)
    have = levels(data)
    if any(lv.randomness == "same" and lv.level in have for lv in stack):
        raise RuntimeError(SAME_BATCHED_MESSAGE)
    different = [lv for lv in stack if lv.randomness == "different"]
    for lv in sorted(different, key=lambda lv: lv.level):
        if lv.level not in have:  # expanded over the vmap first, as torch's rule does (then drawn contiguously)
            data = add_level(np.broadcast_to(data[None], (lv.size,) + tuple(data.shape)), 0, lv.level)
    if type(data) is not BatchedArray:
        return None
    from .op_rules import _physical_front, _wrap_front

    front, order = _physical_front(data)
    return _wrap_front(draw(np.ascontiguousarray(front)), order)


def like_for(data, draw):
    """``rand_like(data)`` and friends under vmap (torch's tensor_like_random_batch_rule, level by level):
    ``draw(shape, strides)`` (numbers for an ``empty_like`` of that shape and strides, None for contiguous, in the
    order torch's kernel walks it) run for the view of the physical array with every batch dim first; under "same"
    a batched tensor's sample 0 stands for it, under "different" an unbatched one is expanded over the vmap."""
    return _like_levels(data, draw, _stack_innermost_first())


def _like_levels(data, draw, stack):
    if not stack:
        return draw(data.shape, dense_strides(data))
    lv, rest = stack[0], stack[1:]
    _check(lv)
    view, batched = _at_level(data, lv.level)
    if lv.randomness == "same":
        return _like_levels(view[0] if batched else view, draw, rest)
    if not batched:
        view = np.broadcast_to(view[None], (lv.size,) + tuple(view.shape))
    return BatchedArray(_like_levels(view, draw, rest), 0, lv.level)
