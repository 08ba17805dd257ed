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

from .._dtype import FLOATING_KINDS
from .array import BatchedArray, BatchingFallback, levels, refuse

RULES: dict = {}


def plain():
    """A kernel run on physical arrays allocates plain arrays (Note [Batched scratch arrays] in context.py)."""
    from .context import allocating

    return allocating(None)


def _index_forward(op, arrays, params):
    (a,) = arrays
    key = params[0]
    for k in key if type(key) is tuple else (key,):
        if type(k) is BatchedArray and k.dtype.kind == "b" and _user_call():  # x[mask] with a mask per sample
            from .rules_indexing import BOOL_MASK_MESSAGE

            refuse(BOOL_MASK_MESSAGE)
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
    with plain():
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


def _physical_front(a):
    """(array with every batch level of ``a`` first, lowest level first; those levels)."""
    order = sorted(levels(a))
    v = a
    for lv in reversed(order):
        v = _front_level(v, lv, np.ndim(v))
    return v, order


def _wrap_front(out, order):
    for lv in order:
        out = BatchedArray(out, 0, lv)
    return out


def _dims_first(op, arrays, params):
    """An op of one array transforming along the dims of its first parameter (the FFTs): every batch level
    goes first and those dims move past them."""
    (a,) = arrays
    if type(a) is not BatchedArray or a.ndim == 0:
        return op.forward(a, *params)
    n = a.ndim
    phys, order = _physical_front(a)
    k = len(order)
    dims = tuple((d % n) + k for d in params[0])
    with plain():
        return _wrap_front(op.forward(phys, dims, *params[1:]), order)


def _axis_first(op, arrays, params):
    """An op of one array working along the axis of its first parameter (softmax, log_softmax): every batch
    level goes first and the axis moves past them; a cache list the kernel fills gets batched values too."""
    (a,) = arrays
    if type(a) is not BatchedArray or a.ndim == 0:  # (a 0-d input: the kernel's own case, through dispatch)
        return op.forward(a, *params)
    n = a.ndim
    phys, order = _physical_front(a)
    axis = (params[0] % n) + len(order)
    with plain():
        out = op.forward(phys, axis, *params[1:])
    for p in params[1:]:
        if type(p) is list and p:  # (the softmax a log_softmax leaves for its backward)
            p[:] = [_wrap_front(x, order) for x in p]
    return _wrap_front(out, order)


def _axis_first_pair(op, arrays, params):
    """A (values, indices) reduction of one array along the axis of its first parameter whose kernel runs row
    by row (mode): every batch level goes first, the axis past them, and both results keep the levels."""
    (a,) = arrays
    if type(a) is not BatchedArray or a.ndim == 0:
        return op.forward(a, *params)
    phys, order = _physical_front(a)
    axis = (params[0] % a.ndim) + len(order)
    with plain():
        outs = op.forward(phys, axis, *params[1:])
    return tuple(_wrap_front(o, order) for o in outs)


def _all_levels_front(arrays):
    """Each array with every batch level of any of them first (lowest level first), broadcast to their sizes
    (None stays None); and the levels and sizes."""
    sizes: dict = {}
    for a in arrays:
        sizes.update(levels(a))
    order = sorted(sizes)
    lead = tuple(sizes[lv] for lv in order)
    out = []
    for a in arrays:
        if a is None:
            out.append(None)
            continue
        v = a
        for lv in reversed(order):
            v = _front_level(v, lv, np.ndim(v))
        out.append(np.broadcast_to(v, lead + tuple(np.shape(v)[len(order):])))
    return out, order, lead


def _first_dim_batch(op, arrays, params):
    """An op of one array whose first dim is a batch of independent items (im2col, col2im): the batch levels
    fold into it, the kernel runs once, and they unfold from its result."""
    (a,) = arrays
    if type(a) is not BatchedArray:
        return op.forward(a, *params)
    (v,), order, lead = _all_levels_front([a])
    k = len(lead)
    with plain():
        out = op.forward(v.reshape((-1,) + v.shape[k + 1:]), *params)
    return _wrap_front(out.reshape(lead + (v.shape[k],) + out.shape[1:]), order)


