"""LU decomposition with partial pivoting: torch.linalg.lu_factor, lu_factor_ex, lu, lu_solve, torch.lu_unpack and
the deprecated torch.lu / torch.lu_solve; real and complex, (..., m, n) batches.

The factorization is LAPACK getrf's (NumPy has none): column by column, the row with the largest |re| + |im|
(LAPACK's i?amax / cabs1; the first on ties) is swapped up, the column below the pivot is divided by it (unless
it is exactly zero: ``info`` then names the first such column, 1-based) and the trailing block takes the rank-1
update. The pivots are LAPACK's: 1-based int32, row i was swapped with row pivots[i]. A = P L U, L (m, k) unit
lower, U (k, n) upper, k = min(m, n), packed in one (m, n) matrix.

Gradients (FunctionsManual.cpp linalg_lu_backward, lu_factor_ex_backward, linalg_lu_solve_LU; derived here for
every shape). With gL, gU the gradients of L, U:
- square: gA = P L^{-H} (tril(L^H gL, -1) + triu(gU U^H)) U^{-H};
- wide (m < n, U = [U1 U2]): gA1 = P L^{-H} (tril(L^H gL - gU2 U2^H, -1) + triu(gU1 U1^H)) U1^{-H}, gA2 = P L^{-H} gU2;
- tall (m > n, L = [L1; L2]): P^T gA = [L1^{-H} (tril(L1^H gL1, -1) + triu(gU U^H - L2^H gL2)) U^{-H}; gL2 U^{-H}];
- lu_factor_ex: gL = tril(gLU, -1), gU = triu(gLU), then as above;
- lu_solve: gB = lu_solve(LU, pivots, gX, adjoint flipped); with gA the gradient of A = P L U (-gB X^H for AX = B,
  -X gB^H for A^H X = B, -X^H gB for XA = B, -gB^H X for XA^H = B), gLU = tril(P^T gA U^H, -1) + triu(L^H P^T gA);
- lu_unpack: gLU = tril(gL, -1) + triu(gU), on the (m, n) matrix.
Every backward is written with dyngrad ops (triangular solves, products), so it is differentiable again.
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from .linalg import (
    LinAlgError,
    _apply_saving_outputs,
    _batch_prefix,
    _returned,
    _saved_outputs,
    _triangular_substitution,
    _warn_deprecated,
    solve_triangular,
)
from .matmul import _type_name, matmul
from .registry import Op, apply, register

# ================================================================== kernels on arrays


def _getrf(a):
    """(LU, pivots, info) of (..., m, n): partial pivoting as LAPACK getrf, batched."""
    lu = xp.array(a, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = lu.shape[:-2]
    flat = lu.reshape((-1, m, n))
    count = flat.shape[0]
    pivots = xp.zeros((count, k), dtype=xp.int32)
    info = xp.zeros(count, dtype=xp.int32)
    rows = xp.arange(count)
    with xp.errstate(all="ignore"):
        for j in range(k):
            column = flat[:, j:, j]
            p = j + xp.argmax(xp.abs(column.real) + xp.abs(column.imag), axis=1)
            pivots[:, j] = p + 1
            top = flat[rows, j, :].copy()
            flat[rows, j, :] = flat[rows, p, :]
            flat[rows, p, :] = top
            pivot = flat[:, j, j]
            zero = pivot == 0
            info = xp.where(zero & (info == 0), j + 1, info)
            scale = xp.where(zero, 1, pivot)
            flat[:, j + 1:, j] = xp.where(zero[:, None], flat[:, j + 1:, j], flat[:, j + 1:, j] / scale[:, None])
            flat[:, j + 1:, j + 1:] -= flat[:, j + 1:, j, None] * flat[:, j, None, j + 1:]
    return flat.reshape(lu.shape), pivots.reshape(batch + (k,)), info.reshape(batch)


def _permutation(pivots, m: int):
    """perm (..., m) with (P^T A)[i] = A[perm[i]] for LAPACK pivots (..., k)."""
    batch = pivots.shape[:-1]
    count = int(xp.prod(batch, dtype=xp.int64)) if batch else 1
    flat = pivots.reshape((count, pivots.shape[-1])).astype(xp.int64) - 1
    perm = xp.broadcast_to(xp.arange(m), (flat.shape[0], m)).copy()
    rows = xp.arange(flat.shape[0])
    for i in range(flat.shape[1]):
        target = flat[:, i]
        held = perm[rows, i].copy()
        perm[rows, i] = perm[rows, target]
        perm[rows, target] = held
    return perm.reshape(batch + (m,))


def _permutation_matrix(pivots, m: int, dtype):
    """P (..., m, m) with A = P L U: P[perm[i], i] = 1."""
    perm = _permutation(pivots, m)
    eye = xp.eye(m, dtype=dtype)
    # column i of P is e_{perm[i]}: P = I[:, perm]^T-ish; P[..., r, i] = (perm[..., i] == r)
    return (perm[..., None, :] == xp.arange(m)[:, None]).astype(dtype) if m else eye


def _unpack_arrays(lu, k: int):
    m, n = lu.shape[-2:]
    lower = xp.tril(lu[..., :, :k], -1)
    idx = xp.arange(k)
    lower[..., idx, idx] = 1
    return lower, xp.triu(lu[..., :k, :])


# ================================================================== differentiable helpers


def _unpack(lu: Tensor):
    """(L, U) of a packed LU tensor, with dyngrad ops."""
    m, n = lu.shape[-2], lu.shape[-1]
    k = min(m, n)
    eye = wrap(xp.eye(m, k, dtype=lu._data.dtype))
    return lu[..., :, :k].tril(-1) + eye, lu[..., :k, :].triu()


def _perm_tensor(pivots, m: int, dtype) -> Tensor:
    return wrap(_permutation_matrix(pivots, m, dtype))


def _lu_backward(p: Tensor, lower: Tensor, upper: Tensor, gl, gu) -> Tensor:
    """gA for A = P L U from gL, gU (either may be None); formulas in the module docstring."""
    m, n = lower.shape[-2], upper.shape[-1]
    k = min(m, n)
    if gl is None:
        gl = wrap(xp.zeros(tuple(lower.shape), dtype=lower._data.dtype))
    if gu is None:
        gu = wrap(xp.zeros(tuple(upper.shape), dtype=upper._data.dtype))
    if m == n:
        inner = matmul(lower.mH, gl).tril(-1) + matmul(gu, upper.mH).triu()
        x = solve_triangular(lower.mH, inner, upper=True, unitriangular=True)
        return matmul(p, solve_triangular(upper.mH, x, upper=False, left=False))
    if m < n:
        u1, u2, gu1, gu2 = upper[..., :, :k], upper[..., :, k:], gu[..., :, :k], gu[..., :, k:]
        inner = (matmul(lower.mH, gl) - matmul(gu2, u2.mH)).tril(-1) + matmul(gu1, u1.mH).triu()
        x = solve_triangular(lower.mH, inner, upper=True, unitriangular=True)
        ga1 = solve_triangular(u1.mH, x, upper=False, left=False)
        ga2 = solve_triangular(lower.mH, gu2, upper=True, unitriangular=True)
        from .join_split import cat

        return matmul(p, cat([ga1, ga2], -1))
    l1, l2, gl1, gl2 = lower[..., :k, :], lower[..., k:, :], gl[..., :k, :], gl[..., k:, :]
    inner = matmul(l1.mH, gl1).tril(-1) + (matmul(gu, upper.mH) - matmul(l2.mH, gl2)).triu()
    x = solve_triangular(l1.mH, inner, upper=True, unitriangular=True)
    gb1 = solve_triangular(upper.mH, x, upper=False, left=False)
    gb2 = solve_triangular(upper.mH, gl2, upper=False, left=False)
    from .join_split import cat

    return matmul(p, cat([gb1, gb2], -2))


# ================================================================== factorizations


@register
class LinalgLuFactorExBackward0(Op):
    """linalg.lu_factor_ex(A): (LU, pivots, info); gradient in the module docstring."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a):
        return _getrf(a)

    def backward(self, g_lu, g_pivots=None, g_info=None):
        (lu, pivots, _info) = _saved_outputs(self, 3)[:3]
        m = lu.shape[-2]
        lower, upper = _unpack(lu)
        p = _perm_tensor(pivots._data, m, lu._data.dtype)
        k = min(lu.shape[-2], lu.shape[-1])
        gl, gu = g_lu[..., :, :k].tril(-1), g_lu[..., :k, :].triu()
        return (_lu_backward(p, lower, upper, gl, gu),)


