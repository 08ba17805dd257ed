"""Errors that point at the user's line: ``dyngrad.viz.track_origins()``.

When on, every node records the file and line of the user code that created it,
and every in-place op records where it ran (on the tensor's version counter, which
views share). The error for a saved tensor modified in place then keeps torch's text
and adds a line naming both places. Off by default; on, it costs one frame lookup
per recorded op (see the benchmark note in README.md).
"""

from __future__ import annotations

import functools

from .._tensor import Tensor
from ..autograd import anomaly_mode

_IN_PLACE_DUNDERS = ("__iadd__", "__isub__", "__imul__", "__itruediv__", "__setitem__")
_originals: dict = {}


def _in_place_names() -> list:
    names = [n for n in dir(Tensor) if n.endswith("_") and not n.startswith("_") and callable(getattr(Tensor, n))]
    return names + [n for n in _IN_PLACE_DUNDERS if hasattr(Tensor, n)]


def _recording(name: str, method):
    label = name.strip("_") + "_" if not name.startswith("__") else name

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        out = method(self, *args, **kwargs)
        site = anomaly_mode.user_site(2)
        entry = (label, site)
        vc = self._vc
        if len(vc) == 1:
            vc.append(entry)
        else:
            vc[1] = entry
        return out

    return wrapper


class track_origins:
    """Record where nodes are created and tensors modified in place; as a call or a context manager.

    While it is on, every node keeps the file and line of the user code that created it, and every
    in-place method records where it modified a tensor. When backward then finds a saved value
    modified in place, its error (torch's ``RuntimeError`` text) goes on to name both lines. It
    costs a stack inspection per op, so it is for debugging, as torch's anomaly mode.

    Args:
        enabled (bool): turn the tracking on (True) or off. As a context manager the previous state
            comes back at the end of the block. Default True.

    Example::

        with dyngrad.viz.track_origins():
            y = x.exp()
            y.add_(1)
            y.sum().backward()   # RuntimeError: ... is at version 1; expected version 0 instead. ...
                                 # The value was saved by ExpBackward0 created at script.py:3; it was
                                 # last modified in place by add_() at script.py:4.
    """

    def __init__(self, enabled: bool = True) -> None:
        self.prev = anomaly_mode._origins
        _apply(enabled)

    def __enter__(self) -> track_origins:
        return self

    def __exit__(self, *exc) -> None:
        _apply(self.prev)


def _apply(enabled: bool) -> None:
    anomaly_mode._set_origins(enabled)
    if enabled and not _originals:
        for name in _in_place_names():
            _originals[name] = Tensor.__dict__.get(name, getattr(Tensor, name))
            setattr(Tensor, name, _recording(name, _originals[name]))
    elif not enabled and _originals:
        for name, method in _originals.items():
            setattr(Tensor, name, method)
        _originals.clear()
