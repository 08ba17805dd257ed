"""dyngrad.testing (torch.testing): ``assert_close`` with torch's default tolerances and failure report texts,
and ``make_tensor`` with torch's value ranges.

Behaviour and texts follow torch/testing/_comparison.py and _creation.py (PyTorch 2.13): inputs are paired
recursively (sequences item by item, mappings key by key, None, booleans, Python numbers, tensors and NumPy
arrays); tensors are checked for shape, dtype, layout and optionally strides before their values; values are
close when ``|actual - expected| <= atol + rtol * |expected|`` (NaNs equal with ``equal_nan``). Default
tolerances per dtype (rtol, atol): float16 and complex32 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5), float32 and
complex64 (1.3e-6, 1e-5), float64 and complex128 (1e-7, 1e-7), others (0, 0); with two dtypes, the larger.
"""

from __future__ import annotations

import cmath
import collections.abc
import math

import numpy as np

from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor

__all__ = ["assert_close", "make_tensor", "assert_allclose"]

_PRECISIONS = {
    "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
    "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7),
}


class _Failure(Exception):
    """A mismatch found while comparing one pair: the exception type and message torch raises for it."""

    def __init__(self, kind, msg):
        super().__init__(msg)
        self.kind, self.msg = kind, msg


def _dtype_name(dtype) -> str:
    return repr(dtype).removeprefix("torch.")


