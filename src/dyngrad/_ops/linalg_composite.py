"""torch.linalg functions built from other ops (multi_dot, vander, tensorinv, tensorsolve, cond), the matrix
exponential (torch.matrix_exp / linalg.matrix_exp) and torch.triangular_solve; real and complex.

The composites differentiate through the ops they are made of, as torch's (their grad_fn names are the ones of
their last op: ViewBackward0, CatBackward0, ReshapeAliasBackward0, SqueezeBackward1, NanToNumBackward0).

Gradients:
- matrix_exp (derivatives.yaml: linalg_matrix_exp_differential(self, grad, adjoint=true), FunctionsManual.cpp):
  the Frechet derivative of exp at A^H applied to G is the upper-right block of
  exp([[A^H, G], [0, A^H]]) (Mathias 1996, "A chain rule for matrix functions and applications"); the backward
  calls matrix_exp itself, so it is differentiable again.
- triangular_solve(B, A) = X with op(A) X = B (derivatives.yaml triangular_solve_backward): gB = op(A)^{-H} gX,
  gA = -gB X^H (its transpose when ``transpose``), kept to A's triangle, plus the gradient of the cloned A.
"""

from __future__ import annotations

import math
import operator

from .._backend import xp
from .._batching.array import physical
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from .linalg import _check_matrix, _returned, _warn_deprecated, inv_ex, solve, solve_triangular, svdvals
from .matmul import _type_name, matmul
from .registry import Op, apply, apply_multi, register
from .shape import ViewBackward0, _mark_view

# ================================================================== multi_dot


def _chain_order(shapes):
    """The cheapest parenthesisation of a matrix chain (textbook dynamic programme, as torch's multi_dot):
    split[i][j] is where the product of matrices i..j splits."""
    n = len(shapes)
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain_product(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return matmul(_chain_product(mats, split, i, k), _chain_product(mats, split, k + 1, j))


def multi_dot(tensors, *, out=None) -> Tensor:
    """torch.linalg.multi_dot(tensors): the product of 2 or more matrices in the cheapest order; the first may
    be a vector (1, n) and the last a vector (n, 1), whose dims are dropped from the result.

    Raises:
        RuntimeError: fewer than 2 tensors, middle tensors not 2-D, ends not 1-D or 2-D, mismatched sizes or
            dtypes (torch's texts).
    """
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.dim()}D")
    if last.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].dim()}D")
    dtype = first._data.dtype
    for i, t in enumerate(tensors[1:], 1):
        if t._data.dtype != dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_type_name(dtype)} and tensor {i} {_type_name(t._data.dtype)}")
    mats = list(tensors)
    if first.dim() == 1:
        mats[0] = first.unsqueeze(0)
    if last.dim() == 1:
        mats[-1] = last.unsqueeze(-1)
    shapes = [tuple(m._data.shape) for m in mats]
    for i in range(n - 1):
        if shapes[i][1] != shapes[i + 1][0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} and "
                               f"{list(tensors[i + 1].shape)} cannot be multiplied")
    result = _chain_product(mats, _chain_order(shapes), 0, n - 1)
    out_shape = tuple(([shapes[0][0]] if first.dim() == 2 else []) + ([shapes[-1][1]] if last.dim() == 2 else []))
    return result.view(out_shape)


# ================================================================== vander


