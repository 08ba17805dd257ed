"""Trigonometric and hyperbolic functions beyond sin and cos (which are in pointwise.py): tan, asin, acos,
atan, sinh, cosh, asinh, acosh, atanh (and their arc* aliases), atan2, hypot and sinc.

Derivative formulas follow PyTorch's tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

from .._backend import xp
from . import complex_support as cs
from ._promote import prepare
from .complex import conj_value as conj
from .exp_log import rsqrt
from .pointwise import (
    _binary_grads,
    _float_binary,
    _float_unary,
    _inplace_method,
    _need_tensor,
    _operand_dtype,
    _quiet,
    _unary,
    _with_inplace_forms,
    cos,
    reciprocal,
    sin,
    where_,
)
from .registry import Op, apply, register


def _acosh_backward(g, x):
    # derivatives.yaml: the real case saves one rsqrt with sqrt(x*y) = sqrt(x) sqrt(y), untrue for complex
    if x._data.dtype.kind == "c":
        return g * conj(rsqrt(x + 1) * rsqrt(x - 1))
    return g * rsqrt(x * x - 1)


TanBackward0 = _unary("TanBackward0", xp.tan, lambda g, y: g * conj(1 + y * y), save="result",
                      doc="tan: grad * (1 + result**2).conj()", complex_grad=True)
AsinBackward0 = _unary("AsinBackward0", _quiet(xp.arcsin), lambda g, x: g * conj(rsqrt(-x * x + 1)),
                       doc="asin: grad * rsqrt(1 - input**2).conj()", complex_grad=True)
AcosBackward0 = _unary("AcosBackward0", _quiet(xp.arccos), lambda g, x: g * -conj(rsqrt(-x * x + 1)),
                       doc="acos: grad * -rsqrt(1 - input**2).conj()", complex_grad=True)
AtanBackward0 = _unary("AtanBackward0", xp.arctan, lambda g, x: g / conj(x * x + 1),
                       doc="atan: grad / (input**2 + 1).conj()", complex_grad=True)
SinhBackward0 = _unary("SinhBackward0", _quiet(xp.sinh), lambda g, x: g * conj(cosh(x)),
                       doc="sinh: grad * cosh(input).conj()", complex_grad=True)
CoshBackward0 = _unary("CoshBackward0", _quiet(xp.cosh), lambda g, x: g * conj(sinh(x)),
                       doc="cosh: grad * sinh(input).conj()", complex_grad=True)
AsinhBackward0 = _unary("AsinhBackward0", xp.arcsinh, lambda g, x: g * conj(rsqrt(x * x + 1)),
                        doc="asinh: grad * rsqrt(input**2 + 1).conj()", complex_grad=True)
AcoshBackward0 = _unary("AcoshBackward0", _quiet(xp.arccosh), _acosh_backward,
                        doc="acosh: grad * rsqrt(input**2 - 1) (complex: (rsqrt(x + 1) * rsqrt(x - 1)).conj())",
                        complex_grad=True)
AtanhBackward0 = _unary("AtanhBackward0", _quiet(xp.arctanh), lambda g, x: g / conj(1 - x * x),
                        doc="atanh: grad / (1 - input**2).conj()", complex_grad=True)


tan = _float_unary(TanBackward0)
asin = arcsin = _float_unary(AsinBackward0)
acos = arccos = _float_unary(AcosBackward0)
atan = arctan = _float_unary(AtanBackward0)
sinh = _float_unary(SinhBackward0)
cosh = _float_unary(CoshBackward0)
asinh = arcsinh = _float_unary(AsinhBackward0)
acosh = arccosh = _float_unary(AcoshBackward0)
atanh = arctanh = _float_unary(AtanhBackward0)


def _sinc_forward(a):
    # torch's kernel: 1 at 0, else sin(pi x) / (pi x) with pi x formed in the working dtype
    with xp.errstate(all="ignore"):
        product = a * a.dtype.type(xp.pi)
        out = xp.sin(product) / product
    return xp.where(a == 0, a.dtype.type(1), out)


def _sinc_backward(g, x):
    x_pi = x * xp.pi
    x_squared_pi = x * x * xp.pi
    out = g * conj((x_pi * cos(x_pi) - sin(x_pi)) / x_squared_pi)
    return where_(x_squared_pi == 0, 0.0, out)


SincBackward0 = _unary("SincBackward0", _sinc_forward, _sinc_backward,
                       doc="sinc: sin(pi x) / (pi x), 1 at 0; backward (FunctionsManual.cpp sinc_backward) "
                           "grad * ((pi x cos(pi x) - sin(pi x)) / (pi x^2)).conj(), 0 where pi x^2 is 0",
                       complex_grad=True)
sinc = _float_unary(SincBackward0)


@register
class Atan2Backward0(Op):
    """atan2(input, other): with r = 1 / (input**2 + other**2): grad * other * r, grad * -input * r; at
    (0, 0) r is taken as 0 (torch's atan2_backward masks the infinite reciprocal), so the gradients are 0 and -0."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return xp.arctan2(a, b)

    def backward(self, g):
        a, b = self.saved()
        denom = a * a + b * b
        r = where_(denom == 0, 0.0, reciprocal(denom))
        need_a, need_b = _binary_grads(self)
        return (g * b * r if need_a else None, g * -a * r if need_b else None)


def atan2(input, other):  # noqa: A002
    _need_tensor("atan2", other)
    x, y = prepare(input, other, true_divide=True)
    if _operand_dtype(x, y).kind == "c":
        raise cs.kernel_error("atan2_cpu", _operand_dtype(x, y))
    return apply(Atan2Backward0, (input, other), (), (x, y))


arctan2 = atan2


@register
class HypotBackward0(Op):
    """hypot(input, other) = sqrt(input**2 + other**2): grad * input / result, grad * other / result."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, b):
        return xp.hypot(a, b)

    def backward(self, g):
        a, b, _ = self.saved()
        r = self.saved_result()
        need_a, need_b = _binary_grads(self)
        return (g * a / r if need_a else None, g * b / r if need_b else None)


hypot = _float_binary(HypotBackward0, "hypot", "hypot_cpu", "f")


# ------------------------------------------------------------------ in-place forms

class _NoInplaceDerivative(Op):
    """The node of an in-place form derivatives.yaml marks ``not_implemented`` (asinh_, acosh_, atanh_):
    the forward is the op's, the backward raises torch's NotImplementedError."""

    def backward(self, g):
        raise NotImplementedError(f"the derivative for 'inplace version of {self.what}' is not implemented.")


def _no_inplace_derivative(name: str, fn):
    stem = name[0].upper() + name[1:]
    return register(type(f"{stem}Backward1", (_NoInplaceDerivative,), {
        "__doc__": f"{name}_ (in place): torch has no derivative for it; its backward raises torch's error.",
        "forward": staticmethod(fn), "what": name, "__module__": __name__,
    }))


_INPLACE_NODE = {name: _no_inplace_derivative(name, fn) for name, fn in (
    ("asinh", AsinhBackward0.forward), ("acosh", AcoshBackward0.forward), ("atanh", AtanhBackward0.forward))}


# ------------------------------------------------------------------ registration
_FUNCTIONS = dict(
    tan=tan, asin=asin, acos=acos, atan=atan, arcsin=asin, arccos=acos, arctan=atan, atan2=atan2, arctan2=atan2,
    sinh=sinh, cosh=cosh, asinh=asinh, acosh=acosh, atanh=atanh, arcsinh=asinh, arccosh=acosh, arctanh=atanh,
    hypot=hypot, sinc=sinc,
)
EXPORTS: dict = dict(_FUNCTIONS)  # dyngrad.<name>
TENSOR_METHODS: dict = _with_inplace_forms(  # Tensor.<name>
    _FUNCTIONS, unary=("tan", "asin", "acos", "atan", "arcsin", "arccos", "arctan", "sinh", "cosh", "sinc"),
    binary=("atan2", "arctan2", "hypot"),
)
for _name, _fn in (("asinh", asinh), ("acosh", acosh), ("atanh", atanh)):  # torch: no derivative in place
    TENSOR_METHODS[_name + "_"] = TENSOR_METHODS["arc" + _name[1:] + "_"] = _inplace_method(_fn, _INPLACE_NODE[_name])
SPECIAL_EXPORTS: dict = {"sinc": sinc}  # dyngrad.special.<name>
