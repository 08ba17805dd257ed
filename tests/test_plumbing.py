"""Training plumbing against torch: torch.compile's wrappers, torch.amp.GradScaler on the CPU (a training loop
with an overflowing step), autocast state, set_num_threads / interop threads."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from conftest import both


def _compiled_model(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    w = np.linspace(-1, 1, 12).reshape(4, 3)
    with lib.no_grad():
        m[0].weight.copy_(lib.tensor(w, dtype=lib.float32))
    c = lib.compile(m, backend="eager")  # eager: torch traces without inductor (fast)
    x = lib.tensor(np.arange(6.0).reshape(2, 3), dtype=lib.float32)
    out = c(x)
    out.sum().backward()
    return (type(c).__name__, type(c).__module__, repr(c), list(c.state_dict().keys()), c._orig_mod is m,
            c[0] is m[0] if hasattr(c, "__getitem__") else None, out, m[0].weight.grad, c.training,
            [n for n, _ in c.named_parameters()])


def test_compile_module_wrapper():
    both(_compiled_model)


def test_compile_function_and_decorator():
    def program(lib):
        def f(x):
            return x * 2 + 1

        g = lib.compile(f, fullgraph=True, dynamic=False, backend="eager")

        @lib.compile(backend="eager")
        def h(x):
            return x.sin()

        x = lib.tensor([0.5, 1.5])
        return g is f, g.__wrapped__ is f, g.__name__, g(x), h(x), lib.compile(f, disable=True) is f

    both(program)


@pytest.mark.parametrize("case", ["mode", "mode_and_options", "not_callable"])
def test_compile_errors(case):
    def program(lib):
        m = lib.nn.Linear(2, 2)
        if case == "mode":
            lib.compile(m, mode="fastest")
        elif case == "mode_and_options":
            lib.compile(m, mode="default", options={})
        else:
            lib.compile(3)

    both(program)


def test_module_compile_in_place():
    both(lambda lib: (lib.nn.Linear(2, 2).compile(), type(lib.nn.Linear(2, 2)).__name__))


def _scaler_loop(lib):
    """Eight steps of SGD with a GradScaler whose scale overflows the float32 gradients at first (init_scale
    2**120): torch skips those steps and backs off; then a growth interval of 2 doubles the scale."""
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 1)
    with lib.no_grad():
        model.weight.copy_(lib.tensor([[0.5, -0.25, 1.0]]))
        model.bias.fill_(0.1)
    opt = lib.optim.SGD(model.parameters(), lr=0.05)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0**120, growth_interval=2)
    x = lib.tensor(np.linspace(-2, 2, 12).reshape(4, 3), dtype=lib.float32)
    y = lib.tensor([[1.0], [0.0], [-1.0], [2.0]])
    history = []
    for _ in range(8):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean() * 1e4
        scaled = scaler.scale(loss)
        scaled.backward()
        scaler.unscale_(opt)
        grad = model.weight.grad.clone()
        ret = scaler.step(opt)
        scaler.update()
        history.append((scaler.get_scale(), ret, grad, model.weight.detach().clone()))
    return history, scaler.state_dict(), type(scaled.grad_fn).__name__


def test_grad_scaler_training_loop():
    both(_scaler_loop)


SCALER_ERRORS = {
    "update_before_scale": lambda lib, s, opt, loss: s.update(),
    "double_unscale": lambda lib, s, opt, loss: (s.scale(loss).backward(), s.unscale_(opt), s.unscale_(opt)),
    "closure": lambda lib, s, opt, loss: (s.scale(loss), s.step(opt, closure=lambda: 0)),
    "load_empty": lambda lib, s, opt, loss: s.load_state_dict({}),
}


@pytest.mark.parametrize("case", list(SCALER_ERRORS))
def test_grad_scaler_errors(case):
    def program(lib):
        model = lib.nn.Linear(2, 1)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        loss = model(lib.ones(2)).sum()
        SCALER_ERRORS[case](lib, lib.amp.GradScaler("cpu"), opt, loss)

    both(program)


def test_grad_scaler_disabled_and_cuda():
    def program(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cuda = lib.amp.GradScaler()
            cpu_old = lib.cpu.amp.GradScaler()
        loss = lib.ones(2).sum()
        off = lib.amp.GradScaler("cpu", enabled=False)
        return (cuda.is_enabled(), cpu_old.is_enabled(), [(w.category.__name__, str(w.message)) for w in caught],
                off.scale(loss) is loss, off.get_scale(), off.state_dict(), cuda.get_scale())

    both(program)


def test_autocast_state():
    def program(lib):
        states = [lib.is_autocast_enabled(), lib.is_autocast_enabled("cpu")]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autocast("cpu"):
                states += [lib.is_autocast_enabled("cpu"), lib.is_autocast_enabled()]
                with lib.autocast("cpu", enabled=False):
                    states.append(lib.is_autocast_enabled("cpu"))
                states.append(lib.is_autocast_enabled("cpu"))
            with lib.amp.autocast("cpu", enabled=False):
                states.append(lib.is_autocast_enabled("cpu"))
        states.append(lib.is_autocast_enabled("cpu"))
        return states

    both(program)


@pytest.mark.parametrize("value", [0, -1, 2.0, True])
def test_set_num_threads_errors(value):
    both(lambda lib: lib.set_num_threads(value))


def test_set_num_threads_limits_the_blas_pool():
    threadpoolctl = pytest.importorskip("threadpoolctl")  # an optional extra ("threads")
    before = dyngrad.get_num_threads()
    try:
        dyngrad.set_num_threads(1)
        assert dyngrad.get_num_threads() == 1
        blas = [p for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
        assert blas and all(p["num_threads"] == 1 for p in blas)
    finally:
        dyngrad.set_num_threads(before)
    assert dyngrad.get_num_threads() == before


def test_interop_threads():
    assert dyngrad.get_num_interop_threads() == torch.get_num_interop_threads()
    with pytest.raises(RuntimeError, match="set_num_interop_threads expects a positive integer"):
        dyngrad.set_num_interop_threads(0)
