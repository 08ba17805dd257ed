"""torch-named dtypes over NumPy dtypes, and torch's type-promotion rules.

Promotion follows torch.result_type (PyTorch docs, "Type promotion"): operands are
ranked in three groups (tensors with dimensions, zero-dim tensors, Python
scalars); a lower group only changes the result when it brings a higher category
(bool < integer < floating < complex).
"""

from __future__ import annotations

import builtins as _builtins  # (the names float/int/bool are shadowed below)

import numpy as np

from ._batching.array import BatchedArray as _BatchedArray  # a vmapped tensor's data (dyngrad.func.vmap)

# Note [Floating kinds]
# The NumPy ``kind`` of dyngrad's floating arrays is "f" for NumPy's own float16/32/64 and "V" for the
# ml_dtypes types (bfloat16, see Note [bfloat16], and any float8 format), so "is this array floating?" is
# ``a.dtype.kind in FLOATING_KINDS``. A constant string, not a function: this test runs on hot paths, where
# a membership test in a constant costs nothing and a call would.
FLOATING_KINDS = "fV"  # real floating point (torch's is_floating_point)
FLOATING_OR_COMPLEX_KINDS = "fcV"  # floating point or complex: the dtypes that can require grad


class dtype:
    """A tensor element type; ``repr`` is torch's (``torch.float32``)."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize")

    def __init__(self, name: str, np_dtype) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind in FLOATING_KINDS
        self.is_complex = self.np.kind == "c"
        self.is_signed = self.np.kind in "ficV"
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_real(self) -> dtype:
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self) -> dtype:
        """The complex dtype of the same precision (torch.dtype.to_complex)."""
        if self.is_complex:
            return self
        if not self.is_floating_point:
            raise RuntimeError(f"Unknown Complex ScalarType for {_SCALAR_TYPE_NAMES[self.name]}")
        return {"float64": complex128, "float16": complex32}.get(self.name, complex64)


float16 = half = dtype("float16", np.float16)
float32 = float = dtype("float32", np.float32)
float64 = double = dtype("float64", np.float64)
complex64 = cfloat = dtype("complex64", np.complex64)
complex128 = cdouble = dtype("complex128", np.complex128)
uint8 = dtype("uint8", np.uint8)
int8 = dtype("int8", np.int8)
int16 = short = dtype("int16", np.int16)
int32 = int = dtype("int32", np.int32)
int64 = long = dtype("int64", np.int64)
bool = dtype("bool", np.bool_)



NO_COMPLEX32 = "dyngrad has no complex32 (ComplexHalf) tensors: NumPy, which holds dyngrad's data, has no such dtype"


class _ComplexHalf(dtype):
    """torch.complex32 / torch.chalf: a dtype NumPy has no arrays of. It exists, prints, pickles and promotes as
    torch's, with torch's properties (``to_real()`` is float16), but any attempt to make a tensor of it
    (``zeros(dtype=...)``, ``.to(...)``, ``.chalf()``) raises a RuntimeError saying so: its ``np`` raises."""

    __slots__ = ()

    def __init__(self) -> None:
        self.name = "complex32"
        self.is_floating_point = False
        self.is_complex = True
        self.is_signed = True
        self.itemsize = 4

    @property
    def np(self):
        raise RuntimeError(NO_COMPLEX32)

    def to_real(self) -> dtype:
        return float16


complex32 = chalf = _ComplexHalf()


# Note [bfloat16]
# NumPy has no bfloat16; the optional ``ml_dtypes`` package (``pip install dyngrad[bfloat16]``, the package JAX
# uses) adds one as a NumPy dtype. With it, torch.bfloat16 tensors hold ``ml_dtypes.bfloat16`` arrays and their
# ops compute in float32 and round the result once, as torch's CPU kernels do (see _ops/registry._bf16_apply).
# Its NumPy kind is "V" (not "f"): code that asks whether an array is floating must use ``is_float_np`` or
# ``FLOATING_KINDS`` (Note [Floating kinds]).
# Without ml_dtypes, torch.bfloat16 still exists (prints, pickles, promotes, finfo), but making a tensor of it
# raises a RuntimeError naming the extra, as complex32 does.
NO_BFLOAT16 = (
    "dyngrad's bfloat16 tensors need the ml_dtypes package (NumPy has no bfloat16): "
    "pip install 'dyngrad[bfloat16]' (or pip install ml_dtypes)"
)

try:
    import ml_dtypes as _ml_dtypes
except ImportError:  # the optional extra is not installed
    _ml_dtypes = None


class _BFloat16(dtype):
    """torch.bfloat16: 1 sign, 8 exponent and 7 mantissa bits, over ``ml_dtypes.bfloat16`` (Note [bfloat16])."""

    __slots__ = ("_np",)

    def __init__(self) -> None:
        self.name = "bfloat16"
        self._np = None if _ml_dtypes is None else np.dtype(_ml_dtypes.bfloat16)
        self.is_floating_point = True
        self.is_complex = False
        self.is_signed = True
        self.itemsize = 2

    @property
    def np(self):
        """ml_dtypes' bfloat16; asking for it (to make a tensor) turns on dyngrad's bfloat16 compute path."""
        if self._np is None:
            raise RuntimeError(NO_BFLOAT16)
        if not _bf16_in_use[0]:
            from .autograd import forward_ad

            forward_ad.enable_bf16()
            _bf16_in_use[0] = True
        return self._np

    def to_complex(self) -> dtype:
        return complex64


_bf16_in_use = [False]
bfloat16 = _BFloat16()
BF16_NP = bfloat16._np  # the NumPy dtype of bfloat16 arrays, None without ml_dtypes


# Note [Limited dtypes]
# torch 2.13 gives uint16/uint32/uint64 and the float8 dtypes "limited support": they exist, print, cast (``.to``),
# fill, copy, view and concatenate, but most CPU kernels are not compiled for them ("add_stub" not implemented for
# 'UInt32'), and they promote with no other dtype (uint16/32/64 with floating dtypes only). NumPy holds uint16/32/64
# itself and ml_dtypes (the optional extra of bfloat16) the float8 formats. Their tensors are rare, so the checks
# that make dyngrad refuse what torch refuses run only once such a dtype has been used (``_limited_in_use``, which
# turns on registry's slow path as bfloat16 does): code on the usual dtypes pays nothing. The table of what torch
# refuses is _ops/limited_dtypes.py.
NO_FLOAT8 = (
    "dyngrad's float8 tensors need the ml_dtypes package (NumPy has no float8 types): "
    "pip install 'dyngrad[bfloat16]' (or pip install ml_dtypes)"
)


class _LimitedDtype(dtype):
    """A dtype of Note [Limited dtypes]: torch.uint16/32/64 over NumPy's, torch.float8_* over ml_dtypes' types."""

    __slots__ = ("_np",)

    def __init__(self, name: str, np_dtype, is_float: _builtins.bool, is_signed: _builtins.bool, itemsize) -> None:
        self.name = name
        self._np = None if np_dtype is None else np.dtype(np_dtype)
        self.is_floating_point = is_float
        self.is_complex = False
        self.is_signed = is_signed
        self.itemsize = itemsize

    @property
    def np(self):
        """The NumPy dtype; asking for it (to make a tensor) turns on the limited-dtype checks."""
        if self._np is None:
            raise RuntimeError(NO_FLOAT8)
        if not _limited_in_use[0]:
            use_limited()
        return self._np

    def to_complex(self) -> dtype:
        raise RuntimeError(f"Unknown Complex ScalarType for {_SCALAR_TYPE_NAMES[self.name]}")


def _ml(name: str):
    return None if _ml_dtypes is None else getattr(_ml_dtypes, name)


_limited_in_use = [False]
uint16 = _LimitedDtype("uint16", np.uint16, False, False, 2)
uint32 = _LimitedDtype("uint32", np.uint32, False, False, 4)
uint64 = _LimitedDtype("uint64", np.uint64, False, False, 8)
float8_e4m3fn = _LimitedDtype("float8_e4m3fn", _ml("float8_e4m3fn"), True, True, 1)
float8_e5m2 = _LimitedDtype("float8_e5m2", _ml("float8_e5m2"), True, True, 1)
float8_e4m3fnuz = _LimitedDtype("float8_e4m3fnuz", _ml("float8_e4m3fnuz"), True, True, 1)
float8_e5m2fnuz = _LimitedDtype("float8_e5m2fnuz", _ml("float8_e5m2fnuz"), True, True, 1)
float8_e8m0fnu = _LimitedDtype("float8_e8m0fnu", _ml("float8_e8m0fnu"), True, False, 1)
UNSIGNED_LIMITED = (uint16, uint32, uint64)
FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)
_LIMITED = UNSIGNED_LIMITED + (FLOAT8 if _ml_dtypes is not None else ())
LIMITED_NP = frozenset(d._np for d in _LIMITED)  # NumPy dtypes of the limited dtypes dyngrad can hold
FLOAT8_NP = frozenset(d._np for d in FLOAT8 if d._np is not None)

ALL = (float16, float32, float64, complex64, complex128, uint8, int8, int16, int32, int64, bool)
_FROM_NP = {d.np: d for d in ALL}
_NAMES = {d.name: d for d in ALL}
_NAMES["complex32"] = complex32
_NAMES["bfloat16"] = bfloat16
_NAMES.update((d.name, d) for d in UNSIGNED_LIMITED + FLOAT8)
if BF16_NP is not None:
    _FROM_NP[BF16_NP] = bfloat16
    ALL = ALL + (bfloat16,)
ALL = ALL + _LIMITED
_LIMITED_FROM_NP = {d._np: d for d in _LIMITED}  # (in _FROM_NP once use_limited() has run)


def use_limited() -> None:
    """A limited dtype is in use (Note [Limited dtypes]): from now on ops check their inputs' dtypes."""
    if _limited_in_use[0]:
        return
    from .autograd import forward_ad

    _limited_in_use[0] = True
    _FROM_NP.update(_LIMITED_FROM_NP)
    forward_ad.enable_bf16()


