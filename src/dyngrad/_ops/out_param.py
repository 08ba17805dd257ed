"""The ``out=`` argument of torch's functional ops: the result is written into a given tensor."""

from __future__ import annotations

import warnings

from .._backend import xp
from .._dtype import scalar_type_name
from .._tensor import Tensor
from ..autograd.grad_mode import _state

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def check_out_autograd(name: str, out, *inputs) -> None:
    """torch refuses ``out=`` for a differentiable op when grad mode is on and a tensor involved requires grad.

    Raises:
        RuntimeError: ``<name>(): functions with out=... arguments don't support automatic differentiation,
            but one of the arguments requires grad.``
    """
    if out is None or not _state.enabled:
        return
    if any(isinstance(t, Tensor) and t._requires_grad for t in (*inputs, out)):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )


def write_out(result: Tensor, out) -> Tensor:
    """``result`` when ``out`` is None; else ``result``'s values written into ``out``, which is returned.

    As torch's structured ops: ``out`` keeps its dtype (the result must cast to it safely: no float
    into an integer tensor), and is resized to the result's shape, with torch's deprecation warning
    when it had elements.

    Raises:
        TypeError: ``out`` is not a tensor.
        RuntimeError: ``result type Float can't be cast to the desired output type Long``.
    """
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    values = result._data
    dst = out._data
    if _CATEGORY[values.dtype.kind] > _CATEGORY[dst.dtype.kind]:
        raise RuntimeError(
            f"result type {scalar_type_name(values.dtype)} can't be cast to the desired output type "
            f"{scalar_type_name(dst.dtype)}"
        )
    if dst.shape != values.shape:
        if dst.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape [{', '.join(map(str, dst.shape))}]"
                f", which does not match the required output shape [{', '.join(map(str, values.shape))}]. This "
                "behavior is deprecated, and in a future PyTorch release outputs will not be resized unless they "
                "have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                "elements with t.resize_(0). (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)",
                UserWarning,
                stacklevel=3,
            )
        out._data = xp.empty(values.shape, dtype=dst.dtype)
        dst = out._data
    dst[...] = values
    out._vc[0] += 1
    return out