def _tolerances(*dtypes, rtol=None, atol=None):
    if (rtol is None) ^ (atol is None):
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {'rtol' if rtol is None else 'atol'}."
        )
    if rtol is not None:
        return rtol, atol
    pairs = [_PRECISIONS.get(_dtype_name(d), (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _mismatch_msg(default_identifier, identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol) -> str:
    equality = rtol == 0 and atol == 0

    def diff_line(kind, diff, idx, tol):
        line = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        if not equality:
            line += f" (up to {tol} allowed)"
        return line + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_line("absolute", abs_diff, abs_idx, atol)
    msg += diff_line("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _scalar_msg(actual, expected, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", None, f"Expected {expected} but got {actual}.", abs_diff, None, atol, rel_diff,
                         None, rtol)


def _isclose(a, e, rtol, atol, equal_nan):
    """torch.isclose on arrays of one dtype."""
    if a.dtype == np.bool_ or (rtol == 0 and atol == 0 and a.dtype.kind in "iub"):
        return a == e
    with np.errstate(invalid="ignore", over="ignore"):
        close = a == e
        if a.dtype.kind in FLOATING_OR_COMPLEX_KINDS:
            finite = np.isfinite(a) & np.isfinite(e)
            close = close | (finite & (np.abs(a - e) <= atol + rtol * np.abs(e)))
            if equal_nan:
                close = close | (np.isnan(a) & np.isnan(e))
        else:
            diff = np.abs(a.astype(np.float64) - e.astype(np.float64))
            close = close | (diff <= atol + rtol * np.abs(e.astype(np.float64)))
    return close


def _item(a):
    return a.item()


def _tensor_msg(a, e, matches, rtol, atol) -> str:
    """torch's make_tensor_mismatch_msg: the count of mismatches and the largest absolute and relative
    differences among them (computed in the tensors' dtype; integers and booleans as int64, their relative
    difference in float32, as torch's true division gives the default dtype)."""
    n = matches.size
    mismatches = n - int(matches.sum())
    extra = f"Mismatched elements: {mismatches} / {n} ({mismatches / n:.1%})"
    af, ef, mf = a.reshape(-1), e.reshape(-1), matches.reshape(-1)
    if af.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        af, ef = af.astype(np.int64), ef.astype(np.int64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        abs_diff = np.abs(af - ef)
        abs_diff[mf] = 0
        rel_dtype = abs_diff.dtype if abs_diff.dtype.kind in FLOATING_KINDS else np.float32
        rel_diff = abs_diff.astype(rel_dtype) / np.abs(ef).astype(rel_dtype)
    rel_diff[mf] = 0
    ia, ir = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))
    return _mismatch_msg("Tensor-likes", None, extra, _item(abs_diff[ia]), tuple(int(i) for i in np.unravel_index(
        ia, matches.shape)), atol, _item(rel_diff[ir]), tuple(int(i) for i in np.unravel_index(ir, matches.shape)),
        rtol)


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, check_layout, check_stride):
    from .. import _dtype

    numpy_pair = isinstance(actual, np.ndarray)
    if numpy_pair:
        from .. import from_numpy

        actual, expected = from_numpy(np.ascontiguousarray(actual)), from_numpy(np.ascontiguousarray(expected))
    if actual.shape != expected.shape:
        raise _Failure(AssertionError,
                       f"The values for attribute 'shape' do not match: {actual.shape!r} != {expected.shape!r}.")
    if check_dtype and actual.dtype != expected.dtype:
        raise _Failure(AssertionError,
                       f"The values for attribute 'dtype' do not match: {actual.dtype!r} != {expected.dtype!r}.")
    if check_stride and actual.stride() != expected.stride():
        raise _Failure(AssertionError,
                       f"The values for attribute 'stride()' do not match: {actual.stride()} != {expected.stride()}.")
    rtol, atol = _tolerances(actual.dtype, expected.dtype, rtol=rtol, atol=atol)
    if actual.dtype.is_floating_point and actual.dtype.itemsize == 1:
        return _compare_float8(actual, expected, rtol, atol, equal_nan)
    # (bfloat16 has no Tensor.numpy(): its ml_dtypes arrays are compared as they are)
    a, e = (t.detach()._data if t.dtype is _dtype.bfloat16 else t.detach().numpy() for t in (actual, expected))
    if a.dtype != e.dtype:  # check_dtype=False: both in the promoted dtype
        common = _dtype.result_type(a, e)
        a, e = a.astype(common), e.astype(common)
    matches = _isclose(a, e, rtol, atol, equal_nan)
    if matches.all():
        return
    if a.ndim == 0:
        raise _Failure(AssertionError, _scalar_msg(a.item(), e.item(), rtol, atol))
    raise _Failure(AssertionError, _tensor_msg(a, e, matches, rtol, atol))


def _compare_float8(actual, expected, rtol, atol, equal_nan) -> None:
    """torch's bitwise_comp for float8 ("low dimensional floats"): only zero tolerances, values compared by ==
    (NaN by ``equal_nan``), and a mismatch message without differences (torch computes none for float8)."""
    from .._ops.limited_dtypes import float8_to_f32

    if rtol != 0.0 or atol != 0.0:
        raise _Failure(AssertionError, f"Rtol={rtol} and atol={atol} are not supported for bitwise comparison of low "
                                       "dimensional floats. Please use rtol=0.0 and atol=0.0.")
    a, e = float8_to_f32(actual.detach()._data), float8_to_f32(expected.detach()._data)
    matches = _isclose(a, e, 0.0, 0.0, equal_nan)
    if matches.all():
        return
    if a.ndim == 0:
        raise _Failure(AssertionError, _scalar_msg(a.item(), e.item(), rtol, atol))
    n = matches.size
    mismatches = n - int(matches.sum())
    first = tuple(int(i) for i in np.argwhere(~matches)[0])
    raise _Failure(AssertionError, f"Tensor-likes are not 'equal'!\n\nMismatched elements: {mismatches} / {n} "
                                   f"({mismatches / n:.1%})\nThe first mismatched element is at index {first}.")


def _is_number(x) -> bool:
    return isinstance(x, (int, float, complex, np.number)) and not isinstance(x, (bool, np.bool_))


def _compare_numbers(actual, expected, rtol, atol, equal_nan, check_dtype):
    ta, te = type(actual), type(expected)
    if check_dtype and ta is not te:
        raise _Failure(AssertionError, f"The (d)types do not match: {ta} != {te}.")
    kinds = {type(v) if not isinstance(v, np.number) else type(v.item()) for v in (actual, expected)}
    names = ["complex128" if k is complex else "float64" if k is float else "int64" for k in kinds]
    if rtol is None and atol is None:
        pairs = [_PRECISIONS.get(n, (0.0, 0.0)) for n in names]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    else:
        rtol, atol = _tolerances(rtol=rtol, atol=atol)
    if actual == expected:
        return
    if equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
        return
    diff = abs(actual - expected)
    finite = cmath.isfinite(actual) and cmath.isfinite(expected)
    if finite and diff <= atol + rtol * abs(expected):
        return
    raise _Failure(AssertionError, _scalar_msg(actual, expected, rtol, atol))


def _compare(actual, expected, path, options):
    if isinstance(actual, collections.abc.Sequence) and not isinstance(actual, str) and \
            isinstance(expected, collections.abc.Sequence) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + (i,), options)
        return
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        ak, ek = set(actual.keys()), set(expected.keys())
        if ak != ek:
            raise _Failure(AssertionError, "The keys of the mappings do not match:\n"
                                           f"Missing keys in the actual mapping: {sorted(ek - ak)}\n"
                                           f"Additional keys in the actual mapping: {sorted(ak - ek)}")
        for k in actual.keys():
            _compare(actual[k], expected[k], path + (k,), options)
        return
    try:
        if actual is None or expected is None:
            if not (actual is None and expected is None):
                raise _Failure(AssertionError, f"None mismatch: {actual} is not {expected}")
            return
        if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
            if bool(actual) != bool(expected):
                raise _Failure(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
            return
        if _is_number(actual) and _is_number(expected):
            _compare_numbers(actual, expected, options["rtol"], options["atol"], options["equal_nan"],
                             options["check_dtype"])
            return
        if (isinstance(actual, Tensor) and isinstance(expected, Tensor)) or (
                isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray)):
            _compare_tensors(actual, expected, options["rtol"], options["atol"], options["equal_nan"],
                             options["check_device"], options["check_dtype"], options["check_layout"],
                             options["check_stride"])
            return
    except _Failure as f:
        if path:
            f.msg = f"{f.msg}\n\nThe failure occurred for item {''.join(str([p]) for p in path)}"
        raise
    raise TypeError(f"No comparison pair was able to handle inputs of type {_type_text(actual)} and "
                    f"{_type_text(expected)}.")


