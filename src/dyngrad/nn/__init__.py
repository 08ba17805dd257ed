"""dyngrad.nn (torch.nn): Module, Parameter, layers, losses, ``init``, ``utils`` and ``functional``."""

from __future__ import annotations

from . import functional, init, parallel, utils  # noqa: E402
from .modules import *  # noqa: F403 - the layer classes, as torch.nn exposes them
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter

__all__ = ["functional", "init", "parallel", "utils", "Parameter", "Buffer", *_modules_all]
