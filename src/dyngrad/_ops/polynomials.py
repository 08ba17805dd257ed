"""torch.special's orthogonal polynomials: Chebyshev T, U, V, W (and their shifted forms on [0, 1]),
Hermite H and He, Laguerre L and Legendre P, of degree ``n`` at ``x``.

``x`` and ``n`` may each be a tensor or a number (not both numbers); they broadcast together. The
result dtype is torch's promotion of the two, integers and bools giving the default float dtype;
float16 and complex raise torch's NotImplementedError. ``n`` is first converted to that dtype and
then truncated to an integer, as torch's kernels do (``static_cast<int64_t>(n)``: 3.7 is 3; NaN,
+-inf and values beyond int64 count as negative). A negative degree gives 0.

The values follow PyTorch's aten/src/ATen/native/Math.h (``chebyshev_polynomial_t_forward`` ...):
each polynomial's three-term recurrence, in the working dtype (float32 in float32, as torch), with
torch's special cases: the values at x = +-1 (x = 0, 1 for the shifted forms), the closed forms
cos(n acos x), sin((n+1) acos x) / sin(acos x) ... that torch switches to inside (-1, 1) above a
degree (6 for T and the shifted T, U, V; 8 for U, V, W; 4 for the shifted W), the recurrences'
stop once a value is NaN (so an overflow inf - inf gives NaN, not inf), and Hermite's NaN above
degree 128 (float32) or 512 (float64). The recurrence runs on all elements at once, one step per
degree: its cost grows with the largest degree asked for.

The arithmetic rounds as torch's build does (fused multiply-adds, glibc's acos/cos/sin:
cpu_rounding.py): float64 results are bitwise torch's (but for an ulp in rare cases), float32
recurrences too; float32 closed forms differ where glibc's acosf rounds differently, by the
error torch's own result carries there (about n ulps of the angle).

Known difference: at x = NaN with n >= 2, every kernel here but T, H and He returns a variable
torch never assigns (its recurrence stops at once on NaN; 0, 1 or a denormal in practice); NaN here.

torch does not differentiate these functions: the result never requires grad.
"""

from __future__ import annotations

import inspect

from .._backend import xp
from .._dtype import default_float_np, scalar_type_name
from .._dtype import result_type as _result_type
from .._tensor import Tensor, wrap
from . import cpu_rounding as cr
from .broadcast import broadcast_shape
from .out_param import write_out

_SIGNATURES = (
    " * (Tensor x, Tensor n, *, Tensor out = None)\n"
    " * (Number x, Tensor n, *, Tensor out = None)\n"
    " * (Tensor x, Number n, *, Tensor out = None)\n"
)


def _type_name(value) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def _is_number(value) -> bool:
    return isinstance(value, (bool, int, float, complex, xp.number, xp.bool_))


def _invalid_arguments(fn_name: str, args: tuple, kwargs: dict) -> TypeError:
    """torch's argument-parser error. Its keyword list comes out in reverse order (an unordered_map),
    and with no positional argument every keyword is followed by ", "."""
    keywords = [f"{k}={_type_name(v)}" for k, v in reversed(kwargs.items())]
    positional = [_type_name(a) for a in args]
    got = ", ".join(positional + keywords) if positional else "".join(k + ", " for k in keywords)
    return TypeError(
        f"{fn_name}() received an invalid combination of arguments - got ({got}), but expected one of:\n{_SIGNATURES}"
    )


def _parse(fn_name: str, args: tuple, kwargs: dict):
    """(x, n, out) from torch's three signatures, or torch's TypeError."""
    bound = dict(zip(("x", "n"), args))
    if len(args) > 2 or any(k not in ("x", "n", "out") or k in bound for k in kwargs):
        raise _invalid_arguments(fn_name, args, kwargs)
    bound.update(kwargs)
    x, n, out = bound.get("x"), bound.get("n"), bound.get("out")
    ok = "x" in bound and "n" in bound and (out is None or isinstance(out, Tensor))
    ok = ok and all(isinstance(v, Tensor) or _is_number(v) for v in (x, n))
    if not ok or not (isinstance(x, Tensor) or isinstance(n, Tensor)):
        raise _invalid_arguments(fn_name, args, kwargs)
    return x, n, out


