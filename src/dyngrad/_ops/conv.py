"""Convolution (conv1d / conv2d and their transposes) and unfold / fold (aten/src/ATen/native/Convolution.cpp,
Im2Col.cpp, Col2Im.cpp).

Convolution gathers the sliding windows of the padded input into columns (``im2col``:
one strided block copy per kernel offset, faster than copying numpy's
``sliding_window_view``) and contracts them with the weight in one BLAS matrix
product; the backward adds columns back with one strided add per kernel offset
(``_col2im``). No Python loop runs over pixels, channels or batch entries.
"""

from __future__ import annotations

import warnings

from .._backend import scratch, xp
from .._tensor import Tensor, wrap
from ..autograd.forward_ad import STATE as _fw
from ..autograd.grad_mode import is_grad_enabled
from . import autocast_policy, convnd
from . import matmul as _products
from . import reduction as red
from . import shape as sh
from .matmul import _C_TYPE_NAMES
from .nn_kernels import _shape_list, _type_name
from .registry import Op, apply, register

# ------------------------------------------------------------------ sliding windows (convolution, pooling)
# Spatial ops work on (N, C, H, W) arrays; 1-D ops run as 2-D with H = 1. ``pad`` is
# (top, bottom, left, right), so padding='same' with an even kernel can be asymmetric.


def _tuple(v, n: int) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(int(i) for i in v)
    return (int(v),) * n


def _out_size(size: int, k: int, s: int, d: int, lo: int, hi: int) -> int:
    return (size + lo + hi - d * (k - 1) - 1) // s + 1


def _pad_array(a, pad, value=0):
    if not any(pad):
        return a
    pt, pb, pl, pr = pad
    return xp.pad(a, ((0, 0),) * (a.ndim - 2) + ((pt, pb), (pl, pr)), constant_values=value)


def _col2im(cols, hw, kernel, stride, dilation, pad):
    """Sum windows back into an image: ``cols`` (N, C, kh, kw, oh, ow) -> (N, C, H, W).

    The inverse (adjoint) of ``windows``: one strided add per kernel offset (kh * kw adds).
    """
    n, c, kh, kw, oh, ow = cols.shape
    (sh_, sw), (dh, dw) = stride, dilation
    pt, pb, pl, pr = pad
    out = xp.zeros((n, c, hw[0] + pt + pb, hw[1] + pl + pr), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh : i * dh + (oh - 1) * sh_ + 1 : sh_, j * dw : j * dw + (ow - 1) * sw + 1 : sw] += cols[:, :, i, j]
    return out[:, :, pt : pt + hw[0], pl : pl + hw[1]]


def _unfold_array(a, kernel, dilation, pad, stride):
    cols = im2col(a, kernel, stride, dilation, pad)
    n, c, kh, kw, oh, ow = cols.shape
    return cols.reshape(n, c * kh * kw, oh * ow), (oh, ow)


@register
class Im2ColBackward0(Op):
    """unfold / im2col: (N, C, H, W) -> (N, C * kh * kw, L), each column one sliding window.

    Backward: col2im (fold) of the gradient, the adjoint of taking windows. Also the
    differentiable building block of convolution's recorded backward.
    Params: (kernel, dilation, pad (t, b, l, r), stride, input (H, W)).
    """

    @staticmethod
    def forward(a, kernel, dilation, pad, stride, hw):
        return _unfold_array(a, kernel, dilation, pad, stride)[0]

    def backward(self, g):
        kernel, dilation, pad, stride, hw = self._params
        return (_fold(g, hw, kernel, dilation, pad, stride),)


