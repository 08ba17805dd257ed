"""The picture: the graph as Graphviz DOT text, rendered with the optional ``graphviz`` package."""

from __future__ import annotations

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


class Graph:
    """A drawable graph: ``.source`` is the DOT text; ``render`` and Jupyter's SVG display need graphviz."""

    def __init__(self, source: str) -> None:
        self.source = source

    def _graphviz(self):
        try:
            import graphviz
        except ImportError as e:  # an extra, not a runtime dependency
            raise ImportError(
                "drawing needs the graphviz package and the dot program: pip install graphviz, and install "
                "Graphviz (e.g. apt-get install graphviz)"
            ) from e
        return graphviz.Source(self.source)

    def render(self, path: str, format: str = "svg") -> str:  # noqa: A002 - graphviz's name
        """Write the picture to ``path`` (``format`` svg or png); returns the file written."""
        data = self.pipe(format)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def pipe(self, format: str = "svg") -> bytes:  # noqa: A002
        return self._graphviz().pipe(format=format)

    def _repr_svg_(self) -> str:
        return self.pipe("svg").decode("utf-8")

    def __str__(self) -> str:
        return self.source


def draw(root, names: dict | None = None) -> Graph:
    """The graph behind ``root`` as a ``Graph`` (shows itself as SVG in Jupyter)."""
    return Graph(to_dot(root, names))
