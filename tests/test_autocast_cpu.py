"""torch.autocast("cpu") against torch's CPU autocast (Note [CPU autocast]): state, nesting, dtypes per op and a
small model's forward and backward in bfloat16."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from conftest import both


def test_autocast_state_and_dtype_as_torch():
    def program(lib):
        out = [repr(lib.get_autocast_dtype("cpu")), lib.is_autocast_enabled("cpu")]
        with lib.autocast("cpu"):
            out += [repr(lib.get_autocast_dtype("cpu")), lib.is_autocast_enabled("cpu"), lib.is_autocast_enabled()]
            with lib.autocast("cpu", dtype=lib.float16):
                out += [repr(lib.get_autocast_dtype("cpu")), lib.is_autocast_enabled("cpu")]
                with lib.autocast("cpu", enabled=False):
                    out += [lib.is_autocast_enabled("cpu"), repr((lib.ones(2, 2) @ lib.ones(2, 2)).dtype)]
                out.append(repr((lib.ones(2, 2) @ lib.ones(2, 2)).dtype))
            out.append(repr((lib.ones(2, 2) @ lib.ones(2, 2)).dtype))
        out += [repr(lib.get_autocast_dtype("cpu")), lib.is_autocast_enabled("cpu")]
        lib.set_autocast_dtype("cpu", lib.float16)
        with lib.autocast("cpu"):
            out.append(repr((lib.ones(2, 2) @ lib.ones(2, 2)).dtype))
        lib.set_autocast_dtype("cpu", lib.bfloat16)

        @lib.autocast("cpu")
        def decorated():
            return lib.is_autocast_enabled("cpu"), repr((lib.ones(2, 2) @ lib.ones(2, 2)).dtype)

        out.append(decorated())
        return out

    both(program)


def _warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category.__name__, str(w.message)) for w in caught]


def test_unsupported_dtype_and_deprecated_alias_warn_as_torch():
    def f64(lib):
        with lib.autocast("cpu", dtype=lib.float64):
            assert repr((lib.ones(2, 2) @ lib.ones(2, 2)).dtype) == "torch.float32"
            assert repr(lib.get_autocast_dtype("cpu")) == "torch.float64"

    assert _warnings(lambda: f64(dyngrad)) == _warnings(lambda: f64(torch))

    def old(lib):
        with lib.cpu.amp.autocast():
            assert lib.is_autocast_enabled("cpu")
            assert repr((lib.ones(2, 2) @ lib.ones(2, 2)).dtype) == "torch.bfloat16"

    assert _warnings(lambda: old(dyngrad)) == _warnings(lambda: old(torch))
    with pytest.raises(RuntimeError) as ours:
        dyngrad.get_autocast_dtype("foo")
    with pytest.raises(RuntimeError) as theirs:
        torch.get_autocast_dtype("foo")
    assert str(ours.value) == str(theirs.value)


_X = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)

# the result dtype of each op inside autocast("cpu"), float32 inputs unless said
_OPS = {
    "matmul": lambda L, x: x @ x.T,
    "matmul_mv": lambda L, x: x @ x[0],
    "matmul_dot": lambda L, x: x[0] @ x[0],
    "mv": lambda L, x: L.mv(x, x[0]),
    "dot": lambda L, x: L.dot(x[0], x[0]),
    "mm": lambda L, x: L.mm(x, x.T),
    "bmm": lambda L, x: L.bmm(x[None], x.T[None]),
    "addmm": lambda L, x: L.addmm(x[:, :3], x, x.T),
    "baddbmm": lambda L, x: L.baddbmm(x[None, :, :3], x[None], x.T[None]),
    "linear": lambda L, x: L.nn.functional.linear(x, x[:2], x[0, :2]),
    "conv1d": lambda L, x: L.nn.functional.conv1d(x.T[None], x[:2].reshape(2, 4, 1)),
    "conv2d": lambda L, x: L.nn.functional.conv2d(x[None, None], x[None, None, :2, :2]),
    "conv_transpose2d": lambda L, x: L.nn.functional.conv_transpose2d(x[None, None], x[None, None, :2, :2]),
    "prelu": lambda L, x: L.nn.functional.prelu(x, L.ones(1)),
    "float64_matmul": lambda L, x: x.double() @ x.double().T,
    "relu_after": lambda L, x: L.relu(x @ x.T),
    "softmax_after": lambda L, x: L.softmax(x @ x.T, 1),
    "add_mixed": lambda L, x: (x @ x.T) + x[:, :3],
    "cat_promote": lambda L, x: L.cat([x @ x.T, x[:, :3]]),
    "cross_entropy": lambda L, x: L.nn.functional.cross_entropy(x @ x.T, L.tensor([0, 1, 2])),
    "nll_loss": lambda L, x: L.nn.functional.nll_loss(x @ x.T, L.tensor([0, 1, 2])),
    "mse_loss": lambda L, x: L.nn.functional.mse_loss(x @ x.T, x[:, :3]),
    "l1_loss": lambda L, x: L.nn.functional.l1_loss(x @ x.T, x[:, :3]),
    "smooth_l1_loss": lambda L, x: L.nn.functional.smooth_l1_loss(x @ x.T, x[:, :3]),
    "bce_logits": lambda L, x: L.nn.functional.binary_cross_entropy_with_logits(x @ x.T, x[:, :3].sigmoid()),
    "prod": lambda L, x: L.prod(x @ x.T),
    "trace": lambda L, x: L.trace(x @ x.T),
    "cdist": lambda L, x: L.cdist(x @ x.T, x @ x.T),
    "sum_after": lambda L, x: (x @ x.T).sum(),
}


@pytest.mark.parametrize("name", list(_OPS))
def test_op_dtypes_and_values_under_autocast_as_torch(name):
    results = []
    for lib in (dyngrad, torch):
        x = lib.tensor(_X, requires_grad=True)
        with lib.autocast("cpu"):
            out = _OPS[name](lib, x)
        out.float().sum().backward()
        results.append((out, x.grad))
    (d, dg), (t, tg) = results
    assert repr(d.dtype) == repr(t.dtype), name
    assert repr(dg.dtype) == repr(tg.dtype) == "torch.float32"
    np.testing.assert_allclose(d.detach().float().numpy(), t.detach().float().numpy(), rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(dg.numpy(), tg.numpy(), rtol=2e-2, atol=2e-2)


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(
        lib.nn.Conv2d(2, 4, 3, padding=1), lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.Linear(4 * 5 * 5, 16),
        lib.nn.LayerNorm(16), lib.nn.GELU(), lib.nn.Linear(16, 3),
    )


def test_small_model_forward_backward_under_autocast_as_torch():
    rng = np.random.default_rng(5)
    images = rng.standard_normal((6, 2, 5, 5)).astype(np.float32)
    labels = rng.integers(0, 3, 6)
    runs = []
    for lib in (dyngrad, torch):
        model = _model(lib)
        if lib is dyngrad:  # the same weights in both
            for p_d, p_t in zip(model.parameters(), runs[0][3] if runs else _model(torch).parameters()):
                p_d.data = lib.tensor(p_t.detach().numpy())
        x = lib.tensor(images)
        with lib.autocast("cpu"):
            acts, h = [], x
            for layer in model:
                h = layer(h)
                acts.append(h)
            loss = lib.nn.functional.cross_entropy(h, lib.tensor(labels))
        loss.backward()
        runs.append((acts, loss, [p.grad for p in model.parameters()], list(model.parameters())))
    (d_acts, d_loss, d_grads, _), (t_acts, t_loss, t_grads, _) = runs
    for i, (a, b) in enumerate(zip(d_acts, t_acts)):  # every layer's bfloat16 output: torch's bits
        assert repr(a.dtype) == repr(b.dtype) == "torch.bfloat16", f"layer {i}"
        np.testing.assert_array_equal(a.detach().float().numpy(), b.detach().float().numpy(), err_msg=f"layer {i}")
    assert repr(d_loss.dtype) == repr(t_loss.dtype) == "torch.float32"
    np.testing.assert_allclose(d_loss.item(), t_loss.item(), rtol=1e-6)
    # parameter gradients (float32, through ToCopyBackward0) come from bfloat16 backward kernels; where torch's
    # kernel is fused and keeps other intermediates in bfloat16 (layer_norm's mean/rstd) a value differs by a
    # bfloat16 ulp or so: measured under 1.3% of the largest gradient of the parameter
    for i, (a, b) in enumerate(zip(d_grads, t_grads)):
        assert repr(a.dtype) == repr(b.dtype) == "torch.float32"
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0, atol=2e-2 * float(np.abs(b.numpy()).max()),
                                   err_msg=f"parameter {i}")
