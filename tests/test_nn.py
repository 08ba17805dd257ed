"""dyngrad.nn against torch.nn: Module mechanics, containers, printed forms, state_dict, init, and every
layer's forward/backward with the same weights copied from torch."""

from __future__ import annotations

import copy
import math
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import dyngrad
import dyngrad.nn as dnn
import dyngrad.nn.functional as F
from conftest import assert_same_tensor, both, same_error
from nn_parity import check_layer_parity, copy_weights

tnn = torch.nn


# (name, constructor taking the library, input shape(s), extra kwargs for inputs)
LAYERS = [
    ("Linear", lambda nn: nn.Linear(4, 3), [(5, 4)]),
    ("Linear-nobias", lambda nn: nn.Linear(4, 3, bias=False), [(2, 6, 4)]),
    ("Identity", lambda nn: nn.Identity(3, foo=1), [(2, 3)]),
    ("Flatten", lambda nn: nn.Flatten(), [(2, 3, 4, 5)]),
    ("Flatten-dims", lambda nn: nn.Flatten(0, 2), [(2, 3, 4, 5)]),
    ("Unflatten", lambda nn: nn.Unflatten(1, (2, 6)), [(3, 12)]),
    ("ReLU", lambda nn: nn.ReLU(), [(3, 4)]),
    ("ReLU6", lambda nn: nn.ReLU6(), [(3, 4)]),
    ("GELU", lambda nn: nn.GELU(), [(3, 4)]),
    ("GELU-tanh", lambda nn: nn.GELU(approximate="tanh"), [(3, 4)]),
    ("Tanh", lambda nn: nn.Tanh(), [(3, 4)]),
    ("Sigmoid", lambda nn: nn.Sigmoid(), [(3, 4)]),
    ("Softmax", lambda nn: nn.Softmax(dim=1), [(3, 4)]),
    ("LogSoftmax", lambda nn: nn.LogSoftmax(dim=-1), [(3, 4)]),
    ("Softmin", lambda nn: nn.Softmin(dim=0), [(3, 4)]),
    ("LeakyReLU", lambda nn: nn.LeakyReLU(0.2), [(3, 4)]),
    ("ELU", lambda nn: nn.ELU(alpha=0.5), [(3, 4)]),
    ("CELU", lambda nn: nn.CELU(alpha=0.7), [(3, 4)]),
    ("SELU", lambda nn: nn.SELU(), [(3, 4)]),
    ("SiLU", lambda nn: nn.SiLU(), [(3, 4)]),
    ("Mish", lambda nn: nn.Mish(), [(3, 4)]),
    ("Hardswish", lambda nn: nn.Hardswish(), [(3, 4)]),
    ("Hardsigmoid", lambda nn: nn.Hardsigmoid(), [(3, 4)]),
    ("Hardtanh", lambda nn: nn.Hardtanh(-0.5, 0.7), [(3, 4)]),
    ("Softplus", lambda nn: nn.Softplus(beta=2.0, threshold=1.0), [(3, 4)]),
    ("Threshold", lambda nn: nn.Threshold(0.1, 20.0), [(3, 4)]),
    ("LogSigmoid", lambda nn: nn.LogSigmoid(), [(3, 4)]),
    ("Softsign", lambda nn: nn.Softsign(), [(3, 4)]),
    ("Tanhshrink", lambda nn: nn.Tanhshrink(), [(3, 4)]),
    ("GLU", lambda nn: nn.GLU(), [(3, 4)]),
    ("GLU-dim0", lambda nn: nn.GLU(0), [(4, 3)]),
    ("Dropout-eval", lambda nn: nn.Dropout(0.3).eval(), [(3, 4)]),
    ("Conv1d", lambda nn: nn.Conv1d(2, 4, 3, stride=2, padding=1), [(2, 2, 9)]),
    ("Conv1d-groups", lambda nn: nn.Conv1d(4, 6, 2, groups=2, dilation=2, bias=False), [(1, 4, 8)]),
    ("Conv2d", lambda nn: nn.Conv2d(3, 4, 3), [(2, 3, 6, 5)]),
    ("Conv2d-args", lambda nn: nn.Conv2d(2, 4, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2)),
     [(1, 2, 7, 6)]),
    ("Conv2d-same", lambda nn: nn.Conv2d(2, 2, 4, padding="same"), [(1, 2, 6, 6)]),
    ("Conv2d-reflect", lambda nn: nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), [(1, 2, 5, 5)]),
    ("Conv2d-circular", lambda nn: nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="circular"), [(1, 2, 5, 5)]),
    ("ConvTranspose1d", lambda nn: nn.ConvTranspose1d(3, 2, 3, stride=2, output_padding=1), [(2, 3, 5)]),
    ("ConvTranspose2d", lambda nn: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, groups=2), [(1, 4, 4, 3)]),
    ("MaxPool1d", lambda nn: nn.MaxPool1d(3, stride=2, padding=1), [(2, 3, 9)]),
    ("MaxPool2d", lambda nn: nn.MaxPool2d(2), [(2, 3, 6, 4)]),
    ("MaxPool2d-args", lambda nn: nn.MaxPool2d((3, 2), stride=1, padding=1, ceil_mode=True), [(1, 2, 5, 5)]),
    ("AvgPool1d", lambda nn: nn.AvgPool1d(3, 2), [(2, 3, 9)]),
    ("AvgPool2d", lambda nn: nn.AvgPool2d(2), [(2, 3, 6, 4)]),
    ("AvgPool2d-args", lambda nn: nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False), [(1, 2, 7, 6)]),
    ("AdaptiveAvgPool2d", lambda nn: nn.AdaptiveAvgPool2d((2, 3)), [(2, 2, 5, 7)]),
    ("AdaptiveMaxPool2d", lambda nn: nn.AdaptiveMaxPool2d(2), [(2, 2, 5, 7)]),
    ("LayerNorm", lambda nn: nn.LayerNorm(4), [(3, 5, 4)]),
    ("LayerNorm-2d-noaffine", lambda nn: nn.LayerNorm((5, 4), elementwise_affine=False), [(3, 5, 4)]),
    ("LayerNorm-nobias", lambda nn: nn.LayerNorm([4], bias=False, eps=1e-3), [(3, 4)]),
    ("GroupNorm", lambda nn: nn.GroupNorm(2, 4), [(3, 4, 5)]),
    ("BatchNorm1d", lambda nn: nn.BatchNorm1d(4), [(6, 4)]),
    ("BatchNorm1d-3d", lambda nn: nn.BatchNorm1d(3, momentum=None), [(4, 3, 5)]),
    ("BatchNorm1d-eval", lambda nn: nn.BatchNorm1d(4).eval(), [(6, 4)]),
    ("BatchNorm1d-nostats", lambda nn: nn.BatchNorm1d(4, affine=False, track_running_stats=False), [(6, 4)]),
    ("BatchNorm2d", lambda nn: nn.BatchNorm2d(3, eps=1e-3, momentum=0.3), [(4, 3, 2, 3)]),
    ("BatchNorm2d-eval", lambda nn: nn.BatchNorm2d(3).eval(), [(4, 3, 2, 3)]),
    ("Bilinear", lambda nn: nn.Bilinear(3, 4, 2), [(5, 3), (5, 4)]),
    ("CosineSimilarity", lambda nn: nn.CosineSimilarity(dim=1), [(4, 5), (4, 5)]),
    ("PairwiseDistance", lambda nn: nn.PairwiseDistance(p=3.0, keepdim=True), [(4, 5), (4, 5)]),
    ("ZeroPad2d", lambda nn: nn.ZeroPad2d((1, 2, 0, 1)), [(1, 2, 3, 4)]),
    ("ZeroPad1d", lambda nn: nn.ZeroPad1d(2), [(2, 3, 4)]),
    ("ConstantPad2d", lambda nn: nn.ConstantPad2d(1, 3.5), [(1, 2, 3, 4)]),
    ("ConstantPad1d", lambda nn: nn.ConstantPad1d((0, 2), -1.0), [(2, 3, 4)]),
    ("ReflectionPad1d", lambda nn: nn.ReflectionPad1d(2), [(2, 3, 4)]),
    ("ReflectionPad2d", lambda nn: nn.ReflectionPad2d((1, 1, 2, 0)), [(1, 2, 3, 4)]),
    ("ReplicationPad1d", lambda nn: nn.ReplicationPad1d((1, 2)), [(2, 3, 4)]),
    ("ReplicationPad2d", lambda nn: nn.ReplicationPad2d(1), [(1, 2, 3, 4)]),
    ("CircularPad2d", lambda nn: nn.CircularPad2d(1), [(1, 2, 3, 4)]),
    ("Unfold", lambda nn: nn.Unfold(2, padding=1, stride=2), [(2, 3, 4, 5)]),
    ("Fold", lambda nn: nn.Fold((4, 5), 2), [(2, 12, 12)]),
    ("PReLU", lambda nn: nn.PReLU(), [(2, 3, 4)]),
    ("Upsample-nearest", lambda nn: nn.Upsample(scale_factor=2), [(2, 3, 4, 3)]),
    ("Upsample-nearest1d", lambda nn: nn.Upsample(size=7), [(2, 3, 4)]),
    ("Upsample-linear", lambda nn: nn.Upsample(scale_factor=1.5, mode="linear"), [(2, 3, 4)]),
    ("Upsample-bilinear", lambda nn: nn.Upsample(size=(5, 2), mode="bilinear"), [(2, 3, 4, 3)]),
    ("UpsamplingBilinear2d", lambda nn: nn.UpsamplingBilinear2d(scale_factor=(2, 1.5)), [(1, 2, 3, 4)]),
    ("UpsamplingNearest2d", lambda nn: nn.UpsamplingNearest2d(size=(5, 6)), [(1, 2, 3, 4)]),
    ("InstanceNorm1d", lambda nn: nn.InstanceNorm1d(3, affine=True, track_running_stats=True), [(2, 3, 5)]),
    ("InstanceNorm1d-unbatched", lambda nn: nn.InstanceNorm1d(3, momentum=None, track_running_stats=True),
     [(3, 5)]),
    ("InstanceNorm2d", lambda nn: nn.InstanceNorm2d(3), [(2, 3, 4, 3)]),
    ("InstanceNorm2d-eval", lambda nn: nn.InstanceNorm2d(3, affine=True, track_running_stats=True).eval(),
     [(2, 3, 4, 3)]),
    ("PReLU-channels", lambda nn: nn.PReLU(3, init=0.1), [(2, 3, 4, 2)]),
    ("Sequential", lambda nn: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.LogSoftmax(1)),
     [(5, 4)]),
    ("Sequential-dict", lambda nn: nn.Sequential(OrderedDict([("fc", nn.Linear(4, 3)), ("act", nn.Tanh())])),
     [(5, 4)]),
    ("CNN", lambda nn: nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(2 * 4 * 4, 3)),
     [(2, 1, 6, 6)]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,make,shapes", LAYERS, ids=[row[0] for row in LAYERS])
def test_layer_parity(name, make, shapes, dtype):
    check_layer_parity(name, make, shapes, dtype)


def test_embedding():
    def make(nn, **kw):
        return nn.Embedding(6, 3, **kw)

    # scale_grad_by_freq is left out: F.embedding (an ops kernel) does not scale the gradient yet
    for kw in [dict(), dict(padding_idx=-2), dict(padding_idx=1, max_norm=1.5)]:
        tm, dm = make(tnn, **kw), make(dnn, **kw)
        assert repr(dm) == repr(tm) and list(dm.state_dict()) == list(tm.state_dict())
        if "padding_idx" in kw:
            assert float(dm.weight[kw["padding_idx"]].abs().sum()) == 0.0
        copy_weights(tm, dm)
        idx = np.array([[0, 1, 4], [4, 4, 5]])
        tout, dout = tm(torch.tensor(idx)), dm(dyngrad.tensor(idx))
        assert_same_tensor(dout, tout)
        g = np.random.default_rng(0).standard_normal(tuple(tout.shape)).astype(np.float32)
        tout.backward(torch.tensor(g))
        dout.backward(dyngrad.tensor(g))
        assert_same_tensor(dm.weight.grad, tm.weight.grad)
        assert_same_tensor(dm.weight.detach(), tm.weight.detach())  # max_norm renormalises in place
    w = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    te, de = tnn.Embedding.from_pretrained(torch.tensor(w)), dnn.Embedding.from_pretrained(dyngrad.tensor(w))
    assert repr(de) == repr(te) and not de.weight.requires_grad
    for nn in (tnn, dnn):
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            nn.Embedding(3, 2, padding_idx=3)


