"""embedding_bag: sums, means or maxima of bags of embedding rows (aten/src/ATen/native/EmbeddingBag.cpp;
torch.nn.functional.embedding_bag's argument handling)."""

from __future__ import annotations

import warnings

from .._backend import xp
from .._dtype import FLOATING_KINDS
from .._tensor import wrap
from . import pointwise as pw
from . import reduction as red
from . import shape as sh
from .indexing import index_add, index_select
from .nn_kernels import _type_name
from .registry import Op, apply, register

_MODES = ("sum", "mean", "max")


def _bag_layout(idx, offsets, include_last_offset: bool, padding_idx, honour_last_offset: bool):
    """(bag of each index (-1 where the index is padding_idx or past the last offset), number of bags).

    torch 2.13 honours a last offset short of the input's length only in its float32 (fbgemm) kernel; its
    float64 kernel runs the last bag to the end of the input: ``honour_last_offset`` follows it.
    """
    n = idx.shape[0]
    bags = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
    starts = offsets[:bags]
    bag = xp.searchsorted(starts, xp.arange(n), side="right") - 1  # the last bag starting at or before i
    if include_last_offset and honour_last_offset and bags >= 0 and offsets.shape[0]:
        bag = xp.where(xp.arange(n) >= offsets[-1], -1, bag)
    if padding_idx is not None:
        bag = xp.where(idx == padding_idx, -1, bag)
    return bag, max(bags, 0)


@register
class EmbeddingBagBackward0(Op):
    """_embedding_bag(weight, indices, offsets, ..., mode, per_sample_weights): each bag's rows of ``weight``
    summed (times per_sample_weights), averaged, or maxed elementwise; empty bags give zeros; padding_idx rows
    are left out (not counted in a mean).

    Backward (aten's _embedding_bag_backward): grad_weight adds each bag's gradient into its rows (sum: times
    the sample weight; mean: over the bag's count; max: into the row that gave each maximum), divided with
    scale_grad_by_freq by torch's CPU kernel's frequencies (``_freq_divisors``); grad_per_sample_weights = <grad of the bag, row>. Written with
    Tensor ops. Params: (indices, bag of each index, number of bags, mode, scale_grad_by_freq).
    """

    save_inputs = True

    @staticmethod
    def forward(w, psw, idx, bag, nbags, mode, scale_grad_by_freq):
        kept = bag >= 0
        rows = w[idx[kept]]
        b = bag[kept]
        out = xp.zeros((nbags, w.shape[1]), dtype=w.dtype)
        if mode == "max":
            if rows.shape[0]:
                best = xp.full((nbags, w.shape[1]), -xp.inf, dtype=w.dtype)
                xp.maximum.at(best, b, rows)
                nonempty = xp.bincount(b, minlength=nbags) > 0
                out[nonempty] = best[nonempty]
            return out
        if psw is not None:
            rows = rows * psw[kept][:, None]
        xp.add.at(out, b, rows)
        if mode == "mean":
            count = xp.bincount(b, minlength=nbags).astype(w.dtype)
            out = out / xp.maximum(count, 1)[:, None]
        return out

    def _argmax(self):
        """For each (bag, column): the position in ``idx`` of the row that gave the maximum (the first one)."""
        w = self.saved()[0]._data
        idx, bag, nbags = self._params[:3]
        kept = xp.nonzero(bag >= 0)[0]
        rows = w[idx[kept]]
        best = xp.full((nbags, w.shape[1]), -xp.inf, dtype=w.dtype)
        xp.maximum.at(best, bag[kept], rows)
        first = xp.full((nbags, w.shape[1]), idx.shape[0], dtype=xp.int64)
        hit = rows == best[bag[kept]]
        pos = xp.where(hit, kept[:, None], idx.shape[0])
        xp.minimum.at(first, bag[kept], pos)
        return first

    def backward(self, g):
        w, psw = self.saved()
        idx, bag, nbags, mode, by_freq = self._params
        nf = self.next_functions
        kept = xp.nonzero(bag >= 0)[0]
        gw = gpsw = None
        if nf[0][0] is not None:
            zeros = pw.mul(w, 0)
            if mode == "max":
                first = self._argmax()
                cols = xp.arange(w._data.shape[1])
                bags_nonempty = xp.nonzero(first[:, 0] < idx.shape[0])[0]
                # one add per (bag, column): the bag's gradient into the row that gave its maximum
                flat_rows = idx[first[bags_nonempty]]  # (B', D)
                g_sel = index_select(g, 0, wrap(bags_nonempty))  # (B', D)
                onehot_key = flat_rows * w._data.shape[1] + cols[None, :]
                gw_flat = index_add(zeros.reshape((-1,)), 0, wrap(onehot_key.reshape(-1)), g_sel.reshape((-1,)))
                gw = gw_flat.reshape(w._data.shape)
            else:
                coef = xp.ones(kept.shape[0], dtype=w._data.dtype)
                if mode == "mean":
                    count = xp.bincount(bag[kept], minlength=nbags)
                    coef = coef / count[bag[kept]]
                if by_freq:
                    coef = coef / _freq_divisors(idx, w._data.shape[0])[idx[kept]]
                contrib = pw.mul(index_select(g, 0, wrap(bag[kept])), wrap(coef.astype(w._data.dtype)[:, None]))
                if psw is not None:
                    contrib = pw.mul(contrib, sh.unsqueeze(index_select(psw, 0, wrap(kept)), 1))
                gw = index_add(zeros, 0, wrap(idx[kept]), contrib)
        if psw is not None and nf[1][0] is not None:
            dots = red.sum(pw.mul(index_select(g, 0, wrap(bag[kept])), index_select(w, 0, wrap(idx[kept]))), -1)
            gpsw = index_add(pw.mul(psw, 0), 0, wrap(kept), dots)
        return gw, gpsw


