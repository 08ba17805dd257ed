"""``torch._scaled_mm`` and ``torch._scaled_mm_v2``: a matrix product of float8 matrices with scales, on the CPU.

aten's CPU kernel (``_scaled_mm_out_cpu_emulated``, aten/src/ATen/native/Blas.cpp) emulates the float8 GEMM:
both matrices are cast to float32 and multiplied by their scales (float32 products), multiplied in float32, the
bias (if any) added, and the result cast to the output dtype (float8 by torch's casts, see limited_dtypes.cast).
With an explicit float8_e4m3fn/e5m2 ``out_dtype`` the product is first multiplied by ``1 / scale_result``.

Scalings (torch's "recipes"): TensorWise, a float32 scale with one element for each matrix; RowWise, scale_a of
shape (M, 1) and scale_b of shape (1, N), float32 and contiguous. Both matrices must be float8 (ml_dtypes extra).

Shapes: mat_a (M, K), mat_b (K, N) -> (M, N); the result dtype is ``out_dtype``, default mat_a's dtype.
No gradient (torch's entries have no autograd formula).

Raises (torch's texts): RuntimeError for a matrix that is not 2-D, shapes that cannot be multiplied, a bias of the
wrong size; ValueError for an invalid scaling configuration, an ``out_dtype`` different from ``out``'s dtype.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor, wrap
from .limited_dtypes import cast

_F32 = np.dtype(np.float32)
TENSOR_WISE, ROW_WISE = 0, 1  # torch.nn.functional.ScalingType's values
NO_SWIZZLE = 0


def _name(t: Tensor) -> str:
    return _dtype.scalar_type_name(t._data.dtype)


def _sizes(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _strides(t: Tensor) -> str:
    return _sizes(t.stride())


def _is_float8(t: Tensor) -> bool:
    return t._data.dtype in _dtype.FLOAT8_NP


def _tensorwise(mat: Tensor, scale: Tensor) -> bool:
    return _is_float8(mat) and scale._data.dtype == _F32 and scale._data.size == 1


def _rowwise(mat_a: Tensor, mat_b: Tensor, scale_a: Tensor, scale_b: Tensor) -> bool:
    """aten's is_rowwise_scaling for (mat_a, scale_a) and (mat_b.t(), scale_b.t())."""
    if not (_is_float8(mat_a) and _is_float8(mat_b) and scale_a._data.dtype == _F32 and scale_b._data.dtype == _F32):
        return False
    return (scale_a._data.shape == (mat_a._data.shape[0], 1) and scale_a.is_contiguous()
            and scale_b._data.shape == (1, mat_b._data.shape[1]) and scale_b.t().is_contiguous())


def _invalid(mat_a, mat_b, scale_a, scale_b) -> ValueError:
    return ValueError(
        "Invalid scaling configuration.\n"
        "- For TensorWise scaling, a and b should be float8, scales should be float and singletons.\n"
        f"- For RowWise scaling, a and b should be float8, scales should be float, scale_a should be "
        f"({mat_a._data.shape[0]}, 1) and scale_b should be (1, {mat_b._data.shape[1]}), and both should be "
        f"contiguous.\nGot mat_a.dtype()={_name(mat_a)}, scale_a.dtype()={_name(scale_a)}, "
        f"scale_a.size()={_sizes(scale_a._data.shape)}, scale_a.stride()={_strides(scale_a)}, "
        f"mat_b.dtype()={_name(mat_b)}, scale_b.dtype()={_name(scale_b)}, "
        f"scale_b.size()={_sizes(scale_b._data.shape)} and scale_b.stride()={_strides(scale_b)}")


def _check_matrices(mat_a: Tensor, mat_b: Tensor) -> None:
    for name, m in (("mat1", mat_a), ("mat2", mat_b)):  # (aten's v1 kernel names them so here, mat_a below)
        if m._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix")
    (m, k), (k2, n) = mat_a._data.shape, mat_b._data.shape
    if k != k2:
        raise RuntimeError(f"mat_a and mat_b shapes cannot be multiplied ({m}x{k} and {k2}x{n})")


