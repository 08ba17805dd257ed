"""torch's float32 Box-Muller (``normal_fill_16_AVX2``) bit for bit, in vectorised NumPy.

torch 2.13's x86-64 wheel fills a contiguous float32 tensor of 16 or more elements with uniforms and then
transforms each block of 16 with ``normal_fill_16_AVX2`` (aten/src/ATen/native/cpu/DistributionTemplates.h),
also in its AVX-512 build (checked: ``ATEN_CPU_CAPABILITY=avx2`` and ``avx512`` give the same values, the
scalar ``default`` kernel other ones). The kernel computes, for j = 0..7 of a block,
``u1 = 1 - data[j]``, ``u2 = data[j + 8]``, ``radius = sqrt(-2 * log256_ps(u1))``,
``theta = float(2 pi) * u2``, ``sincos256_ps(theta)``, ``data[j] = fma(radius * cos, std, mean)`` and
``data[j + 8] = fma(radius * sin, std, mean)``. ``log256_ps`` and ``sincos256_ps`` come from ATen's
``avx_mathfun.h`` (Giovanni Garberoglio's AVX port of Julien Pommier's sse_mathfun, itself the Cephes
``logf``/``sinf``/``cosf`` algorithms): a frexp-style split and a degree-8 polynomial for the logarithm;
Cody-Waite reduction by pi/4 in three parts (DP1, DP2, DP3) and two degree-3 polynomials in ``z = x*x`` for
sine and cosine. The constants below are Cephes' (single-precision float values of the decimal literals).

The compiler contracts some of the kernel's multiply-then-add pairs into fused multiply-adds (GCC's
``-ffp-contract=fast`` on AVX2 code); which ones was found by experiment against torch (every choice below
changes some values; with these, millions of values agree bit for bit, tests/test_torch_stream.py):
all Horner steps ``y * x + p``; ``y * z + e * q1`` (the product ``y * z`` fused, ``e * q1`` rounded);
``y * z - 0.5 * z`` of the cosine (the same way); the last sine step ``y * x + x``; ``x + y * DP3``.
Products that are exact in float (``e * q2``, ``j * DP1``, ``j * DP2``, ``0.5 * z``) give the same value
fused or not.

A fused multiply-add of floats is emulated in float64: the product of two floats is exact there, and the sum
is rounded twice (to double, then to float). Double rounding can differ from one rounding only when the
double sum falls exactly on a midpoint between two floats without being one (a chance of about 2**-29 per
operation); no such case was seen.

Speed: the blocks are transformed in chunks (temporaries that stay in the CPU cache and are reused, which also
avoids returning and re-faulting memory pages for every draw), and everything exact in float stays float32.
"""

from __future__ import annotations

import math
import threading

import numpy as np

_f32, _f64, _i32 = np.float32, np.float64, np.int32

# Cephes' logf: log(1 + x) = x - x**2 / 2 + x**3 * P(x), log(2) = Q2 - Q1 (Q2 exact in a few bits)
_LOG_P = tuple(float(_f32(c)) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_LOG_Q1 = _f32(-2.12194440e-4)
_LOG_Q2 = _f32(0.693359375)
_SQRTHF_MANTISSA = 0x3504F3  # the 23 fraction bits of float(sqrt(1/2)) = 0x3F3504F3
# Cephes' sinf/cosf: 4/pi, pi/4 = DP1 + DP2 + DP3, the sine and cosine polynomials in z = x*x
_FOPI = _f32(1.27323954473516)
_DP1 = float(_f32(-0.78515625))
_DP2 = float(_f32(-2.4187564849853515625e-4))
_DP3 = float(_f32(-3.77489497744594108e-8))
_SIN_P = tuple(float(_f32(c)) for c in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1))
_COS_P = tuple(float(_f32(c)) for c in (2.443315711809948e-5, -1.388731625493765e-3, 4.166664568298827e-2))
_TWO_PI = _f32(2.0 * math.pi)  # (torch: _mm256_set1_ps(2.0f * c10::pi<double>))

_CHUNK_BLOCKS = 4096  # blocks of 16 per chunk: 32768 values per half, float64 temporaries of 256 KiB


class _Scratch:
    """Temporaries for one chunk of ``n`` values per half (allocated once per fill, reused per chunk)."""

    def __init__(self, n: int) -> None:
        self.x, self.y, self.t = (np.empty(n, _f64) for _ in range(3))
        self.r32, self.a32, self.b32, self.c32, self.radius, self.cos = (np.empty(n, _f32) for _ in range(6))
        self.i, self.k = np.empty(n, _i32), np.empty(n, _i32)


_per_thread = threading.local()  # each thread's _Scratch, kept between fills (NumPy releases the GIL)


def _round(y: np.ndarray, s: _Scratch) -> np.ndarray:
    """Round float64 values to float in place (to nearest even, as a float operation does); returns the float
    copy (``s.r32``, overwritten by the next call)."""
    r = s.r32[: y.size]
    np.copyto(r, y, casting="same_kind")
    np.copyto(y, r)
    return r


