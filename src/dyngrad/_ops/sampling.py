"""Upsampling for ``dyngrad.nn.functional.interpolate`` / ``upsample``: nearest and (bi)linear modes (the others
in resample.py)
(aten/src/ATen/native/UpSample*.cpp), each a product with a per-axis interpolation matrix."""

from __future__ import annotations

import warnings

from .._backend import xp
from .._dtype import FLOATING_KINDS
from .._tensor import Tensor, wrap
from . import matmul as _products
from . import shape as sh
from .nn_kernels import _type_name
from .pooling import adaptive_avg_pool2d
from .registry import Op, apply, register

# ------------------------------------------------------------------ upsampling (interpolate)


def _nearest_map(n_in: int, n_out: int, scale, dtype):
    """aten's nearest source index: min(floor(i * s), n_in - 1), s = 1/scale_factor (when given) or n_in/n_out,
    in float32 as the CPU kernel computes it."""
    s = xp.float32(1.0 / scale) if scale is not None and scale > 0 else xp.float32(n_in) / xp.float32(n_out)
    idx = xp.minimum(xp.floor(xp.arange(n_out, dtype=xp.float32) * s).astype(xp.int64), n_in - 1)
    return idx, None, None, None


def _linear_map(n_in: int, n_out: int, scale, align_corners: bool, dtype):
    """aten's linear source indices and weights (area_pixel_compute_scale / _source_index), in the input's
    dtype (its opmath type): align_corners maps the corner pixels onto each other, otherwise pixel centres
    (src = s * (i + 0.5) - 0.5, clamped at 0); idx1 = idx0 + 1 except at the last input pixel."""
    one = xp.asarray(1, dtype=dtype)
    if align_corners:
        s = (xp.asarray(n_in - 1, dtype=dtype) / (n_out - 1)) if n_out > 1 else xp.asarray(0, dtype=dtype)
        src = s * xp.arange(n_out, dtype=dtype)
    else:
        s = (one / xp.asarray(scale, dtype=dtype)) if scale is not None and scale > 0 else \
            xp.asarray(n_in, dtype=dtype) / xp.asarray(n_out, dtype=dtype)
        src = xp.maximum(s * (xp.arange(n_out, dtype=dtype) + xp.asarray(0.5, dtype=dtype)) - xp.asarray(0.5, dtype=dtype),
                         xp.asarray(0, dtype=dtype))
    i0 = src.astype(xp.int64)
    i1 = i0 + (i0 < n_in - 1)
    l1 = xp.clip(src - i0.astype(dtype), 0, 1).astype(dtype)
    return i0, i1, one - l1, l1


def _map_matrix(m, n_in: int, dtype):
    """The (n_out, n_in) matrix of one axis' map, for the backward's transposed product."""
    i0, i1, l0, l1 = m
    n_out = i0.shape[0]
    rows = xp.arange(n_out)
    mat = xp.zeros((n_out, n_in), dtype=dtype)
    if l0 is None:
        mat[rows, i0] = 1
    else:
        xp.add.at(mat, (rows, i0), l0)
        xp.add.at(mat, (rows, i1), l1)
    return mat


class _Upsample(Op):
    """Separable upsampling: each spatial axis maps its input pixels to output pixels (nearest: one source,
    linear: two sources weighted l0, l1). The forward gathers along W, then H (aten's nesting order); the
    backward is the transposed map, applied as a product with each axis' (out, in) matrix (written with
    Tensor ops, so higher derivatives work; the map is linear). A NaN in the incoming gradient spreads
    along the rows of that product, where aten's scatter-add would keep it in place.
    """

    @staticmethod
    def forward(a, maps, mats):
        for axis, m in reversed(list(enumerate(maps, start=2))):
            i0, i1, l0, l1 = m
            if l0 is None:
                a = xp.take(a, i0, axis=axis)
            else:
                shape = (-1,) + (1,) * (a.ndim - 1 - axis)
                a = xp.take(a, i0, axis=axis) * l0.reshape(shape) + xp.take(a, i1, axis=axis) * l1.reshape(shape)
        return a

    def backward(self, g):
        mats = self._params[1]
        nd = len(mats)
        for k, mat in enumerate(mats):
            t = wrap(mat.astype(g._data.dtype, copy=False))
            if k == nd - 1:  # the last axis: (..., out) @ (out, in)
                g = _products.matmul(g, t)
            else:  # an earlier axis: move it last, product, move it back
                axis = 2 + k
                g = sh.movedim(_products.matmul(sh.movedim(g, axis, -1), t), -1, axis)
        return (g,)


@register
class UpsampleNearest1DBackward0(_Upsample):
    """upsample_nearest1d(input (N, C, W), output_size, scales); see _Upsample."""


@register
class UpsampleNearest2DBackward0(_Upsample):
    """upsample_nearest2d(input (N, C, H, W), output_size, scales); see _Upsample."""


@register
class UpsampleLinear1DBackward0(_Upsample):
    """upsample_linear1d(input (N, C, W), output_size, align_corners, scales); see _Upsample."""


