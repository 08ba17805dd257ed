"""3-D pooling and the 1-D / 3-D adaptive poolings (aten/src/ATen/native/DilatedMaxPool3d.cpp,
AveragePool3d.cpp, AdaptiveAveragePooling3d.cpp, AdaptiveMaxPooling3d.cpp, AdaptiveAveragePooling.cpp).

Windows are read with one strided view per kernel offset (no Python loop over voxels, channels or
batch entries). Max-pooling indices are flat positions in D * H * W, as torch's.
The 1-D adaptive poolings are aten's: unsqueeze(-2), the 2-D pooling with a height-1 output, squeeze(-2).
"""

from __future__ import annotations

import itertools

from .._backend import xp
from .._batching.array import any_sample
from .._dtype import FLOATING_KINDS
from .._tensor import Tensor, wrap
from ..autograd.grad_mode import is_grad_enabled
from . import reduction as red
from . import shape as sh
from .conv import _tuple
from .convnd import _offset_slices, col2vol
from .indexing import gather
from .nn_kernels import _shape_list, _type_name
from .pooling import _pool_out, adaptive_avg_pool2d, adaptive_max_pool2d
from .registry import Op, apply, apply_multi, register

# ------------------------------------------------------------------ argument checks


def _pool3d_setup(x: Tensor, name: str, kernel_size, stride, padding, dilation, ceil_mode):
    """Normalise 3-D pooling arguments and run aten's checks; returns (kernel, stride, pad pairs, dilation, out).

    The far side of a dim gets more padding than ``padding`` when ceil_mode's last window runs past it.
    """
    a = x._data
    if a.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if a.dtype.kind == "c":
        raise NotImplementedError(f"\"{name}\" not implemented for '{_type_name(a)}'")
    for arg, v in (("kernel_size", kernel_size), ("stride", stride), ("padding", padding), ("dilation", dilation)):
        if isinstance(v, (list, tuple)) and len(v) not in ((0, 1, 3) if arg == "stride" else (1, 3)):
            what = {"kernel_size": "kernel_size", "stride": "stride", "padding": "padding", "dilation": "dilation"}
            raise RuntimeError(f"{name}: {what[arg]} must either be a single int, or a tuple of three ints")
    one = lambda v: _tuple(v[0], 3) if isinstance(v, (list, tuple)) and len(v) == 1 else _tuple(v, 3)  # noqa: E731
    kernel = one(kernel_size)
    stride = kernel if stride is None or (isinstance(stride, (list, tuple)) and not stride) else one(stride)
    pad, dil = one(padding), one(dilation)
    if any(k <= 0 for k in kernel):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]}")
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"stride should be greater than zero, but got dT: {stride[0]} dH: {stride[1]} dW: {stride[2]}")
    if any(d <= 0 for d in dil):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationT: {dil[0]} dilationH: {dil[1]} dilationW: {dil[2]}")
    spatial = a.shape[-3:]
    kernel_name = "max_pool3d_with_indices_out_cpu_template" if name == "max_pool3d" else name
    for k, p, d in zip(kernel, pad, dil):  # aten's pooling_output_shape checks, before the shape's
        _pool_out(k * d, k, p, 1, d, False)
    for i in range(a.ndim - 4, a.ndim):
        if a.shape[i] == 0:
            raise RuntimeError(
                f"{kernel_name}(): Expected input's non-batch dimensions to have positive length, but input has a "
                f"shape of {_shape_list(a.shape)} and non-batch dimension 0 has length zero!")  # (always 0 in aten)
    if name == "avg_pool3d" and any(n < k for n, k in zip(spatial, kernel)):  # aten's check_input_size
        raise RuntimeError(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) smaller than kernel size "
                           f"(kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    out = tuple(_pool_out(n, k, p, s, d, ceil_mode) for n, k, p, s, d in zip(spatial, kernel, pad, stride, dil))
    if any(o < 1 for o in out):
        raise RuntimeError(
            f"Given input size: ({'x'.join(str(n) for n in a.shape[-4:])}). Calculated output size: "
            f"({a.shape[-4]}x{'x'.join(str(o) for o in out)}). Output size is too small")
    pairs = tuple((p, max(p, (o - 1) * s + d * (k - 1) + 1 - n - p))
                  for n, k, p, s, d, o in zip(spatial, kernel, pad, stride, dil, out))
    return kernel, stride, pairs, dil, out


