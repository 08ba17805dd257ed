"""The binomial distribution: successes in ``total_count`` trials (torch.distributions.Binomial).

log p(k) = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k logit - n log(1 + e^logit), the last term
written n max(logit, 0) + n log1p(e^-|logit|) for stability; mean n p; variance n p (1 - p); mode
floor((n + 1) p) clamped to n; entropy by summing over the support (needs one common n).
"""

from __future__ import annotations

import dyngrad

from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import _BinaryParameter, _one_of, broadcast_all

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    """max(x, 0), with gradient 1/2 at 0 (the mean of the one-sided slopes)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_BinaryParameter, Distribution):
    """Binomial(total_count=1, probs=None, logits=None): total_count a non-negative integer (number or
    tensor, kept in the parameter's dtype), exactly one of probs and logits."""

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None) -> None:
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
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_trial(new, batch_shape)
        return self._finish_expand(new, batch_shape)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with dyngrad.no_grad():
            return dyngrad.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        # log(1 + e^logit) n - log n!, then the terms of k, in torch's order of operations
        normaliser = (n * _clamp_by_zero(self.logits) + n * dyngrad.log1p(dyngrad.exp(-dyngrad.abs(self.logits)))
                      - dyngrad.lgamma(n + 1))
        return value * self.logits - dyngrad.lgamma(value + 1) - dyngrad.lgamma(n - value + 1) - normaliser

    def _common_count(self, what: str) -> int:
        count = int(self.total_count.max())
        if not self.total_count.min() == count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def entropy(self):
        self._common_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(dyngrad.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        count = self._common_count("enumerate_support")
        values = dyngrad.arange(1 + count, dtype=self._param.dtype).view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
