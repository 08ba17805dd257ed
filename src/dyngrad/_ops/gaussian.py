"""Kernels of the Gaussian family on whole arrays: erfcx (scaled complementary error function),
ndtri (the standard normal quantile) and log_ndtr (the log of the standard normal CDF).

Sources:
- erfcx(x) = exp(x^2) erfc(x): torch's calc_erfcx (aten/src/ATen/native/Math.h) is S. G. Johnson's
  (Faddeeva package): Chebyshev fits on 100 subintervals of 4 / (4 + x) for 0 <= x <= 50, a
  continued fraction beyond 50 (one term beyond 5e7), and 2 exp(x^2) - erfcx(-x) for x < 0 (inf
  below -26.7, 2 exp(x^2) below -6.1). Here the regimes beyond 50 and below 0 are torch's, and
  0 <= x <= 50 is W. J. Cody's scaled erfc (CALERF with jint = 2, Math. Comp. 23 (1969) 631-637;
  the rational functions of _ops/special.py without their exp(-x^2) factor), which agrees with
  Johnson's fits to about an ulp.
- ndtri: Cephes ndtri as in torch's calc_ndtri (three rational approximations in y - 1/2 and in
  1 / sqrt(-2 log y)), operation by operation; float32 input runs the float instantiation.
- log_ndtr: torch's calc_log_ndtr (after SciPy): log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 for x < -1,
  else log1p(-erfc(x / sqrt 2) / 2).

float32 inputs follow torch's float code (float arithmetic and constants; each elementary function
the float64 one rounded to float32); float64 inputs run in float64.
"""

from __future__ import annotations

import math

from .._backend import xp
from .special import _A, _B, _C, _D, _P, _Q, _RSQRTPI, _THRESH
from .special import erfc as _erfc

_f64 = xp.float64
_f32 = xp.float32


def _compute_dtype(a):
    return _f64 if a.dtype == _f64 else _f32


def _in(dt, ufunc, *args):
    """``ufunc`` in dtype ``dt``: for float32, the float64 result rounded once (a correctly rounded libm)."""
    if dt == _f64:
        return ufunc(*args)
    return ufunc(*[a.astype(_f64) if hasattr(a, "astype") else a for a in args]).astype(_f32)


# ====================================================================== erfcx
def _erfcx_cody(y):
    """exp(y^2) erfc(y) for 0 <= y <= 50 (float64), Cody's three intervals."""
    out = xp.empty_like(y)
    small = y <= _THRESH
    idx = xp.flatnonzero(small)
    if idx.size:  # exp(y^2) (1 - erf(y)), erf by its rational function in y^2
        v = y.take(idx)
        z = v * v
        num = _A[4] * z
        den = z
        for i in range(3):
            num = (num + _A[i]) * z
            den = (den + _B[i]) * z
        out[idx] = xp.exp(z) * (1.0 - v * (num + _A[3]) / (den + _B[3]))
    mid = ~small & (y <= 4.0)
    idx = xp.flatnonzero(mid)
    if idx.size:
        v = y.take(idx)
        num = _C[8] * v
        den = v
        for i in range(7):
            num = (num + _C[i]) * v
            den = (den + _D[i]) * v
        out[idx] = (num + _C[7]) / (den + _D[7])
    idx = xp.flatnonzero(~small & ~mid)
    if idx.size:
        v = y.take(idx)
        z = 1.0 / (v * v)
        num = _P[5] * z
        den = z
        for i in range(4):
            num = (num + _P[i]) * z
            den = (den + _Q[i]) * z
        out[idx] = (_RSQRTPI - z * (num + _P[4]) / (den + _Q[4])) / v
    return out


def _erfcx_kernel(x, dt):
    """erfcx on a 1-d array of dtype ``dt``; torch's regimes outside [0, 50] in ``dt`` arithmetic."""
    out = xp.full_like(x, xp.nan)
    mid = (x >= 0) & (x <= 50)
    idx = xp.flatnonzero(mid)
    if idx.size:
        out[idx] = _erfcx_cody(x.take(idx).astype(_f64)).astype(dt, copy=False)
    idx = xp.flatnonzero(x > 50)
    if idx.size:
        v = x.take(idx)
        v2 = v * v
        ispi = dt(0.56418958354775628694807945156)  # 1 / sqrt(pi)
        # continued fraction, five terms: ispi / (x + 0.5/(x + 1/(x + 1.5/(x + 2/x)))), simplified
        cf = ispi * (v2 * (v2 + dt(4.5)) + dt(2)) / (v * (v2 * (v2 + dt(5)) + dt(3.75)))
        out[idx] = xp.where(v > dt(5e7), ispi / v, cf)
    idx = xp.flatnonzero(x < 0)
    if idx.size:
        v = x.take(idx)
        twice = dt(2) * _in(dt, xp.exp, v * v)  # x * x rounded in the input's precision, as torch
        wide = v.astype(_f64)  # torch compares with the double literals -6.1 and -26.7
        near = xp.flatnonzero(wide >= -6.1)
        if near.size:
            twice[near] -= _erfcx_cody(-wide.take(near)).astype(dt)
        twice[wide < -26.7] = xp.inf
        out[idx] = twice
    return out


