"""Batching rules of NumPy's functions (``__array_function__``): the table ``RULES`` and its families.

- reductions (``sum``, ``max``, ``var``, ``argmax`` ...): logical axes shifted past the batch dim;
- elementwise functions that are not ufuncs (``nan_to_num``, ``where``, ``clip``, ``isclose`` ...);
- shape and movement functions, sorting, gathers (``rules_shape``);
- linear algebra on stacks of matrices (``np.linalg``: the batch dim joins the stack), ``einsum``,
  ``tensordot`` and ``dot`` (a batch letter in the subscripts), the FFTs (axes shifted);
- queries (``shape``, ``ndim``, ``result_type``) answered for the logical array.

A function without a rule runs once per sample (``array.loop``), with torch's performance warning;
functions whose output shape depends on the values (``nonzero``, ``unique``) raise torch's error.
"""

from __future__ import annotations

import string

import numpy as np

from .array import BatchedArray, batch_size_at, dynamic_shape, fail, loop, max_level, move_front, unbatched_write
from .rules_shape import RULES as _SHAPE_RULES
from .rules_shape import _flat, _front_of
from .rules_ufunc import _ndim, _wrap, align, phys_axis

RULES: dict = dict(_SHAPE_RULES)


def dispatch(func, args: tuple, kwargs: dict):
    level = max_level(args)
    if kwargs:
        lk = max_level(tuple(kwargs.values()))
        if lk > level:
            level = lk
    rule = RULES.get(func)
    if rule is not None:
        return rule(level, *args, **kwargs)
    aten = DYNAMIC.get(func)
    if aten is not None:
        if func is np.nonzero:  # torch.nonzero(as_tuple=True): torch has no rule, not even a loop
            fail("Batching rule not implemented for aten::nonzero_numpy. We could not generate a fallback.")
        dynamic_shape(aten)
    if func in IN_PLACE:
        dst = args[0] if args else next(iter(kwargs.values()))
        if type(dst) is not BatchedArray or dst.level != level:
            unbatched_write(np.shape(dst), batch_size_at(list(args) + list(kwargs.values()), level))
    return loop(func, args, kwargs, level, func.__name__)


# Functions whose output shape depends on the values: torch's vmap refuses them (aten names as torch's).
DYNAMIC = {
    np.nonzero: "nonzero", np.flatnonzero: "nonzero", np.argwhere: "nonzero",
    np.extract: "masked_select", np.histogram: "histc",
}
for _name in ("unique_values", "unique_counts", "unique_inverse", "unique_all"):
    if hasattr(np, _name):
        DYNAMIC[getattr(np, _name)] = "_unique2"

# Functions that write into their first argument: the loop is right only when that argument is batched.
IN_PLACE = {np.put, np.place, np.putmask, np.fill_diagonal}


def rule(*funcs):
    def deco(fn):
        for f in funcs:
            RULES[f] = fn
        return fn

    return deco


def _any_batched(values) -> bool:
    return any(type(v) is BatchedArray for v in values)


# ------------------------------------------------------------------ reductions
def _reduction(func, name: str):
    """func(a, axis=None, ...): the logical axes shifted past the batch dim (None: every logical axis)."""

    def rule_fn(level, a, axis=None, *args, **kwargs):
        if type(a) is not BatchedArray or a.level != level or _any_batched(args) or kwargs.get("out") is not None:
            return loop(func, (a, axis) + args, kwargs, level, name)
        where = kwargs.get("where")
        if type(where) is BatchedArray:
            kwargs["where"] = align(where, level, a.ndim)
        elif where is not None and where is not True and np.ndim(where):
            kwargs["where"] = np.asarray(where)[None]
        if _any_batched(kwargs.values()) and type(where) is not BatchedArray:
            return loop(func, (a, axis) + args, kwargs, level, name)
        return BatchedArray(func(move_front(a.value, a.bdim), phys_axis(axis, a.ndim), *args, **kwargs), 0, level)

    return rule_fn


