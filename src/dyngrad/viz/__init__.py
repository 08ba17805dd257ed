"""See the graph: inspection tools for dyngrad's autograd graphs.

- ``show(z, names={"x": x})``: prints the grad_fn graph as an indented text tree (``tree`` returns it).
- ``to_dot(z, names)`` / ``draw(z, names)``: the same graph as Graphviz DOT text, or a
  drawable object (SVG/PNG with the ``graphviz`` package and the ``dot`` program).
- ``record_backward()``: a context manager recording each step of a backward pass.
- ``why_no_grad(t, loss=None)``: one sentence on why ``t.grad`` is None or zero.
- ``graph_memory(z)`` and ``GrowthMonitor``: bytes held by a graph, and a warning for a
  graph that grows across training iterations.
- ``track_origins()``: the in-place-modification error names the user's lines.
"""

from __future__ import annotations

from .diagnose import GraphGrowthWarning, GrowthMonitor, graph_memory, why_no_grad
from .dot import Graph, draw, to_dot
from .origins import track_origins
from .steps import BackwardRecord, record_backward
from .text import show, tree

__all__ = [
    "track_origins",
    "show",
    "tree",
    "to_dot",
    "draw",
    "Graph",
    "record_backward",
    "BackwardRecord",
    "why_no_grad",
    "graph_memory",
    "GrowthMonitor",
    "GraphGrowthWarning",
]
