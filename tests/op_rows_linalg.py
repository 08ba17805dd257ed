"""Op-table rows for the linear-algebra family (src/dyngrad/_ops/matmul.py, linalg.py, norms.py,
distance.py).

Inputs are drawn uniformly in [-2, 2]; rows for inverses, solves and decompositions
map them to well-conditioned matrices inside ``fn`` (the same code runs on torch and
dyngrad, and gradients flow back through the map):
- ``_well``: diagonally dominant, columns of alternating sign (determinants of both signs);
- ``_spd``: symmetric positive definite (cholesky, logdet, hermitian pinv);
- ``_sym_spread``: symmetric with well-separated eigenvalues (eigh);
- ``_rect``: full rank with well-separated singular values (svd, qr, pinv).
Decompositions whose outputs have a sign/ordering freedom (eigenvectors, singular
vectors) are tested through gauge-invariant functions of them (V diag(f(L)) V^T,
U diag(f(S)) V^H, projectors) and through the unique outputs (eigenvalues, singular
values). NumPy and torch both use LAPACK's Householder QR, whose signs agree, so Q
and R are also compared directly.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from op_table import C, OpInfo, broadcast_pair, fixed, one_shape

INF = float("inf")

# ----------------------------------------------------------------- shape strategies


@st.composite
def square(draw, min_n: int = 1, max_batch: int = 2):
    """One (*batch, n, n) shape; batch dims 0..max_batch, sides 1..3."""
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=max_batch, min_side=1, max_side=3))
    n = draw(st.integers(min_n, 4))
    return (tuple(batch) + (n, n),)


@st.composite
def rect(draw, max_batch: int = 1):
    """One (*batch, m, n) shape, m, n in 1..4."""
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=max_batch, min_side=1, max_side=3))
    return (tuple(batch) + (draw(st.integers(1, 4)), draw(st.integers(1, 4))),)


@st.composite
def invalid_matrix(draw):
    """Shapes linalg functions reject: fewer than 2 dims, or non-square matrices."""
    if draw(st.booleans()):
        return (tuple(draw(hnp.array_shapes(min_dims=0, max_dims=1, min_side=1, max_side=3))),)
    m, n = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    if m == n:
        n += 1
    return ((m, n),)


@st.composite
def addmm_shapes(draw):
    n, k, m = (draw(st.integers(1, 4)) for _ in range(3))
    inp = draw(st.sampled_from([(n, m), (m,), (1, m), (n, 1), ()]))
    return (inp, (n, k), (k, m))


@st.composite
def baddbmm_shapes(draw):
    b, n, k, m = (draw(st.integers(1, 3)) for _ in range(4))
    inp = draw(st.sampled_from([(b, n, m), (n, m), (1, 1, m), (b, 1, 1), ()]))
    return (inp, (b, n, k), (b, k, m))


@st.composite
def solve_shapes(draw):
    """A (*a, n, n) with B a matrix (*b, n, k) (batch dims broadcast) or a vector (n,) / (*a, n)."""
    n = draw(st.integers(1, 4))
    pair = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3))
    ba, bb = tuple(pair.input_shapes[0]), tuple(pair.input_shapes[1])
    kind = draw(st.sampled_from(["matrix", "vector", "batched_vector"]))
    if kind == "matrix":
        return (ba + (n, n), bb + (n, draw(st.integers(1, 3))))
    if kind == "vector":
        return (ba + (n, n), (n,))
    return (ba + (n, n), ba + (n,))


@st.composite
def cross_shapes(draw):
    """Two broadcastable shapes with the same number of dims and size 3 at the drawn dim."""
    pair = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3))
    a, b = list(pair.input_shapes[0]), list(pair.input_shapes[1])
    nd = max(len(a), len(b))
    a, b = [1] * (nd - len(a)) + a, [1] * (nd - len(b)) + b
    pos = draw(st.integers(0, nd))
    return (tuple(a[:pos] + [3] + a[pos:]), tuple(b[:pos] + [3] + b[pos:]))


@st.composite
def tensordot_case(draw):
    """Shapes and a ``dims`` argument (an int, or two lists) with matching contracted sizes."""
    a = list(draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)))
    k = draw(st.integers(0, len(a)))
    free_b = list(draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3)))
    if draw(st.booleans()):
        b = a[len(a) - k:] + free_b
        return (tuple(a), tuple(b)), k
    dims_a = draw(st.permutations(range(len(a))))[:k]
    b = free_b + [a[d] for d in dims_a]
    dims_b = list(range(len(free_b), len(b)))
    order = draw(st.permutations(range(len(b))))
    b2 = [b[i] for i in order]
    dims_b = [order.index(d) for d in dims_b]
    return (tuple(a), tuple(b2)), (list(dims_a), dims_b)


def _einsum_equation(data, shapes):
    """An equation consistent with the drawn shapes: shared labels, repeats (diagonals), size-1 broadcasting."""
    sizes: dict = {}
    terms = []
    for shape in shapes:
        term = ""
        for n in shape:
            mine = {c: shape[term.index(c)] for c in term}
            fits = sorted(c for c, m in sizes.items() if (c not in mine and (m == n or m == 1 or n == 1))
                          or (c in mine and mine[c] == n))
            if fits and data.draw(st.booleans()):
                c = data.draw(st.sampled_from(fits))
            else:
                c = "ijklmnop"[len(sizes)]
            if n != 1 or c not in sizes:
                sizes[c] = n if sizes.get(c, 1) == 1 else sizes[c]
            term += c
        terms.append(term)
    lhs = ",".join(terms)
    if data.draw(st.booleans()):
        return {"eq": lhs}
    used = sorted(set("".join(terms)))
    out = data.draw(st.permutations(used))[: data.draw(st.integers(0, len(used)))]
    return {"eq": lhs + "->" + "".join(out)}


def _einsum_shapes():
    return st.lists(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3), min_size=1, max_size=3).map(
        tuple
    )


# Equations with ellipses, spaces, 0-d operands, diagonals, three operands (keyed by their shapes).
_EINSUM_CASES = {
    ((3, 4), (4, 2)): "ij,jk->ik",
    ((2, 3, 4), (2, 4, 1)): "bij,bjk->bik",
    ((3, 3),): "ii->i",
    ((2, 2),): "ii",
    ((2, 1, 3, 4), (5, 4, 2)): "...ij,...jk",
    ((2, 3, 1),): "i...->...",
    ((2, 3), (3, 4), (4, 1)): "ij,jk,kl->il",
    ((2, 3), (4, 3, 5), (2, 5)): "bn,anm,bm->ba",
    ((3,), (3,)): "i,i",
    ((3,), (2,)): "i,j",
    ((2, 3), (3,)): " i j , j ->i",
    ((2, 3), ()): "ij,->ji",
    ((2, 2, 3),): "iij->j",
}


def _tensordot_shapes():
    return tensordot_case().map(lambda c: c[0] + (c[1],))


# ----------------------------------------------------------------- well-conditioned inputs


def _eye(lib, n, x):
    return lib.eye(n, dtype=x.dtype)


def _well(lib, x):
    """Diagonally dominant, columns of alternating sign: well conditioned, det of either sign."""
    n = x.shape[-1]
    sign = lib.tensor([1.0, -1.0, 1.0, -1.0][:n], dtype=x.dtype)
    return (x / n + 3 * _eye(lib, n, x)) * sign


def _spd(lib, x):
    """Hermitian (symmetric) positive definite."""
    n = x.shape[-1]
    return x @ x.mH / n + _eye(lib, n, x)


def _sym_spread(lib, x):
    """Hermitian (symmetric), eigenvalues near 0, 3, 6, 9 (gaps keep eigenvector derivatives tame)."""
    n = x.shape[-1]
    spread = lib.tensor([0.0, 3.0, 6.0, 9.0][:n], dtype=x.dtype)
    return (x + x.mH) / 4 + _eye(lib, n, x) * spread


def _rect(lib, x):
    """Full rank, singular values near 1, 2.5, 4, 5.5 (distinct, away from 0)."""
    m, n = x.shape[-2:]
    d = lib.eye(m, n, dtype=x.dtype) * lib.tensor([1.0, 2.5, 4.0, 5.5][:n], dtype=x.dtype)
    return x * 0.15 + d


def _svd_f(lib, x, full):
    u, s, vh = lib.linalg.svd(_rect(lib, x), full_matrices=full)
    k = s.shape[-1]
    return (u[..., :, :k] * (s * s.sin())) @ vh[..., :k, :]


def _linalg_error(lib, x, name):
    """Call lib.linalg.<name> on x times 0 (singular / not positive definite); normalise LinAlgError's type."""
    try:
        return getattr(lib.linalg, name)(x * 0 if name != "cholesky" else x * 0 - _eye(lib, x.shape[-1], x))
    except lib.linalg.LinAlgError as e:  # torch's class is torch._C._LinAlgError: compare its name and text
        assert isinstance(e, RuntimeError)
        raise RuntimeError(f"{type(e).__name__}: {e}") from None


