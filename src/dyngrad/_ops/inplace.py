"""In-place ops (``add_``, ``mul_``, ``-=``, ``zero_``, ``copy_`` ...).

An in-place op computes the out-of-place result and writes it into the tensor's
memory, so views and the base see it; it bumps the shared version counter, so a
saved tensor that was overwritten is detected at backward. In grad mode the
tensor's history is rebased onto the new node, as torch does. Leaves that
require grad (and views of them) refuse in-place ops in grad mode.
"""

from __future__ import annotations

import weakref

from .._backend import xp
from .._batching.dispatch import copy_slices_node, logical_backward
from .._dtype import FLOATING_KINDS, _limited_in_use, scalar_type_name
from .._tensor import Tensor, wrap
from ..autograd.forward_ad import STATE as _fw
from ..autograd.forward_ad import _register as _fw_register
from ..autograd.grad_mode import _state
from ..autograd.graph import SavedResult, new_node
from .out_param import _PARTIAL, _overlaps
from .registry import Op, apply, edge, register

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2, "c": 3}  # ("V": bfloat16)


def _type_name(npd) -> str:
    return scalar_type_name(npd)


_NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this use "
    "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the "
    "inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if "
    "you want the inplace to be tracked)."
)


def _check_inplace_allowed(t: Tensor) -> None:
    """torch's refusals of an in-place op in grad mode (the view checks come first, as in torch)."""
    if t.__dict__.get("_custom_fn_view") and t._requires_grad and t._grad_fn is not None:
        name = type(t._grad_fn).__name__.removesuffix("Backward")
        raise RuntimeError(
            f"Output {t._output_nr} of {name} is a view and is being modified inplace. This view was created inside a "
            "custom Function (or because an input was returned as-is) and the autograd logic to handle view+inplace "
            "would override the custom backward associated with the custom Function, leading to incorrect gradients. "
            "This behavior is forbidden. You can fix this by cloning the output of the custom Function."
        )
    if t._base is not None:
        if getattr(t, "_no_grad_view", False):
            raise RuntimeError(_NO_GRAD_VIEW)
        if getattr(t, "_multi_view", False) and t._requires_grad and t._grad_fn is not None:
            import re

            name = re.sub(r"Backward\d*$", "", t._grad_fn.name())
            raise RuntimeError(
                f"Output {t._output_nr} of {name} is a view and is being modified inplace. This view is the output of "
                "a function that returns multiple views. Such functions do not allow the output views to be modified "
                "inplace. You should replace the inplace operation by an out-of-place one."
            )
    if t._requires_grad and t._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _write(t: Tensor, values) -> None:
    dst = t._data
    if type(values) is not type(dst) and type(dst) is xp.ndarray:  # batched values into a tensor vmap does not batch
        from .._batching.array import unbatched_write

        unbatched_write(dst.shape, values.batch_size)
    if values.shape != dst.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, dst.shape))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, values.shape))}]"
        )
    if _CATEGORY[values.dtype.kind] > _CATEGORY[dst.dtype.kind]:
        raise RuntimeError(f"result type {_type_name(values.dtype)} can't be cast to the desired output type {_type_name(dst.dtype)}")
    if not dst.flags.writeable or (not dst.flags.c_contiguous and _zero_stride(dst)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation."
        )
    if dst.ndim == 0:
        dst[()] = values
    else:
        dst[...] = values


def _zero_stride(a) -> bool:
    """torch's internal overlap: a dimension of size > 1 with stride 0 (a writable one: as_strided, from_numpy)."""
    return any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape))


def _check_partial_overlap(t: Tensor, args) -> None:
    """TensorIterator's ``assert_no_partial_overlap`` of the written tensor ``t`` with each tensor it reads:
    ``a[1:].add_(a[:-1])`` is refused (``a.add_(a)`` is taken). Only views can share memory, so tensors that
    own theirs are passed over at the cost of two attribute reads."""
    for a in args:
        if type(a) is Tensor and a is not t and (a._data.base is not None or t._data.base is not None) \
                and type(t._data) is xp.ndarray and _overlaps(t, t._data.shape, a) == "partial":
            raise RuntimeError(_PARTIAL)


