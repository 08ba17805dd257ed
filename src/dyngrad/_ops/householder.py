"""Householder reflectors: torch.geqrf (LAPACK's packed QR), torch.linalg.householder_product (LAPACK orgqr) and
torch.ormqr (LAPACK ormqr: Q C, Q^H C, C Q, C Q^H without forming Q); real and complex, batched.

The reflectors of a packed (..., m, n) matrix A and tau (..., k): v_i = (0, ..., 0, 1, A[i+1:, i]) and
H_i = I - tau_i v_i v_i^H; Q = H_1 H_2 ... H_k (m x m), householder_product returns its first n columns.

Gradients (FunctionsManual.cpp householder_product_backward and ormqr_backward compute the same vector-Jacobian
product; here it is written out by the product rule): with L_i = H_1 ... H_{i-1}, R_i = H_{i+1} ... H_k E (E the
columns kept) and G_i = L_i^H gQ R_i^H, dH_i = -dtau_i v_i v_i^H - tau_i (dv_i v_i^H + v_i dv_i^H) gives
gtau_i = -v_i^H G_i v_i and gv_i = -conj(tau_i) G_i v_i - tau_i G_i^H v_i, of which A's column i takes the rows
below i. ormqr: Q C has gC = Q^H gX and gQ = gX C^H (the other cases alike), then the rule above for the full Q.
The backward is written with dyngrad ops, so it is differentiable again.
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from .linalg import _returned
from .matmul import _type_name, matmul
from .registry import Op, apply, register

# ================================================================== arrays


def _apply_reflectors(a, tau, c, left: bool, adjoint: bool):
    """op(Q) C (``left``) or C op(Q), op(Q) = Q or Q^H, with Q the product of the reflectors of (a, tau)."""
    k = tau.shape[-1]
    m = a.shape[-2]
    batch = xp.broadcast_shapes(a.shape[:-2], tau.shape[:-1], c.shape[:-2])
    out = xp.array(xp.broadcast_to(c, batch + c.shape[-2:]), dtype=xp.result_type(a, c), copy=True)
    if not left:  # C op(Q) = (op(Q)^H C^H)^H
        out = xp.swapaxes(out, -1, -2).conj()
        adjoint = not adjoint
    # Q C = H_1 (H_2 (... H_k C)): the last reflector first; Q^H C = H_k^H (... H_1^H C)
    order = range(k) if adjoint else range(k - 1, -1, -1)
    for i in order:
        v = xp.zeros(a.shape[:-2] + (m,), dtype=out.dtype)
        v[..., i] = 1
        v[..., i + 1:] = a[..., i + 1:, i]
        t = tau[..., i]
        t = t.conj() if adjoint else t
        w = (v.conj()[..., None, :] @ out)  # v^H C, (..., 1, cols)
        out = out - (t[..., None, None] * v[..., :, None]) @ w
    if not left:
        out = xp.swapaxes(out, -1, -2).conj()
    return out


def _householder_arrays(a, tau):
    m, n = a.shape[-2:]
    eye = xp.broadcast_to(xp.eye(m, n, dtype=a.dtype), a.shape[:-2] + (m, n))
    return _apply_reflectors(a, tau, eye, True, False)


# ================================================================== the product rule on tensors


def _reflector_vectors(a: Tensor, k: int) -> Tensor:
    m = a.shape[-2]
    return a[..., :, :k].tril(-1) + wrap(xp.eye(m, k, dtype=a._data.dtype))


def _householder_vjp(a: Tensor, tau: Tensor, gq: Tensor, ncols: int):
    """(gA, gtau) for Q[:, :ncols] = H_1 ... H_k E, from gQ (..., m, ncols); formulas in the module docstring."""
    m, n = a.shape[-2], a.shape[-1]
    k = tau.shape[-1]
    dtype = a._data.dtype
    vs = _reflector_vectors(a, k)
    eye = wrap(xp.eye(m, dtype=dtype))
    reflectors = []
    for i in range(k):
        v = vs[..., :, i:i + 1]
        reflectors.append(eye - tau[..., i:i + 1].unsqueeze(-1) * matmul(v, v.mH))
    prefixes = [eye]
    for i in range(k - 1):
        prefixes.append(matmul(prefixes[-1], reflectors[i]))
    suffix = wrap(xp.eye(m, ncols, dtype=dtype))
    gvs, gtaus = [None] * k, [None] * k
    for i in range(k - 1, -1, -1):
        g = matmul(matmul(prefixes[i].mH, gq), suffix.mH)
        v = vs[..., :, i:i + 1]
        t = tau[..., i:i + 1].unsqueeze(-1)
        gtaus[i] = -matmul(v.mH, matmul(g, v))[..., 0, 0]
        gvs[i] = -t.conj() * matmul(g, v) - t * matmul(g.mH, v)
        suffix = matmul(reflectors[i], suffix)
    from .join_split import cat, stack

    if k == 0:
        return wrap(xp.zeros(tuple(a.shape), dtype=dtype)), wrap(xp.zeros(tuple(tau.shape), dtype=dtype))
    ga = cat(gvs, -1).tril(-1)
    if n > k:
        ga = cat([ga, wrap(xp.zeros(tuple(a.shape[:-1]) + (n - k,), dtype=dtype))], -1)
    return ga, stack(gtaus, -1)


# ================================================================== householder_product


@register
class LinalgHouseholderProductBackward0(Op):
    """linalg.householder_product(A, tau): the first n columns of H_1 ... H_k; gradient in the module docstring."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, tau):
        return _householder_arrays(a, tau)

    def backward(self, g):
        a, tau = self.saved()[:2]
        ga, gtau = _householder_vjp(a, tau, g, a.shape[-1])
        return (ga if self.needs_input_grad(0) else None), (gtau if self.needs_input_grad(1) else None)


