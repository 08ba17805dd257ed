"""Arithmetic rounded the way torch's x86-64 CPU kernels round it, for the special-function kernels.

Note [Fused multiply-add]
torch's scalar CPU kernels (Math.h's special functions and polynomials) are compiled with
contraction on: ``a * b - c`` becomes one fused multiply-add, rounded once. Where the
difference shows (recurrences over hundreds of degrees, differences near a zero, an
intermediate just above the float32 range) matching torch needs the same single rounding.
``fma``/``fms`` give it: float32 operands are multiplied exactly in float64 and rounded once
to float32; float64 operands go through ``numpy.longdouble`` (x87 extended precision on
x86-64 Linux: 11 more bits, which rounds as the fused operation does in nearly every case;
where longdouble is plain double, this degrades to two roundings). Constants are first
rounded to the working dtype, as Math.h's ``T(...)`` constants are.

Note [float32 libm]
The same kernels call glibc's functions (expf, logf, sinf, cosf, acosf; exp, acos ...), which
are correctly rounded or nearly so; some of NumPy's own loops are not (its float32 exp differs
from the correctly rounded value for a third of float32 inputs, its float64 exp and arccos for
a few percent of inputs). For float32 the functions here evaluate in float64 and round once;
float64 exp and acos evaluate in longdouble and round once; float64 log, sin and cos are
NumPy's, which agree with glibc's.
"""

from __future__ import annotations

from .._backend import xp

_WIDE = {xp.dtype(xp.float32): xp.float64, xp.dtype(xp.float64): xp.longdouble}


def _widen(value, dtype, wide):
    if isinstance(value, xp.ndarray) or isinstance(value, xp.generic):
        return xp.asarray(value, dtype=dtype).astype(wide)
    return wide(dtype.type(value))


def fma(a, b, c):
    """``a * b + c`` rounded once to ``a``'s dtype (float32 or float64); b, c arrays or numbers."""
    dt = a.dtype
    wide = _WIDE[dt]
    return xp.asarray(a.astype(wide) * _widen(b, dt, wide) + _widen(c, dt, wide)).astype(dt)


def fms(a, b, c):
    """``a * b - c`` rounded once to ``a``'s dtype."""
    dt = a.dtype
    wide = _WIDE[dt]
    return xp.asarray(a.astype(wide) * _widen(b, dt, wide) - _widen(c, dt, wide)).astype(dt)


def _libm(fn, wide_float64: bool = False):
    def run(x):
        if x.dtype == xp.float32:
            return xp.asarray(fn(x.astype(xp.float64))).astype(xp.float32)
        if wide_float64:
            return xp.asarray(fn(x.astype(xp.longdouble))).astype(x.dtype)
        return fn(x)

    run.__name__ = fn.__name__
    run.__doc__ = f"{fn.__name__} in the working dtype, rounded as glibc's (Note [float32 libm])."
    return run


exp = _libm(xp.exp, wide_float64=True)
log = _libm(xp.log)
sin = _libm(xp.sin)
cos = _libm(xp.cos)
acos = _libm(xp.arccos, wide_float64=True)
