"""In-place ops (``add_``, ``mul_``, ``-=``, ``zero_``, ``copy_`` ...).

An in-place op computes the out-of-place result and writes it into the tensor's
memory, so views and the base see it; it bumps the shared version counter, so a
saved tensor that was overwritten is detected at backward. In grad mode the
tensor's history is rebased onto the new node, as torch does. Leaves that
require grad (and views of them) refuse in-place ops in grad mode.
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import scalar_type_name
from .._tensor import Tensor, wrap
from ..autograd.grad_mode import _state
from .registry import Op, apply, register

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _type_name(npd) -> str:
    return scalar_type_name(npd)


def _check_inplace_allowed(t: Tensor) -> None:
    if t._requires_grad and t._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _write(t: Tensor, values) -> None:
    dst = t._data
    if values.shape != dst.shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, dst.shape))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, values.shape))}]"
        )
    if _CATEGORY[values.dtype.kind] > _CATEGORY[dst.dtype.kind]:
        raise RuntimeError(f"result type {_type_name(values.dtype)} can't be cast to the desired output type {_type_name(dst.dtype)}")
    if not dst.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation."
        )
    if dst.ndim == 0:
        dst[()] = values
    else:
        dst[...] = values


def direct(t: Tensor, other, ufunc) -> bool:
    """The fast path of ``t op= other`` when nothing is recorded: the ufunc writes into ``t``'s memory.

    Taken only when no autograd history is involved and the result keeps ``t``'s dtype and
    shape (the manual SGD step ``w -= lr * w.grad``); returns False to use the general path.
    """
    if _state.enabled and (t._requires_grad or (type(other) is Tensor and other._requires_grad)):
        return False
    dst = t._data
    if type(other) is Tensor:
        src = other._data
        if src.dtype is not dst.dtype or not dst.flags.writeable:
            return False
        if src.shape != dst.shape:
            try:
                if xp.broadcast_shapes(src.shape, dst.shape) != dst.shape:
                    return False
            except ValueError:  # not broadcastable: the general path raises torch's error
                return False
    elif type(other) is float:
        if dst.dtype.kind != "f" or not dst.flags.writeable:
            return False
        src = other
    else:
        return False
    if ufunc is xp.true_divide and dst.dtype.kind != "f":
        return False
    ufunc(dst, src, out=dst)
    t._vc[0] += 1
    return True


def inplace(t: Tensor, compute, *args) -> Tensor:
    """Run ``compute(t, *args)`` out of place and write the result into ``t``."""
    if _state.enabled:
        _check_inplace_allowed(t)
        if t._requires_grad or any(isinstance(a, Tensor) and a._requires_grad for a in args):
            # The node may save its input: give it a copy of the old values, not the memory about to change.
            old = wrap(t._data.copy(), t._requires_grad, t._grad_fn)
            old._output_nr = t._output_nr
            result = compute(old, *args)
            _write(t, result._data)
            t._grad_fn = result._grad_fn
            t._requires_grad = result._requires_grad
            t._output_nr = result._output_nr
            t._vc[0] += 1
            return t
    _state_prev = _state.enabled
    _state.enabled = False
    try:
        result = compute(t, *args)
    finally:
        _state.enabled = _state_prev
    _write(t, result._data)
    t._vc[0] += 1
    return t


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
        return xp.broadcast_to(xp.asarray(src, dtype=a.dtype), a.shape).copy()

    def backward(self, g):
        return (g * 0 if self.needs_input_grad(0) else None, g)


def zero_(t: Tensor) -> Tensor:
    if not _state.enabled or not t._requires_grad:
        _check_inplace_allowed(t) if _state.enabled else None
        t._data[...] = 0
        t._vc[0] += 1
        return t
    return inplace(t, lambda a: apply(ZeroBackward0, (a,)))


def fill_(t: Tensor, value) -> Tensor:
    if isinstance(value, Tensor):
        value = value.item()
    return inplace(t, lambda a: apply(FillBackward2, (a,), (value,)))


def copy_(t: Tensor, src, non_blocking: bool = False) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")

    def compute(a, s):
        out = apply(CopyBackwards, (a, s))
        return out

    return inplace(t, compute, src)
