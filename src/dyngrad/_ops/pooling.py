"""Pooling: max / avg pooling in 1-D and 2-D and adaptive avg / max pooling (aten/src/ATen/native
DilatedMaxPool2d.cpp, AveragePool2d.cpp, AdaptiveAveragePooling.cpp, AdaptiveMaxPooling2d.cpp).

The windows are read through one strided view per kernel offset (the sliding-window helpers of conv.py);
no Python loop runs over pixels, channels or batch entries.
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_KINDS
from .._tensor import Tensor, _wrap_dim, wrap
from ..autograd.grad_mode import is_grad_enabled
from . import reduction as red
from . import shape as sh
from .conv import _pad_array, _tuple
from .nn_kernels import _shape_list, _type_name
from .registry import Op, apply, apply_multi, register

# ------------------------------------------------------------------ pooling


def _pool_out(size: int, k: int, pad: int, s: int, d: int, ceil_mode: bool) -> int:
    """aten's pooling_output_shape, with its checks."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * d + 1) // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} and dilation={d}"
        )
    out = (size + 2 * pad - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + pad:
        out -= 1
    return out


def _pool_tuple(v, n: int) -> tuple:
    """A pooling size: an int or a one-element sequence stands for all ``n`` dims (aten's pooling argument checks
    accept ``(k,)`` as ``k``)."""
    t = _tuple(v, n)
    return t * n if len(t) == 1 else t


def _pool_setup(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode):
    """Normalise pooling arguments and run aten's shape checks; returns (kernel, stride, pad4, dilation, out_hw)."""
    kernel = _pool_tuple(kernel_size, 2)
    stride = kernel if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _pool_tuple(stride, 2)
    pad, dil = _pool_tuple(padding, 2), _pool_tuple(dilation, 2)
    a = x._data
    h, w = a.shape[-2:]
    oh = _pool_out(h, kernel[0], pad[0], stride[0], dil[0], ceil_mode)
    ow = _pool_out(w, kernel[1], pad[1], stride[1], dil[1], ceil_mode)
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if stride[0] <= 0 or stride[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if dil[0] <= 0 or dil[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dil[0]} dilationW: {dil[1]}")
    if any(n == 0 for n in a.shape[-3:]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{_shape_list(a.shape)}"
        )
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input size: ({a.shape[-3]}x{h}x{w}). Calculated output size: ({a.shape[-3]}x{oh}x{ow}). "
            "Output size is too small"
        )
    # the far side may need more padding than ``pad`` for the last window of ceil_mode
    pb = max(pad[0], (oh - 1) * stride[0] + dil[0] * (kernel[0] - 1) + 1 - h - pad[0])
    pr = max(pad[1], (ow - 1) * stride[1] + dil[1] * (kernel[1] - 1) + 1 - w - pad[1])
    return kernel, stride, (pad[0], pb, pad[1], pr), dil, (oh, ow)


def _check_not_complex(x: Tensor, kernel: str) -> None:
    """torch's pooling kernels take real (and, for max pooling, integer) dtypes only."""
    if x._data.dtype.kind == "c":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(x._data)}'")


def _offsets(kernel, stride, dilation, out_hw):
    """For each kernel offset (i, j): the strided slices of the padded input it reads."""
    (sh_, sw), (dh, dw), (oh, ow) = stride, dilation, out_hw
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            yield i, j, (slice(i * dh, i * dh + (oh - 1) * sh_ + 1, sh_), slice(j * dw, j * dw + (ow - 1) * sw + 1, sw))


