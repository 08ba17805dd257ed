"""dyngrad.cpu (torch.cpu): the CPU device module; ``torch.cpu.amp`` holds the deprecated autocast/GradScaler."""

from __future__ import annotations

from . import amp


def is_available() -> bool:
    return True


def device_count() -> int:
    return 1


def synchronize(device=None) -> None:
    """Nothing to wait for: dyngrad's CPU work is synchronous."""


__all__ = ["amp", "is_available", "device_count", "synchronize"]
