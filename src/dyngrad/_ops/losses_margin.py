"""The margin, embedding and likelihood losses of ``dyngrad.nn.functional``: soft_margin_loss,
multi_margin_loss, multilabel_margin_loss (aten kernels with their own grad_fn), and the losses torch
composes from other ops (hinge_embedding_loss, margin_ranking_loss, cosine_embedding_loss,
triplet_margin_loss, triplet_margin_with_distance_loss, poisson_nll_loss, gaussian_nll_loss,
multilabel_soft_margin_loss, linear_cross_entropy).

Sources: aten/src/ATen/native/Loss.cpp (the composed losses), LossMultiMargin.cpp and
LossMultiLabelMargin.cpp (the margin kernels), derivatives.yaml, torch/nn/functional.py (the Python
checks). The composed losses are written with the same ops in the same order as aten, so their
``grad_fn`` names and rounding match torch's.
"""

from __future__ import annotations

import math

from .._backend import xp
from .._dtype import FLOATING_KINDS, int64
from .._tensor import Tensor, wrap
from ..autograd.grad_mode import is_grad_enabled, no_grad
from . import activations, clamp_minmax
from . import pointwise as pw
from . import reduction as red
from .distance import pairwise_distance
from .loss import _reduce, _reduction, cross_entropy
from .nn_kernels import _type_name
from .random_ops import NotImplemented as _NoDerivative
from .registry import Op, apply, register


def _not_differentiable(t, fn: str, arg: str) -> None:
    """torch's refusal of a requires-grad argument that the kernel has no derivative for."""
    if isinstance(t, Tensor) and t._requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{fn}' is not differentiable with respect to argument '{arg}'. "
            "This input cannot have requires_grad True."
        )


def _sizes(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _reduce_array(loss, reduction: str):
    if reduction == "sum":
        return xp.asarray(loss.sum())
    if reduction == "mean":
        with xp.errstate(invalid="ignore", divide="ignore"):
            return xp.asarray(loss.mean()) if loss.size else xp.asarray(xp.nan, dtype=loss.dtype)
    return loss


# ------------------------------------------------------------------ soft margin


@register
class SoftMarginLossBackward0(Op):
    """soft_margin_loss(input, target): log(1 + exp(-target * input)), reduced.

    Backward (derivatives.yaml, soft_margin_loss_backward): -target * sigmoid(-target * input) * grad,
    divided by numel for ``mean``; target gets none (torch: not differentiable). Params: (reduction,).
    """

    save_inputs = True

    @staticmethod
    def forward(x, t, reduction):
        # aten: neg(input).mul_(target).exp_().log1p_(), written into a tensor of the input's dtype
        with xp.errstate(over="ignore"):
            loss = xp.log1p(xp.exp(-x * t)).astype(x.dtype, copy=False)
        return _reduce_array(xp.broadcast_to(loss, x.shape) if loss.shape != x.shape else loss, reduction)

    def backward(self, g):
        x, t = self.saved()
        reduction = self._params[0]
        tt = t if t._data.dtype == x._data.dtype else wrap(t._data.astype(x._data.dtype))
        gi = -tt * pw.sigmoid(-tt * x) * g
        if reduction == "mean":
            gi = gi / max(x._data.size, 1)
        return gi, None


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,  # noqa: A002
                     reduction: str = "mean") -> Tensor:
    """Two-class logistic loss log(1 + exp(-y x)) (torch.nn.functional.soft_margin_loss).

    input: any shape, floating; target: broadcastable to input (±1, any real dtype). Output: the input's
    shape for ``none``, else 0-d. Errors: torch's broadcast RuntimeError; a requires-grad target raises
    torch's "not differentiable with respect to argument 'target'"; integer input: torch's cast error.
    """
    reduction = _reduction(reduction, size_average, reduce)
    x, t = input._data, target._data
    from .broadcast import broadcast_shape

    shape = broadcast_shape(x.shape, t.shape)
    if shape != x.shape:
        # aten writes into an input-shaped output: a target that broadcasts the input up is an error
        raise RuntimeError(f"output with shape {_sizes(x.shape)} doesn't match the broadcast shape {_sizes(shape)}")
    _not_differentiable(target, "soft_margin_loss", "target")
    if x.dtype.kind not in FLOATING_KINDS:
        from .._dtype import result_type

        raise RuntimeError(
            f"result type {_type_name(xp.empty(0, result_type(x, xp.empty(0, xp.float32))))} can't be cast to the "
            f"desired output type {_type_name(x)}"
        )
    return apply(SoftMarginLossBackward0, (input, target), (reduction,))


