"""dyngrad.amp (torch.amp): ``autocast`` and ``GradScaler`` as torch's CPU build runs them.

dyngrad computes each op in its inputs' dtype (NumPy has no bfloat16), so ``autocast`` changes no dtype
(see dyngrad._runtime.autocast); ``GradScaler("cpu")`` scales losses and unscales gradients exactly as torch's
(torch/amp/grad_scaler.py semantics): float32 scale, inf/NaN checks per optimizer, skipped steps, growth and
backoff of the scale. A scaler for "cuda" warns and disables itself, as torch's CPU-only build does.
"""

from __future__ import annotations

import warnings

from .._runtime import autocast, is_autocast_enabled
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "is_autocast_enabled"]
del warnings
