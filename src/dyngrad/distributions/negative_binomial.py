"""The negative binomial distribution: successes before ``total_count`` failures of Bernoulli(p) trials
(torch.distributions.NegativeBinomial).

log p(k) = r logsigmoid(-logits) + k logsigmoid(logits) + lgamma(r + k) - lgamma(1 + k) - lgamma(r) (the
normaliser taken as 0 where r + k = 0); mean r e^logits; variance mean / sigmoid(-logits); mode
floor((r - 1) e^logits) clamped at 0. Draws: Poisson(Gamma(r, e^-logits)).
"""

from __future__ import annotations

import dyngrad

from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _BinaryParameter, _one_of, broadcast_all, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_BinaryParameter, Distribution):
    """NegativeBinomial(total_count, probs=None, logits=None): total_count >= 0 (real), probs in [0, 1)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None) -> None:
        _one_of(probs, logits)
        count, param = broadcast_all(total_count, probs if probs is not None else logits)
        self.total_count = count.type_as(param)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        super().__init__(param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_trial(new, batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        return self.total_count * dyngrad.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / dyngrad.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=dyngrad.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=()):
        with dyngrad.no_grad():
            return dyngrad.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logsigmoid = dyngrad.nn.functional.logsigmoid
        unnormalised = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        normaliser = (-dyngrad.lgamma(self.total_count + value) + dyngrad.lgamma(1.0 + value)
                      + dyngrad.lgamma(self.total_count))
        normaliser = normaliser.masked_fill(self.total_count + value == 0.0, 0.0)
        return unnormalised - normaliser
