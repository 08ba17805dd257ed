"""Grad mode: whether ops record a graph. Thread-local, as in torch.

``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` work as
context managers and as decorators; ``set_grad_enabled(False)`` also works as a
plain call (it changes the mode at once, like torch's).
"""

from __future__ import annotations

import functools
import inspect
import threading


class _State(threading.local):
    # A class attribute gives every new thread the default (grad on) without an __init__.
    enabled = True
    inference = False


_state = _State()


def is_grad_enabled() -> bool:
    return _state.enabled


def is_inference_mode_enabled() -> bool:
    return _state.inference


def _set(mode: bool) -> None:
    _state.enabled = mode


class _DecoratorContextManager:
    """A context manager that is also usable as ``@decorator`` or ``@decorator()``.

    A decorated generator function runs each of its steps in the mode, as torch's does.
    """

    def __call__(self, func):
        if not callable(func):  # pragma: no cover - torch allows only functions here
            raise TypeError(f"{type(self).__name__} decorator needs a function")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generator(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    value = next(gen)
                while True:
                    sent = yield value
                    with self.clone():
                        value = gen.send(sent)
            except StopIteration as stop:
                return stop.value

        return generator

    def clone(self):
        return type(self)()


class no_grad(_DecoratorContextManager):
    """Disable graph recording inside the block (torch.no_grad); ``@no_grad`` works with or without ``()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self) -> None:
        self.prev = _state.enabled
        _state.enabled = False

    def __exit__(self, *exc) -> None:
        _state.enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Enable graph recording inside the block (torch.enable_grad)."""

    def __enter__(self) -> None:
        self.prev = _state.enabled
        _state.enabled = True

    def __exit__(self, *exc) -> None:
        _state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode``; takes effect at once, and is undone on leaving a ``with`` block."""

    def __init__(self, mode: bool) -> None:
        self.prev = _state.enabled
        self.mode = bool(mode)
        _state.enabled = self.mode

    def __enter__(self) -> None:
        _state.enabled = self.mode

    def __exit__(self, *exc) -> None:
        _state.enabled = self.prev

    def clone(self):
        # Building the clone changes the mode; restore it since only the wrapped call should.
        prev = _state.enabled
        c = set_grad_enabled(self.mode)
        _state.enabled = prev
        c.prev = prev
        return c

    def __call__(self, func):
        _state.enabled = self.prev  # used as a decorator: the constructor call must not stick
        return super().__call__(func)


class inference_mode(_DecoratorContextManager):
    """Grad mode off, and every tensor made inside is an inference tensor (torch.inference_mode).

    ``inference_mode(False)`` inside the mode turns grad mode back on and makes normal tensors again, as
    torch's does. ``@inference_mode`` works with or without ``()``. What inference tensors may not do
    (in-place updates outside the mode, being saved for backward) is in dyngrad/_inference.py.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @inference_mode without parentheses: ``mode`` is the function

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode) if isinstance(mode, bool) else True

    def __enter__(self) -> None:
        from .. import _inference

        self.prev = (_state.enabled, _state.inference)
        # inference_mode(False) inside inference_mode turns grad mode back on, as torch does
        _state.enabled = not self.mode
        _state.inference = self.mode
        _inference.enter(self.mode)

    def __exit__(self, *exc) -> None:
        from .. import _inference

        _state.enabled, _state.inference = self.prev
        _inference.leave(self.mode)

    def clone(self):
        return type(self)(self.mode)
