"""torch.svd_lowrank and torch.pca_lowrank: randomized low-rank SVD (Halko, Martinsson & Tropp, "Finding structure
with randomness", arXiv:0909.4061, 2009, algorithms 4.4 and 5.1), as torch/_lowrank.py runs it.

A (..., m, n) (its adjoint when m < n) is multiplied by a Gaussian (n, q) matrix drawn from dyngrad's random
stream, the range is refined by ``niter`` power iterations with a QR at every step, and the SVD of the small
projection Q^H A gives U = Q U_B, S, V. Everything is dyngrad ops, so the gradient flows through QR, SVD and the
products (grad_fns MmBackward0 / LinalgSvdBackward0 / TransposeBackward0, as torch's).
"""

from __future__ import annotations

from .._tensor import Tensor


def _approximate_basis(a: Tensor, q: int, niter: int, m_matrix=None) -> Tensor:
    import dyngrad

    dtype = a.dtype if (a.is_complex() or a.dtype.is_floating_point) else dyngrad.float32
    r = dyngrad.randn(a.shape[-1], q, dtype=dtype)
    x = a.matmul(r)
    if m_matrix is not None:
        x = x - m_matrix.matmul(r)
    basis = dyngrad.linalg.qr(x).Q
    for _ in range(niter):
        x = a.mH.matmul(basis)
        if m_matrix is not None:
            x = x - m_matrix.mH.matmul(basis)
        basis = dyngrad.linalg.qr(x).Q
        x = a.matmul(basis)
        if m_matrix is not None:
            x = x - m_matrix.matmul(basis)
        basis = dyngrad.linalg.qr(x).Q
    return basis


def _svd_lowrank(a: Tensor, q, niter, m_matrix=None):
    import dyngrad

    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = a.shape[-2:]  # (unpacked as torch's: its ValueError for a shape of one dimension)
    if m_matrix is not None:
        m_matrix = m_matrix.broadcast_to(a.shape)
    if m < n:
        a = a.mH
        if m_matrix is not None:
            m_matrix = m_matrix.mH
    basis = _approximate_basis(a, q, niter, m_matrix)
    b = basis.mH.matmul(a)
    if m_matrix is not None:
        b = b - basis.mH.matmul(m_matrix)
    u, s, vh = dyngrad.linalg.svd(b, full_matrices=False)
    v = vh.mH
    u = basis.matmul(u)
    if m < n:
        u, v = v, u
    return u, s, v


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None):  # noqa: N803
    """torch.svd_lowrank(A, q=6, niter=2, M=None): (U, S, V) with A - M ~ U diag(S) V^H, U (..., m, q),
    S (..., q), V (..., n, q); randomized (the draw comes from dyngrad's generator)."""
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2):  # noqa: N803
    """torch.pca_lowrank(A, q=None, center=True, niter=2): svd_lowrank of A minus its column means (``center``),
    q defaulting to min(6, m, n).

    Raises:
        ValueError: q outside [0, min(m, n)], a negative niter (torch's texts)."""
    m, n = A.shape[-2:]  # (unpacked as torch's: its ValueError for a shape of one dimension)
    if q is None:
        q = min(6, m, n)
    elif not (0 <= q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter)
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter)


EXPORTS: dict = {"svd_lowrank": svd_lowrank, "pca_lowrank": pca_lowrank}
