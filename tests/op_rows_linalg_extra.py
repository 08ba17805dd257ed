"""Op-table rows for linalg_composite.py (multi_dot, vander, tensorinv, tensorsolve, cond, matrix_exp,
triangular_solve) and the LU / Householder / least-squares modules.

Matrices that are inverted or factored go through ``_well`` (diagonally dominant, so well conditioned and with
pivots that do not tie: the pivoting choices, and so the outputs, agree with torch's).
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from op_rows_linalg import _well, square
from op_table import C, OpInfo, fixed


@st.composite
def _chain(draw):
    """Shapes of a matrix chain of 2..4 factors, the ends possibly vectors."""
    count = draw(st.integers(2, 4))
    dims = [draw(st.integers(1, 4)) for _ in range(count + 1)]
    shapes = [(dims[i], dims[i + 1]) for i in range(count)]
    if draw(st.booleans()):
        shapes[0] = (dims[1],)
    if draw(st.booleans()):
        shapes[-1] = (dims[-2],)
    return tuple(shapes)


def _multi_dot(lib, *mats):
    return lib.linalg.multi_dot(list(mats))


@st.composite
def _vander_shape(draw):
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    return (tuple(batch) + (draw(st.integers(2, 4)),),)


def _vander_n(data, shapes):
    return {"N": data.draw(st.sampled_from([None, 2, 3, 5]))}


@st.composite
def _triangular_pair(draw):
    """B (*b, n, k) and A (*a, n, n) with broadcasting batch dims."""
    n, k = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    pair = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3))
    return (tuple(pair.input_shapes[0]) + (n, k), tuple(pair.input_shapes[1]) + (n, n))


def _triangular_flags(data, shapes):
    return {name: data.draw(st.booleans()) for name in ("upper", "transpose", "unitriangular")}


def _triangular_solve(lib, b, a, upper, transpose, unitriangular):
    x, clone = lib.triangular_solve(b, _well(lib, a), upper=upper, transpose=transpose, unitriangular=unitriangular)
    return x + clone.sum(-1, keepdim=True)[..., :1]


@st.composite
def _rect(draw):
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=3))
    return (tuple(batch) + (draw(st.integers(1, 4)), draw(st.integers(1, 4))),)


def _pivoted(lib, a):
    """Rows reversed after a dominant diagonal is added: every column's pivot is far from the others, and rows
    are swapped (so pivots are not the identity)."""
    m, n = a.shape[-2], a.shape[-1]
    return (a / 4 + 3 * lib.eye(m, n, dtype=a.dtype)).flip(-2)


def _lu_pl_u(lib, a):
    p, lower, upper = lib.linalg.lu(_pivoted(lib, a))
    return lower.sum(-1, keepdim=True) * upper.sum(-2, keepdim=True) + p.sum()


def _lu_factor_ex(lib, a):
    lu, pivots, info = lib.linalg.lu_factor_ex(_pivoted(lib, a))
    return lu * (pivots.sum() + info.sum())


def _lu_unpack(lib, a):
    lu, pivots = lib.linalg.lu_factor(_pivoted(lib, a))
    p, lower, upper = lib.lu_unpack(lu * 1.5, pivots)
    return lower.sum(-1, keepdim=True) * upper.sum(-2, keepdim=True) + p.sum()


@st.composite
def _lu_solve_shapes(draw):
    n, k = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    pair = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3))
    return (tuple(pair.input_shapes[0]) + (n, n), tuple(pair.input_shapes[1]) + (n, k))


def _lu_solve_flags(data, shapes):
    return {"left": data.draw(st.booleans()), "adjoint": data.draw(st.booleans())}


def _lu_solve(lib, a, b, left, adjoint):
    lu, pivots = lib.linalg.lu_factor(_pivoted(lib, a))
    return lib.linalg.lu_solve(lu, pivots, b if left else b.mT, left=left, adjoint=adjoint)


@st.composite
def _reflector_shapes(draw):
    """A (*b, m, n) with m >= n and tau (*b, k), k <= n."""
    batch = tuple(draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=2)))
    n = draw(st.integers(1, 3))
    m = draw(st.integers(n, 4))
    return (batch + (m, n), batch + (draw(st.integers(0, n)),))


@st.composite
def _ormqr_shapes(draw):
    """A (m, n), tau (min(m, n),) (torch requires that length), C (m, c) or (c, m)."""
    m, n, c = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    return ((m, n), (min(m, n),), (m, c), (c, m))


def _ormqr_flags(data, shapes):
    return {"left": data.draw(st.booleans()), "transpose": data.draw(st.booleans())}


def _ormqr(lib, a, tau, c_left, c_right, left, transpose):
    return lib.ormqr(a, tau, c_left if left else c_right, left=left, transpose=transpose)


@st.composite
def _lstsq_shapes(draw):
    """A (*batch, m, n), B (*batch, m, k)."""
    m, n, k = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    batch = tuple(draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=2)))
    return (batch + (m, n), batch + (m, k))


def _lstsq_driver(data, shapes):
    return {"driver": data.draw(st.sampled_from([None, "gels", "gelsy", "gelsd", "gelss"]))}


def _lstsq(lib, a, b, driver):
    """The solution, plus the residuals (present for tall A and drivers other than gelsy) in every entry."""
    m, n = a.shape[-2], a.shape[-1]
    x, residuals, _rank, _s = lib.linalg.lstsq(a / 4 + 3 * lib.eye(m, n, dtype=a.dtype), b, driver=driver)
    return x + residuals.sum()


@st.composite
def _low_rank_factors(draw):
    """Factors a (*b, m, 2), c (*b, n, 2) of a rank-2 matrix a c^T, m, n >= 2."""
    batch = tuple(draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=2)))
    return (batch + (draw(st.integers(2, 4)), 2), batch + (draw(st.integers(2, 4)), 2))


def _singular_values(usv):
    """S: when q covers the rank, its value and derivative do not depend on the random draw (Q spans A's range,
    so Q's motion does not enter u_i^H dA v_i), so it is comparable with torch; U and V (and the reconstruction's
    derivative off A's range) depend on the draw."""
    return usv[1]


_DOUBLE = ("float64",)

def _hermitian_flag(data, shapes):
    return {"hermitian": data.draw(st.booleans())}


def _symmetric(a, hermitian):
    """A symmetric (hermitian=False; complex symmetric for complex input) or Hermitian matrix: random ones need
    2 x 2 pivots and row swaps often."""
    return a + (a.mH if hermitian else a.mT)


def _ldl_factor(lib, a, hermitian):
    ld, pivots, info = lib.linalg.ldl_factor_ex(_symmetric(a, hermitian), hermitian=hermitian)
    return ld + pivots.sum(-1, keepdim=True).unsqueeze(-1) + info.unsqueeze(-1).unsqueeze(-1)


@st.composite
def _ldl_solve_shapes(draw):
    """A (*batch, n, n), B (*batch, n, k), the same batch (torch's ldl_solve crashes on broadcast batches)."""
    n, k = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    batch = tuple(draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=2)))
    return (batch + (n, n), batch + (n, k))


