"""dyngrad.nn.utils.rnn (torch.nn.utils.rnn): pad_sequence, PackedSequence and the (un)packing functions."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable

from ... import _creation
from ..._backend import xp
from ..._dtype import int64 as _int64
from ..._ops.packed import pack_rows
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


# ------------------------------------------------------------------ packed sequences


PackedSequence_ = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(PackedSequence_):
    """A batch of variable-length sequences packed time step by time step (torch.nn.utils.rnn.PackedSequence).

    ``data`` (sum(lengths), *): at step t the first ``batch_sizes[t]`` sequences (sorted by decreasing length)
    each give one row. ``batch_sizes`` (int64, on the CPU); ``sorted_indices`` maps sorted position to
    original batch index and ``unsorted_indices`` back (both None when the input was already sorted).
    Build it with pack_padded_sequence / pack_sequence, not directly.
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # torch also accepts PackedSequence(*(data, batch_sizes)) as one tuple
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def _cast(self, method: str):
        return type(self)(getattr(self.data, method)(), self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def double(self):
        return self._cast("double")

    def float(self):
        return self._cast("float")

    def half(self):
        return self._cast("half")

    def long(self):
        return self._cast("long")

    def int(self):
        return self._cast("int")

    def cpu(self, *args, **kwargs):
        return self

    def detach(self):
        return self._cast("detach")

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation):
    """The inverse of a permutation tensor (torch.nn.utils.rnn.invert_permutation); None stays None."""
    if permutation is None:
        return None
    inverse = xp.empty_like(permutation._data)
    inverse[permutation._data] = xp.arange(permutation.numel(), dtype=inverse.dtype)
    return _creation.tensor(inverse)


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,  # noqa: A002 - torch's name
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded (T, B, *) batch ((B, T, *) with ``batch_first``) of sequences of the given ``lengths``.

    ``lengths``: a list or a 1-D tensor of B lengths (converted to int64, as torch), each in [1, T]. With ``enforce_sorted`` they must
    be in decreasing order; otherwise the batch is sorted first and the permutation kept in the result.
    The data's grad_fn is PackPaddedSequenceBackward0 (torch's). Errors as torch (RuntimeError for unsorted
    lengths, a length <= 0, a wrong number of lengths or a lengths tensor that is not 1-D). A length above T is
    an IndexError: torch does not check it and reads past the input.
    """
    if isinstance(lengths, Tensor):
        lengths_arr = lengths._data.astype(xp.int64)  # torch converts with lengths.to(torch.int64) first
        if lengths_arr.ndim != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths_arr.ndim}D cpu "
                               "Long tensor")
    else:
        lengths_arr = xp.asarray(list(lengths), dtype=xp.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        order = xp.argsort(-lengths_arr, kind="stable")
        lengths_arr = lengths_arr[order]
        sorted_indices = _creation.tensor(order.astype(xp.int64))
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    batch = input.shape[1]
    if lengths_arr.size != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths_arr.size} "
                           f"(batch_size={batch})")
    if lengths_arr.size and lengths_arr[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if enforce_sorted and (xp.diff(lengths_arr) > 0).any():
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
            "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if "
            "you do not need ONNX exportability.")
    data, batch_sizes = pack_rows(input, lengths_arr)
    return PackedSequence(data, _creation.tensor(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple:
    """The inverse of pack_padded_sequence: (padded (T, B, *) or (B, T, *), lengths int64 tensor (B,)).

    Rows past each sequence's length hold ``padding_value``; ``total_length`` pads T further (ValueError,
    torch's text, when it is shorter than the longest sequence). The original batch order is restored.
    """
    batch_sizes = sequence.batch_sizes._data
    max_len = batch_sizes.size
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_len}")
    T = max_len if total_length is None else total_length
    data = sequence.data
    B = int(batch_sizes[0]) if max_len else 0
    out = _creation.full((T, B, *data.shape[1:]), padding_value, dtype=data.dtype)
    # one copy per run of equal batch sizes, as aten's _pad_packed_sequence (CopySlices nodes)
    offset, t = 0, 0
    while t < max_len:
        n = int(batch_sizes[t])
        run = 1
        while t + run < max_len and int(batch_sizes[t + run]) == n:
            run += 1
        block = data.narrow(0, offset, n * run).view(run, n, *data.shape[1:])
        out.narrow(0, t, run).narrow(1, 0, n).copy_(block)
        offset += n * run
        t += run
    lengths = xp.array([(batch_sizes > b).sum() for b in range(B)], dtype=xp.int64)
    if batch_first:
        out = out.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        out = out.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices._data]
    return out, _creation.tensor(lengths)


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of (L_i, *) tensors: pad_sequence then pack_padded_sequence (torch's composition)."""
    lengths = _creation.tensor([s.size(0) for s in sequences], dtype=_int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of (L_i, *) tensors packed in ``packed_sequences``, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return [padded[i][: int(n)] for i, n in enumerate(lengths.tolist())]


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """The list of (L_i, *) tensors of a padded batch, cut to ``lengths``."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[: int(n)] for seq, n in zip(padded_sequences, lengths.tolist())]
