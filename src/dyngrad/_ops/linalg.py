"""torch.linalg's decompositions, inverses, determinants and solves (inv, det, slogdet, solve, cholesky,
qr, eigh, eig, svd, pinv, matrix_power and the ``_ex`` variants), with trace and cross; real and complex.

Complex inputs follow Note [Complex gradients] (registry.py): every backward is FunctionsManual.cpp's,
adjoints and conjugates included. Eigenvectors and singular vectors of complex matrices are defined up to
a phase each, so their backward refuses a loss that depends on that phase, with torch's text (_check_gauge).

The matrix products live in matmul.py, the matrix norms and matrix_rank in norms.py, cdist in
distance.py; each module lists its own exports, gathered by dyngrad.linalg.
"""

from __future__ import annotations

from .._backend import xp
from .._batching.array import any_sample, per_sample
from .._dtype import FLOATING_OR_COMPLEX_KINDS, _limited_in_use
from .._tensor import Tensor, wrap
from .complex import conj_value as conj
from .limited_dtypes import refuse as refuse_limited
from .matmul import _broadcast_error, _type_name, matmul
from .registry import Op, apply, register

# ================================================================== trace, cross


@register
class TraceBackward0(Op):
    """trace(input) of an (n, m) matrix: the sum of its diagonal; the gradient is grad on the diagonal
    (derivatives.yaml: trace_backward)."""

    @staticmethod
    def forward(a, shape):
        return xp.asarray(xp.trace(a), dtype=xp.int64 if a.dtype.kind in "biu" else a.dtype)

    def backward(self, g):
        n, m = self._params[0]
        return (g * wrap(xp.eye(n, m, dtype=g._data.dtype)),)


def trace(a: Tensor) -> Tensor:
    """Sum of the diagonal of a 2-D tensor (int inputs give int64).

    Raises:
        RuntimeError: input that is not 2-D.
    """
    if _limited_in_use[0]:  # (torch's kernel refuses the dtype before it looks at the shape)
        refuse_limited("trace", a)
    if a._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a._data.ndim}")
    return apply(TraceBackward0, (a,), (a._data.shape,))


@register
class LinalgCrossBackward0(Op):
    """cross(input, other, dim): 3-vectors along ``dim``, broadcast elsewhere.

    derivatives.yaml: d/dinput = cross(other.conj(), grad), d/dother = cross(grad, input.conj()).
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, b, dim):
        return xp.cross(a, b, axis=dim)

    def backward(self, g):
        a, b = self.saved()
        dim = self._params[0]
        ga = apply(LinalgCrossBackward0, (conj(b), g), (dim,)) if self.needs_input_grad(0) else None
        gb = apply(LinalgCrossBackward0, (g, conj(a)), (dim,)) if self.needs_input_grad(1) else None
        return ga, gb


def linalg_cross(a: Tensor, b: Tensor, *, dim: int = -1) -> Tensor:
    """torch.linalg.cross: both inputs have the same number of dims, broadcast, size 3 along ``dim``.

    Raises:
        RuntimeError: different numbers of dims, sizes that do not broadcast, or ``dim`` not of length 3.
        IndexError: ``dim`` out of range.
    """
    from .._tensor import _wrap_dim

    if a._data.ndim != b._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, a._data.ndim)
    if a._data.shape[d] != 3 or b._data.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a._data.shape[d]} and {b._data.shape[d]}"
        )
    try:
        xp.broadcast_shapes(a._data.shape, b._data.shape)
    except ValueError:
        raise RuntimeError(_broadcast_error(a._data.shape, b._data.shape)) from None
    if a._data.dtype != b._data.dtype:  # torch does not promote here
        raise RuntimeError(f"expected scalar type {_type_name(a._data.dtype)} but found {_type_name(b._data.dtype)}")
    return apply(LinalgCrossBackward0, (a, b), (d,))


def cross(a: Tensor, b: Tensor, dim=None) -> Tensor:
    """torch.cross: like linalg.cross; without ``dim`` it takes the first dim of size 3 (with torch's warning)."""
    if dim is None:
        import warnings

        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
            "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
            "linalg.cross in a future release. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)",
            UserWarning,
            stacklevel=2,
        )
        dim = next((i for i, s in enumerate(a._data.shape) if s == 3), -1)
    return linalg_cross(a, b, dim=dim)


# ================================================================== torch.linalg: checks and errors


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a linear-algebra routine failed (singular or not positive-definite input).

    Named as torch's class (``torch._C._LinAlgError``, which ``torch.linalg.LinAlgError`` is), so that
    ``type(e).__name__`` and printed tracebacks read the same; exposed as ``dyngrad.linalg.LinAlgError``.
    """


LinAlgError = _LinAlgError


def _check_matrix(a: Tensor, fname: str, square: bool = True, floating: bool = True) -> None:
    """torch's checks for a (batch of) matrices: at least 2-D, square, floating point."""
    if not isinstance(a, Tensor):
        raise TypeError(f"{fname.split('.')[-1]}(): argument 'A' (position 1) must be Tensor, not {type(a).__name__}")
    d = a._data
    if d.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if square and d.shape[-1] != d.shape[-2]:
        raise RuntimeError(
            f"{fname}: A must be batches of square matrices, but they are {d.shape[-2]} by {d.shape[-1]} matrices"
        )
    if floating and d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {_type_name(d.dtype)}")


def _batch_prefix(a, i: int) -> str:
    return f"(Batch element {i}): " if a.ndim > 2 else ""


def _first_zero_pivot(m) -> int:
    """1-based index of the first exactly-zero pivot of LU with partial pivoting (LAPACK getrf's info), or 0."""
    m = m.astype(m.dtype, copy=True)
    n = m.shape[0]
    for j in range(n):
        p = j + int(xp.argmax(xp.abs(m[j:, j])))
        if m[p, j] == 0:
            return j + 1
        if p != j:
            m[[j, p]] = m[[p, j]]
        m[j + 1:, j] /= m[j, j]
        m[j + 1:, j + 1:] -= xp.outer(m[j + 1:, j], m[j, j + 1:])
    return 0


def _singular_index(a):
    """(batch index, 1-based zero pivot) of the first singular matrix in a batch, or None."""
    flat = a.reshape((-1,) + a.shape[-2:])
    for i, m in enumerate(flat):
        k = _first_zero_pivot(m)
        if k:
            return i, k
    return None


def _raise_singular_inv(a, fname="linalg.inv"):
    found = _singular_index(a)
    i, k = found if found else (0, 1)
    raise LinAlgError(
        f"{fname}: {_batch_prefix(a, i)}The diagonal element {k} is zero, the inversion could not be completed "
        "because the input matrix is singular."
    )


def _identity_like(t: Tensor) -> Tensor:
    n = t._data.shape[-1]
    return wrap(xp.eye(n, dtype=t._data.dtype))


def _tril_mask(n: int, dtype, k: int = 0) -> Tensor:
    return wrap(xp.tril(xp.ones((n, n), dtype=dtype), k))


def _diag_embed(v: Tensor) -> Tensor:
    """(..., n) -> (..., n, n) with ``v`` on the diagonal (differentiable: a product with the identity)."""
    n = v._data.shape[-1]
    return v.unsqueeze(-1) * wrap(xp.eye(n, dtype=v._data.dtype))


def _is_zero(g) -> bool:
    """An output gradient the engine filled with zeros: treated as torch's undefined gradient."""
    return g is None or not xp.any(g._data)


# ------------------------------------------------------------------ multi-output nodes that save their outputs