@register
class Col2ImBackward0(Op):
    """fold / col2im: (N, C * kh * kw, L) -> (N, C, H, W), overlapping windows summed.

    Backward: im2col (unfold) of the gradient. Params as Im2ColBackward0's, ``hw`` the output size.
    """

    @staticmethod
    def forward(cols, kernel, dilation, pad, stride, hw):
        n, ck, _ = cols.shape
        kh, kw = kernel
        oh = _out_size(hw[0], kh, stride[0], dilation[0], pad[0], pad[1])
        ow = _out_size(hw[1], kw, stride[1], dilation[1], pad[2], pad[3])
        c6 = cols.reshape(n, ck // (kh * kw), kh, kw, oh, ow)
        return _col2im(c6, hw, kernel, stride, dilation, pad)

    def backward(self, g):
        kernel, dilation, pad, stride, hw = self._params
        return (_unfold(g, kernel, dilation, pad, stride),)


def _unfold(a: Tensor, kernel, dilation, pad, stride) -> Tensor:
    return apply(Im2ColBackward0, (a,), (kernel, dilation, pad, stride, a._data.shape[2:]))


def _fold(cols: Tensor, hw, kernel, dilation, pad, stride) -> Tensor:
    return apply(Col2ImBackward0, (cols,), (kernel, dilation, pad, stride, tuple(hw)))


def _sym_pad(padding) -> tuple:
    ph, pw_ = padding
    return (ph, ph, pw_, pw_)


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:  # noqa: A002
    """torch.nn.functional.unfold: sliding local blocks of a (N, C, H, W) or (C, H, W) input."""
    if input._data.ndim not in (3, 4):
        raise NotImplementedError(
            f"Input Error: Only 3D or 4D input Tensors are supported (got {input._data.ndim}D)"
        )
    batched = input._data.ndim == 4
    x = input if batched else sh.unsqueeze(input, 0)
    out = _unfold(x, _tuple(kernel_size, 2), _tuple(dilation, 2), _sym_pad(_tuple(padding, 2)), _tuple(stride, 2))
    return out if batched else sh.squeeze(out, 0)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:  # noqa: A002
    """torch.nn.functional.fold: sum sliding blocks (N, C * kh * kw, L) back into (N, C, H, W)."""
    if input._data.ndim not in (2, 3):
        raise NotImplementedError(
            f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got {input._data.ndim}D)"
        )
    batched = input._data.ndim == 3
    x = input if batched else sh.unsqueeze(input, 0)
    hw, k, d, p, st = (_tuple(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    ck, L = x._data.shape[1:]
    if ck % (k[0] * k[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={ck} and kernel_size={k}."
        )
    blocks = [_out_size(hw[i], k[i], st[i], d[i], p[i], p[i]) for i in range(2)]
    if blocks[0] * blocks[1] != L:
        raise RuntimeError(
            f"Given output_size={hw}, kernel_size={k}, dilation={d}, padding={p}, stride={st}, expected size of "
            f"input's dimension {2 if batched else 1} to match the calculated number of sliding blocks {blocks[0]} * "
            f"{blocks[1]} = {blocks[0] * blocks[1]}, but got input.size({2 if batched else 1})={L}."
        )
    out = _fold(x, hw, k, d, _sym_pad(p), st)
    return out if batched else sh.squeeze(out, 0)


# ------------------------------------------------------------------ convolution


def im2col(a, kernel, stride, dilation, pad, channels_first=False):
    """The sliding windows of ``a`` (N, C, H, W) padded by ``pad``, as a contiguous array.

    Layout (N, C, kh, kw, oh, ow), or (C, kh, kw, N, oh, ow) with ``channels_first`` (what convolution
    uses: then a whole batch is one BLAS matrix product). Built with one strided copy per kernel offset
    (kh * kw copies of (N, C, oh, ow) blocks), which NumPy does far faster than copying the 6-D
    strided view of ``windows``.
    """
    n, c, h, w = a.shape
    (kh, kw), (sh_, sw), (dh, dw) = kernel, stride, dilation
    oh = _out_size(h, kh, sh_, dh, pad[0], pad[1])
    ow = _out_size(w, kw, sw, dw, pad[2], pad[3])
    ap = _padded_scratch(a, pad)  # read only here: a pooled buffer (Note [Scratch buffers])
    if channels_first:
        ap = ap.transpose(1, 0, 2, 3)
        cols = xp.empty((c, kh, kw, n, oh, ow), dtype=a.dtype)
    else:
        cols = xp.empty((n, c, kh, kw, oh, ow), dtype=a.dtype)
    for i in range(kh):
        for j in range(kw):
            block = ap[:, :, i * dh : i * dh + (oh - 1) * sh_ + 1 : sh_, j * dw : j * dw + (ow - 1) * sw + 1 : sw]
            if channels_first:
                cols[:, i, j] = block
            else:
                cols[:, :, i, j] = block
    return cols


def _padded_scratch(a, pad):
    """``a`` (N, C, H, W) zero-padded by ``pad`` (t, b, l, r), in the scratch buffer "im2col_pad"."""
    if not any(pad):
        return a
    n, c, h, w = a.shape
    pt, pb, pl, pr = pad
    ap = scratch("im2col_pad", (n, c, h + pt + pb, w + pl + pr), a.dtype)
    # zero only the border (the interior is overwritten next)
    ap[:, :, :pt] = 0
    ap[:, :, pt + h :] = 0
    ap[:, :, pt : pt + h, :pl] = 0
    ap[:, :, pt : pt + h, pl + w :] = 0
    ap[:, :, pt : pt + h, pl : pl + w] = a
    return ap


def _col2im_cf(cols, n, hw, kernel, stride, dilation, pad):
    """``_col2im`` for channels-first columns (C, kh, kw, N, oh, ow) -> (N, C, H, W)."""
    c, kh, kw, _, oh, ow = cols.shape
    (sh_, sw), (dh, dw) = stride, dilation
    pt, pb, pl, pr = pad
    out = xp.zeros((c, n, hw[0] + pt + pb, hw[1] + pl + pr), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh : i * dh + (oh - 1) * sh_ + 1 : sh_, j * dw : j * dw + (ow - 1) * sw + 1 : sw] += cols[:, i, j]
    return out[:, :, pt : pt + hw[0], pl : pl + hw[1]].transpose(1, 0, 2, 3)


# Note [Wide columns]
# With stride 1, window (i, j) of output position (r, q) starts at flat index (r + i*dh) * Wp + q + j*dw
# of the padded image flattened row by row (Wp the padded width): the offset of (i, j) is the same
# for every position. So if the gradient of a stride-1 convolution's input is laid on the whole
# padded (Hp, Wp) grid of every image, zero outside its (oh, ow) corner (``_wide_grad``), the
# columns W^T @ grad of one kernel offset, for all channels, images and positions, are one
# contiguous run that adds into the flattened padded input (channels, images, Hp, Wp) at that
# offset: kh * kw one-dimensional adds (``_wide_col2im``), much faster than 2-D strided ones.
# What the zero positions add wraps into padding, the next row, image or channel as exact zeros.
# The grid costs (Hp * Wp) / (oh * ow) more columns in the matrix product (about 1.3x for a 3x3
# kernel on 14x14 with padding 1), less than the strided adds it saves.


def _wide_col2im(cols, c, n, hw, kernel, dilation, pad):
    """col2im of stride-1 columns on the padded grid (Note [Wide columns]) -> a new (N, C, H, W) array.

    ``cols`` is (G, kh, kw, C/G * N * Hp * Wp), the kernel offset outside the channels of a group.
    """
    groups = cols.shape[0]
    kh, kw = kernel
    (dh, dw) = dilation
    hp, wp = hw[0] + pad[0] + pad[1], hw[1] + pad[2] + pad[3]
    size = c * n * hp * wp
    # the flat padded input gradient, only read below: a pooled buffer (Note [Scratch buffers])
    flat = scratch("conv_col2im_flat", (size + (kh - 1) * dh * wp + (kw - 1) * dw,), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            off = i * dh * wp + j * dw
            run = flat[off : off + size].reshape(groups, -1)
            if i == j == 0:  # the first offset (0) sets the image, then only the tail needs zeros
                run[...] = cols[:, 0, 0]
                flat[size:] = 0
            else:
                run += cols[:, i, j]
    img = flat[:size].reshape(c, n, hp, wp)[:, :, pad[0] : pad[0] + hw[0], pad[2] : pad[2] + hw[1]]
    out = xp.empty((n, c, hw[0], hw[1]), dtype=cols.dtype)
    out.transpose(1, 0, 2, 3)[...] = img
    return out


def _wide_grad(g, hp, wp):
    """g (N, O, oh, ow) as (O, N, Hp, Wp), zero outside the (oh, ow) corner (see Note [Wide columns]).

    The result is the scratch buffer "conv_wide_grad" (Note [Scratch buffers]): read it before the next call."""
    n, o, oh, ow = g.shape
    out = scratch("conv_wide_grad", (o, n, hp, wp), g.dtype)
    out[:, :, oh:] = 0
    out[:, :, :oh, ow:] = 0
    out[:, :, :oh, :ow] = g.transpose(1, 0, 2, 3)
    return out


def _conv_forward(x, w, stride, pad, dilation, groups, cache=None):
    """Cross-correlation of x (N, C, H, W) with w (O, C/groups, kh, kw): im2col, then matmul.

    out[n, o, h, w] = sum_{c, i, j} w[o, c, i, j] * x_pad[n, c, h * s + i * d, w * s + j * d].
    The columns are channels-first (C * kh * kw, N, L); the product is batched over N with each
    column block read in place (a strided BLAS operand), so the result comes out in (N, O, L)
    order with no transpose copy.
    """
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    cols = im2col(x, (kh, kw), stride, dilation, pad, channels_first=True)  # (C, kh, kw, N, oh, ow)
    if cache is not None:
        cache[:] = [cols]
    oh, ow = cols.shape[4:]
    if groups == 1:
        out = xp.matmul(w.reshape(o, -1), cols.reshape(-1, n, oh * ow).transpose(1, 0, 2))  # (N, O, L)
        return out.reshape(n, o, oh, ow)
    cols = cols.reshape(groups, -1, n, oh * ow).transpose(2, 0, 1, 3)  # (N, G, Cg * k, L)
    out = xp.matmul(w.reshape(groups, o // groups, -1), cols)
    return out.reshape(n, o, oh, ow)


def _conv_grad_input(g, w, hw, stride, pad, dilation, groups):
    """The adjoint of ``_conv_forward`` in x (also transposed convolution's forward): g (N, O, oh, ow) -> (N, C, H, W)."""
    n, o, oh, ow = g.shape
    _, cg, kh, kw = w.shape
    if stride == (1, 1):
        hp, wp = hw[0] + pad[0] + pad[1], hw[1] + pad[2] + pad[3]
        gw = _wide_grad(g, hp, wp).reshape(groups, o // groups, -1)
        # w as (G, kh * kw * Cg, O/G): the kernel offset outside the channel, for _wide_col2im's runs
        wt = w.reshape(groups, o // groups, cg, kh * kw).transpose(0, 3, 2, 1).reshape(groups, -1, o // groups)
        # the column matrix only feeds _wide_col2im: a pooled buffer (Note [Scratch buffers])
        cols = scratch("conv_grad_cols", (groups, wt.shape[1], gw.shape[2]), xp.result_type(wt, gw))
        xp.matmul(wt, gw, out=cols)
        return _wide_col2im(cols.reshape(groups, kh, kw, -1), groups * cg, n, hw, (kh, kw), dilation, pad)
    wt = w.reshape(groups, o // groups, -1).transpose(0, 2, 1)  # (G, Cg * k, O/G)
    gt = g.transpose(1, 0, 2, 3).reshape(groups, o // groups, n * oh * ow)
    cols = xp.matmul(wt, gt)  # (G, Cg * k, N * L)
    return _col2im_cf(cols.reshape(groups * cg, kh, kw, n, oh, ow), n, hw, (kh, kw), stride, dilation, pad)


def _conv_grad_weight(x, g, kernel, stride, pad, dilation, groups, cache=None):
    """The adjoint of ``_conv_forward`` in w: im2col(x) contracted with g over batch and positions -> (O, C/G, kh, kw)."""
    c = x.shape[1]
    n, o, oh, ow = g.shape
    cols = cache[0] if cache else im2col(x, kernel, stride, dilation, pad, channels_first=True)
    if cols.shape[4:] != (oh, ow):  # transposed convolution with output_padding >= stride: extra windows
        cols = cols[:, :, :, :, :oh, :ow]
    gt = g.transpose(1, 0, 2, 3).reshape(groups, o // groups, -1)
    cols = cols.reshape(groups, -1, gt.shape[2])
    gw = xp.matmul(cols, gt.transpose(0, 2, 1))  # (G, Cg * k, O/G): the faster orientation for OpenBLAS
    return gw.transpose(0, 2, 1).reshape(o, c // groups, *kernel)


def _as4d(a, nd):
    return a[:, :, None] if nd == 1 else a


@register
class ConvolutionBackward0(Op):
    """convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups).

    Regular: out[n, o] = sum_c,i,j w[o, c, i, j] * x_pad[n, c, h*s + i*d, w*s + j*d] (+ bias[o]), computed as
    one tensordot of the windows of the padded input (no copy until BLAS packs them) with the weight.
    Transposed: the adjoint of that map in its input. Backward (aten's convolution_backward):
    grad_input is the other direction of the same map, grad_weight a contraction of the windows
    with grad, grad_bias the sum of grad over batch and positions. The recorded form (create_graph)
    uses Im2ColBackward0 / Col2ImBackward0 and matmul, so it is differentiable again.
    1-D convolutions run as 2-D with a height-1 kernel.
    Params: (stride, pad (t, b, l, r), dilation, transposed, output_padding, groups, spatial dims).
    """

    save_inputs = True

    @staticmethod
    def forward(x, w, b, stride, pad, dilation, transposed, output_padding, groups, nd, cache):
        if nd == 3:  # 3-D convolutions: convnd.py
            return convnd.conv_forward(x, w, b, stride, pad, dilation, transposed, output_padding, groups)
        x4, w4 = _as4d(x, nd), _as4d(w, nd)
        if transposed:
            hw = _transposed_size(x4.shape[2:], w4.shape[2:], stride, pad, dilation, output_padding)
            out = _conv_grad_input(x4, w4, hw, stride, pad, dilation, groups)
        else:
            out = _conv_forward(x4, w4, stride, pad, dilation, groups, cache)
        if b is not None:
            out += b.reshape(1, -1, 1, 1)
        return out[:, :, 0] if nd == 1 else out

    def backward_arrays(self, g):
        x, w, b = self.saved()
        stride, pad, dilation, transposed, output_padding, groups, nd, cache = self._params
        if nd == 3:
            return convnd.conv_backward(self, wrap(g))
        nf = self.next_functions
        x4, w4, g4 = _as4d(x._data, nd), _as4d(w._data, nd), _as4d(g, nd)
        gx = gw = gb = None
        if nf[0][0] is not None:
            if transposed:
                # output_padding >= stride (allowed below the dilation) leaves windows past the input: dropped
                gx = _conv_forward(g4, w4, stride, pad, dilation, groups)[:, :, : x4.shape[2], : x4.shape[3]]
            else:
                gx = _conv_grad_input(g4, w4, x4.shape[2:], stride, pad, dilation, groups)
            gx = wrap(gx.reshape(x._data.shape))
        if nf[1][0] is not None:
            if transposed:
                gw = _conv_grad_weight(g4, x4, w4.shape[2:], stride, pad, dilation, groups)
            else:
                gw = _conv_grad_weight(x4, g4, w4.shape[2:], stride, pad, dilation, groups, cache)
            gw = wrap(gw.reshape(w._data.shape))
        if b is not None and nf[2][0] is not None:
            gb = wrap(g4.sum(axis=(0, 2, 3)))
        return gx, gw, gb

    def backward(self, g):
        x, w, b = self.saved()
        stride, pad, dilation, transposed, output_padding, groups, nd, cache = self._params
        if nd == 3:
            return convnd.conv_backward(self, g)
        nf = self.next_functions
        xs, ws = x._data.shape, w._data.shape
        if nd == 1:
            x, w, g = sh.unsqueeze(x, 2), sh.unsqueeze(w, 2), sh.unsqueeze(g, 2)
        kernel = w._data.shape[2:]
        k = kernel[0] * kernel[1]
        n = x._data.shape[0]
        # the side whose windows are taken: the input for a regular convolution, grad for a transposed one
        src, other = (g, x) if transposed else (x, g)
        cols = _unfold(src, kernel, dilation, pad, stride)  # (N, Csrc * k, L)
        csrc, cother = src._data.shape[1], other._data.shape[1]
        if transposed:
            hw = x._data.shape[2:]
            oh = _out_size(g._data.shape[2], kernel[0], stride[0], dilation[0], pad[0], pad[1])
            ow = _out_size(g._data.shape[3], kernel[1], stride[1], dilation[1], pad[2], pad[3])
            if (oh, ow) != tuple(hw):  # output_padding >= stride: windows past the input are dropped
                cols = cols.reshape((n, csrc * k, oh, ow))[:, :, : hw[0], : hw[1]].reshape((n, csrc * k, -1))
        cols = cols.reshape((n, groups, csrc // groups * k, -1))
        other2 = other.reshape((n, groups, cother // groups, -1))
        # w as (groups, other-side channels per group, src-side channels per group * k)
        w2 = w.reshape((groups, cother // groups, csrc // groups * k))
        gx = gw = gb = None
        if nf[0][0] is not None:
            if transposed:
                gx = _products.matmul(w2, cols).reshape(x._data.shape)
            else:
                gcols = _products.matmul(w2.transpose(-1, -2), other2).reshape((n, csrc * k, -1))
                gx = _fold(gcols, x._data.shape[2:], kernel, dilation, pad, stride)
            gx = gx.reshape(xs)
        if nf[1][0] is not None:
            gw = red.sum(_products.matmul(other2, cols.transpose(-1, -2)), 0).reshape(ws)
        if b is not None and nf[2][0] is not None:
            gb = red.sum(g, (0, 2, 3))
        return gx, gw, gb


def _transposed_size(hw, kernel, stride, pad, dilation, output_padding):
    return tuple(
        (hw[i] - 1) * stride[i] - pad[2 * i] - pad[2 * i + 1] + dilation[i] * (kernel[i] - 1) + output_padding[i] + 1
        for i in range(2)
    )


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, transposed=False, output_padding=0):  # noqa: A002
    if _fw.autocast:  # Note [CPU autocast]: a lower-precision op
        input, weight, bias = autocast_policy.lower_precision_args(input, weight, bias)
    name = ("conv_transpose" if transposed else "conv") + f"{nd}d"
    if not transposed and bias is not None and bias._data.dtype != input._data.dtype:  # aten's conv1d / conv2d
        raise RuntimeError(
            f"Input type ({_C_TYPE_NAMES.get(input._data.dtype.name)}) and bias type "
            f"({_C_TYPE_NAMES.get(bias._data.dtype.name)}) should be the same"
        )
    if input._data.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of size: "
            f"{_shape_list(input._data.shape)}"
        )
    if input._data.ndim == nd + 1:
        out = _conv(sh.unsqueeze(input, 0), weight, bias, stride, padding, dilation, groups, nd, transposed,
                    output_padding)
        return sh.squeeze(out, 0)
    x, w = input._data, weight._data
    if x.dtype.kind == "c":
        _check_complex_types(x, w, bias)
    elif w.dtype.kind == "c" and not transposed and x.dtype == xp.float32:  # (aten's MKLDNN path's check)
        raise RuntimeError(
            f"Input type ({_tensor_type(x)}) and weight type ({_tensor_type(w)}) should be the same or input should be "
            "a MKLDNN tensor and weight is a dense tensor"
        )
    if w.ndim < 3 and not transposed:
        raise RuntimeError("weight should have at least three dimensions")
    if w.ndim != nd + 2:
        if not transposed and nd > 1 and not isinstance(padding, str):
            # aten's conv2d/conv3d parse an int as nd copies of it, then check each list against the weight's rank
            for arg, v in (("stride", stride), ("padding", padding), ("dilation", dilation)):
                v = list(v) if isinstance(v, (list, tuple)) else [v] * nd
                if len(v) not in (1, w.ndim - 2):
                    raise RuntimeError(
                        f"expected {arg} to be a single integer value or a list of {w.ndim - 2} values to match the "
                        f"convolution dimensions, but got {arg}={v}"
                    )
        space = "" if isinstance(padding, str) and not transposed else " "  # (aten's padding='same' path: no space)
        raise RuntimeError(
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight{space}{_shape_list(w.shape)}, but got "
            f"{x.ndim}-dimensional input of size {_shape_list(x.shape)} instead"
        )
    for arg, v in (("stride", stride), ("dilation", dilation)) + ((("padding", padding),) if not isinstance(padding, str) else ()):
        if isinstance(v, (list, tuple)) and len(v) not in (1, nd):  # (aten expands a one-element list)
            raise RuntimeError(
                f"expected {arg} to be a single integer value or a list of {nd} values to match the convolution "
                f"dimensions, but got {arg}={list(v)}"
            )
    stride, dilation = _expand(stride, nd), _expand(dilation, nd)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    kernel = w.shape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pad = (0,) * (2 * nd)
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pad = ()
            for k, d in zip(kernel, dilation):
                total = d * (k - 1)
                pad += (total // 2, total - total // 2)
            if any(d * (k - 1) % 2 for k, d in zip(kernel, dilation)):
                warnings.warn(
                    "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy "
                    "of the input be created (Triggered internally at "
                    "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)",
                    UserWarning,
                    stacklevel=3,
                )
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        p = _expand(padding, nd)
        if any(v < 0 for v in p):
            raise RuntimeError("negative padding is not supported")
        pad = tuple(v for v in p for _ in range(2))
    out_pad = _expand(output_padding, nd)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    c = x.shape[1]
    if not transposed and w.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {_shape_list(w.shape)} instead")
    if not transposed and w.shape[0] % groups:  # (aten prints the size in double brackets)
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
                           f"weight of size [{_shape_list(w.shape)}] instead")
    if not transposed and c != w.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_shape_list(w.shape)}, expected input{_shape_list(x.shape)} to "
            f"have {w.shape[1] * groups} channels, but got {c} channels instead"
        )
    if transposed and c != w.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {_shape_list(w.shape)}, expected input{_shape_list(x.shape)} to "
            f"have {w.shape[0]} channels, but got {c} channels instead"
        )
    out_channels = w.shape[1] * groups if transposed else w.shape[0]
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != out_channels):
        raise RuntimeError(
            f"Given {'transposed=1, ' if transposed else ''}weight of size {_shape_list(w.shape)}, expected bias to be "
            f"1-dimensional with {out_channels} elements, but got bias of size {_shape_list(bias._data.shape)} instead"
        )
    if transposed:
        for i in range(nd):
            if out_pad[i] >= stride[i] and out_pad[i] >= dilation[i]:
                names = ("depth", "height", "width")[3 - nd:]
                raise RuntimeError(
                    "output padding must be smaller than either stride or dilation, but got "
                    + " ".join(f"output_padding_{n}: {v}" for n, v in zip(names, out_pad)) + " "
                    + " ".join(f"stride_{n}: {v}" for n, v in zip(names, stride)) + " "
                    + " ".join(f"dilation_{n}: {v}" for n, v in zip(names, dilation))
                )
        # (any rank: the 1-D and 2-D sizes as _transposed_size computes them)
        outs = convnd.transposed_size(x.shape[2:], kernel, stride, convnd.pad_pairs(pad), dilation, out_pad)
        if any(v <= 0 for v in outs):
            raise RuntimeError(
                f"Given input size per channel: ({' x '.join(str(v) for v in x.shape[2:])}). Calculated output size "
                f"per channel: ({' x '.join(str(v) for v in outs)}). Output size is too small"
            )
    else:
        padded = tuple(x.shape[2 + i] + pad[2 * i] + pad[2 * i + 1] for i in range(nd))
        eff = tuple(dilation[i] * (kernel[i] - 1) + 1 for i in range(nd))
        if any(p < k for p, k in zip(padded, eff)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(str(v) for v in padded)}). Kernel size: "
                f"({' x '.join(str(v) for v in eff)}). Kernel size can't be greater than actual input size"
            )
    if x.dtype.kind == "c":
        return _complex_convolution(input, weight, bias, stride, padding, dilation, groups, nd, transposed,
                                    output_padding)
    if x.dtype != w.dtype or (bias is not None and bias._data.dtype != x.dtype):
        other = w.dtype if x.dtype != w.dtype else bias._data.dtype
        raise RuntimeError(f"expected scalar type {_type_name(x)} but found {_type_name(xp.empty(0, other))}")
    if nd == 1:
        stride, dilation, pad, out_pad = (1,) + stride, (1,) + dilation, (0, 0) + pad, (0,) + out_pad
    # Note [Convolution column cache]: the forward's im2col columns are kept for grad_weight when
    # a graph is recorded (the node's params hold the cache; it goes with the node), saving a second
    # im2col at the cost of kh * kw copies of the input in memory until backward.
    cache = [] if (is_grad_enabled() and weight._requires_grad and not transposed and nd < 3) else None
    params = (stride, pad, dilation, transposed, out_pad, groups, nd, cache)
    return apply(ConvolutionBackward0, (input, weight, bias), params)


def _expand(v, nd: int) -> tuple:
    """aten's expand_param_if_needed: an int or a one-element list repeated for each of the ``nd`` dims."""
    if isinstance(v, (list, tuple)) and len(v) == 1:
        v = v[0]
    return _tuple(v, nd)


def _tensor_type(a) -> str:
    """A CPU tensor's legacy type name as torch's Tensor.toString() prints it (torch.FloatTensor,
    CPUComplexFloatType)."""
    name = _type_name(a)
    return f"CPU{name}Type" if a.dtype.kind == "c" else f"torch.{name}Tensor"


def _real_and_imag(t: Tensor):
    """aten's complex_to_real: the real and imaginary parts as views (view_as_real, then select)."""
    from .complex import resolve_conj, view_as_real

    pairs = view_as_real(resolve_conj(t))
    return sh.select(pairs, -1, 0), sh.select(pairs, -1, 1)


def _complex_convolution(input, weight, bias, stride, padding, dilation, groups, nd, transposed, output_padding):  # noqa: A002
    """aten's complex_convolution (Note [Complex Convolution] in Convolution.cpp): three real convolutions
    with Gauss's trick, a = conv(xr, wr, br), b = conv(xi, wi), c = conv(xr + xi, wr + wi, br + bi),
    conv(x, w, bias) = a - b + i (c - a - b); the gradients come from those real convolutions.

    Called by ``_conv`` once the arguments are checked (and padding='same''s warning given).
    """

    def conv(i, k, b):
        return _conv(i, k, b, stride, padding, dilation, groups, nd, transposed, output_padding)

    xr, xi = _real_and_imag(input)
    wr, wi = _real_and_imag(weight)
    br = bi = None
    if bias is not None:
        br, bi = _real_and_imag(bias)
    with warnings.catch_warnings():  # (torch warns once, for the complex call)
        warnings.simplefilter("ignore")
        a = conv(xr, wr, br)
        b = conv(xi, wi, None)
        c = conv(xr + xi, wr + wi, None if bias is None else br + bi)
    return a - b + (c - a - b) * 1j


def _check_complex_types(x, w, bias) -> None:
    """complex_convolution's check_input_same_type_as_parameters (before any shape check)."""
    if w.dtype != x.dtype:
        raise RuntimeError(f"Input type ({_tensor_type(x)}) and weight type ({_tensor_type(w)}) should be the same")
    if bias is not None and bias._data.dtype != x.dtype:
        raise RuntimeError(
            f"Input type ({_tensor_type(x)}) and bias type ({_tensor_type(bias._data)}) should be the same"
        )


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """torch.nn.functional.conv3d: x (N, C, D, H, W) or (C, D, H, W), weight (O, C/groups, kd, kh, kw)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):  # noqa: A002
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, True, output_padding)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):  # noqa: A002
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, True, output_padding)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):  # noqa: A002
    """torch.nn.functional.conv_transpose3d: x (N, C, D, H, W), weight (C, O/groups, kd, kh, kw)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, True, output_padding)


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.nn.functional; __init__.py, _tensor_methods.py and nn/functional.py merge these.
EXPORTS: dict = {
    "conv1d": conv1d,
    "conv2d": conv2d,
    "conv_transpose1d": conv_transpose1d,
    "conv_transpose2d": conv_transpose2d,
    "conv3d": conv3d,
    "conv_transpose3d": conv_transpose3d,
}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {  # dyngrad.nn.functional.<name>
    "conv1d": conv1d,
    "conv2d": conv2d,
    "conv_transpose1d": conv_transpose1d,
    "conv_transpose2d": conv_transpose2d,
    "conv3d": conv3d,
    "conv_transpose3d": conv_transpose3d,
    "unfold": unfold,
    "fold": fold,
}
