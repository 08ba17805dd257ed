"""torch.nn.LinearCrossEntropyOptions: the settings of linear_cross_entropy's chunked path (torch >= 2.12).

The same frozen dataclass as torch's (fields, defaults, validation and ValueError texts), and the same
resolution of its ``"auto"`` settings for a call (``_adjust``): dyngrad runs on the CPU, so ``"auto"``
resolves as torch's does for a CPU tensor. The chunked path itself is in linear_cross_entropy.py.
"""

from __future__ import annotations

import dataclasses
from typing import Literal, NamedTuple

from ... import _dtype

__all__ = ["LinearCrossEntropyOptions"]


class _AutoDefault(NamedTuple):
    acc_policy: str
    chunking_method: str


# torch's per-(device, dtype) picks for "auto"; other pairs take _AUTO_FALLBACK (the values are torch's)
_AUTO_DEFAULTS = {
    ("cpu", "bfloat16"): _AutoDefault("accurate", "aspect_ratio"),
    ("cpu", "float16"): _AutoDefault("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK = _AutoDefault("compact", "aspect_ratio:2")
_ACC_POLICIES = {"auto", "accurate", "balanced", "compact"}
# bfloat16 only where this dyngrad has it (it needs ml_dtypes)
_LOW_PRECISION = tuple(d for d in (_dtype.float16, getattr(_dtype, "bfloat16", None)) if d is not None)
_FLOAT_DTYPES = (*_LOW_PRECISION, _dtype.float32, _dtype.float64)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How ``F.linear_cross_entropy(..., options=...)`` splits the batch (torch's fields and defaults).

    ``allow_retain_graph`` (False: a second backward through a 'mean'/'sum' loss raises torch's error),
    ``batch_chunk_size`` (rows per chunk; None: one chunk, or the one ``chunking_method`` picks),
    ``chunking_method`` ("auto", "aspect_ratio", "aspect_ratio:N" or None), ``acc_policy`` ("auto",
    "accurate", "balanced", "compact": precision/memory trade-offs that only matter for low-precision
    inputs), ``acc_dtype`` (None or a floating dtype). Raises ValueError (torch's texts) for invalid values.
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        supported = _FLOAT_DTYPES
        if self.acc_dtype is not None and self.acc_dtype not in supported:
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, torch.float64}, "
                f"got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick automatically."
            )

    def _compute_batch_chunk_size(self, num_batches: int, in_features: int, num_classes: int, method=None) -> int:
        """"aspect_ratio[:N]": chunks whose logits take about the memory of the input, divided by N
        (the next power of two of ceil(num_batches / ceil(num_classes / in_features)), over N)."""
        method = str(method if method is not None else self.chunking_method)
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        inc_factor = -(-num_classes // in_features)
        target = -(-num_batches // inc_factor)
        chunk_size = 1 << (target - 1).bit_length()
        return min(chunk_size // factor, num_batches)

    def _adjust(self, num_batches: int, in_features: int, num_classes: int, dtype, device=None):
        """These options with every "auto" and None resolved for one call (torch's rules)."""
        acc_policy, chunking_method = self.acc_policy, self.chunking_method
        if chunking_method == "auto" and self.batch_chunk_size is not None:
            chunking_method = None  # an explicit size wins over the automatic one
        if acc_policy == "auto" or chunking_method == "auto":
            key = (device.type, str(dtype).removeprefix("torch.")) if device is not None else None
            picked = _AUTO_DEFAULTS.get(key, _AUTO_FALLBACK)
            if acc_policy == "auto":
                acc_policy = picked.acc_policy
            if chunking_method == "auto":
                chunking_method = picked.chunking_method
        batch_chunk_size = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size, num_batches)
        if chunking_method is not None:
            batch_chunk_size = self._compute_batch_chunk_size(num_batches, in_features, num_classes, chunking_method)
            if self.batch_chunk_size is not None and self.batch_chunk_size != batch_chunk_size:
                raise ValueError(
                    f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method ('{chunking_method}') give "
                    f"different chunk sizes ({self.batch_chunk_size} vs {batch_chunk_size}); pass only one."
                )
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            low = dtype in _LOW_PRECISION
            acc_dtype = _dtype.float32 if (self.acc_policy == "auto" and low and device is not None) else dtype
        return dataclasses.replace(self, acc_policy=acc_policy, chunking_method=chunking_method,
                                   batch_chunk_size=max(1, batch_chunk_size), acc_dtype=acc_dtype)
