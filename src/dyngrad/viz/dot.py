"""The picture: the graph as Graphviz DOT text, rendered with the optional ``graphviz`` package."""

from __future__ import annotations

import os

from ._walk import walk

_STYLES = {
    "op": 'shape=box, style="rounded,filled", fillcolor="#e8eef7"',
    "leaf": 'shape=ellipse, style=filled, fillcolor="#cfe8cf"',
    "saved": 'shape=note, style=filled, fillcolor="#fbe5c8", fontsize=10',
    "root": 'shape=box, style="rounded,filled,bold", fillcolor="#c9d7ef"',
}


def _quote(text: str) -> str:
    """A DOT string literal; a newline in ``text`` becomes a line break in the label."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def to_dot(root, names: dict | None = None) -> str:
    """DOT text of the graph behind ``root``: ops as boxes, leaves as ellipses, saved values as notes.

    Edges run from each input's node to the node that consumed it (the direction of the
    forward pass), so the root is at the bottom, as in the usual pictures of backprop.

    Args:
        root: a tensor with a ``grad_fn`` (usually the loss), or a ``grad_fn`` node.
        names: ``{"w": w, ...}``: leaves are labelled with these names instead of "leaf".

    Returns:
        str: a ``digraph`` in Graphviz's DOT language (no Graphviz needed to make it).

    Raises:
        TypeError: ``root`` is neither a tensor nor a node.

    Example::

        >>> import dyngrad as torch
        >>> x = torch.tensor([2.0, 3.0], requires_grad=True)
        >>> dot = torch.viz.to_dot((x * 3).sum(), names={"x": x})
        >>> dot.splitlines()[:2]
        ['digraph grad_fn {', '  rankdir=BT;']
    """
    infos = walk(root, names)
    ids = {id(info.node): f"n{i}" for i, info in enumerate(infos)}
    lines = ["digraph grad_fn {", "  rankdir=BT;", '  node [fontname="Helvetica"];']
    for i, info in enumerate(infos):
        nid = ids[id(info.node)]
        outs = ", ".join(f"{d}{s}" for s, d in info.outputs)
        if info.name == "AccumulateGrad":
            label = f"{info.leaf_name or 'leaf'}\n{outs}"
            style = _STYLES["leaf"]
        else:
            label = f"{info.name}\n{outs}"
            style = _STYLES["root"] if i == 0 else _STYLES["op"]
        lines.append(f"  {nid} [label={_quote(label)}, {style}];")
        for k, s in enumerate(info.saved):
            sid = f"{nid}_s{k}"
            lines.append(f"  {sid} [label={_quote(f'{s.label}: {s.text}')}, {_STYLES['saved']}];")
            lines.append(f"  {sid} -> {nid} [style=dashed, arrowhead=none];")
        if info.released:
            lines.append(f"  {nid}_r [label=\"saved: released\", {_STYLES['saved']}];")
            lines.append(f"  {nid}_r -> {nid} [style=dashed, arrowhead=none];")
    for info in infos:
        for child in info.children:
            lines.append(f"  {ids[id(child)]} -> {ids[id(info.node)]};")
    lines.append("}")
    return "\n".join(lines) + "\n"


_HOW_TO_INSTALL_DOT = ("apt-get install graphviz (Debian/Ubuntu), brew install graphviz (macOS), conda install "
                       "graphviz, or https://graphviz.org/download/")
_WITHOUT_IT = ("Without it, graph.render('graph.dot') writes the DOT text and dyngrad.viz.show() prints the graph "
               "as text")
_INSTALL_DOT = f"drawing needs Graphviz's `dot` program, which is not installed: {_HOW_TO_INSTALL_DOT}. {_WITHOUT_IT}"
_TEXT_FORMATS = ("dot", "gv")  # written from the DOT source; no Graphviz needed


def _format_of(path: str, format: str | None) -> str:  # noqa: A002 - graphviz's name
    """The output format: ``format`` if given, else the file's extension (``g.png`` -> png), else svg."""
    if format is not None:
        return format.lower()
    suffix = os.path.splitext(path)[1].lstrip(".").lower()
    return suffix or "svg"