for _f, _n in [
    (np.sum, "sum"), (np.prod, "prod"), (np.mean, "mean"), (np.std, "std"), (np.var, "var"), (np.max, "amax"),
    (np.min, "amin"), (np.amax, "amax"), (np.amin, "amin"), (np.any, "any"), (np.all, "all"),
    (np.nansum, "nansum"), (np.nanprod, "nanprod"), (np.nanmean, "nanmean"), (np.nanmax, "nanmax"),
    (np.nanmin, "nanmin"), (np.nanstd, "nanstd"), (np.nanvar, "nanvar"), (np.ptp, "ptp"), (np.median, "median"),
    (np.nanmedian, "nanmedian"), (np.count_nonzero, "count_nonzero"), (np.logaddexp.reduce, "logsumexp"),
]:
    RULES[_f] = _reduction(_f, _n)


def _quantile(func, name):
    def rule_fn(level, a, q, axis=None, *args, **kwargs):
        if type(a) is not BatchedArray or a.level != level or type(q) is BatchedArray or args or kwargs.get("out") is not None:
            return loop(func, (a, q, axis) + args, kwargs, level, name)
        r = func(move_front(a.value, a.bdim), q, phys_axis(axis, a.ndim), **kwargs)
        return BatchedArray(r, np.ndim(q), level)  # the quantiles' dims come first

    return rule_fn


for _f, _n in [(np.quantile, "quantile"), (np.percentile, "quantile"), (np.nanquantile, "nanquantile"),
               (np.nanpercentile, "nanquantile")]:
    RULES[_f] = _quantile(_f, _n)


def _arg_reduction(func, name):
    def rule_fn(level, a, axis=None, out=None, *, keepdims=False):
        if type(a) is not BatchedArray or a.level != level or out is not None:
            return loop(func, (a, axis), {"out": out, "keepdims": keepdims}, level, name)
        f = move_front(a.value, a.bdim)
        if axis is None:
            r = func(_flat(f), axis=1)
            return BatchedArray(r.reshape((r.shape[0],) + (1,) * a.ndim) if keepdims else r, 0, level)
        return BatchedArray(func(f, axis=_wrap(axis, a.ndim) + 1, keepdims=keepdims), 0, level)

    return rule_fn


RULES[np.argmax] = _arg_reduction(np.argmax, "argmax")
RULES[np.argmin] = _arg_reduction(np.argmin, "argmin")
RULES[np.nanargmax] = _arg_reduction(np.nanargmax, "nanargmax")
RULES[np.nanargmin] = _arg_reduction(np.nanargmin, "nanargmin")


@rule(np.unique)
def _unique(level, ar, *args, axis=None, **kwargs):
    """unique gives one shape per sample: refused, as torch refuses aten::_unique2 and aten::unique_dim (inside
    another op's kernel, which needs it, the op runs once per sample)."""
    dynamic_shape("_unique2" if axis is None else "unique_dim")


@rule(np.average)
def _average(level, a, axis=None, weights=None, returned=False, *, keepdims=False):
    if weights is None and not returned:
        return np.mean(a, axis=axis, keepdims=keepdims)
    return loop(np.average, (a, axis, weights, returned), {"keepdims": keepdims}, level, "average")


# ------------------------------------------------------------------ elementwise functions that are not ufuncs
def _elementwise_unary(func, name):
    """func(x, *scalars): elementwise, so it runs on the physical array as it lies."""

    def rule_fn(level, x, *args, **kwargs):
        if type(x) is not BatchedArray or x.level != level or _any_batched(args) or _any_batched(kwargs.values()):
            return loop(func, (x,) + args, kwargs, level, name)
        return BatchedArray(func(x.value, *args, **kwargs), x.bdim, level)

    return rule_fn


for _f, _n in [
    (np.nan_to_num, "nan_to_num"), (np.round, "round"), (np.around, "round"), (np.real, "real"), (np.imag, "imag"),
    (np.angle, "angle"), (np.isposinf, "isposinf"), (np.isneginf, "isneginf"), (np.iscomplex, "iscomplex"),
    (np.isreal, "isreal"), (np.sinc, "sinc"), (np.i0, "i0"), (np.fix, "trunc"), (np.conj, "conj"),
    (np.real_if_close, "real"),
]:
    RULES[_f] = _elementwise_unary(_f, _n)


