"""The geometric distribution: failures before the first success of Bernoulli(p) trials
(torch.distributions.Geometric), on {0, 1, 2, ...}.

log p(k) = k log(1 - p) + log p; mean 1/p - 1; variance (1/p - 1) / p; mode 0; entropy
BCEWithLogits(logits, p) / p. Draws: floor(log u / log(1 - p)), u uniform on [tiny, 1).
"""

from __future__ import annotations

import dyngrad

from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .utils import _BinaryParameter, _is_number, _one_of, broadcast_all

__all__ = ["Geometric"]


class Geometric(_BinaryParameter, Distribution):
    """Geometric(probs=None, logits=None): success probability in (0, 1] (probs of 0 are rejected under
    validation with torch's message), or its logits."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        super().__init__(Size() if _is_number(given) else given.size(), validate_args=validate_args)
        if self._validate_args and probs is not None:
            valid = self.probs > 0
            if not valid.all():
                raise ValueError(
                    f"Expected parameter probs ({type(self.probs).__name__} of shape {tuple(self.probs.shape)}) "
                    f"of distribution {self!r} to be positive but found invalid values:\n{self.probs.data[~valid]}"
                )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = Size(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return dyngrad.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = dyngrad.finfo(self.probs.dtype).tiny
        with dyngrad.no_grad():
            u = dyngrad.empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone(memory_format=dyngrad.contiguous_format)
        probs[(probs == 1) & (value == 0)] = 0  # 0 * log(0) = 0 at the certain first success
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        bce = dyngrad.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs
