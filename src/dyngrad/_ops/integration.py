"""Numerical integration and differentiation of sampled functions (torch.trapezoid / trapz,
torch.cumulative_trapezoid, torch.gradient), torch.logspace, and the binning functions torch.bucketize and
torch.histc.

All differentiable results are compositions of recorded ops, written as aten/native/Integration.cpp and
ReduceOps.cpp (torch.gradient) compose them, so their nodes are torch's (trapezoid: MulBackward1 with a
scalar dx, DivBackward1 with sample points; cumulative_trapezoid: CumsumBackward0 / DivBackward1;
gradient: CatBackward0). The finite-difference coefficients of torch.gradient are the standard second-order
ones for uneven spacing (as numpy.gradient documents them). bucketize and histc have no gradient.
"""

from __future__ import annotations

import math

from .._backend import xp
from .._dtype import FLOATING_KINDS, _limited_in_use, scalar_type_name
from .._tensor import Tensor, _wrap_dim, wrap
from .limited_dtypes import refuse as refuse_limited


def _torch():
    import dyngrad

    return dyngrad


def _need_tensor(fn_name: str, value, arg: str = "input", position: int = 1) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn_name}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}")


def _div_scalar(t, c):
    """t / c recorded as aten's div(Tensor, Scalar) (DivBackward1), as Integration.cpp calls it."""
    from .loss import DivBackward1
    from .registry import apply

    return apply(DivBackward1, (t,), (c,))


def _mul_scalar(t, c):
    """t * c for a number c recorded as aten's mul(Tensor, Scalar) (MulBackward1); a tensor c multiplies."""
    if isinstance(c, Tensor):
        return t * c
    from .registry import apply
    from .special_ops import MulBackward1

    return apply(MulBackward1, (t,), (c,))


def _slice(t, dim, start, stop):
    return t[(slice(None),) * dim + (slice(start, stop),)]


def _empty_integral(y, dim, cumulative: bool):
    T = _torch()
    shape = list(y.shape)
    if cumulative:
        return T.zeros(shape, dtype=y.dtype if y.is_floating_point() or y.is_complex() else T.get_default_dtype())
    del shape[dim]
    return T.zeros(shape, dtype=y.dtype if y.is_floating_point() or y.is_complex() else T.get_default_dtype())


