"""Activation functions of torch.nn.functional: logsigmoid, softplus, hardtanh, relu6, leaky_relu, elu, selu,
celu, gelu, silu, mish, hardsigmoid, hardswish, threshold, relu (relu, sigmoid and tanh kernels themselves are in
pointwise.py; more activations in activations_extra.py).

Derivative formulas follow PyTorch's tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor
from . import complex_support as cs
from .exp_log import _erf_forward, erf
from .pointwise import (
    _float_only,
    _quiet,
    _real_float_only,
    _sigmoid,
    _unary,
    exp,
    relu,
    sigmoid,
    tanh,
    where_,
)
from .registry import Op, apply, register

_SQRT1_2 = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi)
_SQRT_2_OVER_PI = 0.7978845608028654
_GELU_KAPPA = 0.044715
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_ONE_SIXTH_F32 = float(xp.float32(1.0) / xp.float32(6.0))


def _bool_error(a: Tensor, message: str) -> None:
    if a._data.dtype.kind == "b":
        raise RuntimeError(message)


def _stable_log_sigmoid(a):
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): no overflow for either sign.
    return xp.minimum(a, 0) - xp.log1p(xp.exp(-xp.abs(a)))


LogSigmoidBackward0 = _unary(
    "LogSigmoidBackward0", _stable_log_sigmoid, lambda g, x: g * sigmoid(-x),
    doc="logsigmoid: grad * sigmoid(-input) (log_sigmoid_backward)")


@register
class SoftplusBackward0(Op):
    """softplus(input, beta, threshold): log1p(exp(beta * x)) / beta, or x where beta * x > threshold.

    Backward (softplus_backward): grad * sigmoid(beta * x), or grad where beta * x > threshold.
    """

    save_inputs = True

    @staticmethod
    def forward(a, beta, threshold):
        z = a * beta
        with xp.errstate(all="ignore"):  # exp overflows only where the threshold branch is taken
            soft = xp.log1p(xp.exp(z)) / beta
        return xp.where(z > threshold, a, soft)

    def backward(self, g):
        (x,) = self.saved()
        beta, threshold = self._params
        z = x * beta
        return (where_(z > threshold, g, g * sigmoid(z)),)


@register
class HardtanhBackward0(Op):
    """hardtanh(input, min_val, max_val) (and relu6): clamp; gradient passes strictly inside (min_val, max_val)."""

    save_inputs = True

    @staticmethod
    def forward(a, lo, hi):
        out = xp.minimum(xp.maximum(a, lo), hi)
        return out.astype(a.dtype, copy=False) if out.dtype != a.dtype else out  # int tensors stay int

    def backward(self, g):
        (x,) = self.saved()
        lo, hi = self._params
        return (where_((x > lo) & (x < hi), g, 0.0),)


@register
class LeakyReluBackward0(Op):
    """leaky_relu(input, negative_slope): x if x > 0 else x * slope; gradient slope at 0, as torch."""

    save_inputs = True

    @staticmethod
    def forward(a, slope):
        return xp.where(a > 0, a, a * slope)

    def backward(self, g):
        (x,) = self.saved()
        return (where_(x > 0, g, g * self._params[0]),)


@register
class LeakyReluBackward1(LeakyReluBackward0):
    """leaky_relu_ (in place): torch's node for the in-place form; same formula (from the saved old values)."""


@register
class EluBackward0(Op):
    """elu(input, alpha, scale, input_scale) (elu, selu): scale * x for x > 0, else scale * alpha * expm1(x * input_scale).

    Backward (elu_backward): grad * scale for x > 0, else grad * input_scale * scale * alpha * exp(x * input_scale)
    (the negative branch at x == 0, as torch).
    """

    save_inputs = True

    @staticmethod
    def forward(a, alpha, scale, input_scale):
        with xp.errstate(all="ignore"):
            neg = xp.expm1(xp.minimum(a, 0) * input_scale) * (alpha * scale)
        return xp.where(a > 0, a * scale, neg)

    def backward(self, g):
        (x,) = self.saved()
        p = self._params
        alpha, scale, input_scale = (p[0], p[1], p[3]) if len(p) == 4 else p  # celu: its backward scale
        # exp of the input with positives replaced by 0: the branch not taken never overflows (no nan at
        # second order), and the second derivative is 0 at x == 0, as torch's elu_double_backward.
        neg = g * (exp(where_(x < 0, x, 0.0) * input_scale) * (input_scale * scale * alpha))
        return (where_(x <= 0, neg, g * scale),)


@register
class EluBackward1(EluBackward0):
    """elu_ / selu_ (in place): torch's node for the in-place form; same formula."""


