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


def _thread_count(n, fn: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{fn} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{fn} expects a positive integer")
    return n


def set_num_threads(n: int) -> None:
    """Set the number of threads of the BLAS that NumPy calls (dyngrad's only multi-threaded work), through
    ``threadpoolctl`` when it is installed (the ``threads`` extra); without it the number is recorded only
    (set OMP_NUM_THREADS before starting Python instead). ``get_num_threads`` returns it.

    Raises:
        RuntimeError: ``n`` is not an int (torch's "set_num_threads expects an int, but got float") or not positive.
    """
    global _num_threads, _blas_limit
    _num_threads = _thread_count(n, "set_num_threads")
    try:
        import threadpoolctl
    except ImportError:
        return
    # kept alive so the limit holds; a new call replaces it (threadpoolctl applies it on construction)
    _blas_limit = threadpoolctl.threadpool_limits(limits=n, user_api="blas")


_blas_limit = None


def get_num_threads() -> int:
    """The number given to ``set_num_threads``, else the number of CPUs (torch's intra-op default)."""
    return _num_threads or os.cpu_count() or 1


_num_interop_threads: int | None = None


def set_num_interop_threads(n: int) -> None:
    """Recorded for ``get_num_interop_threads`` (dyngrad runs no inter-op pool); torch's errors: not positive, or
    a second call ("cannot set number of interop threads after parallel work has started ...")."""
    global _num_interop_threads
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _num_interop_threads is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work has started or "
                           "set_num_interop_threads called")
    _num_interop_threads = n


def get_num_interop_threads() -> int:
    return _num_interop_threads or os.cpu_count() or 1


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


_autocast_enabled: dict = {}  # device type -> whether an autocast region for it is active
_autocast_dtypes: dict = {}  # device type -> the dtype set by set_autocast_dtype or the innermost region


def _default_autocast_dtype(device_type: str):
    from . import _dtype

    return _dtype.bfloat16 if device_type == "cpu" else _dtype.float16


def is_autocast_enabled(device_type=None) -> bool:
    """Whether an enabled ``autocast`` region is active for ``device_type`` (no argument: "cuda", as torch)."""
    return _autocast_enabled.get("cuda" if device_type is None else device_type, False)


def get_autocast_dtype(device_type: str):
    """torch.get_autocast_dtype: the dtype autocast uses on ``device_type`` (CPU: bfloat16 unless set).

    Raises RuntimeError (torch's text) for an unknown device type."""
    from ._tensor import device as _device

    _device(device_type)
    return _autocast_dtypes.get(device_type) or _default_autocast_dtype(device_type)


def set_autocast_dtype(device_type: str, dtype) -> None:
    """torch.set_autocast_dtype: the dtype later ``autocast(device_type)`` regions use when given none."""
    from ._tensor import device as _device

    _device(device_type)
    _autocast_dtypes[device_type] = dtype


def _sync_cpu_policy() -> None:
    """Tell the op dispatch whether CPU autocast is on, and in which dtype (Note [CPU autocast])."""
    from ._ops import autocast_policy
    from .autograd import forward_ad

    on = _autocast_enabled.get("cpu", False)
    autocast_policy.STATE["dtype"] = get_autocast_dtype("cpu") if on else None
    forward_ad.STATE.autocast = on
    forward_ad._refresh()


class autocast:
    """torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None) as torch's CPU build runs it.

    On "cpu" the ops of torch's CPU autocast lists run in ``dtype`` (default ``get_autocast_dtype("cpu")``,
    bfloat16) or in float32 (Note [CPU autocast] in _ops/autocast_policy.py); other ops keep their inputs'
    dtypes. Only bfloat16 and float16 are accepted on "cpu" (another dtype warns as torch and disables the
    region); bfloat16 needs the ``dyngrad[bfloat16]`` extra (RuntimeError otherwise). ``autocast("cuda", ...)``
    warns as torch's CPU build does and disables itself. Regions nest; usable as a context manager or a
    decorator.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None) -> None:
        from . import _dtype

        self.device_type = device_type
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype  # (checks the device type)
        self._enabled = enabled
        if enabled and device_type != "cpu":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", UserWarning,
                          stacklevel=2)
            self._enabled = False
        elif enabled and self.fast_dtype not in (_dtype.bfloat16, _dtype.float16):
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          UserWarning, stacklevel=2)
            self._enabled = False
        elif enabled and self.fast_dtype is _dtype.bfloat16:
            _dtype.bfloat16.np  # noqa: B018 - raises the RuntimeError naming the extra without ml_dtypes

    def __enter__(self):
        self._prev = _autocast_enabled.get(self.device_type, False)
        self._prev_dtype = _autocast_dtypes.get(self.device_type)
        _autocast_enabled[self.device_type] = self._enabled
        _autocast_dtypes[self.device_type] = self.fast_dtype
        if self.device_type == "cpu":
            _sync_cpu_policy()
        return self

    def __exit__(self, *exc) -> None:
        _autocast_enabled[self.device_type] = self._prev
        _autocast_dtypes[self.device_type] = self._prev_dtype
        if self.device_type == "cpu":
            _sync_cpu_policy()
        return None

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper
