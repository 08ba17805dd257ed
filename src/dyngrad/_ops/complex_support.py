"""Where complex numbers meet the op families: torch's refusals, in its exception types and texts, and the
complex kernels NumPy does not have (logaddexp).

Note [Complex refusals]
torch refuses complex input in three ways, and dyngrad says each in torch's words:
- a kernel not compiled for complex types: ``NotImplementedError: "atan2_cpu" not implemented for
  'ComplexFloat'`` (``kernel_error``; the kernel name is torch's, per op, checked against torch);
- an explicit check with its own text (``clamp is not supported for complex types``, ``maximum not
  implemented for complex tensors.``, ``Sort does not support complex dtypes on CPU``), raised where
  the op function checks its arguments, in torch's order;
- an op whose forward runs on complex but whose backward has no complex formula refuses to record
  (silu, nan_to_num: Note [Complex gradients] in registry.py).
Each check is one dtype test on the argument (``d.dtype.kind == "c"``): real inputs pay nothing else.
"""

from __future__ import annotations

from .._backend import xp


def type_name(npd) -> str:
    from .._dtype import scalar_type_name

    return scalar_type_name(npd)


def kernel_error(kernel: str, npd) -> NotImplementedError:
    """torch's error for a kernel that has no version for the dtype ``npd``."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(npd)}'")


def no_complex(d, kernel: str) -> None:
    """Raise torch's kernel error when the array ``d`` is complex."""
    if d.dtype.kind == "c":
        raise kernel_error(kernel, d.dtype)


def refuse_complex(d, message: str, exc=NotImplementedError) -> None:
    """Raise ``exc(message)`` when the array ``d`` is complex (torch's explicit checks)."""
    if d.dtype.kind == "c":
        raise exc(message)


def any_complex(*values) -> bool:
    """Whether any of the arrays / Python numbers is complex."""
    for v in values:
        kind = v.dtype.kind if hasattr(v, "dtype") else ("c" if isinstance(v, complex) else "")
        if kind == "c":
            return True
    return False


CLAMP = "clamp is not supported for complex types"
SIGN = "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."
SORT = " Sort does not support complex dtypes on CPU"


# ------------------------------------------------------------------ complex kernels


def logaddexp(a, b):
    """log(exp(a) + exp(b)) for complex arrays, as ATen's _log_add_exp_helper: log1p(exp(min - max)) + max,
    with min / max ordered by real part; NaN in either part of min gives NaN + NaN i; two equal infinite
    real parts give min when -inf and log(exp(min) + exp(max)) when +inf."""
    a, b = xp.broadcast_arrays(a, b)
    a_nan = xp.isnan(a.real) | xp.isnan(a.imag)
    b_nan = xp.isnan(b.real) | xp.isnan(b.imag)
    # ATen's _logcumsumexp_minmax: a NaN in b wins, then a NaN in a, else order by real part
    a_smaller = a.real < b.real
    lo = xp.where(b_nan, b, xp.where(a_nan, a, xp.where(a_smaller, a, b)))
    hi = xp.where(b_nan, b, xp.where(a_nan, a, xp.where(a_smaller, b, a)))
    with xp.errstate(all="ignore"):
        out = xp.log1p(xp.exp(lo - hi)) + hi
        both_inf = ~xp.isfinite(lo.real) & (lo.real == hi.real)
        if both_inf.any():
            plus = xp.log(xp.exp(lo) + xp.exp(hi))
            out = xp.where(both_inf, xp.where(lo.real < 0, lo, plus), out)
    nan = xp.isnan(lo.real) | xp.isnan(lo.imag)
    if nan.any():
        out = xp.where(nan, xp.asarray(complex(xp.nan, xp.nan), dtype=out.dtype), out)
    return out.astype(a.dtype, copy=False)


_C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "int64_t", "int32": "int",
                 "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t", "bool": "bool"}


def check_scalar_fits(value, npd) -> None:
    """torch's error for a complex Python scalar used with a real tensor where no promotion happens
    (lerp's weight, addcmul's value): "value cannot be converted to type float without overflow"."""
    if isinstance(value, complex) and npd.kind != "c":
        name = _C_TYPE_NAMES.get(npd.name, npd.name)
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
