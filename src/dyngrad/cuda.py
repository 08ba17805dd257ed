"""dyngrad.cuda: dyngrad runs on the CPU only, so no CUDA device is ever available.

Provided so that the usual device-selection line runs unchanged::

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
"""

from __future__ import annotations


def is_available() -> bool:
    """False: dyngrad has no GPU backend (torch's CPU build answers the same)."""
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Accepted and ignored, as torch does when CUDA is unavailable."""


def manual_seed_all(seed: int) -> None:
    """Accepted and ignored, as torch does when CUDA is unavailable."""


def synchronize(device=None) -> None:
    raise AssertionError("Torch not compiled with CUDA enabled")


def current_device() -> int:
    raise AssertionError("Torch not compiled with CUDA enabled")
