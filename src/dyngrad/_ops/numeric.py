"""Numeric pointwise functions beyond pointwise.py: angle conversion (deg2rad, rad2deg), the float
representation (frexp, ldexp, nextafter, signbit), integer arithmetic (gcd, lcm, bit shifts), heaviside,
positive and the reflected division ``Tensor.__rdiv__``.

Gradients follow torch's tools/autograd/derivatives.yaml:
- deg2rad: grad * pi / 180; rad2deg: grad * 180 / pi;
- frexp: the mantissa's gradient is grad / 2**exponent (the exponent is an integer output);
- ldexp(input, other) = input * 2**other: grad * 2**other, and grad * input * 2**other * ln 2 for other;
- nextafter: grad for input, zero for other (the result moves by one ulp at most);
- heaviside: no derivative (a node named NotImplemented that raises at backward, as torch records).
"""

from __future__ import annotations

import math

from .._backend import xp
from .._dtype import FLOATING_KINDS, _limited_in_use, default_float_np, from_numpy, scalar_type_name
from .._tensor import Tensor, wrap
from ..autograd import forward_ad as _fw_ad
from ._promote import OperandTypeError, prepare
from .complex import conj_value as conj
from .limited_dtypes import refuse as refuse_limited
from .reduction import return_type
from .registry import Op, apply, register


def _need_tensor(fn_name: str, value, arg: str, position: int) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn_name}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}")


def _not_implemented(kernel: str, dtype) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(dtype)}'")


# ------------------------------------------------------------------ angle conversion
@register
class Deg2RadBackward0(Op):
    """deg2rad(input) = input * pi / 180; backward grad * pi / 180 (derivatives.yaml)."""

    @staticmethod
    def forward(a):
        return a * (math.pi / 180.0)

    def backward(self, g):
        return (g * (math.pi / 180.0),)


@register
class Rad2DegBackward0(Op):
    """rad2deg(input) = input * 180 / pi; backward grad * 180 / pi (derivatives.yaml)."""

    @staticmethod
    def forward(a):
        return a * (180.0 / math.pi)

    def backward(self, g):
        return (g * (180.0 / math.pi),)


def _angle(op, name: str, input):  # noqa: A002
    _need_tensor(name, input, "input", 1)
    d = input._data
    if d.dtype.kind == "c":
        raise RuntimeError(f"{name} is not supported for complex tensors.")
    if d.dtype.kind not in FLOATING_KINDS:
        d = d.astype(default_float_np())
    return apply(op, (input,), (), (d,))


def deg2rad(input):  # noqa: A002 - torch's name
    """torch.deg2rad(input): degrees to radians, input * pi / 180, any shape; integer and bool inputs give the
    default float dtype. Raises RuntimeError for complex input (torch's text)."""
    return _angle(Deg2RadBackward0, "deg2rad", input)


def rad2deg(input):  # noqa: A002 - torch's name
    """torch.rad2deg(input): radians to degrees, input * 180 / pi, any shape; integer and bool inputs give the
    default float dtype. Raises RuntimeError for complex input (torch's text)."""
    return _angle(Rad2DegBackward0, "rad2deg", input)


# ------------------------------------------------------------------ float representation
_FrexpResult = return_type("frexp", ("mantissa", "exponent"))


@register
class FrexpBackward0(Op):
    """frexp(input) = (mantissa, exponent) with input = mantissa * 2**exponent, |mantissa| in [0.5, 1).
    Backward (derivatives.yaml): grad / 2**exponent for the mantissa; the exponent is an integer output."""

    @staticmethod
    def forward(a):
        m, e = xp.frexp(a)
        return m, e.astype(xp.int32)

    def backward(self, g, _g_exponent=None):
        exponent = self._indices  # the int32 output, kept by apply_multi
        scale = xp.ldexp(xp.ones((), dtype=g._data.dtype), -exponent.astype(xp.int64))
        return (g * wrap(scale.astype(g._data.dtype)),)


def frexp(input):  # noqa: A002 - torch's name
    """torch.frexp(input) -> (mantissa, exponent): input = mantissa * 2**exponent, mantissa of input's dtype
    with |mantissa| in [0.5, 1) (0 for 0), exponent int32; inf and NaN keep their value with exponent 0.

    Raises:
        RuntimeError: integer, bool or complex input (torch's text).
    """
    from .registry import apply_multi

    _need_tensor("frexp", input, "input", 1)
    if input._data.dtype.kind not in FLOATING_KINDS:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with xp.errstate(all="ignore"):
        m, e = apply_multi(FrexpBackward0, (input,))
    return _FrexpResult((m, e))


