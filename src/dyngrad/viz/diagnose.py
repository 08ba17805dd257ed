"""Why is my grad None? And how much memory does a graph hold, and is it growing?"""

from __future__ import annotations

import warnings

from .._tensor import Tensor
from ..autograd.graph import AccumulateGrad, SavedResult


def _reaches(root, target_variable) -> bool:
    """Whether the graph behind ``root`` has an AccumulateGrad for ``target_variable``."""
    stack = [root]
    seen = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad) and node.variable is target_variable:
            return True
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return False


_CONVERSIONS = {"ToCopyBackward0": "a conversion such as .to(), .float() or .double()"}


def why_no_grad(tensor: Tensor, loss: Tensor | None = None) -> str:
    """One sentence on why ``tensor.grad`` is None or zero, from what the graph shows.

    Args:
        tensor: the tensor whose ``.grad`` you expected.
        loss: optionally, the tensor you call (or called) ``backward()`` on.

    Returns:
        str: the reason, e.g. that ``tensor`` does not require grad, is not a leaf (its ``.grad``
        is not kept without ``retain_grad()``), is not reached from ``loss``'s graph, or got a zero
        gradient; or that backward has not been run yet.

    Example::

        >>> import dyngrad as torch
        >>> x = torch.tensor([1.0, 2.0])
        >>> print(torch.viz.why_no_grad(x))
        it does not require grad: create it with requires_grad=True or call .requires_grad_() before
        using it (tensors made under torch.no_grad(), or only from tensors that do not require grad,
        never do).
    """
    fn = tensor._grad_fn
    if fn is not None:
        if tensor._retains_grad and tensor._grad is not None:
            return "its .grad is set (it is a non-leaf that called .retain_grad())."
        made_by = _CONVERSIONS.get(type(fn).__name__, f"an op (its grad_fn is {type(fn).__name__})")
        return (
            f"it is not a leaf: it was made by {made_by}, so backward() fills the .grad of the leaves it came "
            "from, not its own; call .retain_grad() on it before backward(), or read the .grad of the leaf "
            "tensor it was made from."
        )
    if not tensor._requires_grad:
        how = getattr(tensor, "_detached_by", None)
        if how is not None:
            return f"it does not require grad: it was cut from the graph by {how}, so no gradient reaches it."
        return (
            "it does not require grad: create it with requires_grad=True or call .requires_grad_() before using "
            "it (tensors made under torch.no_grad(), or only from tensors that do not require grad, never do)."
        )
    if tensor._grad is not None:
        if not tensor._grad._data.any():
            return (
                "its gradient is zero: the loss depends on it only through ops whose gradient is zero here "
                "(relu or clamp outside their range, a max that picked another element, a product with zero)."
            )
        return "its .grad is set: backward() has reached it."
    if loss is not None:
        if loss._grad_fn is None or not _reaches(loss._grad_fn, tensor):
            return (
                "the loss does not depend on it: no path in the loss's graph leads to it (was it used only under "
                "torch.no_grad(), through .detach(), .data or .item(), or not at all?)."
            )
        return "backward() has not reached it yet: call loss.backward()."
    return "backward() has not been called on a result that depends on it."


def graph_memory(root) -> int:
    """Bytes of the saved tensors still held by the graph behind ``root`` (each array counted once).

    What a backward pass would need to keep in memory: the arrays the graph's nodes saved for their
    formulas, each counted once even when several nodes share it (views count their base array).
    After ``backward()`` without ``retain_graph=True`` the saved values are freed, and this is 0.

    Args:
        root: a tensor with a ``grad_fn`` (usually the loss), or a ``grad_fn`` node.

    Returns:
        int: a number of bytes.

    Example::

        >>> import dyngrad as torch
        >>> x = torch.ones(1000, requires_grad=True)
        >>> loss = (x.exp() * x).sum()
        >>> torch.viz.graph_memory(loss)   # x and exp(x), float32: 2 * 4000 bytes
        8000
        >>> loss.backward()
        >>> torch.viz.graph_memory(loss)
        0
    """
    from ._walk import root_node

    node = root_node(root)
    seen_nodes, seen_arrays = set(), set()
    total = 0
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in seen_nodes:
            continue
        seen_nodes.add(id(n))
        for value in getattr(n, "_saved", None) or ():
            if isinstance(value, (Tensor, SavedResult)):
                data = value._data
                key = id(data.base if data.base is not None else data)
                if key not in seen_arrays:
                    seen_arrays.add(key)
                    total += data.nbytes
        stack.extend(c for c, _ in n.next_functions if c is not None)
    return total


def _count_nodes(root) -> int:
    seen = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.extend(c for c, _ in n.next_functions if c is not None)
    return len(seen)


class GraphGrowthWarning(UserWarning):
    """The graph behind a tensor keeps growing from one training iteration to the next."""


class GrowthMonitor:
    """Call ``check(t)`` once per iteration on a tensor you keep (a running loss, a hidden state).

    If the graph behind it grows ``patience`` checks in a row, it warns: the usual causes are a
    loss summed across iterations without ``.item()`` and a hidden state carried without
    ``.detach()``, which keep every past iteration's graph (and its saved tensors) alive.

    Args:
        patience (int): how many checks in a row the graph must grow before the warning. Default 3.

    Warns:
        GraphGrowthWarning: once, when the graph has grown ``patience`` checks in a row.

    Example::

        >>> import dyngrad as torch
        >>> w = torch.tensor(1.0, requires_grad=True)
        >>> monitor, total = torch.viz.GrowthMonitor(patience=3), 0
        >>> for step in range(4):
        ...     total = total + w * 2          # should have been: total += (w * 2).item()
        ...     n_nodes = monitor.check(total)
        >>> monitor.warned, n_nodes
        (True, 9)
    """

    def __init__(self, patience: int = 3) -> None:
        self.patience = patience
        self._last = 0
        self._growing = 0
        self.warned = False

    def check(self, tensor: Tensor) -> int:
        """Record the size of ``tensor``'s graph; returns its node count."""
        count = 0 if tensor._grad_fn is None else _count_nodes(tensor._grad_fn)
        self._growing = self._growing + 1 if count > self._last else 0
        self._last = count
        if self._growing >= self.patience and not self.warned:
            self.warned = True
            warnings.warn(
                f"the autograd graph behind this tensor has grown for {self._growing} iterations in a row "
                f"({count} nodes now): a loss accumulated without .item(), or a hidden state carried across "
                "iterations without .detach(), keeps every iteration's graph alive.",
                GraphGrowthWarning,
                stacklevel=2,
            )
        return count
