"""Samplers behind torch.distributions and their reparameterisation gradients.

``_standard_gamma``, ``_sample_dirichlet``, ``poisson`` and ``binomial`` draw torch's numbers: its CPU
rejection samplers on its mt19937 stream, element by element (_random_samplers.py, docs/random.md). The gradients of
gamma and Dirichlet draws are implicit (pathwise) derivatives: for x ~ Gamma(alpha, 1) with CDF
F(x; alpha), dx/dalpha = -(dF/dalpha) / pdf(x), the derivative of the sample with the uniform noise
behind it held fixed. torch evaluates it with the approximations of M. Jankowiak and M. Obermeyer,
"Pathwise Derivatives Beyond the Reparameterization Trick" (ICML 2018), in its kernels
``standard_gamma_grad_one`` and ``dirichlet_grad_one`` (aten/src/ATen/native/Distributions.h); the
kernels below evaluate the same series, saddle-point expansions and fitted rational functions (whose
coefficients are published facts of that paper's fits), vectorised over arrays, in float64 (torch's
accumulate type on CPU), rounded to the input's dtype.

Nodes (torch's names): ``StandardGammaBackward0`` (derivatives.yaml: ``self: grad *
_standard_gamma_grad(self, result)``), ``StandardGammaGradBackward0`` (not differentiable:
``not_implemented("_standard_gamma_grad")``), ``PoissonBackward0`` (``self: zeros_like(self)``); torch
records its ``NotImplemented`` node for ``_sample_dirichlet``, ``binomial`` and ``_dirichlet_grad``.
"""

from __future__ import annotations

from .._backend import xp
from .._creation import _rng
from .._dtype import FLOATING_KINDS, scalar_type_name
from .._tensor import Tensor
from . import gamma as _gamma
from .random_ops import NotImplemented as _NoDerivative
from .registry import Op, apply, register

_f64 = xp.float64
# torch's kernel compares with float literals (0.8f, 0.9f, 1.1f): their float32 values decide the regime
_X_SMALL = float(xp.float32(0.8))
_NEAR_LOW, _NEAR_HIGH = float(xp.float32(0.9)), float(xp.float32(1.1))


def _float_input(t: Tensor, kernel: str):
    """The array of a floating tensor, or torch's NotImplementedError naming ``kernel``."""
    a = t._data
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(a.dtype)}'")
    return a


def _tiny(dtype) -> float:
    return float(xp.finfo(dtype).tiny)


# ====================================================================== gamma draws
def _gamma_draws(g, alpha):
    """Gamma(alpha, 1) samples in alpha's dtype (float32 or float64), drawn as torch's ``_s_gamma_cpu``
    (Marsaglia-Tsang on torch's stream), at least the dtype's smallest normal number (alpha = 0, a negative or
    nan alpha give that value)."""
    from .._random_samplers import gamma

    a = xp.asarray(alpha)
    if a.dtype not in (xp.float32, xp.float64):
        a = a.astype(_f64)
    return gamma(g, a).reshape(a.shape)


@register
class StandardGammaBackward0(Op):
    """_standard_gamma(alpha): Gamma(alpha, 1) draws. Backward (derivatives.yaml):
    ``grad * _standard_gamma_grad(alpha, result)``, the implicit reparameterisation gradient."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(alpha, values):
        return values

    def backward(self, g):
        (alpha,) = self.saved()[:1]
        return (g * _standard_gamma_grad(alpha, self.saved_result()),)


def _standard_gamma(input: Tensor, generator=None) -> Tensor:  # noqa: A002 - torch's name
    """torch._standard_gamma(input): one Gamma(input, 1) draw per element, in input's dtype and shape,
    clamped below at the dtype's smallest normal number (as torch's CPU kernel). Differentiable in
    ``input`` (StandardGammaBackward0). Errors: integer input (NotImplementedError, torch's text)."""
    a = _float_input(input, "gamma_cpu")
    draws = _gamma_draws(_rng(generator), a if a.dtype != xp.float16 else a.astype(xp.float32)).astype(a.dtype)
    values = xp.maximum(draws, xp.asarray(_tiny(a.dtype), dtype=a.dtype))
    return apply(StandardGammaBackward0, (input,), (values,))


# ---------------------------------------------------------------------- d(sample)/d(alpha)
# Fitted bivariate rational function for 0.8 <= x, alpha <= 8 (Jankowiak & Obermeyer 2018):
# with u = log(x / alpha), v = log(alpha), each coefficient c_i(u) = A_i + u (B_i + u C_i), and
# dx/dalpha = exp(P(v) / Q(v)), P, Q cubics in v with the first and last four c_i.
_GAMMA_FIT = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07),
)