def _max_pool_arrays(a, kernel, stride, pad, dilation, out_hw):
    """Max over each window and its flat index into H * W, as aten's CPU kernel picks them.

    aten starts each window at its first in-bounds element with value -inf, then takes an element
    when it is greater than the running max or NaN: the first maximum wins ties, the last NaN wins.
    """
    h, w = a.shape[-2:]
    oh, ow = out_hw
    low = -xp.inf if a.dtype.kind in FLOATING_KINDS else xp.iinfo(a.dtype).min
    ap = _pad_array(a, pad, low)
    rows = xp.arange(oh)[:, None] * stride[0] - pad[0]
    cols = xp.arange(ow)[None, :] * stride[1] - pad[2]
    first_r = xp.where(rows < 0, rows + (-rows + dilation[0] - 1) // dilation[0] * dilation[0], rows)
    first_c = xp.where(cols < 0, cols + (-cols + dilation[1] - 1) // dilation[1] * dilation[1], cols)
    shape = a.shape[:-2] + (oh, ow)
    best = xp.full(shape, low, dtype=a.dtype)
    idx = xp.empty(shape, dtype=xp.int64)
    idx[...] = first_r * w + first_c
    for i, j, (rs, cs) in _offsets(kernel, stride, dilation, out_hw):
        v = ap[..., rs, cs]
        take = v > best
        if a.dtype.kind in FLOATING_KINDS:
            take |= xp.isnan(v)
        xp.copyto(best, v, where=take)
        xp.copyto(idx, (rows + i * dilation[0]) * w + cols + j * dilation[1], where=take)
    return best, idx


def _scatter_flat(g, idx, in_shape):
    """Sum g into zeros of ``in_shape`` at the flat (H * W) positions ``idx`` of each (n, c) plane."""
    hw = in_shape[-2] * in_shape[-1]
    planes = 1
    for n in in_shape[:-2]:
        planes *= n
    offs = (xp.arange(planes) * hw).reshape(g.shape[:-2] + (1, 1))
    flat = (idx + offs).reshape(-1)
    weights = g.reshape(-1)
    inside = (idx >= 0) & (idx < hw)  # a window wholly in the padding has no element (aten: undefined)
    if not inside.all():
        flat, weights = flat[inside.reshape(-1)], weights[inside.reshape(-1)]
    out = xp.bincount(flat, weights=weights, minlength=planes * hw)
    return out.astype(g.dtype, copy=False).reshape(in_shape)


@register
class MaxPool2DWithIndicesBackward0(Op):
    """max_pool2d_with_indices: (values, indices) over sliding windows; indices are flat positions in H * W.

    Backward (derivatives.yaml, max_pool2d_with_indices_backward): the gradient of each window goes to its
    argmax (summed where windows share it). Params: (kernel, stride, pad (t, b, l, r), dilation, out size).
    """

    save_inputs = True

    @staticmethod
    def forward(a, kernel, stride, pad, dilation, out_hw):
        return _max_pool_arrays(a, kernel, stride, pad, dilation, out_hw)

    def backward(self, g, _gi=None):
        (x,) = self.saved()
        return (apply(MaxPool2DWithIndicesBackwardBackward0, (g,), (self._indices, x._data.shape)),)


@register
class MaxPool2DWithIndicesBackwardBackward0(Op):
    """max_pool2d_with_indices_backward(grad, indices): grad summed into zeros at the indices.

    Its own backward (derivatives.yaml): the gradient gathered at the indices (linear in grad).
    """

    @staticmethod
    def forward(g, idx, in_shape):
        return _scatter_flat(g, idx, in_shape)

    def backward(self, gg):
        idx, in_shape = self._params
        flat_shape = in_shape[:-2] + (in_shape[-2] * in_shape[-1],)
        picked = gg.reshape(flat_shape)[_gather_key(idx, flat_shape)]
        return (picked,)


def _gather_key(idx, flat_shape):
    """The advanced-indexing key picking flat positions ``idx`` (.., oh, ow) from a (.., H * W) array."""
    lead = idx.shape[:-2]
    key = []
    for d, n in enumerate(lead):
        shape = [1] * idx.ndim
        shape[d] = n
        key.append(xp.arange(n).reshape(shape))
    key.append(xp.clip(idx, 0, flat_shape[-1] - 1))
    return tuple(key)


def _max_pool2d(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    if x._data.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    kernel, stride, pad, dil, out_hw = _pool_setup(x, kernel_size, stride, padding, dilation, ceil_mode)
    _check_not_complex(x, "max_pool2d")
    values, indices = apply_multi(MaxPool2DWithIndicesBackward0, (x,), (kernel, stride, pad, dil, out_hw))
    if values._grad_fn is not None:
        values._grad_fn._indices = indices._data
    return (values, indices) if return_indices else values


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    return _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _pool1d_args(kernel_size, stride, padding, dilation):
    one = lambda v: (1, _tuple(v, 1)[0])  # noqa: E731
    return one(kernel_size), (None if stride is None or stride == [] else one(stride)), (0, _tuple(padding, 1)[0]), \
        one(dilation)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """aten's max_pool1d_with_indices: unsqueeze(-2), max_pool2d with a height-1 kernel, squeeze(-2)."""
    shape = input._data.shape
    if not return_indices and not (len(shape) in (2, 3) and all(shape[-2:])):  # aten's max_pool1d (no indices)
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{_shape_list(shape)}")
    if len(shape) not in (2, 3):  # max_pool1d_with_indices' checkDimRange
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {len(shape)}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for max_pool1d)")
    k, s, p, d = _pool1d_args(kernel_size, stride, padding, dilation)
    if not return_indices:  # aten's max_pool1d checks first; max_pool1d_with_indices goes straight to 2-D
        _check_max_pool1d(input, k, s or k, p, d, ceil_mode)
        if not (input._requires_grad and is_grad_enabled()):  # (else aten takes max_pool1d_with_indices)
            _check_not_complex(input, "max_pool1d_impl")
    out = _max_pool2d(sh.unsqueeze(input, -2), k, s, p, d, ceil_mode, True)
    values, indices = sh.squeeze(out[0], -2), wrap(out[1]._data.squeeze(-2))
    return (values, indices) if return_indices else values


def _check_max_pool1d(input, k, s, p, d, ceil_mode):  # noqa: A002
    if k[1] <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k[1]}")
    if s[1] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s[1]}")
    if p[1] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p[1]}")
    if p[1] > k[1] // 2:
        raise RuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={p[1]} and kernel_size={k[1]}"
        )
    if d[1] <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d[1]}")
    ow = _pool_out(input._data.shape[-1], k[1], p[1], s[1], d[1], ceil_mode)
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")


