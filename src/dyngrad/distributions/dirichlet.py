"""The Dirichlet distribution on the simplex (torch.distributions.Dirichlet).

Density Gamma(a0) / prod Gamma(a_i) prod x_i^(a_i - 1) with a0 = sum a_i; mean a / a0; variance
a_i (a0 - a_i) / (a0^2 (a0 + 1)); entropy sum lgamma(a_i) - lgamma(a0) - (K - a0) digamma(a0)
- sum (a_i - 1) digamma(a_i). Reparameterised: normalised gamma draws, differentiated implicitly
(torch._dirichlet_grad, Jankowiak & Obermeyer 2018) in a custom autograd Function (``_DirichletBackward``).
"""

from __future__ import annotations

import dyngrad

from ..autograd import Function
from ..autograd.function import once_differentiable
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


def _Dirichlet_backward(x, concentration, grad_output):  # noqa: N802 - torch's name
    """Gradient of Dirichlet draws ``x`` w.r.t. ``concentration``: each coordinate's Beta marginal gives
    d x_i / d a_i; the rest follows by keeping the draw on the simplex."""
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = dyngrad._dirichlet_grad(x, concentration, total)
    return grad * (grad_output - (x * grad_output).sum(-1, True))


class _Dirichlet(Function):
    @staticmethod
    def forward(ctx, concentration):
        x = dyngrad._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return _Dirichlet_backward(x, concentration, grad_output)


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration): a tensor (..., K) of positive concentrations; events of shape (K,)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Dirichlet, batch_shape, _instance, ("concentration",), self.event_shape)

    def rsample(self, sample_shape=()):
        return _Dirichlet.apply(self.concentration.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return dyngrad.xlogy(a - 1.0, value).sum(-1) + dyngrad.lgamma(a.sum(-1)) - dyngrad.lgamma(a).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """(a - 1)^+ normalised; where every a_i < 1, the vertex of the largest (a torch convention)."""
        excess = (self.concentration - 1).clamp(min=0.0)
        mode = excess / excess.sum(-1, True)
        corner = (self.concentration < 1).all(dim=-1)
        mode[corner] = dyngrad.nn.functional.one_hot(mode[corner].argmax(dim=-1), excess.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        a0 = self.concentration.sum(-1, True)
        return self.concentration * (a0 - self.concentration) / (a0.pow(2) * (a0 + 1))

    def entropy(self):
        a = self.concentration
        k = a.size(-1)
        a0 = a.sum(-1)
        return (dyngrad.lgamma(a).sum(-1) - dyngrad.lgamma(a0) - (k - a0) * dyngrad.digamma(a0)
                - ((a - 1.0) * dyngrad.digamma(a)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - dyngrad.lgamma(x.sum(-1))