def _first_dims_batch(op, arrays, params):
    """An op of several arrays that share a first dim N of independent items (grid_sampler's input and grid): the
    batch levels fold into N (an array one level does not batch is expanded over it, as torch's rule does), the
    kernel runs once, and they unfold from its result."""
    if not any(type(a) is BatchedArray for a in arrays):
        return op.forward(*arrays, *params)
    phys, order, lead = _all_levels_front(arrays)
    k = len(lead)
    n = phys[0].shape[k]
    with plain():
        out = op.forward(*[p.reshape((-1,) + p.shape[k + 1:]) for p in phys], *params)
    return _wrap_front(out.reshape(lead + (n,) + out.shape[1:]), order)


def _convolution(op, arrays, params):
    """convolution(x, w, b): the batch levels fold into the input's batch dim when the weight and bias are the
    same for every sample; a weight per sample (an ensemble) becomes groups of one convolution, as torch's
    batching rule does: samples side by side in the channels, one group each."""
    x, w, b = arrays
    if not any(type(t) is BatchedArray for t in arrays):
        return op.forward(x, w, b, *params)
    stride, pad, dilation, transposed, output_padding, groups, nd, cache = params
    shared = all(t is None or type(t) is not BatchedArray for t in (w, b))
    (px, pw, pb), order, lead = _all_levels_front([x, w, b])
    k, s = len(lead), int(np.prod(lead))
    with plain():
        if shared:
            out = op.forward(px.reshape((-1,) + px.shape[k + 1:]), w, b, *params)
            out = out.reshape(lead + (px.shape[k],) + out.shape[1:])
        else:
            n, c = px.shape[k], px.shape[k + 1]
            xg = np.moveaxis(px.reshape((s,) + px.shape[k:]), 0, 1).reshape((n, s * c) + px.shape[k + 2:])
            wg = pw.reshape((s * pw.shape[k],) + pw.shape[k + 1:])
            bg = None if pb is None else pb.reshape(-1)
            out = op.forward(xg, wg, bg, stride, pad, dilation, transposed, output_padding, groups * s, nd, None)
            out = np.moveaxis(out.reshape((n, s, -1) + out.shape[2:]), 1, 0).reshape(lead + (n, -1) + out.shape[2:])
    if cache is not None:
        cache[:] = []  # (windows of the folded input: the batched node's formula takes its own)
    return _wrap_front(out, order)


