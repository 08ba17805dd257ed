"""scaled_dot_product_attention, multi_head_attention_forward, MultiheadAttention and the Transformer modules
against torch: same weights (copied from torch's modules), same inputs; outputs, every gradient, grad_fn
names and error texts compared."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
import dyngrad.nn as dnn
from conftest import assert_same_tensor
from nn_parity import copy_weights

tnn = torch.nn
TF = torch.nn.functional
DF = dyngrad.nn.functional


def _d(t):
    """A dyngrad copy of torch tensor ``t`` (a leaf that requires grad if ``t`` does)."""
    if t is None:
        return None
    out = dyngrad.tensor(t.detach().numpy())
    return out.requires_grad_(True) if t.requires_grad else out


def _same_error(fn_d, fn_t):
    with pytest.raises(Exception) as t_info:
        fn_t()
    with pytest.raises(type(t_info.value)) as d_info:
        fn_d()
    assert str(d_info.value) == str(t_info.value)


def _compare_grads(d_out, t_out, d_inputs, t_inputs, tol=None):
    """Backpropagate the same random cotangent through both outputs; compare outputs and every gradient."""
    assert_same_tensor(d_out, t_out, tol=tol, what="output")
    g = torch.randn_like(t_out)
    t_grads = torch.autograd.grad(t_out, t_inputs, g, allow_unused=True)
    d_grads = dyngrad.autograd.grad(d_out, d_inputs, _d(g), allow_unused=True)
    for i, (dg, tg) in enumerate(zip(d_grads, t_grads)):
        if tg is None:
            assert dg is None or not dg.abs().sum().item(), f"grad {i}"
        else:
            assert_same_tensor(dg, tg, tol=tol, what=f"grad {i}")


# ------------------------------------------------------------------ scaled_dot_product_attention

SDPA_CASES = [
    # (q shape, k shape, v shape, mask: None | (shape, kind), kwargs)
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), None, {}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), None, {"is_causal": True}),
    ((2, 3, 6, 5), (2, 3, 4, 5), (2, 3, 4, 5), None, {"is_causal": True, "scale": 0.7}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), ((4, 6), "bool"), {}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), ((1, 3, 4, 6), "float"), {}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), ((2, 3, 4, 6), "float"), {"is_causal": True}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), ((4, 6), "float_grad"), {}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), ((4, 6), "bool_dead_row"), {}),
    ((3, 4, 5), (3, 6, 5), (3, 6, 5), ((3, 4, 6), "bool"), {}),
    ((3, 4, 5), (3, 6, 5), (3, 6, 5), ((3, 4, 6), "bool_dead_row"), {}),
    ((3, 4, 5), (3, 6, 5), (3, 6, 7), None, {"is_causal": True}),
    ((4, 5), (6, 5), (6, 5), None, {"scale": -0.4}),
    ((2, 2, 3, 4, 5), (2, 2, 3, 6, 5), (2, 2, 3, 6, 5), ((4, 6), "float"), {}),
    ((1, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 5), None, {}),
    ((2, 4, 4, 5), (2, 2, 6, 5), (2, 2, 6, 5), None, {"enable_gqa": True}),
    ((2, 4, 4, 5), (2, 2, 6, 5), (2, 2, 6, 5), ((4, 6), "bool"), {"enable_gqa": True, "is_causal": False}),
    ((4, 4, 5), (2, 6, 5), (2, 6, 5), None, {"enable_gqa": True}),
    ((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), None, {}),
]


def _mask(spec, dtype):
    if spec is None:
        return None
    shape, kind = spec
    if kind.startswith("bool"):
        m = torch.rand(*shape) > 0.3
        if kind == "bool_dead_row":
            m[..., 0, :] = False  # a query that may attend to nothing: torch gives zeros, not NaN
        return m
    return torch.randn(*shape, dtype=dtype, requires_grad=kind == "float_grad")


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("case", range(len(SDPA_CASES)))
def test_sdpa_values_grads_and_grad_fn(case, dtype):
    torch.manual_seed(case)
    qs, ks, vs, mask_spec, kw = SDPA_CASES[case]
    q, k, v = (torch.randn(*s, dtype=dtype, requires_grad=True) for s in (qs, ks, vs))
    m = _mask(mask_spec, dtype)
    t_out = TF.scaled_dot_product_attention(q, k, v, attn_mask=m, **kw)
    dq, dk, dv, dm = _d(q), _d(k), _d(v), _d(m)
    d_out = DF.scaled_dot_product_attention(dq, dk, dv, attn_mask=dm, **kw)
    assert type(d_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    t_in = [q, k, v] + ([m] if m is not None and m.requires_grad else [])
    d_in = [dq, dk, dv] + ([dm] if m is not None and m.requires_grad else [])
    _compare_grads(d_out, t_out, d_in, t_in)


FLASH_BLOCK_CASES = [
    # (q shape, k/v heads, mask shape or None, kwargs): the flash node's head blocks, one head each
    ((3, 4, 5, 6), 4, None, {}),
    ((3, 4, 5, 6), 4, (3, 1, 5, 7), {}),
    ((3, 4, 5, 6), 4, (1, 4, 5, 7), {"scale": 0.3}),
    ((3, 4, 5, 6), 4, (5, 7), {}),
    ((3, 4, 5, 6), 2, (3, 4, 5, 7), {"enable_gqa": True}),
    ((3, 4, 5, 6), 2, None, {"enable_gqa": True, "is_causal": True}),
]


@pytest.mark.parametrize("keep_bytes", [0, 1 << 30])
@pytest.mark.parametrize("block_bytes", [1, 1 << 30])
@pytest.mark.parametrize("case", range(len(FLASH_BLOCK_CASES)))
def test_sdpa_flash_head_blocks(case, block_bytes, keep_bytes, monkeypatch):
    """Note [Attention in head blocks]: one head per block or all at once, masks broadcast over batch or heads,
    grouped heads, the probabilities kept by the forward or recomputed by backward; values and gradients as
    torch's, and a second backward through a retained graph (which recomputes the probabilities) gives the
    same gradients again."""
    from dyngrad._ops import attention

    monkeypatch.setattr(attention, "_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(attention, "_KEEP_PROBS_BYTES", keep_bytes)
    torch.manual_seed(case)
    qs, hk, ms, kw = FLASH_BLOCK_CASES[case]
    q = torch.randn(*qs, dtype=torch.float64, requires_grad=True)
    k, v = (torch.randn(qs[0], hk, 7, qs[3], dtype=torch.float64, requires_grad=True) for _ in range(2))
    m = None if ms is None else torch.randn(*ms, dtype=torch.float64)
    if m is not None:
        m[..., 1, :] = float("-inf")  # a query that may attend to nothing: zeros, as torch's flash kernel
    t_out = TF.scaled_dot_product_attention(q, k, v, attn_mask=m, **kw)
    dq, dk, dv = _d(q), _d(k), _d(v)
    d_out = DF.scaled_dot_product_attention(dq, dk, dv, attn_mask=_d(m), **kw)
    assert type(d_out.grad_fn).__name__ == type(t_out.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert_same_tensor(d_out, t_out, what="output")
    g = torch.randn_like(t_out)
    t_grads = torch.autograd.grad(t_out, (q, k, v), g)
    first = dyngrad.autograd.grad(d_out, (dq, dk, dv), _d(g), retain_graph=True)
    again = dyngrad.autograd.grad(d_out, (dq, dk, dv), _d(g))
    for i, tg in enumerate(t_grads):
        assert_same_tensor(first[i], tg, what=f"grad {i}")
        assert_same_tensor(again[i], tg, what=f"grad {i} (retained graph)")
    with dyngrad.no_grad():
        assert_same_tensor(DF.scaled_dot_product_attention(dq, dk, dv, attn_mask=_d(m), **kw), t_out, what="no_grad")


def test_sdpa_no_grad_and_flash_second_derivative_refused():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 2, 3, 4, dtype=torch.float64, requires_grad=True) for _ in range(3))
    with torch.no_grad():
        t = TF.scaled_dot_product_attention(q, k, v)
    with dyngrad.no_grad():
        d = DF.scaled_dot_product_attention(_d(q), _d(k), _d(v))
    assert d.grad_fn is None and t.grad_fn is None
    assert_same_tensor(d, t)
    dq, dk, dv = _d(q), _d(k), _d(v)
    gq, gk = dyngrad.autograd.grad(DF.scaled_dot_product_attention(dq, dk, dv).sum(), (dq, dk), create_graph=True)
    tq, tk = torch.autograd.grad(TF.scaled_dot_product_attention(q, k, v).sum(), (q, k), create_graph=True)
    assert type(gq.grad_fn).__name__ == type(tq.grad_fn).__name__ == "NotImplemented"
    assert_same_tensor(gq, tq)
    _same_error(lambda: gq.sum().backward(), lambda: tq.sum().backward())


def test_sdpa_math_path_second_derivatives():
    torch.manual_seed(1)
    q, k, v = (torch.randn(3, 4, 5, dtype=torch.float64, requires_grad=True) for _ in range(3))
    m = torch.rand(3, 4, 4) > 0.2
    tg = torch.autograd.grad(TF.scaled_dot_product_attention(q, k, v, attn_mask=m).pow(2).sum(), (q, k, v),
                             create_graph=True)
    dq, dk, dv = _d(q), _d(k), _d(v)
    dg = dyngrad.autograd.grad(DF.scaled_dot_product_attention(dq, dk, dv, attn_mask=_d(m)).pow(2).sum(),
                               (dq, dk, dv), create_graph=True)
    t2 = torch.autograd.grad(sum(g.sum() for g in tg), (q, k, v))
    d2 = dyngrad.autograd.grad(sum(g.sum() for g in dg), (dq, dk, dv))
    for a, b in zip(d2, t2):
        assert_same_tensor(a, b)


def test_sdpa_dropout_statistics_and_structure():
    torch.manual_seed(0)
    q, k, v = (dyngrad.randn(2, 2, 3, 4, dtype=dyngrad.float64, requires_grad=True) for _ in range(3))
    out = DF.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert type(out.grad_fn).__name__ == "UnsafeViewBackward0"
    zero = DF.scaled_dot_product_attention(q, k, v, dropout_p=1.0)
    assert float(zero.abs().sum()) == 0.0  # p = 1 drops every weight, as torch


SDPA_ERRORS = [
    (lambda lib, r: (r(2, 3, 4, 5), r(2, 3, 6, 5).float(), r(2, 3, 6, 5)), {}),
    (lambda lib, r: (r(5), r(5), r(5)), {}),
    (lambda lib, r: (r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 5)), {"dropout_p": 1.5}),
    (lambda lib, r: (r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 5)), {"mask": ("zeros", (4, 6), "int32")}),
    (lambda lib, r: (r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 5)), {"mask": ("zeros", (4, 5), "float64")}),
    (lambda lib, r: (r(2, 3, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 5)), {"mask": ("zeros", (5, 4, 6), "float64")}),
    (lambda lib, r: (r(3, 4, 5), r(3, 6, 5), r(3, 6, 5)), {"mask": ("zeros", (2, 4, 6), "float64")}),
    (lambda lib, r: (r(3, 4, 5), r(3, 6, 5), r(3, 6, 5)), {"mask": ("zeros", (4, 6), "bool"), "is_causal": True}),
    (lambda lib, r: (r(2, 4, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 5)), {"enable_gqa": True}),
    (lambda lib, r: (r(2, 4, 4, 5), r(2, 3, 6, 5), r(2, 3, 6, 5)), {}),
    (lambda lib, r: (r(3, 4, 5), r(3, 6, 4), r(3, 6, 5)), {}),
]


@pytest.mark.parametrize("case", range(len(SDPA_ERRORS)))
def test_sdpa_errors(case):
    make, kw = SDPA_ERRORS[case]
    kw = dict(kw)

    def run(lib):
        torch.manual_seed(0)
        args = make(lib, lambda *s: lib.tensor(torch.randn(*s, dtype=torch.float64).numpy()))
        if "mask" in kw:
            _, shape, dt = kw["mask"]
            extra = {"attn_mask": lib.zeros(shape, dtype=getattr(lib, dt))}
        else:
            extra = {}
        rest = {k: v for k, v in kw.items() if k != "mask"}
        return lib.nn.functional.scaled_dot_product_attention(*args, **extra, **rest)

    _same_error(lambda: run(dyngrad), lambda: run(torch))


# ------------------------------------------------------------------ MultiheadAttention

MHA_OPTIONS = [
    {},
    {"batch_first": True},
    {"bias": False},
    {"add_bias_kv": True},
    {"add_zero_attn": True},
    {"add_bias_kv": True, "add_zero_attn": True},
    {"kdim": 3, "vdim": 5},
    {"kdim": 3, "vdim": 5, "batch_first": True, "add_zero_attn": True},
]
MHA_CALLS = [
    {},
    {"need_weights": False},
    {"average_attn_weights": False},
    {"key_padding_mask": "bool"},
    {"key_padding_mask": "float", "need_weights": False},
    {"attn_mask": "bool2d"},
    {"attn_mask": "float3d", "key_padding_mask": "float"},
    {"attn_mask": "causal", "is_causal": True, "need_weights": False},
    {"attn_mask": "causal", "is_causal": True},
    {"attn_mask": "bool2d", "key_padding_mask": "bool", "need_weights": False},
]


def _mha_masks(call, n, heads, L, S, dtype):
    out = {}
    for key, kind in call.items():
        if key in ("attn_mask", "key_padding_mask"):
            if key == "key_padding_mask":
                m = torch.zeros(n, S, dtype=torch.bool)
                m[0, -2:] = True
                out[key] = m if kind == "bool" else torch.zeros(n, S, dtype=dtype).masked_fill(m, -1e4)
            elif kind == "bool2d":
                m = torch.rand(L, S) > 0.7
                m[:, 0] = False
                out[key] = m
            elif kind == "float3d":
                out[key] = torch.randn(n * heads, L, S, dtype=dtype)
            elif kind == "causal":
                out[key] = tnn.Transformer.generate_square_subsequent_mask(L, dtype=dtype)
        else:
            out[key] = kind
    return out


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("call", range(len(MHA_CALLS)))
@pytest.mark.parametrize("opt", range(len(MHA_OPTIONS)))
def test_multihead_attention(opt, call, training):
    options, dtype = MHA_OPTIONS[opt], torch.float64
    e, heads, n, L = 4, 2, 3, 5
    S = L if MHA_CALLS[call].get("is_causal") else 6
    torch.manual_seed(opt * 100 + call)
    tm = tnn.MultiheadAttention(e, heads, dtype=dtype, **options).train(training)
    dm = dnn.MultiheadAttention(e, heads, dtype=dyngrad.float64, **options).train(training)
    copy_weights(tm, dm)
    assert repr(dm) == repr(tm)
    bf = options.get("batch_first", False)
    kdim, vdim = options.get("kdim", e), options.get("vdim", e)
    lead = (lambda s: (n, s)) if bf else (lambda s: (s, n))
    self_attn = "kdim" not in options and L == S
    q = torch.randn(*lead(L), e, dtype=dtype, requires_grad=True)
    if self_attn:
        k = v = q
    else:
        k = torch.randn(*lead(S), kdim, dtype=dtype, requires_grad=True)
        v = torch.randn(*lead(S), vdim, dtype=dtype, requires_grad=True)
    kw = _mha_masks(MHA_CALLS[call], n, heads, L, S, dtype)
    dkw = {k_: (_d(x) if isinstance(x, torch.Tensor) else x) for k_, x in kw.items()}
    dq = _d(q)
    dk, dv = (dq, dq) if self_attn else (_d(k), _d(v))
    t_out, t_w = tm(q, k, v, **kw)
    d_out, d_w = dm(dq, dk, dv, **dkw)
    assert (d_w is None) == (t_w is None)
    if t_w is not None:
        assert_same_tensor(d_w, t_w, what="weights")
    t_params = [p for _, p in tm.named_parameters()]
    d_params = [p for _, p in dm.named_parameters()]
    t_in = [q] + ([] if self_attn else [k, v]) + t_params
    d_in = [dq] + ([] if self_attn else [dk, dv]) + d_params
    _compare_grads(d_out, t_out, d_in, t_in)


def test_multihead_attention_unbatched_and_float32():
    torch.manual_seed(3)
    tm = tnn.MultiheadAttention(6, 3, add_bias_kv=True, kdim=4, vdim=2)
    dm = dnn.MultiheadAttention(6, 3, add_bias_kv=True, kdim=4, vdim=2)
    copy_weights(tm, dm)
    q, k, v = torch.randn(5, 6, requires_grad=True), torch.randn(7, 4), torch.randn(7, 2)
    kpm = torch.tensor([False] * 6 + [True])
    mask = torch.rand(3, 5, 7) > 0.8
    for kw in ({}, {"key_padding_mask": kpm}, {"attn_mask": mask, "average_attn_weights": False}):
        t_out, t_w = tm(q, k, v, **kw)
        d_out, d_w = dm(_d(q), _d(k), _d(v), **{a: _d(b) for a, b in kw.items() if isinstance(b, torch.Tensor)},
                        **{a: b for a, b in kw.items() if not isinstance(b, torch.Tensor)})
        assert_same_tensor(d_w, t_w)
        assert_same_tensor(d_out, t_out)


MHA_ERRORS = [
    ({}, lambda r: (r(5, 3, 4), r(6, 4), r(6, 4)), {}),
    ({}, lambda r: (r(5, 3, 4), r(6, 3, 4), r(6, 3, 4)), {"attn_mask": ("zeros", (5, 5), "bool")}),
    ({}, lambda r: (r(5, 3, 4), r(6, 3, 4), r(6, 3, 4)), {"attn_mask": ("zeros", (7, 5, 6), "bool")}),
    ({}, lambda r: (r(5, 3, 4), r(6, 3, 4), r(6, 3, 4)), {"attn_mask": ("zeros", (5, 6), "int64")}),
    ({}, lambda r: (r(5, 3, 4), r(6, 3, 4), r(6, 3, 4)), {"key_padding_mask": ("zeros", (3, 5), "bool")}),
    ({}, lambda r: (r(5, 3, 4), r(6, 3, 4), r(6, 3, 4)), {"key_padding_mask": ("zeros", (2, 6), "bool")}),
    ({}, lambda r: (r(5, 3, 4), r(6, 3, 4), r(6, 3, 4)), {"key_padding_mask": ("zeros", (3,), "bool")}),
    ({}, lambda r: (r(5, 3, 4), r(6, 3, 4), r(6, 3, 4)), {"is_causal": True}),
    ({}, lambda r: (r(5, 3, 4), r(6, 3, 4), r(6, 3, 4)), {"attn_mask": ("zeros", (1, 5, 6), "float64")}),
    ({}, lambda r: (r(5, 3, 5), r(6, 3, 5), r(6, 3, 5)), {}),
    ({}, lambda r: (r(5, 3, 4), r(6, 3, 4), r(7, 3, 4)), {}),
    ({}, lambda r: (r(3, 5, 3, 4), r(6, 3, 4), r(7, 3, 4)), {}),
]


@pytest.mark.parametrize("case", range(len(MHA_ERRORS)))
def test_multihead_attention_errors(case):
    options, make, kw = MHA_ERRORS[case]

    def run(lib):
        torch.manual_seed(0)
        m = lib.nn.MultiheadAttention(4, 2, dtype=lib.float64, **options)
        args = make(lambda *s: lib.tensor(torch.randn(*s, dtype=torch.float64).numpy()))
        extra = {}
        for key, val in kw.items():
            extra[key] = lib.zeros(val[1], dtype=getattr(lib, val[2])) if isinstance(val, tuple) else val
        return m(*args, **extra)

    _same_error(lambda: run(dyngrad), lambda: run(torch))


def test_mismatched_mask_types_warn_as_torch():
    def run(lib):
        m = lib.nn.MultiheadAttention(4, 2)
        x = lib.zeros(3, 2, 4)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m(x, x, x, key_padding_mask=lib.zeros(2, 3, dtype=lib.bool), attn_mask=lib.zeros(3, 3))
        return [str(i.message) for i in w]

    assert run(dyngrad) == run(torch)


# ------------------------------------------------------------------ Transformer modules


def _act(lib, name):
    return {"relu": "relu", "gelu": "gelu", "callable": lib.nn.functional.silu, "module": lib.nn.GELU()}[name]


ENC_CASES = [
    ({}, {}),
    ({"norm_first": True, "activation": "gelu"}, {"mask": "causal"}),
    ({"batch_first": True}, {"src_key_padding_mask": "bool"}),
    ({"batch_first": True, "activation": "callable", "bias": False}, {"mask": "bool", "is_causal": False}),
    ({"norm_first": True}, {"mask": "causal", "is_causal": True}),
    ({"activation": "module"}, {"mask": "float", "src_key_padding_mask": "float"}),
]


def _enc_masks(call, n, S, dtype):
    out = {}
    for key, kind in call.items():
        if key == "src_key_padding_mask":
            m = torch.zeros(n, S, dtype=torch.bool)
            m[1, -2:] = True
            out[key] = m if kind == "bool" else torch.zeros(n, S, dtype=dtype).masked_fill(m, float("-inf"))
        elif key == "mask":
            if kind == "causal":
                out[key] = tnn.Transformer.generate_square_subsequent_mask(S, dtype=dtype)
            elif kind == "bool":
                m = torch.rand(S, S) > 0.7
                m.fill_diagonal_(False)
                out[key] = m
            else:
                out[key] = torch.randn(S, S, dtype=dtype)
        else:
            out[key] = kind
    return out


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("case", range(len(ENC_CASES)))
def test_transformer_encoder(case, training):
    options, call = ENC_CASES[case]
    torch.manual_seed(case)
    dtype = torch.float64
    n, S, d = 2, 5, 8
    with warnings.catch_warnings(record=True) as t_warn:
        warnings.simplefilter("always")
        t_layer = tnn.TransformerEncoderLayer(d, 2, 16, dropout=0.0 if training else 0.1, dtype=dtype,
                                              **{**options, "activation": _act(torch, options.get("activation",
                                                                                                  "relu"))})
        tm = tnn.TransformerEncoder(t_layer, 2, norm=tnn.LayerNorm(d, dtype=dtype)).train(training)
    with warnings.catch_warnings(record=True) as d_warn:
        warnings.simplefilter("always")
        d_layer = dnn.TransformerEncoderLayer(d, 2, 16, dropout=0.0 if training else 0.1, dtype=dyngrad.float64,
                                              **{**options, "activation": _act(dyngrad, options.get("activation",
                                                                                                    "relu"))})
        dm = dnn.TransformerEncoder(d_layer, 2, norm=dnn.LayerNorm(d, dtype=dyngrad.float64)).train(training)
    assert [str(w.message) for w in d_warn] == [str(w.message) for w in t_warn]
    assert dm.use_nested_tensor == tm.use_nested_tensor
    copy_weights(tm, dm)
    shape = (n, S, d) if options.get("batch_first") else (S, n, d)
    x = torch.randn(*shape, dtype=dtype, requires_grad=True)
    kw = _enc_masks(call, n, S, dtype)
    t_out = tm(x, **kw)
    dx = _d(x)
    d_out = dm(dx, **{k: (_d(v) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()})
    _compare_grads(d_out, t_out, [dx, *dm.parameters()], [x, *tm.parameters()])


def test_transformer_encoder_nested_inference_zeros_padding():
    """Eval mode, no grad, a left-aligned padding mask: torch's nested-tensor path leaves zeros at the pads."""
    torch.manual_seed(5)
    tm = tnn.TransformerEncoder(tnn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2).eval()
    dm = dnn.TransformerEncoder(dnn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2).eval()
    copy_weights(tm, dm)
    x = torch.randn(3, 5, 8)
    pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
    with torch.no_grad():
        t_out = tm(x, src_key_padding_mask=pad)
    with dyngrad.no_grad():
        d_out = dm(_d(x), src_key_padding_mask=_d(pad))
    assert_same_tensor(d_out, t_out)
    assert float(t_out[1, 3:].abs().sum()) == 0.0