def _flat_positions(out, stride, pad, dilation, offs, spatial):
    """The flat (D * H * W) input position each window reads at kernel offset ``offs`` (broadcast over out)."""
    flat = 0
    for axis, (o, s, (lo, _), d, k, n) in enumerate(zip(out, stride, pad, dilation, offs, spatial)):
        shape = [1] * len(out)
        shape[axis] = o
        pos = (xp.arange(o) * s - lo + k * d).reshape(shape)
        flat = flat * n + pos
    return flat


# ------------------------------------------------------------------ max pooling


def _max_pool3d_arrays(a, kernel, stride, pad, dilation, out):
    """Max over each window and its flat index, as aten's CPU kernel picks them: a window starts at its first
    in-bounds element, then takes an element greater than the running max or NaN (first max wins ties)."""
    spatial = a.shape[-3:]
    low = -xp.inf if a.dtype.kind in FLOATING_KINDS else xp.iinfo(a.dtype).min
    lead = (slice(None),) * (a.ndim - 3)
    ap = xp.pad(a, ((0, 0),) * len(lead) + pad, constant_values=low)
    first = []  # the first in-bounds offset of each window along each dim
    for o, s, (lo, _), d in zip(out, stride, pad, dilation):
        start = xp.arange(o) * s - lo
        first.append(xp.where(start < 0, (-start + d - 1) // d, 0))
    shape = a.shape[:-3] + tuple(out)
    best = xp.full(shape, low, dtype=a.dtype)
    idx = xp.empty(shape, dtype=xp.int64)
    idx[...] = _flat_positions(out, stride, pad, dilation, (0, 0, 0), spatial) + sum(
        f.reshape([-1 if i == axis else 1 for i in range(3)]) * d * m
        for axis, (f, d, m) in enumerate(zip(first, dilation, (spatial[1] * spatial[2], spatial[2], 1))))
    for offs in itertools.product(*(range(k) for k in kernel)):
        v = ap[lead + _offset_slices(offs, stride, dilation, out)]
        take = v > best
        if a.dtype.kind in FLOATING_KINDS:
            take |= xp.isnan(v)
        xp.copyto(best, v, where=take)
        xp.copyto(idx, xp.broadcast_to(_flat_positions(out, stride, pad, dilation, offs, spatial), shape), where=take)
    return best, idx


def _scatter_flat3d(g, idx, in_shape):
    """Sum g into zeros of ``in_shape`` at the flat (D * H * W) positions ``idx`` of each leading plane."""
    vol = in_shape[-3] * in_shape[-2] * in_shape[-1]
    planes = g.size // max(1, g.shape[-3] * g.shape[-2] * g.shape[-1]) if g.size else 0
    offs = (xp.arange(planes) * vol).reshape(g.shape[:-3] + (1, 1, 1))
    flat = (idx + offs).reshape(-1)
    weights = g.reshape(-1)
    outside = ((idx < 0) | (idx >= vol)).reshape(-1)  # a window wholly in the padding has no element
    if any_sample(outside):  # its gradient adds nothing: a zero at position 0 (no mask, so vmap batches it)
        flat, weights = xp.where(outside, 0, flat), xp.where(outside, 0, weights)
    out = xp.bincount(flat, weights=weights, minlength=planes * vol)
    return out.astype(g.dtype, copy=False).reshape(in_shape)


def _gather_flat3d(t: Tensor, idx, out_shape) -> Tensor:
    """t (.., D, H, W) read at the flat positions ``idx`` (.., od, oh, ow): a gather (differentiable)."""
    lead = t._data.shape[:-3]
    vol = int(xp.prod(t._data.shape[-3:]))
    flat = t.reshape(lead + (vol,))  # (sizes spelled out: -1 is ambiguous for empty batches)
    key = wrap(xp.clip(idx, 0, max(vol - 1, 0)).reshape(lead + (int(xp.prod(idx.shape[-3:])),)))
    return gather(flat, -1, key).reshape(tuple(out_shape))


@register
class MaxPool3DWithIndicesBackward0(Op):
    """max_pool3d_with_indices: (values, indices) over sliding 3-D windows; indices are flat positions in D*H*W.

    Backward (derivatives.yaml, max_pool3d_with_indices_backward): the gradient of each window goes to its
    argmax (summed where windows share it). Params: (kernel, stride, pad pairs, dilation, output size).
    """

    save_inputs = True

    @staticmethod
    def forward(a, kernel, stride, pad, dilation, out):
        return _max_pool3d_arrays(a, kernel, stride, pad, dilation, out)

    def backward(self, g, _gi=None):
        (x,) = self.saved()
        return (apply(MaxPool3DWithIndicesBackwardBackward0, (g,), (self._indices, x._data.shape)),)


@register
class MaxPool3DWithIndicesBackwardBackward0(Op):
    """max_pool3d_with_indices_backward(grad, indices): grad summed into zeros at the flat indices.

    Its own backward (derivatives.yaml): the gradient gathered at the indices (linear in grad).
    Also the backward of adaptive_max_pool3d.
    """

    @staticmethod
    def forward(g, idx, in_shape):
        return _scatter_flat3d(g, idx, in_shape)

    def backward(self, gg):
        idx, _ = self._params
        return (_gather_flat3d(gg, idx, idx.shape),)


def _with_indices(op, x, params, return_indices):
    values, indices = apply_multi(op, (x,), params)
    if values._grad_fn is not None:
        values._grad_fn._indices = indices._data
    return (values, indices) if return_indices else values


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """torch.nn.functional.max_pool3d: (N, C, D, H, W) or (C, D, H, W) -> the max of each window.

    With ``return_indices`` also the flat D * H * W position of each max (int64), as max_unpool3d takes them.
    """
    kernel, stride, pad, dil, out = _pool3d_setup(input, "max_pool3d", kernel_size, stride, padding, dilation,
                                                  ceil_mode)
    return _with_indices(MaxPool3DWithIndicesBackward0, input, (kernel, stride, pad, dil, out), return_indices)


# ------------------------------------------------------------------ average pooling


def _avg_divisor(spatial, kernel, stride, pad, out, count_include_pad, divisor_override, dtype):
    """aten's avg_pool3d divisor for each output position, an (od, oh, ow) array: the window clipped to the
    padded input (count_include_pad) or to the input itself, or ``divisor_override``."""
    if divisor_override:
        return xp.full(tuple(out), divisor_override, dtype=dtype)
    div = 1
    for axis, (n, k, s, (lo, _), o) in enumerate(zip(spatial, kernel, stride, pad, out)):
        start = xp.arange(o) * s - lo
        end = xp.minimum(start + k, n + lo)
        size = end - start if count_include_pad else xp.minimum(end, n) - xp.maximum(start, 0)
        shape = [1] * len(out)
        shape[axis] = o
        div = div * size.reshape(shape)
    return xp.asarray(div, dtype=dtype)


@register
class AvgPool3DBackward0(Op):
    """avg_pool3d: the sum of each window (zero padding) divided by aten's divisor (``_avg_divisor``).

    Backward (derivatives.yaml, avg_pool3d_backward): grad / divisor added back over each window
    (AvgPool3DBackwardBackward0). Params: (kernel, stride, pad pairs, output size, divisor array, input shape).
    """

    @staticmethod
    def forward(a, kernel, stride, pad, out, div, in_shape):
        lead = (slice(None),) * (a.ndim - 3)
        ap = xp.pad(a, ((0, 0),) * len(lead) + pad)
        total = xp.zeros(a.shape[:-3] + tuple(out), dtype=a.dtype)
        for offs in itertools.product(*(range(k) for k in kernel)):
            total += ap[lead + _offset_slices(offs, stride, (1, 1, 1), out)]
        if a.dtype.kind in "iu":  # aten divides integers and truncates
            return (total // div.astype(a.dtype)).astype(a.dtype)
        return total / div

    def backward(self, g):
        return (apply(AvgPool3DBackwardBackward0, (g,), self._params),)


@register
class AvgPool3DBackwardBackward0(Op):
    """avg_pool3d_backward(grad): grad / divisor summed back over each window; its backward is avg_pool3d."""

    @staticmethod
    def forward(g, kernel, stride, pad, out, div, in_shape):
        v = g / div
        cols = xp.broadcast_to(v.reshape(v.shape[:-3] + (1, 1, 1) + v.shape[-3:]), v.shape[:-3] + kernel + v.shape[-3:])
        return col2vol(cols, in_shape[-3:], kernel, stride, (1, 1, 1), pad)

    def backward(self, gg):
        return (apply(AvgPool3DBackward0, (gg,), self._params),)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    """torch.nn.functional.avg_pool3d: (N, C, D, H, W) or (C, D, H, W) -> the mean of each window."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, pad, _, out = _pool3d_setup(input, "avg_pool3d", kernel_size, stride, padding, 1, ceil_mode)
    a = input._data
    div = _avg_divisor(a.shape[-3:], kernel, stride, pad, out, count_include_pad, divisor_override,
                       a.dtype if a.dtype.kind in FLOATING_KINDS else xp.int64)
    return apply(AvgPool3DBackward0, (input,), (kernel, stride, pad, out, div, a.shape))


# ------------------------------------------------------------------ adaptive pooling


def _adaptive_bounds(size: int, out: int):
    """aten's adaptive windows: [floor(i * size / out), ceil((i + 1) * size / out)) for each output i."""
    i = xp.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _adaptive_size(a, output_size, name):
    if isinstance(output_size, (list, tuple)) and a.ndim <= len(output_size):  # torch's _list_with_default
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if a.ndim not in (4, 5):
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got {_shape_list(a.shape)}")
    out = tuple(output_size) if isinstance(output_size, (list, tuple)) else (output_size,) * 3
    if len(out) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3" if name == "adaptive_avg_pool3d"
                           else f"{name}(): internal error: output_size.size() must be 3")
    for i in range(1, a.ndim):
        if a.shape[i] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                f"{_shape_list(a.shape)} with dimension {i} being empty")
    out = tuple(a.shape[-3 + i] if out[i] is None else int(out[i]) for i in range(3))
    if any(o < 0 for o in out) and name == "adaptive_max_pool3d":  # aten allocates the output before checking
        bad = next(o for o in out if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {_shape_list(a.shape[:-3] + out)}")
    if any(o < 0 for o in out):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{out[0]}, {out[1]},{out[2]}}}")
    return out


