"""Rows for the reduction and sorting families (src/dyngrad/_ops/reduction.py, sorting.py); they join op_table."""

from __future__ import annotations

import math

from hypothesis import strategies as st

from op_table import WITH_COMPLEX, OpInfo, _dims_keepdim, one_shape

C = dict(dtypes=WITH_COMPLEX)  # ops torch runs (or refuses, in its words) on complex numbers

INF = math.inf


def _dim_of(shape):
    nd = len(shape)
    return st.integers(-nd, nd - 1) if nd else st.sampled_from([0, -1])


def _dim(data, shapes):
    return {"dim": data.draw(_dim_of(shapes[0]))}


def _dim_keepdim(data, shapes):
    return {"dim": data.draw(_dim_of(shapes[0])), "keepdim": data.draw(st.booleans())}


def _opt_dim_keepdim(data, shapes):
    return {"dim": data.draw(st.none() | _dim_of(shapes[0])), "keepdim": data.draw(st.booleans())}


def _var_args(data, shapes):
    """var/std overloads: (), (unbiased), (dim, unbiased, keepdim), (dim, correction=, keepdim)."""
    kw = _dims_keepdim(data, shapes)
    form = data.draw(st.sampled_from(["plain", "unbiased", "dim_unbiased", "correction"]))
    if form == "plain":
        return {"args": (), "kwargs": {}}
    if form == "unbiased":
        return {"args": (data.draw(st.booleans()),), "kwargs": {}}
    if form == "dim_unbiased":
        return {"args": (kw["dim"], data.draw(st.booleans()), kw["keepdim"]), "kwargs": {}}
    return {"args": (kw["dim"],), "kwargs": {"correction": data.draw(st.sampled_from([0, 1, 2])),
                                             "keepdim": kw["keepdim"]}}


def _var_mean_args(data, shapes):
    out = _var_args(data, shapes)
    out["which"] = data.draw(st.sampled_from([0, 1]))
    return out


def _ord_dims(ords):
    def draw(data, shapes):
        kw = _dims_keepdim(data, shapes)
        if data.draw(st.booleans()):
            kw["dim"] = None
        kw["ord"] = data.draw(st.sampled_from(ords))
        return kw

    return draw


def _matrix_norm_args(data, shapes):
    nd = len(shapes[0])
    d0 = data.draw(st.integers(-nd, nd - 1))
    d1 = data.draw(st.integers(-nd, nd - 1).filter(lambda d: (d - d0) % nd != 0))
    return {"ord": data.draw(st.sampled_from(["fro", 1, -1, INF, -INF])), "dim": (d0, d1),
            "keepdim": data.draw(st.booleans())}


def _torch_norm_args(data, shapes):
    kw = _dims_keepdim(data, shapes)
    return {"p": data.draw(st.sampled_from(["fro", 2, 1, 3, INF])), "dim": data.draw(st.none() | st.just(kw["dim"])),
            "keepdim": kw["keepdim"]}


def _sort_args(data, shapes):
    return {"dim": data.draw(_dim_of(shapes[0])), "descending": data.draw(st.booleans())}


def _sort_stable_args(data, shapes):
    return {**_sort_args(data, shapes), "stable": data.draw(st.sampled_from([True, False, None]))}


def _k_args(data, shapes):
    shape = shapes[0]
    dim = data.draw(_dim_of(shape))
    n = shape[dim] if shape else 1
    return {"k": data.draw(st.integers(0, n + 1)), "dim": dim, "flag": data.draw(st.booleans())}


def _unique_args(data, shapes):
    nd = len(shapes[0])
    return {"dim": data.draw(st.none() | (st.integers(-nd, nd - 1) if nd else st.none())),
            "inverse": data.draw(st.booleans()), "counts": data.draw(st.booleans()),
            "which": data.draw(st.sampled_from([0, 1, 2]))}


def _unique(lib, x, dim, inverse, counts, which):
    # unique has no derivative; torch still records a node (checked through grad_fn and requires_grad)
    x = x.detach().requires_grad_(x.dtype.is_floating_point)
    out = lib.unique(x, return_inverse=inverse, return_counts=counts, dim=dim)
    if not isinstance(out, tuple):
        return out
    return out[min(which, len(out) - 1)]


def _with_nans(lib, x):
    return lib.where(x > 1.2, float("nan"), x)


NONEMPTY = one_shape(min_side=1)