def is_float_np(npd) -> _builtins.bool:
    """Whether a NumPy dtype is a real floating one, bfloat16 (kind "V") included (Note [Floating kinds])."""
    return npd.kind in FLOATING_KINDS


def _by_name(name: str) -> dtype:
    return _NAMES[name]


_NUMPY_TYPES_ERROR = (
    "can't convert np.ndarray of type {module}.{}. The only supported types are: float64, float32, float16, "
    "complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool."
)


def from_numpy(np_dtype) -> dtype:
    """The dyngrad dtype of a NumPy dtype; torch's TypeError for the types dyngrad does not have."""
    try:
        return _FROM_NP[np_dtype]
    except (KeyError, TypeError):
        npd = np.dtype(np_dtype)
        try:
            return _FROM_NP[npd]
        except KeyError:
            if npd in _LIMITED_FROM_NP:  # the first array of a limited dtype (Note [Limited dtypes])
                use_limited()
                return _FROM_NP[npd]
            raise TypeError(_NUMPY_TYPES_ERROR.format(npd.type.__name__, module=npd.type.__module__)) from None


def check_numpy(np_dtype) -> np.dtype:
    """Return ``np_dtype`` if torch accepts it from NumPy (the dtype of an array or NumPy scalar), else raise torch's
    TypeError; torch refuses ml_dtypes' bfloat16 arrays too (it has no NumPy bfloat16)."""
    d = from_numpy(np_dtype)
    if d is bfloat16 or (d.itemsize == 1 and d.is_floating_point):  # (bfloat16, float8: ml_dtypes' types)
        raise TypeError(_NUMPY_TYPES_ERROR.format(d.name, module=d.np.type.__module__))
    return d.np