def _ldl_solve(lib, a, b, hermitian):
    ld, pivots = lib.linalg.ldl_factor(_symmetric(a, hermitian), hermitian=hermitian)
    return lib.linalg.ldl_solve(ld, pivots, b, hermitian=hermitian)


ROWS = [
    OpInfo("multi_dot", _multi_dot, _chain(), covers=(), **C),
    OpInfo("vander", lambda lib, x, N: lib.linalg.vander(x, N=N), _vander_shape(), params=_vander_n, **C),
    OpInfo("tensorinv", lambda lib, a: lib.linalg.tensorinv(_well(lib, a.reshape(6, 6)).reshape(2, 3, 6), ind=2),
           fixed((6, 6)), covers=("ReshapeAliasBackward0",), **C),
    OpInfo("tensorsolve", lambda lib, a, b: lib.linalg.tensorsolve(_well(lib, a).reshape(2, 3, 3, 2), b),
           fixed((6, 6), (2, 3)), **C),
    OpInfo("cond", lambda lib, a: lib.linalg.cond(_well(lib, a)), square(), **C),
    # torch's backward through cond(p='fro') raises (its nan_to_num_ changes a saved output in place): values only
    OpInfo("cond_fro", lambda lib, a: lib.linalg.cond(_well(lib, a), "fro"), square(), differentiable=False, **C),
    OpInfo("cond_nuc", lambda lib, a: lib.linalg.cond(_well(lib, a), "nuc"), square(max_batch=1), **C),
    OpInfo("matrix_exp", lambda lib, a: lib.matrix_exp(a), square(), covers=("LinalgMatrixExpBackward0",), **C),
    OpInfo("linalg_matrix_exp", lambda lib, a: lib.linalg.matrix_exp(a), square(max_batch=1), **C),
    OpInfo("triangular_solve", _triangular_solve, _triangular_pair(), params=_triangular_flags,
           covers=("TriangularSolveBackward0",), **C),
    OpInfo("linalg.lu", _lu_pl_u, _rect(), covers=("LinalgLuBackward0",), **C),
    OpInfo("linalg.lu_factor_ex", _lu_factor_ex, _rect(), covers=("LinalgLuFactorExBackward0",), **C),
    OpInfo("torch.lu", lambda lib, a: lib.lu(_pivoted(lib, a))[0], square(max_batch=1), **C),
    OpInfo("lu_unpack", _lu_unpack, _rect(), covers=("LuUnpackBackward0",), **C),
    OpInfo("linalg.lu_solve", _lu_solve, _lu_solve_shapes(), params=_lu_solve_flags,
           covers=("LinalgLuSolveBackward0",), **C),
    OpInfo("torch.lu_solve", lambda lib, a, b: lib.lu_solve(b, *lib.linalg.lu_factor(_pivoted(lib, a))),
           _lu_solve_shapes(), **C),
    OpInfo("householder_product", lambda lib, a, tau: lib.linalg.householder_product(a, tau), _reflector_shapes(),
           covers=("LinalgHouseholderProductBackward0",), **C),
    # float32 second derivatives of ormqr sum products of reflectors in another order than torch's: relative 2e-4
    # apart on some drawn examples (float64 agrees to 1e-9), so float32 gets the looser tolerance
    OpInfo("ormqr", _ormqr, _ormqr_shapes(), params=_ormqr_flags, covers=("OrmqrBackward0",),
           tol={"float32": dict(rtol=1e-3, atol=1e-4)}, **C),
    OpInfo("geqrf", lambda lib, a: lib.geqrf(a)[0] + lib.geqrf(a)[1].sum(), _rect(), differentiable=False, **C),
    OpInfo("linalg.lstsq", _lstsq, _lstsq_shapes(), params=_lstsq_driver, covers=("LinalgLstsqBackward0",), **C),
    # the draw differs from torch's; q = rank makes S and its gradient draw-independent up to rounding, which in
    # single precision depends on the draw (so float64 only; complex: the OpInfo entries); second derivatives of S
    # involve the basis's motion, which depends on the draw
    OpInfo("svd_lowrank", lambda lib, a, c: _singular_values(lib.svd_lowrank(a @ c.mT, q=2)), _low_rank_factors(),
           gradcheck=False, second_order=False, dtypes=_DOUBLE),
    OpInfo("pca_lowrank", lambda lib, a, c: _singular_values(lib.pca_lowrank(a @ c.mT, q=2, center=False)),
           _low_rank_factors(), gradcheck=False, second_order=False, dtypes=_DOUBLE),
    OpInfo("linalg.ldl_factor_ex", _ldl_factor, square(), params=_hermitian_flag, differentiable=False, **C),
    OpInfo("linalg.ldl_solve", _ldl_solve, _ldl_solve_shapes(), params=_hermitian_flag, differentiable=False, **C),
]