def _apply_saving_outputs(op, inputs: tuple, params: tuple = (), check_inputs: bool = True) -> tuple:
    """apply_multi, and save the outputs' arrays on the node (Note [No reference cycles]).

    The inputs stay saved too (see ``_saved_outputs``); with ``check_inputs=False`` an
    in-place change to them is not an error, as for torch's ops that save only outputs.
    """
    from ..autograd.graph import SavedResult
    from .registry import apply_multi

    outs = apply_multi(op, inputs, params)
    node = next((o._grad_fn for o in outs if o._grad_fn is not None), None)
    if node is not None:
        node._saved = tuple(inputs) + tuple(SavedResult(o._data, o._vc) for o in outs)
        node._versions = [
            t._vc[0] if check_inputs and isinstance(t, Tensor) else None for t in inputs
        ] + [0] * len(outs)
    return outs


def _saved_outputs(node, count: int) -> list:
    """The node's saved outputs rebuilt as tensors whose grad_fn is the node.

    A node made by plain ``apply_multi`` (forward-mode AD derives tangents that way) saved
    only its inputs: the outputs are then recomputed from them (the forward is deterministic).
    """
    saved = node.saved()
    n_in = len(node.next_functions)
    if len(saved) == n_in + count:
        arrays = [sr._data for sr in saved[n_in:]]
    else:
        arrays = type(node).forward(*[t._data if isinstance(t, Tensor) else t for t in saved[:n_in]], *node._params)
    out = []
    for i, arr in enumerate(arrays):
        t = wrap(arr, True, node)
        t._output_nr = i
        out.append(t)
    return out


# ================================================================== inverse, determinants, solve
# Complex inputs follow Note [Complex gradients] (registry.py): each backward below is
# FunctionsManual.cpp's formula with its adjoints (mH) and conjugates; for real tensors
# mH is the transpose and conj() the tensor itself, so the real formulas are unchanged.


def _real_dtype(dtype):
    """The real dtype of a complex one (complex64 -> float32); a real dtype itself."""
    return xp.finfo(dtype).dtype if dtype.kind == "c" else dtype


def _complex_dtype(dtype):
    """The complex dtype of a real one (float32 -> complex64, float64 -> complex128); a complex dtype itself."""
    return xp.result_type(dtype, xp.complex64)


_LINALG_TYPES: dict = {}


def _returned(name: str, fields: tuple, values) -> tuple:
    """``torch.return_types.<name>(...)`` holding ``values``."""
    cls = _LINALG_TYPES.get(name)
    if cls is None:
        from .reduction import return_type

        cls = _LINALG_TYPES[name] = return_type(name, fields)
    return cls(tuple(values))


def _lu_solve_singular(a, b):
    """X from LAPACK's getrf + getrs on one singular (n, n) matrix ``a`` and (n, k) ``b``: partial pivoting,
    zero pivots kept, so the solves divide by zero into the inf / nan torch returns (solve_ex, inv_ex)."""
    lu = a.astype(a.dtype, copy=True)
    n = lu.shape[0]
    perm = list(range(n))
    with xp.errstate(all="ignore"):
        for j in range(n):  # getf2: pivot, scale the column (if the pivot is non-zero), rank-1 update
            p = j + int(xp.argmax(xp.abs(lu[j:, j].real) + xp.abs(lu[j:, j].imag)))
            if p != j:
                lu[[j, p]] = lu[[p, j]]
                perm[j], perm[p] = perm[p], perm[j]
            if lu[j, j] != 0:
                lu[j + 1:, j] /= lu[j, j]
            lu[j + 1:, j + 1:] -= xp.outer(lu[j + 1:, j], lu[j, j + 1:])
        x = b[perm].astype(xp.result_type(a, b), copy=True)
        for i in range(n):  # L y = P b (unit lower triangle)
            x[i] -= lu[i, :i] @ x[:i]
        for i in range(n - 1, -1, -1):  # U x = y
            x[i] = x[i] - lu[i, i + 1:] @ x[i + 1:]
            if lu[i, i] == 0 and x.dtype.kind == "c":
                x[i] = complex(xp.nan, xp.nan)  # c10::complex's division by zero (NumPy's gives inf + nan j)
            else:
                x[i] /= lu[i, i]
    return x


def _inv_rounding_singular(a):
    """The inverse of matrices NumPy's LAPACK finds exactly singular but torch's (LU with other rounding) does
    not, by the LU emulation; torch's error where a pivot is exactly zero in ours too."""
    if _singular_index(a) is not None:
        _raise_singular_inv(a)
    flat = a.reshape((-1,) + a.shape[-2:])
    eye = xp.eye(a.shape[-1], dtype=a.dtype)
    return xp.stack([_lu_solve_singular(m, eye) for m in flat]).reshape(a.shape)


@register
class LinalgInvExBackward0(Op):
    """linalg.inv(A) of (..., n, n): derivatives.yaml (linalg_inv_ex): dA = -inv^H grad inv^H
    (Giles 2008, "Collected matrix derivative results", sec. 2.2.1)."""

    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a):
        if a.size == 0:
            return xp.empty(a.shape, dtype=a.dtype)
        try:
            return xp.linalg.inv(a).astype(a.dtype, copy=False)
        except xp.linalg.LinAlgError:
            return _inv_rounding_singular(a)

    def backward(self, g):
        inv_h = self.saved_result().mH
        return (-(matmul(inv_h, matmul(g, inv_h))),)


def inv(a: Tensor) -> Tensor:
    """Inverse of a square matrix or a batch of them (..., n, n), real or complex.

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
        LinAlgError: a singular matrix (torch's message, naming the zero pivot and batch element).
    """
    _check_matrix(a, "linalg.inv")
    return apply(LinalgInvExBackward0, (a,))


def _zero_pivots(d):
    """info of LAPACK's getrf for each matrix of (..., n, n): the 1-based first zero pivot, or 0 (int32, (...))."""
    if type(d) is not xp.ndarray:  # batched by vmap
        return per_sample(_zero_pivots, d)
    info = xp.zeros(d.shape[:-2], dtype=xp.int32)
    if d.size == 0:
        return info
    flat = info.reshape(-1)
    for i, m in enumerate(d.reshape((-1,) + d.shape[-2:])):
        flat[i] = _first_zero_pivot(m) if m.size else 0
    return info


def _inverse_with_singular(d, info):
    """The inverses of (..., n, n), LAPACK's LU solve (inf / nan) for the singular ones (info > 0)."""
    out = xp.empty_like(d)
    fo, fi = out.reshape((-1,) + d.shape[-2:]), d.reshape((-1,) + d.shape[-2:])
    eye = xp.eye(d.shape[-1], dtype=d.dtype)
    for i, (m, k) in enumerate(zip(fi, info.reshape(-1))):
        fo[i] = _lu_solve_singular(m, eye) if k else xp.linalg.inv(m)
    return out


def inv_ex(a: Tensor, *, check_errors: bool = False):
    """linalg.inv_ex: (inverse, info); info > 0 names the zero pivot of a singular matrix instead of raising,
    and that matrix's inverse holds what LAPACK's LU solve gives (inf / nan), as torch's."""
    _check_matrix(a, "linalg.inv_ex")
    d = a._data
    info = _zero_pivots(d)
    if any_sample(info):
        if check_errors:
            per_sample(lambda m: _raise_singular_inv(m, "linalg.inv_ex") if xp.any(_zero_pivots(m)) else m, d)
        out = per_sample(_inverse_with_singular, d, info)
        return _returned("linalg_inv_ex", ("inverse", "info"), (wrap(out), wrap(info)))
    return _returned("linalg_inv_ex", ("inverse", "info"), (apply(LinalgInvExBackward0, (a,)), wrap(info)))