def _mean_matrix(n: int, o: int, dtype):
    """The (o, n) matrix averaging each adaptive window of one axis (adaptive average pooling is separable)."""
    start, end = _adaptive_bounds(n, o)
    cols = xp.arange(n)
    inside = (cols[None, :] >= start[:, None]) & (cols[None, :] < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _along_axes(a, mats):
    """Apply one (out, in) matrix to each of the last len(mats) axes of ``a``."""
    for axis, m in zip(range(a.ndim - len(mats), a.ndim), mats):
        a = xp.moveaxis(xp.tensordot(a, m, axes=([axis], [1])), -1, axis)
    return a


@register
class AdaptiveAvgPool3DBackward0(Op):
    """adaptive_avg_pool3d: the mean of each adaptive window, as one averaging matrix per spatial axis.

    Backward: the transposed matrices (AdaptiveAvgPool3DBackwardBackward0, whose backward is this op again).
    Params: (per-axis (out, in) matrices, in the input's dtype).
    """

    @staticmethod
    def forward(a, mats):
        return _along_axes(a, mats).astype(a.dtype, copy=False)

    def backward(self, g):
        return (apply(AdaptiveAvgPool3DBackwardBackward0, (g,), self._params),)


@register
class AdaptiveAvgPool3DBackwardBackward0(Op):
    """adaptive_avg_pool3d_backward(grad): grad / volume spread over each window; its backward is the pooling."""

    @staticmethod
    def forward(g, mats):
        return _along_axes(g, tuple(m.T for m in mats)).astype(g.dtype, copy=False)

    def backward(self, gg):
        return (apply(AdaptiveAvgPool3DBackward0, (gg,), self._params),)


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """torch.nn.functional.adaptive_avg_pool3d: (N, C, D, H, W) or (C, D, H, W) -> (.., *output_size).

    Window i of an axis of size n is [floor(i n / o), ceil((i + 1) n / o)) (aten's). An output size of 1
    everywhere is a mean over the last three dims, as aten reduces it.
    """
    a = input._data
    out = _adaptive_size(a, output_size, "adaptive_avg_pool3d")
    if out == (1, 1, 1):
        return red.mean(input, (-1, -2, -3), keepdim=True)
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f"\"adaptive_avg_pool3d_cpu\" not implemented for '{_type_name(a)}'")
    mats = tuple(_mean_matrix(n, o, a.dtype) for n, o in zip(a.shape[-3:], out))
    return apply(AdaptiveAvgPool3DBackward0, (input,), (mats,))


