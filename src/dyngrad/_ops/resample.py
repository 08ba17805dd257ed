"""interpolate's further modes: nearest and trilinear on 5-D inputs, nearest-exact (3-, 4-, 5-D), bicubic (4-D),
antialiased bilinear / bicubic (4-D), area on 3-D and 5-D inputs; and F.upsample_nearest / upsample_bilinear
(aten/src/ATen/native/UpSample.h, UpSampleKernel.cpp, UpSampleBicubic2d.cpp).

Every mode is separable: each spatial axis maps its n_in input pixels to n_out output pixels by an (n_out, n_in)
matrix, and the result is those matrices applied along the axes; the backward applies their transposes (the
``_Upsample`` node of sampling.py, so gradients of any order follow).
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_KINDS
from .registry import apply, register
from .sampling import _linear_map, _map_matrix, _nearest_map, _Upsample


def _along_axes(a, mats):
    """Apply one (out, in) matrix to each of the last len(mats) axes of ``a``."""
    for axis, m in zip(range(a.ndim - len(mats), a.ndim), mats):
        a = xp.moveaxis(xp.tensordot(a, m.astype(a.dtype, copy=False), axes=([axis], [1])), -1, axis)
    return a


class _Resample(_Upsample):
    """A separable resampling given by per-axis (out, in) matrices; backward as _Upsample's (transposed products)."""

    @staticmethod
    def forward(a, maps, mats):
        return xp.ascontiguousarray(_along_axes(a, mats))


@register
class UpsampleNearest3DBackward0(_Resample):
    """upsample_nearest3d(input (N, C, D, H, W), output_size, scales): src = min(floor(dst * scale), n_in - 1)."""


@register
class UpsampleTrilinear3DBackward0(_Resample):
    """upsample_trilinear3d(input (N, C, D, H, W), output_size, align_corners, scales): linear along each axis."""


@register
class UpsampleNearestExact1DBackward0(_Resample):
    """_upsample_nearest_exact1d: src = min(floor((dst + 0.5) * scale), n_in - 1) (pixel centres)."""


@register
class UpsampleNearestExact2DBackward0(_Resample):
    """_upsample_nearest_exact2d; see UpsampleNearestExact1DBackward0."""


@register
class UpsampleNearestExact3DBackward0(_Resample):
    """_upsample_nearest_exact3d; see UpsampleNearestExact1DBackward0."""


@register
class UpsampleBicubic2DBackward0(_Resample):
    """upsample_bicubic2d(input (N, C, H, W), output_size, align_corners, scales): Keys' cubic convolution
    (A = -0.75) on the 4 taps around each source position, taps clamped into the input (aten's
    upsample_get_value_bounded)."""


@register
class UpsampleBilinear2DAaBackward0(_Resample):
    """_upsample_bilinear2d_aa: each output pixel the triangle-filter average of the input pixels its support
    covers, the filter widened by the scale when downsampling (aten's _compute_weights_aa, as PIL)."""


@register
class UpsampleBicubic2DAaBackward0(_Resample):
    """_upsample_bicubic2d_aa: as UpsampleBilinear2DAaBackward0 with the cubic filter of a = -0.5 (PIL's)."""


def _scale(n_in: int, n_out: int, align_corners: bool, scale, dtype):
    """aten's area_pixel_compute_scale."""
    if align_corners:
        return xp.asarray((n_in - 1) / (n_out - 1) if n_out > 1 else 0, dtype=dtype)
    if scale is not None and scale > 0:
        return xp.asarray(1.0 / scale, dtype=dtype)
    return xp.asarray(n_in, dtype=dtype) / xp.asarray(n_out, dtype=dtype)


def _nearest_exact_map(n_in: int, n_out: int, scale, dtype):
    """aten's nearest_neighbor_exact_compute_source_index: min(floor((i + 0.5) * s), n_in - 1), in float32."""
    s = xp.float32(1.0 / scale) if scale is not None and scale > 0 else xp.float32(n_in) / xp.float32(n_out)
    idx = xp.minimum(xp.floor((xp.arange(n_out, dtype=xp.float32) + xp.float32(0.5)) * s).astype(xp.int64), n_in - 1)
    return idx, None, None, None


def _cubic1(x, a):
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _cubic2(x, a):
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def _bicubic_matrix(n_in: int, n_out: int, scale, align_corners: bool, dtype):
    """The (n_out, n_in) bicubic matrix: source src = s * dst (align_corners) or s * (dst + 0.5) - 0.5 (no clamp),
    taps floor(src) - 1 .. + 2 clamped into the input, weights Keys' cubic convolution with A = -0.75."""
    s = _scale(n_in, n_out, align_corners, scale, dtype)
    dst = xp.arange(n_out, dtype=dtype)
    src = s * dst if align_corners else s * (dst + xp.asarray(0.5, dtype=dtype)) - xp.asarray(0.5, dtype=dtype)
    base = xp.floor(src)
    t = (src - base).astype(dtype)
    a = -0.75
    weights = (_cubic2(t + 1, a), _cubic1(t, a), _cubic1(1 - t, a), _cubic2(2 - t, a))
    mat = xp.zeros((n_out, n_in), dtype=dtype)
    rows = xp.arange(n_out)
    for k, w in enumerate(weights):
        taps = xp.clip(base.astype(xp.int64) + k - 1, 0, n_in - 1)
        xp.add.at(mat, (rows, taps), w)
    return mat


