"""torch.nn.utils.rnn's packed sequences against torch: pack_padded_sequence, pad_packed_sequence, pack_sequence,
unpack_sequence, unpad_sequence, PackedSequence, and RNN/LSTM/GRU over packed input (same weights copied from
torch; outputs, final states and every gradient compared), with torch's error texts."""

from __future__ import annotations

from collections import Counter, OrderedDict

import pytest
import torch

import dyngrad
from conftest import assert_same_tensor

TR = torch.nn.utils.rnn
DR = dyngrad.nn.utils.rnn


def _d(t):
    out = dyngrad.tensor(t.detach().numpy())
    return out.requires_grad_(True) if t.requires_grad else out


def _same_packed(d, t):
    assert type(d).__name__ == "PackedSequence"
    assert_same_tensor(d.data, t.data, what="data")
    assert_same_tensor(d.batch_sizes, t.batch_sizes, what="batch_sizes")
    for name in ("sorted_indices", "unsorted_indices"):
        a, b = getattr(d, name), getattr(t, name)
        assert (a is None) == (b is None), name
        if b is not None:
            assert_same_tensor(a, b, what=name)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce_sorted", [([4, 3, 1], True), ([2, 4, 3], False), ([4, 4, 4], True),
                                                    ("tensor", True), ([1, 2, 4], False)])
def test_pack_and_pad_round_trip(lengths, enforce_sorted, batch_first):
    torch.manual_seed(0)
    x = torch.randn(*((3, 4) if batch_first else (4, 3)), 2, dtype=torch.float64, requires_grad=True)
    t_len = torch.tensor([4, 2, 1]) if lengths == "tensor" else lengths
    d_len = _d(t_len) if lengths == "tensor" else lengths
    dx = _d(x)
    tp = TR.pack_padded_sequence(x, t_len, batch_first=batch_first, enforce_sorted=enforce_sorted)
    dp = DR.pack_padded_sequence(dx, d_len, batch_first=batch_first, enforce_sorted=enforce_sorted)
    _same_packed(dp, tp)
    assert type(dp.data.grad_fn).__name__ == type(tp.data.grad_fn).__name__ == "PackPaddedSequenceBackward0"
    to, tl = TR.pad_packed_sequence(tp, batch_first=batch_first, padding_value=-1.5, total_length=6)
    do, dl = DR.pad_packed_sequence(dp, batch_first=batch_first, padding_value=-1.5, total_length=6)
    assert_same_tensor(do, to)
    assert_same_tensor(dl, tl)
    assert type(do.grad_fn).__name__ == type(to.grad_fn).__name__
    g = torch.randn_like(to)
    assert_same_tensor(dyngrad.autograd.grad(do, dx, _d(g))[0], torch.autograd.grad(to, x, g)[0])


def test_pack_sequence_unpack_and_unpad():
    torch.manual_seed(1)
    seqs = [torch.randn(n, 3, dtype=torch.float64) for n in (2, 5, 1, 3)]
    tp = TR.pack_sequence(seqs, enforce_sorted=False)
    dp = DR.pack_sequence([_d(s) for s in seqs], enforce_sorted=False)
    _same_packed(dp, tp)
    for a, b in zip(DR.unpack_sequence(dp), TR.unpack_sequence(tp)):
        assert_same_tensor(a, b)
    padded = TR.pad_sequence(seqs)
    lengths = torch.tensor([2, 5, 1, 3])
    for a, b in zip(DR.unpad_sequence(_d(padded), _d(lengths)), TR.unpad_sequence(padded, lengths)):
        assert_same_tensor(a, b)
    assert repr(dp.float().data.dtype) == repr(tp.float().data.dtype)
    assert dp.is_cuda is tp.is_cuda is False
    assert dp._fields == tp._fields


PACK_ERRORS = [
    lambda R, lib, x: R.pack_padded_sequence(x, [2, 4, 3]),
    lambda R, lib, x: R.pack_padded_sequence(x, [4, 3, 0]),
    lambda R, lib, x: R.pack_padded_sequence(x, [4, 3]),
    lambda R, lib, x: R.pack_padded_sequence(x, lib.tensor([[4, 3, 2]])),
    lambda R, lib, x: R.pad_packed_sequence(R.pack_padded_sequence(x, [4, 3, 2]), total_length=2),
]


@pytest.mark.parametrize("case", range(len(PACK_ERRORS)))
def test_pack_errors(case):
    x = torch.zeros(4, 3, 2)
    with pytest.raises(Exception) as t_info:
        PACK_ERRORS[case](TR, torch, x)
    with pytest.raises(type(t_info.value)) as d_info:
        PACK_ERRORS[case](DR, dyngrad, _d(x))
    assert str(d_info.value) == str(t_info.value)


