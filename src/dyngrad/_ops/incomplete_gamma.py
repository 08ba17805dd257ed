"""The regularized incomplete gamma functions P(a, x) (igamma, special.gammainc) and Q(a, x) = 1 - P
(igammac, special.gammaincc), on whole arrays.

The algorithm is torch's calc_igamma / calc_igammac (aten/src/ATen/native/Math.h), which follows
SciPy's igam.c (Cephes igam/igamc, with the choice of method of Maddock et al., "Incomplete Gamma
Functions", Boost.Math, and the Lanczos approximation of Boost):

- for a > 20 with x close to a (|x - a| / a < 0.3 for a < 200, < 4.5 / sqrt(a) beyond): Temme's
  uniform asymptotic expansion (DLMF 8.12.3/8.12.4), coefficients in _special_tables.TEMME_D;
- else the power series of P (DLMF 8.11.4), the series of Q that avoids cancellation for small x
  (DLMF 8.7.3), or the continued fraction of Q (DLMF 8.9.2), by the same tests on a and x as torch;
- the prefactor x^a e^-x / Gamma(a) through the Lanczos approximation when x is near a.

Every element takes the branch and the number of terms torch's scalar code gives it (the loops run
on index sets that shrink as elements converge). float64 input runs in float64; float32 (and
float16) input runs torch's float instantiation: float32 arithmetic, float32 constants (the
convergence threshold 2^-24, the underflow bound 88.7), the few steps torch writes with double
literals in float64; each elementary function is the float64 one rounded to float32, as a correctly
rounded libm's float version would give. Where torch's compiler fused a multiply-add the last bits
can differ; the slowly converging continued fraction can then end a few ulp apart (1e-14 relative
at most in the tests).

Boundary values as torch: nan for a < 0 or x < 0; P(0, x > 0) = 1; P(a, 0) = 0; P(inf, finite) = 0;
P(finite, inf) = 1; P(inf, inf) = nan; Q = 1 - P likewise.
"""

from __future__ import annotations

from .._backend import xp
from ._special_tables import TEMME_D
from .gamma import lgamma_f64
from .special import erfc as _erfc

_f64 = xp.float64
_f32 = xp.float32
_MAXITER = 2000
_PI_F32 = float(xp.float32(3.141592653589793))  # torch's asymptotic series divides by sqrt(2 * c10::pi<float> * a)

# Boost's lanczos13m53 as exp(g)-scaled rational sums (the Lanczos sum of torch's igamma helpers)
_LANCZOS_NUM = (0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
                19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623,
                6955.999602515376140356310115515198987526, 75999.29304014542649875303443598909137092,
                601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
                14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085,
                86363131.28813859145546927288977868422342, 103794043.1163445451906271053616070238554,
                56906521.91347156388090791033559122686859)
_LANCZOS_DEN = (1.0, 66.0, 1925.0, 32670.0, 357423.0, 2637558.0, 13339535.0, 45995730.0, 105258076.0,
                150917976.0, 120543840.0, 39916800.0, 0.0)


class _Precision:
    """The constants and elementary functions of one of torch's two instantiations (double, float)."""

    def __init__(self, dt) -> None:
        double = dt == _f64
        self.dt = dt
        self.machep = dt(1.11022302462515654042e-16 if double else 5.9604644775390625e-8)
        self.maxlog = dt(7.09782712893383996843e2 if double else 88.72283905206835)
        self.big = dt(4.503599627370496e15 if double else 16777216.0)
        self.biginv = dt(2.22044604925031308085e-16 if double else 5.9604644775390625e-8)
        self.exp1 = dt(2.718281828459045)
        self.lanczos_g = dt(6.024680040776729583740234375)
        self.num = tuple(dt(c) for c in _LANCZOS_NUM)
        self.den = tuple(dt(c) for c in _LANCZOS_DEN)
        self.temme = [tuple(dt(c) for c in row) for row in TEMME_D]

    def f(self, ufunc, *args):
        """``ufunc`` in this precision: for float32, the float64 result rounded once."""
        if self.dt == _f64:
            return ufunc(*args)
        return ufunc(*[a.astype(_f64) if hasattr(a, "astype") else a for a in args]).astype(_f32)

    def lgamma(self, a):
        return lgamma_f64(a) if self.dt == _f64 else lgamma_f64(a.astype(_f64)).astype(_f32)


