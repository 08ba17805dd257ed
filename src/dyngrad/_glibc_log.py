"""The C library's double ``log`` (``math.log``, which torch's CPU kernels call), bit for bit, on NumPy arrays.

NumPy's float64 ``np.log`` is its own SIMD code and differs from the C library's in the last bit for about 0.35% of
inputs, while torch's normal sampler (``normal_fill_16``) takes ``std::log`` of each uniform: to draw torch's numbers
dyngrad used to call ``math.log`` once per element. This module gets the same bits with array operations.

The C library here is glibc (2.28 and later), whose ``log`` (sysdeps/ieee754/dbl-64/e_log.c, from Arm's
optimized-routines, Szabolcs Nagy 2018) computes, for x = 2**k * z with z in [0x1.6p-1, 0x1.6p0) and c the centre of
z's 1/128 subinterval (table entries invc = 1/c, logc = log(c) rounded to a multiple of 2**-43):

    r = fma(z, invc, -1)                                  (|r| < 2**-8, one rounding)
    w = k * ln2hi + logc;  hi = w + r                     (w exact; hi one rounding)
    lo = (w - hi) + r + k * ln2lo                         (hi's rounding error plus ln2's tail)
    y = [lo + r**2 * A0 + r**3 * (A1 + r A2 + r**2 (A3 + r A4))] + hi

and near 1 (1 - 2**-4 <= x < 1 + 0x1.09p-4) ``log1p(r)``, r = x - 1, as ``hi + lo`` (r - r**2 / 2 with the square
split in halves of 26 bits) plus a degree-12 polynomial. Its last operation is always ``small + hi`` with ``hi``
computed by a fixed sequence of correctly rounded operations, which NumPy reproduces exactly (the one fused
multiply-add, ``r``, is emulated exactly with Dekker's product), while ``small`` is a sum of terms 2**8 or more times
below ``hi`` that glibc evaluates with fused multiply-adds (the compiler's contraction) and NumPy without: the two
differ by at most a few roundings of those small terms, bounded below by ``D`` (2**-64 on the main path,
|r|**3 * 2**-48 + |r| * 2**-100 near 1; the terms stay under 2**-16 there, so each rounding is below 2**-69).
Rounding is monotonic, so when ``hi + (small - D)`` and ``hi + (small + D)`` round to the same double, that double
is glibc's result; the others (a rounding midpoint within D: about 0.5% of the samplers' uniforms) are redone with
``math.log``. The result therefore never depends on the error analysis being tight, only on D bounding the
difference of the small parts.

Constants: glibc's e_log_data.c (the 128 (invc, logc) pairs, ln2hi/ln2lo, and the polynomial coefficients A and B,
published facts of that approximation). On a platform whose ``math.log`` is not this glibc code (checked once on
first use against a fixed sample of 20,000 inputs), ``log`` falls back to ``math.log`` element by element.
"""

from __future__ import annotations

import math

import numpy as np

_f64, _u64, _i64 = np.float64, np.uint64, np.int64

