"""The backward pass, step by step: record what each node received and sent."""

from __future__ import annotations

from dataclasses import dataclass

from ..autograd import engine
from ..autograd.graph import AccumulateGrad


def _fmt(t) -> str:
    if t is None:
        return "None"
    return repr(t.detach())


@dataclass
class Step:
    """One node run by the engine."""

    number: int
    node: str
    grads_in: tuple  # the gradients that arrived, one per output of the node
    grads_out: tuple  # the gradients it sent, one per input (None where none was needed)
    formula: str  # the first line of the op's docstring, where it has one
    leaf: str | None = None  # for AccumulateGrad: the name of the leaf it fed

    def __str__(self) -> str:
        arrived = ", ".join(_fmt(g) for g in self.grads_in)
        if self.leaf is not None or self.node == "AccumulateGrad":
            return f"{self.number}. {arrived} -> {self.node} -> {(self.leaf or 'leaf')}.grad"
        sent = ", ".join(_fmt(g) for g in self.grads_out)
        return f"{self.number}. {arrived} -> {self.node} -> {sent}"


class BackwardRecord:
    """What ``record_backward`` returns: the steps of the backward passes run inside its block.

    Attributes:
        steps (list of Step): one per node the engine ran, in the engine's order; each has
            ``number``, ``node`` (the node's class name), ``grads_in`` (the gradients that arrived,
            one per output of the node), ``grads_out`` (the gradients it sent, one per input, None
            where none was needed), ``formula`` (the first line of the op's docstring) and ``leaf``
            (for AccumulateGrad, the name given in ``names``).

    ``str(record)`` gives one line per step; ``record.table()`` adds each op's formula.
    """

    def __init__(self, names: dict | None = None) -> None:
        self.steps: list = []
        self._names = names or {}

    def _observe(self, node, grads, outs) -> None:
        doc = (type(node).__doc__ or "").strip().splitlines()
        leaf = None
        if isinstance(node, AccumulateGrad):
            leaf = next((k for k, v in self._names.items() if v is node.variable), None)
        self.steps.append(
            Step(len(self.steps) + 1, type(node).__name__, tuple(grads), tuple(outs), doc[0] if doc else "", leaf)
        )

    def __enter__(self) -> BackwardRecord:
        engine.OBSERVERS.append(self._observe)
        return self

    def __exit__(self, *exc) -> None:
        engine.OBSERVERS.remove(self._observe)

    def __str__(self) -> str:
        return "\n".join(str(s) for s in self.steps)

    def table(self) -> str:
        """The steps with their formulas, one per line."""
        return "\n".join(f"{s}    [{s.formula}]" if s.formula else str(s) for s in self.steps)


def record_backward(names: dict | None = None) -> BackwardRecord:
    """Record the backward passes run inside the block.

    The engine reports each node it runs, with the gradients that arrived and those it sent, to
    the recorder while the ``with`` block is active; several backward passes append to one record.

    Args:
        names: ``{"x": x, ...}``: the AccumulateGrad steps name these leaves (``x.grad``).

    Returns:
        BackwardRecord: a context manager; after the block its ``steps`` hold the record.

    Example::

        >>> import dyngrad as torch
        >>> x = torch.tensor([2.0, 3.0], requires_grad=True)
        >>> z = (x * 3).sum()
        >>> with torch.viz.record_backward(names={"x": x}) as rec:
        ...     z.backward()
        >>> print(rec)
        1. tensor(1.) -> SumBackward0 -> tensor([1., 1.])
        2. tensor([1., 1.]) -> MulBackward0 -> tensor([3., 3.]), None
        3. tensor([3., 3.]) -> AccumulateGrad -> x.grad
    """
    return BackwardRecord(names)