def _check_scales(mat_a: Tensor, mat_b: Tensor, scale_a: Tensor, scale_b: Tensor, rowwise: bool) -> None:
    """The emulated kernel's checks of the scales, by recipe (ValueError, torch's texts)."""
    if not (_is_float8(mat_a) and _is_float8(mat_b)):
        raise ValueError(f"mat_a and mat_b must be fp8 types, got: {_name(mat_a)}{_name(mat_b)}")
    if not rowwise:
        for name, scale in (("scale_a", scale_a), ("scale_b", scale_b)):
            if scale._data.size != 1 or scale._data.dtype != _F32:
                raise ValueError(f"{name} must have 1 Float element")
        return
    m, n = mat_a._data.shape[0], mat_b._data.shape[1]
    if scale_a._data.ndim != 2 or scale_a._data.shape[0] != m or scale_a._data.shape[1] != 1:
        raise ValueError(f"scale_a must have shape [{m}, 1], got [{_sizes(scale_a._data.shape)}]")
    if scale_a._data.size != m or scale_a._data.dtype != _F32:
        raise ValueError(f"scale_a must have {m} Float elements, got {scale_a._data.size}")
    if scale_b._data.size != n or scale_b._data.dtype != _F32:
        raise ValueError(f"scale_b must have {n} Float elements, got {scale_b._data.size}")
    for name, scale in (("scale_a", scale_a), ("scale_b", scale_b)):
        if scale.stride(1) != 1:
            raise ValueError(f"expected {name}.stride(1) to be 1, but got {scale.stride(1)}")


def _emulated(mat_a: Tensor, mat_b: Tensor, scale_a: Tensor, scale_b: Tensor, bias, scale_result, out_dtype,
              result_dtype) -> np.ndarray:
    """aten's emulated float8 GEMM, on arrays (see the module docstring)."""
    if bias is not None and bias._data.size != mat_b._data.shape[1]:
        raise RuntimeError(f"Bias must be size {mat_b._data.shape[1]} but got {bias._data.size}")
    a = cast(mat_a._data, _F32)
    b = cast(mat_b._data, _F32)
    if scale_a._data.size == 1 and scale_b._data.size == 1:  # TensorWise: the scales as float scalars
        a = a * np.float32(scale_a._data.reshape(()))
        b = b * np.float32(scale_b._data.reshape(()))
    else:
        a = a * scale_a._data
        b = b * scale_b._data
    out = np.matmul(a, b)
    if bias is not None:
        out = out + cast(bias._data, _F32)
    if scale_result is not None and out_dtype is not None and out_dtype.name in ("float8_e4m3fn", "float8_e5m2"):
        out = out * (np.float32(1) / np.float32(scale_result._data.reshape(())))
    return cast(np.asarray(out, _F32), result_dtype.np)


def _scaled_mm(mat_a: Tensor, mat_b: Tensor, scale_a: Tensor, scale_b: Tensor, bias=None, scale_result=None,
               out_dtype=None, use_fast_accum: bool = False, *, out=None) -> Tensor:
    """``mat_a @ mat_b`` of float8 matrices with TensorWise or RowWise float32 scales (see the module docstring)."""
    result_dtype = out_dtype if out_dtype is not None else (out.dtype if out is not None else mat_a.dtype)
    if out is not None and out_dtype is not None and out.dtype is not out_dtype:
        raise ValueError("out_dtype must match output matrix type")
    tensorwise = _tensorwise(mat_a, scale_a) and _tensorwise(mat_b, scale_b)
    if not (tensorwise or _rowwise(mat_a, mat_b, scale_a, scale_b)):
        raise _invalid(mat_a, mat_b, scale_a, scale_b)
    _check_matrices(mat_a, mat_b)
    _check_scales(mat_a, mat_b, scale_a, scale_b, not tensorwise)
    if scale_result is not None and (scale_result._data.size != 1 or scale_result._data.dtype != _F32):
        raise RuntimeError("scale_result must be a float scalar")
    result = wrap(_emulated(mat_a, mat_b, scale_a, scale_b, bias, scale_result, out_dtype, result_dtype))
    return result if out is None else _write(result, out)