@register
class AdaptiveMaxPool3DBackward0(Op):
    """adaptive_max_pool3d: (max, flat D * H * W index) over each adaptive window; backward routes grad to the
    index (MaxPool3DWithIndicesBackwardBackward0)."""

    save_inputs = True

    @staticmethod
    def forward(a, out):
        spatial = a.shape[-3:]
        bounds = [_adaptive_bounds(n, o) for n, o in zip(spatial, out)]
        low = -xp.inf if a.dtype.kind in FLOATING_KINDS else xp.iinfo(a.dtype).min
        shape = a.shape[:-3] + tuple(out)
        best = xp.full(shape, low, dtype=a.dtype)
        idx = xp.empty(shape, dtype=xp.int64)
        axes = [s.reshape([-1 if i == k else 1 for i in range(3)]) for k, (s, _) in enumerate(bounds)]
        idx[...] = (axes[0] * spatial[1] + axes[1]) * spatial[2] + axes[2]
        extents = [int((e - s).max()) for s, e in bounds]
        for offs in itertools.product(*(range(n) for n in extents)):
            pos, real = [], True
            for k, ((s, e), d) in enumerate(zip(bounds, offs)):
                p = xp.minimum(s + d, e - 1).reshape([-1 if i == k else 1 for i in range(3)])
                pos.append(p)
                real = real & (s + d < e).reshape([-1 if i == k else 1 for i in range(3)])
            v = a[(Ellipsis, pos[0], pos[1], pos[2])]
            take = v > best
            if a.dtype.kind in FLOATING_KINDS:  # past a window's end the last element repeats: a NaN there counts once
                take |= xp.isnan(v) & real
            xp.copyto(best, v, where=take)
            xp.copyto(idx, xp.broadcast_to((pos[0] * spatial[1] + pos[1]) * spatial[2] + pos[2], shape), where=take)
        return best, idx

    def backward(self, g, _gi=None):
        (x,) = self.saved()
        return (apply(MaxPool3DWithIndicesBackwardBackward0, (g,), (self._indices, x._data.shape)),)


