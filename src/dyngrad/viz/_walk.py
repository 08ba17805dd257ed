"""Walking a grad_fn graph and describing its nodes (shared by the text and DOT views)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .._dtype import from_numpy
from .._tensor import Tensor
from ..autograd.graph import AccumulateGrad, SavedResult


def root_node(obj):
    """The grad_fn of a tensor (or the node itself)."""
    if isinstance(obj, Tensor):
        if obj.grad_fn is None:
            raise ValueError("the tensor has no grad_fn: it is a leaf, so there is no graph behind it")
        return obj.grad_fn
    return obj


def shape_str(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def dtype_str(np_dtype) -> str:
    return from_numpy(np_dtype).name


@dataclass
class SavedInfo:
    """One value a node saved for backward."""

    label: str
    text: str
    nbytes: int = 0
    array_id: int = 0


@dataclass
class NodeInfo:
    """What the views show of a node."""

    node: object
    name: str
    outputs: list  # [(shape, dtype), ...]
    leaf_name: str | None = None
    saved: list = field(default_factory=list)
    released: bool = False
    children: list = field(default_factory=list)  # nodes, in next_functions order (None skipped)


_SAVED_LABELS = ("self", "other")


def describe(node, names: dict | None = None) -> NodeInfo:
    """Summarise a node: name, output shapes/dtypes, the leaf it feeds, saved values."""
    outputs = [(shape_str(s), dtype_str(d)) for s, d in getattr(node, "_meta", ())]
    info = NodeInfo(node=node, name=type(node).__name__, outputs=outputs)
    if isinstance(node, AccumulateGrad):
        info.leaf_name = _leaf_name(node.variable, names)
    saved = getattr(node, "_saved", ())
    if saved is None:
        info.released = True
    else:
        for i, value in enumerate(saved):
            info.saved.extend(_saved_info(i, value))
    info.children = [n for n, _ in node.next_functions if n is not None]
    return info


def _leaf_name(variable, names: dict | None) -> str | None:
    for key, value in (names or {}).items():
        if value is variable:
            return key
    return None


def _saved_info(i: int, value) -> list:
    label = _SAVED_LABELS[i] if i < len(_SAVED_LABELS) else f"input {i}"
    if isinstance(value, SavedResult):
        label = "result"
    if value is None:
        return []
    if isinstance(value, (Tensor, SavedResult)):
        data = value._data
        text = f"{dtype_str(data.dtype)}{shape_str(data.shape)} {data.nbytes} B"
        return [SavedInfo(label, text, data.nbytes, id(data.base if data.base is not None else data))]
    return [SavedInfo(label, repr(value))]


def walk(root, names: dict | None = None) -> list:
    """All nodes reachable from ``root``, depth first in next_functions order, each once."""
    root = root_node(root)
    seen: dict = {}
    order = []
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        info = describe(node, names)
        seen[id(node)] = info
        order.append(info)
        stack.extend(reversed(info.children))
    return order
