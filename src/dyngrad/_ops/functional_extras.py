"""nn.functional names torch 2.13 has that dyngrad lacked: gumbel_softmax, the ``*_with_indices`` pooling
spellings, native_channel_shuffle and grid_sample's mode tables.

They are compositions of existing ops (no new grad_fn classes), so their gradients are those ops'.
"""

from __future__ import annotations

import warnings

from .._tensor import Tensor
from . import channel_ops, pooling

# grid_sample's modes and their enum values in aten (torch.nn.functional's own tables)
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """Samples of the Gumbel-Softmax (Concrete) distribution (torch.nn.functional.gumbel_softmax).

    softmax((logits + g) / tau) along ``dim``, with g = -log(E), E ~ Exponential(1) drawn by ``exponential_``
    on the global generator (so the same draws as torch under the same seed). ``hard=True`` returns the
    one-hot of the argmax in the forward pass with the soft sample's gradient (the straight-through
    estimator: y_hard - y_soft.detach() + y_soft). Jang et al. 2016, "Categorical Reparameterization with
    Gumbel-Softmax"; Maddison et al. 2016, "The Concrete Distribution". ``eps`` is unused, as in torch
    (a value other than the default warns, with torch's text). Shape and dtype: those of ``logits``.
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    noise = -logits.new_empty(logits.shape).exponential_().log()
    soft = ((logits + noise) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    one_hot = logits.new_zeros(logits.shape).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    """max_pool1d returning (values, indices) whatever ``return_indices`` says (torch's spelling)."""
    return pooling.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
                            return_indices=False):
    """max_pool2d returning (values, indices) whatever ``return_indices`` says (torch's spelling)."""
    return pooling.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):  # noqa: A002
    """adaptive_max_pool2d returning (values, indices) (torch's spelling)."""
    return pooling.adaptive_max_pool2d(input, output_size, True)


def native_channel_shuffle(input, groups: int):  # noqa: A002
    """torch.native_channel_shuffle: channel_shuffle's values (the reference kernel torch keeps under this name)."""
    return channel_ops.channel_shuffle(input, groups)


EXPORTS: dict = {"native_channel_shuffle": native_channel_shuffle}
TENSOR_METHODS: dict = {}
FUNCTIONAL_EXPORTS: dict = {
    "gumbel_softmax": gumbel_softmax,
    "max_pool1d_with_indices": max_pool1d_with_indices,
    "max_pool2d_with_indices": max_pool2d_with_indices,
    "adaptive_max_pool2d_with_indices": adaptive_max_pool2d_with_indices,
    "native_channel_shuffle": native_channel_shuffle,
    "GRID_SAMPLE_INTERPOLATION_MODES": GRID_SAMPLE_INTERPOLATION_MODES,
    "GRID_SAMPLE_PADDING_MODES": GRID_SAMPLE_PADDING_MODES,
}
