"""dyngrad.utils (torch.utils): data loading (``data``) and activation checkpointing (``checkpoint``)."""

from __future__ import annotations

from . import data

__all__ = ["data"]
