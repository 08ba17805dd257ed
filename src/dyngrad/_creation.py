"""Tensor creation: tensor, as_tensor, from_numpy, zeros, ones, full, arange, rand, ... and *_like.

Random functions draw torch's CPU stream (Note [Random streams] in _backend.py): after the
same ``manual_seed``, torch's numbers (docs/random.md).
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings

import numpy as _np  # only for type checks of incoming NumPy data

from . import _dtype
from . import _random_kernels as _kernels
from ._backend import generator, xp
from ._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS
from ._tensor import Tensor, _tp_name, wrap
from ._tensor import preserve_format as _PRESERVE
from ._tensor import strided as _strided

FLOAT_GRAD_ERROR = "Only Tensors of floating point and complex dtype can require gradients"
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."
)
LIST_OF_ARRAYS_WARNING = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the list to a "
    "single numpy.ndarray with numpy.array() before converting to a tensor. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)"
)
_MAX_DIMS = 64
_PY_SCALARS = frozenset((bool, int, float, complex))
_warned_list_of_arrays = False


# ------------------------------------------------------------------ Python data -> array
# Note [torch.tensor(data)]
# torch builds a tensor from Python data in three passes (torch/csrc/utils/tensor_new.cpp):
# 1. infer_scalar_type: Python floats give the default dtype, ints int64, bools bool, complex the
#    default complex dtype; NumPy scalars/arrays and tensors give their own dtype; the items of a
#    sequence combine with promote_types (no category rules, so [np.int32(1), 2] is int64).
# 2. compute_sizes: follow the first item of each sequence down to a non-sequence.
# 3. recursive_store: check each sequence's length against the sizes, then convert every leaf
#    with overflow checks ("value cannot be converted to type uint8 without overflow").
# We follow the same passes; plain nested lists of Python numbers take a NumPy fast path for
# pass 3, everything else (or any error) the item-by-item path that raises torch's errors.


def _is_sequence(obj) -> bool:
    """PySequence_Check as torch sees it: lists, tuples, arrays, strings... but not tensors or dicts."""
    if isinstance(obj, (list, tuple, _np.ndarray, str, bytes, range)):
        return True
    if isinstance(obj, (Tensor, dict, _np.generic)):
        return False
    tp = type(obj)
    return hasattr(tp, "__getitem__") and hasattr(tp, "__len__")


def _infer(obj) -> _np.dtype:
    """torch's infer_scalar_type (step 1 of Note [torch.tensor(data)])."""
    tp = type(obj)
    if tp is float:
        return _dtype.default_float_np()
    if tp is int:
        return _np.dtype(_np.int64)
    if tp is builtins.bool:
        return _np.dtype(_np.bool_)
    if isinstance(obj, (_np.ndarray, _np.generic)):
        return _dtype.check_numpy(obj.dtype)
    if isinstance(obj, float):
        return _dtype.default_float_np()
    if isinstance(obj, builtins.bool):
        return _np.dtype(_np.bool_)
    if isinstance(obj, int):
        return _np.dtype(_np.int64)
    if isinstance(obj, complex):
        return _dtype.get_default_dtype().to_complex().np
    if isinstance(obj, Tensor):
        return obj._data.dtype
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{_tp_name(obj)}'")
    if _is_sequence(obj):
        if len(obj) == 0:
            return _dtype.default_float_np()
        if isinstance(obj, (list, tuple)):
            types = set(map(type, obj))
            if types <= _PY_SCALARS:  # the common case: a flat list of Python numbers
                kind = complex if complex in types else float if float in types else int if int in types else bool
                return _infer(kind())
        result = None
        for item in obj:
            if item is obj:
                raise TypeError("new(): self-referential lists are incompatible")
            d = _infer(item)
            result = d if result is None else _dtype.promote_types(result, d)
        return result
    raise RuntimeError(f"Could not infer dtype of {_tp_name(obj)}")


def _compute_sizes(obj) -> list:
    """torch's compute_sizes (step 2): the lengths along the first item of each nested sequence."""
    sizes = []
    seq = obj
    while _is_sequence(seq):
        n = len(seq)
        sizes.append(n)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{_tp_name(seq)}'")
        if n == 0:
            break
        seq = seq[0]
    return sizes


def _plain(obj) -> bool:
    """True when ``obj`` is Python numbers nested in lists/tuples (the NumPy fast path is exact for those)."""
    if type(obj) in _PY_SCALARS:
        return True
    if not isinstance(obj, (list, tuple)):
        return False
    types = set(map(type, obj))
    if types <= _PY_SCALARS:
        return True
    return builtins.all(_plain(x) for x in obj)


