"""The backward engine: runs the chain rule over the recorded graph.

Iterative, never recursive (a chain of 100,000 ops needs no deep Python stack).
1. Walk the graph from the roots and count, for every node, how many gradient
   contributions it will receive.
2. Run nodes whose contributions have all arrived, later-created nodes first
   (a heap keyed by creation order, as torch's ready queue; AccumulateGrad first
   of all). Each incoming gradient is checked against the shape and dtype of the
   output it belongs to: a gradient in a broadcast shape is reduced with
   ``sum_to`` here, the one place broadcasting is undone.
3. Free saved values as each node finishes, unless ``retain_graph``.
"""

from __future__ import annotations

import heapq
import sys

from .._backend import sum_to_shape, xp
from .._batching.array import BatchingFallback
from .._ops import bf16_compute as _bf16
from .._tensor import Tensor, wrap
from . import anomaly_mode
from .forward_ad import STATE as _fw
from .grad_mode import _state
from .graph import AccumulateGrad


def _shape_str(shape) -> str:
    return f"torch.Size([{', '.join(str(n) for n in shape)}])"


def _expandable_to(grad_shape, shape) -> bool:
    """True when a tensor of ``shape`` broadcasts to ``grad_shape`` (so the gradient can be summed down)."""
    if len(shape) > len(grad_shape):
        return False
    for g, s in zip(reversed(grad_shape), reversed(shape)):
        if s != g and s != 1:
            return False
    return True


def _validate(node, index, grad: Tensor, meta) -> Tensor:
    shape, npd = meta
    gd = grad._data
    if gd.shape != shape:
        if not _expandable_to(gd.shape, shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"[{', '.join(str(n) for n in gd.shape)}] but expected shape compatible with "
                f"[{', '.join(str(n) for n in shape)}]"
            )
        elif _state.enabled:  # create_graph: the reduction must be recorded
            from .._ops.reduction import sum_to

            grad = sum_to(grad, shape)
        else:
            grad = wrap(sum_to_shape(gd, shape))
    if grad._data.dtype != npd:
        if grad._data.dtype.kind == "c" and npd.kind != "c":
            # a real input's share of a complex gradient is its real part (Note [Complex gradients])
            grad = grad.real if _state.enabled else wrap(grad._data.real)
        grad = grad.to(npd)
    return grad


