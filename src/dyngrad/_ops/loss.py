"""Loss functions of ``dyngrad.nn.functional``: nll_loss / cross_entropy, the regression losses (mse, l1,
smooth_l1, huber), binary cross-entropy (with logits) and kl_div (aten/src/ATen/native/Loss.cpp,
LossNLL.cpp). Ops torch records as one node are registry classes named as its ``grad_fn``; the losses
torch composes (``l1_loss``, ``kl_div``, ``cross_entropy`` = ``nll_loss(log_softmax(x))``) are composed
the same way, so the top ``grad_fn`` matches."""

from __future__ import annotations

import warnings

from .._backend import along_axis_key, xp
from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS, result_type
from .._tensor import Tensor, wrap
from ..autograd.grad_mode import is_grad_enabled
from . import pointwise as pw
from . import reduction as red
from . import shape as sh
from .nn_kernels import _register_once, _torch_log_softmax, _type_name
from .registry import Op, apply, register


def _reduction(reduction: str, size_average=None, reduce=None) -> str:
    """torch's reduction argument, including the legacy ``size_average`` / ``reduce`` flags."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
            UserWarning,
            stacklevel=3,
        )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return red.mean(loss)
    if reduction == "sum":
        return red.sum(loss)
    return loss


# ------------------------------------------------------------------ classification losses


def _div_scalar_forward(a, other):
    return a / xp.asarray(other, dtype=a.dtype)


class _DivScalar(Op):
    """div(input, other: Scalar) as aten records it from C++ (torch's Python ``x / 2`` is DivBackward0)."""

    @staticmethod
    def forward(a, other):
        return _div_scalar_forward(a, other)

    def backward(self, g):
        return (g / self._params[0],)


_DivScalar.__name__ = _DivScalar.__qualname__ = "DivBackward1"
DivBackward1 = _register_once(_DivScalar)


def _check_weight(weight, n_classes: int, fn: str):
    if weight is None:
        return None
    if weight._requires_grad:
        from ..autograd.grad_mode import is_grad_enabled

        if is_grad_enabled():
            raise RuntimeError(
                f"The function '{fn}' is not differentiable with respect to argument 'weight'. "
                "This input cannot have requires_grad True."
            )
    if weight._data.ndim != 1 or weight._data.shape[0] != n_classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes but got weight "
            f"tensor of shape: [{', '.join(str(n) for n in weight._data.shape)}]"
        )
    return weight._data


@register
class NllLossBackward0(Op):
    """nll_loss(input, target, weight, reduction, ignore_index): -weight[t] * input[n, t, ...].

    ``mean`` divides by the summed weight of the non-ignored targets (nan if none).
    Backward (aten's nll_loss_backward): the gradient at each target position is
    -weight[t] * grad (/ total weight for ``mean``), zero elsewhere; it is linear in grad
    and constant in the input, so its second derivative is zero.
    Params: (target as (N, ...) with ignored entries set to 0, per-target weight (0 where
    ignored), reduction, total weight, input shape); a 1-D input (C,) is one sample.
    """

    @staticmethod
    def forward(x, t, wt, reduction, total, shape):
        if x.ndim == 1:
            x = x[None]
        if x.ndim == 2:
            picked = x[xp.arange(x.shape[0]), t]
        else:
            picked = xp.take_along_axis(x, t[:, None], axis=1)[:, 0]
        losses = picked * -wt
        if reduction == "none":
            return losses.reshape(()) if len(shape) == 1 else losses
        s = losses.sum()
        if reduction == "sum":
            return xp.asarray(s)
        with xp.errstate(invalid="ignore", divide="ignore"):
            return xp.asarray(s / total)

    def _coef(self, dtype, g=None):
        """Zeros of the input's shape with -weight[t] (/ total for mean) at the targets; times ``g`` (an array
        shaped as the loss) when given, applied to the per-target values before they are scattered."""
        t, wt, reduction, total, shape = self._params
        shape2 = (1,) + shape if len(shape) == 1 else shape
        coef = xp.zeros(shape2, dtype=dtype)
        w = -wt.astype(dtype)
        if reduction == "mean":
            w = w / xp.asarray(total, dtype=dtype) if total != 0 else w * 0
        if g is not None:
            w = w * (g.reshape(w.shape) if reduction == "none" else g)
        if len(shape2) == 2:
            coef[xp.arange(shape2[0]), t] = w
        else:
            coef[along_axis_key(t[:, None], 1)] = w[:, None]
        return coef

    def backward(self, g):
        coef = self._coef(g._data.dtype)
        t, wt, reduction, total, shape = self._params
        if reduction == "none":
            g = g.reshape((1, 1)) if len(shape) == 1 else g.unsqueeze(1)
        out = wrap(coef) * g
        return (out.reshape(shape) if len(shape) == 1 else out,)

    def backward_arrays(self, g):
        coef = self._coef(g.dtype, g)  # g scales the few picked entries, not a pass over the input's size
        shape = self._params[4]
        return (wrap(coef.reshape(shape) if len(shape) == 1 else coef),)