def _name(names):
    return lambda d, s: {"name": d.draw(st.sampled_from(names))}


def _spread_on(lib, x, dim):
    """``_rect`` laid over the dims ``dim`` of any input: x * 0.15 plus a (m, n) "diagonal" of 1, 2.5, 4,
    5.5 broadcast along the other dims, so each matrix has distinct singular values away from 0."""
    nd = x.dim()
    d0, d1 = dim[0] % nd, dim[1] % nd
    m, n = x.shape[d0], x.shape[d1]
    d = lib.eye(m, n, dtype=x.dtype) * lib.tensor([1.0, 2.5, 4.0, 5.5][:n], dtype=x.dtype)
    if d0 > d1:
        d = d.mT
    shape = [1] * nd
    shape[d0], shape[d1] = m, n
    return x * 0.15 + d.reshape(shape)


def _two_dims(data, shapes):
    nd = len(shapes[0])
    d0 = data.draw(st.integers(-nd, nd - 1))
    d1 = data.draw(st.integers(-nd, nd - 1).filter(lambda d: (d - d0) % nd != 0))
    return (d0, d1)


def _svd_norm_args(data, shapes):
    return {"ord": data.draw(st.sampled_from(["nuc", 2, -2])), "dim": _two_dims(data, shapes),
            "keepdim": data.draw(st.booleans())}


