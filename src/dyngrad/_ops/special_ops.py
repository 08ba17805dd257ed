"""torch.special (gamma, zeta and error-function families) and the torch-level special functions,
as registry ops with torch's grad_fn names, gradients, dtypes and errors.

Kernels: _ops/gamma.py (lgamma, digamma, polygamma, zeta), _ops/incomplete_gamma.py (igamma,
igammac), _ops/gaussian.py (erfcx, ndtri, log_ndtr), _ops/special.py (erf, erfc, erfinv), and below
(sinc, entr, xlog1py, logaddexp2). Gradient formulas: PyTorch's tools/autograd/derivatives.yaml
(and FunctionsManual.cpp for sinc_backward and mvlgamma_backward), each written with dyngrad ops so
that second-order gradients come from them.

Inputs: real tensors. Bool and integer tensors become the default float dtype where torch promotes
them (not for igamma, igammac and logaddexp2, which raise as torch does); complex tensors raise
torch's NotImplementedError (torch.sinc takes complex: not yet here).

``dyngrad.special`` gets SPECIAL_EXPORTS: the functions above plus torch's aliases of existing ops
(expit = sigmoid, gammaln = lgamma, psi = digamma, multigammaln = mvlgamma, gammainc = igamma, ...),
each with the ``special_<name>`` of torch's argument errors.
"""

from __future__ import annotations

import math
import operator
import types

from .._backend import xp
from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS, default_float_np, scalar_type_name
from .._tensor import Tensor, wrap
from ..autograd import forward_ad as _fw_ad
from . import exp_log, nn_kernels, reduction, rounding, trigonometric
from . import gamma as _gamma
from . import gaussian as _gaussian
from . import incomplete_gamma as _igamma
from . import pointwise as pw
from ._promote import prepare
from .registry import Op, apply, register

_f64, _f32, _f16 = xp.float64, xp.float32, xp.float16
_SQRT_2PI = math.sqrt(2 * math.pi)
_TWO_OVER_SQRTPI = 2.0 / math.sqrt(math.pi)
_INV_LN2 = 1.0 / math.log(2.0)
_SQRT1_2 = math.sqrt(0.5)


# ====================================================================== argument checks
def _type_of(value) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def _need_tensor(fn: str, value, arg: str = "input", position: int = 1) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be Tensor, not {_type_of(value)}")


def _need_int(fn: str, value, arg: str, position: int) -> int:
    """An int argument (Python, NumPy or 0-d integer tensor), or torch's TypeError."""
    if isinstance(value, bool) or isinstance(value, float):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be int, not {type(value).__name__}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be int, not {_type_of(value)}") from None


def _not_implemented(kernel: str, npd) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(npd)}'")


def _unary_input(fn: str, a, kernel: str, half: bool = True):
    """The float array a unary special function computes on: bool/int promote to the default float;
    complex (and float16 where torch has no half kernel) raise torch's NotImplementedError."""
    _need_tensor(fn, a)
    d = a._data
    kind = d.dtype.kind
    if kind in FLOATING_KINDS:
        if d.dtype == _f16 and not half:
            raise _not_implemented(kernel, d.dtype)
        return d
    if kind == "c":
        raise _not_implemented(kernel, d.dtype)
    return d.astype(default_float_np())


def _binary_grads(node) -> tuple:
    return node.next_functions[0][0] is not None, node.next_functions[1][0] is not None


def _no_derivative(what: str) -> NotImplementedError:
    return NotImplementedError(f"the derivative for '{what}' is not implemented.")


def _check_no_forward_ad(name: str, inputs) -> None:
    """torch has no forward-mode formula for igamma, igammac and special_zeta: a dual input raises."""
    if _fw_ad.STATE.active and _fw_ad.has_tangent(inputs):
        raise NotImplementedError(
            f"Trying to use forward AD with {name} that does not support it because it has not been implemented yet."
            "\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-"
            "request.yml so that we can prioritize its implementation or submit a PR adding the implementation to "
            "derivatives.yaml")


# ====================================================================== lgamma, digamma, polygamma
@register
class LgammaBackward0(Op):
    """lgamma(input) = log|Gamma(input)| (kernel: _ops/gamma.py). Backward (derivatives.yaml):
    grad * digamma(input)."""

    save_inputs = True

    @staticmethod
    def forward(a):
        return _gamma.lgamma(a)

    def backward(self, g):
        (x,) = self.saved()
        return (g * digamma(x),)

    def backward_arrays(self, g):
        return (wrap(g * _gamma.digamma(self.saved()[0]._data)),)


@register
class DigammaBackward0(Op):
    """digamma(input) = psi(input), torch's calc_digamma. Backward: grad * polygamma(1, input)."""

    save_inputs = True

    @staticmethod
    def forward(a):
        return _gamma.digamma(a)

    def backward(self, g):
        (x,) = self.saved()
        return (g * polygamma(1, x),)

    def backward_arrays(self, g):
        return (wrap(g * _gamma.trigamma(self.saved()[0]._data)),)


