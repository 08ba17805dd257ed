"""Inference tensors (torch.inference_mode): the same flags, values and errors (type and text) as torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from conftest import both, compare_results

LIBS = (dyngrad, torch)


def _made_inside(lib):
    with lib.inference_mode():
        x = lib.arange(6.0).reshape(2, 3)
        y = x * 2
        v = y[:, 1:]
        factory = lib.ones(3)
        tensor_call = lib.tensor([1.0, 2.0])
        leaf = lib.zeros(2, requires_grad=True)
        enabled = (lib.is_grad_enabled(), lib.is_inference_mode_enabled())
    return x, y, v, factory, tensor_call, leaf, enabled


def test_tensors_made_inside_are_inference_tensors() -> None:
    def program(lib):
        x, y, v, factory, tensor_call, leaf, enabled = _made_inside(lib)
        normal = lib.ones(2)
        flags = [t.is_inference() for t in (x, y, v, factory, tensor_call, leaf, normal)]
        after = [
            (x.exp()).is_inference(), x.view(6).is_inference(), x.clone().is_inference(), x.detach().is_inference(),
            x.data.is_inference(), lib.is_inference(x), leaf.requires_grad, leaf.is_leaf,
        ]
        return flags, after, enabled, lib.is_inference_mode_enabled(), lib.is_grad_enabled(), y, v

    both(program)


def test_views_of_normal_tensors_inside_stay_normal_and_inplace_on_them_is_allowed() -> None:
    def program(lib):
        n = lib.ones(3)
        with lib.inference_mode():
            view = n[1:]
            n.add_(1)
            inner = (view.is_inference(), n._version)
        return inner, n._version, n, view.is_inference()

    both(program)


def test_inference_mode_false_inside_makes_normal_tensors_with_grad_on() -> None:
    def program(lib):
        with lib.inference_mode():
            with lib.inference_mode(False):
                z = lib.ones(2)
                inner = (z.is_inference(), lib.is_grad_enabled(), lib.is_inference_mode_enabled())
            back = (lib.is_grad_enabled(), lib.is_inference_mode_enabled())
        return inner, back

    both(program)


def test_as_decorator_with_and_without_parentheses() -> None:
    def program(lib):
        @lib.inference_mode()
        def f(a):
            return (a * 2).is_inference(), lib.is_inference_mode_enabled()

        @lib.inference_mode
        def g(a):
            return (a * 2).is_inference()

        @lib.inference_mode(False)
        def h(a):
            return (a * 2).is_inference(), lib.is_grad_enabled()

        n = lib.ones(2)
        return f(n), g(n), h(n), lib.is_inference_mode_enabled()

    both(program)


@pytest.mark.parametrize(
    "name",
    ["add_", "iadd", "setitem", "zero_", "view_mul_", "copy_", "fill_", "clamp_", "index_put_", "exp_",
     "masked_fill_", "scatter_", "init_zeros_", "div_", "addcmul_", "under_no_grad"],
)
def test_inplace_on_inference_tensor_outside_the_mode_raises(name) -> None:
    # torch writes first and raises when bumping the version; the values after the error match too
    ops = {
        "add_": lambda lib, x: x.add_(1),
        "iadd": lambda lib, x: x.__iadd__(1),
        "setitem": lambda lib, x: x.__setitem__(0, 5.0),
        "zero_": lambda lib, x: x.zero_(),
        "view_mul_": lambda lib, x: x[1:].mul_(2),
        "copy_": lambda lib, x: x.copy_(lib.zeros(3)),
        "fill_": lambda lib, x: x.fill_(7),
        "clamp_": lambda lib, x: x.clamp_(max=0),
        "index_put_": lambda lib, x: x.index_put_((lib.tensor([0]),), lib.tensor(9.0, dtype=lib.float64)),
        "exp_": lambda lib, x: x.exp_(),
        "masked_fill_": lambda lib, x: x.masked_fill_(x > 0, 0.0),
        "scatter_": lambda lib, x: x.scatter_(0, lib.tensor([0]), lib.tensor([8.0], dtype=lib.float64)),
        "init_zeros_": lambda lib, x: lib.nn.init.zeros_(x),
        "div_": lambda lib, x: x.div_(2),
        "addcmul_": lambda lib, x: x.addcmul_(x, x),
        "under_no_grad": lambda lib, x: _under_no_grad(lib, x),
    }
    results = {}
    for lib in LIBS:
        with lib.inference_mode():
            x = lib.ones(3, dtype=lib.float64)
        with pytest.raises(RuntimeError) as info:
            ops[name](lib, x)
        results[lib] = (str(info.value), x)
    assert results[dyngrad][0] == results[torch][0]
    assert results[torch][0].startswith("Inplace update to inference tensor outside InferenceMode is not allowed.")
    compare_results(results[dyngrad][1], results[torch][1])


def _under_no_grad(lib, x):
    with lib.no_grad():  # only inference mode allows it, not no_grad
        x.add_(1)


def test_inplace_on_inference_tensor_inside_the_mode_is_allowed() -> None:
    def program(lib):
        with lib.inference_mode():
            x = lib.ones(3)
            x.add_(1)
            x[0] = 5.0
            x.mul_(2)
        return x, x.is_inference()

    both(program)


@pytest.mark.parametrize("case", ["version", "requires_grad_", "requires_grad_attr"])
def test_inference_tensor_attribute_errors(case) -> None:
    def program(lib):
        with lib.inference_mode():
            x = lib.ones(3)
        if case == "version":
            return x._version
        if case == "requires_grad_":
            return x.requires_grad_()
        x.requires_grad = True
        return None

    both(program)


def test_requires_grad_inside_the_mode_is_allowed() -> None:
    def program(lib):
        with lib.inference_mode():
            x = lib.ones(3)
            x.requires_grad_()
        return x.requires_grad, x.is_inference()

    both(program)


@pytest.mark.parametrize(
    "case", ["mul", "rmul", "mm", "matmul", "linear", "add_ok", "sigmoid_of_sum_ok", "param_mul", "exp_ok"]
)
def test_inference_tensors_in_autograd(case) -> None:
    """Saving an inference tensor for backward raises torch's error; ops that save nothing of it record."""

    def program(lib):
        lib.manual_seed(0)
        w = lib.linspace(-1.0, 1.0, 3, dtype=lib.float64).requires_grad_()
        lin = lib.nn.Linear(3, 2).double()
        with lib.inference_mode():
            x = lib.arange(3.0, dtype=lib.float64)
            p = lib.nn.Parameter(lib.ones(3, dtype=lib.float64))
        out = {
            "mul": lambda: x * w,
            "rmul": lambda: w * x,
            "mm": lambda: lib.mm(x[None], w[:, None]),
            "matmul": lambda: lib.matmul(w, x),
            "linear": lambda: lin(x),
            "add_ok": lambda: x + w,
            "sigmoid_of_sum_ok": lambda: lib.sigmoid(x + w),
            "param_mul": lambda: p * w,
            "exp_ok": lambda: (x.exp() * w),
        }[case]()
        out.sum().backward()
        return out, type(out.grad_fn).__name__, w.grad

    both(program)