@register
class UpsampleBilinear2DBackward0(_Upsample):
    """upsample_bilinear2d(input (N, C, H, W), output_size, align_corners, scales); see _Upsample."""


_UPSAMPLE_OPS = {("nearest", 3): UpsampleNearest1DBackward0, ("nearest", 4): UpsampleNearest2DBackward0,
                 ("linear", 3): UpsampleLinear1DBackward0, ("bilinear", 4): UpsampleBilinear2DBackward0}


def _upsample(input, op, output_size, scales, align_corners):  # noqa: A002
    a = input._data
    spatial = a.shape[2:]
    if output_size is None:  # aten: the output size is the truncated product, the kernel keeps the scales
        output_size = [int(n * float(sf)) for n, sf in zip(spatial, scales)]
    else:
        output_size = [int(n) for n in output_size]
        scales = [None] * len(spatial)
    if any(n <= 0 for n in spatial) or any(n <= 0 for n in output_size):
        names = "HW"[-len(spatial):] if len(spatial) <= 2 else "DHW"
        fmt = ", ".join
        ins = fmt(f"{c}: {n}" for c, n in zip(names, spatial))
        outs = fmt(f"{c}: {n}" for c, n in zip(names, output_size))
        sep = " and" if len(spatial) == 1 else ""
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}){sep} output ({outs})")
    nearest = op in (UpsampleNearest1DBackward0, UpsampleNearest2DBackward0)
    if a.dtype.kind not in FLOATING_KINDS:
        if len(spatial) == 2:  # the 2-D kernels dispatch on the dtype in their channels-last path
            kernel = f"upsample_{'nearest' if nearest else 'bilinear'}2d_channels_last"
        else:
            kernel = "compute_indices_weights_nearest" if nearest else "compute_indices_weights_linear"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(a)}'")
    maps = tuple(_nearest_map(i, o, sf, a.dtype) if nearest else _linear_map(i, o, sf, align_corners, a.dtype)
                 for i, o, sf in zip(spatial, output_size, scales))
    mats = tuple(_map_matrix(m, i, a.dtype) for m, i in zip(maps, spatial))
    return apply(op, (input,), (maps, mats))


def _is_integer(v) -> bool:
    return isinstance(v, int) or (isinstance(v, Tensor) and v._data.dtype.kind in "biu")


def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias: bool = False):
    """Resize (N, C, W) or (N, C, H, W) inputs (torch.nn.functional.interpolate).

    Modes: 'nearest' (3-D, 4-D: UpsampleNearest1D/2DBackward0), 'linear' (3-D: UpsampleLinear1DBackward0),
    'bilinear' (4-D: UpsampleBilinear2DBackward0), and 'area' on 4-D inputs (adaptive_avg_pool2d, as torch).
    ``size`` or ``scale_factor`` (one of them), int or per-axis sequence; a given scale factor is passed on
    to the kernel (its source-index scale is 1/scale_factor) unless ``recompute_scale_factor``. Argument
    errors as torch's (ValueError, TypeError, NotImplementedError for a mode and rank that do not fit).
    Further modes in resample.py: 'nearest' and 'trilinear' on 5-D inputs, 'nearest-exact' (3-, 4-, 5-D),
    'bicubic' (4-D), ``antialias`` with 'bilinear' / 'bicubic' (4-D), 'area' on 3-D and 5-D inputs. 'lanczos'
    raises NotImplementedError naming dyngrad.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the "
                             "interpolating modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(v) for v in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(v) for v in size]}")
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {spatial} and "
                    f"scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
                         "a 4-D tensor as input")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    nd = input.dim()
    op = _UPSAMPLE_OPS.get((mode, nd))
    if op is not None and not antialias:
        return _upsample(input, op, output_size, scale_factors, align_corners)
    if mode == "area" and nd == 4:
        return adaptive_avg_pool2d(input, output_size)
    wants = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if nd in (3, 4, 5) and (mode not in wants or nd == wants[mode]):
        from .resample import resample  # the further modes (resample.py)

        out = resample(input, mode, output_size, scale_factors, align_corners, antialias)
        if out is not None:
            return out
    if mode in wants and nd in (3, 4, 5) and nd != wants[mode]:
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {wants[mode]}D input")
    known = ("lanczos",) if antialias and nd == 4 else ()  # (every other mode and rank is implemented)
    if nd in (3, 4, 5) and mode in known:
        raise NotImplementedError(f"dyngrad: interpolate mode '{mode}' is not implemented for {nd}D input"
                                  + (" with antialias=True" if antialias else ""))
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {nd}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
        f" (got {mode})")


def upsample(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None):  # noqa: A002
    """Deprecated alias of interpolate (torch warns the same)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):  # noqa: A002
    """Deprecated: interpolate(mode='nearest'), with torch's UserWarning."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: A002
    """Deprecated: interpolate(mode='bilinear', align_corners=True), with torch's UserWarning."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.nn.functional; __init__.py, _tensor_methods.py and nn/functional.py merge these.
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {  # dyngrad.nn.functional.<name>
    "interpolate": interpolate,
    "upsample": upsample,
    "upsample_nearest": upsample_nearest,
    "upsample_bilinear": upsample_bilinear,
}
