"""torch.autograd's older and smaller names: ``Variable``, and the switches scripts set or query
(``set_multithreading_enabled``, ``is_view_replay_enabled``, ``kineto_available``).

``Variable`` has been an alias of Tensor since torch 0.4: ``Variable(t, requires_grad=True)`` gives a
tensor sharing ``t``'s memory, and every tensor is an instance of it. dyngrad's backward runs on the
calling thread only, so the multithreading switch is recorded and has no other effect; dyngrad replays no
views either (``is_view_replay_enabled`` is False, torch's default).
"""

from __future__ import annotations

import threading

from .._tensor import Tensor, _tp_name

__all__ = ["Variable", "is_multithreading_enabled", "is_view_replay_enabled", "kineto_available",
           "set_multithreading_enabled"]


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False): a tensor on ``data``'s memory (torch.autograd.Variable).

    Raises TypeError (torch's text) when ``data`` is not a tensor.
    """

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if data is None:
            from .._creation import empty

            return empty(0).requires_grad_(requires_grad)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_tp_name(data)}")
        return data.detach().requires_grad_(requires_grad)


class _Switches(threading.local):
    multithreading = True


_switches = _Switches()


def is_multithreading_enabled() -> bool:
    """Whether backward may use worker threads (torch's default True; dyngrad's backward is single-threaded)."""
    return _switches.multithreading


class set_multithreading_enabled:
    """Set the multithreading switch; a context manager (or a plain call, as torch's)."""

    def __init__(self, mode: bool) -> None:
        self.prev = _switches.multithreading
        _switches.multithreading = bool(mode)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        _switches.multithreading = self.prev

    def clone(self):
        return set_multithreading_enabled(_switches.multithreading)


def is_view_replay_enabled() -> bool:
    """torch's view replay (re-running view ops instead of as_strided) is off by default; dyngrad never uses it."""
    return False


def kineto_available() -> bool:
    """Whether torch's Kineto profiler backend is present: not in dyngrad (its profiler is autograd/profiler.py)."""
    return False