def _linalg_norm_args(data, shapes):
    nd = len(shapes[0])
    dim = data.draw(st.sampled_from(["none", "one", "two", "three"]))
    if dim == "none" or nd < 2 and dim in ("two", "three"):
        dim = None
    elif dim == "one":
        dim = (data.draw(st.integers(-nd, nd - 1)),) if data.draw(st.booleans()) else data.draw(st.integers(0, nd - 1))
    elif dim == "two":
        dim = _two_dims(data, shapes)
    else:
        dim = (0, 1, 0)
    return {"ord": data.draw(st.sampled_from([None, "fro", "nuc", 2, -2, 1, -1, INF, 3])), "dim": dim,
            "keepdim": data.draw(st.booleans())}


def _matrix_norm_error_args(data, shapes):
    return {"ord": data.draw(st.sampled_from(["nuc", 2, -2, 3, 2.5, "abc", "fro", 1])),
            "dim": data.draw(st.sampled_from([(-2, -1), (0, 0), (0, -2), (0,), (0, 1, 2), (0, 5), [1, 0]])),
            "dtype": data.draw(st.sampled_from([None, "float64", "float32", "int64"]))}


def _matrix_norm_dtype(lib, x, ord, dim, dtype):
    return lib.linalg.matrix_norm(x, ord, dim, dtype=None if dtype is None else getattr(lib, dtype))


def _matrix_rank(lib, x, kw, drop):
    """matrix_rank of x, rank-deficient when ``drop`` (last column a copy of the first), symmetric for hermitian."""
    if drop and x.dim() >= 2 and x.shape[-1] >= 2:
        x = lib.cat([x[..., :-1], x[..., :1]], -1)
    if kw.get("hermitian"):
        if x.dim() >= 2 and x.shape[-1] == x.shape[-2]:
            x = x + x.mH
        else:
            kw = {}
    return lib.linalg.matrix_rank(x, **kw)


# ----------------------------------------------------------------- rows

