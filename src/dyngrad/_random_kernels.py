"""torch's CPU sampling kernels, value for value, on an ``MT19937Stream``.

Each function returns the ``n`` values one of torch's serial kernels writes, in the order it writes them
(``fill`` puts them into an array of any strides in torch's order). The rules are torch 2.13's
(aten/src/ATen/core/DistributionsHelper.h, core/TransformationHelper.h, native/cpu/DistributionTemplates.h,
native/cpu/DistributionKernels.cpp) and were checked against torch itself (tests/test_torch_stream.py):

- uniform on T: ``(word & (2**digits(T) - 1)) * 2**-digits(T)`` then ``x * (to - from) + from`` in T's
  accumulation type (float for float16/float32, double for float64); float64 draws ``random64``, the others
  ``random``;
- normal: a contiguous tensor of 16 or more elements is filled with uniforms, then transformed in place by
  Box-Muller in blocks of 16 (``normal_fill_16``: element j and j + 8 from ``u1 = 1 - data[j]``, ``u2 =
  data[j + 8]``), the last block redrawn and recomputed when the size is not a multiple of 16 (float32 and
  float16: torch's AVX2 kernel, ``_avx_box_muller``); otherwise
  every element is a scalar ``normal_distribution<double>`` draw (Box-Muller on two 53-bit uniforms with
  the sine value cached in the generator for the next scalar draw);
- integers: ``random_(from, to)`` is ``word % range + from`` with ``random64`` once ``range >= 2**28``
  (DistributionsHelper.h outside fbcode), float bounds first moved to integers the dtype holds
  (update_from/update_to); ``random_()`` ``word % (max + 1)`` (``random64`` for int64 and float64);
- bernoulli, exponential, geometric, cauchy, log_normal: scalar double-precision draws per element (the
  MKL/VSL kernels are compiled out of torch's CPU wheel, pytorch issue 132395).

Double-precision transcendental functions are the C library's, as torch's kernels call them: NumPy's vectorised
log/log1p/exp/tan differ from it in the last bit for a fraction of inputs, so log and exp go through
``_glibc_log.log`` and ``_glibc_exp.exp`` (glibc's algorithms in array operations, bit for bit ``math.log`` and
``math.exp``), log1p and tan through Python's ``math``. Several of torch's multiply-adds are fused by its compiler (uniform scaling, ``* std + mean``, Cauchy's
``median + sigma * tan``): ``fma64``/``fma32`` compute them with one rounding. Float16 results of double draws
pass through float (``from_double``), as c10::Half converts.
"""

from __future__ import annotations

import math

import numpy as np

from . import _glibc_exp, _glibc_log
from ._avx_box_muller import normal_fill_16_avx2
from ._dtype import FLOATING_KINDS
from ._torch_rng import MT19937Stream

_f64, _f32, _f16 = np.float64, np.float32, np.float16
_DIGITS = {np.dtype(_f64): 53, np.dtype(_f32): 24, np.dtype(_f16): 24}  # (float16 draws as float)


def _reduced(npd: np.dtype) -> bool:
    """float16 or bfloat16 (ml_dtypes' kind "V"): torch draws these as floats, rounded at the end."""
    return npd == _f16 or npd.kind == "V"
_TWO_PI = 2.0 * math.pi


def _libm(fn, x: np.ndarray) -> np.ndarray:
    """``fn`` (a ``math`` function: the C library's double version) over a float64 array."""
    return np.fromiter(map(fn, x.ravel().tolist()), dtype=_f64, count=x.size).reshape(x.shape)


# float64 cos and sin: NumPy's loops call the C library's (they agree with ``math.cos``/``math.sin`` bit for bit,
# checked on 10M arguments in [0, 2 pi)), at C speed; NumPy's float64 log is its own SIMD code (0.35% of results one
# ulp off the C library's), so log is ``_glibc_log.log`` (the C library's bits from array operations).
_cos, _sin = np.cos, np.sin


def fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """``a * b + c`` with one rounding, as the fused multiply-add torch's compiled kernels use (the exact
    product error from Dekker's split, the sum error from Knuth's two-sum, added back once)."""
    a = np.asarray(a, dtype=_f64)
    p = a * b
    split = 134217729.0  # 2**27 + 1
    ah = a * split
    ah = ah - (ah - a)
    al = a - ah
    bh = b * split
    bh = bh - (bh - b)
    bl = b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    with np.errstate(all="ignore"):
        out = s + (t + err)
    return np.where(np.isfinite(p), out, p + c)


def fma32(a: np.ndarray, b, c) -> np.ndarray:
    """float32 ``a * b + c`` with one rounding (the float64 product of two floats is exact)."""
    return (a.astype(_f64) * _f64(_f32(b)) + _f64(_f32(c))).astype(_f32)


# ------------------------------------------------------------------ placing values in torch's order
def iteration_order(shape: tuple, strides: tuple) -> tuple:
    """The axes from slowest to fastest in the order a TensorIterator walks one output: by decreasing stride
    (memory order), ties in their original order."""
    axes = sorted(range(len(shape)), key=lambda i: (-abs(strides[i]) if shape[i] > 1 else 0, i))
    keep = [i for i in axes if shape[i] > 1]
    return tuple(keep + [i for i in range(len(shape)) if shape[i] <= 1])


def is_dense(a: np.ndarray) -> bool:
    """Whether an array's elements fill its memory without gaps or overlaps (a permutation of a contiguous
    layout), as torch's ``is_non_overlapping_and_dense``."""
    order = iteration_order(a.shape, a.strides)
    expected = a.itemsize
    for i in reversed(order):
        if a.shape[i] == 1:
            continue
        if a.strides[i] != expected:
            return False
        expected *= a.shape[i]
    return True


def arrange(values: np.ndarray, shape: tuple, strides: tuple) -> np.ndarray:
    """``values`` (in torch's fill order for an output of ``shape``/``strides``) as an array of ``shape``."""
    order = iteration_order(shape, strides)
    if order == tuple(range(len(shape))):
        return values.reshape(shape)
    return values.reshape([shape[i] for i in order]).transpose(np.argsort(order))


def to_order(array: np.ndarray, shape: tuple, strides: tuple) -> np.ndarray:
    """The inverse of ``arrange``: an array's elements in torch's fill order."""
    return np.ascontiguousarray(array.transpose(iteration_order(shape, strides))).ravel()


def from_double(values: np.ndarray, npd) -> np.ndarray:
    """``static_cast<T>`` of double draws: float16 goes through float first (c10::Half is built from a float),
    which rounds differently from a direct conversion for a few values in ten thousand."""
    npd = np.dtype(npd)
    if _reduced(npd):
        return values.astype(_f32).astype(npd)
    return values.astype(npd)


def divide_noise(noise: np.ndarray, q: float) -> None:
    """Dropout's ``noise.div_(1 - p)`` in place: a Python scalar divides in the dtype's computation type (float for
    float16, as torch's opmath), rounded once to the dtype."""
    if noise.dtype.itemsize == 2 and noise.dtype.kind == "f":
        noise[...] = noise.astype(_f32) / _f32(q)
    else:
        noise /= np.asarray(q, dtype=noise.dtype)


