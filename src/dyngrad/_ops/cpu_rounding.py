"""Arithmetic rounded the way torch's x86-64 CPU kernels round it, for the special-function kernels.

Note [Fused multiply-add]
torch's scalar CPU kernels (Math.h's special functions and polynomials) are compiled with
contraction on: ``a * b - c`` becomes one fused multiply-add, rounded once. Where the
difference shows (recurrences over hundreds of degrees, differences near a zero, an
intermediate just above the float32 range) matching torch needs the same single rounding.
``fma``/``fms`` give it: float32 operands are multiplied exactly in float64 and rounded once
to float32 (exact but for double rounding in rare ties); float64 follows Boldo and Melquiond
("Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd",
IEEE Trans. Computers 57, 2008): the product is split exactly into a sum of two doubles
(Dekker's two-product, Veltkamp's splitting), the addend added with Knuth's two-sum, the two
error terms summed rounding to odd, and the total rounded once. (Extended precision would not
do: it loses the digits exactly where the sum cancels.) Constants are first rounded to the
working dtype, as Math.h's ``T(...)`` constants are.

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

_SPLITTER = 134217729.0  # 2**27 + 1: splits a double into two halves of 26 bits


def _operand(value, dtype):
    """An operand in the working dtype (a Python constant rounded to it first, as Math.h's T(...))."""
    return xp.asarray(value).astype(dtype, copy=False)


def _split(a):
    """(high, low) halves of 26 and 27 bits with high + low = a exactly (Veltkamp)."""
    scaled = _SPLITTER * a
    high = scaled - (scaled - a)
    return high, a - high


def _fma_float64(a, b, c):
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    # product + product_error = a * b exactly (Dekker)
    product_error = a_high * b_high - product
    product_error += a_high * b_low
    product_error += a_low * b_high
    product_error += a_low * b_low
    # total + sum_error = c + product exactly (Knuth's two-sum)
    total = c + product
    virtual = total - c
    sum_error = (c - (total - virtual)) + (product - virtual)
    # low = sum_error + product_error rounded to odd: where the rounded sum is inexact and its last bit even,
    # step one ulp towards the exact sum (low cannot be 0 there: a sum that rounds to 0 is exact)
    low = sum_error + product_error
    virtual = low - sum_error
    low_error = (sum_error - (low - virtual)) + (product_error - virtual)
    bits = xp.asarray(low).view(xp.int64)
    nudge = (low_error != 0) & ((bits & 1) == 0)
    if nudge.any():
        towards = xp.where((low > 0) == (low_error > 0), 1, -1)
        low = (bits + xp.where(nudge, towards, 0)).view(xp.float64)
    fused = total + low
    # the splitting overflows for |a|, |b| near the float64 limit: there the plain result is the fused one anyway
    return xp.where(xp.isfinite(fused), fused, total)


def fma(a, b, c):
    """``a * b + c`` rounded once to ``a``'s dtype (float32 or float64); b, c arrays or numbers."""
    dt = a.dtype
    b, c = _operand(b, dt), _operand(c, dt)
    if dt == xp.float32:
        return xp.asarray(a.astype(xp.float64) * b.astype(xp.float64) + c.astype(xp.float64)).astype(xp.float32)
    return xp.asarray(_fma_float64(a, b, c))


def fms(a, b, c):
    """``a * b - c`` rounded once to ``a``'s dtype."""
    return fma(a, b, -_operand(c, a.dtype))


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