def vander(x: Tensor, *, N=None) -> Tensor:  # noqa: N803 - torch's name
    """torch.linalg.vander(x, N=None): (..., n) -> (..., n, N) with columns x^0, x^1, ..., x^(N-1) (N defaults to
    n); integer and bool inputs give int64. Made as torch's: ones, then a cumulative product, concatenated.

    Raises:
        RuntimeError: a bool input, N < 2 (torch's texts).
    """
    if x._data.dtype.kind == "b":
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    if x.dim() == 0:  # (a scalar is one point)
        x = x.reshape(1)
    n = x.shape[-1] if N is None else operator.index(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x._data.dtype.kind in "iu":
        x = x.to(wrap(xp.zeros((), xp.int64)).dtype)
    ones = wrap(xp.ones(tuple(x.shape) + (1,), dtype=x._data.dtype))
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    from .join_split import cat

    return cat([ones, powers], -1)


# ================================================================== tensorinv, tensorsolve


@register
class ReshapeAliasBackward0(ViewBackward0):
    """The reshape torch's C++ composites (linalg.tensorinv) record: a view, as ViewBackward0."""


def _prod(dims) -> int:
    return math.prod(int(d) for d in dims)


def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:  # noqa: N803 - torch's name
    """torch.linalg.tensorinv(A, ind=2): the tensor B with tensordot(A, B, ind) the identity; A's first ``ind``
    dims and the rest must have the same number of elements. Result shape: A.shape[ind:] + A.shape[:ind].

    Raises:
        RuntimeError: ind < 1, the products of the two groups of dims differing (torch's texts), a singular
            matrix (torch.linalg.LinAlgError, from linalg.inv).
    """
    ind = operator.index(ind)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    rows, cols = _prod(shape[:ind]), _prod(shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    from .linalg import inv

    result = inv(A.reshape(rows, cols))
    new_shape = shape[ind:] + shape[:ind]
    return _mark_view(apply(ReshapeAliasBackward0, (result,), (new_shape, tuple(result.shape))), result)


def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:  # noqa: N803 - torch's names
    """torch.linalg.tensorsolve(A, B, dims=None): X with tensordot(A, X, X.ndim) = B; ``dims`` moves those dims of
    A to the end first. X has shape A.shape[B.ndim:].

    Raises:
        RuntimeError: the product of A's leading dims not equal to its trailing ones (torch's text), and
            linalg.solve's errors.
    """
    if dims is not None:
        dims = [dims] if isinstance(dims, int) else list(dims)
        nd = A.dim()
        dims = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in dims]
        A = A.permute(*(rest + dims))
    b_numel = _prod(B.shape)
    result_shape = tuple(A.shape)[B.dim():]
    result_numel = _prod(result_shape)
    if result_numel != b_numel:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {result_numel} != {b_numel}")
    x = solve(A.reshape(b_numel, b_numel), B.reshape(b_numel))
    return x.view(result_shape)


# ================================================================== cond

_COND_NORMS = (1, -1, math.inf, -math.inf, "fro", "nuc")


def cond(A: Tensor, p=None, *, out=None) -> Tensor:  # noqa: N803 - torch's name
    """torch.linalg.cond(A, p=None): the condition number of (..., m, n) matrices in the norm ``p``.

    p None, 2, -2: the ratio of the largest to the smallest singular value (its inverse for -2), for any m, n.
    'nuc': sum(s) * sum(1 / s). 1, -1, inf, -inf, 'fro': norm(A, p) * norm(inv(A), p), square matrices only,
    infinity for a singular one. Real result dtype.

    Raises:
        RuntimeError: an unknown norm, non-square A for the norms needing the inverse (torch's texts).
    """
    if p is not None and p not in (2, -2) and p not in _COND_NORMS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    _check_matrix(A, "linalg.cond", square=False)
    rows, cols = A.shape[-2], A.shape[-1]
    from .norms import matrix_norm

    if p is None or p in (2, -2):
        if rows == 0 or cols == 0:
            return wrap(xp.zeros(tuple(A.shape[:-2]), dtype=_real(A._data.dtype)))
        s = svdvals(A)
        big, small = s.narrow(-1, 0, 1), s.narrow(-1, s.shape[-1] - 1, 1)
        return ((small / big) if p == -2 else (big / small)).squeeze(-1)
    if rows != cols:
        raise RuntimeError(f"linalg.cond(ord={_ord_text(p)}): A must be batches of square matrices, but they are "
                           f"{rows} by {cols} matrices")
    if rows == 0:
        return wrap(xp.zeros(tuple(A.shape[:-2]), dtype=_real(A._data.dtype)))
    if p == "nuc":
        s = svdvals(A)
        return s.sum(-1) * s.reciprocal().sum(-1)
    inverse = inv_ex(A).inverse
    result = matrix_norm(A, p) * matrix_norm(inverse, p)
    return result.nan_to_num(nan=math.inf, posinf=math.inf)  # (a singular A: inf, as torch's)


def _ord_text(p) -> str:
    if isinstance(p, float) and math.isinf(p):
        return "inf" if p > 0 else "-inf"
    return str(p)


def _real(dtype):
    return xp.finfo(dtype).dtype if dtype.kind == "c" else dtype


# ================================================================== matrix_exp

# Pade (13, 13) coefficients and the 1-norm bound theta_13 of Higham, "The Scaling and Squaring Method for the
# Matrix Exponential Revisited" (SIAM J. Matrix Anal. Appl. 26(4), 2005), Table 2.3 / eq. (2.3).
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
           10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm_arrays(a):
    """exp of each matrix of (..., n, n) by scaling and squaring with the (13, 13) Pade approximant, in double
    precision (cast back to the input's dtype)."""
    work = a.astype(xp.complex128 if a.dtype.kind == "c" else xp.float64)
    if work.size == 0:
        return xp.empty(a.shape, dtype=a.dtype)
    n = work.shape[-1]
    norm1 = xp.abs(work).sum(-2).max(-1)
    s = xp.maximum(0, xp.ceil(xp.log2(xp.maximum(norm1, 1e-300) / _THETA13))).astype(int)
    s = xp.where(xp.isfinite(norm1), s, 0)
    work = work / (2.0 ** s)[..., None, None]
    b = _PADE13
    eye = xp.broadcast_to(xp.eye(n, dtype=work.dtype), work.shape)
    a2 = work @ work
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = work @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    with xp.errstate(all="ignore"):
        try:
            r = xp.linalg.solve(v - u, v + u)
        except xp.linalg.LinAlgError:
            r = xp.full(work.shape, xp.nan, dtype=work.dtype)
        # undo the scaling: square each matrix its own s times (all matrices at once, the squares of those already
        # done discarded: the same products as one matrix at a time; under vmap the samples' matrices too)
        steps = s[..., None, None]
        for k in range(int(physical(s).max())):
            r = xp.where(steps > k, r @ r, r)
    return r.astype(a.dtype)


@register
class LinalgMatrixExpBackward0(Op):
    """matrix_exp(A) for (..., n, n); gradient in the module docstring."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a):
        return _expm_arrays(a)

    def backward(self, g):
        (a,) = self.saved()
        ah = a.mH
        from .join_split import cat

        n = a.shape[-1]
        zeros = wrap(xp.zeros(tuple(a.shape), dtype=a._data.dtype))
        block = cat([cat([ah, g], -1), cat([zeros, ah], -1)], -2)
        return (matrix_exp(block)[..., :n, n:],)


def _batch_merges(a) -> bool:
    """Whether the batch dims of ``a`` (size-1 dims aside) can be viewed as one: each stride is the next one
    times its size (torch's view rule)."""
    dims = [(size, stride) for size, stride in zip(a.shape[:-2], a.strides[:-2]) if size != 1]
    return all(dims[i][1] == dims[i + 1][1] * dims[i + 1][0] for i in range(len(dims) - 1))


def matrix_exp(A: Tensor) -> Tensor:  # noqa: N803 - torch's name
    """torch.matrix_exp(A) / torch.linalg.matrix_exp(A): the matrix exponential of (..., n, n), real or complex.

    Raises:
        RuntimeError: fewer than 2 dims, non-square, non-floating input, more than one batch dim with strides
            that do not merge into one (torch's texts).
    """
    _check_matrix(A, "linalg.matrix_exp")
    a = A._data
    if a.ndim > 3 and a.size and a.shape[-1] > 1 and not _batch_merges(a):  # (1 x 1: exp, no view)
        # torch views the batch as one dim first, which fails for strides that do not merge
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return apply(LinalgMatrixExpBackward0, (A,))


# ================================================================== torch.triangular_solve


@register
class TriangularSolveBackward0(Op):
    """triangular_solve(B, A, upper, transpose, unitriangular): (X, A's clone); gradients in the module
    docstring."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(b, a, upper, transpose, unitriangular):
        from .linalg import LinalgSolveTriangularBackward0 as _Solve

        batch = xp.broadcast_shapes(b.shape[:-2], a.shape[:-2])
        a_b = xp.broadcast_to(a, batch + a.shape[-2:])
        if transpose:
            x = _Solve.forward(xp.swapaxes(a_b, -1, -2), b, not upper, True, unitriangular)
        else:
            x = _Solve.forward(a_b, b, upper, True, unitriangular)
        return x, a_b.copy()

    def backward(self, gx, ga_clone):
        b, a = self.saved()
        upper, transpose, unitriangular = self._params
        x = _solve_op(b, a, upper, transpose, unitriangular)
        gb = ga = None
        if gx is not None and bool(xp.any(gx._data)):
            # op(A)^H gB = gX, op(A)^H = conj(A)^T (or conj(A) when op is the transpose)
            gb = _solve_op(gx, a.conj(), upper, not transpose, unitriangular)
            if self.needs_input_grad(1):
                ga = -matmul(gb, x.mH)
                ga = ga.mT if transpose else ga
                ga = ga.triu(int(unitriangular)) if upper else ga.tril(-int(unitriangular))
        if self.needs_input_grad(1) and ga_clone is not None:
            ga = ga_clone if ga is None else ga + ga_clone
        return (gb if self.needs_input_grad(0) else None), ga


def _solve_op(b, a, upper, transpose, unitriangular):
    """op(A) X = B with dyngrad ops (differentiable): the triangle of A, transposed (not conjugated) when asked."""
    if transpose:
        return solve_triangular(a.mT, b, upper=not upper, unitriangular=unitriangular)
    return solve_triangular(a, b, upper=upper, unitriangular=unitriangular)


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,  # noqa: A002, N803
                     unitriangular: bool = False, *, out=None):
    """torch.triangular_solve(B, A, upper=True, transpose=False, unitriangular=False): (solution, cloned_coefficient)
    with op(A) X = B, op(A) = A or A^T; B (..., n, k), A (..., n, n), batch dims broadcast; the clone of A is
    broadcast to the batch. Deprecated in torch (the warning is given once).

    Raises:
        RuntimeError: fewer than 2 dims, non-square A, mismatched sizes or dtypes (torch's texts).
    """
    _warn_deprecated(
        "triangular_solve",
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a "
        "future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a "
        "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B). (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2273.)")
    b, a = input._data, A._data
    if b.ndim < 2:
        raise RuntimeError("torch.triangular_solve: The input tensor B must have at least 2 dimensions.")
    if a.ndim < 2:
        raise RuntimeError("torch.triangular_solve: The input tensor A must have at least 2 dimensions.")
    if b.dtype != a.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_type_name(b.dtype)} "
                           f"and A of type {_type_name(a.dtype)} instead.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"torch.triangular_solve: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {a.shape[-1]} by "
                           f"{a.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if a.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_type_name(a.dtype)}'")
    outs = apply_multi(TriangularSolveBackward0, (input, A), (bool(upper), bool(transpose), bool(unitriangular)))
    return _returned("triangular_solve", ("solution", "cloned_coefficient"), outs)


EXPORTS: dict = {"matrix_exp": matrix_exp, "triangular_solve": triangular_solve}
TENSOR_METHODS: dict = {"matrix_exp": matrix_exp, "triangular_solve": triangular_solve}
LINALG_EXPORTS: dict = {
    "multi_dot": multi_dot, "vander": vander, "tensorinv": tensorinv, "tensorsolve": tensorsolve, "cond": cond,
    "matrix_exp": matrix_exp,
}