def _write(result: Tensor, out: Tensor) -> Tensor:
    out._data = result._data.copy()
    out._vc[0] += 1
    return out


def _recipe(values, name: str) -> list:
    return [int(v) for v in (values if isinstance(values, (list, tuple)) else [values])]


def _scaled_mm_v2(mat_a: Tensor, mat_b: Tensor, scale_a, scale_recipe_a, swizzle_a, scale_b, scale_recipe_b,
                  swizzle_b, bias=None, out_dtype=None, contraction_dim=(), use_fast_accum: bool = False, *,
                  out=None) -> Tensor:
    """``_scaled_mm`` with the scales, their recipes (ScalingType) and swizzles (SwizzleType) given as lists.

    The CPU kernel accepts TensorWise/TensorWise and RowWise/RowWise recipes without swizzling; the result dtype is
    ``out_dtype``, default mat_a's dtype.
    """
    for name, m in (("mat_a", mat_a), ("mat_b", mat_b)):
        if m._data.ndim != 2:
            raise ValueError(f"{name} must be a matrix")
    result_dtype = out_dtype if out_dtype is not None else (out.dtype if out is not None else mat_a.dtype)
    (m, k), (k2, n) = mat_a._data.shape, mat_b._data.shape
    if m == 0 or k == 0 or n == 0:
        return wrap(np.zeros((m, n), result_dtype.np))
    if contraction_dim:
        da, db = contraction_dim
        if mat_a._data.shape[da] != mat_b._data.shape[db]:
            raise ValueError(f"mat_a and mat_b shapes cannot be multiplied ({m}x{k} and {k2}x{n}) "
                             f"with contraction dims mat_a: {da}, mat_b: {db}")
    elif k != k2:
        raise ValueError(f"mat_a and mat_b shapes cannot be multiplied ({m}x{k} and {k2}x{n})")
    if bias is not None and bias._data.size != n:
        raise ValueError(f"Bias must be size {n} but got {bias._data.size}")
    if out is not None and out_dtype is not None and out.dtype is not out_dtype:
        raise ValueError("out_dtype must match output matrix type")
    if bias is not None and bias.dtype not in (_dtype.float32, _dtype.bfloat16, _dtype.float16):
        raise ValueError(f"Bias must be Float32 or BFloat16 or Half, but got {_name(bias)}")
    if _recipe(swizzle_a, "swizzle_a")[0] != NO_SWIZZLE or _recipe(swizzle_b, "swizzle_b")[0] != NO_SWIZZLE:
        raise ValueError("CPU does not support swizzle.")
    sa, sb = scale_a[0], scale_b[0]
    ra, rb = _recipe(scale_recipe_a, "scale_recipe_a"), _recipe(scale_recipe_b, "scale_recipe_b")
    # aten's acceptance of a recipe looks at the dtypes, the number of scales and the recipes only
    accepted = (_is_float8(mat_a) and _is_float8(mat_b) and len(scale_a) == len(scale_b) == 1 and len(ra) == len(rb) == 1
                and sa._data.dtype == _F32 and sb._data.dtype == _F32)
    if not (accepted and ra == rb and ra[0] in (TENSOR_WISE, ROW_WISE)):
        raise _invalid(mat_a, mat_b, sa, sb)
    _check_scales(mat_a, mat_b, sa, sb, ra[0] == ROW_WISE)
    result = wrap(_emulated(mat_a, mat_b, sa, sb, bias, None, _dtype.bfloat16, result_dtype))
    return result if out is None else _write(result, out)


EXPORTS = {"_scaled_mm": _scaled_mm, "_scaled_mm_v2": _scaled_mm_v2}