_PRECISIONS = {_f64: _Precision(_f64), _f32: _Precision(_f32)}


def _wide(v):
    return v.astype(_f64, copy=False)


def _lanczos_sum_expg_scaled(a, pr):
    """Boost's Lanczos sum scaled by exp(g), as SciPy's ratevl evaluates it: in 1/a for |a| > 1."""
    out = xp.empty_like(a)
    big = xp.abs(a) > 1
    for mask, inverted in ((big, True), (~big, False)):
        idx = xp.flatnonzero(mask)
        if not idx.size:
            continue
        v = a.take(idx)
        y, num, den = (pr.dt(1) / v, pr.num[::-1], pr.den[::-1]) if inverted else (v, pr.num, pr.den)
        p = xp.full_like(y, num[0])
        q = xp.full_like(y, den[0])
        for c in num[1:]:
            p = p * y + c
        for c in den[1:]:
            q = q * y + c
        out[idx] = p / q  # pow(a, N - M) = 1: both polynomials have degree 12
    return out


def _prefactor(a, x, pr):
    """x^a e^-x / Gamma(a) (torch's _igam_helper_fac), with the Lanczos form when x is near a."""
    out = xp.empty_like(a)
    far = _wide(xp.abs(a - x)) > 0.4 * _wide(xp.abs(a))  # 0.4 is a double literal in torch
    idx = xp.flatnonzero(far)
    if idx.size:
        af, xf = a.take(idx), x.take(idx)
        ax = af * pr.f(xp.log, xf) - xf - pr.lgamma(af)
        out[idx] = xp.where(ax < -pr.maxlog, pr.dt(0), pr.f(xp.exp, ax))
    idx = xp.flatnonzero(~far)
    if idx.size:
        an, xn = a.take(idx), x.take(idx)
        g = pr.lanczos_g
        fac = an + g - pr.dt(0.5)
        res = pr.f(xp.sqrt, fac / pr.exp1) / _lanczos_sum_expg_scaled(an, pr)
        small = (an < 200) & (xn < 200)
        near = pr.f(xp.exp, an - xn) * pr.f(xp.power, xn / fac, an)
        numfac = (xn - an - g + pr.dt(0.5)) / fac
        # torch: exp(a * (log1p(numfac) - numfac) + x * (0.5 - g) / fac), the second term with the double
        # literal 0.5, so in double for float input too
        head = _wide(an * (pr.f(xp.log1p, numfac) - numfac))
        far_term = xp.exp(head + _wide(xn) * (0.5 - _wide(g)) / _wide(fac))
        out[idx] = xp.where(small, res * near, (_wide(res) * far_term).astype(pr.dt))
    return out


def _p_series(a, x, pr):
    """P(a, x) by its power series (DLMF 8.11.4): x^a e^-x / Gamma(a + 1) * sum_k x^k / ((a+1)...(a+k))."""
    out = xp.zeros_like(a)
    ax = _prefactor(a, x, pr)
    idx = xp.flatnonzero(ax != 0)
    if not idx.size:
        return out
    a0, xs, axs = a.take(idx), x.take(idx), ax.take(idx)
    one = pr.dt(1)
    ans = xp.ones_like(a0)
    pos = xp.arange(idx.size)  # where each live element sits in ``ans``
    r, c, s, xl = a0.copy(), xp.ones_like(a0), ans.copy(), xs
    for _ in range(_MAXITER):
        r += one
        c *= xl / r
        s += c
        done = c <= pr.machep * s
        if done.any():
            ans[pos[done]] = s[done]
            keep = ~done
            pos, r, c, s, xl = pos[keep], r[keep], c[keep], s[keep], xl[keep]
            if not pos.size:
                break
    if pos.size:
        ans[pos] = s
    out[idx] = ans * axs / a0
    return out