@register
class CeluBackward0(EluBackward0):
    """celu(input, alpha) = elu with scale 1 and input_scale 1 / alpha.

    Params (alpha, 1, 1 / alpha, 1 / float32(alpha)): torch's forward uses 1 / alpha, its backward
    1.0 / alpha.toFloat() (alpha rounded to float32 first); the last param is that backward scale.
    """

    @staticmethod
    def forward(a, alpha, scale, input_scale, grad_input_scale):
        return EluBackward0.forward(a, alpha, scale, input_scale)


@register
class CeluBackward1(CeluBackward0):
    """celu_ (in place)."""


@register
class GeluBackward0(Op):
    """gelu(input, approximate): x * Phi(x) ('none') or its tanh approximation ('tanh').

    Backward (gelu_backward): 'none': grad * (Phi(x) + x * phi(x)); 'tanh': with
    u = sqrt(2/pi) * (x + 0.044715 x^3), t = tanh(u):
    grad * (0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)).
    """

    save_inputs = True

    @staticmethod
    def forward(a, approximate):
        if approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (a + _GELU_KAPPA * (a * a * a))
            return 0.5 * a * (1 + xp.tanh(inner))
        return a * (0.5 * (1 + _erf_forward(a * _SQRT1_2)))

    def backward(self, g):
        (x,) = self.saved()
        if self._params[0] == "tanh":
            x2 = x * x
            t = tanh(_SQRT_2_OVER_PI * (x + _GELU_KAPPA * (x2 * x)))
            left = 0.5 * (1 + t)
            right = 0.5 * x * (1 - t * t) * (_SQRT_2_OVER_PI * (1 + 3 * _GELU_KAPPA * x2))
            return (g * (left + right),)
        cdf = 0.5 * (1 + erf(x * _SQRT1_2))
        pdf = _INV_SQRT_2PI * exp(-0.5 * (x * x))
        return (g * (cdf + x * pdf),)


SiluBackward0 = _unary(
    "SiluBackward0", lambda a: a * _sigmoid(a),
    lambda g, x: g * (lambda s: s * (1 + x * (1 - s)))(sigmoid(x)),
    doc="silu: x * sigmoid(x); backward grad * s * (1 + x * (1 - s)) with s = sigmoid(x)")


@_quiet
def _softplus_array(a):
    # as torch's mish kernel: log1p(exp(x)) (inf for large x, where tanh gives 1 anyway)
    return xp.log1p(xp.exp(a))


def _mish_backward(g, x):
    t = tanh(softplus(x))
    return g * (t + x * sigmoid(x) * (1 - t * t))


MishBackward0 = _unary(
    "MishBackward0", lambda a: a * xp.tanh(_softplus_array(a)), _mish_backward,
    doc="mish: x * tanh(softplus(x)); backward grad * (t + x * sigmoid(x) * (1 - t^2)), t = tanh(softplus(x))")


@register
class HardsigmoidBackward0(Op):
    """hardsigmoid: min(max(x + 3, 0), 6) / 6; gradient grad / 6 strictly inside (-3, 3)."""

    save_inputs = True

    @staticmethod
    def forward(a):
        return xp.minimum(xp.maximum(a + 3, 0), 6) / 6

    def backward(self, g):
        (x,) = self.saved()
        # torch multiplies by 1/6 rounded to float32 (for every dtype): the same constant here.
        return (where_((x > -3) & (x < 3), g * _ONE_SIXTH_F32, 0.0),)


@register
class HardswishBackward0(Op):
    """hardswish: x * min(max(x + 3, 0), 6) / 6.

    Backward (hardswish_backward): 0 for x <= -3, grad * (x / 3 + 0.5) for -3 < x < 3, grad for x >= 3.
    """

    save_inputs = True

    @staticmethod
    def forward(a):
        return a * xp.minimum(xp.maximum(a + 3, 0), 6) / 6

    def backward(self, g):
        (x,) = self.saved()
        return (where_(x <= -3, 0.0, where_(x < 3, g * (x / 3 + 0.5), g)),)


@register
class ThresholdBackward0(Op):
    """threshold(input, threshold, value): value where x <= threshold, else x; gradient zero where x <= threshold.

    The test is aten's ``x <= threshold``, so a NaN input passes through (NaN out, gradient kept)."""

    save_inputs = True

    @staticmethod
    def forward(a, threshold, value):
        return xp.where(a <= threshold, xp.asarray(value, dtype=a.dtype), a)

    def backward(self, g):
        (x,) = self.saved()
        return (where_(x <= self._params[0], 0.0, g),)


@register
class ThresholdBackward1(ThresholdBackward0):
    """threshold_ (in place)."""


def _maybe_inplace(input, inplace, compute):  # noqa: A002
    if inplace:
        from .inplace import inplace as _inplace

        return _inplace(input, compute)
    return compute(input)


def logsigmoid(input):  # noqa: A002
    _real_float_only(input, "log_sigmoid_cpu")
    return apply(LogSigmoidBackward0, (input,))


