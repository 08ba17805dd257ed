"""Special functions NumPy lacks: erf, erfc, erfinv, computed on whole arrays.

erf and erfc use W. J. Cody's rational Chebyshev approximations ("Rational Chebyshev
approximations for the error function", Math. Comp. 23 (1969) 631-637; the coefficients are
those of his CALERF routine), on three intervals of |x|: [0, 0.46875], (0.46875, 4] and
(4, inf). In float64 the results agree with ``math.erf`` / ``math.erfc`` to about one ulp.

erfinv starts from M. Giles' single-precision polynomial approximation ("Approximating the
erfinv function", GPU Computing Gems, 2011) and refines it with Newton steps on erf (centre)
or erfc (tails, where ``1 - |x|`` is exact and erf would lose the digits).

Every function evaluates in float64 and returns the input's float dtype; each interval is
evaluated only on the elements that fall in it (no Python loop over elements).
"""

from __future__ import annotations

from .._backend import xp

_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
      1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
      8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
      2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
      3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
      6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
      2.33520497626869185e-3)
_RSQRTPI = 0.56418958354775628695  # 1 / sqrt(pi)
_THRESH = 0.46875


def _erf_small(x):
    """erf(x) for |x| <= 0.46875: x * A(x^2) / B(x^2)."""
    z = x * x
    num = _A[4] * z
    den = z
    for i in range(3):
        num = (num + _A[i]) * z
        den = (den + _B[i]) * z
    return x * (num + _A[3]) / (den + _B[3])


def _exp_minus_square(y):
    """exp(-y*y) with y*y split as s*s + d (s = y rounded down to 1/16), so the rounding of y*y is not amplified."""
    s = xp.trunc(y * 16.0) / 16.0
    d = (y - s) * (y + s)
    return xp.exp(-s * s) * xp.exp(-d)


def _erfc_large(y):
    """erfc(y) for y > 0.46875 (y >= 0; inf gives 0)."""
    out = xp.zeros_like(y)
    mid = y <= 4.0
    if mid.any():
        m = y[mid]
        num = _C[8] * m
        den = m
        for i in range(7):
            num = (num + _C[i]) * m
            den = (den + _D[i]) * m
        out[mid] = (num + _C[7]) / (den + _D[7]) * _exp_minus_square(m)
    # Beyond 27.3 erfc underflows to 0 in float64; inf stays 0 as initialised.
    tail = ~mid & (y < 28.0)
    if tail.any():
        t = y[tail]
        z = 1.0 / (t * t)
        num = _P[5] * z
        den = z
        for i in range(4):
            num = (num + _P[i]) * z
            den = (den + _Q[i]) * z
        r = z * (num + _P[4]) / (den + _Q[4])
        out[tail] = (_RSQRTPI - r) / t * _exp_minus_square(t)
    return out


def _as_float64(a):
    a = xp.asarray(a)
    return a.astype(xp.float64) if a.dtype != xp.float64 else a


def erf(a):
    """The error function, elementwise; float input, same dtype out (computed in float64)."""
    x = _as_float64(a)
    out = xp.empty_like(x)
    y = xp.abs(x)
    small = y <= _THRESH
    out[small] = _erf_small(x[small])
    big = ~small  # NaN lands here and stays NaN below
    if big.any():
        xb = x[big]
        r = 1.0 - _erfc_large(xp.abs(xb))
        out[big] = xp.where(xp.isnan(xb), xp.nan, xp.where(xb < 0, -r, r))
    return out.astype(a.dtype, copy=False) if out.dtype != a.dtype else out


def erfc(a):
    """The complementary error function 1 - erf(x), accurate in the tails; same dtype out."""
    x = _as_float64(a)
    out = xp.empty_like(x)
    y = xp.abs(x)
    small = y <= _THRESH
    out[small] = 1.0 - _erf_small(x[small])
    big = ~small
    if big.any():
        xb = x[big]
        r = _erfc_large(xp.abs(xb))
        r = xp.where(xb < 0, 2.0 - r, r)
        out[big] = xp.where(xp.isnan(xb), xp.nan, r)
    return out.astype(a.dtype, copy=False) if out.dtype != a.dtype else out


def _erfinv_initial(x):
    """Giles' approximation of erfinv (relative error about 1e-7 on (-1, 1))."""
    with xp.errstate(divide="ignore"):
        w = -xp.log((1.0 - x) * (1.0 + x))
    out = xp.empty_like(x)
    centre = w < 5.0
    if centre.any():
        v = w[centre] - 2.5
        p = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941):
            p = c + p * v
        out[centre] = p * x[centre]
    tail = ~centre
    if tail.any():
        v = xp.sqrt(w[tail]) - 3.0
        p = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                  0.00943887047, 1.00167406, 2.83297682):
            p = c + p * v
        out[tail] = p * x[tail]
    return out


def erfinv(a):
    """The inverse error function on [-1, 1] (+-inf at +-1, NaN outside); same dtype out.

    Newton's method on erf(y) = x converges quadratically from Giles' start. In the tails
    (|x| > 0.5) it solves log(erfc(|y|)) = log(1 - |x|) instead: ``1 - |x|`` is exact there
    (where erf would lose the digits), and the logarithm is nearly quadratic in y, so Newton
    also converges fast far out (|x| near 1 in float64), where Giles' start is rough.
    """
    x = _as_float64(a)
    y = _erfinv_initial(x)
    ax = xp.abs(x)
    inside = ax < 1.0
    tails = inside & (ax > 0.5)
    centre = inside & ~tails
    two_over_sqrtpi = 2.0 * _RSQRTPI
    xc = x[centre]
    log_target = xp.log(1.0 - ax[tails])
    sign_t = xp.sign(x[tails])
    for _ in range(4):
        with xp.errstate(all="ignore"):
            if xc.size:
                yc = y[centre]
                y[centre] = yc - (erf(yc) - xc) / (two_over_sqrtpi * xp.exp(-yc * yc))
            if log_target.size:
                yt = xp.abs(y[tails])
                e = erfc(yt)
                # d/dy log(erfc(y)) = -2/sqrt(pi) exp(-y^2) / erfc(y)
                yt = yt + (xp.log(e) - log_target) * e / (two_over_sqrtpi * _exp_minus_square(yt))
                y[tails] = sign_t * yt
    y = xp.where(ax == 1.0, xp.copysign(xp.inf, x), y)
    y = xp.where((ax > 1.0) | xp.isnan(x), xp.nan, y)
    return y.astype(a.dtype, copy=False) if y.dtype != a.dtype else y
