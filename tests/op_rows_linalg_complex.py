"""Op-table rows for what the linear-algebra family does only with complex numbers (see tests/op_table.py):
linalg.eig / eigvals (complex results, for real input too), complex alpha / beta of the products with an
added term, logdet's complex branch, and the ``_ex`` variants (solve_ex, cholesky_ex, inv_ex) with their
``info`` on singular / indefinite input. The rows of ops that take real and complex input alike are in
tests/op_rows_linalg.py (``**C``).

eig's eigenvectors are defined up to a phase each, so rows differentiate only functions that do not depend
on it: the eigenvalues, and V diag(sin(L)) V^{-1} (= sin(A)).
"""

from __future__ import annotations

from hypothesis import strategies as st

from op_rows_linalg import _eye, _spd, _well, addmm_shapes, baddbmm_shapes, solve_shapes, square
from op_table import C, OpInfo, fixed

COMPLEX = dict(dtypes=("complex64", "complex128"))


def _spread(lib, x):
    """A non-normal matrix with well-separated eigenvalues near 0, 3, 6, 9 (real ones for real x)."""
    n = x.shape[-1]
    return x * 0.3 + _eye(lib, n, x) * lib.tensor([0.0, 3.0, 6.0, 9.0][:n], dtype=x.dtype)


def _eig_function(lib, x):
    """V diag(sin(L)) V^{-1}: sin(A) through eig, independent of the eigenvectors' phases (sin rather than exp
    keeps the values small enough for float64 finite differences)."""
    values, vectors = lib.linalg.eig(_spread(lib, x))
    return (vectors * values.sin().unsqueeze(-2)) @ lib.linalg.inv(vectors)


def _complex_scalars(data, shapes):
    """alpha / beta of the products with an added term, complex ones included (complex tensors only)."""
    return {"beta": data.draw(st.sampled_from([1, 0.5 - 1j, 2j, 0])), "alpha": data.draw(st.sampled_from([1, 1 + 2j, -1j]))}


def _singular(lib, x):
    """x with its last column zeroed: exactly singular (LU finds a zero pivot)."""
    n = x.shape[-1]
    return x * lib.tensor([1.0] * (n - 1) + [0.0], dtype=x.dtype)


ROWS = [
    # ---- eig / eigvals: complex results for real input too (complex_out rows), and for complex input
    OpInfo("eigvals", lambda lib, x: lib.linalg.eigvals(_spread(lib, x)), square(), covers=("LinalgEigBackward0",),
           **COMPLEX),
    OpInfo("eigvals_of_real", lambda lib, x: lib.linalg.eigvals(_spread(lib, x)), square(),
           covers=("LinalgEigBackward0",), complex_out=True),
    OpInfo("eig_function", _eig_function, square(), covers=("LinalgEigBackward0", "LinalgInvExBackward0"), **COMPLEX),
    OpInfo("eig_function_of_real", _eig_function, square(), covers=("LinalgEigBackward0",), complex_out=True),
    OpInfo("eig_values_output", lambda lib, x: lib.linalg.eig(_spread(lib, x)).eigenvalues, square(max_batch=1),
           covers=("LinalgEigBackward0",), **COMPLEX),
    OpInfo("eig_empty", lambda lib, x: lib.linalg.eig(x).eigenvalues, st.sampled_from([((0, 0),), ((2, 0, 0),)]),
           covers=("LinalgEigBackward0",), **COMPLEX),
    # ---- complex alpha and beta (their conjugates scale the gradients)
    OpInfo("addmm_complex_scalars", lambda lib, i, a, b, beta, alpha: lib.addmm(i, a, b, beta=beta, alpha=alpha),
           addmm_shapes(), params=_complex_scalars, covers=("AddmmBackward0",), **COMPLEX),
    OpInfo("baddbmm_complex_scalars", lambda lib, i, a, b, beta, alpha: lib.baddbmm(i, a, b, beta=beta, alpha=alpha),
           baddbmm_shapes(), params=_complex_scalars, covers=("BaddbmmBackward0",), **COMPLEX),
    OpInfo("addmv_complex_scalars", lambda lib, i, m, v, beta, alpha: lib.addmv(i, m, v, beta=beta, alpha=alpha),
           st.sampled_from([((3,), (3, 4), (4,)), ((), (2, 3), (3,))]), params=_complex_scalars,
           covers=("AddmvBackward0",), **COMPLEX),
    OpInfo("addr_complex_scalars", lambda lib, i, a, b, beta, alpha: i.addr(a, b, beta=beta, alpha=alpha),
           st.sampled_from([((3, 4), (3,), (4,)), ((), (2,), (3,))]), params=_complex_scalars,
           covers=("AddrBackward0",), **COMPLEX),
    OpInfo("addbmm_complex_scalars", lambda lib, i, a, b, beta, alpha: lib.addbmm(i, a, b, beta=beta, alpha=alpha),
           st.sampled_from([((3, 5), (2, 3, 4), (2, 4, 5)), ((), (3, 2, 2), (3, 2, 1))]), params=_complex_scalars,
           covers=("AddbmmBackward0",), **COMPLEX),
    # ---- logdet of a complex matrix: sign.log() + logabsdet (torch's composite)
    OpInfo("logdet_complex", lambda lib, x: lib.logdet(_well(lib, x)), square(max_batch=1),
           covers=("AddBackward0", "LogBackward0", "LinalgSlogdetBackward0"), **COMPLEX),
    # ---- the _ex variants: the result as the plain function's, and info (int32) on failures
    OpInfo("solve_ex", lambda lib, a, b, left: lib.linalg.solve_ex(_well(lib, a), b, left=left).result,
           solve_shapes(),
           params=lambda d, s: {"left": len(s[1]) == 1 or s[1][-2] == s[1][-1] if d.draw(st.booleans()) else True},
           covers=("LinalgSolveExBackward0",), **C),
    OpInfo("solve_ex_singular", lambda lib, a, b, which: lib.linalg.solve_ex(_singular(lib, a), b)[which],
           fixed((2, 3, 3), (3, 2)), params=lambda d, s: {"which": d.draw(st.sampled_from([0, 1]))}, covers=(),
           differentiable=False, **C),
    OpInfo("cholesky_ex", lambda lib, x, upper: lib.linalg.cholesky_ex(_spd(lib, x), upper=upper).L, square(),
           params=lambda d, s: {"upper": d.draw(st.booleans())}, covers=("LinalgCholeskyExBackward0",), **C),
    # random matrices are mostly indefinite: LAPACK's partial factor up to the failing minor, and its order
    OpInfo("cholesky_ex_indefinite", lambda lib, x, upper, which: lib.linalg.cholesky_ex(x, upper=upper)[which],
           square(), params=lambda d, s: {"upper": d.draw(st.booleans()), "which": d.draw(st.sampled_from([0, 1]))},
           covers=(), differentiable=False, **C),
    OpInfo("inv_ex_singular", lambda lib, x, which: lib.linalg.inv_ex(_singular(lib, x))[which],
           square(min_n=2, max_batch=1), params=lambda d, s: {"which": d.draw(st.sampled_from([0, 1]))}, covers=(),
           differentiable=False, **C),
]
