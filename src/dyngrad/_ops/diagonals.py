"""Diagonals and triangles: diagonal (a view), diag, diag_embed, triu and tril.

Each backward is the inverse movement of the gradient (derivatives.yaml).
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor, _wrap_dim
from .registry import Op, apply, register
from .shape import _mark_view, reshape


# --------------------------------------------------------------- diagonals
def _diag_len(shape, offset, d1, d2) -> int:
    if offset >= 0:
        return max(min(shape[d1], shape[d2] - offset), 0)
    return max(min(shape[d1] + offset, shape[d2]), 0)


def _diag_embed_array(g, shape, offset, d1, d2):
    """Zeros of ``shape`` whose (offset, d1, d2) diagonal is ``g`` (diagonal's last dim)."""
    out = xp.zeros(shape, dtype=g.dtype)
    view = xp.diagonal(out, offset, d1, d2)
    view.flags.writeable = True  # NumPy's diagonal views are read-only by policy, not by necessity
    view[...] = g
    return out


@register
class DiagonalBackward0(Op):
    """diagonal(offset, dim1, dim2): a view; the gradient is put back on the diagonal of zeros
    (derivatives.yaml: diagonal_backward)."""

    @staticmethod
    def forward(a, offset, d1, d2, in_shape):
        v = xp.diagonal(a, offset, d1, d2)
        if a.flags.writeable:  # a view that can be written through, as torch's (NumPy makes it read-only)
            v.flags.writeable = True
        return v

    def backward(self, g):
        offset, d1, d2, shape = self._params
        return (apply(DiagonalBackwardBackward0, (g,), (shape, offset, d1, d2)),)


@register
class DiagonalBackwardBackward0(Op):
    """diagonal's backward as an op (zeros with the gradient on a diagonal); its own backward is diagonal."""

    @staticmethod
    def forward(g, shape, offset, d1, d2):
        return _diag_embed_array(g, shape, offset, d1, d2)

    def backward(self, gg):
        shape, offset, d1, d2 = self._params
        return (xp_diagonal(gg, offset, d1, d2),)


class _DiagonalCopy(DiagonalBackward0):
    @staticmethod
    def forward(a, offset, d1, d2, in_shape):
        return xp.diagonal(a, offset, d1, d2).copy()


_DiagonalCopy.__name__ = _DiagonalCopy.__qualname__ = "DiagonalBackward0_copy"
register(_DiagonalCopy)


def xp_diagonal(a: Tensor, offset: int, d1: int, d2: int) -> Tensor:
    return apply(DiagonalBackward0, (a,), (offset, d1, d2, a._data.shape))


def diagonal(a: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    n = a._data.ndim
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _mark_view(apply(DiagonalBackward0, (a,), (offset, d1, d2, a._data.shape)), a)


@register
class DiagEmbedBackward0(Op):
    """diag_embed(offset, dim1, dim2): the last dim placed on a diagonal of zeros; the gradient is that diagonal."""

    @staticmethod
    def forward(a, offset, d1, d2, out_shape):
        return _diag_embed_array(xp.moveaxis(a, -1, -1), out_shape, offset, d1, d2)

    def backward(self, g):
        offset, d1, d2, _ = self._params
        return (xp_diagonal(g, offset, d1, d2),)


def diag_embed(a: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    n = a._data.ndim + 1
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape = list(a._data.shape[:-1]) if a._data.ndim else []
    m = (a._data.shape[-1] if a._data.ndim else 1) + abs(offset)
    lo, hi = sorted((d1, d2))
    shape.insert(lo, m)
    shape.insert(hi, m)
    src = a if a._data.ndim else reshape(a, 1)
    return apply(DiagEmbedBackward0, (src,), (offset, d1, d2, tuple(shape)))


def diag(a: Tensor, diagonal: int = 0) -> Tensor:
    """diag: a 1-D input becomes a matrix (DiagEmbedBackward0); a 2-D input gives its diagonal (a copy)."""
    n = a._data.ndim
    if n == 1:
        return diag_embed(a, diagonal, 0, 1)
    if n != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{n}D")
    return apply(_DiagonalCopy, (a,), (diagonal, 0, 1, a._data.shape))


@register
class TriuBackward0(Op):
    """triu(diagonal): zeros below the diagonal; the gradient is triu of the gradient."""

    @staticmethod
    def forward(a, k):
        return xp.triu(a, k)

    def backward(self, g):
        return (apply(TriuBackward0, (g,), self._params),)


@register
class TrilBackward0(Op):
    """tril(diagonal): zeros above the diagonal; the gradient is tril of the gradient."""

    @staticmethod
    def forward(a, k):
        return xp.tril(a, k)

    def backward(self, g):
        return (apply(TrilBackward0, (g,), self._params),)


def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    if a._data.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return apply(TriuBackward0, (a,), (diagonal,))


def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    if a._data.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return apply(TrilBackward0, (a,), (diagonal,))


# ------------------------------------------------------------------ registration
EXPORTS: dict = {name: globals()[name] for name in "diag diagonal diag_embed triu tril".split()}  # dyngrad.<name>
TENSOR_METHODS: dict = dict(EXPORTS)  # Tensor.<name>