def test_batchnorm_errors_and_modes():
    for lib, nn in ((torch, tnn), (dyngrad, dnn)):
        with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
            nn.BatchNorm2d(3)(lib.ones(2, 3, 4))
        with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
            nn.BatchNorm1d(3)(lib.ones(2, 3, 4, 4))
        with pytest.raises(ValueError, match=r"num_channels \(5\) must be divisible by num_groups \(2\)"):
            nn.GroupNorm(2, 5)
    bn = dnn.BatchNorm1d(2)
    x = dyngrad.tensor([[1.0, 2.0], [3.0, 6.0]])
    for _ in range(3):
        bn(x)
    assert bn.num_batches_tracked.item() == 3
    tbn = tnn.BatchNorm1d(2)
    for _ in range(3):
        tbn(torch.tensor([[1.0, 2.0], [3.0, 6.0]]))
    assert_same_tensor(bn.running_var, tbn.running_var)
    assert_same_tensor(bn.eval()(x), tbn.eval()(torch.tensor([[1.0, 2.0], [3.0, 6.0]])))


RNNS = [
    ("RNN", lambda nn: nn.RNN(3, 4), (5, 2, 3), False),
    ("RNN-relu-nobias-2layer", lambda nn: nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bias=False),
     (5, 2, 3), True),
    ("LSTM", lambda nn: nn.LSTM(3, 4), (5, 2, 3), True),
    ("LSTM-2layer-batchfirst", lambda nn: nn.LSTM(3, 4, num_layers=2, batch_first=True), (2, 5, 3), False),
    ("LSTM-bidirectional", lambda nn: nn.LSTM(3, 2, bidirectional=True), (4, 2, 3), True),
    ("LSTM-unbatched", lambda nn: nn.LSTM(3, 4), (5, 3), True),
    ("GRU", lambda nn: nn.GRU(3, 4), (5, 2, 3), True),
    ("GRU-bidirectional-2layer", lambda nn: nn.GRU(3, 2, num_layers=2, bidirectional=True), (4, 2, 3), False),
    ("GRU-unbatched", lambda nn: nn.GRU(3, 4, batch_first=True), (5, 3), False),
]


@pytest.mark.parametrize("name,make,shape,with_hx", RNNS, ids=[r[0] for r in RNNS])
def test_rnn_parity(name, make, shape, with_hx):
    torch.manual_seed(0)
    tm, dm = make(tnn).double(), make(dnn).double()
    assert repr(dm) == repr(tm)
    assert list(dm.state_dict()) == list(tm.state_dict())
    copy_weights(tm, dm)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape)
    tx, dx = torch.tensor(x, requires_grad=True), dyngrad.tensor(x, requires_grad=True)
    targs, dargs = [tx], [dx]
    if with_hx:
        layers = tm.num_layers * (2 if tm.bidirectional else 1)
        hshape = (layers, shape[1], tm.hidden_size) if len(shape) == 3 else (layers, tm.hidden_size)
        hs = [rng.standard_normal(hshape) for _ in range(2 if isinstance(tm, tnn.LSTM) else 1)]
        th = [torch.tensor(h, requires_grad=True) for h in hs]
        dh = [dyngrad.tensor(h, requires_grad=True) for h in hs]
        targs.append(tuple(th) if isinstance(tm, tnn.LSTM) else th[0])
        dargs.append(tuple(dh) if isinstance(tm, tnn.LSTM) else dh[0])
    tout, thid = tm(*targs)
    dout, dhid = dm(*dargs)
    assert_same_tensor(dout, tout, what="output")
    thid = thid if isinstance(thid, tuple) else (thid,)
    dhid = dhid if isinstance(dhid, tuple) else (dhid,)
    for a, b in zip(dhid, thid):
        assert_same_tensor(a, b, what="hidden")
    g = [rng.standard_normal(tuple(t.shape)) for t in (tout, *thid)]
    torch.autograd.backward([tout, *thid], [torch.tensor(v) for v in g])
    dyngrad.autograd.backward([dout, *dhid], [dyngrad.tensor(v) for v in g])
    assert_same_tensor(dx.grad, tx.grad, what="input grad")
    if with_hx:
        for a, b in zip(dh, th):
            assert_same_tensor(a.grad, b.grad, what="hx grad")
    for (n, dp), (_, tp) in zip(dm.named_parameters(), tm.named_parameters()):
        assert_same_tensor(dp.grad, tp.grad, what=f"grad of {n}")


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_rnn_cell_parity(cls, batched):
    kw = dict(nonlinearity="relu") if cls == "RNNCell" else {}
    tm, dm = getattr(tnn, cls)(3, 4, **kw).double(), getattr(dnn, cls)(3, 4, **kw).double()
    assert repr(dm) == repr(tm) and list(dm.state_dict()) == list(tm.state_dict())
    copy_weights(tm, dm)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3) if batched else (3,))
    tx, dx = torch.tensor(x, requires_grad=True), dyngrad.tensor(x, requires_grad=True)
    tout, dout = tm(tx), dm(dx)  # hx=None, then the state fed back
    tout, dout = tm(tx, tout), dm(dx, dout)
    touts = tout if isinstance(tout, tuple) else (tout,)
    douts = dout if isinstance(dout, tuple) else (dout,)
    for a, b in zip(douts, touts):
        assert_same_tensor(a, b)
    sum(t.sum() for t in touts).backward()
    sum(t.sum() for t in douts).backward()
    assert_same_tensor(dx.grad, tx.grad)
    for (n, dp), (_, tp) in zip(dm.named_parameters(), tm.named_parameters()):
        assert_same_tensor(dp.grad, tp.grad, what=n)


ATTENTION = [
    ("MHA", lambda nn: nn.MultiheadAttention(4, 2), dict()),
    ("MHA-kv-dims-batchfirst", lambda nn: nn.MultiheadAttention(4, 2, kdim=3, vdim=5, batch_first=True,
                                                                 bias=False), dict()),
    ("MHA-masks", lambda nn: nn.MultiheadAttention(6, 3), dict(masks=True)),
    ("MHA-no-average", lambda nn: nn.MultiheadAttention(4, 4), dict(average_attn_weights=False)),
    ("MHA-no-weights", lambda nn: nn.MultiheadAttention(4, 1), dict(need_weights=False)),
    ("MHA-unbatched", lambda nn: nn.MultiheadAttention(4, 2), dict(unbatched=True)),
]


@pytest.mark.parametrize("name,make,opts", ATTENTION, ids=[a[0] for a in ATTENTION])
def test_multihead_attention_parity(name, make, opts):
    torch.manual_seed(0)
    tm, dm = make(tnn).double(), make(dnn).double()
    assert repr(dm) == repr(tm) and list(dm.state_dict()) == list(tm.state_dict())
    with torch.no_grad():
        for p in tm.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    copy_weights(tm, dm)
    rng = np.random.default_rng(5)
    L, S, N = 3, 5, 2
    e, kd, vd = tm.embed_dim, tm.kdim, tm.vdim

    def shape(n, d):
        if opts.get("unbatched"):
            return (n, d)
        return (N, n, d) if tm.batch_first else (n, N, d)

    arrays = [rng.standard_normal(shape(L, e)), rng.standard_normal(shape(S, kd)), rng.standard_normal(shape(S, vd))]
    tx = [torch.tensor(a, requires_grad=True) for a in arrays]
    dx = [dyngrad.tensor(a, requires_grad=True) for a in arrays]
    kw = {k: v for k, v in opts.items() if k in ("need_weights", "average_attn_weights")}
    tkw, dkw = dict(kw), dict(kw)
    if opts.get("masks"):
        am = rng.standard_normal((L, S)) * 0.5
        kpm = np.array([[False, False, True, False, True], [False] * 5])
        tkw.update(attn_mask=torch.tensor(am), key_padding_mask=torch.tensor(kpm))
        dkw.update(attn_mask=dyngrad.tensor(am), key_padding_mask=dyngrad.tensor(kpm))
    tout, tw = tm(*tx, **tkw)
    dout, dw = dm(*dx, **dkw)
    assert_same_tensor(dout, tout, what="attn output")
    assert type(dout.grad_fn).__name__ == type(tout.grad_fn).__name__
    if tw is None:
        assert dw is None
    else:
        assert_same_tensor(dw, tw, what="attn weights")
    g = rng.standard_normal(tuple(tout.shape))
    loss_t = (tout * torch.tensor(g)).sum() + (0 if tw is None else tw.pow(2).sum())
    loss_d = (dout * dyngrad.tensor(g)).sum() + (0 if dw is None else dw.pow(2).sum())
    loss_t.backward()
    loss_d.backward()
    for i, (a, b) in enumerate(zip(dx, tx)):
        assert_same_tensor(a.grad, b.grad, what=f"input grad {i}")
    for (n, dp), (_, tp) in zip(dm.named_parameters(), tm.named_parameters()):
        assert_same_tensor(dp.grad, tp.grad, what=f"grad of {n}")


@pytest.mark.parametrize("kw", [dict(), dict(norm_first=True, activation="gelu", batch_first=True)])
def test_transformer_encoder_parity(kw):
    torch.manual_seed(0)
    tl = tnn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, **kw)
    dl = dnn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's nested-tensor notice
        tm = tnn.TransformerEncoder(tl, 2, norm=tnn.LayerNorm(4)).double()
    dm = dnn.TransformerEncoder(dl, 2, norm=dnn.LayerNorm(4)).double()
    assert repr(dm) == repr(tm) and list(dm.state_dict()) == list(tm.state_dict())
    with torch.no_grad():
        for p in tm.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    copy_weights(tm, dm)
    x = np.random.default_rng(6).standard_normal((2, 3, 4) if kw.get("batch_first") else (3, 2, 4))
    kpm = np.array([[False, False, True], [False, False, False]])
    tx, dx = torch.tensor(x, requires_grad=True), dyngrad.tensor(x, requires_grad=True)
    tout = tm(tx, src_key_padding_mask=torch.tensor(kpm))
    dout = dm(dx, src_key_padding_mask=dyngrad.tensor(kpm))
    assert_same_tensor(dout, tout)
    tout.pow(2).sum().backward()
    dout.pow(2).sum().backward()
    assert_same_tensor(dx.grad, tx.grad)
    for (n, dp), (_, tp) in zip(dm.named_parameters(), tm.named_parameters()):
        assert_same_tensor(dp.grad, tp.grad, what=n)


LSTM_FUSED = [
    ("plain", dict(), (5, 2, 3), False),
    ("hx-2layer-batchfirst", dict(num_layers=2, batch_first=True), (2, 5, 3), True),
    ("bidirectional-2layer-hx", dict(num_layers=2, bidirectional=True), (4, 2, 3), True),
    ("unbatched-nobias", dict(bias=False), (5, 3), True),
    ("dropout-eval", dict(num_layers=2, dropout=0.5), (3, 2, 3), False),
]


def _names(t):
    fn = t.grad_fn
    return type(fn).__name__, [type(n).__name__ for n, _ in fn.next_functions]


@pytest.mark.parametrize("name,kw,shape,with_hx", LSTM_FUSED, ids=[r[0] for r in LSTM_FUSED])
def test_lstm_fused_float32_matches_torch(name, kw, shape, with_hx):
    """float32 nn.LSTM runs one MkldnnRnnLayerBackward0 per layer and direction, as torch's oneDNN path:
    same values, grad_fn names, first- and second-order gradients."""
    torch.manual_seed(0)
    tm, dm = tnn.LSTM(3, 4, **kw), dnn.LSTM(3, 4, **kw)
    copy_weights(tm, dm)
    if "dropout" in kw:
        tm.eval(), dm.eval()
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32)
    tx, dx = torch.tensor(x, requires_grad=True), dyngrad.tensor(x, requires_grad=True)
    targs, dargs = [tx], [dx]
    if with_hx:
        layers = tm.num_layers * (2 if tm.bidirectional else 1)
        batch = shape[0] if tm.batch_first else shape[1]
        hshape = (layers, batch, 4) if len(shape) == 3 else (layers, 4)
        hs = [rng.standard_normal(hshape).astype(np.float32) for _ in range(2)]
        th = [torch.tensor(h, requires_grad=True) for h in hs]
        dh = [dyngrad.tensor(h, requires_grad=True) for h in hs]
        targs.append(tuple(th))
        dargs.append(tuple(dh))
    tout, (thn, tcn) = tm(*targs)
    dout, (dhn, dcn) = dm(*dargs)
    for d, t, what in ((dout, tout, "output"), (dhn, thn, "h_n"), (dcn, tcn, "c_n")):
        assert_same_tensor(d, t, what=what)
        assert _names(d) == _names(t), what
    tins = [tx, *(th if with_hx else []), *tm.parameters()]
    dins = [dx, *(dh if with_hx else []), *dm.parameters()]
    gs = [rng.standard_normal(tuple(t.shape)).astype(np.float32) for t in (tout, thn, tcn)]
    tg = torch.autograd.grad([tout, thn, tcn], tins, [torch.tensor(g) for g in gs], create_graph=True)
    dg = dyngrad.autograd.grad([dout, dhn, dcn], dins, [dyngrad.tensor(g) for g in gs], create_graph=True)
    for i, (d, t) in enumerate(zip(dg, tg)):
        assert_same_tensor(d, t, what=f"grad {i}")
    vs = [rng.standard_normal(tuple(t.shape)).astype(np.float32) for t in tg]
    tgg = torch.autograd.grad(sum((g * torch.tensor(v)).sum() for g, v in zip(tg, vs)), tins)
    dgg = dyngrad.autograd.grad(sum((g * dyngrad.tensor(v)).sum() for g, v in zip(dg, vs)), dins)
    for i, (d, t) in enumerate(zip(dgg, tgg)):
        assert_same_tensor(d, t, what=f"second-order grad {i}")
    # a plain backward: backpropagation through time on arrays
    tout, (thn, tcn) = tm(*targs)
    dout, (dhn, dcn) = dm(*dargs)
    torch.autograd.backward([tout, thn, tcn], [torch.tensor(g) for g in gs])
    dyngrad.autograd.backward([dout, dhn, dcn], [dyngrad.tensor(g) for g in gs])
    for i, (d, t) in enumerate(zip(dins, tins)):
        assert_same_tensor(d.grad, t.grad, what=f"plain backward grad {i}")