class Graph:
    """A drawable autograd graph (what ``draw`` returns).

    ``.source`` is the DOT text. ``render(path)`` writes a picture whose format follows the
    file's extension, and Jupyter shows the graph as SVG; both need the ``graphviz`` Python
    package (the ``viz`` extra) and Graphviz's ``dot`` program. ``render("g.dot")`` needs neither.

    Args:
        source: the DOT text (as ``to_dot`` makes it).

    Example::

        >>> import dyngrad as torch
        >>> x = torch.tensor([2.0, 3.0], requires_grad=True)
        >>> g = torch.viz.draw((x * 3).sum(), names={"x": x})
        >>> g.source == torch.viz.to_dot((x * 3).sum(), names={"x": x})
        True
    """

    def __init__(self, source: str) -> None:
        self.source = source

    def _graphviz(self):
        try:
            import graphviz
        except ImportError as e:  # an extra, not a runtime dependency
            raise ImportError(
                "drawing needs the graphviz Python package: pip install 'dyngrad[viz]' (or pip install graphviz), "
                f"and Graphviz's `dot` program ({_HOW_TO_INSTALL_DOT}). {_WITHOUT_IT}"
            ) from e
        return graphviz.Source(self.source)

    def render(self, path: str, format: str | None = None) -> str:  # noqa: A002 - graphviz's name
        """Write the picture to ``path`` and return ``path``.

        Args:
            path: the file to write; its extension chooses the format (``.svg``, ``.png``, ``.pdf``,
                ``.jpg``, any format ``dot -T`` knows; ``.dot``/``.gv`` write the DOT text; no
                extension means SVG).
            format: a format that overrides the extension.

        Raises:
            ImportError: the ``graphviz`` Python package is missing (not for ``.dot``).
            RuntimeError: Graphviz's ``dot`` program is not installed (the message says how to install it),
                or ``dot`` cannot write ``format``.

        Example::

            >>> viz.draw(loss, names={"w": w}).render("graph.png")   # a PNG, as the name says
            'graph.png'
        """
        fmt = _format_of(path, format)
        if fmt in _TEXT_FORMATS:
            data = self.source.encode("utf-8")
        else:
            data = self.pipe(fmt)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def pipe(self, format: str = "svg") -> bytes:  # noqa: A002
        """The picture's bytes in ``format`` (``"svg"``, ``"png"``, ...), rendered by Graphviz's ``dot``."""
        source = self._graphviz()
        import graphviz

        try:
            return source.pipe(format=format)
        except graphviz.ExecutableNotFound:
            raise RuntimeError(_INSTALL_DOT) from None
        except ValueError as e:  # an unknown format
            raise RuntimeError(f"Graphviz cannot write the format {format!r}: {e}") from None

    def _repr_svg_(self) -> str:
        return self.pipe("svg").decode("utf-8")

    def __str__(self) -> str:
        return self.source


def draw(root, names: dict | None = None) -> Graph:
    """The autograd graph behind ``root`` as a drawable ``Graph``.

    Args:
        root: a tensor with a ``grad_fn`` (usually the loss), or a ``grad_fn`` node.
        names: ``{"w": w, ...}``: leaves are labelled with these names instead of "leaf".

    Returns:
        A ``Graph``: ``.render("graph.png")`` writes a picture (format from the extension),
        ``.source`` is the DOT text, and a notebook displays it as SVG.

    Example::

        >>> x = dyngrad.tensor([2.0, 3.0], requires_grad=True)
        >>> g = viz.draw((x * 3).sum(), names={"x": x})
        >>> print(g.source.splitlines()[0])
        digraph grad_fn {
    """
    return Graph(to_dot(root, names))
