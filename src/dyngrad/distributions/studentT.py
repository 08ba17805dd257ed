"""Student's t distribution with ``df`` degrees of freedom, location and scale (torch.distributions.StudentT).

log density -(df + 1)/2 log1p(y^2 / df) - log(scale) - log(df)/2 - log(pi)/2 - lgamma(df/2)
+ lgamma((df + 1)/2) with y = (x - loc) / scale; mean loc (df > 1, else nan); variance scale^2 df / (df - 2)
(df > 2; inf for 1 < df <= 2; nan otherwise); entropy log scale + (df + 1)/2 (digamma((df + 1)/2)
- digamma(df/2)) + log(df)/2 + log B(df/2, 1/2). Reparameterised: loc + scale X / sqrt(Z / df), X ~ N(0, 1),
Z ~ Chi2(df) (reparameterised itself).
"""

from __future__ import annotations

import math

import dyngrad

from .._tensor import Size
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """StudentT(df, loc=0, scale=1): df > 0, scale > 0."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        m = self.loc.clone(memory_format=dyngrad.contiguous_format)
        m[self.df <= 1] = math.nan
        return m

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        m = df.clone(memory_format=dyngrad.contiguous_format)
        finite = df > 2
        m[finite] = self.scale[finite].pow(2) * df[finite] / (df[finite] - 2)
        m[(df <= 2) & (df > 1)] = math.inf
        m[df <= 1] = math.nan
        return m

    def rsample(self, sample_shape=()):
        x = _standard_normal(self._extended_shape(sample_shape), dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (x * dyngrad.rsqrt(z / self.df))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                    + dyngrad.lgamma(0.5 * self.df) - dyngrad.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * dyngrad.log1p(y**2.0 / self.df) - log_norm

    def entropy(self):
        half_df = 0.5 * self.df
        half_df1 = 0.5 * (self.df + 1)
        log_beta = dyngrad.lgamma(half_df) + math.lgamma(0.5) - dyngrad.lgamma(half_df1)
        return (self.scale.log() + half_df1 * (dyngrad.digamma(half_df1) - dyngrad.digamma(half_df))
                + 0.5 * self.df.log() + log_beta)
