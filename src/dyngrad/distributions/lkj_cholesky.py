"""The LKJ distribution over Cholesky factors of correlation matrices (torch.distributions.LKJCholesky;
Lewandowski, Kurowicka and Joe, "Generating random correlation matrices based on vines and extended onion
method", 2009).

Draws by the onion method: row i of the factor is sqrt(y_i) times a uniform direction in the first i
coordinates, y_i ~ Beta(i/2, concentration + (dim - 2)/2 - i/2), with the diagonal entry closing the row to
unit norm. log density sum_i (2 (eta - 1) + dim - i) log L_ii over i = 2..dim, minus the normaliser
(dim - 1)/2 log pi + mvlgamma(eta + (dim - 1)/2 - 1/2, dim - 1) - (dim - 1) lgamma(eta + (dim - 1)/2).
"""

from __future__ import annotations

import math

import dyngrad

from .._tensor import Size
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJCholesky(dim, concentration=1.0): dim >= 2 (ValueError otherwise), concentration > 0; events of
    shape (dim, dim). No rsample."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration=1.0, validate_args=None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = dyngrad.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = dyngrad.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        return self._finish_expand(new, batch_shape)

    def sample(self, sample_shape=()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        normal = dyngrad.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
        direction = normal / normal.norm(dim=-1, keepdim=True)
        direction[..., 0, :].fill_(0.0)  # the first row is (1, 0, ..., 0)
        w = dyngrad.sqrt(y) * direction
        tiny = dyngrad.finfo(w.dtype).tiny
        diagonal = dyngrad.clamp(1 - dyngrad.sum(w**2, dim=-1), min=tiny).sqrt()
        w += dyngrad.diag_embed(diagonal)
        return w

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = dyngrad.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalised = dyngrad.sum(order * diagonal.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normaliser = 0.5 * dm1 * math.log(math.pi) + dyngrad.mvlgamma(alpha - 0.5, dm1) - dyngrad.lgamma(alpha) * dm1
        return unnormalised - normaliser
