"""grid_sample and affine_grid (aten/src/ATen/native/GridSampler.cpp, GridSamplerUtils.h,
AffineGridGenerator.cpp; the PyTorch docs of torch.nn.functional.grid_sample / affine_grid).

grid_sample is written once, as a composition of differentiable Tensor ops on the input and the grid
(``_sample``): the grid is unnormalised to pixel coordinates, passed through the padding mode (clamped for
'border', reflected then clamped for 'reflection', as aten's compute_coordinates), and the input is read at
the integer taps around each point (gathers; taps outside the input read zero) with bilinear, nearest or
bicubic weights. The node GridSampler{2,3}DBackward0 runs that composition on arrays for its forward and
differentiates it for its backward, so gradients of any order follow from one formula. As in aten, integer
tap positions carry no gradient: the grid's gradient comes from the interpolation weights only (zero for
'nearest').
"""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

from .._backend import xp
from .._batching.array import any_sample
from .._dtype import FLOATING_KINDS
from .._tensor import Tensor, wrap
from ..autograd.forward_ad import STATE as _fw_state
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from . import matmul as _products
from . import pointwise as pw
from . import shape as sh
from .indexing import gather
from .nn_kernels import _type_name
from .registry import Op, apply, register

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


def _unnormalize(coord: Tensor, size: int, align_corners: bool, fused: bool = True) -> Tensor:
    """aten's grid_sampler_unnormalize: -1 and 1 are the centres of the corner pixels (align_corners) or their
    outer edges."""
    if align_corners:
        return pw.mul(pw.div(pw.add(coord, 1), 2), size - 1)  # aten's order of operations (float32 rounding)
    shifted = pw.add(coord, 1)
    value = pw.div(pw.sub(pw.mul(shifted, size), 1), 2)
    if not fused:  # (the 3-D kernel is aten's scalar one: two roundings)
        return value
    # aten's kernel rounds (coord + 1) * size / 2 - 0.5 once (a fused multiply-add): the same value, computed
    # exactly in long double, replaces the twice-rounded one (the gradient jumps at integer positions)
    a = shifted._data
    exact = (a.astype(xp.longdouble) * (size / 2) - xp.longdouble(0.5)).astype(a.dtype)
    return pw.add(value, wrap((exact - value._data).astype(a.dtype)))