def _gamma_grad_small_x(alpha, x):
    """x < 0.8 (float32's 0.8): the CDF's series x^alpha sum_k (-x)^k / (k! (alpha + k)) to k = 5 and its alpha-derivative,
    divided by the density; a nan result (0 * inf at the edges) becomes 0, as in torch."""
    term = xp.ones_like(x)
    denom = alpha.copy()
    series = 1 / denom
    series_alpha = 1 / (denom * denom)
    for k in range(1, 6):
        term = term * (-x / k)
        denom = denom + 1
        series = series + term / denom
        series_alpha = series_alpha + term / (denom * denom)
    x_alpha = x**alpha
    pdf = x ** (alpha - 1) * xp.exp(-x)
    cdf = x_alpha * series
    cdf_alpha = (xp.log(x) - _gamma.digamma(alpha)) * cdf - x_alpha * series_alpha
    result = -cdf_alpha / pdf
    return xp.where(xp.isnan(result), 0.0, result)


def _gamma_grad_large_alpha(alpha, x):
    """alpha > 8: Rice's saddle-point expansion; a polynomial expansion within 10% of alpha (the expansion's
    removable singularity at x = alpha)."""
    near = (_NEAR_LOW * alpha <= x) & (x <= _NEAR_HIGH * alpha)
    a, xx = alpha, x
    numer_1 = 1 + 24 * a * (1 + 12 * a)
    numer_2 = 1440 * (a * a) + 6 * xx * (53 - 120 * xx) - 65 * xx * xx / a + a * (107 + 3600 * xx)
    central = numer_1 * numer_2 / (1244160 * (a * a) * (a * a))
    denom = xp.sqrt(8 * a)
    term2 = denom / (a - xx)
    term3 = (xx - a - a * xp.log(xx / a)) ** -1.5
    term23 = xp.where(xx < a, term2 - term3, term2 + term3)
    term1 = xp.log(xx / a) * term23 - xp.sqrt(2 / a) * (a + xx) / ((a - xx) * (a - xx))
    stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
    tail = -stirling * (xx * term1) / denom
    return xp.where(near, central, tail)


def _gamma_grad_fit(alpha, x):
    u = xp.log(x / alpha)
    v = xp.log(alpha)
    c = [_GAMMA_FIT[0][i] + u * (_GAMMA_FIT[1][i] + u * _GAMMA_FIT[2][i]) for i in range(8)]
    p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
    q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
    return xp.exp(p / q)


def standard_gamma_grad_array(alpha, x):
    """dx/dalpha for x ~ Gamma(alpha, 1) held at fixed CDF, elementwise on float64 arrays (broadcast)."""
    alpha, x = (xp.asarray(v, dtype=_f64) for v in xp.broadcast_arrays(alpha, x))
    out = xp.empty(x.shape)
    small = x < _X_SMALL
    large = ~small & (alpha > 8)
    rest = ~(small | large)  # nan lands here and stays nan
    for mask, kernel in ((small, _gamma_grad_small_x), (large, _gamma_grad_large_alpha), (rest, _gamma_grad_fit)):
        if mask.any():
            out[mask] = kernel(alpha[mask], x[mask])
    return out


@register
class StandardGammaGradBackward0(Op):
    """_standard_gamma_grad(alpha, x): the implicit reparameterisation gradient of Gamma(alpha, 1) draws.
    Not differentiable (derivatives.yaml: ``not_implemented("_standard_gamma_grad")``)."""

    @staticmethod
    def forward(alpha, x):
        return standard_gamma_grad_array(alpha, x).astype(xp.result_type(alpha, x))

    def backward(self, g):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


def _standard_gamma_grad(input: Tensor, output: Tensor) -> Tensor:  # noqa: A002 - torch's name
    """torch._standard_gamma_grad(alpha, x): d x / d alpha at fixed CDF for x ~ Gamma(alpha, 1), broadcast,
    in float64 rounded to the inputs' dtype (Jankowiak & Obermeyer 2018, as torch's kernel). Errors: integer
    inputs (NotImplementedError)."""
    _float_input(input, "_standard_gamma_grad_cpu")
    _float_input(output, "_standard_gamma_grad_cpu")
    return apply(StandardGammaGradBackward0, (input, output))