def _freq_divisors(idx, num_weights: int):
    """What torch's CPU kernel divides each row's gradient by under scale_grad_by_freq, per row.

    aten's _embedding_bag_dense_backward_cpu walks the unique indices of the sorted ``indices`` and
    divides the i-th one's gradient by ``counts[sorted_indices[i]]`` (the count at the i-th sorted
    position, not the i-th unique index's own count). Both agree while every index occurs once; with
    repeats torch's gradient is what this gives (checked against torch in tests/test_nn_losses.py), so
    dyngrad reproduces it rather than the plain 1 / count of nn.Embedding.
    """
    counts = xp.bincount(idx, minlength=num_weights)
    ordered = xp.sort(idx)
    unique = xp.unique(ordered)
    divisors = xp.ones(num_weights, dtype=xp.int64)
    divisors[unique] = counts[ordered[: unique.shape[0]]]
    return divisors


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type: float = 2, scale_grad_by_freq: bool = False,  # noqa: A002
                  mode: str = "mean", sparse: bool = False, per_sample_weights=None, include_last_offset: bool = False,
                  padding_idx=None):
    """torch.nn.functional.embedding_bag: (B, D) sums / means / maxima of bags of rows of ``weight`` (V, D).

    ``input`` 2-D (B, L): B bags of L indices (offsets must be None); 1-D with ``offsets`` (B,) the start of each
    bag (and with include_last_offset the end of the last). per_sample_weights (mode 'sum' only) scales each row.
    padding_idx entries are left out of the bags. ValueError / NotImplementedError / RuntimeError with torch's
    texts. grad_fn EmbeddingBagBackward0.
    """
    if weight._data.dtype.kind in "iu" and input._data.dtype.kind in FLOATING_KINDS:
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must "
                         f"have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    idx = input._data
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed "
                             f"length sequences. However, found offsets of type {type(offsets)}")
        off = xp.arange(0, idx.size, idx.shape[1], dtype=xp.int64) if idx.shape[1] else xp.zeros(idx.shape[0], xp.int64)
        include_last_offset = False
        idx = idx.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape((-1,))
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        off = offsets._data
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    n = weight._data.shape[0]
    if idx.dtype not in (xp.int64, xp.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{_type_name(idx)}Tensor instead (while checking arguments for "
                           "embedding_bag)")
    if max_norm is not None:  # renormalise the looked-up rows in place, outside autograd (as torch)
        rows = xp.unique(idx)
        wd = weight._data
        norms = (xp.abs(wd[rows]) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
        wd[rows] *= xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(wd.dtype)[:, None]
        weight._vc[0] += 1
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if off.shape[0] and off[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {int(off[0])}")
    if off.shape[0] and off[-1] > idx.shape[0]:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {idx.shape[0]}, but got offsets[-1] of "
                           f"{int(off[-1])}")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = int(idx[(idx < 0) | (idx >= n)][0])
        raise IndexError(f"index {bad} is out of bounds for dimension 0 with size {n}")
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += n
    bag, nbags = _bag_layout(idx.astype(xp.int64), off.astype(xp.int64), include_last_offset, padding_idx,
                             weight._data.dtype == xp.float32)
    inputs = (weight, per_sample_weights)
    return apply(EmbeddingBagBackward0, inputs, (idx.astype(xp.int64), bag, nbags, mode, bool(scale_grad_by_freq)))


EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}
FUNCTIONAL_EXPORTS: dict = {"embedding_bag": embedding_bag}
