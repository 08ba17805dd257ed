"""What torch refuses to compute on its limited dtypes, uint16/32/64 and float8 (Note [Limited dtypes] in _dtype.py).

torch 2.13's CPU kernels are compiled for a few dtypes each; an op on a dtype its kernel lacks raises
``NotImplementedError: "add_stub" not implemented for 'UInt32'``, naming the kernel. NumPy computes on uint16/32/64
(and ml_dtypes on float8) whatever the op, so the refusals are listed here, by the op's grad_fn class name, from
running each op on these dtypes with torch 2.13 itself. ``check`` runs in registry's slow path, which ops take only
once a limited dtype has been used (``_dtype.use_limited``): code on the usual dtypes never reaches it.

uint16/32/64: torch's kernels for them are the "barebones unsigned" set: copies, views, casts, concatenation,
``mul``, ``true_divide`` and the floating math functions (which promote to the default float), ``sum``/``prod``/
``cumsum`` (into int64), sort/unique, bitwise and/or/xor, eq/ne. Every op not listed here runs.

float8: only data movement (views, copies, concatenation, indexing, ``where``, padding), casts, ``abs``, ``mul`` of
two float8 tensors and ``mm`` have kernels: an op not listed in ``FLOAT8_RUNS`` (nor moving data, see
bf16_compute._DATA_MOVEMENT_MODULES) is refused, with the kernel torch names where it is known.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype

_ndarray = np.ndarray

# kernels of data-movement ops torch compiles for neither uint16/32/64 nor float8
_PADS_AND_LAYOUTS = {
    "TrilBackward0": "tril", "TriuBackward0": "triu", "TakeBackward0": "take_cpu", "Im2ColBackward0": "im2col_out_cpu",
    "ReflectionPad1DBackward0": "reflection_pad1d", "ReflectionPad2DBackward0": "reflection_pad2d",
    "ReflectionPad3DBackward0": "reflection_pad3d", "ReplicationPad1DBackward0": "replication_pad1d",
    "ReplicationPad2DBackward0": "replication_pad2d", "ReplicationPad3DBackward0": "replication_pad3d",
    "PixelShuffleBackward0": "pixel_shuffle", "ChannelShuffleBackward0": "channel_shuffle",
}
# grad_fn class -> the kernel torch's error names, on uint16/32/64 inputs
UNSIGNED_REFUSED = {
    "AbsBackward0": "abs_cpu", "AddBackward0": "add_stub", "SubBackward0": "add_stub", "RsubBackward0": "add_stub",
    "RsubBackward1": "add_stub", "AmaxBackward0": "max_values_cpu", "AminBackward0": "min_values_cpu",
    "BernoulliBackward2": "bernoulli_scalar_cpu_", "BmmBackward0": "bmm", "ClampBackward1": "clamp_scalar_cpu",
    "ClampMaxBackward0": "clamp_max_scalar_cpu", "ClampMinBackward0": "clamp_min_scalar_cpu",
    "CummaxBackward0": "cummax_cpu", "CumminBackward0": "cummin_cpu", "DotBackward0": "dot",
    "FmaxBackward0": "maximum_cpu", "FminBackward0": "minimum_cpu", "FmodBackward0": "fmod_cpu",
    "FmodBackward1": "fmod_cpu", "GatherBackward0": "scatter_gather_tensor_cpu", "IndexAddBackward0": "index_add_",
    "IndexCopyBackward0": "index_copy_cpu", "IndexFillBackward0": "index_fill_cpu", "IndexPutBackward0": "index_put",
    "IndexSelectBackward0": "index_select", "KthvalueBackward0": "kthvalue_cpu", "LinalgCrossBackward0": "cross",
    "LogcumsumexpBackward0": "logcumsumexp_out_cpu", "MaskedFillBackward0": "masked_fill",
    "MaskedScatterBackward0": "masked_scatter", "MaxBackward0": "max_cpu", "MaxBackward1": "max_all",
    "MaximumBackward0": "maximum_cpu", "MedianBackward0": "median_cpu", "MinBackward0": "min_cpu",
    "MinBackward1": "min_all", "MinimumBackward0": "minimum_cpu", "MmBackward0": "addmm_impl_cpu_",
    "ModeBackward0": "mode_cpu", "NanmedianBackward0": "median_cpu", "NegBackward0": "neg_cpu", "PowBackward0": "pow",
    "PowBackward1": "pow", "PowBackward2": "pow", "RandomBackward0": "random_kernel_cpu",
    "RandomBackward1": "random_kernel_cpu", "RandomBackward2": "random_kernel_cpu",
    "ReluBackward0": "clamp_min_scalar_cpu", "RemainderBackward0": "remainder_cpu",
    "RemainderBackward1": "remainder_cpu", "ScatterBackward0": "scatter_gather_tensor_cpu",
    "ScatterBackward1": "scatter_gather_tensor_cpu", "SgnBackward0": "sign_cpu", "SignBackward0": "sign_cpu",
    "TopkBackward0": "topk_cpu", "AddmmBackward0": "addmm_impl_cpu_", "FracBackward0": "frac_cpu",
    "MvBackward0": "addmv_impl_cpu", **_PADS_AND_LAYOUTS, "MaskedSelectBackward0": "masked_select",
}
# reductions whose kernel runs on uint16/32/64 only into int64: asked for a uint result (``dtype=``) they refuse
UNSIGNED_RESULT_REFUSED = {"SumBackward0": "sum_cpu", "SumBackward1": "sum_cpu", "ProdBackward0": "prod_out_cpu",
                           "ProdBackward1": "prod_out_cpu"}

# grad_fn class -> kernel, on float8 inputs (float8_e4m3fn; the other formats as noted below)
FLOAT8_REFUSED = {
    "AcosBackward0": "acos_vml_cpu", "AcoshBackward0": "acosh_cpu", "AddBackward0": "add_stub",
    "SubBackward0": "add_stub", "RsubBackward0": "add_stub", "RsubBackward1": "add_stub",
    "AmaxBackward0": "max_values_cpu", "AminBackward0": "min_values_cpu", "AngleBackward0": "angle_cpu",
    "AsinBackward0": "asin_vml_cpu", "AsinhBackward0": "asinh_cpu", "Atan2Backward0": "atan2_cpu",
    "AtanBackward0": "atan_vml_cpu", "AtanhBackward0": "atanh_cpu", "BernoulliBackward2": "bernoulli_scalar_cpu_",
    "BmmBackward0": "bmm", "CeilBackward0": "ceil_vml_cpu", "ClampBackward1": "clamp_scalar_cpu",
    "ClampMaxBackward0": "clamp_max_scalar_cpu", "ClampMinBackward0": "clamp_min_scalar_cpu",
    "CopysignBackward0": "copysign_cpu", "CopysignBackward1": "copysign_cpu", "CosBackward0": "cos_vml_cpu",
    "CoshBackward0": "cosh_cpu", "CummaxBackward0": "cummax_cpu", "CumminBackward0": "cummin_cpu",
    "CumprodBackward0": "cumprod_out_cpu", "CumsumBackward0": "cumsum_out_cpu",
    "Deg2RadBackward0": "mul_cpu_reduced_float", "DigammaBackward0": "digamma", "DistBackward0": "add_stub",
    "DivBackward0": "div_cpu", "DotBackward0": "dot", "ErfBackward0": "erf_vml_cpu", "ErfcBackward0": "erfc_vml_cpu",
    "ErfinvBackward0": "erfinv_vml_cpu", "Exp2Backward0": "exp2", "ExpBackward0": "exp_vml_cpu",
    "Expm1Backward0": "expm1_vml_cpu", "ExponentialBackward0": "exponential_cpu", "FloorBackward0": "floor_vml_cpu",
    "FmaxBackward0": "fmax_cpu", "FminBackward0": "fmin_cpu", "FmodBackward0": "fmod_cpu",
    "FmodBackward1": "fmod_cpu", "FracBackward0": "frac_cpu", "GatherBackward0": "gather_expanded_index",
    "I0Backward0": "i0_vml_cpu", "IndexAddBackward0": "index_add_", "IndexCopyBackward0": "index_copy_cpu",
    "IndexFillBackward0": "index_fill_cpu", "KthvalueBackward0": "kthvalue_cpu", "LgammaBackward0": "lgamma_vml_cpu",
    "LinalgCrossBackward0": "cross", "LinalgVectorNormBackward0": "norm_cpu", "Log10Backward0": "log10_vml_cpu",
    "Log1PBackward0": "log1p_vml_cpu", "Log2Backward0": "log2_vml_cpu", "LogBackward0": "log_vml_cpu",
    "LogSoftmaxBackward0": "log_softmax_lastdim_kernel_impl", "LogcumsumexpBackward0": "logcumsumexp_out_cpu",
    "LogitBackward0": "logit_cpu", "MaskedFillBackward0": "masked_fill", "MaskedScatterBackward0": "masked_scatter",
    "MaxBackward0": "max_cpu", "MaxBackward1": "max_all", "MaximumBackward0": "maximum_cpu",
    "MeanBackward0": "sum_cpu", "MeanBackward1": "sum_cpu", "MedianBackward0": "median_cpu",
    "MinBackward0": "min_cpu", "MinBackward1": "min_all", "MinimumBackward0": "minimum_cpu", "ModeBackward0": "mode_cpu",
    "NanToNumBackward0": "nan_to_num", "NanmedianBackward0": "median_cpu", "NansumBackward0": "nansum_cpu",
    "NegBackward0": "neg_cpu", "NextafterBackward0": "nextafter_cpu", "NormalBackward0": "normal_kernel_cpu",
    "PowBackward0": "pow", "PowBackward1": "pow", "PowBackward2": "pow", "ProdBackward0": "prod_out_cpu",
    "ProdBackward1": "prod_out_cpu", "Rad2DegBackward0": "mul_cpu_reduced_float", "RandomBackward0": "random_kernel_cpu",
    "RandomBackward1": "random_kernel_cpu", "RandomBackward2": "random_kernel_cpu", "ReciprocalBackward0": "reciprocal_cpu",
    "ReluBackward0": "clamp_min_scalar_cpu", "RemainderBackward0": "remainder_cpu", "RemainderBackward1": "remainder_cpu",
    "RoundBackward0": "round_vml_cpu", "RoundBackward1": "round_vml_cpu", "RsqrtBackward0": "rsqrt_cpu",
    "ScatterBackward0": "scatter_gather_tensor_cpu", "ScatterBackward1": "scatter_gather_tensor_cpu",
    "SgnBackward0": "sign_cpu", "SigmoidBackward0": "sigmoid_cpu_reduced_float", "SignBackward0": "sign_cpu",
    "SinBackward0": "sin_vml_cpu", "SincBackward0": "sinc_cpu", "SinhBackward0": "sinh_cpu",
    "SoftmaxBackward0": "softmax_lastdim_kernel_impl", "SortBackward0": "sorting_kernel_method_name",
    "SqrtBackward0": "sqrt_vml_cpu", "SumBackward0": "sum_cpu", "SumBackward1": "sum_cpu", "TanBackward0": "tan_vml_cpu",
    "TanhBackward0": "tanh_vml_cpu", "TopkBackward0": "topk_cpu", "TruncBackward0": "trunc_vml_cpu",
    "UniformBackward0": "check_uniform_bounds", "Unique2Backward0": "unique", "XlogyBackward0": "xlogy_cpu",
    "XlogyBackward2": "xlogy_cpu",
    "NotImplemented": "div_floor_cpu",  # floor_divide's node (heaviside's, also so named, refuses before apply)
    "MvBackward0": "addmv_impl_cpu", **_PADS_AND_LAYOUTS,
}
# ops whose float8 kernel exists only for two tensors: with a Python number operand torch takes its
# "reduced float" scalar kernel, which is not compiled for float8
FLOAT8_SCALAR_REFUSED = {"MulBackward0": "mul_cpu_reduced_float", "DivBackward0": "div_cpu_reduced_float",
                         "NotImplemented": "div_floor_cpu_reduced_float"}
# float8_e8m0fnu (an exponent only, no sign) lacks a few more kernels than the other formats
E8M0_REFUSED = {"AbsBackward0": "abs_cpu", "MmBackward0": "addmm_impl_cpu_", "IndexPutBackward0": "index_put",
                "AddmmBackward0": "addmm_impl_cpu_"}
# ops with a float8 kernel, besides data movement (bf16_compute's modules and view ops)
FLOAT8_RUNS = frozenset((
    "AbsBackward0", "CatBackward0", "CloneBackward0", "ConstantPadNdBackward0", "CopyBackwards", "DiagEmbedBackward0",
    "FillBackward0", "FillBackward1", "FillBackward2", "IndexBackward0", "IndexPutBackward0", "IndexSelectBackward0",
    "MmBackward0", "MulBackward0", "ToCopyBackward0", "WhereBackward0", "ZeroBackward0", "RollBackward0",
    "RepeatBackward0", "StackBackward0", "FlipBackward0", "Rot90Backward0", "AddmmBackward0",
))


# ops with a float8 kernel that computes: torch's kernel computes in float32 and rounds the result once
FLOAT8_COMPUTES = frozenset(("MulBackward0", "MmBackward0", "AddmmBackward0"))


def _flips_last_dim(name: str, a: np.ndarray, params) -> bool:
    """Whether flip / rot90 flips the innermost dim (of size > 1): torch's "flip_cpu" kernel, which its limited
    dtypes lack, runs only then (flipping outer dims is a strided copy). rot90 is aten's flips and a transpose:
    k = 1 flips dims[1], k = 2 both dims, k = 3 dims[0]."""
    if name == "FlipBackward0":
        flipped = params[0]
    else:
        k, dims = params[0] % 4, params[1]
        flipped = {0: (), 1: (dims[1],), 2: tuple(dims), 3: (dims[0],)}[k]
    last = a.ndim - 1
    return a.ndim > 0 and a.shape[-1] > 1 and any(d % a.ndim == last for d in flipped)


def _float8_compute(op, arrays, params, npd):
    """``op``'s forward on the float8 arrays as float32, its result cast to float8 by torch's rules."""
    up = [float8_to_f32(a) if type(a) is _ndarray and a.dtype in _dtype.FLOAT8_NP else a for a in arrays]
    return to_float8(np.asarray(op.forward(*up, *params)), npd)


def _copy_into_float8(arrays, params):
    """copy_ (CopyBackwards) into a float8 tensor: the source cast by torch's rules, broadcast."""
    a, src = arrays
    return np.broadcast_to(cast(np.asarray(src), a.dtype), a.shape).copy()