def _overflow_error(npd) -> RuntimeError:
    return RuntimeError(f"value cannot be converted to type {npd.name} without overflow")


def _unpack_long(x) -> int:
    """THPUtils_unpackLong: an int via ``__index__``; Python ints beyond int64 overflow."""
    v = operator.index(x)
    if not -(2**63) <= v < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return v


def _unpack_double(x) -> float:
    """PyFloat_AsDouble: floats, or anything with ``__float__``/``__index__``."""
    if isinstance(x, float):
        return float(x)
    tp = type(x)
    if hasattr(tp, "__float__"):
        return float(x)
    if hasattr(tp, "__index__"):
        return float(operator.index(x))
    raise TypeError(f"must be real number, not {_tp_name(x)}")


_U64 = _np.dtype(_np.uint64)


def _unpack_uint64(x) -> int:
    """torch's store of a Python number into a uint64 tensor: an integer in [0, 2**64), Python's errors otherwise."""
    if isinstance(x, (float, complex)):
        raise TypeError("an integer is required")
    v = operator.index(x)
    if v < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if v >= 2**64:
        raise OverflowError("int too big to convert")
    return v


def _leaf_converter(npd):
    """torch's store_scalar for one element of dtype ``npd``: a function Python object -> Python value."""
    kind = npd.kind
    if kind in FLOATING_KINDS:
        return _unpack_double
    if kind == "c":
        return complex
    if kind == "b":

        def to_bool(x):  # THPUtils_unpackNumberAsBool: any int is fine, even beyond int64
            if isinstance(x, (float, complex)):
                return x != 0
            return operator.index(x) != 0

        return to_bool
    if npd == _U64:
        return _unpack_uint64
    info = _np.iinfo(npd)
    lowest = -info.max if info.min == 0 else info.min  # unsigned: negatives wrap (two's complement), as torch

    def to_int(x):
        if isinstance(x, float):
            if not info.min <= x <= info.max:  # NaN fails too
                raise _overflow_error(npd)
            return int(x)
        v = _unpack_long(x)
        if not lowest <= v <= info.max:
            raise _overflow_error(npd)
        return v

    return to_int


def _warn_list_of_arrays() -> None:
    global _warned_list_of_arrays
    if not _warned_list_of_arrays:  # TORCH_WARN_ONCE
        _warned_list_of_arrays = True
        warnings.warn(LIST_OF_ARRAYS_WARNING, UserWarning, stacklevel=4)


def _store(obj, sizes, npd):
    """torch's recursive_store (step 3), element by element; raises torch's errors."""
    flat = []
    convert = _leaf_converter(npd)
    ndim = len(sizes)

    def store(item, dim):
        if dim == ndim:
            flat.append(convert(item))
            return
        try:
            it = iter(item)
        except TypeError:
            raise TypeError("not a sequence") from None
        seq = list(it)
        if len(seq) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})")
        for x in seq:
            if isinstance(x, _np.ndarray):
                _warn_list_of_arrays()
            store(x, dim + 1)

    store(obj, 0)
    if npd.kind in FLOATING_KINDS:
        return _cast_float(xp.array(flat, dtype=xp.float64), npd).reshape(sizes)
    if npd == _U64:  # (its values may exceed int64)
        return xp.array(flat, dtype=_U64).reshape(sizes)
    if npd.kind in "iu":
        return xp.array(flat, dtype=xp.int64).astype(npd).reshape(sizes)
    return xp.array(flat, dtype=npd).reshape(sizes)


def _astype(arr, npd):
    """``arr.astype(npd)``, by torch's rules where a float8 type is involved (limited_dtypes.cast)."""
    if _dtype._limited_in_use[0] and (npd in _dtype.FLOAT8_NP or arr.dtype in _dtype.FLOAT8_NP):
        from ._ops.limited_dtypes import cast

        return cast(arr, npd)
    return arr.astype(npd)


def _cast_float(arr, npd):
    """Cast to a float dtype as torch's store does: through double, and to half through float."""
    if arr.dtype.kind in "biu" and npd != xp.float64:
        arr = arr.astype(xp.float64)
    if npd == xp.float16 and arr.dtype == xp.float64:
        arr = arr.astype(xp.float32)
    if npd in _dtype.FLOAT8_NP:  # torch's float8 conversion rules (saturation, NaN bits: limited_dtypes.to_float8)
        from ._ops.limited_dtypes import to_float8

        return to_float8(arr, npd)
    with xp.errstate(over="ignore", invalid="ignore"):
        return arr.astype(npd)


