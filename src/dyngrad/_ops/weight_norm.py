"""Weight normalisation kernels: ``torch._weight_norm`` and ``torch.norm_except_dim`` (Salimans & Kingma 2016,
"Weight Normalization"): w = g * v / ||v||, the norm taken over every dim of v except ``dim`` (dim -1: all dims).

As aten's ``_weight_norm``: for dim 0 or the last dim it is one fused node, WeightNormInterfaceBackward0;
otherwise it is composed, v * (g / norm_except_dim(v, 2, dim)) (MulBackward0). Backward of the fused node
(derivatives.yaml, _weight_norm_interface_backward): with n = ||v|| over the other dims,
grad_g = sum(grad * v) / n and grad_v = (g / n) * (grad - v * grad_g / n).
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor
from . import distance as _dist
from . import reduction as red
from .registry import REGISTRY, Op, apply, register


def _other_axes(ndim: int, dim: int) -> tuple:
    return tuple(a for a in range(ndim) if a != dim)


@register
class WeightNormInterfaceBackward0(Op):
    """_weight_norm_interface(v, g, dim): w = v * g / ||v|| (norm over every dim but ``dim``)."""

    save_inputs = True

    @staticmethod
    def forward(v, g, dim):
        n = xp.sqrt((v * v).sum(axis=_other_axes(v.ndim, dim), keepdims=True))
        return v * (g.reshape(n.shape) / n)

    def backward(self, grad):
        v, g = self.saved()
        (dim,) = self._params
        axes = _other_axes(v.dim(), dim)
        n = red.sum(v * v, axes, keepdim=True).sqrt()
        gg = g.reshape(n.shape)
        grad_g = red.sum(grad * v, axes, keepdim=True) / n
        grad_v = (gg / n) * (grad - v * (grad_g / n))
        return grad_v, grad_g.reshape(g.shape)


# aten's norm(Tensor, Scalar p) over all elements: the same kernel as norm(p, dim) (NormBackward1) under
# torch's other node name
NormBackward0 = type("NormBackward0", (_dist._Norm,), {"__slots__": (), "__module__": __name__,
                                                        "__doc__": "norm(input, p) of every element (aten::norm)."})
if "NormBackward0" not in REGISTRY:
    register(NormBackward0)


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002 - torch's name
    """||v||_pow over every dim except ``dim``, keeping size-1 dims (dim -1: the norm of all of v, 0-d).
    Composed as aten's (view, norm over dim 1 or 0 (NormBackward1), view; other dims through a transpose)."""
    if dim == -1:
        return apply(NormBackward0, (v,), (float(pow), tuple(range(v.dim())), False))
    if dim == 0:
        flat = v.contiguous().view(v.size(0), -1)
        return _dist._norm(flat, pow, 1).view(-1, *([1] * (v.dim() - 1)))
    if dim == v.dim() - 1:
        flat = v.contiguous().view(-1, v.size(-1))
        return _dist._norm(flat, pow, 0).view(*([1] * (v.dim() - 1)), -1)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """torch._weight_norm(v, g, dim): g * v / norm_except_dim(v, 2, dim)."""
    if dim < -1 or dim >= max(v.dim(), 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, {v.dim() - 1}], but got {dim})")
    if v.dim() and dim in (0, v.dim() - 1):
        return apply(WeightNormInterfaceBackward0, (v, g), (dim,))
    return v * (g / norm_except_dim(v, 2, dim))


EXPORTS: dict = {"_weight_norm": _weight_norm, "norm_except_dim": norm_except_dim}