ROWS = [
    # ---- products with an added term
    OpInfo("addmm", lambda lib, i, a, b, beta, alpha: lib.addmm(i, a, b, beta=beta, alpha=alpha), addmm_shapes(),
           covers=("AddmmBackward0",),
           params=lambda d, s: {"beta": d.draw(st.sampled_from([1, 0.5, 0])), "alpha": d.draw(st.sampled_from([1, -2.0]))}, **C),
    OpInfo("addmm_method", lambda lib, i, a, b: i.addmm(a, b), addmm_shapes(), covers=("AddmmBackward0",), **C),
    OpInfo("baddbmm", lambda lib, i, a, b, beta, alpha: lib.baddbmm(i, a, b, beta=beta, alpha=alpha), baddbmm_shapes(),
           covers=("BaddbmmBackward0",),
           params=lambda d, s: {"beta": d.draw(st.sampled_from([1, 0.5, 0])), "alpha": d.draw(st.sampled_from([1, 3.0]))}, **C),
    OpInfo("addmv", lambda lib, i, m, v, beta, alpha: lib.addmv(i, m, v, beta=beta, alpha=alpha),
           st.sampled_from([((3,), (3, 4), (4,)), ((), (2, 3), (3,)), ((1,), (3, 2), (2,))]),
           params=lambda d, s: {"beta": d.draw(st.sampled_from([1, 0.5, 0])), "alpha": d.draw(st.sampled_from([1, 2.0]))},
           covers=("AddmvBackward0",), **C),
    OpInfo("addr", lambda lib, i, a, b, beta, alpha: i.addr(a, b, beta=beta, alpha=alpha),
           st.sampled_from([((3, 4), (3,), (4,)), ((), (2,), (3,)), ((1, 3), (2,), (3,))]),
           params=lambda d, s: {"beta": d.draw(st.sampled_from([1, 0.5, 0])), "alpha": d.draw(st.sampled_from([1, 2.0]))},
           covers=("AddrBackward0",), **C),
    OpInfo("addbmm", lambda lib, i, a, b, beta, alpha: lib.addbmm(i, a, b, beta=beta, alpha=alpha),
           st.sampled_from([((3, 5), (2, 3, 4), (2, 4, 5)), ((5,), (1, 3, 2), (1, 2, 5)), ((), (3, 2, 2), (3, 2, 1))]),
           params=lambda d, s: {"beta": d.draw(st.sampled_from([1, 0.5, 0])), "alpha": d.draw(st.sampled_from([1, 2.0]))},
           covers=("AddbmmBackward0",), **C),
    OpInfo("add_product_errors", lambda lib, i, a, b, name: getattr(lib, name)(i, a, b),
           st.sampled_from([((3,), (3, 4), (3,)), ((3,), (4,), (4,)), ((4,), (3, 4), (4,)), ((3, 4), (3,), (3,)),
                            ((3, 4), (3, 4), (4,)), ((3, 5), (2, 3, 4), (2, 3, 4)), ((3, 5), (2, 3, 4), (3, 4, 5)),
                            ((3, 5), (2, 3, 4), (2, 5, 5))]),
           params=_name(["addmv", "addr", "addbmm"]), covers=()),
    OpInfo("addmm_errors", lambda lib, i, a, b: lib.addmm(i, a, b),
           st.sampled_from([((3, 3), (2, 3), (3, 3)), ((3, 3), (3,), (3, 3)), ((4,), (3, 3), (3, 3)),
                            ((3, 3), (3, 2), (3, 3))]),
           covers=("AddmmBackward0",)),
    # ---- einsum (composed of permutes, diagonals, sums, muls and bmm as in torch)
    OpInfo("einsum", lambda lib, *xs, eq: lib.einsum(eq, *xs), _einsum_shapes(), params=_einsum_equation,
           covers=("ViewBackward0", "PermuteBackward0", "MulBackward0", "SumBackward1", "BmmBackward0"), **C),
    OpInfo("einsum_fixed", lambda lib, *xs, eq: lib.einsum(eq, list(xs)), st.sampled_from(sorted(_EINSUM_CASES)),
           params=lambda d, s: {"eq": _EINSUM_CASES[s]},
           covers=("ViewBackward0", "PermuteBackward0", "MulBackward0", "SumBackward1", "BmmBackward0"), **C),
    OpInfo("einsum_errors", lambda lib, x, y, eq: lib.einsum(eq, x, y), st.just(((3, 3), (2, 3))),
           params=lambda d, s: {"eq": d.draw(st.sampled_from([
               "ij,jk->ik", "ij,jk->iq", "ijk,jk", "ij", "ij,jk,kl", "ij,j1", "i.j,jk", "...ij,...ij,", "ij,jk->ii",
               "ii,jk", "ij,jk->i.", "ij,jk->......",
           ]))}, covers=()),
    # ---- outer, kron, tensordot, trace, cross
    OpInfo("outer", lambda lib, a, b: lib.outer(a, b),
           st.tuples(one_shape(1, 1).map(lambda s: s[0]), one_shape(1, 1).map(lambda s: s[0])),
           covers=("MulBackward0", "ViewBackward0"), int_ok=True, **C),
    OpInfo("outer_errors", lambda lib, a, b: a.outer(b), st.sampled_from([((2, 2), (2,)), ((2,), (1, 2)), ((), (2,))]),
           covers=()),
    OpInfo("kron", lambda lib, a, b: lib.kron(a, b), broadcast_pair().map(lambda p: (p[0], p[1][::-1])),
           covers=("UnsafeViewBackward0", "MulBackward0"), int_ok=True, **C),
    OpInfo("tensordot", lambda lib, a, b, dims: lib.tensordot(a, b, dims=dims),
           _tensordot_shapes().map(lambda c: c[:2]),
           params=None, covers=("ViewBackward0", "MmBackward0", "PermuteBackward0"), **C),
    OpInfo("tensordot_dims", lambda lib, a, b, dims: lib.tensordot(a, b, dims=dims),
           st.sampled_from([((2, 3, 4), (3, 4, 2)), ((2, 3), (3, 2)), ((3,), (2,))]),
           params=lambda d, s: {"dims": d.draw(st.sampled_from([0, 1, 2, ([1, 2], [0, 1]), ([0], [1]), -1]))},
           covers=("ViewBackward0", "MmBackward0"), **C),
    OpInfo("trace", lambda lib, x: lib.trace(x), one_shape(0, 3), covers=("TraceBackward0",), int_ok=True, **C),
    OpInfo("trace_method", lambda lib, x: x.trace() * 2, one_shape(2, 2), covers=("TraceBackward0",), **C),
    OpInfo("cross", lambda lib, a, b, dim: lib.cross(a, b, dim=dim),
           cross_shapes(),
           params=lambda d, s: {"dim": next(i for i, (x, y) in enumerate(zip(*s)) if x == 3 and y == 3)
                                - (len(s[0]) if d.draw(st.booleans()) else 0)},
           covers=("LinalgCrossBackward0",), **C),
    OpInfo("linalg_cross", lambda lib, a, b: lib.linalg.cross(a, b),
           st.sampled_from([((3,), (3,)), ((2, 3), (2, 3)), ((4, 1, 3), (1, 2, 3)), ((2, 3), (3,)), ((3, 2), (3, 2)),
                            ((4, 3), (2, 3))]),
           covers=("LinalgCrossBackward0",), **C),
    # ---- inverse, determinants, solve
    OpInfo("inv", lambda lib, x: lib.linalg.inv(_well(lib, x)), square(), covers=("LinalgInvExBackward0",), **C),
    OpInfo("inverse", lambda lib, x: lib.inverse(_well(lib, x)), square(max_batch=1),
           covers=("LinalgInvExBackward0",), **C),
    OpInfo("inv_ex", lambda lib, x: lib.linalg.inv_ex(_well(lib, x))[0], square(max_batch=1),
           covers=("LinalgInvExBackward0",), **C),
    OpInfo("det", lambda lib, x: lib.linalg.det(_well(lib, x)), square(), covers=("LinalgDetBackward0",), **C),
    OpInfo("det_method", lambda lib, x: _well(lib, x).det(), square(max_batch=1), covers=("LinalgDetBackward0",), **C),
    OpInfo("det_singular", lambda lib, x: lib.det(x * lib.tensor([1.0, 1.0, 0.0], dtype=x.dtype)), st.just(((3, 3),)),
           covers=("LinalgDetBackward0",), second_order=False, **C),
    OpInfo("slogdet", lambda lib, x: lib.linalg.slogdet(_well(lib, x)).logabsdet, square(),
           covers=("LinalgSlogdetBackward0",), **C),
    OpInfo("slogdet_sign", lambda lib, x: lib.slogdet(_well(lib, x))[0], square(max_batch=1),
           covers=("LinalgSlogdetBackward0",), **C),
    OpInfo("logdet", lambda lib, x: lib.logdet(_spd(lib, x)), square(max_batch=1),
           covers=("LinalgSlogdetBackward0", "WhereBackward0"), **C),
    OpInfo("solve", lambda lib, a, b, left: lib.linalg.solve(_well(lib, a), b, left=left), solve_shapes(),
           params=lambda d, s: {"left": len(s[1]) == 1 or s[1][-2] == s[1][-1] if d.draw(st.booleans()) else True},
           covers=("LinalgSolveExBackward0",), **C),
    OpInfo("solve_errors", lambda lib, a, b: lib.linalg.solve(a, b),
           st.sampled_from([((3, 3), (2, 3)), ((3, 3), (2,)), ((2, 3), (2, 3)), ((2, 3, 3), (4, 3, 2)),
                            ((3,), (3,))]),
           covers=()),
    OpInfo("matrix_errors", lambda lib, x, name: getattr(lib.linalg, name)(x), invalid_matrix(),
           params=_name(["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh"]),
           covers=(), differentiable=False, int_ok=True),
    OpInfo("matrix_int_errors", lambda lib, x, name: getattr(lib.linalg, name)(x.long()), square(max_batch=1),
           params=_name(["inv", "det", "slogdet", "cholesky", "eigh", "qr", "svd", "pinv"]),
           covers=(), differentiable=False, int_ok=True, domain=(3.0, 4.0)),
    OpInfo("singular_errors", lambda lib, x, name: _linalg_error(lib, x, name), square(max_batch=1),
           params=_name(["inv", "cholesky"]), covers=(), differentiable=False),
    OpInfo("singular_solve", lambda lib, a, b: _solve_error(lib, a, b), st.just(((2, 3, 3), (3, 2))), covers=(),
           differentiable=False),
    OpInfo("empty_matrices", lambda lib, x, name: (lambda r: r[0] if isinstance(r, tuple) else r)(
        getattr(lib.linalg, name)(x)), st.sampled_from([((0, 0),), ((2, 0, 0),), ((0, 3, 3),)]),
           params=_name(["inv", "det", "slogdet", "cholesky", "eigh", "svd", "qr", "pinv"]),
           covers=("LinalgInvExBackward0", "LinalgDetBackward0", "LinalgSlogdetBackward0", "LinalgCholeskyExBackward0",
                   "LinalgEighBackward0", "LinalgSvdBackward0", "LinalgQrBackward0", "LinalgPinvBackward0"), **C),
    # ---- decompositions
    OpInfo("cholesky", lambda lib, x, upper: lib.linalg.cholesky(_spd(lib, x), upper=upper), square(),
           params=lambda d, s: {"upper": d.draw(st.booleans())}, covers=("LinalgCholeskyExBackward0",), **C),
    OpInfo("qr", lambda lib, x, mode, which: lib.linalg.qr(_rect(lib, x), mode=mode)[which], rect(),
           params=lambda d, s: {"mode": "complete" if s[0][-2] <= s[0][-1] and d.draw(st.booleans()) else "reduced",
                                "which": d.draw(st.sampled_from([0, 1]))},
           covers=("LinalgQrBackward0",), **C),
    OpInfo("qr_projector", lambda lib, x: (lambda q: (q * lib.tensor([1.0, -2.0, 3.0, 0.5][: q.shape[-1]],
                                                                          dtype=x.dtype)) @ q.mH)(
        lib.linalg.qr(_rect(lib, x)).Q), rect(), covers=("LinalgQrBackward0",), **C),
    OpInfo("qr_mode_errors", lambda lib, x, mode: lib.linalg.qr(x, mode=mode).R.sum().backward(),
           st.just(((4, 3),)), params=lambda d, s: {"mode": d.draw(st.sampled_from(["r", "complete", "x"]))},
           covers=("LinalgQrBackward0",), differentiable=False),
    OpInfo("eigh_values", lambda lib, x, uplo: lib.linalg.eigh(_sym_spread(lib, x), UPLO=uplo).eigenvalues, square(),
           params=lambda d, s: {"uplo": d.draw(st.sampled_from(["L", "U"]))}, covers=("LinalgEighBackward0",), **C),
    OpInfo("eigvalsh", lambda lib, x: lib.linalg.eigvalsh(_sym_spread(lib, x)), square(max_batch=1),
           covers=("LinalgEighBackward0",), **C),
    OpInfo("eigh_function", lambda lib, x: (lambda lv: (lv[1] * lv[0].sin()) @ lv[1].mH)(
        lib.linalg.eigh(_sym_spread(lib, x))), square(), covers=("LinalgEighBackward0",), **C),
    OpInfo("eigh_lower_triangle", lambda lib, x: (lambda lv: (lv[1] * lv[0]) @ lv[1].mH)(lib.linalg.eigh(
        x + _eye(lib, x.shape[-1], x) * lib.tensor([0.0, 5.0, 10.0, 15.0][: x.shape[-1]], dtype=x.dtype))),
           # eigh reads only the lower triangle, but its gradient (torch's formula) assumes a
           # symmetric input, so finite differences on a non-symmetric input disagree with it.
           square(max_batch=1), covers=("LinalgEighBackward0",), gradcheck=False, **C),
    OpInfo("svd_values", lambda lib, x, full: lib.linalg.svd(_rect(lib, x), full_matrices=full).S, rect(),
           params=lambda d, s: {"full": d.draw(st.booleans())}, covers=("LinalgSvdBackward0",), **C),
    OpInfo("svdvals", lambda lib, x: lib.linalg.svdvals(_rect(lib, x)), rect(), covers=("LinalgSvdBackward0",), **C),
    OpInfo("svd_function", lambda lib, x, full: _svd_f(lib, x, full), rect(),
           params=lambda d, s: {"full": d.draw(st.booleans())}, covers=("LinalgSvdBackward0",), **C),
    OpInfo("svd_projectors", lambda lib, x: (lambda usv: usv[0] @ usv[0].mH + usv[2].mH @ usv[2] * 0.5)(
        lib.linalg.svd(_rect(lib, x), full_matrices=False)) if x.shape[-1] == x.shape[-2] else
        (lambda usv: usv[0] @ usv[0].mH if x.shape[-2] > x.shape[-1] else usv[2].mH @ usv[2])(
            lib.linalg.svd(_rect(lib, x), full_matrices=False)), rect(), covers=("LinalgSvdBackward0",), **C),
    OpInfo("torch_svd", lambda lib, x: (lambda usv: (usv[0] * usv[1].exp()) @ usv[2].mH)(lib.svd(_rect(lib, x))),
           rect(max_batch=0), covers=("LinalgSvdBackward0",), **C),
    # ---- matrix norms through singular values (permute, svdvals, sum / amax / amin, as torch composes them)
    OpInfo("matrix_norm_svd", lambda lib, x, ord, dim, keepdim: lib.linalg.matrix_norm(
        _spread_on(lib, x, dim), ord, dim, keepdim), one_shape(min_dims=2, max_dims=4, min_side=1),
           params=_svd_norm_args,
           covers=("PermuteBackward0", "LinalgSvdBackward0", "SumBackward1", "AmaxBackward0", "AminBackward0",
                   "UnsqueezeBackward0"), **C),
    OpInfo("matrix_norm_svd_raw", lambda lib, x, ord, dim, keepdim: lib.linalg.matrix_norm(x, ord, dim, keepdim),
           one_shape(min_dims=2, max_dims=3), params=_svd_norm_args, second_order=False, gradcheck=False,
           covers=("LinalgSvdBackward0", "SumBackward1", "AmaxBackward0", "AminBackward0"), **C),
    OpInfo("matrix_norm_errors", _matrix_norm_dtype, one_shape(min_dims=1, max_dims=3, min_side=1),
           params=_matrix_norm_error_args, covers=("LinalgSvdBackward0", "ToCopyBackward0"), second_order=False,
           gradcheck=False, int_ok=True),
    OpInfo("linalg_norm_ord", lambda lib, x, ord, dim, keepdim: lib.linalg.norm(x, ord, dim, keepdim),
           one_shape(min_dims=1, max_dims=3, min_side=1), params=_linalg_norm_args, second_order=False,
           gradcheck=False, covers=("LinalgVectorNormBackward0", "LinalgSvdBackward0", "AmaxBackward0")),
    OpInfo("torch_norm_nuc", lambda lib, x, dim, keepdim: (x.norm("nuc", dim, keepdim) if dim is not None
                                                            else lib.norm(_rect(lib, x), "nuc")),
           one_shape(min_dims=2, max_dims=3, min_side=1),
           params=lambda d, s: {"dim": d.draw(st.none() | st.just(_two_dims(d, s))), "keepdim": d.draw(st.booleans())},
           covers=("SumBackward1", "LinalgSvdBackward0"), second_order=False, **C),
    OpInfo("matrix_rank", _matrix_rank, one_shape(min_dims=1, max_dims=3),
           params=lambda d, s: {"kw": d.draw(st.sampled_from([{}, {"atol": 1.0}, {"rtol": 0.3}, {"atol": 0.5, "rtol": 0.1},
                                                              {"tol": 0.5}, {"hermitian": True}])),
                                "drop": d.draw(st.booleans())},
           covers=(), differentiable=False, int_ok=True, **C),
    OpInfo("pinv", lambda lib, x: lib.linalg.pinv(_rect(lib, x)), rect(), covers=("LinalgPinvBackward0",), **C),
    OpInfo("pinv_hermitian", lambda lib, x: lib.linalg.pinv(_spd(lib, x), hermitian=True), square(max_batch=1),
           covers=("LinalgPinvBackward0",), **C),
    OpInfo("pinverse_rank_deficient", lambda lib, x: lib.pinverse(x * lib.tensor([1.0, 1.0, 0.0], dtype=x.dtype)),
           st.just(((3, 3),)), covers=("LinalgPinvBackward0",), second_order=False, gradcheck=False, **C),
    OpInfo("matrix_power", lambda lib, x, n: lib.linalg.matrix_power(_well(lib, x), n), square(),
           params=lambda d, s: {"n": d.draw(st.sampled_from([0, 1, 2, 3, 5, 6, -1, -2]))},
           covers=("MmBackward0", "BmmBackward0", "UnsafeViewBackward0", "CloneBackward0", "CopyBackwards",
                   "LinalgInvExBackward0"), **C),
    OpInfo("matrix_power_method", lambda lib, x: _well(lib, x).matrix_power(4), square(max_batch=0),
           covers=("MmBackward0",), **C),
]


