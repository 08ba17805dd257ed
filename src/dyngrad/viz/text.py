"""The text view: the graph as an indented tree from the root down to the leaves."""

from __future__ import annotations

import sys

from ._walk import describe, root_node


def _line(number: int, info) -> str:
    outs = ", ".join(f"{d}{s}" for s, d in info.outputs)
    if info.leaf_name is not None or info.name == "AccumulateGrad":
        target = info.leaf_name or "a leaf"
        return f"[{number}] {info.name} -> {target} {outs}"
    text = f"[{number}] {info.name} -> {outs}"
    if info.released:
        text += "  saved: released"
    elif info.saved:
        text += "  saved: " + "; ".join(f"{s.label} {s.text}" for s in info.saved)
    return text


def show(root, names: dict | None = None, file=None) -> None:
    """Print the grad_fn graph behind ``root`` (a tensor or a node) as a tree (see ``tree``).

    Args:
        root: a tensor with a ``grad_fn`` (usually the loss), or a ``grad_fn`` node.
        names: ``{"x": x, ...}``: AccumulateGrad lines name these leaves.
        file: where to print; standard output by default.

    Raises:
        TypeError: ``root`` is neither a tensor nor a node.

    Returns None, so that an interactive session shows the tree once; ``tree`` returns the text.
    """
    print(tree(root, names), file=file if file is not None else sys.stdout)


def tree(root, names: dict | None = None) -> str:
    """The grad_fn graph behind ``root`` (a tensor or a node) as an indented text tree.

    Each node is numbered on first sight; a node reached again (a shared subgraph) is shown
    as ``(see [n])`` instead of being printed twice. ``names`` maps a label to a leaf tensor
    (``{"x": x}``, or ``dict(model.named_parameters())``) so AccumulateGrad lines name it.

    Args:
        root: a tensor with a ``grad_fn`` (usually the loss), or a ``grad_fn`` node. A tensor without
            one (a leaf, or a result computed under ``no_grad``) gives a one-line tree saying so.
        names: ``{"x": x, ...}`` or ``dict(model.named_parameters())``.

    Returns:
        str: one line per node, ``[n] NodeName -> dtype[shape]`` followed by what the node saved.

    Raises:
        TypeError: ``root`` is neither a tensor nor a node.

    Example::

        >>> import dyngrad as torch
        >>> x = torch.tensor([2.0, 3.0], requires_grad=True)
        >>> torch.viz.show((x * 3).sum(), names={"x": x})
        [1] SumBackward0 -> float32[]
         └─ [2] MulBackward0 -> float32[2]  saved: other 3
             └─ [3] AccumulateGrad -> x float32[2]
    """
    root = root_node(root)
    numbers: dict = {}
    lines: list = []
    # Iterative depth-first walk: (node, prefix for its children, connector for itself)
    stack = [(root, "", "")]
    while stack:
        node, prefix, connector = stack.pop()
        if id(node) in numbers:
            lines.append(f"{connector}({type(node).__name__}, see [{numbers[id(node)]}])")
            continue
        numbers[id(node)] = len(numbers) + 1
        info = describe(node, names)
        lines.append(connector + _line(numbers[id(node)], info))
        children = info.children
        for i in reversed(range(len(children))):
            last = i == len(children) - 1
            stack.append((children[i], prefix + ("    " if last else " │  "), prefix + (" └─ " if last else " ├─ ")))
    return "\n".join(lines)
