"""Batching rules for whole ops (``dispatch.OP_RULES``), where running the op's own kernel on batched
arrays is not the best way: see Note [Batching at the array level] in dispatch.py.

- indexing (``x[key]`` and its backward): the kernel's handling of NumPy scalars and its scatter into a
  fresh array of zeros are replaced by the batched indexing rules and a batched array of zeros;
- elementwise ops whose kernels branch on values element by element (special functions: their
  kernels pick elements with ``flatnonzero``): the kernel runs once on the physical arrays, every input
  aligned with the batch dim first, because an elementwise kernel does not care where samples begin.
"""

from __future__ import annotations

import numpy as np

from .array import BatchedArray, levels, refuse

RULES: dict = {}


def _index_forward(op, arrays, params):
    (a,) = arrays
    key = params[0]
    try:
        return a[key]
    except IndexError as e:
        if "too many indices" in str(e):
            raise IndexError(f"too many indices for tensor of dimension {a.ndim}") from None
        raise IndexError(str(e).replace("axis", "dimension")) from None


def batched_zeros(shape, dtype, like: dict):
    """Zeros of the logical ``shape`` batched over the levels of ``like`` ({level: size})."""
    order = sorted(like)
    out = np.zeros(tuple(like[lv] for lv in order) + tuple(shape), dtype=dtype)
    for lv in order:  # the lowest level's batch dim is the first one
        out = BatchedArray(out, 0, lv)
    return out


def _index_put_forward(op, arrays, params):
    from .._backend import index_add

    (g,) = arrays
    key, shape, advanced = params
    like = dict(levels(g))
    for k in key if type(key) is tuple else (key,):
        like.update(levels(k))
    out = batched_zeros(shape, g.dtype, like)
    if advanced is True:
        index_add(out, key, g)
    else:
        out[key] = g
    return out


def _elementwise(op, arrays, params):
    """An elementwise op's kernel on physical arrays: every batched input with all its levels' dims first
    (in one order) and size-1 dims up to the common rank, so that plain broadcasting lines samples up."""
    all_levels: dict = {}
    for a in arrays:
        all_levels.update(levels(a))
    order = sorted(all_levels)
    n = max(np.ndim(a) for a in arrays)
    phys = []
    for a in arrays:
        if type(a) is not BatchedArray:
            phys.append(a)
            continue
        v = a
        for lv in reversed(order):  # outermost (highest) level first: front() of each in turn
            v = _front_level(v, lv, n)
        phys.append(v)
    out = op.forward(*phys, *params)
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    for lv in order:
        out = BatchedArray(out, 0, lv)
    return out


def _front_level(x, level, n):
    """``x`` with the batch dim of ``level`` first (size 1 when ``x`` lacks it), aligned to rank ``n``."""
    if type(x) is BatchedArray and level in levels(x):
        from .array import move_front, remove_level

        v, p = remove_level(x, level)
        v = move_front(v, p) if type(v) is np.ndarray else np.moveaxis(v, p, 0)
        k = np.ndim(v) - 1
        return v[(slice(None),) + (None,) * (n - k)] if k < n else v
    k = np.ndim(x)
    return np.reshape(x, (1,) + (1,) * (n - k) + tuple(np.shape(x)))


MASKED_SELECT_MESSAGE = (
    "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot support this because for each "
    "batch this would return a differently shaped Tensor. Please file an issue at "
    "https://github.com/pytorch/pytorch/issues if you need this feature."
)


def _masked_select_forward(op, arrays, params):
    if type(params[0]) is BatchedArray:
        refuse(MASKED_SELECT_MESSAGE)
    return op.forward(*arrays, *params)


def load() -> dict:
    from .._ops import indexing

    for name in ("SelectBackward0", "SliceBackward0", "AliasBackward0", "IndexBackward0"):
        RULES[getattr(indexing, name)] = _index_forward
    RULES[indexing._UnsqueezeIndex] = _index_forward
    RULES[indexing.IndexPutBackward] = _index_put_forward
    RULES[indexing.MaskedSelectBackward0] = _masked_select_forward
    _load_elementwise()
    return RULES


def _load_elementwise() -> None:
    """The elementwise ops whose kernels select elements by value (found by the op table test)."""
    from .._ops import registry

    for name in ELEMENTWISE:
        op = registry.REGISTRY.get(name)
        if op is not None:
            RULES[op] = _elementwise


# Ops whose kernels work element by element but pick elements by their values (flatnonzero, masks),
# which no array rule can batch: their kernels run once on the physical arrays.
ELEMENTWISE = (
    "LgammaBackward0", "DigammaBackward0", "PolygammaBackward0", "MvlgammaBackward0", "ErfinvBackward0",
    "IgammaBackward0", "IgammacBackward0", "SpecialNdtriBackward0", "SpecialLogNdtrBackward0",
    "SpecialErfcxBackward0", "SpecialZetaBackward0", "SpecialZetaBackward1", "SpecialZetaBackward2",
    "SpecialI0EBackward0", "SpecialI1Backward0", "SpecialI1EBackward0", "I0Backward0", "SpecialEntrBackward0",
)
