"""Solves with a Cholesky factor (torch.cholesky_solve, torch.cholesky_inverse), the triangle index
helpers torch.tril_indices / torch.triu_indices, and torch.broadcast_shapes: what the multivariate
distributions (MultivariateNormal, Wishart, LKJCholesky) need beyond dyngrad.linalg.

Gradients (FunctionsManual.cpp; real and complex inputs):
- cholesky_solve(B, L) = X with L L^H X = B (``upper``: U^H U X = B): gB = cholesky_solve(gX, L);
  with S = gB X^H + X gB^H, gL = -S L (lower) or -U S (upper), a full matrix as torch returns it.
- cholesky_inverse(L) = (L L^H)^{-1} = A: with S = A (gA + gA^H) A, gL = -S L (lower) or -U S (upper).
"""

from __future__ import annotations

import operator

from .._backend import xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS, scalar_type_name
from .._dtype import to_numpy as _np_dtype
from .._tensor import Size, Tensor, wrap
from .linalg import LinAlgError, _triangular_substitution
from .matmul import matmul
from .registry import Op, apply, register


def _solve_with_factor(b, factor, upper: bool):
    """X with A X = B for A = L L^T (lower factor) or U^T U (upper), reading only the factor's triangle."""
    t = xp.triu(factor) if upper else xp.tril(factor)
    tt = xp.swapaxes(t, -1, -2).conj()
    if upper:  # U^H (U X) = B
        return _triangular_substitution(t, _triangular_substitution(tt, b, False), True)
    return _triangular_substitution(tt, _triangular_substitution(t, b, False), True)


@register
class CholeskySolveBackward0(Op):
    """cholesky_solve(B, L, upper): X with (L L^H) X = B; gradients in the module docstring."""

    save_inputs = True
    save_result = True
    complex_grad = True  # (the formula holds for complex factors: derivatives.yaml uses it for both)

    @staticmethod
    def forward(b, factor, upper):
        return _solve_with_factor(b, factor, upper)

    def backward(self, g):
        b, factor = self.saved()[:2]
        (upper,) = self._params
        x = self.saved_result()
        gb = apply(CholeskySolveBackward0, (g, factor), (upper,))
        gl = None
        if self.needs_input_grad(1):
            s = matmul(gb, x.mH)
            s = s + s.mH
            gl = -matmul(factor, s) if upper else -matmul(s, factor)
        return (gb if self.needs_input_grad(0) else None), gl


def _check_square(t: Tensor, message_prefix: str) -> None:
    a = t._data
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{message_prefix}A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, out=None) -> Tensor:  # noqa: A002
    """torch.cholesky_solve(B, L, upper=False): X with A X = B where A = L L^H (or U^H U), B (..., n, k), L
    (..., n, n), batch dims broadcast; only L's triangle is read.

    Raises:
        RuntimeError: B or L with fewer than 2 dims, L not square, n mismatch, batch dims that do not broadcast,
            different dtypes (torch's texts); NotImplementedError for integer tensors.
    """
    b, f = input._data, input2._data
    if b.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions instead")
    if f.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {f.ndim} dimensions instead")
    if b.dtype != f.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {scalar_type_name(b.dtype)} "
                           f"and A of type {scalar_type_name(f.dtype)} instead.")
    _check_square(input2, "")
    if f.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {f.shape[-1]} by "
                           f"{f.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    from .broadcast import broadcast_shape

    broadcast_shape(b.shape[:-2], f.shape[:-2])
    if b.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f"\"cholesky_solve_cpu\" not implemented for '{scalar_type_name(b.dtype)}'")
    return apply(CholeskySolveBackward0, (input, input2), (bool(upper),))


@register
class CholeskyInverseBackward0(Op):
    """cholesky_inverse(L, upper): (L L^H)^{-1}; gradient in the module docstring."""

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(factor, upper):
        n = factor.shape[-1]
        eye = xp.broadcast_to(xp.eye(n, dtype=factor.dtype), factor.shape)
        return _solve_with_factor(eye, factor, upper)

    def backward(self, g):
        (factor,) = self.saved()[:1]
        (upper,) = self._params
        inverse = self.saved_result()
        s = matmul(inverse, matmul(g + g.mH, inverse))
        return (-matmul(factor, s) if upper else -matmul(s, factor),)


