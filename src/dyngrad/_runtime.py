"""The process-wide switches PyTorch scripts set in their first lines, answered as a CPU-only torch does.

``torch.set_default_device``, ``set_num_threads``, ``set_float32_matmul_precision``,
``use_deterministic_algorithms`` and ``autocast`` are rarely the point of a program, but an
unmodified script stops at the first one that is missing. dyngrad computes with NumPy on the CPU,
in each tensor's own dtype and deterministically, so these record what they are told and change
nothing else; what they cannot honour they refuse or warn about with torch's texts.
"""

from __future__ import annotations

import functools
import os
import warnings

_num_threads: int | None = None
_matmul_precision = "highest"
_deterministic = False
_deterministic_warn_only = False


def set_default_device(device) -> None:
    """Tensors are created on the CPU, the only device; another device fails as torch's CPU build fails.

    Raises:
        AssertionError: ``device`` is an accelerator ("Torch not compiled with CUDA enabled").
        RuntimeError: ``device`` is not a device name (torch's text).
    """
    if device is None:
        return
    from ._tensor import device as _device

    d = _device(device)
    if d.type != "cpu":
        raise AssertionError("Torch not compiled with CUDA enabled")


def get_default_device():
    """``device(type='cpu')``."""
    from ._tensor import CPU

    return CPU


def set_num_threads(n: int) -> None:
    """Recorded for ``get_num_threads``; NumPy's BLAS keeps its own thread count (set OMP_NUM_THREADS)."""
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    global _num_threads
    _num_threads = n


def get_num_threads() -> int:
    """The number given to ``set_num_threads``, else the number of CPUs (torch's intra-op default)."""
    return _num_threads or os.cpu_count() or 1


def set_float32_matmul_precision(precision: str) -> None:
    """Recorded only: dyngrad's float32 products are always computed in float32 ("highest")."""
    global _matmul_precision
    if precision not in ("highest", "high", "medium"):
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)",
            UserWarning,
            stacklevel=2,
        )
        return
    _matmul_precision = precision


def get_float32_matmul_precision() -> str:
    return _matmul_precision


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Recorded only: every dyngrad op is deterministic already."""
    global _deterministic, _deterministic_warn_only
    _deterministic, _deterministic_warn_only = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _deterministic


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _deterministic_warn_only


class autocast:
    """torch.autocast as a CPU-only build without reduced-precision kernels runs it: ops keep their dtypes.

    ``autocast("cuda", ...)`` warns as torch's CPU build does and disables itself; an enabled
    ``autocast("cpu")`` warns that dyngrad computes in full precision (torch would use bfloat16,
    which dyngrad does not have). Usable as a context manager or a decorator.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None) -> None:
        from ._tensor import device as _device

        _device(device_type)  # torch's error for an unknown device type
        self.device_type = device_type
        self.fast_dtype = dtype
        self._enabled = enabled
        if enabled and device_type != "cpu":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", UserWarning,
                          stacklevel=2)
            self._enabled = False
        elif enabled:
            warnings.warn("dyngrad does not autocast: ops inside torch.autocast('cpu') keep their inputs' "
                          "dtypes (full precision).", UserWarning, stacklevel=2)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper
