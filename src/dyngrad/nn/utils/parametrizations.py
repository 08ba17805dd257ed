"""torch.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations (torch.nn.utils.parametrize).

- ``weight_norm(module, name, dim=0)``: ``name`` = g * v / ||v|| (Salimans & Kingma 2016) with the originals
  ``original0`` = g = norm_except_dim(weight, 2, dim) and ``original1`` = v = weight.
- ``spectral_norm(module, name, n_power_iterations=1, eps=1e-12, dim=None)``: ``name`` = W / sigma(W)
  (Miyato et al. 2018), sigma estimated by power iteration on the buffers ``_u``/``_v`` (15 iterations at
  registration, ``n_power_iterations`` per access in training mode). The buffers start from a normal draw
  of dyngrad's generator; load torch's state_dict to start from torch's.
Not here yet: ``orthogonal`` (it needs linalg.matrix_exp / householder_product).
"""

from __future__ import annotations

from ... import _creation
from ..._ops.weight_norm import _weight_norm, norm_except_dim
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["weight_norm", "spectral_norm"]


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Weight normalisation of ``module.<name>`` as a parametrization; returns ``module``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = _creation.empty(h, dtype=weight.dtype).normal_(0, 1)
            v = _creation.empty(w, dtype=weight.dtype).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError("Expected weight to be at least 2-dimensional")
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations: int) -> None:
        # the buffers are updated in place, as torch's normalize(..., out=...)
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.mH.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = u.vdot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def _is_conv_transpose(module) -> bool:
    return type(parametrize.type_before_parametrizations(module)).__name__.startswith("ConvTranspose") or \
        parametrize.type_before_parametrizations(module).__name__.startswith("ConvTranspose")


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Spectral normalisation of ``module.<name>`` as a parametrization; ``dim`` defaults to 1 for ConvTranspose
    modules, else 0. ValueError (torch's text) if the module has no such tensor."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
