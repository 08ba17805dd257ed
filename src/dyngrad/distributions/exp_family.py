"""Exponential families (torch.distributions.ExponentialFamily): densities
p(x; theta) = h(x) exp(<t(x), theta> - F(theta)) with natural parameters theta and log normaliser F.

Their entropy, and the KL divergence between two members of one family (kl.py), follow from F alone
through its gradient, the mean of t(x) (Bregman divergence; Nielsen and Nock, "Entropies and
cross-entropies of exponential families", 2010):
    H = -E[log h(x)] + F(theta) - <theta, grad F(theta)>.
"""

from __future__ import annotations

import dyngrad

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Subclasses provide ``_natural_params`` (a tuple of tensors), ``_log_normalizer(*params)`` and
    ``_mean_carrier_measure`` (E[log h(x)])."""

    @property
    def _natural_params(self) -> tuple:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self):
        """H = -E[log h] + F(theta) - <theta, grad F(theta)>, with grad F by autograd (differentiable again)."""
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_norm = self._log_normalizer(*params)
        grads = dyngrad.autograd.grad(log_norm.sum(), params, create_graph=True)
        result = -self._mean_carrier_measure + log_norm
        for p, g in zip(params, grads):
            result = result - (p * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
