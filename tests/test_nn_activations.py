"""Hardshrink, Softshrink, RReLU, AlphaDropout, FeatureAlphaDropout and RMSNorm modules against torch, the
random training modes by their statistics and exact structure, and bad-input errors (type and text).

The deterministic cases of the functions are rows of tests/op_rows_activations_extra.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch  # noqa: F401 - the oracle, imported plainly

import dyngrad
from conftest import both

X = np.random.default_rng(4).standard_normal((4, 3, 5))


def _module_run(lib, make, train: bool):
    mod = make(lib)
    mod.train(train)
    x = lib.tensor(X, requires_grad=True)
    out = mod(x)
    params = [p for p in mod.parameters()]
    grads = lib.autograd.grad((out * out).sum(), [x, *params])
    return (repr(mod), out, *grads)


MODULES = {
    "Hardshrink": lambda lib: lib.nn.Hardshrink(0.7),
    "Softshrink": lambda lib: lib.nn.Softshrink(0.2),
    "RReLU_eval": lambda lib: lib.nn.RReLU(0.1, 0.4),
    "AlphaDropout_eval": lambda lib: lib.nn.AlphaDropout(0.3),
    "FeatureAlphaDropout_eval": lambda lib: lib.nn.FeatureAlphaDropout(0.3),
    "RMSNorm": lambda lib: lib.nn.RMSNorm(5),
    "RMSNorm_2d_eps": lambda lib: lib.nn.RMSNorm([3, 5], eps=1e-3),
    "RMSNorm_no_affine": lambda lib: lib.nn.RMSNorm(5, elementwise_affine=False),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_activation_module_matches_torch(name):
    both(lambda lib: _module_run(lib, MODULES[name], train=not name.endswith("_eval")))


def test_rmsnorm_trains_like_torch():
    """A weight with a non-trivial gradient: three SGD steps of RMSNorm(5) in float32 give torch's weights."""
    def program(lib):
        lib.manual_seed(0)
        norm = lib.nn.RMSNorm(5, dtype=lib.float32)
        opt = lib.optim.SGD(norm.parameters(), lr=0.1)
        x = lib.tensor(X, dtype=lib.float32)
        for _ in range(3):
            opt.zero_grad()
            loss = (norm(x) * lib.linspace(-1, 1, 5)).pow(2).sum()
            loss.backward()
            opt.step()
        return norm.weight.detach(), loss.detach()

    both(program)


def test_rrelu_training_draws():
    """Training mode: each x <= 0 is scaled by its own slope r in [lower, upper], positives pass; the gradient is
    the slope (torch's noise); slopes spread over the range (their mean near (lower + upper) / 2)."""
    lower, upper = 0.1, 0.4
    x = dyngrad.tensor(np.random.default_rng(1).standard_normal(20000), requires_grad=True)
    out = dyngrad.nn.functional.rrelu(x, lower, upper, training=True)
    assert type(out.grad_fn).__name__ == "RreluWithNoiseBackward0"
    out.sum().backward()
    a, o, g = x.detach().numpy(), out.detach().numpy(), x.grad.numpy()
    pos = a > 0
    np.testing.assert_array_equal(o[pos], a[pos])
    np.testing.assert_array_equal(g[pos], 1.0)
    slopes = o[~pos] / a[~pos]
    np.testing.assert_allclose(g[~pos], slopes, rtol=1e-12)
    assert slopes.min() >= lower and slopes.max() <= upper
    assert abs(slopes.mean() - (lower + upper) / 2) < 0.01
    assert abs(slopes.std() - (upper - lower) / math.sqrt(12)) < 0.01  # uniform's standard deviation


def test_rrelu_inplace_training_rebases_the_history():
    def program(lib):
        x = lib.tensor(X, requires_grad=True)
        y = x * 1
        out = lib.nn.functional.rrelu(y, 0.2, 0.2, training=True, inplace=True)
        return out is y, type(out.grad_fn).__name__, out, lib.autograd.grad(out.sum(), x)[0]

    both(program)


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_keeps_selu_statistics(feature):
    """Alpha dropout of standard normal input keeps mean 0 and variance 1 (Klambauer et al. 2017); each element is
    x * a + alpha * a * p when kept and -alpha * a + alpha * a * p when dropped, and its gradient is a or 0."""
    p = 0.3
    alpha = 1.7580993408473766
    a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    shape = (400, 200, 2) if feature else (80000,)
    x = dyngrad.tensor(np.random.default_rng(2).standard_normal(shape), requires_grad=True)
    fn = dyngrad.nn.functional.feature_alpha_dropout if feature else dyngrad.nn.functional.alpha_dropout
    out = fn(x, p, training=True)
    assert type(out.grad_fn).__name__ == "AddBackward0"
    out.sum().backward()
    o, g, xa = out.detach().numpy(), x.grad.numpy(), x.detach().numpy()
    kept = g != 0
    np.testing.assert_allclose(g[kept], a)
    np.testing.assert_allclose(o[kept], xa[kept] * a + alpha * a * p)
    np.testing.assert_allclose(o[~kept], -alpha * a + alpha * a * p)
    assert abs(kept.mean() - (1 - p)) < 0.01
    assert abs(o.mean()) < 0.02 and abs(o.var() - 1) < 0.02
    if feature:  # whole channels share their fate
        assert (kept == kept[:, :, :1]).all()


BAD = {
    "softshrink_negative": lambda lib: lib.nn.functional.softshrink(lib.zeros(3), -1.0),
    "softshrink_negative_double": lambda lib: lib.nn.functional.softshrink(lib.zeros(3, dtype=lib.float64), -0.5),
    "softshrink_int": lambda lib: lib.nn.functional.softshrink(lib.tensor([1, 2]), 0.5),
    "hardshrink_int": lambda lib: lib.nn.functional.hardshrink(lib.tensor([1, 2]), 0.5),
    "rrelu_int": lambda lib: lib.nn.functional.rrelu(lib.tensor([1, 2]), training=True),
    "rrelu_bounds": lambda lib: lib.nn.functional.rrelu(lib.zeros(3), 0.5, 0.2, training=True),
    "alpha_dropout_p": lambda lib: lib.nn.functional.alpha_dropout(lib.zeros(3), 1.5),
    "feature_alpha_dropout_1d": lambda lib: lib.nn.functional.feature_alpha_dropout(lib.zeros(3), 0.5, training=True),
    "alpha_dropout_int": lambda lib: lib.nn.functional.alpha_dropout(lib.tensor([1, 2]), 0.5, training=True),
    "alpha_dropout_module_p": lambda lib: lib.nn.AlphaDropout(-0.1),
    "rms_norm_shape": lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), (4,)),
    "rms_norm_shape_2d": lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), (2, 2)),
    "rms_norm_weight": lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), (3,), weight=lib.ones(2)),
    "rms_norm_empty_shape": lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), ()),
    "rms_norm_int": lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3, dtype=lib.int32), (3,)),
}


@pytest.mark.parametrize("name", list(BAD))
def test_activation_bad_inputs(name):
    both(BAD[name])


def test_top_level_and_method_forms():
    def program(lib):
        x = lib.tensor(X)
        return (lib.hardshrink(x, 0.3), x.hardshrink(0.3), lib.rrelu(x), lib.rms_norm(x, [5]),
                lib.alpha_dropout(x, 0.5, False), lib.feature_alpha_dropout(x, 0.5, False))

    both(program)
