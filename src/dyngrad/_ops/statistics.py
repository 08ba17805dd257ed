"""Reductions, scans and statistics beyond reduction.py: logcumsumexp, aminmax, dist, renorm, quantile,
nanquantile, cov and corrcoef.

Gradients (derivatives.yaml and FunctionsManual.cpp):
- logcumsumexp: logcumsumexp_backward: with the gradient split by sign into log-magnitudes (the lowest finite
  value standing for log 0), grad_in = exp(rev_logcumsumexp(log g+ - result) + x) - exp(... log g- ...),
  where rev_logcumsumexp is logcumsumexp from the end; complex: conj(exp(rev_logcumsumexp(log(conj g) - result) + x));
- aminmax: each output's gradient is spread evenly over the elements equal to it (as amin / amax);
- dist(x, y, p) = ||x - y||_p: norm_backward of x - y (sign(d) for p = 1, d / n for p = 2, d |d|^(p-2) / n^(p-1)
  in general, the elements of largest magnitude for p = inf, zero where the norm is 0); y gets the negative;
- renorm: renorm_backward: with n the p-norm of each slice and f = maxnorm / (n + 1e-7), slices above maxnorm
  get f * grad - (f / (n + 1e-7)) * norm_backward(sum(x.conj() * grad)), the others grad.
quantile, nanquantile, cov and corrcoef are compositions of recorded ops, as in torch (aten/native/Sorting.cpp
quantile_impl, Correlation.cpp), so their nodes are torch's.
"""

from __future__ import annotations

import math

from .._backend import xp
from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS, scalar_type_name
from .._tensor import Tensor, _wrap_dim, wrap
from .reduction import return_type
from .registry import Op, apply, apply_multi, register


def _need_tensor(fn_name: str, value, arg: str = "input", position: int = 1) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn_name}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}")


def _torch():
    import dyngrad

    return dyngrad


# ------------------------------------------------------------------ logcumsumexp
def _logcumsumexp_array(a, axis):
    if a.dtype.kind == "c":
        from .complex_support import logaddexp

        out = xp.empty_like(a)
        a = a.astype(xp.complex128)  # complex64 accumulates in complex128, as ATen's CPU kernel
        moved = xp.moveaxis(a, axis, 0)
        acc = moved[0] if moved.shape[0] else None
        res = xp.moveaxis(out, axis, 0)
        for i in range(moved.shape[0]):
            acc = moved[0] if i == 0 else logaddexp(acc, moved[i])
            res[i] = acc
        return out
    with xp.errstate(all="ignore"):  # float32 accumulates in float64, as ATen's CPU kernel (acc_type double)
        wide = a.astype(xp.float64) if a.dtype == xp.float32 else a
        return xp.logaddexp.accumulate(wide, axis=axis).astype(a.dtype) if a.size else a.copy()


@register
class LogcumsumexpBackward0(Op):
    """logcumsumexp(input, dim) = log(cumsum(exp(input), dim)) without overflow; gradient in the module docstring."""

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, dim):
        if a.ndim == 0:
            return a.copy()
        return _logcumsumexp_array(a, dim)

    def backward(self, g):
        T = _torch()
        (x,) = self.saved()[:1]
        result = self.saved_result()
        (dim,) = self._params
        if x.ndim == 0 or g.numel() == 0:
            return (g,)

        def reverse_logcumsumexp(t):
            return T.flip(logcumsumexp(T.flip(t, (dim,)), dim), (dim,))

        if g.is_complex():  # no split by sign needed: log of the conjugated gradient
            return (T.exp(reverse_logcumsumexp(T.log(g.conj()) - result) + x).conj(),)
        lowest = wrap(xp.asarray(xp.finfo(g._data.dtype).min, dtype=g._data.dtype))
        log_abs = T.log(T.abs(g))
        log_pos = T.where(g > 0, log_abs, lowest)
        log_neg = T.where(g < 0, log_abs, lowest)

        out_pos = T.exp(reverse_logcumsumexp(log_pos - result) + x)
        out_neg = T.exp(reverse_logcumsumexp(log_neg - result) + x)
        return (out_pos - out_neg,)