def softplus(input, beta=1.0, threshold=20.0):  # noqa: A002
    _real_float_only(input, "softplus_cpu")
    return apply(SoftplusBackward0, (input,), (beta, threshold))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    _bool_error(input, "Bool inputs not supported for hardtanh")
    if input._data.dtype.kind == "c":
        raise NotImplementedError(cs.CLAMP)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(input, inplace, lambda a: apply(HardtanhBackward0, (a,), (min_val, max_val)))


def hardtanh_(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):  # noqa: A002
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002
    _real_float_only(input, "leaky_relu_cpu")
    if inplace:
        from .inplace import inplace as _inplace

        return _inplace(input, lambda a: apply(LeakyReluBackward1, (a,), (negative_slope,)))
    return apply(LeakyReluBackward0, (input,), (negative_slope,))


def leaky_relu_(input, negative_slope=0.01):  # noqa: A002
    return leaky_relu(input, negative_slope, True)


def _elu(input, op, params, inplace_op, inplace):  # noqa: A002
    _real_float_only(input, "elu_cpu")
    if inplace:
        from .inplace import inplace as _inplace

        return _inplace(input, lambda a: apply(inplace_op, (a,), params))
    return apply(op, (input,), params)


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    return _elu(input, EluBackward0, (alpha, 1.0, 1.0), EluBackward1, inplace)


def elu_(input, alpha=1.0):  # noqa: A002
    return elu(input, alpha, True)


def selu(input, inplace=False):  # noqa: A002
    return _elu(input, EluBackward0, (_SELU_ALPHA, _SELU_SCALE, 1.0), EluBackward1, inplace)


def selu_(input):  # noqa: A002
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):  # noqa: A002
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    # torch passes input_scale = 1.0 / alpha.toFloat(): alpha rounded to float32 first
    return _elu(input, CeluBackward0, (alpha, 1.0, 1.0 / alpha, 1.0 / float(xp.float32(alpha))), CeluBackward1, inplace)


def celu_(input, alpha=1.0):  # noqa: A002
    return celu(input, alpha, True)


def gelu(input, approximate="none"):  # noqa: A002
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _real_float_only(input, "GeluKernelImpl")
    return apply(GeluBackward0, (input,), (approximate,))


def silu(input, inplace=False):  # noqa: A002
    _float_only(input, "silu_cpu")
    return _maybe_inplace(input, inplace, lambda a: apply(SiluBackward0, (a,)))


def mish(input, inplace=False):  # noqa: A002
    _real_float_only(input, "mish_cpu")
    return _maybe_inplace(input, inplace, lambda a: apply(MishBackward0, (a,)))


def hardsigmoid(input, inplace=False):  # noqa: A002
    _real_float_only(input, "hardsigmoid_cpu")
    return _maybe_inplace(input, inplace, lambda a: apply(HardsigmoidBackward0, (a,)))


def hardswish(input, inplace=False):  # noqa: A002
    _real_float_only(input, "hardswish_cpu")
    return _maybe_inplace(input, inplace, lambda a: apply(HardswishBackward0, (a,)))


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    if input._data.dtype.kind == "c":
        raise cs.kernel_error("threshold_cpu", input._data.dtype)
    if type(threshold) is complex or type(value) is complex:
        cs.check_scalar_fits(complex(threshold if type(threshold) is complex else value), input._data.dtype)
    if inplace:
        from .inplace import inplace as _inplace

        return _inplace(input, lambda a: apply(ThresholdBackward1, (a,), (threshold, value)))
    return apply(ThresholdBackward0, (input,), (threshold, value))


def threshold_(input, threshold_value, value):  # noqa: A002
    return threshold(input, threshold_value, value, True)


def relu_functional(input, inplace=False):  # noqa: A002
    if inplace:
        from .inplace import inplace as _inplace

        return _inplace(input, relu)
    return relu(input)


def relu_(input):  # noqa: A002
    return relu_functional(input, True)


# ------------------------------------------------------------------ registration
EXPORTS: dict = dict(  # dyngrad.<name>
    selu=selu, celu=celu, selu_=selu_, celu_=celu_, relu_=relu_, threshold=threshold, threshold_=threshold_,
)
TENSOR_METHODS: dict = {"relu_": relu_}  # Tensor.<name>
FUNCTIONAL_EXPORTS: dict = dict(  # dyngrad.nn.functional.<name>
    relu=relu_functional, relu_=relu_, sigmoid=sigmoid, tanh=tanh, logsigmoid=logsigmoid, softplus=softplus,
    relu6=relu6, leaky_relu=leaky_relu, leaky_relu_=leaky_relu_, elu=elu, elu_=elu_, selu=selu, selu_=selu_,
    celu=celu, celu_=celu_, gelu=gelu, silu=silu, mish=mish, hardtanh=hardtanh, hardtanh_=hardtanh_,
    hardsigmoid=hardsigmoid, hardswish=hardswish, threshold=threshold, threshold_=threshold_,
)
