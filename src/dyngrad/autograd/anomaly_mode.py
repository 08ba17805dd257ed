"""Anomaly detection (torch.autograd.detect_anomaly / set_detect_anomaly).

When on, every node records the stack of the forward call that made it, and the
engine checks each backward output for NaN (``check_nan``). A failing node raises
torch's error, and a UserWarning shows where in the user's forward code the node
was created. Off by default; when off it costs nothing on the hot path beyond one
check per op.
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings

_enabled = False
_check_nan = True
_origins = False  # dyngrad.viz.track_origins: record where each node was created
# The one value the hot path reads: 0 when both aids are off, else ANOMALY | ORIGINS bits; INFERENCE is
# on while an inference tensor is alive (each recorded op then checks it saves none, _inference.py).
ANOMALY, ORIGINS, INFERENCE = 1, 2, 4
_any = 0


def is_anomaly_enabled() -> bool:
    return _enabled


def is_anomaly_check_nan_enabled() -> bool:
    return _check_nan


def _set(mode: bool, check_nan: bool) -> None:
    global _enabled, _check_nan, _any
    _enabled, _check_nan = bool(mode), bool(check_nan)
    _any = ANOMALY * _enabled | ORIGINS * _origins | (_any & INFERENCE)


def _set_origins(mode: bool) -> None:
    global _origins, _any
    _origins = bool(mode)
    _any = ANOMALY * _enabled | ORIGINS * _origins | (_any & INFERENCE)


def _set_bit(bit: int, on: bool) -> None:
    global _any
    _any = (_any | bit) if on else (_any & ~bit)


def is_dyngrad_module(module_name) -> bool:
    """Whether code belongs to dyngrad itself, by the module it runs in (not by its file's path).

    Deciding by path text went wrong where the user's own folder, or a clone of this repository, is
    called ``dyngrad``: their frames were taken for the library's and hidden. A module's
    ``__name__`` is ``dyngrad`` or ``dyngrad.<...>`` only for the package's own modules (under
    ``python -m dyngrad`` too, where ``torch.nn`` *is* the module ``dyngrad.nn``); a user's script
    runs as ``__main__`` or under its own name.
    """
    return module_name is not None and (module_name == "dyngrad" or module_name.startswith("dyngrad."))


_INTERNAL: dict = {}  # code object -> whether it is dyngrad's own (cached: this runs once per op)


def user_site(depth: int = 2, _getframe=sys._getframe, _internal=_INTERNAL):
    """The innermost caller outside dyngrad's own modules, as ``(code, instruction offset)``.

    The line number is not looked up here: ``frame.f_lineno`` scans the code's line
    table (hundreds of ns in a long function or module), and this runs once per op
    while ``track_origins`` is on. ``site_line`` turns a site into (filename, line)
    when an error needs it.
    """
    f = _getframe(depth)
    while f is not None:
        code = f.f_code
        inside = _internal.get(code)
        if inside is None:
            inside = _internal[code] = is_dyngrad_module(f.f_globals.get("__name__"))
        if not inside:
            return (code, f.f_lasti)
        f = f.f_back
    return None


def site_line(site) -> tuple:
    """(filename, line) of a site recorded by ``user_site``."""
    code, lasti = site
    line = None
    for start, end, lineno in code.co_lines():  # the ranges of instruction offsets per line
        if start <= lasti < end:
            line = lineno
            break
    return (code.co_filename, line if line is not None else code.co_firstlineno)


class detect_anomaly:
    """Context manager / decorator that turns anomaly detection on inside the block."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled "
            "for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        self.prev = (_enabled, _check_nan)
        _set(True, self.check_nan)

    def __exit__(self, *exc) -> None:
        _set(*self.prev)

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """Set anomaly detection on or off; as a context manager, restores the previous mode on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (_enabled, _check_nan)
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        _set(*self.prev)


def forward_stack() -> str:
    """The user's call stack at node creation (outermost first), without dyngrad's own frames."""
    frames = [(f, lineno) for f, lineno in traceback.walk_stack(sys._getframe(1))
              if not is_dyngrad_module(f.f_globals.get("__name__")) and not _is_runner_frame(f.f_code.co_filename)]
    frames.reverse()
    return "".join(traceback.StackSummary.extract(frames).format())


_RUNNER_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "__main__.py")


def _is_runner_frame(filename: str) -> bool:
    """``python -m dyngrad SCRIPT``'s own frames (its __main__, runpy's): ``python SCRIPT`` under torch has none."""
    return filename == _RUNNER_FILE or filename.startswith("<frozen runpy")


def warn_forward_trace(node) -> None:
    trace = getattr(node, "_anomaly_trace", None)
    if trace is None:
        return
    warnings.warn(
        f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{trace} "
        "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/python_anomaly_mode.cpp:122.)",
        UserWarning,
        stacklevel=2,
    )