DEC_CASES = [
    ({}, {}),
    ({"norm_first": True}, {"tgt_mask": "causal"}),
    ({"batch_first": True, "activation": "gelu"}, {"tgt_mask": "causal", "tgt_is_causal": True,
                                                   "memory_key_padding_mask": "bool"}),
    ({"activation": "callable"}, {"tgt_key_padding_mask": "bool", "memory_mask": "float"}),
]


def _dec_masks(call, n, T, S, dtype):
    out = {}
    for key, kind in call.items():
        if key == "tgt_mask":
            out[key] = tnn.Transformer.generate_square_subsequent_mask(T, dtype=dtype)
        elif key == "memory_mask":
            out[key] = torch.randn(T, S, dtype=dtype)
        elif key.endswith("key_padding_mask"):
            size = T if key.startswith("tgt") else S
            m = torch.zeros(n, size, dtype=torch.bool)
            m[0, -1] = True
            out[key] = m
        else:
            out[key] = kind
    return out


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("case", range(len(DEC_CASES)))
def test_transformer_decoder(case, training):
    options, call = DEC_CASES[case]
    torch.manual_seed(10 + case)
    dtype = torch.float64
    n, T, S, d = 2, 4, 6, 8
    drop = 0.0 if training else 0.1
    t_layer = tnn.TransformerDecoderLayer(d, 2, 16, dropout=drop, dtype=dtype,
                                          **{**options, "activation": _act(torch, options.get("activation", "relu"))})
    d_layer = dnn.TransformerDecoderLayer(d, 2, 16, dropout=drop, dtype=dyngrad.float64,
                                          **{**options, "activation": _act(dyngrad,
                                                                           options.get("activation", "relu"))})
    tm = tnn.TransformerDecoder(t_layer, 2, norm=tnn.LayerNorm(d, dtype=dtype)).train(training)
    dm = dnn.TransformerDecoder(d_layer, 2, norm=dnn.LayerNorm(d, dtype=dyngrad.float64)).train(training)
    copy_weights(tm, dm)
    assert repr(dm) == repr(tm)
    bf = options.get("batch_first")
    tgt = torch.randn(*((n, T) if bf else (T, n)), d, dtype=dtype, requires_grad=True)
    mem = torch.randn(*((n, S) if bf else (S, n)), d, dtype=dtype, requires_grad=True)
    kw = _dec_masks(call, n, T, S, dtype)
    t_out = tm(tgt, mem, **kw)
    dt_, dmem = _d(tgt), _d(mem)
    d_out = dm(dt_, dmem, **{k: (_d(v) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()})
    _compare_grads(d_out, t_out, [dt_, dmem, *dm.parameters()], [tgt, mem, *tm.parameters()])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_seq2seq(batch_first, dtype):
    torch.manual_seed(7)
    tdt, ddt = getattr(torch, dtype), getattr(dyngrad, dtype)
    tm = tnn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16,
                         dropout=0.0, batch_first=batch_first, dtype=tdt)
    dm = dnn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16,
                         dropout=0.0, batch_first=batch_first, dtype=ddt)
    assert repr(dm) == repr(tm)
    assert list(dm.state_dict()) == list(tm.state_dict())
    copy_weights(tm, dm)
    n, S, T = 3, 6, 4
    src = torch.randn(*((n, S) if batch_first else (S, n)), 8, dtype=tdt, requires_grad=True)
    tgt = torch.randn(*((n, T) if batch_first else (T, n)), 8, dtype=tdt, requires_grad=True)
    t_mask = tnn.Transformer.generate_square_subsequent_mask(T, dtype=tdt)
    d_mask = dnn.Transformer.generate_square_subsequent_mask(T, dtype=ddt)
    assert_same_tensor(d_mask, t_mask)
    pad = torch.tensor([[False] * S, [False] * (S - 2) + [True] * 2, [False] * (S - 1) + [True]])
    t_out = tm(src, tgt, tgt_mask=t_mask, src_key_padding_mask=pad, memory_key_padding_mask=pad)
    dsrc, dtgt = _d(src), _d(tgt)
    d_out = dm(dsrc, dtgt, tgt_mask=d_mask, src_key_padding_mask=_d(pad), memory_key_padding_mask=_d(pad))
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else None
    _compare_grads(d_out, t_out, [dsrc, dtgt, *dm.parameters()], [src, tgt, *tm.parameters()], tol=tol)