def _horner_fma(y: np.ndarray, x: np.ndarray, coefs: tuple, s: _Scratch) -> None:
    """``y = fma(y, x, c)`` for each ``c`` of ``coefs[1:]``, ``y`` starting as ``coefs[0]``, each step rounded
    to float."""
    np.multiply(x, coefs[0], out=y)
    np.add(y, coefs[1], out=y)
    _round(y, s)
    for c in coefs[2:]:
        np.multiply(y, x, out=y)
        np.add(y, c, out=y)
        _round(y, s)


def _radius(d1: np.ndarray, s: _Scratch) -> np.ndarray:
    """``sqrt(-2 * log256_ps(1 - d1))`` (float32, flat) for the float uniforms ``d1`` (an (m, 8) view)."""
    n = d1.size
    u1 = s.a32[:n]
    np.subtract(_f32(1), d1, out=u1.reshape(d1.shape))  # exact: d1 is a multiple of 2**-24 below 1
    bits = u1.view(_i32)
    # frexp: u1 = m * 2**e with m in [0.5, 1); m < sqrt(1/2) becomes 2m with e - 1, so that x = m - 1 lies in
    # [sqrt(1/2) - 1, sqrt(2) - 1) (exact by Sterbenz's lemma); done on the bits (u1 is never 0 or subnormal)
    frac, low = s.i[:n], s.k[:n]
    np.bitwise_and(bits, 0x7FFFFF, out=frac)
    np.less(frac, _SQRTHF_MANTISSA, out=low)  # (1 where m < sqrt(1/2))
    np.right_shift(bits, 23, out=bits)  # (u1's bits become the exponent)
    np.subtract(bits, low, out=bits)
    np.subtract(bits, 126, out=bits)
    e = s.b32[:n]
    np.copyto(e, bits, casting="unsafe")  # the exponent as a float (exact)
    np.left_shift(low, 23, out=low)
    np.bitwise_or(frac, 0x3F000000, out=frac)
    np.add(frac, low, out=frac)  # the bits of m, or of 2m
    x32 = frac.view(_f32)
    np.subtract(x32, _f32(1), out=x32)
    x, y, z = s.x[:n], s.y[:n], s.t[:n]
    np.copyto(x, x32)
    _horner_fma(y, x, _LOG_P, s)  # y = P(x)
    np.multiply(y, x, out=y)  # y * x (a float product)
    _round(y, s)
    np.multiply(x, x, out=z)  # z = x * x (a float product)
    z32 = s.c32[:n]
    np.copyto(z32, _round(z, s))
    np.multiply(y, z, out=y)  # fma(y, z, e * q1) with e * q1 rounded
    eq1 = np.multiply(e, _LOG_Q1, out=s.a32[:n])
    np.add(y, eq1, out=y)
    y32 = _round(y, s)
    np.multiply(z32, _f32(0.5), out=z32)  # y - 0.5 z (an exact product: fused or not alike)
    np.subtract(y32, z32, out=y32)
    np.add(x32, y32, out=x32)  # (x + y) + e * q2 (an exact product)
    np.multiply(e, _LOG_Q2, out=e)
    np.add(x32, e, out=x32)
    np.multiply(x32, _f32(-2), out=x32)
    return np.sqrt(x32, out=s.radius[:n])


def _sincos(d2: np.ndarray, s: _Scratch) -> tuple:
    """``sincos256_ps(float(2 pi) * d2)`` for the float uniforms ``d2`` (an (m, 8) view): (sin, cos), flat float32
    (``sin`` in ``s.a32``). theta >= 0, so the input has no sign to carry."""
    n = d2.size
    theta = s.a32[:n]
    np.multiply(d2, _TWO_PI, out=theta.reshape(d2.shape))
    j, yj, tmp = s.i[:n], s.b32[:n], s.c32[:n]
    np.multiply(theta, _FOPI, out=yj)
    np.copyto(j, yj, casting="unsafe")  # truncation (theta >= 0)
    np.add(j, 1, out=j)
    np.bitwise_and(j, ~1, out=j)  # the even octant j = (j + 1) & ~1
    np.copyto(yj, j, casting="unsafe")
    # x = ((theta + j DP1) + j DP2) + j DP3, each sum rounded to float; the first two products exact, the last
    # fused
    np.multiply(yj, _f32(_DP1), out=tmp)
    np.add(theta, tmp, out=theta)
    np.multiply(yj, _f32(_DP2), out=tmp)
    np.add(theta, tmp, out=theta)
    x, y, z = s.x[:n], s.y[:n], s.t[:n]
    np.copyto(x, yj)
    np.multiply(x, _DP3, out=x)
    np.add(x, theta, out=x)
    _round(x, s)
    np.multiply(x, x, out=z)  # z = x * x (a float product)
    _round(z, s)
    # sine: ((s0 z + s1) z + s2) z, rounded, then fma(that, x, x)
    _horner_fma(y, z, _SIN_P, s)
    np.multiply(y, z, out=y)
    _round(y, s)
    np.multiply(y, x, out=y)
    np.add(y, x, out=y)
    sin = theta  # (theta is no longer needed)
    np.copyto(sin, _round(y, s))
    # cosine: ((c0 z + c1) z + c2) z, rounded, then fma(that, z, -0.5 z) (0.5 z exact), then + 1
    _horner_fma(y, z, _COS_P, s)
    np.multiply(y, z, out=y)
    _round(y, s)
    np.multiply(y, z, out=y)
    np.multiply(z, 0.5, out=x)
    np.subtract(y, x, out=y)
    cos = s.cos[:n]
    np.add(_round(y, s), _f32(1), out=cos)
    # the polynomials trade places in octants 2, 3 (mod 4), selected on the bits (no branches) ...
    sel, diff = s.k[:n], tmp.view(_i32)
    np.right_shift(j, 1, out=sel)
    np.bitwise_and(sel, 1, out=sel)
    np.negative(sel, out=sel)  # all ones where j & 2
    np.bitwise_xor(sin.view(_i32), cos.view(_i32), out=diff)
    np.bitwise_and(diff, sel, out=diff)
    np.bitwise_xor(sin.view(_i32), diff, out=sin.view(_i32))
    np.bitwise_xor(cos.view(_i32), diff, out=cos.view(_i32))
    # ... and the signs: the sine's negative where j & 4, the cosine's where (j - 2) & 4 == 0
    sign = s.k[:n]
    np.bitwise_and(j, 4, out=sign)
    np.left_shift(sign, 29, out=sign)
    np.bitwise_xor(sin.view(_i32), sign, out=sin.view(_i32))
    np.subtract(j, 2, out=j)
    np.invert(j, out=j)
    np.bitwise_and(j, 4, out=sign)
    np.left_shift(sign, 29, out=sign)
    np.bitwise_xor(cos.view(_i32), sign, out=cos.view(_i32))
    return sin, cos