@register
class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss2d: nll_loss on (N, C, H, W) input and (N, H, W) target (aten's node for spatial inputs)."""


def _nll_loss(x: Tensor, target: Tensor, weight, reduction: str, ignore_index: int) -> Tensor:
    """aten's nll_loss_nd: input (C,), (N, C) or (N, C, d1, ...), target (), (N,) or (N, d1, ...)."""
    a, t = x._data, target._data
    if a.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {a.ndim})")
    if a.ndim != 1 and a.shape[0] != (t.shape[0] if t.ndim else 1):
        raise ValueError(
            f"Expected input batch_size ({a.shape[0]}) to match target batch_size ({t.shape[0] if t.ndim else 1})."
        )
    # The checks run in aten's order, which differs between the 1-D/2-D kernel (nll_loss) and the spatial
    # one (nll_loss2d; 3-D and 5-D+ inputs reach it through nll_loss_nd's (N, C, 1, -1) view, after
    # nll_loss_nd's own target-size check).
    shape_text = ", ".join(str(n) for n in t.shape)
    if a.ndim <= 2:
        if t.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif a.ndim == 4:
        if t.ndim != 3:
            raise RuntimeError(
                f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {t.ndim}"
            )
    elif t.shape != a.shape[:1] + a.shape[2:]:
        expected = a.shape[:1] + a.shape[2:]
        raise RuntimeError(f"Expected target size [{', '.join(str(n) for n in expected)}], got [{shape_text}]")
    if t.dtype != xp.int64 and t.dtype != xp.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(t)}")
    n_classes = a.shape[0] if a.ndim == 1 else a.shape[1]
    if a.ndim > 2 and weight is not None and weight._data.size != n_classes:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    w = _check_weight(weight, n_classes, "nll_loss_forward")
    if a.ndim == 4 and t.shape != a.shape[:1] + a.shape[2:]:
        raise RuntimeError(f"size mismatch (got input: [{', '.join(str(n) for n in a.shape)}] , target: [{shape_text}]")
    if a.dtype.kind not in FLOATING_KINDS:
        kernel = "nll_loss_out_frame" if a.ndim <= 2 else "nll_loss2d_forward_out_frame"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_name(a)}\'')
    if w is not None and w.dtype != a.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(a)} but found {_type_name(w)}")
    t2 = t.reshape(1) if a.ndim == 1 else t
    t2 = t2.astype(xp.int64, copy=False)
    valid = t2 != ignore_index
    bad = valid & ((t2 < 0) | (t2 >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t2[bad].reshape(-1)[0])} is out of bounds.")
    tc = xp.where(valid, t2, 0) if not valid.all() else t2
    wt = w[tc].astype(a.dtype) * valid if w is not None else valid.astype(a.dtype)
    total = wt.sum()
    if a.ndim <= 2:
        return apply(NllLossBackward0, (x,), (tc, wt, reduction, total, a.shape))
    if a.ndim == 4:
        return apply(NllLoss2DBackward0, (x,), (tc, wt, reduction, total, a.shape))
    # aten's nll_loss_nd: other spatial ranks go through a (N, C, 1, -1) view of the input
    n, c = a.shape[:2]
    x4 = sh.view(sh.contiguous(x), (n, c, 1, -1) if a.size else (n, c, 0, 0))
    tshape = (n, 1, -1) if tc.size else (n, 0, 0)
    out = apply(NllLoss2DBackward0, (x4,), (tc.reshape(tshape), wt.reshape(tshape), reduction, total,
                                            x4._data.shape))
    return sh.view(out, (n,) + a.shape[2:]) if reduction == "none" else out


