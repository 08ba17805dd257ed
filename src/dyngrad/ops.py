"""``dyngrad.ops.aten``: a small stand-in for ``torch.ops.aten``, holding the aten operators that PyTorch's
tests call through the dispatcher namespace and dyngrad implements.

dyngrad has no dispatcher: each operator here is an ``OpOverloadPacket``-like object whose overloads
(``.default``, ``.Tensor``, ``.vec``, ...) are ``OpOverload``-like callables, so that code written as
``torch.ops.aten._softmax_backward_data(g, y, 0, torch.float64)`` or
``torch.ops.aten.slice.Tensor(x, 1, 0, 2)`` runs unchanged. Calling a packet calls its one Python
implementation, which accepts the arguments of every listed overload. Only the operators listed in
``_ATEN`` exist; any other name raises AttributeError, as an unknown operator does in torch.
"""

from __future__ import annotations

from ._ops import aten_kernels as _k
from ._ops import native_norms as _norms

__all__ = ["aten", "OpOverload", "OpOverloadPacket"]


class OpOverload:
    """One overload of an aten operator (``torch.ops.aten.slice.Tensor``): a callable with torch's names."""

    def __init__(self, packet: OpOverloadPacket, overload: str, fn) -> None:
        self._packet, self._overloadname, self._fn = packet, overload, fn
        self.__name__ = f"{packet.__name__}.{overload}"
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def name(self) -> str:
        """``aten::<op>.<overload>`` (``aten::<op>`` for the default overload), as torch's."""
        base = f"aten::{self._packet.__name__}"
        return base if self._overloadname == "default" else f"{base}.{self._overloadname}"

    def __repr__(self) -> str:
        return f"<OpOverload(op='aten.{self._packet.__name__}', overload='{self._overloadname}')>"


class OpOverloadPacket:
    """An aten operator with its overloads as attributes (``.default``, ...); calling it calls ``fn``, which
    accepts the arguments of every overload. ``overloads``: a tuple of names that all call ``fn``, or a dict
    name -> function where the overloads' positional arguments differ."""

    def __init__(self, name: str, fn, overloads=("default",)) -> None:
        self.__name__, self._fn = name, fn
        self.__doc__ = fn.__doc__
        if not isinstance(overloads, dict):
            overloads = dict.fromkeys(overloads, fn)
        self._overloads = tuple(overloads)
        for overload, overload_fn in overloads.items():
            setattr(self, overload, OpOverload(self, overload, overload_fn))

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def overloads(self) -> list:
        return list(self._overloads)

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='aten.{self.__name__}')>"


_ATEN = (
    OpOverloadPacket("_softmax_backward_data", _k.softmax_backward_data),
    OpOverloadPacket("_safe_softmax", _k.safe_softmax),
    OpOverloadPacket("slice", _k.slice_tensor, ("Tensor",)),
    OpOverloadPacket("native_dropout_backward", _k.native_dropout_backward),
    OpOverloadPacket("max_pool2d_with_indices_backward", _k.max_pool2d_with_indices_backward),
    OpOverloadPacket("_upsample_bilinear2d_aa", _k.upsample_bilinear2d_aa,
                     {"default": _k.upsample_bilinear2d_aa_default, "vec": _k.upsample_bilinear2d_aa_vec}),
    OpOverloadPacket("_batch_norm_with_update", _norms.batch_norm_with_update),
    OpOverloadPacket("native_batch_norm", _norms.native_batch_norm),
    OpOverloadPacket("_native_batch_norm_legit", _norms._native_batch_norm_legit, ("default", "no_stats")),
    OpOverloadPacket("native_layer_norm", _norms.native_layer_norm),
    OpOverloadPacket("native_group_norm", _norms.native_group_norm),
)


class _Namespace:
    """``dyngrad.ops.aten``: the packets above by name."""

    def __init__(self, name: str, packets) -> None:
        self.name = name
        for packet in packets:
            setattr(self, packet.__name__, packet)

    def __repr__(self) -> str:
        return f"<dyngrad.ops.{self.name} (a few of torch.ops.{self.name}'s operators)>"


aten = _Namespace("aten", _ATEN)