def direct(t: Tensor, other, ufunc) -> bool:
    """The fast path of ``t op= other`` when nothing is recorded: the ufunc writes into ``t``'s memory.

    Taken only when no autograd history is involved and the result keeps ``t``'s dtype and
    shape (the manual SGD step ``w -= lr * w.grad``); returns False to use the general path.
    """
    if _state.enabled and (t._requires_grad or (type(other) is Tensor and other._requires_grad)):
        return False
    if t._fw_grad is not None or (type(other) is Tensor and other._fw_grad is not None):
        return False  # a forward-AD tangent must follow the change
    if _limited_in_use[0]:  # uint16/32/64, float8: registry's path refuses what torch has no kernel for
        return False
    dst = t._data
    if type(other) is Tensor:
        src = other._data
        if src.dtype is not dst.dtype or not dst.flags.writeable:
            return False
        if src.base is not None or dst.base is not None:  # views: of one buffer, they may overlap
            rs, rd = src, dst
            while type(rs.base) is xp.ndarray:
                rs = rs.base
            while type(rd.base) is xp.ndarray:
                rd = rd.base
            if rs is rd and other is not t:
                return False  # the general path checks the overlap
        if src.shape != dst.shape:
            try:
                if xp.broadcast_shapes(src.shape, dst.shape) != dst.shape:
                    return False
            except ValueError:  # not broadcastable: the general path raises torch's error
                return False
    elif type(other) is float:
        if dst.dtype.kind not in FLOATING_KINDS or not dst.flags.writeable:
            return False
        src = other
    else:
        return False
    if ufunc is xp.true_divide and dst.dtype.kind not in FLOATING_KINDS:
        return False
    ufunc(dst, src, out=dst)
    t._vc[0] += 1
    return True


def inplace(t: Tensor, compute, *args) -> Tensor:
    """Run ``compute(t, *args)`` out of place and write the result into ``t``."""
    if args:
        _check_partial_overlap(t, args)
    if _state.enabled:
        if _fw.batching and t._requires_grad and t._grad_fn is None:
            _check_batched_write(t, args)  # torch's vmap refuses the write before autograd looks at the leaf
        _check_inplace_allowed(t)
        if t._base is not None and (
            t._requires_grad or t._base._requires_grad or any(isinstance(a, Tensor) and a._requires_grad for a in args)
        ):
            return _inplace_on_view(t, compute, args)
        if t._requires_grad or any(isinstance(a, Tensor) and a._requires_grad for a in args):
            # The node may save its input: give it a copy of the old values, not the memory about to change.
            data = t._data
            if type(data) is xp.ndarray:
                old = wrap(data.copy(), t._requires_grad, t._grad_fn)
            else:  # batched: the copy keeps t's physical layout, which t's history gives gradients in
                from .._batching.tensors import copy_keeping_layout

                old = wrap(copy_keeping_layout(data), t._requires_grad, t._grad_fn)
            old._output_nr = t._output_nr
            old._fw_grad = t._fw_grad
            result = compute(old, *args)
            _write(t, result._data)
            if type(data) is not xp.ndarray and result._grad_fn is not None:
                from .._batching.tensors import output_as

                output_as(result._grad_fn, result._output_nr, data)  # t's consumers send gradients in t's layout
            _take_tangent(t, result)
            _rebase(t, result._grad_fn, result._output_nr)
            t._requires_grad = result._requires_grad
            t._vc[0] += 1
            _adopt_saved_result(t, result)
            if "_views" in t.__dict__:
                _refresh_views(t, None)
            return t
    _state_prev = _state.enabled
    _state.enabled = False
    try:
        result = compute(t, *args)
    finally:
        _state.enabled = _state_prev
    _write(t, result._data)
    if _fw.active:
        _take_tangent(t, result)
    t._vc[0] += 1
    return t


def _check_batched_write(t: Tensor, args) -> None:
    """torch's vmap error for an in-place op writing values a vmap batches into ``t``, which it does not batch,
    where torch gives it before autograd's leaf check: the ops its vmap has no rule for (its fallback refuses the
    write first; an op with a rule, ``add_``, meets the leaf check first)."""
    from .._batching import array as batching

    name = batching._inplace_op_name()
    if name is None or name in batching._SHAPE_MESSAGE_OPS or name in batching._ARITHMETIC_OPS or \
            name in batching._NAMED_OPS:
        return
    levels, unbatched_write, batch_size_at = batching.levels, batching.unbatched_write, batching.batch_size_at
    have = levels(t._data)
    for a in args:
        if isinstance(a, Tensor):
            extra = [lv for lv in levels(a._data) if lv not in have]
            if extra:
                unbatched_write(t._data.shape, batch_size_at([a._data], max(extra)))


