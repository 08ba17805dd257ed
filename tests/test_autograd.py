"""Graph semantics against torch: accumulation, retain_graph, freed buffers, grad mode,
detach, retain_grad, in-place checks and version counters, deep graphs, memory, errors.

Each test runs the same program on torch and dyngrad (``lib`` is either module) and
compares what it returns, or checks an exact expected value.
"""

from __future__ import annotations

import gc
import re
import threading
import warnings
import weakref

import numpy as np
import pytest

import dyngrad
from conftest import assert_same_tensor, both, torch

LIBS = [torch, dyngrad]



# ---------------------------------------------------------------- accumulation, retain_graph
def test_gradients_accumulate_and_zero() -> None:
    def program(lib):
        x = lib.tensor([2.0, -1.0], requires_grad=True)
        out = []
        for _ in range(3):
            (x**2 * 3).sum().backward()
            out.append(x.grad.clone())
        x.grad.zero_()
        (x.sin()).sum().backward()
        out.append(x.grad)
        return out

    both(program)


def test_grad_tensor_is_accumulated_in_place() -> None:
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        g = x.grad
        (x * x).sum().backward()
        assert x.grad is g


def test_first_grad_does_not_alias_other_grads_or_user_gradient() -> None:
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        gout = lib.ones(2)
        (x + y).backward(gout)
        x.grad.zero_()
        assert y.grad.tolist() == [1.0, 1.0]
        assert gout.tolist() == [1.0, 1.0]


def test_second_backward_through_freed_graph_raises() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()

    both(program)


def test_second_backward_with_scalar_mul_raises_as_torch() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 2).sum()
        y.backward()
        y.backward()

    both(program)


def test_second_backward_without_saved_tensors_is_allowed() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x + 1).sum()
        y.backward()
        y.backward()
        return x.grad

    both(program)


def test_retain_graph_allows_second_backward() -> None:
    def program(lib):
        x = lib.tensor([2.0], requires_grad=True)
        y = x**2
        y.backward(retain_graph=True)
        first = x.grad.clone()
        y.backward()
        return first, x.grad

    both(program)


# ---------------------------------------------------------------- backward errors
@pytest.mark.parametrize(
    "program",
    [
        lambda lib: (lib.tensor([1.0, 2.0], requires_grad=True) * 2).backward(),
        lambda lib: lib.tensor([1.0]).backward(),
        lambda lib: (lib.tensor([1.0, 2.0], requires_grad=True) * 2).backward(lib.ones(3)),
        lambda lib: (lib.tensor([1.0, 2.0], requires_grad=True) * 2).backward(lib.ones(2, 1)),
        lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).sum().backward(lib.ones(2)),
        lambda lib: lib.tensor([1, 2], requires_grad=True),
        lambda lib: lib.tensor([1, 2]).requires_grad_(),
        lambda lib: setattr(lib.tensor([True]), "requires_grad", True),
        lambda lib: lib.tensor([1.0], requires_grad=True).numpy(),
        lambda lib: lib.tensor([1.0], requires_grad=True).add_(1),
        lambda lib: lib.tensor([1.0, 2.0], requires_grad=True)[0:1].add_(1),
        lambda lib: setattr((lib.tensor([1.0], requires_grad=True) * 2), "requires_grad", False),
        lambda lib: lib.autograd.grad((lib.tensor([1.0], requires_grad=True) * 2).sum(), lib.tensor([1.0], requires_grad=True)),
    ],
)
def test_misuse_raises_torch_error(program) -> None:
    both(program)


def test_nonleaf_grad_access_warns() -> None:
    msgs = {}
    for lib in LIBS:
        y = lib.tensor([1.0], requires_grad=True) * 2
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert y.grad is None
        msgs[lib.__name__] = [(c.category, str(c.message)) for c in w]
    assert msgs["dyngrad"] == msgs["torch"] and len(msgs["torch"]) == 1