def _python_number(value):
    """A NumPy scalar as the Python number torch's parser sees (a weak operand in promotion)."""
    return value.item() if isinstance(value, (xp.number, xp.bool_)) else value


def _operands(x, n, kernel_name: str):
    """x and n as arrays of the promoted float dtype, broadcast together."""
    xd = x._data if isinstance(x, Tensor) else _python_number(x)
    nd = n._data if isinstance(n, Tensor) else _python_number(n)
    rt = _result_type(xd, nd)
    if rt.kind in "biu":
        rt = default_float_np()
    if rt.kind == "c" or rt == xp.float16:
        raise NotImplementedError(f"\"{kernel_name}\" not implemented for '{scalar_type_name(rt)}'")
    xa = xp.asarray(xd).astype(rt)
    na = xp.asarray(nd).astype(rt)
    shape = broadcast_shape(xa.shape, na.shape)
    return xp.broadcast_to(xa, shape), xp.broadcast_to(na, shape), rt


def _degree(n):
    """static_cast<int64_t>(n) as torch's x86-64 build does it: truncation; NaN, inf and values out of
    int64's range give INT64_MIN (here -1: only the sign is looked at)."""
    valid = xp.isfinite(n) & (xp.abs(n) < 2.0**63)
    return xp.where(valid, xp.trunc(xp.where(valid, n, 0)), -1).astype(xp.int64)


def _recurrence(x, q, p, n, step, stop_on_nan: bool):
    """Run ``r = step(j, x, q, p); p, q = q, r`` for j = 1 .. n - 1 on each element (n >= 2), stopping an
    element early once its q is NaN when ``stop_on_nan`` (Math.h's ``!std::isnan(q)`` loop condition).

    The arrays are 1-D; the elements still running are kept compact, so each step costs only them.
    """
    result = q.copy()
    where = xp.arange(x.size)
    j = 1
    while where.size:
        done = n <= j
        if stop_on_nan:
            done |= xp.isnan(q)
        if done.any():
            result[where[done]] = q[done]
            keep = ~done
            where, x, q, p, n = where[keep], x[keep], q[keep], p[keep], n[keep]
            if not where.size:
                break
        q, p = step(j, x, q, p), q
        j += 1
    return result


def _evaluate(x, n, start, recurrence_step, stop_on_nan, cases):
    """The polynomial on flat arrays: ``cases`` is a list of (mask, value) applied in order (the first
    match wins, as Math.h's early returns); elements no case matches run the recurrence from
    ``start(x) = (p, q)`` = (degree 0, degree 1)."""
    out = xp.zeros_like(x)
    pending = xp.ones(x.shape, dtype=bool)
    for mask, value in cases:
        mask = mask & pending
        if mask.any():
            out[mask] = xp.broadcast_to(value, x.shape)[mask] if xp.ndim(value) else value
            pending &= ~mask
    if pending.any():
        xs, ns = x[pending], n[pending]
        p, q = start(xs)
        if ns.size:
            out[pending] = xp.where(ns == 0, p, q)  # degrees 0 and 1; higher ones are overwritten below
            long = ns >= 2
            if long.any():
                rows = xp.flatnonzero(pending)[long]
                out[rows] = _recurrence(xs[long], q[long], p[long], ns[long], recurrence_step, stop_on_nan)
    return out


def _as(value, dtype):
    return xp.asarray(value).astype(dtype)


# ----------------------------------------------------------------- each polynomial's cases


def _odd_sign(n):
    return xp.where(n % 2 == 0, 1, -1)