@register
class LinalgLuBackward0(Op):
    """linalg.lu(A): (P, L, U); gradient in the module docstring (P has none)."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a):
        lu, pivots, _ = _getrf(a)
        m, n = a.shape[-2:]
        lower, upper = _unpack_arrays(lu, min(m, n))
        return _permutation_matrix(pivots, m, a.dtype), lower, upper

    def backward(self, g_p, g_l, g_u):
        p, lower, upper = _saved_outputs(self, 3)[:3]
        return (_lu_backward(p.detach(), lower, upper, g_l, g_u),)


def _check_lu_input(a: Tensor, name: str, pivot: bool) -> None:
    d = a._data
    if d.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(d.shape)} "
                           "instead")
    if d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_type_name(d.dtype)}'")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None):  # noqa: N803
    """torch.linalg.lu_factor_ex(A, pivot=True, check_errors=False): (LU, pivots, info) for A (..., m, n).

    LU (..., m, n) packs L (unit diagonal not stored) and U; pivots (..., min(m, n)) int32, 1-based, LAPACK's;
    info (...) int32, the 1-based first zero diagonal of U or 0.

    Raises:
        RuntimeError: fewer than 2 dims, ``pivot=False`` (not on the CPU), a singular matrix with
            ``check_errors`` (torch's texts); NotImplementedError for integer input.
    """
    _check_lu_input(A, "linalg.lu_factor_ex", pivot)
    lu, pivots, info = _apply_saving_outputs(LinalgLuFactorExBackward0, (A,))
    if check_errors:
        _raise_zero_pivot(info._data, "torch.linalg.lu_factor_ex")
    return _returned("linalg_lu_factor_ex", ("LU", "pivots", "info"), (lu, pivots, info))


def _raise_zero_pivot(info, name: str) -> None:
    from .._batching.array import BatchedArray, any_sample, per_sample

    if type(info) is BatchedArray:  # under vmap: the first sample with a zero pivot raises its own message
        if any_sample(info):
            per_sample(lambda i: _raise_zero_pivot(i, name), info)
        return
    flat = info.reshape(-1)
    bad = xp.nonzero(flat)[0]
    if bad.size:
        i = int(bad[0])
        k = int(flat[i])
        raise LinAlgError(f"{name}: {_batch_prefix(info.reshape(info.shape + (1, 1)), i)}U[{k},{k}] is zero and "
                          "using it on lu_solve would result in a division by zero. If you still want to perform the "
                          "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_factor(A: Tensor, *, pivot: bool = True, out=None):  # noqa: N803
    """torch.linalg.lu_factor(A, pivot=True): (LU, pivots) as lu_factor_ex's.

    Raises:
        torch.linalg.LinAlgError: a zero on U's diagonal (torch's text), and lu_factor_ex's errors.
    """
    _check_lu_input(A, "linalg.lu_factor", pivot)
    lu, pivots, info = _apply_saving_outputs(LinalgLuFactorExBackward0, (A,))
    _raise_zero_pivot(info._data, "torch.linalg.lu_factor")
    return _returned("linalg_lu_factor", ("LU", "pivots"), (lu, pivots))


def lu(A: Tensor, *, pivot: bool = True, out=None):  # noqa: N803
    """torch.linalg.lu(A, pivot=True): (P, L, U) with A = P L U; P (..., m, m) in A's dtype, L (..., m, k) unit
    lower, U (..., k, n) upper, k = min(m, n).

    Raises:
        RuntimeError / NotImplementedError: as lu_factor_ex.
    """
    _check_lu_input(A, "linalg.lu", pivot)
    p, lower, upper = _apply_saving_outputs(LinalgLuBackward0, (A,))
    return _returned("linalg_lu", ("P", "L", "U"), (wrap(p._data), lower, upper))  # (P is not differentiable)


def torch_lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out=None):  # noqa: N803
    """torch.lu(A, pivot=True, get_infos=False): (LU, pivots) (and info with ``get_infos``), deprecated in
    favour of linalg.lu_factor (the warning is given once); raises on a singular matrix unless ``get_infos``."""
    _warn_deprecated(
        "lu",
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in "
        "a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = "
        "torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, "
        "get_infos=True)\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots) "
        "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2073.)")
    _check_lu_input(A, "torch.lu", pivot)
    lu_, pivots, info = _apply_saving_outputs(LinalgLuFactorExBackward0, (A,))
    result = (lu_, pivots, info) if get_infos else (lu_, pivots)
    if not get_infos:
        _raise_zero_pivot(info._data, "torch.linalg.lu_factor_ex")
    if out is None:
        return result
    from .out_param import write_out

    if not isinstance(out, (tuple, list)) or len(out) != len(result):  # torch.functional.lu's check
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    return tuple(write_out(r, o, "lu", (A,)) for r, o in zip(result, out))


# ================================================================== unpack


@register
class LuUnpackBackward0(Op):
    """lu_unpack(LU, pivots): (P, L, U); gLU = tril(gL, -1) + triu(gU) on the (m, n) matrix."""

    @staticmethod
    def forward(lu, pivots, unpack_data, unpack_pivots):
        m, n = lu.shape[-2:]
        k = min(m, n)
        if unpack_data:
            lower, upper = _unpack_arrays(lu, k)
        else:
            lower, upper = xp.empty((0,), lu.dtype), xp.empty((0,), lu.dtype)
        if unpack_pivots:
            p = _permutation_matrix(pivots, m, lu.dtype)
        else:
            p = xp.empty((0,), lu.dtype)
        return p, lower, upper

    def backward(self, g_p, g_l, g_u):
        m, n = self._meta[1][0][-2:][0], self._meta[2][0][-1]
        k = min(m, n)
        from .join_split import cat

        gl = g_l.tril(-1)
        gu = g_u.triu()
        if m == n:
            return gl + gu, None
        if m < n:
            return cat([gl + gu[..., :, :k], gu[..., :, k:]], -1), None
        return cat([gl[..., :k, :] + gu, gl[..., k:, :]], -2), None


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True,  # noqa: N803
              *, out=None):
    """torch.lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True): (P, L, U) from lu_factor's
    output; an output not asked for is an empty tensor.

    Raises:
        RuntimeError: pivots not int32 (torch's text), LU with fewer than 2 dims.
    """
    if LU_pivots._data.dtype != xp.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")
    if LU_data._data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    from .registry import apply_multi

    p, lower, upper = apply_multi(LuUnpackBackward0, (LU_data, LU_pivots), (bool(unpack_data), bool(unpack_pivots)))
    return _returned("lu_unpack", ("P", "L", "U"), (wrap(p._data), lower, upper))  # (P is not differentiable)


# ================================================================== lu_solve


def _lu_solve_arrays(lu, pivots, b, left, adjoint):
    """X from the packed LU of A: A X = B (or A^H X = B, X A = B, X A^H = B), batch dims broadcast."""
    n = lu.shape[-1]
    if not left:  # X op(A) = B  <=>  op(A)^H X^H = B^H
        b = xp.swapaxes(b, -1, -2).conj()
        adjoint = not adjoint
    batch = xp.broadcast_shapes(lu.shape[:-2], b.shape[:-2], pivots.shape[:-1])
    lu_b = xp.broadcast_to(lu, batch + lu.shape[-2:])
    b_b = xp.broadcast_to(b, batch + b.shape[-2:]).astype(lu.dtype)
    perm = xp.broadcast_to(_permutation(pivots, n), batch + (n,))
    lower, upper = _unpack_arrays(lu_b, n)
    if not adjoint:  # U^{-1} L^{-1} P^T B
        pb = xp.take_along_axis(b_b, perm[..., None], axis=-2)
        x = _triangular_substitution(upper, _triangular_substitution(lower, pb, False), True)
    else:  # A^H = U^H L^H P^T: X = P L^{-H} U^{-H} B
        y = _triangular_substitution(xp.swapaxes(lower, -1, -2).conj(),
                                     _triangular_substitution(xp.swapaxes(upper, -1, -2).conj(), b_b, False), True)
        x = xp.empty_like(y)
        xp.put_along_axis(x, perm[..., None], y, axis=-2)
    if not left:
        x = xp.swapaxes(x, -1, -2).conj()
    return x


@register
class LinalgLuSolveBackward0(Op):
    """linalg.lu_solve(LU, pivots, B, left, adjoint); gradients in the module docstring."""

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(lu, pivots, b, left, adjoint):
        return _lu_solve_arrays(lu, pivots, b, left, adjoint)

    def backward(self, g):
        lu, pivots, b = self.saved()[:3]
        left, adjoint = self._params
        x = self.saved_result()
        gb = apply(LinalgLuSolveBackward0, (lu, pivots, g), (left, not adjoint))
        glu = None
        if self.needs_input_grad(0):
            if left:
                ga = -matmul(x, gb.mH) if adjoint else -matmul(gb, x.mH)
            else:
                ga = -matmul(gb.mH, x) if adjoint else -matmul(x.mH, gb)
            n = lu.shape[-1]
            lower, upper = _unpack(lu)
            pt_ga = matmul(_perm_tensor(pivots._data, n, lu._data.dtype).mT, ga)
            glu = matmul(pt_ga, upper.mH).tril(-1) + matmul(lower.mH, pt_ga).triu()
        return glu, None, (gb if self.needs_input_grad(2) else None)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False,  # noqa: N803
             out=None) -> Tensor:
    """torch.linalg.lu_solve(LU, pivots, B, left=True, adjoint=False): X with A X = B (A^H X = B with
    ``adjoint``; X A = B, X A^H = B with ``left=False``) from lu_factor's (LU, pivots) of A (..., n, n);
    B (..., n, k) (or (..., k, n) for ``left=False``), batch dims broadcast.

    Raises:
        RuntimeError: non-square LU, incompatible shapes, pivots not int32 (torch's texts).
    """
    lu_d, b_d = LU._data, B._data
    if lu_d.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor LU must have at least 2 dimensions.")
    if b_d.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    n = lu_d.shape[-1]
    if lu_d.shape[-2] != n:
        raise RuntimeError(f"linalg.lu_solve: A must be batches of square matrices, but they are {lu_d.shape[-2]} by "
                           f"{n} matrices")
    if (b_d.shape[-2] if left else b_d.shape[-1]) != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {b_d.shape[-2]}x{b_d.shape[-1]})")
    if pivots._data.dtype != xp.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if b_d.dtype != lu_d.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_type_name(lu_d.dtype)} and B of type {_type_name(b_d.dtype)} instead")
    x = apply(LinalgLuSolveBackward0, (LU, pivots, B), (bool(left), bool(adjoint)))
    if not left and x._data.dtype.kind == "c":
        x._is_conj = True  # torch solves X A = B as the conjugate view of a transposed solve: its conj bit is set
    return x


def torch_lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:  # noqa: N803
    """torch.lu_solve(b, LU_data, LU_pivots): linalg.lu_solve(LU_data, LU_pivots, b), deprecated (warned once)."""
    _warn_deprecated(
        "lu_solve",
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
        "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\n"
        "should be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B) (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2230.)")
    return lu_solve(LU_data, LU_pivots, b)


EXPORTS: dict = {"lu": torch_lu, "lu_unpack": lu_unpack, "lu_solve": torch_lu_solve}
TENSOR_METHODS: dict = {"lu": torch_lu, "lu_solve": torch_lu_solve}
LINALG_EXPORTS: dict = {
    "lu_factor": lu_factor, "lu_factor_ex": lu_factor_ex, "lu": lu, "lu_solve": lu_solve,
}