def _rebase(t: Tensor, grad_fn, output_nr: int) -> None:
    """Give ``t`` a new history; a retain_grad() follows it, as in torch (the retained gradient is
    the one of the tensor's current value, not of the value the in-place op overwrote)."""
    if t._retains_grad and t._grad_fn is not None and t._grad_fn._retained:
        t._grad_fn._retained.pop(t._output_nr, None)
        if grad_fn is not None:
            if grad_fn._retained is None:
                grad_fn._retained = {}
            grad_fn._retained[output_nr] = weakref.ref(t)
    t._grad_fn = grad_fn
    t._output_nr = output_nr


def _adopt_saved_result(t: Tensor, result: Tensor) -> None:
    """An op that saves its own output (relu_, exp_, sigmoid_ ...) saved ``result``, whose values now
    live in ``t``: the saved value takes ``t``'s version counter at its new version, so a later
    in-place change to ``t`` raises torch's error at backward ("output 0 of Relu, is at version 2")."""
    node = result._grad_fn
    saved = node._saved if node is not None else None
    if not saved or type(saved[-1]) is not SavedResult or saved[-1]._vc is not result._vc or node._versions is None:
        return
    node._saved = saved[:-1] + (SavedResult(saved[-1]._data, t._vc),)
    node._versions = list(node._versions[:-1]) + [t._vc[0]]


def _take_tangent(t: Tensor, result: Tensor) -> None:
    """Forward AD: ``t`` now holds ``result``'s values, so it takes ``result``'s tangent (and a view's base
    takes it in the view's region)."""
    tangent = result._fw_grad
    if tangent is None and t._fw_grad is None:
        return
    if tangent is None:
        t._fw_grad = None
    else:
        _fw_register(t, tangent)
    base = t._base
    if base is not None and (tangent is not None or base._fw_grad is not None):
        positions = view_positions(base._data, t._data)
        old = base._fw_grad._data if base._fw_grad is not None else xp.zeros_like(base._data)
        new = xp.array(old, dtype=base._data.dtype)  # a C-ordered copy
        new.reshape(-1)[positions] = tangent._data if tangent is not None else 0
        _fw_register(base, wrap(new))


@register
class ZeroBackward0(Op):
    """zero_(): the old values no longer matter, so their gradient is zero."""

    @staticmethod
    def forward(a):
        return xp.zeros_like(a)

    def backward(self, g):
        return (g * 0,)


@register
class FillBackward2(Op):
    """fill_(value)."""

    @staticmethod
    def forward(a, value):
        return xp.full_like(a, value)

    def backward(self, g):
        return (g * 0,)


@register
class CopyBackwards(Op):
    """copy_(src): the gradient goes to ``src`` (summed to its shape, cast to its dtype)."""

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(a, src):
        src = xp.asarray(src)
        if src.dtype.kind == "c" and a.dtype.kind != "c":
            src = src.real  # (copy_ warns, as torch)
        return xp.broadcast_to(src.astype(a.dtype, copy=False), a.shape).copy()

    def backward(self, g):
        return (g * 0 if self.needs_input_grad(0) else None, g)


def _writable(a):
    """``a`` itself, or, for a read-only view (an expanded tensor's), a writable array on the same memory: torch's
    fills (zero_, fill_ with a number) take an expanded tensor, writing each shared element once per position."""
    if a.flags.writeable or type(a) is not xp.ndarray:
        return a
    root = a
    while type(root.base) is xp.ndarray:
        root = root.base
    if not root.flags.writeable or not root.flags.c_contiguous:
        return a
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return xp.ndarray(a.shape, a.dtype, buffer=root, offset=offset, strides=a.strides)


def zero_(t: Tensor) -> Tensor:
    if (not _state.enabled or not t._requires_grad) and t._fw_grad is None:
        _check_inplace_allowed(t) if _state.enabled else None
        if _limited_in_use[0] and t._data.dtype.itemsize == 1:  # float8: torch clears the bytes (0 is NaN in e8m0fnu)
            _writable(t._data).view(xp.uint8)[...] = 0
        else:
            _writable(t._data)[...] = 0
        t._vc[0] += 1
        return t
    return inplace(t, lambda a: apply(ZeroBackward0, (a,)))


