"""Distances (aten/src/ATen/native/Distance.cpp): torch.cdist between the rows of two (batches of) matrices, and
nn.functional's pairwise_distance, cosine_similarity and normalize (through one norm node)."""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_KINDS
from .._tensor import Tensor, _wrap_dim, wrap
from . import pointwise as pw
from . import reduction as red
from . import rounding
from . import shape as sh
from .nn_kernels import _register_once
from .registry import Op, apply, register


def _pairwise_diff(x1, x2):
    """x1[..., i, :] - x2[..., j, :] for every pair: shape (..., r1, r2, m)."""
    return x1[..., :, None, :] - x2[..., None, :, :]


def _cdist_array(x1, x2, p):
    """The p-norm distances between the rows of x1 and x2 (batch dims broadcast), as torch's kernel."""
    diff = xp.abs(_pairwise_diff(x1, x2))
    if p == 0:
        return (diff != 0).sum(-1).astype(x1.dtype)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return xp.sqrt((diff * diff).sum(-1))
    if p == xp.inf:
        return diff.max(-1, initial=0).astype(x1.dtype)
    return (diff**p).sum(-1) ** (1.0 / p)


def _cdist_backward_array(g, x1, x2, p, dist):
    """_cdist_backward: the gradient for x1, summed over x2's rows (torch's per-p kernels, with 0 where the
    distance or a coordinate difference is 0)."""
    diff = _pairwise_diff(x1, x2)
    gd = g[..., None]
    d = dist[..., None]
    if p == 0 or diff.size == 0:
        return xp.zeros(xp.broadcast_shapes(x1.shape, diff.shape[:-3] + x1.shape[-2:]), dtype=x1.dtype)
    if p == 1:
        terms = gd * xp.sign(diff)
    elif p < 2:
        ad = xp.abs(diff)
        terms = xp.where((d == 0) | (diff == 0), 0, xp.sign(diff) * ad ** (p - 1) * gd / d ** (p - 1))
    elif p == 2:
        terms = xp.where(d == 0, 0, gd * diff / xp.where(d == 0, 1, d))
    elif p == xp.inf:
        terms = gd * xp.sign(diff) * (xp.abs(diff) == d)
    else:
        terms = xp.where(d == 0, 0, diff * xp.abs(diff) ** (p - 2) * gd / xp.where(d == 0, 1, d) ** (p - 1))
    return terms.sum(-2).astype(x1.dtype, copy=False)


@register
class CdistBackward0(Op):
    """cdist(x1, x2, p) computed directly (p != 2, or few rows): (..., r1, m), (..., r2, m) -> (..., r1, r2).

    Backward (derivatives.yaml, _cdist_forward): x1 gets _cdist_backward(grad, x1, x2, p, result), x2 the
    same with the roles swapped; a CdistBackwardBackward0 node whose own derivative torch does not implement.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(x1, x2, p):
        return _cdist_array(x1, x2, p)

    def backward(self, g):
        x1, x2, res = self.saved()[0], self.saved()[1], self.saved_result()
        p = self._params[0]
        g1 = apply(CdistBackwardBackward0, (g, x1, x2, res), (p, False)) if self.needs_input_grad(0) else None
        g2 = apply(CdistBackwardBackward0, (g, x2, x1, res), (p, True)) if self.needs_input_grad(1) else None
        return g1, g2


@register
class CdistBackwardBackward0(Op):
    """_cdist_backward(grad, x1, x2, p, cdist) as a node; its derivative is not implemented, as in torch."""

    @staticmethod
    def forward(g, x1, x2, dist, p, swapped):
        if swapped:  # the gradient for x2: the distance matrix seen from x2's rows
            g, dist = xp.swapaxes(g, -1, -2), xp.swapaxes(dist, -1, -2)
        return _cdist_backward_array(g, x1, x2, p, dist)

    def backward(self, gg):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


def _euclidean_dist_array(x1, x2):
    """torch's _euclidean_dist: one matrix product of padded operands, clamped at 0, then sqrt."""
    n1 = (x1 * x1).sum(-1, keepdims=True)
    n2 = (x2 * x2).sum(-1, keepdims=True)
    a = xp.concatenate([-2 * x1, n1, xp.ones_like(n1)], -1)
    b = xp.concatenate([x2, xp.ones_like(n2), n2], -1)
    return xp.sqrt(xp.maximum(a @ xp.swapaxes(b, -1, -2), 0))