def erfcx(a):
    """exp(a^2) erfc(a) elementwise, accurate where erfc underflows; float32 or float64 in, same out."""
    dt = _compute_dtype(a)
    out = _erfcx_kernel(xp.array(a, dtype=dt).reshape(-1), dt).reshape(a.shape)
    return out if out.dtype == a.dtype else out.astype(a.dtype)


# ====================================================================== ndtri
_S2PI = 2.50662827463100050242
_NDTRI_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
             1.39312609387279679503e1, -1.23916583867381258016e0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
             -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
             1.59056225126211695515e1, -1.18331621121330003142e0)
_NDTRI_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
             4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
             -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
             1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
             -3.80806407691578277194e-2, -9.33259480895457427372e-4)
_NDTRI_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
             1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
             3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
             2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
             2.89247864745380683936e-6, 6.79019408009981274425e-9)
_EXP_M2 = 0.13533528323661269189  # exp(-2)


def _polevl(z, coefficients, dt):
    p = xp.full_like(z, dt(coefficients[0]))
    for c in coefficients[1:]:
        p = p * z + dt(c)
    return p


def ndtri(a):
    """The standard normal quantile: x with Phi(x) = a, elementwise on [0, 1] (-inf at 0, inf at 1,
    nan outside); float32 or float64 in, same out (Cephes ndtri, as torch)."""
    dt = _compute_dtype(a)
    y0 = xp.array(a, dtype=dt).reshape(-1)
    out = xp.full_like(y0, xp.nan)  # outside [0, 1] and nan
    one = dt(1)
    upper = y0 > one - dt(_EXP_M2)  # work with the smaller tail: y = 1 - y0
    y = xp.where(upper, one - y0, y0)
    inside = (y0 > 0) & (y0 < 1)
    centre = inside & (y > dt(_EXP_M2))
    idx = xp.flatnonzero(centre)
    if idx.size:
        v = y.take(idx) - dt(0.5)
        v2 = v * v
        out[idx] = (v + v * (v2 * _polevl(v2, _NDTRI_P0, dt) / _polevl(v2, _NDTRI_Q0, dt))) * dt(_S2PI)
    idx = xp.flatnonzero(inside & ~centre)
    if idx.size:
        v = y.take(idx)
        if dt == _f64:
            x = xp.sqrt(-2.0 * xp.log(v))
            x0 = x - xp.log(x) / x
        else:  # torch's ::log and ::sqrt on floats are the double C functions: rounded to float once
            wide = xp.sqrt(-2.0 * xp.log(v.astype(_f64)))
            x = wide.astype(_f32)
            xw = x.astype(_f64)
            x0 = (xw - xp.log(xw) / xw).astype(_f32)
        z = one / x
        low = x < dt(8)
        x1 = xp.where(low, z * _polevl(z, _NDTRI_P1, dt) / _polevl(z, _NDTRI_Q1, dt),
                      z * _polevl(z, _NDTRI_P2, dt) / _polevl(z, _NDTRI_Q2, dt))
        r = x0 - x1
        out[idx] = xp.where(upper.take(idx), r, -r)
    out[y0 == 0] = -xp.inf
    out[y0 == 1] = xp.inf
    out = out.reshape(a.shape)
    return out if out.dtype == a.dtype else out.astype(a.dtype)


# ====================================================================== log_ndtr
_SQRT1_2 = math.sqrt(0.5)


def log_ndtr(a):
    """log(Phi(a)), the log of the standard normal CDF, elementwise, accurate in the far left tail
    (about -a^2 / 2 there); float32 or float64 in, same out (torch's calc_log_ndtr)."""
    dt = _compute_dtype(a)
    x = xp.array(a, dtype=dt).reshape(-1)
    t = x * dt(_SQRT1_2)
    out = xp.empty_like(x)
    left = x < dt(-1)
    idx = xp.flatnonzero(left)
    if idx.size:
        tv = t.take(idx)
        scaled = erfcx(-tv) / dt(2)
        out[idx] = _in(dt, xp.log, scaled) - tv * tv
    idx = xp.flatnonzero(~left)
    if idx.size:
        out[idx] = _in(dt, xp.log1p, -_erfc(t.take(idx)) / dt(2))
    out = out.reshape(a.shape)
    return out if out.dtype == a.dtype else out.astype(a.dtype)