def adaptive_max_pool3d(input, output_size, return_indices: bool = False):  # noqa: A002
    """torch.nn.functional.adaptive_max_pool3d: the max of each adaptive window (and its flat index)."""
    a = input._data
    out = _adaptive_size(a, output_size, "adaptive_max_pool3d")
    if a.dtype.kind == "c":
        raise NotImplementedError(f"\"adaptive_max_pool3d_cpu\" not implemented for '{_type_name(a)}'")
    return _with_indices(AdaptiveMaxPool3DBackward0, input, (out,), return_indices)


def _adaptive_1d_size(input, output_size, name):
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"{name}() Expected 2D or 3D input, but got {input._data.ndim}D")  # pragma: no cover
    out = _tuple(output_size, 1)
    if len(out) != 1:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got {len(out)})")
    return out[0]


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """torch.nn.functional.adaptive_avg_pool1d: (N, C, L) or (C, L); aten's unsqueeze, 2-D pooling, squeeze."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {_shape_list(input.shape)}")
    o = _adaptive_1d_size(input, output_size, "adaptive_avg_pool1d")
    if o < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{1, {o}}}")
    return sh.squeeze(adaptive_avg_pool2d(sh.unsqueeze(input, -2), (1, o)), -2)


def adaptive_max_pool1d(input, output_size, return_indices: bool = False):  # noqa: A002
    """torch.nn.functional.adaptive_max_pool1d: (N, C, L) or (C, L); aten's unsqueeze, 2-D pooling, squeeze."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got {_shape_list(input.shape)}")
    o = _adaptive_1d_size(input, output_size, "adaptive_max_pool1d")
    if o < 0:
        shape = list(input.shape[:-1]) + [o]
        raise RuntimeError(f"Trying to create tensor with negative dimension {o}: {[1] * (4 - len(shape)) + shape}")
    values, indices = adaptive_max_pool2d(sh.unsqueeze(input, -2), (1, o), return_indices=True)
    values, indices = sh.squeeze(values, -2), wrap(indices._data.squeeze(-2))
    return (values, indices) if return_indices else values