def nll_loss(input: Tensor, target: Tensor, weight=None, size_average=None, ignore_index: int = -100,  # noqa: A002
             reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    return _nll_loss(input, target, weight, reduction, ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight=None, size_average=None, ignore_index: int = -100,  # noqa: A002
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """aten's cross_entropy_loss: ``nll_loss(log_softmax(input, class_dim), target)`` for class indices,
    ``-(log_softmax(input) * target).sum(...)`` for class probabilities (target shaped as input),
    with label smoothing composed as aten composes it (so the top ``grad_fn`` matches)."""
    reduction = _reduction(reduction, size_average, reduce)
    a = input._data
    class_dim = 0 if a.ndim == 1 else 1
    if target._data.shape == a.shape:
        if target._data.dtype.kind not in FLOATING_KINDS:
            raise RuntimeError(
                f"Expected floating point type for target with class probabilities, got {_type_name(target._data)}"
            )
        if a.ndim == 0:  # aten takes log_softmax over dim 1
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        n_classes = a.shape[class_dim]
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing, class_dim, n_classes)
    if a.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
        return _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing, class_dim)
    return _nll_loss(_torch_log_softmax(input, class_dim), target, weight, reduction, ignore_index)


def _weight_view(weight: Tensor, ndim: int) -> Tensor:
    if ndim > 1:
        return sh.view(weight, (1, weight._data.shape[0]) + (1,) * (ndim - 2))
    return weight


def _cross_entropy_smoothed(x, target, weight, reduction, ignore_index, ls, class_dim):
    n_classes = x._data.shape[class_dim]
    logp = _torch_log_softmax(x, class_dim)
    nll = _nll_loss(logp, target, weight, reduction, ignore_index)
    ignore = target._data == ignore_index
    if weight is not None:
        _check_weight(weight, n_classes, "nll_loss_forward")
        smooth = -red.sum(logp * _weight_view(weight, x._data.ndim), class_dim)
    else:
        smooth = -red.sum(logp, class_dim)
    # masked_fill_(ignore_mask, 0): a where, so an infinite gradient (0 / 0 weight) does not leak as nan
    smooth = pw.where_(wrap(ignore), wrap(xp.zeros((), dtype=smooth._data.dtype)), smooth)
    if reduction == "mean":
        if weight is not None:
            t = target._data[~ignore].reshape(-1)
            denom = weight._data[t].sum()
        else:
            denom = (~ignore).sum()
        ret = red.sum(smooth) / wrap(xp.asarray(denom, dtype=smooth._data.dtype))
    elif reduction == "sum":
        ret = red.sum(smooth)
    else:
        ret = smooth
    return pw.add(nll * (1 - ls), ret * (ls / n_classes))


