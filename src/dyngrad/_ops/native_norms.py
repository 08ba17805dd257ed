"""aten's tuple-returning normalisation entry points: ``torch.native_batch_norm``,
``torch._native_batch_norm_legit``, ``torch.native_layer_norm``, ``torch.native_group_norm`` and
``aten._batch_norm_with_update`` (aten/src/ATen/native/Normalization.cpp, layer_norm.cpp, group_norm.cpp).

Each returns the normalised output and the statistics aten saves for its backward: ``(output,
save_mean, save_invstd)`` for batch norm, ``(output, mean, rstd)`` for layer and group norm. The
output is computed by the kernels of normalization.py (the same node, or a subclass carrying torch's
name for that entry point: NativeBatchNormLegitBackward0, BatchNormWithUpdateBackward0); the
statistics are the biased-variance ones, rstd = 1 / sqrt(var + eps).

Differentiability follows derivatives.yaml: batch and layer norm mark their statistics
non-differentiable (plain tensors, no grad_fn); native_group_norm's three outputs share one node
and its backward reads only the output's gradient (the statistics' gradients are dropped, as aten).
"""

from __future__ import annotations

from .._backend import xp
from .._creation import zeros_like as _zeros_like
from .._tensor import wrap
from . import normalization as nz
from . import pointwise as pw
from . import reduction as red
from .nn_kernels import _shape_list
from .registry import apply_multi, register


def _channel_stats(a, eps: float):
    """Per-channel (dim 1) mean and 1 / sqrt(biased var + eps) over every other dim."""
    axes = (0,) + tuple(range(2, a.ndim))
    mean = a.mean(axis=axes)
    var = ((a - mean.reshape((1, -1) + (1,) * (a.ndim - 2))) ** 2).mean(axis=axes)
    return mean.astype(a.dtype, copy=False), (1 / xp.sqrt(var + eps)).astype(a.dtype, copy=False)


def _batch_norm_tuple(input, weight, bias, running_mean, running_var, training, momentum, eps, op):  # noqa: A002
    out = nz.batch_norm(input, running_mean, running_var, weight, bias, bool(training), momentum, eps, _op=op)
    a = input._data
    if training:
        mean, invstd = _channel_stats(a, float(eps))
    else:  # aten saves nothing in evaluation mode
        mean = invstd = xp.empty((0,), dtype=a.dtype)
    return out, wrap(mean), wrap(invstd)


@register
class NativeBatchNormLegitBackward0(nz.NativeBatchNormBackward0):
    """``torch._native_batch_norm_legit``'s node: the same formulas as NativeBatchNormBackward0."""


@register
class NativeBatchNormLegitBackward1(nz.NativeBatchNormBackward0):
    """``torch._native_batch_norm_legit.no_stats``'s node (no running statistics): the same formulas."""


@register
class BatchNormWithUpdateBackward0(nz.NativeBatchNormBackward0):
    """``aten._batch_norm_with_update``'s node (training batch norm): NativeBatchNormBackward0's formulas.
    As torch's (its batch_norm_backward takes the weight as a required tensor), the backward raises without one."""

    def _check_weight(self):
        if self.saved()[1] is None:
            raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #2 "
                               "'weight'")

    def backward(self, g):
        self._check_weight()
        return super().backward(g)

    def backward_arrays(self, g):
        self._check_weight()
        return super().backward_arrays(g)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):  # noqa: A002
    """torch.native_batch_norm -> (output, save_mean, save_invstd).

    ``input`` (N, C, *), floating; weight, bias, running_mean, running_var: (C,) or None. When
    ``training``, the statistics are the batch's (save_mean, save_invstd of shape (C,)) and the running
    ones are updated in place (unbiased variance, ``momentum``); otherwise the running statistics
    normalise and save_mean/save_invstd are empty (0,) tensors. Errors: those of
    ``nn.functional.batch_norm`` (RuntimeError for sizes and dtypes, ValueError for one value per channel).
    """
    return _batch_norm_tuple(input, weight, bias, running_mean, running_var, training, momentum, eps,
                             nz.NativeBatchNormBackward0)


def _native_batch_norm_legit(input, weight, bias, *args):  # noqa: A002
    """torch._native_batch_norm_legit: native_batch_norm recorded as NativeBatchNormLegitBackward0.

    Two overloads, as aten: ``(input, weight, bias, running_mean, running_var, training, momentum,
    eps)`` and ``.no_stats`` ``(input, weight, bias, training, momentum, eps)`` (no running statistics).
    """
    if len(args) == 3:  # .no_stats
        training, momentum, eps = args
        return _batch_norm_tuple(input, weight, bias, None, None, training, momentum, eps,
                                 NativeBatchNormLegitBackward1)
    running_mean, running_var, training, momentum, eps = args
    return _batch_norm_tuple(input, weight, bias, running_mean, running_var, training, momentum, eps,
                             NativeBatchNormLegitBackward0)


def batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps):  # noqa: A002
    """aten._batch_norm_with_update -> (output, save_mean, save_invstd, reserve): training batch norm that
    updates the running statistics in place; ``reserve`` is an empty uint8 tensor on CPU (cuDNN's workspace)."""
    out, mean, invstd = _batch_norm_tuple(input, weight, bias, running_mean, running_var, True, momentum, eps,
                                          BatchNormWithUpdateBackward0)
    return out, mean, invstd, wrap(xp.empty((0,), dtype=xp.uint8))


def native_layer_norm(input, normalized_shape, weight, bias, eps):  # noqa: A002
    """torch.native_layer_norm -> (output, mean, rstd), normalising over the trailing ``normalized_shape``.

    mean and rstd have the input's shape with the normalised dims set to 1. Errors (RuntimeError, aten's
    texts): an empty ``normalized_shape``; a weight or bias not of that shape; an input not ending in it.
    """
    ns = tuple(int(n) for n in normalized_shape)
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {_shape_list(ns)}")
    out = nz.layer_norm(input, ns, weight, bias, eps)
    a = input._data
    axes = tuple(range(a.ndim - len(ns), a.ndim))
    mean, _, _, rstd = nz._stats(a, axes, float(eps))
    return out, wrap(mean.astype(a.dtype, copy=False)), wrap(rstd.astype(a.dtype, copy=False))


class NativeGroupNormBackward0(nz.NativeGroupNormBackward0):
    """native_group_norm's three-output form of the registered NativeGroupNormBackward0 (same name, as torch's
    node): forward also returns mean and rstd (N, group).

    Backward: the output's gradient through the shared normalisation formula, plus (derivatives.yaml's
    infinitely_differentiable_native_group_norm_backward) the statistics' own: with M elements per group,
    d mean / dx = 1 / M and d rstd / dx = -rstd^3 (x - mean) / M; they add nothing to weight and bias.
    """

    @staticmethod
    def forward(x, w, b, groups, eps):
        y = nz.NativeGroupNormBackward0.forward(x, w, b, groups, eps)
        n = x.shape[0]
        mean, _, _, rstd = nz._stats(x.reshape(n, groups, x.size // max(n * groups, 1)), (2,), eps)
        return y, mean.reshape(n, groups).astype(x.dtype, copy=False), rstd.reshape(n, groups).astype(x.dtype)

    def backward(self, g, g_mean, g_rstd):
        if g is None:  # as aten: no gradient for the output, no gradients at all (whatever the statistics got)
            return None, None, None
        grads = super().backward(g)
        if grads[0] is None or (g_mean is None and g_rstd is None):
            return grads
        g_mean = g_mean if g_mean is not None else _zeros_like(g_rstd)
        g_rstd = g_rstd if g_rstd is not None else _zeros_like(g_mean)
        x = self.saved()[0]
        groups, eps = self._params
        shape = x._data.shape
        n = shape[0]
        xg = x.reshape((n, groups, x._data.size // max(n * groups, 1)))
        m = xg._data.shape[2]
        mean = red.mean(xg, (2,), keepdim=True)
        xc = xg - mean
        rstd = pw.pow(red.mean(xc * xc, (2,), keepdim=True) + eps, -0.5)
        stats = (g_mean.reshape((n, groups, 1)) - g_rstd.reshape((n, groups, 1)) * rstd * rstd * rstd * xc) / m
        return (grads[0] + stats.reshape(shape),) + tuple(grads[1:])


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):  # noqa: A002, N803 - aten's names
    """torch.native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (output, mean, rstd).

    ``input`` (N, C, *) with HxW elements per channel; weight, bias (C,) or None; mean and rstd (N, group).
    All three outputs carry the node NativeGroupNormBackward0, as torch's. Errors: those of
    ``nn.functional.group_norm``.
    """
    if not input.is_contiguous():  # aten's kernel reads the input's memory as (N, C, HxW)
        raise RuntimeError("Expected X.is_contiguous(memory_format) to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    nz.group_norm(input.detach(), group, None if weight is None else weight.detach(),
                  None if bias is None else bias.detach(), eps)  # its checks (and nothing recorded)
    outs = tuple(apply_multi(NativeGroupNormBackward0, (input, weight, bias), (int(group), float(eps))))
    if outs[0].grad_fn is not None:
        outs[0].grad_fn._materialize = False  # the backward must see which outputs got a gradient (see there)
    return outs


EXPORTS: dict = {
    "native_batch_norm": native_batch_norm,
    "_native_batch_norm_legit": _native_batch_norm_legit,
    "native_layer_norm": native_layer_norm,
    "native_group_norm": native_group_norm,
}
TENSOR_METHODS: dict = {}
