"""Activations, alpha dropout and RMS normalization of ``dyngrad.nn.functional``: hardshrink, softshrink,
rrelu (randomized leaky ReLU), rms_norm.

Sources: aten/src/ATen/native/Activation.cpp and cpu/Activation.cpp (shrink kernels, rrelu_with_noise),
Dropout.cpp (alpha dropout), layer_norm.cpp (rms_norm, composed of pow / mean / rsqrt / mul as torch's CPU
path composes it), derivatives.yaml (hardshrink_backward, softshrink_backward, rrelu_with_noise_backward).
"""

from __future__ import annotations

from .. import _random_kernels as _kernels
from .._backend import generator, xp
from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from . import exp_log
from . import pointwise as pw
from . import reduction as red
from . import shape as sh
from .inplace import inplace
from .nn_kernels import _type_name
from .registry import Op, apply, register


def _cpp_double(x) -> str:
    """A double as C++'s ``<<`` prints it (6 significant digits)."""
    return f"{float(x):g}"


# ------------------------------------------------------------------ shrink


# torch's CPU shrink-backward kernels test the same condition two ways: the scalar loop zeroes the gradient where
# ``x >= -lambd && x <= lambd`` and the vectorized one keeps it where ``x < -lambd || x > lambd``; they disagree only
# at NaN (the scalar loop passes the gradient, the vector loop zeroes it). aten runs the vector loop over whole
# vectors of the flattened tensor and the scalar loop over the remainder; _VECTOR_BYTES is the width of torch's
# AVX512 build (64 bytes: 16 float32 or 8 float64 per vector).
_VECTOR_BYTES = 64


def _shrink_grad_mask(a, lambd):
    """Where the gradient passes: outside [-lambd, lambd], and at NaN only in the scalar tail (see above)."""
    outside = (a < -lambd) | (a > lambd)
    nan = a != a
    if nan.any():
        per_vector = _VECTOR_BYTES // a.itemsize
        tail = xp.arange(a.size).reshape(a.shape) >= (a.size // per_vector) * per_vector
        outside = outside | (nan & tail)
    return outside


class _Shrink(Op):
    """Shared backward: the gradient passes where the input is outside [-lambd, lambd], zero inside (NaN: see
    _shrink_grad_mask). Linear in grad, so the second derivative with respect to the input is zero (torch's
    *BackwardBackward0 gives zeros too)."""

    save_inputs = True

    def backward(self, g):
        (x,) = self.saved()
        passes = _shrink_grad_mask(x._data, self._params[0])
        return (pw.where_(wrap(passes), g, wrap(xp.zeros((), dtype=g._data.dtype))),)


@register
class HardshrinkBackward0(_Shrink):
    """hardshrink(x, lambd) = 0 for -lambd <= x <= lambd, else x (aten's hardshrink kernel)."""

    @staticmethod
    def forward(a, lambd):
        return xp.where((a >= -lambd) & (a <= lambd), xp.zeros((), dtype=a.dtype), a)


@register
class SoftshrinkBackward0(_Shrink):
    """softshrink(x, lambd) = x - lambd for x > lambd, x + lambd for x < -lambd, else x * 0 (so -0.0 for
    negative x and NaN for NaN, as aten's kernel)."""

    @staticmethod
    def forward(a, lambd):
        lam = xp.asarray(lambd, dtype=a.dtype)
        return xp.where(a > lam, a - lam, xp.where(a < -lam, a + lam, a * 0))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """Hard shrinkage: x where |x| > lambd, else 0. Same shape and dtype; floating input only (torch's
    NotImplementedError text otherwise)."""
    a = input._data
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"hardshrink_cpu" not implemented for \'{_type_name(a)}\'')
    return apply(HardshrinkBackward0, (input,), (float(lambd),))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """Soft shrinkage: sign(x) * max(|x| - lambd, 0). Same shape and dtype; floating input only. Errors
    (torch's texts): lambd outside [0, the dtype's largest value] (RuntimeError)."""
    a = input._data
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"softshrink_check" not implemented for \'{_type_name(a)}\'')
    top = float(xp.finfo(a.dtype).max)
    if not 0 <= lambd <= top:
        raise RuntimeError(
            f"lambda must be in range [0, {_cpp_double(top)}] for input dtype {_type_name(a)}, but found "
            f"{_cpp_double(lambd)}"
        )
    return apply(SoftshrinkBackward0, (input,), (float(lambd),))


# ------------------------------------------------------------------ rrelu


@register
class RreluWithNoiseBackward0(Op):
    """rrelu_with_noise(x, noise, lower, upper, training): training: x * r for x <= 0 with r ~ U(lower, upper)
    drawn per element (r = 1 for x > 0); otherwise leaky_relu with slope (lower + upper) / 2.

    Backward (derivatives.yaml, rrelu_with_noise_backward): grad * noise when training with upper - lower
    > 1e-6, else leaky_relu's: grad where x > 0, grad * slope elsewhere. Linear in grad: zero second
    derivative. Params: (noise array (training) or None, slope, whether the gradient is grad * noise).
    """

    save_inputs = True

    @staticmethod
    def forward(a, noise, slope, noise_grad):
        if noise is not None:
            return a * noise
        return xp.where(a > 0, a, a * xp.asarray(slope, dtype=a.dtype))

    def backward(self, g):
        (x,) = self.saved()
        noise, slope, noise_grad = self._params
        dtype = g._data.dtype
        if noise_grad:
            factor = noise.astype(dtype, copy=False)
        else:
            factor = xp.where(x._data > 0, xp.ones((), dtype), xp.asarray(slope, dtype=dtype))
        return (g * wrap(factor),)