@register
class PolygammaBackward0(Op):
    """polygamma(n, input), the n-th derivative of digamma. Backward: grad * polygamma(n + 1, input)."""

    save_inputs = True

    @staticmethod
    def forward(a, n):
        return _gamma.polygamma(n, a)

    def backward(self, g):
        (x,) = self.saved()
        return (g * polygamma(self._params[0] + 1, x),)

    def backward_arrays(self, g):
        return (wrap(g * _gamma.polygamma(self._params[0] + 1, self.saved()[0]._data)),)


def lgamma(input):  # noqa: A002 - torch's name
    """torch.lgamma(input): log|Gamma(input)| elementwise (LgammaBackward0).

    Shapes: any; dtype: float16/32/64 kept, bool and integers give the default float dtype.
    +inf at the poles (0, -1, -2, ...) and at +-inf. Raises TypeError for a non-tensor,
    NotImplementedError for complex input. Source: see _ops/gamma.py (Stirling's series, a Pade
    approximant of the Taylor series at 2 and 3/2, the reflection formula).
    """
    return apply(LgammaBackward0, (input,), (), (_unary_input("lgamma", input, "lgamma_vml_cpu"),))


def digamma(input):  # noqa: A002
    """torch.digamma(input): psi(input) = d/dx log Gamma(x) (DigammaBackward0).

    Dtypes as lgamma. psi(-+0) = +-inf, psi at negative integers and -inf is nan. Computed as torch's
    calc_digamma (Cephes psi: recurrence to x >= 10, asymptotic series; reflection for x < 0), in
    float32 for float32 input, as torch.
    """
    return apply(DigammaBackward0, (input,), (), (_unary_input("digamma", input, "digamma"),))


def _polygamma(fn: str, n, input, n_position: int = 1):  # noqa: A002
    n = _need_int(fn, n, "n", n_position)
    _need_tensor(fn, input, "input", n_position + 1)
    d = _unary_input(fn, input, "polygamma")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return apply(PolygammaBackward0, (input,), (n,), (d,))


def polygamma(n, input):  # noqa: A002
    """torch.polygamma(n, input): the n-th derivative of digamma (PolygammaBackward0, n >= 0).

    n = 0 is digamma, n = 1 torch's trigamma, n >= 2 (-1)^(n+1) n! zeta(n + 1, x) (Cephes zeta).
    Dtypes as lgamma. Raises TypeError for a non-int n or non-tensor input, RuntimeError for n < 0.
    """
    return _polygamma("polygamma", n, input)


# ====================================================================== mvlgamma
@register
class MvlgammaBackward0(Op):
    """mvlgamma(input, p) = sum_{j<p} lgamma(input - j/2) + p (p - 1) / 4 log(pi), the log of the
    multivariate gamma function (torch's native mvlgamma, in the input's dtype).

    Backward (FunctionsManual.cpp mvlgamma_backward): grad * sum_j digamma(input - j/2).
    """

    save_inputs = True

    @staticmethod
    def forward(a, p):
        offsets = _mvlgamma_offsets(p, a.dtype)
        total = _gamma.lgamma(a[..., None] + offsets).sum(axis=-1)
        total += a.dtype.type(p * (p - 1) * math.log(math.pi) * 0.25)
        return total

    def backward(self, g):
        (x,) = self.saved()
        offsets = wrap(_mvlgamma_offsets(self._params[0], x._data.dtype))
        return (g * digamma(x.unsqueeze(-1) + offsets).sum(-1),)


def _mvlgamma_offsets(p: int, dtype):
    """torch's arange(-p/2 + 1/2, 1/2, 1/2): -(p-1)/2, ..., -1/2, 0."""
    return (xp.arange(p, dtype=_f64) * 0.5 - (p - 1) * 0.5).astype(dtype)


def _mvlgamma(fn: str, input, p, p_position: int = 2):  # noqa: A002
    _need_tensor(fn, input)
    p = _need_int(fn, p, "p", p_position)
    d = input._data
    if d.dtype.kind == "c":
        raise _not_implemented("arange_cpu", d.dtype)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if d.dtype.kind not in FLOATING_KINDS:
        d = d.astype(default_float_np())
    return apply(MvlgammaBackward0, (input,), (p,), (d,))


def mvlgamma(input, p):  # noqa: A002
    """torch.mvlgamma(input, p): log of the multivariate gamma function of dimension p (MvlgammaBackward0).

    Dtypes as lgamma. Raises RuntimeError for p < 1, TypeError for a non-int p. Like torch 2.13, no
    check that input > (p - 1) / 2: lgamma's poles give inf there.
    """
    return _mvlgamma("mvlgamma", input, p)


# ====================================================================== incomplete gamma
def _incomplete_gamma_backward(node, g, sign, what):
    a, x = node.saved()
    need_a, need_x = _binary_grads(node)
    if need_a:  # derivatives.yaml: not_implemented("igamma: input")
        raise _no_derivative(what)
    grad_x = pw.exp((a - 1) * pw.log(x) - x - lgamma(a))
    return None, (g * grad_x if sign > 0 else -g * grad_x)