# ------------------------------------------------------------------ multi-class margin


def _margin_shape_check(x):
    nd = x.ndim
    if not ((nd == 2 and x.shape[1] != 0) or (nd == 1 and x.shape[0] != 0) or nd == 0):
        raise RuntimeError(
            f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: {_sizes(x.shape)}"
        )
    nframe = 1 if nd <= 1 else x.shape[0]
    dim = 1 if nd == 0 else x.shape[-1]
    return nframe, dim


@register
class MultiMarginLossBackward0(Op):
    """multi_margin_loss(input, target, p, margin, weight): per sample
    sum_{i != y} w[y] * max(0, margin - x[y] + x[i])**p / C, reduced over samples.

    Backward (aten multi_margin_loss_backward): d/dx[i] = w[y] * (1 or 2 z_i) / C where z_i > 0, and
    x[y] gets minus their sum; a NotImplemented node, as torch has no second derivative.
    Params: (target (N,), p, margin, weight array or None, reduction, output shape).
    """

    save_inputs = True

    @staticmethod
    def forward(x, t, p, margin, w, reduction, out_shape):
        x2 = x.reshape(-1, 1 if x.ndim == 0 else x.shape[-1])
        n, c = x2.shape
        rows = xp.arange(n)
        z = margin - x2[rows, t][:, None] + x2
        h = xp.where(z > 0, z if p == 1 else z * z, 0)
        h[rows, t] = 0
        if w is not None:
            h = h * w[t][:, None]
        per = (h.sum(1) / c).astype(x.dtype, copy=False)
        if reduction == "none":
            return per.reshape(out_shape)
        if reduction == "sum":
            return xp.asarray(per.sum())
        return xp.asarray(per.sum() / n) if n else xp.asarray(xp.nan, dtype=x.dtype)

    def backward(self, g):
        x = self.saved()[0]._data
        t, p, margin, w, reduction, out_shape = self._params
        x2 = x.reshape(-1, 1 if x.ndim == 0 else x.shape[-1])
        n, c = x2.shape
        rows = xp.arange(n)
        z = margin - x2[rows, t][:, None] + x2
        d = xp.where(z > 0, 1.0 if p == 1 else 2 * z, 0).astype(x.dtype)
        d[rows, t] = 0
        if w is not None:
            d = d * w[t][:, None]
        d = d / c
        ga = g._data
        gs = ga.reshape(-1, 1) if reduction == "none" else ga
        if reduction == "mean":
            gs = gs / n
        d = d * gs
        d[rows, t] = -d.sum(1)
        grad = d.reshape(x.shape).astype(x.dtype, copy=False)
        return (apply(_NoDerivative, (g, self.saved()[0]), (grad, "multi_margin_loss_backward")),)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight=None,  # noqa: A002
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss (torch.nn.functional.multi_margin_loss; aten LossMultiMargin.cpp).

    input: (C,) or (N, C) floating; target: () or (N,) int64 class indices; weight: (C,) of the input's dtype.
    Output: (N,) for ``none`` with a 1-D target, else 0-d. Errors (torch's texts): p not 1 or 2 (ValueError),
    weight not 1-D (ValueError), target size, weight size/dtype, target dtype, target out of range.
    """
    reduction = _reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x, t = input._data, target._data
    nframe, dim = _margin_shape_check(x)
    if not (t.ndim <= 1 and t.size == nframe):
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{nframe}], but got {_sizes(t.shape)}. Input has shape "
            f"{_sizes(x.shape)}."
        )
    w = None
    if weight is not None:
        w = weight._data
        if not (w.ndim <= 1 and w.size == dim):
            raise RuntimeError(f"inconsistent weight size, expected {dim} but got {_sizes(w.shape)}")
    if x.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"multi_margin_loss_cpu_kernel" not implemented for \'{_type_name(x)}\'')
    if t.dtype != xp.int64:
        raise RuntimeError(f"expected scalar type Long but found {_type_name(t)}")
    if w is not None and w.dtype != x.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(x)} but found {_type_name(w)}")
    tt = t.reshape(-1)
    if tt.size and ((tt < 0) | (tt >= dim)).any():
        raise RuntimeError("target out of range")
    _not_differentiable(weight, "multi_margin_loss", "weight")
    out_shape = (nframe,) if t.ndim > 0 else ()
    return apply(MultiMarginLossBackward0, (input,), (tt, p, float(margin), w, reduction, out_shape))


@register
class MultilabelMarginLossBackward0(Op):
    """multilabel_margin_loss(input, target): per sample, with targets y_j (target's entries up to the
    first -1) and the non-target classes i: sum_j sum_i max(0, 1 - (x[y_j] - x[i])) / C, reduced.

    Backward (aten multilabel_margin_loss_backward): where a term is positive, x[i] gets +1/C and x[y_j]
    gets -1/C (times grad, / N for ``mean``); a NotImplemented node above it, as torch has no second
    derivative. Params: (target-count matrix (N, C): how often each class is a target, is-target mask,
    reduction, output shape).
    """

    save_inputs = True

    @staticmethod
    def _terms(x2, counts, is_target):
        # z[n, j, i] = 1 - x[n, j] + x[n, i] for target class j (weighted by its count) and non-target i
        z = 1 - x2[:, :, None] + x2[:, None, :]
        active = (z > 0) & (counts[:, :, None] > 0) & ~is_target[:, None, :]
        return z, active

    @staticmethod
    def forward(x, counts, is_target, reduction, out_shape):
        x2 = x.reshape(-1, 1 if x.ndim == 0 else x.shape[-1])
        c = x2.shape[1]
        z, active = MultilabelMarginLossBackward0._terms(x2, counts, is_target)
        per = (xp.where(active, z, 0) * counts[:, :, None]).sum((1, 2)) / c
        per = per.astype(x.dtype, copy=False)
        if reduction == "none":
            return per.reshape(out_shape)
        if reduction == "sum":
            return xp.asarray(per.sum())
        return xp.asarray(per.sum() / per.shape[0]) if per.shape[0] else xp.asarray(0.0, dtype=x.dtype)

    def backward(self, g):
        x = self.saved()[0]._data
        counts, is_target, reduction, out_shape = self._params
        x2 = x.reshape(-1, 1 if x.ndim == 0 else x.shape[-1])
        n, c = x2.shape
        z, active = self._terms(x2, counts, is_target)
        a = active * counts[:, :, None]  # (n, target j, other i)
        ga = g._data
        gs = ga.reshape(-1, 1) if reduction == "none" else ga
        if reduction == "mean":
            gs = gs / n
        grad = ((a.sum(1) - a.sum(2)) / c * gs).astype(x.dtype, copy=False)
        return (apply(_NoDerivative, (g, self.saved()[0]), (grad.reshape(x.shape), "multilabel_margin_loss_backward")),)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,  # noqa: A002
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss (torch.nn.functional.multilabel_margin_loss; aten LossMultiLabelMargin.cpp).

    input: (C,) or (N, C) floating; target: int64 of the input's shape, each row the target classes
    followed by -1 (entries after the first -1 are ignored). Output: (N,) for ``none`` with 2-D input,
    else 0-d. Errors (torch's texts): inconsistent target size, target dtype, target out of range.
    """
    reduction = _reduction(reduction, size_average, reduce)
    x, t = input._data, target._data
    nframe, dim = _margin_shape_check(x)
    if x.ndim <= 1:
        ok = t.ndim <= 1 and t.size == dim
    else:
        ok = t.ndim == 2 and t.shape[0] == nframe and t.shape[1] == dim
    if not ok:
        raise RuntimeError(f"inconsistent target size: {_sizes(t.shape)} for input of size: {_sizes(x.shape)}")
    if x.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(
            f'"multilabel_margin_loss_forward_out_frame" not implemented for \'{_type_name(x)}\''
        )
    if t.dtype != xp.int64:
        raise RuntimeError(f"expected scalar type Long but found {_type_name(t)}")
    t2 = t.reshape(nframe, dim)
    if t2.size and (t2.min() < -1 or t2.max() >= dim):
        raise RuntimeError("argument #2 'target' is out of range")
    # the targets of a row are its entries before the first -1; duplicates count as often as they appear
    valid = xp.cumprod(t2 != -1, axis=1).astype(bool)
    counts = xp.zeros((nframe, dim), dtype=xp.int64)
    rows = xp.repeat(xp.arange(nframe), dim).reshape(nframe, dim)
    xp.add.at(counts, (rows[valid], t2[valid]), 1)
    is_target = counts > 0
    out_shape = (nframe,) if x.ndim > 1 else ()
    return apply(MultilabelMarginLossBackward0, (input,), (counts, is_target, reduction, out_shape))


# ------------------------------------------------------------------ losses torch composes


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None,  # noqa: A002
                         reduce=None, reduction: str = "mean") -> Tensor:
    """aten's hinge_embedding_loss: where(target != 1, clamp_min(margin - x, 0), 0) + where(target != -1, x, 0),
    reduced. input and target: broadcastable, any shape; output: their broadcast shape for ``none``."""
    reduction = _reduction(reduction, size_average, reduce)
    zeros = wrap(xp.zeros((), dtype=input._data.dtype))
    margin_clamp = clamp_minmax.clamp_min(margin - input, 0)
    output_margin = pw.where_(target != 1, margin_clamp, zeros)
    output_self = pw.where_(target != -1, input, zeros)
    return _reduce(output_margin + output_self, reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """aten's margin_ranking_loss: clamp_min(-target * (input1 - input2) + margin, 0), reduced.

    All three must have one number of dimensions (torch's RuntimeError text), then broadcast."""
    reduction = _reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return _reduce(clamp_minmax.clamp_min(-target * (input1 - input2) + margin, 0), reduction)


_COSINE_EPSILON = 1e-12  # aten Loss.cpp's EPSILON, added to each squared magnitude


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """aten's cosine_embedding_loss: cos = sum(x1 x2) / sqrt((sum x1^2 + eps)(sum x2^2 + eps)),
    loss = 1 - cos where target == 1, clamp_min(cos - margin, 0) where target == -1, else 0.

    input1, input2: (N, D) with target (N,), or (D,) with target (); torch's RuntimeError texts otherwise.
    """
    reduction = _reduction(reduction, size_average, reduce)
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1:
        if input1.dim() != 2 or input2.dim() != 2:
            raise RuntimeError(
                "1D target tensor expects 2D input tensors, but found inputs with sizes "
                f"{_sizes(input1.shape)} and {_sizes(input2.shape)}."
            )
    elif input1.dim() != 1 or input2.dim() != 1:
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{_sizes(input1.shape)} and {_sizes(input2.shape)}."
        )
    prod_sum = red.sum(input1 * input2, td)
    mag_square1 = red.sum(input1 * input1, td) + _COSINE_EPSILON
    mag_square2 = red.sum(input2 * input2, td) + _COSINE_EPSILON
    denom = pw.sqrt(mag_square1 * mag_square2)
    cos = prod_sum / denom
    zeros = wrap(xp.zeros((), dtype=cos._data.dtype))
    pos = 1 - cos
    neg = clamp_minmax.clamp_min(cos - margin, 0)
    output_pos = pw.where_(target == 1, pos, zeros)
    output_neg = pw.where_(target == -1, neg, zeros)
    return _reduce(output_pos + output_neg, reduction)


