"""Kernels of aten operators that torch exposes only as ``torch.ops.aten.<name>`` and its OpInfo tests:
``_softmax_backward_data``, ``_safe_softmax``, ``slice.Tensor``, ``native_dropout_backward``,
``max_pool2d_with_indices_backward`` and ``_upsample_bilinear2d_aa``. dyngrad.ops.aten (src/dyngrad/ops.py)
is where they are called from; the formulas are derivatives.yaml's.
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor, _wrap_dim
from . import reduction as red
from . import shape as sh
from .nn_kernels import SoftmaxBackward0, _softmax_array
from .registry import Op, apply, register
from .shape import _mark_view


# ------------------------------------------------------------------ softmax
@register
class SoftmaxBackwardDataBackward0(Op):
    """_softmax_backward_data(grad_output, output, dim, input_dtype) = output * (grad_output - sum(grad_output * output)).

    Backward (derivatives.yaml): grad_output gets _softmax_backward_data(grad, output), output gets
    softmax_double_backward: grad * (grad_output - s) - grad_output * sum(grad * output), s = sum(grad_output * output).
    """

    save_inputs = True

    @staticmethod
    def forward(go, y, axis):
        return y * (go - (go * y).sum(axis=axis, keepdims=True))

    def backward(self, g):
        go, y = self.saved()
        (axis,) = self._params
        gy = red.sum(g * y, axis, keepdim=True)
        nf = self.next_functions
        d_go = y * (g - gy) if nf[0][0] is not None else None
        d_y = g * (go - red.sum(go * y, axis, keepdim=True)) - go * gy if nf[1][0] is not None else None
        return d_go, d_y


def softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype) -> Tensor:
    """aten._softmax_backward_data: the gradient of softmax given its output; the result has ``input_dtype``."""
    axis = _wrap_dim(dim, output._data.ndim)
    out = apply(SoftmaxBackwardDataBackward0, (grad_output, output), (axis,))
    return out if out.dtype == input_dtype else sh.to(out, input_dtype)


@register
class SafeSoftmaxBackward0(SoftmaxBackward0):
    """_safe_softmax(input, dim): softmax, except that a slice whose entries are all -inf gives zeros, not NaN
    (aten's masked_fill of softmax for attention masks). Backward: softmax's (derivatives.yaml)."""

    @staticmethod
    def forward(a, axis):
        y = _softmax_array(a, axis)
        if a.ndim:
            y = xp.where(xp.all(a == -xp.inf, axis=axis, keepdims=True), 0, y).astype(a.dtype, copy=False)
        return y


def safe_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:  # noqa: A002
    """aten._safe_softmax(input, dim, dtype=None); float inputs (``dtype`` casts first)."""
    if dtype is not None:
        input = sh.to(input, dtype)  # noqa: A001
    return apply(SafeSoftmaxBackward0, (input,), (_wrap_dim(dim, input._data.ndim),))


# ------------------------------------------------------------------ slice, dropout
def slice_tensor(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:  # noqa: A002
    """aten.slice.Tensor: ``input[..., start:end:step, ...]`` along ``dim`` (a view, SliceBackward0); bounds clamp
    as Python's. Errors: RuntimeError for a step that is not positive (aten's text)."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    from .indexing import SliceBackward0

    axis = _wrap_dim(dim, input._data.ndim)
    key = (slice(None),) * axis + (slice(start, end, step),)  # (always SliceBackward0, even for the whole dim)
    return _mark_view(apply(SliceBackward0, (input,), (key, input._data.shape, False)), input)


@register
class NativeDropoutBackwardBackward0(Op):
    """native_dropout_backward(grad_output, mask, scale) = grad_output * (mask * scale); the mask is not
    differentiable. Backward (derivatives.yaml, native_dropout_double_backward): grad * mask * scale."""

    save_inputs = True

    @staticmethod
    def forward(go, mask, scale):
        return go * (mask.astype(go.dtype) * go.dtype.type(scale))

    def backward(self, g):
        _, mask = self.saved()
        (scale,) = self._params
        return g * (mask.to(g.dtype) * scale), None


def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    """aten.native_dropout_backward: dropout's gradient from its boolean ``mask`` and ``scale`` (1 / (1 - p))."""
    return apply(NativeDropoutBackwardBackward0, (grad_output, mask), (float(scale),))


# ------------------------------------------------------------------ max_pool2d_with_indices_backward
def _plane_shape(shape):
    """(leading dims, elements per plane) of an (N, C, H, W) or (C, H, W) tensor."""
    return tuple(shape[:-2]), shape[-2] * shape[-1]


