"""torch.autograd's wider surface against torch: custom Functions, gradcheck, the
functional API, node hooks, anomaly detection and grad()'s options and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
from conftest import both, torch

LIBS = [torch, dyngrad]



def _x(lib, values=(1.0, 2.0, -0.5), dtype=None):
    return lib.tensor(list(values), dtype=dtype or lib.float64, requires_grad=True)


# ---------------------------------------------------------------- custom Function
def _cube(lib):
    class MyCube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x**3 * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            assert ctx.needs_input_grad == (True, False)
            return g * 3 * x**2 * ctx.k, None

    return MyCube


def test_function_forward_backward_name_and_edges() -> None:
    def program(lib):
        x = _x(lib)
        y = _cube(lib).apply(x, 2.0)
        names = (type(y.grad_fn).__name__, y.grad_fn.name(), len(y.grad_fn.next_functions))
        y.sum().backward()
        return y.detach(), x.grad, names, repr(y)

    both(program)


def test_function_second_order_through_tensor_backward() -> None:
    def program(lib):
        x = _x(lib)
        (g,) = lib.autograd.grad(_cube(lib).apply(x, 1.0).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return g.detach(), gg

    both(program)


def test_function_setup_context_style() -> None:
    def program(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, k):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.k = inputs[1]

            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None

        x = _x(lib)
        Scale.apply(x, 3.0).sum().backward()
        return x.grad

    both(program)


def test_function_multiple_outputs_non_differentiable_and_materialize() -> None:
    def program(lib):
        seen = []

        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                a, b = x * 2, x.argmax()
                ctx.mark_non_differentiable(b)
                return a, b

            @staticmethod
            def backward(ctx, ga, gb):
                seen.append(gb)
                return ga * 2

        x = _x(lib)
        a, b = Two.apply(x)
        a.sum().backward()
        return a.detach(), b, b.requires_grad, x.grad, seen

    both(program)


def test_function_set_materialize_grads_false_passes_none() -> None:
    def program(lib):
        seen = []

        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, ga, gb):
                seen.append(gb is None)
                return ga * 2

        x = _x(lib)
        a, _ = Two.apply(x)
        a.sum().backward()
        return x.grad, seen

    both(program)


def test_function_mark_dirty_in_place() -> None:
    def program(lib):
        class AddOne(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g

        leaf = _x(lib)
        x = leaf * 1
        y = AddOne.apply(x)
        y.sum().backward()
        return y is x, y.grad_fn.name(), leaf.grad, x._version

    both(program)


@pytest.mark.parametrize("case", ["too_many", "wrong_shape", "freed", "once"])
def test_function_errors(case) -> None:
    def program(lib):
        if case == "too_many":

            class Bad(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    return g, g

            Bad.apply(_x(lib)).sum().backward()
        elif case == "wrong_shape":

            class Bad(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    return lib.ones(5, dtype=lib.float64)

            Bad.apply(_x(lib)).sum().backward()
        elif case == "freed":

            class Saves(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return x * 1

                @staticmethod
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return g * x

            y = Saves.apply(_x(lib)).sum()
            y.backward()
            y.backward()
        else:
            once = lib.autograd.function.once_differentiable

            class Once(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return x**2

                @staticmethod
                @once
                def backward(ctx, g):
                    (x,) = ctx.saved_tensors
                    return 2 * x * g

            x = _x(lib)
            y = Once.apply(x * 1)
            gout = lib.ones(3, dtype=lib.float64, requires_grad=True)
            (g,) = lib.autograd.grad(y, x, gout, create_graph=True)
            g.sum().backward()

    both(program)


def test_function_saved_tensor_modified_in_place() -> None:
    def program(lib):
        class Saves(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 1

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * x

        x = _x(lib) * 1
        y = Saves.apply(x)
        x.mul_(2)
        y.sum().backward()

    both(program)


# ---------------------------------------------------------------- gradcheck
def test_gradcheck_passes_and_reports_mismatch() -> None:
    def program(lib):
        class Wrong(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3

        x = _x(lib)
        ok = lib.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))
        ok2 = lib.autograd.gradgradcheck(lambda t: (t**3).sum(), (x,))
        bad = lib.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False)
        try:
            lib.autograd.gradcheck(Wrong.apply, (x,))
        except RuntimeError as e:
            msg = (type(e).__name__, str(e))
        return ok, ok2, bad, msg

    both(program)


# ---------------------------------------------------------------- functional API
F_SCALAR = lambda t: (t**3).sum() + (t[0] * t[1]).exp()  # noqa: E731
F_VECTOR = lambda t: t**2 * 3 + t.sin()  # noqa: E731


@pytest.mark.parametrize("name", ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp", "jacobian_tuple"])
def test_functional_api(name) -> None:
    def program(lib):
        fn = lib.autograd.functional
        x = lib.tensor([1.0, 2.0, -0.5], dtype=lib.float64)
        v = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
        if name == "jacobian":
            return fn.jacobian(F_VECTOR, x)
        if name == "hessian":
            return fn.hessian(F_SCALAR, x)
        if name == "vjp":
            return fn.vjp(F_VECTOR, x, v)
        if name == "jvp":
            return fn.jvp(F_VECTOR, x, v)
        if name == "hvp":
            return fn.hvp(F_SCALAR, x, v)
        if name == "vhp":
            return fn.vhp(F_SCALAR, x, v)
        return fn.jacobian(lambda a, b: (a * b, a + b.sum()), (x, v))

    both(program)


def test_jacobian_create_graph() -> None:
    def program(lib):
        x = _x(lib)
        j = lib.autograd.functional.jacobian(F_VECTOR, x, create_graph=True)
        (g,) = lib.autograd.grad(j.sum(), x)
        return j.detach(), g

    both(program)


# ---------------------------------------------------------------- hooks and grad()
def test_node_hooks_order_and_replacement() -> None:
    def program(lib):
        log = []
        x = _x(lib)
        y = x * 2
        y.grad_fn.register_prehook(lambda go: log.append(("pre", go[0].tolist())))
        y.grad_fn.register_hook(lambda gi, go: log.append(("post", gi[0].tolist())) or (gi[0] * 10, None))
        y.register_hook(lambda g: log.append(("tensor", g.tolist())))
        y.sum().backward()
        return log, x.grad

    both(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.autograd.grad((_x(lib) * 2).sum(), _x(lib), materialize_grads=True),
        lambda lib: lib.autograd.grad((_x(lib) * 2).sum(), _x(lib), allow_unused=False, materialize_grads=True),
        lambda lib: lib.autograd.grad((_x(lib) * 2).sum(), lib.ones(3)),
        lambda lib: lib.autograd.grad((_x(lib) * 2), _x(lib)),
    ],
)
def test_grad_options_and_errors(program) -> None:
    both(program)


def test_backward_create_graph_warns_once_per_process() -> None:
    # The warning is once per process in both libraries: run each in a fresh interpreter.
    import subprocess
    import sys

    program = """