def _checked_cast(arr, npd):
    """Cast a NumPy-built array to ``npd`` with torch's per-element overflow checks; None: use _store."""
    src = arr.dtype
    if src == npd:
        return arr
    kind = npd.kind
    if src.kind == "c" and kind != "c" and kind != "b":
        return None  # _store raises torch's TypeError
    if kind in "iu":
        info = xp.iinfo(npd)
        if src.kind in FLOATING_KINDS:
            # Python ints mixed with floats became floats here (losing precision, and their own
            # overflow rule), so any doubtful value is checked element by element by _store.
            if (~((arr >= info.min) & (arr <= info.max)) | (xp.abs(arr) > 2**53)).any():
                return None
            bad = None
        elif src.kind in "iu":
            bad = (arr > info.max) | (arr < (-int(info.max) if info.min == 0 else info.min))
        else:
            bad = None
        if bad is not None and bad.any():
            raise _overflow_error(npd)
        return arr.astype(npd)
    if kind in FLOATING_KINDS:
        return _cast_float(arr, npd)
    return arr.astype(npd)


def to_array(data, dtype=None):
    """Convert ``data`` to a new array with torch.tensor's dtype inference and checks.

    Python floats give the default float dtype, ints int64, bools bool; NumPy arrays, NumPy
    scalars and tensors keep their dtype (see Note [torch.tensor(data)]).
    """
    npd = _dtype.to_numpy(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        arr = data._data.copy()
        return arr if npd is None else _astype(arr, npd)
    if isinstance(data, _np.ndarray):
        _dtype.check_numpy(data.dtype)
        return data.copy() if npd is None else _astype(data, npd)
    if npd is None:
        npd = _infer(data)
        fast = True  # an inferred dtype holds every element: no overflow checks needed
    else:
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{_tp_name(data)}'")
        fast = _plain(data) and npd != _U64  # (uint64's Python ints are checked one by one: _unpack_uint64)
    sizes = _compute_sizes(data)
    if fast:
        if isinstance(data, (list, tuple)) and builtins.any(isinstance(x, _np.ndarray) for x in data):
            _warn_list_of_arrays()
        try:
            arr = xp.array(data)
        except Exception:  # noqa: BLE001 - ragged data, tensors requiring grad...: _store raises torch's error
            arr = None
        if arr is not None and arr.shape == tuple(sizes) and arr.dtype.kind in "biufcV" and arr.dtype != xp.uint64:
            out = _checked_cast(arr, npd)
            if out is not None:
                return out
    return _store(data, sizes, npd)


def _finish(arr, requires_grad: bool) -> Tensor:
    """Wrap a new array as a leaf; ``requires_grad`` only for floating/complex dtypes (torch's factory check)."""
    t = wrap(arr)
    if requires_grad:
        if arr.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
            raise RuntimeError(FLOAT_GRAD_ERROR)
        t._requires_grad = True
    return t


def _check_device(device, layout=None) -> None:
    """The CPU only (torch's error for another device), and the strided layout only: dyngrad has no sparse
    tensors (torch.sparse_coo, sparse_csr, ... are there so that code naming them runs up to here)."""
    if device is not None:
        from ._tensor import require_cpu

        require_cpu(device)
    if layout is not None and layout is not _strided:
        raise NotImplementedError(f"dyngrad has only dense, strided tensors: layout={layout} is not supported")


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (torch.tensor).

    Args:
        data: a number, a (nested) list or tuple of numbers, a NumPy array, or a tensor (copied,
            with torch's warning to use ``clone().detach()`` instead).
        dtype: the element type; by default inferred as torch does (Python floats give the
            default dtype, float32; ints give int64; bools give bool; complex numbers complex64).
        device: only the CPU (``None``, ``"cpu"``); other devices raise torch's error.
        requires_grad: record operations on the result for autograd (floating and complex dtypes).
        pin_memory: accepted and ignored (CPU only).

    Returns:
        A tensor whose shape is the nesting of ``data`` (0-d for a number).

    Raises:
        TypeError: non-numeric data (``new(): invalid data type 'str'``).
        ValueError: ragged nested sequences.
        RuntimeError: a value that does not fit ``dtype``, or ``requires_grad=True`` on an integer or bool dtype.

    Example::

        >>> dyngrad.tensor([[1, 2], [3, 4]])
        tensor([[1, 2],
                [3, 4]])
        >>> dyngrad.tensor(2.5, requires_grad=True)
        tensor(2.5000, requires_grad=True)
    """
    if isinstance(data, Tensor):
        warnings.warn(COPY_CONSTRUCT_WARNING, UserWarning, stacklevel=2)
    _check_device(device)
    return _finish(to_array(data, dtype), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array or tensor when no conversion is needed."""
    _check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, _np.ndarray) and (dtype is None or _dtype.to_numpy(dtype) == data.dtype):
        return from_numpy(data)
    return wrap(to_array(data, dtype))


def from_numpy(array) -> Tensor:
    """A tensor sharing memory with ``array`` (torch.from_numpy)."""
    if not isinstance(array, _np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_tp_name(array)})")
    _dtype.check_numpy(array.dtype)
    if builtins.any(s < 0 for s in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            "array.copy().) "
        )
    return wrap(array)