def _broadcasting(func, name, n_arrays):
    """func(a, b[, c], **kw), elementwise with broadcasting: operands aligned as for a ufunc."""

    def rule_fn(level, *args, **kwargs):
        arrays, rest = args[:n_arrays], args[n_arrays:]
        if _any_batched(rest) or _any_batched(kwargs.values()) or kwargs.get("out") is not None:
            return loop(func, args, kwargs, level, name)
        n = max(_ndim(x) for x in arrays)
        r = func(*[align(x, level, n) for x in arrays], *rest, **kwargs)
        return BatchedArray(r, 0, level)

    return rule_fn


RULES[np.isclose] = _broadcasting(np.isclose, "isclose", 2)
RULES[np.clip] = _broadcasting(np.clip, "clamp", 3)


@rule(np.where)
def _where(level, condition, x=None, y=None):
    if x is None and y is None:
        dynamic_shape("nonzero")
    n = max(_ndim(condition), _ndim(x), _ndim(y))
    return BatchedArray(np.where(align(condition, level, n), align(x, level, n), align(y, level, n)), 0, level)


@rule(np.allclose)
def _allclose(level, a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return np.all(close)  # a batched bool: branching on it is data-dependent control flow


@rule(np.array_equal)
def _array_equal(level, a1, a2, equal_nan=False):
    if np.shape(a1) != np.shape(a2):
        return False
    return np.all(np.equal(a1, a2))


# ------------------------------------------------------------------ creation from an array
def _like(func, name):
    def rule_fn(level, a, *args, dtype=None, order="K", subok=True, shape=None, **kw):
        if func is np.full_like and args and type(args[0]) is BatchedArray:  # a batched fill value
            dt = np.dtype(dtype) if dtype is not None else np.result_type(a)
            return np.add(np.zeros_like(a, dtype=dt, shape=shape), args[0]).astype(dt, copy=False)
        if type(a) is not BatchedArray or a.level != level or _any_batched(args):
            return loop(func, (a,) + args, {"dtype": dtype, "shape": shape, **kw}, level, name)
        if shape is not None:
            shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
            return BatchedArray(func(move_front(a.value, a.bdim), *args, dtype=dtype, shape=(a.batch_size,) + shape),
                                0, level)
        return BatchedArray(func(a.value, *args, dtype=dtype), a.bdim, level)

    return rule_fn


for _f, _n in [(np.zeros_like, "zeros_like"), (np.ones_like, "ones_like"), (np.empty_like, "empty_like"),
               (np.full_like, "full_like")]:
    RULES[_f] = _like(_f, _n)


# ------------------------------------------------------------------ questions about the logical array
@rule(np.shape)
def _shape(level, a):
    return a.shape


@rule(np.ndim)
def _ndim_rule(level, a):
    return a.ndim


@rule(np.size)
def _size(level, a, axis=None):
    return a.size if axis is None else a.shape[axis]


@rule(np.result_type)
def _result_type(level, *arrays_and_dtypes):
    return np.result_type(*[x.dtype if type(x) is BatchedArray else x for x in arrays_and_dtypes])


@rule(np.can_cast)
def _can_cast(level, from_, to, casting="safe"):
    return np.can_cast(from_.dtype if type(from_) is BatchedArray else from_, to, casting)


@rule(np.iscomplexobj)
def _iscomplexobj(level, x):
    return x.dtype.kind == "c"


@rule(np.isrealobj)
def _isrealobj(level, x):
    return x.dtype.kind != "c"


@rule(np.may_share_memory, np.shares_memory)
def _shares(level, a, b, max_work=None):
    from .array import physical

    return np.may_share_memory(physical(a), physical(b))


# ------------------------------------------------------------------ products: einsum, tensordot, dot
_LETTERS = string.ascii_letters


def _batch_letter(subscripts: str) -> str:
    for c in reversed(_LETTERS):
        if c not in subscripts:
            return c
    raise ValueError("einsum: no letter left for the batch dim")


def _implicit_output(inputs: list) -> str:
    counts = {}
    for sub in inputs:
        for c in sub.replace("...", ""):
            counts[c] = counts.get(c, 0) + 1
    out = "".join(sorted(c for c, k in counts.items() if k == 1))
    return ("..." if any("..." in s for s in inputs) else "") + out


@rule(np.einsum)
def _einsum(level, *operands, out=None, **kwargs):
    if not isinstance(operands[0], str) or out is not None:
        return loop(np.einsum, operands, {"out": out, **kwargs}, level, "einsum")
    subscripts = operands[0].replace(" ", "")
    arrays = operands[1:]
    if "->" in subscripts:
        lhs, output = subscripts.split("->")
    else:
        lhs, output = subscripts, None
    inputs = lhs.split(",")
    if output is None:
        output = _implicit_output(inputs)
    b = _batch_letter(subscripts)
    new_inputs, phys = [], []
    for sub, x in zip(inputs, arrays):
        if type(x) is BatchedArray and x.level == level:
            new_inputs.append(b + sub)
            phys.append(move_front(x.value, x.bdim))
        else:
            new_inputs.append(sub)
            phys.append(x)
    r = np.einsum(",".join(new_inputs) + "->" + b + output, *phys, **kwargs)
    return BatchedArray(r, 0, level)


def _tensordot_subscripts(na: int, nb: int, axes_a: list, axes_b: list) -> str:
    letters = iter(_LETTERS)
    sa = [next(letters) for _ in range(na)]
    sb = [next(letters) for _ in range(nb)]
    for i, j in zip(axes_a, axes_b):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in axes_a] + [c for j, c in enumerate(sb) if j not in axes_b]
    return "".join(sa) + "," + "".join(sb) + "->" + "".join(out)


