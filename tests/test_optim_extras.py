"""Adafactor, SparseAdam and torch.optim.swa_utils against torch: step for step equal parameters, learning rates,
averaged weights, batch-norm statistics, and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from conftest import assert_same_tensor, both

SHAPES = [(4, 3), (5,), (2, 3, 4), ()]


def _params(lib, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [lib.tensor(rng.standard_normal(s), dtype=getattr(lib, dtype), requires_grad=True) for s in SHAPES]


def _run_optimizer(lib, make, dtype="float64", steps=25):
    params = _params(lib, dtype)
    opt = make(lib, params)
    rng = np.random.default_rng(1)
    targets = [lib.tensor(rng.standard_normal(tuple(p.shape)), dtype=p.dtype) for p in params]
    for _ in range(steps):
        opt.zero_grad()
        loss = sum(((p - t) ** 2 * (i + 1)).sum() for i, (p, t) in enumerate(zip(params, targets)))
        loss.backward()
        opt.step()
    return [p.detach() for p in params], opt.state_dict()["state"]


ADAFACTOR = {
    "default": dict(),
    "lr": dict(lr=0.05),
    "beta2_decay": dict(beta2_decay=-0.5),
    "eps": dict(eps=(1e-6, 1e-2)),
    "d": dict(d=2.0),
    "weight_decay": dict(weight_decay=0.1),
    "maximize": dict(maximize=True),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", list(ADAFACTOR))
def test_adafactor_matches_torch(name, dtype) -> None:
    kw = ADAFACTOR[name]
    d_params, d_state = _run_optimizer(dyngrad, lambda lib, ps: lib.optim.Adafactor(ps, **kw), dtype)
    t_params, t_state = _run_optimizer(torch, lambda lib, ps: lib.optim.Adafactor(ps, **kw), dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else None
    for dp, tp in zip(d_params, t_params):
        assert_same_tensor(dp, tp, tol=tol)
    assert d_state.keys() == t_state.keys()
    for i in t_state:
        assert sorted(d_state[i]) == sorted(t_state[i])
        for key in t_state[i]:
            assert_same_tensor(d_state[i][key], t_state[i][key], tol=tol, what=f"state[{i}][{key}]")


@pytest.mark.parametrize("kw", [dict(lr=-1.0), dict(beta2_decay=0.5), dict(eps=(-1.0, 1e-3)), dict(eps=(None, -1.0)),
                                dict(d=0.5), dict(weight_decay=-0.1)])
def test_adafactor_errors(kw) -> None:
    both(lambda lib: lib.optim.Adafactor([lib.zeros(2, requires_grad=True)], **kw) and None)


def test_adafactor_complex_parameter() -> None:
    def program(lib):
        p = lib.zeros(2, dtype=lib.complex128, requires_grad=True)
        opt = lib.optim.Adafactor([p])
        (p.abs() ** 2).sum().backward()
        opt.step()

    both(program)


@pytest.mark.parametrize("case", ["dense_step", "no_grad_step", "lr", "eps", "beta0", "beta1", "complex"])
def test_sparse_adam(case) -> None:
    def program(lib):
        p = lib.ones(3, requires_grad=True)
        if case == "dense_step":
            opt = lib.optim.SparseAdam([p])
            (p * 2).sum().backward()
            return opt.step()
        if case == "no_grad_step":
            return lib.optim.SparseAdam([p]).step()
        if case == "complex":
            return lib.optim.SparseAdam([p, lib.ones(2, dtype=lib.complex64, requires_grad=True)]) and None
        kw = {"lr": dict(lr=0.0), "eps": dict(eps=0.0), "beta0": dict(betas=(1.0, 0.9)),
              "beta1": dict(betas=(0.9, -0.1))}[case]
        return lib.optim.SparseAdam([p], **kw) and None

    both(program)


def _net(lib):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2)).double()
    rng = np.random.default_rng(5)
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
    return net


AVERAGING = {
    "swa": lambda lib: dict(),
    "ema_avg_fn": lambda lib: dict(avg_fn=lib.optim.swa_utils.get_ema_avg_fn(0.9)),
    "ema_multi": lambda lib: dict(multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.8)),
    "swa_multi": lambda lib: dict(multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()),
    "swa_avg_fn_buffers": lambda lib: dict(avg_fn=lib.optim.swa_utils.get_swa_avg_fn(), use_buffers=True),
    "ema_multi_buffers": lambda lib: dict(multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.7),
                                          use_buffers=True),
}


@pytest.mark.parametrize("name", list(AVERAGING))
def test_averaged_model(name) -> None:
    def program(lib):
        net = _net(lib)
        averaged = lib.optim.swa_utils.AveragedModel(net, **AVERAGING[name](lib))
        opt = lib.optim.SGD(net.parameters(), lr=0.1)
        rng = np.random.default_rng(6)
        for _ in range(6):
            x = lib.tensor(rng.standard_normal((8, 3)))
            opt.zero_grad()
            net(x).pow(2).mean().backward()
            opt.step()
            averaged.update_parameters(net)
        out = averaged(lib.tensor(rng.standard_normal((5, 3))))
        return ([(k, v) for k, v in averaged.state_dict().items()], out, repr(averaged))

    both(program)


def test_averaged_model_refuses_two_functions() -> None:
    both(lambda lib: lib.optim.swa_utils.AveragedModel(
        lib.nn.Linear(1, 1), avg_fn=lib.optim.swa_utils.get_swa_avg_fn(),
        multi_avg_fn=lib.optim.swa_utils.get_swa_multi_avg_fn()) and None)


@pytest.mark.parametrize("fn", ["get_ema_avg_fn", "get_ema_multi_avg_fn"])
def test_ema_decay_range(fn) -> None:
    both(lambda lib: getattr(lib.optim.swa_utils, fn)(1.5) and None)


def test_update_bn() -> None:
    def program(lib):
        net = _net(lib)
        net.eval()
        rng = np.random.default_rng(7)
        loader = [(lib.tensor(rng.standard_normal((6, 3))), 0) for _ in range(4)] + [lib.tensor(rng.standard_normal((3, 3)))]
        lib.optim.swa_utils.update_bn(loader, net)
        bn = net[1]
        return bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.momentum, net.training

    both(program)


@pytest.mark.parametrize("kw", [dict(swa_lr=0.05), dict(swa_lr=0.05, anneal_strategy="linear", anneal_epochs=3),
                                dict(swa_lr=[0.01, 0.2], anneal_epochs=0), dict(swa_lr=0.5, anneal_epochs=1)])
def test_swalr_schedule(kw) -> None:
    def program(lib):
        a, b = lib.zeros(2, requires_grad=True), lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.3}], lr=0.1)
        sched = lib.optim.swa_utils.SWALR(opt, **kw)
        lrs = [sched.get_last_lr()]
        for _ in range(14):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        state = sched.state_dict()
        return lrs, sorted(state), state["anneal_epochs"], state["_anneal_strategy"]

    both(program)


@pytest.mark.parametrize("kw", [dict(anneal_strategy="exp"), dict(anneal_epochs=-1), dict(anneal_epochs=2.5),
                                dict(swa_lr=[0.1, 0.2])])
def test_swalr_errors(kw) -> None:
    def program(lib):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
        return lib.optim.swa_utils.SWALR(opt, **{"swa_lr": 0.05, **kw}) and None

    both(program)