# ---------------------------------------------------------------- graph structure
def test_grad_fn_names_next_functions_and_repr() -> None:
    def structure(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0])
        y = (x * w + 2).sum()
        out = []
        stack = [(y.grad_fn, 0)]
        while stack:
            node, depth = stack.pop()
            out.append((depth, None if node is None else node.name()))
            if node is not None:
                for nxt, nr in node.next_functions:
                    out.append(("nr", nr))
                    stack.append((nxt, depth + 1))
        return out, x.grad_fn, y.is_leaf, x.is_leaf

    d, t = structure(dyngrad), structure(torch)
    assert d == t
    y = dyngrad.tensor([1.0], requires_grad=True) * 2
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(y.grad_fn))
    assert type(y.grad_fn).__name__ == "MulBackward0"
    acc = y.grad_fn.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is not None


def test_accumulate_grad_node_is_shared_by_uses_of_a_leaf() -> None:
    for lib in LIBS:
        x = lib.tensor([1.0], requires_grad=True)
        a, b = x * 2, x + 1
        assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]


# ---------------------------------------------------------------- higher order
def test_second_derivative_of_cube() -> None:
    def program(lib):
        x = lib.tensor([2.0], requires_grad=True)
        (g,) = lib.autograd.grad(x**3, x, create_graph=True)
        (gg,) = lib.autograd.grad(g, x)
        return g.detach(), gg

    both(program)
    x = dyngrad.tensor([2.0], requires_grad=True)
    (g,) = dyngrad.autograd.grad(x**3, x, create_graph=True)
    assert g.grad_fn is not None and g.item() == 12.0


def test_backward_create_graph_records_grad() -> None:
    def program(lib):
        x = lib.tensor([1.5, -0.5], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x.sin() * x).sum().backward(create_graph=True)
        g = x.grad
        assert g.requires_grad
        x.grad = None
        g.sum().backward()
        return g.detach(), x.grad

    both(program)


def test_backward_inputs_accumulates_only_into_named_tensors() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        (x * y).sum().backward(inputs=[x])
        return x.grad, y.grad is None

    both(program)


# ---------------------------------------------------------------- grad mode
def test_no_grad_enable_grad_set_grad_enabled() -> None:
    def program(lib):
        x = lib.tensor([1.0], requires_grad=True)
        out = []
        with lib.no_grad():
            out.append((x * 2).requires_grad)
            with lib.enable_grad():
                out.append((x * 2).requires_grad)
            out.append(lib.is_grad_enabled())
        with lib.set_grad_enabled(False):
            out.append((x * 2).requires_grad)
        out.append(lib.is_grad_enabled())
        lib.set_grad_enabled(False)
        out.append(lib.is_grad_enabled())
        lib.set_grad_enabled(True)

        @lib.no_grad()
        def f():
            return (x * 2).requires_grad

        @lib.set_grad_enabled(False)
        def g():
            return lib.is_grad_enabled()

        out.append(f())
        out.append(g())
        out.append(lib.is_grad_enabled())
        with lib.inference_mode():
            out.append((x * 2).requires_grad)
        return out

    both(program)


def test_grad_mode_is_thread_local() -> None:
    for lib in LIBS:
        seen = []
        with lib.no_grad():
            th = threading.Thread(target=lambda seen=seen, lib=lib: seen.append(lib.is_grad_enabled()))
            th.start()
            th.join()
        assert seen == [True]


