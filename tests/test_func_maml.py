"""MAML-style meta-learning written once for torch.func and run under both libraries (float64): ``grad`` inside
``vmap`` inside ``grad`` through ``functional_call``.

Each task is a sine regression with its own amplitude and phase. The inner loop adapts the meta-parameters to a
task's support set by two steps of gradient descent (``grad`` of the support loss, with the graph kept so that the
outer gradient flows through the steps); ``vmap`` runs the adaptation for every task at once; the outer ``grad``
differentiates the mean query loss after adaptation with respect to the meta-parameters. A few outer steps of
plain SGD follow. Every result (per-task adapted parameters, query losses, meta-gradients, the parameters after
the outer steps) must agree with torch's.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch.func

import dyngrad
import dyngrad.func
from conftest import assert_same_tensor

RNG = np.random.default_rng(2024)
TASKS, SHOTS, QUERIES = 4, 5, 6
AMPLITUDE = RNG.uniform(0.5, 2.0, (TASKS, 1, 1))
PHASE = RNG.uniform(0, np.pi, (TASKS, 1, 1))
X_SUPPORT = RNG.uniform(-3, 3, (TASKS, SHOTS, 1))
X_QUERY = RNG.uniform(-3, 3, (TASKS, QUERIES, 1))
Y_SUPPORT = AMPLITUDE * np.sin(X_SUPPORT + PHASE)
Y_QUERY = AMPLITUDE * np.sin(X_QUERY + PHASE)
INIT = [RNG.standard_normal((16, 1)) * 0.8, RNG.standard_normal(16) * 0.1,
        RNG.standard_normal((16, 16)) * 0.25, RNG.standard_normal(16) * 0.1,
        RNG.standard_normal((1, 16)) * 0.25, RNG.standard_normal(1) * 0.1]


def _model(lib):
    net = lib.nn.Sequential(lib.nn.Linear(1, 16), lib.nn.Tanh(), lib.nn.Linear(16, 16), lib.nn.Tanh(),
                            lib.nn.Linear(16, 1)).double()
    with lib.no_grad():
        for p, a in zip(net.parameters(), INIT):
            p.copy_(lib.from_numpy(a.copy()))
    return net


def maml(lib, inner_lr=0.05, inner_steps=2, outer_lr=0.01, outer_steps=3, first_order=False):
    F = lib.func
    net = _model(lib)
    params = {k: v.detach() for k, v in net.named_parameters()}

    def loss(p, x, y):
        return lib.nn.functional.mse_loss(F.functional_call(net, p, (x,)), y)

    def adapt(p, x, y):
        for _ in range(inner_steps):
            g = F.grad(loss)(p, x, y)
            if first_order:
                g = {k: v.detach() for k, v in g.items()}
            p = {k: p[k] - inner_lr * g[k] for k in p}
        return p

    def task_loss(p, xs, ys, xq, yq):
        adapted = adapt(p, xs, ys)
        return loss(adapted, xq, yq), adapted

    def meta_loss(p, xs, ys, xq, yq):
        losses, adapted = F.vmap(task_loss, in_dims=(None, 0, 0, 0, 0))(p, xs, ys, xq, yq)
        return losses.mean(), (losses, adapted)

    data = [lib.from_numpy(a.copy()) for a in (X_SUPPORT, Y_SUPPORT, X_QUERY, Y_QUERY)]
    history = []
    for _ in range(outer_steps):
        meta_grads, (losses, adapted) = F.grad(meta_loss, has_aux=True)(params, *data)
        history.append((losses, adapted, meta_grads))
        params = {k: params[k] - outer_lr * meta_grads[k] for k in params}
    return params, history


def _compare(d, t, what):
    if isinstance(t, dict):
        assert sorted(d) == sorted(t), what
        for k in t:
            _compare(d[k], t[k], f"{what}[{k}]")
    elif isinstance(t, (tuple, list)):
        assert len(d) == len(t), what
        for i, (a, b) in enumerate(zip(d, t)):
            _compare(a, b, f"{what}[{i}]")
    else:
        assert_same_tensor(d, t, what=what)


@pytest.mark.parametrize("first_order", [False, True], ids=["second_order", "first_order"])
def test_maml_matches_torch(first_order):
    t_params, t_history = maml(torch, first_order=first_order)
    d_params, d_history = maml(dyngrad, first_order=first_order)
    _compare(d_history, t_history, "history")
    _compare(d_params, t_params, "params")
    # the meta-learning did something: the mean query loss went down over the outer steps
    losses = [float(h[0].mean()) for h in t_history]
    assert losses[-1] < losses[0]


def test_maml_per_task_gradients_with_jacrev():
    """The Jacobian of every task's query loss with respect to the meta-parameters (jacrev over the vmapped task
    losses), as torch gives it."""
    results = []
    for lib in (torch, dyngrad):
        F = lib.func
        net = _model(lib)
        params = {k: v.detach() for k, v in net.named_parameters()}

        def loss(p, x, y, net=net, lib=lib, F=F):
            return lib.nn.functional.mse_loss(F.functional_call(net, p, (x,)), y)

        def task_losses(p, xs, ys, xq, yq, loss=loss, F=F):
            def one(xs, ys, xq, yq):
                g = F.grad(loss)(p, xs, ys)
                return loss({k: p[k] - 0.05 * g[k] for k in p}, xq, yq)

            return F.vmap(one)(xs, ys, xq, yq)

        data = [lib.from_numpy(a.copy()) for a in (X_SUPPORT, Y_SUPPORT, X_QUERY, Y_QUERY)]
        results.append(F.jacrev(task_losses)(params, *data))
    _compare(results[1], results[0], "jacobian")