RNN_CASES = [
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"batch_first": True}),
    ("GRU", {"bidirectional": True}),
    ("GRU", {"num_layers": 2, "batch_first": True}),
    ("RNN", {"num_layers": 2}),
    ("RNN", {"nonlinearity": "relu", "bidirectional": True}),
]


@pytest.mark.parametrize("with_hx", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(RNN_CASES)))
def test_rnn_over_packed_input(case, dtype, with_hx):
    mode, kw = RNN_CASES[case]
    torch.manual_seed(case)
    tdt, ddt = getattr(torch, dtype), getattr(dyngrad, dtype)
    tm = getattr(torch.nn, mode)(3, 4, dtype=tdt, **kw)
    dm = getattr(dyngrad.nn, mode)(3, 4, dtype=ddt, **kw)
    dm.load_state_dict(OrderedDict((k, _d(v)) for k, v in tm.state_dict().items()))
    bf = kw.get("batch_first", False)
    x = torch.randn(*((3, 5) if bf else (5, 3)), 3, dtype=tdt, requires_grad=True)
    dx = _d(x)
    lengths = [3, 5, 2]
    tp = TR.pack_padded_sequence(x, lengths, batch_first=bf, enforce_sorted=False)
    dp = DR.pack_padded_sequence(dx, lengths, batch_first=bf, enforce_sorted=False)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    t_args, d_args = (), ()
    if with_hx:
        h0 = torch.randn(layers, 3, 4, dtype=tdt)
        t_args = ((h0, h0 * 0.5),) if mode == "LSTM" else (h0,)
        d_args = ((_d(h0), _d(h0 * 0.5)),) if mode == "LSTM" else (_d(h0),)
    to, th = tm(tp, *t_args)
    do, dh = dm(dp, *d_args)
    _same_packed(do, to)
    th, dh = (th, dh) if mode == "LSTM" else ((th,), (dh,))
    for a, b in zip(dh, th):
        assert_same_tensor(a, b, what="h_n")
    tpad, _ = TR.pad_packed_sequence(to, batch_first=bf)
    dpad, _ = DR.pad_packed_sequence(do, batch_first=bf)
    t_loss = tpad.pow(2).sum() + sum(h.sum() for h in th)
    d_loss = dpad.pow(2).sum() + sum(h.sum() for h in dh)
    tg = torch.autograd.grad(t_loss, [x, *tm.parameters()])
    dg = dyngrad.autograd.grad(d_loss, [dx, *dm.parameters()])
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else None
    for i, (a, b) in enumerate(zip(dg, tg)):
        assert_same_tensor(a, b, tol=tol, what=f"grad {i}")


def _node_names(t):
    """The multiset of grad_fn names in the graph behind ``t``."""
    seen, names, stack = set(), Counter(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names[node.name()] += 1
        stack.extend(fn for fn, _ in node.next_functions)
    return names


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True}])
def test_packed_lstm_graph_and_second_derivative(kw, dtype):
    """A packed LSTM records torch's graph node for node (the input projection of all packed rows once, then per
    step a slice of it, addmm of h, add, unsafe_chunk, the gates), and its gradients differentiate again as
    torch's (the gradient of the squared gradient norm with respect to the input and every parameter)."""
    torch.manual_seed(3)
    tdt, ddt = getattr(torch, dtype), getattr(dyngrad, dtype)
    tm = torch.nn.LSTM(3, 4, dtype=tdt, **kw)
    dm = dyngrad.nn.LSTM(3, 4, dtype=ddt, **kw)
    dm.load_state_dict(OrderedDict((k, _d(v)) for k, v in tm.state_dict().items()))
    x = torch.randn(5, 3, 3, dtype=tdt, requires_grad=True)
    dx = _d(x)
    tout, _ = TR.pad_packed_sequence(tm(TR.pack_padded_sequence(x, [5, 3, 2]))[0])
    dout, _ = DR.pad_packed_sequence(dm(DR.pack_padded_sequence(dx, [5, 3, 2]))[0])
    t_loss, d_loss = tout.pow(2).sum(), dout.pow(2).sum()
    assert _node_names(d_loss) == _node_names(t_loss)
    t_in, d_in = [x, *tm.parameters()], [dx, *dm.parameters()]
    tg = torch.autograd.grad(t_loss, t_in, create_graph=True)
    dg = dyngrad.autograd.grad(d_loss, d_in, create_graph=True)
    tgg = torch.autograd.grad(sum(g.pow(2).sum() for g in tg), t_in)
    dgg = dyngrad.autograd.grad(sum(g.pow(2).sum() for g in dg), d_in)
    tol = dict(rtol=1e-3, atol=1e-4) if dtype == "float32" else None
    for i, (a, b) in enumerate(zip(dgg, tgg)):
        assert_same_tensor(a, b, tol=tol, what=f"second-order grad {i}")
