"""Text rendering of tensors, matching PyTorch's ``repr(tensor)`` output.

The rules reproduced here are those of ``torch/_tensor_str.py`` in PyTorch
2.13 (the ``_Formatter`` class, ``_tensor_str``, ``get_summarized_data``,
``_add_suffixes`` and the strided CPU branch of ``_str_intern``).  The code is
an independent re-implementation on top of NumPy; it imports neither torch
nor any other part of dyngrad so that it can be loaded on its own.

Summary of the rules, since they are easy to get subtly wrong:

* One formatter is built per tensor (two for complex: real and imaginary
  parts).  It looks at every element, or only at the edge items when the
  tensor is summarised, and picks a single column width for all of them.
* Floating tensors: only non-zero finite values take part in choosing the
  mode and the width.  If they are all whole numbers, "int mode" prints them
  as ``4.``; scientific notation is switched on automatically when
  ``max/min > 1000``, ``max > 1e8`` or ``min < 1e-4`` (on absolute values),
  unless ``sci_mode`` forces it.
* Rows are wrapped so that ``linewidth - indent`` holds a whole number of
  ``width + 2`` sized cells; nested dimensions add one to the indent and
  ``dim - 1`` newlines between blocks.
* Suffixes (``size=``, ``dtype=``, ``grad_fn=``/``requires_grad=``) go on the
  current line unless that would pass ``linewidth``, in which case they start
  a new line indented by ``len("tensor(")``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["format_tensor", "get_printoptions", "set_printoptions"]

_PREFIX = "tensor("

# Module-global print options, mirroring torch's PRINT_OPTS singleton.  Keys
# are kept in torch's order so get_printoptions() returns an identical dict.
_DEFAULT_OPTIONS: dict[str, Any] = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": 80,
    "sci_mode": None,
}
_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}
_options: dict[str, Any] = dict(_DEFAULT_OPTIONS)


def set_printoptions(
    precision=None,
    threshold=None,
    edgeitems=None,
    linewidth=None,
    profile=None,
    sci_mode=None,
) -> None:
    """Set printing options with the semantics of ``torch.set_printoptions``.

    A profile ("default", "short" or "full") is applied first and explicit
    arguments override it; unknown profile names are ignored, as in torch.
    ``sci_mode`` is always assigned, so omitting it resets it to ``None``
    (automatic) -- that is what torch does, surprising as it is.
    """
    if profile is not None and profile in _PROFILES:
        _options.update(_PROFILES[profile])
    if precision is not None:
        _options["precision"] = precision
    if threshold is not None:
        _options["threshold"] = threshold
    if edgeitems is not None:
        _options["edgeitems"] = edgeitems
    if linewidth is not None:
        _options["linewidth"] = linewidth
    _options["sci_mode"] = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return the current options as a dict usable as ``set_printoptions(**d)``."""
    return dict(_options)