def logcumsumexp(input, dim, *, out=None):  # noqa: A002 - torch's name
    """torch.logcumsumexp(input, dim): log(cumsum(exp(input), dim)), computed stably; same shape and dtype
    (integer inputs give the default float dtype). Raises IndexError for dim out of range, NotImplementedError
    for bool."""
    _need_tensor("logcumsumexp", input)
    a = input._data
    d = _wrap_dim(dim, a.ndim)
    if a.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        from .._dtype import _limited_in_use, default_float_np

        if _limited_in_use[0]:  # (uint16/32/64: torch's kernel refuses them before promoting)
            from .limited_dtypes import refuse

            refuse("logcumsumexp_out_cpu", a)

        a = a.astype(default_float_np())
    return apply(LogcumsumexpBackward0, (input,), (d,), (a,))


# ------------------------------------------------------------------ aminmax
_AminmaxResult = return_type("aminmax", ("min", "max"))


@register
class AminmaxBackward0(Op):
    """aminmax(input, dim=None, keepdim=False) = (amin, amax); each output's gradient is shared evenly among the
    elements equal to it (derivatives.yaml, as amin / amax)."""

    save_inputs = True

    @staticmethod
    def forward(a, axis, keepdim):
        return xp.min(a, axis=axis, keepdims=keepdim), xp.max(a, axis=axis, keepdims=keepdim)

    def backward(self, g_min, g_max=None):
        (x,) = self.saved()
        axis, keepdim = self._params
        xd = x._data
        total = None
        for g, pick in ((g_min, xp.min), (g_max, xp.max)):
            if g is None:
                continue
            ext = pick(xd, axis=axis, keepdims=True)
            mask = (xd == ext) | (xp.isnan(xd) & xp.isnan(ext))
            count = mask.sum(axis=axis, keepdims=True)
            weights = wrap((mask / count).astype(xd.dtype))
            if not keepdim and axis is not None:
                g = g.unsqueeze(axis)
            elif not keepdim:
                g = g.reshape((1,) * xd.ndim)
            term = g * weights
            total = term if total is None else total + term
        return (total,)


def aminmax(input, *, dim=None, keepdim: bool = False, out=None):  # noqa: A002 - torch's name
    """torch.aminmax(input, *, dim=None, keepdim=False) -> (min, max), over all elements or along dim.

    Raises:
        RuntimeError: an empty input reduced over all elements, or along an empty dim (torch's texts);
            IndexError for a dim out of range.
    """
    _need_tensor("aminmax", input)
    a = input._data
    if a.dtype.kind == "c":
        raise RuntimeError("aminmax(): does not support complex input")
    if dim is None:
        if a.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        axis = None
        if keepdim:
            axis = tuple(range(a.ndim))
    else:
        axis = _wrap_dim(dim, a.ndim)
        if a.ndim and a.shape[axis] == 0:
            raise IndexError(f"aminmax(): Expected reduction dim {axis} to have non-zero size.")
        if a.ndim == 0:
            axis = None
    mn, mx = apply_multi(AminmaxBackward0, (input,), (axis, keepdim))
    return _AminmaxResult((mn, mx))


# ------------------------------------------------------------------ p-norm gradient, dist, renorm
def _norm_backward(g, x, p: float, norm):
    """FunctionsManual norm_backward: the gradient of ||x||_p (reduced to ``norm``, broadcast against x) times g."""
    T = _torch()
    if p == 0:
        return x * 0
    if p == 1:
        return T.sgn(x) * g
    if p == 2:
        return x * T.where(norm == 0, T.zeros_like(norm), g / norm)
    if math.isinf(p):
        mag = T.abs(x)
        mask = (mag == norm).to(x.dtype)
        count = mask.sum() if norm.ndim == 0 else None
        if count is None:
            dims = [i for i in range(x.ndim) if norm.shape[i] == 1 and x.shape[i] != 1] if norm.ndim == x.ndim else None
            count = mask.sum(dims, keepdim=True) if dims else mask
        return T.sgn(x) * mask * (g / count)
    if p < 1:
        scale = T.abs(x).pow(p - 1) * g / norm.pow(p - 1)
        return T.where(norm == 0, T.zeros_like(x), T.sgn(x) * scale)
    scale = T.abs(x).pow(p - 2) * g / norm.pow(p - 1)
    return T.where(norm == 0, T.zeros_like(x), x * scale)


