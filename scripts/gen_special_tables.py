"""Write src/dyngrad/_ops/_special_tables.py: constants of the special-function kernels, computed from
their definitions in 80-digit decimal arithmetic (1, 2) or read from the C library (3); none is typed in.

1. LGAMMA2_PADE_P / LGAMMA2_PADE_Q: the [8/8] Pade approximant of log Gamma(2 + e) / e, built from
   its Taylor series (DLMF 5.7.3 shifted by one): log Gamma(2 + e) = sum_{k>=1} c_k e^k with
   c_1 = 1 - gamma, c_k = (-1)^k (zeta(k) - 1) / k; Euler's gamma and zeta(k) come from the
   Euler-Maclaurin formula (DLMF 2.10.1) with Bernoulli numbers. On |e| <= 1/2 the approximant's
   relative error is below 1e-18 (the 28 Taylor terms it replaces cost twice the work).
   LGAMMA15_PADE_P / LGAMMA15_PADE_Q: the [7/7] approximant of log Gamma(3/2 + t) on |t| <= 1/4, where
   the one at 2 loses digits to cancellation (log Gamma is about -0.12 there).

2. TEMME_D: the coefficients d[k][n] of Temme's uniform asymptotic expansion of the regularized
   incomplete gamma functions (DLMF 8.12.3, 8.12.4, 8.12.8-8.12.13).

    Q(a, x) = erfc(eta * sqrt(a / 2)) / 2 + exp(-a eta^2 / 2) / sqrt(2 pi a) * sum_k c_k(eta) a^-k,
    c_k(eta) = sum_n d[k][n] eta^n,

with lambda = x / a, mu = lambda - 1 and eta^2 / 2 = mu - log(1 + mu) (eta has the sign of mu).
The table has the shape of the one torch's calc_igamma/calc_igammac (aten/src/ATen/native/Math.h, after
SciPy's igam.c) use, 25 x 25 entries; it is computed here from its definition:

- mu as a power series in eta (mu = sum alpha_n eta^n) by Lagrange inversion of
  eta = mu * S(mu)^(1/2), S(mu) = 2 (mu - log(1 + mu)) / mu^2 = sum_j 2 (-1)^j mu^j / (j + 2):
  alpha_n = [mu^(n-1)] S(mu)^(-n/2) / n;
- c_0(eta) = 1/mu - 1/eta = (1/eta) dmu/deta - 1 - 1/eta, so d[0][0] = -1/3 and
  d[0][n] = (n + 2) alpha_(n+2);
- c_k(eta) = (1/eta) c'_(k-1)(eta) + (-1)^k g_k / mu (DLMF 8.12.8), whose singular parts cancel:
  d[k][n] = (-1)^k g_k d[0][n] + (n + 2) d[k-1][n+2];
- g_k: the coefficients of Stirling's series Gamma*(z) ~ sum g_k z^-k (DLMF 5.11.3), from
  log Gamma*(z) ~ sum_m B_2m / (2m (2m - 1) z^(2m-1)) (DLMF 5.11.1).

torch's copy of the table agrees with this one to the last digit where the entries matter; its
entries with both k and n large (whose terms are below 1e-25 wherever the expansion is used) lost
digits in SciPy's generation by numerical differentiation, and differ.

3. POLYGAMMA_FACTORIAL / POLYGAMMA_FACTORIAL_F32: n! as torch's calc_polygamma computes it,
   exp(lgamma(n + 1)) with the C library's lgamma/exp (lgammaf/expf for float32). glibc's lgamma is
   one ulp off the correctly rounded value for about 40% of these integers, so they are read from
   the C library itself (through ctypes, here only: the kernels do not call it); n up to 170 (34
   for float32), beyond which the product overflows.

Run ``python scripts/gen_special_tables.py``; tests/test_special_accuracy.py checks the written
module against this computation.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import decimal
import struct
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

K = 25  # terms in 1/a
N = 25  # powers of eta per term
LGAMMA_TERMS = 30  # Taylor terms of log Gamma(2 + e) behind the Pade approximant
PADE_DEGREE = 8
PADE15_DEGREE = 7
TARGET = Path(__file__).resolve().parent.parent / "src" / "dyngrad" / "_ops" / "_special_tables.py"


def _power_series_power(a: list, p, n: int) -> list:
    """The first ``n`` coefficients of f(x)^p for f = sum a[j] x^j with a[0] = 1 (J. C. P. Miller's recurrence)."""
    c = [Decimal(1)]
    for m in range(1, n):
        s = Decimal(0)
        for j in range(1, min(m, len(a) - 1) + 1):
            s += ((p + 1) * j - m) * a[j] * c[m - j]
        c.append(s / m)
    return c


def _bernoulli(n: int) -> list:
    """B_0 .. B_n as Fractions (B_1 = -1/2), from sum_{j<=m} C(m+1, j) B_j = 0."""
    b = [Fraction(1)]
    for m in range(1, n + 1):
        total = Fraction(0)
        binom = 1
        for j in range(m):
            total += binom * b[j]
            binom = binom * (m + 1 - j) // (j + 1)
        b.append(-total / (m + 1))
    return b


def stirling_coefficients(count: int) -> list:
    """g_0 .. g_(count-1) of Gamma*(z) ~ sum g_k z^-k, as Decimals."""
    bern = _bernoulli(2 * count + 2)
    log_series = [Fraction(0)] * (count + 1)  # in w = 1/z
    for m in range(1, count // 2 + 2):
        if 2 * m - 1 <= count:
            log_series[2 * m - 1] = bern[2 * m] / (2 * m * (2 * m - 1))
    g = [Fraction(1)]
    for m in range(1, count):  # exp of a series: e_m = (1/m) sum_j j l_j e_(m-j)
        g.append(sum(j * log_series[j] * g[m - j] for j in range(1, m + 1)) / m)
    return [Decimal(x.numerator) / Decimal(x.denominator) for x in g]


def _euler_maclaurin_tail(s: int, n: int, bern: list) -> Decimal:
    """sum_{m>=n} m^-s by Euler-Maclaurin: n^(1-s)/(s-1) + n^-s/2 + sum_j B_2j/(2j)! (s)_(2j-1) n^(-s-2j+1)."""
    nd = Decimal(n)
    total = nd ** (1 - s) / (s - 1) + nd ** (-s) / 2
    rising = Decimal(s)  # s (s+1) ... (s+2j-2)
    factorial = Decimal(2)  # (2j)!
    for j in range(1, len(bern) // 2):
        b = bern[2 * j]
        total += Decimal(b.numerator) / Decimal(b.denominator) / factorial * rising * nd ** (-s - 2 * j + 1)
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        factorial *= (2 * j + 1) * (2 * j + 2)
    return total


def euler_gamma_and_zeta(terms: int) -> tuple:
    """Euler's gamma and [zeta(2), ..., zeta(terms)] as Decimals (Euler-Maclaurin, DLMF 2.10.1)."""
    bern = _bernoulli(40)
    n = 40  # direct terms before the Euler-Maclaurin tail
    harmonic = sum(Decimal(1) / m for m in range(1, n))
    tail = Decimal(1) / (2 * n)
    for j in range(1, 20):  # gamma = H_(n-1) - log n + 1/(2n) + sum_j B_2j / (2j n^2j)
        b = bern[2 * j]
        tail += Decimal(b.numerator) / Decimal(b.denominator) / (2 * j) / Decimal(n) ** (2 * j)
    euler_gamma = harmonic - Decimal(n).ln() + tail
    zetas = [1 + sum(Decimal(m) ** (-k) for m in range(2, n)) + _euler_maclaurin_tail(k, n, bern)
             for k in range(2, terms + 1)]
    return euler_gamma, zetas


def _pi() -> Decimal:
    """pi by Machin's formula, 16 atan(1/5) - 4 atan(1/239)."""
    def atan_inv(m: int) -> Decimal:
        total, power, k = Decimal(0), Decimal(1) / m, 0
        while power > Decimal(10) ** (-decimal.getcontext().prec - 2):
            total += (-1) ** k * power / (2 * k + 1)
            power /= m * m
            k += 1
        return total

    return 16 * atan_inv(5) - 4 * atan_inv(239)


def lgamma2_series(terms: int = LGAMMA_TERMS) -> list:
    """c_1 .. c_terms of log Gamma(2 + e) = sum c_k e^k (DLMF 5.7.3 at 2), as Decimals."""
    euler_gamma, zetas = euler_gamma_and_zeta(terms)
    return [1 - euler_gamma] + [(-1) ** k * (zetas[k - 2] - 1) / k for k in range(2, terms + 1)]


def lgamma15_series(terms: int = LGAMMA_TERMS) -> list:
    """c_0 .. c_terms of log Gamma(3/2 + t) = sum c_k t^k: log Gamma(3/2) = log(sqrt(pi) / 2),
    psi(3/2) = 2 - gamma - 2 log 2 and (-1)^k zeta(k, 3/2) / k with zeta(k, 3/2) = (2^k - 1) zeta(k) - 2^k
    (DLMF 5.4.13, 5.4.15, 25.11.11)."""
    euler_gamma, zetas = euler_gamma_and_zeta(terms)
    log2 = Decimal(2).ln()
    head = [_pi().ln() / 2 - log2, 2 - euler_gamma - 2 * log2]
    return head + [(-1) ** k * ((2**k - 1) * zetas[k - 2] - 2**k) / k for k in range(2, terms + 1)]


def pade(a: list, degree: int) -> tuple:
    """The [degree/degree] Pade approximant p/q of sum a[k] x^k (q[0] = 1), by solving
    sum_{j=0..m} q_j a_(m+i-j) = 0 for i = 1..m (Gaussian elimination with partial pivoting)."""
    m = degree
    rows = [[a[m + i - j] for j in range(1, m + 1)] + [-a[m + i]] for i in range(1, m + 1)]
    for col in range(m):
        pivot = max(range(col, m), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(m):
            if r != col:
                f = rows[r][col] / rows[col][col]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[col])]
    q = [Decimal(1)] + [rows[i][m] / rows[i][i] for i in range(m)]
    p = [sum(q[j] * a[i - j] for j in range(min(i, m) + 1)) for i in range(m + 1)]
    return p, q


def temme_coefficients(k_terms: int = K, n_terms: int = N) -> list:
    """d[k][n] for k < k_terms, n < n_terms, as Decimals."""
    m_terms = n_terms + 2 * k_terms  # d[k] needs d[k-1] to two more powers
    s = [Decimal(2 * (-1) ** j) / (j + 2) for j in range(m_terms + 3)]
    alpha = [Decimal(0)]
    for n in range(1, m_terms + 3):
        alpha.append(_power_series_power(s, Decimal(-n) / 2, n)[n - 1] / n)
    d0 = [Decimal(-1) / 3] + [(n + 2) * alpha[n + 2] for n in range(1, m_terms)]
    g = stirling_coefficients(k_terms)
    d = [d0]
    for k in range(1, k_terms):
        prev = d[-1]
        d.append([(-1) ** k * g[k] * d0[n] + (n + 2) * prev[n + 2] for n in range(m_terms - 2 * k)])
    return [row[:n_terms] for row in d]


def polygamma_factorials() -> tuple:
    """exp(lgamma(n + 1)) for n = 0..170 in double, and expf(lgammaf(n + 1)) for n = 0..34, from libm."""
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    for name, kind in (("lgamma", ctypes.c_double), ("exp", ctypes.c_double), ("lgammaf", ctypes.c_float),
                       ("expf", ctypes.c_float)):
        getattr(libm, name).restype = kind
        getattr(libm, name).argtypes = [kind]
    double = tuple(libm.exp(libm.lgamma(n + 1.0)) for n in range(171))
    single = tuple(libm.expf(libm.lgammaf(n + 1.0)) for n in range(35))
    # the float32 values, exactly (a float holds them)
    single = tuple(struct.unpack("f", struct.pack("f", v))[0] for v in single)
    return double, single


def render() -> str:
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        pade_p, pade_q = pade(lgamma2_series(), PADE_DEGREE)  # of log Gamma(2 + e) / e: the series shifted by one
        pade15_p, pade15_q = pade(lgamma15_series(), PADE15_DEGREE)
        table = temme_coefficients()
    lines = [
        '"""Constants of the special-function kernels. Generated by scripts/gen_special_tables.py (which says',
        'how each is computed): do not edit."""',
        "",
        "# log Gamma(2 + e) = e * P(e) / Q(e) on |e| <= 1/2: the [8/8] Pade approximant of its Taylor series",
        "# (DLMF 5.7.3), lowest power first",
    ]
    pades = (("LGAMMA2_PADE_P", pade_p), ("LGAMMA2_PADE_Q", pade_q), None, ("LGAMMA15_PADE_P", pade15_p),
             ("LGAMMA15_PADE_Q", pade15_q))
    for entry in pades:
        if entry is None:
            lines += ["# log Gamma(3/2 + t) = P(t) / Q(t) on |t| <= 1/4: the [7/7] Pade approximant of its Taylor series"]
            continue
        name, values = entry
        lines.append(f"{name} = (")
        reprs = [repr(float(v)) for v in values]
        for i in range(0, len(reprs), 4):
            lines.append("    " + ", ".join(reprs[i : i + 4]) + ",")
        lines.append(")")
    double, single = polygamma_factorials()
    for name, values in (("POLYGAMMA_FACTORIAL", double), ("POLYGAMMA_FACTORIAL_F32", single)):
        what = "expf(lgammaf(n + 1)), float32" if name.endswith("F32") else "exp(lgamma(n + 1))"
        lines += ["", f"# n! as torch's calc_polygamma computes it: {what}, in the C library", f"{name} = ("]
        reprs = [repr(float(v)) for v in values]
        for i in range(0, len(reprs), 4):
            lines.append("    " + ", ".join(reprs[i : i + 4]) + ",")
        lines.append(")")
    lines += [
        "",
        "# Temme's d[k][n] (DLMF 8.12.12-8.12.13), as in torch's calc_igamma/calc_igammac",
        "TEMME_D = (",
    ]
    for row in table:
        values = [repr(float(v)) for v in row]
        lines.append("    (")
        for i in range(0, len(values), 4):
            lines.append("        " + ", ".join(values[i : i + 4]) + ",")
        lines.append("    ),")
    lines.append(")")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    TARGET.write_text(render())
    print(f"wrote {TARGET}")
