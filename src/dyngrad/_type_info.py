"""``torch.finfo`` and ``torch.iinfo``: the numerical limits of a dtype.

Values come from NumPy's ``finfo`` / ``iinfo`` (IEEE 754 / two's complement limits);
attribute names, reprs and errors are torch's (see the torch.finfo / torch.iinfo
documentation, "Type Info").
"""

from __future__ import annotations

import numpy as np

from . import _dtype

# float8 type -> (min, max, eps, smallest normal), as torch.finfo gives them; known without ml_dtypes
_FLOAT8_INFO = {
    "float8_e4m3fn": (-448.0, 448.0, 0.125, 2.0**-6),
    "float8_e5m2": (-57344.0, 57344.0, 0.25, 2.0**-14),
    "float8_e4m3fnuz": (-240.0, 240.0, 0.125, 2.0**-7),
    "float8_e5m2fnuz": (-57344.0, 57344.0, 0.125, 2.0**-15),
    "float8_e8m0fnu": (2.0**-127, 2.0**127, 1.0, 2.0**-127),
}


class finfo:
    """Limits of a floating-point dtype (a complex dtype gives its real part's).

    Attributes: ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``),
    ``resolution`` (10 ** -precision, in decimal digits), ``dtype`` (its name, a str).
    ``finfo()`` describes the default dtype.

    Raises:
        TypeError: for a non-floating dtype, with torch's text.
    """

    def __init__(self, type=None) -> None:  # noqa: A002 - torch's name
        d = _dtype.get_default_dtype() if type is None else type
        if not isinstance(d, _dtype.dtype):
            raise TypeError(f"finfo(): argument 'type' (position 1) must be torch.dtype, not {builtin_type(d).__name__}")
        if not (d.is_floating_point or d.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle 'torch.finfo'")
        real = d.to_real()
        if real is _dtype.bfloat16:  # torch's values, known without ml_dtypes (8 exponent bits, 7 mantissa bits)
            self.bits, self.eps, self.max = 16, 2.0**-7, (2 - 2.0**-7) * 2.0**127
            self.min, self.tiny, self.smallest_normal = -self.max, 2.0**-126, 2.0**-126
            self.resolution, self.dtype = 0.01, "bfloat16"
            return
        if real.name in _FLOAT8_INFO:  # torch's values (c10's numeric_limits of its Float8 types)
            self.bits, self.resolution, self.dtype = 8, 1.0, real.name
            self.min, self.max, self.eps, self.tiny = _FLOAT8_INFO[real.name]
            self.smallest_normal = self.tiny
            return
        info = np.finfo(real.np)
        self.bits = info.bits
        self.eps = builtin_float(info.eps)
        self.max = builtin_float(info.max)
        self.min = builtin_float(info.min)
        self.tiny = self.smallest_normal = builtin_float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision  # torch computes it from the decimal precision
        self.dtype = real.name

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
            f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})"
        )


class iinfo:
    """Limits of an integer dtype: ``bits``, ``min``, ``max``, ``dtype`` (its name, a str).

    Raises:
        TypeError: for a floating dtype or bool, with torch's texts.
    """

    def __init__(self, type) -> None:  # noqa: A002 - torch's name
        if not isinstance(type, _dtype.dtype):
            raise TypeError(f"iinfo(): argument 'type' (position 1) must be torch.dtype, not {builtin_type(type).__name__}")
        if type.name == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits = info.bits
        self.min = int(info.min)
        self.max = int(info.max)
        self.dtype = type.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={builtin_float(self.min):g}, max={builtin_float(self.max):g}, dtype={self.dtype})"


builtin_type, builtin_float = type, float