def _reflect(x: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """aten's reflect_coordinates: fold x into [twice_low / 2, twice_high / 2] by reflections at its ends."""
    if twice_low == twice_high:
        return pw.mul(x, 0)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    a = pw.abs(pw.sub(x, low))
    flips = xp.floor(a._data / span)
    extra = pw.sub(a, wrap((flips * span).astype(a._data.dtype)))
    even = wrap(flips % 2 == 0)
    return pw.where(even, pw.add(extra, low), pw.add(pw.neg(extra), span + low))


def _apply_padding(x: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """aten's compute_coordinates: 'border' clamps to [0, size - 1]; 'reflection' reflects (about the corner
    pixels' centres with align_corners, about their outer edges without), then clamps."""
    if padding_mode == "border":
        return _clip(x, size)
    if padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        return _clip(x, size)
    return x


def _clip(x: Tensor, size: int) -> Tensor:
    """aten's clip_coordinates_set_grad: clamp to [0, size - 1] with the borders themselves counted as outside
    (gradient 0 there, where clamp's would be 1)."""
    a = x._data
    inside = (a > 0) & (a < size - 1)
    return pw.where(wrap(inside), x, wrap(xp.clip(a, 0, size - 1)))


def _read(flat: Tensor, taps, spatial, out_shape) -> Tensor:
    """input values (N, C, *out) at integer tap positions ``taps`` (one (N, *out) array per spatial axis, the
    last axis last); taps outside the input read zero."""
    n, c = flat._data.shape[:2]
    inside = True
    pos = 0
    for t, size in zip(taps, spatial):
        inside = inside & (t >= 0) & (t < size)
        pos = pos * size + xp.clip(t, 0, size - 1)
    key = xp.broadcast_to(pos.reshape(n, 1, -1), (n, c, pos[0].size))
    vals = gather(flat, 2, wrap(xp.ascontiguousarray(key))).reshape((n, c) + tuple(out_shape))
    if inside is True or not any_sample(~inside):  # (every sample's taps inside: a mask of ones changes nothing)
        return vals
    return pw.mul(vals, wrap(inside[:, None].astype(flat._data.dtype)))


def _cubic_weights(t: Tensor):
    """The four cubic-convolution weights (Keys, A = -0.75, aten's get_cubic_upsample_coefficients) for taps
    at -1, 0, 1, 2 around a point at fraction t."""
    a = -0.75

    def conv1(x):  # ((A + 2) x - (A + 3)) x^2 + 1, for |x| <= 1
        return pw.add(pw.mul(pw.mul(pw.sub(pw.mul(x, a + 2), a + 3), x), x), 1)

    def conv2(x):  # ((A x - 5A) x + 8A) x - 4A, for 1 < |x| < 2
        return pw.sub(pw.mul(pw.add(pw.mul(pw.sub(pw.mul(x, a), 5 * a), x), 8 * a), x), 4 * a)

    one_minus = pw.add(pw.neg(t), 1)
    return (conv2(pw.add(t, 1)), conv1(t), conv1(one_minus), conv2(pw.add(one_minus, 1)))


def _sample(x: Tensor, grid: Tensor, mode: str, padding_mode: str, align_corners: bool) -> Tensor:
    """grid_sample as Tensor ops: x (N, C, *S), grid (N, *out, k) with coordinates (x, y[, z]) -> (N, C, *out)."""
    nsp = x._data.ndim - 2
    spatial = x._data.shape[2:]
    out_shape = grid._data.shape[1:-1]
    n, c = x._data.shape[:2]
    flat = x.reshape((n, c, -1))
    # grid's last axis lists (x, y[, z]): W first, so axis k of the input takes grid coordinate nsp - 1 - k
    coords = [_unnormalize(sh.select(grid, -1, nsp - 1 - k), spatial[k], align_corners, nsp == 2) for k in range(nsp)]
    if mode == "bicubic":
        base = [xp.floor(cd._data) for cd in coords]
        frac = [pw.sub(cd, wrap(b.astype(cd._data.dtype))) for cd, b in zip(coords, base)]
        weights = [_cubic_weights(f) for f in frac]
        out = None
        for offs in itertools.product(range(4), repeat=nsp):
            taps = []
            for k, o in enumerate(offs):  # each tap position goes through the padding mode (aten's get_value_bounded)
                pos = wrap((base[k] + (o - 1)).astype(coords[k]._data.dtype))
                pos = _apply_padding(pos, spatial[k], padding_mode, align_corners)._data
                taps.append(pos.astype(xp.int64))
            w = weights[0][offs[0]]
            for k in range(1, nsp):
                w = pw.mul(w, weights[k][offs[k]])
            term = pw.mul(_read(flat, taps, spatial, out_shape), sh.unsqueeze(w, 1))
            out = term if out is None else pw.add(out, term)
        return out
    coords = [_apply_padding(cd, size, padding_mode, align_corners) for cd, size in zip(coords, spatial)]
    if mode == "nearest":  # nearbyint: half to even, as xp.rint
        taps = [xp.rint(cd._data).astype(xp.int64) for cd in coords]
        return _read(flat, taps, spatial, out_shape)
    low = [xp.floor(cd._data) for cd in coords]
    high_w = [pw.sub(cd, wrap(lo.astype(cd._data.dtype))) for cd, lo in zip(coords, low)]  # weight of the upper tap
    low_w = [pw.add(pw.neg(w), 1) for w in high_w]
    out = None
    for offs in itertools.product((0, 1), repeat=nsp):
        taps = [(lo + o).astype(xp.int64) for lo, o in zip(low, offs)]
        w = None
        for k, o in enumerate(offs):
            wk = high_w[k] if o else low_w[k]
            w = wk if w is None else pw.mul(w, wk)
        term = pw.mul(_read(flat, taps, spatial, out_shape), sh.unsqueeze(w, 1))
        out = term if out is None else pw.add(out, term)
    return out


class _GridSampler(Op):
    """grid_sampler_{2,3}d(input, grid, mode, padding_mode, align_corners); see the module docstring.

    Backward: the vector-Jacobian product of ``_sample`` (the composition recorded again and differentiated,
    under create_graph too, which gives the second derivatives). Params: (mode, padding_mode, align_corners).
    """

    save_inputs = True

    @staticmethod
    def forward(a, g, mode, padding_mode, align_corners):
        with no_grad():
            return _sample(wrap(a), wrap(g), mode, padding_mode, align_corners)._data

    def backward(self, grad):
        from ..autograd import grad as _grad

        x, g = self.saved()
        mode, padding_mode, align_corners = self._params
        want = [i for i in (0, 1) if self.next_functions[i][0] is not None]
        create = is_grad_enabled()  # the engine records the backward (create_graph) with grad mode on
        with enable_grad():
            ins = [x, g] if create else [x.detach(), g.detach()]
            if _fw_state.batching:  # under vmap: each sample's gradient of an input the vmap does not batch
                from .._batching.tensors import expand_over, levels_of

                wanted = levels_of([x, g, grad])
                ins = [expand_over(t, wanted) for t in ins]
            for i in want:
                if not ins[i]._requires_grad:
                    ins[i] = ins[i].detach().requires_grad_(True)
            out = _sample(ins[0], ins[1], mode, padding_mode, align_corners)
            targets = [ins[i] for i in want]
            grads = _grad(out, targets, grad if create else grad.detach(), create_graph=create, allow_unused=True) \
                if out._requires_grad else [None] * len(targets)
        result = [None, None]
        for i, gi in zip(want, grads):
            result[i] = gi if gi is not None else wrap(xp.zeros_like(ins[i]._data))
        return tuple(result)


@register
class GridSampler2DBackward0(_GridSampler):
    """grid_sampler_2d: input (N, C, H, W), grid (N, Ho, Wo, 2); see _GridSampler."""


@register
class GridSampler3DBackward0(_GridSampler):
    """grid_sampler_3d: input (N, C, D, H, W), grid (N, Do, Ho, Wo, 3); see _GridSampler."""


def _check_sampler(x: Tensor, grid: Tensor, mode: str) -> None:
    """aten's check_grid_sampler_common / _2d / _3d (types and shapes), with torch's texts."""
    a, g = x._data, grid._data
    if a.dtype != g.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{_dtype_repr(a)} and grid has {_dtype_repr(g)}")
    if a.ndim != g.ndim:
        raise RuntimeError(f"grid_sampler(): expected grid to have same number of dimensions as input, but got input "
                           f"with sizes {list(a.shape)} and grid with sizes {list(g.shape)}")
    if a.shape[0] != g.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
                           f"{list(a.shape)} and grid with sizes {list(g.shape)}")
    if g.shape[-1] != a.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {a.ndim - 2} in last dimension, but got grid "
                           f"with sizes {list(g.shape)}")
    for i in range(2, a.ndim):
        if a.shape[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(a.shape)} with dimension {i} being empty")
    if a.ndim not in (4, 5):
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(a.shape)} and grid with sizes {list(g.shape)}")
    if a.ndim == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f"\"grid_sampler_{a.ndim - 2}d_cpu\" not implemented for '{_type_name(a)}'")


