"""Comparisons: elementwise, returning bool tensors that never require grad."""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS, LIMITED_NP, _limited_in_use
from .._tensor import Tensor, wrap
from ._promote import prepare
from .limited_dtypes import refuse as refuse_limited


def _compare(fn, ordered_kernel=None):
    """``ordered_kernel``: an ordering (lt, le, gt, ge), which torch has no complex kernel for (its name)."""

    def op(a, b) -> Tensor:
        try:
            x, y = prepare(a, b)
        except TypeError:
            return NotImplemented
        if ordered_kernel is not None:
            try:
                npd = x.dtype
            except AttributeError:  # a number on the left (``2 < t`` runs ``t > 2``, so rarely)
                npd = getattr(y, "dtype", None)
            if npd is not None and npd.kind == "c":
                from .complex_support import kernel_error

                raise kernel_error(ordered_kernel, npd)
            if _limited_in_use[0] and npd in LIMITED_NP:  # no ordering kernel for uint16/32/64 or float8
                from .limited_dtypes import not_implemented

                raise not_implemented(ordered_kernel, npd)
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
lt = _compare(xp.less, "lt_cpu")
le = _compare(xp.less_equal, "le_cpu")
gt = _compare(xp.greater, "gt_cpu")
ge = _compare(xp.greater_equal, "ge_cpu")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def logical_not(a: Tensor) -> Tensor:
    if _limited_in_use[0]:
        refuse_limited("logical_not_cpu", a)
    return wrap(xp.logical_not(a._data))


def _type_name(d) -> str:
    from .._dtype import scalar_type_name

    return scalar_type_name(d)


def _need_tensor(fn_name: str, value, arg: str = "other", position: int = 2) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn_name}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}")


def bitwise_op(fn, kernel: str):
    """bitwise_and / or / xor on integer and bool tensors (and Python ints / bools); floats raise as torch."""

    def op(a, b) -> Tensor:
        try:
            x, y = prepare(a, b)
        except TypeError:
            return NotImplemented
        kind = x.dtype.kind if hasattr(x, "dtype") else xp.asarray(x).dtype.kind
        if kind in FLOATING_OR_COMPLEX_KINDS or isinstance(y, float):
            name = _type_name(x.dtype) if kind in FLOATING_OR_COMPLEX_KINDS and hasattr(x, "dtype") else "Float"
            raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')
        _check_broadcast(x, y)
        return wrap(xp.asarray(fn(x, y)))

    op.__name__ = fn.__name__
    return op


bitwise_and = bitwise_op(xp.bitwise_and, "bitwise_and_cpu")
bitwise_or = bitwise_op(xp.bitwise_or, "bitwise_or_cpu")
bitwise_xor = bitwise_op(xp.bitwise_xor, "bitwise_xor_cpu")


def bitwise_not(a: Tensor) -> Tensor:
    d = a._data
    if _limited_in_use[0]:
        refuse_limited("bitwise_not_cpu", d)
    if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f'"bitwise_not_cpu" not implemented for \'{_type_name(d.dtype)}\'')
    return wrap(xp.invert(d))


def _invert(a: Tensor) -> Tensor:
    """``~t``: bitwise not on integer and bool tensors."""
    if a._data.dtype.kind in FLOATING_OR_COMPLEX_KINDS:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(a)


def _logical(fn, name):
    def op(input, other) -> Tensor:  # noqa: A002 - torch's name
        _need_tensor(name, other)
        x, y = input._data, other._data
        if _limited_in_use[0]:
            refuse_limited(f"{name}_cpu", x, y)
        _check_broadcast(x, y)
        return wrap(xp.asarray(fn(x, y)))

    op.__name__ = name
    return op


logical_and = _logical(xp.logical_and, "logical_and")
logical_or = _logical(xp.logical_or, "logical_or")
logical_xor = _logical(xp.logical_xor, "logical_xor")


def isnan(input: Tensor) -> Tensor:  # noqa: A002
    d = input._data
    return wrap(xp.isnan(d) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else xp.zeros(d.shape, dtype=bool))


def isinf(input: Tensor) -> Tensor:  # noqa: A002
    d = input._data
    if _limited_in_use[0] and d.dtype.name != "float8_e5m2":  # (the one float8 type with infinities has the kernel)
        refuse_limited("isinf", d, unsigned=False)
    return wrap(xp.isinf(d) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else xp.zeros(d.shape, dtype=bool))


def isfinite(input: Tensor) -> Tensor:  # noqa: A002
    d = input._data
    if _limited_in_use[0] and d.dtype in LIMITED_NP:
        if d.dtype.name == "float8_e8m0fnu":  # torch: true for all its values, NaN included
            return wrap(xp.ones(d.shape, dtype=bool))
        if d.dtype.name != "float8_e5m2":
            refuse_limited("isfinite", d, unsigned=False)
    return wrap(xp.isfinite(d) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else xp.ones(d.shape, dtype=bool))