# ------------------------------------------------------------------ sizes
def _is_int(x) -> bool:
    if isinstance(x, builtins.bool):
        return False
    if isinstance(x, (int, _np.integer)):
        return True
    return isinstance(x, Tensor) and x._data.ndim == 0 and x._data.dtype.kind in "iu"


def _size(size: tuple, name: str) -> tuple:
    """Parse a ``*size`` argument as torch's argument parser does (ints, or one sequence of ints)."""
    if len(size) > 1 and isinstance(size[0], (tuple, list)):
        raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
    if len(size) == 1 and not _is_int(size[0]):
        arg = size[0]
        if not isinstance(arg, (tuple, list)):
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not {_tp_name(arg)}")
        for i, s in enumerate(arg):
            if isinstance(s, builtins.bool):
                raise TypeError(
                    f"{name}(): argument 'size' (position 1) must be tuple of ints, but found element of type bool "
                    f"at pos {i}"
                )
        size = arg
    for i, s in enumerate(size):
        if not _is_int(s):
            raise TypeError(
                f"{name}(): argument 'size' failed to unpack the object at pos {i + 1} with error \"type must be "
                f'tuple of ints,but got {_tp_name(s)}"'
            )
    return tuple(operator.index(s) for s in size)


def _check_nonnegative(shape: tuple) -> None:
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, shape))}]")


def _shape_of(size: tuple, name: str) -> tuple:
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    shape = _size(size, name)
    if name == "zeros" and builtins.any(s < 0 for s in shape):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    _check_nonnegative(shape)
    return shape


def _refuse_limited(kernel: str, npd, unsigned: bool = True, float8: bool = True) -> None:
    """torch's NotImplementedError for a creation kernel it has no uint16/32/64 or float8 version of (callers test
    ``_dtype._limited_in_use[0]`` first: the usual dtypes pay nothing)."""
    if npd in _dtype.LIMITED_NP:
        from ._ops.limited_dtypes import refuse

        refuse(kernel, xp.empty(0, npd), unsigned=unsigned, float8=float8)


def _float_dtype(dtype):
    return _dtype.to_numpy(dtype) if dtype is not None else _dtype.default_float_np()


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    _check_device(device, layout)
    return _finish(xp.zeros(_shape_of(size, "zeros"), dtype=_float_dtype(dtype)), requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    _check_device(device, layout)
    return _finish(xp.ones(_shape_of(size, "ones"), dtype=_float_dtype(dtype)), requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False, memory_format=None,
          pin_memory: bool = False) -> Tensor:
    _check_device(device, layout)
    return _finish(xp.empty(_shape_of(size, "empty"), dtype=_float_dtype(dtype)), requires_grad)


# ------------------------------------------------------------------ full
_C_TYPE_NAMES = {
    "uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
    "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
    "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
}


def _scalar(value):
    """A Python number from a Python/NumPy number or a one-element tensor (torch's Scalar)."""
    if isinstance(value, Tensor):
        return value.item()
    if isinstance(value, _np.generic):
        return value.item()
    return value


def _fill_value(value, npd):
    """``value`` converted to ``npd`` with Scalar::to's overflow check (torch's fill_)."""
    kind = npd.kind
    if kind == "b":
        return builtins.bool(value)
    error = RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[npd.name]} without overflow")
    if kind == "c":
        value = complex(value)
        fmax = float(xp.finfo(npd).max)
        for part in (value.real, value.imag):
            if math.isfinite(part) and not -fmax <= part <= fmax:
                raise error
        return value
    if isinstance(value, complex):
        if value.imag != 0:
            raise error
        value = value.real
    if kind in FLOATING_KINDS:
        if isinstance(value, int) and not isinstance(value, builtins.bool):
            value = float(value)
        if math.isinf(value) or math.isnan(value):
            return value
        fmax = float(xp.finfo(npd).max)
        if not -fmax <= value <= fmax:
            raise error
        return value
    info = xp.iinfo(npd)
    if isinstance(value, float):
        if not info.min <= value <= info.max:
            raise error
        return int(value)
    value = int(value)
    lowest = -int(info.max) if info.min == 0 else info.min
    if not lowest <= value <= info.max:
        raise error
    return value