def _q_series(a, x, pr):
    """Q(a, x) for small x (DLMF 8.7.3): 1 - x^a / Gamma(a + 1) - x^a / Gamma(a) * sum_n (-x)^n / (n! (a + n))."""
    total = xp.zeros_like(a)
    pos = xp.arange(a.size)
    al, xl, fac, s = a, x, xp.ones_like(a), xp.zeros_like(a)
    for n in range(1, _MAXITER):
        fac = fac * (-xl / pr.dt(n))
        term = fac / (al + pr.dt(n))
        s = s + term
        done = xp.abs(term) <= pr.machep * xp.abs(s)
        if done.any():
            total[pos[done]] = s[done]
            keep = ~done
            pos, al, xl, fac, s = pos[keep], al[keep], xl[keep], fac[keep], s[keep]
            if not pos.size:
                break
    if pos.size:
        total[pos] = s
    logx = pr.f(xp.log, x)
    head = -pr.f(xp.expm1, a * logx - pr.lgamma(pr.dt(1) + a))
    return head - pr.f(xp.exp, a * logx - pr.lgamma(a)) * total


def _q_continued_fraction(a, x, pr):
    """Q(a, x) for x > 1.1 and x >= a by its continued fraction (DLMF 8.9.2), with Cephes' rescaling."""
    out = xp.zeros_like(a)
    ax = _prefactor(a, x, pr)
    idx = xp.flatnonzero(ax != 0)
    if not idx.size:
        return out
    one = pr.dt(1)
    xs = x.take(idx)
    y = one - a.take(idx)
    z = xs + y + one
    c = xp.zeros_like(y)
    pkm2 = xp.ones_like(y)
    qkm2 = xs.copy()
    pkm1 = xs + one
    qkm1 = z * xs
    ans = pkm1 / qkm1
    result = xp.empty_like(y)
    pos = xp.arange(idx.size)
    for _ in range(_MAXITER):
        c += one
        y += one
        z += pr.dt(2)
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        nonzero = qk != 0
        r = pk / xp.where(nonzero, qk, one)
        t = xp.where(nonzero, xp.abs((ans - r) / r), one)
        ans = xp.where(nonzero, r, ans)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        rescale = xp.abs(pk) > pr.big
        if rescale.any():
            scale = xp.where(rescale, pr.biginv, one)
            pkm2, pkm1, qkm2, qkm1 = pkm2 * scale, pkm1 * scale, qkm2 * scale, qkm1 * scale
        done = t <= pr.machep
        if done.any():
            result[pos[done]] = ans[done]
            keep = ~done
            pos = pos[keep]
            if not pos.size:
                break
            c, y, z, ans, pkm2, pkm1, qkm2, qkm1 = (v[keep] for v in (c, y, z, ans, pkm2, pkm1, qkm2, qkm1))
    if pos.size:
        result[pos] = ans
    out[idx] = result * ax.take(idx)
    return out


def _asymptotic(a, x, lower: bool, pr):
    """P (lower) or Q by Temme's expansion (DLMF 8.12.3/8.12.4), term by term as torch stops it."""
    dt = pr.dt
    sgn = dt(-1) if lower else dt(1)
    lam = x / a
    sigma = (x - a) / a
    eta = pr.f(xp.sqrt, dt(-2) * (pr.f(xp.log1p, sigma) - sigma))
    eta = xp.where(lam > 1, eta, xp.where(lam < 1, -eta, dt(0)))
    res = dt(0.5) * _erfc(sgn * eta * pr.f(xp.sqrt, a / dt(2)))
    powers = [xp.ones_like(eta)]
    for _ in range(1, 25):
        powers.append(eta * powers[-1])
    total = xp.zeros_like(eta)
    afac = xp.ones_like(eta)
    absold = xp.full_like(eta, xp.inf)
    live = xp.ones(eta.shape, dtype=bool)
    zero = dt(0)
    for row in pr.temme:
        ck = xp.full_like(eta, row[0])
        adding = live.copy()
        for n in range(1, 25):
            term = row[n] * powers[n]
            ck += xp.where(adding, term, zero)
            adding &= ~(xp.abs(term) < pr.machep * xp.abs(ck))
            if not adding.any():
                break
        term = ck * afac
        absterm = xp.abs(term)
        live &= ~(absterm > absold)  # the series started to diverge: stop before this term
        total += xp.where(live, term, zero)
        live &= ~(absterm < pr.machep * xp.abs(total))
        if not live.any():
            break
        absold = xp.where(live, absterm, absold)
        afac = afac / a
    # torch: sgn * exp(-0.5 * a * eta * eta) * sum / sqrt(2 * pi_f * a), with the double literal -0.5: in
    # double for float input too (the sqrt of the float product 2 * pi_f * a excepted)
    root = _wide(pr.f(xp.sqrt, dt(2) * dt(_PI_F32) * a)) if dt == _f32 else xp.sqrt(2 * _PI_F32 * a)
    wa, weta = _wide(a), _wide(eta)
    correction = float(sgn) * xp.exp(-0.5 * wa * weta * weta) * _wide(total) / root
    return (_wide(res) + correction).astype(dt)


