"""Padding layers (torch.nn.ZeroPad*, ConstantPad*, ReflectionPad*, ReplicationPad*, CircularPad*) over F.pad.

An int padding ``p`` means ``p`` on every side of the last n dims, stored as a 2n-tuple as torch does.
"""

from __future__ import annotations

from .. import functional as F
from .module import Module


def _ntuple(n: int, padding) -> tuple:
    return tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * n


class _PadNd(Module):
    _n = 1
    _mode = "constant"

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(2 * self._n, padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    _n = 2


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    _n, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    _n, _mode = 2, "reflect"


class ReplicationPad1d(_PadNd):
    _n, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    _n, _mode = 2, "replicate"


class CircularPad1d(_PadNd):
    _n, _mode = 1, "circular"


class CircularPad2d(_PadNd):
    _n, _mode = 2, "circular"


class ConstantPad3d(_ConstantPadNd):
    _n = 3


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad3d(_PadNd):
    _n, _mode = 3, "reflect"


class ReplicationPad3d(_PadNd):
    _n, _mode = 3, "replicate"


class CircularPad3d(_PadNd):
    _n, _mode = 3, "circular"