@register
class LinalgDetBackward0(Op):
    """linalg.det(A) of (..., n, n) -> (...).

    Gradient (derivatives.yaml: linalg_det_backward): grad * det.conj() * A^{-H} for an invertible
    A; where some matrix is singular, the adjugate computed from an SVD (torch's singular
    branch: U diag(prod_{j != i} S_j) V^H times (det(U) det(V^H)).conj()); that branch is treated
    as a constant under create_graph.
    """

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a):
        return xp.asarray(xp.linalg.det(a), dtype=a.dtype)

    def backward(self, g):
        a, _ = self.saved()
        det = self.saved_result()
        singular = xp.any(det._data == 0) if a._data.size else False
        if type(singular) is not bool and type(singular) is not xp.bool_:  # batched by vmap: each sample's branch
            from .._batching.array import physical

            which = physical(singular)
            if which.all():
                singular = True
            elif not which.any():
                singular = False
            else:  # some samples singular: both branches, each sample taking its own (as run one by one)
                from .pointwise import where_ as where

                mask = wrap(singular)
                eye = wrap(xp.eye(a._data.shape[-1], dtype=a._data.dtype))
                safe = where(mask, eye, a)  # (the invertible branch's inverse, never read for a singular sample)
                regular = (g * conj(det)).unsqueeze(-1).unsqueeze(-1) * inv(safe).mH
                return (where(mask, g.unsqueeze(-1).unsqueeze(-1) * wrap(_adjugate_h(a._data)), regular),)
        if singular:
            return (g.unsqueeze(-1).unsqueeze(-1) * wrap(_adjugate_h(a._data)),)
        return ((g * conj(det)).unsqueeze(-1).unsqueeze(-1) * inv(a).mH,)


def _adjugate_h(a):
    """The adjugate's adjoint (the cofactor matrix, conjugated) of each matrix, via the SVD (valid when singular):
    U diag(prod_{j != i} S_j) V^H (det(U) det(V^H))^*, the products taken from both ends without division (torch's
    prod_safe_zeros_backward, FunctionsManual.cpp)."""
    u, s, vh = xp.linalg.svd(a)
    if s.shape[-1]:
        ones = xp.ones_like(s[..., :1])
        before = xp.cumprod(xp.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
        after = xp.cumprod(xp.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        others = before * after
    else:
        others = s
    alpha = xp.conj(xp.linalg.det(u) * xp.linalg.det(vh))
    return ((u * (alpha[..., None] * others)[..., None, :]) @ vh).astype(a.dtype)


def det(a: Tensor) -> Tensor:
    """Determinant of (..., n, n) -> (...), real or complex.

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
    """
    _check_matrix(a, "linalg.det")
    return apply(LinalgDetBackward0, (a,))


@register
class LinalgSlogdetBackward0(Op):
    """linalg.slogdet(A) -> (sign, logabsdet), both (...); sign has A's dtype (|sign| = 1 for complex A),
    logabsdet its real dtype.

    Gradient (FunctionsManual slogdet_backward): g = grad_logabsdet - i Im(grad_sign.conj() * sign)
    (for real A the sign gets no gradient), d/dA = g * A^{-H} (Giles 2008, sec. 2.2.1).
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a):
        sign, logabs = xp.linalg.slogdet(a)
        return xp.asarray(sign, dtype=a.dtype), xp.asarray(logabs, dtype=_real_dtype(a.dtype))

    def backward(self, g_sign, g_logabs):
        a = self.saved()[0]
        g = g_logabs
        if a._data.dtype.kind == "c":
            sign = _saved_outputs(self, 2)[0]
            g = g - 1j * (conj(g_sign) * sign).imag
        return (g.unsqueeze(-1).unsqueeze(-1) * inv(a).mH,)


def slogdet(a: Tensor):
    """torch.linalg.slogdet: (sign, logabsdet) of (..., n, n); a singular matrix gives (0, -inf).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
    """
    _check_matrix(a, "linalg.slogdet")
    return _returned("linalg_slogdet", ("sign", "logabsdet"), _apply_saving_outputs(LinalgSlogdetBackward0, (a,)))


def torch_slogdet(a: Tensor):
    """torch.slogdet / Tensor.slogdet: linalg.slogdet as ``torch.return_types.slogdet``."""
    return _returned("slogdet", ("sign", "logabsdet"), slogdet(a))


def logdet(a: Tensor) -> Tensor:
    """log(det(A)), composed as torch: for real A, nan for a negative determinant (where(sign == -1, nan,
    logabsdet)); for complex A, sign.log() + logabsdet."""
    from .pointwise import log, where_

    _check_matrix(a, "linalg.slogdet")
    sign, logabs = slogdet(a)
    if a._data.dtype.kind == "c":
        return log(sign) + logabs
    return where_(wrap(sign._data == -1), float("nan"), logabs)


@register
class LinalgSolveExBackward0(Op):
    """linalg.solve(A, B, left=True): X with A X = B (or X A = B); A (*, n, n), B (*, n, k) or a vector.

    Gradient (derivatives.yaml: linalg_solve_backward): gB = A^{-H} gX (left) or
    gX A^{-H} (right), gA = -gB X^H (left) or -X^H gB (right); in the vector case
    gA = -outer(gB, X.conj()). Batch dims broadcast; the engine sums gradients back.
    """

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, b, vector, left, raising="linalg.solve"):
        if not left:
            a = xp.swapaxes(a, -1, -2)
            b = b if vector else xp.swapaxes(b, -1, -2)
        bm = b[..., None] if vector else b
        batch = xp.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        bm = xp.broadcast_to(bm, batch + bm.shape[-2:])
        if a.size == 0 or bm.size == 0:
            x = xp.zeros(bm.shape, dtype=a.dtype)
        else:
            try:
                x = xp.linalg.solve(a, bm)
            except xp.linalg.LinAlgError:
                found = _singular_index(a)
                if raising and found is not None:
                    raise LinAlgError(
                        f"torch.{raising}: {_batch_prefix(a, found[0])}The solver failed because the input matrix is "
                        "singular."
                    ) from None
                x = xp.empty(bm.shape, dtype=a.dtype)  # solve_ex: LAPACK's values, singular matrices too
                fx, fa, fb = x.reshape((-1,) + x.shape[-2:]), a.reshape((-1,) + a.shape[-2:]), bm.reshape(
                    (-1,) + bm.shape[-2:])
                for i in range(len(fx)):
                    try:
                        fx[i] = xp.linalg.solve(fa[i], fb[i])
                    except xp.linalg.LinAlgError:
                        fx[i] = _lu_solve_singular(fa[i], fb[i])
        x = x[..., 0] if vector else x
        if not left and not vector:
            x = xp.swapaxes(x, -1, -2)
        return x.astype(a.dtype, copy=False)

    def backward(self, g):
        a = self.saved()[0]
        vector, left = self._params[:2]
        x = self.saved_result()
        gb = solve(a.mH, g, left=left)
        ga = None
        if self.needs_input_grad(0):
            xc = conj(x)
            if vector:
                ga = -(gb.unsqueeze(-1) * xc.unsqueeze(-2)) if left else -(xc.unsqueeze(-1) * gb.unsqueeze(-2))
            else:
                ga = -matmul(gb, x.mH) if left else -matmul(x.mH, gb)
        return ga, (gb if self.needs_input_grad(1) else None)


def _solve_checks(a: Tensor, b: Tensor, left: bool, fname: str = "linalg.solve") -> bool:
    """torch's checks for solve / solve_ex; returns whether B is a (batch of) vector(s)."""
    _check_matrix(a, fname)
    ad, bd = a._data, b._data
    if ad.dtype != bd.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type {_type_name(ad.dtype)} and "
            f"B of type {_type_name(bd.dtype)} instead"
        )
    vector = bd.ndim == 1 or (bd.ndim == ad.ndim - 1 and bd.shape == ad.shape[:-1])
    n = ad.shape[-1]
    bshape = (bd.shape[-1], 1) if vector else bd.shape[-2:]
    rows = bshape[0] if left else bshape[1]
    if rows != n or (not vector and bd.ndim < 2):
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {bshape[0]}x{bshape[1]})"
        )
    try:
        xp.broadcast_shapes(ad.shape[:-2], bd.shape[:-1] if vector else bd.shape[:-2])
    except ValueError:
        raise RuntimeError(_broadcast_error(bd.shape[:-1] if vector else bd.shape[:-2], ad.shape[:-2])) from None
    if vector and not left:
        raise RuntimeError(
            "linalg.solve: Vector broadcasting of the left hand side is not supported for left=False. In this case "
            "linalg.solve is equivalent to B / A.squeeze(-1)"
        )
    return vector


