"""Matrix norms through singular values (linalg.matrix_norm's 'nuc', 2, -2; linalg.norm; torch.norm's 'nuc')
and linalg.matrix_rank.

The vector norms (linalg.vector_norm, torch.norm's numbers and 'fro') and the matrix norms that are
composites of them ('fro', 1, -1, inf, -inf) belong to the reduction family (reduction.py).
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from .linalg import _check_matrix, svdvals
from .matmul import _type_name


def _ord_text(ord) -> str:
    """An order as torch's message prints it (a C++ double: 3.0 -> 3, inf -> inf)."""
    if isinstance(ord, str):
        return ord
    f = float(ord)
    if f != f or f in (float("inf"), float("-inf")):
        return str(f)
    return str(int(f)) if f == int(f) else repr(f)


def _matrix_norm_checks(A: Tensor, dim, dtype) -> tuple:
    """torch's _linalg_matrix_norm_checks, in its order: A's dims and dtype, dim, the dtype argument.

    Returns the two wrapped dims.
    """
    from .._dtype import promote_types, scalar_type_name, to_numpy
    from .._tensor import _wrap_dim

    _check_matrix(A, "linalg.matrix_norm", square=False)
    dim = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    nd = A._data.ndim
    d0, d1 = _wrap_dim(dim[0], nd), _wrap_dim(dim[1], nd)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if dtype is not None:
        npd = to_numpy(dtype)
        if npd.kind not in FLOATING_OR_COMPLEX_KINDS:
            raise RuntimeError(
                f"linalg.matrix_norm: dtype should be floating point or complex, but got {scalar_type_name(npd)}"
            )
        own = A._data.dtype
        if promote_types(own, npd) != npd:
            raise RuntimeError(
                f"linalg.matrix_norm: the dtype of the input ({scalar_type_name(own)}) should be convertible "
                f"without narrowing to the specified dtype ({scalar_type_name(npd)})"
            )
    return d0, d1


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """torch.linalg.matrix_norm(A, ord, dim, keepdim, dtype) of (..., m, n) matrices spread over ``dim``.

    ord 'nuc' (sum of singular values), 2 (largest), -2 (smallest) are computed as torch's
    composite: the two dims are moved to the end (PermuteBackward0), ``svdvals``
    (LinalgSvdBackward0), then sum / amax / amin over the last dim (SumBackward1 /
    AmaxBackward0 / AminBackward0); with keepdim the result is unsqueezed and permuted back.
    Their gradients are those of the parts (svd_backward with only gS: U diag(gS) V^H; amax
    splits ties evenly). 'fro', 1, -1, inf, -inf go to the vector-norm composites of the
    reduction family. With ``dtype`` the input is cast first.

    Raises:
        RuntimeError: an unsupported ord (checked first, as torch), fewer than 2 dims, an
            integer input, ``dim`` not 2 distinct dims, a non-float or narrowing ``dtype``;
            ord 2 on matrices with no elements gives zeros (not recorded) as torch, ord -2 the
            error of ``amin`` on an empty dim.
        IndexError: a dim out of range.
    """
    from . import reduction as red
    from .shape import permute, to

    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif abs(float(ord)) not in (1.0, 2.0, float("inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {_ord_text(ord)} not supported.")
    d0, d1 = _matrix_norm_checks(A, dim, dtype)
    if ord not in ("nuc", 2, -2):
        return red.matrix_norm(A, ord, (d0, d1), keepdim, dtype=dtype)
    x = to(A, dtype) if dtype is not None else A
    nd = A._data.ndim
    perm = [i for i in range(nd) if i not in (d0, d1)] + [d0, d1]
    s = svdvals(permute(x, *perm))
    if ord == "nuc":
        r = red.sum(s, -1, keepdim)
    elif ord == 2 and s._data.shape[-1] == 0:
        # the largest of no singular values: torch returns zeros, not recorded
        shape = s._data.shape[:-1] + ((1,) if keepdim else ())
        r = wrap(xp.zeros(shape, dtype=s._data.dtype))
    else:
        r = (red.amax if ord == 2 else red.amin)(s, -1, keepdim)
    if keepdim:
        inverse = [0] * nd
        for i, d in enumerate(perm):
            inverse[d] = i
        r = permute(r.unsqueeze(-1), *inverse)
    return r


def linalg_norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """torch.linalg.norm: a matrix norm when ord is given with a 2-tuple dim (or no dim and a 2-D
    input), or when ord is a string; a vector norm (ord 2 by default) otherwise.

    Raises:
        RuntimeError: ``dim`` of length other than 1 or 2; ord given without dim on an input
            that is not 1-D or 2-D (torch's texts).
    """
    from . import reduction as red

    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None and A._data.ndim not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A._data.ndim}D."
        )
    if isinstance(ord, str) or (ord is not None and (len(dim) == 2 if dim is not None else A._data.ndim == 2)):
        return matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    return red.vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def norm(a: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """torch.norm / Tensor.norm: 'nuc' is a matrix norm over ``dim`` (all dims when None, so only a
    2-D input passes the 2-tuple check, as in torch); everything else is the reduction family's."""
    from . import reduction as red

    if p == "nuc":
        if isinstance(dim, int):
            dim = (dim,)
        return matrix_norm(a, "nuc", tuple(range(a._data.ndim)) if dim is None else dim, keepdim, dtype=dtype)
    return red.norm(a, p, dim, keepdim, dtype=dtype)


def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None) -> Tensor:
    """torch.linalg.matrix_rank: the number of singular values (|eigenvalues| when ``hermitian``)
    above max(atol, rtol * largest), int64 of shape A.shape[:-2]; never differentiable.

    Tolerances as torch: ``tol`` is atol with rtol 0; with neither given rtol is eps * max(m, n);
    with only a positive atol, rtol is 0. ``atol`` / ``rtol`` may be tensors broadcast over the batch.

    Raises:
        RuntimeError: fewer than 2 dims, or an integer input (torch's texts).
    """
    if A._data.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if tol is not None:
        atol, rtol = tol, 0.0
    d = A._data
    if d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        # torch fails where it first needs a float: the default rtol's eps, else the decomposition
        if rtol is None:
            raise RuntimeError("This function doesn't handle types other than float and double")
        if d.size:
            if hermitian:
                raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{_type_name(d.dtype)}\'')
            raise RuntimeError(f"linalg.svd: Expected a floating point or complex tensor as input. Got {_type_name(d.dtype)}")
    m, n = d.shape[-2:]

    def arr(v):
        return v._data if isinstance(v, Tensor) else v

    if d.size == 0:
        return wrap(xp.zeros(d.shape[:-2], dtype=xp.int64))
    real = d.real.dtype if d.dtype.kind == "c" else d.dtype  # (the singular values of complex A are real)
    if hermitian:
        s = xp.abs(xp.linalg.eigvalsh(d)).astype(real, copy=False)
    else:
        s = xp.linalg.svd(d, compute_uv=False).astype(real, copy=False)
    if atol is None and rtol is None:
        rtol = xp.finfo(real).eps * max(m, n)
    elif rtol is None:
        a = xp.asarray(arr(atol))
        rtol = xp.where(a > 0, 0.0, xp.finfo(real).eps * max(m, n))
    atol = 0.0 if atol is None else arr(atol)
    smax = s.max(axis=-1) if s.shape[-1] else xp.zeros(s.shape[:-1], dtype=s.dtype)
    limit = xp.maximum(xp.asarray(atol, dtype=real), xp.asarray(rtol, dtype=real) * smax)
    return wrap(xp.asarray((s > xp.asarray(limit)[..., None]).sum(axis=-1), dtype=xp.int64))


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.linalg; __init__.py, _tensor_methods.py and linalg.py merge these at import.

EXPORTS: dict = {
    "norm": norm,
}
TENSOR_METHODS: dict = {
    "norm": norm,
}
LINALG_EXPORTS: dict = {  # dyngrad.linalg.<name>
    "matrix_norm": matrix_norm,
    "matrix_rank": matrix_rank,
    "norm": linalg_norm,
}
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