# ---------------------------------------------------------------- detach, data, retain_grad
def test_detach_shares_memory_and_version() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        d = x.detach()
        d[0] = 5.0 if lib is torch else 5.0
        return x.detach(), d.requires_grad, d.is_leaf, x._version == d._version

    # item assignment is issue 3; use an in-place op instead
    def program2(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        d = x.detach()
        d.mul_(3)
        return x.detach(), d.requires_grad, d.is_leaf, x._version, d._version

    both(program2)


def test_retain_grad() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        z = (y * y).sum()
        z.backward()
        return y.grad, y.retains_grad, x.grad

    both(program)


# ---------------------------------------------------------------- in-place and versions
def test_inplace_under_no_grad_is_the_manual_sgd_step() -> None:
    def program(lib):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        for _ in range(3):
            (w * w).sum().backward()
            with lib.no_grad():
                w -= 0.1 * w.grad
            w.grad.zero_()
        return w.detach(), w._version

    both(program)


def test_inplace_after_save_raises_at_backward() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = y * y
        y.add_(1)
        z.sum().backward()

    both(program)

    def leaf(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        z = w * w
        with lib.no_grad():
            w.add_(1)
        z.sum().backward()

    both(leaf)


def test_inplace_on_nonleaf_rebases_history() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        z = lib.tensor([3.0, 4.0], requires_grad=True)
        y = x * 1
        y.mul_(z)
        name1 = y.grad_fn.name()
        y.exp_()
        y.sum().backward()
        return name1, y.grad_fn.name(), x.grad, z.grad, y._version

    both(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.tensor([1, 2]).add_(1.5),
        lambda lib: lib.ones(3).add_(lib.ones(2, 3)),
        lambda lib: lib.ones(3).expand(2, 3).add_(1),
        lambda lib: [t.zero_() for t in [lib.tensor([1.0, 2.0])]][0],
        lambda lib: lib.tensor([1.0, 2.0]).fill_(3),
        lambda lib: lib.zeros(2).copy_(lib.tensor([1, 2])),
        lambda lib: lib.tensor([1.0, 2.0]).div_(2),
        lambda lib: lib.tensor([1.0, 2.0]).sub_(lib.tensor([1.0, 1.0]), alpha=2),
        lambda lib: lib.ones(2).copy_(lib.ones(2, 2)),
        lambda lib: lib.ones(2).copy_(lib.ones(3)),
        lambda lib: lib.ones(2, 3).copy_(lib.ones(3)),
        lambda lib: lib.ones(1).copy_(lib.ones(2, 1)),
    ],
)
def test_inplace_ops_values_and_errors(program) -> None:
    both(program)


def test_zero_fill_copy_record_torch_nodes() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        src = lib.tensor([5.0, 6.0], requires_grad=True)
        y = x * 1
        names = [y.zero_().grad_fn.name(), y.fill_(2).grad_fn.name(), y.copy_(src).grad_fn.name()]
        (y * 3).sum().backward()
        return names, x.grad, src.grad

    both(program)


# ---------------------------------------------------------------- deep graphs and memory
def test_deep_chain_backward_is_iterative() -> None:
    x = dyngrad.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.backward()
    assert x.grad.tolist() == [1.0]


def test_no_reference_cycles_after_forward_backward() -> None:
    gc.collect()
    gc.disable()
    try:
        x = dyngrad.randn(100, 100, requires_grad=True)
        w = dyngrad.randn(100, 100, requires_grad=True)
        loss = (x @ w).tanh().exp().sum()
        r_loss, r_node = weakref.ref(loss), weakref.ref(loss.grad_fn)
        loss.backward()
        inner = (x.sigmoid() ** 2).sum()
        r_inner = weakref.ref(inner.grad_fn)
        del loss, inner
        assert r_loss() is None and r_node() is None and r_inner() is None
        r_x = weakref.ref(x)
        del x
        assert r_x() is None
    finally:
        gc.enable()


def test_saved_result_ops_do_not_form_cycles() -> None:
    gc.disable()
    try:
        x = dyngrad.tensor([0.5, 1.0], requires_grad=True)
        for make in (lambda t: t.exp(), lambda t: t.tanh(), lambda t: t.sigmoid(), lambda t: t.sqrt(), lambda t: t.relu()):
            y = make(x)
            ref = weakref.ref(y)
            node = weakref.ref(y.grad_fn)
            del y
            assert ref() is None and node() is None
    finally:
        gc.enable()


# ---------------------------------------------------------------- hooks (basic)
def test_tensor_hooks_replace_gradients() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        calls = []
        x.register_hook(lambda g: calls.append(g.clone()) or g * 10)
        y = x * 2
        h = y.register_hook(lambda g: g + 1)
        y.sum().backward()
        h.remove()
        return x.grad, calls

    both(program)


def test_grad_of_unused_input() -> None:
    def program(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = lib.tensor([1.0], requires_grad=True)
        return lib.autograd.grad((x * 2).sum(), [x, y], allow_unused=True)

    d = program(dyngrad)
    t = program(torch)
    assert d[1] is None and t[1] is None
    assert_same_tensor(d[0], t[0])


def test_sum_to_reduces_broadcast_gradients() -> None:
    def program(lib):
        a = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
        b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = lib.tensor([[2.0], [3.0]], requires_grad=True)
        ((a * b + c) ** 2).sum().backward()
        return a.grad, b.grad, c.grad

    both(program)


def test_dtype_of_gradient_follows_input() -> None:
    def program(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], dtype=lib.float64, requires_grad=True)
        (a * b).sum().backward()
        return a.grad, b.grad

    both(program)


def _grads_after_in_place_change(lib):
    """Leaf gradients that reach .grad without a copy must not alias anything else (torch's rule)."""
    a = lib.ones(3, requires_grad=True)
    b = lib.ones(3, requires_grad=True)
    g = lib.tensor([1.0, 2.0, 3.0])
    (a + b).backward(g)  # one gradient array flows to both leaves; g is the user's
    a.grad.add_(10)
    held = lib.tensor([5.0, 5.0, 5.0])
    c = lib.ones(3, requires_grad=True)
    c.register_hook(lambda grad: held)  # the hook's result is the user's tensor
    (c * 1).sum().backward()
    c.grad.add_(1)
    w = lib.ones(2, 3, requires_grad=True)
    (lib.ones(4, 2) @ w).sum().backward()  # a fresh gradient: torch keeps it without a copy
    w.grad.mul_(2)
    return [a.grad, b.grad, g, held, c.grad, w.grad]


def test_leaf_gradients_never_alias_other_tensors() -> None:
    both(_grads_after_in_place_change)


@pytest.mark.parametrize(
    "make",
    [lambda x: x.sum(1), lambda x: x.exp(), lambda x: x.pow(2), lambda x: x.mean(0), lambda x: x * 2],
    ids=["sum_dim", "exp", "pow", "mean_dim", "mul"],
)
def test_modified_saved_tensor_error_names_the_producer_as_torch(make) -> None:
    # torch's short name keeps a node's number unless it is 0: "output 0 of Sum1", "of Exp"
    def program(lib):
        x = lib.ones(2, 3, requires_grad=True)
        y = make(x * 1)
        z = y.sin()
        y.detach().mul_(2)  # bumps the shared version counter without changing y's history
        z.sum().backward()

    both(program)


def _retain_then_in_place(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.mul_(3)  # y's history moves to the new node, and so does its retained gradient
    z = x * 1
    z.retain_grad()
    z[0:1].mul_(5)  # through a view: z becomes CopySlices
    w = x * 2
    v = w[1:]
    v.retain_grad()
    w.add_(1)  # the view's history is re-derived from its base
    (y.sum() + z.sum() + (v * v).sum()).backward()
    return [y.grad, z.grad, v.grad, x.grad]


def test_retain_grad_follows_in_place_ops() -> None:
    both(_retain_then_in_place)


@pytest.mark.parametrize("first", ["relu_", "sigmoid_", "tanh_", "exp_"])
@pytest.mark.parametrize("second", ["mul_", "add_"])
def test_in_place_after_an_in_place_that_saved_its_result(first, second) -> None:
    # relu_ and co. save their output, which is the tensor itself: changing it again is an error
    def program(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * 2
        getattr(y, first)()
        getattr(y, second)(3)
        y.sum().backward()
        return x.grad

    both(program)


def test_in_place_that_saves_its_result_then_used_as_torch() -> None:
    def program(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = x * 2
        y.exp_()
        y.retain_grad()
        (y * y).sum().backward()
        return [y.grad, x.grad]

    both(program)


@pytest.mark.parametrize("convert", ["double", "int", "half"])
def test_hook_that_changes_the_dtype_is_refused(convert) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)

        def bad(g):
            return getattr(g, convert)()

        x.register_hook(bad)
        (x * 2).sum().backward()

    both(program)


def test_saved_value_attributes_exist_where_torchs_do() -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        ys = [x.sum() + x.mean(), x.exp(), x * x, x.sin(), x.tanh(), x * 2, x**2, x / (x + 1)]
        return [[hasattr(y.grad_fn, a) for a in ("_saved_self", "_saved_other", "_saved_result")] for y in ys]

    both(program)


def test_grad_made_with_create_graph_is_a_copy_as_torch() -> None:
    def program(lib):
        x = lib.tensor([2.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x**3).backward(create_graph=True)
            first = [x.grad.clone(), type(x.grad.grad_fn).__name__]
            (x**3).backward(create_graph=True)
        second = type(x.grad.grad_fn).__name__
        x.grad.backward()  # accumulates into x.grad in place: its grad_fn stays
        return first + [second, x.grad.detach(), type(x.grad.grad_fn).__name__]

    both(program)
