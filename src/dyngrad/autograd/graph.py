"""Graph nodes: the ``grad_fn`` objects that record how each tensor was made.

A ``Node`` is created by an op when grad mode is on and an input requires grad.
It holds the edges to the nodes of its inputs (``next_functions``), the values it
saved for backward, and the shape and dtype of each output (so the engine can
check and reduce incoming gradients in one place).

Note [No reference cycles]
A tensor points to its ``grad_fn``; a node never points back to its own output
tensor. When an op needs its result in backward it saves the result's array and
version counter and rebuilds a tensor on unpack. Leaves hold their
``AccumulateGrad`` through a weak reference, and the ``AccumulateGrad`` holds the
leaf. So a forward+backward frees its memory by reference counting alone.
"""

from __future__ import annotations

import itertools
import re

from . import anomaly_mode

_sequence = itertools.count()
_ACCUMULATE_PRIORITY = 1 << 62  # above any op's sequence number

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
    "if you need to access saved tensors after calling backward."
)


class Node:
    """Base of every ``grad_fn``; subclasses are named as torch's (``MulBackward0``)."""

    # Set by every op: next_functions (tuple of (Node | None, input_nr), one per input),
    # _meta (((shape, np.dtype),) one per output) and _seq (creation order; the engine
    # runs later nodes first, as torch does). The rest are class-level defaults, set on
    # a node only when it needs them, to keep node creation cheap.
    _saved = ()  # saved values (Tensors, SavedResult, Python values); None once freed
    _versions = None  # version of each saved tensor at save time (None for non-tensors)
    _params = ()  # non-tensor arguments of the op (dims, shapes, ...)
    _retained = None  # {output_nr: weakref to a tensor that called retain_grad()}
    _pre_hooks = None  # {output_nr: {id: hook}} from Tensor.register_hook
    backward_arrays = None  # optional array formula: see Note [Backward on arrays] in _ops/registry.py
    _packed = False  # saved values went through saved_tensors_hooks' pack
    _materialize = True  # a multi-output node gets zeros, not None, for outputs without a gradient
    _node_hooks = None  # {id: hook(grad_inputs, grad_outputs)} from Node.register_hook
    _node_prehooks = None  # {id: hook(grad_outputs)} from Node.register_prehook

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def metadata(self) -> dict:
        return {}

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after this node runs; a non-None return replaces grad_inputs."""
        from .hooks import RemovableHandle, _ids

        if self._node_hooks is None:
            self._node_hooks = {}
        key = next(_ids)
        self._node_hooks[key] = fn
        return RemovableHandle(self._node_hooks, key)

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before this node runs; a non-None return replaces grad_outputs."""
        from .hooks import RemovableHandle, _ids

        if self._node_prehooks is None:
            self._node_prehooks = {}
        key = next(_ids)
        self._node_prehooks[key] = fn
        return RemovableHandle(self._node_prehooks, key)

    def needs_input_grad(self, i: int) -> bool:
        return self.next_functions[i][0] is not None

    # --- saved values -------------------------------------------------------
    def saved(self):
        """The saved values, after checking none was freed or modified in place."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        if self._packed:
            return tuple(v.unpack() if type(v).__name__ == "Packed" else v for v in saved)
        versions = self._versions
        if versions is not None:
            for value, version in zip(saved, versions):
                if version is not None and value._vc[0] != version:
                    _raise_modified(self, value, version)
        return saved

    def release(self) -> None:
        """Free saved values (called after a backward pass without retain_graph)."""
        if self._saved:
            self._saved = None

    def backward(self, *grads):  # pragma: no cover - every op overrides it
        raise NotImplementedError


class SavedResult:
    """An op's own output, saved without the tensor (see Note [No reference cycles]); under forward AD it
    keeps the output's tangent too, so a backward recorded through it carries that tangent on."""

    __slots__ = ("_data", "_vc", "_fw_grad")

    def __init__(self, data, vc) -> None:
        self._data = data
        self._vc = vc
        self._fw_grad = None


def _raise_modified(node, value, version) -> None:
    """torch's error for a saved tensor that an in-place op changed after it was saved."""
    from .._dtype import scalar_type_name

    if isinstance(value, SavedResult):
        producer, nr = node, 0
    else:
        producer, nr = value._grad_fn, value._output_nr
    data = value._data
    while type(data).__name__ == "BatchedArray":  # vmapped: torch names the physical tensor
        data = data.value
    # torch's toString(): a complex tensor by its type (CPUComplexFloatType), a real one by its class
    name = scalar_type_name(data.dtype)
    kind = f"CPU{name}Type" if data.dtype.kind == "c" else f"torch.{name}Tensor"
    where = ""
    if producer is not None:
        # torch names the producer without its "Backward0" suffix ("output 0 of Mul").
        where = f", which is output {nr} of {_short_name(producer.name())},"
    message = (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{kind} [{', '.join(str(n) for n in data.shape)}]]{where} is at version "
        f"{value._vc[0]}; expected version {version} instead. Hint: enable anomaly detection to find the "
        "operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )
    raise RuntimeError(message + _origin_line(node, value))


def _origin_line(node, value) -> str:
    """With dyngrad.viz.track_origins on: where the node was made and where the tensor was modified."""
    origin = getattr(node, "_origin", None)
    modified = value._vc[1] if len(value._vc) > 1 else None
    if origin is None and modified is None:
        return ""
    parts = []
    if origin is not None:
        filename, line = anomaly_mode.site_line(origin)
        parts.append(f"the value was saved by {node.name()} created at {filename}:{line}")
    if modified is not None:
        op, site = modified
        where = " at {}:{}".format(*anomaly_mode.site_line(site)) if site else ""
        parts.append(f"it was last modified in place by {op}(){where}")
    text = "; ".join(parts)
    return "\n" + text[0].upper() + text[1:] + "."


_BACKWARD_SUFFIX = re.compile(r"Backward(\d*)$")


def _short_name(name: str) -> str:
    """torch's short node name in messages: "Backward0" dropped, other numbers kept (SumBackward1 -> Sum1)."""
    return _BACKWARD_SUFFIX.sub(lambda m: "" if m.group(1) in ("", "0") else m.group(1), name)


class AccumulateGrad(Node):
    """The node that adds an incoming gradient into a leaf's ``.grad``."""

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __init__(self, variable) -> None:
        self.variable = variable
        self.next_functions = ()
        data = variable._data
        while type(data).__name__ == "BatchedArray":  # a batched leaf accumulates its physical gradient
            data = data.value
        self._meta = ((data.shape, data.dtype),)
        # torch gives AccumulateGrad the highest priority: it runs as soon as it is ready.
        self._seq = _ACCUMULATE_PRIORITY + next(_sequence)


def new_node(cls):
    """Allocate a node without running ``__init__`` (ops set the slots they use)."""
    node = object.__new__(cls)
    node._seq = next(_sequence)
    return node


from .saved_hooks import saved_tensors_hooks  # noqa: E402,F401  (torch.autograd.graph.saved_tensors_hooks)
