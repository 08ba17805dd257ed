"""The continuous Bernoulli distribution on [0, 1] (torch.distributions.ContinuousBernoulli; Loaiza-Ganem
and Cunningham, "The continuous Bernoulli: fixing a pervasive error in variational autoencoders", 2019).

Density C(p) p^x (1 - p)^(1 - x) with log normaliser log C(p) = log(|log(1 - p) - log p| / |1 - 2 p|),
replaced near p = 1/2 (inside ``lims``) by its Taylor expansion log 2 + 4/3 t + 104/45 t^2, t = (p - 1/2)^2;
likewise the mean p / (2p - 1) + 1 / (log(1 - p) - log p) (Taylor 1/2 + (1/3 + 16/45 u^2) u, u = p - 1/2),
the variance, the cdf (p^x (1 - p)^(1 - x) + p - 1) / (2p - 1) and its inverse (used to draw, so draws
are reparameterised).
"""

from __future__ import annotations

import math

import dyngrad

from .._tensor import Size
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _BinaryParameter, _is_number, _one_of, broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(_BinaryParameter, ExponentialFamily):
    """ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501)): probs in [0, 1] (clamped to
    [eps, 1 - eps]) or logits; ``lims`` bounds the region where Taylor expansions replace the closed forms."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None) -> None:
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            if validate_args is not None and not self.arg_constraints["probs"].check(param).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(param)
            self._param = self.probs
        else:
            self.logits = param
            self._param = param
        self._lims = lims
        super().__init__(Size() if _is_number(given) else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        self._expand_trial(new, batch_shape)
        return self._finish_expand(new, batch_shape)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    # ------------------------------------------------------------------ the stable region
    def _outside_unstable_region(self):
        return dyngrad.max(dyngrad.le(self.probs, self._lims[0]), dyngrad.gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        """probs, with those inside the unstable region moved to its lower edge (their closed forms are then
        finite and unused)."""
        return dyngrad.where(self._outside_unstable_region(), self.probs, self._lims[0] * dyngrad.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(p): the closed form outside ``lims``, the Taylor expansion inside."""
        p = self._cut_probs()
        below = dyngrad.where(dyngrad.le(p, 0.5), p, dyngrad.zeros_like(p))
        above = dyngrad.where(dyngrad.ge(p, 0.5), p, dyngrad.ones_like(p))
        log_norm = dyngrad.log(dyngrad.abs(dyngrad.log1p(-p) - dyngrad.log(p))) - dyngrad.where(
            dyngrad.le(p, 0.5), dyngrad.log1p(-2.0 * below), dyngrad.log(2.0 * above - 1.0))
        t = dyngrad.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * t) * t
        return dyngrad.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        p = self._cut_probs()
        mus = p / (2.0 * p - 1.0) + 1.0 / (dyngrad.log1p(-p) - dyngrad.log(p))
        u = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * dyngrad.pow(u, 2)) * u
        return dyngrad.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return dyngrad.sqrt(self.variance)

    @property
    def variance(self):
        p = self._cut_probs()
        closed = p * (p - 1.0) / dyngrad.pow(1.0 - 2.0 * p, 2) + 1.0 / dyngrad.pow(
            dyngrad.log1p(-p) - dyngrad.log(p), 2)
        t = dyngrad.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * t) * t
        return dyngrad.where(self._outside_unstable_region(), closed, taylor)

    def sample(self, sample_shape=()):
        u = dyngrad.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with dyngrad.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        return self.icdf(dyngrad.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = dyngrad.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        closed = (dyngrad.pow(p, value) * dyngrad.pow(1.0 - p, 1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = dyngrad.where(self._outside_unstable_region(), closed, value)
        return dyngrad.where(dyngrad.le(value, 0.0), dyngrad.zeros_like(value),
                             dyngrad.where(dyngrad.ge(value, 1.0), dyngrad.ones_like(value), inside))

    def icdf(self, value):
        p = self._cut_probs()
        closed = (dyngrad.log1p(-p + value * (2.0 * p - 1.0)) - dyngrad.log1p(-p)) / (
            dyngrad.log(p) - dyngrad.log1p(-p))
        return dyngrad.where(self._outside_unstable_region(), closed, value)

    def entropy(self):
        log_q = dyngrad.log1p(-self.probs)
        log_p = dyngrad.log(self.probs)
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log((e^x - 1) / x), with its Taylor series x/2 + x^2/24 - x^4/2880 near x = 0."""
        outside = dyngrad.max(dyngrad.le(x, self._lims[0] - 0.5), dyngrad.gt(x, self._lims[1] - 0.5))
        cut = dyngrad.where(outside, x, (self._lims[0] - 0.5) * dyngrad.ones_like(x))
        log_norm = dyngrad.log(dyngrad.abs(dyngrad.special.expm1(cut))) - dyngrad.log(dyngrad.abs(cut))
        taylor = 0.5 * x + dyngrad.pow(x, 2) / 24.0 - dyngrad.pow(x, 4) / 2880.0
        return dyngrad.where(outside, log_norm, taylor)