# ====================================================================== Dirichlet draws
def _sample_dirichlet(input: Tensor, generator=None) -> Tensor:  # noqa: A002 - torch's name
    """torch._sample_dirichlet(alpha): Dirichlet(alpha) draws over the last dim (a 0-d input is one
    category): normalised float64 gamma draws, clamped to [tiny, 1 - eps] of the dtype as torch's kernel.
    Not differentiable (torch records NotImplemented). Errors: integer input (NotImplementedError)."""
    a = _float_input(input, "dirichlet")
    gammas = _gamma_draws(_rng(generator), a.astype(_f64))  # (torch: double gamma draws, then normalised)
    total = gammas.sum(axis=-1, keepdims=True) if a.ndim else gammas
    info = xp.finfo(a.dtype)
    values = xp.clip(gammas / total, float(info.tiny), 1 - float(info.eps)).astype(a.dtype)
    return apply(_NoDerivative, (input,), (values, "_sample_dirichlet"))


def _beta_grad_alpha_small(x, alpha, beta):
    """d x / d alpha for x ~ Beta(alpha, beta) near 0: a Taylor series in x to the 10th term (nan -> 0)."""
    factor = _gamma.digamma(alpha) - _gamma.digamma(alpha + beta) - xp.log(x)
    term = xp.ones_like(x)
    series = term / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        term = term * ((i - beta) * x / i)
        denom = alpha + i
        series = series + term / denom * (factor + 1 / denom)
    result = x * (1 - x) ** -beta * series
    return xp.where(xp.isnan(result), 0.0, result)


def _beta_grad_beta_small(x, alpha, beta):
    """d x / d beta for x ~ Beta(alpha, beta) near 0: a Taylor series in x to the 8th term (nan -> 0)."""
    factor = _gamma.digamma(alpha + beta) - _gamma.digamma(beta)
    term = xp.ones_like(x)
    rising = xp.ones_like(x)  # prod_{j<=i} (beta - j) and its beta-derivative
    d_rising = xp.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        term = term * (-x / i)
        d_rising = d_rising * (beta - i) + rising
        rising = rising * (beta - i)
        series = series + term / (alpha + i) * (d_rising + factor * rising)
    result = -((1 - x) ** (1 - beta)) * series
    return xp.where(xp.isnan(result), 0.0, result)


def _beta_grad_alpha_mid(x, alpha, beta):
    """d x / d alpha for alpha, beta > 6: Rice's saddle-point expansion, with a polynomial within a tenth of a
    standard deviation of the mean (its removable singularity)."""
    total = alpha + beta
    mean = alpha / total
    std = xp.sqrt(alpha * beta / (total + 1)) / total
    near = (mean - 0.1 * std <= x) & (x <= mean + 0.1 * std)
    a, b = alpha, beta
    poly = 47 * x * (b * b) * (b * b) + a * (
        (43 + 20 * (16 + 27 * b) * x) * (b * b) * b + a * (
            3 * (59 + 180 * b - 90 * x) * (b * b) + a * (
                (453 + 1620 * b * (1 - x) - 455 * x) * b + a * (8 * (1 - x) * (135 * b - 11)))))
    prefactor_num = (1 + 12 * a) * (1 + 12 * b) / (total * total)
    prefactor_den = 12960 * a * a * a * b * b * (1 + 12 * total)
    central = prefactor_num / (1 - x) * poly / prefactor_den

    prefactor = -x / xp.sqrt(2 * a * b / total)
    stirling = ((1 + 1 / (12 * a) + 1 / (288 * a * a)) * (1 + 1 / (12 * b) + 1 / (288 * b * b))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (a * a) * (x - 1) + a * b * (x - 1) - x * (b * b)
    axbx = a * (x - 1) + b * x
    term1 = term1_num / (xp.sqrt(2 * a / b) * total**1.5 * axbx * axbx)
    term2 = 0.5 * xp.log(a / (total * x))
    term3 = xp.sqrt(8 * a * b / total) / (b * x + a * (x - 1))
    term4 = (b * xp.log(b / (total * (1 - x))) + a * xp.log(a / (total * x))) ** -1.5
    tail = stirling * prefactor * (term1 + term2 * (term3 + xp.where(x < mean, term4, -term4)))
    return xp.where(near, central, tail)


# Rational correction to x (psi(total) - psi(alpha)) / beta (Jankowiak & Obermeyer 2018): numerator [0] and
# denominator [1], each sum_{i,j} u^i a^j (c0 + b (c1 + b (c2 + b c3))) with u = log x, a = log(alpha) - u,
# b = log(total) - a.
_DIRICHLET_FIT = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))),
)


