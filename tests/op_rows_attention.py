"""Op-table rows of the attention family (src/dyngrad/_ops/attention.py)."""

from __future__ import annotations

from hypothesis import strategies as st

from op_table import OpInfo, fixed, one_shape


def _dim(data, shapes):
    nd = len(shapes[0])
    return {"dim": data.draw(st.integers(-nd, nd - 1)) if nd else 0}


def _masked_safe_softmax(lib, x, dim):
    # rows of -inf give zeros (the "safe" part): mask every entry of the first slice along dim
    if x.dim() == 0 or x.shape[dim] == 0:
        return lib._safe_softmax(x, dim)
    dead = lib.zeros(x.shape, dtype=lib.bool)
    dead.select(dim % x.dim(), 0).fill_(True) if x.dim() > 1 else None
    return lib._safe_softmax(x.masked_fill(dead, float("-inf")), dim)


def _sdpa(lib, q, k, v, **kw):
    return lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)


def _sdpa_params(data, shapes):
    return data.draw(st.sampled_from([{}, {"is_causal": True}, {"scale": 0.3}]))


ROWS: list[OpInfo] = [
    OpInfo("_safe_softmax", lambda lib, x, dim: lib._safe_softmax(x, dim), one_shape(1),
           covers=("SafeSoftmaxBackward0",), params=_dim),
    OpInfo("_safe_softmax_dead_rows", _masked_safe_softmax, one_shape(2, 3, min_side=1),
           covers=("SafeSoftmaxBackward0", "MaskedFillBackward0"), params=_dim, gradcheck=False),
    # the fused CPU kernel: torch has no second derivative for it
    OpInfo("scaled_dot_product_attention_flash", _sdpa, fixed((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)),
           covers=("ScaledDotProductFlashAttentionForCpuBackward0",), params=_sdpa_params, second_order=False),
    OpInfo("scaled_dot_product_attention_math", _sdpa, fixed((2, 3, 4), (2, 5, 4), (2, 5, 3)),
           covers=("SafeSoftmaxBackward0", "UnsafeViewBackward0", "MulBackward1"), params=_sdpa_params),
]


def _pack(lib, x, lengths):
    return lib.nn.utils.rnn.pack_padded_sequence(x, lengths).data


ROWS.append(OpInfo("pack_padded_sequence", _pack, fixed((4, 3, 2)), covers=("PackPaddedSequenceBackward0",),
                   params=lambda data, shapes: {"lengths": data.draw(st.sampled_from([[4, 3, 1], [4, 4, 4],
                                                                                      [2, 1, 1]]))}))


# weight normalisation (src/dyngrad/_ops/weight_norm.py). torch's second derivative of the fused node fails
# torch's own gradgradcheck, so only first order is compared (tests/test_parametrize.py checks dyngrad's
# second derivative against finite differences).
ROWS += [
    OpInfo("_weight_norm_fused", lambda lib, v, g, dim: lib._weight_norm(v, g, dim),
           fixed((3, 2, 4), (3, 1, 1)), covers=("WeightNormInterfaceBackward0",),
           params=lambda data, shapes: {"dim": 0}, second_order=False),
    OpInfo("_weight_norm_last_dim", lambda lib, v, g, dim: lib._weight_norm(v, g, dim),
           fixed((3, 2, 4), (1, 1, 4)), covers=("WeightNormInterfaceBackward0",),
           params=lambda data, shapes: {"dim": 2}, second_order=False),
    OpInfo("norm_except_dim", lambda lib, v, dim: lib.norm_except_dim(v, 2, dim), fixed((3, 2, 4)),
           covers=("NormBackward0",), params=lambda data, shapes: {"dim": data.draw(st.sampled_from([-1, 0, 1, 2]))}),
]