@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_layer_kernel_float64_matches_torch_cells(reverse):
    """The fused kernel itself in float64 (nn.LSTM uses it for float32 only, as torch does) against
    torch's LSTMCell run step by step: values and gradients to float64 precision, both backward paths."""
    from dyngrad._ops.rnn import lstm_layer

    rng = np.random.default_rng(8)
    steps, batch, n_in, hidden = 6, 3, 5, 4
    arrays = [rng.standard_normal(s) for s in ((steps, batch, n_in), (4 * hidden, n_in), (4 * hidden, hidden),
                                               (4 * hidden,), (4 * hidden,), (batch, hidden), (batch, hidden))]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    x, w_ih, w_hh, b_ih, b_hh, h, c = t_in
    outs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        h, c = torch.lstm_cell(x[t], (h, c), w_ih, w_hh, b_ih, b_hh)
        outs[t] = h
    t_outs = (torch.stack(outs), h, c)
    gs = [rng.standard_normal(tuple(t.shape)) for t in t_outs]
    t_g = torch.autograd.grad(t_outs, t_in, [torch.tensor(g) for g in gs], create_graph=True)
    vs = [rng.standard_normal(a.shape) for a in arrays]
    t_gg = torch.autograd.grad(sum((g * torch.tensor(v)).sum() for g, v in zip(t_g, vs)), t_in)
    for create_graph in (False, True):
        d_in = [dyngrad.tensor(a, requires_grad=True) for a in arrays]
        d_outs = lstm_layer(*d_in, reverse=reverse)
        assert type(d_outs[0].grad_fn).__name__ == "MkldnnRnnLayerBackward0"
        for d, t in zip(d_outs, t_outs):
            assert_same_tensor(d, t)
        d_g = dyngrad.autograd.grad(d_outs, d_in, [dyngrad.tensor(g) for g in gs], create_graph=create_graph)
        for i, (d, t) in enumerate(zip(d_g, t_g)):
            assert_same_tensor(d, t, what=f"grad {i} (create_graph={create_graph})")
        if create_graph:
            d_gg = dyngrad.autograd.grad(sum((g * dyngrad.tensor(v)).sum() for g, v in zip(d_g, vs)), d_in)
            for i, (d, t) in enumerate(zip(d_gg, t_gg)):
                assert_same_tensor(d, t, what=f"second-order grad {i}")