def _solve_error(lib, a, b):
    try:
        return lib.linalg.solve(a * lib.tensor([[[1.0]], [[0.0]]], dtype=a.dtype), b)
    except lib.linalg.LinAlgError as e:  # torch's class is torch._C._LinAlgError: compare its name and text
        assert isinstance(e, RuntimeError)
        raise RuntimeError(f"{type(e).__name__}: {e}") from None


# ---- cdist
@st.composite
def _cdist_shapes(draw, low=0):
    m = draw(st.integers(low, 3))
    b1, b2 = draw(st.sampled_from([((), ()), ((2,), ()), ((), (2,)), ((2,), (1,)), ((1, 2), (3, 1))]))
    r1, r2 = draw(st.integers(low, 3)), draw(st.integers(1, 3))
    return (b1 + (r1, m), b2 + (r2, m))


def _cdist_p(data, shapes):
    return {"p": data.draw(st.sampled_from([2.0, 1.0, 0.0, 0.5, 3.0, float("inf")]))}


ROWS += [
    # torch does not implement cdist's second derivative on this path (its CdistBackwardBackward0 raises)
    OpInfo("cdist", lambda lib, x, y, p: lib.cdist(x, y, p=p), _cdist_shapes(), params=_cdist_p,
           covers=("CdistBackward0", "CdistBackwardBackward0"), second_order=False, gradcheck=False),
    OpInfo("cdist_p2", lambda lib, x, y: lib.cdist(x, y), _cdist_shapes(), covers=("CdistBackward0",),
           second_order=False),
    # non-empty: torch sends empty inputs down the path whose second derivative it does not implement.
    # In float64: the matrix-product path cancels (|x1|^2 - 2 x1.x2 + |x2|^2), so float32 second derivatives
    # are rounding noise that depends on the order of the sums.
    OpInfo("cdist_mm", lambda lib, x, y: lib.cdist(x.double(), y.double(), compute_mode="use_mm_for_euclid_dist"),
           _cdist_shapes(1), covers=("EuclideanDistBackward0", "ViewBackward0", "ExpandBackward0", "ToCopyBackward0")),
    OpInfo("cdist_many_rows", lambda lib, x, y: lib.cdist(x.double(), y.double()), fixed((27, 2), (3, 2)),
           covers=("EuclideanDistBackward0", "ViewBackward0")),
    OpInfo("cdist_many_rows_float32", lambda lib, x, y: lib.cdist(x, y), fixed((27, 2), (3, 2)),
           covers=("EuclideanDistBackward0", "ViewBackward0"), second_order=False),
    OpInfo("cdist_errors", lambda lib, x, y, p, mode: lib.cdist(x, y, p=p, compute_mode=mode),
           st.sampled_from([((3,), (2, 3)), ((2, 3), (2, 2)), ((2, 3), (4, 3)), ((2, 2, 3), (3, 4, 3))]).map(tuple),
           params=lambda d, s: {"p": d.draw(st.sampled_from([2.0, -1.0])),
                                "mode": d.draw(st.sampled_from(["use_mm_for_euclid_dist_if_necessary", "bad"]))},
           covers=(), second_order=False, gradcheck=False, int_ok=True),
]