def _type_text(x) -> str:
    """How torch prints an input's type; a dyngrad Tensor stands for torch.Tensor."""
    return "<class 'torch.Tensor'>" if isinstance(x, Tensor) else str(type(x))


def assert_close(actual, expected, *, allow_subclasses: bool = True, rtol=None, atol=None, equal_nan: bool = False,
                 check_device: bool = True, check_dtype: bool = True, check_layout: bool = True,
                 check_stride: bool = False, msg=None) -> None:
    """Assert that ``actual`` and ``expected`` are close (torch.testing.assert_close).

    Raises:
        AssertionError: with torch's report ("Tensor-likes are not close!", the count of mismatched elements, the
            greatest absolute and relative differences and their indices; "The failure occurred for item [i]" for
            nested inputs), or ``msg`` (a string replaces the report, a callable receives it).
        ValueError: only one of rtol / atol given.
        TypeError: inputs no comparison handles (a tensor and a list, strings, ...).
    """
    if (rtol is None) ^ (atol is None):
        _tolerances(rtol=rtol, atol=atol)
    options = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                   check_layout=check_layout, check_stride=check_stride)
    try:
        _compare(actual, expected, (), options)
    except _Failure as f:
        text = f.msg
        if isinstance(msg, str):
            text = msg
        elif callable(msg):
            text = msg(text)
        raise f.kind(text) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated torch.testing.assert_allclose: assert_close without the dtype check, NaNs equal."""
    import warnings

    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
        "Please use `torch.testing.assert_close()` instead. You can find detailed upgrade instructions in "
        "https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    from .. import as_tensor

    if not isinstance(actual, Tensor):
        actual = as_tensor(actual)
    if not isinstance(expected, Tensor):
        expected = as_tensor(expected, dtype=actual.dtype)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False,
                 msg=msg or None)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False, memory_format=None) -> Tensor:
    """A tensor of ``shape`` filled with random values from dyngrad's generator (torch.testing.make_tensor).

    Ranges as torch's: bool [0, 2), integers [-9, 10) (clamped to the dtype), floating and complex [-9, 9)
    (both parts); ``low``/``high`` narrow them. ``noncontiguous`` returns every other element of a twice-as-long
    last dimension; ``exclude_zero`` replaces zeros by 1 (integers) or the dtype's smallest normal number.
    Errors (torch's texts): NaN bounds, low >= high, a range outside the dtype, requires_grad for integers,
    noncontiguous with memory_format.
    """
    import warnings

    from .. import empty, finfo, iinfo, randint, view_as_real

    name = _dtype_name(dtype)
    floating = name.startswith(("float", "complex", "bfloat"))
    integral = not floating

    def modify_low_high(low, high, lowest_inclusive, highest_exclusive, default_low, default_high):
        low = low if low is not None else default_low
        high = high if high is not None else default_high
        if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
        if low == high and floating:
            warnings.warn(
                "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is deprecated "
                "since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.", FutureWarning, stacklevel=3)
        elif low >= high:
            raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
        elif high < lowest_inclusive or low >= highest_exclusive:
            raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype!r} "
                             f"only supports [{lowest_inclusive}, {highest_exclusive})")
        low = min(max(low, lowest_inclusive), highest_exclusive)
        high = min(max(high, lowest_inclusive), highest_exclusive)
        if integral:
            return math.ceil(low), math.ceil(high)
        return low, high

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and integral:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype!r}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if name == "bool":
        low, high = modify_low_high(low, high, 0, 2, 0, 2)
        result = randint(low, high, shape, dtype=dtype)
    elif integral:
        info = iinfo(dtype)
        low, high = modify_low_high(low, high, info.min, info.max + (1 if name != "int64" else 0), -9, 10)
        result = randint(low, high, shape, dtype=dtype)
    else:
        info = finfo(dtype)
        low, high = modify_low_high(low, high, info.min, info.max, -9, 9)
        result = empty(shape, dtype=dtype)
        target = view_as_real(result) if name.startswith("complex") else result
        if high - low >= info.max:
            target.uniform_(low / 2, high / 2).mul_(2)
        else:
            target.uniform_(low, high)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if integral else finfo(dtype).tiny
    if floating:
        result.requires_grad = requires_grad
    return result