def _fill_float8(arrays, params):
    """fill_(number) (FillBackward2) of a float8 tensor: torch's overflow check unless it has one element
    (torch fills those by a cast), then the value converted by torch's rules."""
    (a,), (value,) = arrays, params
    value = complex(value).real
    if a.size != 1:
        check_float8_fill(value, a.dtype)
    return to_float8(np.full(a.shape, value, np.float64), a.dtype)


def _fill_float8_tensor(arrays, params):
    """fill_(0-d tensor) (FillBackward3) of a float8 tensor: the value cast by torch's rules."""
    a, value = arrays
    return np.broadcast_to(cast(np.asarray(value), a.dtype), a.shape).copy()


def _zero_float8(arrays, params):
    """zero_ (ZeroBackward0) of a float8 tensor: torch clears the bytes (for float8_e8m0fnu, whose 0 converts to NaN
    in ml_dtypes, the bytes 0 are 2**-127)."""
    return np.zeros(arrays[0].shape, arrays[0].dtype)


# ops that write into a float8 tensor, computed by torch's conversion rules (their result is the written values)
_FLOAT8_WRITES = {"CopyBackwards": _copy_into_float8, "FillBackward2": _fill_float8,
                  "FillBackward3": _fill_float8_tensor, "ZeroBackward0": _zero_float8}