# glibc e_log_data.c: (invc, logc) for the 128 subintervals of [0x1.6p-1, 0x1.6p0), in hexadecimal
_TABLE_HEX = """
    0x1.734f0c3e0de9fp+0 -0x1.7cc7f79e69000p-2  0x1.713786a2ce91fp+0 -0x1.76feec20d0000p-2
    0x1.6f26008fab5a0p+0 -0x1.713e31351e000p-2  0x1.6d1a61f138c7dp+0 -0x1.6b85b38287800p-2
    0x1.6b1490bc5b4d1p+0 -0x1.65d5590807800p-2  0x1.69147332f0cbap+0 -0x1.602d076180000p-2
    0x1.6719f18224223p+0 -0x1.5a8ca86909000p-2  0x1.6524f99a51ed9p+0 -0x1.54f4356035000p-2
    0x1.63356aa8f24c4p+0 -0x1.4f637c36b4000p-2  0x1.614b36b9ddc14p+0 -0x1.49da7fda85000p-2
    0x1.5f66452c65c4cp+0 -0x1.445923989a800p-2  0x1.5d867b5912c4fp+0 -0x1.3edf439b0b800p-2
    0x1.5babccb5b90dep+0 -0x1.396ce448f7000p-2  0x1.59d61f2d91a78p+0 -0x1.3401e17bda000p-2
    0x1.5805612465687p+0 -0x1.2e9e2ef468000p-2  0x1.56397cee76bd3p+0 -0x1.2941b3830e000p-2
    0x1.54725e2a77f93p+0 -0x1.23ec58cda8800p-2  0x1.52aff42064583p+0 -0x1.1e9e129279000p-2
    0x1.50f22dbb2bddfp+0 -0x1.1956d2b48f800p-2  0x1.4f38f4734ded7p+0 -0x1.141679ab9f800p-2
    0x1.4d843cfde2840p+0 -0x1.0edd094ef9800p-2  0x1.4bd3ec078a3c8p+0 -0x1.09aa518db1000p-2
    0x1.4a27fc3e0258ap+0 -0x1.047e65263b800p-2  0x1.4880524d48434p+0 -0x1.feb224586f000p-3
    0x1.46dce1b192d0bp+0 -0x1.f474a7517b000p-3  0x1.453d9d3391854p+0 -0x1.ea4443d103000p-3
    0x1.43a2744b4845ap+0 -0x1.e020d44e9b000p-3  0x1.420b54115f8fbp+0 -0x1.d60a22977f000p-3
    0x1.40782da3ef4b1p+0 -0x1.cc00104959000p-3  0x1.3ee8f5d57fe8fp+0 -0x1.c202956891000p-3
    0x1.3d5d9a00b4ce9p+0 -0x1.b81178d811000p-3  0x1.3bd60c010c12bp+0 -0x1.ae2c9ccd3d000p-3
    0x1.3a5242b75dab8p+0 -0x1.a45402e129000p-3  0x1.38d22cd9fd002p+0 -0x1.9a877681df000p-3
    0x1.3755bc5847a1cp+0 -0x1.90c6d69483000p-3  0x1.35dce49ad36e2p+0 -0x1.87120a645c000p-3
    0x1.34679984dd440p+0 -0x1.7d68fb4143000p-3  0x1.32f5cceffcb24p+0 -0x1.73cb83c627000p-3
    0x1.3187775a10d49p+0 -0x1.6a39a9b376000p-3  0x1.301c8373e3990p+0 -0x1.60b3154b7a000p-3
    0x1.2eb4ebb95f841p+0 -0x1.5737d76243000p-3  0x1.2d50a0219a9d1p+0 -0x1.4dc7b8fc23000p-3
    0x1.2bef9a8b7fd2ap+0 -0x1.4462c51d20000p-3  0x1.2a91c7a0c1babp+0 -0x1.3b08abc830000p-3
    0x1.293726014b530p+0 -0x1.31b996b490000p-3  0x1.27dfa5757a1f5p+0 -0x1.2875490a44000p-3
    0x1.268b39b1d3bbfp+0 -0x1.1f3b9f879a000p-3  0x1.2539d838ff5bdp+0 -0x1.160c8252ca000p-3
    0x1.23eb7aac9083bp+0 -0x1.0ce7f57f72000p-3  0x1.22a012ba940b6p+0 -0x1.03cdc49fea000p-3
    0x1.2157996cc4132p+0 -0x1.f57bdbc4b8000p-4  0x1.201201dd2fc9bp+0 -0x1.e370896404000p-4
    0x1.1ecf4494d480bp+0 -0x1.d17983ef94000p-4  0x1.1d8f5528f6569p+0 -0x1.bf9674ed8a000p-4
    0x1.1c52311577e7cp+0 -0x1.adc79202f6000p-4  0x1.1b17c74cb26e9p+0 -0x1.9c0c3e7288000p-4
    0x1.19e010c2c1ab6p+0 -0x1.8a646b372c000p-4  0x1.18ab07bb670bdp+0 -0x1.78d01b3ac0000p-4
    0x1.1778a25efbcb6p+0 -0x1.674f145380000p-4  0x1.1648d354c31dap+0 -0x1.55e0e6d878000p-4
    0x1.151b990275fddp+0 -0x1.4485cdea1e000p-4  0x1.13f0ea432d24cp+0 -0x1.333d94d6aa000p-4
    0x1.12c8b7210f9dap+0 -0x1.22079f8c56000p-4  0x1.11a3028ecb531p+0 -0x1.10e4698622000p-4
    0x1.107fbda8434afp+0 -0x1.ffa6c6ad20000p-5  0x1.0f5ee0f4e6bb3p+0 -0x1.dda8d4a774000p-5
    0x1.0e4065d2a9fcep+0 -0x1.bbcece4850000p-5  0x1.0d244632ca521p+0 -0x1.9a1894012c000p-5
    0x1.0c0a77ce2981ap+0 -0x1.788583302c000p-5  0x1.0af2f83c636d1p+0 -0x1.5715e67d68000p-5
    0x1.09ddb98a01339p+0 -0x1.35c8a49658000p-5  0x1.08cabaf52e7dfp+0 -0x1.149e364154000p-5
    0x1.07b9f2f4e28fbp+0 -0x1.e72c082eb8000p-6  0x1.06ab58c358f19p+0 -0x1.a55f152528000p-6
    0x1.059eea5ecf92cp+0 -0x1.63d62cf818000p-6  0x1.04949cdd12c90p+0 -0x1.228fb8caa0000p-6
    0x1.038c6c6f0ada9p+0 -0x1.c317b20f90000p-7  0x1.02865137932a9p+0 -0x1.419355daa0000p-7
    0x1.0182427ea7348p+0 -0x1.81203c2ec0000p-8  0x1.008040614b195p+0 -0x1.0040979240000p-9
    0x1.fe01ff726fa1ap-1 0x1.feff384900000p-9  0x1.fa11cc261ea74p-1 0x1.7dc41353d0000p-7
    0x1.f6310b081992ep-1 0x1.3cea3c4c28000p-6  0x1.f25f63ceeadcdp-1 0x1.b9fc114890000p-6
    0x1.ee9c8039113e7p-1 0x1.1b0d8ce110000p-5  0x1.eae8078cbb1abp-1 0x1.58a5bd001c000p-5
    0x1.e741aa29d0c9bp-1 0x1.95c8340d88000p-5  0x1.e3a91830a99b5p-1 0x1.d276aef578000p-5
    0x1.e01e009609a56p-1 0x1.07598e598c000p-4  0x1.dca01e577bb98p-1 0x1.253f5e30d2000p-4
    0x1.d92f20b7c9103p-1 0x1.42edd8b380000p-4  0x1.d5cac66fb5ccep-1 0x1.606598757c000p-4
    0x1.d272caa5ede9dp-1 0x1.7da76356a0000p-4  0x1.cf26e3e6b2ccdp-1 0x1.9ab434e1c6000p-4
    0x1.cbe6da2a77902p-1 0x1.b78c7bb0d6000p-4  0x1.c8b266d37086dp-1 0x1.d431332e72000p-4
    0x1.c5894bd5d5804p-1 0x1.f0a3171de6000p-4  0x1.c26b533bb9f8cp-1 0x1.067152b914000p-3
    0x1.bf583eeece73fp-1 0x1.147858292b000p-3  0x1.bc4fd75db96c1p-1 0x1.2266ecdca3000p-3
    0x1.b951e0c864a28p-1 0x1.303d7a6c55000p-3  0x1.b65e2c5ef3e2cp-1 0x1.3dfc33c331000p-3
    0x1.b374867c9888bp-1 0x1.4ba366b7a8000p-3  0x1.b094b211d304ap-1 0x1.5933928d1f000p-3
    0x1.adbe885f2ef7ep-1 0x1.66acd2418f000p-3  0x1.aaf1d31603da2p-1 0x1.740f8ec669000p-3
    0x1.a82e63fd358a7p-1 0x1.815c0f51af000p-3  0x1.a5740ef09738bp-1 0x1.8e92954f68000p-3
    0x1.a2c2a90ab4b27p-1 0x1.9bb3602f84000p-3  0x1.a01a01393f2d1p-1 0x1.a8bed1c2c0000p-3
    0x1.9d79f24db3c1bp-1 0x1.b5b515c01d000p-3  0x1.9ae2505c7b190p-1 0x1.c2967ccbcc000p-3
    0x1.9852ef297ce2fp-1 0x1.cf635d5486000p-3  0x1.95cbaeea44b75p-1 0x1.dc1bd3446c000p-3
    0x1.934c69de74838p-1 0x1.e8c01b8cfe000p-3  0x1.90d4f2f6752e6p-1 0x1.f5509c0179000p-3
    0x1.8e6528effd79dp-1 0x1.00e6c121fb800p-2  0x1.8bfce9fcc007cp-1 0x1.071b80e93d000p-2
    0x1.899c0dabec30ep-1 0x1.0d46b9e867000p-2  0x1.87427aa2317fbp-1 0x1.13687334bd000p-2
    0x1.84f00acb39a08p-1 0x1.1980d67234800p-2  0x1.82a49e8653e55p-1 0x1.1f8ffe0cc8000p-2
    0x1.8060195f40260p-1 0x1.2595fd7636800p-2  0x1.7e22563e0a329p-1 0x1.2b9300914a800p-2
    0x1.7beb377dcb5adp-1 0x1.3187210436000p-2  0x1.79baa679725c2p-1 0x1.377266dec1800p-2
    0x1.77907f2170657p-1 0x1.3d54ffbaf3000p-2  0x1.756cadbd6130cp-1 0x1.432eee32fe000p-2
"""
_pairs = np.array([float.fromhex(h) for h in _TABLE_HEX.split()]).reshape(128, 2)
_INVC = np.ascontiguousarray(_pairs[:, 0])
_LOGC = np.ascontiguousarray(_pairs[:, 1])
# invc split into a high half of 26 bits and the rest (Dekker's product needs both; the table is fixed)
_INVC_HI = _INVC * 134217729.0  # 2**27 + 1
_INVC_HI = _INVC_HI - (_INVC_HI - _INVC)
_INVC_LO = _INVC - _INVC_HI
del _pairs

