"""torch.nn.attention's kernel selection: ``SDPBackend`` and ``sdpa_kernel``.

torch picks among fused attention kernels (flash, memory-efficient, cuDNN) and the math one; dyngrad has
one implementation on the CPU (scaled_dot_product_attention in _ops/attention.py), whose values are the
math kernel's. ``sdpa_kernel`` accepts torch's arguments (and checks them as torch does) and changes
nothing: every backend choice computes the same values here.
"""

from __future__ import annotations

import contextlib
import enum

__all__ = ["SDPBackend", "WARN_FOR_UNFUSED_KERNELS", "sdpa_kernel"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The attention backends torch can select (torch.nn.attention.SDPBackend), with torch's values."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Run the block with the given backend(s) allowed; on dyngrad's CPU path every backend is the math one.

    Raises torch's AssertionError when ``backends`` is not an SDPBackend or a list of them.
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(
            f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, got {type(backends).__name__}")
    yield {}