def _full_array(shape, fill_value, npd):
    if npd in _dtype.FLOAT8_NP:
        from ._ops.limited_dtypes import check_float8_fill, to_float8

        value = complex(_scalar(fill_value)).real
        if math.prod(shape) != 1:  # (torch fills a one-element tensor by a cast, without the check)
            check_float8_fill(value, npd)
        return to_float8(xp.full(shape, value, dtype=xp.float64), npd)
    value = _fill_value(fill_value, npd)
    if npd.kind in "iu" and value < 0 and xp.iinfo(npd).min == 0:
        value += int(xp.iinfo(npd).max) + 1  # two's complement wrap, as torch
    return xp.full(shape, value, dtype=npd)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value``; the dtype follows the value (bool, int64, default float)."""
    _check_device(device, layout)
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {_tp_name(size)}")
    shape = _size((size,), "full") if size else ()
    _check_nonnegative(shape)
    value = _scalar(fill_value)
    npd = _dtype.result_type(value) if dtype is None else _dtype.to_numpy(dtype)
    return _finish(_full_array(shape, value, npd), requires_grad)


# ------------------------------------------------------------------ *_like
def _like(t: Tensor, dtype, device=None):
    _check_device(device)
    return t._data.shape, (t._data.dtype if dtype is None else _dtype.to_numpy(dtype))


def _like_array(t: Tensor, npd, make):
    """``make(shape, npd)`` for the shape of ``t``; for a tensor batched by vmap, one per sample (laid out as
    ``t``), as torch's batching rules of the *_like factories give."""
    d = t._data
    if type(d) is xp.ndarray:
        return make(d.shape, npd)
    from ._batching.array import from_layout, layout, physical
    from ._batching.context import allocating

    with allocating(None):  # the physical array itself (a backward's scratch allocation would batch it again)
        return from_layout(make(physical(d).shape, npd), layout(d))


def zeros_like(t: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None) -> Tensor:
    shape, npd = _like(t, dtype, device)
    return _finish(_like_array(t, npd, lambda s, d: xp.zeros(s, dtype=d)), requires_grad)


def ones_like(t: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None) -> Tensor:
    shape, npd = _like(t, dtype, device)
    return _finish(_like_array(t, npd, lambda s, d: xp.ones(s, dtype=d)), requires_grad)


def empty_like(t: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None) -> Tensor:
    shape, npd = _like(t, dtype, device)
    return _finish(_like_array(t, npd, lambda s, d: xp.empty(s, dtype=d)), requires_grad)


def full_like(t: Tensor, fill_value, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None) -> Tensor:
    shape, npd = _like(t, dtype, device)
    value = _scalar(fill_value)
    return _finish(_like_array(t, npd, lambda s, d: _full_array(s, value, d)), requires_grad)


# ------------------------------------------------------------------ random
# Every draw goes through torch's CPU kernels on torch's generator (_random_kernels.py).
def _real_view(npd):
    """(the real dtype drawn, values per element): a complex tensor is filled through its real view."""
    if npd.kind == "c":
        return _dtype.from_numpy(npd).to_real().np, 2
    return npd, 1


def _from_real(values, shape, npd):
    real, k = _real_view(npd)
    if k == 2:
        return values.astype(real).reshape(shape + (2,)).view(npd).reshape(shape)
    return values.reshape(shape)


def _uniform(g, shape, npd, low=0.0, high=1.0):
    if npd.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{_dtype.scalar_type_name(npd)}'")
    real, k = _real_view(npd)
    n = math.prod(shape) * k
    return _from_real(_kernels.uniform(g, n, real, low, high), shape, npd)


def _normal(g, shape, npd, mean=0.0, std=1.0, contiguous=True):
    if npd.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_dtype.scalar_type_name(npd)}'")
    real, k = _real_view(npd)
    if k == 2:  # torch: each part with variance std**2 / 2
        std = std / math.sqrt(2)
    n = math.prod(shape) * k
    return _from_real(_kernels.normal(g, n, real, mean, std, contiguous), shape, npd)


def _vmap_draw(draw, shape: tuple):
    """``draw(shape)``, or under ``vmap`` torch's randomness rules for a random factory: "error" refuses,
    "same" draws one value set for the whole batch, "different" draws one per batch entry (the batch sizes of
    the "different" vmaps in front of ``shape``, as torch's batching rule does) and returns it batched."""
    from ._batching import context

    levels = context.STATE.stack
    if not levels:
        return draw(shape)
    if any(lv.randomness == "error" for lv in levels):
        context._raise_randomness()
    different = [lv for lv in levels if lv.randomness == "different"]
    if not different:
        return draw(shape)
    from ._batching.array import BatchedArray

    out = draw(tuple(lv.size for lv in different) + tuple(shape))
    for lv in different:  # the lowest level's dim first: each wrapper reads the next leading dim
        out = BatchedArray(out, 0, lv.level)
    return out


