"""torch.func's benchmark rows (issue 13): per-sample gradients of an MLP through vmap(grad), the same by a
Python loop over the samples, and jacrev of a 100-to-100 function. Same code on dyngrad and torch (``lib``);
run through benchmarks/run.py (``--only F1,F2,F3``).
"""

from __future__ import annotations

import numpy as np
from workloads import Workload, _np

PS_SIZES = (64, 128, 10)
PS_BATCH = 64
J_N = 100


def ps_data(rng):
    d = {"X": rng.standard_normal((PS_BATCH, PS_SIZES[0])).astype(np.float32),
         "y": rng.integers(0, PS_SIZES[2], PS_BATCH)}
    for i, (n_in, n_out) in enumerate(zip(PS_SIZES[:-1], PS_SIZES[1:])):
        d[f"W{i}"] = (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32)
        d[f"b{i}"] = (0.1 * rng.standard_normal(n_out)).astype(np.float32)
    return d


def _model(lib, d):
    model = lib.nn.Sequential(lib.nn.Linear(PS_SIZES[0], PS_SIZES[1]), lib.nn.ReLU(),
                              lib.nn.Linear(PS_SIZES[1], PS_SIZES[2]))
    with lib.no_grad():
        for i in range(2):
            model[2 * i].weight.copy_(lib.tensor(d[f"W{i}"]))
            model[2 * i].bias.copy_(lib.tensor(d[f"b{i}"]))
    params = {k: v.detach() for k, v in model.named_parameters()}
    return model, params


def _sample_loss(lib, model):
    def loss(params, x, y):
        out = lib.func.functional_call(model, params, (x.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, y.unsqueeze(0))

    return loss


def ps_make(lib, d):
    model, params = _model(lib, d)
    X, y = lib.tensor(d["X"]), lib.tensor(d["y"])
    per_sample = lib.func.vmap(lib.func.grad(_sample_loss(lib, model)), in_dims=(None, 0, 0))

    def step():
        per_sample(params, X, y)

    return step, None


def ps_check(lib, d):
    model, params = _model(lib, d)
    X, y = lib.tensor(d["X"]), lib.tensor(d["y"])
    g = lib.func.vmap(lib.func.grad(_sample_loss(lib, model)), in_dims=(None, 0, 0))(params, X, y)
    return {k: _np(v) for k, v in g.items()}


def loop_make(lib, d):
    model, params = _model(lib, d)
    X, y = lib.tensor(d["X"]), lib.tensor(d["y"])
    grad = lib.func.grad(_sample_loss(lib, model))

    def step():
        grads = [grad(params, X[i], y[i]) for i in range(PS_BATCH)]
        {k: lib.stack([g[k] for g in grads]) for k in grads[0]}

    return step, None


def loop_check(lib, d):
    model, params = _model(lib, d)
    X, y = lib.tensor(d["X"]), lib.tensor(d["y"])
    grad = lib.func.grad(_sample_loss(lib, model))
    grads = [grad(params, X[i], y[i]) for i in range(PS_BATCH)]
    return {k: _np(lib.stack([g[k] for g in grads])) for k in grads[0]}


def j_data(rng):
    return {"x": rng.standard_normal(J_N), "A": rng.standard_normal((J_N, J_N)) / np.sqrt(J_N)}


def _j_fn(lib, A):
    return lambda x: (A @ x).tanh() * x.sin()


def j_make(lib, d):
    x, A = lib.tensor(d["x"]), lib.tensor(d["A"])
    jac = lib.func.jacrev(_j_fn(lib, A))

    def step():
        jac(x)

    return step, None


def j_check(lib, d):
    x, A = lib.tensor(d["x"]), lib.tensor(d["A"])
    return {"jacobian": _np(lib.func.jacrev(_j_fn(lib, A))(x))}


WORKLOADS = {
    w.key: w
    for w in (
        Workload("F1", f"per-sample grads, MLP {'-'.join(map(str, PS_SIZES))}, batch {PS_BATCH}: vmap(grad)", "call",
                 1, 1.5, ps_data, ps_make, ps_check),
        Workload("F2", f"per-sample grads, MLP {'-'.join(map(str, PS_SIZES))}, batch {PS_BATCH}: a loop of grad",
                 "call", 1, 1.5, ps_data, loop_make, loop_check),
        Workload("F3", f"jacrev of a {J_N}-to-{J_N} function (float64)", "call", 1, 1.5, j_data, j_make, j_check),
    )
}
