"""torch.linalg.lstsq: least-squares solutions of A X = B, with the outputs of torch's CPU drivers.

The solution is the minimum-norm least-squares one, X = pinv(A) B, with singular values below
rcond * s_max counted as zero (rcond defaults to eps * max(m, n)): what LAPACK's gels (full rank), gelsy,
gelsd and gelss return for matrices of the rank they find. The other outputs follow torch's per-driver rules:
- residuals (..., k): the squared column norms of A X - B, for m > n, a full-rank A and a driver other than
  gelsy (torch's default); otherwise empty;
- rank (batch of A): gelsy, gelsd, gelss; empty for gels;
- singular_values (batch of A, min(m, n)): gelsd and gelss; otherwise empty.

Gradients (derivatives.yaml linalg_lstsq, FunctionsManual linalg_lstsq_backward: through the pseudo-inverse
P = pinv(A)): gB = P^H gX, gA = pinv_backward(gX B^H) (Golub & Pereyra 1973, linalg.py's LinalgPinvBackward0).
The residuals r = |A X - B|^2 (columnwise) at the optimum (where A^H (A X - B) = 0) add gA += 2 (R gr) X^H and
gB -= 2 R gr with R = A X - B. Both are written with dyngrad ops, so they are differentiable again.
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from .broadcast import broadcast_shape
from .linalg import _apply_saving_outputs, _returned, _saved_outputs, pinv
from .matmul import _type_name, matmul
from .registry import Op, register

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _pinv_vjp(a: Tensor, p: Tensor, g: Tensor) -> Tensor:
    """The gradient of A for a gradient g of P = pinv(A) (LinalgPinvBackward0's arrangement)."""
    m, n = a.shape[-2], a.shape[-1]
    ph, gh = p.mH, g.mH
    if m <= n:
        k = matmul(gh, p)
        kph = matmul(k, ph)
        return -matmul(p, k).mH + kph - matmul(matmul(a, p), kph) + matmul(matmul(ph, p), gh - matmul(k, a))
    k = matmul(p, gh)
    phk = matmul(ph, k)
    return -matmul(k, p).mH + matmul(matmul(gh - matmul(a, k), p), ph) + phk - matmul(matmul(phk, p), a)


def _solve_arrays(a, b, rcond):
    """(X, singular values, rank) of the minimum-norm least-squares problem, batched (batch dims broadcast)."""
    m, n = a.shape[-2:]
    k = b.shape[-1]
    batch = xp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if a.size == 0 or b.size == 0 or min(m, n) == 0:
        s = xp.zeros(a.shape[:-2] + (min(m, n),), dtype=xp.finfo(a.dtype).dtype)
        return xp.zeros(batch + (n, k), dtype=a.dtype), s, xp.zeros(a.shape[:-2], dtype=xp.int64)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    cut = rcond * s[..., :1]
    keep = s > cut
    sinv = xp.where(keep, 1 / xp.where(s == 0, 1, s), 0)
    uhb = xp.swapaxes(u.conj(), -1, -2) @ b
    x = xp.swapaxes(vh.conj(), -1, -2) @ (sinv[..., :, None] * uhb)
    return x.astype(a.dtype), s, keep.sum(-1).astype(xp.int64)


@register
class LinalgLstsqBackward0(Op):
    """linalg.lstsq(A, B): (solution, residuals); gradients in the module docstring."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, b, rcond, with_residuals):
        x, _, _ = _solve_arrays(a, b, rcond)
        if with_residuals:
            r = a @ x - b
            residuals = (r.real ** 2 + r.imag ** 2).sum(-2) if r.dtype.kind == "c" else (r ** 2).sum(-2)
        else:
            residuals = xp.zeros((0,), dtype=xp.finfo(a.dtype).dtype)
        return x, residuals.astype(xp.finfo(a.dtype).dtype)

    def backward(self, gx, gr):
        a, b = self.saved()[:2]
        _rcond, with_residuals = self._params
        x = _saved_outputs(self, 2)[0]
        p = pinv(a)
        gb = matmul(p.mH, gx)
        ga = _pinv_vjp(a, p, matmul(gx, b.mH))
        if with_residuals and gr is not None and bool(xp.any(gr._data)):
            r = matmul(a, x) - b
            weighted = r * gr.unsqueeze(-2)
            ga = ga + 2 * matmul(weighted, x.mH)
            gb = gb - 2 * weighted
        return (ga if self.needs_input_grad(0) else None), (gb if self.needs_input_grad(1) else None)


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):  # noqa: N803 - torch's names
    """torch.linalg.lstsq(A, B, rcond=None, driver=None): (solution, residuals, rank, singular_values) of
    min |A X - B| for A (..., m, n) and B (..., m, k) or (..., m) (a vector when B is 1-D or has A's shape without its last dim);
    batch dims broadcast. Output rules per driver in the module docstring; rank int64, residuals and singular
    values real.

    Raises:
        RuntimeError: fewer than 2 dims, B with more dims than A (or two fewer), mismatched rows or dtypes, an unknown driver (torch's texts).
    """
    name = "torch.linalg.lstsq"
    ad, bd = A._data, B._data
    if ad.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if bd.ndim < 1:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    if ad.dtype != bd.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{_type_name(ad.dtype)} and other's dtype {_type_name(bd.dtype)}")
    if not (0 <= ad.ndim - bd.ndim <= 1):
        raise RuntimeError(f"{name}: input.dim() must be greater or equal to other.dim() and (input.dim() - "
                           "other.dim()) <= 1")
    vector = bd.ndim == 1 or tuple(bd.shape) == tuple(ad.shape[:-1])  # (torch's linalg_solve_is_vector_rhs)
    if vector:
        B = B.unsqueeze(-1)  # noqa: N806
        bd = B._data
    if bd.shape[-2] != ad.shape[-2]:
        raise RuntimeError(f"{name}: input.{'size(-1)' if vector else 'size(-2)'} should match "
                           f"other.{'size(-1)' if vector else 'size(-2)'}")
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if ad.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"{name}: Expected input and other to have a floating point or complex dtype")
    broadcast_shape(ad.shape[:-2], bd.shape[:-2])
    m, n = ad.shape[-2:]
    real = xp.finfo(ad.dtype).dtype
    eps = float(xp.finfo(ad.dtype).eps)
    rcond_v = eps * max(m, n) if rcond is None or rcond < 0 else float(rcond)
    _, s, rank = _solve_arrays(ad, bd, rcond_v) if ad.size and bd.size else (
        None, xp.zeros(ad.shape[:-2] + (min(m, n),), real), xp.zeros(ad.shape[:-2], xp.int64))
    full_rank = bool(xp.all(rank == min(m, n))) if rank.size else True
    with_residuals = m > n and driver != "gelsy" and full_rank and ad.size > 0
    x, residuals = _apply_saving_outputs(LinalgLstsqBackward0, (A, B), (rcond_v, with_residuals))
    if vector:
        x = x.squeeze(-1)
        if with_residuals:
            residuals = residuals.squeeze(-1)
    rank_t = wrap(rank) if driver != "gels" else wrap(xp.zeros((0,), xp.int64))
    singular = wrap(s.astype(real)) if driver in ("gelsd", "gelss") else wrap(xp.zeros((0,), real))
    return _returned("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"),
                     (x, residuals, rank_t, singular))


LINALG_EXPORTS: dict = {"lstsq": lstsq}
