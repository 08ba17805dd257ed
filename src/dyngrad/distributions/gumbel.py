"""The Gumbel (type I extreme value) distribution (torch.distributions.Gumbel).

Drawn as loc - scale log(-log u), u uniform on [tiny, 1 - eps]: the chain of transforms below on a uniform
base. log density y - exp(y) - log scale with y = (loc - x) / scale; mean loc + scale gamma (Euler's
constant); stddev pi scale / sqrt 6; entropy log scale + 1 + gamma.
"""

from __future__ import annotations

import math

import dyngrad

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import _is_number, broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """Gumbel(loc, scale): ``loc`` real, ``scale`` > 0."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        info = dyngrad.finfo(self.loc.dtype)
        if _is_number(loc) and _is_number(scale):
            base = Uniform(info.tiny, 1 - info.eps, validate_args=validate_args)
        else:
            base = Uniform(dyngrad.full_like(self.loc, info.tiny), dyngrad.full_like(self.loc, 1 - info.eps),
                           validate_args=validate_args)
        # u -> log u -> -log u -> log(-log u) -> loc - scale log(-log u)
        chain = [ExpTransform().inv, AffineTransform(loc=0, scale=-dyngrad.ones_like(self.scale)), ExpTransform().inv,
                 AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