ROWS: list[OpInfo] = [
    # ---- products
    OpInfo("prod", lambda lib, x: x.prod(), covers=("ProdBackward0", "CumprodBackward0"), ties=True, int_ok=True, **C),
    OpInfo("prod_dim", lambda lib, x, dim, keepdim: lib.prod(x, dim, keepdim), covers=("ProdBackward1",),
           params=_dim_keepdim, ties=True, int_ok=True, **C),
    OpInfo("cumsum", lambda lib, x, dim: x.cumsum(dim), covers=("CumsumBackward0",), params=_dim, int_ok=True, **C),
    OpInfo("cumprod", lambda lib, x, dim: lib.cumprod(x, dim), covers=("CumprodBackward0", "ProdBackward1"),
           params=_dim, ties=True, int_ok=True, **C),
    # ---- extremes
    OpInfo("amax", lambda lib, x, dim, keepdim: x.amax(dim, keepdim), covers=("AmaxBackward0",),
           params=_dims_keepdim, ties=True, gradcheck=False, int_ok=True, **C),
    OpInfo("amin", lambda lib, x, dim, keepdim: lib.amin(x, dim, keepdim=keepdim), covers=("AminBackward0",),
           params=_dims_keepdim, ties=True, gradcheck=False, int_ok=True, **C),
    OpInfo("amax_all", lambda lib, x: lib.amax(x), covers=("AmaxBackward0",), ties=True, gradcheck=False, **C),
    OpInfo("argmax", lambda lib, x, dim, keepdim: x.argmax(dim, keepdim), params=_opt_dim_keepdim, ties=True,
           differentiable=False, int_ok=True, **C),
    OpInfo("argmin", lambda lib, x, dim, keepdim: lib.argmin(x, dim=dim, keepdim=keepdim), params=_opt_dim_keepdim,
           ties=True, differentiable=False, int_ok=True, **C),
    OpInfo("cummax", lambda lib, x, dim: x.cummax(dim)[0], covers=("CummaxBackward0",), params=_dim, ties=True,
           gradcheck=False, **C),
    OpInfo("cummin", lambda lib, x, dim: lib.cummin(x, dim).values, covers=("CumminBackward0",), params=_dim,
           ties=True, gradcheck=False, **C),
    OpInfo("cummax_indices", lambda lib, x, dim: x.cummax(dim).indices, params=_dim, ties=True,
           differentiable=False, int_ok=True, **C),
    # ---- moments
    OpInfo("var", lambda lib, x, args, kwargs: x.var(*args, **kwargs), covers=("VarBackward0",), params=_var_args,
           ties=True, int_ok=True, **C),
    OpInfo("std", lambda lib, x, args, kwargs: lib.std(x, *args, **kwargs), covers=("StdBackward0",),
           params=_var_args, ties=True, gradcheck=False, **C),
    OpInfo("var_mean", lambda lib, x, args, kwargs, which: lib.var_mean(x, *args, **kwargs)[which],
           covers=("VarMeanBackward0",), params=_var_mean_args, **C),
    OpInfo("std_mean", lambda lib, x, args, kwargs, which: lib.std_mean(x, *args, **kwargs)[which],
           covers=("StdMeanBackward0",), params=_var_mean_args, ties=True, gradcheck=False, **C),
    # ---- norms
    OpInfo("vector_norm", lambda lib, x, ord, dim, keepdim: lib.linalg.vector_norm(x, ord, dim, keepdim),
           covers=("LinalgVectorNormBackward0",), params=_ord_dims([2, 3, 1.5, 0.5, -1.5]), int_ok=True, **C),
    OpInfo("vector_norm_kinks", lambda lib, x, ord, dim, keepdim: lib.linalg.vector_norm(x, ord, dim, keepdim),
           covers=("LinalgVectorNormBackward0",), params=_ord_dims([2, 1, 0, INF, -INF, 3, 1.5, 0.5]), ties=True,
           gradcheck=False, **C),
    OpInfo("matrix_norm", lambda lib, x, ord, dim, keepdim: lib.linalg.matrix_norm(x, ord, dim, keepdim),
           covers=("LinalgVectorNormBackward0", "AmaxBackward0", "AminBackward0"), params=_matrix_norm_args,
           shapes=one_shape(min_dims=2), gradcheck=False, int_ok=True, **C),
    OpInfo("torch_norm", lambda lib, x, p, dim, keepdim: x.norm(p, dim, keepdim),
           covers=("LinalgVectorNormBackward0",), params=_torch_norm_args, gradcheck=False, **C),
    OpInfo("linalg_norm", lambda lib, x: lib.linalg.norm(x), covers=("LinalgVectorNormBackward0",), **C),
    # ---- logsumexp and NaN-aware sums
    OpInfo("logsumexp", lambda lib, x, dim, keepdim: x.logsumexp(dim, keepdim), covers=("LogsumexpBackward0",),
           params=_dims_keepdim, domain=(-30.0, 30.0), int_ok=True, **C),
    OpInfo("logsumexp_neginf", lambda lib, x, dim: lib.logsumexp(lib.where(x > 0.5, -INF, x), dim),
           covers=("LogsumexpBackward0", "WhereBackward0"), params=_dim, gradcheck=False, **C),
    OpInfo("nansum", lambda lib, x, dim, keepdim: _with_nans(lib, x).nansum(dim, keepdim),
           covers=("NansumBackward0", "WhereBackward0"), params=_opt_dim_keepdim, gradcheck=False, **C),
    OpInfo("nansum_int", lambda lib, x: x.nansum(), covers=("NansumBackward0",), int_ok=True, **C),
    OpInfo("nanmean", lambda lib, x, dim, keepdim: lib.nanmean(_with_nans(lib, x), dim, keepdim),
           covers=("NansumBackward0", "DivBackward0"), params=_opt_dim_keepdim, gradcheck=False, **C),
    # ---- logical
    OpInfo("all_any", lambda lib, x, dim, keepdim: (x > 0).all(dim, keepdim) | lib.any(x < -1, dim, keepdim)
           if dim is not None else (x > 0).all() | lib.any(x < -1), params=_opt_dim_keepdim, ties=True,
           differentiable=False, int_ok=True, **C),
    OpInfo("all_float", lambda lib, x: x.all(), ties=True, differentiable=False, int_ok=True, **C),
    OpInfo("count_nonzero", lambda lib, x, dim, keepdim: lib.count_nonzero(x, dim), params=_dims_keepdim,
           ties=True, differentiable=False, int_ok=True, **C),
    # ---- sorting
    OpInfo("sort", lambda lib, x, dim, descending: x.sort(dim, descending)[0], covers=("SortBackward0",),
           params=_sort_args, ties=True, gradcheck=False, int_ok=True, **C),
    # any ``stable=`` (True, False, None) selects torch's sort.stable overload: SortBackward1
    OpInfo("sort_stable", lambda lib, x, dim, descending, stable: x.sort(dim=dim, descending=descending, stable=stable)[0],
           covers=("SortBackward1",), params=_sort_stable_args, ties=True, gradcheck=False, **C),
    OpInfo("sort_indices", lambda lib, x, dim, descending: lib.sort(x, dim=dim, descending=descending).indices,
           params=_sort_args, ties=True, differentiable=False, int_ok=True, **C),
    OpInfo("argsort", lambda lib, x, dim, descending: x.argsort(dim, descending), params=_sort_args, ties=True,
           differentiable=False, int_ok=True, **C),
    OpInfo("msort", lambda lib, x: lib.msort(x), covers=("SortBackward0",), shapes=one_shape(min_dims=1),
           gradcheck=False, **C),
    OpInfo("topk", lambda lib, x, k, dim, flag: x.topk(k, dim, largest=flag)[0], covers=("TopkBackward0",),
           params=_k_args, gradcheck=False, **C),
    OpInfo("topk_indices", lambda lib, x, k, dim, flag: lib.topk(x, k, dim, flag).indices, params=_k_args,
           differentiable=False, **C),
    OpInfo("kthvalue", lambda lib, x, k, dim, flag: x.kthvalue(k, dim, flag)[0], covers=("KthvalueBackward0",),
           params=_k_args, gradcheck=False, **C),
    OpInfo("kthvalue_indices", lambda lib, x, k, dim, flag: lib.kthvalue(x, k, dim, flag).indices, params=_k_args,
           differentiable=False, **C),
    OpInfo("median", lambda lib, x: x.median(), covers=("MedianBackward0",), ties=True, gradcheck=False,
           int_ok=True, **C),
    OpInfo("nanmedian", lambda lib, x: _with_nans(lib, x).nanmedian(), covers=("NanmedianBackward0", "WhereBackward0"),
           ties=True, gradcheck=False, **C),
    OpInfo("nanmedian_dim", lambda lib, x, dim, keepdim: _with_nans(lib, x).nanmedian(dim, keepdim)[0],
           covers=("NanmedianBackward1", "WhereBackward0"), params=_dim_keepdim, ties=True, gradcheck=False, **C),
    OpInfo("nanmedian_dim_mostly_nan", lambda lib, x, dim, keepdim: lib.nanmedian(
        lib.where(x > -1.0, float("nan"), x), dim, keepdim).values,  # all-NaN slices: the index torch's nth_element picks
           covers=("NanmedianBackward1", "WhereBackward0"), params=_dim_keepdim, gradcheck=False, **C),
    OpInfo("nanmedian_dim_indices", lambda lib, x, dim, keepdim: _with_nans(lib, x).nanmedian(dim, keepdim).indices,
           params=_dim_keepdim, ties=True, differentiable=False, **C),
    OpInfo("nanmedian_dim_int", lambda lib, x, dim, keepdim: x.nanmedian(dim, keepdim)[1 if dim % 2 else 0],
           params=_dim_keepdim, ties=True, differentiable=False, int_ok=True, **C),
    OpInfo("median_dim", lambda lib, x, dim, keepdim: lib.median(x, dim, keepdim)[0], covers=("MedianBackward1",),
           params=_dim_keepdim, ties=True, gradcheck=False, **C),
    OpInfo("median_dim_indices", lambda lib, x, dim, keepdim: x.median(dim, keepdim).indices, params=_dim_keepdim,
           ties=True, differentiable=False, **C),
    OpInfo("mode", lambda lib, x, dim, keepdim: x.mode(dim, keepdim)[0], covers=("ModeBackward0",),
           params=_dim_keepdim, ties=True, gradcheck=False, **C),
    OpInfo("mode_indices", lambda lib, x, dim, keepdim: lib.mode(x, dim, keepdim).indices, params=_dim_keepdim,
           ties=True, differentiable=False, int_ok=True, **C),
    OpInfo("unique", _unique, covers=("Unique2Backward0", "UniqueDimBackward0"), params=_unique_args, ties=True,
           differentiable=False, int_ok=True, **C),
]
