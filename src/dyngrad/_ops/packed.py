"""The packing kernel of torch.nn.utils.rnn: ``_pack_padded_sequence`` as one node (PackPaddedSequenceBackward0).

A padded (T, B, *) input whose sequences are sorted by decreasing length packs into (sum(lengths), *) rows,
time step by time step: step t contributes its first batch_sizes[t] rows (aten's _pack_padded_sequence).
Backward (derivatives.yaml: _pack_padded_sequence_backward) scatters the packed gradient back into zeros of
the padded shape; written with dyngrad ops (index_add), so it differentiates again.
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor, wrap
from .registry import Op, apply, register


def _flat_rows(lengths, T: int, B: int):
    """Row numbers (t * B + b) of the padded (T*B) rows that are packed, in packed order; and batch_sizes."""
    lengths = xp.asarray(lengths)
    batch_sizes = xp.array([(lengths > t).sum() for t in range(int(lengths.max()))], dtype=xp.int64)
    rows = xp.concatenate([t * B + xp.arange(n) for t, n in enumerate(batch_sizes)]) if batch_sizes.size else \
        xp.zeros(0, dtype=xp.int64)
    return rows.astype(xp.int64), batch_sizes


@register
class PackPaddedSequenceBackward0(Op):
    """Gather the packed rows of a (T, B, *) input (params: the flat row numbers)."""

    @staticmethod
    def forward(a, rows, shape):
        return a.reshape(a.shape[0] * a.shape[1], *a.shape[2:])[rows]

    def backward(self, g):
        rows, shape = self._params
        flat = wrap(xp.zeros((shape[0] * shape[1], *shape[2:]), dtype=g._data.dtype))
        return (flat.index_add(0, wrap(rows), g).reshape(shape),)


def pack_rows(input: Tensor, lengths) -> tuple:
    """(packed data, batch_sizes array) of a time-major (T, B, *) input sorted by decreasing ``lengths``."""
    T, B = input.shape[0], input.shape[1]
    rows, batch_sizes = _flat_rows(lengths, T, B)
    return apply(PackPaddedSequenceBackward0, (input,), (rows, tuple(input.shape))), batch_sizes