def _rng(gen):
    """The stream of ``gen`` (a dyngrad.Generator), else the default generator's."""
    return gen._stream if gen is not None else generator()


_RAND_SIGNATURES = (
    " * (tuple of ints size, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
    " * (tuple of ints size, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
)


def _random_shape(size: tuple, name: str) -> tuple:
    if not size:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (), but expected one of:\n{_RAND_SIGNATURES}"
        )
    shape = _size(size, name)
    _check_nonnegative(shape)
    return shape


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
         pin_memory: bool = False) -> Tensor:
    """Uniform samples from [0, 1)."""
    _check_device(device, layout)
    g, npd = _rng(generator), _float_dtype(dtype)
    if _dtype._limited_in_use[0]:
        _refuse_limited("check_uniform_bounds", npd, unsigned=False)
    return _finish(_vmap_draw(lambda s: _uniform(g, s, npd), _random_shape(size, "rand")), requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False,
          pin_memory: bool = False) -> Tensor:
    """Standard normal samples."""
    _check_device(device, layout)
    g, npd = _rng(generator), _float_dtype(dtype)
    if _dtype._limited_in_use[0]:
        _refuse_limited("normal_kernel_cpu", npd, unsigned=False)
    return _finish(_vmap_draw(lambda s: _normal(g, s, npd), _random_shape(size, "randn")), requires_grad)