def not_implemented(kernel: str, npd) -> NotImplementedError:
    """torch's error for a kernel not compiled for a dtype."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{_dtype.scalar_type_name(npd)}\'')


def _moves_data(op) -> bool:
    from .bf16_compute import _DATA_MOVEMENT_MODULES, _VIEW_OPS

    return op.__module__ in _DATA_MOVEMENT_MODULES or op.__name__ in _VIEW_OPS


def check(op, arrays, params):
    """Raise torch's NotImplementedError if ``op`` has no torch kernel for the limited dtype of one of its arrays;
    return the result of a cast into or out of float8 (computed by torch's rules, see ``cast``), else None."""
    limited = _dtype.LIMITED_NP
    npd = None
    for a in arrays:
        if type(a) is _ndarray and a.dtype in limited:
            npd = a.dtype
            break
    name = op.__name__
    if name == "ToCopyBackward0" and (npd is not None or params[0] in _dtype.FLOAT8_NP):
        return cast(arrays[0], params[0])
    if npd is not None and name in _FLOAT8_WRITES and arrays[0].dtype in _dtype.FLOAT8_NP:
        return _FLOAT8_WRITES[name](arrays, params)
    if npd is None:
        if name in UNSIGNED_RESULT_REFUSED:  # an explicit uint16/32/64 result dtype
            for p in params:
                if isinstance(p, np.dtype) and p in limited and p.kind == "u":
                    raise not_implemented(UNSIGNED_RESULT_REFUSED[name], p)
        return None
    if name == "UnfoldBackward0" and npd.name == "float8_e5m2":  # NumPy's as_strided cannot rebuild this ml_dtypes
        # type (its typestr "<f1" is a 1-byte float to NumPy): the window view is made on the bytes, then viewed back
        return op.forward(arrays[0].view(np.uint8), *params).view(npd)
    if name in ("FlipBackward0", "Rot90Backward0") and _flips_last_dim(name, arrays[0], params):
        raise not_implemented("flip_cpu", npd)
    if npd.kind == "u":
        kernel = UNSIGNED_REFUSED.get(name)
        if kernel is None and name in UNSIGNED_RESULT_REFUSED:
            for p in params:
                if isinstance(p, np.dtype) and p == npd:
                    kernel = UNSIGNED_RESULT_REFUSED[name]
        if kernel is not None:
            raise not_implemented(kernel, npd)
        return None
    # float8
    if npd.name == "float8_e8m0fnu" and name in E8M0_REFUSED:
        raise not_implemented(E8M0_REFUSED[name], npd)
    if name in ("StdBackward0", "VarBackward0"):  # params: (axes, correction, keepdim, full)
        axes = params[0]
        if axes is None or len(axes) == arrays[0].ndim:  # over every dim: torch's std_var_all refuses it
            raise RuntimeError(f"std_var_all: Unsupported dtype {_dtype.scalar_type_name(npd)}")
        raise not_implemented("std_cpu", npd)  # (var's kernel is std's)
    if name in FLOAT8_SCALAR_REFUSED and any(type(a) is not _ndarray for a in arrays):
        raise not_implemented(FLOAT8_SCALAR_REFUSED[name], npd)
    kernel = FLOAT8_REFUSED.get(name)
    if kernel is None:
        if name in FLOAT8_COMPUTES:
            return _float8_compute(op, arrays, params, npd)
        if name in FLOAT8_RUNS or _moves_data(op):
            return None
        # an op not probed against torch: torch has almost no float8 kernels on CPU; its name is a guess
        from .registry import aten_name

        kernel = f"{aten_name(op)}_cpu"
    raise not_implemented(kernel, npd)


# ------------------------------------------------------------------------------------------ float8 casts
_F32 = np.dtype(np.float32)
_E4M3FN_MAX = 448.0


def _e8m0_from_f32(f: np.ndarray) -> np.ndarray:
    """c10's Float8_e8m0fnu from float: the float32 exponent field, rounded to nearest even on the mantissa (the
    implicit leading bit is the "lsb" of the tie), the sign dropped; a float32 exponent of all ones (inf, NaN) -> NaN."""
    bits = np.ascontiguousarray(f, _F32).view(np.uint32)
    exponent = (bits >> np.uint32(23)) & np.uint32(0xFF)
    guard = (bits & np.uint32(0x400000)) != 0
    rest = (bits & np.uint32(0x3FFFFF)) != 0  # the round and sticky bits together
    up = guard & (rest | (exponent > 0))
    out = np.where(exponent == 0xFF, np.uint32(0xFF), exponent + up.astype(np.uint32))
    return out.astype(np.uint8).view(_dtype.float8_e8m0fnu._np)


def to_float8(a: np.ndarray, npd: np.dtype) -> np.ndarray:
    """``a`` converted to the float8 type ``npd`` as torch's CPU casts do: through float32 (c10's Float8 types are
    built from a float), rounded to nearest even (ml_dtypes' casts, which agree with torch's for every float32 value
    except where noted), with torch's overflow rules: float8_e4m3fn saturates finite values and infinities to
    +-448 (ml_dtypes gives NaN), float8_e8m0fnu is c10's exponent-only conversion."""
    if a.dtype.kind == "c":
        a = a.real
    a = np.asarray(a)
    f = float8_to_f32(a) if a.dtype in _dtype.FLOAT8_NP else a.astype(_F32)
    if npd.name == "float8_e8m0fnu":
        return _e8m0_from_f32(f)
    with np.errstate(invalid="ignore", over="ignore"):
        out = f.astype(npd)
    if npd.name == "float8_e4m3fn":
        wrapped = np.isnan(out.astype(_F32)) & ~np.isnan(f)
        if wrapped.any():
            out[wrapped] = np.copysign(_E4M3FN_MAX, f[wrapped]).astype(npd)
    if npd.name in ("float8_e4m3fn", "float8_e5m2"):  # torch's NaN is 0x7F with the sign bit of the input
        nan = np.isnan(f)
        if nan.any():
            out.view(np.uint8)[nan] = np.where(np.signbit(f[nan]), 0xFF, 0x7F).astype(np.uint8)
    return out


# float8 types whose NaN becomes 0 in an integer cast (torch 2.13 on x86; float32's NaN becomes the lowest int)
_NAN_TO_ZERO = ("float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu")


def check_float8_fill(value: float, npd: np.dtype) -> None:
    """c10's overflow check of a Scalar converted to a float8 type (fill_ / full of more or fewer than one element):
    NaN passes, an infinity only into float8_e5m2 (the one format with infinities), else the value must lie within
    [lowest, max] of the type (for float8_e8m0fnu lowest is 2**-127: zero and negative values overflow)."""
    from .._type_info import _FLOAT8_INFO

    if value != value or (value in (float("inf"), float("-inf")) and npd.name == "float8_e5m2"):
        return
    lowest, highest = _FLOAT8_INFO[npd.name][:2]
    if not lowest <= value <= highest:
        raise RuntimeError(f"value cannot be converted to type c10::{_dtype.scalar_type_name(npd)} without overflow")


def cast(a: np.ndarray, npd: np.dtype) -> np.ndarray:
    """``a.astype(npd)`` by torch's rules when either side is a float8 type: into float8 see ``to_float8``; out of
    float8 through float32 (exact)."""
    if npd in _dtype.FLOAT8_NP:
        return to_float8(a, npd)
    if a.dtype in _dtype.FLOAT8_NP:
        f = float8_to_f32(a)
        if npd.kind in "iu":
            if a.dtype.name in _NAN_TO_ZERO:
                f[np.isnan(f)] = 0
            if npd.kind == "u" and npd.itemsize < 8:  # through int64, then wrapped (NaN and inf give 0), as torch
                with np.errstate(invalid="ignore"):
                    return f.astype(np.int64).astype(npd)
            if npd.itemsize == 8 and npd.kind == "u":
                f[f == np.inf] = 0  # (torch gives 0 for +inf, NumPy 2**63)
        with np.errstate(invalid="ignore", over="ignore"):
            out = f if npd == _F32 else f.astype(npd)
        if npd.kind in "fV" and npd.itemsize == 2:
            # c10's Half and BFloat16 from float: BFloat16 gives its one NaN 0x7FC0 whatever the input's; Half keeps
            # the payload's top bits, which the one-NaN float8 types lack (torch: 0x7E00, NumPy: 0x7C01)
            nan = np.isnan(f)
            if nan.any() and (npd.kind == "V" or a.dtype.name in _NAN_TO_ZERO):
                out.view(np.uint16)[nan] = 0x7FC0 if npd.kind == "V" else 0x7E00
        return out
    return a.astype(npd)


def float8_to_f32(a: np.ndarray) -> np.ndarray:
    """A float8 array as float32, exactly, with the NaN bit patterns torch's conversions give (c10's Float8 types to
    float: e4m3fn and e5m2 keep the sign and mantissa bits of their NaN, quieted; the fnuz types and e8m0fnu, whose
    one NaN has no sign, give 0x7F800001). The NaN bits matter where they are seen: views, hash_tensor, casts."""
    f = a.astype(_F32)
    nan = np.isnan(f)
    if nan.any():
        b = a.view(np.uint8)[nan].astype(np.uint32)
        name = a.dtype.name
        if name == "float8_e4m3fn":
            bits = ((b & 0x80) << 24) | 0x7F800000 | ((b & 0x07) << 20)
        elif name == "float8_e5m2":
            bits = ((b & 0x80) << 24) | 0x7FC00000 | ((b & 0x03) << 21)
        else:
            bits = np.full(b.shape, 0x7F800001, np.uint32)
        f.view(np.uint32)[nan] = bits.astype(np.uint32)
    return f


def refuse(kernel: str, *values, unsigned: bool = True, float8: bool = True) -> None:
    """For ops outside registry.apply (callers test ``_dtype._limited_in_use[0]`` first, so that the usual dtypes pay
    nothing): torch's NotImplementedError when a tensor among ``values`` is uint16/32/64 (``unsigned``) or float8
    (``float8``), whose ``kernel`` torch does not compile."""
    for v in values:
        npd = getattr(getattr(v, "_data", v), "dtype", None)
        if npd is not None and npd in _dtype.LIMITED_NP and (unsigned if npd.kind == "u" else float8):
            raise not_implemented(kernel, npd)
