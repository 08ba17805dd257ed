"""The Kumaraswamy distribution on [0, 1] (torch.distributions.Kumaraswamy): (1 - U^(1/b))^(1/a) for
U ~ U(0, 1), a = concentration1, b = concentration0.

Moments E[X^n] = b B(1 + n/a, b) (Jones 2009); mode ((a - 1) / (a b - 1))^(1/a) for a, b >= 1 (nan
otherwise); entropy (1 - 1/b) + (1 - 1/a) H_b - log(a b), with the harmonic number
H_b = digamma(b + 1) + gamma.
"""

from __future__ import annotations

import math

import dyngrad

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all, euler_constant

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """E[X^n] = b B(1 + n / a, b), through lgamma."""
    arg1 = 1 + n / a
    return b * dyngrad.exp(dyngrad.lgamma(arg1) + dyngrad.lgamma(b) - dyngrad.lgamma(arg1 + b))


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(concentration1, concentration0), both > 0."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(dyngrad.full_like(self.concentration0, 0), dyngrad.full_like(self.concentration0, 1),
                       validate_args=validate_args)
        chain = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                 PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        log_mode[(b < 1) | (a < 1)] = math.nan
        return log_mode.exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - dyngrad.pow(self.mean, 2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        harmonic = dyngrad.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * harmonic - dyngrad.log(self.concentration1) - dyngrad.log(self.concentration0)
