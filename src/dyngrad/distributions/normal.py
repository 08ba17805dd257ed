"""The normal distribution N(loc, scale^2) (torch.distributions.Normal).

Density 1 / (scale sqrt(2 pi)) exp(-(x - loc)^2 / (2 scale^2)); cdf (1 + erf((x - loc) / (scale sqrt 2))) / 2;
icdf loc + scale sqrt(2) erfinv(2 p - 1); entropy (1 + log(2 pi)) / 2 + log scale. Reparameterised:
loc + scale * eps with eps ~ N(0, 1). As an exponential family its natural parameters are
(loc / scale^2, -1 / (2 scale^2)) with log normaliser -x^2 / (4 y) + log(-pi / y) / 2.
"""

from __future__ import annotations

import math

import dyngrad

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _batch_shape, _standard_normal, broadcast_all

__all__ = ["Normal"]

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


class Normal(ExponentialFamily):
    """Normal(loc, scale): ``loc`` real, ``scale`` > 0 (numbers or tensors, broadcast)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch_shape((loc, scale), self.loc), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with dyngrad.no_grad():
            return dyngrad.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        eps = _standard_normal(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + dyngrad.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * dyngrad.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + dyngrad.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * dyngrad.log(-math.pi / y)