def _cross_entropy_probs(x, target, weight, reduction, ls, class_dim, n_classes):
    w = _check_weight(weight, n_classes, "cross_entropy") if weight is not None else None
    logp = _torch_log_softmax(x, class_dim)
    if ls > 0.0:
        if ls > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {ls}")
        target = target * (1 - ls) + ls / n_classes
    prod = logp * target
    if w is not None:
        prod = prod * _weight_view(weight, x._data.ndim)
    if reduction == "none":
        return -red.sum(prod, class_dim)
    total = -red.sum(prod)
    if reduction == "sum":
        return total
    if x._data.size == 0:  # aten: -(...).sum().fill_(NaN), still shown as NegBackward0
        total._data = xp.full((), xp.nan, dtype=total._data.dtype)
        return total
    return apply(DivBackward1, (total,), (x._data.size // n_classes,))


# ------------------------------------------------------------------ regression losses


def _broadcast_pair(x: Tensor, t: Tensor, name: str):
    if x._data.shape != t._data.shape:
        from .._tensor import Size

        warnings.warn(
            f"Using a target size ({Size(t._data.shape)}) that is different to the input size "
            f"({Size(x._data.shape)}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )
        shape = sh.broadcast_shape(x._data.shape, t._data.shape) if hasattr(sh, "broadcast_shape") else None
        if shape is None:
            from .broadcast import broadcast_shape

            shape = broadcast_shape(x._data.shape, t._data.shape)
        x, t = sh.expand(x, shape), sh.expand(t, shape)
    return x, t


class _PointwiseLoss(Op):
    """A loss l(input - target) reduced by ``reduction``; subclasses give l and dl/dd.

    Backward: grad_input = dl(d) * grad (/ numel for ``mean``), grad_target = -grad_input,
    with dl written in Tensor ops of the saved inputs so second derivatives follow.
    """

    save_inputs = True
    kernel = ""

    @classmethod
    def forward(cls, x, t, reduction, param, out_dtype=None):
        # x and t arrive in torch's result type (float32 input, int64 target -> float32); huber_loss then
        # writes into the input's dtype (``out_dtype``), as aten's huber_loss_out does
        d = x - t
        loss = cls.loss(d, param)
        if out_dtype is not None:
            loss = loss.astype(out_dtype, copy=False)
        if reduction == "none":
            return loss
        if reduction == "sum":
            return xp.asarray(loss.sum())
        with xp.errstate(invalid="ignore", divide="ignore"):
            return xp.asarray(loss.mean()) if loss.size else xp.asarray(xp.nan, dtype=loss.dtype)

    def backward(self, g):
        x, t = self.saved()
        reduction, param = self._params[:2]
        gi = self.dloss(x - t, param) * g
        if reduction == "mean":
            gi = gi / max(x._data.size, 1)
        nf = self.next_functions
        return (gi if nf[0][0] is not None else None, -gi if nf[1][0] is not None else None)

    def backward_arrays(self, g):
        x, t = self.saved()
        reduction, param = self._params[:2]
        xa, ta = x._data, t._data
        if xa.dtype != ta.dtype:  # in torch's result type, not NumPy's (float32 - int64 is float32)
            rt = result_type(xa, ta)
            xa, ta = xa.astype(rt, copy=False), ta.astype(rt, copy=False)
        gi = self.dloss_arrays(xa - ta, param) * g
        if reduction == "mean":
            gi = gi / max(x._data.size, 1)
        nf = self.next_functions
        return (wrap(gi) if nf[0][0] is not None else None, wrap(-gi) if nf[1][0] is not None else None)


@register
class MseLossBackward0(_PointwiseLoss):
    """mse_loss: (input - target)**2; derivative 2 * (input - target) (derivatives.yaml mse_loss_backward)."""

    kernel = "mse_cpu"

    @staticmethod
    def loss(d, param):
        return d * d

    @staticmethod
    def dloss(d, param):
        return d * 2

    @staticmethod
    def dloss_arrays(d, param):
        return d * 2


@register
class SmoothL1LossBackward0(_PointwiseLoss):
    """smooth_l1_loss(beta): 0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta.

    Derivative (aten smooth_l1_backward): d / beta inside [-beta, beta], sign(d) outside.
    """

    kernel = "smooth_l1_cpu"

    @staticmethod
    def loss(d, beta):
        ad = xp.abs(d)
        return xp.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta)

    @staticmethod
    def dloss(d, beta):
        inside = xp.abs(d._data) < beta  # at |d| == beta both sides agree; torch's double backward uses <
        return pw.where_(wrap(inside), d / beta, wrap(xp.sign(d._data)))

    @staticmethod
    def dloss_arrays(d, beta):
        return xp.where(xp.abs(d) <= beta, d / beta, xp.sign(d))


@register
class HuberLossBackward0(_PointwiseLoss):
    """huber_loss(delta): 0.5 d**2 where |d| < delta, else delta * (|d| - 0.5 delta).

    Derivative (aten huber_backward): d inside [-delta, delta], delta * sign(d) outside.
    aten's huber_loss_backward needs input and target of one dtype: the forward accepts a float32
    input with an int64 (or float64) target, but its backward then raises
    ``RuntimeError: Found dtype Long but expected Float`` (arguments swapped for the target's
    gradient); dyngrad raises the same.
    """

    kernel = "huber_cpu"

    def _check_dtypes(self):
        x, t = self.saved()
        for i, (a, b) in enumerate(((x, t), (t, x))):
            if self.next_functions[i][0] is not None and a._data.dtype != b._data.dtype:
                raise RuntimeError(f"Found dtype {_type_name(b._data)} but expected {_type_name(a._data)}")

    def backward(self, g):
        self._check_dtypes()
        return super().backward(g)

    def backward_arrays(self, g):
        self._check_dtypes()
        return super().backward_arrays(g)

    @staticmethod
    def loss(d, delta):
        ad = xp.abs(d)
        return xp.where(ad < delta, 0.5 * d * d, delta * (ad - 0.5 * delta))

    @staticmethod
    def dloss(d, delta):
        inside = xp.abs(d._data) < delta
        return pw.where_(wrap(inside), d, wrap(xp.sign(d._data) * delta))

    @staticmethod
    def dloss_arrays(d, delta):
        return xp.where(xp.abs(d) <= delta, d, xp.sign(d) * delta)


def _pointwise_loss(op, x: Tensor, t: Tensor, reduction: str, param, into_input: bool = False) -> Tensor:
    """Run a _PointwiseLoss in torch's result type of input and target (an integer target does not
    upcast a float32 input). ``into_input``: the loss takes the input's dtype (huber_loss), so a float
    result for an integer input is an error, as for torch's ``out=`` casts."""
    xa, ta = x._data, t._data
    rt = xa.dtype if xa.dtype == ta.dtype else result_type(xa, ta)
    if rt.kind not in FLOATING_KINDS:  # (complex too: torch's kernels are real-only)
        raise NotImplementedError(f'"{op.kernel}" not implemented for \'{_type_name(xp.empty(0, rt))}\'')
    out_dtype = None
    if into_input and xa.dtype != rt:
        if xa.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
            raise RuntimeError(
                f"result type {_type_name(xp.empty(0, rt))} can't be cast to the desired output type {_type_name(xa)}"
            )
        out_dtype = xa.dtype
    return apply(op, (x, t), (reduction, param, out_dtype), (xa.astype(rt, copy=False), ta.astype(rt, copy=False)))


def _weighted(loss: Tensor, weight, input, reduction: str, mean_by_weight: bool) -> Tensor:
    if weight._data.shape != input._data.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return red.sum(weighted)
    return red.sum(weighted) / red.sum(weight) if mean_by_weight else red.mean(weighted)


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",  # noqa: A002
             weight=None) -> Tensor:
    x, t = _broadcast_pair(input, target, "mse_loss")
    reduction = _reduction(reduction, size_average, reduce)
    if weight is not None:
        return _weighted(pw.pow(x - t, 2), weight, input, reduction, True)
    return _pointwise_loss(MseLossBackward0, x, t, reduction, None)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",  # noqa: A002
            weight=None) -> Tensor:
    """aten composes l1_loss: abs(input - target), then mean / sum (MeanBackward0, SumBackward0, AbsBackward0)."""
    x, t = _broadcast_pair(input, target, "l1_loss")
    reduction = _reduction(reduction, size_average, reduce)
    loss = pw.abs(x - t)
    if weight is not None:
        return _weighted(loss, weight, input, reduction, True)
    return _reduce(loss, reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",  # noqa: A002
                   beta: float = 1.0) -> Tensor:
    x, t = _broadcast_pair(input, target, "smooth_l1_loss")
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(x, t, reduction=reduction)
    return _pointwise_loss(SmoothL1LossBackward0, x, t, reduction, float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,  # noqa: A002
               weight=None) -> Tensor:
    x, t = _broadcast_pair(input, target, "huber_loss")
    reduction = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        loss = _pointwise_loss(HuberLossBackward0, x, t, "none", float(delta), into_input=True)
        return _weighted(loss, weight, input, reduction, False)
    return _pointwise_loss(HuberLossBackward0, x, t, reduction, float(delta), into_input=True)


