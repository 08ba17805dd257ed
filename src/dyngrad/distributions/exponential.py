"""The exponential distribution (torch.distributions.Exponential).

Density rate exp(-rate x) on x >= 0; cdf 1 - exp(-rate x); icdf -log1p(-p) / rate; mean 1 / rate;
variance rate^-2; entropy 1 - log(rate). Reparameterised: E / rate with E ~ Exp(1). Exponential family
with natural parameter -rate and log normaliser -log(-x).
"""

from __future__ import annotations

import dyngrad

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential(rate), rate > 0."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_shape((rate,), self.rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return dyngrad.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        draws = dyngrad.empty(self._extended_shape(sample_shape), dtype=self.rate.dtype).exponential_()
        return draws / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - dyngrad.exp(-self.rate * value)

    def icdf(self, value):
        return -dyngrad.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - dyngrad.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -dyngrad.log(-x)