def cholesky_inverse(input: Tensor, upper: bool = False, *, out=None) -> Tensor:  # noqa: A002 - torch's name
    """torch.cholesky_inverse(L, upper=False): (L L^H)^{-1} (or (U^H U)^{-1}) for L (..., n, n); only its
    triangle is read.

    Raises:
        RuntimeError: fewer than 2 dims or not square (torch's texts); torch.linalg.LinAlgError for a zero on
            the diagonal; NotImplementedError for integer tensors.
    """
    f = input._data
    if f.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    _check_square(input, "cholesky_inverse: ")
    if f.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f"\"cholesky_inverse_out_cpu\" not implemented for '{scalar_type_name(f.dtype)}'")
    diag = xp.diagonal(f, axis1=-2, axis2=-1)
    zero = diag == 0
    if diag.size and zero.any():  # a test first: under vmap, one that every sample passes (argwhere has no rule)
        zeros = xp.argwhere(zero.reshape(-1, diag.shape[-1]))
        raise LinAlgError(f"cholesky_inverse: The diagonal element {int(zeros[0][1]) + 1} is zero, the inversion "
                          "could not be completed because the input matrix is singular.")
    return apply(CholeskyInverseBackward0, (input,), (bool(upper),))


# ---------------------------------------------------------------------- index helpers
def _triangle_indices(name: str, row, col, offset, dtype, lower: bool) -> Tensor:
    row, col, offset = operator.index(row), operator.index(col), operator.index(offset)
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    npd = _np_dtype(dtype) if dtype is not None else xp.dtype(xp.int64)
    if npd.kind not in "iu":
        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type_name(npd)}'")
    r, c = xp.indices((row, col)).reshape(2, -1)
    keep = (c - r <= offset) if lower else (c - r >= offset)
    return wrap(xp.stack([r[keep], c[keep]]).astype(npd))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """torch.tril_indices: the (2, N) row/column indices of the lower triangle of a row x col matrix (diagonal
    ``offset``), in row-major order; int64 unless ``dtype`` names another integer type."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None) -> Tensor:
    """torch.triu_indices: as tril_indices, for the upper triangle."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, False)


def broadcast_shapes(*shapes) -> Size:
    """torch.broadcast_shapes(*shapes): the shape the given shapes (ints or sequences) broadcast to.

    None arguments are left out, as torch's (torch._refs._broadcast_shapes); none left gives ``Size([])``.

    Raises:
        RuntimeError: shapes that do not broadcast (torch's text names the first argument that fails), or an
            argument that is neither an int nor a sequence (a NumPy array is none: torch's text prints it);
        ValueError: a negative size."""
    from collections.abc import Sequence

    shapes = [(shape,) if isinstance(shape, int) else shape for shape in shapes if shape is not None]
    for shape in shapes:  # (all checked before any is broadcast, as torch's)
        if not isinstance(shape, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    result: list = []
    for index, shape in enumerate(shapes):
        dims = tuple(shape)
        if any(d < 0 for d in dims):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        if len(dims) > len(result):
            result = [1] * (len(dims) - len(result)) + result
        for k in range(1, len(dims) + 1):
            have, want = result[-k], dims[-k]
            if want == have or want == 1:
                continue
            if have == 1:
                result[-k] = want
                continue
            raise RuntimeError(
                f"Attempting to broadcast a dimension of length {want} at {-k}! Mismatching argument at index {index} "
                f"had {tuple(dims)}; but expected shape should be broadcastable to [{', '.join(map(str, result))}]")
    return Size(result)


EXPORTS: dict = {
    "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse,
    "tril_indices": tril_indices, "triu_indices": triu_indices, "broadcast_shapes": broadcast_shapes,
}
TENSOR_METHODS: dict = {"cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse}
