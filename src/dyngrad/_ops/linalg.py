"""torch.linalg's decompositions, inverses, determinants and solves (inv, det, slogdet, solve, cholesky,
qr, eigh, svd, pinv, matrix_power), with trace and cross.

The matrix products live in matmul.py, the matrix norms and matrix_rank in norms.py, cdist in
distance.py; each module lists its own exports, gathered by dyngrad.linalg.
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor, wrap
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
    if a._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a._data.ndim}")
    return apply(TraceBackward0, (a,), (a._data.shape,))


@register
class LinalgCrossBackward0(Op):
    """cross(input, other, dim): 3-vectors along ``dim``, broadcast elsewhere.

    derivatives.yaml: d/dinput = cross(other, grad), d/dother = cross(grad, input).
    """

    save_inputs = True

    @staticmethod
    def forward(a, b, dim):
        return xp.cross(a, b, axis=dim)

    def backward(self, g):
        a, b = self.saved()
        dim = self._params[0]
        ga = apply(LinalgCrossBackward0, (b, g), (dim,)) if self.needs_input_grad(0) else None
        gb = apply(LinalgCrossBackward0, (g, a), (dim,)) if self.needs_input_grad(1) else None
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
    if a._data.dtype != b._data.dtype:
        from .._dtype import result_type

        rt = result_type(a._data, b._data)
        a, b = a.to(_torch_dtype(rt)), b.to(_torch_dtype(rt))
    return apply(LinalgCrossBackward0, (a, b), (d,))


def _torch_dtype(npd):
    from .._dtype import from_numpy

    return from_numpy(npd)


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
    if floating and d.dtype.kind not in "fc":
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


@register
class LinalgInvExBackward0(Op):
    """linalg.inv(A) of (..., n, n): derivatives.yaml (linalg_inv_ex): dA = -inv^H grad inv^H
    (Giles 2008, "Collected matrix derivative results", sec. 2.2.1)."""

    save_result = True

    @staticmethod
    def forward(a):
        if a.size == 0:
            return xp.empty(a.shape, dtype=a.dtype)
        try:
            return xp.linalg.inv(a).astype(a.dtype, copy=False)
        except xp.linalg.LinAlgError:
            _raise_singular_inv(a)

    def backward(self, g):
        inv_t = self.saved_result().mT
        return (-(matmul(inv_t, matmul(g, inv_t))),)


def inv(a: Tensor) -> Tensor:
    """Inverse of a square matrix or a batch of them (..., n, n).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
        LinAlgError: a singular matrix (torch's message, naming the zero pivot and batch element).
    """
    _check_matrix(a, "linalg.inv")
    return apply(LinalgInvExBackward0, (a,))


def inv_ex(a: Tensor, *, check_errors: bool = False):
    """linalg.inv_ex: (inverse, info); info > 0 names the zero pivot of a singular matrix instead of raising."""
    from collections import namedtuple

    _check_matrix(a, "linalg.inv_ex")
    d = a._data
    info = xp.zeros(d.shape[:-2], dtype=xp.int32)
    flat = info.reshape(-1)
    mats = d.reshape((-1,) + d.shape[-2:])
    for i, m in enumerate(mats):
        flat[i] = _first_zero_pivot(m) if m.size else 0
    if xp.any(info):
        if check_errors:
            _raise_singular_inv(d, "linalg.inv_ex")
        with _errstate():
            out = wrap(_inv_with_nans(d))
        return namedtuple("linalg_inv_ex", ["inverse", "info"])(out, wrap(info))
    return namedtuple("linalg_inv_ex", ["inverse", "info"])(apply(LinalgInvExBackward0, (a,)), wrap(info))


def _errstate():
    return xp.errstate(all="ignore")


def _inv_with_nans(d):
    out = xp.empty_like(d)
    fo, fi = out.reshape((-1,) + d.shape[-2:]), d.reshape((-1,) + d.shape[-2:])
    for i, m in enumerate(fi):
        try:
            fo[i] = xp.linalg.inv(m)
        except xp.linalg.LinAlgError:
            fo[i] = xp.nan
    return out


@register
class LinalgDetBackward0(Op):
    """linalg.det(A) of (..., n, n) -> (...).

    Gradient (derivatives.yaml: linalg_det_backward): grad * det * A^{-H} for an invertible
    A; where some matrix is singular, the adjugate computed from an SVD (torch's singular
    branch: U diag(prod_{j != i} S_j) V^H times det(U) det(V^H)); that branch is treated
    as a constant under create_graph.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a):
        return xp.asarray(xp.linalg.det(a), dtype=a.dtype)

    def backward(self, g):
        a, _ = self.saved()
        det = self.saved_result()
        if a._data.size and xp.any(det._data == 0):
            return (g.unsqueeze(-1).unsqueeze(-1) * wrap(_adjugate_t(a._data)),)
        return ((g * det).unsqueeze(-1).unsqueeze(-1) * inv(a).mT,)


