"""Issue 4's benchmark rows: jacobian and hessian of a 100-input function, and a gradient-penalty
double backward on an MLP. Same code on dyngrad and torch (``lib``); run through benchmarks/run.py.
"""

from __future__ import annotations

import numpy as np
from workloads import Workload, _leaf, _np

A_N = 100  # inputs of the function differentiated by jacobian / hessian


def _fn(lib, x, A):
    """R^100 -> R^100: a smooth map with a dense Jacobian."""
    return (A @ x).tanh() * x.sin() + (x * x).sum() * 0.01


def a_data(rng):
    return {
        "x": rng.standard_normal(A_N),
        "A": rng.standard_normal((A_N, A_N)) / np.sqrt(A_N),
    }


def jac_make(lib, d):
    x, A = lib.tensor(d["x"]), lib.tensor(d["A"])

    def step():
        lib.autograd.functional.jacobian(lambda t: _fn(lib, t, A), x)

    return step, None


def jac_check(lib, d):
    x, A = lib.tensor(d["x"]), lib.tensor(d["A"])
    return {"jacobian": _np(lib.autograd.functional.jacobian(lambda t: _fn(lib, t, A), x))}


def hess_make(lib, d):
    x, A = lib.tensor(d["x"]), lib.tensor(d["A"])

    def step():
        lib.autograd.functional.hessian(lambda t: _fn(lib, t, A).sum(), x)

    return step, None


def hess_check(lib, d):
    x, A = lib.tensor(d["x"]), lib.tensor(d["A"])
    return {"hessian": _np(lib.autograd.functional.hessian(lambda t: _fn(lib, t, A).sum(), x))}


GP_SIZES = (32, 64, 64, 1)
GP_BATCH = 64


def gp_data(rng):
    d = {"X": rng.standard_normal((GP_BATCH, GP_SIZES[0])).astype(np.float32)}
    for i, (n_in, n_out) in enumerate(zip(GP_SIZES[:-1], GP_SIZES[1:])):
        d[f"W{i}"] = (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)
        d[f"b{i}"] = np.zeros(n_out, dtype=np.float32)
    return d


def _gp_names():
    return [f"{k}{i}" for i in range(len(GP_SIZES) - 1) for k in ("W", "b")]


def _gp_loss(lib, params, X):
    """WGAN-GP style: the critic's output plus the penalty (||d out / d X|| - 1)^2."""
    X = X.detach().requires_grad_(True)
    h = X
    for i in range(len(params) // 2):
        h = h @ params[2 * i] + params[2 * i + 1]
        if i < len(params) // 2 - 1:
            h = h.tanh()
    (g,) = lib.autograd.grad(h.sum(), X, create_graph=True)
    penalty = ((g * g).sum(dim=1).sqrt() - 1) ** 2
    return h.mean() + 10 * penalty.mean()


def gp_make(lib, d):
    params = [_leaf(lib, d[k]) for k in _gp_names()]
    X = lib.tensor(d["X"])

    def step():
        for p in params:
            p.grad = None
        _gp_loss(lib, params, X).backward()

    return step, None


def gp_check(lib, d):
    params = [_leaf(lib, d[k]) for k in _gp_names()]
    loss = _gp_loss(lib, params, lib.tensor(d["X"]))
    loss.backward()
    return {"loss": _np(loss), "W0.grad": _np(params[0].grad)}


WORKLOADS = {
    w.key: w
    for w in (
        Workload("A1", f"jacobian of a {A_N}-input function (float64)", "call", 1, 2.0, a_data, jac_make, jac_check),
        Workload("A2", f"hessian of a {A_N}-input function (float64)", "call", 1, 2.0, a_data, hess_make, hess_check),
        Workload("A3", "gradient-penalty double backward, MLP 32-64-64-1, batch 64", "step", 1, 2.0, gp_data,
                 gp_make, gp_check),
    )
}
