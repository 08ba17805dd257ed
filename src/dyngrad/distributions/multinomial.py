"""The multinomial distribution: category counts of ``total_count`` categorical draws
(torch.distributions.Multinomial).

log p(x) = lgamma(sum x + 1) - sum lgamma(x_i + 1) + sum x_i logits_i (with 0 * -inf taken as 0); mean n p;
variance n p (1 - p); entropy n H(Categorical) - lgamma(n + 1) + sum_i E[lgamma(X_i + 1)], the last over each
count's Binomial(n, p_i) marginal.
"""

from __future__ import annotations

import math

import dyngrad

from .._tensor import Size
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Multinomial(total_count=1, probs=None, logits=None): total_count a Python int (NotImplementedError
    otherwise), probs/logits (..., K); events of shape (K,)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        return self._finish_expand(new, Size(batch_shape))

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape=()):
        sample_shape = Size(sample_shape)
        draws = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        order = list(range(draws.dim()))
        order.append(order.pop(0))  # the total_count draws last
        draws = draws.permute(*order)
        counts = dyngrad.zeros(self._extended_shape(sample_shape), dtype=draws.dtype)
        counts.scatter_add_(-1, draws, dyngrad.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self):
        n = dyngrad.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - dyngrad.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = dyngrad.exp(self._binomial.log_prob(support))
        term2 = (binomial_probs * dyngrad.lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone(memory_format=dyngrad.contiguous_format)
        log_factorial_n = dyngrad.lgamma(value.sum(-1) + 1)
        log_factorial_xs = dyngrad.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -math.inf)] = 0
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
