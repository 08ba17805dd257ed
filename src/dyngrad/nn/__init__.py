"""dyngrad.nn (torch.nn): Module, Parameter, layers, losses, ``init``, ``utils`` and ``functional``."""

from __future__ import annotations

from . import attention, functional, grad, init, parallel, utils  # noqa: E402  # noqa: E402  (torch.nn.attention, torch.nn.grad)
from .legacy import Container, factory_kwargs  # noqa: E402
from .modules import *  # noqa: F403 - the layer classes, as torch.nn exposes them
from .modules import __all__ as _modules_all
from .parallel import DataParallel  # noqa: E402
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

functional.grad = grad  # torch.nn.functional.grad is torch.nn.grad

__all__ = ["functional", "init", "parallel", "utils", "Parameter", "Buffer", "UninitializedParameter",
           "UninitializedBuffer", "attention", "grad", "Container", "factory_kwargs", "DataParallel", *_modules_all]