# ---- vdot / inner, and the dtype errors of the vector products
_PRODUCTS = {
    "dot": lambda lib, a, b: lib.dot(a, b), "vdot": lambda lib, a, b: lib.vdot(a, b),
    "inner": lambda lib, a, b: lib.inner(a, b), "mv": lambda lib, a, b: lib.mv(a.reshape(1, -1), b),
    "matmul": lambda lib, a, b: a @ b, "mv_fold": lambda lib, a, b: a.reshape(1, 1, -1) @ b,
}


def _mixed_product(lib, x, y, name, dtype):
    other = y.to(getattr(lib, dtype))
    return _PRODUCTS[name](lib, x, other)


ROWS += [
    OpInfo("vdot", lambda lib, x, y: lib.vdot(x, y), fixed((4,), (4,)), covers=("VdotBackward0",), **C),
    OpInfo("vdot_method", lambda lib, x, y: x.vdot(y * 2), fixed((0,), (0,)), covers=("VdotBackward0", "MulBackward0"), **C),
    OpInfo("inner", lambda lib, x, y: lib.inner(x, y),
           st.sampled_from([((3,), (3,)), ((2, 3), (4, 3)), ((3,), (2, 2, 3)), ((), (2,)), ((2, 3), ()), ((3,), (4,))]
                           ).map(tuple), covers=("MmBackward0", "ViewBackward0", "TBackward0", "MulBackward0"), **C),
    OpInfo("vecdot", lambda lib, x, y, dim: lib.linalg.vecdot(x, y, dim=dim),
           st.sampled_from([((3,), (3,)), ((2, 3), (3,)), ((2, 1, 3), (4, 3)), ((0, 2), (2,))]),
           params=lambda d, s: {"dim": d.draw(st.sampled_from([-1, 0]))}, covers=("VdotBackward0", "SumBackward1"),
           **C),
    OpInfo("vecdot_errors", lambda lib, x, y: lib.linalg.vecdot(x.long(), y),
           fixed((3,), (3,)), covers=(), differentiable=False),
    OpInfo("vector_product_dtype_errors", _mixed_product, fixed((3,), (3,)),
           params=lambda d, s: {"name": d.draw(st.sampled_from(sorted(_PRODUCTS))),
                                "dtype": d.draw(st.sampled_from(["int64", "float16", "float64", "int32", "bool"]))},
           covers=(), differentiable=False, int_ok=True),
]