def _dtype_repr(a) -> str:
    return f"torch.{a.dtype.name}"


_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
                  "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
                  "details.")


def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros", align_corners=None):  # noqa: A002
    """torch.nn.functional.grid_sample: sample input (N, C, H, W) at grid (N, Ho, Wo, 2) -> (N, C, Ho, Wo), or a
    5-D input (N, C, D, H, W) at grid (N, Do, Ho, Wo, 3). Coordinates in [-1, 1] (x, then y, then z).

    mode 'bilinear' (trilinear in 3-D), 'nearest' or 'bicubic' (4-D only); padding_mode 'zeros', 'border' or
    'reflection'; align_corners None means False with torch's UserWarning. ValueError for an unknown mode,
    RuntimeError (torch's texts) for mismatched shapes or dtypes. grad_fn GridSampler2DBackward0 / 3D.
    """
    if mode not in _MODES:
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
                         f"but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES.index(mode), _PADDINGS.index(padding_mode), align_corners)


def grid_sampler(input, grid, interpolation_mode: int, padding_mode: int, align_corners: bool):  # noqa: A002
    """torch.grid_sampler: grid_sample with integer mode (0 bilinear, 1 nearest, 2 bicubic) and padding mode
    (0 zeros, 1 border, 2 reflection)."""
    mode, padding = _MODES[interpolation_mode], _PADDINGS[padding_mode]
    _check_sampler(input, grid, mode)
    op = GridSampler2DBackward0 if input._data.ndim == 4 else GridSampler3DBackward0
    return apply(op, (input, grid), (mode, padding, bool(align_corners)))


