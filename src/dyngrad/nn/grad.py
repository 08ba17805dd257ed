"""torch.nn.grad: the gradients of a convolution with respect to its input or weight, as functions.

``convNd_input(input_size, weight, grad_output, ...)`` is the input gradient of ``F.convNd(input, weight,
...)`` for an input of ``input_size``; ``convNd_weight(input, weight_size, grad_output, ...)`` the weight
gradient. Both are the vector-Jacobian products of dyngrad's own convolution (torch computes them with
aten's convolution_backward): a convolution is linear in each argument, so the product does not depend
on the other argument's values, and a zero tensor of the right size stands in for it.
"""

from __future__ import annotations

from .. import _creation
from ..autograd import grad as _grad
from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation, groups):
    x = _creation.zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
    out = conv(x, weight.detach(), None, stride, padding, dilation, groups)
    return _grad(out, x, grad_output)[0]


def _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation, groups):  # noqa: A002
    w = _creation.zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
    out = conv(input.detach(), w, None, stride, padding, dilation, groups)
    return _grad(out, w, grad_output)[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv1d with respect to its input (shape ``input_size``: (N, C_in, L))."""
    return _input_grad(F.conv1d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """Gradient of conv1d with respect to its weight (shape ``weight_size``: (C_out, C_in / groups, K))."""
    return _weight_grad(F.conv1d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv2d with respect to its input (shape ``input_size``: (N, C_in, H, W))."""
    return _input_grad(F.conv2d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """Gradient of conv2d with respect to its weight (shape ``weight_size``: (C_out, C_in / groups, kH, kW))."""
    return _weight_grad(F.conv2d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of conv3d with respect to its input (shape ``input_size``: (N, C_in, D, H, W))."""
    return _input_grad(F.conv3d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """Gradient of conv3d with respect to its weight (shape ``weight_size``: (C_out, C_in / groups, kD, kH, kW))."""
    return _weight_grad(F.conv3d, input, weight_size, grad_output, stride, padding, dilation, groups)