@register
class IgammaBackward0(Op):
    """igamma(input, other): the regularized lower incomplete gamma function P(input, other).

    Backward (derivatives.yaml): input: not implemented (NotImplementedError); other:
    grad * exp((input - 1) * log(other) - other - lgamma(input)).
    """

    save_inputs = True

    @staticmethod
    def forward(a, x):
        return _igamma.igamma(a, x)

    def backward(self, g):
        return _incomplete_gamma_backward(self, g, 1, "igamma: input")


@register
class IgammacBackward0(Op):
    """igammac(input, other) = Q(input, other) = 1 - P. Backward: input: not implemented; other:
    -grad * exp((input - 1) * log(other) - other - lgamma(input))."""

    save_inputs = True

    @staticmethod
    def forward(a, x):
        return _igamma.igammac(a, x)

    def backward(self, g):
        return _incomplete_gamma_backward(self, g, -1, "igammac: input")


def _incomplete_gamma(op, fn: str, kernel: str, input, other, other_position: int = 2):  # noqa: A002
    if other_position == 2:
        _need_tensor(fn, input)
    _need_tensor(fn, other, "other", other_position)
    a, x = prepare(input, other)
    if a.dtype.kind not in FLOATING_KINDS:  # no promotion of integers: torch's kernel has no integer case
        raise _not_implemented(kernel, a.dtype)
    _check_no_forward_ad(kernel.removesuffix("_cpu"), (input, other))
    return apply(op, (input, other), (), (a, x))


def igamma(input, other):  # noqa: A002
    """torch.igamma(input, other): P(input, other) = gamma(input, other) / Gamma(input), elementwise
    with broadcasting (IgammaBackward0; special.gammainc).

    dtype: torch's promotion of the two tensors; it must be floating (NotImplementedError otherwise).
    Boundaries: nan for input < 0 or other < 0; P(0, x > 0) = 1, P(a, 0) = 0, P(inf, x) = 0,
    P(a, inf) = 1, P(inf, inf) = nan. Gradient for ``other`` only; for ``input`` backward raises
    NotImplementedError, as torch. Source: _ops/incomplete_gamma.py (Cephes/SciPy igam, Temme).
    """
    return _incomplete_gamma(IgammaBackward0, "igamma", "igamma_cpu", input, other)


def igammac(input, other):  # noqa: A002
    """torch.igammac(input, other): Q(input, other) = 1 - P(input, other) (IgammacBackward0;
    special.gammaincc). As igamma otherwise."""
    return _incomplete_gamma(IgammacBackward0, "igammac", "igammac_cpu", input, other)


# ====================================================================== zeta
def _invalid_combination(fn: str, first, second) -> TypeError:
    return TypeError(
        f"{fn}() received an invalid combination of arguments - got ({_type_of(first)}, {_type_of(second)}), "
        "but expected one of:\n * (Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n"
    )


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) or (hasattr(value, "dtype") and getattr(value, "ndim", 1) == 0
                                                 and not isinstance(value, Tensor))


def _scalar_variants(fn: str, input, other):  # noqa: A002
    """Which overload of a (Tensor|Number, Tensor|Number) function torch picks: 0 both tensors,
    1 a number and a tensor, 2 a tensor and a number; torch's TypeError otherwise."""
    if isinstance(input, Tensor) and isinstance(other, Tensor):
        return 0
    if isinstance(other, Tensor) and _is_number(input):
        return 1
    if isinstance(input, Tensor) and _is_number(other):
        return 2
    raise _invalid_combination(fn, input, other)


@register
class SpecialZetaBackward0(Op):
    """special.zeta(input: Tensor, other: Tensor): Hurwitz zeta(input, other) = sum_k (k + other)^-input.

    Backward (derivatives.yaml): input: not implemented; other: grad * -input * zeta(input + 1, other).
    """

    save_inputs = True

    @staticmethod
    def forward(x, q):
        return _gamma.zeta(x, q)

    def backward(self, g):
        x, q = self.saved()
        need_x, _ = _binary_grads(self)
        if need_x:
            raise _no_derivative("zeta")
        return None, g * -x * zeta(x + 1.0, q)


@register
class SpecialZetaBackward1(Op):
    """special.zeta(input: Number, other: Tensor). Backward: other: grad * -input * zeta(input + 1, other)."""

    save_inputs = True

    @staticmethod
    def forward(q, x):
        return _gamma.zeta(xp.asarray(x, dtype=q.dtype), q)

    def backward(self, g):
        (q,) = self.saved()
        x = self._params[0]
        return (g * -x * zeta(x + 1.0, q),)


@register
class SpecialZetaBackward2(Op):
    """special.zeta(input: Tensor, other: Number). Backward: input: not implemented."""

    @staticmethod
    def forward(x, q):
        return _gamma.zeta(x, xp.asarray(q, dtype=x.dtype))

    def backward(self, g):
        raise _no_derivative("zeta")


