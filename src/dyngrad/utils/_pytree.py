"""Nested Python containers as trees of leaves (torch.utils._pytree): what torch.func walks.

Tuples, lists, dicts (in insertion order) and namedtuples are nodes; everything else, None
included, is a leaf. ``tree_flatten`` gives the leaves and a ``TreeSpec`` that ``tree_unflatten``
rebuilds the container from; the specs print as torch's (its error messages show them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _kind(x):
    """(type name, context, children) of a node, or None for a leaf."""
    if _is_namedtuple(x):
        return "namedtuple", type(x), list(x)
    t = type(x)
    if isinstance(x, tuple) and hasattr(t, "n_sequence_fields"):  # torch.return_types.* (a structseq)
        return "structseq", t, list(x)
    if t is tuple or (isinstance(x, tuple) and not _is_namedtuple(x)):
        return "tuple", None, list(x)
    if t is list or isinstance(x, list):
        return "list", None, list(x)
    if t is dict or isinstance(x, dict):
        return "dict", list(x.keys()), list(x.values())
    return None


class LeafSpec:
    num_leaves = 1
    num_children = 0

    def __repr__(self, indent: int = 0) -> str:
        return "*"

    def __eq__(self, other) -> bool:
        return isinstance(other, LeafSpec)

    def __hash__(self) -> int:
        return 0

    def is_leaf(self) -> bool:
        return True


class TreeSpec:
    """The shape of a container: its type, context (dict keys, namedtuple class) and children's specs."""

    def __init__(self, kind: str, context, children: list) -> None:
        self.kind = kind
        self._context = context
        self._children = children
        self.num_children = len(children)
        self.num_leaves = sum(c.num_leaves for c in children)

    @property
    def type(self):
        return {"tuple": tuple, "list": list, "dict": dict}.get(self.kind, self._context)

    def is_leaf(self) -> bool:
        return False

    def __repr__(self, indent: int = 0) -> str:
        context = self._context
        if self.kind in ("namedtuple", "structseq"):
            context = repr(context)
        text = f"TreeSpec({self.kind}, {context}, ["
        if self._children:
            indent += 2
            text += self._children[0].__repr__(indent)
            text += "," if len(self._children) > 1 else ""
            text += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return text + "])"

    def __eq__(self, other) -> bool:
        return (isinstance(other, TreeSpec) and self.kind == other.kind and self._context == other._context
                and self._children == other._children)

    def __hash__(self) -> int:
        return hash((self.kind, str(self._context), len(self._children)))


_LEAF = LeafSpec()


def tree_flatten(tree) -> tuple[list, Any]:
    """(leaves, spec) of ``tree``."""
    leaves: list = []

    def walk(x):
        k = _kind(x)
        if k is None:
            leaves.append(x)
            return _LEAF
        kind, context, children = k
        return TreeSpec(kind, context, [walk(c) for c in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves, spec):
    """The container of ``spec`` with ``leaves`` in it."""
    it = iter(leaves)

    def build(s):
        if isinstance(s, LeafSpec):
            return next(it)
        children = [build(c) for c in s._children]
        if s.kind == "tuple":
            return tuple(children)
        if s.kind == "list":
            return children
        if s.kind == "dict":
            return dict(zip(s._context, children))
        if s.kind == "structseq":
            return s._context(children)
        return s._context(*children)

    return build(spec)


def tree_leaves(tree) -> list:
    return tree_flatten(tree)[0]


def tree_map(fn: Callable, tree, *rest):
    leaves, spec = tree_flatten(tree)
    others = [tree_flatten(r)[0] for r in rest]
    return tree_unflatten([fn(x, *[o[i] for o in others]) for i, x in enumerate(leaves)], spec)


def tree_map_only(cls, fn: Callable, tree):
    return tree_map(lambda x: fn(x) if isinstance(x, cls) else x, tree)


def broadcast_prefix(prefix, spec) -> list | None:
    """``prefix`` (a tree whose leaves each stand for a whole subtree of ``spec``) spread over the
    leaves of ``spec``; None when its structure is not a prefix of ``spec``'s."""
    out: list = []

    def walk(p, s) -> bool:
        k = _kind(p)
        if k is None:
            out.extend([p] * s.num_leaves)
            return True
        if isinstance(s, LeafSpec):
            return False
        kind, context, children = k
        if kind != s.kind or len(children) != s.num_children:
            return False
        if kind == "dict":
            if set(context) != set(s._context):
                return False
            lookup = dict(zip(context, children))
            children = [lookup[key] for key in s._context]
        elif kind == "namedtuple" and context is not s._context:
            return False
        return all(walk(c, cs) for c, cs in zip(children, s._children))

    return out if walk(prefix, spec) else None