# ------------------------------------------------------------------ binary and divergence losses


def _loss_weight(weight, fn: str, arg: str = "weight"):
    if weight is None:
        return None

    if weight._requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{fn}' is not differentiable with respect to argument '{arg}'. "
            "This input cannot have requires_grad True."
        )
    return weight._data


def _apply_reduction(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return xp.asarray(loss.sum())
    with xp.errstate(invalid="ignore", divide="ignore"):
        return xp.asarray(loss.mean()) if loss.size else xp.asarray(xp.nan, dtype=loss.dtype)


@register
class BinaryCrossEntropyBackward0(Op):
    """binary_cross_entropy(input, target, weight): -w * (t * log(x) + (1 - t) * log(1 - x)), each log clamped at -100.

    Backward (derivatives.yaml): input: grad * w * (x - t) / max(x * (1 - x), 1e-12); target:
    -grad * w * logit(x) (/ numel for ``mean``). Params: (weight array or None, reduction).
    """

    save_inputs = True

    @staticmethod
    def forward(x, t, w, reduction):
        with xp.errstate(divide="ignore"):
            loss = -(t * xp.maximum(xp.log(x), -100) + (1 - t) * xp.maximum(xp.log1p(-x), -100))
        if w is not None:
            loss = loss * w
        return _apply_reduction(loss.astype(x.dtype, copy=False), reduction)

    def backward(self, g):
        x, t = self.saved()
        w, reduction = self._params
        if reduction == "mean":
            g = g / max(x._data.size, 1)
        if w is not None:
            g = g * wrap(w)
        nf = self.next_functions
        gx = gt = None
        if nf[0][0] is not None:
            denom = x * (1 - x)
            eps = wrap(xp.asarray(1e-12, dtype=x._data.dtype))
            gx = g * (x - t) / pw.where_(wrap(denom._data > 1e-12), denom, eps)
        if nf[1][0] is not None:
            gt = g * (pw.log(1 - x) - pw.log(x))
        return gx, gt


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                         reduction: str = "mean"):
    reduction = _reduction(reduction, size_average, reduce)
    if target._data.shape != input._data.shape:
        from .._tensor import Size

        raise ValueError(
            f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
            f"({Size(input._data.shape)}) is deprecated. Please ensure they have the same size."
        )
    x, t = input._data, target._data
    if t.dtype != x.dtype:  # aten's binary_cross_entropy_out_cpu checks before its dtype dispatch
        raise RuntimeError(f"Found dtype {_type_name(t)} but expected {_type_name(x)}")
    if x.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"binary_cross_entropy" not implemented for \'{_type_name(x)}\'')
    w = _loss_weight(weight, "binary_cross_entropy")
    if x.size and ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    return apply(BinaryCrossEntropyBackward0, (input, target), (w, reduction))