def _avg_divisor(in_hw, kernel, stride, pad, out_hw, count_include_pad, divisor_override, dtype):
    """aten's avg_pool2d divisor for every output position, as an (oh, ow) array."""
    if divisor_override:
        return xp.asarray(divisor_override, dtype=dtype)
    sizes = []
    for axis in range(2):
        start = xp.arange(out_hw[axis]) * stride[axis] - pad[2 * axis]
        end = xp.minimum(start + kernel[axis], in_hw[axis] + pad[2 * axis])
        full = end - start
        start, end = xp.maximum(start, 0), xp.minimum(end, in_hw[axis])
        sizes.append(full if count_include_pad else end - start)
    return (sizes[0][:, None] * sizes[1][None, :]).astype(dtype)


@register
class AvgPool2DBackward0(Op):
    """avg_pool2d: the sum of each window (zero padding) divided by aten's divisor.

    Backward (avg_pool2d_backward): each output's grad / divisor spread over its window. Params:
    (kernel, stride, pad (t, b, l, r) with symmetric ``padding`` in pad[0], pad[2], out size, divisor).
    """

    @staticmethod
    def forward(a, kernel, stride, pad, out_hw, divisor):
        ap = _pad_array(a, pad)
        out = None
        for _, _, (rs, cs) in _offsets(kernel, stride, (1, 1), out_hw):
            v = ap[..., rs, cs]
            out = v.copy() if out is None else xp.add(out, v, out=out)
        if out.dtype.kind not in FLOATING_KINDS:
            return (out / divisor).astype(a.dtype)  # aten's integer division truncates toward zero
        out /= divisor
        return out

    def backward(self, g):
        return (apply(AvgPool2DBackwardBackward0, (g,), self._params + (self._in_shape,)),)

    def backward_arrays(self, g):
        return (wrap(AvgPool2DBackwardBackward0.forward(g, *self._params, self._in_shape)),)


@register
class AvgPool2DBackwardBackward0(Op):
    """avg_pool2d_backward(grad): grad / divisor summed back over each window; its backward is avg_pool2d again."""

    @staticmethod
    def forward(g, kernel, stride, pad, out_hw, divisor, in_shape):
        gd = g / divisor
        h, w = in_shape[-2:]
        out = xp.zeros(in_shape[:-2] + (h + pad[0] + pad[1], w + pad[2] + pad[3]), dtype=g.dtype)
        for _, _, (rs, cs) in _offsets(kernel, stride, (1, 1), out_hw):
            out[..., rs, cs] += gd
        return out[..., pad[0] : pad[0] + h, pad[2] : pad[2] + w]

    def backward(self, gg):
        params = self._params[:-1]
        node_out = apply(AvgPool2DBackward0, (gg,), params)
        if node_out._grad_fn is not None:
            node_out._grad_fn._in_shape = gg._data.shape
        return (node_out,)