def _check_reflectors(name: str, a: Tensor, tau: Tensor) -> None:
    if a.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if tau.dim() != a.dim() - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {a.dim()}")
    if a._data.dtype != tau._data.dtype:
        raise RuntimeError(f"{name}: tau dtype {_type_name(tau._data.dtype)} does not match input dtype "
                           f"{_type_name(a._data.dtype)}")


def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:  # noqa: N803 - torch's name
    """torch.linalg.householder_product(A, tau): the first n columns of the product of the Householder reflectors
    of A (..., m, n) (m >= n) and tau (..., k) (k <= n), as geqrf returns them; LAPACK orgqr.

    Raises:
        RuntimeError: fewer than 2 dims, m < n, k > n, tau's dims, dtypes or batch dims mismatched (torch's texts).
    """
    name = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if A.shape[-1] < tau.shape[-1] if tau.dim() else False:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    _check_reflectors(name, A, tau)
    if tuple(A.shape[:-2]) != tuple(tau.shape[:-1]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    return apply(LinalgHouseholderProductBackward0, (A, tau))


def orgqr(input: Tensor, tau: Tensor) -> Tensor:  # noqa: A002 - torch's name
    """torch.orgqr: an alias of linalg.householder_product."""
    return householder_product(input, tau)


# ================================================================== ormqr


@register
class OrmqrBackward0(Op):
    """ormqr(A, tau, C, left, transpose): op(Q) C or C op(Q); gradients in the module docstring."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, tau, c, left, transpose):
        return _apply_reflectors(a, tau, c, left, transpose)

    def backward(self, g):
        a, tau, c = self.saved()[:3]
        left, transpose = self._params
        gc = apply(OrmqrBackward0, (a, tau, g), (left, not transpose)) if self.needs_input_grad(2) else None
        ga = gtau = None
        if self.needs_input_grad(0) or self.needs_input_grad(1):
            # the gradient of op(Q): X = op(Q) C -> g C^H; X = C op(Q) -> C^H g; op = ^H transposes it back
            g_op = matmul(g, c.mH) if left else matmul(c.mH, g)
            gq = g_op.mH if transpose else g_op
            ga, gtau = _householder_vjp(a, tau, gq, a.shape[-2])
        return ga, gtau, gc


def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False, *,  # noqa: A002
          out=None) -> Tensor:
    """torch.ormqr(A, tau, C, left=True, transpose=False): Q C (Q^H C with ``transpose``; C Q, C Q^H with
    ``left=False``) for Q the (m x m) product of the reflectors of A (..., m, n) and tau (..., k), as geqrf's.

    Raises:
        RuntimeError: fewer than 2 dims, mismatched shapes, dtypes or tau's length (torch's texts).
    """
    a, tau, c = input, input2, input3
    name = "torch.ormqr"
    if a.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if c.dim() < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if c.shape[side] != a.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.dim() and tau.shape[-1] != min(c.shape[side], a.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if tau.dim() != a.dim() - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {a.dim()}")
    if c.dim() != a.dim():
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {c.dim()} and input.ndim is equal to {a.dim()}")
    for label, t in (("tau", tau), ("other", c)):
        if t._data.dtype != a._data.dtype:
            raise RuntimeError(f"{name}: Expected input and {label} to have the same dtype, but input has dtype "
                               f"{_type_name(a._data.dtype)} and {label} has dtype {_type_name(t._data.dtype)}")
    return apply(OrmqrBackward0, (a, tau, c), (bool(left), bool(transpose)))


# ================================================================== geqrf


def _geqrf_arrays(a):
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size == 0:
        return xp.array(a, copy=True), xp.zeros(a.shape[:-2] + (k,), dtype=a.dtype)
    work = a.astype(xp.complex128 if a.dtype.kind == "c" else xp.float64)
    h, tau = xp.linalg.qr(work, mode="raw")  # LAPACK geqrf, its (..., n, m) Fortran-order output
    return xp.swapaxes(h, -1, -2).astype(a.dtype), tau.astype(a.dtype)


def geqrf(input: Tensor, *, out=None):  # noqa: A002 - torch's name
    """torch.geqrf(A): (a, tau), LAPACK geqrf's packed QR of A (..., m, n): R on and above the diagonal, the
    Householder vectors below it, tau (..., min(m, n)). Not differentiable (as torch's).

    Raises:
        RuntimeError: fewer than 2 dims (torch's text); NotImplementedError for integer input.
    """
    d = input._data
    if d.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f"\"geqrf_cpu\" not implemented for '{_type_name(d.dtype)}'")
    a, tau = _geqrf_arrays(d)
    return _returned("geqrf", ("a", "tau"), (wrap(a), wrap(tau)))


EXPORTS: dict = {"geqrf": geqrf, "ormqr": ormqr, "orgqr": orgqr}
TENSOR_METHODS: dict = {"geqrf": geqrf, "ormqr": ormqr, "orgqr": orgqr}
LINALG_EXPORTS: dict = {"householder_product": householder_product}
