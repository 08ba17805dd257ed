"""The Poisson distribution (torch.distributions.Poisson).

log p(k) = k log(rate) - rate - lgamma(k + 1) (xlogy, so rate 0 gives log p(0) = 0); mean and variance rate;
mode floor(rate). Exponential family with natural parameter log(rate) and log normaliser exp(x) (it has no
closed entropy: ``entropy`` raises NotImplementedError, as torch's).
"""

from __future__ import annotations

import dyngrad

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson(rate), rate >= 0."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch_shape((rate,), self.rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with dyngrad.no_grad():
            return dyngrad.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (dyngrad.log(self.rate),)

    def _log_normalizer(self, x):
        return dyngrad.exp(x)
