"""Sign and rounding: sign, copysign, floor, ceil, round (with decimals), trunc/fix, frac and nan_to_num.

Derivative formulas follow PyTorch's tools/autograd/derivatives.yaml (zero gradients for the step functions).
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from . import complex_support as cs
from ._promote import prepare
from .pointwise import (
    _binary_grads,
    _operand_dtype,
    _real_float_only,
    _unary,
    _with_inplace_forms,
    where_,
)
from .registry import Op, apply, register

# ------------------------------------------------------------------ unary, dtype kept

def _sign_forward(a):
    if a.dtype.kind == "b":
        return a.copy()
    if a.dtype.kind in FLOATING_KINDS:
        return xp.where(xp.isnan(a), 0, xp.sign(a))  # torch: sign(nan) is 0
    return xp.sign(a)


SignBackward0 = _unary("SignBackward0", _sign_forward, lambda g, _: g * 0, save="none",
                       doc="sign: zero gradient everywhere (derivatives.yaml: zeros_like(grad)); sign(nan) = 0 as torch")
FloorBackward0 = _unary("FloorBackward0", xp.floor, lambda g, _: g * 0, save="none", doc="floor: zero gradient")
CeilBackward0 = _unary("CeilBackward0", xp.ceil, lambda g, _: g * 0, save="none", doc="ceil: zero gradient")
RoundBackward0 = _unary("RoundBackward0", xp.rint, lambda g, _: g * 0, save="none",
                        doc="round: half to even, zero gradient")
TruncBackward0 = _unary("TruncBackward0", xp.trunc, lambda g, _: g * 0, save="none", doc="trunc: zero gradient")
FracBackward0 = _unary("FracBackward0", lambda a: a - xp.trunc(a), lambda g, _: g, save="none",
                       doc="frac: input - trunc(input); gradient passes unchanged")


@register
class RoundBackward1(Op):
    """round(input, decimals=d): rint(x * 10**d) / 10**d (d < 0: rint(x / 10**-d) * 10**-d), as torch; zero gradient."""

    @staticmethod
    def forward(a, decimals):
        if decimals > 0:
            ten = float(10**decimals)
            return xp.rint(a * ten) / ten
        ten = float(10 ** (-decimals))
        return xp.rint(a / ten) * ten

    def backward(self, g):
        return (g * 0,)


def sign(input):  # noqa: A002
    if input._data.dtype.kind == "c":
        raise NotImplementedError(cs.SIGN)
    return apply(SignBackward0, (input,))


def _rounding(op, kernel, complex_text=None):
    """``complex_text``: torch's own refusal of complex input (floor/ceil/trunc); else its kernel error."""

    def fn(input, **kwargs):  # noqa: A002
        d = input._data
        kind = d.dtype.kind
        if kind == "b":
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        if kind in "iu":
            return wrap(d.copy())
        if kind == "c":
            raise NotImplementedError(complex_text) if complex_text else cs.kernel_error(kernel, d.dtype)
        return apply(op, (input,))

    return fn


floor = _rounding(FloorBackward0, "floor_vml_cpu", "floor is not supported for complex inputs")
ceil = _rounding(CeilBackward0, "ceil_vml_cpu", "ceil is not supported for complex inputs")
trunc = fix = _rounding(TruncBackward0, "trunc_vml_cpu", "trunc is not supported for complex inputs")
_round0 = _rounding(RoundBackward0, "round_vml_cpu")


_NO_DECIMALS = object()  # round() called without ``decimals``: torch's other overload


def round(input, decimals=_NO_DECIMALS):  # noqa: A001, A002 - torch's names
    """round(input, *, decimals=0): half to even.

    Without ``decimals`` this is torch's round() (RoundBackward0, integers copied); with ``decimals`` given,
    even 0, it is round.decimals (RoundBackward1, floating point only: torch's round_vml_cpu error for
    decimals=0, round_cpu otherwise)."""
    if decimals is _NO_DECIMALS:
        return _round0(input)
    _real_float_only(input, "round_vml_cpu" if decimals == 0 else "round_cpu")
    return apply(RoundBackward1, (input,), (int(decimals),))


def frac(input):  # noqa: A002
    _real_float_only(input, "frac_cpu")
    return apply(FracBackward0, (input,))


@register
class NanToNumBackward0(Op):
    """nan_to_num(input, nan=0, posinf=None, neginf=None): grad * isfinite(input)."""

    save_inputs = True

    @staticmethod
    def forward(a, nan, posinf, neginf):
        return xp.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)

    def backward(self, g):
        (x,) = self.saved()
        return (g * wrap(xp.isfinite(x._data)),)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    d = input._data
    if d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        return wrap(d.copy())
    return apply(NanToNumBackward0, (input,), (nan, posinf, neginf))


def _copysign_grad(g, x, r):
    # copysign_tensor_self_backward: grad * result / input, 0 where input == 0.
    ratio = where_(x == 0, 0.0, r / x)
    return g * ratio


@register
class CopysignBackward0(Op):
    """copysign(input, other: Tensor): |input| with other's sign; d/dinput = grad * result / input (0 at 0), d/dother = 0."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, b):
        return xp.copysign(a, b)

    def backward(self, g):
        a, _, _ = self.saved()
        need_a, need_b = _binary_grads(self)
        return (_copysign_grad(g, a, self.saved_result()) if need_a else None, g * 0 if need_b else None)


@register
class CopysignBackward1(Op):
    """copysign(input, other: Scalar)."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, b):
        return xp.copysign(a, xp.asarray(b, dtype=a.dtype))

    def backward(self, g):
        a, _ = self.saved()
        return (_copysign_grad(g, a, self.saved_result()),)


def copysign(input, other):  # noqa: A002
    x, y = prepare(input, other, true_divide=True)
    if _operand_dtype(x, y).kind == "c":
        raise cs.kernel_error("copysign_cpu", _operand_dtype(x, y))
    if not isinstance(other, Tensor):
        return apply(CopysignBackward1, (input,), (float(y),), (x,))
    return apply(CopysignBackward0, (input, other), (), (x, y))


# ------------------------------------------------------------------ registration
_FUNCTIONS = dict(
    sign=sign, floor=floor, ceil=ceil, round=round, trunc=trunc, fix=fix, frac=frac, nan_to_num=nan_to_num,
    copysign=copysign,
)
EXPORTS: dict = dict(_FUNCTIONS)  # dyngrad.<name>
TENSOR_METHODS: dict = _with_inplace_forms(  # Tensor.<name>
    _FUNCTIONS, unary=("sign", "floor", "ceil", "round", "trunc", "fix", "frac", "nan_to_num"), binary=("copysign",),
)
