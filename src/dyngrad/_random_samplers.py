"""torch's CPU rejection samplers (gamma, Poisson, binomial) on its mt19937 stream, one element at a time.

Each element of torch's ``_s_gamma_cpu`` / ``_s_poisson_cpu`` / ``_s_binomial_cpu`` draws a data-dependent
number of double uniforms (``random64``) and scalar normals (with the generator's cached second value), in
the output's order, so the loops here are per element, as torch's serial kernels. The algorithms (facts of
aten/src/ATen/native/Distributions.h and Distributions.cpp): Marsaglia and Tsang (2000) for gamma, with the
``alpha < 1`` boost ``u**(1/alpha)``; Hormann's transformed rejection (PTRS, 1993) for Poisson rates >= 10 and
the product of uniforms below; for the binomial, Hormann's BTRS for ``n p >= 10`` and geometric-sum inversion
below, with torch's Stirling tail table. Float constants of the C++ source (``1.0f / 3.0f``, ``0.0331f``)
keep their float values.
"""

from __future__ import annotations

import math

import numpy as np

from ._torch_rng import MT19937Stream

_MASK53 = (1 << 53) - 1
_THIRD_F = float(np.float32(1.0) / np.float32(3.0))
_C0331_F = float(np.float32(0.0331))


class _Draws:
    """Scalar draws from a stream as torch's samplers take them: a double uniform (53 bits of ``random64``)
    and a standard normal_distribution<double> draw (Box-Muller with the generator's cached sine value)."""

    def __init__(self, g: MT19937Stream) -> None:
        self.g = g

    def uniform(self) -> float:
        return (self.g.random64() & _MASK53) * 2.0**-53

    def normal(self) -> float:
        g = self.g
        if g.next_double_normal is not None:
            value, g.next_double_normal = g.next_double_normal, None
            return value
        u1, u2 = self.uniform(), self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        g.next_double_normal = r * math.sin(theta)
        return r * math.cos(theta)


def _gamma_one(alpha: float, d: _Draws, single: bool) -> float:
    """sample_gamma<scalar_t, double>: ``single`` when scalar_t is float (alpha's updates round to float)."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(np.float32(1.0) / np.float32(alpha)) if single else 1.0 / alpha
        scale *= math.pow(1 - d.uniform(), inv)
        alpha = float(np.float32(alpha) + np.float32(1.0)) if single else alpha + 1.0
    dd = float(np.float32(alpha) - np.float32(_THIRD_F)) if single else alpha - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * dd)
    while True:
        while True:
            x = d.normal()
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1 - d.uniform()
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * dd * v
        if math.log(u) < 0.5 * xx + dd * (1.0 - v + math.log(v)):
            return scale * dd * v


def gamma(g: MT19937Stream, alphas: np.ndarray) -> np.ndarray:
    """_s_gamma_cpu over ``alphas`` (in fill order): the draws in alphas' dtype, at least its smallest normal
    number (nan and negative alphas give that minimum after an undefined draw: torch's max)."""
    single = alphas.dtype == np.float32
    d = _Draws(g)
    tiny = np.finfo(alphas.dtype).tiny
    out = np.empty(alphas.size, dtype=alphas.dtype)
    for i, a in enumerate(alphas.ravel().tolist()):
        if not a > 0:  # (0 draws nothing; torch's loop never ends on nan/negative, which its checks exclude)
            out[i] = tiny
            continue
        value = alphas.dtype.type(_gamma_one(a, d, single))
        out[i] = value if value > tiny else tiny
    return out


def _poisson_one(lam: float, d: _Draws) -> int:
    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = d.uniform() - 0.5
            v = d.uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)) <= (
                    -lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x, prod = 0, 1.0
    while True:
        prod *= d.uniform()
        if prod > enlam:
            x += 1
        else:
            return x


def poisson(g: MT19937Stream, rates: np.ndarray) -> np.ndarray:
    """_s_poisson_cpu: one count per rate (as float64), rates in fill order; an infinite rate gives the int64
    minimum without drawing (torch's cast of its overflowed floor)."""
    d = _Draws(g)
    out = np.empty(rates.size, dtype=np.float64)
    for i, lam in enumerate(rates.ravel().astype(np.float64).tolist()):
        out[i] = float(-(2**63)) if math.isinf(lam) else _poisson_one(lam, d)
    return out


_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k: float) -> float:
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(count: float, prob: float, d: _Draws) -> float:
    geom_sum, num = 0.0, 0.0
    logprob = math.log1p(-prob)
    while True:
        geom_sum += math.ceil(math.log(d.uniform()) / logprob)
        if geom_sum > count:
            return num
        num += 1


def _btrs(count: float, prob: float, d: _Draws) -> float:
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * prob)
    while True:
        u = d.uniform() - 0.5
        v = d.uniform()
        us = 0.5 - abs(u)
        k = float(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        upper = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m) - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= upper:
            return k


def _binomial_one(count: float, prob: float, d: _Draws) -> float:
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        return _btrs(count, prob, d) if count * prob >= 10.0 else _binomial_inversion(count, prob, d)
    if prob > 0.5:
        q = 1.0 - prob
        return count - (_btrs(count, q, d) if count * q >= 10.0 else _binomial_inversion(count, q, d))
    return math.nan


def binomial(g: MT19937Stream, counts: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """_s_binomial_cpu over broadcast (count, prob) pairs in fill order, computed in double."""
    d = _Draws(g)
    out = np.empty(counts.size, dtype=np.float64)
    for i, (n, p) in enumerate(zip(counts.ravel().astype(np.float64).tolist(), probs.ravel().astype(np.float64).tolist())):
        out[i] = _binomial_one(n, p, d)
    return out
