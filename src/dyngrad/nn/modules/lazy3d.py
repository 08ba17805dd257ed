"""The remaining lazy modules (torch.nn.LazyConv3d, LazyConvTranspose3d, LazyBatchNorm3d, LazyInstanceNorm1d/2d/3d).

They follow lazy.py: parameters and running statistics start as ``UninitializedParameter`` /
``UninitializedBuffer``, the first forward reads the channel count from ``input.size(1)`` (the conv
layers also accept an unbatched input, whose channels are ``input.size(0)``), materializes them, runs
``reset_parameters`` and turns the module into its plain class, as torch's ``LazyModuleMixin`` does.
The lazy norms take torch's ``_LazyNormBase`` defaults: ``affine=True, track_running_stats=True`` (also
for the instance norms, whose plain classes default to False), and the keyword ``bias``.
"""

from __future__ import annotations

from ... import _creation
from ..._dtype import int64
from ..parameter import UninitializedBuffer, UninitializedParameter
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


class _LazyNorm(_LazyNormMixin):
    """torch's _LazyNormBase: the plain layer is built with 0 features and no parameters, then the lazy ones
    are put in place."""

    def __init__(self, eps: float = 1e-5, momentum=0.1, affine: bool = True, track_running_stats: bool = True,
                 device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(0, eps, momentum, False, False, dtype=dtype, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
            self.num_batches_tracked = _creation.tensor(0, dtype=int64)
        self._lazy_setup()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            for name in ("weight", "bias", "running_mean", "running_var"):
                lazy = getattr(self, name)
                if lazy is not None:  # bias=False leaves no bias
                    lazy.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm3d(_LazyNorm, BatchNorm3d):
    """BatchNorm3d with ``num_features`` read from ``input.size(1)``."""

    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNorm, InstanceNorm1d):
    """InstanceNorm1d with ``num_features`` read from ``input.size(1)`` (affine and running stats on by default)."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNorm, InstanceNorm2d):
    """InstanceNorm2d with ``num_features`` read from ``input.size(1)`` (affine and running stats on by default)."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNorm, InstanceNorm3d):
    """InstanceNorm3d with ``num_features`` read from ``input.size(1)`` (affine and running stats on by default)."""

    cls_to_become = InstanceNorm3d
