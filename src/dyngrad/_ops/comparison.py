"""Comparisons: elementwise, returning bool tensors that never require grad."""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor, wrap
from ._promote import prepare


def _compare(fn):
    def op(a, b) -> Tensor:
        try:
            x, y = prepare(a, b)
        except TypeError:
            return NotImplemented
        _check_broadcast(x, y)
        return wrap(xp.asarray(fn(x, y)))

    op.__name__ = fn.__name__
    return op


def _check_broadcast(x, y) -> None:
    sx, sy = getattr(x, "shape", ()), getattr(y, "shape", ())
    if sx != sy:
        from .broadcast import broadcast_shape

        broadcast_shape(sx, sy)


eq = _compare(xp.equal)
ne = _compare(xp.not_equal)
lt = _compare(xp.less)
le = _compare(xp.less_equal)
gt = _compare(xp.greater)
ge = _compare(xp.greater_equal)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def logical_not(a: Tensor) -> Tensor:
    return wrap(xp.logical_not(a._data))


def bitwise_op(fn):
    def op(a, b) -> Tensor:
        x, y = prepare(a, b)
        if (getattr(x, "dtype", None) is not None and x.dtype.kind == "f") or isinstance(x, float):
            raise RuntimeError(f'"{fn.__name__}_cpu" not implemented for \'Float\'')
        return wrap(xp.asarray(fn(x, y)))

    return op


bitwise_and = bitwise_op(xp.bitwise_and)
bitwise_or = bitwise_op(xp.bitwise_or)
bitwise_xor = bitwise_op(xp.bitwise_xor)


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