@register
class RreluWithNoiseBackward1(RreluWithNoiseBackward0):
    """rrelu_with_noise_ (in place, F.rrelu(inplace=True) / torch.rrelu_): torch's node for the in-place form;
    the same formula (its sign test reads the saved old values, equal in sign to the result)."""


def _rrelu(x: Tensor, lower, upper, training, op) -> Tensor:
    a = x._data
    slope = (lower + upper) / 2
    if not training:
        return apply(op, (x,), (None, slope, False))
    # aten's _rrelu_with_noise_train: one U(lower, upper) draw (in double) per element x <= 0, in order
    neg = ~(a > 0)
    noise = xp.ones(a.shape, dtype=a.dtype)
    draws = _kernels.uniform(generator(), int(neg.sum()), xp.float64, lower, upper)  # torch's double draws
    noise[neg] = draws.astype(a.dtype)
    return apply(op, (x,), (noise, slope, upper - lower > 1e-6))


def _check_rrelu(input, lower, upper):
    a = input._data
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"rrelu_with_noise_out_cpu" not implemented for \'{_type_name(a)}\'')
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,  # noqa: A002
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU (Xu et al. 2015, torch.nn.functional.rrelu): in training, x * r for x <= 0 with
    r ~ U(lower, upper) per element from dyngrad's generator; in eval, leaky_relu with slope (lower + upper) / 2.
    Same shape and dtype. Errors: torch's texts for integer input and lower > upper."""
    _check_rrelu(input, lower, upper)
    if inplace:
        return rrelu_(input, lower, upper, training)
    return _rrelu(input, float(lower), float(upper), bool(training), RreluWithNoiseBackward0)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:  # noqa: A002
    """In-place rrelu (torch.rrelu_ / F.rrelu_): RreluWithNoiseBackward1."""
    _check_rrelu(input, lower, upper)
    return inplace(input, lambda t: _rrelu(t, float(lower), float(upper), bool(training), RreluWithNoiseBackward1))


def _rrelu_public(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):  # noqa: A002
    """torch.rrelu(input, lower, upper, training=False): the functional form without ``inplace``."""
    return rrelu(input, lower, upper, training)


# alpha dropout: _ops/dropout_alpha.py (it draws torch's masks from torch's stream).


# ------------------------------------------------------------------ rms_norm


def _shape_list(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def rms_norm(input: Tensor, normalized_shape, weight=None, eps=None) -> Tensor:  # noqa: A002
    """RMS normalization (Zhang & Sennrich 2019; torch.nn.functional.rms_norm): x * rsqrt(mean(x^2) + eps) over
    the last len(normalized_shape) dims, times ``weight`` (shaped as normalized_shape) when given. ``eps`` None
    is the dtype's machine epsilon, as torch. Composed as aten's CPU path (pow, mean, add_, rsqrt, mul: the top
    grad_fn is MulBackward0, or CloneBackward0 for a permuted input). Errors: torch's RuntimeError texts for the shapes, NotImplementedError for
    integer input."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    ns = tuple(int(n) for n in normalized_shape)
    if not ns:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
            "normalized_shape = []"
        )
    if weight is not None and tuple(weight._data.shape) != ns:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{_shape_list(weight._data.shape)} and normalized_shape = {_shape_list(ns)}"
        )
    shape = input._data.shape
    if len(shape) < len(ns) or shape[len(shape) - len(ns):] != ns:
        raise RuntimeError(
            f"Given normalized_shape={_shape_list(ns)}, expected input with shape [*{', '.join(str(n) for n in ns)}],"
            f" but got input of size{_shape_list(shape)}"
        )
    a = input._data
    if a.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f'"rms_norm" not implemented for \'{_type_name(a)}\'')
    eps_val = float(xp.finfo(a.dtype).eps) if eps is None else float(eps)
    dims = tuple(range(a.ndim - 1, a.ndim - 1 - len(ns), -1))
    rms = exp_log.rsqrt(red.mean(pw.pow(input, 2), dims, keepdim=True) + eps_val)
    result = pw.mul(input, rms)
    if weight is not None:
        result = pw.mul(result, weight)
    # aten returns the result contiguous: a permuted input's layout, which the products keep, is cloned
    return sh.contiguous(result)


EXPORTS: dict = {
    "hardshrink": hardshrink,
    "rrelu": _rrelu_public,
    "rrelu_": rrelu_,
    "rms_norm": rms_norm,
}
TENSOR_METHODS: dict = {"hardshrink": hardshrink}
FUNCTIONAL_EXPORTS: dict = {
    "hardshrink": hardshrink,
    "softshrink": softshrink,
    "rrelu": rrelu,
    "rrelu_": rrelu_,
    "rms_norm": rms_norm,
}
