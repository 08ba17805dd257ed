"""dyngrad.nn (torch.nn): for now the functional interface, ``dyngrad.nn.functional``."""

from __future__ import annotations

from . import functional

__all__ = ["functional"]
