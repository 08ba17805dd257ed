"""Re-exports of the 3-D layers and of the unpooling, shuffle, sampling and bag layers, kept in one list so
that adding one touches this file only (nn/modules/__init__.py takes ``__all__`` from here)."""

from __future__ import annotations

from .channel import ChannelShuffle, CrossMapLRN2d, LocalResponseNorm, PixelShuffle, PixelUnshuffle, Softmax2d
from .conv import Conv3d, ConvTranspose3d
from .dropout import Dropout3d
from .embedding_bag import EmbeddingBag
from .normalization import BatchNorm3d, InstanceNorm3d
from .padding import CircularPad3d, ConstantPad3d, ReflectionPad3d, ReplicationPad3d, ZeroPad3d
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool3d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool3d,
    AvgPool3d,
    FractionalMaxPool2d,
    FractionalMaxPool3d,
    LPPool1d,
    LPPool2d,
    LPPool3d,
    MaxPool3d,
    MaxUnpool1d,
    MaxUnpool2d,
    MaxUnpool3d,
)

__all__ = [
    "Conv3d", "ConvTranspose3d", "Dropout3d", "BatchNorm3d", "InstanceNorm3d", "CircularPad3d", "ConstantPad3d",
    "ReflectionPad3d", "ReplicationPad3d", "ZeroPad3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool3d", "AvgPool3d", "MaxPool3d",
    "ChannelShuffle", "LocalResponseNorm", "PixelShuffle", "PixelUnshuffle", "Softmax2d",
    "LPPool1d", "LPPool2d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
    "EmbeddingBag", "FractionalMaxPool2d", "FractionalMaxPool3d",
    "CrossMapLRN2d",
]