# ---- linalg.diagonal, tensordot's size-1 contracted dims, the deprecated torch.cholesky / torch.qr (warned once)
ROWS += [
    OpInfo("linalg_diagonal", lambda lib, x, offset: lib.linalg.diagonal(x, offset=offset),
           one_shape(min_dims=2, max_dims=3), params=lambda d, s: {"offset": d.draw(st.sampled_from([0, 1, -1]))},
           covers=("DiagonalBackward0",), **C),
    OpInfo("tensordot_broadcast", lambda lib, a, b, dims: lib.tensordot(a, b, dims=dims),
           st.sampled_from([((1, 3), (2, 3)), ((2, 3), (1, 3)), ((1, 3), (1, 3))]),
           params=lambda d, s: {"dims": ([0], [0])}, covers=("ViewBackward0", "MmBackward0", "SumBackward1"), **C),
    OpInfo("torch_cholesky", lambda lib, x, upper: lib.cholesky(_spd(lib, x), upper=upper), square(),
           params=lambda d, s: {"upper": d.draw(st.booleans())}, covers=("CholeskyBackward0",), **C),
    OpInfo("torch_qr", lambda lib, x, some, which: lib.qr(_rect(lib, x), some=some)[which], rect(),
           params=lambda d, s: {"some": s[0][-2] > s[0][-1] or d.draw(st.booleans()),
                                "which": d.draw(st.sampled_from([0, 1]))}, covers=("LinalgQrBackward0",), **C),
]