def test_module_output_in_inference_mode() -> None:
    def program(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2)).double()
        data = lib.linspace(-1.0, 1.0, 8, dtype=lib.float64).reshape(2, 4)
        with lib.inference_mode():
            out = model(data)
        flags = (out.is_inference(), out.requires_grad, out.grad_fn is None)
        try:
            out.sum().backward()
        except RuntimeError as e:
            err = str(e)
        return out, flags, err, model[0].weight.is_inference()

    both(program)


def test_custom_function_saving_an_inference_tensor_raises() -> None:
    def program(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a * b

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g * b, g * a

        with lib.inference_mode():
            x = lib.ones(2, dtype=lib.float64)
        w = lib.ones(2, dtype=lib.float64, requires_grad=True)
        return Square.apply(x, w)

    both(program)


def test_inference_state_is_restored_after_an_error() -> None:
    def program(lib):
        try:
            with lib.inference_mode():
                raise ValueError("boom")
        except ValueError:
            pass
        return lib.is_inference_mode_enabled(), lib.is_grad_enabled(), lib.ones(1).is_inference()

    both(program)


def test_eval_loop_under_inference_mode_prints_what_torch_prints() -> None:
    """A training step, then evaluation under inference_mode: the printed outputs and flags are torch's."""

    def program(lib):
        rng = np.random.default_rng(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 3)).double()
        with lib.no_grad():
            for p in model.parameters():
                p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x = lib.tensor(rng.standard_normal((6, 4)))
        y = lib.tensor(rng.integers(0, 3, 6))
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        printed = []
        model.eval()
        with lib.inference_mode():
            logits = model(x)
            predictions = logits.argmax(1)
            printed.append(repr(logits))
            printed.append(repr(predictions))
            printed.append(repr(lib.nn.functional.softmax(logits, 1)[:2]))
        printed.append(str((logits.is_inference(), logits.requires_grad, predictions.is_inference())))
        # the inference result can be cloned into a normal tensor and used with autograd
        again = logits.clone().requires_grad_()
        printed.append(repr(lib.nn.functional.cross_entropy(again, y)))
        return printed

    both(program)
