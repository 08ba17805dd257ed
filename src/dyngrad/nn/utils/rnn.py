"""dyngrad.nn.utils.rnn (torch.nn.utils.rnn): pad_sequence."""

from __future__ import annotations

from collections.abc import Iterable

from ... import _creation
from ..._tensor import Tensor


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths (L_i, *) into one (T, B, *) tensor (B, T, * if ``batch_first``).

    As aten's ``pad_sequence``: the output is ``full(padding_value)`` in the first sequence's dtype (so an
    integer output truncates the padding value, and later sequences are cast), and each sequence is copied
    into its slot, at the start (``padding_side='right'``) or the end ('left'): the grad_fn is CopySlices.
    Errors as torch: RuntimeError for a non-iterable, an empty list, a 0-d sequence, a bad ``padding_side``
    and trailing sizes that do not match the first sequence's.
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    first = sequences[0]
    if first.dim() == 0:  # aten slices the first sequence's sizes past its length
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = tuple(first.shape[1:])
    max_len = max(s.size(0) for s in sequences)
    lead = (len(sequences), max_len) if batch_first else (max_len, len(sequences))
    out = _creation.full(lead + trailing, padding_value, dtype=first.dtype)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    for i, seq in enumerate(sequences):
        n = seq.size(0)
        start = max_len - n if padding_side == "left" else 0
        slot = out.select(0, i).narrow(0, start, n) if batch_first else out.narrow(0, start, n).select(1, i)
        slot.copy_(seq)  # copy_ raises torch's errors for trailing sizes that do not fit
    return out