@register
class DistBackward0(Op):
    """dist(input, other, p) = ||input - other||_p (broadcast); gradient in the module docstring."""

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, b, p):
        d = xp.abs(a - b)
        if p == 0:
            out = (d != 0).sum()
        elif math.isinf(p):
            out = d.max() if d.size else 0.0 if p > 0 else xp.inf
            if p < 0:
                out = d.min() if d.size else xp.inf
        elif p == 1:
            out = d.sum()
        elif p == 2:
            out = xp.sqrt((d * d).sum())
        else:
            out = (d ** p).sum() ** (1.0 / p)
        real = d.dtype
        return xp.asarray(out, dtype=real)

    def backward(self, g):
        x, y = self.saved()[:2]
        (p,) = self._params
        norm = self.saved_result()
        diff = x - y
        if self._params[0] < 0 or (math.isinf(p) and p < 0):
            p = p  # (torch's norm_backward applies the same general formula)
        gd = _norm_backward(g, diff, float(p), norm)
        return (gd if self.next_functions[0][0] is not None else None,
                -gd if self.next_functions[1][0] is not None else None)


def dist(input, other, p=2):  # noqa: A002 - torch's name
    """torch.dist(input, other, p=2): the p-norm of input - other (broadcast), a 0-d tensor of the real dtype.
    Raises RuntimeError for operands of different dtypes (torch's text)."""
    _need_tensor("dist", input)
    _need_tensor("dist", other, "other", 2)
    a, b = input._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected both inputs to have same dtype, but found {scalar_type_name(a.dtype)} and "
                           f"{scalar_type_name(b.dtype)}")
    if a.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(a.dtype)}")
    p = float(p)
    if math.isinf(p) and p > 0 and 0 in xp.broadcast_shapes(a.shape, b.shape):
        raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation "
                           "does not have an identity")
    with xp.errstate(all="ignore"):
        return apply(DistBackward0, (input, other), (float(p),))