import warnings
import {lib} as lib
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    for _ in range(2):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward(create_graph=True)
print(repr([str(m.message) for m in w]))
"""
    outs = {}
    for name in ("torch", "dyngrad"):
        run = subprocess.run([sys.executable, "-c", program.format(lib=name)], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs[name] = run.stdout
    assert outs["dyngrad"] == outs["torch"] and "create_graph=True" in outs["torch"]


def test_anomaly_detection_names_node_and_forward_line() -> None:
    def program(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                q = lib.tensor([-1.0], requires_grad=True)
                try:
                    q.sqrt().sum().backward()
                except RuntimeError as e:
                    err = str(e)
        msgs = [str(m.message) for m in w]
        return err, msgs[0], any("q.sqrt().sum().backward()" in m for m in msgs)

    d, t = program(dyngrad), program(torch)
    assert d == t


def test_saved_tensor_hooks_attributes() -> None:
    def program(lib):
        x = _x(lib)
        y = x * x
        e = x.exp()
        return y.grad_fn._saved_self, y.grad_fn._saved_other, e.grad_fn._saved_result

    d, t = program(dyngrad), program(torch)
    for a, b in zip(d, t):
        assert np.allclose(a.detach().numpy(), b.detach().numpy())


# ---------------------------------------------------------------- saved tensor hooks, checkpoint
def test_saved_tensors_hooks_pack_and_unpack() -> None:
    def program(lib):
        packed = []

        def pack(t):
            packed.append(tuple(t.shape))
            return t.detach() * 1

        x = _x(lib)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = (x * x).exp().sum()
        y.backward()
        return x.grad, packed

    both(program)


def test_checkpoint_same_gradients_for_args_and_closed_over_parameters() -> None:
    def program(lib):
        import importlib

        checkpoint = importlib.import_module(f"{lib.__name__}.utils.checkpoint").checkpoint
        x = _x(lib)
        w = lib.tensor([2.0, -1.0, 0.5], dtype=lib.float64, requires_grad=True)

        def segment(a, k):
            return ((a * w).tanh() * k).exp()

        y = checkpoint(segment, x, 3.0, use_reentrant=False)
        y.sum().backward()
        return y.detach(), x.grad, w.grad

    both(program)


def test_checkpoint_keeps_no_intermediate_graph() -> None:
    from dyngrad.utils.checkpoint import checkpoint

    x = _x(dyngrad)
    y = checkpoint(lambda a: a.exp().sin().cos(), x)
    assert y.grad_fn.name() == "CheckpointFunctionBackward"
    assert len(y.grad_fn.next_functions) == 1 and y.grad_fn.next_functions[0][0].name().endswith("AccumulateGrad")
    assert dyngrad.viz.graph_memory(y) == x.numel() * 8  # only the input is kept, not exp/sin results


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: _returns(lib, "oops"),
        lambda lib: lib.autograd.grad([1.0], [_x(lib)]),
        lambda lib: lib.autograd.backward([_x(lib) * 2], [lib.ones(3, dtype=lib.float64)]),
    ],
)
def test_bad_input_to_grad_backward_and_functions(program) -> None:
    both(program)


def _returns(lib, value):
    class NonTensor(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return value

    NonTensor.apply(_x(lib)).sum().backward()


def test_third_order_derivatives() -> None:
    def program(lib):
        x = _x(lib, (1.5, -0.5))
        y = (x**4 + x.sin() * x.exp()).sum()
        (g1,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = lib.autograd.grad(g2.sum(), x)
        return g1.detach(), g2.detach(), g3

    both(program)


def test_post_accumulate_grad_hook_and_hook_errors() -> None:
    def program(lib):
        seen = []
        x = _x(lib)
        x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone()))
        (x * 3).sum().backward()
        (x * 2).sum().backward()
        return seen, x.grad

    both(program)
    both(lambda lib: lib.tensor([1.0]).register_hook(lambda g: g))
    both(lambda lib: (_x(lib) * 2).register_post_accumulate_grad_hook(lambda t: None))


def _custom_function_cases(lib):
    class Pair(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, n):
            return x * n, n  # a non-tensor output: its gradient argument is None

        @staticmethod
        def backward(ctx, g, g_n):
            assert g_n is None
            return g * 2, None

    class View(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view(-1)

        @staticmethod
        def backward(ctx, g):
            return g

    class Inc(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    return Pair, View, Inc


@pytest.mark.parametrize("case", ["non_tensor_output", "view_modified", "dirty_leaf", "dirty_non_leaf"])
def test_custom_function_edge_cases_as_torch(case) -> None:
    def program(lib):
        Pair, View, Inc = _custom_function_cases(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        if case == "non_tensor_output":
            y, n = Pair.apply(x, 2)
            y.sum().backward()
            return [x.grad, n]
        if case == "view_modified":
            v = View.apply(x * 1)
            v.mul_(2)
            return v
        if case == "dirty_leaf":
            return Inc.apply(x)
        z = Inc.apply(x * 1)
        z.sum().backward()
        return [z, x.grad]

    both(program)


def test_instantiating_a_function_warns_and_calling_it_fails_as_torch() -> None:
    def program(lib):
        class Legacy(lib.autograd.Function):
            def forward(self, x):
                return x * 2

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f = Legacy()
        message = str(caught[0].message).replace("dyngrad", "torch")
        try:
            f(lib.ones(1))
        except RuntimeError as e:
            return [caught[0].category.__name__, message.split("> ", 1)[1], str(e)]

    both(program)


def test_anomaly_warning_text_as_torch() -> None:
    def program(lib):
        x = lib.tensor([-1.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                y = x.sqrt()
                try:
                    y.backward()
                except RuntimeError as e:
                    error = str(e)
        text = str(caught[-1].message)
        head, _, tail = text.partition("\n")
        return [error, head, tail.rsplit("\n", 1)[-1]]  # the trace's frames differ; its first and last lines do not

    both(program)


def test_checkpoint_without_use_reentrant_warns_as_torch() -> None:
    import importlib

    def program(lib):
        checkpoint = importlib.import_module(f"{lib.__name__}.utils.checkpoint").checkpoint
        x = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            checkpoint(lambda t: t * 2, x)
            checkpoint(lambda t: t * 2, x, use_reentrant=False)
        return [(w.category.__name__, str(w.message)) for w in caught]

    both(program)


def test_anomaly_trace_of_a_custom_function_and_under_the_runner(tmp_path) -> None:
    """A custom Function's backward error under detect_anomaly warns with its forward trace, as torch's; the trace
    shown under ``python -m dyngrad SCRIPT`` starts at the script, as ``python SCRIPT`` under torch does."""
    import subprocess
    import sys

    script = tmp_path / "bad_backward.py"
    script.write_text(
        "import warnings\n"
        "import torch\n"
        "class Bad(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        return x * 1\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return g * float('nan')\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    with torch.autograd.detect_anomaly():\n"
        "        y = Bad.apply(torch.ones(1, requires_grad=True))\n"
        "        try:\n"
        "            y.backward()\n"
        "        except RuntimeError as e:\n"
        "            print(e)\n"
        "    with torch.autograd.detect_anomaly():\n"
        "        try:\n"
        "            torch.zeros(1, requires_grad=True).sqrt().mul(0).backward()\n"
        "        except RuntimeError as e:\n"
        "            print(e)\n"
        "for m in w[1:]:\n"
        "    lines = str(m.message).splitlines()\n"
        "    print(lines[0], [l.strip() for l in lines[1:3]])\n"
    )
    outs = []
    for argv in ([sys.executable, str(script)], [sys.executable, "-m", "dyngrad", str(script)]):
        run = subprocess.run(argv, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs.append(run.stdout)
    assert outs[1] == outs[0]
    assert "Error detected in BadBackward" in outs[0] and f'File "{script}", line 13' in outs[0]


def test_is_anomaly_enabled_at_top_level() -> None:
    def program(lib):
        seen = [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            seen += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        return seen + [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]

    both(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.autograd.grad(_x(lib) ** 2, _x(lib), lib.eye(3, dtype=lib.float64), is_grads_batched=True),
        lambda lib: lib.autograd.grad((lambda x: (x.sin() * 2).sum(0, keepdim=True) * x)(_x(lib)), _x(lib),
                                      lib.eye(3, dtype=lib.float64), is_grads_batched=True),
        lambda lib: (lambda x: lib.autograd.grad(x.exp() * x, x, lib.eye(3, dtype=lib.float64).reshape(3, 3),
                                                 is_grads_batched=True, create_graph=True))(_x(lib)),
        lambda lib: lib.autograd.grad(_x(lib) * 3, [_x(lib), _x(lib)], lib.eye(3, dtype=lib.float64),
                                      is_grads_batched=True, allow_unused=True),
        lambda lib: lib.autograd.grad(_x(lib) * 3, [_x(lib), _x(lib)], lib.eye(3, dtype=lib.float64),
                                      is_grads_batched=True, materialize_grads=True),
        lambda lib: lib.autograd.grad(_x(lib) * 3, [_x(lib), _x(lib)], lib.eye(3, dtype=lib.float64),
                                      is_grads_batched=True),
        lambda lib: lib.autograd.grad(_x(lib) ** 2, _x(lib), lib.ones(4, 2, dtype=lib.float64), is_grads_batched=True),
    ],
)
def test_grad_is_grads_batched(program) -> None:
    """is_grads_batched: one vector-Jacobian product per row of grad_outputs (it was ignored: a shape error)."""
    both(program)


def test_grad_is_grads_batched_frees_the_graph_unless_retained() -> None:
    def program(lib):
        x = _x(lib)
        y = x.exp()
        first = lib.autograd.grad(y, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True, retain_graph=True)
        second = lib.autograd.grad(y, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True)
        lib.autograd.grad(y, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True)
        return first, second

    both(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.autograd.functional.jacobian(lambda x: x**3, _x(lib), strategy="forward-mode"),
        lambda lib: lib.autograd.functional.jacobian(lambda x: x**3, _x(lib), strategy="forward-mode", vectorize=True),
        lambda lib: lib.autograd.functional.jacobian(lambda x: x**3, _x(lib), strategy="forward-mode", vectorize=True,
                                                     create_graph=True),
        lambda lib: lib.autograd.functional.jacobian(lambda x: x**3, _x(lib), strategy="forward-mode", vectorize=True,
                                                     strict=True),
        lambda lib: lib.autograd.functional.jacobian(lambda x: x**3, _x(lib), strategy="bogus"),
        lambda lib: lib.autograd.functional.hessian(lambda x: (x**3).sum(), _x(lib), outer_jacobian_strategy="forward-mode"),
        lambda lib: lib.autograd.functional.hessian(lambda x: (x**3).sum(), _x(lib), outer_jacobian_strategy="x"),
    ],
)
def test_functional_jacobian_strategies(program) -> None:
    """strategy="forward-mode": torch's conditions (vectorize=True, no create_graph, no strict) and texts."""
    both(program)
