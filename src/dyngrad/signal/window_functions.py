"""torch's window factories: ``hann_window``, ``hamming_window``, ``blackman_window``, ``bartlett_window``
and ``kaiser_window`` (exported as ``dyngrad.<name>``).

Each returns a 1-D leaf tensor of ``window_length`` values; ``periodic=True`` (the default) gives
the first ``window_length`` values of the symmetric window of length ``window_length + 1`` (the
form used before an FFT). Length 0 gives an empty tensor, length 1 ``[1.]``.

The values are computed as ATen's TensorFactories.cpp computes them, one tensor operation after
the other in the result dtype (float16 rounded after each operation, from float32 arithmetic):
- hamming: ``arange(N) * (2 pi / (N - 1))``, ``cos``, ``* -beta``, ``+ alpha`` (alpha 0.54, beta 0.46;
  hann is hamming with alpha = beta = 0.5);
- blackman: ``w = arange(N) * (pi / (N - 1))``; ``cos(4 w) * 0.08 - cos(2 w) * 0.5 + 0.42``;
- bartlett: ``arange(N) * (2 / (N - 1))``, the second half replaced by ``2 - w``;
- kaiser (UnaryOpsKernel.cpp's kaiser_window_kernel): ``I0(beta sqrt(|1 - ((k - a) / a)^2|)) / I0(beta)``,
  a = (N - 1) / 2, with Cephes' I0 (bessel_kernels.i0), in float32 for float32 and float16.

Arguments follow torch's overloads (``hann_window(window_length, periodic=True, *, dtype=None, layout=None,
device=None, pin_memory=False, requires_grad=False)``; hamming adds ``alpha, beta`` and kaiser ``beta``
after ``periodic``, positionally or by keyword once ``periodic`` is given).

Raises:
    TypeError: arguments outside torch's overloads (torch's argument-parser texts).
    RuntimeError: a negative length or a non-floating dtype (torch's texts, which print the options).
    NotImplementedError: a complex dtype with length > 1 (``"arange_cpu" not implemented``).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._ops import bessel_kernels, cpu_rounding
from .._tensor import Tensor, device, layout, require_cpu, strided, wrap

# ----------------------------------------------------------------- torch's argument parser for these overloads

_OPTIONS = (
    "*, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
    "bool pin_memory = False, bool requires_grad = False"
)
_KEYWORD_ONLY = ("dtype", "layout", "device", "pin_memory", "requires_grad")


def _type_name(value) -> str:
    if isinstance(value, Tensor):
        return "Tensor"
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _is_int(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, Tensor) and value._data.ndim == 0 and value._data.dtype.kind in "iu"


def _is_float(value) -> bool:
    if isinstance(value, Tensor):
        return value._data.ndim == 0 and value._data.dtype.kind in "biufV"
    return isinstance(value, (bool, int, float, np.number))


_CHECKS = {
    "int": _is_int,
    "bool": lambda v: isinstance(v, bool),
    "float": _is_float,
    "torch.dtype": lambda v: v is None or isinstance(v, _dtype.dtype),
    "torch.layout": lambda v: v is None or isinstance(v, layout),
    "torch.device": lambda v: v is None or isinstance(v, (str, int, device)),
}
_KEYWORD_TYPES = {"dtype": "torch.dtype", "layout": "torch.layout", "device": "torch.device",
                  "pin_memory": "bool", "requires_grad": "bool"}


def _signature_text(params) -> str:
    return "(" + ", ".join([f"{kind} {name}" for name, kind in params] + [_OPTIONS]) + ")"


def _invalid_combination(name: str, overloads, args, kwargs) -> TypeError:
    """torch's message when no overload matches (keywords listed in reverse order, as its unordered_map)."""
    keywords = [f"{k}={_type_name(v)}" for k, v in reversed(kwargs.items())]
    positional = [_type_name(a) for a in args]
    got = ", ".join(positional + keywords) if positional else "".join(k + ", " for k in keywords)
    lines = "".join(f" * {_signature_text(params)}\n" for params in overloads)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n{lines}")


def _match(params, args, kwargs):
    """The bound arguments when ``args``/``kwargs`` fit the overload ``params``; else the first misfit."""
    if len(args) > len(params):
        return None, None
    bound = {}
    for (name, kind), value in zip(params, args):
        if not _CHECKS[kind](value):
            return None, (name, kind, value, True)
        bound[name] = value
    for key, value in kwargs.items():
        kind = dict(params).get(key) or _KEYWORD_TYPES.get(key)
        if kind is None or key in bound:
            return None, None
        if not _CHECKS[kind](value):
            return None, (key, kind, value, False)
        bound[key] = value
    if any(name not in bound for name, _ in params):
        return None, None
    return bound, None