def test_lstm_fused_graph_rules():
    """retain_graph, a second backward through a freed graph, an in-place change to a saved weight, one tensor
    given as both hx and cx, and no_grad: as torch. Graphs kept alive keep their own buffers (Note [Buffer reuse])."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal((4, 2, 3)).astype(np.float32)
    x2 = rng.standard_normal((4, 2, 3)).astype(np.float32)
    torch.manual_seed(0)
    tm, dm = tnn.LSTM(3, 4), dnn.LSTM(3, 4)
    copy_weights(tm, dm)
    for lib, m in ((torch, tm), (dyngrad, dm)):
        out_a = m(lib.tensor(x))[0]
        out_b = m(lib.tensor(x2))[0]  # a second graph alive at the same time
        out_a.sum().backward(retain_graph=True)
        out_b.pow(2).sum().backward()
        out_a.sum().backward()
    for (n, dp), (_, tp) in zip(dm.named_parameters(), tm.named_parameters()):
        assert_same_tensor(dp.grad, tp.grad, what=n)

    def freed(lib, m):
        out = m(lib.tensor(x))[0].sum()
        out.backward()
        out.backward()

    def modified(lib, m):
        out = m(lib.tensor(x))[0].sum()
        with lib.no_grad():
            m.weight_hh_l0.mul_(2)
        out.backward()

    def shared_state(lib, m):
        s = lib.ones(1, 2, 4, requires_grad=True)
        out, (h, c) = m(lib.tensor(x), (s, s))
        (out.sum() + c.sum()).backward()
        return s.grad

    same_error(lambda: freed(dyngrad, dm), lambda: freed(torch, tm))
    # fresh modules: the in-place error names the weight's version (1 after initialisation in both)
    same_error(lambda: modified(dyngrad, dnn.LSTM(3, 4)), lambda: modified(torch, tnn.LSTM(3, 4)))
    assert_same_tensor(shared_state(dyngrad, dm), shared_state(torch, tm))

    def forward_ad(lib, m):  # torch's fused layer has no forward-mode formula
        with lib.autograd.forward_ad.dual_level():
            m(lib.autograd.forward_ad.make_dual(lib.tensor(x), lib.ones(4, 2, 3)))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's own deprecation notices from its forward-AD internals
        same_error(lambda: forward_ad(dyngrad, dm), lambda: forward_ad(torch, tm))
    with dyngrad.no_grad():
        out, (h, c) = dm(dyngrad.tensor(x))
    assert out.grad_fn is None and not out.requires_grad
    assert_same_tensor(out, tm(torch.tensor(x))[0].detach())


def test_rnn_default_init_and_errors():
    dyngrad.manual_seed(0)
    m = dnn.LSTM(3, 16)
    assert max(float(p.abs().max()) for p in m.parameters()) <= 0.25
    for nn in (tnn, dnn):
        with pytest.raises(ValueError, match="Unknown nonlinearity 'foo'. Select from 'tanh' or 'relu'."):
            nn.RNN(2, 2, nonlinearity="foo")
        with pytest.raises(ValueError, match="dropout should be a number in range"):
            nn.GRU(2, 2, dropout=2)


LOSSES = [
    ("MSELoss", lambda nn: nn.MSELoss(), "float"),
    ("MSELoss-sum", lambda nn: nn.MSELoss(reduction="sum"), "float"),
    ("L1Loss-none", lambda nn: nn.L1Loss(reduction="none"), "float"),
    ("SmoothL1Loss", lambda nn: nn.SmoothL1Loss(beta=0.5), "float"),
    ("HuberLoss", lambda nn: nn.HuberLoss(delta=0.7), "float"),
    ("CrossEntropyLoss", lambda nn: nn.CrossEntropyLoss(), "class"),
    ("CrossEntropyLoss-args", lambda nn: nn.CrossEntropyLoss(ignore_index=1, label_smoothing=0.1, reduction="sum"),
     "class"),
    ("CrossEntropyLoss-probs", lambda nn: nn.CrossEntropyLoss(), "probs"),
    ("NLLLoss", lambda nn: nn.NLLLoss(), "class"),
    ("NLLLoss-none", lambda nn: nn.NLLLoss(reduction="none"), "class"),
    ("BCELoss", lambda nn: nn.BCELoss(), "bce"),
    ("BCELoss-sum", lambda nn: nn.BCELoss(reduction="sum"), "bce"),
    ("BCEWithLogitsLoss", lambda nn: nn.BCEWithLogitsLoss(), "float01"),
    ("KLDivLoss", lambda nn: nn.KLDivLoss(reduction="batchmean"), "kl"),
    ("KLDivLoss-logtarget", lambda nn: nn.KLDivLoss(reduction="none", log_target=True), "kl-log"),
]


@pytest.mark.parametrize("name,make,kind", LOSSES, ids=[row[0] for row in LOSSES])
def test_loss_parity(name, make, kind):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 4))
    if kind == "class":
        y = rng.integers(0, 4, 6)
    elif kind == "probs":
        y = rng.dirichlet(np.ones(4), 6)
    elif kind in ("bce", "float01"):
        y = rng.uniform(0, 1, (6, 4))
        if kind == "bce":
            x = 1 / (1 + np.exp(-x))
    elif kind == "kl":
        x = np.log(rng.dirichlet(np.ones(4), 6))
        y = rng.dirichlet(np.ones(4), 6)
    elif kind == "kl-log":
        x = np.log(rng.dirichlet(np.ones(4), 6))
        y = np.log(rng.dirichlet(np.ones(4), 6))
    else:
        y = rng.standard_normal((6, 4))
    tm, dm = make(tnn), make(dnn)
    assert repr(dm) == repr(tm)
    tx, dx = torch.tensor(x, requires_grad=True), dyngrad.tensor(x, requires_grad=True)
    tl, dl = tm(tx, torch.tensor(y)), dm(dx, dyngrad.tensor(y))
    assert_same_tensor(dl, tl, what=name)
    assert type(dl.grad_fn).__name__ == type(tl.grad_fn).__name__
    tl.sum().backward()
    dl.sum().backward()
    assert_same_tensor(dx.grad, tx.grad, what=f"{name} grad")


def test_weighted_loss_buffer_and_legacy_reduction():
    w = np.array([1.0, 2.0, 0.5])
    tm, dm = tnn.CrossEntropyLoss(weight=torch.tensor(w)), dnn.CrossEntropyLoss(weight=dyngrad.tensor(w))
    assert list(dm.state_dict()) == list(tm.state_dict()) == ["weight"]
    x, y = np.random.default_rng(0).standard_normal((4, 3)), np.array([0, 2, 1, 2])
    assert_same_tensor(dm(dyngrad.tensor(x), dyngrad.tensor(y)), tm(torch.tensor(x), torch.tensor(y)))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m = dnn.MSELoss(size_average=False)
    assert m.reduction == "sum" and "please use reduction='sum' instead" in str(rec[0].message)


def test_bce_with_logits_weights():
    w, pw = np.array([1.0, 2.0, 0.5]), np.array([3.0, 1.0, 0.2])
    tm = tnn.BCEWithLogitsLoss(weight=torch.tensor(w), pos_weight=torch.tensor(pw))
    dm = dnn.BCEWithLogitsLoss(weight=dyngrad.tensor(w), pos_weight=dyngrad.tensor(pw))
    assert list(dm.state_dict()) == list(tm.state_dict()) == ["weight", "pos_weight"]
    x, y = np.random.default_rng(0).standard_normal((4, 3)), np.random.default_rng(1).uniform(0, 1, (4, 3))
    assert_same_tensor(dm(dyngrad.tensor(x), dyngrad.tensor(y)), tm(torch.tensor(x), torch.tensor(y)))


def test_dropout_training():
    dyngrad.manual_seed(0)
    m = dnn.Dropout(0.25)
    x = dyngrad.ones(2000)
    y = m(x)
    np.testing.assert_allclose(np.unique(y.numpy()), [0.0, 1 / 0.75], rtol=1e-6)
    assert 0.2 < float((y == 0).float().mean()) < 0.3
    m.eval()
    assert m(x) is x or np.array_equal(m(x).numpy(), x.numpy())
    for lib in (tnn, dnn):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
            lib.Dropout(1.5)


def test_instance_norm_init_and_errors():
    for kw in [{}, {"affine": True}, {"track_running_stats": True, "eps": 1e-3, "momentum": None},
               {"affine": True, "bias": False}]:
        tm, dm = tnn.InstanceNorm2d(4, **kw), dnn.InstanceNorm2d(4, **kw)
        assert repr(dm) == repr(tm) and list(dm.state_dict()) == list(tm.state_dict())
        for (n, d), (_, t) in zip(dm.state_dict().items(), tm.state_dict().items()):
            assert_same_tensor(d, t, what=n)
    tf, df = torch.nn.functional, F
    for shape in [(2, 3), (2, 3, 1), (2, 3, 1, 1), (3,)]:
        same_error(lambda shape=shape: df.instance_norm(dyngrad.ones(shape)),
                   lambda shape=shape: tf.instance_norm(torch.ones(shape)))
    same_error(lambda: df.instance_norm(dyngrad.ones(2, 3, 4), use_input_stats=False),
               lambda: tf.instance_norm(torch.ones(2, 3, 4), use_input_stats=False))
    for cls, shape in [("InstanceNorm1d", (2, 3, 4, 5)), ("InstanceNorm2d", (2, 3)), ("InstanceNorm2d", (2, 4, 3, 3))]:
        for kw in [{}, {"affine": True}]:
            with warnings.catch_warnings(record=True) as rec:
                warnings.simplefilter("always")
                same_error(lambda cls=cls, kw=kw, shape=shape: getattr(dnn, cls)(3, **kw)(dyngrad.rand(shape)),
                           lambda cls=cls, kw=kw, shape=shape: getattr(tnn, cls)(3, **kw)(torch.rand(shape)))
            texts = [str(r.message) for r in rec]
            assert texts[::2] == texts[1::2]  # the same warnings from both (dyngrad's first)
            assert len(texts) == (2 if shape == (2, 4, 3, 3) and not kw else 0)


def test_upsample_reprs_and_errors():
    makes = [lambda nn: nn.Upsample(scale_factor=2), lambda nn: nn.Upsample(size=(3, 4), mode="bilinear"),
             lambda nn: nn.Upsample(scale_factor=(2, 1.5), mode="bilinear", align_corners=True),
             lambda nn: nn.UpsamplingNearest2d(size=3), lambda nn: nn.UpsamplingBilinear2d(scale_factor=0.5)]
    for make in makes:
        assert repr(make(dnn)) == repr(make(tnn))
    x = np.ones((1, 2, 3, 4), dtype="float32")
    calls = [dict(size=3, scale_factor=2), dict(), dict(size=3, align_corners=True),
             dict(size=(1, 2, 3)), dict(scale_factor=(1, 2, 3)), dict(size=(2.0, 3)), dict(size=3, recompute_scale_factor=True),
             dict(size=3, mode="linear"), dict(size=3, antialias=True), dict(size=3, mode="trilinear"), dict(scale_factor=0.1), dict(size=(0, 2), mode="bilinear")]
    for kw in calls:
        same_error(lambda kw=kw: F.interpolate(dyngrad.tensor(x), **kw),
                   lambda kw=kw: torch.nn.functional.interpolate(torch.tensor(x), **kw))
    same_error(lambda: F.interpolate(dyngrad.tensor(x), size=3, mode="lanczos"),
               lambda: torch.nn.functional.interpolate(torch.tensor(x), size=3, mode="lanczos"))
    with pytest.raises(NotImplementedError, match="dyngrad: interpolate mode 'lanczos'"):  # not implemented here
        F.interpolate(dyngrad.tensor(x), size=3, mode="lanczos", antialias=True)
    # 'area' on 4-D inputs is adaptive_avg_pool2d, as torch
    a = np.random.default_rng(0).standard_normal((1, 2, 6, 4)).astype("float32")
    for kw in [dict(size=(3, 2)), dict(scale_factor=0.5)]:
        d = F.interpolate(dyngrad.tensor(a, requires_grad=True), mode="area", **kw)
        t = torch.nn.functional.interpolate(torch.tensor(a, requires_grad=True), mode="area", **kw)
        assert_same_tensor(d, t)
        assert type(d.grad_fn).__name__ == type(t.grad_fn).__name__


def test_prelu_default_init_and_errors():
    for args in [(), (3,), (4, -0.5)]:
        tm, dm = tnn.PReLU(*args), dnn.PReLU(*args)
        assert repr(dm) == repr(tm) and list(dm.state_dict()) == ["weight"]
        assert_same_tensor(dm.weight.detach(), tm.weight.detach())
    tw = tnn.PReLU(3, dtype=torch.float64).weight
    dw = dnn.PReLU(3, dtype=dyngrad.float64).weight
    assert repr(dw.dtype) == repr(tw.dtype)
    cases = [((2, 3), (2,)), ((), (2,)), ((2, 3), (1, 3)), ((3,), (3,))]
    for xs, ws in cases:
        same_error(lambda xs=xs, ws=ws: dnn.functional.prelu(dyngrad.zeros(xs), dyngrad.zeros(ws)),
                   lambda xs=xs, ws=ws: tnn.functional.prelu(torch.zeros(xs), torch.zeros(ws)))
    same_error(lambda: dnn.functional.prelu(dyngrad.zeros(2, 3), dyngrad.zeros(3, dtype=dyngrad.float64)),
               lambda: tnn.functional.prelu(torch.zeros(2, 3), torch.zeros(3, dtype=torch.float64)))
    same_error(lambda: dnn.functional.prelu(dyngrad.zeros(2, 3), 0.25),
               lambda: tnn.functional.prelu(torch.zeros(2, 3), 0.25))


@pytest.mark.parametrize("name,shape", [("Dropout1d", (40, 50, 3)), ("Dropout1d", (400, 3)),
                                        ("Dropout2d", (40, 50, 2, 3)), ("Dropout2d", (40, 50, 3))])
def test_channel_dropout_training(name, shape):
    dyngrad.manual_seed(0)
    m = getattr(dnn, name)(0.25)
    assert repr(m) == repr(getattr(tnn, name)(0.25)) == f"{name}(p=0.25, inplace=False)"
    x = (dyngrad.rand(*shape) + 0.5).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = m(x)
    a, xa = y.detach().numpy(), x.detach().numpy()
    ch = a.reshape(a.shape[:2] + (-1,)) if len(shape) > 2 else a.reshape(1, shape[0], -1)
    zero = (ch == 0).all(-1)
    assert ((ch == 0).any(-1) == zero).all()  # whole channels zeroed, nothing else
    assert 0.2 < zero.mean() < 0.3
    np.testing.assert_allclose(a[a != 0], xa[a != 0] / 0.75, rtol=1e-6)
    g = np.random.default_rng(0).standard_normal(shape).astype("float32")
    y.backward(dyngrad.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), np.where(a != 0, g / 0.75, 0), rtol=1e-6)
    tname = type(getattr(tnn, name)(0.25)(torch.ones(shape, requires_grad=True)).grad_fn).__name__
    assert type(y.grad_fn).__name__ == tname
    m.eval()  # identity values; an unbatched dropout1d input still goes through unsqueeze/squeeze, as torch
    tm = getattr(tnn, name)(0.25).eval()
    tx = torch.ones(shape, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ty, y = tm(tx), m(x)
    assert (y is x) == (ty is tx) and type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    np.testing.assert_array_equal(y.detach().numpy(), xa)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert (getattr(dnn, name)(1.0)(x) == 0).all()


def test_channel_dropout_ranks_warnings_and_errors():
    for shape in [(3,), (2, 3, 4, 5)]:
        same_error(lambda shape=shape: F.dropout1d(dyngrad.ones(shape)),
                   lambda shape=shape: torch.nn.functional.dropout1d(torch.ones(shape)))
    for shape in [(2, 3), (2, 3, 4), (2, 3, 4, 5, 6)]:
        msgs = []
        for lib, f in ((torch, torch.nn.functional.dropout2d), (dyngrad, F.dropout2d)):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                f(lib.ones(shape), 0.5, training=False)
            msgs.append([(r.category, str(r.message)) for r in w])
        assert msgs[0] == msgs[1] and len(msgs[0]) == (0 if len(shape) == 4 else 1)
    for lib in (tnn, dnn):
        for cls in (lib.Dropout1d, lib.Dropout2d):
            with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
                cls(-0.1)
    same_error(lambda: F.dropout2d(dyngrad.ones(2, 3, 4), 1.5), lambda: torch.nn.functional.dropout2d(torch.ones(2, 3, 4), 1.5))


# ----------------------------------------------------------------------------------------------- Parameter
def test_parameter():
    for lib, nn in ((torch, tnn), (dyngrad, dnn)):
        p = nn.Parameter(lib.tensor([1.0, 2.0]))
        assert isinstance(p, lib.Tensor) and p.requires_grad and p.is_leaf
    tp, dp = tnn.Parameter(torch.tensor([1.0, 2.0])), dnn.Parameter(dyngrad.tensor([1.0, 2.0]))
    assert repr(dp) == repr(tp) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert repr(dnn.Parameter(dyngrad.ones(2, dtype=dyngrad.float64), requires_grad=False)) == repr(
        tnn.Parameter(torch.ones(2, dtype=torch.float64), requires_grad=False))
    assert repr(dnn.Parameter()) == repr(tnn.Parameter())
    # shares memory with its data; ops give plain tensors with grad_fn
    base = dyngrad.zeros(3)
    p = dnn.Parameter(base)
    base.add_(1.0)
    assert p.tolist() == [1.0, 1.0, 1.0]
    y = p * 2
    assert type(y) is dyngrad.Tensor and type(y.grad_fn).__name__ == "MulBackward0"
    # from a non-leaf: a leaf parameter
    q = dnn.Parameter(dyngrad.ones(2, requires_grad=True) * 3)
    assert q.is_leaf and q.grad_fn is None
    c = copy.deepcopy(p)
    assert isinstance(c, dnn.Parameter) and c.requires_grad and c.data_ptr() != p.data_ptr()
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        dnn.Parameter(dyngrad.arange(3))  # torch's Parameter text (requires_grad_'s differs)


# ------------------------------------------------------------------------------------------- Module basics
class _Net:
    """The same small network for both libraries: parameters, buffers, nested modules, a shared module."""

    @staticmethod
    def make(lib, nn):
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 3)
                self.register_buffer("count", lib.zeros(1))
                self.register_buffer("tmp", lib.ones(2), persistent=False)

            def forward(self, x):
                return self.fc(x).relu()

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = nn.Parameter(lib.ones(1))
                self.blocks = nn.ModuleList([Block(), Block()])
                self.head = nn.Linear(3, 2)
                self.alias = self.head  # shared: listed once
                self.none_param = None
                self.register_parameter("missing", None)
                self.register_buffer("empty", None)

            def forward(self, x):
                for b in self.blocks:
                    x = b(x)
                return self.head(x) * self.scale

        return Net()


def test_traversal_matches_torch():
    tm, dm = _Net.make(torch, tnn), _Net.make(dyngrad, dnn)
    assert repr(dm) == repr(tm)
    for method in ["named_parameters", "named_buffers", "named_children", "named_modules"]:
        assert [n for n, _ in getattr(dm, method)()] == [n for n, _ in getattr(tm, method)()], method
    assert [n for n, _ in dm.named_parameters(prefix="m", recurse=False)] == \
        [n for n, _ in tm.named_parameters(prefix="m", recurse=False)]
    assert [n for n, _ in dm.named_modules(remove_duplicate=False)] == \
        [n for n, _ in tm.named_modules(remove_duplicate=False)]
    assert len(list(dm.parameters())) == len(list(tm.parameters()))
    assert len(list(dm.buffers())) == len(list(tm.buffers()))
    assert len(list(dm.children())) == len(list(tm.children()))
    assert len(list(dm.modules())) == len(list(tm.modules()))
    assert list(dm.state_dict()) == list(tm.state_dict())
    assert list(dm.state_dict(prefix="x.")) == list(tm.state_dict(prefix="x."))
    assert dm.get_submodule("blocks.1.fc") is dm.blocks[1].fc
    assert dm.get_parameter("blocks.0.fc.bias") is dm.blocks[0].fc.bias
    assert dm.get_buffer("blocks.0.count") is dm.blocks[0].count
    for fn in (lambda m: m.get_submodule("blocks.5"), lambda m: m.get_parameter("blocks.0.count"),
               lambda m: m.get_buffer("head.weight"), lambda m: m.nope):
        with pytest.raises(AttributeError) as te:
            fn(tm)
        with pytest.raises(AttributeError) as de:
            fn(dm)
        assert str(de.value) == str(te.value)


def test_forward_backward_and_state_dict_roundtrip():
    tm, dm = _Net.make(torch, tnn), _Net.make(dyngrad, dnn)
    copy_weights(tm, dm)
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    tout, dout = tm(torch.tensor(x)), dm(dyngrad.tensor(x))
    assert_same_tensor(dout, tout)
    tout.sum().backward()
    dout.sum().backward()
    for (n, dp), (_, tp) in zip(dm.named_parameters(), tm.named_parameters()):
        assert_same_tensor(dp.grad, tp.grad, what=n)
    sd = dm.state_dict()
    assert all(not v.requires_grad for v in sd.values())
    assert dm.state_dict(keep_vars=True)["head.weight"] is dm.head.weight
    assert sd["head.weight"].data_ptr() == dm.head.weight.data_ptr()  # detached, not copied
    assert dm.blocks[0].fc.weight.grad is not None
    dm.zero_grad()
    assert all(p.grad is None for p in dm.parameters())
    dout2 = dm(dyngrad.tensor(x))
    dout2.sum().backward()
    dm.zero_grad(set_to_none=False)
    assert all(p.grad is not None and float(p.grad.abs().sum()) == 0.0 for p in dm.parameters())


def test_load_state_dict_errors_match_torch():
    cases = [
        lambda sd: {k: v for k, v in sd.items() if k != "head.bias"},
        lambda sd: {**sd, "extra": sd["head.bias"], "blocks.0.fc.foo": sd["head.bias"], "other.x": sd["scale"]},
        lambda sd: {**sd, "head.weight": sd["head.weight"][:1]},
        lambda sd: {**{k: v for k, v in sd.items() if k != "scale"}, "bad.key": sd["scale"],
                    "head.bias": sd["head.bias"].reshape(2, 1)},
        lambda sd: {**sd, "scale": 3.0},
    ]
    for case in cases:
        for strict in (True, False):
            tm, dm = _Net.make(torch, tnn), _Net.make(dyngrad, dnn)
            tsd = case(tm.state_dict())
            dsd = case({k: dyngrad.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v
                        for k, v in dm.state_dict().items()})
            try:
                tres = tm.load_state_dict(tsd, strict=strict)
            except RuntimeError as e:
                with pytest.raises(RuntimeError) as de:
                    dm.load_state_dict(dsd, strict=strict)
                assert str(de.value) == str(e)
            else:
                dres = dm.load_state_dict(dsd, strict=strict)
                assert repr(dres) == repr(tres)
                assert dres.missing_keys == tres.missing_keys and dres.unexpected_keys == tres.unexpected_keys
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        dnn.Linear(2, 2).load_state_dict([1])


def test_load_state_dict_copies_in_place_and_assign():
    m = dnn.Linear(2, 3)
    w = m.weight
    new = {"weight": dyngrad.ones(3, 2), "bias": dyngrad.zeros(3)}
    m.load_state_dict(new)
    assert m.weight is w and m.weight.tolist() == [[1.0, 1.0]] * 3 and m.weight.requires_grad
    assert m.weight.data_ptr() != new["weight"].data_ptr()
    m.load_state_dict(new, assign=True)
    assert m.weight is not w and isinstance(m.weight, dnn.Parameter) and m.weight.requires_grad
    # a 0-d parameter accepts a 1-element 1-d tensor (torch's backward compatibility rule)
    class S(dnn.Module):
        def __init__(self):
            super().__init__()
            self.s = dnn.Parameter(dyngrad.tensor(1.0))
    s = S()
    s.load_state_dict({"s": dyngrad.tensor([4.0])})
    assert s.s.item() == 4.0


def test_registration_errors_match_torch():
    cases = [
        lambda lib, nn, m: setattr(m, "weight", lib.ones(2)),
        lambda lib, nn, m: setattr(nn.Sequential(nn.ReLU()), "0", 3),
        lambda lib, nn, m: m.register_buffer("a.b", lib.ones(1)),
        lambda lib, nn, m: m.register_buffer("", lib.ones(1)),
        lambda lib, nn, m: m.register_buffer("weight", lib.ones(1)),
        lambda lib, nn, m: m.register_buffer("x", 3),
        lambda lib, nn, m: m.register_parameter("x", lib.ones(1)),
        lambda lib, nn, m: m.register_parameter("y", nn.Parameter(lib.ones(1)) * 2),
        lambda lib, nn, m: m.register_parameter("forward", nn.Parameter(lib.ones(1))),
        lambda lib, nn, m: m.add_module("a.b", nn.ReLU()),
        lambda lib, nn, m: m.add_module("r", 3),
        lambda lib, nn, m: m.train("yes"),
        lambda lib, nn, m: nn.Module()(lib.ones(1)),
        lambda lib, nn, m: nn.Sequential(nn.ReLU())[3],
        lambda lib, nn, m: nn.ModuleList([nn.ReLU()])[-2],
        lambda lib, nn, m: nn.ParameterDict()({}),
        lambda lib, nn, m: nn.ParameterList()(),
        lambda lib, nn, m: nn.Sequential() + 3,
    ]
    for i, case in enumerate(cases):
        try:
            case(torch, tnn, tnn.Linear(2, 2))
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)) as de:
                case(dyngrad, dnn, dnn.Linear(2, 2))
            assert str(de.value) == str(e), i
        else:
            raise AssertionError(f"case {i}: torch did not raise")


def test_attribute_reassignment_rules():
    m = dnn.Module()
    m.a = dnn.Parameter(dyngrad.ones(1))
    m.a = None
    assert "a" in m._parameters and m._parameters["a"] is None
    m.register_buffer("b", dyngrad.ones(1))
    m.b = dyngrad.zeros(2)  # stays a buffer
    assert m._buffers["b"].shape == (2,)
    m.b = dnn.Linear(1, 1)  # a module replaces the buffer
    assert "b" not in m._buffers and "b" in m._modules
    m.c = dnn.Buffer(dyngrad.ones(3), persistent=False)
    assert "c" in m._buffers and "c" not in m.state_dict()
    del m.b
    assert "b" not in m._modules
    m.plain = 3
    assert m.plain == 3 and "plain" in m.__dict__


def test_train_eval_requires_grad_apply_to():
    tm, dm = _Net.make(torch, tnn), _Net.make(dyngrad, dnn)
    assert dm.training and all(m.training for m in dm.modules())
    assert dm.eval() is dm and not any(m.training for m in dm.modules())
    dm.train()
    assert all(m.training for m in dm.modules())
    dm.requires_grad_(False)
    assert not any(p.requires_grad for p in dm.parameters())
    dm.requires_grad_()
    seen = []
    dm.apply(lambda m: seen.append(type(m).__name__))
    tseen = []
    tm.apply(lambda m: tseen.append(type(m).__name__))
    assert seen == tseen
    w = dm.head.weight
    dm(dyngrad.ones(1, 3)).sum().backward()
    assert dm.to(dyngrad.float64) is dm
    assert dm.head.weight is w and w.dtype == dyngrad.float64 and w.grad.dtype == dyngrad.float64
    assert dm.blocks[0].count.dtype == dyngrad.float64
    dm.float()
    assert w.dtype == dyngrad.float32 and w.requires_grad and w.is_leaf
    dm.to(dtype=dyngrad.float64)
    assert w.dtype == dyngrad.float64
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes, but got "
                                        "desired dtype=torch.int64"):
        dm.to(dyngrad.int64)
    m = dnn.Linear(2, 2).double()
    assert m(dyngrad.ones(1, 2, dtype=dyngrad.float64)).dtype == dyngrad.float64


def test_hooks():
    m = dnn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre") or (args[0] * 0,))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append("post") or out + 1)
    h3 = m.register_forward_pre_hook(lambda mod, args: calls.append("first"), prepend=True)
    out = m(dyngrad.ones(1, 2))
    assert calls == ["first", "pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), m.bias.detach().numpy()[None] + 1, rtol=1e-6)
    h1.remove()
    h2.remove()
    h3.remove()
    calls.clear()
    m(dyngrad.ones(1, 2))
    assert calls == []
    kw = m.register_forward_hook(lambda mod, args, kwargs, out: calls.append(sorted(kwargs)), with_kwargs=True)
    m(input=dyngrad.ones(1, 2))
    assert calls == [["input"]]
    kw.remove()


# ------------------------------------------------------------------------------------------------ containers
def test_sequential_operations_match_torch():
    def build(nn):
        return nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Tanh(), nn.Linear(2, 1))

    ts, ds = build(tnn), build(dnn)
    assert repr(ds[1:3]) == repr(ts[1:3]) and repr(ds[-1]) == repr(ts[-1]) and len(ds) == 4
    del ts[1]
    del ds[1]
    assert repr(ds) == repr(ts) and list(ds.state_dict()) == list(ts.state_dict())
    ts.append(tnn.Sigmoid())
    ds.append(dnn.Sigmoid())
    ts.insert(1, tnn.ELU())
    ds.insert(1, dnn.ELU())
    ts[0] = tnn.Identity()
    ds[0] = dnn.Identity()
    assert repr(ds) == repr(ts)
    assert repr(ds + build(dnn)) == repr(ts + build(tnn))
    ts.extend([tnn.ReLU()])
    ds.extend([dnn.ReLU()])
    assert repr(ds.pop(0)) == repr(ts.pop(0)) and repr(ds) == repr(ts)


def test_module_list_dict_match_torch():
    tl = tnn.ModuleList([tnn.Linear(2, 2) for _ in range(3)] + [tnn.ReLU()])
    dl = dnn.ModuleList([dnn.Linear(2, 2) for _ in range(3)] + [dnn.ReLU()])
    assert repr(dl) == repr(tl) and repr(dnn.ModuleList()) == repr(tnn.ModuleList())
    tl.insert(0, tnn.Tanh())
    dl.insert(0, dnn.Tanh())
    del tl[2]
    del dl[2]
    tl += [tnn.ELU()]
    dl += [dnn.ELU()]
    assert repr(dl) == repr(tl) and repr(dl[1:]) == repr(tl[1:]) and list(dl.state_dict()) == list(tl.state_dict())
    td = tnn.ModuleDict({"b": tnn.ReLU(), "a": tnn.Linear(1, 1)})
    dd = dnn.ModuleDict({"b": dnn.ReLU(), "a": dnn.Linear(1, 1)})
    td["c"] = tnn.Tanh()
    dd["c"] = dnn.Tanh()
    assert repr(dd) == repr(td) and list(dd.keys()) == list(td.keys()) and "a" in dd and len(dd) == 3
    assert repr(dd.pop("b")) == repr(td.pop("b")) and list(dd.state_dict()) == list(td.state_dict())


def test_parameter_list_dict_match_torch():
    def plist(lib, nn):
        return nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(2, 3, dtype=lib.float64)])

    tl, dl = plist(torch, tnn), plist(dyngrad, dnn)
    assert repr(dl) == repr(tl) and isinstance(dl[1], dnn.Parameter)
    tl.append(torch.ones(1))
    dl.append(dyngrad.ones(1))
    assert repr(dl) == repr(tl) and list(dl.state_dict()) == list(tl.state_dict()) and len(dl) == 3

    def pdict(lib, nn):
        return nn.ParameterDict({"w": nn.Parameter(lib.ones(2)), "b": lib.zeros(3)})

    td, dd = pdict(torch, tnn), pdict(dyngrad, dnn)
    assert repr(dd) == repr(td) and list(dd.keys()) == list(td.keys())
    td["z"] = torch.ones(2, 2, dtype=torch.float64)
    dd["z"] = dyngrad.ones(2, 2, dtype=dyngrad.float64)
    assert repr(dd) == repr(td) and list(dd.state_dict()) == list(td.state_dict())
    assert [n for n, _ in dd.named_parameters()] == [n for n, _ in td.named_parameters()]


def test_nested_repr_with_extra_repr():
    def build(nn):
        class Custom(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Sequential(nn.Conv2d(1, 4, 3, bias=False), nn.LeakyReLU(0.1, inplace=True))
                self.dec = nn.ModuleDict({"out": nn.Linear(4, 2, bias=False)})

            def extra_repr(self):
                return "custom=1\nsecond line"

        return Custom()

    assert repr(build(dnn)) == repr(build(tnn))


# ----------------------------------------------------------------------------------------------------- init
def test_init_fans_gains_and_bounds():
    for nl, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                      ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)]:
        assert dnn.init.calculate_gain(nl, param) == tnn.init.calculate_gain(nl, param)
    for args in [("foo",), ("leaky_relu", "x")]:
        with pytest.raises(ValueError) as te:
            tnn.init.calculate_gain(*args)
        with pytest.raises(ValueError) as de:
            dnn.init.calculate_gain(*args)
        assert str(de.value) == str(te.value)
    for shape in [(3, 4), (5, 2, 3, 3), (4, 6, 7)]:
        assert dnn.init._calculate_fan_in_and_fan_out(dyngrad.empty(shape)) == \
            tnn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    for fn in (lambda i, t: i.xavier_uniform_(t), lambda i, t: i.kaiming_normal_(t, mode="bad")):
        for shape in [(3,), (3, 4)]:
            try:
                fn(tnn.init, torch.empty(shape))
            except ValueError as e:
                with pytest.raises(ValueError) as de:
                    fn(dnn.init, dyngrad.empty(shape))
                assert str(de.value) == str(e)
    dyngrad.manual_seed(0)
    t = dyngrad.empty(200, 300)
    v = t._version
    out = dnn.init.kaiming_uniform_(t, a=math.sqrt(5))
    assert out is t and t._version > v
    bound = 1 / math.sqrt(300)
    assert float(t.abs().max()) <= bound and float(t.abs().max()) > 0.99 * bound
    dnn.init.xavier_uniform_(t, gain=2.0)
    assert float(t.abs().max()) <= 2.0 * math.sqrt(6 / 500)
    dnn.init.kaiming_normal_(t, nonlinearity="relu")
    assert abs(float(t.std()) - math.sqrt(2 / 300)) < 0.01 * math.sqrt(2 / 300) * 5
    dnn.init.xavier_normal_(t)
    assert abs(float(t.std()) - math.sqrt(2 / 500)) < 0.05 * math.sqrt(2 / 500)
    dnn.init.normal_(t, 3.0, 0.5)
    assert abs(float(t.mean()) - 3.0) < 0.01 and abs(float(t.std()) - 0.5) < 0.01
    dnn.init.uniform_(t, -2.0, 5.0)
    assert float(t.min()) >= -2.0 and float(t.max()) < 5.0
    dnn.init.trunc_normal_(t, std=1.0, a=-0.5, b=0.5)
    assert float(t.abs().max()) <= 0.5
    assert dnn.init.zeros_(t).abs().sum().item() == 0 and dnn.init.ones_(t).sum().item() == 60000
    assert dnn.init.constant_(t, 0.25).mean().item() == 0.25
    for shape in [(4, 6), (6, 4), (3, 2, 2)]:
        q = dnn.init.orthogonal_(dyngrad.empty(shape), gain=2.0).reshape(shape[0], -1).numpy().astype(np.float64)
        gram = q @ q.T if shape[0] <= q.shape[1] else q.T @ q
        np.testing.assert_allclose(gram, 4 * np.eye(gram.shape[0]), atol=1e-5)
    e = dnn.init.eye_(dyngrad.empty(2, 3))
    assert e.tolist() == torch.nn.init.eye_(torch.empty(2, 3)).tolist()
    d = dnn.init.dirac_(dyngrad.empty(4, 2, 3, 3), groups=2)
    assert d.tolist() == torch.nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2).tolist()
    # parameters keep being leaves that require grad after init
    p = dnn.Parameter(dyngrad.empty(3, 3))
    dnn.init.xavier_uniform_(p)
    assert p.requires_grad and p.is_leaf


@pytest.mark.parametrize("make,fan_in", [(lambda nn: nn.Linear(50, 40), 50),
                                         (lambda nn: nn.Conv2d(4, 6, 3), 36),
                                         (lambda nn: nn.ConvTranspose2d(4, 6, 3), 54)])
def test_default_layer_init_distribution(make, fan_in):
    dyngrad.manual_seed(0)
    m = make(dnn)
    bound = 1 / math.sqrt(fan_in)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.15 * bound / math.sqrt(3)


# ----------------------------------------------------------------------------------------------------- utils
@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3])
def test_clip_grad_norm(norm_type):
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
    out = []
    for lib, nn in ((torch, tnn), (dyngrad, dnn)):
        ps = [nn.Parameter(lib.zeros(g.shape, dtype=lib.float64)) for g in grads]
        for p, g in zip(ps, grads):
            p.grad = lib.tensor(g)
        total = nn.utils.clip_grad_norm_(ps, max_norm=1.5, norm_type=norm_type)
        out.append((total, [p.grad for p in ps]))
    assert_same_tensor(out[1][0], out[0][0])
    for d, t in zip(out[1][1], out[0][1]):
        assert_same_tensor(d, t)


def test_clip_grad_value_and_vector_conversion():
    out = []
    for lib, nn in ((torch, tnn), (dyngrad, dnn)):
        m = nn.Linear(3, 2)
        with lib.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(lib.arange(p.numel(), dtype=lib.float32).reshape(p.shape) - i)
        for p in m.parameters():
            p.grad = p.detach() * 0.3 - 0.5
        nn.utils.clip_grad_value_(m.parameters(), 0.4)
        vec = nn.utils.parameters_to_vector(m.parameters())
        nn.utils.vector_to_parameters(vec * 2, m.parameters())
        out.append(([p.grad for p in m.parameters()], vec, [p.detach() for p in m.parameters()]))
    for d, t in zip(out[1][0], out[0][0]):
        assert_same_tensor(d, t)
    assert_same_tensor(out[1][1], out[0][1])
    assert type(out[1][1].grad_fn).__name__ == type(out[0][1].grad_fn).__name__
    for d, t in zip(out[1][2], out[0][2]):
        assert_same_tensor(d, t)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: builtins.int|expected torch.Tensor"):
        dnn.utils.vector_to_parameters(3, [])


def test_functional_still_importable():
    assert dnn.functional is F and hasattr(F, "relu")


def test_deepcopy_module_and_none_child():
    m = dnn.Sequential(dnn.Linear(2, 3), dnn.BatchNorm1d(3))
    m[0].weight.grad = dyngrad.ones(3, 2)
    c = copy.deepcopy(m)
    assert repr(c) == repr(m) and list(c.state_dict()) == list(m.state_dict())
    assert isinstance(c[0].weight, dnn.Parameter) and c[0].weight is not m[0].weight
    assert c[0].weight.grad.tolist() == m[0].weight.grad.tolist()
    assert c[0].weight.data_ptr() != m[0].weight.data_ptr()
    with dyngrad.no_grad():
        c[0].weight.add_(1.0)
    assert not np.array_equal(c[0].weight.detach().numpy(), m[0].weight.detach().numpy())
    tm, dm = tnn.Module(), dnn.Module()
    tm.child, dm.child = None, None
    tm.register_module("x", None)
    dm.register_module("x", None)
    assert repr(dm) == repr(tm) and list(dm.named_children()) == []


# ------------------------------------------------------------------ issue 5: loss dtypes (target dtype checks,
# torch's promotion of float inputs with integer targets)


def _loss_case(fn, x, t, x_dtype="float32", t_dtype="int64", **kw):
    """A program for ``both``: F.<fn>(x, t, **kw) on tensors of the given dtypes; returns the loss and, for a
    float input, its gradient (so the gradient's dtype is compared too)."""

    def program(lib):
        xd = getattr(lib, x_dtype)
        xt = lib.tensor(x, dtype=xd, requires_grad=xd.is_floating_point)
        tt = lib.tensor(t, dtype=getattr(lib, t_dtype))
        kws = {k: (lib.tensor(v[0], dtype=getattr(lib, v[1])) if isinstance(v, tuple) else v) for k, v in kw.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = getattr(lib.nn.functional, fn)(xt, tt, **kws)
        if not xt.requires_grad:
            return loss.detach()
        (g,) = lib.autograd.grad(loss.sum(), xt)
        return loss.detach(), g

    return program


_P, _T01 = [0.2, 0.8, 0.6], [0, 1, 1]
_X, _C = [[0.2, -0.8, 0.1], [0.3, 0.1, -0.5]], [1, 2]
LOSS_DTYPE_CASES = {
    **{f"{fn}-{td}": _loss_case(fn, _P, _T01, t_dtype=td)
       for fn in ("mse_loss", "smooth_l1_loss", "huber_loss", "l1_loss", "binary_cross_entropy",
                  "binary_cross_entropy_with_logits", "kl_div")
       for td in ("int64", "int32", "uint8", "bool", "float64")},
    **{f"{fn}-x64-t32": _loss_case(fn, _P, _P, x_dtype="float64", t_dtype="float32")
       for fn in ("mse_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                  "binary_cross_entropy_with_logits")},
    **{f"{fn}-int-input-{td}": _loss_case(fn, _T01, _P if td[0] == "f" else _T01, x_dtype="int64", t_dtype=td)
       for fn in ("mse_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                  "binary_cross_entropy_with_logits")
       for td in ("int64", "float32", "float64")},
    "mse-bcast-int": _loss_case("mse_loss", _P, [1]),
    "huber-weight-int": _loss_case("huber_loss", _P, _T01, weight=([1.0, 2.0, 3.0], "float32")),
    "smooth_l1-beta0-int": _loss_case("smooth_l1_loss", _P, _T01, beta=0.0),
    "bce-range-and-dtype": _loss_case("binary_cross_entropy", [2.0, 0.5, 0.5], _T01),
    "bce-weight-int": _loss_case("binary_cross_entropy", _P, _P, weight=([1, 2, 3], "int64")),
    "bcel-posweight-int-target": _loss_case("binary_cross_entropy_with_logits", _P, _T01,
                                            pos_weight=([1.0, 2.0, 3.0], "float32")),
    "bcel-weight-int-target": _loss_case("binary_cross_entropy_with_logits", _P, _T01,
                                         weight=([1.0, 2.0, 3.0], "float32")),
    "bcel-f64-posweight-f32": _loss_case("binary_cross_entropy_with_logits", _P, _P, x_dtype="float64",
                                         t_dtype="float64", pos_weight=([1.0, 2.0, 3.0], "float32")),
    "bcel-posweight-int": _loss_case("binary_cross_entropy_with_logits", _P, _P, pos_weight=([1, 2, 3], "int64")),
    **{f"{fn}-{td}": _loss_case(fn, _X, _C, t_dtype=td)
       for fn in ("nll_loss", "cross_entropy")
       for td in ("int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64")},
    **{f"{fn}-1d-{td}": _loss_case(fn, _X[0], 1, t_dtype=td)
       for fn in ("nll_loss", "cross_entropy") for td in ("int32", "float32", "uint8")},
    **{f"{fn}-4d-{td}": _loss_case(fn, np.ones((2, 3, 2, 2)).tolist(), np.zeros((2, 2, 2), int).tolist(), t_dtype=td)
       for fn in ("nll_loss", "cross_entropy") for td in ("int32", "float32")},
    "nll-3d-int32-badshape": _loss_case("nll_loss", np.ones((2, 3, 2)).tolist(), np.zeros((2, 3), int).tolist(),
                                        t_dtype="int32"),
    "nll-oob-int32": _loss_case("nll_loss", _X, [5, 1], t_dtype="int32"),
    "nll-oob-uint8": _loss_case("nll_loss", _X, [5, 1], t_dtype="uint8"),
    "nll-ignore-uint8": _loss_case("nll_loss", _X, [5, 1], t_dtype="uint8", ignore_index=5),
    "nll-batch-and-dtype": _loss_case("nll_loss", _X, [1.0, 2.0, 0.0], t_dtype="float32"),
    "nll-int-input": _loss_case("nll_loss", [[1, 2, 3], [4, 5, 6]], _C, x_dtype="int64"),
    "nll-int-input-4d": _loss_case("nll_loss", np.ones((2, 3, 2, 2), int).tolist(),
                                   np.zeros((2, 2, 2), int).tolist(), x_dtype="int64"),
    "nll-int-input-int32": _loss_case("nll_loss", [[1, 2, 3], [4, 5, 6]], _C, x_dtype="int64", t_dtype="int32"),
    "ce-int-input": _loss_case("cross_entropy", [[1, 2, 3], [4, 5, 6]], _C, x_dtype="int64"),
    **{f"{fn}-weight-{wd}": _loss_case(fn, _X, _C, weight=([1, 2, 3], wd))
       for fn in ("nll_loss", "cross_entropy") for wd in ("int64", "float64")},
    "nll-4d-weight-int": _loss_case("nll_loss", np.ones((2, 3, 2, 2)).tolist(), np.zeros((2, 2, 2), int).tolist(),
                                    weight=([1, 2, 3], "int64")),
    "nll-weight-badsize-int": _loss_case("nll_loss", _X, _C, weight=([1, 2], "int64")),
    "nll-int-input-weight-int": _loss_case("nll_loss", [[1, 2, 3], [4, 5, 6]], _C, x_dtype="int64",
                                           weight=([1, 2, 3], "int64")),
    "ce-smoothing-int32": _loss_case("cross_entropy", _X, _C, t_dtype="int32", label_smoothing=0.1),
    "ce-smoothing-uint8": _loss_case("cross_entropy", _X, _C, t_dtype="uint8", label_smoothing=0.1),
    "ce-smoothing-weight-int": _loss_case("cross_entropy", _X, _C, weight=([1, 2, 3], "int64"), label_smoothing=0.1),
    "ce-smoothing-x64-weight-f32": _loss_case("cross_entropy", _X, _C, x_dtype="float64",
                                              weight=([1, 2, 3], "float32"), label_smoothing=0.1),
    "ce-probs-int": _loss_case("cross_entropy", _X, [[0, 1, 0], [1, 0, 0]]),
    "ce-probs-weight-int": _loss_case("cross_entropy", _X, _X, t_dtype="float32", weight=([1, 2, 3], "int64")),
    "ce-0d-int": _loss_case("cross_entropy", 1.0, 1, t_dtype="int32"),
    "ce-0d-float": _loss_case("cross_entropy", 1.0, 1.0, t_dtype="float32"),
}


@pytest.mark.parametrize("name", list(LOSS_DTYPE_CASES))
def test_loss_target_dtypes_match_torch(name):
    both(LOSS_DTYPE_CASES[name])


def _huber_backward(x_dtype, t_dtype, which):
    def program(lib):
        x = lib.tensor([0.2, 0.8], dtype=getattr(lib, x_dtype), requires_grad=which in ("x", "both"))
        t = lib.tensor([0, 1], dtype=getattr(lib, t_dtype), requires_grad=which in ("t", "both"))
        lib.nn.functional.huber_loss(x, t).backward()
        return [v.grad for v in (x, t) if v.requires_grad]

    return program


@pytest.mark.parametrize("x_dtype,t_dtype,which", [
    ("float32", "int64", "x"), ("float32", "float64", "x"), ("float32", "float64", "t"),
    ("float64", "float32", "both"), ("float32", "float32", "both"),
])
def test_huber_backward_needs_one_dtype_as_torch(x_dtype, t_dtype, which):
    both(_huber_backward(x_dtype, t_dtype, which))


# ------------------------------------------------------------------ issue 5: recurrent layers' argument checks


def _rnn_call(cls, args, kwargs, x_shape, hx_shapes=None, x_dtype="float32", hx_dtype="float32"):
    def program(lib):
        m = getattr(lib.nn, cls)(*args, **kwargs)
        with lib.no_grad():  # the same weights in both libraries
            for p in m.parameters():
                p.copy_(lib.tensor(np.sin(np.arange(p.numel()) + 1.0).reshape(tuple(p.shape)) * 0.5))
        x = lib.ones(x_shape, dtype=getattr(lib, x_dtype))
        if hx_shapes is None:
            return m(x)
        hs = [lib.zeros(s, dtype=getattr(lib, hx_dtype)) for s in hx_shapes]
        return m(x, hs[0] if len(hs) == 1 else tuple(hs))

    return program


RNN_ERROR_CASES = {}
for _cls in ("RNN", "LSTM", "GRU"):
    _h1 = [(1, 2, 4), (1, 2, 4)] if _cls == "LSTM" else [(1, 2, 4)]
    RNN_ERROR_CASES.update({
        f"{_cls}-input-size": _rnn_call(_cls, (3, 4), {}, (5, 3, 4)),
        f"{_cls}-input-size-unbatched": _rnn_call(_cls, (3, 4), {}, (5, 4)),
        f"{_cls}-input-size-batch-first": _rnn_call(_cls, (3, 4), {"batch_first": True}, (5, 3, 4)),
        f"{_cls}-4d": _rnn_call(_cls, (3, 4), {}, (5, 3, 4, 1)),
        f"{_cls}-1d": _rnn_call(_cls, (3, 4), {}, (5,)),
        f"{_cls}-input-f64": _rnn_call(_cls, (3, 4), {}, (5, 2, 3), x_dtype="float64"),
        f"{_cls}-input-int": _rnn_call(_cls, (3, 4), {}, (5, 2, 3), x_dtype="int64"),
        f"{_cls}-empty-sequence": _rnn_call(_cls, (3, 4), {}, (0, 2, 3)),
        f"{_cls}-empty-sequence-batch-first": _rnn_call(_cls, (3, 4), {"batch_first": True}, (2, 0, 3)),
        f"{_cls}-hx-batch": _rnn_call(_cls, (3, 4), {}, (5, 2, 3), [(1, 3, 4)] * len(_h1)),
        f"{_cls}-hx-layers": _rnn_call(_cls, (3, 4), {"num_layers": 2, "bidirectional": True}, (5, 2, 3), _h1),
        f"{_cls}-hx-unbatched-3d": _rnn_call(_cls, (3, 4), {}, (5, 3), _h1),
        f"{_cls}-hx-unbatched-size": _rnn_call(_cls, (3, 4), {}, (5, 3), [(2, 4)] * len(_h1)),
        f"{_cls}-hx-batched-2d": _rnn_call(_cls, (3, 4), {}, (5, 2, 3), [(2, 4)] * len(_h1)),
        f"{_cls}-hx-and-input-size": _rnn_call(_cls, (3, 4), {}, (5, 2, 4), [(1, 3, 4)] * len(_h1)),
        f"{_cls}-hx-dtype": _rnn_call(_cls, (3, 4), {}, (5, 2, 3), _h1, hx_dtype="float64"),
        f"{_cls}-unbatched-batch-first-ok": _rnn_call(_cls, (3, 4), {"batch_first": True}, (5, 3),
                                                      [(1, 4)] * len(_h1)),
    })
RNN_ERROR_CASES.update({
    "LSTM-cx-size": _rnn_call("LSTM", (3, 4), {}, (5, 2, 3), [(1, 2, 4), (2, 2, 4)]),
    "LSTM-hx-one-tensor": _rnn_call("LSTM", (3, 4), {}, (5, 2, 3), [(1, 2, 4)]),
    "LSTM-hx-int": _rnn_call("LSTM", (3, 4), {}, (5, 2, 3), [(1, 2, 4)] * 2, hx_dtype="int64"),
    "RNN-hx-tuple": _rnn_call("RNN", (3, 4), {}, (5, 2, 3), [(1, 2, 4)] * 2),
})
for _cls in ("RNNCell", "LSTMCell", "GRUCell"):
    _n = 2 if _cls == "LSTMCell" else 1
    RNN_ERROR_CASES.update({
        f"{_cls}-input-size": _rnn_call(_cls, (3, 4), {}, (2, 4)),
        f"{_cls}-input-size-1d": _rnn_call(_cls, (3, 4), {}, (4,)),
        f"{_cls}-3d": _rnn_call(_cls, (3, 4), {}, (2, 3, 1)),
        f"{_cls}-hx-batch": _rnn_call(_cls, (3, 4), {}, (2, 3), [(3, 4)] * _n),
        f"{_cls}-hx-size": _rnn_call(_cls, (3, 4), {}, (2, 3), [(2, 5)] * _n),
        f"{_cls}-hx-1d-for-2d": _rnn_call(_cls, (3, 4), {}, (2, 3), [(4,)] * _n),
        f"{_cls}-hx-2d-for-1d": _rnn_call(_cls, (3, 4), {}, (3,), [(1, 4)] * _n),
        f"{_cls}-hx-3d": _rnn_call(_cls, (3, 4), {}, (2, 3), [(2, 4, 1)] * _n),
        f"{_cls}-input-f64": _rnn_call(_cls, (3, 4), {}, (2, 3), x_dtype="float64"),
    })
RNN_ERROR_CASES["LSTMCell-cx-size"] = _rnn_call("LSTMCell", (3, 4), {}, (2, 3), [(2, 4), (2, 5)])


@pytest.mark.parametrize("name", list(RNN_ERROR_CASES))
def test_rnn_argument_errors_match_torch(name):
    both(RNN_ERROR_CASES[name])


# ------------------------------------------------------------------ issue 5: batch norm's checks


def _bn_module(cls, n, x_shape, mode, **kw):
    def program(lib):
        m = getattr(lib.nn, cls)(n, **kw)
        if mode == "eval":
            m.eval()
        x = lib.tensor(np.arange(np.prod(x_shape), dtype=np.float32).reshape(x_shape), requires_grad=True)
        out = m(x)
        (g,) = lib.autograd.grad(out.sin().sum(), x)
        buffers = [b.clone() for b in m.buffers()]
        return out.detach(), g, buffers

    return program


def _bn_functional(x_shape, rm, rv, w=None, b=None, training=True, x_dtype="float32"):
    def program(lib):
        def t(spec):
            if spec is None:
                return None
            shape, dtype = spec if isinstance(spec, tuple) and isinstance(spec[0], tuple) else (spec, "float32")
            return lib.ones(shape, dtype=getattr(lib, dtype))
        x = lib.tensor(np.arange(np.prod(x_shape)).reshape(x_shape) % 5, dtype=getattr(lib, x_dtype))
        return lib.nn.functional.batch_norm(x, t(rm), t(rv), t(w), t(b), training=training)

    return program


BN_CASES = {
    f"{cls}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}-{mode}-{shape}": _bn_module(cls, 3, shape, mode, **kw)
    for cls, shapes in (("BatchNorm1d", ((2, 4), (3, 3), (2, 3, 2))), ("BatchNorm2d", ((2, 4, 2, 2), (2, 3, 2, 2))))
    for shape in shapes
    for kw in ({}, {"affine": False}, {"track_running_stats": False},
               {"affine": False, "track_running_stats": False}, {"momentum": None})
    for mode in ("train", "eval")
}
BN_CASES.update({
    "F-all-sizes-wrong": _bn_functional((2, 4, 2, 2), (3,), (3,), (3,), (3,)),
    "F-running-var-wrong": _bn_functional((2, 4), (4,), (3,), (3,)),
    "F-bias-wrong-no-stats": _bn_functional((2, 4), None, None, None, (3,)),
    "F-eval-no-mean": _bn_functional((2, 4), None, (4,), training=False),
    "F-eval-no-var": _bn_functional((2, 4), (4,), None, training=False),
    "F-train-mean-only": _bn_functional((2, 4), (4,), None),
    "F-one-value": _bn_functional((1, 4), (3,), (4,)),
    "F-int-input": _bn_functional((2, 4), (4,), (4,), x_dtype="int64"),
    "F-int-input-bad-size": _bn_functional((2, 4), (3,), (4,), x_dtype="int64"),
    "F-f64-input-f32-stats": _bn_functional((2, 4), (4,), (4,), x_dtype="float64"),
    "F-f32-input-f64-weight": _bn_functional((2, 4), None, None, ((4,), "float64")),
    "F-f64-input-f64-stats": _bn_functional((2, 4), ((4,), "float64"), ((4,), "float64"), x_dtype="float64"),
    "F-half-input-f32-stats": _bn_functional((2, 4), (4,), (4,), x_dtype="float16"),
    "F-2d-running-var": _bn_functional((2, 4), (4,), (2, 2)),
    "F-2d-weight": _bn_functional((2, 4), (4,), (4,), (2, 2), (2, 2)),
    "F-eval-mean-wrong-no-var": _bn_functional((2, 4), (3,), None, training=False),
    # aten reads a 1-D input's channel count as 0 and checks the rank only after the sizes
    "F-1d-input": _bn_functional((3,), (3,), (3,)),
    "F-1d-input-no-stats": _bn_functional((3,), None, None),
    "F-1d-one-value": _bn_functional((1,), None, None),
    # an input without elements returns early (a copy times weight[0] plus bias[0]), before any check
    "F-empty-1d": _bn_functional((0,), (0,), (0,)),
    "F-empty-1d-weight": _bn_functional((0,), None, None, (0,)),
    "F-empty-wrong-stats": _bn_functional((0, 3, 2), (5,), (3,), (3,), (3,)),
    "F-empty-eval-no-stats": _bn_functional((2, 3, 0), None, None, (3,), training=False),
    "F-empty-int": _bn_functional((0, 3), (3,), (3,), x_dtype="int64"),
})


@pytest.mark.parametrize("name", list(BN_CASES))
def test_batch_norm_checks_match_torch(name):
    both(BN_CASES[name])


# group_norm needs (N, C, *); with samples but empty groups, (2, 2, 0), torch's weight gradient is NaN (its formula
# uses the empty groups' NaN statistics), which dyngrad does not reproduce
@pytest.mark.parametrize("norm, shape", [("batch_norm", (0,)), ("batch_norm", (0, 2)), ("batch_norm", (0, 2, 3)),
                                         ("batch_norm", (2, 2, 0)), ("group_norm", (0, 2)), ("group_norm", (0, 2, 3))])
def test_norm_of_empty_input_matches_torch(norm, shape):
    """Inputs without elements: torch's output, grad_fn and (zero) gradients of input, weight and bias."""

    def program(lib):
        x = lib.zeros(shape, dtype=lib.float64, requires_grad=True)
        w = lib.tensor([1.5, -2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, 3.0], dtype=lib.float64, requires_grad=True)
        if norm == "batch_norm":
            y = lib.nn.functional.batch_norm(x, None, None, w, b, training=True)
        else:
            y = lib.nn.functional.group_norm(x, 1, w, b)
        grads = lib.autograd.grad(y, (x, w, b), lib.ones_like(y))
        return y, type(y.grad_fn).__name__, grads

    both(program)


# ------------------------------------------------------------------ issue 5: modules and devices (torch's CPU build)

MODULE_DEVICE_CASES = {
    "cuda": lambda lib: lib.nn.Linear(2, 3).cuda(),
    "cuda-index": lambda lib: lib.nn.Linear(2, 3).cuda(0),
    "cuda-string": lambda lib: lib.nn.Linear(2, 3).cuda("cuda:0"),
    "cuda-cpu-string": lambda lib: lib.nn.Linear(2, 3).cuda("cpu"),
    "cuda-buffers-only": lambda lib: lib.nn.BatchNorm1d(2, affine=False).cuda(),
    "cuda-no-tensors": lambda lib: lib.nn.ReLU().cuda(),
    "cuda-index-no-tensors": lambda lib: lib.nn.ReLU().cuda(0),
    "cpu": lambda lib: lib.nn.Linear(2, 3).cpu(),
    "to-cuda": lambda lib: lib.nn.Linear(2, 3).to("cuda"),
    "to-cuda-index": lambda lib: lib.nn.Linear(2, 3).to("cuda:1"),
    "to-cuda-kw": lambda lib: lib.nn.Linear(2, 3).to(device="cuda"),
    "to-cuda-dtype": lambda lib: lib.nn.Linear(2, 3).to("cuda", lib.float64),
    "to-cuda-kw-dtype": lambda lib: lib.nn.Linear(2, 3).to(dtype=lib.float64, device="cuda"),
    "to-cuda-int-dtype": lambda lib: lib.nn.Linear(2, 3).to("cuda", lib.int64),
    "to-cuda-no-tensors": lambda lib: lib.nn.ReLU().to("cuda"),
    "to-int": lambda lib: lib.nn.Linear(2, 3).to(0),
    "to-unknown-device": lambda lib: lib.nn.ReLU().to("foo"),
    "to-bad-index": lambda lib: lib.nn.ReLU().to("cuda:x"),
    "to-mps": lambda lib: lib.nn.Linear(2, 3).to("mps"),
    "to-xpu": lambda lib: lib.nn.Linear(2, 3).to("xpu"),
    "xpu": lambda lib: lib.nn.Linear(2, 3).xpu(),
    "ipu": lambda lib: lib.nn.Linear(2, 3).ipu(),
    "mtia": lambda lib: lib.nn.Linear(2, 3).mtia(),
    "to-cpu": lambda lib: lib.nn.Linear(2, 3).to("cpu"),
    "to-cpu-index-dtype": lambda lib: lib.nn.Linear(2, 3).to("cpu:0", lib.float64).weight.dtype,
    "to-cpu-device-dtype": lambda lib: lib.nn.Linear(2, 3).to(lib.device("cpu"), dtype=lib.float64).bias.dtype,
}


@pytest.mark.parametrize("name", list(MODULE_DEVICE_CASES))
def test_module_devices_match_torch_cpu_build(name):
    def program(lib):
        out = MODULE_DEVICE_CASES[name](lib)
        return repr(out)

    both(program)


# ------------------------------------------------------------------ issue 5: module backward hooks


def _set_weights(lib, m):
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(np.sin(np.arange(p.numel()) + 1.0).reshape(tuple(p.shape)) * 0.5))
    return m


def _names(*tensors):
    return tuple(type(t.grad_fn).__name__ if t.grad_fn is not None else None for t in tensors)


def _hook_mlp(lib):
    log = []
    nn = lib.nn
    m = _set_weights(lib, nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)))
    for sub in m:
        sub.register_full_backward_hook(lambda mod, gi, go: log.append(("hook", type(mod).__name__, gi, go)))
        sub.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", type(mod).__name__, go)))
    m.register_full_backward_hook(lambda mod, gi, go: log.append(("hook", type(mod).__name__, gi, go)))
    x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
    y = m(x)
    names = _names(y) + tuple(type(n[0]).__name__ for n in y.grad_fn.next_functions)
    (y * lib.tensor([1.0, -2.0])).sum().backward()
    return names, log, x.grad, [p.grad for p in m.parameters()]


class _TwoInputs:
    """A module of two tensor inputs (and a float), three outputs (two tensors and an int)."""

    @staticmethod
    def make(lib):
        class Two(lib.nn.Module):
            def forward(self, a, b, scale=2.0):
                return a * b * scale, a + b, 3

        return Two()


def _hook_two(replace, b_requires_grad=True, use_second=True):
    def program(lib):
        log = []
        m = _TwoInputs.make(lib)

        def hook(mod, gi, go):
            log.append(("hook", gi, go))
            return (gi[0] * 10, None) if replace else None

        def pre(mod, go):
            log.append(("pre", go))
            return (go[0] * 0 + 1, go[1], None) if replace else None

        m.register_full_backward_hook(hook)
        m.register_full_backward_pre_hook(pre)
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=b_requires_grad)
        p, q, r = m(a, b)
        names = _names(p, q) + (p.grad_fn is q.grad_fn, r)
        loss = p.sum() + 2 * q.sum() if use_second else p.sum()
        loss.backward()
        return names, log, a.grad, b.grad

    return program


def _hook_unused_output(lib):
    class M(lib.nn.Module):
        def forward(self, a, b):
            return a * 2, b * 3

    log = []
    m = M()
    m.register_full_backward_hook(lambda mod, gi, go: log.append((gi, go)))
    a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    p, _ = m(a, b)
    p.sum().backward()
    return log, a.grad, b.grad


def _hook_no_input_grad(lib):
    log = []
    m = _set_weights(lib, lib.nn.Linear(3, 2))
    m.register_full_backward_hook(lambda mod, gi, go: log.append((gi, go)))
    y = m(lib.tensor([[1.0, 2.0, 3.0]]))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        y.sum().backward()
    return _names(y), log, m.weight.grad, [str(w.message) for w in rec]


def _hook_no_input_grad_returns(lib):
    m = lib.nn.Linear(3, 2)
    m.register_full_backward_hook(lambda mod, gi, go: (lib.ones(1, 3),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m(lib.ones(1, 3)).sum().backward()


def _hook_bad_length(pre):
    def program(lib):
        m = lib.nn.Linear(2, 2)
        if pre:
            m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
        else:
            m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
        m(lib.ones(1, 2, requires_grad=True)).sum().backward()

    return program


def _hook_mixed(full_first):
    def program(lib):
        m = lib.nn.Linear(2, 2)
        hook = lambda mod, gi, go: None  # noqa: E731
        if full_first:
            m.register_full_backward_hook(hook)
            m.register_backward_hook(hook)
        else:
            m.register_backward_hook(hook)
            m.register_full_backward_hook(hook)

    return program


def _hook_old_style(make, x):
    def program(lib):
        log = []
        m = _set_weights(lib, make(lib.nn))
        m.register_backward_hook(lambda mod, gi, go: log.append((gi, go)))
        xt = lib.tensor(x, requires_grad=True)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            y = m(xt * 2)
        y.sum().backward()
        return _names(y), log[-1:], xt.grad, [(w.category.__name__, str(w.message)) for w in rec]

    return program


def _hook_removed(lib):
    log = []
    m = lib.nn.Linear(3, 2)
    h = m.register_full_backward_hook(lambda mod, gi, go: log.append(1))
    h.remove()
    y = m(lib.ones(1, 3, requires_grad=True))
    y.sum().backward()
    return _names(y), log


def _hook_inplace(where):
    def program(lib):
        m = lib.nn.ReLU(inplace=True) if where == "module" else lib.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda mod, gi, go: None)
        y = m(lib.ones(1, 2, requires_grad=True) * 1)
        if where == "output":
            y += 1
        return y

    return program


def _hook_no_grad(lib):
    m = lib.nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    with lib.no_grad():
        y = m(lib.ones(1, 2, requires_grad=True))
    return _names(y)


def _hook_dict_output(lib):
    class D(lib.nn.Module):
        def forward(self, x):
            return {"a": x * 2}

    m = D()
    m.register_full_backward_hook(lambda mod, gi, go: None)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        y = m(lib.ones(2, requires_grad=True))["a"]
    return _names(y), [str(w.message) for w in rec]


def _hook_double_backward(lib):
    log = []
    m = lib.nn.Tanh()
    m.register_full_backward_hook(lambda mod, gi, go: log.append((gi, go, _names(*gi))))
    x = lib.tensor([0.5, 1.0], requires_grad=True)
    (g,) = lib.autograd.grad(m(x).sum(), x, create_graph=True)
    g.sum().backward()
    return log, x.grad


def _state_dict_hooks(lib):
    out = []
    m = lib.nn.Sequential(lib.nn.Linear(2, 2))
    m[0].register_state_dict_pre_hook(lambda mod, prefix, keep_vars: out.append(("pre", prefix, keep_vars)))

    def post(mod, sd, prefix, meta):
        out.append(("post", prefix, sorted(sd), dict(meta)))

    m[0].register_state_dict_post_hook(post)
    m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"x": 1})
    out.append(m.state_dict(prefix="p."))
    m2 = lib.nn.Linear(2, 2)
    m2.register_state_dict_post_hook(lambda *a: {})
    for call in (lambda: m._register_state_dict_hook(post), m2.state_dict):
        try:
            call()
        except RuntimeError as e:
            out.append(str(e))
    return out