class _Formatter:
    """Chooses one notation and one column width for a set of values.

    ``values`` must already be the (possibly summarised) data, because torch
    sizes the columns from the elements that will actually be shown.
    """

    def __init__(self, values: np.ndarray, floating: bool, exponent_only: bool = False) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        self.precision = _options["precision"]
        flat = np.asarray(values).reshape(-1)

        if not floating:
            if flat.size:
                if flat.dtype.kind == "b":
                    # str(True) is 4 wide, str(False) is 5 wide.
                    longest = "False" if not flat.all() else "True"
                    self.max_width = max(self.max_width, len(longest))
                else:
                    # The widest decimal integer is always the max or the min
                    # (the min may win because of its minus sign).
                    for extreme in (flat.min(), flat.max()):
                        self.max_width = max(self.max_width, len(str(int(extreme))))
            return

        # Zeros, nans and infs never influence the layout decision.
        if exponent_only:
            # float8_e8m0fnu: torch's isfinite is true for all its values, NaN included (which then makes every
            # comparison below false), and its "zero" is the 0 it converts to, 2**-127
            finite = flat[flat != 2.0**-127]
        else:
            finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return

        # Whole-number test is done in the tensor's own dtype, like torch.
        self.int_mode = bool(np.all(finite == np.ceil(finite)))

        sci = _options["sci_mode"]
        if sci is None:
            # torch compares in float64 whatever the tensor dtype is.
            magnitudes = np.abs(finite).astype(np.float64)
            lo = magnitudes.min()
            hi = magnitudes.max()
            with np.errstate(over="ignore"):
                ratio = hi / lo
            sci = bool(ratio > 1000.0 or hi > 1.0e8 or lo < 1.0e-4)
        self.sci_mode = sci

        prec = self.precision
        pyvals = finite.tolist()
        if self.sci_mode:
            width = max(len(f"{v:.{prec}e}") for v in pyvals)
        elif self.int_mode:
            # "+1" leaves room for the trailing "." marking a float tensor.
            width = max(len(f"{v:.0f}") for v in pyvals) + 1
        else:
            width = max(len(f"{v:.{prec}f}") for v in pyvals)
        self.max_width = max(self.max_width, width)

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        """Render one Python scalar, right-aligned to the column width."""
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{self.precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                # nan/inf already look non-integral; only finite values get "."
                if math.isfinite(value):
                    text += "."
            else:
                text = f"{value:.{self.precision}f}"
        else:
            text = f"{value}"
        return text.rjust(self.max_width)


def _format_element(value, real_fmt: _Formatter, imag_fmt: _Formatter | None) -> str:
    if imag_fmt is None:
        return real_fmt.format(value)
    real_text = real_fmt.format(value.real)
    # The imaginary part is printed without padding so "j" hugs the digits.
    imag_text = (imag_fmt.format(value.imag) + "j").lstrip()
    # A sign (including the one of -0.0) already separates the two parts.
    if imag_text[0] in "+-":
        return real_text + imag_text
    return real_text + "+" + imag_text


def _python_scalars(a: np.ndarray) -> list:
    """Elements as Python numbers (float, int, bool, complex), like tolist()."""
    return a.tolist()


def _vector_str(a, indent, summarize, real_fmt, imag_fmt) -> str:
    # Each cell is the column width plus ", ".
    cell = real_fmt.width() + 2
    if imag_fmt is not None:
        cell += imag_fmt.width() + 1  # imaginary column plus its "j"
    per_line = max(1, math.floor((_options["linewidth"] - indent) / cell))

    edge = _options["edgeitems"]
    if summarize and not edge:
        items = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        head = [
            _format_element(v, real_fmt, imag_fmt) for v in _python_scalars(a[:edge])
        ]
        tail = [
            _format_element(v, real_fmt, imag_fmt) for v in _python_scalars(a[-edge:])
        ]
        # The ellipsis counts as one cell when wrapping, as in torch.
        items = head + [" ..."] + tail
    else:
        items = [_format_element(v, real_fmt, imag_fmt) for v in _python_scalars(a)]

    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(a, indent, summarize, real_fmt, imag_fmt) -> str:
    if a.ndim == 0:
        return _format_element(_python_scalars(a), real_fmt, imag_fmt)
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, real_fmt, imag_fmt)

    edge = _options["edgeitems"]
    n = a.shape[0]
    if summarize and n > 2 * edge:
        parts = [
            _nested_str(a[i], indent + 1, summarize, real_fmt, imag_fmt)
            for i in range(edge)
        ]
        parts.append("...")
        parts += [
            _nested_str(a[i], indent + 1, summarize, real_fmt, imag_fmt)
            for i in range(n - edge, n)
        ]
    else:
        parts = [
            _nested_str(a[i], indent + 1, summarize, real_fmt, imag_fmt)
            for i in range(n)
        ]
    # Higher-dimensional blocks are separated by (dim - 1) newlines, i.e. blank lines.
    separator = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _summarized_values(a: np.ndarray) -> np.ndarray:
    """The elements that a summarised print shows, flattened.

    Mirrors torch's get_summarized_data, including its quirks: for a 1-d
    slice with edgeitems == 0, ``a[-0:]`` is the whole slice, while higher
    dimensions collapse to nothing.  (Those quirks never change the output,
    because with edgeitems == 0 only "..." is printed.)
    """
    edge = _options["edgeitems"]
    if a.ndim == 0:
        return a.reshape(-1)
    if a.ndim == 1:
        if a.shape[0] > 2 * edge:
            return np.concatenate((a[:edge], a[-edge:]))
        return a
    if not edge:
        return a.reshape(-1)[:0]
    n = a.shape[0]
    if n > 2 * edge:
        rows = [a[i] for i in range(edge)] + [a[i] for i in range(n - edge, n)]
    else:
        rows = [a[i] for i in range(n)]
    return np.concatenate([_summarized_values(r) for r in rows])