def _triplet_dims(anchor, positive, negative):
    a, p, n = anchor.ndim, positive.ndim, negative.ndim  # (.ndim, as torch's Python code: a NumPy array has it)
    if not (a == p and p == n):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {a}D, positive {p}D, and negative {n}D inputs"
        )


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """aten's triplet_margin_loss: clamp_min(margin + d(a, p) - d(a, n), 0) with d = pairwise_distance(p, eps),
    d(a, n) replaced by min(d(a, n), d(p, n)) with ``swap`` (Balntas et al. 2016), reduced.

    Inputs (N, D) or (D,), one number of dimensions. Errors: margin <= 0 (ValueError), dimensions (RuntimeError).
    """
    reduction = _reduction(reduction, size_average, reduce)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = clamp_minmax.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(clamp_minmax.clamp_min(margin + dist_pos - dist_neg, 0), reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function=None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """torch.nn.functional.triplet_margin_with_distance_loss: the triplet loss with any distance
    (pairwise_distance by default). Errors: torch's texts for reduction, margin <= 0 and dimensions."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = clamp_minmax.minimum(dist_neg, distance_function(positive, negative))
    loss = clamp_minmax.clamp_min(margin + dist_pos - dist_neg, 0)
    return _reduce(loss, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,  # noqa: A002
                     size_average=None, eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """aten's poisson_nll_loss: exp(x) - t x (``log_input``) or x - t log(x + eps); with ``full`` the Stirling
    term t log t - t + 0.5 log(2 pi t) is added where t > 1. Reduced; output the broadcast shape for ``none``."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_input:
        loss = pw.exp(input) - target * input
    else:
        loss = input - target * pw.log(input + eps)
    if full:
        stirling = target * pw.log(target) - target + 0.5 * pw.log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,  # noqa: A002
                      reduction: str = "mean") -> Tensor:
    """torch.nn.functional.gaussian_nll_loss: 0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps))
    (+ 0.5 log(2 pi) with ``full``), reduced.

    var: the input's shape, one dimension short of it, broadcastable with one mismatched dimension, or a
    float. The clamp at eps runs under no_grad on a clone, as torch's: the gradient passes through it
    unchanged. Errors: torch's ValueErrors (negative var, var of incorrect size, reduction).
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * input.new_ones(input.shape)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (pw.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight=None, size_average=None,  # noqa: A002
                                reduce=None, reduction: str = "mean") -> Tensor:
    """torch.nn.functional.multilabel_soft_margin_loss: -(t log sigmoid(x) + (1 - t) log sigmoid(-x)),
    times weight, averaged over the last (class) dimension, then reduced. Output (N,) for ``none``."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    loss = -(target * activations.logsigmoid(input) + (1 - target) * activations.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    c = input.size(class_dim)
    loss = red.sum(loss, class_dim) / c
    if reduction == "none":
        return loss
    if reduction == "mean":
        return red.mean(loss)
    if reduction == "sum":
        return red.sum(loss)
    raise ValueError(reduction + " is not valid")


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias=None,  # noqa: A002
                         weight=None, reduction: str = "mean", ignore_index=None, label_smoothing: float = 0.0,
                         options=None) -> Tensor:
    """torch.nn.functional.linear_cross_entropy (torch >= 2.12): cross_entropy(linear(input, W, b), target).

    input (in_features,) or (N, in_features); linear_weight (C, in_features) or (C, d1, ..., dK, in_features)
    (K-dimensional loss, batched input only). ``options`` (a LinearCrossEntropyOptions) takes the chunked path
    (nn/modules/linear_cross_entropy.py) where torch does: class-index int64 targets, reduction 'mean', 'sum' or
    'none', no label smoothing, 2-D linear_weight; otherwise torch's warning and the reference path.
    Errors: torch's RuntimeError texts for the shapes.
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
            f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}"
        )
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = ignore_index if ignore_index is not None else -100
    if options is not None:
        chunkable = (not out_features and reduction in ("mean", "sum", "none") and label_smoothing == 0.0
                     and target.dtype == int64)
        if chunkable:
            from ..nn.modules.linear_cross_entropy import chunked

            return chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options)
        import warnings

        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum','none'}, "
            f"label_smoothing == 0, target.dtype == int64, out_features == (). Got reduction={reduction!r}, "
            f"label_smoothing={label_smoothing}, target.dtype={target.dtype}, out_features={out_features}, "
            "tracing=False, linear_bias.shape="
            f"{tuple(linear_bias.shape) if linear_bias is not None else None}.",
            stacklevel=2,
        )
    from .nn_kernels import linear

    if out_features:
        rows = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((rows, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight, ignore_index=ignore_index, reduction=reduction,
                         label_smoothing=label_smoothing)


EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
FUNCTIONAL_EXPORTS: dict = {
    "soft_margin_loss": soft_margin_loss,
    "multi_margin_loss": multi_margin_loss,
    "multilabel_margin_loss": multilabel_margin_loss,
    "hinge_embedding_loss": hinge_embedding_loss,
    "margin_ranking_loss": margin_ranking_loss,
    "cosine_embedding_loss": cosine_embedding_loss,
    "triplet_margin_loss": triplet_margin_loss,
    "triplet_margin_with_distance_loss": triplet_margin_with_distance_loss,
    "poisson_nll_loss": poisson_nll_loss,
    "gaussian_nll_loss": gaussian_nll_loss,
    "multilabel_soft_margin_loss": multilabel_soft_margin_loss,
    "linear_cross_entropy": linear_cross_entropy,
}