# ------------------------------------------------------------------ fractional max pooling


def _intervals(sample, n_in: int, n_out: int, pool: int):
    """aten's generate_intervals: the start of each of n_out windows of width ``pool`` in n_in, from one random
    sample u in [0, 1) per plane: int((i + u) * alpha) - int(u * alpha), alpha = (n_in - pool) / (n_out - 1); the
    last window ends at the input's end. ``sample`` is an array of planes' samples -> (planes, n_out) starts."""
    starts = xp.empty(sample.shape + (n_out,), dtype=xp.int64)
    if n_out > 1:
        alpha = (xp.asarray(n_in - pool, dtype=sample.dtype) / xp.asarray(n_out - 1, dtype=sample.dtype))
        i = xp.arange(n_out - 1, dtype=sample.dtype)
        starts[..., :-1] = ((i + sample[..., None]) * alpha).astype(xp.int64) - (sample * alpha).astype(xp.int64)[
            ..., None]
    if n_out > 0:
        starts[..., -1] = n_in - pool
    return starts


def _fractional_max_arrays(a, kernel, out, samples):
    """Max over each fractional window and its flat index, as aten's CPU kernel (first max wins, NaN taken).

    ``a`` (B, C, *S); samples (B, C, nsp), sample k belonging to axis k (2-D: aten's sample 0 is the width's,
    sample 1 the height's; 3-D: time, height, width)."""
    nsp = len(kernel)
    spatial = a.shape[2:]
    order = (1, 0) if nsp == 2 else (0, 1, 2)  # which sample drives which axis
    starts = [_intervals(samples[..., order[k]], spatial[k], out[k], kernel[k]) for k in range(nsp)]
    shape = a.shape[:2] + tuple(out)
    flat_a = a.reshape(a.shape[:2] + (int(xp.prod(spatial)),))
    low = -xp.inf if a.dtype.kind in FLOATING_KINDS else xp.iinfo(a.dtype).min
    best = xp.full(shape, low, dtype=a.dtype)
    idx = xp.zeros(shape, dtype=xp.int64)

    def positions(offs):
        flat = 0
        for k, (st, o) in enumerate(zip(starts, offs)):
            view = st.reshape(st.shape[:2] + tuple(st.shape[-1] if j == k else 1 for j in range(nsp)))
            flat = flat * spatial[k] + view + o
        return xp.broadcast_to(flat, shape)

    idx[...] = positions((0,) * nsp)
    for offs in itertools.product(*(range(k) for k in kernel)):
        pos = positions(offs)
        v = xp.take_along_axis(flat_a, pos.reshape(shape[:2] + (int(xp.prod(out)),)), axis=2).reshape(shape)
        take = v > best
        if a.dtype.kind in FLOATING_KINDS:
            take |= xp.isnan(v)
        xp.copyto(best, v, where=take)
        xp.copyto(idx, pos, where=take)
    return best, idx


class _FractionalMaxPool(Op):
    """fractional_max_pool{2,3}d(input, kernel_size, output_size, random_samples) (Graham, "Fractional
    Max-Pooling", 2014): windows of a fixed size at pseudo-random starts (aten's generate_intervals);
    (values, flat indices). Backward (derivatives.yaml): the gradient scattered to the indices.
    Params: (kernel, output size)."""

    save_inputs = True

    @staticmethod
    def forward(a, samples, kernel, out):
        nsp = len(kernel)
        batched = a.ndim == nsp + 2
        a4 = a if batched else a[None]
        values, idx = _fractional_max_arrays(a4, kernel, out, samples.reshape(a4.shape[:2] + (nsp,)))
        return (values, idx) if batched else (values[0], idx[0])

    def backward(self, g, _gi=None):
        x = self.saved()[0]
        if len(self._params[0]) == 2:
            from .pooling import MaxPool2DWithIndicesBackwardBackward0

            return apply(MaxPool2DWithIndicesBackwardBackward0, (g,), (self._indices, x._data.shape)), None
        return apply(MaxPool3DWithIndicesBackwardBackward0, (g,), (self._indices, x._data.shape)), None


@register
class FractionalMaxPool2DBackward0(_FractionalMaxPool):
    """fractional_max_pool2d: input (N, C, H, W) or (C, H, W), samples (N, C, 2); see _FractionalMaxPool."""