def _solved(a: Tensor, b: Tensor, vector: bool, left: bool, raising) -> Tensor:
    """LinalgSolveExBackward0; ``raising``: the function named in the error for a singular A, or False."""
    out = apply(LinalgSolveExBackward0, (a, b), (vector, left, raising))
    if not left and out._data.dtype.kind == "c":
        # torch computes X A = B as (A^H X^H = B^H)^H and returns the conjugate view (Note [Conjugate bit])
        out._is_conj = True
    return out


def solve(a: Tensor, b: Tensor, *, left: bool = True, out=None) -> Tensor:
    """Solve A X = B (left) or X A = B for X; batch dims broadcast; real or complex.

    B is a vector (batch of vectors) when it is 1-D or has A's shape without its last dim.

    Raises:
        RuntimeError: non-square A, incompatible shapes, mixed dtypes (torch's messages).
        LinAlgError: a singular A.
    """
    vector = _solve_checks(a, b, left)
    return _solved(a, b, vector, left, "linalg.solve")


def solve_ex(a: Tensor, b: Tensor, *, left: bool = True, check_errors: bool = False, out=None):
    """torch.linalg.solve_ex: (result, info) with info (int32, A's batch shape) the 1-based first zero pivot
    of each singular matrix (0 otherwise); its result holds LAPACK's inf / nan instead of an error.

    Raises:
        RuntimeError: as ``solve``; LinAlgError for a singular A with ``check_errors``.
    """
    vector = _solve_checks(a, b, left)
    info = _zero_pivots(a._data)
    if check_errors and any_sample(info):
        _solved(a, b, vector, left, "linalg.solve_ex")  # raises torch's error
    return _returned("linalg_solve_ex", ("result", "info"), (_solved(a, b, vector, left, False), wrap(info)))


def _triangular_substitution(t, b, upper: bool):
    """X with T X = B by substitution, row by row (T (..., n, n) triangular, B (..., n, k), batch dims
    broadcast): LAPACK trsm's result; a zero diagonal gives its inf / nan (nan + nan j for complex)."""
    n = t.shape[-1]
    batch = xp.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t = xp.broadcast_to(t, batch + t.shape[-2:])
    # a fresh array (under vmap batched as T or B is: not array(), which would take B's samples only)
    zero = xp.zeros_like(t[..., :1]) if n else xp.zeros((), dtype=t.dtype)
    x = (xp.broadcast_to(b, batch + b.shape[-2:]) + zero).astype(t.dtype, copy=False)
    with xp.errstate(all="ignore"):
        for i in range(n - 1, -1, -1) if upper else range(n):
            done = slice(i + 1, n) if upper else slice(0, i)
            row = x[..., i, :] - (t[..., i:i + 1, done] @ x[..., done, :])[..., 0, :]
            d = t[..., i, i][..., None]
            x[..., i, :] = row / d
            if x.dtype.kind == "c":
                x[..., i, :] = xp.where(d == 0, complex(xp.nan, xp.nan), x[..., i, :])
    return x


@register
class LinalgSolveTriangularBackward0(Op):
    """linalg.solve_triangular(A, B, upper, left=True, unitriangular=False): X with A X = B (X A = B), A's
    upper (lower) triangle read, with ones on its diagonal for ``unitriangular``.

    Gradient (FunctionsManual linalg_solve_triangular_backward): gB = A^{-H} gX (left) or gX A^{-H}
    (right), a triangular solve with the opposite triangle; gA = -gB X^H (left) or -X^H gB (right), kept
    to A's triangle (without the diagonal for ``unitriangular``).
    """

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, b, upper, left, unitriangular):
        t = xp.triu(a) if upper else xp.tril(a)
        if unitriangular:
            t = t.copy()
            idx = xp.arange(t.shape[-1])
            t[..., idx, idx] = 1
        if left:
            return _triangular_substitution(t, b, upper)
        # X A = B  <=>  A^T X^T = B^T, the other triangle
        return xp.swapaxes(_triangular_substitution(xp.swapaxes(t, -1, -2), xp.swapaxes(b, -1, -2), not upper),
                           -1, -2)

    def backward(self, g):
        a = self.saved()[0]
        upper, left, unitriangular = self._params
        x = self.saved_result()
        gb = apply(LinalgSolveTriangularBackward0, (a.mH, g), (not upper, left, unitriangular))
        ga = None
        if self.needs_input_grad(0):
            ga = -matmul(gb, x.mH) if left else -matmul(x.mH, gb)
            ga = ga.triu(int(unitriangular)) if upper else ga.tril(-int(unitriangular))
        return ga, (gb if self.needs_input_grad(1) else None)


def solve_triangular(A: Tensor, B: Tensor, *args, upper=None, left: bool = True, unitriangular: bool = False,  # noqa: N803
                     out=None) -> Tensor:
    """torch.linalg.solve_triangular: X with A X = B (``left``) or X A = B for triangular A (..., n, n) and
    B (..., n, k) (batch dims broadcast), real or complex; ``upper`` (keyword, required) names A's triangle.

    Raises:
        TypeError: ``upper`` missing or passed by position (torch's texts).
        RuntimeError: fewer than 2 dims, non-square A, incompatible shapes (torch's texts);
            NotImplementedError for integer and half tensors.
    """
    if args:
        raise TypeError(f"linalg_solve_triangular() takes from {2 + len(args)} to 2 positional arguments but "
                        f"{2 + len(args)} were given")
    if upper is None:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    for name, t in (("A", A), ("B", B)):
        if t._data.ndim < 2:
            raise RuntimeError(f"linalg.solve_triangular: The input tensor {name} must have at least 2 dimensions.")
    ad, bd = A._data, B._data
    if ad.shape[-1] != ad.shape[-2]:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but they are "
                           f"{ad.shape[-2]} by {ad.shape[-1]} matrices")
    n = ad.shape[-1]
    if (bd.shape[-2] if left else bd.shape[-1]) != n:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {bd.shape[-2]}x{bd.shape[-1]})")
    try:
        xp.broadcast_shapes(bd.shape[:-2], ad.shape[:-2])
    except ValueError:
        raise RuntimeError(_broadcast_error(bd.shape[:-2], ad.shape[:-2])) from None
    if ad.dtype.kind not in FLOATING_OR_COMPLEX_KINDS or ad.dtype == xp.float16:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_type_name(ad.dtype)}'")
    if bd.dtype != ad.dtype:  # (torch solves in A's dtype)
        B = B.to(A.dtype)
    return apply(LinalgSolveTriangularBackward0, (A, B), (bool(upper), bool(left), bool(unitriangular)))


# ================================================================== decompositions


def _raise_not_pd(a, fname, upper=False):
    flat = a.reshape((-1,) + a.shape[-2:])
    for i, m in enumerate(flat):
        m = m.T if upper else m
        for k in range(1, m.shape[0] + 1):
            try:
                xp.linalg.cholesky(m[:k, :k])
            except xp.linalg.LinAlgError:
                raise LinAlgError(
                    f"{fname}: {_batch_prefix(a, i)}The factorization could not be completed because the input is not "
                    f"positive-definite (the leading minor of order {k} is not positive-definite)."
                ) from None
    raise LinAlgError(f"{fname}: The factorization could not be completed because the input is not positive-definite.")