def zeta(input, other):  # noqa: A002
    """special.zeta(input, other): the Hurwitz zeta function zeta(x, q) = sum_{k>=0} (k + q)^-x, with
    broadcasting; either argument may be a Python number (not both).

    Nodes: SpecialZetaBackward0 (two tensors), ...Backward1 (number, tensor), ...Backward2 (tensor,
    number). dtype: torch's promotion, integers to the default float; float16 and complex raise
    NotImplementedError. Values: inf at x = 1 and at non-positive integers q, nan for x < 1 and for
    q < 0 with x not an integer. Gradient only with respect to q (NotImplementedError for x, as torch).
    Source: Cephes zeta as torch's Math.h (_ops/gamma.py).
    """
    variant = _scalar_variants("special_zeta", input, other)
    x, q = prepare(input, other, true_divide=True)
    dt = (q if variant == 1 else x).dtype
    if dt.kind == "c" or dt == _f16:
        raise _not_implemented("zeta_cpu", dt)
    _check_no_forward_ad("special_zeta", (input, other))
    if variant == 0:
        return apply(SpecialZetaBackward0, (input, other), (), (x, q))
    if variant == 1:
        return apply(SpecialZetaBackward1, (other,), (float(x),), (q,))
    return apply(SpecialZetaBackward2, (input,), (float(q),), (x,))


# ====================================================================== erfcx, ndtri, log_ndtr, ndtr
@register
class SpecialErfcxBackward0(Op):
    """special.erfcx(input) = exp(input^2) erfc(input). Backward (derivatives.yaml):
    (2 * input * result - 2 / sqrt(pi)) * grad."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a):
        return _gaussian.erfcx(a)

    def backward(self, g):
        x = self.saved()[0]
        return ((2.0 * x * self.saved_result() - _TWO_OVER_SQRTPI) * g,)


@register
class SpecialNdtriBackward0(Op):
    """special.ndtri(input): the standard normal quantile. Backward: grad * sqrt(2 pi) * exp(result^2 / 2)."""

    save_result = True

    @staticmethod
    def forward(a):
        return _gaussian.ndtri(a)

    def backward(self, g):
        r = self.saved_result()
        return (g * _SQRT_2PI * pw.exp(r * r / 2),)


@register
class SpecialLogNdtrBackward0(Op):
    """special.log_ndtr(input) = log Phi(input). Backward: grad / sqrt(2 pi) * exp(-(result + input^2 / 2))."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a):
        return _gaussian.log_ndtr(a)

    def backward(self, g):
        x = self.saved()[0]
        return (g / _SQRT_2PI * pw.exp(-(self.saved_result() + x * x / 2)),)


def erfcx(input):  # noqa: A002
    """special.erfcx(input) = exp(input^2) * erfc(input), finite where erfc underflows
    (SpecialErfcxBackward0). float32/float64 (bool/int to the default float); float16 and complex
    raise NotImplementedError. Source: _ops/gaussian.py (Cody's scaled erfc; torch's regimes beyond)."""
    return apply(SpecialErfcxBackward0, (input,), (), (_unary_input("special_erfcx", input, "erfcx_cpu", False),))


def ndtri(input):  # noqa: A002
    """special.ndtri(input): x with Phi(x) = input on [0, 1] (-inf at 0, inf at 1, nan outside)
    (SpecialNdtriBackward0). Dtypes as erfcx. Source: Cephes ndtri, as torch's calc_ndtri."""
    return apply(SpecialNdtriBackward0, (input,), (), (_unary_input("special_ndtri", input, "ndtri_cpu", False),))


def log_ndtr(input):  # noqa: A002
    """special.log_ndtr(input) = log Phi(input), accurate far in the left tail (SpecialLogNdtrBackward0).
    Dtypes as erfcx. Source: torch's calc_log_ndtr (log of erfcx for input < -1, log1p of erfc above)."""
    d = _unary_input("special_log_ndtr", input, "log_ndtr_cpu", False)
    return apply(SpecialLogNdtrBackward0, (input,), (), (d,))


@register
class MulBackward1(Op):
    """mul(input, other: Scalar), the C++ overload torch's composite special functions call
    (``self * 0.5``): grad * other."""

    @staticmethod
    def forward(a, c):
        return a * a.dtype.type(c)

    def backward(self, g):
        return (g * self._params[0],)


@register
class AddBackward1(Op):
    """add(input, other: Scalar) (``1 + tensor`` in torch's C++): the gradient passes unchanged."""

    @staticmethod
    def forward(a, c):
        return a + a.dtype.type(c)

    def backward(self, g):
        return (g,)


def ndtr(input):  # noqa: A002
    """special.ndtr(input) = Phi(input) = (1 + erf(input / sqrt 2)) / 2, composed as torch's
    special_ndtr: (1 + erf(input * M_SQRT1_2)) * 0.5, so its nodes are MulBackward1 <- AddBackward1 <-
    ErfBackward0 <- MulBackward1. Dtypes as lgamma (float16 too)."""
    d = _unary_input("special_ndtr", input, "erf_vml_cpu")
    x = input if d is input._data else wrap(d)
    scaled = apply(MulBackward1, (x,), (_SQRT1_2,))
    return apply(MulBackward1, (apply(AddBackward1, (exp_log.erf(scaled),), (1.0,)),), (0.5,))