def _log_sigmoid_arrays(x):
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


def _log_sigmoid(x: Tensor) -> Tensor:
    zero = wrap(xp.zeros((), dtype=x._data.dtype))
    return pw.where_(wrap(x._data < 0), x, zero) - pw.log(1 + pw.exp(-pw.abs(x)))


@register
class BinaryCrossEntropyWithLogitsBackward0(Op):
    """binary_cross_entropy_with_logits(input, target, weight, pos_weight), as aten computes it:
    (1 - t) * x - (1 + (pos_weight - 1) * t) * log_sigmoid(x), times weight.

    Backward (derivatives.yaml): input: ((pos_weight * t + 1 - t) * sigmoid(x) - pos_weight * t) * grad * w;
    target: (log_sigmoid(-x) - pos_weight * log_sigmoid(x)) * grad * w, or -x * grad * w without pos_weight.
    Params: (weight array or None, pos_weight array or None, reduction).
    """

    save_inputs = True

    @staticmethod
    def forward(x, t, w, pos_w, reduction):
        ls = _log_sigmoid_arrays(x)
        if pos_w is not None:
            ls = ls * ((pos_w - 1) * t + 1)
        loss = (1 - t) * x - ls
        if w is not None:
            loss = loss * w
        # aten writes the loss in place into ``1 - target``: it has the target's dtype
        return _apply_reduction(loss.astype(t.dtype, copy=False), reduction)

    def backward(self, g):
        x, t = self.saved()
        w, pos_w, reduction = self._params
        if w is not None:
            g = g * wrap(w)
        nf = self.next_functions
        gx = gt = None
        if nf[0][0] is not None:
            if pos_w is not None:
                pt = t * wrap(pos_w)
                gx = ((pt + 1 - t) * pw.sigmoid(x) - pt) * g
            else:
                gx = (pw.sigmoid(x) - t) * g
        if nf[1][0] is not None:
            if pos_w is not None:
                gt = (_log_sigmoid(-x) - _log_sigmoid(x) * wrap(pos_w)) * g
            else:
                gt = -x * g
        if reduction == "mean":  # last, as aten: the loss may be float32 and the input float64
            n = max(x._data.size, 1)
            gx = gx / n if gx is not None else None
            gt = gt / n if gt is not None else None
        return gx, gt


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                     reduction: str = "mean", pos_weight=None):
    reduction = _reduction(reduction, size_average, reduce)
    if target._data.shape != input._data.shape:
        from .._tensor import Size

        raise ValueError(
            f"Target size ({Size(target._data.shape)}) must be the same as input size ({Size(input._data.shape)})"
        )
    x, t = input._data, target._data
    # aten: log_sigmoid(input), then (1 - target).mul_(input).sub_(...): the loss is computed in place in the
    # target's dtype, so the input must be float and the target a float too (a float result can't be written
    # into an integer target's copy)
    if x.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for \'{_type_name(x)}\'')
    if t.dtype == xp.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if t.dtype.kind not in FLOATING_KINDS:
        raise RuntimeError(
            f"result type {_type_name(xp.empty(0, result_type(t, x)))} can't be cast to the desired output type "
            f"{_type_name(t)}"
        )
    w = _loss_weight(weight, "binary_cross_entropy_with_logits")
    pos_w = _loss_weight(pos_weight, "binary_cross_entropy_with_logits", "pos_weight")
    return apply(BinaryCrossEntropyWithLogitsBackward0, (input, target), (w, pos_w, reduction))


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",  # noqa: A002
           log_target: bool = False):
    """aten's kl_div: exp(t) * (t - input) with ``log_target``, else xlogy(t, t) - t * input; reduced.

    ``batchmean`` is the sum divided by the batch size (DivBackward0, as torch.nn.functional does).
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=2,
        )
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    for t in (input, target):
        if t._data.dtype.kind == "c":
            raise RuntimeError("kl_div: Complex inputs not supported.")
    for t in (input, target):
        if t._data.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
            raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = pw.exp(target) * (target - input)
    else:
        tz = target._data == 0
        safe = pw.where_(wrap(tz), wrap(xp.ones((), dtype=target._data.dtype)), target)
        xlogy = pw.where_(wrap(tz), wrap(xp.zeros((), dtype=target._data.dtype)), target * pw.log(safe))
        loss = xlogy - target * input
    if reduction == "batchmean":
        total = red.sum(loss)
        return total / input._data.shape[0] if input._data.ndim else total
    return _reduce(loss, reduction)


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.nn.functional; __init__.py, _tensor_methods.py and nn/functional.py merge these.
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {  # dyngrad.nn.functional.<name>
    "binary_cross_entropy": binary_cross_entropy,
    "binary_cross_entropy_with_logits": binary_cross_entropy_with_logits,
    "kl_div": kl_div,
    "nll_loss": nll_loss,
    "cross_entropy": cross_entropy,
    "mse_loss": mse_loss,
    "l1_loss": l1_loss,
    "smooth_l1_loss": smooth_l1_loss,
    "huber_loss": huber_loss,
}