def _cholesky_partial(m):
    """(L, info) of LAPACK's unblocked potf2 on one lower triangle: column by column until a pivot is not
    positive; that pivot keeps its value, the columns after it A's (torch's cholesky_ex on a failure)."""
    low = xp.tril(m).astype(m.dtype, copy=True)
    for j in range(m.shape[0]):
        row = low[j, :j]
        ajj = (low[j, j] - row @ row.conj()).real
        if not ajj > 0:
            low[j, j] = ajj
            return low, j + 1
        ajj = xp.sqrt(ajj)
        low[j, j] = ajj
        low[j + 1:, j] = (low[j + 1:, j] - low[j + 1:, :j] @ row.conj()) / ajj
    return low, 0


@register
class LinalgCholeskyExBackward0(Op):
    """linalg.cholesky(A, upper=False): L (lower, A = L L^H) or U (upper, A = U^H U) of (..., n, n).

    Reads only the lower (upper) triangle of A. Gradient (FunctionsManual cholesky_backward,
    after Murray 2016, arXiv:1602.07527): with P = tril(L^H gL),
    gA = L^{-H} (P + tril(P, -1)^H) / 2 L^{-1}, a Hermitian matrix.
    """

    save_result = True
    complex_grad = True
    fname = "linalg.cholesky"  # (the name in its errors)

    @classmethod
    def forward(cls, a, upper, raising=True):
        if a.size == 0:
            return xp.zeros(a.shape, dtype=a.dtype)
        # NumPy reads the lower triangle; torch's upper=True reads the upper one (A^T's lower triangle is the
        # conjugate of A's, whose factor is conj(L): its transpose is U = L^H).
        m = xp.swapaxes(a, -1, -2) if upper else a
        try:
            low = xp.linalg.cholesky(m)
        except xp.linalg.LinAlgError:
            if raising:
                _raise_not_pd(a, cls.fname, upper)
            low = xp.empty(m.shape, dtype=m.dtype)
            for fl, fm in zip(low.reshape((-1,) + m.shape[-2:]), m.reshape((-1,) + m.shape[-2:])):
                fl[...] = _cholesky_partial(fm)[0]
        return (xp.swapaxes(low, -1, -2) if upper else low).astype(a.dtype, copy=False)

    def backward(self, g):
        out = self.saved_result()
        upper = self._params[0]
        low, gl = (out.mH, g.mH) if upper else (out, g)
        n = low._data.shape[-1]
        real = _real_dtype(low._data.dtype)
        p = matmul(low.mH, gl) * _tril_mask(n, real)
        phi = (p + (p * _tril_mask(n, real, -1)).mH) * 0.5
        linv = inv(low)
        return (matmul(linv.mH, matmul(phi, linv)),)