# ====================================================================== sinc, entr
def _sinc_kernel(a):
    """sin(pi a) / (pi a), 1 at 0; the product pi * a in the input's opmath type as torch's kernel
    (float32 for float32 and float16, whose sine is the float64 one rounded: a correctly rounded sinf)."""
    if a.dtype == _f64:
        product = math.pi * a
        s = xp.sin(product)
    else:
        product = _f32(math.pi) * a.astype(_f32)
        s = xp.sin(product.astype(_f64)).astype(_f32)
    out = xp.where(a == 0, s.dtype.type(1), s / product)
    return out.astype(a.dtype, copy=False)


@register
class SincBackward0(Op):
    """sinc(input) = sin(pi x) / (pi x), 1 at 0 (normalized sinc).

    Backward (FunctionsManual.cpp sinc_backward): grad * (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0
    where pi x^2 == 0.
    """

    save_inputs = True

    @staticmethod
    def forward(a):
        return _sinc_kernel(a)

    def backward(self, g):
        (x,) = self.saved()
        self_pi = x * math.pi
        self_squared_pi = x * x * math.pi
        out = g * ((self_pi * pw.cos(self_pi) - pw.sin(self_pi)) / self_squared_pi)
        return (pw.where_(self_squared_pi == 0, 0.0, out),)


def sinc(input):  # noqa: A002
    """torch.sinc(input): the normalized sinc sin(pi x) / (pi x), 1 at 0 (SincBackward0).

    Dtypes as lgamma; complex input takes trigonometric.sinc's complex formula (same node name; imported
    above, so that this module's SincBackward0, declared later, is the one REGISTRY lists, as before the split).
    """
    if isinstance(input, Tensor) and input._data.dtype.kind == "c":
        return trigonometric.sinc(input)  # the complex-capable formula
    return apply(SincBackward0, (input,), (), (_unary_input("sinc", input, "sinc_cpu"),))


def _opmath(dtype):
    """The type torch's CPU kernels compute a dtype in: float32 for float16, else the dtype itself."""
    return _f32 if dtype == _f16 else dtype.type


def _entr_kernel(a):
    """-a log(a) for a > 0, 0 at 0, -inf below, nan kept; log in float64 rounded to the computing
    type (a correctly rounded logf), the product in that type, as torch's kernel (float16 in float32)."""
    work = _opmath(a.dtype)
    x = a.astype(work, copy=False)
    with xp.errstate(all="ignore"):
        log = xp.log(x.astype(_f64)).astype(work, copy=False)
        out = -x * log
    out = xp.where(x == 0, work(0), xp.where(x < 0, work(-xp.inf), out))
    return out.astype(a.dtype, copy=False)


@register
class SpecialEntrBackward0(Op):
    """special.entr(input) = -x log x (0 at 0, -inf for x < 0). Backward: grad * -(1 + log(input))."""

    save_inputs = True

    @staticmethod
    def forward(a):
        return _entr_kernel(a)

    def backward(self, g):
        (x,) = self.saved()
        return (g * -(1 + pw.log(x)),)


def entr(input):  # noqa: A002
    """special.entr(input): elementwise entropy -x log x; 0 at 0, -inf for x < 0, nan kept
    (SpecialEntrBackward0). Dtypes as lgamma."""
    return apply(SpecialEntrBackward0, (input,), (), (_unary_input("special_entr", input, "entr_cpu"),))


# ====================================================================== xlog1py
def _xlog1py_kernel(x, y):
    """x * log1p(y); 0 where x == 0, nan where y is nan (torch's kernel); log1p in float64 rounded to the
    computing type (float32 for float16, as torch)."""
    dtype = xp.result_type(x, y)
    work = _opmath(dtype)
    with xp.errstate(all="ignore"):
        log = xp.log1p(xp.asarray(y, dtype=_f64)).astype(work, copy=False)
        out = xp.asarray(x, dtype=work) * log
    out = xp.where(x == 0, work(0), out)
    out = xp.where(xp.isnan(y), work(xp.nan), out)
    return out.astype(dtype, copy=False)


@register
class SpecialXlog1PyBackward0(Op):
    """special.xlog1py(input: Tensor, other: Tensor) = input * log1p(other), 0 where input == 0.

    Backward (derivatives.yaml, Note [Gradient formula for xlogy at x = 0, y <= 0] with y <= -1):
    input: xlog1py(grad, other), 0 where input == 0 and other <= -1; other: grad * input / (other + 1).
    """

    save_inputs = True

    @staticmethod
    def forward(x, y):
        return _xlog1py_kernel(x, y)

    def backward(self, g):
        x, y = self.saved()
        need_x, need_y = _binary_grads(self)
        gx = pw.where_((x == 0) & (y <= -1), 0.0, xlog1py(g, y)) if need_x else None
        return gx, (g * x / (y + 1) if need_y else None)


