"""dyngrad.amp (torch.amp): ``autocast`` and ``GradScaler`` as torch's CPU build runs them.

``autocast("cpu")`` runs torch's CPU autocast lists: conv/linear/matmul-family ops in bfloat16 (default; needs
the ``dyngrad[bfloat16]`` extra) or float16, losses and the other fp32-listed ops in float32 (Note [CPU
autocast] in dyngrad/_ops/autocast_policy.py); ``GradScaler("cpu")`` scales losses and unscales gradients exactly as torch's
(torch/amp/grad_scaler.py semantics): float32 scale, inf/NaN checks per optimizer, skipped steps, growth and
backoff of the scale. A scaler for "cuda" warns and disables itself, as torch's CPU-only build does.
"""

from __future__ import annotations

import warnings

from .._runtime import autocast, get_autocast_dtype, is_autocast_enabled, set_autocast_dtype
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "get_autocast_dtype", "is_autocast_enabled", "set_autocast_dtype"]
del warnings