def _nanmedian_all(op, arrays, params):
    """nanmedian over all elements: each sample's values sorted (NaNs last), its lower median picked at its own
    count of non-NaN values."""
    (a,) = arrays
    if type(a) is not BatchedArray:
        return op.forward(a, *params)
    (v,), order, lead = _all_levels_front([a])
    flat = v.reshape(lead + (-1,))
    if flat.shape[-1] == 0:
        return _wrap_front(np.full(lead, np.nan, dtype=a.dtype), order)
    s = np.sort(flat, axis=-1)
    if flat.dtype.kind in FLOATING_KINDS:
        k = np.count_nonzero(~np.isnan(flat), axis=-1)
    else:
        k = np.full(lead, flat.shape[-1])
    picked = np.take_along_axis(s, np.maximum((k - 1) // 2, 0)[..., None], axis=-1)[..., 0]
    out = np.where(k == 0, np.nan, picked).astype(a.dtype)
    return _wrap_front(out, order)


MASKED_SELECT_MESSAGE = (
    "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot support this because for each "
    "batch this would return a differently shaped Tensor. Please file an issue at "
    "https://github.com/pytorch/pytorch/issues if you need this feature."
)


def _user_call() -> bool:
    """Whether the op runs for the user's own call (not inside another op's formula, where a loop is fine)."""
    from .array import STATE

    return STATE.kernel == 1


def _masked_select_forward(op, arrays, params):
    if type(params[0]) is BatchedArray:
        if _user_call():
            refuse(MASKED_SELECT_MESSAGE)
        raise BatchingFallback("masked_select")
    return op.forward(*arrays, *params)


def _masked_scatter(op, arrays, params):
    """masked_scatter with a mask per sample: the k-th True position of a sample takes that sample's k-th
    source element (a cumulative count of the mask), so every sample is done at once."""
    a, source = arrays
    mask, shape, src_shape = params
    if not any(type(t) is BatchedArray for t in (a, source, mask)):
        return op.forward(a, source, mask, shape, src_shape)
    sizes: dict = {}
    for t in (a, source, mask):
        sizes.update(levels(t))
    order = sorted(sizes)
    lead = tuple(sizes[lv] for lv in order)
    (pa, ps, pm), _, _ = _all_levels_front([np.broadcast_to(a, shape), source, np.broadcast_to(mask, shape)])
    flat_m = pm.reshape(lead + (-1,))
    src = ps.reshape(lead + (-1,))
    counts = np.count_nonzero(flat_m, axis=-1)
    if src.shape[-1] < (counts.max() if counts.size else 0):
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    idx = np.clip(np.cumsum(flat_m, axis=-1) - 1, 0, max(src.shape[-1] - 1, 0))
    values = np.take_along_axis(src, idx, axis=-1) if src.shape[-1] else np.zeros_like(idx, dtype=src.dtype)
    out = np.where(flat_m, values, pa.reshape(lead + (-1,))).reshape(pa.shape)
    return _wrap_front(out, order)


def _clone(op, arrays, params):
    """clone() of a batched tensor (torch's clone_batch_rule): under preserve_format a copy of the physical array
    in its own layout (as empty_like keeps strides), each batch dim where it was, so that a random fill of the copy
    walks the memory as torch's does; ``contiguous()`` / ``clone(memory_format=torch.contiguous_format)`` move the
    batch dims to the front (torch's rule for contiguous_format)."""
    (a,) = arrays
    if type(a) is not BatchedArray:
        return op.forward(a, *params)
    asked = _asked_contiguous()
    if asked == "clone" or (asked == "contiguous" and not _logically_contiguous(a)):
        return op.forward(a, *params)  # a C-ordered copy, batch dims first
    from .array import from_layout, layout, physical

    return from_layout(copy_in_layout(physical(a)), layout(a))


def copy_in_layout(p):
    """A copy of the array ``p`` whose memory is laid out in the order of ``p``'s strides (torch's empty_like under
    preserve_format: the same strides for a dense array), as a view of a C-contiguous array (so that as_strided
    finds its storage as torch's)."""
    from .._random_kernels import iteration_order

    order = iteration_order(p.shape, p.strides)
    if order == tuple(range(p.ndim)):
        return np.array(p, copy=True, order="C")
    return np.array(p.transpose(order), copy=True, order="C").transpose(np.argsort(order))


def _logically_contiguous(a) -> bool:
    """torch's ``is_contiguous()`` of a batched tensor: its logical strides (the physical ones without any batch
    dim) are C-contiguous, dims of size 1 aside; then ``contiguous()`` keeps the layout (torch returns the tensor)."""
    step = a.itemsize
    for n, st in zip(reversed(a.shape), reversed(a.strides)):
        if n != 1:
            if st != step:
                return False
            step *= n
    return True


def _asked_contiguous():
    """What asked the clone running for contiguous memory: "contiguous" (``contiguous()``), "clone"
    (``clone(memory_format=torch.contiguous_format)``) or None (CloneBackward0 has no parameter saying it; found from
    the frames)."""
    import sys

    from .._tensor import contiguous_format

    f = sys._getframe(2)
    while f is not None and f.f_globals.get("__name__", "").startswith("dyngrad."):
        name = f.f_code.co_name
        if name == "contiguous":
            return "contiguous"
        if name == "clone" and f.f_locals.get("memory_format") is contiguous_format:
            return "clone"
        f = f.f_back
    return None


def _torch_loops(op, arrays, params):
    """An op torch's vmap has no rule for (it runs the op once per sample, with its performance warning): the
    same loop and warning (fill with a number or a 0-d tensor, embedding_bag)."""
    from .array import max_level
    from .dispatch import loop_forward

    level = max(max_level(arrays), max_level(params))
    if level < 0:
        return op.forward(*arrays, *params)
    return loop_forward(op, arrays, params, level)


def registry_op(name: str) -> type:
    from .._ops import registry

    return registry.REGISTRY[name]


def load() -> dict:
    from .._ops import indexing

    for name in ("SelectBackward0", "SliceBackward0", "AliasBackward0", "IndexBackward0"):
        RULES[getattr(indexing, name)] = _index_forward
    RULES[indexing._UnsqueezeIndex] = _index_forward
    RULES[indexing.IndexPutBackward] = _index_put_forward
    RULES[indexing.MaskedSelectBackward0] = _masked_select_forward
    RULES[indexing.MaskedScatterBackward0] = _masked_scatter
    from .._ops import fft

    for name in ("FftC2CBackward0", "FftR2CBackward0", "FftC2RBackward0"):
        RULES[getattr(fft, name)] = _dims_first
    from .._ops import nn_kernels

    for name in ("SoftmaxBackward0", "LogSoftmaxBackward0"):
        RULES[getattr(nn_kernels, name)] = _axis_first
    from .._ops import conv

    RULES[conv.ConvolutionBackward0] = _convolution
    from .._ops import sorting

    RULES[sorting.NanmedianBackward0] = _nanmedian_all
    RULES[sorting.ModeBackward0] = _axis_first_pair
    from .._ops import embedding_bag, grid_sample, shape_extras

    for op in (shape_extras.FillBackward0, shape_extras.FillBackward1, embedding_bag.EmbeddingBagBackward0):
        RULES[op] = _torch_loops

    RULES[grid_sample.GridSampler2DBackward0] = _first_dims_batch
    RULES[grid_sample.GridSampler3DBackward0] = _first_dims_batch
    RULES[registry_op("CloneBackward0")] = _clone
    RULES[conv.Im2ColBackward0] = _first_dim_batch
    RULES[conv.Col2ImBackward0] = _first_dim_batch
    _load_elementwise()
    return RULES


def _load_elementwise() -> None:
    """The elementwise ops whose kernels select elements by value (found by the op table test), and the
    elementwise array helpers other kernels call (``_sigmoid`` in glu's): both run on physical arrays."""
    import importlib

    from .._ops import registry

    for name in ELEMENTWISE:
        op = registry.REGISTRY.get(name)
        if op is not None:
            RULES[op] = _elementwise
    for module_name, names in ELEMENTWISE_HELPERS.items():
        module = importlib.import_module(module_name)
        for name in names:
            fn = getattr(module, name, None)
            if fn is not None and not getattr(fn, "_batched_helper", False):
                setattr(module, name, _elementwise_helper(fn))


def _elementwise_helper(fn):
    """``fn`` (an elementwise function of one array) on a batched array: run on its physical array, the
    result laid out as the input (every element is computed on its own, wherever its sample is)."""
    from .array import from_layout, layout, physical

    def helper(a, *args, **kwargs):
        if type(a) is not BatchedArray:
            return fn(a, *args, **kwargs)
        with plain():
            return from_layout(fn(physical(a), *args, **kwargs), layout(a))

    helper.__name__ = fn.__name__
    helper.__doc__ = fn.__doc__
    helper._batched_helper = True
    return helper


# Elementwise helpers of one array that kernels call and that pick elements by value; the batched
# dispatcher wraps them at its first use (see _elementwise_helper).
ELEMENTWISE_HELPERS = {
    "dyngrad._ops.pointwise": ("_sigmoid",),
    "dyngrad._ops.activations": ("_sigmoid",),  # silu's kernel
    "dyngrad._ops.special": ("erf", "erfc", "erfinv"),
}


# Ops whose kernels work element by element but pick elements by their values (flatnonzero, masks),
# which no array rule can batch: their kernels run once on the physical arrays.
ELEMENTWISE = (
    "SigmoidBackward0", "SigmoidBackwardBackward0", "ErfBackward0", "ErfcBackward0", "LogSigmoidBackward0",
    "SoftplusBackward0", "GeluBackward0", "SiluBackward0", "MishBackward0",
    "LgammaBackward0", "DigammaBackward0", "PolygammaBackward0", "MvlgammaBackward0", "ErfinvBackward0",
    "IgammaBackward0", "IgammacBackward0", "SpecialNdtriBackward0", "SpecialLogNdtrBackward0",
    "SpecialErfcxBackward0", "SpecialZetaBackward0", "SpecialZetaBackward1", "SpecialZetaBackward2",
    "SpecialI0EBackward0", "SpecialI1Backward0", "SpecialI1EBackward0", "I0Backward0", "SpecialEntrBackward0",
    "StandardGammaGradBackward0",
)


def run_folded(fn, arrays):
    """``fn(*arrays)`` for a kernel on plain arrays whose first dim (of one length in every array) indexes
    independent problems and that walks them one by one (LAPACK-style code written in Python): under vmap every
    batch level folds into that dim, the kernel runs once on plain arrays, and its results (a tuple, or one
    array, each with that first dim) unfold into batched arrays."""
    from .array import max_level

    if max_level(arrays) < 0:
        return fn(*arrays)
    phys, order, lead = _all_levels_front(arrays)
    k = len(lead)
    folded = [None if p is None else p.reshape((-1,) + p.shape[k + 1:]) for p in phys]
    with plain():
        outs = fn(*folded)

    def unfold(o):
        return _wrap_front(o.reshape(lead + (-1,) + o.shape[1:]), order)

    return tuple(unfold(o) for o in outs) if type(outs) is tuple else unfold(outs)