def _aa_matrix(n_in: int, n_out: int, scale, align_corners: bool, dtype, cubic: bool):
    """aten's antialiased weights (_compute_weights_aa): support = (interp_size / 2) * max(scale, 1) around
    centre = scale * (i + 0.5); weights filter((j - centre + 0.5) / max(scale, 1)), normalised to sum 1."""
    s = float(_scale(n_in, n_out, align_corners, scale, xp.float64))
    interp = 4 if cubic else 2
    support = interp * 0.5 * s if s >= 1.0 else interp * 0.5
    inv = 1.0 / s if s >= 1.0 else 1.0

    def filt(x):
        x = xp.abs(x)
        if cubic:
            return xp.where(x < 1, _cubic1(x, -0.5), xp.where(x < 2, _cubic2(x, -0.5), 0.0))
        return xp.where(x < 1, 1 - x, 0.0)

    mat = xp.zeros((n_out, n_in), dtype=xp.float64)
    for i in range(n_out):  # n_out filters, each vectorised over its support
        centre = s * (i + 0.5)
        lo = max(int(centre - support + 0.5), 0)
        hi = min(int(centre + support + 0.5), n_in)
        j = xp.arange(lo, hi)
        w = filt((j - centre + 0.5) * inv)
        total = w.sum()
        mat[i, lo:hi] = w / total if total != 0 else w
    return mat.astype(dtype)


def resample(input, mode: str, output_size, scales, align_corners, antialias: bool):  # noqa: A002
    """interpolate's modes handled here (see the module docstring), or None for the others."""
    from .pool3d import adaptive_avg_pool1d, adaptive_avg_pool3d

    nd = input._data.ndim
    if mode == "area" and not antialias:
        if nd == 3:
            return adaptive_avg_pool1d(input, output_size)
        if nd == 5:
            return adaptive_avg_pool3d(input, output_size)
        return None
    a = input._data
    spatial = a.shape[2:]
    if output_size is None:
        output_size = [int(n * float(sf)) for n, sf in zip(spatial, scales)]
    else:
        output_size = [int(n) for n in output_size]
        scales = [None] * len(spatial)
    dtype = a.dtype
    table = {
        ("nearest", 5, False): UpsampleNearest3DBackward0,
        ("trilinear", 5, False): UpsampleTrilinear3DBackward0,
        ("nearest-exact", 3, False): UpsampleNearestExact1DBackward0,
        ("nearest-exact", 4, False): UpsampleNearestExact2DBackward0,
        ("nearest-exact", 5, False): UpsampleNearestExact3DBackward0,
        ("bicubic", 4, False): UpsampleBicubic2DBackward0,
        ("bilinear", 4, True): UpsampleBilinear2DAaBackward0,
        ("bicubic", 4, True): UpsampleBicubic2DAaBackward0,
    }
    op = table.get((mode, nd, bool(antialias)))
    if op is None:
        return None
    if any(n <= 0 for n in spatial) or any(n <= 0 for n in output_size):
        names = "DHW"[-len(spatial):]
        ins = ", ".join(f"{c}: {n}" for c, n in zip(names, spatial))
        outs = ", ".join(f"{c}: {n}" for c, n in zip(names, output_size))
        sep = " and" if len(spatial) == 1 else ""
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}){sep} output ({outs})")
    if dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f"\"{op.__name__}\" not implemented for '{dtype.name}'")
    mats = []
    for n_in, n_out, sf in zip(spatial, output_size, scales):
        if mode == "nearest":
            mats.append(_map_matrix(_nearest_map(n_in, n_out, sf, dtype), n_in, dtype))
        elif mode == "nearest-exact":
            mats.append(_map_matrix(_nearest_exact_map(n_in, n_out, sf, dtype), n_in, dtype))
        elif mode == "trilinear":
            mats.append(_map_matrix(_linear_map(n_in, n_out, sf, align_corners, dtype), n_in, dtype))
        elif antialias:
            mats.append(_aa_matrix(n_in, n_out, sf, align_corners, dtype, cubic=mode == "bicubic"))
        else:
            mats.append(_bicubic_matrix(n_in, n_out, sf, align_corners, dtype))
    return apply(op, (input,), (None, tuple(mats)))


# (no public names of its own: interpolate in sampling.py calls ``resample``; listed as a family so that its
# registry entries exist from import time)
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}
FUNCTIONAL_EXPORTS: dict = {}
