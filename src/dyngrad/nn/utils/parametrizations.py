"""torch.nn.utils.parametrizations: weight_norm and spectral_norm as parametrizations (torch.nn.utils.parametrize).

- ``weight_norm(module, name, dim=0)``: ``name`` = g * v / ||v|| (Salimans & Kingma 2016) with the originals
  ``original0`` = g = norm_except_dim(weight, 2, dim) and ``original1`` = v = weight.
- ``spectral_norm(module, name, n_power_iterations=1, eps=1e-12, dim=None)``: ``name`` = W / sigma(W)
  (Miyato et al. 2018), sigma estimated by power iteration on the buffers ``_u``/``_v`` (15 iterations at
  registration, ``n_power_iterations`` per access in training mode). The buffers start from a normal draw
  of dyngrad's generator; load torch's state_dict to start from torch's.
- ``orthogonal(module, name, orthogonal_map=None, use_trivialization=True)``: ``name`` an orthogonal matrix
  (Lezcano-Casado 2019, "Trivializations for gradient-based optimization on manifolds"), by the matrix
  exponential or the Cayley map of a skew-symmetric matrix, or a product of Householder reflections,
  times the ``base`` buffer (the trivialization). The matrix exponential and Householder product here are
  small composites of dyngrad ops (scaling and squaring of a Taylor series; the reflections one by one),
  differentiable by autograd, for this module's use (dyngrad.linalg has no matrix_exp / householder_product
  yet); ``base`` starts from NumPy's QR (LAPACK geqrf, as torch.geqrf).
"""

from __future__ import annotations

import math
from enum import Enum, auto

from ... import _creation
from ..._backend import xp
from ..._ops.weight_norm import _weight_norm, norm_except_dim
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


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


# ------------------------------------------------------------------ orthogonal


def _matrix_exp(a: Tensor) -> Tensor:
    """exp(a) of square matrices: scale by 2^-s so the 1-norm is below 1/2, a degree-18 Taylor polynomial
    (Horner), then square s times. Differentiable through its ops."""
    n = a.size(-1)
    norm = float(xp.abs(a._data).sum(axis=-2).max()) if a.numel() else 0.0
    s = max(0, int(math.ceil(math.log2(norm))) + 1) if norm > 0 else 0
    b = a / (2.0 ** s)
    eye = _creation.eye(n, dtype=a.dtype)
    e = eye
    for k in range(18, 0, -1):
        e = eye + (b @ e) / k
    for _ in range(s):
        e = e @ e
    return e


def _householder_product(a: Tensor, tau: Tensor) -> Tensor:
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i = (0, ..., 0, 1, a[i+1:, i]) (the
    LAPACK orgqr convention of torch.linalg.householder_product), for (..., n, k) ``a``."""
    n, k = a.size(-2), a.size(-1)
    m = _creation.eye(n, dtype=a.dtype).expand(*a.shape[:-2], n, n)
    for i in range(k):
        col = a[..., :, i]
        head = _creation.zeros(*a.shape[:-2], i, dtype=a.dtype)
        one = _creation.ones(*a.shape[:-2], 1, dtype=a.dtype)
        v = _cat([head, one, col[..., i + 1:]], -1).unsqueeze(-1)
        m = m - (m @ v) @ (v.mH * tau[..., i, None, None])
    return m[..., :, :k]


def _make_orthogonal(a: Tensor) -> Tensor:
    """Q of a's QR decomposition with signs making R's diagonal positive (as torch: geqrf, householder_product,
    times sgn(diag(R)))."""
    q, r = xp.linalg.qr(a._data)
    d = xp.sign(xp.diagonal(r, axis1=-2, axis2=-1))
    return _creation.tensor(q * d[..., None, :])


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.size(-2), q.size(-1)
    eps = 10.0 * n * float(xp.finfo(q._data.dtype).eps)
    return bool(xp.allclose(xp.swapaxes(q._data, -1, -2).conj() @ q._data, xp.eye(k), atol=eps))


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x):
        n, k = x.size(-2), x.size(-1)
        transposed = n < k
        if transposed:
            x = x.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:
                x = _cat([x, _creation.zeros(n, n - k, dtype=x.dtype).expand(*x.shape[:-2], -1, -1)], -1)
            a = x - x.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = _matrix_exp(a)
            else:
                eye = _creation.eye(n, dtype=a.dtype)
                from ... import linalg
                q = linalg.solve(eye.add(a, alpha=-0.5), eye.add(a, alpha=0.5))
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = _householder_product(a, tau)
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base @ q
        if transposed:
            q = q.mT
        return q

    def right_inverse(self, q):
        with no_grad():
            if q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {q.shape}.")
            q_init = q
            n, k = q.size(-2), q.size(-1)
            if n < k:
                q = q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                raise NotImplementedError("dyngrad's orthogonal parametrization needs use_trivialization=True "
                                          "to assign (it has no geqrf)")
            if n == k:
                q = _make_orthogonal(q) if not _is_orthogonal(q) else q.clone()
            else:
                noise = _creation.randn(*(tuple(q.shape[:-2]) + (n, n - k)), dtype=q.dtype)
                q = _make_orthogonal(_cat([q, noise], -1))
            self.base = q
            neg_id = _creation.zeros_like(q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def _cat(tensors, dim):
    from ..._ops.join_split import cat
    return cat(tensors, dim)


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Make ``module.<name>`` (a matrix or batch of matrices) orthogonal (or unitary) by parametrization.

    ``orthogonal_map``: "matrix_exp" (default for square or complex matrices), "cayley" or "householder"
    (default otherwise). ValueError (torch's texts) for a missing tensor, fewer than 2 dims, an unknown map.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