def to_numpy(d) -> np.dtype:
    """Accept a dyngrad dtype, a NumPy dtype or a Python type; return the NumPy dtype.

    As in torch, ``float`` means float64 and ``complex`` complex128 whatever the default dtype.
    """
    if isinstance(d, dtype):
        return d.np
    if d is builtins_float:
        return float64.np
    if d is builtins_int:
        return int64.np
    if d is builtins_bool:
        return bool.np
    if d is builtins_complex:
        return complex128.np
    return from_numpy(d).np


# torch's ScalarType names, used in its "not implemented for 'Long'" errors
_SCALAR_TYPE_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "float16": "Half", "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
    "complex128": "ComplexDouble", "complex32": "ComplexHalf", "bfloat16": "BFloat16",
    "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "float8_e4m3fn": "Float8_e4m3fn",
    "float8_e5m2": "Float8_e5m2", "float8_e4m3fnuz": "Float8_e4m3fnuz", "float8_e5m2fnuz": "Float8_e5m2fnuz",
    "float8_e8m0fnu": "Float8_e8m0fnu",
}


def scalar_type_name(np_dtype) -> str:
    return _SCALAR_TYPE_NAMES[from_numpy(np_dtype).name]



builtins_float, builtins_int, builtins_bool, builtins_complex = (
    _builtins.float,
    _builtins.int,
    _builtins.bool,
    _builtins.complex,
)

_default_float = float32


def get_default_dtype() -> dtype:
    return _default_float


def set_default_dtype(d: dtype) -> None:
    """Set the dtype of new floating tensors; only float32 and float64 are accepted, as in torch.

    Raises:
        TypeError: another dtype; torch's text starts "invalid dtype object: " for anything that is no dtype."""
    global _default_float
    if d not in (float32, float64, float16):
        prefix = "" if isinstance(d, dtype) else "invalid dtype object: "
        raise TypeError(f"{prefix}only floating-point types are supported as the default type")
    _default_float = d


