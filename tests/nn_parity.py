"""Shared by the nn test files: torch's weights into a dyngrad module, and one layer checked against torch."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import torch
import torch.nn as tnn

import dyngrad
import dyngrad.nn as dnn
from conftest import assert_same_tensor


def copy_weights(tm, dm):
    """Load torch's parameters and buffers into the dyngrad module (strict: the key sets must agree)."""
    sd = OrderedDict((k, dyngrad.tensor(v.detach().numpy())) for k, v in tm.state_dict().items())
    result = dm.load_state_dict(sd)
    assert repr(result) == "<All keys matched successfully>"


def check_layer_parity(name, make, shapes, dtype):
    """``make(nn)`` built by both libraries with torch's weights (moved off their defaults): repr, state_dict
    keys, parameters, output, grad_fn name, input/parameter gradients and buffers after forward equal torch's."""
    torch.manual_seed(0)
    tm, dm = make(tnn), make(dnn)
    if dtype == "float64":
        tm, dm = tm.double(), dm.double()
    assert repr(dm) == repr(tm)
    assert list(dm.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in dm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    for (n, dp), (_, tp) in zip(dm.named_parameters(), tm.named_parameters()):
        assert dp.shape == tp.shape and repr(dp.dtype) == repr(tp.dtype), n
    with torch.no_grad():  # move off torch's ones/zeros defaults so every parameter matters
        for p in tm.parameters():
            p.add_(torch.randn_like(p) * 0.1)
        for b in tm.buffers():
            if b.is_floating_point():
                b.add_(torch.rand_like(b) * 0.2)
    copy_weights(tm, dm)
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    tx = [torch.tensor(a, requires_grad=True) for a in arrays]
    dx = [dyngrad.tensor(a, requires_grad=True) for a in arrays]
    tout, dout = tm(*tx), dm(*dx)
    assert_same_tensor(dout, tout, what=f"{name} output")
    assert type(dout.grad_fn).__name__ == type(tout.grad_fn).__name__
    g = rng.standard_normal(tuple(tout.shape)).astype(dtype)
    tout.backward(torch.tensor(g))
    dout.backward(dyngrad.tensor(g))
    for i, (a, b) in enumerate(zip(dx, tx)):
        assert_same_tensor(a.grad, b.grad, what=f"{name} input grad {i}")
    for (n, dp), (_, tp) in zip(dm.named_parameters(), tm.named_parameters()):
        assert_same_tensor(dp.grad, tp.grad, what=f"{name} grad of {n}")
    for (n, db), (_, tb) in zip(dm.named_buffers(), tm.named_buffers()):
        assert_same_tensor(db, tb, what=f"{name} buffer {n} after forward")