@register
class FractionalMaxPool3DBackward0(_FractionalMaxPool):
    """fractional_max_pool3d: input (N, C, D, H, W) or (C, D, H, W), samples (N, C, 3); see _FractionalMaxPool."""


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, samples, nsp):  # noqa: A002
    name = f"fractional_max_pool{nsp}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if nsp == 2 and isinstance(output_ratio, (list, tuple)) and len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * nsp
        output_size = [int(input.shape[-nsp + k] * ratio[k]) for k in range(nsp)]
    a = input._data
    if samples is None:
        from .._creation import rand

        samples = rand(1 if a.ndim == nsp + 1 else a.shape[0], a.shape[-nsp - 1], nsp, dtype=input.dtype)
    kernel = _tuple(kernel_size, nsp)
    out = _tuple(output_size, nsp)
    if a.ndim not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"{name}(): Expected {nsp + 1}D or {nsp + 2}D tensor, but got: {_shape_list(a.shape)}")
    names = ("height", "width") if nsp == 2 else ("time", "height", "width")
    for k in range(nsp):  # aten: out + pool - 1 <= in (2-D), < in (3-D)
        n = a.shape[-nsp + k]
        if out[k] + kernel[k] - 1 > n or (nsp == 3 and out[k] + kernel[k] - 1 == n):
            raise RuntimeError(f"{name}{'_out' if nsp == 3 else ''}(): pool {names[k]} {kernel[k]} too large relative to "
                               f"input {names[k]} {n}")
    if samples._requires_grad and is_grad_enabled():
        raise RuntimeError(f"The function '{name}' is not differentiable with respect to argument 'random_samples'. "
                           "This input cannot have requires_grad True.")
    op = FractionalMaxPool2DBackward0 if nsp == 2 else FractionalMaxPool3DBackward0
    values, indices = apply_multi(op, (input, samples), (kernel, out))
    if values._grad_fn is not None:
        values._grad_fn._indices = indices._data
    return (values, indices) if return_indices else values


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,  # noqa: A002
                          _random_samples=None):
    """torch.nn.functional.fractional_max_pool2d: max over kernel_size windows at pseudo-random starts, the starts
    drawn from ``_random_samples`` (N, C, 2) in [0, 1) (torch.rand when None); output_size or output_ratio."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,  # noqa: A002
                          _random_samples=None):
    """torch.nn.functional.fractional_max_pool3d: as fractional_max_pool2d on (N, C, D, H, W), samples (N, C, 3)."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices, _random_samples, 3)


# ------------------------------------------------------------------ registration
EXPORTS: dict = {
    "max_pool3d": lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False: max_pool3d(  # noqa: A006
        input, kernel_size, stride or None, padding, dilation, ceil_mode),
    "adaptive_avg_pool1d": adaptive_avg_pool1d,
    "adaptive_max_pool1d": lambda input, output_size: adaptive_max_pool1d(input, output_size, True),  # noqa: A006
}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}
FUNCTIONAL_EXPORTS: dict = {
    "max_pool3d": max_pool3d,
    "max_pool3d_with_indices": lambda *a, **k: max_pool3d(*a, **{**k, "return_indices": True}),
    "avg_pool3d": avg_pool3d,
    "adaptive_avg_pool1d": adaptive_avg_pool1d,
    "adaptive_avg_pool3d": adaptive_avg_pool3d,
    "adaptive_max_pool1d": adaptive_max_pool1d,
    "adaptive_max_pool3d": adaptive_max_pool3d,
    "adaptive_max_pool1d_with_indices": lambda input, output_size, return_indices=True: adaptive_max_pool1d(  # noqa: A006
        input, output_size, True),
    "fractional_max_pool2d": fractional_max_pool2d,
    "fractional_max_pool3d": fractional_max_pool3d,
    "fractional_max_pool2d_with_indices": lambda *a, **k: fractional_max_pool2d(*a, **{**k, "return_indices": True}),
    "fractional_max_pool3d_with_indices": lambda *a, **k: fractional_max_pool3d(*a, **{**k, "return_indices": True}),
    "adaptive_max_pool3d_with_indices": lambda input, output_size, return_indices=True: adaptive_max_pool3d(  # noqa: A006
        input, output_size, True),
}