@register
class RenormBackward0(Op):
    """renorm(input, p, dim, maxnorm): each slice along dim whose p-norm exceeds maxnorm scaled to norm maxnorm
    (by maxnorm / (norm + 1e-7)); gradient in the module docstring."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, p, dim, maxnorm):
        norm = _slice_norms(a, p, dim)
        with xp.errstate(all="ignore"):
            factor = xp.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0).astype(norm.dtype)
        return a * factor

    def backward(self, g):
        T = _torch()
        (x,) = self.saved()
        p, dim, maxnorm = self._params
        dims = [i for i in range(x.ndim) if i != dim]
        # FunctionsManual renorm_backward takes the norms and the inner products in the CPU accumulate dtype
        # (float32 -> float64, complex64 -> complex128): its float32 rounding, and for p = inf a mask of the
        # elements whose |x| equals that wider norm (often none for complex64 input, which gives NaN, as torch)
        acc = {"float32": T.float64, "complex64": T.complex128, "float16": T.float32}.get(str(x._data.dtype))
        norm = T.linalg.vector_norm(x, p, dims, keepdim=True, dtype=acc)
        inner = x.conj() * g
        if inner.is_complex():
            inner = T.real(inner)
        inner = inner.sum(dims, keepdim=True, dtype=None if acc is None else norm.dtype)
        nb = _norm_backward(inner, x, p, norm)
        invnorm = (norm + 1e-7).reciprocal()
        factor = invnorm * maxnorm
        return (T.where(norm > maxnorm, factor * g - (factor * invnorm) * nb, g),)


def _slice_norms(a, p, dim):
    axes = tuple(i for i in range(a.ndim) if i != dim)
    m = xp.abs(a)
    if p == 0:
        return (m != 0).sum(axis=axes, keepdims=True).astype(m.dtype)
    if math.isinf(p):
        return (m.max if p > 0 else m.min)(axis=axes, keepdims=True)
    with xp.errstate(all="ignore"):
        return ((m ** p).sum(axis=axes, keepdims=True)) ** (1.0 / p)


def renorm(input, p, dim, maxnorm):  # noqa: A002 - torch's name
    """torch.renorm(input, p, dim, maxnorm): every slice input.select(dim, i) with p-norm above maxnorm rescaled
    to p-norm maxnorm; same shape and dtype.

    Raises RuntimeError for p < 0, maxnorm < 0, an input with fewer than 2 dims, or an integer input
    (torch's texts); IndexError for dim out of range.
    """
    _need_tensor("renorm", input)
    a = input._data
    if p < 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if a.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {a.ndim} dimensions")
    d = _wrap_dim(dim, a.ndim)
    if a.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"\"renorm_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    return apply(RenormBackward0, (input,), (float(p), d, float(maxnorm)))


# ------------------------------------------------------------------ quantile
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name: str, input, q, dim, keepdim, interpolation, ignore_nan):  # noqa: A002
    T = _torch()
    _need_tensor(name, input)
    a = input._data
    if a.dtype.kind not in FLOATING_KINDS:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        qt = q
        if qt.dtype != input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if qt.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    else:
        qv = float(q)
        if not 0 <= qv <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {qv}")
        qt = T.tensor(qv, dtype=input.dtype)
    if isinstance(q, Tensor) and q.numel() and not bool(((qt >= 0) & (qt <= 1)).all()):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got "
                           f"{interpolation}")
    if a.size == 0 and dim is None:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    nd = a.ndim
    if dim is not None:
        dim = _wrap_dim(dim, nd)
        if nd and a.shape[dim] == 0:
            raise IndexError(f"{name}() cannot compute quantiles over an empty dimension")  # pragma: no cover
    # output shape: q's dim first (if 1-D), then the input's shape with dim reduced (kept as 1 with keepdim)
    if dim is None:
        out_shape = [1] * nd if keepdim else []
    elif nd == 0:
        out_shape = []
    else:
        out_shape = list(a.shape)
        if keepdim:
            out_shape[dim] = 1
        elif nd:
            del out_shape[dim]
    if dim is None:
        sorted_ = T.sort(input.flatten()).values
    elif nd == 0 or dim == nd - 1:
        sorted_ = T.sort(input).values
    else:
        sorted_ = T.sort(input.unsqueeze(-1).transpose(dim, -1)).values
    # view as (*out_shape, n) with q's dim in front (1 for a scalar q)
    q_count = qt.numel()
    in_shape = list(out_shape) + [sorted_.shape[-1] if sorted_.ndim else 1]
    if nd == 0:
        in_shape = [1]
    sorted_ = sorted_.reshape(in_shape)
    n_valid = (~T.isnan(sorted_)).sum(-1, keepdim=True) if ignore_nan else None
    qb = qt.reshape([-1] + [1] * len(in_shape))  # (q, 1, ..., 1)
    if ignore_nan:
        ranks = qb * (n_valid - 1).to(input.dtype)
        last = (n_valid - 1).clamp(min=0).to(input.dtype)
        ranks = T.where(n_valid == 0, last.expand(ranks.shape) * 0, ranks)
    else:
        last_index = sorted_.shape[-1] - 1
        ranks = qb * last_index
        has_nan = T.isnan(sorted_).any(-1, keepdim=True)
        ranks = T.where(has_nan, T.full_like(ranks, float(last_index)), ranks)
    if interpolation == "lower":
        ranks = T.floor(ranks)
    elif interpolation == "higher":
        ranks = T.ceil(ranks)
    elif interpolation == "nearest":
        ranks = T.round(ranks)
    ranks = ranks.expand([q_count] + in_shape[:-1] + [1]) if ranks.shape[0] == q_count else ranks
    ranks_below = ranks.to(T.int64)
    sorted_e = sorted_.unsqueeze(0).expand([q_count] + in_shape)
    values_below = T.gather(sorted_e, -1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        weights = T.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - ranks_below
        ranks_above = T.ceil(ranks).to(T.int64)
        values_above = T.gather(sorted_e, -1, ranks_above)
        values_below = T.lerp(values_below, values_above, weights)
    if ignore_nan:
        nan_rows = (n_valid == 0).unsqueeze(0).expand(values_below.shape)
        if bool(nan_rows.any()):
            values_below = T.where(nan_rows, T.full_like(values_below, float("nan")), values_below)
    if qt.ndim == 0:
        values_below = values_below.squeeze(0)
        return values_below.squeeze_(-1) if values_below.ndim else values_below
    return values_below.squeeze_(-1)


def quantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear", out=None):  # noqa: A002
    """torch.quantile(input, q, dim=None, keepdim=False, *, interpolation='linear'): the q-th quantiles of input
    (all elements, or along dim), q a float or a 0-d / 1-D tensor in [0, 1] (a 1-D q adds a leading dim);
    interpolation between the two nearest sorted values as numpy.quantile; a NaN in a reduced slice gives NaN.

    Raises RuntimeError for non-float input, q out of range or of another dtype, an unknown interpolation, an
    empty input (torch's texts)."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear", out=None):  # noqa: A002
    """torch.nanquantile: quantile ignoring NaNs (a slice of NaNs only gives NaN); see quantile."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# ------------------------------------------------------------------ cov, corrcoef
def cov(input, *, correction: int = 1, fweights=None, aweights=None):  # noqa: A002 - torch's name
    """torch.cov(input, *, correction=1, fweights=None, aweights=None): the covariance matrix of the variables
    (rows) of a 2-D input over its observations (columns); a 1-D input is one variable (0-d result).
    As aten/native/Correlation.cpp: weighted mean, normaliser sum(w) - correction (with aweights:
    sum(w) - correction * sum(w * aweights) / sum(w)); a normaliser <= 0 warns and divides by zero.

    Raises RuntimeError for more than 2 dims, bool input, bad weights (torch's texts)."""
    import warnings

    T = _torch()
    _need_tensor("cov", input)
    if input.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype == T.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.view(1, -1) if input.ndim < 2 else input
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.ndim > 1:
            raise RuntimeError(f"cov(): expected fweights to have one or fewer dimensions but got fweights with "
                               f"{fweights.ndim} dimensions")
        if fweights.is_floating_point() or fweights.is_complex():
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{scalar_type_name(fweights._data.dtype)} dtype")
        if fweights.numel() != n_obs:
            raise RuntimeError(f"cov(): expected fweights to have the same numel as there are observations in the "
                               f"input but got {fweights.numel()} != {n_obs}")
        if n_obs and bool((fweights < 0).any()):
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        if aweights.ndim > 1:
            raise RuntimeError(f"cov(): expected aweights to have one or fewer dimensions but got aweights with "
                               f"{aweights.ndim} dimensions")
        if not aweights.is_floating_point():
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{scalar_type_name(aweights._data.dtype)} dtype")
        if aweights.numel() != n_obs:
            raise RuntimeError(f"cov(): expected aweights to have the same numel as there are observations in the "
                               f"input but got {aweights.numel()} != {n_obs}")
        if n_obs and bool((aweights < 0).any()):
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    w_sum = w.sum() if w is not None else T.tensor(n_obs, dtype=T.int64)
    if w is not None and not bool(w_sum != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x * w if w is not None else x).sum(1) / w_sum
    # the normaliser, by aten's cases; one observation with aweights only and correction 1 is aten's exact 0
    if w is None:
        norm_factor = T.tensor(n_obs - correction, dtype=T.int64)
    elif correction == 0:
        norm_factor = w_sum
    elif aweights is None:
        norm_factor = w_sum - correction
    elif fweights is None and n_obs == 1 and correction == 1:
        norm_factor = T.tensor(0, dtype=T.int64)
    else:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    if bool(norm_factor <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/Correlation.cpp:129.)", UserWarning, stacklevel=2)
        norm_factor = T.zeros_like(norm_factor)
    if n_obs == 1 and (fweights is None) != (aweights is None):
        # aten's corner case: with one observation and one kind of weights the centred input is exactly 0, so it
        # zeroes the input in place (the caller's tensor too, as torch) instead of subtracting the mean; an integer
        # input becomes float32, as the subtraction would have made it
        x.zero_()
        if not (x.is_floating_point() or x.is_complex()):
            x = x.to(T.float32)
    else:
        x = x - avg.unsqueeze(1)
    c = T.mm(x, (x * w if w is not None else x).t().conj())
    if c.is_complex() and (x.shape[0] == 1 or x.shape[1] == 1):
        # aten zeroes the imaginary part of a product of one vector with its conjugate (exactly 0 algebraically,
        # rounding noise otherwise): a 0 / 0 then gives NaN rather than inf
        re = T.real(c)
        c = T.complex(re, T.zeros_like(re))
    return T.true_divide(c, norm_factor).squeeze()


def corrcoef(input):  # noqa: A002 - torch's name
    """torch.corrcoef(input): Pearson correlation coefficients of the rows of a 2-D input (a 1-D input: 0-d,
    c / c), clipped to [-1, 1] (real and imaginary parts separately for complex), as Correlation.cpp.
    Raises RuntimeError for more than 2 dims (torch's text)."""
    T = _torch()
    _need_tensor("corrcoef", input)
    if input.ndim > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    stddev = T.sqrt(T.real(d) if d.is_complex() else d)
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    if c.is_complex():
        return T.complex(T.real(c).clip(-1, 1), T.imag(c).clip(-1, 1))
    return c.clip(-1, 1)


EXPORTS = dict(logcumsumexp=logcumsumexp, aminmax=aminmax, dist=dist, renorm=renorm, quantile=quantile,
               nanquantile=nanquantile, cov=cov, corrcoef=corrcoef)
TENSOR_METHODS = dict(EXPORTS)
