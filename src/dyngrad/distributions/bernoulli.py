"""The Bernoulli distribution on {0, 1} (torch.distributions.Bernoulli).

log p(x) = x log p + (1 - x) log(1 - p) = -BCEWithLogits(logits, x); mean p; variance p (1 - p); mode 1 for
p > 1/2, 0 below, nan at 1/2; entropy BCEWithLogits(logits, p). Exponential family with natural parameter
logit(p) and log normaliser log1p(exp(x)).
"""

from __future__ import annotations

import math

import dyngrad

from .._tensor import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _BinaryParameter, _is_number, _one_of, broadcast_all

__all__ = ["Bernoulli"]


def _bce(logits, target):
    return dyngrad.nn.functional.binary_cross_entropy_with_logits(logits, target, reduction="none")


class Bernoulli(_BinaryParameter, ExponentialFamily):
    """Bernoulli(probs=None, logits=None): exactly one of them (numbers or tensors)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        super().__init__(Size() if _is_number(given) else param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        self._expand_trial(new, batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = math.nan
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with dyngrad.no_grad():
            return dyngrad.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -_bce(logits, value)

    def entropy(self):
        return _bce(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        values = dyngrad.arange(2, dtype=self._param.dtype).view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values

    @property
    def _natural_params(self):
        return (dyngrad.logit(self.probs),)

    def _log_normalizer(self, x):
        return dyngrad.log1p(dyngrad.exp(x))