MODULE_HOOK_CASES = {
    "mlp-full-and-pre-hooks": _hook_mlp,
    "two-inputs": _hook_two(False),
    "two-inputs-hooks-replace-gradients": _hook_two(True),
    "two-inputs-one-requires-grad": _hook_two(False, b_requires_grad=False, use_second=False),
    "unused-output": _hook_unused_output,
    "no-input-requires-grad": _hook_no_input_grad,
    "no-input-requires-grad-hook-returns": _hook_no_input_grad_returns,
    "hook-returns-wrong-length": _hook_bad_length(False),
    "pre-hook-returns-wrong-length": _hook_bad_length(True),
    "full-then-old-style": _hook_mixed(True),
    "old-style-then-full": _hook_mixed(False),
    "old-style-linear": _hook_old_style(lambda nn: nn.Linear(3, 2), [[1.0, 2.0, 3.0]]),
    "old-style-relu": _hook_old_style(lambda nn: nn.ReLU(), [[1.0, -2.0, 3.0]]),
    "old-style-sequential": _hook_old_style(lambda nn: nn.Sequential(nn.Linear(3, 2), nn.Tanh()), [[1.0, 2.0, 3.0]]),
    "removed-hook": _hook_removed,
    "inplace-module": _hook_inplace("module"),
    "inplace-on-output": _hook_inplace("output"),
    "no-grad-mode": _hook_no_grad,
    "dict-output": _hook_dict_output,
    "double-backward": _hook_double_backward,
    "state-dict-hooks": _state_dict_hooks,
}


