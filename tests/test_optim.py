"""dyngrad.optim against torch.optim: 20 steps from the same start on the same gradients give the same
parameters and state; schedulers give the same lr sequence; state_dict layout and errors match."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
import dyngrad.optim
import dyngrad.optim.lr_scheduler

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.9), maximize=True, decoupled_weight_decay=True, weight_decay=0.2)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.3)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, momentum_decay=0.01)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
]


def _run(name, kwargs, dtype, steps=20):
    """Same start, same gradients each step (a fixed function of the step and the current parameters)."""
    rng = np.random.default_rng(0)
    starts = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
    grads = [[rng.standard_normal(s.shape) for s in starts] for _ in range(steps)]
    results = []
    for lib in (torch, dyngrad):
        tdt = getattr(lib, dtype)
        params = [lib.nn.Parameter(lib.tensor(s, dtype=tdt)) for s in starts] if lib is torch else [
            dyngrad.nn.Parameter(dyngrad.tensor(s, dtype=tdt)) for s in starts]
        opt = getattr(lib.optim, name)(params, **kwargs)
        for k in range(steps):
            opt.zero_grad()
            for p, g in zip(params, grads[k]):
                # a gradient depending on the parameters too, so the trajectories must agree
                p.grad = lib.tensor(g, dtype=tdt) + 0.1 * p.detach()
            opt.step()
        results.append((params, opt))
    return results


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kwargs", OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)])
def test_optimizer_parity(name, kwargs, dtype):
    (tp, topt), (dp, dopt) = _run(name, kwargs, dtype)
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == "float64" else dict(rtol=2e-5, atol=2e-6)
    for t, d in zip(tp, dp):
        np.testing.assert_allclose(d.detach().numpy(), t.detach().numpy(), **tol)
        assert d.dtype.__repr__() == repr(t.dtype)
    tsd, dsd = topt.state_dict(), dopt.state_dict()
    assert dsd["param_groups"] == tsd["param_groups"]
    assert list(dsd["state"]) == list(tsd["state"])
    for i in tsd["state"]:
        assert list(dsd["state"][i]) == list(tsd["state"][i])
        for k, tv in tsd["state"][i].items():
            dv = dsd["state"][i][k]
            assert repr(dv.dtype) == repr(tv.dtype), k
            np.testing.assert_allclose(dv.numpy(), tv.numpy(), **tol)
    assert repr(dopt) == repr(topt)


def test_defaults_match_torch():
    for name in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"]:
        t = getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))])
        d = getattr(dyngrad.optim, name)([dyngrad.nn.Parameter(dyngrad.ones(2))])
        assert d.defaults == t.defaults, name
        assert list(d.defaults) == list(t.defaults), name


@pytest.mark.parametrize("name,kwargs", [
    ("SGD", dict(lr=-1)), ("SGD", dict(momentum=-1)), ("SGD", dict(weight_decay=-1)), ("SGD", dict(nesterov=True)),
    ("Adam", dict(lr=-1)), ("Adam", dict(eps=-1)), ("Adam", dict(betas=(1.0, 0.9))), ("Adam", dict(betas=(0.9, -1))),
    ("Adam", dict(weight_decay=-1)), ("RMSprop", dict(alpha=-1)), ("RMSprop", dict(momentum=-1)),
    ("Adagrad", dict(lr_decay=-1)), ("Adagrad", dict(initial_accumulator_value=-1)), ("Adadelta", dict(rho=2)),
    ("NAdam", dict(momentum_decay=-1)), ("Adamax", dict(eps=-1)), ("RAdam", dict(betas=(0.9, 1.0))),
])
def test_argument_errors(name, kwargs):
    with pytest.raises(ValueError) as te:
        getattr(torch.optim, name)([torch.nn.Parameter(torch.ones(2))], **kwargs)
    with pytest.raises(ValueError) as de:
        getattr(dyngrad.optim, name)([dyngrad.nn.Parameter(dyngrad.ones(2))], **kwargs)
    assert str(de.value) == str(te.value)


def test_constructor_errors():
    cases = [
        lambda lib: lib.optim.SGD([], lr=0.1),
        lambda lib: lib.optim.SGD(lib.ones(2, requires_grad=True), lr=0.1),
        lambda lib: lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1),
        lambda lib: lib.optim.SGD([1.0], lr=0.1),
    ]
    for case in cases:
        with pytest.raises(Exception) as te:
            case(torch)
        with pytest.raises(type(te.value)) as de:
            case(dyngrad)
        assert str(de.value) == str(te.value)
    p = [lib.nn.Parameter(lib.ones(2)) for lib in (torch, dyngrad)]
    for lib, q in zip((torch, dyngrad), p):
        opt = lib.optim.SGD([q], lr=0.1)
        with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
            opt.add_param_group({"params": [q]})


def test_param_groups_and_zero_grad():
    tw, tb = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(3))
    dw, db = dyngrad.nn.Parameter(dyngrad.ones(2)), dyngrad.nn.Parameter(dyngrad.ones(3))
    topt = torch.optim.SGD([{"params": [tw]}, {"params": [tb], "lr": 0.5}], lr=0.1, momentum=0.9)
    dopt = dyngrad.optim.SGD([{"params": [dw]}, {"params": [db], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert repr(dopt) == repr(topt)
    assert dopt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]
    for p in (tw, tb):
        p.grad = torch.ones_like(p)
    for p in (dw, db):
        p.grad = dyngrad.ones_like(p)
    topt.step()
    dopt.step()
    np.testing.assert_allclose(db.detach().numpy(), tb.detach().numpy())
    dopt.zero_grad(set_to_none=False)
    assert dw.grad is not None and float(dw.grad.sum()) == 0.0
    dopt.zero_grad()
    assert dw.grad is None and db.grad is None
    # a parameter without grad is skipped (no state)
    dw.grad = dyngrad.ones_like(dw)
    dopt.step()
    assert len(dopt.state) == 2


def test_state_dict_roundtrip_continues_identically():
    (_, _), (dp, dopt) = _run("Adam", dict(lr=0.01, amsgrad=True), "float64", steps=5)
    sd = dopt.state_dict()
    clone = [dyngrad.nn.Parameter(p.detach().clone()) for p in dp]
    opt2 = dyngrad.optim.Adam(clone, lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.01
    assert opt2.state[clone[0]]["exp_avg"] is not dopt.state[dp[0]]["exp_avg"]  # copied, not shared
    for a, b in ((dp, dopt), (clone, opt2)):
        for p in a:
            p.grad = dyngrad.ones_like(p)
        b.step()
    for p, q in zip(dp, clone):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter groups"):
        opt2.load_state_dict({"state": {}, "param_groups": []})


def test_closure_and_module_training_reduces_loss():
    torch.manual_seed(0)
    tm = torch.nn.Linear(3, 1)
    dm = dyngrad.nn.Linear(3, 1)
    dm.load_state_dict({k: dyngrad.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((8, 3)).astype(np.float32)
    y = x.sum(1, keepdims=True)
    losses = []
    for lib, m in ((torch, tm), (dyngrad, dm)):
        opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.5)
        xs, ys = lib.tensor(x), lib.tensor(y)

        def closure(m=m, opt=opt, xs=xs, ys=ys, lib=lib):
            opt.zero_grad()
            loss = ((m(xs) - ys) ** 2).mean()
            loss.backward()
            return loss

        seq = [float(opt.step(closure).detach()) for _ in range(10)]
        losses.append(seq)
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-4)
    assert losses[1][-1] < losses[1][0]


SCHEDULERS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 11], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001)),
    ("LambdaLR", dict(lr_lambda=lambda e: 1.0 / (e + 1))),
    ("LinearLR", dict(start_factor=0.25, total_iters=6)),
    ("LinearLR", dict(start_factor=1.0, end_factor=0.1, total_iters=8)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=25)),
    ("OneCycleLR", dict(max_lr=[1.0, 2.0], total_steps=25, anneal_strategy="linear", three_phase=True)),
]


def _opts(lib, opt_name="SGD"):
    a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
    kw = dict(momentum=0.9) if opt_name == "SGD" else {}
    return getattr(lib.optim, opt_name)([{"params": [a]}, {"params": [b], "lr": 0.2}], lr=0.1, **kw)


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("name,kwargs", SCHEDULERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULERS)])
def test_scheduler_lr_sequence(name, kwargs, opt_name):
    seqs = []
    for lib in (torch, dyngrad):
        opt = _opts(lib, opt_name)
        sched = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
        seq = [list(sched.get_last_lr())]
        mom = []
        for _ in range(22 if name != "OneCycleLR" else 24):
            opt.step()
            sched.step()
            seq.append(list(sched.get_last_lr()))
            mom.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
        seqs.append((seq, mom, [dict((k, v) for k, v in g.items() if k != "params") for g in opt.param_groups]))
    (ts, tm, tg), (ds, dm, dg) = seqs
    np.testing.assert_allclose(np.array(ds), np.array(ts), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.array(dm, dtype=float), np.array(tm, dtype=float), rtol=1e-12)
    assert [list(g) for g in dg] == [list(g) for g in tg]  # same hyperparameter keys (initial_lr, max_lr, ...)


def test_sequential_lr():
    seqs = []
    for lib in (torch, dyngrad):
        opt = _opts(lib)
        s1 = lib.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=4)
        s2 = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.8)
        s3 = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        sched = lib.optim.lr_scheduler.SequentialLR(opt, [s1, s2, s3], milestones=[5, 12])
        seq = [sched.get_last_lr()]
        for _ in range(22):
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr())
        seqs.append(seq)
    np.testing.assert_allclose(np.array(seqs[1]), np.array(seqs[0]), rtol=1e-12)


@pytest.mark.parametrize("kwargs", [dict(), dict(mode="max", patience=2, cooldown=1, threshold_mode="abs",
                                                 factor=0.5, min_lr=0.02)])
def test_reduce_lr_on_plateau(kwargs):
    metrics = [1.0, 0.9, 0.9, 0.9, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.88, 0.9,
               0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]
    seqs = []
    for lib in (torch, dyngrad):
        opt = _opts(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
        seq = []
        for m in metrics:
            opt.step()
            sched.step(m)
            seq.append(sched.get_last_lr())
        seqs.append(seq)
    assert seqs[1] == seqs[0]


def test_scheduler_warnings_and_errors():
    for lib in (torch, dyngrad):
        opt = _opts(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, step_size=2)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            sched.step()
        assert any("before `optimizer.step()`" in str(w.message) for w in rec)
        with pytest.raises(TypeError, match="int is not an Optimizer"):
            lib.optim.lr_scheduler.StepLR(3, step_size=2)
    with pytest.raises(ValueError) as te:
        torch.optim.lr_scheduler.LinearLR(_opts(torch), start_factor=0)
    with pytest.raises(ValueError) as de:
        dyngrad.optim.lr_scheduler.LinearLR(_opts(dyngrad), start_factor=0)
    assert str(de.value) == str(te.value)