def _tensor_body(a: np.ndarray, indent: int) -> str:
    """The bracketed contents, without "tensor(" or any suffix."""
    exponent_only = a.dtype.name == "float8_e8m0fnu"
    if a.dtype.kind == "V" or a.dtype.itemsize == 1 and a.dtype.kind == "f":
        # bfloat16 (Note [bfloat16]) and float8 (Note [Limited dtypes]): exact in float32, which NumPy formats
        a = a.astype(np.float32)
    summarize = a.size > _options["threshold"]
    shown = _summarized_values(a) if summarize else a.reshape(-1)
    if a.dtype.kind == "c":
        real_fmt = _Formatter(shown.real, floating=True)
        imag_fmt: _Formatter | None = _Formatter(shown.imag, floating=True)
    else:
        real_fmt = _Formatter(shown, floating=a.dtype.kind in "fV", exponent_only=exponent_only)  # (_dtype.FLOATING_KINDS: no dyngrad imports here)
        imag_fmt = None
    return _nested_str(a, indent, summarize, real_fmt, imag_fmt)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    pieces = [text]
    # torch's own arithmetic: when there is no newline rfind() gives -1, so
    # this over-counts by two; kept as is so line breaks land where torch's do.
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > _options["linewidth"]:
            pieces.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            last_line_len += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)


def _is_real_floating_name(dtype_name: str) -> bool:
    return dtype_name.startswith("float") or dtype_name in (
        "bfloat16",
        "half",
        "double",
    )


def format_tensor(
    array: np.ndarray,
    *,
    dtype_name: str,
    is_default_dtype: bool,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
) -> str:
    """Return what torch's repr(t) / str(t) prints for a CPU tensor with these data.

    ``dtype_name`` is the torch dtype name without the ``torch.`` prefix.
    ``is_default_dtype`` says whether the dtype is one torch leaves implicit
    (default float dtype, its complex counterpart, int64, bool).
    """
    a = np.asarray(array)
    indent = len(_PREFIX)
    suffixes: list[str] = []
    dtype_suffix = "dtype=torch." + dtype_name
    shape_suffix = "size=" + str(tuple(int(s) for s in a.shape))

    if a.size == 0:
        # numpy-style: the shape is spelled out unless it is plain (0,).
        if a.ndim != 1:
            suffixes.append(shape_suffix)
        # An empty tensor gives no hint of its type, so torch names every
        # dtype except the default float dtype (int64/bool included).
        if not (is_default_dtype and _is_real_floating_name(dtype_name)):
            suffixes.append(dtype_suffix)
        body = "[]"
    else:
        # With edgeitems == 0 the contents may be just "...", so the shape is added.
        if not _options["edgeitems"]:
            suffixes.append(shape_suffix)
        if not is_default_dtype:
            suffixes.append(dtype_suffix)
        body = _tensor_body(a, indent)

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")

    return _add_suffixes(_PREFIX + body, suffixes, indent)