@register
class FillBackward3(Op):
    """fill_(value tensor): every element becomes the 0-d ``value``; its gradient is the sum of the gradient."""

    @staticmethod
    def forward(a, value):
        return xp.full_like(a, value)

    def backward(self, g):
        from .reduction import sum as _sum

        return (g * 0 if self.needs_input_grad(0) else None, _sum(g) if self.needs_input_grad(1) else None)


def fill_(t: Tensor, value) -> Tensor:
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions."
            )
        return inplace(t, lambda a, v: apply(FillBackward3, (a, v)), value)
    from .complex_support import check_scalar_fits

    check_scalar_fits(value, t._data.dtype)
    if not t._data.flags.writeable and not (_state.enabled and t._requires_grad) and t._fw_grad is None:
        # an expanded tensor: torch's fill kernel does not check for overlap (see _writable)
        _check_inplace_allowed(t) if _state.enabled else None
        dst = _writable(t._data)
        if dst is not t._data:
            dst[...] = value
            t._vc[0] += 1
            return t
    return inplace(t, lambda a: apply(FillBackward2, (a,), (value,)))


def copy_(t: Tensor, src, non_blocking: bool = False) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
    if src._data.shape != t._data.shape:
        from .broadcast import broadcast_shape

        shape = broadcast_shape(t._data.shape, src._data.shape)  # torch's error when they do not broadcast
        if tuple(shape) != t._data.shape:
            raise RuntimeError(
                f"output with shape [{', '.join(map(str, t._data.shape))}] doesn't match the broadcast shape "
                f"[{', '.join(map(str, shape))}]"
            )

    def compute(a, s):
        out = apply(CopyBackwards, (a, s))
        return out

    if src._data.dtype.kind == "c" and t._data.dtype.kind != "c":
        from .shape import warn_complex_to_real

        warn_complex_to_real()
    return inplace(t, compute, src)


# Note [In-place on a view]
# A view shares memory with its base, so an in-place op on the view changes the base too, and in grad
# mode the base's history must say so. As torch does, the base's grad_fn becomes ``CopySlices``: the
# old base with the view's region replaced by the op's result. The region is found from the memory
# layout: each view element's address is mapped to the logical (C-order) position in the base
# (``view_positions``), which covers every view op (slices, transposes, diagonals, ...). Backward of
# CopySlices sends the gradient outside the region to the old base and the region's gradient to the
# op's result (and so, through the op, to the old view values and the op's other inputs). The view
# itself is then re-derived from the new base (torch's ``AsStridedBackward0``).
# Other views of the same base that already exist keep their old grad_fn: torch regenerates those
# lazily when their version is stale, which needs the Tensor's grad_fn accessor (a shared file).


def _offsets(a, start: int):
    off = xp.full(a.shape, start, dtype=xp.int64)
    for k, (n, st) in enumerate(zip(a.shape, a.strides)):
        shape = [1] * a.ndim
        shape[k] = n
        off = off + xp.arange(n, dtype=xp.int64).reshape(shape) * st
    return off


def view_positions(base, view):
    """The C-order flat position in ``base`` of each element of ``view`` (an array sharing its memory)."""
    if base.size == 0 or view.size == 0:
        return xp.zeros(view.shape, dtype=xp.int64)
    if type(view) is not xp.ndarray:  # batched by vmap: every sample's view sits in its base alike
        from .._batching.dispatch import sample_zero

        base, view = sample_zero(base), sample_zero(view)
    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if base.flags.c_contiguous:  # byte offset / itemsize is the C-order position: no sort of the base's offsets
        return _offsets(view, start) // base.itemsize
    ob = _offsets(base, 0).reshape(-1)
    order = xp.argsort(ob, kind="stable")
    ordered = ob[order]
    ov = _offsets(view, start)
    return order[xp.searchsorted(ordered, ov)]