@register
class SpecialXlog1PyBackward1(Op):
    """special.xlog1py(input: Number, other: Tensor). Backward: other: grad * input / (other + 1)."""

    save_inputs = True

    @staticmethod
    def forward(y, x):
        return _xlog1py_kernel(xp.asarray(x, dtype=y.dtype), y)

    def backward(self, g):
        (y,) = self.saved()
        return (g * self._params[0] / (y + 1),)


@register
class SpecialXlog1PyBackward2(Op):
    """special.xlog1py(input: Tensor, other: Number). Backward: input: xlog1py(grad, other), and 0 where
    input == 0 unless other > -1."""

    save_inputs = True

    @staticmethod
    def forward(x, y):
        return _xlog1py_kernel(x, xp.asarray(y, dtype=x.dtype))

    def backward(self, g):
        (x,) = self.saved()
        other = self._params[0]
        gx = xlog1py(g, other)
        return (gx if other > -1 else pw.where_(x == 0, 0.0, gx),)


def xlog1py(input, other):  # noqa: A002
    """special.xlog1py(input, other) = input * log1p(other), 0 where input == 0 (nan where other is nan),
    with broadcasting; one argument may be a Python number (nodes SpecialXlog1PyBackward0/1/2).

    dtype: torch's promotion, bool and integers to the default float; complex raises
    NotImplementedError; two numbers raise TypeError.
    """
    variant = _scalar_variants("special_xlog1py", input, other)
    x, y = prepare(input, other, true_divide=True)
    dt = (y if variant == 1 else x).dtype
    if dt.kind == "c":
        raise _not_implemented("xlog1py_cpu", dt)
    if variant == 0:
        return apply(SpecialXlog1PyBackward0, (input, other), (), (x, y))
    if variant == 1:
        return apply(SpecialXlog1PyBackward1, (other,), (float(x),), (y,))
    return apply(SpecialXlog1PyBackward2, (input,), (float(y),), (x,))


# ====================================================================== logaddexp2
def _fused_multiply_add(a, b, c):
    """a * b + c with one rounding (an FMA), for float64 arrays: the product split exactly into
    p + e (Dekker's TwoProduct with Veltkamp's splitting), then (p + c) + e with Knuth's TwoSum
    error folded in. Finite inputs of moderate size (as here); non-finite c falls back to a * b + c."""
    split = 134217729.0  # 2^27 + 1
    p = a * b
    ta, tb = split * a, split * b
    ah = ta - (ta - a)
    bh = tb - (tb - b)
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    v = s - p
    e_sum = (p - (s - v)) + (c - v)
    fused = s + (e_sum + e)
    return xp.where(xp.isfinite(c), fused, s)


def _logaddexp2_kernel(a, b):
    """log2(2^a + 2^b) as torch's kernel: max(a, b) + log1p(exp2(-|a - b|)) / ln 2, the last multiply
    and add fused (torch's vectorized fmadd), and a where a == b == +-inf; float32 (and float16, in
    torch's float32 opmath) with exp2/log1p in float64 rounded to float32 and the fused step in
    float64 (exact for a float32 product) rounded once."""
    dtype = a.dtype
    work = _f64 if dtype == _f64 else _f32
    a, b = a.astype(work, copy=False), b.astype(work, copy=False)
    with xp.errstate(all="ignore"):
        m = xp.maximum(a, b)
        diff = xp.abs(a - b)
        t = xp.log1p(xp.exp2(-diff.astype(_f64))).astype(work, copy=False)
        if work == _f64:
            out = _fused_multiply_add(t, _INV_LN2, m)
        else:
            out = (t.astype(_f64) * float(_f32(_INV_LN2)) + m.astype(_f64)).astype(_f32)
    same_inf = (a == b) & xp.isinf(a)
    out = xp.where(same_inf, a, out)
    return out.astype(dtype, copy=False)


