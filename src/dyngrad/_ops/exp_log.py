"""Exponentials, logarithms and the error functions: exp2, expm1, log2, log10, log1p, rsqrt, erf, erfc,
erfinv, xlogy, logaddexp and logit (exp, log and sqrt themselves are in pointwise.py).

Derivative formulas follow PyTorch's tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor, wrap
from . import complex_support as cs
from ._promote import prepare
from .complex import conj_value as conj
from .pointwise import (
    _binary_grads,
    _float_binary,
    _float_input,
    _float_unary,
    _operand_dtype,
    _quiet,
    _unary,
    _with_inplace_forms,
    exp,
    where_,
)
from .registry import Op, apply, register

_LN2 = 0.6931471805599453
_LN10 = 2.302585092994046
_TWO_OVER_SQRTPI = 1.1283791670955126  # 2 / sqrt(pi)


# ------------------------------------------------------------------ unary, float results

def _log1p_backward(g, x):
    return g / conj(x + 1)


Exp2Backward0 = _unary("Exp2Backward0", _quiet(xp.exp2), lambda g, y: g * conj(y) * _LN2, save="result",
                       doc="exp2: grad * result.conj() * ln(2)", complex_grad=True)
Expm1Backward0 = _unary("Expm1Backward0", _quiet(xp.expm1), lambda g, y: g * (conj(y) + 1), save="result",
                        doc="expm1: grad * (result.conj() + 1)", complex_grad=True)
Log2Backward0 = _unary("Log2Backward0", _quiet(xp.log2), lambda g, x: g / (conj(x) * _LN2),
                       doc="log2: grad / (input.conj() * ln(2))", complex_grad=True)
Log10Backward0 = _unary("Log10Backward0", _quiet(xp.log10), lambda g, x: g / (conj(x) * _LN10),
                        doc="log10: grad / (input.conj() * ln(10))", complex_grad=True)
Log1PBackward0 = _unary("Log1PBackward0", _quiet(xp.log1p), _log1p_backward, doc="log1p: grad / (input + 1).conj()",
                        complex_grad=True)
RsqrtBackward0 = _unary("RsqrtBackward0", _quiet(lambda a: 1 / xp.sqrt(a)), lambda g, y: -0.5 * g * conj(y**3),
                        save="result", doc="rsqrt: -0.5 * grad * (result**3).conj()", complex_grad=True)


def _erf_forward(a):
    from .special import erf as _erf

    return _erf(a)


def _erfc_forward(a):
    from .special import erfc as _erfc

    return _erfc(a)


def _erfinv_forward(a):
    from .special import erfinv as _erfinv

    return _erfinv(a)


ErfBackward0 = _unary("ErfBackward0", _erf_forward, lambda g, x: _TWO_OVER_SQRTPI * exp(-(x * x)) * g,
                      doc="erf: 2 / sqrt(pi) * exp(-input**2) * grad (forward: special.erf, Cody's approximation)")
ErfcBackward0 = _unary("ErfcBackward0", _erfc_forward, lambda g, x: -_TWO_OVER_SQRTPI * exp(-(x * x)) * g,
                       doc="erfc: -2 / sqrt(pi) * exp(-input**2) * grad")
ErfinvBackward0 = _unary("ErfinvBackward0", _erfinv_forward, lambda g, y: (0.5 * 1.7724538509055159) * exp(y * y) * g,
                         save="result", doc="erfinv: sqrt(pi) / 2 * exp(erfinv(input)**2) * grad")


exp2 = _float_unary(Exp2Backward0)
expm1 = _float_unary(Expm1Backward0)
log2 = _float_unary(Log2Backward0)
log10 = _float_unary(Log10Backward0)
log1p = _float_unary(Log1PBackward0)
rsqrt = _float_unary(RsqrtBackward0)
erf = _float_unary(ErfBackward0, "erf_vml_cpu")
erfc = _float_unary(ErfcBackward0, "erfc_vml_cpu")
erfinv = _float_unary(ErfinvBackward0, "erfinv_vml_cpu")


def _xlogy_array(x, y):
    with xp.errstate(all="ignore"):
        out = x * xp.log(y)
    # torch: 0 where x == 0 (even for y <= 0 or inf), nan wherever y is nan.
    out = xp.where((x == 0) & ~xp.isnan(y), 0, out)
    return out.astype(xp.result_type(x, y), copy=False) if hasattr(out, "astype") else out


@register
class XlogyBackward0(Op):
    """xlogy(input, other) = input * log(other) (0 where input == 0).

    d/dinput = xlogy(grad, other), 0 where input == 0 and other <= 0; d/dother = grad * input / other.
    """

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return _xlogy_array(a, b)

    def backward(self, g):
        a, b = self.saved()
        need_a, need_b = _binary_grads(self)
        ga = where_((a == 0) & (b <= 0), 0.0, xlogy(g, b)) if need_a else None
        return ga, (g * a / b if need_b else None)


@register
class XlogyBackward1(Op):
    """xlogy(self: Scalar, other): d/dother = grad * self / other."""

    save_inputs = True

    @staticmethod
    def forward(b, a):
        return _xlogy_array(xp.asarray(a, dtype=b.dtype), b)

    def backward(self, g):
        (b,) = self.saved()
        return (g * self._params[0] / b,)


@register
class XlogyBackward2(Op):
    """xlogy(input, other: Scalar): d/dinput = xlogy(grad, other), 0 where input == 0 when other <= 0."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return _xlogy_array(a, xp.asarray(b, dtype=a.dtype))

    def backward(self, g):
        (a,) = self.saved()
        other = self._params[0]
        gx = xlogy(g, other)
        return (gx if other > 0 else where_(a == 0, 0.0, gx),)