def _chebyshev_t(x, n):
    dt = x.dtype
    inside = xp.abs(x) < 1.0
    angle = cr.acos(xp.where(inside, x, 0.0))
    cases = [
        (n < 0, 0.0),
        (xp.abs(x) == 1.0, _as(xp.where((x > 0) | (n % 2 == 0), 1, -1), dt)),
        ((n > 6) & inside, cr.cos(n.astype(dt) * angle)),
    ]

    def step(j, x, q, p):
        return cr.fms(x + x, q, p)

    return _evaluate(x, n, lambda x: (xp.ones_like(x), x.copy()), step, True, cases)


def _chebyshev_u(x, n):
    dt = x.dtype
    inside = xp.abs(x) < 1.0
    angle = cr.acos(xp.where(inside, x, 0.0))
    s = cr.sin(angle)
    m = (n + 1).astype(dt)
    closed = xp.where(s != 0.0, cr.sin(m * angle) / s, m * cr.cos(m * angle) / x)
    cases = [
        (n < 0, 0.0),
        (xp.abs(x) == 1.0, _as(xp.where((x > 0) | (n % 2 == 0), n + 1, -(n + 1)), dt)),
        ((n > 8) & inside, closed),
    ]

    def step(j, x, q, p):
        return cr.fms(x + x, q, p)

    return _evaluate(x, n, lambda x: (xp.ones_like(x), x + x), step, True, cases)


def _chebyshev_v(x, n):
    dt = x.dtype
    inside = xp.abs(x) < 1.0
    angle = cr.acos(xp.where(inside, x, 0.0))
    odd_value = _as(_odd_sign(n) * (n + n + 1), dt)
    closed = xp.where(cr.sin(angle / 2.0) != 1.0, cr.cos((n.astype(dt) + 0.5) * angle) / cr.cos(angle / 2.0), odd_value)
    cases = [
        (n < 0, 0.0),
        ((xp.abs(x) == 1.0) & (x > 0), 1.0),
        (xp.abs(x) == 1.0, odd_value),
        ((n > 8) & inside, closed),
    ]

    def step(j, x, q, p):
        return cr.fms(x + x, q, p)

    return _evaluate(x, n, lambda x: (xp.ones_like(x), x + x - 1.0), step, True, cases)


def _chebyshev_w(x, n):
    dt = x.dtype
    inside = xp.abs(x) < 1.0
    angle = cr.acos(xp.where(inside, x, 0.0))
    at_one = _as(xp.where(x > 0, n + n + 1, _odd_sign(n)), dt)
    closed = xp.where(cr.cos(angle / 2.0) != 1.0, cr.sin((n.astype(dt) + 0.5) * angle) / cr.sin(angle / 2.0), at_one)
    cases = [
        (n < 0, 0.0),
        (xp.abs(x) == 1.0, at_one),
        ((n > 8) & inside, closed),
    ]

    def step(j, x, q, p):
        return cr.fms(x + x, q, p)

    return _evaluate(x, n, lambda x: (xp.ones_like(x), x + x + 1.0), step, True, cases)


def _shifted(x):
    """x + x - 1, Math.h's argument of the shifted polynomials (it spells the sums out this way)."""
    return x + x - 1.0


def _shifted_step(j, x, q, p):
    y = _shifted(x)
    return cr.fms(y + y, q, p)


def _shifted_t(x, n):
    dt = x.dtype
    y = _shifted(x)
    inside = xp.abs(y) < 1.0
    angle = cr.acos(xp.where(inside, y, 0.0))
    cases = [
        (n < 0, 0.0),
        (x == 1.0, 1.0),
        (x == 0.0, _as(_odd_sign(n), dt)),
        ((n > 6) & inside, cr.cos(n.astype(dt) * angle)),
    ]
    return _evaluate(x, n, lambda x: (xp.ones_like(x), _shifted(x)), _shifted_step, True, cases)


def _shifted_u(x, n):
    dt = x.dtype
    y = _shifted(x)
    inside = xp.abs(y) < 1.0
    angle = cr.acos(xp.where(inside, y, 0.0))
    s = cr.sin(angle)
    m = (n + 1).astype(dt)
    closed = xp.where(s != 0.0, cr.sin(m * angle) / s, m * cr.cos(m * angle) / y)
    cases = [
        (n < 0, 0.0),
        (x == 1.0, _as(n + 1, dt)),
        (x == 0.0, _as(_odd_sign(n) * (n + 1), dt)),
        ((n > 6) & inside, closed),
    ]
    return _evaluate(x, n, lambda x: (xp.ones_like(x), _shifted(x) + _shifted(x)), _shifted_step, True, cases)