@register
class Logaddexp2Backward0(Op):
    """logaddexp2(input, other) = log2(2^input + 2^other). Backward (derivatives.yaml):
    grad / (1 + 2^(other - input)) and grad / (1 + 2^(input - other))."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return _logaddexp2_kernel(*xp.broadcast_arrays(a, b))

    def backward(self, g):
        a, b = self.saved()
        need_a, need_b = _binary_grads(self)
        return (g / (1 + pw.pow(2, b - a)) if need_a else None, g / (1 + pw.pow(2, a - b)) if need_b else None)


def _logaddexp2(fn: str, input, other, other_position: int = 2):  # noqa: A002
    if other_position == 2:
        _need_tensor(fn, input)
    _need_tensor(fn, other, "other", other_position)
    a, b = prepare(input, other)
    if a.dtype.kind not in FLOATING_KINDS:
        raise _not_implemented("logaddexp2_cpu", a.dtype)
    return apply(Logaddexp2Backward0, (input, other), (), (a, b))


def logaddexp2(input, other):  # noqa: A002
    """torch.logaddexp2(input, other) = log2(2^input + 2^other), with broadcasting (Logaddexp2Backward0).
    Tensors only (TypeError otherwise); floating dtypes (NotImplementedError for integers, bool, complex)."""
    return _logaddexp2("logaddexp2", input, other)


# ====================================================================== special-only aliases and wrappers
def special_round(input, *, decimals=0):  # noqa: A002
    """special.round(input, *, decimals=0): torch's round.decimals, so RoundBackward1 even for
    decimals=0 (half to even; zero gradient); integer and bool input raise NotImplementedError."""
    _need_tensor("special_round", input)
    d = input._data
    if d.dtype.kind not in FLOATING_KINDS:
        raise _not_implemented("round_vml_cpu" if decimals == 0 else "round_cpu", d.dtype)
    return apply(rounding.RoundBackward1, (input,), (int(decimals),))


_MISSING = object()


def _dim_given(fn: str, dim, extra: tuple, most: int, least: int = 2) -> None:
    """torch's argument errors for a missing ``dim`` or too many positional arguments."""
    if extra:
        given = most + len(extra)
        takes = f"{most}" if most == least else f"from {least} to {most}"
        raise TypeError(f"{fn}() takes {takes} positional arguments but {given} were given")
    if dim is _MISSING:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "dim"')


def special_softmax(input, dim=_MISSING, dtype=None):  # noqa: A002
    """special.softmax(input, dim, dtype=None): torch.softmax (SoftmaxBackward0)."""
    _need_tensor("special_softmax", input)
    _dim_given("special_softmax", dim, (), 3)
    return nn_kernels._torch_softmax(input, dim, dtype)


def special_log_softmax(input, dim=_MISSING, *extra, dtype=None):  # noqa: A002
    """special.log_softmax(input, dim, *, dtype=None): torch.log_softmax (LogSoftmaxBackward0)."""
    _need_tensor("special_log_softmax", input)
    _dim_given("special_log_softmax", dim, extra, 2)
    return nn_kernels._torch_log_softmax(input, dim, dtype)


def special_logsumexp(input, dim=_MISSING, keepdim=False, *extra):  # noqa: A002
    """special.logsumexp(input, dim, keepdim=False): torch.logsumexp (LogsumexpBackward0)."""
    _need_tensor("special_logsumexp", input)
    _dim_given("special_logsumexp", dim, extra, 3)
    return reduction.logsumexp(input, dim, keepdim)