def test_transformer_errors_and_mask():
    for lib in (torch, dyngrad):
        lib.manual_seed(0)
    assert_same_tensor(dnn.Transformer.generate_square_subsequent_mask(3),
                       tnn.Transformer.generate_square_subsequent_mask(3))

    def run(lib, src_shape, tgt_shape):
        m = lib.nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)
        return m(lib.zeros(*src_shape), lib.zeros(*tgt_shape))

    _same_error(lambda: run(dyngrad, (3, 2, 4), (3, 5, 4)), lambda: run(torch, (3, 2, 4), (3, 5, 4)))
    _same_error(lambda: run(dyngrad, (3, 2, 4), (3, 2, 6)), lambda: run(torch, (3, 2, 4), (3, 2, 6)))
    _same_error(lambda: dnn.TransformerEncoderLayer(4, 2, activation="tanh"),
                lambda: tnn.TransformerEncoderLayer(4, 2, activation="tanh"))
    _same_error(lambda: dnn.MultiheadAttention(5, 2), lambda: tnn.MultiheadAttention(5, 2))


def test_functional_multi_head_attention_forward_static_kv():
    torch.manual_seed(2)
    e, h, n, L, S = 4, 2, 3, 5, 6
    q = torch.randn(L, n, e, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3 * e, e, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3 * e, dtype=torch.float64, requires_grad=True)
    ow = torch.randn(e, e, dtype=torch.float64, requires_grad=True)
    sk = torch.randn(n * h, S, e // h, dtype=torch.float64, requires_grad=True)
    sv = torch.randn(n * h, S, e // h, dtype=torch.float64, requires_grad=True)
    args = (e, h)

    def call(lib, F, qq, ww, bb, oww, skk, svv):
        return F.multi_head_attention_forward(qq, qq, qq, *args, ww, bb, None, None, False, 0.0, oww, None,
                                              static_k=skk, static_v=svv)

    t_out, t_w = call(torch, TF, q, w, b, ow, sk, sv)
    dins = [_d(t) for t in (q, w, b, ow, sk, sv)]
    d_out, d_w = call(dyngrad, DF, *dins)
    assert_same_tensor(d_w, t_w)
    _compare_grads(d_out, t_out, dins, [q, w, b, ow, sk, sv])
    assert np.isfinite(d_out.detach().numpy()).all()