def _integers(g, low, high, shape, npd):
    low, high = operator.index(low), operator.index(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if npd.kind == "c":
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    return _kernels.random_from_to(g, math.prod(shape), npd, low, high - low).reshape(shape)


def randint(low=None, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Integers drawn uniformly from [low, high): ``randint(high, size)`` or ``randint(low, high, size)``."""
    _check_device(device, layout)
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=size)
        low, high = 0, low
    elif low is None:  # randint(high=high, size=size)
        low = 0
    if not isinstance(size, (tuple, list)):
        position = 2 if low == 0 else 3
        raise TypeError(
            f"randint(): argument 'size' (position {position}) must be tuple of ints, not {_tp_name(size)}"
        )
    shape = _size((size,), "randint") if size else ()
    _check_nonnegative(shape)
    npd = _dtype.to_numpy(dtype) if dtype is not None else xp.dtype(xp.int64)
    if _dtype._limited_in_use[0]:
        _refuse_limited("random_update_from_to", npd, unsigned=False)
    g = _rng(generator)
    return _finish(_vmap_draw(lambda s: _integers(g, low, high, s, npd), shape), requires_grad)


def randperm(n: int, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    _check_device(device, layout)
    npd = _dtype.to_numpy(dtype) if dtype is not None else xp.dtype(xp.int64)
    if npd.kind == "c":
        raise NotImplementedError(f"\"randperm\" not implemented for '{_dtype.scalar_type_name(npd)}'")
    if _dtype._limited_in_use[0]:
        _refuse_limited("randperm", npd)
    return _finish(_kernels.randperm(_rng(generator), operator.index(n)).astype(npd), requires_grad)


def _like_order(t: Tensor, memory_format):
    """The strides of ``empty_like(t)`` (None for contiguous) and whether they are contiguous: under preserve_format
    t's own when it is dense, else dense strides in t's order (torch's infer_dense_strides)."""
    if memory_format is None or memory_format is _PRESERVE:
        from ._batching.randomness import dense_strides

        strides = dense_strides(t._data)
        if strides is not None:
            return strides, False
    return None, True


def _like_random(t: Tensor, memory_format, npd, draw):
    """The values of ``rand_like(t)`` and friends: ``draw(shape, contiguous)`` (numbers for a tensor of ``shape`` in
    torch's fill order) placed for ``empty_like(t)``'s strides; under vmap by torch's randomness rule for them
    (_batching/randomness.py's ``like_for``)."""
    from ._batching import context

    def placed(shape, strides):
        values = draw(shape, strides is None)
        return values if strides is None else _kernels.arrange(values.ravel(), shape, strides)

    if context.STATE.stack:
        from ._batching.randomness import like_for

        preserve = memory_format is None or memory_format is _PRESERVE
        return like_for(t._data, lambda shape, strides: placed(shape, strides if preserve else None))
    return placed(t._data.shape, _like_order(t, memory_format)[0])


def rand_like(t: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None) -> Tensor:
    shape, npd = _like(t, dtype, device)
    values = _like_random(t, memory_format, npd, lambda s, c: _uniform(generator(), s, npd))
    return _finish(values, requires_grad)


def randn_like(t: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None) -> Tensor:
    shape, npd = _like(t, dtype, device)
    values = _like_random(t, memory_format, npd, lambda s, c: _normal(generator(), s, npd, contiguous=c))
    return _finish(values, requires_grad)


def randint_like(t: Tensor, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                 memory_format=None) -> Tensor:
    if high is None:
        low, high = 0, low
    shape, npd = _like(t, dtype, device)
    values = _like_random(t, memory_format, npd, lambda s, c: _integers(generator(), low, high, s, npd))
    return _finish(values, requires_grad)


# ------------------------------------------------------------------ ranges
def _cpp_double(x: float) -> str:
    """A double as C++'s ``operator<<`` prints it (6 significant digits)."""
    return f"{x:g}"


def arange(start=None, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 when all are integers (torch.arange).

    Like torch's arange_out: integer dtypes compute in int64 from truncated bounds (int64 also
    sizes the result that way), float16 in float32, other float dtypes in double.
    """
    if start is None:  # arange(end=5): torch's (Number end) signature
        start, end = end, None
    if end is None and type(start) is int and start >= 0 and step == 1 and device is None and not requires_grad:
        if dtype is None or dtype is _dtype.int64:  # the common arange(n): no checks needed
            return wrap(xp.arange(start, dtype=xp.int64))
    _check_device(device, layout)
    if end is None:
        start, end = 0, start
    if out is not None and dtype is None:  # arange_out computes in the out tensor's dtype
        dtype = out.dtype
    vals = [_scalar(v) for v in (start, end, step)]
    if builtins.any(isinstance(v, complex) for v in vals):  # torch reads the bounds as doubles
        raise RuntimeError("value cannot be converted to type double without overflow")
    if dtype is not None:
        npd = _dtype.to_numpy(dtype)
    elif builtins.all(isinstance(v, int) for v in vals):
        npd = xp.dtype(xp.int64)
    else:
        npd = _dtype.default_float_np()
    if npd.kind not in "iufV":
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_dtype.scalar_type_name(npd)}'")
    if _dtype._limited_in_use[0]:
        _refuse_limited("arange_cpu", npd)
    fstart, fend, fstep = (float(v) for v in vals)
    if npd.kind in "iu":
        istart, iend, istep = (int(v) for v in vals)  # truncation, as Scalar::to<int64_t>
        if npd == xp.int64:
            if istep == 0:
                raise (RuntimeError if fstep == 0 else ValueError)("step must be nonzero")
            if not ((istep > 0 and iend >= istart) or (istep < 0 and iend <= istart)):
                raise RuntimeError("upper bound and lower bound inconsistent with step sign")
            sgn = 1 if istep > 0 else -1
            q = iend - istart + istep - sgn
            n = builtins.abs(q) // builtins.abs(istep) * (1 if (q >= 0) == (istep > 0) else -1)  # C's truncation
        else:
            if fstep == 0:
                raise RuntimeError("step must be nonzero")
            if not ((fstep > 0 and fend >= fstart) or (fstep < 0 and fend <= fstart)):
                raise RuntimeError("upper bound and lower bound inconsistent with step sign")
            n = math.ceil((fend - fstart) / fstep)
        arr = (istart + xp.arange(n, dtype=xp.int64) * istep).astype(npd)
        return _finish(arr, requires_grad)
    if fstep == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(fstart) and math.isfinite(fend)):
        raise RuntimeError(f"unsupported range: {_cpp_double(fstart)} -> {_cpp_double(fend)}")
    if not ((fstep > 0 and fend >= fstart) or (fstep < 0 and fend <= fstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = math.ceil((fend - fstart) / fstep)
    acc = xp.float32 if npd == xp.float16 else xp.float64
    arr = acc(fstart) + xp.arange(n, dtype=acc) * acc(fstep)
    return _finish(arr.astype(npd), requires_grad)


def check_0d_bounds(fname: str, start, end) -> None:
    """linspace/logspace take tensor bounds with no dimensions only; torch names the tensors among them.

    Raises:
        RuntimeError: ``linspace only supports 0-dimensional start and end tensors, but got start with 1
            dimension(s) and end with 0 dimension(s).`` (only the tensor one named when the other is a number).
    """
    dims = [(name, v._data.ndim) for name, v in (("start", start), ("end", end)) if isinstance(v, Tensor)]
    if any(n for _, n in dims):
        got = " and ".join(f"{name} with {n} dimension(s)" for name, n in dims)
        raise RuntimeError(f"{fname} only supports 0-dimensional start and end tensors, but got {got}.")


def linspace(start, end, steps: int, *, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, computed as torch's CPU kernel does.

    The first half counts up from ``start`` and the second half down from ``end`` (so both ends are
    exact), in the result dtype for floats and complex numbers and in double (truncated at the end) for
    integers. A complex bound gives the default complex dtype; RuntimeError (torch's text) when ``dtype``
    is not complex then.
    """
    _check_device(device, layout)
    check_0d_bounds("linspace", start, end)
    steps = operator.index(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = _scalar(start), _scalar(end)
    if isinstance(start, complex) or isinstance(end, complex):  # complex bounds infer the default complex dtype
        inferred = _dtype.get_default_dtype().to_complex()
        if dtype is None:
            dtype = inferred
        elif not _dtype.to_numpy(dtype).kind == "c":
            cpp = {"complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}[inferred.name]
            raise RuntimeError(f"torch.linspace(): inferred dtype {cpp} can't be safely cast to passed dtype "
                               f"{_dtype.scalar_type_name(_dtype.to_numpy(dtype))}")
    npd = _float_dtype(dtype)
    if npd.kind not in "iufcV":
        raise NotImplementedError(f"\"linspace_cpu\" not implemented for '{_dtype.scalar_type_name(npd)}'")
    if _dtype._limited_in_use[0]:
        _refuse_limited("linspace_cpu", npd)
    if steps <= 1:
        return _finish(xp.full((steps,), start).astype(npd), requires_grad)
    if npd.kind in FLOATING_OR_COMPLEX_KINDS:  # (complex: the same two halves, in complex arithmetic)
        s, e = npd.type(start), npd.type(end)
        step = (e - s) / npd.type(steps - 1)
        idx = xp.arange(steps)
        with xp.errstate(over="ignore", invalid="ignore"):
            up = s + step * idx.astype(npd)
            down = e - step * (steps - idx - 1).astype(npd)
        return _finish(xp.where(idx < steps // 2, up, down).astype(npd), requires_grad)
    s, e = int(start), int(end)
    step = (float(e) - float(s)) / (steps - 1)
    idx = xp.arange(steps)
    vals = xp.where(idx < steps // 2, s + step * idx, e - step * (steps - idx - 1))
    return _finish(xp.trunc(vals).astype(xp.int64).astype(npd), requires_grad)


def eye(n: int, m: int | None = None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad: bool = False) -> Tensor:
    _check_device(device, layout)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    npd = _float_dtype(dtype)
    if _dtype._limited_in_use[0]:
        _refuse_limited("eye", npd, float8=False)
    return _finish(xp.eye(n, m, dtype=npd), requires_grad)


class Generator:
    """torch.Generator on the CPU: torch's mt19937 stream (_torch_rng.MT19937Stream), a fresh one seeded with
    torch's default seed 67280421310721. ``get_state``/``set_state`` exchange torch's 5056-byte state."""

    def __init__(self, device="cpu") -> None:
        from ._torch_rng import MT19937Stream

        self._stream = MT19937Stream()

    def __repr__(self) -> str:  # as torch's C class prints
        return f"<torch._C.Generator object at {id(self):#x}>"

    @property
    def device(self):
        from . import device

        return device("cpu")

    def manual_seed(self, seed: int) -> Generator:
        """Seed (any int in [-2**63, 2**64); torch keeps it modulo 2**64). Errors: ValueError (torch's text) beyond."""
        seed = operator.index(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise ValueError("Overflow when unpacking long long")
        self._stream.manual_seed(seed)
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy (torch: /dev/urandom) and return the seed."""
        import os

        s = int.from_bytes(os.urandom(8), "little")
        self._stream.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._stream.seed

    def get_state(self) -> Tensor:
        """This generator's state: torch's CPUGeneratorImplState as a 5056-element uint8 tensor."""
        return wrap(xp.frombuffer(self._stream.to_bytes(), dtype=xp.uint8).copy())

    def set_state(self, new_state) -> Generator:
        from ._ops.random_ops import _check_state

        self._stream.from_bytes(_check_state(new_state))
        return self

    def clone_state(self) -> Generator:
        g = Generator()
        g._stream.copy_from(self._stream)
        return g


def _default_generator() -> Generator:
    """torch.default_generator: a Generator object over the default stream (_backend.generator())."""
    g = Generator.__new__(Generator)
    g._stream = generator()
    return g


default_generator = _default_generator()
