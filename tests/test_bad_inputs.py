"""Issue 12's "bad input" list, case by case against torch: the same error (type and text), or the same result.

Attention masks (shapes, dtypes) for scaled_dot_product_attention / MultiheadAttention / TransformerEncoderLayer,
packed-sequence lengths (unsorted with enforce_sorted, out of range, wrong count or type), hidden states of a
packed RNN, CTC target lengths, parametrizations of things that are not parameters, index_select's two texts.
(DataLoader workers that raise or die: tests/test_data_workers.py.)
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from conftest import both


def _qkv(lib, q_dtype="float64"):
    rng = np.random.default_rng(0)
    dt = getattr(lib, q_dtype)
    return [lib.tensor(rng.standard_normal(s), dtype=dt) for s in ((2, 4, 5, 8), (2, 4, 6, 8), (2, 4, 6, 8))]


def _sdpa(lib, mask_shape, mask_dtype, q_dtype="float64", **kw):
    q, k, v = _qkv(lib, q_dtype)
    mask = lib.zeros(mask_shape, dtype=getattr(lib, mask_dtype)) if mask_shape is not None else None
    return lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)


SDPA = {
    "bool_mask_bad_shape": lambda lib: _sdpa(lib, (3, 6), "bool"),
    "float_mask_bad_shape": lambda lib: _sdpa(lib, (5, 7), "float64"),
    "int64_mask": lambda lib: _sdpa(lib, (5, 6), "int64"),
    "uint8_mask": lambda lib: _sdpa(lib, (5, 6), "uint8"),
    "float64_mask_float32_query": lambda lib: _sdpa(lib, (5, 6), "float64", q_dtype="float32"),
    "float16_mask_float32_query": lambda lib: _sdpa(lib, (5, 6), "float16", q_dtype="float32"),
    "float32_mask_float64_query_ok": lambda lib: _sdpa(lib, (5, 6), "float32"),
    "mask_and_causal": lambda lib: _sdpa(lib, (5, 6), "float64", is_causal=True),
}


@pytest.mark.parametrize("case", list(SDPA))
def test_sdpa_masks(case) -> None:
    both(SDPA[case])


def _mha(lib, *, attn_mask=None, key_padding_mask=None, query_shape=(3, 5, 8), kv_shape=(3, 5, 8), **kw):
    lib.manual_seed(0)
    mha = lib.nn.MultiheadAttention(8, 2, batch_first=True).double()
    rng = np.random.default_rng(1)
    with lib.no_grad():
        for p in mha.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
    q = lib.tensor(rng.standard_normal(query_shape))
    kv = lib.tensor(rng.standard_normal(kv_shape))
    out, weights = mha(q, kv, kv, attn_mask=attn_mask, key_padding_mask=key_padding_mask, **kw)
    return out, weights


MHA = {
    "attn_mask_2d_bad": lambda lib: _mha(lib, attn_mask=lib.ones(4, 5, dtype=lib.bool)),
    "attn_mask_3d_bad": lambda lib: _mha(lib, attn_mask=lib.ones(3, 5, 5, dtype=lib.bool)),
    "attn_mask_4d": lambda lib: _mha(lib, attn_mask=lib.ones(1, 1, 5, 5, dtype=lib.bool)),
    "attn_mask_int64": lambda lib: _mha(lib, attn_mask=lib.ones(5, 5, dtype=lib.int64)),
    "attn_mask_uint8": lambda lib: _mha(lib, attn_mask=lib.zeros(5, 5, dtype=lib.uint8)),
    "attn_mask_float32_for_float64": lambda lib: _mha(lib, attn_mask=lib.zeros(5, 5)),
    "key_padding_mask_bad_shape": lambda lib: _mha(lib, key_padding_mask=lib.zeros(3, 4, dtype=lib.bool)),
    "key_padding_mask_int64": lambda lib: _mha(lib, key_padding_mask=lib.zeros(3, 5, dtype=lib.int64)),
    "key_padding_mask_uint8": lambda lib: _mha(lib, key_padding_mask=lib.zeros(3, 5, dtype=lib.uint8)),
    "mixed_mask_kinds": lambda lib: _mha(lib, key_padding_mask=lib.zeros(3, 5, dtype=lib.float64),
                                         attn_mask=lib.zeros(5, 5, dtype=lib.bool)),
    "is_causal_without_mask": lambda lib: _mha(lib, is_causal=True),
    "batch_mismatch": lambda lib: _mha(lib, kv_shape=(2, 5, 8)),
    "embed_mismatch": lambda lib: _mha(lib, query_shape=(3, 5, 7)),
    "four_d_query": lambda lib: _mha(lib, query_shape=(1, 3, 5, 8)),
    "heads_do_not_divide": lambda lib: lib.nn.MultiheadAttention(8, 3),
}


@pytest.mark.parametrize("case", list(MHA))
def test_multihead_attention_masks(case) -> None:
    both(MHA[case])


@pytest.mark.parametrize("which", ["src_mask", "src_key_padding_mask"])
def test_encoder_layer_mask_shapes(which) -> None:
    def program(lib):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dropout=0.0)
        x = lib.ones(3, 5, 8)
        mask = lib.ones(4, 4, dtype=lib.bool) if which == "src_mask" else lib.ones(3, 4, dtype=lib.bool)
        return layer(x, **{which: mask})

    both(program)


def _pack(lib, lengths, **kw):
    seq = lib.arange(24.0).reshape(3, 4, 2)
    packed = lib.nn.utils.rnn.pack_padded_sequence(seq, lengths, batch_first=True, **kw)
    return packed.data, packed.batch_sizes


PACK = {
    "unsorted_enforced": lambda lib: _pack(lib, lib.tensor([2, 4, 3])),
    "unsorted_list_enforced": lambda lib: _pack(lib, [2, 4, 3]),
    "unsorted_allowed": lambda lib: _pack(lib, [2, 4, 3], enforce_sorted=False),
    "zero_length": lambda lib: _pack(lib, [4, 3, 0]),
    "negative_length": lambda lib: _pack(lib, [4, 3, -1]),
    "too_few_lengths": lambda lib: _pack(lib, [4, 3]),
    "lengths_2d": lambda lib: _pack(lib, lib.tensor([[4, 3, 2]])),
    "lengths_2d_float": lambda lib: _pack(lib, lib.tensor([[4.0, 3.0, 2.0]])),
    "lengths_float_tensor": lambda lib: _pack(lib, lib.tensor([4.0, 3.0, 2.0])),
    "lengths_int32_tensor": lambda lib: _pack(lib, lib.tensor([4, 3, 2], dtype=lib.int32)),
    "lengths_fractional": lambda lib: _pack(lib, lib.tensor([4.7, 3.2, 2.9])),
    "pack_sequence_unsorted": lambda lib: lib.nn.utils.rnn.pack_sequence([lib.ones(2), lib.ones(3)]).data,
    "pad_packed_total_length_short": lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 4, 2), [4, 3, 2], batch_first=True), total_length=3),
}


@pytest.mark.parametrize("case", list(PACK))
def test_packed_sequence_lengths(case) -> None:
    both(PACK[case])


@pytest.mark.parametrize("name", ["RNN", "GRU"])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("hidden", [(1, 2, 3), (2, 3, 3), (1, 3, 4), (1, 4, 3)])
def test_packed_rnn_hidden_state_shapes(name, enforce_sorted, hidden) -> None:
    # (LSTM is left out: torch's LSTM does not check a packed input's hidden state and can crash on a wrong one)
    def program(lib):
        lib.manual_seed(0)
        rnn = getattr(lib.nn, name)(2, 3, batch_first=True).double()
        lengths = [4, 3, 2] if enforce_sorted else [3, 4, 2]
        packed = lib.nn.utils.rnn.pack_padded_sequence(lib.ones(3, 4, 2, dtype=lib.float64), lengths,
                                                       batch_first=True, enforce_sorted=enforce_sorted)
        out, h = rnn(packed, lib.zeros(*hidden, dtype=lib.float64))
        return tuple(out.data.shape), tuple(h.shape)

    both(program)


def _ctc(lib, targets, input_lengths, target_lengths, **kw):
    rng = np.random.default_rng(2)
    log_probs = lib.tensor(rng.standard_normal((6, 2, 5))).log_softmax(2)
    return lib.nn.functional.ctc_loss(log_probs, targets, lib.tensor(input_lengths), lib.tensor(target_lengths), **kw)


CTC = {
    "target_longer_than_input": lambda lib: _ctc(lib, lib.ones(2, 8, dtype=lib.int64), [6, 6], [8, 3]),
    "target_longer_reduction_none": lambda lib: _ctc(lib, lib.ones(2, 8, dtype=lib.int64), [6, 6], [7, 3],
                                                     reduction="none"),
    "input_length_too_long": lambda lib: _ctc(lib, lib.ones(2, 3, dtype=lib.int64), [7, 6], [3, 3]),
    "negative_target_length": lambda lib: _ctc(lib, lib.ones(2, 3, dtype=lib.int64), [6, 6], [-1, 3]),
    "target_length_beyond_targets": lambda lib: _ctc(lib, lib.ones(2, 3, dtype=lib.int64), [6, 6], [4, 3]),
    "lengths_count": lambda lib: _ctc(lib, lib.ones(2, 3, dtype=lib.int64), [6], [3, 3]),
    "blank_out_of_range": lambda lib: _ctc(lib, lib.ones(2, 3, dtype=lib.int64), [6, 6], [3, 3], blank=5),
    "float_targets": lambda lib: _ctc(lib, lib.ones(2, 3), [6, 6], [3, 3]),
    "concatenated_targets_too_long": lambda lib: _ctc(lib, lib.ones(10, dtype=lib.int64), [6, 6], [7, 3]),
    "impossible_alignment_is_inf": lambda lib: _ctc(lib, lib.tensor([[1, 1, 1, 1], [1, 2, 1, 2]]), [6, 6], [4, 4],
                                                    reduction="none"),
    "zero_infinity": lambda lib: _ctc(lib, lib.tensor([[1, 1, 1, 1], [1, 2, 1, 2]]), [6, 6], [4, 4],
                                      zero_infinity=True),
}


@pytest.mark.parametrize("case", list(CTC))
def test_ctc_lengths(case) -> None:
    both(CTC[case])


def _identity(lib):
    class Identity(lib.nn.Module):
        def forward(self, x):
            return x

    return Identity()


def _module_with_extras(lib):
    lin = lib.nn.Linear(2, 2)
    lin.register_buffer("buf", lib.ones(2))
    lin.plain = lib.ones(2)
    return lin


def _shape_changing(lib):
    class FirstRow(lib.nn.Module):
        def forward(self, x):
            return x[:1]

    return FirstRow()


PARAMETRIZE = {
    "buffer": lambda lib: lib.nn.utils.parametrize.register_parametrization(_module_with_extras(lib), "buf",
                                                                            _identity(lib)).buf,
    "plain_attribute": lambda lib: lib.nn.utils.parametrize.register_parametrization(
        _module_with_extras(lib), "plain", _identity(lib)),
    "missing": lambda lib: lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "nope",
                                                                             _identity(lib)),
    "submodule": lambda lib: lib.nn.utils.parametrize.register_parametrization(
        lib.nn.Sequential(lib.nn.Linear(2, 2)), "0", _identity(lib)),
    "remove_not_parametrized": lambda lib: lib.nn.utils.parametrize.remove_parametrizations(lib.nn.Linear(2, 2),
                                                                                             "weight"),
    "changes_shape": lambda lib: lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight",
                                                                                   _shape_changing(lib)),
    "spectral_norm_missing": lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), name="x"),
    "weight_norm_missing": lambda lib: lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(2, 2), name="x"),
    "orthogonal_1d": lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), name="bias"),
    "orthogonal_missing": lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), name="x"),
    "old_weight_norm_missing": lambda lib: lib.nn.utils.weight_norm(lib.nn.Linear(2, 2), name="x"),
    "old_spectral_norm_missing": lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), name="x"),
}


@pytest.mark.parametrize("case", list(PARAMETRIZE))
def test_parametrizations_of_non_parameters(case) -> None:
    both(lambda lib: _as_result(PARAMETRIZE[case](lib)))


def _as_result(value):
    return type(value).__name__ if not isinstance(value, (torch.Tensor,)) and not hasattr(value, "_data") else value


@pytest.mark.parametrize(
    "dim, shape, index",
    [(1, (2, 3), [5]), (-1, (2, 3), [0, 4, -2]), (-2, (2, 3, 4), [3]), (1, (1, 2, 3), [-1]), (0, (2, 3), [5]),
     (2, (1, 2, 3), [3]), (-1, (2,), [3])],
)
def test_index_select_out_of_range_texts(dim, shape, index) -> None:
    both(lambda lib: lib.zeros(*shape).index_select(dim, lib.tensor(index)))
