"""dyngrad.autograd: backward, grad, grad mode and the graph types (torch.autograd)."""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_KINDS
from .._tensor import Tensor, wrap
from . import graph
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import run_backward
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import (
    Variable,
    is_multithreading_enabled,
    is_view_replay_enabled,
    kineto_available,
    set_multithreading_enabled,
)

_ndarray = xp.ndarray

__all__ = [
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "functional",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "backward",
    "grad",
    "graph",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "Variable",
    "is_multithreading_enabled",
    "set_multithreading_enabled",
    "is_view_replay_enabled",
    "kineto_available",
    "profiler",
]


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _root_edges(outputs, grad_outputs, create_graph: bool, for_grad: bool = False):
    from .._ops.registry import edge

    roots, grads = [], []
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    for g in grad_outputs:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(
            f"Mismatch in number of grad_outputs: got {len(grad_outputs)} and outputs: {len(outputs)}"
        )
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor):
            if for_grad:  # torch.autograd.grad checks its outputs with an assertion
                raise AssertionError("Expected output to be a torch.Tensor")
            raise TypeError(f"element {i} of tensors is not a Tensor (got {type(out).__name__})")
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if g is None:
            if out._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out._data.dtype.kind not in FLOATING_KINDS:
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {out.dtype}"
                )
            g = wrap(xp.ones_like(out._data))
        else:
            if not isinstance(g, Tensor):
                raise TypeError(
                    f"gradients can be either Tensors or None, but got {type(g).__name__}"
                )
            if g._data.shape != out._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of torch.Size([{', '.join(map(str, g._data.shape))}]) "
                    f"and output[{i}] has a shape of torch.Size([{', '.join(map(str, out._data.shape))}])."
                )
            if g._data.dtype != out._data.dtype:
                if (g._data.dtype.kind == "c") != (out._data.dtype.kind == "c"):
                    raise RuntimeError(
                        "For complex Tensors, both grad_output and output are required to have the same dtype. "
                        f"Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] has a dtype "
                        f"of {out.dtype}."
                    )
                g = g.to(out._data.dtype)
            elif not create_graph:
                g = g.detach()
        if type(out._data) is not _ndarray:  # a batched output: the engine moves physical gradients
            from .._batching.dispatch import physical_grad_output

            g = physical_grad_output(out, g)
        roots.append(edge(out))
        grads.append(g)
    return roots, grads


def _run_batched(roots, grads, retain_graph, create_graph, slots):
    """A backward pass whose gradients a vmap batches: every node's formula runs on batched values, and what
    cannot batch falls back to a loop (the dispatcher's kernel mode, _batching/array.py)."""
    from .._batching.array import STATE

    STATE.kernel += 1
    try:
        return run_backward(roots, grads, retain_graph, create_graph, capture=slots, accumulate=False)
    finally:
        STATE.kernel -= 1


def _capture_slots(inputs) -> dict:
    """{edge: slot} for the tensors whose gradients are wanted (one slot per distinct edge)."""
    from .._ops.registry import edge

    slots = {}
    for t in inputs:
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        slots.setdefault(edge(t), len(slots))
    return slots


_warned_create_graph = False