# ------------------------------------------------------------------ affine_grid


def _base_coords(n: int, align_corners: bool, dtype):
    """aten's linspace_from_neg_one: n points from -1 to 1, scaled by (n - 1) / n without align_corners; 0 for n = 1."""
    if n <= 1:
        return xp.zeros(max(n, 0), dtype=dtype)
    # torch's linspace, to the last bit (grid_sample's gradient jumps at integer pixel positions): start + i * step
    # for the first half, end - (n - 1 - i) * step for the second, each a fused multiply-add (one rounding),
    # computed here exactly with fractions
    step = xp.asarray(2.0, dtype=dtype) / xp.asarray(n - 1, dtype=dtype)
    exact_step = Fraction(float(step))
    vals = [(-1 + i * exact_step) if i < n // 2 else (1 - (n - 1 - i) * exact_step) for i in range(n)]
    r = xp.array([float(v) for v in vals], dtype=xp.float64).astype(dtype)
    return r if align_corners else (r * xp.asarray(n - 1, dtype=dtype) / xp.asarray(n, dtype=dtype)).astype(dtype)


def _base_grid(spatial, align_corners: bool, dtype):
    """The (prod(spatial), nsp + 1) matrix of homogeneous points (x, y[, z], 1), x running fastest."""
    axes = [_base_coords(s, align_corners, dtype) for s in spatial]  # (D,) H, W
    mesh = xp.meshgrid(*axes, indexing="ij")
    cols = [m.reshape(-1) for m in reversed(mesh)] + [xp.ones(mesh[0].size, dtype=dtype)]
    return xp.stack(cols, axis=1)


@register
class AffineGridGeneratorBackward0(Op):
    """affine_grid_generator(theta (N, k, k + 1), size, align_corners): grid[n, p] = theta[n] @ (x_p, y_p[, z_p], 1).

    Backward (derivatives.yaml, affine_grid_generator_backward): grad_theta[n] = grad[n]^T @ base, a matrix
    product with the fixed base grid (so linear, and differentiable again). Params: (output spatial size,
    align_corners).
    """

    @staticmethod
    def forward(theta, spatial, align_corners):
        base = _base_grid(spatial, align_corners, theta.dtype)
        out = xp.matmul(base[None], theta.transpose(0, 2, 1))  # (N, P, k)
        return out.reshape((theta.shape[0],) + tuple(spatial) + (theta.shape[1],))

    def backward(self, g):
        spatial, align_corners = self._params
        n, k = g._data.shape[0], g._data.shape[-1]
        base = wrap(_base_grid(spatial, align_corners, g._data.dtype))
        return (_products.matmul(g.reshape((n, -1, k)).transpose(-1, -2), base),)


def affine_grid(theta, size, align_corners=None):
    """torch.nn.functional.affine_grid: the sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of affine maps theta
    (N, 2, 3) (or (N, 3, 4)) for an output of ``size`` (N, C, H, W) (or (N, C, D, H, W)), as grid_sample takes it.

    ValueError / NotImplementedError and UserWarnings as torch's.
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(s) for s in size]
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(
                f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(
                f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"Expected theta batch size {theta.shape[0]} to match size[0] = {size[0]}")
    return apply(AffineGridGeneratorBackward0, (theta,), (tuple(spatial), bool(align_corners)))


def _grid_sampler_nd(nd: int):
    def fn(input, grid, interpolation_mode: int, padding_mode: int, align_corners: bool):  # noqa: A002
        if input._data.ndim != nd + 2:  # (aten's check_grid_sampler_2d / _3d)
            raise RuntimeError(f"grid_sampler(): expected {nd + 2}D input and grid with same number of dimensions, but "
                               f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
        return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)

    fn.__name__ = f"grid_sampler_{nd}d"
    fn.__doc__ = f"torch.grid_sampler_{nd}d: grid_sampler on {nd + 2}-D inputs only."
    return fn


EXPORTS: dict = {"grid_sampler": grid_sampler, "grid_sampler_2d": _grid_sampler_nd(2),
                 "grid_sampler_3d": _grid_sampler_nd(3), "affine_grid_generator": lambda theta, size, align_corners: apply(
    AffineGridGeneratorBackward0, (theta,), (tuple(int(s) for s in size[2:]), bool(align_corners)))}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}
FUNCTIONAL_EXPORTS: dict = {"grid_sample": grid_sample, "affine_grid": affine_grid}