_LN2HI = float.fromhex("0x1.62e42fefa3800p-1")
_LN2LO = float.fromhex("0x1.ef35793c76730p-45")
# log1p(r) - r on |r| <= 0x1.fp-9, from r**2 on (A0 .. A4)
_A = [float.fromhex(h) for h in (
    "-0x1.0000000000001p-1", "0x1.555555551305bp-2", "-0x1.fffffffeb459p-3", "0x1.999b324f10111p-3",
    "-0x1.55575e506c89fp-3")]
# log1p(r) near 1 (-2**-4 <= r < 0x1.09p-4), from r**2 on (B0 = -1/2 .. B10)
_B = [float.fromhex(h) for h in (
    "-0x1p-1", "0x1.5555555555577p-2", "-0x1.ffffffffffdcbp-3", "0x1.999999995dd0cp-3", "-0x1.55555556745a7p-3",
    "0x1.24924a344de3p-3", "-0x1.fffffa4423d65p-4", "0x1.c7184282ad6cap-4", "-0x1.999eb43b068ffp-4",
    "0x1.78182f7afd085p-4", "-0x1.5521375d145cdp-4")]

_OFF = 0x3FE6000000000000  # the bits of 0x1.6p-1: z's interval starts there
_NEAR1_LO = 0x3FEE000000000000  # bits of 1 - 2**-4
_NEAR1_SPAN = 0x3FF1090000000000 - _NEAR1_LO  # up to the bits of 1 + 0x1.09p-4
_MIN_NORMAL_BITS = 0x0010000000000000
_INF_BITS = 0x7FF0000000000000
_SPLIT = 134217729.0  # 2**27 + 1: Dekker's split of a double into two halves of 26 bits
_MAIN_BOUND = 2.0**-64
_CHUNK = 1 << 13  # elements per pass: the temporaries of a chunk (64 KiB each) stay in the CPU's cache


