"""Embedding lookup (``F.embedding``, aten/src/ATen/native/Embedding.cpp): EmbeddingBackward0, padding_idx,
max_norm renormalisation and scale_grad_by_freq."""

from __future__ import annotations

from .._backend import index_add, xp
from .._tensor import wrap
from .nn_kernels import _type_name
from .registry import Op, apply, register

# ------------------------------------------------------------------ embedding


@register
class EmbeddingBackward0(Op):
    """embedding(weight, indices, padding_idx): rows of ``weight`` picked by integer ``indices``.

    Backward (embedding_dense_backward): the gradient rows summed into zeros shaped as weight at
    their indices; rows of ``padding_idx`` get none; with ``scale_grad_by_freq`` each row's gradient
    is divided by how often its index occurs. Params: (indices array, padding_idx or None, scale_grad_by_freq).
    """

    # torch has no complex formula for embedding_dense_backward: a complex weight that requires grad is
    # refused with its text (Note [Complex gradients])
    complex_grad = False

    @staticmethod
    def forward(w, idx, padding_idx, scale_grad_by_freq):
        return w[idx]

    def _grad_rows(self, g_dtype):
        """The flat indices, and a per-row factor (0 at padding_idx, 1 / frequency with scale_grad_by_freq) or None."""
        idx, padding_idx, by_freq = self._params
        flat = idx.reshape(-1)
        keep = None if padding_idx is None else (flat != padding_idx).astype(g_dtype)
        if by_freq:
            counts = xp.bincount(flat, minlength=self._meta_w[0])
            scale = (1 / counts[flat]).astype(g_dtype)
            keep = scale if keep is None else keep * scale
        return flat, keep

    def backward(self, g):
        d = g._data.shape[-1]
        flat, keep = self._grad_rows(g._data.dtype)
        g2 = g.reshape((-1, d))
        if keep is not None:
            g2 = g2 * wrap(keep[:, None])
        from .indexing import index_backward

        return (index_backward(g2, self._meta_w, (flat,), True),)

    def backward_arrays(self, g):
        d = g.shape[-1]
        flat, keep = self._grad_rows(g.dtype)
        g2 = g.reshape(-1, d)
        if keep is not None:
            g2 = g2 * keep[:, None]
        out = xp.zeros(self._meta_w, dtype=g.dtype)
        index_add(out, flat, g2)
        return (wrap(out),)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,  # noqa: A002
              scale_grad_by_freq: bool = False, sparse: bool = False):
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    n = weight._data.shape[0]
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < n, "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -n, "Padding_idx must be within num_embeddings"
            padding_idx = n + padding_idx
    idx = input._data
    if idx.dtype not in (xp.int64, xp.int32):
        kind = f"torch.{_type_name(idx)}Tensor"
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            f"{kind} instead (while checking arguments for embedding)"
        )
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if max_norm is not None:  # renormalise the looked-up rows in place, outside autograd (as torch)
        rows = xp.unique(idx)
        wd = weight._data
        norms = (xp.abs(wd[rows]) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
        scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(wd.dtype)
        wd[rows] *= scale[:, None]
        weight._vc[0] += 1
    out = apply(EmbeddingBackward0, (weight,), (idx, padding_idx, bool(scale_grad_by_freq)))
    if out._grad_fn is not None:
        out._grad_fn._meta_w = weight._data.shape
    return out


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.nn.functional; __init__.py, _tensor_methods.py and nn/functional.py merge these.
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {  # dyngrad.nn.functional.<name>
    "embedding": embedding,
}