def _shifted_v(x, n):
    dt = x.dtype
    y = _shifted(x)
    inside = xp.abs(y) < 1.0
    angle = cr.acos(xp.where(inside, y, 0.0))
    odd_value = _as(_odd_sign(n) * (n + n + 1), dt)
    closed = xp.where(cr.sin(angle / 2.0) != 1.0, cr.cos((n.astype(dt) + 0.5) * angle) / cr.cos(angle / 2.0), odd_value)
    cases = [
        (n < 0, 0.0),
        (x == 1.0, 1.0),
        (x == 0.0, odd_value),
        ((n > 6) & inside, closed),
    ]
    return _evaluate(x, n, lambda x: (xp.ones_like(x), _shifted(x) + _shifted(x) - 1.0), _shifted_step, True, cases)


def _shifted_w(x, n):
    dt = x.dtype
    y = _shifted(x)
    inside = xp.abs(y) < 1.0
    angle = cr.acos(xp.where(inside, y, 0.0))
    sign_value = _as(_odd_sign(n), dt)
    closed = xp.where(cr.cos(angle / 2.0) != 1.0, cr.sin((n.astype(dt) + 0.5) * angle) / cr.sin(angle / 2.0), sign_value)
    cases = [
        (n < 0, 0.0),
        (x == 1.0, _as(n + n + 1, dt)),
        (x == 0.0, sign_value),
        ((n > 4) & inside, closed),
    ]
    return _evaluate(x, n, lambda x: (xp.ones_like(x), _shifted(x) + _shifted(x) + 1.0), _shifted_step, True, cases)


def _hermite_limit(dtype) -> int:
    """Math.h getHermitianLimit: above this degree torch returns NaN (the recurrence would overflow)."""
    return 128 if dtype == xp.float32 else 512


def _hermite_h(x, n):
    cases = [
        (n < 0, 0.0),
        (n == 0, 1.0),
        (n == 1, x + x),
        (n > _hermite_limit(x.dtype), xp.nan),
    ]

    def step(j, x, q, p):  # Math.h's k = 2j
        return cr.fms(x + x, q, (2.0 * j) * p)

    return _evaluate(x, n, lambda x: (xp.ones_like(x), x + x), step, False, cases)


def _hermite_he(x, n):
    cases = [
        (n < 0, 0.0),
        (n == 0, 1.0),
        (n == 1, x),
        (n > _hermite_limit(x.dtype), xp.nan),
    ]

    def step(j, x, q, p):
        return cr.fms(x, q, float(j) * p)

    return _evaluate(x, n, lambda x: (xp.ones_like(x), x.copy()), step, False, cases)


def _laguerre_l(x, n):
    cases = [
        (n < 0, 0.0),
        (xp.abs(x) == 0.0, 1.0),
    ]

    def step(j, x, q, p):
        return cr.fms(2.0 * j + (1.0 - x), q, float(j) * p) / (j + 1.0)

    return _evaluate(x, n, lambda x: (xp.ones_like(x), 1.0 - x), step, True, cases)


def _legendre_p(x, n):
    dt = x.dtype
    cases = [
        (n < 0, 0.0),
        (xp.abs(x) == 1.0, _as(xp.where((x > 0) | (n % 2 == 0), 1, -1), dt)),
    ]

    def step(j, x, q, p):
        return cr.fms((2.0 * j + 1.0) * x, q, float(j) * p) / (j + 1.0)

    return _evaluate(x, n, lambda x: (xp.ones_like(x), x.copy()), step, True, cases)


# ----------------------------------------------------------------- public functions