@st.composite
def _triangular_shapes(draw):
    """A (*a, n, n) and B (*b, n, k) or (*b, k, n) (for X A = B), batch dims broadcasting."""
    n, k = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    pair = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3))
    b = (n, k) if draw(st.booleans()) else (k, n)
    return (tuple(pair.input_shapes[0]) + (n, n), tuple(pair.input_shapes[1]) + b)


def _triangular_params(data, shapes):
    n, b = shapes[0][-1], shapes[1]
    left = b[-2] == n and (b[-1] != n or data.draw(st.booleans()))
    return {"upper": data.draw(st.booleans()), "left": left, "unitriangular": data.draw(st.booleans())}


_SOLVE_TRIANGULAR_ERRORS = {
    "upper_missing": lambda lib, a, b: lib.linalg.solve_triangular(a, b),
    "upper_by_position": lambda lib, a, b: lib.linalg.solve_triangular(a, b, True),
    "vector_a": lambda lib, a, b: lib.linalg.solve_triangular(a[0], b, upper=True),
    "vector_b": lambda lib, a, b: lib.linalg.solve_triangular(a, b[:, 0], upper=True),
    "not_square": lambda lib, a, b: lib.linalg.solve_triangular(a[:, :2], b, upper=True),
    "rows": lambda lib, a, b: lib.linalg.solve_triangular(a, b[:2], upper=True),
    "columns": lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=True, left=False),
    "batch": lambda lib, a, b: lib.linalg.solve_triangular(a.expand(2, 3, 3), b.expand(4, 3, 2), upper=True),
    "integer": lambda lib, a, b: lib.linalg.solve_triangular(a.long(), b.long(), upper=True),
    "singular": lambda lib, a, b: lib.linalg.solve_triangular(a * 0, b, upper=False),
}


ROWS += [
    OpInfo("solve_triangular_errors", lambda lib, a, b, case: _SOLVE_TRIANGULAR_ERRORS[case](lib, a, b),
           fixed((3, 3), (3, 2)), params=lambda d, s: {"case": d.draw(st.sampled_from(sorted(_SOLVE_TRIANGULAR_ERRORS)))},
           covers=(), differentiable=False, **C),
    OpInfo("solve_triangular", lambda lib, a, b, upper, left, unitriangular: lib.linalg.solve_triangular(
        _well(lib, a), b, upper=upper, left=left, unitriangular=unitriangular), _triangular_shapes(),
           params=_triangular_params, covers=("LinalgSolveTriangularBackward0",), **C),
]