@register
class EuclideanDistBackward0(Op):
    """_euclidean_dist(x1, x2): cdist's p=2 path for more than 25 rows (or compute_mode 'use_mm_for_euclid_dist').

    Backward (derivatives.yaml: _euclidean_dist_backward): ratio = grad / result (0 where result is 0);
    x1: x1 * ratio.sum(-1) - ratio @ x2; x2: x2 * ratio.sum(-2) - ratio^T @ x1.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(x1, x2):
        return _euclidean_dist_array(x1, x2)

    def backward(self, g):
        from .pointwise import where_

        x1, x2, res = self.saved()[0], self.saved()[1], self.saved_result()
        ratio = where_(res == 0, 0.0, g / res)
        g1 = x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2) if self.needs_input_grad(0) else None
        g2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1) if self.needs_input_grad(1) else None
        return g1, g2


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode="use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """torch.cdist: p-norm distances between the rows of x1 (..., r1, m) and x2 (..., r2, m), batch dims
    broadcast, result (..., r1, r2). p = 2 with more than 25 rows (or compute_mode='use_mm_for_euclid_dist')
    takes torch's matrix-product path (EuclideanDistBackward0 under a ViewBackward0); else CdistBackward0.

    Raises torch's RuntimeErrors for < 2-D inputs, mismatched columns, non-float dtypes, p < 0, mixed float
    dtypes and batch dims that do not broadcast; ValueError for an unknown compute_mode.
    """
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    a, b = x1._data, x2._data
    for name, arr in (("X1", a), ("X2", b)):
        if arr.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {arr.ndim}D")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} X2: {b.shape[-1]}")
    from .._dtype import scalar_type_name

    for name, arr in (("X1", a), ("X2", b)):
        if arr.dtype.kind not in FLOATING_KINDS:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {scalar_type_name(arr.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(a.dtype)} but found {scalar_type_name(b.dtype)}"
        )
    from .broadcast import broadcast_shape

    batch = broadcast_shape(a.shape[:-2], b.shape[:-2])
    r1, r2 = a.shape[-2], b.shape[-2]
    mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and (r1 > 25 or r2 > 25)))
    if not mm or a.size == 0 or b.size == 0:  # torch: empty inputs always take _cdist_forward
        return apply(CdistBackward0, (x1, x2), (float(p),))
    m = a.shape[-1]
    if batch:  # the batch dims broadcast and fold into one, as torch's cdist_impl
        x1 = x1.expand(*batch, r1, m).reshape(-1, r1, m)
        x2 = x2.expand(*batch, r2, m).reshape(-1, r2, m)
    return apply(EuclideanDistBackward0, (x1, x2)).view(*batch, r1, r2)


# ------------------------------------------------------------------ pairwise distances, cosine similarity


def _zero_where(t: Tensor, mask: Tensor) -> Tensor:
    """``t`` with zeros where ``mask`` (torch's masked_fill_(mask, 0)); no gradient flows there."""
    return pw.where_(mask, wrap(xp.zeros((), dtype=t._data.dtype)), t)


class _Norm(Op):
    """norm(input, p, dim, keepdim) = (sum |x|^p)^(1/p) over ``dim`` (p finite nonzero, or inf; p = 0 counts
    the nonzero entries).

    Backward (derivatives.yaml, norm_backward): p = 2: grad * x / norm; general p: grad * x * |x|^(p-2) /
    norm^(p-1); p = 1: grad * sign(x); zero where the norm is 0; inf: grad at the maxima of |x|, split evenly.
    """

    save_inputs = True
    save_result = True
    complex_grad = True  # (a complex x gives the real norm; x * |x|^(p-2) and sgn(x) are its conjugate gradients)

    @staticmethod
    def forward(a, p, axes, keepdim):
        if a.dtype.kind == "c" and p == 2:
            return xp.sqrt((a.real * a.real + a.imag * a.imag).sum(axis=axes, keepdims=keepdim))
        if p == float("inf"):
            return xp.abs(a).max(axis=axes, keepdims=keepdim) if a.size else xp.zeros(
                xp.sum(a, axis=axes, keepdims=keepdim).shape, dtype=xp.abs(a).dtype)
        if p == 2:
            return xp.sqrt((a * a).sum(axis=axes, keepdims=keepdim))
        if p == 0:  # the count of nonzero entries (torch's "0-norm"), in the input's real dtype
            return (a != 0).sum(axis=axes, keepdims=keepdim).astype(xp.abs(a[:0]).dtype)
        return (xp.abs(a) ** p).sum(axis=axes, keepdims=keepdim) ** (1.0 / p)

    def backward(self, g):
        x, _ = self.saved()
        p, axes, keepdim = self._params
        norm = self.saved_result()
        if not keepdim:
            for ax in axes:
                norm, g = norm.unsqueeze(ax), g.unsqueeze(ax)
        zero = wrap(norm._data == 0)
        if p == 0:  # a count: its gradient is zero (derivatives.yaml norm_backward), NaN inputs included
            return (wrap(xp.zeros(x._data.shape, dtype=g._data.dtype)),)
        if p in (1, float("inf")):
            # sgn(x): a constant for real x, but x / |x| for complex x, whose second derivative is not zero
            if x._data.dtype.kind == "c":
                from .complex import sgn

                sign = sgn(x)
            else:
                sign = wrap(xp.sign(x._data))
            if p == 1:
                return (g * sign,)
            mask = (xp.abs(x._data) == norm._data).astype(x._data.dtype)
            count = mask.sum(axis=axes, keepdims=True)
            return (g * (sign * wrap(mask / count)),)
        # the finite p's in norm_backward's own order of operations (FunctionsManual.cpp), so float32 rounds as
        # torch's; the zero-norm (and, for p < 1, zero-input) positions are set to 0 as its masked_fill_ does
        if p == 2:
            return (g * _zero_where(x / norm, zero),)
        if p < 2:
            from .complex import sgn

            scaled = (sgn(x) if x._data.dtype.kind == "c" else rounding.sign(x)) * pw.pow(pw.abs(x), p - 1)
            if p < 1:
                return (_zero_where(scaled, wrap(x._data == 0)) * g * pw.pow(norm, 1 - p),)
        else:
            scaled = x * pw.pow(pw.abs(x), p - 2)
        return (scaled * _zero_where(g / pw.pow(norm, p - 1), zero),)


_Norm.__name__ = _Norm.__qualname__ = "NormBackward1"
NormBackward1 = _register_once(_Norm)


def _norm(x: Tensor, p, dim, keepdim=False) -> Tensor:
    nd = x._data.ndim
    axes = (_wrap_dim(dim, nd),) if nd else ()
    return apply(NormBackward1, (x,), (float(p), axes, keepdim))


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """norm(x1 - x2 + eps, p, last dim): aten's pairwise_distance (NormBackward1 on top)."""
    nd = max(x1._data.ndim, x2._data.ndim)
    d = x1 - x2 + eps
    if nd == 0:
        return _norm(d, p, 0, keepdim)
    return _norm(d, p, nd - 1, keepdim)


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps), dim), as aten computes it: each norm is clamped in a
    no-grad copy, so the gradient flows through the unclamped norm. Real inputs only (torch's text)."""
    from .._dtype import result_type, scalar_type_name

    common = result_type(x1._data, x2._data)
    if common.kind not in FLOATING_KINDS:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {scalar_type_name(common)}")
    shape = sh.broadcast_shape(x1._data.shape, x2._data.shape) if hasattr(sh, "broadcast_shape") else None
    if shape is None:
        from .broadcast import broadcast_shape

        shape = broadcast_shape(x1._data.shape, x2._data.shape)
    a, b = sh.expand(x1, shape), sh.expand(x2, shape)
    d = _wrap_dim(dim, len(shape))

    def unit(t):
        n = _norm(t, 2, d, keepdim=True)
        n = sh.clone(n)
        n._data = xp.maximum(n._data, xp.asarray(eps, dtype=n._data.dtype))
        return t / n

    return red.sum(unit(a) * unit(b), d)


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):  # noqa: A002
    """input / max(norm(input, p, dim), eps) expanded: DivBackward0 on top, as torch."""
    n = _norm(input, p, dim, keepdim=True)
    denom = pw.where_(wrap(n._data >= eps), n, wrap(xp.asarray(eps, dtype=n._data.dtype)))
    if out is None:
        return input / sh.expand(denom, input._data.shape)
    from .out_param import check_out_autograd, write_out

    # torch: torch.div(input, denom.expand_as(input), out=out)
    check_out_autograd("div", out, input, denom)
    return write_out(input / sh.expand(denom, input._data.shape), out, "div", (input, denom))


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.nn.functional; __init__.py, _tensor_methods.py and nn/functional.py merge these.
EXPORTS: dict = {
    "cdist": cdist,
    "cosine_similarity": cosine_similarity,
    "pairwise_distance": pairwise_distance,
}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {  # dyngrad.nn.functional.<name>
    "pairwise_distance": pairwise_distance,
    "cosine_similarity": cosine_similarity,
    "normalize": normalize,
}