def isposinf(input: Tensor) -> Tensor:  # noqa: A002
    d = input._data
    if _limited_in_use[0]:
        refuse_limited("isposinf_cpu", d, unsigned=False)
    if d.dtype.kind == "c":
        raise RuntimeError("isposinf does not support complex inputs.")
    return wrap(xp.isposinf(d) if d.dtype.kind in FLOATING_KINDS else xp.zeros(d.shape, dtype=bool))


def isneginf(input: Tensor) -> Tensor:  # noqa: A002
    d = input._data
    if _limited_in_use[0]:
        refuse_limited("isneginf_cpu", d, unsigned=False)
    if d.dtype.kind == "c":
        raise RuntimeError("isneginf does not support complex inputs.")
    return wrap(xp.isneginf(d) if d.dtype.kind in FLOATING_KINDS else xp.zeros(d.shape, dtype=bool))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:  # noqa: A002
    """|input - other| <= atol + rtol * |other| (or equal, or both NaN with equal_nan); dtypes must match, as torch."""
    _need_tensor("isclose", input, "input", 1)
    _need_tensor("isclose", other)
    x, y = input._data, other._data
    if x.dtype != y.dtype:
        raise RuntimeError(f"{_type_name(x.dtype)} did not match {_type_name(y.dtype)}")
    if _limited_in_use[0] and (rtol != 0 or atol != 0):  # (with no tolerance torch's isclose is ==, which runs)
        refuse_limited("mul_cpu_reduced_float", x, unsigned=False)
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:  # (aten prints the double as C++'s ostream does: %g)
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {float(tol):g}")
    _check_broadcast(x, y)
    if x.dtype.kind == "b":
        return wrap(xp.asarray(x == y))
    with xp.errstate(all="ignore"):
        return wrap(xp.asarray(xp.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:  # noqa: A002
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    """True when both have the same shape and equal elements."""
    x, y = input._data, other._data
    if _limited_in_use[0]:
        refuse_limited("equal_notnan_cpu", x, unsigned=False)
    return x.shape == y.shape and bool((x == y).all())


def _inplace_bitwise(fn):
    def method(self, other):
        from .inplace import inplace

        return inplace(self, lambda a: fn(a, other))

    return method


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = dict(
    bitwise_and=bitwise_and, bitwise_or=bitwise_or, bitwise_xor=bitwise_xor, bitwise_not=bitwise_not,
    logical_and=logical_and, logical_or=logical_or, logical_xor=logical_xor, logical_not=logical_not,
    isnan=isnan, isinf=isinf, isfinite=isfinite, isposinf=isposinf, isneginf=isneginf, isclose=isclose,
    allclose=allclose, equal=equal, greater=gt, greater_equal=ge, less=lt, less_equal=le, not_equal=ne,
)


def _reflected_bitwise(name: str, op):
    """``Tensor.__rand__`` ...: ``other & self``; torch's TypeError when called on an object that is no
    tensor (``Tensor.__rand__(1, x)``)."""

    def method(self, other):
        if not isinstance(self, Tensor):
            from ._promote import descriptor_error

            raise descriptor_error(name, self)
        return op(other, self)

    method.__name__ = method.__qualname__ = name
    return method


TENSOR_METHODS: dict = dict(
    bitwise_and=bitwise_and, bitwise_or=bitwise_or, bitwise_xor=bitwise_xor, bitwise_not=bitwise_not,
    logical_and=logical_and, logical_or=logical_or, logical_xor=logical_xor,
    isnan=isnan, isinf=isinf, isfinite=isfinite, isposinf=isposinf, isneginf=isneginf, isclose=isclose,
    allclose=allclose, equal=equal, greater=gt, greater_equal=ge, less=lt, less_equal=le, not_equal=ne,
    __and__=bitwise_and, __or__=bitwise_or, __xor__=bitwise_xor, __invert__=_invert,
    __rand__=_reflected_bitwise("__rand__", bitwise_and), __ror__=_reflected_bitwise("__ror__", bitwise_or),
    __rxor__=_reflected_bitwise("__rxor__", bitwise_xor),
    __iand__=_inplace_bitwise(bitwise_and), __ior__=_inplace_bitwise(bitwise_or), __ixor__=_inplace_bitwise(bitwise_xor),
    bitwise_and_=_inplace_bitwise(bitwise_and), bitwise_or_=_inplace_bitwise(bitwise_or),
    bitwise_xor_=_inplace_bitwise(bitwise_xor),
)
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