def cholesky(a: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """Cholesky factor of a Hermitian (symmetric) positive-definite (..., n, n).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
        LinAlgError: a matrix that is not positive-definite (naming the failing leading minor).
    """
    _check_matrix(a, "linalg.cholesky")
    return apply(LinalgCholeskyExBackward0, (a,), (upper,))


@register
class CholeskyBackward0(LinalgCholeskyExBackward0):
    """torch.cholesky(A, upper=False), the deprecated form: linalg.cholesky's factor and gradient
    (derivatives.yaml: cholesky_backward), its own node and name in errors."""

    fname = "cholesky"


_DEPRECATION_WARNED: set = set()  # torch.cholesky / torch.qr warn once per process (TORCH_WARN_ONCE)


def _warn_deprecated(name: str, message: str) -> None:
    if name not in _DEPRECATION_WARNED:
        import warnings

        _DEPRECATION_WARNED.add(name)
        warnings.warn(message, UserWarning, stacklevel=3)


def torch_cholesky(a: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """torch.cholesky / Tensor.cholesky (deprecated in favour of linalg.cholesky, with torch's warning once):
    L, or U = L^H with ``upper`` (CholeskyBackward0).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input; LinAlgError: not positive-definite.
    """
    _warn_deprecated("cholesky", (
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
        "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = "
        "torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform "
        "will produce equivalent results for all valid (symmetric positive definite) inputs. (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)"))
    _check_matrix(a, "cholesky")
    return apply(CholeskyBackward0, (a,), (upper,))


def _cholesky_info(d, upper: bool):
    """cholesky_ex's info for each matrix of (..., n, n)."""
    info = xp.zeros(d.shape[:-2], dtype=xp.int32)
    if d.size:
        m = xp.swapaxes(d, -1, -2) if upper else d
        flat = info.reshape(-1)
        for i, fm in enumerate(m.reshape((-1,) + m.shape[-2:])):
            try:
                xp.linalg.cholesky(fm)
            except xp.linalg.LinAlgError:
                flat[i] = _cholesky_partial(fm)[1]
    return info


def cholesky_ex(a: Tensor, *, upper: bool = False, check_errors: bool = False, out=None):
    """torch.linalg.cholesky_ex: (L, info); info (int32, the batch shape) is the order of the first leading
    minor that is not positive-definite (0 when it factors), and L then holds LAPACK's partial factor.

    Raises:
        RuntimeError: as ``cholesky``; LinAlgError for a matrix that is not positive-definite with ``check_errors``.
    """
    _check_matrix(a, "linalg.cholesky")
    d = a._data
    info = per_sample(_cholesky_info, d, upper)
    if check_errors and any_sample(info):
        _raise_not_pd(d, "linalg.cholesky_ex", upper)
    low = apply(LinalgCholeskyExBackward0, (a,), (upper, False))
    return _returned("linalg_cholesky_ex", ("L", "info"), (low, wrap(info)))


@register
class LinalgQrBackward0(Op):
    """linalg.qr(A, mode) of (..., m, n) -> (Q, R).

    Gradient (FunctionsManual linalg_qr_backward) for mode 'reduced' (or m <= n), with
    M = gR R^H - Q^H gQ: for m >= n, gA = (gQ + Q syminvadj(triu(M))) R^{-H}, where
    syminvadj(X) = X + X^H with the real part of its diagonal halved; for m < n,
    gA = [Q trilImInvAdjSkew(-M) R_1^{-H} | 0] + Q gR, with R_1 R's leading m x m block and
    trilImInvAdjSkew(X) = tril(X - X^H) with the imaginary part of its diagonal halved.

    Raises (in backward):
        RuntimeError: mode 'r' (Q not computed) or mode 'complete' with m > n (torch's messages).
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, mode):
        m, n = a.shape[-2:]
        k = min(m, n)
        if a.size == 0:
            qs = (m, m) if mode == "complete" else (m, k)
            rs = (m, n) if mode == "complete" else (k, n)
            q = xp.zeros(a.shape[:-2] + qs, dtype=a.dtype)
            if mode != "r" and q.size:
                q[...] = xp.eye(*qs, dtype=a.dtype)
            return (q if mode != "r" else xp.zeros((0,), a.dtype)), xp.zeros(a.shape[:-2] + rs, dtype=a.dtype)
        if mode == "r":
            r = xp.linalg.qr(a, mode="r")
            return xp.zeros((0,), dtype=a.dtype), r.astype(a.dtype, copy=False)
        q, r = xp.linalg.qr(a, mode=mode)
        return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)

    def backward(self, gq, gr):
        mode = self._params[0]
        q, r = _saved_outputs(self, 2)
        m, n = q._data.shape[-2], r._data.shape[-1]
        if mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
            )
        if mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if q._data.size and r._data.size:  # (an empty A keeps its empty gradients: torch's are defined)
            gq = None if _is_zero(gq) else gq
            gr = None if _is_zero(gr) else gr
            if gq is None and gr is None:
                return (None,)
        if gq is None:
            ga = matmul(gr, r.mH)
        else:
            ga = -matmul(q.mH, gq) if gr is None else matmul(gr, r.mH) - matmul(q.mH, gq)
        real = _real_dtype(r._data.dtype)
        if m >= n:
            upper = ga * _tril_mask(n, real).mT
            ga = matmul(q, upper + upper.mH - _diag_embed(upper.diagonal(0, -2, -1).real))  # syminvadj
            if gq is not None:
                ga = ga + gq
            return (_solve_adjoint_right(ga, r),)
        skew = -ga + ga.mH  # trilImInvAdjSkew(-M)
        skew = skew * _tril_mask(m, real) - _diag_embed(skew.diagonal(0, -2, -1)) * 0.5
        ga = _solve_adjoint_right(matmul(q, skew), r[..., :, :m])
        ga = matmul(ga, wrap(xp.eye(m, n, dtype=ga._data.dtype)))  # [ga | 0]
        if gr is not None:
            ga = ga + matmul(q, gr)
        return (ga,)


def _solve_adjoint_right(b: Tensor, r: Tensor) -> Tensor:
    """B R^{-H} (R square, invertible), as the transpose of conj(R)^{-1} B^T."""
    return solve(conj(r), b.mT).mT


def qr(a: Tensor, mode: str = "reduced"):
    """QR decomposition of (..., m, n), real or complex: mode 'reduced' (Q (m, k), R (k, n)), 'complete'
    (Q (m, m)) or 'r'.

    Raises:
        RuntimeError: fewer than 2 dims, non-float input or an unknown mode.
    """
    if mode not in ("reduced", "r", "complete"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    _check_matrix(a, "linalg.qr", square=False)
    return _returned("linalg_qr", ("Q", "R"), _apply_saving_outputs(LinalgQrBackward0, (a,), (mode,),
                                                                      check_inputs=False))


def torch_qr(a: Tensor, some: bool = True, *, out=None):
    """torch.qr / Tensor.qr (deprecated in favour of linalg.qr, with torch's warning once): linalg.qr with mode
    'reduced' (``some``) or 'complete', as ``torch.return_types.qr``."""
    _warn_deprecated("qr", (
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\nThe "
        "boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\n"
        "should be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete') (Triggered internally "
        "at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2505.)"))
    return _returned("qr", ("Q", "R"), qr(a, "reduced" if some else "complete"))


def _check_gauge(imag_part, other, message: str) -> None:
    """FunctionsManual's phase check for complex singular / eigen vectors: the loss may not depend on the
    phase e^{i phi} of each vector, i.e. allclose(imag_part, other, rtol=1e-2, atol=1e-2) (lax, as torch)."""
    if not xp.all(xp.abs(imag_part - other) <= 1e-2 + 1e-2 * xp.abs(other)):
        raise RuntimeError(message)


_EIGH_GAUGE = (
    "linalg_eigh_backward: The eigenvectors in the complex case are specified up to multiplication by e^{i phi}. "
    "The specified loss function depends on this quantity, so it is ill-defined."
)
_EIG_GAUGE = _EIGH_GAUGE.replace("linalg_eigh_backward", "linalg_eig_backward")
_SVD_GAUGE = (
    "svd_backward: The singular vectors in the complex case are specified up to multiplication by e^{i phi}. "
    "The specified loss function depends on this phase term, making it ill-defined."
)


def _off_diagonal(x: Tensor) -> Tensor:
    """x with its diagonal (last two dims) set to zero (differentiable: a product with a mask)."""
    n = x._data.shape[-1]
    return x * wrap(1 - xp.eye(n, dtype=_real_dtype(x._data.dtype)))


@register
class LinalgEighBackward0(Op):
    """linalg.eigh(A, UPLO) of a Hermitian (symmetric) (..., n, n) -> (eigenvalues ascending, A's real dtype;
    eigenvectors).

    Reads one triangle of A. Gradient (FunctionsManual linalg_eig_backward, hermitian case):
    gA = V (diag(gL) + skew(V^H gV) / E) V^H with skew(X) = (X - X^H) / 2 and
    E_ij = L_j - L_i off the diagonal (gL replaces the diagonal); without a gradient for V,
    V diag(gL) V^H. For complex A the loss may not depend on the eigenvectors' phases
    (Im diag(V^H gV) = 0, torch's check and text).
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, uplo):
        if a.size == 0:
            return xp.zeros(a.shape[:-1], dtype=_real_dtype(a.dtype)), xp.zeros(a.shape, dtype=a.dtype)
        w, v = xp.linalg.eigh(a, UPLO=uplo)
        return w.astype(_real_dtype(a.dtype), copy=False), v.astype(a.dtype, copy=False)

    def backward(self, gl, gv):
        lam, v = _saved_outputs(self, 2)
        if _is_zero(gv):
            return (matmul(v * gl.unsqueeze(-2), v.mH),)
        vhgv = matmul(v.mH, gv)
        is_complex = v._data.dtype.kind == "c"
        if is_complex:
            _check_gauge(xp.diagonal(vhgv._data, 0, -2, -1).imag, 0, _EIGH_GAUGE)
        skew = (vhgv - vhgv.mH) * 0.5
        n = lam._data.shape[-1]
        eye = xp.eye(n, dtype=lam._data.dtype)
        e = lam.unsqueeze(-2) - lam.unsqueeze(-1) + wrap(eye)
        inner = skew / e
        if not _is_zero(gl):
            # gL replaces the diagonal (in the real case skew's diagonal is exactly 0)
            inner = (_off_diagonal(inner) if is_complex else inner) + _diag_embed(gl)
        return (matmul(v, matmul(inner, v.mH)),)


def _check_eigh_input(a: Tensor) -> None:
    _check_matrix(a, "linalg.eigh", floating=False)
    if a._data.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{_type_name(a._data.dtype)}\'')


def eigh(a: Tensor, UPLO: str = "L"):  # noqa: N803 - torch's name
    """Eigen-decomposition of a Hermitian (..., n, n): (eigenvalues (..., n) ascending, real; eigenvectors
    (..., n, n)).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input, or UPLO not 'L'/'U'.
    """
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_eigh_input(a)
    return _returned("linalg_eigh", ("eigenvalues", "eigenvectors"),
                     _apply_saving_outputs(LinalgEighBackward0, (a,), (UPLO,), check_inputs=False))


def eigvalsh(a: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803 - torch's name
    """Eigenvalues (ascending, real) of a Hermitian (..., n, n); grad_fn LinalgEighBackward0 as in torch."""
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_eigh_input(a)
    return _apply_saving_outputs(LinalgEighBackward0, (a,), (UPLO,), check_inputs=False)[0]


@register
class LinalgEigBackward0(Op):
    """linalg.eig(A) of a square (..., n, n) -> (eigenvalues (..., n), eigenvectors (..., n, n)), always
    complex (complex64 for float32 / complex64 input, complex128 otherwise), as LAPACK's geev returns them
    (unit-norm eigenvectors, no ordering).

    Gradient (FunctionsManual linalg_eig_backward; Boeddeker et al. 2017, arXiv:1701.00392, eq. 4.77):
    gA = V^{-H} (diag(gL) + (V^H gV - V^H V diag(Re(V^H gV))) / E.conj()) V^H, with E_ij = L_j - L_i
    off the diagonal (gL replaces the diagonal); without a gradient for V, V^{-H} diag(gL) V^H. A real A
    gets the real part (the engine's rule). The loss may not depend on the eigenvectors' phases
    (Im diag(V^H gV) = 0, torch's check and text).
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a):
        cd = _complex_dtype(a.dtype)
        if a.size == 0:
            return xp.zeros(a.shape[:-1], dtype=cd), xp.zeros(a.shape, dtype=cd)
        if not xp.all(xp.isfinite(a)):  # (eigvals only: LAPACK returns nans)
            return xp.full(a.shape[:-1], xp.nan, dtype=cd), xp.full(a.shape, xp.nan, dtype=cd)
        w, v = xp.linalg.eig(a)
        return w.astype(cd, copy=False), v.astype(cd, copy=False)

    def backward(self, gl, gv):
        lam, v = _saved_outputs(self, 2)
        vh = v.mH
        if _is_zero(gv):
            return (solve(vh, gl.unsqueeze(-1) * vh),)
        vhgv = matmul(vh, gv)
        diag = vhgv.diagonal(0, -2, -1)
        _check_gauge(diag._data.imag, 0, _EIG_GAUGE)
        vhgv = vhgv - matmul(vh, v * diag.real.unsqueeze(-2))
        lc = conj(lam)
        n = lam._data.shape[-1]
        e = lc.unsqueeze(-2) - lc.unsqueeze(-1) + wrap(xp.eye(n, dtype=lam._data.dtype))
        inner = vhgv / e
        if not _is_zero(gl):
            inner = _off_diagonal(inner) + _diag_embed(gl)
        return (solve(vh, matmul(inner, vh)),)


def _check_eig_input(a: Tensor, fname: str) -> None:
    """torch's checks for linalg.eig / eigvals, in its order: the dtype's complex counterpart, the shape,
    LAPACK's dtypes; linalg.eig also refuses infs and nans."""
    d = a._data
    if d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"Unknown Complex ScalarType for {_type_name(d.dtype)}")
    _check_matrix(a, fname)
    if d.dtype == xp.float16:
        raise NotImplementedError("\"linalg_eig_out_cpu\" not implemented for 'Half'")
    if fname == "linalg.eig" and d.size and not xp.all(xp.isfinite(d)):
        raise RuntimeError(f"torch.{fname}: input tensor should not contain infs or NaNs.")


def eig(a: Tensor):
    """torch.linalg.eig: (eigenvalues, eigenvectors) of a square (..., n, n), complex for real input too.

    Raises:
        RuntimeError: an integer input ("Unknown Complex ScalarType for Long"), fewer than 2 dims,
            non-square input, infs or nans (torch's texts); NotImplementedError for half.
    """
    _check_eig_input(a, "linalg.eig")
    return _returned("linalg_eig", ("eigenvalues", "eigenvectors"), _apply_saving_outputs(LinalgEigBackward0, (a,)))


def eigvals(a: Tensor) -> Tensor:
    """torch.linalg.eigvals: the eigenvalues of a square (..., n, n) (complex); grad_fn LinalgEigBackward0."""
    from ..autograd.grad_mode import is_grad_enabled

    # torch computes the eigenvectors (linalg.eig, its names and checks) only when a gradient will need them
    _check_eig_input(a, "linalg.eig" if a._requires_grad and is_grad_enabled() else "linalg.eigvals")
    return _apply_saving_outputs(LinalgEigBackward0, (a,))[0]


@register
class LinalgSvdBackward0(Op):
    """linalg.svd(A, full_matrices) of (..., m, n) -> (U, S, Vh), S descending (A's real dtype).

    Gradient (FunctionsManual svd_backward; Townsend 2016, "Differentiating the singular
    value decomposition"), on the first k = min(m, n) columns of U / rows of Vh: with
    E_ij = S_j^2 - S_i^2 (1 on the diagonal), skew(X) = X - X^H,
    gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS) (+ i Im diag(U^H gU) / S for complex A)] V^H,
    plus (I - U U^H) gU S^{-1} V^H when m > n, or U S^{-1} gVh (I - V V^H) when m < n.
    Without gradients for U and Vh: U diag(gS) V^H. For complex A the loss may not depend on
    the singular vectors' phases (Im diag(U^H gU + V^H gV) = 0, torch's check and text).
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, full_matrices):
        m, n = a.shape[-2:]
        k = min(m, n)
        real = _real_dtype(a.dtype)
        if a.size == 0:
            b = a.shape[:-2]
            um, vn = (m, n) if full_matrices else (k, k)
            u = xp.zeros(b + (m, um), dtype=a.dtype)
            vh = xp.zeros(b + (vn, n), dtype=a.dtype)
            if full_matrices:
                u[...] = xp.eye(m, dtype=a.dtype)
                vh[...] = xp.eye(n, dtype=a.dtype)
            return u, xp.zeros(b + (k,), dtype=real), vh
        u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
        return u.astype(a.dtype, copy=False), s.astype(real, copy=False), vh.astype(a.dtype, copy=False)

    def backward(self, gu, gs, gvh):
        u, s, vh = _saved_outputs(self, 3)
        k = s._data.shape[-1]
        if self._params[0]:
            u, vh = u[..., :, :k], vh[..., :k, :]
            gu = None if _is_zero(gu) else gu[..., :, :k]
            gvh = None if _is_zero(gvh) else gvh[..., :k, :]
        else:
            gu = None if _is_zero(gu) else gu
            gvh = None if _is_zero(gvh) else gvh
        m, n = u._data.shape[-2], vh._data.shape[-1]
        if gu is None and gvh is None:
            return (matmul(u * gs.unsqueeze(-2), vh),)
        is_complex = u._data.dtype.kind == "c"
        uhgu = vhgv = None
        if gu is not None:
            uhgu = matmul(u.mH, gu)
            uhgu = uhgu - uhgu.mH
        if gvh is not None:
            vhgv = matmul(vh, gvh.mH)
            vhgv = vhgv - vhgv.mH
        if is_complex:
            zeros = xp.zeros(s._data.shape, dtype=s._data.dtype)
            im_u = zeros if uhgu is None else xp.diagonal(uhgu._data, 0, -2, -1).imag
            im_v = zeros if vhgv is None else xp.diagonal(vhgv._data, 0, -2, -1).imag
            _check_gauge(im_u, -im_v, _SVD_GAUGE)
        s2 = s * s
        e = s2.unsqueeze(-2) - s2.unsqueeze(-1) + wrap(xp.eye(k, dtype=s._data.dtype))
        if uhgu is not None and vhgv is not None:
            ga = (uhgu * s.unsqueeze(-2) + s.unsqueeze(-1) * vhgv) / e
        elif uhgu is not None:
            ga = (uhgu / e) * s.unsqueeze(-2)
        else:
            ga = s.unsqueeze(-1) * (vhgv / e)
        if not _is_zero(gs):
            ga = ga + _diag_embed(gs)
        if is_complex and uhgu is not None and vhgv is not None:
            ga = ga + _diag_embed(uhgu.diagonal(0, -2, -1) / (2 * s))
        if m > n and gu is not None:
            ga = matmul(u, ga)
            gusinv = gu / s.unsqueeze(-2)
            ga = ga + gusinv - matmul(u, matmul(u.mH, gusinv))
            return (matmul(ga, vh),)
        if m < n and gvh is not None:
            ga = matmul(ga, vh)
            sinvgvh = gvh / s.unsqueeze(-1)
            ga = ga + sinvgvh - matmul(matmul(sinvgvh, vh.mH), vh)
            return (matmul(u, ga),)
        return (matmul(u, matmul(ga, vh)),)


def svd(a: Tensor, full_matrices: bool = True, *, driver=None):
    """Singular value decomposition of (..., m, n), real or complex: (U, S, Vh) with S (..., k) descending
    and real, k = min(m, n).

    Raises:
        RuntimeError: fewer than 2 dims or non-float input.
    """
    _check_matrix(a, "linalg.svd", square=False)
    return _returned("linalg_svd", ("U", "S", "Vh"), _apply_saving_outputs(LinalgSvdBackward0, (a,), (full_matrices,),
                                                                             check_inputs=False))


def svdvals(a: Tensor, *, driver=None) -> Tensor:
    """Singular values (..., k), descending and real; grad_fn LinalgSvdBackward0 as in torch."""
    _check_matrix(a, "linalg.svd", square=False)
    return _apply_saving_outputs(LinalgSvdBackward0, (a,), (False,), check_inputs=False)[1]


def torch_svd(a: Tensor, some: bool = True, compute_uv: bool = True):
    """torch.svd (deprecated form): (U, S, V) with V = Vh^H (a conjugate view for complex input, as torch)."""
    u, s, vh = svd(a, full_matrices=not some)
    return _returned("svd", ("U", "S", "V"), (u, s, vh.mH))


@register
class LinalgPinvBackward0(Op):
    """linalg.pinv(A, atol, rtol, hermitian) of (..., m, n) -> (..., n, m), through the SVD.

    Singular values <= max(atol, rtol * S_max) count as zero; rtol defaults to
    eps * max(m, n) when neither tolerance is given. Gradient (FunctionsManual
    pinv_backward; Golub & Pereyra 1973, valid where the rank of A is locally constant),
    arranged as torch does to keep the products small: with P = pinv(A), g^H the
    conjugate-transposed output gradient, and for m <= n K = g^H P:
    gA = -(P K)^H + K P^H - A P K P^H + P^H P (g^H - K A); for m > n, K = P g^H:
    gA = -(K P)^H + (g^H - A K) P P^H + P^H K - P^H K P A.
    """

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, atol, rtol, hermitian):
        m, n = a.shape[-2:]
        if a.size == 0:
            return xp.zeros(a.shape[:-2] + (n, m), dtype=a.dtype)
        if hermitian:
            w, v = xp.linalg.eigh(a)
            s = xp.abs(w)
            cut = xp.maximum(atol, rtol * s.max(axis=-1, keepdims=True))
            winv = xp.where(s > cut, 1 / xp.where(w == 0, 1, w), 0)
            return ((v * winv[..., None, :]) @ xp.swapaxes(v.conj(), -1, -2)).astype(a.dtype)
        u, s, vh = xp.linalg.svd(a, full_matrices=False)
        cut = xp.maximum(atol, rtol * s[..., :1]) if s.shape[-1] else 0
        sinv = xp.where(s > cut, 1 / xp.where(s == 0, 1, s), 0)
        return ((xp.swapaxes(vh.conj(), -1, -2) * sinv[..., None, :]) @ xp.swapaxes(u.conj(), -1, -2)).astype(
            a.dtype, copy=False)

    def backward(self, g):
        a, _ = self.saved()
        p = self.saved_result()
        m, n = a._data.shape[-2:]
        ph, gh = p.mH, g.mH
        if m <= n:
            k = matmul(gh, p)
            kph = matmul(k, ph)
            return (
                -matmul(p, k).mH + kph - matmul(matmul(a, p), kph) + matmul(matmul(ph, p), gh - matmul(k, a)),
            )
        k = matmul(p, gh)
        phk = matmul(ph, k)
        return (
            -matmul(k, p).mH + matmul(matmul(gh - matmul(a, k), p), ph) + phk - matmul(matmul(phk, p), a),
        )


def pinv(a: Tensor, rcond=None, hermitian: bool = False, *, atol=None, rtol=None, out=None) -> Tensor:
    """Moore-Penrose pseudo-inverse of (..., m, n) -> (..., n, m), real or complex. ``rcond`` (torch's
    positional form, ``linalg.pinv(A, rcond, hermitian)``) is rtol.

    Raises:
        RuntimeError: fewer than 2 dims or non-float input.
    """
    if rcond is not None:
        rtol = rcond
    d = a._data
    if d.ndim < 2 or d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        dims = ", ".join(map(str, d.shape))
        raise RuntimeError(
            f"linalg.pinv({_type_name(d.dtype)}{{[{dims}]}}): expected a tensor with 2 or more dimensions of float, "
            "double, cfloat or cdouble types"
        )
    atol_v = 0.0 if atol is None else _tolerance(atol)
    if rtol is None:
        eps = float(xp.finfo(d.dtype).eps) * max(d.shape[-2:])
        rtol_v = eps if atol is None else xp.where(xp.asarray(atol_v) <= 0, eps, 0.0)
    else:
        rtol_v = _tolerance(rtol)
    return apply(LinalgPinvBackward0, (a,), (atol_v, rtol_v, hermitian))


def _tolerance(v):
    """An atol / rtol: a number, or a tensor broadcast over the batch (its array, with a trailing axis for the
    singular values)."""
    if isinstance(v, Tensor):
        return v._data[..., None] if v._data.ndim else float(v._data)
    return float(v)


def pinverse(a: Tensor, rcond: float = 1e-15) -> Tensor:
    """torch.pinverse: linalg.pinv with rtol = rcond."""
    return pinv(a, rtol=rcond)


def matrix_power(a: Tensor, n: int) -> Tensor:
    """A^n for (..., m, m) and an integer n, composed as torch composes it (matmuls by repeated
    squaring, linalg.inv first for n < 0, a clone for n = 1, the identity copied in for n = 0).

    Raises:
        RuntimeError: fewer than 2 dims or non-square input.
        LinAlgError: n < 0 and a singular matrix.
    """
    d = a._data
    if d.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if d.shape[-1] != d.shape[-2]:
        raise RuntimeError(
            f"linalg.matrix_power: A must be batches of square matrices, but they are {d.shape[-2]} by "
            f"{d.shape[-1]} matrices"
        )
    if n == 0:
        from .inplace import copy_

        eye = wrap(xp.broadcast_to(xp.eye(d.shape[-1], dtype=d.dtype), d.shape))
        return copy_(a.clone(), eye)
    if n < 0:
        a = inv(a)
        n = -n
        if n == 1:
            return a
    elif n == 1:
        return a.clone()
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    z = result = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = a if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


def linalg_diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: N803
    """torch.linalg.diagonal: torch.diagonal with the last two dims as defaults (DiagonalBackward0)."""
    return A.diagonal(offset, dim1, dim2)


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.linalg; __init__.py, _tensor_methods.py and linalg.py merge these at import.

EXPORTS: dict = {
    "cholesky": torch_cholesky,
    "qr": torch_qr,
    "trace": trace,
    "cross": cross,
    "inverse": inv,
    "det": det,
    "slogdet": torch_slogdet,
    "logdet": logdet,
    "pinverse": pinverse,
    "matrix_power": matrix_power,
    "svd": torch_svd,
}
TENSOR_METHODS: dict = {
    "cholesky": torch_cholesky,
    "qr": torch_qr,
    "trace": trace,
    "cross": cross,
    "inverse": inv,
    "det": det,
    "slogdet": torch_slogdet,
    "logdet": logdet,
    "pinverse": pinverse,
    "matrix_power": matrix_power,
    "svd": torch_svd,
}
LINALG_EXPORTS: dict = {  # dyngrad.linalg.<name>
    "LinAlgError": LinAlgError,
    "cross": linalg_cross,
    "inv": inv,
    "inv_ex": inv_ex,
    "det": det,
    "slogdet": slogdet,
    "solve": solve,
    "solve_ex": solve_ex,
    "solve_triangular": solve_triangular,
    "cholesky": cholesky,
    "cholesky_ex": cholesky_ex,
    "eig": eig,
    "eigvals": eigvals,
    "diagonal": linalg_diagonal,
    "qr": qr,
    "eigh": eigh,
    "eigvalsh": eigvalsh,
    "svd": svd,
    "svdvals": svdvals,
    "pinv": pinv,
    "matrix_power": matrix_power,
}
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
