"""Lazy modules (torch.nn.LazyLinear, LazyConv1d/2d, LazyConvTranspose1d/2d, LazyBatchNorm1d/2d): layers whose
input size is read from their first input.

Until the first forward their parameters (and running statistics) are ``UninitializedParameter`` /
``UninitializedBuffer``; a forward pre-hook (torch's LazyModuleMixin._infer_parameters) then gives them their
shapes from the input, runs the layer's ``reset_parameters`` and turns the module into its plain class
(``LazyLinear`` becomes ``Linear``), as torch does. The 3-D variants follow with Conv3d/BatchNorm3d.
"""

from __future__ import annotations

from ... import _creation
from ..._dtype import int64
from .. import functional as F  # noqa: F401 - the plain classes' forwards use it
from ..parameter import UninitializedBuffer, UninitializedParameter
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d


class LazyModuleMixin:
    """Shared behaviour of the lazy modules (torch.nn.modules.lazy.LazyModuleMixin)."""

    cls_to_become = None

    def _lazy_setup(self) -> None:
        self._initialize_hook = self.register_forward_pre_hook(LazyModuleMixin._infer_parameters)

    def has_uninitialized_params(self) -> bool:
        tensors = list(self._parameters.values()) + list(self._buffers.values())
        return any(isinstance(t, (UninitializedParameter, UninitializedBuffer)) for t in tensors)

    def initialize_parameters(self, *args, **kwargs) -> None:  # pragma: no cover - each lazy class defines it
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    @staticmethod
    def _infer_parameters(module, args):
        module.initialize_parameters(*args)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """Linear with ``in_features`` taken from the last dim of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False, dtype=dtype)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        self._lazy_setup()

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    _spatial = 1

    def _lazy_conv_setup(self, out_channels: int, bias: bool, dtype) -> None:
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)
        self._lazy_setup()

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def _in_channels(self, input) -> int:
        unbatched = self._spatial + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{self.__class__.__name__}, but got input of size: {input.shape}")
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]

    def initialize_parameters(self, input, *args) -> None:
        if self.has_uninitialized_params():
            self.in_channels = self._in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


class LazyConv1d(_LazyConvMixin, Conv1d):
    cls_to_become = Conv1d
    _spatial = 1

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias: bool = True,
                 padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, dtype=dtype)
        self._lazy_conv_setup(out_channels, bias, dtype)


class LazyConv2d(_LazyConvMixin, Conv2d):
    cls_to_become = Conv2d
    _spatial = 2

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias: bool = True,
                 padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, dtype=dtype)
        self._lazy_conv_setup(out_channels, bias, dtype)


class LazyConvTranspose1d(_LazyConvMixin, ConvTranspose1d):
    cls_to_become = ConvTranspose1d
    _spatial = 1

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         dtype=dtype)
        self._lazy_conv_setup(out_channels, bias, dtype)


class LazyConvTranspose2d(_LazyConvMixin, ConvTranspose2d):
    cls_to_become = ConvTranspose2d
    _spatial = 2

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         dtype=dtype)
        self._lazy_conv_setup(out_channels, bias, dtype)


class _LazyNormMixin(LazyModuleMixin):
    """torch's _LazyNormBase: the plain layer is built with 0 features and no parameters, then the lazy ones
    are put in place; torch's defaults ``affine=True, track_running_stats=True`` (also for the instance norms,
    whose plain classes default to False) and the keyword ``bias``."""

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

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            for name in ("weight", "bias", "running_mean", "running_var"):
                lazy = getattr(self, name)
                if lazy is not None:  # bias=False leaves no bias
                    lazy.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    cls_to_become = BatchNorm2d