@rule(np.tensordot)
def _tensordot(level, a, b, axes=2):
    na, nb = _ndim(a), _ndim(b)
    if isinstance(axes, (int, np.integer)):
        axes_a, axes_b = list(range(na - axes, na)), list(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
    axes_a = [_wrap(i, na) for i in axes_a]
    axes_b = [_wrap(i, nb) for i in axes_b]
    return np.einsum(_tensordot_subscripts(na, nb, axes_a, axes_b), a, b)


@rule(np.dot)
def _dot(level, a, b, out=None):
    if out is not None:
        return loop(np.dot, (a, b), {"out": out}, level, "dot")
    na, nb = _ndim(a), _ndim(b)
    if na == 0 or nb == 0:
        return np.multiply(a, b)
    return np.tensordot(a, b, axes=([na - 1], [max(nb - 2, 0)]))


@rule(np.vdot)
def _vdot(level, a, b):
    return np.sum(np.multiply(np.conjugate(np.reshape(a, (-1,))), np.reshape(b, (-1,))))


@rule(np.inner)
def _inner(level, a, b):
    na, nb = _ndim(a), _ndim(b)
    if na == 0 or nb == 0:
        return np.multiply(a, b)
    return np.tensordot(a, b, axes=([na - 1], [nb - 1]))


@rule(np.outer)
def _outer(level, a, b, out=None):
    return np.multiply(np.reshape(a, (-1, 1)), np.reshape(b, (-1,)))


@rule(np.cross)
def _cross(level, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    n = max(_ndim(a), _ndim(b))
    if axis is not None:
        axisa = axisb = axisc = axis
    pa, pb = align(a, level, n), align(b, level, n)
    # an operand the level does not batch gets a leading size-1 dim, so that the axes below are its too
    pa, pb = [p if type(x) is BatchedArray and x.level == level else np.expand_dims(p, 0) for p, x in ((pa, a), (pb, b))]
    # after alignment both operands have n dims past the batch dim: shift non-negative axes by one
    fix = lambda ax, nd: ax + 1 if ax >= 0 else ax  # noqa: E731
    return BatchedArray(np.cross(pa, pb, fix(axisa, n), fix(axisb, n), fix(axisc, n)), 0, level)


# ------------------------------------------------------------------ linear algebra on stacks of matrices
def _stacked(func, name):
    """func(a, *args): ``a`` a stack of matrices (or vectors): the batch dim joins the stack."""

    def rule_fn(level, a, *args, **kwargs):
        if type(a) is not BatchedArray or a.level != level or _any_batched(args) or _any_batched(kwargs.values()):
            return loop(func, (a,) + args, kwargs, level, name)
        r = func(move_front(a.value, a.bdim), *args, **kwargs)
        return _wrap_result(r, level)

    return rule_fn


def _wrap_result(r, level):
    if isinstance(r, tuple):
        parts = [BatchedArray(x, 0, level) if hasattr(x, "shape") else x for x in r]
        return type(r)(*parts) if hasattr(r, "_fields") else tuple(parts)
    return BatchedArray(r, 0, level)


_la = np.linalg
for _f, _n in [
    (_la.inv, "linalg_inv"), (_la.det, "linalg_det"), (_la.slogdet, "linalg_slogdet"), (_la.cholesky, "linalg_cholesky"),
    (_la.qr, "linalg_qr"), (_la.svd, "linalg_svd"), (_la.eig, "linalg_eig"), (_la.eigh, "linalg_eigh"),
    (_la.eigvals, "linalg_eigvals"), (_la.eigvalsh, "linalg_eigvalsh"), (_la.pinv, "linalg_pinv"),
    (_la.matrix_rank, "linalg_matrix_rank"), (_la.matrix_power, "linalg_matrix_power"),
    (_la.svdvals, "linalg_svdvals"), (_la.matrix_transpose, "transpose"), (_la.matrix_norm, "linalg_matrix_norm"),
]:
    RULES[_f] = _stacked(_f, _n)


@rule(_la.diagonal)
def _la_diagonal(level, x, *, offset=0):
    return np.diagonal(x, offset, -2, -1)


@rule(_la.trace)
def _la_trace(level, x, *, offset=0, dtype=None):
    return np.sum(np.diagonal(x, offset, -2, -1), axis=-1, dtype=dtype)


@rule(_la.outer)
def _la_outer(level, x1, x2):
    return np.multiply(np.reshape(x1, (-1, 1)), x2)


@rule(_la.cross)
def _la_cross(level, x1, x2, *, axis=-1):
    return np.cross(x1, x2, axis=axis)


@rule(_la.vecdot)
def _la_vecdot(level, x1, x2, *, axis=-1):
    return np.sum(np.multiply(np.conjugate(x1), x2), axis=axis)


@rule(_la.tensordot)
def _la_tensordot(level, x1, x2, *, axes=2):
    return np.tensordot(x1, x2, axes=axes)


@rule(_la.solve)
def _solve(level, a, b):
    na, nb = _ndim(a), _ndim(b)
    vector = nb == 1
    b2 = np.expand_dims(b, -1) if vector else b
    n = max(na, nb + vector)
    pa, pb = align(a, level, n), align(b2, level, n)
    if type(a) is not BatchedArray or a.level != level:  # a shared by every sample: align it to the batch too
        pa = np.broadcast_to(pa, (1,) * (np.ndim(pb) - np.ndim(pa)) + tuple(np.shape(pa))) if np.ndim(pa) < np.ndim(pb) else pa
    if type(b2) is not BatchedArray or b2.level != level:
        pb = np.broadcast_to(pb, (1,) * (np.ndim(pa) - np.ndim(pb)) + tuple(np.shape(pb))) if np.ndim(pb) < np.ndim(pa) else pb
    r = np.linalg.solve(pa, pb)
    return BatchedArray(r[..., 0] if vector else r, 0, level)


@rule(_la.norm)
def _norm(level, x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's name
    if type(x) is not BatchedArray or x.level != level or type(ord) is BatchedArray:
        return loop(np.linalg.norm, (x, ord, axis, keepdims), {}, level, "linalg_norm")
    f = move_front(x.value, x.bdim)
    n = x.ndim
    if axis is None:
        if ord is None:
            r = np.linalg.norm(_flat(f), axis=1)
            return BatchedArray(r.reshape((r.shape[0],) + (1,) * n) if keepdims else r, 0, level)
        axis = tuple(range(n))
    return BatchedArray(np.linalg.norm(f, ord, phys_axis(axis, n), keepdims), 0, level)


@rule(_la.vector_norm)
def _vector_norm(level, x, *, axis=None, keepdims=False, ord=2):  # noqa: A002
    if type(x) is not BatchedArray or x.level != level:
        return loop(np.linalg.vector_norm, (x,), {"axis": axis, "keepdims": keepdims, "ord": ord}, level, "linalg_vector_norm")
    f = move_front(x.value, x.bdim)
    if axis is None:
        r = np.linalg.vector_norm(_flat(f), axis=1, ord=ord)
        return BatchedArray(r.reshape((r.shape[0],) + (1,) * x.ndim) if keepdims else r, 0, level)
    return BatchedArray(np.linalg.vector_norm(f, axis=phys_axis(axis, x.ndim), keepdims=keepdims, ord=ord), 0, level)


# ------------------------------------------------------------------ FFTs
def _fft1(func, name):
    def rule_fn(level, a, n=None, axis=-1, norm=None, out=None):
        if type(a) is not BatchedArray or a.level != level or out is not None:
            return loop(func, (a, n, axis, norm), {"out": out}, level, name)
        return BatchedArray(func(move_front(a.value, a.bdim), n, _wrap(axis, a.ndim) + 1, norm), 0, level)

    return rule_fn


def _fftn(func, name, default_axes=None):
    def rule_fn(level, a, s=None, axes=default_axes, norm=None, out=None):
        if type(a) is not BatchedArray or a.level != level or out is not None:
            return loop(func, (a, s, axes, norm), {"out": out}, level, name)
        nd = a.ndim
        if axes is None:
            axes = tuple(range(nd)) if s is None else tuple(range(nd - len(s), nd))
        return BatchedArray(func(move_front(a.value, a.bdim), s, tuple(_wrap(x, nd) + 1 for x in axes), norm), 0, level)

    return rule_fn


_fft = np.fft
for _f in (_fft.fft, _fft.ifft, _fft.rfft, _fft.irfft, _fft.hfft, _fft.ihfft):
    RULES[_f] = _fft1(_f, "_fft_r2c" if "r" in _f.__name__ else "_fft_c2c")
for _f in (_fft.fft2, _fft.ifft2, _fft.rfft2, _fft.irfft2):
    RULES[_f] = _fftn(_f, "_fft_c2c", (-2, -1))
for _f in (_fft.fftn, _fft.ifftn, _fft.rfftn, _fft.irfftn):
    RULES[_f] = _fftn(_f, "_fft_c2c")


def _shift(func):
    def rule_fn(level, x, axes=None):
        f = move_front(x.value, x.bdim)
        return BatchedArray(func(f, phys_axis(axes, x.ndim)), 0, level)

    return rule_fn


RULES[_fft.fftshift] = _shift(_fft.fftshift)
RULES[_fft.ifftshift] = _shift(_fft.ifftshift)


@rule(np.compress)
def _compress(level, condition, a, axis=None, out=None):
    if type(condition) is BatchedArray:
        dynamic_shape("masked_select")
    f = _front_of(a, level)
    if axis is None:
        return BatchedArray(np.compress(condition, _flat(f), axis=1), 0, level)
    return BatchedArray(np.compress(condition, f, axis=_wrap(axis, a.ndim) + 1), 0, level)


@rule(np.bincount)
def _bincount(level, x, weights=None, minlength=0):
    """bincount per sample in one call, each sample's values shifted past the previous samples' bins, when every
    sample's result has the same length (``minlength`` covers them all, as in a backward formula's scatter); else
    once per sample (the length depends on the values: torch's vmap loops too)."""
    n = batch_size_at([x, weights], level)
    px = _front_of(x, level)
    pw = _front_of(weights, level) if weights is not None else None
    if px is None or type(px) is not np.ndarray or (weights is not None and type(pw if pw is not None else weights)
                                                   is not np.ndarray):
        return loop(np.bincount, (x,), {"weights": weights, "minlength": minlength}, level, "bincount")
    px = px.reshape(n, -1)
    length = int(minlength)
    if px.size and int(px.max()) >= length:  # samples whose lengths may differ
        return loop(np.bincount, (x,), {"weights": weights, "minlength": minlength}, level, "bincount")
    if weights is not None:
        pw = (pw if pw is not None else np.broadcast_to(weights, (n,) + np.shape(weights))).reshape(n, -1)
    shifted = px + (np.arange(n, dtype=px.dtype) * length)[:, None]
    out = np.bincount(shifted.ravel(), None if weights is None else pw.ravel(), minlength=n * length)
    return BatchedArray(out.reshape(n, length), 0, level)