def _boundaries(a, x, lower: bool, dt):
    """The values torch assigns at the edges of the domain, and the mask of elements they settle."""
    out = xp.empty_like(a)
    settled = xp.zeros(a.shape, dtype=bool)

    def settle(mask, value):
        hit = mask & ~settled
        out[hit] = value
        settled[hit] = True

    one, zero = (1.0, 0.0) if lower else (0.0, 1.0)
    settle((x < 0) | (a < 0), xp.nan)
    a_zero = a == 0
    settle(a_zero & (x > 0), one)
    settle(a_zero, xp.nan)
    settle(x == 0, zero)
    a_inf = xp.isinf(a)
    settle(a_inf & xp.isinf(x), xp.nan)
    settle(a_inf, zero)
    settle(xp.isinf(x), one)
    return out, settled


def _asymptotic_region(a, x):
    ratio = xp.abs(x - a) / a
    return ((a > 20) & (a < 200) & (ratio < 0.3)) | ((a > 200) & (ratio < 4.5 / xp.sqrt(a)))


def _q_general(a, x, pr):
    """calc_igammac's series / continued-fraction choice (for elements outside the asymptotic region)."""
    out = xp.empty_like(a)
    wx, wa = _wide(x), _wide(a)  # torch compares with double literals (1.1, 0.5, -0.4 / log x, x * 1.1)
    logx = _wide(pr.f(xp.log, x))
    use_p = xp.where(wx > 1.1, wx < wa, xp.where(wx <= 0.5, -0.4 / logx < wa, wx * 1.1 < wa))
    cf = (wx > 1.1) & ~use_p
    for mask, kernel in ((use_p, "p"), (cf, "cf"), (~use_p & ~cf, "q")):
        sub = xp.flatnonzero(mask)
        if not sub.size:
            continue
        asub, xsub = a.take(sub), x.take(sub)
        if kernel == "p":
            out[sub] = pr.dt(1) - _p_series(asub, xsub, pr)
        elif kernel == "cf":
            out[sub] = _q_continued_fraction(asub, xsub, pr)
        else:
            out[sub] = _q_series(asub, xsub, pr)
    return out


def _incomplete_gamma(a, x, lower: bool, pr):
    out, settled = _boundaries(a, x, lower, pr.dt)
    rest = ~settled
    asym = rest & _asymptotic_region(a, x)
    idx = xp.flatnonzero(asym)
    if idx.size:
        out[idx] = _asymptotic(a.take(idx), x.take(idx), lower, pr)
    rest &= ~asym
    if lower:
        via_q = rest & (x > 1) & (x > a)
        idx = xp.flatnonzero(via_q)
        if idx.size:
            out[idx] = pr.dt(1) - _q_general(a.take(idx), x.take(idx), pr)
        idx = xp.flatnonzero(rest & ~via_q)
        if idx.size:
            out[idx] = _p_series(a.take(idx), x.take(idx), pr)
    else:
        idx = xp.flatnonzero(rest)
        if idx.size:
            out[idx] = _q_general(a.take(idx), x.take(idx), pr)
    return out


def _run(a, x, lower: bool):
    ab, xb = xp.broadcast_arrays(a, x)
    shape, dtype = ab.shape, ab.dtype
    dt = _f64 if dtype == _f64 else _f32  # float16: torch's float instantiation, rounded to half
    af = xp.array(ab, dtype=dt).reshape(-1)
    xf = xp.array(xb, dtype=dt).reshape(-1)
    out = _incomplete_gamma(af, xf, lower, _PRECISIONS[dt]).reshape(shape)
    return out if dtype == dt else out.astype(dtype)


def igamma(a, x):
    """The regularized lower incomplete gamma function P(a, x), elementwise (broadcast); float in,
    the same dtype out."""
    return _run(a, x, True)


def igammac(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), elementwise."""
    return _run(a, x, False)