# ------------------------------------------------------------------ uniform
def unit_uniform(g: MT19937Stream, n: int, npd) -> np.ndarray:
    """``n`` draws of uniform_real_distribution<T>(0, 1) before scaling: float64 for float64, float32
    otherwise (float16 draws a float, 24 bits, rounded to half only at the end: found by experiment)."""
    npd = np.dtype(npd)
    if npd == _f64:
        # random64() & (2**53 - 1) from the word pairs (hi, lo), in place in their buffer: read as little-endian
        # uint64 a pair is hi + lo * 2**32, so the halves are swapped on the way (in chunks: small temporaries)
        pairs = g.words(2 * n).view(np.uint64)
        ints = pairs.view(np.int64)
        out = pairs.view(_f64)
        step = 1 << 16
        low = np.empty(min(n, step), np.uint64)
        for start in range(0, n, step):
            chunk = pairs[start:start + step]
            part = low[: chunk.size]
            np.right_shift(chunk, np.uint64(32), out=part)
            np.bitwise_and(chunk, np.uint64((1 << 21) - 1), out=chunk)
            np.left_shift(chunk, np.uint64(32), out=chunk)
            np.bitwise_or(chunk, part, out=chunk)
            np.copyto(out[start:start + step], ints[start:start + step], casting="unsafe")  # (below 2**53: exact)
        out *= 2.0**-53
        return out
    bits = _DIGITS.get(npd, 24)  # (float16 and bfloat16: a float's 24 bits)
    words = g.words(n)
    np.bitwise_and(words, np.uint32((1 << bits) - 1), out=words)
    # converted in place (below 2**24 as int32: NumPy's fast integer conversion): one array per draw, as few
    # fresh pages as torch's output
    out = words.view(_f32)
    np.copyto(out, words.view(np.int32), casting="unsafe")
    out *= _f32(2.0**-bits)
    return out