@pytest.mark.parametrize("name", list(MODULE_HOOK_CASES))
def test_module_backward_and_state_dict_hooks_match_torch(name):
    both(MODULE_HOOK_CASES[name])


@pytest.mark.parametrize("fn", ["softsign", "tanhshrink", "glu"])
def test_functional_activations_match_torch(fn):
    def program(lib):
        x = lib.tensor([[0.5, -1.0, 2.0, 3.0], [0.0, -0.3, 1.5, -2.5]], requires_grad=True)
        y = getattr(lib.nn.functional, fn)(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        return y, _names(y), g, gg

    both(program)


@pytest.mark.parametrize(
    "name", ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform",
             "kaiming_normal", "orthogonal", "sparse"],
)
def test_deprecated_init_aliases_warn_as_torch(name) -> None:
    import warnings as _w

    shapes = {"dirac": (2, 2, 3), "sparse": (4, 3)}
    args = {"constant": (0.5,), "sparse": (0.5,)}
    seen = []
    for lib in (dyngrad, torch):
        t = lib.empty(*shapes.get(name, (3, 3)))
        with _w.catch_warnings(record=True) as caught:
            _w.simplefilter("always")
            out = getattr(lib.nn.init, name)(t, *args.get(name, ()))
        assert out is t
        seen.append([(w.category.__name__, str(w.message)) for w in caught])
    assert seen[0] == seen[1]