def _dirichlet_grad_fit(x, alpha, total):
    beta = total - alpha
    u = xp.log(x)
    a = xp.log(alpha) - u
    b = xp.log(total) - a
    pow_u = (xp.ones_like(u), u, u * u)
    pow_a = (xp.ones_like(a), a, a * a)
    p = xp.zeros_like(x)
    q = xp.zeros_like(x)
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            cp, cq = _DIRICHLET_FIT[0][i][j], _DIRICHLET_FIT[1][i][j]
            p = p + ua * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q = q + ua * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x * (_gamma.digamma(total) - _gamma.digamma(alpha)) / beta
    return p / q * approx


def dirichlet_grad_array(x, alpha, total):
    """-(dF/dalpha) / pdf / (1 - x) for x ~ Beta(alpha, total - alpha), elementwise on float64 arrays: the
    scaled gradient torch builds Dirichlet's reparameterisation from (dirichlet_grad_one)."""
    x, alpha, total = (xp.asarray(v, dtype=_f64) for v in xp.broadcast_arrays(x, alpha, total))
    beta = total - alpha
    boundary = total * x * (1 - x)
    out = xp.empty(x.shape)
    near0 = (x <= 0.5) & (boundary < 2.5)
    near1 = ~near0 & (x >= 0.5) & (boundary < 0.75)
    mid = ~(near0 | near1) & (alpha > 6) & (beta > 6)
    rest = ~(near0 | near1 | mid)
    if near0.any():
        out[near0] = _beta_grad_alpha_small(x[near0], alpha[near0], beta[near0])
    if near1.any():
        out[near1] = -_beta_grad_beta_small(1 - x[near1], beta[near1], alpha[near1])
    if mid.any():
        out[mid] = _beta_grad_alpha_mid(x[mid], alpha[mid], beta[mid])
    if rest.any():
        out[rest] = _dirichlet_grad_fit(x[rest], alpha[rest], total[rest])
    return out


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """torch._dirichlet_grad(x, alpha, total): the scaled implicit gradient of Beta(alpha, total - alpha)
    draws x (broadcast; Jankowiak & Obermeyer 2018, as torch's dirichlet_grad_one). Not differentiable."""
    for t in (x, alpha, total):
        _float_input(t, "_dirichlet_grad_cpu")
    dtype = x._data.dtype
    values = dirichlet_grad_array(x._data, alpha._data, total._data).astype(dtype)
    return apply(_NoDerivative, (x, alpha, total), (values, "_dirichlet_grad"))


# ====================================================================== Poisson and binomial draws
@register
class PoissonBackward0(Op):
    """poisson(rates): Poisson draws; their gradient is zero (derivatives.yaml: ``self: zeros_like(self)``)."""

    @staticmethod
    def forward(rates, values):
        return values

    def backward(self, g):
        return (g * 0,)


def poisson(input: Tensor, generator=None) -> Tensor:  # noqa: A002 - torch's name
    """torch.poisson(rates): one Poisson(rate) count per element, as a float tensor of rates' dtype. An
    infinite rate gives the int64 minimum (torch's cast of its overflowed draw).

    Errors: integer rates (NotImplementedError), a negative or nan rate (RuntimeError, torch's text)."""
    lam = _float_input(input, "poisson_cpu")
    if lam.size and not (lam >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    from .._random_samplers import poisson as _poisson_draws

    out = _poisson_draws(_rng(generator), lam).reshape(lam.shape)
    return apply(PoissonBackward0, (input,), (out.astype(lam.dtype),))


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """torch.binomial(count, prob): Binomial(count, prob) draws (broadcast), in count's float dtype. A
    count <= 0 or prob <= 0 gives 0, prob >= 1 gives count, a nan prob gives nan; a fractional count
    draws as its floor. Not differentiable (torch records NotImplemented).

    Errors: integer count (ValueError, torch's text)."""
    c = count._data
    if c.dtype.kind not in FLOATING_KINDS:
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: {scalar_type_name(c.dtype)}")
    c64, p64 = (v.astype(_f64) for v in xp.broadcast_arrays(c, prob._data))
    from .._random_samplers import binomial as _binomial_draws

    if c.dtype != xp.float64:  # (torch computes in the count's dtype; its accumulation is double)
        c64, p64 = c64.astype(c.dtype), p64.astype(c.dtype)
    draws = _binomial_draws(_rng(generator), c64, p64).reshape(c64.shape)
    return apply(_NoDerivative, (count, prob), (draws.astype(c.dtype), "binomial"))


EXPORTS: dict = {
    "_standard_gamma": _standard_gamma, "_standard_gamma_grad": _standard_gamma_grad,
    "_sample_dirichlet": _sample_dirichlet, "_dirichlet_grad": _dirichlet_grad,
    "poisson": poisson, "binomial": binomial,
}
TENSOR_METHODS: dict = {}