def run_backward(roots, root_grads, retain_graph: bool, create_graph: bool, capture=None, accumulate=True):
    """Backpropagate ``root_grads`` from the ``roots`` edges.

    Args:
        roots: list of (node, output_nr) edges, one per output tensor.
        root_grads: list of Tensors, already checked against the outputs' shapes.
        capture: optional dict {(node, nr): slot} of edges whose gradient is wanted
            (``autograd.grad`` and ``backward(inputs=...)``); the captured grads come back
            as a list. With ``accumulate=False`` no leaf ``.grad`` is touched.
    """
    # 1. Count dependencies.
    deps: dict = {}
    stack = []
    for node, _ in roots:
        if node not in deps:
            deps[node] = 0
            stack.append(node)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is not None:
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
                    stack.append(nxt)

    # With a capture (grad / backward(inputs=...)), run only the nodes on a path to a wanted
    # edge, as torch does: the rest of the graph is neither executed nor freed.
    run_set = None
    if capture is not None:
        targets = {node for node, _ in capture}
        needed = _needed_nodes(deps, targets)
        run_set = {n for n in needed if any(c in needed for c, _ in n.next_functions)}
        deps = {n: 0 for n in needed}
        for n in run_set:
            for c, _ in n.next_functions:
                if c in needed:
                    deps[c] += 1

    # 2. Seed the buffers with the root gradients.
    buffers: dict = {}
    for (node, nr), g in zip(roots, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * len(node._meta)
        buf[nr] = g if buf[nr] is None else buf[nr] + g
    captured = [None] * (len(set(capture.values())) if capture else 0)
    heap = []
    for node in buffers:
        if deps.get(node) == 0:
            heap.append((-node._seq, node))
    heapq.heapify(heap)

    anomaly = anomaly_mode._enabled
    observer = OBSERVERS[-1] if OBSERVERS else None
    if observer is not None and hasattr(observer, "begin"):  # the profiler times each node from here
        observer.begin()
    prev_mode = _state.enabled
    _state.enabled = create_graph
    heappop, heappush = heapq.heappop, heapq.heappush
    try:
        while heap:
            node = heappop(heap)[1]
            grads = buffers.pop(node, None) or [None] * len(node._meta)
            if node._pre_hooks is not None:
                grads = _run_pre_hooks(node, grads)
            if node._retained is not None:
                _retain(node, grads, create_graph)
            if type(node) is AccumulateGrad and node.variable._hooks and grads[0] is not None:
                grads = [_run_leaf_hooks(node.variable, grads[0])]  # also for a captured leaf gradient
            if capture is not None:
                _capture(capture, captured, node, grads)
            if type(node) is AccumulateGrad:
                if accumulate and grads[0] is not None:
                    accumulate_grad(node.variable, grads[0], create_graph, hooks_done=True, may_steal=observer is None)
                if observer is not None:
                    observer(node, grads, ())
                continue
            if run_set is not None and node not in run_set:
                continue
            if node._node_prehooks is not None:
                grads = _run_node_prehooks(node, grads)
            try:
                if anomaly:
                    outs = _backward_checked(node, grads, create_graph)
                elif len(grads) == 1:
                    g0 = grads[0]
                    if g0 is None:
                        outs = ()
                    elif (create_graph or node.backward_arrays is None or (_fw.bf16 and g0._data.dtype.kind == "V")
                          or (_fw.profiling and getattr(node, "profiled_backward", False))):
                        # (bfloat16 gradients take the Tensor formulas: Note [bfloat16 fused backward])
                        outs = node.backward(g0) if not _fw.bf16 else _bf16.backward(node, grads, create_graph)
                    else:
                        outs = node.backward_arrays(g0._data)  # see Note [Backward on arrays]
                elif any(g is not None for g in grads):
                    # Multi-output node: outputs that got no gradient count as zeros (unless the node
                    # asked for None, as a custom Function with set_materialize_grads(False) does).
                    if node._materialize:
                        grads = [g if g is not None else wrap(xp.zeros(m[0], dtype=m[1])) for g, m in zip(grads, node._meta)]
                    outs = node.backward(*grads) if not _fw.bf16 else _bf16.backward(node, grads, create_graph)
                else:
                    outs = ()
            except BatchingFallback:  # a formula that cannot run on gradients batched by a vmap around it
                outs = _loop_backward(node, grads)
            if type(outs) is not tuple:
                outs = (outs,)
            if node._node_hooks is not None:
                outs = _run_node_hooks(node, outs, grads)
            if observer is not None:
                observer(node, grads, outs)
            if not retain_graph and node._saved:
                node._saved = None  # free the saved values (Node.release, inlined)
            if not outs:
                outs = _NONES
            for (nxt, nr), g in zip(node.next_functions, outs):
                if nxt is None or (run_set is not None and nxt not in deps):
                    continue
                if g is not None:
                    meta = nxt._meta[nr]
                    gd = g._data
                    if gd.shape != meta[0] or (gd.dtype is not meta[1] and gd.dtype != meta[1]):
                        g = _validate(node, node.next_functions.index((nxt, nr)), g, meta)
                    buf = buffers.get(nxt)
                    if buf is None:
                        buffers[nxt] = [g] if len(nxt._meta) == 1 else _new_buffer(nxt, nr, g)
                    else:
                        old = buf[nr]
                        if old is None:
                            buf[nr] = g
                        elif create_graph:
                            buf[nr] = old + g
                        else:
                            # Summing contributions is the engine's own arithmetic, not an op: on arrays.
                            buf[nr] = wrap(old._data + g._data)
                d = deps[nxt] - 1
                deps[nxt] = d
                if d == 0:
                    heappush(heap, (-nxt._seq, nxt))  # later nodes first; sequence numbers are unique
            # Drop this node's references to the gradients it sent, so that a leaf's AccumulateGrad
            # can tell whether anything else holds its gradient (see _unshared).
            outs = g = gd = None
    finally:
        _state.enabled = prev_mode
    return captured


def _loop_backward(node, grads):
    from .._batching.dispatch import loop_backward

    grads = [g if g is not None else wrap(xp.zeros(m[0], dtype=m[1])) for g, m in zip(grads, node._meta)]
    return loop_backward(node, type(node).backward, grads)


_NONES = (None,) * 64  # "no gradient" for each input of a node whose outputs got none


def _new_buffer(node, nr, g) -> list:
    buf = [None] * len(node._meta)
    buf[nr] = g
    return buf


# Callables observer(node, grads_in, grads_out) told about every node the engine runs,
# in execution order (the innermost is used); dyngrad.viz.record_backward adds one.
OBSERVERS: list = []


def _needed_nodes(graph_nodes, targets) -> set:
    """The nodes from which a target is reachable (targets included): an iterative post-order walk."""
    needed: set = set()
    visited: set = set()
    for start in graph_nodes:
        if start in visited:
            continue
        stack = [(start, False)]
        while stack:
            node, done = stack.pop()
            if done:
                if node in targets or any(c in needed for c, _ in node.next_functions):
                    needed.add(node)
                continue
            if node in visited:
                continue
            visited.add(node)
            stack.append((node, True))
            for c, _ in node.next_functions:
                if c is not None and c not in visited:
                    stack.append((c, False))
    return needed


def _backward_checked(node, grads, create_graph: bool):
    """Run a node's backward under anomaly detection: show its forward trace on error, check NaN."""
    try:
        if any(g is not None for g in grads):
            grads = [g if g is not None else wrap(xp.zeros(m[0], dtype=m[1])) for g, m in zip(grads, node._meta)]
            outs = node.backward(*grads)
        else:
            outs = ()
        if type(outs) is not tuple:
            outs = (outs,)
        if anomaly_mode._check_nan:
            for i, g in enumerate(outs):
                if g is not None and xp.isnan(g._data).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    except Exception:
        anomaly_mode.warn_forward_trace(node)
        raise
    return outs


def _run_node_prehooks(node, grads):
    grads = tuple(grads)
    for hook in tuple(node._node_prehooks.values()):
        out = hook(grads)
        if out is not None:
            grads = tuple(out)
    return list(grads)


def _run_node_hooks(node, outs, grads):
    n = len(node.next_functions)
    grad_inputs = tuple(outs) + (None,) * (n - len(outs))
    for hook in tuple(node._node_hooks.values()):
        out = hook(grad_inputs, tuple(grads))
        if out is not None:
            grad_inputs = tuple(out)
    return grad_inputs


def _capture(capture, captured, node, grads) -> None:
    for nr, g in enumerate(grads):
        slot = capture.get((node, nr))
        if slot is not None and g is not None:
            captured[slot] = g if captured[slot] is None else captured[slot] + g


def _run_leaf_hooks(var: Tensor, grad: Tensor) -> Tensor:
    """A leaf's tensor hooks, in registration order; a non-None return replaces the gradient."""
    for hook in tuple(var._hooks.values()):
        out = hook(grad)
        if out is not None:
            _check_hook_result(hook, grad, out)
            grad = out
    return grad


def accumulate_grad(
    var: Tensor, grad: Tensor, create_graph: bool, hooks_done: bool = False, may_steal: bool = False
) -> None:
    """Add ``grad`` into ``var.grad``: the gradient itself or a copy the first time, summed after.

    ``may_steal``: the caller (the engine) holds ``grad`` only in its list of a node's incoming
    gradients, so ``grad`` may become ``var.grad`` as it is when nothing else refers to it.
    """
    if var._hooks and not hooks_done:
        grad = _run_leaf_hooks(var, grad)
    old = var._grad
    if old is None:
        if create_graph:
            # torch stores a copy made with copy_ (clone_obey_contract): x.grad's grad_fn is CopyBackwards
            from .._ops.inplace import copy_

            var._grad = copy_(wrap(xp.empty_like(var._data)), grad)
        elif may_steal and _unshared(grad):
            var._grad = grad  # as torch's AccumulateGrad: no copy of a gradient nobody else holds
        else:
            # A fresh tensor that shares no memory with a gradient flowing elsewhere in the graph.
            var._grad = wrap(grad._data.copy())
    elif create_graph or _state.enabled:
        var._grad = old + grad
    else:
        # In place, as torch does: the .grad object stays the same tensor.
        if old._data.flags.writeable:  # (also when .grad has a graph from create_graph: its grad_fn stays)
            xp.add(old._data, grad._data, out=old._data, casting="unsafe")
            old._vc[0] += 1
        else:
            var._grad = wrap(old._data + grad._data)
    if var._post_acc_hooks:
        for hook in tuple(var._post_acc_hooks.values()):
            hook(var)


def _unshared(grad: Tensor, _refs=sys.getrefcount) -> bool:
    """True when only the engine refers to ``grad`` and only ``grad`` to its memory.

    References to the tensor: the engine's list of incoming gradients, accumulate_grad's
    argument, this function's argument and getrefcount's own; to the array: the tensor's
    attribute, the local ``data`` and getrefcount's. A view (``base``), a read-only array (``broadcast_to``) or a
    gradient also sent elsewhere (AddBackward0 passes one array on to both inputs) is copied.
    """
    data = grad._data
    return (
        _refs(grad) <= 4
        and _refs(data) <= 3
        and data.base is None
        and data.flags.writeable
        and data.flags.c_contiguous
        and grad._grad_fn is None
    )


def _retain(node, grads, create_graph: bool) -> None:
    for nr, ref in node._retained.items():
        t = ref()
        g = grads[nr]
        if t is None or g is None:
            continue
        if t._grad is None:
            t._grad = g if create_graph else wrap(g._data.copy())
        else:
            t._grad = t._grad + g


def _run_pre_hooks(node, grads):
    grads = list(grads)
    for nr, hooks in node._pre_hooks.items():
        for hook in tuple(hooks.values()):
            if grads[nr] is None:
                continue
            out = hook(grads[nr])
            if out is not None:
                _check_hook_result(hook, grads[nr], out)
                grads[nr] = out
    return grads


def _check_hook_result(hook, old: Tensor, new) -> None:
    """torch's errors for a tensor hook that returns something that cannot replace the gradient."""
    name = getattr(hook, "__name__", type(hook).__name__)
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Tensor, but hook returned '{type(new).__name__}'")
    if new._data.dtype != old._data.dtype:
        from .._dtype import scalar_type_name

        was, got = scalar_type_name(old._data.dtype), scalar_type_name(new._data.dtype)
        raise RuntimeError(f"hook '{name}' has changed the type of value (was torch.{was}Tensor got torch.{got}Tensor)")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