@register
class CopySlices(Op):
    """The base of a view modified in place (torch's CopySlices, which wraps the in-place op's node ``fn``).

    Its edges are the old base's and those of ``fn``'s other inputs. Backward: the region of the gradient
    covered by the view goes through ``fn``; ``fn``'s gradient for the old view values replaces that region
    of the base's gradient, and its other gradients go to its other inputs.
    """

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    @staticmethod
    def forward(base, src, positions, shape):  # the result of the whole in-place op, as one function
        out = base.copy()
        out.reshape(-1)[positions] = src
        return out

    def backward(self, g):
        positions, shape, fn = self._params
        region = apply(AsStridedBackward0, (g,), (positions, shape))
        grads = logical_backward(fn, region)
        gview = grads[0]
        gbase = None
        if self.needs_input_grad(0):
            if gview is None:
                gview = wrap(xp.zeros(positions.shape, dtype=g._data.dtype))
            else:
                from .reduction import sum_to

                gview = sum_to(gview, positions.shape)
            gbase = apply(_PutRegion, (g, gview), (positions, shape))
        return (gbase,) + tuple(grads[1:])


class _PutRegion(Op):
    """``g`` with the elements at ``positions`` replaced by ``src`` (CopySlices' gradient for the base)."""

    forward = CopySlices.forward

    def backward(self, gg):
        positions, shape = self._params
        zeros = wrap(xp.zeros(positions.shape, dtype=gg._data.dtype))
        g0 = apply(_PutRegion, (gg, zeros), (positions, shape)) if self.needs_input_grad(0) else None
        g1 = apply(AsStridedBackward0, (gg,), (positions, shape)) if self.needs_input_grad(1) else None
        return g0, g1


@register
class AsStridedBackward0(Op):
    """A view re-derived from its base after an in-place op (the base's elements at ``positions``).

    Backward: the gradient is added back at those positions of zeros shaped like the base.
    """

    @staticmethod
    def forward(base, positions, shape):
        return base.reshape(-1)[positions]

    def backward(self, g):
        from .indexing import index_backward

        positions, shape = self._params
        n = 1
        for k in shape:
            n *= k
        return (index_backward(g, (n,), (positions,), True).reshape(shape),)


def _inplace_on_view(t: Tensor, compute, args) -> Tensor:
    """In-place op on a view in grad mode: see Note [In-place on a view]."""
    base = t._base
    positions = view_positions(base._data, t._data)
    # old_base stands for the base before the change: its graph edge, and the values old_view gathers
    # below, before anything is written. Nothing saves it, so on plain arrays it may share the base's
    # memory (no copy of the whole base per in-place op on a slice of it).
    data = base._data
    if type(data) is not xp.ndarray:  # batched: a copy in the base's physical layout, which its history's gradients have
        from .._batching.tensors import copy_keeping_layout

        data = copy_keeping_layout(data)
    old_base = wrap(data, base._requires_grad, base._grad_fn)
    old_base._output_nr = base._output_nr
    old_base._fw_grad = base._fw_grad
    old_view = apply(AsStridedBackward0, (old_base,), (positions, base._data.shape))
    result = compute(old_view, *args)
    _write(t, result._data)
    if _fw.active:
        _take_tangent(t, result)
    fn = result._grad_fn
    if fn is not None:
        if type(base._data) is not xp.ndarray:  # batched by vmap
            node = copy_slices_node(CopySlices, base, old_base, fn, positions)
        else:
            node = new_node(CopySlices)
            node.next_functions = (edge(old_base),) + tuple(fn.next_functions[1:])
            node._params = (positions, base._data.shape, fn)
            node._meta = ((base._data.shape, base._data.dtype),)
        _rebase(base, node, 0)
        base._requires_grad = True
    t._vc[0] += 1
    if base._requires_grad:
        # the view is now the new base's elements at ``positions``
        _rebase(t, apply(AsStridedBackward0, (base,), (positions, base._data.shape))._grad_fn, 0)
        t._requires_grad = True
        _refresh_views(base, t)
    return t


def _refresh_views(base: Tensor, skip) -> None:
    """Re-derive the history of the live views of ``base`` after an in-place op changed it (as torch does
    when it finds a view's version stale): each becomes the base's elements at its positions."""
    if not base._requires_grad:
        return
    live = []
    for r in base.__dict__.get("_views", ()):
        u = r()
        if u is None:
            continue
        live.append(r)
        if u is skip or u.__dict__.get("_multi_view") or u.__dict__.get("_no_grad_view"):
            continue
        positions = view_positions(base._data, u._data)
        _rebase(u, apply(AsStridedBackward0, (base,), (positions, base._data.shape))._grad_fn, 0)
        u._requires_grad = True
    base._views = live
