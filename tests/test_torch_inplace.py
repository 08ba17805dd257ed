"""torch.X_ (the torch-level in-place functions of src/dyngrad/_ops/torch_inplace.py) against torch: the same
tensor returned, values, gradient (or the backward's exception type), grad_fn name; TypeError text for a number."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad._ops.torch_inplace import _METHOD_FORMS

ARGS = {"clamp_": (-0.5, 0.5), "clip_": (-0.5, 0.5), "clamp_max_": (0.3,), "clamp_min_": (0.3,), "fill_": (2.0,),
        "round_": (), "logit_": (), "nan_to_num_": ()}
BINARY = {"ldexp_", "xlogy_"}  # second operand: a tensor
INTEGER = {"gcd_", "lcm_"}


def _run(lib, name):
    if name in INTEGER:
        x = lib.tensor([12, 18, 7])
        r = getattr(lib, name)(x, lib.tensor([8, 12, 3]))
        return r is x, r.numpy().copy(), None, None
    if name == "addmv_":
        x = lib.tensor([0.1, 0.4], dtype=lib.float64, requires_grad=True)
        m = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=lib.float64)
        v = lib.tensor([0.3, -0.2, 0.1], dtype=lib.float64)
        y = x * 1
        r = getattr(lib, name)(y, m, v)
    else:
        x = lib.tensor([0.1, 0.4, 0.7], dtype=lib.float64, requires_grad=True)
        y = x * 1
        args = (lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64),) if name in BINARY else ARGS.get(name, ())
        r = getattr(lib, name)(y, *args)
    same = r is y
    try:
        grad = lib.autograd.grad(r.sum(), x, allow_unused=True)[0] if r.requires_grad else None
        grad = None if grad is None else grad.numpy().copy()
    except Exception as e:  # noqa: BLE001 - torch has no derivative for some in-place forms (acosh_ ...)
        grad = type(e).__name__
    return same, r.detach().numpy().copy(), grad, r.grad_fn.name() if r.grad_fn is not None else None


@pytest.mark.parametrize("name", _METHOD_FORMS)
def test_torch_inplace_matches_torch(name):
    d, t = _run(dyngrad, name), _run(torch, name)
    assert d[0] == t[0]
    np.testing.assert_allclose(d[1], t[1], rtol=1e-12, equal_nan=True)
    if isinstance(t[2], str) or t[2] is None:
        assert d[2] == t[2]
    else:
        np.testing.assert_allclose(d[2], t[2], rtol=1e-12, equal_nan=True)
    assert d[3] == t[3]


@pytest.mark.parametrize("name", ["abs_", "sin_", "exp_"])
def test_torch_inplace_rejects_a_number(name):
    with pytest.raises(TypeError) as expected:
        getattr(torch, name)(2.0)
    with pytest.raises(TypeError) as got:
        getattr(dyngrad, name)(2.0)
    assert str(got.value) == str(expected.value)


def test_torch_dropout_inplace_is_the_functional_form():
    x = dyngrad.ones(4, 5)
    out = dyngrad.dropout_(x, 0.0, True)
    assert out is x and bool((x == 1).all())
    y = torch.ones(4, 5)
    assert torch.dropout_(y, 0.0, True) is y