def _adjugate_t(a):
    """The transposed adjugate (cofactor matrix) of each matrix, via the SVD (valid when singular)."""
    u, s, vh = xp.linalg.svd(a)
    n = s.shape[-1]
    others = xp.stack([xp.prod(xp.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1) if n else s
    alpha = xp.linalg.det(u) * xp.linalg.det(vh)
    return ((u * (alpha[..., None] * others)[..., None, :]) @ vh).astype(a.dtype)


def det(a: Tensor) -> Tensor:
    """Determinant of (..., n, n) -> (...).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
    """
    _check_matrix(a, "linalg.det")
    return apply(LinalgDetBackward0, (a,))


@register
class LinalgSlogdetBackward0(Op):
    """linalg.slogdet(A) -> (sign, logabsdet), both (...).

    Gradient (derivatives.yaml: slogdet_backward, real case): the sign gets none;
    d/dA = grad_logabsdet * A^{-H} (Giles 2008, sec. 2.2.1).
    """

    save_inputs = True

    @staticmethod
    def forward(a):
        sign, logabs = xp.linalg.slogdet(a)
        return xp.asarray(sign, dtype=a.dtype), xp.asarray(logabs, dtype=a.dtype)

    def backward(self, g_sign, g_logabs):
        a = self.saved()[0]
        return (g_logabs.unsqueeze(-1).unsqueeze(-1) * inv(a).mT,)


def slogdet(a: Tensor):
    """(sign, logabsdet) of (..., n, n); a singular matrix gives (0, -inf).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
    """
    from collections import namedtuple

    _check_matrix(a, "linalg.slogdet")
    sign, logabs = _apply_saving_outputs(LinalgSlogdetBackward0, (a,))
    return namedtuple("slogdet", ["sign", "logabsdet"])(sign, logabs)


def logdet(a: Tensor) -> Tensor:
    """log(det(A)): nan for a negative determinant (as torch: where(sign == -1, nan, logabsdet))."""
    from .pointwise import where_

    _check_matrix(a, "linalg.slogdet")
    sign, logabs = slogdet(a)
    return where_(wrap(sign._data == -1), float("nan"), logabs)


@register
class LinalgSolveExBackward0(Op):
    """linalg.solve(A, B, left=True): X with A X = B (or X A = B); A (*, n, n), B (*, n, k) or a vector.

    Gradient (derivatives.yaml: linalg_solve_backward): gB = A^{-H} gX (left) or
    gX A^{-H} (right), gA = -gB X^H (left) or -X^H gB (right); in the vector case
    gA = -outer(gB, X). Batch dims broadcast; the engine sums gradients back.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, b, vector, left):
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
                raise LinAlgError(
                    f"torch.linalg.solve: {_batch_prefix(a, found[0] if found else 0)}The solver failed because the "
                    "input matrix is singular."
                ) from None
        x = x[..., 0] if vector else x
        if not left and not vector:
            x = xp.swapaxes(x, -1, -2)
        return x.astype(a.dtype, copy=False)

    def backward(self, g):
        a = self.saved()[0]
        vector, left = self._params
        x = self.saved_result()
        gb = solve(a.mT, g, left=left)
        ga = None
        if self.needs_input_grad(0):
            if vector:
                ga = -(gb.unsqueeze(-1) * x.unsqueeze(-2)) if left else -(x.unsqueeze(-1) * gb.unsqueeze(-2))
            else:
                ga = -matmul(gb, x.mT) if left else -matmul(x.mT, gb)
        return ga, (gb if self.needs_input_grad(1) else None)


def solve(a: Tensor, b: Tensor, *, left: bool = True, out=None) -> Tensor:
    """Solve A X = B (left) or X A = B for X; batch dims broadcast.

    B is a vector (batch of vectors) when it is 1-D or has A's shape without its last dim.

    Raises:
        RuntimeError: non-square A, incompatible shapes, mixed dtypes (torch's messages).
        LinAlgError: a singular A.
    """
    _check_matrix(a, "linalg.solve")
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
    return apply(LinalgSolveExBackward0, (a, b), (vector, left))


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


@register
class LinalgCholeskyExBackward0(Op):
    """linalg.cholesky(A, upper=False): L (lower, A = L L^H) or U (upper, A = U^H U) of (..., n, n).

    Reads only the lower (upper) triangle of A. Gradient (FunctionsManual cholesky_backward,
    after Murray 2016, arXiv:1602.07527): with P = tril(L^H gL),
    gA = L^{-H} (P + tril(P, -1)^H) / 2 L^{-1}, a symmetric matrix.
    """

    save_result = True

    @staticmethod
    def forward(a, upper):
        if a.size == 0:
            return xp.zeros(a.shape, dtype=a.dtype)
        m = xp.swapaxes(a, -1, -2) if upper else a
        # NumPy reads the lower triangle; torch's upper=True reads the upper one.
        try:
            low = xp.linalg.cholesky(m)
        except xp.linalg.LinAlgError:
            _raise_not_pd(a, "linalg.cholesky", upper)
        return (xp.swapaxes(low, -1, -2) if upper else low).astype(a.dtype, copy=False)

    def backward(self, g):
        out = self.saved_result()
        upper = self._params[0]
        low, gl = (out.mT, g.mT) if upper else (out, g)
        n = low._data.shape[-1]
        p = matmul(low.mT, gl) * _tril_mask(n, low._data.dtype)
        phi = (p + (p * _tril_mask(n, low._data.dtype, -1)).mT) * 0.5
        linv = inv(low)
        return (matmul(linv.mT, matmul(phi, linv)),)


def cholesky(a: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """Cholesky factor of a symmetric positive-definite (..., n, n).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
        LinAlgError: a matrix that is not positive-definite (naming the failing leading minor).
    """
    _check_matrix(a, "linalg.cholesky")
    return apply(LinalgCholeskyExBackward0, (a,), (upper,))


@register
class LinalgQrBackward0(Op):
    """linalg.qr(A, mode) of (..., m, n) -> (Q, R).

    Gradient for mode 'reduced' (or m <= n), after Seeger et al. 2017 / Liao et al. 2019
    (PRX 9, 031041), the formula of torch's linalg_qr_backward: for m >= n, with
    M = R gR^H - gQ^H Q, gA = (gQ + Q copyltu(M)) R^{-H}, where copyltu copies the lower
    triangle of M onto its upper one. For m < n, A = [X | Y], R = [U | V]:
    gY = Q gV and gX is the square case with gQ + Y gV^H and gU.

    Raises (in backward):
        RuntimeError: mode 'r' (Q not computed) or mode 'complete' with m > n (torch's messages).
    """

    save_inputs = True

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
        if m >= n:
            return (_qr_backward_tall(gq, gr, q, r),)
        x_cols = r[..., :, :m]
        gu, gv = gr[..., :, :m], gr[..., :, m:]
        y = matmul(q, r[..., :, m:])  # A's right block, from the outputs (torch saves only Q and R)
        gx = _qr_backward_tall(gq + matmul(y, gv.mT), gu, q, x_cols)
        gy = matmul(q, gv)
        return (_cat_last(gx, gy),)


def _cat_last(a: Tensor, b: Tensor) -> Tensor:
    """Concatenate along the last dim with differentiable ops (zero-padding and a sum)."""
    na, nb = a._data.shape[-1], b._data.shape[-1]
    ea = wrap(xp.eye(na, na + nb, dtype=a._data.dtype))
    eb = wrap(xp.eye(nb, na + nb, k=na, dtype=b._data.dtype))
    return matmul(a, ea) + matmul(b, eb)


def _qr_backward_tall(gq: Tensor, gr: Tensor, q: Tensor, r: Tensor) -> Tensor:
    n = r._data.shape[-1]
    dt = r._data.dtype
    mm_ = matmul(r, gr.mT) - matmul(gq.mT, q)
    low = mm_ * _tril_mask(n, dt)
    copyltu = low + (mm_ * _tril_mask(n, dt, -1)).mT
    b = gq + matmul(q, copyltu)
    # b R^{-H}: solve R X^H = b^H
    return solve(r, b.mT).mT


def qr(a: Tensor, mode: str = "reduced"):
    """QR decomposition of (..., m, n): mode 'reduced' (Q (m, k), R (k, n)), 'complete' (Q (m, m)) or 'r'.

    Raises:
        RuntimeError: fewer than 2 dims, non-float input or an unknown mode.
    """
    from collections import namedtuple

    if mode not in ("reduced", "r", "complete"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    _check_matrix(a, "linalg.qr", square=False)
    q, r = _apply_saving_outputs(LinalgQrBackward0, (a,), (mode,), check_inputs=False)
    return namedtuple("qr", ["Q", "R"])(q, r)


@register
class LinalgEighBackward0(Op):
    """linalg.eigh(A, UPLO) of a symmetric (..., n, n) -> (eigenvalues ascending, eigenvectors).

    Reads one triangle of A. Gradient (FunctionsManual linalg_eig_backward, hermitian case):
    gA = V (diag(gL) + skew(V^H gV) / E) V^H with skew(X) = (X - X^H) / 2 and
    E_ij = L_j - L_i off the diagonal; without a gradient for V, V diag(gL) V^H.
    """

    save_inputs = True

    @staticmethod
    def forward(a, uplo):
        if a.size == 0:
            return xp.zeros(a.shape[:-1], dtype=a.dtype), xp.zeros(a.shape, dtype=a.dtype)
        w, v = xp.linalg.eigh(a, UPLO=uplo)
        return w.astype(a.dtype, copy=False), v.astype(a.dtype, copy=False)

    def backward(self, gl, gv):
        lam, v = _saved_outputs(self, 2)
        if _is_zero(gv):
            return (matmul(v * gl.unsqueeze(-2), v.mT),)
        vhgv = matmul(v.mT, gv)
        skew = (vhgv - vhgv.mT) * 0.5
        n = lam._data.shape[-1]
        eye = xp.eye(n, dtype=lam._data.dtype)
        e = lam.unsqueeze(-2) - lam.unsqueeze(-1) + wrap(eye)
        inner = skew / e
        if not _is_zero(gl):
            inner = inner + _diag_embed(gl)
        return (matmul(v, matmul(inner, v.mT)),)


def _check_eigh_input(a: Tensor) -> None:
    _check_matrix(a, "linalg.eigh", floating=False)
    if a._data.dtype.kind not in "fc":
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{_type_name(a._data.dtype)}\'')


def eigh(a: Tensor, UPLO: str = "L"):  # noqa: N803 - torch's name
    """Eigen-decomposition of a symmetric (..., n, n): (eigenvalues (..., n) ascending, eigenvectors (..., n, n)).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input, or UPLO not 'L'/'U'.
    """
    from collections import namedtuple

    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_eigh_input(a)
    w, v = _apply_saving_outputs(LinalgEighBackward0, (a,), (UPLO,), check_inputs=False)
    return namedtuple("eigh", ["eigenvalues", "eigenvectors"])(w, v)


def eigvalsh(a: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803 - torch's name
    """Eigenvalues (ascending) of a symmetric (..., n, n); grad_fn LinalgEighBackward0 as in torch."""
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_eigh_input(a)
    return _apply_saving_outputs(LinalgEighBackward0, (a,), (UPLO,), check_inputs=False)[0]


@register
class LinalgSvdBackward0(Op):
    """linalg.svd(A, full_matrices) of (..., m, n) -> (U, S, Vh), S descending.

    Gradient (FunctionsManual svd_backward; Townsend 2016, "Differentiating the singular
    value decomposition"), on the first k = min(m, n) columns of U / rows of Vh: with
    E_ij = S_j^2 - S_i^2 (1 on the diagonal), skew(X) = X - X^H,
    gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS)] V^H, plus
    (I - U U^H) gU S^{-1} V^H when m > n, or U S^{-1} gVh (I - V V^H) when m < n.
    Without gradients for U and Vh: U diag(gS) V^H.
    """

    save_inputs = True

    @staticmethod
    def forward(a, full_matrices):
        m, n = a.shape[-2:]
        k = min(m, n)
        if a.size == 0:
            b = a.shape[:-2]
            um, vn = (m, n) if full_matrices else (k, k)
            u = xp.zeros(b + (m, um), dtype=a.dtype)
            vh = xp.zeros(b + (vn, n), dtype=a.dtype)
            if full_matrices:
                u[...] = xp.eye(m, dtype=a.dtype)
                vh[...] = xp.eye(n, dtype=a.dtype)
            return u, xp.zeros(b + (k,), dtype=a.dtype), vh
        u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
        return u.astype(a.dtype, copy=False), s.astype(a.dtype, copy=False), vh.astype(a.dtype, copy=False)

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
        dt = s._data.dtype
        s2 = s * s
        e = s2.unsqueeze(-2) - s2.unsqueeze(-1) + wrap(xp.eye(k, dtype=dt))
        ga = None
        if gu is not None:
            uhgu = matmul(u.mT, gu)
            ga = (uhgu - uhgu.mT) * s.unsqueeze(-2)
        if gvh is not None:
            vhgv = matmul(vh, gvh.mT)
            term = s.unsqueeze(-1) * (vhgv - vhgv.mT)
            ga = term if ga is None else ga + term
        ga = ga / e
        if not _is_zero(gs):
            ga = ga + _diag_embed(gs)
        if m > n and gu is not None:
            ga = matmul(u, ga)
            gusinv = gu / s.unsqueeze(-2)
            ga = ga + gusinv - matmul(u, matmul(u.mT, gusinv))
            return (matmul(ga, vh),)
        if m < n and gvh is not None:
            ga = matmul(ga, vh)
            sinvgvh = gvh / s.unsqueeze(-1)
            ga = ga + sinvgvh - matmul(matmul(sinvgvh, vh.mT), vh)
            return (matmul(u, ga),)
        return (matmul(u, matmul(ga, vh)),)


def svd(a: Tensor, full_matrices: bool = True, *, driver=None):
    """Singular value decomposition of (..., m, n): (U, S, Vh) with S (..., k) descending, k = min(m, n).

    Raises:
        RuntimeError: fewer than 2 dims or non-float input.
    """
    from collections import namedtuple

    _check_matrix(a, "linalg.svd", square=False)
    u, s, vh = _apply_saving_outputs(LinalgSvdBackward0, (a,), (full_matrices,), check_inputs=False)
    return namedtuple("svd", ["U", "S", "Vh"])(u, s, vh)


def svdvals(a: Tensor, *, driver=None) -> Tensor:
    """Singular values (..., k), descending; grad_fn LinalgSvdBackward0 as in torch."""
    _check_matrix(a, "linalg.svd", square=False)
    return _apply_saving_outputs(LinalgSvdBackward0, (a,), (False,), check_inputs=False)[1]


def torch_svd(a: Tensor, some: bool = True, compute_uv: bool = True):
    """torch.svd (deprecated form): (U, S, V) with V = Vh^H."""
    from collections import namedtuple

    u, s, vh = svd(a, full_matrices=not some)
    return namedtuple("svd", ["U", "S", "V"])(u, s, vh.mT)



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
            return ((v * winv[..., None, :]) @ xp.swapaxes(v, -1, -2)).astype(a.dtype)
        u, s, vh = xp.linalg.svd(a, full_matrices=False)
        cut = xp.maximum(atol, rtol * s[..., :1]) if s.shape[-1] else 0
        sinv = xp.where(s > cut, 1 / xp.where(s == 0, 1, s), 0)
        return (xp.swapaxes(vh, -1, -2) * sinv[..., None, :]) @ xp.swapaxes(u, -1, -2)

    def backward(self, g):
        a, _ = self.saved()
        p = self.saved_result()
        m, n = a._data.shape[-2:]
        ph, gh = p.mT, g.mT
        if m <= n:
            k = matmul(gh, p)
            kph = matmul(k, ph)
            return (
                -matmul(p, k).mT + kph - matmul(matmul(a, p), kph) + matmul(matmul(ph, p), gh - matmul(k, a)),
            )
        k = matmul(p, gh)
        phk = matmul(ph, k)
        return (
            -matmul(k, p).mT + matmul(matmul(gh - matmul(a, k), p), ph) + phk - matmul(matmul(phk, p), a),
        )


def pinv(a: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """Moore-Penrose pseudo-inverse of (..., m, n) -> (..., n, m).

    Raises:
        RuntimeError: fewer than 2 dims or non-float input.
    """
    d = a._data
    if d.ndim < 2 or d.dtype.kind not in "fc":
        dims = ", ".join(map(str, d.shape))
        raise RuntimeError(
            f"linalg.pinv({_type_name(d.dtype)}{{[{dims}]}}): expected a tensor with 2 or more dimensions of float, "
            "double, cfloat or cdouble types"
        )
    atol_v = 0.0 if atol is None else float(atol)
    if rtol is None:
        rtol_v = float(xp.finfo(d.dtype).eps) * max(d.shape[-2:]) if (atol is None or atol_v <= 0) else 0.0
    else:
        rtol_v = float(rtol)
    return apply(LinalgPinvBackward0, (a,), (atol_v, rtol_v, hermitian))


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


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.linalg; __init__.py, _tensor_methods.py and linalg.py merge these at import.

EXPORTS: dict = {
    "trace": trace,
    "cross": cross,
    "inverse": inv,
    "det": det,
    "slogdet": slogdet,
    "logdet": logdet,
    "pinverse": pinverse,
    "matrix_power": matrix_power,
    "svd": torch_svd,
}
TENSOR_METHODS: dict = {
    "trace": trace,
    "cross": cross,
    "inverse": inv,
    "det": det,
    "slogdet": slogdet,
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
    "cholesky": cholesky,
    "qr": qr,
    "eigh": eigh,
    "eigvalsh": eigvalsh,
    "svd": svd,
    "svdvals": svdvals,
    "pinv": pinv,
    "matrix_power": matrix_power,
}
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