def _renamed(fn, name: str):
    """A copy of ``fn`` whose code is named ``name`` (Python's own argument errors then name it as torch)."""
    code = fn.__code__.replace(co_name=name, co_qualname=name)
    copy = types.FunctionType(code, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__doc__ = fn.__doc__
    return copy


def _unary_alias(name: str, fn, doc: str):
    """special.<name>(input): ``fn`` after torch's TypeError for a non-tensor (naming special_<name>)."""

    def alias(input):  # noqa: A002
        _need_tensor(f"special_{name}", input)
        return fn(input)

    alias.__doc__ = doc
    return _renamed(alias, f"special_{name}")


def special_logit(input, eps=None):  # noqa: A002
    """special.logit(input, eps=None): torch.logit (LogitBackward0)."""
    _need_tensor("special_logit", input)
    return exp_log.logit(input, eps)


def special_xlogy(input, other):  # noqa: A002
    """special.xlogy(input, other): torch.xlogy (XlogyBackward0/1/2)."""
    _scalar_variants("special_xlogy", input, other)
    return exp_log.xlogy(input, other)


def special_polygamma(n, input):  # noqa: A002
    """special.polygamma(n, input): torch.polygamma (PolygammaBackward0)."""
    return _polygamma("special_polygamma", n, input)


def special_multigammaln(input, p):  # noqa: A002
    """special.multigammaln(input, p): torch.mvlgamma (MvlgammaBackward0)."""
    return _mvlgamma("special_multigammaln", input, p)


def special_gammainc(input, other):  # noqa: A002
    """special.gammainc(input, other): torch.igamma (IgammaBackward0)."""
    return _incomplete_gamma(IgammaBackward0, "special_gammainc", "igamma_cpu", input, other)


def special_gammaincc(input, other):  # noqa: A002
    """special.gammaincc(input, other): torch.igammac (IgammacBackward0)."""
    return _incomplete_gamma(IgammacBackward0, "special_gammaincc", "igammac_cpu", input, other)


# ====================================================================== Tensor methods, in place
def _polygamma_method(self, n):
    return _polygamma("polygamma", n, self, n_position=1)


def _mvlgamma_method(self, p):
    return _mvlgamma("mvlgamma", self, p, p_position=1)


def _inplace(compute):
    def method(self, *args, **kwargs):
        from .inplace import inplace as _run_inplace

        return _run_inplace(self, lambda a: compute(a, *args, **kwargs))

    return method


def _mvlgamma_(self, p):
    d = self._data
    if d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:  # torch checks the cast before computing
        raise RuntimeError(f"mvlgamma: result type {scalar_type_name(d.dtype)} can't be cast to the desired output "
                           f"type {scalar_type_name(default_float_np())}")
    return _inplace(_mvlgamma_method)(self, p)


def _binary_method(fn_name: str, compute):
    def method(self, other):
        return compute(fn_name, self, other, other_position=1)

    return method


def _igamma_method(fn_name, self, other, other_position):
    return _incomplete_gamma(IgammaBackward0, fn_name, "igamma_cpu", self, other, other_position)


def _igammac_method(fn_name, self, other, other_position):
    return _incomplete_gamma(IgammacBackward0, fn_name, "igammac_cpu", self, other, other_position)


_igamma_m = _binary_method("igamma", _igamma_method)
_igammac_m = _binary_method("igammac", _igammac_method)


def _inplace_binary(fn_name: str, compute):
    def method(self, other):
        _need_tensor(fn_name, other, "other", 1)
        from .inplace import inplace as _run_inplace

        return _run_inplace(self, lambda a: compute(fn_name, a, other, other_position=1))

    return method


def _logit_(self, eps=None):
    from .inplace import inplace as _run_inplace

    return _run_inplace(self, lambda a: exp_log.logit(a, eps))


def _polygamma_(self, n):
    n = _need_int("polygamma_", n, "n", 1)
    return _inplace(lambda a: _polygamma("polygamma_", n, a, n_position=1))(self)


# ====================================================================== registration
EXPORTS: dict = dict(
    lgamma=lgamma, digamma=digamma, polygamma=polygamma, mvlgamma=mvlgamma, igamma=igamma, igammac=igammac,
    sinc=sinc, logaddexp2=logaddexp2,
)
TENSOR_METHODS: dict = dict(
    lgamma=lgamma, digamma=digamma, polygamma=_polygamma_method, mvlgamma=_mvlgamma_method,
    igamma=_igamma_m, igammac=_igammac_m, sinc=sinc,
    logaddexp2=_binary_method("logaddexp2", _logaddexp2),
    lgamma_=_inplace(lgamma), digamma_=_inplace(digamma), polygamma_=_polygamma_, mvlgamma_=_mvlgamma_,
    sinc_=_inplace(sinc),
    igamma_=_inplace_binary("igamma_", _igamma_method), igammac_=_inplace_binary("igammac_", _igammac_method),
    logit_=_logit_,
)

LINALG_EXPORTS: dict = {}
FUNCTIONAL_EXPORTS: dict = {}
SPECIAL_EXPORTS: dict = dict(
    gammaln=_unary_alias("gammaln", lgamma, "special.gammaln(input): torch.lgamma (LgammaBackward0)."),
    digamma=_unary_alias("digamma", digamma, "special.digamma(input): torch.digamma (DigammaBackward0)."),
    psi=_unary_alias("psi", digamma, "special.psi(input): torch.digamma (DigammaBackward0)."),
    polygamma=special_polygamma,
    multigammaln=special_multigammaln,
    gammainc=special_gammainc,
    gammaincc=special_gammaincc,
    zeta=_renamed(zeta, "special_zeta"),
    erf=_unary_alias("erf", exp_log.erf, "special.erf(input): torch.erf (ErfBackward0)."),
    erfc=_unary_alias("erfc", exp_log.erfc, "special.erfc(input): torch.erfc (ErfcBackward0)."),
    erfcx=_renamed(erfcx, "special_erfcx"),
    erfinv=_unary_alias("erfinv", exp_log.erfinv, "special.erfinv(input): torch.erfinv (ErfinvBackward0)."),
    ndtr=_renamed(ndtr, "special_ndtr"),
    ndtri=_renamed(ndtri, "special_ndtri"),
    log_ndtr=_renamed(log_ndtr, "special_log_ndtr"),
    expit=_unary_alias("expit", pw.sigmoid, "special.expit(input): torch.sigmoid (SigmoidBackward0)."),
    logit=_renamed(special_logit, "special_logit"),
    exp2=_unary_alias("exp2", exp_log.exp2, "special.exp2(input): torch.exp2 (Exp2Backward0)."),
    expm1=_unary_alias("expm1", exp_log.expm1, "special.expm1(input): torch.expm1 (Expm1Backward0)."),
    log1p=_unary_alias("log1p", exp_log.log1p, "special.log1p(input): torch.log1p (Log1PBackward0)."),
    xlogy=_renamed(special_xlogy, "special_xlogy"),
    xlog1py=_renamed(xlog1py, "special_xlog1py"),
    entr=_renamed(entr, "special_entr"),
    sinc=_unary_alias("sinc", sinc, "special.sinc(input): torch.sinc (SincBackward0)."),
    round=_renamed(special_round, "special_round"),
    softmax=_renamed(special_softmax, "special_softmax"),
    log_softmax=_renamed(special_log_softmax, "special_log_softmax"),
    logsumexp=_renamed(special_logsumexp, "special_logsumexp"),
)