# ----------------------------------------------------------------------------------------------- pad_sequence


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("lengths,trailing", [((3, 1, 4), (2,)), ((2,), ()), ((0, 2), (2, 3))])
def test_pad_sequence_matches_torch(lengths, trailing, batch_first, padding_side):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((n,) + trailing) for n in lengths]
    outs = []
    for lib in (torch, dyngrad):
        seqs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = lib.nn.utils.rnn.pad_sequence(seqs, batch_first=batch_first, padding_value=-2.5,
                                            padding_side=padding_side)
        g = np.arange(np.prod(tuple(out.shape)), dtype="float64").reshape(tuple(out.shape))
        out.backward(lib.tensor(g))
        outs.append((out, type(out.grad_fn).__name__, [s.grad for s in seqs]))
    (t, tname, tgrads), (d, dname, dgrads) = outs
    assert_same_tensor(d, t)
    assert dname == tname == "CopySlices"
    for dg, tg in zip(dgrads, tgrads):
        assert_same_tensor(dg, tg)


def test_pad_sequence_dtypes_and_errors():
    pad = lambda lib, *a, **kw: lib.nn.utils.rnn.pad_sequence(*a, **kw)  # noqa: E731
    cases = [
        lambda lib: pad(lib, [lib.tensor([1, 2]), lib.tensor([3])], padding_value=0.5),
        lambda lib: pad(lib, [lib.ones(2), lib.ones(3, dtype=lib.float64)]),
        lambda lib: pad(lib, lib.ones(2, 3)),
        lambda lib: pad(lib, (lib.ones(2, 3),), batch_first=True),
        lambda lib: pad(lib, []),
        lambda lib: pad(lib, [lib.ones(2, 3), lib.ones(2, 4)]),
        lambda lib: pad(lib, [lib.ones(2), lib.ones(2, 1)]),
        lambda lib: pad(lib, [lib.ones(2)], padding_side="middle"),
        lambda lib: pad(lib, [lib.ones(())]),
        lambda lib: pad(lib, 3),
    ]
    for case in cases:
        d, t = same_error(lambda case=case: case(dyngrad), lambda case=case: case(torch))
        if t is not None:
            assert_same_tensor(d, t)