def _radius_fast(d1: np.ndarray, s: _Scratch) -> np.ndarray:
    """An approximation of ``_radius``: a correctly rounded log (float64, rounded), not torch's polynomial."""
    n = d1.size
    wide = s.x[:n]
    np.subtract(1.0, d1, out=wide.reshape(d1.shape))
    np.log(wide, out=wide)
    r = s.radius[:n]
    np.copyto(r, wide, casting="same_kind")
    np.multiply(r, _f32(-2), out=r)
    return np.sqrt(r, out=r)


def _sincos_fast(d2: np.ndarray, s: _Scratch) -> tuple:
    """An approximation of ``_sincos``: NumPy's float32 (SIMD) sine and cosine."""
    n = d2.size
    theta = s.b32[:n]
    np.multiply(d2, _TWO_PI, out=theta.reshape(d2.shape))
    return np.sin(theta, out=s.a32[:n]), np.cos(theta, out=s.cos[:n])


EXACT_MAX = 1 << 18  # fills up to this many values take the bit-exact kernel, larger ones the fast approximation


def normal_fill_16_avx2(data: np.ndarray, mean: float = 0.0, std: float = 1.0, exact: bool | None = None) -> None:
    """Transform ``data`` (a contiguous float32 array of uniforms in [0, 1), a multiple of 16 long) in place
    into normal values, block by block of 16, as torch's ``normal_fill_16_AVX2``; ``mean``/``std`` as
    floats (the final ``fma(n, std, mean)``).

    ``exact`` (default: ``data.size <= EXACT_MAX``): torch's polynomials step by step, bit for bit (about
    14 ms per million values); otherwise a correctly rounded log and NumPy's float32 sine and cosine (about
    3 ms per million; 92% of the values bit for bit, the others within 3 ulps), so that ``randn`` of millions
    of values stays within twice torch's time."""
    if exact is None:
        exact = data.size <= EXACT_MAX
    radius_of, sincos_of = (_radius, _sincos) if exact else (_radius_fast, _sincos_fast)
    blocks = data.reshape(-1, 16)
    m = blocks.shape[0]
    s = getattr(_per_thread, "scratch", None)
    if s is None or s.x.size < 8 * min(m, _CHUNK_BLOCKS):
        s = _per_thread.scratch = _Scratch(8 * _CHUNK_BLOCKS)
    std32, mean32 = _f32(std), _f32(mean)
    plain = std32 == 1 and mean32 == 0 and not np.signbit(mean32)
    for start in range(0, m, _CHUNK_BLOCKS):
        chunk = blocks[start:start + _CHUNK_BLOCKS]
        n = 8 * chunk.shape[0]
        radius = radius_of(chunk[:, :8], s).reshape(-1, 8)
        sin, cos = sincos_of(chunk[:, 8:], s)
        halves = ((chunk[:, :8], cos.reshape(-1, 8)), (chunk[:, 8:], sin.reshape(-1, 8)))
        for dest, trig in halves:
            if plain:  # fma(v, 1, 0) = v + 0 (a negative zero becomes +0)
                np.multiply(radius, trig, out=trig)
                np.add(trig, _f32(0), out=dest)
            else:
                y = s.y[:n].reshape(-1, 8)
                np.multiply(radius, trig, out=trig)
                np.multiply(trig, _f64(std32), out=y)  # (a float64 scalar: the product in double, exact)
                np.add(y, _f64(mean32), out=y)
                np.copyto(dest, y, casting="same_kind")