def _avg_pool2d(x: Tensor, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    a = x._data
    if a.ndim not in (3, 4):
        if a.ndim < 3:
            _wrap_dim(-3, a.ndim)
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{_shape_list(a.shape)}"
        )
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, pad, _, out_hw = _pool_setup(x, kernel_size, stride, padding, 1, ceil_mode)
    _check_not_complex(x, "avg_pool2d")
    divisor = _avg_divisor(a.shape[-2:], kernel, stride, pad, out_hw, count_include_pad, divisor_override,
                           a.dtype if a.dtype.kind in FLOATING_KINDS else xp.int64)
    out = apply(AvgPool2DBackward0, (x,), (kernel, stride, pad, out_hw, divisor))
    if out._grad_fn is not None:
        out._grad_fn._in_shape = a.shape
    return out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    return _avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):  # noqa: A002
    """aten's avg_pool1d: unsqueeze(-2), avg_pool2d with a height-1 kernel, squeeze(-2)."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got {_shape_list(input._data.shape)}")
    k, s, p, _ = _pool1d_args(kernel_size, stride, padding, 1)
    out = _avg_pool2d(sh.unsqueeze(input, -2), k, s, p, ceil_mode, count_include_pad, None)
    return sh.squeeze(out, -2)


# ------------------------------------------------------------------ adaptive pooling


def _adaptive_bounds(size: int, out: int):
    """aten's adaptive windows: [floor(i * size / out), ceil((i + 1) * size / out)) for each output i."""
    i = xp.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _adaptive_output_size(a, output_size, name):
    if isinstance(output_size, (list, tuple)) and a.ndim <= len(output_size):  # torch's _list_with_default
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if a.ndim not in (3, 4):
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got {_shape_list(a.shape)}")
    out = _tuple(output_size, 2) if not isinstance(output_size, (list, tuple)) else tuple(output_size)
    if len(out) != 2:
        raise RuntimeError(f"{name}: output_size must be 2" if name == "adaptive_avg_pool2d"
                           else f"{name}(): internal error: output_size.size() must be 2")
    out = tuple(a.shape[-2 + i] if out[i] is None else int(out[i]) for i in range(2))
    if any(o < 0 for o in out):
        if name == "adaptive_avg_pool2d":
            raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                               f"received {{{out[0]}, {out[1]}}}")
        neg = next(o for o in out if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: {list(a.shape[:-2]) + list(out)}")
    return out


@register
class AdaptiveAvgPool2DBackward0(Op):
    """adaptive_avg_pool2d: the mean of each adaptive window, from a summed-area table (no loop over cells).

    Backward: each output's grad / window area spread over its window, through a 2-D difference
    array and two cumulative sums. Params: (output size, input shape).
    """

    @staticmethod
    def forward(a, out_hw, in_shape):
        (sh_, eh), (sw, ew) = (_adaptive_bounds(in_shape[-2], out_hw[0]), _adaptive_bounds(in_shape[-1], out_hw[1]))
        acc = xp.float64 if a.dtype != xp.float64 else a.dtype
        table = xp.zeros(a.shape[:-2] + (a.shape[-2] + 1, a.shape[-1] + 1), dtype=acc)
        table[..., 1:, 1:] = a.astype(acc).cumsum(-2).cumsum(-1)
        r0, r1, c0, c1 = sh_[:, None], eh[:, None], sw[None, :], ew[None, :]
        total = table[..., r1, c1] - table[..., r0, c1] - table[..., r1, c0] + table[..., r0, c0]
        return (total / ((r1 - r0) * (c1 - c0))).astype(a.dtype)

    def backward(self, g):
        return (apply(AdaptiveAvgPool2DBackwardBackward0, (g,), self._params),)

    def backward_arrays(self, g):
        return (wrap(AdaptiveAvgPool2DBackwardBackward0.forward(g, *self._params)),)


@register
class AdaptiveAvgPool2DBackwardBackward0(Op):
    """adaptive_avg_pool2d_backward(grad): grad / area over each window; its backward is the pooling again."""

    @staticmethod
    def forward(g, out_hw, in_shape):
        h, w = in_shape[-2:]
        (sh_, eh), (sw, ew) = _adaptive_bounds(h, out_hw[0]), _adaptive_bounds(w, out_hw[1])
        acc = xp.float64 if g.dtype != xp.float64 else g.dtype
        v = g.astype(acc) / ((eh - sh_)[:, None] * (ew - sw)[None, :])
        diff = xp.zeros(g.shape[:-2] + (h + 1, w + 1), dtype=acc)
        lead = (slice(None),) * (g.ndim - 2)
        r0, r1, c0, c1 = sh_[:, None], eh[:, None], sw[None, :], ew[None, :]
        for rows, cols, sign in ((r0, c0, 1), (r0, c1, -1), (r1, c0, -1), (r1, c1, 1)):
            xp.add.at(diff, lead + (xp.broadcast_to(rows, v.shape[-2:]), xp.broadcast_to(cols, v.shape[-2:])),
                      v if sign > 0 else -v)
        return diff.cumsum(-2).cumsum(-1)[..., :h, :w].astype(g.dtype)

    def backward(self, gg):
        return (apply(AdaptiveAvgPool2DBackward0, (gg,), self._params),)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    a = input._data
    out_hw = _adaptive_output_size(a, output_size, "adaptive_avg_pool2d")
    if out_hw == (1, 1):  # aten reduces to a mean over the last two dims (complex too)
        return red.mean(input, (-1, -2), keepdim=True)
    _check_not_complex(input, "adaptive_avg_pool2d")
    return apply(AdaptiveAvgPool2DBackward0, (input,), (out_hw, a.shape))


@register
class AdaptiveMaxPool2DBackward0(Op):
    """adaptive_max_pool2d: (max, flat index) over each adaptive window; backward routes grad to the index."""

    save_inputs = True

    @staticmethod
    def forward(a, out_hw):
        h, w = a.shape[-2:]
        (sh_, eh), (sw, ew) = _adaptive_bounds(h, out_hw[0]), _adaptive_bounds(w, out_hw[1])
        low = -xp.inf if a.dtype.kind in FLOATING_KINDS else xp.iinfo(a.dtype).min
        shape = a.shape[:-2] + tuple(out_hw)
        best = xp.full(shape, low, dtype=a.dtype)
        idx = xp.empty(shape, dtype=xp.int64)
        idx[...] = sh_[:, None] * w + sw[None, :]
        for di in range(int((eh - sh_).max())):
            rows = xp.minimum(sh_ + di, eh - 1)[:, None]  # past the window: repeat its last row (never taken again)
            for dj in range(int((ew - sw).max())):
                cols = xp.minimum(sw + dj, ew - 1)[None, :]
                v = a[..., rows, cols]
                take = v > best
                if a.dtype.kind in FLOATING_KINDS:
                    take |= xp.isnan(v) & ((rows == sh_[:, None] + di) & (cols == sw[None, :] + dj))
                xp.copyto(best, v, where=take)
                xp.copyto(idx, xp.broadcast_to(rows * w + cols, shape), where=take)
        return best, idx

    def backward(self, g, _gi=None):
        (x,) = self.saved()
        return (apply(MaxPool2DWithIndicesBackwardBackward0, (g,), (self._indices, x._data.shape)),)


def adaptive_max_pool2d(input, output_size, return_indices: bool = False):  # noqa: A002
    a = input._data
    out_hw = _adaptive_output_size(a, output_size, "adaptive_max_pool2d")
    _check_not_complex(input, "adaptive_max_pool2d")
    values, indices = apply_multi(AdaptiveMaxPool2DBackward0, (input,), (out_hw,))
    if values._grad_fn is not None:
        values._grad_fn._indices = indices._data
    return (values, indices) if return_indices else values


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.nn.functional; __init__.py, _tensor_methods.py and nn/functional.py merge these.
EXPORTS: dict = {
    "max_pool1d": lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False: max_pool1d(  # noqa: A006
        input, kernel_size, stride or None, padding, dilation, ceil_mode),
    "max_pool2d": lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False: max_pool2d(  # noqa: A006
        input, kernel_size, stride or None, padding, dilation, ceil_mode),
    "avg_pool1d": avg_pool1d,
}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {  # dyngrad.nn.functional.<name>
    "adaptive_avg_pool2d": adaptive_avg_pool2d,
    "adaptive_max_pool2d": adaptive_max_pool2d,
    "max_pool1d": max_pool1d,
    "max_pool2d": max_pool2d,
    "avg_pool1d": avg_pool1d,
    "avg_pool2d": avg_pool2d,
}
