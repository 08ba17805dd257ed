"""nn.AdaptiveLogSoftmaxWithLoss against torch: same weights, outputs, loss, gradients of every parameter and of
the input, log_prob, predict, unbatched input, and the constructor / forward errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch  # noqa: F401 - the oracle, imported plainly

from conftest import both


def _model(lib, dtype="float64", **kwargs):
    opts = dict(div_value=2.0) | kwargs
    m = lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], **opts)
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.5))
    return m.to(getattr(lib, dtype))


X = np.random.default_rng(1).standard_normal((6, 8))
TARGETS = [0, 4, 9, 2, 7, 5]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("head_bias", [False, True])
def test_forward_backward(dtype, head_bias):
    def program(lib):
        m = _model(lib, dtype, head_bias=head_bias)
        x = lib.tensor(X, dtype=getattr(lib, dtype), requires_grad=True)
        out, loss = m(x, lib.tensor(TARGETS))
        loss.backward()
        return (repr(m), [n for n, _ in m.named_parameters()], out, loss, type(out.grad_fn).__name__,
                type(loss.grad_fn).__name__, x.grad, [p.grad for p in m.parameters()])

    both(program)


def test_log_prob_predict_unbatched():
    def program(lib):
        m = _model(lib)
        x = lib.tensor(X)
        out, loss = m(x[0], lib.tensor(7))
        return (m.log_prob(x), m.predict(x), m.predict(x[:1]), out, loss,
                type(out.grad_fn).__name__, m.log_prob(x).exp().sum(1))

    both(program)


def test_only_shortlist_targets():
    both(lambda lib: _model(lib)(lib.tensor(X), lib.tensor([0, 1, 2, 0, 1, 2])))


ERRORS = {
    "empty_cutoffs": lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    "unsorted_cutoffs": lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]),
    "cutoff_too_large": lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]),
    "target_range": lambda lib: _model(lib)(lib.tensor(X), lib.tensor([0, 4, 10, 2, 7, 5])),
    "batch_mismatch": lambda lib: _model(lib)(lib.tensor(X), lib.tensor([0, 4])),
    "target_2d": lambda lib: _model(lib)(lib.tensor(X), lib.tensor([[0]])),
    "log_prob_unbatched": lambda lib: _model(lib).log_prob(lib.tensor(X)[0]),
    "predict_unbatched": lambda lib: _model(lib).predict(lib.tensor(X)[0]),
    "unbatched_input_for_1d_target": lambda lib: _model(lib)(lib.tensor(X)[0], lib.tensor([1] * 8)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors(name):
    both(lambda lib: ERRORS[name](lib) and None)