def _round_or_flag(hi: np.ndarray, small: np.ndarray, bound) -> tuple:
    """``hi + small`` rounded, and where an error of up to ``bound`` in ``small`` could change that rounding."""
    low = hi + (small - bound)
    high = hi + (small + bound)
    return low, low != high


def _main_path(ix: np.ndarray) -> tuple:
    """glibc's table path for normal positive inputs (bits ``ix``): the result and the elements to recompute."""
    tmp = ix - _u64(_OFF)
    i = ((tmp >> _u64(45)) & _u64(127)).astype(np.intp)
    k = (tmp.view(_i64) >> _i64(52)).astype(_f64)
    z = (ix - (tmp & _u64(0xFFF << 52))).view(_f64)
    invc = _INVC.take(i)
    # r = fma(z, invc, -1): z * invc = p + e exactly (Dekker), p - 1 is exact (p is within 2**-8 of 1), and
    # (p - 1) + e rounds once, as the fused operation does
    p = z * invc
    zh = z * _SPLIT
    zh -= zh - z
    zl = z - zh
    ih, il = _INVC_HI.take(i), _INVC_LO.take(i)
    e = zh * ih
    e -= p
    e += zh * il
    e += zl * ih
    e += zl * il
    r = p - 1.0
    r += e
    w = k * _LN2HI
    w += _LOGC.take(i)  # (exact: logc is a multiple of 2**-43 and k * ln2hi one of 2**-42, both below 2**10)
    hi = w + r
    small = w - hi
    small += r
    small += k * _LN2LO
    r2 = r * r
    poly = _A[3] + r * _A[4]
    poly *= r2
    poly += _A[1] + r * _A[2]
    poly *= r * r2
    r2 *= _A[0]
    small += r2
    small += poly
    return _round_or_flag(hi, small, _MAIN_BOUND)


