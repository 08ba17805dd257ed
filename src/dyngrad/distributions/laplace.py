"""The Laplace distribution (torch.distributions.Laplace).

Density exp(-|x - loc| / scale) / (2 scale); cdf 1/2 - sign(x - loc) expm1(-|x - loc| / scale) / 2; icdf
loc - scale sign(p - 1/2) log1p(-2 |p - 1/2|); variance 2 scale^2; entropy 1 + log(2 scale).
Reparameterised by the icdf of u ~ U(eps - 1, 1) (shifted so log1p stays finite).
"""

from __future__ import annotations

import dyngrad

from . import constraints
from .distribution import Distribution
from .utils import _batch_shape, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace(loc, scale): ``loc`` real, ``scale`` > 0."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch_shape((loc, scale), self.loc), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return 2**0.5 * self.scale

    def rsample(self, sample_shape=()):
        eps = dyngrad.finfo(self.loc.dtype).eps
        u = dyngrad.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * dyngrad.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -dyngrad.log(2 * self.scale) - dyngrad.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * dyngrad.expm1(-d.abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * dyngrad.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + dyngrad.log(2 * self.scale)