def uniform(g: MT19937Stream, n: int, npd, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """uniform_kernel: ``x * (to - from) + from`` with from/to first cast to the dtype."""
    npd = np.dtype(npd)
    x = unit_uniform(g, n, npd)
    if npd == _f64:
        lo, hi = _f64(low), _f64(high)
        return x if (lo == 0 and hi == 1) else fma64(x, float(hi - lo), float(lo))
    if _reduced(npd):
        # float16 (found by experiment; bfloat16 the same way): the float draw scaled with float bounds, fused,
        # rounded to the dtype; a value rounded up to `to` becomes `from`
        out = fma32(x, _f32(high) - _f32(low), _f32(low)).astype(npd)
        return np.where(out == npd.type(high), npd.type(low), out)
    lo, hi = _f32(low), _f32(high)
    if lo == 0 and hi == 1:  # (x * 1 + 0 is x)
        return x
    return fma32(x, hi - lo, lo)  # (fused in torch's compiled kernel: found by experiment)


# ------------------------------------------------------------------ normal
def _scalar_normals(g: MT19937Stream, n: int) -> np.ndarray:
    """``n`` standard normal_distribution<double> draws with torch's cached second value."""
    out = np.empty(n, dtype=_f64)
    start = 0
    if n and g.next_double_normal is not None:
        out[0] = g.next_double_normal
        g.next_double_normal = None
        start = 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = unit_uniform(g, 2 * pairs, _f64).reshape(pairs, 2)
        r = np.sqrt(-2.0 * _libm(math.log1p, -u[:, 1]))  # u1 = u[:, 0] gives the angle, u2 the radius
        theta = _TWO_PI * u[:, 0]
        cos, sin = r * _cos(theta), r * _sin(theta)
        both = np.stack([cos, sin], axis=1).ravel()
        out[start:] = both[: n - start]
        if (n - start) % 2:
            g.next_double_normal = float(sin[-1])
    return out


def _fill16(data: np.ndarray) -> np.ndarray:
    """normal_fill_16 on blocks of 16 float64 uniforms (an (m, 16) array); float32 and float16 take torch's AVX2
    kernel (``_avx_box_muller``)."""
    u1, u2 = 1 - data[:, :8], data[:, 8:]
    radius = _glibc_log.log(u1)
    radius *= -2
    np.sqrt(radius, out=radius)
    theta = _TWO_PI * u2
    out = np.empty((data.shape[0], 16), dtype=_f64)
    np.multiply(radius, _cos(theta), out=out[:, :8])  # (NumPy's float64 cos/sin equal the C library's here)
    np.multiply(radius, _sin(theta, out=theta), out=out[:, 8:])
    return out


def normal(g: MT19937Stream, n: int, npd, mean: float = 0.0, std: float = 1.0, contiguous: bool = True):
    """normal_kernel for ``n`` values of a float dtype; ``contiguous``: whether the output is (torch takes
    the vectorisable 16-block path only for a contiguous output of 16 or more elements)."""
    npd = np.dtype(npd)
    if n >= 16 and contiguous:
        full = n // 16 * 16
        if npd == _f32:  # in place in the uniforms' buffer
            out = unit_uniform(g, n, _f32)
            normal_fill_16_avx2(out[:full], mean, std)
            if n % 16:
                tail = unit_uniform(g, 16, _f32)
                normal_fill_16_avx2(tail, mean, std)
                out[n - 16:] = tail
            return out
        if _reduced(npd):
            # float16 (found by experiment): float uniforms for the whole blocks only, then 16 for the last
            # block, through the float kernel (float mean and std), rounded to half at the end
            vals = unit_uniform(g, full + (16 if n % 16 else 0), _f32)
            normal_fill_16_avx2(vals, mean, std)
            out = np.empty(n, dtype=npd)
            out[:full] = vals[:full]
            if n % 16:
                out[n - 16:] = vals[full:]
            return out
        data = unit_uniform(g, n, _f64)
        blocks = _fill16(data[:full].reshape(-1, 16)).ravel()
        if n % 16 == 0:
            out = blocks
        else:
            out = np.empty(n, dtype=_f64)
            out[:full] = blocks
            out[n - 16:] = _fill16(unit_uniform(g, 16, _f64).reshape(1, 16)).ravel()
        if std == 1 and mean == 0:  # (fma(x, 1, 0) is x, with -0 made +0)
            out += 0.0
            return out
        return fma64(out, float(std), float(mean))
    return from_double(fma64(_scalar_normals(g, n), float(std), float(mean)), npd)


# ------------------------------------------------------------------ integers
_INT64_MAX = (1 << 63) - 1


def random_from_to(g: MT19937Stream, n: int, npd, low: int, span: int) -> np.ndarray:
    """random_(from, to): ``word % span + from`` (``span = to - from``); 64-bit words from span 2**28 on. For a
    float dtype the bounds first move inwards to integers the dtype holds (torch's update_from/update_to)."""
    npd = np.dtype(npd)
    if npd.kind == "f":
        low, high = _float_bounds(npd, low, low + span)
        span = high - low
    if span >= 1 << 28:
        words = g.words64(n)
        vals = (words % np.uint64(span)).astype(object) + low if low + span > _INT64_MAX or low < -(1 << 62) \
            else (words % np.uint64(span)).astype(np.int64) + np.int64(low)
    else:
        words = g.words(n)
        np.remainder(words, np.uint32(span), out=words)
        vals = words.astype(np.int64)
        vals += np.int64(low)
    if vals.dtype == object:
        vals = np.array([((v + (1 << 63)) % (1 << 64)) - (1 << 63) for v in vals], dtype=np.int64)
    return _wrap_cast(vals, npd)


def _float_bounds(npd, low: int, high: int) -> tuple:
    """torch's update_from/update_to (aten/src/ATen/native/DistributionTemplates.h): when ``from + 1`` (``to - 1``)
    rounds in the dtype to below ``from`` (to ``to`` or above), the bound moves inwards to the dtype's
    neighbouring integer, ``2**(n - digits + 1)`` from the rounded value (n: the bit length of ``|bound -+ 1|``
    minus one)."""
    digits = np.finfo(npd).nmant + 1
    from_plus_1 = int(npd.type(low + 1))
    if from_plus_1 < low:
        low = from_plus_1 + (1 << (abs(low + 1).bit_length() - 1 - digits + 1))
    to_minus_1 = int(npd.type(high - 1))
    if to_minus_1 >= high:
        high = to_minus_1 - (1 << (abs(high - 1).bit_length() - 1 - digits + 1))
    return low, high


def random_full_int64(g: MT19937Stream, n: int, npd) -> np.ndarray:
    """random_(from=int64 min, to=None): a full random64 word reinterpreted as int64."""
    return _wrap_cast(g.words64(n).view(np.int64), np.dtype(npd))


def random_default(g: MT19937Stream, n: int, npd) -> np.ndarray:
    """random_(): ``word % (max + 1)`` for integers (max: the dtype's; 2**digits for floats, then + 1), ``word
    & 1`` for bool; int64 and float64 draw ``random64``."""
    npd = np.dtype(npd)
    if npd == np.bool_:
        return (g.words(n) & np.uint32(1)).astype(np.bool_)
    if npd.kind in FLOATING_KINDS:  # (V: bfloat16, whose 8 digits NumPy's finfo cannot tell)
        digits = 8 if npd.kind == "V" else np.finfo(npd).nmant + 1
        mod = (1 << digits) + 1  # (the dtype's own digits: 11 for float16)
        words = g.words64(n) if npd == _f64 else g.words(n).astype(np.uint64)
        return (words % np.uint64(mod)).astype(npd)
    mod = int(np.iinfo(npd).max) + 1
    words = g.words64(n) if npd == np.int64 else g.words(n).astype(np.uint64)
    return (words % np.uint64(mod)).astype(npd)


def _wrap_cast(vals: np.ndarray, npd) -> np.ndarray:
    """C's static_cast from int64: integers wrap, floats round."""
    if npd.kind in "iu":
        return vals.astype(npd, copy=False)
    if npd == np.bool_:
        return vals != 0
    return vals.astype(npd)


def randperm(g: MT19937Stream, n: int) -> np.ndarray:
    """randperm_cpu: for n below 2**32 / 20 swaps element i with i + random() % (n - i), i = 0 .. n - 2;
    beyond, the inside-out Fisher-Yates shuffle on random64() % (i + 1)."""
    if n < 0xFFFFFFFF // 20:
        offsets = (g.words(max(n - 1, 0)) % np.arange(n, 1, -1, dtype=np.uint32)).tolist() if n > 1 else []
        perm = list(range(n))
        for i, z in enumerate(offsets):
            j = i + z
            perm[i], perm[j] = perm[j], perm[i]
        return np.array(perm, dtype=np.int64)
    picks = (g.words64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
    perm = [0] * n
    for i, z in enumerate(picks):
        perm[i] = perm[z]
        perm[z] = i
    return np.array(perm, dtype=np.int64)


# ------------------------------------------------------------------ other scalar distributions
def bernoulli_scalar(g: MT19937Stream, n: int, p: float) -> np.ndarray:
    """bernoulli_(float p): a double uniform below p (bool array)."""
    return unit_uniform(g, n, _f64) < p


def bernoulli_tensor(g: MT19937Stream, probs: np.ndarray) -> np.ndarray:
    """bernoulli_(Tensor p), probabilities in fill order: double draws for a float64 p, float draws (24-bit)
    compared in float for the others."""
    if probs.dtype == _f64:
        return unit_uniform(g, probs.size, _f64) < probs
    return unit_uniform(g, probs.size, _f32) < probs.astype(_f32)


def exponential(g: MT19937Stream, n: int, lambd: float) -> np.ndarray:
    """exponential_distribution<double>: ``-1 / lambda * log1p(-u)``."""
    u = unit_uniform(g, n, _f64)
    return (-1.0 / lambd) * _libm(math.log1p, -u)


def geometric(g: MT19937Stream, n: int, p: float) -> np.ndarray:
    """geometric_distribution<double>: ``ceil(log(u) / log1p(-p))``."""
    u = unit_uniform(g, n, _f64)
    return np.ceil(_glibc_log.log(u) / math.log1p(-p))


def cauchy(g: MT19937Stream, n: int, median: float, sigma: float) -> np.ndarray:
    """cauchy_distribution<double>: ``median + sigma * tan(pi * (u - 0.5))``, the multiply-add fused (found by
    experiment)."""
    u = unit_uniform(g, n, _f64)
    return fma64(_libm(math.tan, math.pi * (u - 0.5)), float(sigma), float(median))


def log_normal(g: MT19937Stream, n: int, mean: float, std: float) -> np.ndarray:
    """lognormal_distribution<double>: ``exp(normal(mean, std))`` from the scalar normal draws (``x * std + mean``
    fused, as for normal_)."""
    return _glibc_exp.exp(fma64(_scalar_normals(g, n), float(std), float(mean)))
