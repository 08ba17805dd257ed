"""The von Mises distribution on the circle (torch.distributions.VonMises).

Density exp(kappa cos(x - loc)) / (2 pi I0(kappa)); variance 1 - I1(kappa) / I0(kappa). The Bessel functions
are the polynomial approximations of Abramowitz and Stegun 9.8.1-9.8.4 (as torch evaluates them, about
1e-7 relative). Sampling: Best and Fisher's rejection algorithm (Applied Statistics 28, 1979), in float64;
no rsample.
"""

from __future__ import annotations

import math

import dyngrad

from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# Abramowitz & Stegun 9.8.1-9.8.4: for |x| < 3.75 polynomials in (x / 3.75)^2; above, x^(-1/2) e^x times
# polynomials in 3.75 / x. [I0, I1] for each range.
_SMALL = (
    (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813),
    (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411),
)
_LARGE = (
    (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706, 0.02635537, -0.01647633, 0.00392377),
    (0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967, -0.02895312, 0.01787654,
     -0.00420059),
)


def _poly(y, coefficients):
    """sum_i c_i y^i by Horner's rule (lowest power first)."""
    result = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x, order: int = 0):
    """log I_order(x) for x > 0, order 0 or 1 (A&S 9.8)."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = (x / 3.75) ** 2
    small = _poly(y, _SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _poly(3.75 / x, _LARGE[order]).log()
    return dyngrad.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best & Fisher's wrapped-Cauchy envelope: draw until every element is accepted; result in [-pi, pi)."""
    done = dyngrad.zeros(x.shape, dtype=dyngrad.bool)
    while not done.all():
        u1, u2, u3 = dyngrad.rand((3,) + tuple(x.shape), dtype=loc.dtype).unbind()
        z = dyngrad.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            x = dyngrad.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """VonMises(loc, concentration): ``loc`` real (radians), concentration > 0."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * dyngrad.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    @lazy_property
    def _loc(self):
        return self.loc.to(dyngrad.double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(dyngrad.double)

    @lazy_property
    def _proposal_r(self):
        """The envelope's parameter r = (1 + rho^2) / (2 rho) (Best & Fisher), 1/kappa + kappa for tiny kappa."""
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return dyngrad.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho**2) / (2 * rho))

    def sample(self, sample_shape=()):
        with dyngrad.no_grad():
            x = dyngrad.empty(self._extended_shape(sample_shape), dtype=self._loc.dtype)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r, x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        validate_args = self.__dict__.get("_validate_args")
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                          validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        log_ratio = _log_modified_bessel_fn(self.concentration, order=1) - _log_modified_bessel_fn(
            self.concentration, order=0)
        return 1 - log_ratio.exp()
