"""The remaining lazy modules (torch.nn.LazyConv3d, LazyConvTranspose3d, LazyBatchNorm3d, LazyInstanceNorm1d/2d/3d).

They follow lazy.py: parameters and running statistics start as ``UninitializedParameter`` /
``UninitializedBuffer``, the first forward reads the channel count from ``input.size(1)`` (the conv
layers also accept an unbatched input, whose channels are ``input.size(0)``), materializes them, runs
``reset_parameters`` and turns the module into its plain class, as torch's ``LazyModuleMixin`` does.
The lazy norms share lazy.py's ``_LazyNormMixin`` (torch's ``_LazyNormBase``).
"""

from __future__ import annotations

from .conv import Conv3d, ConvTranspose3d
from .lazy import _LazyConvMixin, _LazyNormMixin
from .normalization import BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["LazyBatchNorm3d", "LazyConv3d", "LazyConvTranspose3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class LazyConv3d(_LazyConvMixin, Conv3d):
    """Conv3d with ``in_channels`` read from the first input (N, C, D, H, W) or (C, D, H, W)."""

    cls_to_become = Conv3d
    _spatial = 3

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias: bool = True,
                 padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, dtype=dtype)
        self._lazy_conv_setup(out_channels, bias, dtype)


class LazyConvTranspose3d(_LazyConvMixin, ConvTranspose3d):
    """ConvTranspose3d with ``in_channels`` read from the first input (N, C, D, H, W) or (C, D, H, W)."""

    cls_to_become = ConvTranspose3d
    _spatial = 3

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         dtype=dtype)
        self._lazy_conv_setup(out_channels, bias, dtype)


class LazyBatchNorm3d(_LazyNormMixin, BatchNorm3d):
    """BatchNorm3d with ``num_features`` read from ``input.size(1)``."""

    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormMixin, InstanceNorm1d):
    """InstanceNorm1d with ``num_features`` read from ``input.size(1)`` (affine and running stats on by default)."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormMixin, InstanceNorm2d):
    """InstanceNorm2d with ``num_features`` read from ``input.size(1)`` (affine and running stats on by default)."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormMixin, InstanceNorm3d):
    """InstanceNorm3d with ``num_features`` read from ``input.size(1)`` (affine and running stats on by default)."""

    cls_to_become = InstanceNorm3d