def _sample_spacing(name: str, y, x, dim):
    """x_right - x_left along dim, with a 1-D x viewed along dim (Integration.cpp)."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        view = [1] * y.ndim
        view[dim] = x.shape[0]
        x = x.view(view)
    return _slice(x, dim, 1, None) - _slice(x, dim, 0, -1)


def trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """torch.trapezoid(y, x=None, *, dx=None, dim=-1): the trapezoidal rule along dim, with sample points x (1-D
    along dim, or broadcastable to y) or a constant spacing dx (default 1); dim removed from the shape. An
    empty dim gives zeros.

    Raises RuntimeError for both x and dx, or a 1-D x of another length (torch's texts)."""
    _need_tensor("trapezoid", y, "y")
    d = _wrap_dim(dim, y.ndim)
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: received both x and dx; only one may be specified")  # pragma: no cover
    if y.shape[d] == 0:
        return _empty_integral(y, d, False)
    left, right = _slice(y, d, 0, -1), _slice(y, d, 1, None)
    if isinstance(x, Tensor):
        spacing = _sample_spacing("trapezoid", y, x, d)
        return _div_scalar((spacing * (left + right)).sum(d), 2.0)
    step = 1 if dx is None and x is None else (dx if dx is not None else x)
    return _mul_scalar(y.sum(d) - _mul_scalar(y.select(d, 0) + y.select(d, -1), 0.5), step)


def trapz(y, x=None, *, dx=None, dim: int = -1):
    """torch.trapz: trapezoid's older name (trapz(y, x, dim=-1) or trapz(y, *, dx=1, dim=-1))."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim: int = -1):
    """torch.cumulative_trapezoid(y, x=None, *, dx=None, dim=-1): the running trapezoidal integral along dim
    (one element fewer along dim than y). Sample points x or a constant dx as in trapezoid."""
    _need_tensor("cumulative_trapezoid", y, "y")
    T = _torch()
    d = _wrap_dim(dim, y.ndim)
    if y.shape[d] == 0:
        return _empty_integral(y, d, True)
    left, right = _slice(y, d, 0, -1), _slice(y, d, 1, None)
    if isinstance(x, Tensor):
        spacing = _sample_spacing("cumulative_trapezoid", y, x, d)
        return _div_scalar(T.cumsum(spacing * (left + right), d), 2.0)
    step = 1 if dx is None and x is None else (dx if dx is not None else x)
    return T.cumsum(_mul_scalar(left + right, step / 2.0) if not isinstance(step, Tensor) else step / 2.0 * (left + right), d)


# ------------------------------------------------------------------ torch.gradient
def _uniform_difference(y, h, d, edge_order):
    T = _torch()
    inner = (_slice(y, d, 2, None) - _slice(y, d, 0, -2)) / (2.0 * h)
    y0, y1, yl, yl1 = (_slice(y, d, 0, 1), _slice(y, d, 1, 2), _slice(y, d, -1, None), _slice(y, d, -2, -1))
    if edge_order == 1:
        first = (y1 - y0) / h
        last = (yl - yl1) / h
    else:
        y2, yl2 = _slice(y, d, 2, 3), _slice(y, d, -3, -2)
        first = (-1.5 * y0 + 2.0 * y1 - 0.5 * y2) / h
        last = (0.5 * yl2 - 2.0 * yl1 + 1.5 * yl) / h
    return T.cat([first, inner, last], d)


def _coordinate_difference(y, coords, d, edge_order):
    """Second-order differences for sample coordinates ``coords`` (1-D) along dim d."""
    T = _torch()
    view = [1] * y.ndim
    view[d] = -1
    dx = (coords[1:] - coords[:-1])
    a_dx, b_dx = dx[:-1].view(view), dx[1:].view(view)
    a = -b_dx / (a_dx * (a_dx + b_dx))
    b = (b_dx - a_dx) / (a_dx * b_dx)
    c = a_dx / (b_dx * (a_dx + b_dx))
    inner = a * _slice(y, d, 0, -2) + b * _slice(y, d, 1, -1) + c * _slice(y, d, 2, None)
    y0, y1, yl, yl1 = (_slice(y, d, 0, 1), _slice(y, d, 1, 2), _slice(y, d, -1, None), _slice(y, d, -2, -1))
    if edge_order == 1:
        first = (y1 - y0) / dx[0]
        last = (yl - yl1) / dx[-1]
    else:
        y2, yl2 = _slice(y, d, 2, 3), _slice(y, d, -3, -2)
        d1, d2 = dx[0], dx[1]
        first = (-(2.0 * d1 + d2) / (d1 * (d1 + d2)) * y0 + (d1 + d2) / (d1 * d2) * y1
                 - d1 / (d2 * (d1 + d2)) * y2)
        d1, d2 = dx[-2], dx[-1]
        last = (d2 / (d1 * (d1 + d2)) * yl2 - (d2 + d1) / (d1 * d2) * yl1
                + (2.0 * d2 + d1) / (d2 * (d1 + d2)) * yl)
    return T.cat([first, inner, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order: int = 1):  # noqa: A002 - torch's name
    """torch.gradient(input, *, spacing=1, dim=None, edge_order=1) -> tuple of tensors: the derivative of the
    sampled function along each dim (all dims, or the int / list ``dim``), by central differences inside and
    first- or second-order one-sided differences at the edges. ``spacing``: a number (uniform), a list of
    numbers (one per dim) or a list of 1-D coordinate tensors (one per dim).

    Raises RuntimeError for edge_order other than 1 or 2, a dim shorter than edge_order + 1, or a spacing list of
    the wrong length (torch's texts)."""
    _need_tensor("gradient", input)
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    nd = input.ndim
    if spacing is None:
        spacing = 1
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [_wrap_dim(dim, nd)]
    else:
        dims = [_wrap_dim(d, nd) for d in dim]
        for i, d in enumerate(dims):
            if d in dims[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    y = input
    if not (y.is_floating_point() or y.is_complex()):
        y = y.to(_torch().get_default_dtype())
    out = []
    for d, h in zip(dims, spacings):
        if isinstance(h, Tensor) and h.ndim == 1:
            out.append(_coordinate_difference(y, h, d, edge_order))
        else:
            out.append(_uniform_difference(y, float(h) if not isinstance(h, Tensor) else h, d, edge_order))
    return tuple(out)


# ------------------------------------------------------------------ logspace
def _logspace_values(start, end, steps, base):
    """torch's CPU kernel: base ** (start + step * i) for the first half, base ** (end - step * (steps - i - 1))
    for the rest, in float64 here."""
    if steps == 1:
        return xp.asarray([base ** start], dtype=xp.float64)
    step = (end - start) / (steps - 1)
    i = xp.arange(steps, dtype=xp.float64)
    half = steps // 2
    expo = xp.where(i < half, start + step * i, end - step * (steps - i - 1))
    with xp.errstate(all="ignore"):
        return xp.power(float(base), expo)


def logspace(start, end, steps: int, base: float = 10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False):
    """torch.logspace(start, end, steps, base=10.0, *, dtype=None, ...): ``steps`` values base ** x for x evenly
    spaced from start to end (numbers or 0-d tensors); default float dtype unless ``dtype``. No gradient.

    Raises RuntimeError for negative steps or tensors with dims (torch's texts)."""
    T = _torch()
    from .._creation import check_0d_bounds

    check_0d_bounds("logspace", start, end)
    start = start.item() if isinstance(start, Tensor) else start
    end = end.item() if isinstance(end, Tensor) else end
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    target = dtype if dtype is not None else (T.complex64 if isinstance(start, complex) or isinstance(end, complex)
                                              else T.get_default_dtype())
    from .._dtype import to_numpy

    npd = to_numpy(target)
    if steps == 0:
        values = xp.zeros((0,), dtype=npd)
    elif npd.kind in "iub":
        # integer dtypes: torch computes in the integer type's kernel from truncated start / end
        values = _logspace_values(int(start), int(end), steps, base)
        values = xp.trunc(values).astype(npd)
    elif npd.kind == "c":
        step = (end - start) / (steps - 1) if steps > 1 else 0
        expo = start + step * xp.arange(steps)
        values = (complex(base) ** expo).astype(npd)
    else:
        values = _logspace_values(float(start), float(end), steps, base).astype(npd)
    t = wrap(xp.ascontiguousarray(values))
    if requires_grad:
        t.requires_grad_(True)
    return t


# ------------------------------------------------------------------ bucketize, histc
def bucketize(input, boundaries, *, out_int32: bool = False, right: bool = False, out=None):  # noqa: A002
    """torch.bucketize(input, boundaries, *, out_int32=False, right=False): for each element its bucket index i
    with boundaries[i-1] < x <= boundaries[i] (right=False) or boundaries[i-1] <= x < boundaries[i] (right=True);
    input a tensor or a number (0-d result); int64 (int32 with out_int32).

    Raises RuntimeError for boundaries that are not 1-D (torch's text)."""
    _need_tensor("bucketize", boundaries, "boundaries", 2)
    b = boundaries._data
    if _limited_in_use[0]:
        refuse_limited("searchsorted_out_cpu", b, float8=False)
    if b.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b.ndim})")
    values = input._data if isinstance(input, Tensor) else xp.asarray(input)
    idx = xp.searchsorted(b, values, side="right" if right else "left")
    return wrap(xp.asarray(idx, dtype=xp.int32 if out_int32 else xp.int64))


def histc(input, bins: int = 100, min=0, max=0, *, out=None):  # noqa: A002 - torch's names
    """torch.histc(input, bins=100, min=0, max=0): counts of the elements in ``bins`` equal-width bins over
    [min, max] (min = max: the data's range; still equal: widened by 1 each side); elements outside are
    ignored; the last bin includes max. Same dtype as input (floats only).

    Raises RuntimeError for bins <= 0, max < min, a non-finite range, integer input (torch's texts)."""
    _need_tensor("histc", input)
    a = input._data
    if _limited_in_use[0]:
        refuse_limited("aminmax_cpu", a)
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got " + str(bins) + " for dimension 0")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {lo} max {hi}")
    if lo == hi and a.size:
        finite = a[xp.isfinite(a)]
        lo, hi = (float(a.min()), float(a.max())) if finite.size == a.size else (lo, hi)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc(): range of [{lo}, {hi}] is not finite")
    flat = a.reshape(-1)
    inside = flat[(flat >= lo) & (flat <= hi)]
    # ATen: bin = (x - min) * bins / (max - min) in the input's dtype, the maximum in the last bin
    pos = ((inside - a.dtype.type(lo)) * a.dtype.type(bins) / (a.dtype.type(hi) - a.dtype.type(lo))).astype(xp.int64)
    pos = xp.minimum(pos, bins - 1)
    counts = xp.bincount(pos, minlength=bins)[:bins]
    return wrap(counts.astype(a.dtype))


EXPORTS = dict(trapezoid=trapezoid, trapz=trapz, cumulative_trapezoid=cumulative_trapezoid, gradient=gradient,
               logspace=logspace, bucketize=bucketize, histc=histc)
TENSOR_METHODS = dict(histc=histc)
