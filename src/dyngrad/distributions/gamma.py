"""The gamma distribution with shape ``concentration`` and ``rate`` (torch.distributions.Gamma).

Density rate^a x^(a-1) exp(-rate x) / Gamma(a); cdf P(a, rate x) (the regularised lower incomplete gamma
function); mean a / rate; variance a / rate^2; mode max((a - 1) / rate, 0); entropy
a - log(rate) + lgamma(a) + (1 - a) digamma(a). Reparameterised through ``_standard_gamma`` draws, whose
gradient is the implicit one (dyngrad/_ops/random_dist.py). Exponential family with natural parameters
(a - 1, -rate) and log normaliser lgamma(x + 1) + (x + 1) log(-1 / y).
"""

from __future__ import annotations

import dyngrad

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape, broadcast_all

__all__ = ["Gamma"]


def _standard_gamma(concentration):
    return dyngrad._standard_gamma(concentration)


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate), both > 0."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(_batch_shape((concentration, rate), self.concentration), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=dyngrad.finfo(value.dtype).tiny)  # keep draws off 0, outside the graph
        return value

    def log_prob(self, value):
        value = dyngrad.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (dyngrad.xlogy(self.concentration, self.rate) + dyngrad.xlogy(self.concentration - 1, value)
                - self.rate * value - dyngrad.lgamma(self.concentration))

    def entropy(self):
        a = self.concentration
        return a - dyngrad.log(self.rate) + dyngrad.lgamma(a) + (1.0 - a) * dyngrad.digamma(a)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return dyngrad.lgamma(x + 1) + (x + 1) * dyngrad.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return dyngrad.special.gammainc(self.concentration, self.rate * value)