def _near_one_path(x: np.ndarray) -> tuple:
    """glibc's path for 1 - 2**-4 <= x < 1 + 0x1.09p-4: the result and the elements to recompute."""
    r = x - 1.0  # (exact)
    r2 = r * r
    r3 = r * r2
    b = _B
    poly = b[7] + r * b[8] + r2 * b[9] + r3 * b[10]
    poly = b[4] + r * b[5] + r2 * b[6] + r3 * poly
    poly = b[1] + r * b[2] + r2 * b[3] + r3 * poly
    poly *= r3
    w = r * 134217728.0  # 2**27
    rhi = r + w - w  # the top 26 bits of r: rhi * rhi is exact
    rlo = r - rhi
    w = rhi * rhi * b[0]
    hi = r + w
    lo = r - hi + w
    lo += b[0] * rlo * (rhi + r)
    bound = np.abs(r) * (r2 * 2.0**-48 + 2.0**-100)
    return _round_or_flag(hi, poly + lo, bound)


def _subnormal_bits(x: np.ndarray) -> np.ndarray:
    """glibc's bits for positive subnormals: ``x * 2**52`` (a normal number) with 52 taken off the exponent field
    (wrapping below zero as uint64 arithmetic does; the table path reads k back from it)."""
    return (x * 2.0**52).view(_u64) - _u64(52 << 52)


def _vector_log(x) -> np.ndarray:
    """glibc's log of a float64 array by array operations (no check of the platform: see ``log``)."""
    flat = np.ascontiguousarray(x, dtype=_f64).ravel()
    out = np.empty_like(flat)
    unsure = np.empty(flat.size, dtype=bool)
    near, special = [], []
    # the table path on every element, a chunk at a time; the elements near 1 and the special ones are gathered
    # and redone together at the end, then those whose rounding is unsure are recomputed with math.log
    for start in range(0, flat.size, _CHUNK):
        stop = start + _CHUNK
        ix = flat[start:stop].view(_u64)
        out[start:stop], unsure[start:stop] = _main_path(ix)
        for found, test in ((near, (ix - _u64(_NEAR1_LO)) < _u64(_NEAR1_SPAN)),
                            (special, (ix - _u64(_MIN_NORMAL_BITS)) >= _u64(_INF_BITS - _MIN_NORMAL_BITS))):
            if test.any():
                found.append(np.flatnonzero(test) + start)
    if near:
        where = np.concatenate(near)
        for start in range(0, where.size, _CHUNK):
            part = where[start:start + _CHUNK]
            out[part], unsure[part] = _near_one_path(flat[part])
    if special:
        where = np.concatenate(special)
        values = flat[where]
        with np.errstate(all="ignore"):
            out[where] = np.log(values)  # (exact for 0, negatives, inf and nan: -inf, nan, inf, nan)
        unsure[where] = False
        where = where[(values > 0) & (values < 2.0**-1022)]
        if where.size:
            out[where], unsure[where] = _main_path(_subnormal_bits(flat[where]))
    where = np.flatnonzero(unsure)
    if where.size:
        out[where] = list(map(math.log, flat[where].tolist()))
    return out.reshape(np.shape(x))


def _libm_log(x) -> np.ndarray:
    """``math.log`` element by element (where ``math.log`` raises, for 0 and negatives, NumPy's -inf and nan)."""
    flat = np.asarray(x, dtype=_f64).ravel()
    out = np.empty_like(flat)
    positive = flat > 0
    out[positive] = list(map(math.log, flat[positive].tolist()))
    with np.errstate(all="ignore"):
        out[~positive] = np.log(flat[~positive])
    return out.reshape(np.shape(x))


_matches_libm = None


def _check_sample() -> np.ndarray:
    """20,000 fixed positive inputs: uniform in (0, 1] as the samplers draw them, near 1, and spread over all
    exponents (subnormals included)."""
    rng = np.random.default_rng(20240601)
    bits = rng.integers(1, 0x7FF0000000000000, 8000, dtype=np.int64).view(_f64)
    return np.concatenate([1.0 - rng.integers(0, 1 << 53, 8000) * 2.0**-53, 1.0 + rng.uniform(-0.07, 0.07, 4000),
                           bits])


def log(x) -> np.ndarray:
    """``math.log`` (the C library's double log) of every element of a float64 array of positive numbers, as a
    float64 array of the same shape; 0 gives -inf and negative inputs nan (``math.log`` raises ValueError).

    Bit for bit what ``math.log`` returns, computed with NumPy array operations where the C library is glibc 2.28
    or later (compared with ``math.log`` on 400 million inputs when written, on 2.7 million in
    tests/test_glibc_log.py), else with ``math.log`` itself."""
    global _matches_libm
    if _matches_libm is None:
        sample = _check_sample()
        _matches_libm = bool(np.array_equal(_vector_log(sample).view(_u64), _libm_log(sample).view(_u64)))
    return _vector_log(x) if _matches_libm else _libm_log(x)