@register
class LdexpBackward0(Op):
    """ldexp(input, other) = input * 2**other. Backward (derivatives.yaml): grad * (2**other).conj() for input,
    grad * (input * 2**other * ln 2).conj() for other. For an integer ``other`` torch evaluates pow(2, other) in
    integers, so a negative exponent gives the input a zero gradient; dyngrad does the same."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, b):
        return a * xp.exp2(b).astype(a.dtype if a.dtype.kind == "c" else xp.result_type(a, b), copy=False)

    def backward(self, g):
        x, other = self.saved()
        from .exp_log import exp2

        o = other._data
        if o.dtype.kind in "iub":  # torch's pow(2, other) in integers: 2**k for k >= 0, 0 for k < 0
            scale = wrap(xp.where(o >= 0, xp.exp2(xp.maximum(o, 0)), 0.0).astype(g._data.dtype))
        else:
            scale = exp2(other)
        gx = g * conj(scale) if self.next_functions[0][0] is not None else None
        go = g * conj(x * scale * math.log(2.0)) if self.next_functions[1][0] is not None else None
        return gx, go


def ldexp(input, other, *, out=None):  # noqa: A002 - torch's name
    """torch.ldexp(input, other) = input * 2**other, broadcast; integer operands give the default float dtype,
    the result dtype is the promoted dtype of both (float or complex). Raises TypeError for a non-tensor
    operand (torch's text)."""
    _need_tensor("ldexp", input, "input", 1)
    _need_tensor("ldexp", other, "other", 2)
    x, y = prepare(input, other, true_divide=True)
    if _fw_ad.STATE.batching and _one_logical_scalar(input._data, other._data):
        # torch's vmap rule for binary pointwise ops (handleScalarTypePromotion in BatchRulesBinaryOps.cpp):
        # when one operand is a batched 0-d tensor and the other is not, both are converted to the result dtype
        # first, so an integer exponent becomes a float one and gives the mantissa its gradient 2**other
        dtype = from_numpy(xp.result_type(x, y))
        input, other = input.to(dtype), other.to(dtype)
    with xp.errstate(all="ignore"):
        return apply(LdexpBackward0, (input, other), (), (x, y))


def _one_logical_scalar(a, b) -> bool:
    """Exactly one of ``a``, ``b`` is a 0-d array batched by vmap (a logical scalar, in functorch's words)."""
    from .._batching.array import BatchedArray

    return (type(a) is BatchedArray and a.ndim == 0) != (type(b) is BatchedArray and b.ndim == 0)


@register
class NextafterBackward0(Op):
    """nextafter(input, other): the next float after input towards other. Backward (derivatives.yaml): grad for
    input, zeros for other."""

    @staticmethod
    def forward(a, b):
        return xp.nextafter(a, b)

    def backward(self, g):
        go = wrap(xp.zeros_like(g._data)) if self.next_functions[1][0] is not None else None
        return (g if self.next_functions[0][0] is not None else None), go


def nextafter(input, other, *, out=None):  # noqa: A002 - torch's name
    """torch.nextafter(input, other): elementwise the next representable float after input in the direction of
    other, broadcast; float dtypes only.

    Raises:
        TypeError: a non-tensor operand; NotImplementedError for integer, bool or complex dtypes; RuntimeError
            for two different float dtypes (torch's texts).
    """
    _need_tensor("nextafter", input, "input", 1)
    _need_tensor("nextafter", other, "other", 2)
    a, b = input._data, other._data
    if a.dtype != b.dtype and a.dtype.kind in FLOATING_KINDS and b.dtype.kind in FLOATING_KINDS:
        raise RuntimeError(f"expected scalar type {scalar_type_name(a.dtype)} but found {scalar_type_name(b.dtype)}")
    x, y = prepare(input, other)
    dt = xp.result_type(x, y)
    if dt.kind not in FLOATING_KINDS:
        raise _not_implemented("nextafter_cpu", dt)
    return apply(NextafterBackward0, (input, other), (), (x, y))


def signbit(input, *, out=None):  # noqa: A002 - torch's name
    """torch.signbit(input): bool tensor, True where the sign bit is set (-0.0 included), same shape.
    Raises RuntimeError for complex input (torch's text)."""
    _need_tensor("signbit", input, "input", 1)
    d = input._data
    if _limited_in_use[0]:
        refuse_limited("signbit_cpu", d, unsigned=False)
    if d.dtype.kind == "c":
        raise RuntimeError("signbit is not implemented for complex tensors.")
    if d.dtype.kind == "b":
        return wrap(xp.zeros(d.shape, dtype=bool))
    return wrap(xp.asarray(xp.signbit(d)))


def _heaviside_backward(self, g):
    raise RuntimeError("derivative for aten::heaviside is not implemented")


# torch has no derivative for heaviside: it records a node named NotImplemented that raises at backward
# (not in REGISTRY, whose "NotImplemented" entry is floor_divide's).
HeavisideNotImplemented = type("NotImplemented", (Op,), {
    "__slots__": (),
    "__doc__": "heaviside: torch has no derivative; its node (named NotImplemented) raises at backward.",
    "forward": staticmethod(lambda a, v: xp.where(a == 0, v, (a > 0).astype(a.dtype)).astype(a.dtype, copy=False)),
    "backward": _heaviside_backward,
    "name": lambda self: "torch::autograd::NotImplemented",
    "__module__": __name__,
})


def heaviside(input, values, *, out=None):  # noqa: A002 - torch's name
    """torch.heaviside(input, values): 0 where input < 0, values where input == 0, 1 where input > 0, broadcast.

    Raises:
        TypeError: a non-tensor operand; RuntimeError for operands of different dtypes or complex ones
            (torch's texts).
    """
    _need_tensor("heaviside", input, "input", 1)
    _need_tensor("heaviside", values, "values", 2)
    a, v = input._data, values._data
    if a.dtype.kind == "c" or v.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if a.dtype != v.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if _limited_in_use[0]:
        refuse_limited("heaviside_cpu", a)
    return apply(HeavisideNotImplemented, (input, values))


# ------------------------------------------------------------------ integer arithmetic
def _integer_binary(name: str, kernel: str, fn, input, other):  # noqa: A002
    _need_tensor(name, input, "input", 1)
    _need_tensor(name, other, "other", 2)
    x, y = prepare(input, other)
    dt = xp.result_type(x, y)
    if dt.kind not in "iu":
        raise _not_implemented(kernel, dt)
    return wrap(xp.asarray(fn(x, y)).astype(dt, copy=False))


def gcd(input, other, *, out=None):  # noqa: A002 - torch's name
    """torch.gcd(input, other): elementwise greatest common divisor (non-negative), broadcast; integer dtypes.
    Raises TypeError for a non-tensor operand, NotImplementedError for float, bool or complex (torch's texts)."""
    return _integer_binary("gcd", "gcd_cpu", xp.gcd, input, other)


def lcm(input, other, *, out=None):  # noqa: A002 - torch's name
    """torch.lcm(input, other): elementwise least common multiple (non-negative), broadcast; integer dtypes.
    Raises TypeError for a non-tensor operand, NotImplementedError for float, bool or complex (torch's texts)."""
    return _integer_binary("lcm", "lcm_cpu", xp.lcm, input, other)


def _left_shift(a, b):
    # ATen: a shift by a negative amount or by the bit width or more gives 0; otherwise as unsigned
    bits = a.dtype.itemsize * 8 if hasattr(a, "dtype") else 64
    b_arr = xp.asarray(b)
    a_arr = xp.asarray(a)
    safe = xp.where((b_arr < 0) | (b_arr >= bits), 0, b_arr).astype(a_arr.dtype)
    out = xp.left_shift(a_arr, safe)
    return xp.where((b_arr < 0) | (b_arr >= bits), xp.zeros((), a_arr.dtype), out).astype(a_arr.dtype)


def _right_shift(a, b):
    # ATen: a shift by a negative amount or by the bit width or more gives the sign (0 or -1)
    a_arr = xp.asarray(a)
    bits = a_arr.dtype.itemsize * 8
    b_arr = xp.asarray(b)
    big = (b_arr < 0) | (b_arr >= bits)
    safe = xp.where(big, bits - 1, b_arr).astype(a_arr.dtype)
    out = xp.right_shift(a_arr, safe)
    return out.astype(a_arr.dtype)


def _shift(name: str, kernel: str, fn, input, other):  # noqa: A002
    if not isinstance(input, Tensor):
        if not isinstance(other, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        x, y = prepare(input, other)
    else:
        x, y = prepare(input, other)
    dt = xp.result_type(x, y)
    if dt.kind not in "iu":
        raise _not_implemented(kernel, dt)
    if _limited_in_use[0]:
        refuse_limited(kernel, x, y)
    x = xp.asarray(x, dtype=dt)
    y = xp.asarray(y, dtype=dt)
    shape = xp.broadcast_shapes(x.shape, y.shape)
    return wrap(xp.asarray(fn(xp.broadcast_to(x, shape), xp.broadcast_to(y, shape))).astype(dt, copy=False))


def bitwise_left_shift(input, other, *, out=None):  # noqa: A002 - torch's name
    """torch.bitwise_left_shift(input, other) (``<<``): input * 2**other on integer dtypes, broadcast; shifts
    outside [0, bit width) give 0 as in ATen. Raises NotImplementedError for float, bool or complex."""
    return _shift("bitwise_left_shift", "lshift_cpu", _left_shift, input, other)


def bitwise_right_shift(input, other, *, out=None):  # noqa: A002 - torch's name
    """torch.bitwise_right_shift(input, other) (``>>``): arithmetic shift on integer dtypes, broadcast; shifts
    outside [0, bit width) give the sign (0 or -1) as in ATen. Raises NotImplementedError for float, bool,
    complex."""
    return _shift("bitwise_right_shift", "rshift_cpu", _right_shift, input, other)


def _shift_operator(fn):
    """``t << other``: NotImplemented for an operand that is neither a tensor nor a number (an ndarray is
    NumPy's then, a string Python's TypeError: Note [NumPy operands] in _promote.py)."""

    def method(self, other):
        try:
            return fn(self, other)
        except OperandTypeError:
            return NotImplemented

    return method


def _reflected_shift(fn):
    def method(self, other):
        if not isinstance(other, (int, bool)):
            return NotImplemented
        return fn(wrap(xp.asarray(other, dtype=self._data.dtype)), self)

    return method


def _inplace_shift(fn):
    def method(self, other):
        from .inplace import inplace

        return inplace(self, fn, other)

    return method


def _inplace_unary(fn):
    def method(self):
        from .inplace import inplace

        return inplace(self, fn)

    return method


def positive(input):  # noqa: A002 - torch's name
    """torch.positive(input): input itself (torch returns the same tensor). Raises RuntimeError for bool."""
    _need_tensor("positive", input, "input", 1)
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _rdiv(self, other):
    """Tensor.__rdiv__(other) = other / self, computed as torch's Tensor.__rdiv__ does: self.reciprocal() * other
    (so its node is MulBackward0, and a non-tensor self raises AttributeError)."""
    return self.reciprocal() * other


EXPORTS = dict(
    deg2rad=deg2rad, rad2deg=rad2deg, frexp=frexp, ldexp=ldexp, nextafter=nextafter, signbit=signbit,
    heaviside=heaviside, gcd=gcd, lcm=lcm, bitwise_left_shift=bitwise_left_shift,
    bitwise_right_shift=bitwise_right_shift, positive=positive,
)

TENSOR_METHODS = dict(
    EXPORTS,
    deg2rad_=_inplace_unary(deg2rad), rad2deg_=_inplace_unary(rad2deg), ldexp_=_inplace_shift(ldexp),
    nextafter_=_inplace_shift(nextafter), heaviside_=_inplace_shift(heaviside), gcd_=_inplace_shift(gcd),
    lcm_=_inplace_shift(lcm), bitwise_left_shift_=_inplace_shift(bitwise_left_shift),
    bitwise_right_shift_=_inplace_shift(bitwise_right_shift),
    __lshift__=_shift_operator(bitwise_left_shift), __rshift__=_shift_operator(bitwise_right_shift),
    __rlshift__=_reflected_shift(bitwise_left_shift), __rrshift__=_reflected_shift(bitwise_right_shift),
    __ilshift__=_inplace_shift(bitwise_left_shift), __irshift__=_inplace_shift(bitwise_right_shift),
    __rdiv__=_rdiv,
)
