"""The generalized Pareto distribution (torch.distributions.GeneralizedPareto), with location mu, scale
sigma and shape xi = concentration; z = (x - mu) / sigma.

log density -log sigma - (1 / xi + 1) log1p(xi z) (xi != 0), -log sigma - z (xi = 0); survival
(1 + xi z)^(-1/xi) (xi != 0), exp(-z) (xi = 0); icdf mu + sigma expm1(-xi log1p(-p)) / xi (xi != 0),
mu - sigma log1p(-p) (xi = 0); mean mu + sigma / (1 - xi) (xi < 1, else nan); variance
sigma^2 / ((1 - xi)^2 (1 - 2 xi)) (xi < 1/2, else nan); entropy log sigma + xi + 1. Support
[mu, mu - sigma / xi] for xi < 0, [mu, inf) otherwise. Reparameterised through the icdf.
"""

from __future__ import annotations

import math

import dyngrad

from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]

_NUMBER = (int, float)


class GeneralizedPareto(Distribution):
    """GeneralizedPareto(loc, scale, concentration): scale > 0, the others real."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers = all(isinstance(v, _NUMBER) for v in (loc, scale, concentration))
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(GeneralizedPareto, batch_shape, _instance, ("loc", "scale", "concentration"))

    def rsample(self, sample_shape=()):
        u = dyngrad.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.icdf(u)

    def _safe_concentration(self, like):
        """(xi == 0 by isclose, xi with those entries replaced by 1 so both branches stay finite)."""
        at_zero = dyngrad.isclose(self.concentration, like)
        return at_zero, dyngrad.where(at_zero, dyngrad.ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, xi = self._safe_concentration(dyngrad.tensor(0.0))
        power = 1 / xi + dyngrad.ones_like(z)
        nonzero = dyngrad.where(power == 0, power, power * dyngrad.log1p(xi * z))
        return -self.scale.log() - dyngrad.where(at_zero, z, nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        at_zero, xi = self._safe_concentration(dyngrad.tensor(0.0))
        return dyngrad.where(at_zero, -z, -dyngrad.log1p(xi * z) / xi)

    def log_cdf(self, value):
        return dyngrad.log1p(-dyngrad.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return dyngrad.exp(self.log_cdf(value))

    def icdf(self, value):
        at_zero, xi = self._safe_concentration(dyngrad.zeros_like(self.concentration))
        log_u = dyngrad.log1p(-value)
        nonzero = self.loc + self.scale / xi * dyngrad.expm1(-xi * log_u)
        return dyngrad.where(at_zero, self.loc - self.scale * log_u, nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1
        xi = dyngrad.where(valid, self.concentration, 0.5)
        return dyngrad.where(valid, self.loc + self.scale / (1 - xi), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        xi = dyngrad.where(valid, self.concentration, 0.25)
        return dyngrad.where(valid, self.scale**2 / ((1 - xi) ** 2 * (1 - 2 * xi)), math.nan)

    def entropy(self):
        return dyngrad.broadcast_to(dyngrad.log(self.scale) + self.concentration + 1, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = dyngrad.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)
