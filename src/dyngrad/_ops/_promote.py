"""Binary-op operand preparation: torch's type promotion applied to the arrays."""

from __future__ import annotations

import sys

import numpy as np

from .._dtype import FLOATING_OR_COMPLEX_KINDS, default_float_np, result_type
from .._tensor import Tensor


def _scalar_ok(kind: str, value) -> bool:
    """True when NumPy's weak-scalar rule already gives torch's result dtype."""
    t = type(value)
    if t is float:
        return kind in FLOATING_OR_COMPLEX_KINDS
    if t is int:
        # small ints fit every integer dtype; larger ones go through the range check of _cast_scalar
        return (kind in FLOATING_OR_COMPLEX_KINDS or (kind in "iu" and 0 <= value <= 127)
                or (kind == "i" and -128 <= value < 0))
    if t is bool:
        return True
    return False


def prepare(a, b, true_divide: bool = False):
    """Return the two forward operands (arrays or Python scalars) in the promoted dtype.

    Raises:
        TypeError: an operand is neither a Tensor nor a Python number.
    """
    if isinstance(a, Tensor):
        ad = a._data
        if isinstance(b, Tensor):
            bd = b._data
            if ad.dtype == bd.dtype and (not true_divide or ad.dtype.kind in FLOATING_OR_COMPLEX_KINDS):
                return ad, bd
            rt = result_type(ad, bd)
        else:
            b = _number(b)
            if isinstance(b, Tensor):
                return prepare(a, b, true_divide)
            if _scalar_ok(ad.dtype.kind, b) and (not true_divide or ad.dtype.kind in FLOATING_OR_COMPLEX_KINDS):
                return ad, b
            rt = result_type(ad, b)
        if true_divide and rt.kind not in FLOATING_OR_COMPLEX_KINDS:
            rt = default_float_np()
        return (ad if ad.dtype == rt else ad.astype(rt)), (
            (bd if bd.dtype == rt else bd.astype(rt)) if isinstance(b, Tensor) else _cast_scalar(b, rt)
        )
    # a is a scalar, b a Tensor: torch.add(1, x), or Tensor.__radd__(1, x) (an error: see below)
    caller = sys._getframe(1).f_code.co_name
    if caller[:3] == "__r":
        raise descriptor_error(caller, a)
    a = _number(a)
    if isinstance(a, Tensor):
        return prepare(a, b, true_divide)
    bd = b._data
    rt = result_type(a, bd)
    if true_divide and rt.kind not in FLOATING_OR_COMPLEX_KINDS:
        rt = default_float_np()
    return _cast_scalar(a, rt), (bd if bd.dtype == rt else bd.astype(rt))


def _cast_scalar(value, rt):
    # Keep Python scalars weak so NumPy keeps the array's dtype; only bools need care,
    # and integers outside the dtype's range, which torch wraps around (uint8 * -1 = 255 * 1).
    if rt.kind in FLOATING_OR_COMPLEX_KINDS and type(value) is bool:
        return float(value)
    if rt.kind in "iu" and type(value) is int:
        info = np.iinfo(rt)
        if not info.min <= value <= info.max:
            return np.array(value % (1 << (8 * rt.itemsize)), dtype=np.uint64).astype(rt)
    return value


def _number(value):
    """A Python number (NumPy scalars are turned into Python ones so they stay weak in promotion).

    Note [NumPy operands]: torch's binary operators take no ndarray (``t.__mul__(array)`` is NotImplemented; its
    named functions refuse one by their signatures), so ``t * array`` is NumPy's: Python calls
    ``array.__rmul__(t)``, NumPy computes on ``t.__array__()`` with its own promotion (a 0-d float64 array makes
    a float32 tensor's product float64) and hands the result to ``Tensor.__array_wrap__``: a tensor, without
    history. ``array * t`` fails (NumPy defers to the tensor's ``__array_priority__``, whose reflected method
    refuses the array), save where torch's reflected method is Python code over a forward op (``array / t``).
    A NumPy bool or complex64 scalar is read as a float (torch parses it with ``PyFloat_AsDouble``: np.complex64
    loses its imaginary part, with NumPy's ComplexWarning); the other NumPy scalars as Python numbers.
    """
    t = type(value)
    if t is float or t is int or t is bool:
        return value
    if t is np.ndarray:
        raise OperandTypeError(f"unsupported operand type(s): 'Tensor' and '{t.__name__}'")
    if t is np.bool_ or t is np.complex64:
        return float(value)
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    if isinstance(value, (int, float, complex)):
        return value
    raise OperandTypeError(f"unsupported operand type(s): 'Tensor' and '{type(value).__name__}'")


def descriptor_error(name: str, obj) -> TypeError:
    """torch's error for a Tensor method called on an object that is no tensor (``Tensor.__radd__(1, x)``):
    Python's, for a method of a C type. (dyngrad's operator methods are plain functions, which would take
    any first argument: ``1 + x`` always calls them on the tensor, so only a direct call gets here.)"""
    t = type(obj)
    # Python's tp_name: a builtin or a class written in Python by its name, another C type with its module
    name_of_type = t.__name__ if t.__module__ == "builtins" or t.__flags__ & (1 << 9) else f"{t.__module__}.{t.__name__}"
    return TypeError(f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't apply to a '{name_of_type}' object")


class OperandTypeError(TypeError):
    """An operand that is neither a Tensor nor a number (see ``operand_error``).

    A subclass only so that the operator methods can tell this error from any other
    TypeError; users see (and catch) a TypeError, named as torch's.
    """


OperandTypeError.__name__ = OperandTypeError.__qualname__ = "TypeError"
OperandTypeError.__module__ = "builtins"  # tracebacks print "TypeError: ...", as torch's


def operand_error(name: str, other):
    """What a binary op does with an operand that is neither a Tensor nor a number.

    Called as a Python operator, it returns NotImplemented, so that Python tries the other
    operand and raises its own TypeError (``unsupported operand type(s) for +: 'Tensor' and
    'str'``), as torch's operators do. The operator methods (``Tensor.__add__`` ...) are copies
    of the op functions under the dunder's name (``_tensor_methods.as_operator``), which is how
    the caller's frame tells the two cases apart. Called as a function, it raises torch's
    argument error.
    """
    code = sys._getframe(1).f_code
    if code.co_name.startswith("__"):
        return NotImplemented
    position = 1 if code.co_qualname.startswith("Tensor.") else 2  # x.add("a") / torch.add(x, "a")
    raise OperandTypeError(f"{name}(): argument 'other' (position {position}) must be Tensor, not {type(other).__name__}")


def reflected(op):
    """The method for ``other <op> self`` (``2 ** x``): ``op(other, self)``, or NotImplemented for an
    operand that is neither a Tensor nor a number, so Python raises its own TypeError (see
    ``operand_error``)."""

    def method(self, other):
        try:
            return op(other, self)
        except OperandTypeError:
            return NotImplemented

    return method