_SIGNATURE = inspect.Signature([
    inspect.Parameter("x", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    inspect.Parameter("n", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None),
])


def _polynomial(kernel, name: str, title: str):
    fn_name = "special_" + name
    kernel_name = name + "_cpu"

    def fn(*args, **kwargs):
        x, n, out = _parse(fn_name, args, kwargs)
        xa, na, rt = _operands(x, n, kernel_name)
        shape = xa.shape
        values = kernel(xa.reshape(-1), _degree(na.reshape(-1))).reshape(shape).astype(rt, copy=False)
        return write_out(wrap(values), out)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__signature__ = _SIGNATURE  # what help() shows; the parsing above follows torch's three overloads
    fn.__doc__ = (
        f"{title} of degree ``n`` at ``x`` (torch.special.{name}(x, n, *, out=None)).\n\n"
        "Shapes: x and n broadcast (either may be a number, not both). Dtype: torch's promotion of x and n, "
        "integers and bools giving the default float dtype. n is truncated to an integer; a negative n gives 0.\n"
        "Not differentiable (as in torch). Source: PyTorch's Math.h "
        f"``{name}_forward`` (recurrence and special cases; see the module docstring).\n"
        "Raises: TypeError for arguments outside torch's signatures; NotImplementedError for float16 and complex; "
        "RuntimeError when x and n do not broadcast."
    )
    return fn


chebyshev_polynomial_t = _polynomial(_chebyshev_t, "chebyshev_polynomial_t", "The Chebyshev polynomial T_n")
chebyshev_polynomial_u = _polynomial(_chebyshev_u, "chebyshev_polynomial_u", "The Chebyshev polynomial U_n")
chebyshev_polynomial_v = _polynomial(_chebyshev_v, "chebyshev_polynomial_v", "The Chebyshev polynomial V_n")
chebyshev_polynomial_w = _polynomial(_chebyshev_w, "chebyshev_polynomial_w", "The Chebyshev polynomial W_n")
shifted_chebyshev_polynomial_t = _polynomial(_shifted_t, "shifted_chebyshev_polynomial_t",
                                             "The shifted Chebyshev polynomial T*_n(x) = T_n(2x - 1)")
shifted_chebyshev_polynomial_u = _polynomial(_shifted_u, "shifted_chebyshev_polynomial_u",
                                             "The shifted Chebyshev polynomial U*_n(x) = U_n(2x - 1)")
shifted_chebyshev_polynomial_v = _polynomial(_shifted_v, "shifted_chebyshev_polynomial_v",
                                             "The shifted Chebyshev polynomial V*_n(x) = V_n(2x - 1)")
shifted_chebyshev_polynomial_w = _polynomial(_shifted_w, "shifted_chebyshev_polynomial_w",
                                             "The shifted Chebyshev polynomial W*_n(x) = W_n(2x - 1)")
hermite_polynomial_h = _polynomial(_hermite_h, "hermite_polynomial_h", "The physicists' Hermite polynomial H_n")
hermite_polynomial_he = _polynomial(_hermite_he, "hermite_polynomial_he", "The probabilists' Hermite polynomial He_n")
laguerre_polynomial_l = _polynomial(_laguerre_l, "laguerre_polynomial_l", "The Laguerre polynomial L_n")
legendre_polynomial_p = _polynomial(_legendre_p, "legendre_polynomial_p", "The Legendre polynomial P_n")

SPECIAL_EXPORTS: dict = dict(
    chebyshev_polynomial_t=chebyshev_polynomial_t, chebyshev_polynomial_u=chebyshev_polynomial_u,
    chebyshev_polynomial_v=chebyshev_polynomial_v, chebyshev_polynomial_w=chebyshev_polynomial_w,
    shifted_chebyshev_polynomial_t=shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u=shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v=shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w=shifted_chebyshev_polynomial_w,
    hermite_polynomial_h=hermite_polynomial_h, hermite_polynomial_he=hermite_polynomial_he,
    laguerre_polynomial_l=laguerre_polynomial_l, legendre_polynomial_p=legendre_polynomial_p,
)