def default_float_np() -> np.dtype:
    return _default_float.np


# ---------------------------------------------------------------- promotion
_KIND_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3, "V": 2}  # "V": bfloat16 (the only such dtype here)


def _category(npd: np.dtype) -> _builtins.int:
    return _KIND_CATEGORY[npd.kind]


def promote_dtypes(a: dtype, b: dtype) -> dtype:
    """torch.promote_types on dyngrad dtypes, complex32 included (complex, of float16's precision)."""
    if a is not b and (type(a) is _LimitedDtype or type(b) is _LimitedDtype):
        _check_limited_promotion(a, b)
    if a is bfloat16 or b is bfloat16:
        other = b if a is bfloat16 else a
        if other is complex32:
            return complex64
        if other is float16:
            return float32
        if other is bfloat16 or not (other.is_floating_point or other.is_complex):
            return bfloat16
        return other
    if a is complex32 or b is complex32:
        other = b if a is complex32 else a
        if other is complex32 or other.np.kind in "biu" or other is float16:
            return complex32
        return from_numpy(promote_types(complex64.np, other.np))
    return from_numpy(promote_types(a.np, b.np))


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """torch.promote_types on NumPy dtypes."""
    if a is b or a == b:
        return a
    if _limited_in_use[0] and (a in LIMITED_NP or b in LIMITED_NP):
        _check_limited_promotion(from_numpy(a), from_numpy(b))
    ca, cb = _category(a), _category(b)
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if hi.kind == "c" and lo.kind in FLOATING_KINDS and lo.itemsize > hi.itemsize // 2:
            return np.dtype(np.complex128)
        return hi
    if ca == 1 and a.kind != b.kind:
        # uint8 with a signed int: the smallest signed type holding both
        return np.promote_types(a, b)
    if ca == 2 and a.itemsize == b.itemsize == 2:  # bfloat16 with float16: float32, as torch
        return np.dtype(np.float32)
    return a if a.itemsize >= b.itemsize else b


def _check_limited_promotion(a: dtype, b: dtype) -> None:
    """torch's refusals to promote two different dtypes when one is limited (Note [Limited dtypes]): a float8 type
    promotes with nothing else, uint16/32/64 only with a floating type (which wins)."""
    names = f"{_SCALAR_TYPE_NAMES[a.name]} and {_SCALAR_TYPE_NAMES[b.name]}"
    if a in FLOAT8 or b in FLOAT8:
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote {names}")
    for u, other in ((a, b), (b, a)):
        if u in UNSIGNED_LIMITED and not other.is_floating_point:
            raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote {names}")


def _scalar_dtype(value) -> np.dtype:
    t = type(value)
    if t is builtins_bool or isinstance(value, np.bool_):
        return bool.np
    if t is builtins_int or isinstance(value, np.integer):
        return int64.np
    if t is builtins_float or isinstance(value, np.floating):
        return _default_float.np
    if t is builtins_complex or isinstance(value, np.complexfloating):
        return _default_float.to_complex().np
    raise TypeError(f"unsupported operand type {t.__name__}")


def _combine(higher, lower):
    """torch's combine_categories: ``lower`` only counts if it brings a higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = _category(higher), _category(lower)
    if ch == 3:
        return higher
    if cl == 3:
        if ch == 2 and higher.itemsize == 1:  # float8: torch asks for its complex type, which does not exist
            raise RuntimeError(f"Unknown Complex ScalarType for {scalar_type_name(higher)}")
        return np.dtype(np.complex128) if higher == np.float64 else (lower if ch < 2 else np.dtype(np.complex64))
    if ch == 2:
        return higher
    if ch == 0 or cl == 2:
        return promote_types(higher, lower)
    return higher


def result_type(*operands) -> np.dtype:
    """torch.result_type for NumPy arrays (tensor data, 0-d counts as zero-dim) and Python scalars."""
    dim = zero = wrapped = None
    for op in operands:
        if isinstance(op, np.ndarray) or type(op) is _BatchedArray:
            if op.ndim:
                dim = op.dtype if dim is None else promote_types(dim, op.dtype)
            else:
                zero = op.dtype if zero is None else promote_types(zero, op.dtype)
        else:
            sd = _scalar_dtype(op)
            wrapped = sd if wrapped is None else promote_types(wrapped, sd)
    return _combine(dim, _combine(zero, wrapped))