def _parse(name: str, overloads, args, kwargs) -> dict:
    """Bind the arguments as torch's PythonArgParser: the first overload that fits wins; when none fits
    and only one overload takes this many arguments, its first misfit is named; else all are listed."""
    for params in overloads:
        bound, _ = _match(params, args, kwargs)
        if bound is not None:
            return bound
    count = len(args) + len(kwargs)
    plausible = [p for p in overloads if len(p) <= count <= len(p) + len(_KEYWORD_ONLY)]
    if len(plausible) == 1:
        _, misfit = _match(plausible[0], args, kwargs)
        if misfit is not None:
            arg, kind, value, positional = misfit
            where = f" (position {[n for n, _ in plausible[0]].index(arg) + 1})" if positional else ""
            raise TypeError(f"{name}(): argument '{arg}'{where} must be {kind}, not {_type_name(value)}")
    raise _invalid_combination(name, overloads, args, kwargs)


# ----------------------------------------------------------------- torch's checks


_C_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool"}


def _options_text(npd, layout_given: bool) -> str:
    """TensorOptions as c10 prints it (only non-floating dtypes reach this message)."""
    layout_text = "Strided" if layout_given else "Strided (default)"
    return (f"TensorOptions(dtype={_C_TYPE_NAMES[npd.name]}, device=cpu, layout={layout_text}, "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")


def _prepare(name: str, bound: dict):
    """Check the options as ATen's window_function_checks; return (length, numpy dtype)."""
    length = bound["window_length"]
    length = int(length.item()) if isinstance(length, Tensor) else int(length)
    dtype = bound.get("dtype")
    npd = _dtype.to_numpy(dtype) if dtype is not None else _dtype.default_float_np()
    if bound.get("device") is not None:
        require_cpu(bound["device"])
    if npd.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {_options_text(npd, bound.get('layout') is not None)}")
    if length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={length}")
    if bound.get("pin_memory"):
        raise RuntimeError(
            "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is available "
            "on this system."
        )
    return length, npd


def _finish(values, bound: dict) -> Tensor:
    t = wrap(values)
    if bound.get("requires_grad"):
        t._requires_grad = True
    return t


def _trivial(length: int, npd):
    """Lengths 0 and 1 (any floating or complex dtype); None otherwise. Longer complex windows fail in arange."""
    if length == 0:
        return np.empty((0,), dtype=npd)
    if length == 1:
        return np.ones((1,), dtype=npd)
    if npd.kind == "c":
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_dtype.scalar_type_name(npd)}'")
    return None


class _Ops:
    """Tensor operations in a window's dtype: float32/float64 as they are, float16 computed in float32 and
    rounded after each operation (torch's opmath for half)."""

    def __init__(self, npd) -> None:
        self.out = npd
        self.work = np.dtype(np.float32) if npd == np.float16 else npd

    def round(self, values):
        return values.astype(self.out).astype(self.work)

    def arange(self, n: int):
        return np.arange(n).astype(self.out).astype(self.work)

    def scalar(self, value: float):
        """A Python number as TensorIterator passes it: cast to the tensor's dtype (half too), then opmath."""
        return self.work.type(self.out.type(value))

    def mul(self, values, scalar: float):
        return self.round(values * self.scalar(scalar))

    def add(self, values, scalar: float):
        return self.round(values + self.scalar(scalar))

    def cos(self, values):
        return self.round(cpu_rounding.cos(values))


def _periodic_length(length: int, periodic: bool) -> int:
    return length + 1 if periodic else length


def _hamming_values(length, periodic, alpha, beta, npd):
    ops = _Ops(npd)
    n = _periodic_length(length, periodic)
    w = ops.mul(ops.arange(n), math.pi * 2.0 / (n - 1))
    w = ops.add(ops.mul(ops.cos(w), -beta), alpha)
    return w[:length].astype(npd)


_TWO_OVERLOADS = ((("window_length", "int"),), (("window_length", "int"), ("periodic", "bool")))