def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables=None,
    inputs=None,
) -> None:
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (torch.autograd.backward).

    ``backward([a, b], [ga, gb])`` is one backward pass for the sum ``(a * ga).sum() + (b * gb).sum()``:
    the graphs behind all outputs are walked together, each node once.

    Args:
        tensors: an output tensor or a sequence of them.
        grad_tensors: the gradient with respect to each output (same shapes); None for a
            one-element output (1 is used).
        retain_graph: keep the saved values for another pass (defaults to ``create_graph``).
        create_graph: record the pass, so the resulting ``.grad`` can be differentiated again.
        grad_variables: the old name of ``grad_tensors``.
        inputs: accumulate only into these leaves.

    Raises:
        RuntimeError: a non-scalar output without ``grad_tensors``, an output that does not
            require grad, a gradient of the wrong shape, or a second pass through freed buffers.

    Example::

        >>> w = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> dyngrad.autograd.backward([w * 3, w.sum()], [dyngrad.ones(2), None])
        >>> w.grad
        tensor([4., 4.])
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    global _warned_create_graph
    if create_graph and not _warned_create_graph:  # torch warns once per process
        import warnings

        _warned_create_graph = True
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter and "
            "its gradient which can cause a memory leak. We recommend using autograd.grad when creating the "
            "graph to avoid this. If you have to use this function, make sure to reset the .grad fields of "
            "your parameters to None after use to break the cycle and avoid the leak. (Triggered internally at "
            "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)",
            UserWarning,
            stacklevel=3,
        )
    roots, grads = _root_edges(tensors, grad_tensors, create_graph)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        slots = _capture_slots(inputs)
        captured = run_backward(roots, grads, retain_graph, create_graph, capture=slots, accumulate=False)
        from .._ops.registry import edge
        from .engine import accumulate_grad

        for t in inputs:
            g = captured[slots[edge(t)]]
            if g is not None:
                accumulate_grad(t, g, create_graph)
        return
    run_backward(roots, grads, retain_graph, create_graph)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
):
    """The gradients of ``outputs`` with respect to ``inputs``, returned instead of accumulated (torch.autograd.grad).

    Only the part of the graph between ``inputs`` and ``outputs`` is run, and no ``.grad``
    attribute is touched.

    Args:
        outputs: a tensor or a sequence of tensors to differentiate.
        inputs: a tensor or a sequence of tensors (leaves or not) to differentiate with respect to.
        grad_outputs: the gradient with respect to each output (same shapes); None for
            one-element outputs.
        retain_graph: keep the saved values for another pass (defaults to ``create_graph``).
        create_graph: record this pass, so the returned gradients have a ``grad_fn`` (for second
            and higher derivatives, gradient penalties).
        only_inputs: accepted for compatibility (always True in torch too).
        allow_unused: return None for an input the outputs do not depend on, instead of raising.
        is_grads_batched: treat the first dimension of each ``grad_outputs`` as a batch of
            vector-Jacobian products.
        materialize_grads: return zeros instead of None for unused inputs.

    Returns:
        A tuple with one gradient per input, each with that input's shape (or None when unused
        and ``allow_unused``).

    Raises:
        RuntimeError: empty ``inputs``, an output that does not require grad, an input the
            outputs do not depend on (without ``allow_unused``), or a second pass through freed
            buffers (torch's texts).

    Example::

        >>> x = dyngrad.tensor([2.0], requires_grad=True)
        >>> (g,) = dyngrad.autograd.grad(x ** 3, x, create_graph=True)
        >>> g
        tensor([12.], grad_fn=<MulBackward0>)
        >>> dyngrad.autograd.grad(g, x)
        (tensor([12.]),)
    """
    from .._ops.registry import edge

    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False."
        )
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grad_outputs = _as_tuple(grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        return _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    roots, grads = _root_edges(outputs, grad_outputs, create_graph, for_grad=True)
    slots = _capture_slots(inputs)
    if any(type(g._data) is not _ndarray for g in grads):  # batched cotangents (jacrev, vjp under vmap)
        captured = _run_batched(roots, grads, retain_graph, create_graph, slots)
    else:
        captured = run_backward(roots, grads, retain_graph, create_graph, capture=slots, accumulate=False)
    result = []
    for i, t in enumerate(inputs):
        g = captured[slots[edge(t)]]
        if g is not None and type(t._data) is not _ndarray:  # a batched input: its gradient read as it is
            from .._batching.dispatch import logical_grad

            g = logical_grad(t, g)
        if g is None:
            if materialize_grads:
                g = wrap(xp.zeros_like(t._data))
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
        result.append(g)
    return tuple(result)


def _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """``grad(..., is_grads_batched=True)``: one vector-Jacobian product per slice of the grad_outputs' first
    dimension, vectorised with vmap (one backward pass with batched cotangents), as torch does; an unused input's
    gradient is None, or unbatched zeros with ``materialize_grads``, as torch's."""
    from ..func import vmap

    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if isinstance(g, Tensor) and tuple(g.shape[1:]) != tuple(out.shape):
            # torch's text shows the first slice's shape without its first dimension (g.shape[2:])
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {g[0].shape[1:]} and "
                f"output[{i}] has a shape of {out.shape}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap."
            )
    unused = []

    def vjp(*gs):
        gis = grad(outputs, inputs, gs, retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)
        unused[:] = [g is None for g in gis]
        return tuple(g if g is not None else wrap(xp.zeros(())) for g in gis)  # vmap returns only tensors

    batched = vmap(vjp)(*grad_outputs)
    result = []
    for i, (t, g, none) in enumerate(zip(inputs, batched, unused)):
        if none:
            if materialize_grads:
                g = wrap(xp.zeros_like(t._data))
            elif not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            else:
                g = None
        result.append(g)
    return tuple(result)


from . import functional  # noqa: E402  (it uses grad, defined above)