@register
class MaxPool2DWithIndicesBackwardBackward0(Op):
    """max_pool2d_with_indices_backward: grad_output added into a zero tensor of the input's shape at ``indices``
    (flat positions within each H x W plane). Backward (derivatives.yaml): grad_output gets
    max_pool_double_backward, the gradient gathered at ``indices``; the input's gradient is zero."""

    save_inputs = True

    @staticmethod
    def forward(go, x, idx):
        lead, plane = _plane_shape(x.shape)
        out = xp.zeros(lead + (plane,), dtype=go.dtype)
        flat_idx = idx.reshape(lead + (-1,))
        rows = xp.indices(flat_idx.shape, sparse=True)[:-1]
        xp.add.at(out, (*rows, flat_idx), go.reshape(lead + (-1,)))
        return out.reshape(x.shape)

    def backward(self, g):
        go, x, idx = self.saved()
        if self.next_functions[0][0] is None:
            return None, None, None
        lead, plane = _plane_shape(tuple(x.shape))
        flat_idx = sh.reshape(idx, lead + (-1,))
        picked = sh.reshape(g, lead + (plane,)).gather(-1, flat_idx)
        return sh.reshape(picked, tuple(go.shape)), None, None


def max_pool2d_with_indices_backward(grad_output: Tensor, input: Tensor, kernel_size, stride, padding,  # noqa: A002
                                     dilation, ceil_mode, indices: Tensor) -> Tensor:
    """aten.max_pool2d_with_indices_backward: the gradient of max_pool2d with respect to its input, given the
    ``indices`` max_pool2d_with_indices returned (the pooling parameters are implied by them)."""
    if indices._data.shape != grad_output._data.shape:
        raise RuntimeError(f"Expected indices of shape {list(grad_output.shape)}, got {list(indices.shape)}")
    return apply(MaxPool2DWithIndicesBackwardBackward0, (grad_output, input, indices))


# ------------------------------------------------------------------ _upsample_bilinear2d_aa
def upsample_bilinear2d_aa_default(input: Tensor, output_size, align_corners: bool, scales_h=None,  # noqa: A002
                                   scales_w=None) -> Tensor:
    """aten._upsample_bilinear2d_aa.default: antialiased bilinear resampling of an (N, C, H, W) input to
    ``output_size``, node UpsampleBilinear2DAaBackward0 (the kernel of interpolate(mode='bilinear',
    antialias=True)); ``scales_h``/``scales_w`` (output / input size ratios) set the source positions where
    given, as aten's area_pixel_compute_scale."""
    from .resample import UpsampleBilinear2DAaBackward0, _aa_matrix, resample

    if scales_h is None and scales_w is None:
        return resample(input, "bilinear", list(output_size), None, align_corners, True)
    a = input._data
    # aten's separable kernel leaves a dim whose size does not change as it is, whatever its scale: identity
    mats = tuple(_aa_matrix(n_in, int(n_out), sf if n_in != int(n_out) else None, align_corners, a.dtype, cubic=False)
                 for n_in, n_out, sf in zip(a.shape[2:], output_size, (scales_h, scales_w)))
    return apply(UpsampleBilinear2DAaBackward0, (input,), (None, mats))


def upsample_bilinear2d_aa_vec(input: Tensor, output_size, align_corners: bool, scale_factors) -> Tensor:  # noqa: A002
    """aten._upsample_bilinear2d_aa.vec: as ``.default``, the size given by ``output_size`` or ``scale_factors``."""
    from .resample import resample

    if output_size is not None:
        return resample(input, "bilinear", list(output_size), None, align_corners, True)
    return resample(input, "bilinear", None, list(scale_factors), align_corners, True)


def upsample_bilinear2d_aa(input: Tensor, output_size, align_corners: bool, *args, **kwargs) -> Tensor:  # noqa: A002
    """aten._upsample_bilinear2d_aa: ``.vec`` when called with ``scale_factors`` (a list, or by keyword),
    else ``.default`` (optional ``scales_h``, ``scales_w``), as the dispatcher chooses between them."""
    if "scale_factors" in kwargs or (args and isinstance(args[0], (list, tuple))):
        return upsample_bilinear2d_aa_vec(input, output_size, align_corners, *args, **kwargs)
    return upsample_bilinear2d_aa_default(input, output_size, align_corners, *args, **kwargs)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    """torch.nn.functional.max_pool2d_with_indices: max_pool2d's (output, indices), whatever ``return_indices``."""
    from .pooling import max_pool2d

    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
FUNCTIONAL_EXPORTS: dict = {"max_pool2d_with_indices": max_pool2d_with_indices}
