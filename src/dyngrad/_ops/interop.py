"""Tensor methods that call Python code element by element, and the size attributes (torch.can_cast is in
_ops/dtype_queries.py).

- ``x.apply_(fn)``: ``fn(element)`` written back into each element of ``x``; ``x.map_(other, fn)``:
  ``fn(element, other_element)``, ``other`` broadcast to ``x``'s shape. Both work in place on ``x``'s memory
  (views included), return ``x``, and, as torch's (torch/csrc/utils/tensor_apply.cpp), record no autograd
  history, refuse a tensor that requires grad and leave the version counter as it was. The element is the
  Python number ``Tensor.item()`` gives (bool, int, float, complex); the result is stored by torch's rules
  (torch/csrc/utils/python_scalars.h, ``store_scalar``), see ``_store_conversion``.
- ``x.unflatten(dim, sizes)``, a Python method in torch over the builtin of that name (its parser's errors).
- ``x.itemsize`` (bytes per element) and ``x.nbytes`` (``numel * itemsize``), as torch's properties.
"""

from __future__ import annotations

import operator

from .._backend import xp
from .._tensor import Tensor

# the names of checked_convert's message ("value cannot be converted to type uint8 without overflow")
_INTEGRAL_NAMES = {"u1": "uint8", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "u2": "uint16",
                   "u4": "uint32", "u8": "uint64"}


def _as_double(obj) -> float:
    """CPython's PyFloat_AsDouble: a float, or an object with ``__float__`` or ``__index__`` (no string
    parsing, unlike ``float()``)."""
    t = type(obj)
    if t is float:
        return obj
    if hasattr(t, "__float__"):
        return float(obj)
    if hasattr(t, "__index__"):
        return float(operator.index(obj))
    raise TypeError(f"must be real number, not {t.__name__}")


def _as_complex(obj) -> complex:
    """CPython's PyComplex_AsCComplex: a complex, ``__complex__``, else a real number."""
    if isinstance(obj, complex) or hasattr(type(obj), "__complex__"):
        return complex(obj)
    return complex(_as_double(obj))


def _as_bool(obj) -> bool:
    """torch's THPUtils_unpackNumberAsBool: a float or complex by being non-zero, else an integer's truth."""
    if isinstance(obj, float):
        return obj != 0.0
    if isinstance(obj, complex):
        return obj != 0
    return operator.index(obj) != 0


def _as_integral(obj, np_dtype):
    """torch's unpackIntegral: a float is truncated, anything else read as an integer (``__index__``); a
    value outside the dtype's range is refused (c10::checked_convert)."""
    info = xp.iinfo(np_dtype)
    name = _INTEGRAL_NAMES.get(np_dtype.str[1:], np_dtype.name)
    if isinstance(obj, float):
        if not info.min - 1 < obj < info.max + 1:  # (NaN fails too)
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        return int(obj)
    value = operator.index(obj)
    if not -(1 << 63) <= value < (1 << 63):  # read as a C long long first (THPUtils_unpackLong)
        raise ValueError("Overflow when unpacking long long")
    if info.min == 0 and -info.max <= value < 0:  # an unsigned type takes a negative int by wrapping it (c10's overflows)
        return value + info.max + 1
    if not info.min <= value <= info.max:
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return value


def _store_conversion(np_dtype):
    """The conversion of a callable's result for an element of ``np_dtype`` (torch's store_scalar)."""
    kind = np_dtype.kind
    if kind == "b":
        return _as_bool
    if kind in "iu":
        return lambda obj: _as_integral(obj, np_dtype)
    if kind == "c":
        return _as_complex
    return _as_double


def _check_no_grad(name: str, *tensors) -> None:
    if any(t._requires_grad for t in tensors):
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")


def apply_(self: Tensor, *args, **kwargs) -> Tensor:
    """``x.apply_(fn)``: each element replaced by ``fn(element)``, in place; returns ``x``.

    Raises:
        RuntimeError: ``x`` requires grad; a result out of an integer dtype's range.
        TypeError: not exactly one argument, or one by keyword (torch's method takes one object and no
            parser: Python's METH_O messages); a result that is no number of the dtype's kind.
        ValueError: an integer result beyond 64 bits.
    """
    if kwargs:
        raise TypeError("TensorBase.apply_() takes no keyword arguments")
    if len(args) != 1:
        raise TypeError(f"TensorBase.apply_() takes exactly one argument ({len(args)} given)")
    (callable,) = args  # noqa: A001 - torch's name for it
    _check_no_grad("apply_", self)
    data = self._data
    store = _store_conversion(data.dtype)
    for index in xp.ndindex(data.shape):
        data[index] = store(callable(data[index].item()))
    return self


def map_(self: Tensor, other: Tensor, callable) -> Tensor:  # noqa: A002 - torch's parameter name
    """``x.map_(other, fn)``: each element replaced by ``fn(element, other's element)``, ``other`` broadcast
    to ``x``'s shape, in place; returns ``x``.

    Raises:
        RuntimeError: either requires grad; ``other`` does not broadcast to ``x``'s shape (expand's error).
        TypeError: ``other``'s dtype is not ``x``'s (``map_: expected torch.FloatTensor for 'other' (got
        torch.LongTensor)``); a result of the wrong kind.
    """
    _check_no_grad("map_", self, other)
    if other._data.dtype != self._data.dtype:
        raise TypeError(f"map_: expected {self.type()} for 'other' (got {other.type()})")
    data = self._data
    values = other.expand(data.shape)._data if other._data.shape != data.shape else other._data
    store = _store_conversion(data.dtype)
    for index in xp.ndindex(data.shape):
        data[index] = store(callable(data[index].item(), values[index].item()))
    return self


_builtin_unflatten = None


def unflatten(self: Tensor, dim, sizes) -> Tensor:
    """``x.unflatten(dim, sizes)``: torch's Python method (torch/_tensor.py), which refuses empty sizes, then
    passes both by position to the builtin: its argument errors give positions even for keywords
    (``x.unflatten(0, sizes=(1.0, 2))``), and a call with too many arguments is Python's error."""
    global _builtin_unflatten
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if _builtin_unflatten is None:
        from .._argparse import checked
        from .shape import unflatten as op

        _builtin_unflatten = checked("Tensor.unflatten", op, method=True)
    return _builtin_unflatten(self, dim, sizes)


unflatten.__qualname__ = "Tensor.unflatten"  # (Python's messages name it so: "Tensor.unflatten() takes 3 ...")
unflatten.parses_itself = True


def _itemsize(self: Tensor) -> int:
    return self.dtype.itemsize


def _nbytes(self: Tensor) -> int:
    return self._data.size * self.dtype.itemsize


EXPORTS: dict = {}  # (torch.can_cast: _ops/dtype_queries.py)
TENSOR_METHODS: dict = {"apply_": apply_, "map_": map_, "unflatten": unflatten}
TENSOR_PROPERTIES: dict = {"itemsize": property(_itemsize), "nbytes": property(_nbytes)}
LINALG_EXPORTS: dict = {}
FUNCTIONAL_EXPORTS: dict = {}