def hann_window(*args, **kwargs) -> Tensor:
    """The Hann window 0.5 - 0.5 cos(2 pi k / (N - 1)) (torch.hann_window; see the module docstring)."""
    bound = _parse("hann_window", _TWO_OVERLOADS, args, kwargs)
    length, npd = _prepare("hann_window", bound)
    values = _trivial(length, npd)
    if values is None:
        values = _hamming_values(length, bound.get("periodic", True), 0.5, 0.5, npd)
    return _finish(values, bound)


_HAMMING_OVERLOADS = _TWO_OVERLOADS + (
    (("window_length", "int"), ("periodic", "bool"), ("alpha", "float")),
    (("window_length", "int"), ("periodic", "bool"), ("alpha", "float"), ("beta", "float")),
)


def _as_float(value) -> float:
    return float(value.item()) if isinstance(value, Tensor) else float(value)


def hamming_window(*args, **kwargs) -> Tensor:
    """The generalised Hamming window alpha - beta cos(2 pi k / (N - 1)) (torch.hamming_window; alpha 0.54,
    beta 0.46 by default; see the module docstring)."""
    bound = _parse("hamming_window", _HAMMING_OVERLOADS, args, kwargs)
    length, npd = _prepare("hamming_window", bound)
    values = _trivial(length, npd)
    if values is None:
        alpha = _as_float(bound.get("alpha", 0.54))
        beta = _as_float(bound.get("beta", 0.46))
        values = _hamming_values(length, bound.get("periodic", True), alpha, beta, npd)
    return _finish(values, bound)


def blackman_window(*args, **kwargs) -> Tensor:
    """The Blackman window 0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1)) (torch.blackman_window)."""
    bound = _parse("blackman_window", _TWO_OVERLOADS, args, kwargs)
    length, npd = _prepare("blackman_window", bound)
    values = _trivial(length, npd)
    if values is None:
        ops = _Ops(npd)
        n = _periodic_length(length, bound.get("periodic", True))
        w = ops.mul(ops.arange(n), math.pi / (n - 1))
        high = ops.mul(ops.cos(ops.mul(w, 4.0)), 0.08)
        low = ops.mul(ops.cos(ops.mul(w, 2.0)), 0.5)
        values = ops.add(ops.round(high - low), 0.42)[:length].astype(npd)
    return _finish(values, bound)


def bartlett_window(*args, **kwargs) -> Tensor:
    """The triangular Bartlett window 1 - |2k / (N - 1) - 1| (torch.bartlett_window)."""
    bound = _parse("bartlett_window", _TWO_OVERLOADS, args, kwargs)
    length, npd = _prepare("bartlett_window", bound)
    values = _trivial(length, npd)
    if values is None:
        ops = _Ops(npd)
        n = _periodic_length(length, bound.get("periodic", True))
        w = ops.mul(ops.arange(n), 2.0 / (n - 1))
        first_half = (n - 1) // 2 + 1
        w[first_half:] = ops.add(-w[first_half:], 2.0)
        values = w[:length].astype(npd)
    return _finish(values, bound)


_KAISER_OVERLOADS = _TWO_OVERLOADS + ((("window_length", "int"), ("periodic", "bool"), ("beta", "float")),)


def kaiser_window(*args, **kwargs) -> Tensor:
    """The Kaiser window I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta) (torch.kaiser_window; beta 12 by
    default; I0 from Cephes as torch's kernel)."""
    bound = _parse("kaiser_window", _KAISER_OVERLOADS, args, kwargs)
    length, npd = _prepare("kaiser_window", bound)
    values = _trivial(length, npd)
    if values is None:
        ops = _Ops(npd)
        n = _periodic_length(length, bound.get("periodic", True))
        work = ops.work.type
        alpha = work((n - 1) / 2.0)
        beta = work(_as_float(bound.get("beta", 12.0)))
        ratio = (ops.arange(n) - alpha) / alpha
        # pow(r, 2) compiles to r * r, and 1 - r * r to one fused multiply-add (Note [Fused multiply-add])
        arg = beta * np.sqrt(np.abs(-cpu_rounding.fms(ratio, ratio, 1.0)))
        i0 = bessel_kernels.i0
        values = (i0(arg) / i0(np.full(1, beta))).astype(npd)[:length]
    return _finish(values, bound)


EXPORTS: dict = dict(
    hann_window=hann_window, hamming_window=hamming_window, blackman_window=blackman_window,
    bartlett_window=bartlett_window, kaiser_window=kaiser_window,
)

_ = strided  # the only layout dyngrad has; any other object is refused by the argument parser above