def xlogy(input, other):  # noqa: A002
    """torch.xlogy: int inputs give the default float dtype; no complex kernel, as torch."""
    if not isinstance(input, Tensor):
        x, y = prepare(input, other, true_divide=True)
        cs.no_complex(y, "xlogy_cpu")
        return apply(XlogyBackward1, (other,), (float(x),), (y,))
    x, y = prepare(input, other, true_divide=True)
    if _operand_dtype(x, y).kind == "c":
        raise cs.kernel_error("xlogy_cpu", _operand_dtype(x, y))
    if not isinstance(other, Tensor):
        return apply(XlogyBackward2, (input,), (float(y),), (x,))
    return apply(XlogyBackward0, (input, other), (), (x, y))


@register
class LogaddexpBackward0(Op):
    """logaddexp(input, other) = log(exp(input) + exp(other)) (complex: ATen's _log_add_exp_helper).

    Backward (derivatives.yaml): grad / (1 + exp(other - input)).conj() and symmetric.
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, b):
        if a.dtype.kind == "c":
            return cs.logaddexp(a, b)
        return xp.logaddexp(a, b)

    def backward(self, g):
        a, b = self.saved()
        need_a, need_b = _binary_grads(self)
        return (g / conj(1 + exp(b - a)) if need_a else None, g / conj(1 + exp(a - b)) if need_b else None)


logaddexp = _float_binary(LogaddexpBackward0, "logaddexp", "logaddexp_cpu")


# ------------------------------------------------------------------ logit
@register
class LogitBackward0(Op):
    """logit(input, eps=None) = log(z / (1 - z)), z = input clamped to [eps, 1 - eps] (eps >= 0 only).

    Float/complex in, integers promote to the default float. Backward (derivatives.yaml:
    infinitely_differentiable_logit_backward): grad / (x (1 - x)) where eps <= x <= 1 - eps and 0 elsewhere;
    without eps, grad / (x (1 - x)) inside [0, 1] (inf at 0 and 1) and NaN outside. A negative eps does not
    clamp the forward but does bound the gradient to [eps, 1 - eps], as torch's.
    """

    save_inputs = True

    @staticmethod
    def forward(a, eps):
        z = a if eps is None or eps < 0 else xp.clip(a, eps, 1 - eps)
        return xp.log(z / (1 - z))

    def backward(self, g):
        (x,) = self.saved()
        eps = self._params[0]
        # torch's formula takes a given eps literally here, a negative one too (whose forward does not clamp)
        lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
        inside = (x >= lo).logical_and(x <= hi)
        if eps is not None:
            return (where_(inside, g / (x * (1 - x)), 0.0),)
        # torch's NaN outside [0, 1], written as a constant factor (1 inside, NaN outside) of a formula linear
        # in g: forward AD derives its tangent from it (Note [Tangents from the backward formulas]) and so gets
        # torch's NaN there, where a NaN branch of the where would be lost
        nan_outside = wrap(xp.where(inside._data, 1.0, xp.nan).astype(x._data.dtype))
        return (where_(inside, g / (x * (1 - x)), g) * nan_outside,)

    def backward_arrays(self, g):
        """Under a plain backward torch runs its logit_backward kernel instead, which treats a negative eps
        as no eps (NaN outside [0, 1]); this path is the same choice (Note [Backward on arrays])."""
        (x,) = self.saved()
        x = x._data
        eps = self._params[0]
        if eps is None or eps < 0:
            lo, hi, outside = 0.0, 1.0, xp.nan
        else:
            lo, hi, outside = eps, 1.0 - eps, 0.0
        out = xp.where((x >= lo) & (x <= hi), g / (x * (1 - x)), xp.asarray(outside, dtype=x.dtype))
        return (wrap(out.astype(x.dtype, copy=False)),)


def logit(input: Tensor, eps=None) -> Tensor:  # noqa: A002 - torch's name
    """torch.logit(input, eps=None) (LogitBackward0); no complex kernel, as torch."""
    cs.no_complex(input._data, "logit_cpu")
    return apply(LogitBackward0, (input,), (eps,), _float_input(input))


# ------------------------------------------------------------------ registration
_FUNCTIONS = dict(
    exp2=exp2, expm1=expm1, log2=log2, log10=log10, log1p=log1p, rsqrt=rsqrt, erf=erf, erfc=erfc, erfinv=erfinv,
    xlogy=xlogy, logaddexp=logaddexp, logit=logit,
)
EXPORTS: dict = dict(_FUNCTIONS)  # dyngrad.<name>
TENSOR_METHODS: dict = _with_inplace_forms(  # Tensor.<name>
    _FUNCTIONS, unary=("exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "erf", "erfc", "erfinv"),
    binary=("xlogy", "logit"),
)
