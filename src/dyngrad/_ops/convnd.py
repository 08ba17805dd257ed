"""N-dimensional sliding windows and the 3-D convolution kernels (aten/src/ATen/native/Convolution.cpp,
vol2col.h, NaiveConvolutionTranspose3d.cpp).

conv.py runs 1-D and 2-D convolutions on a tuned 2-D im2col; 3-D convolutions (conv3d, conv_transpose3d)
come here through the same ``ConvolutionBackward0`` node. The windows of an (N, C, *S) input are gathered
into an (N, C, *K, *O) array with one strided block copy per kernel offset (kd * kh * kw copies; no Python
loop over voxels, channels or batch entries) and contracted with the weight in one batched matrix product.
The adjoint (``_col2vol``) adds the columns back with one strided add per kernel offset.

Spatial parameters: ``kernel``, ``stride``, ``dilation`` are tuples with one entry per spatial dim;
``pad`` is a tuple of (low, high) pairs, one per spatial dim (padding='same' can be asymmetric);
``out`` the number of windows along each dim.
"""

from __future__ import annotations

import itertools

from .._backend import xp
from .._tensor import Tensor
from . import matmul as _products
from . import reduction as red
from .registry import Op, apply


def window_count(size: int, k: int, s: int, d: int, lo: int, hi: int) -> int:
    """How many windows of a k-tap kernel (dilation d, stride s) fit in ``size`` padded by lo and hi."""
    return (size + lo + hi - d * (k - 1) - 1) // s + 1


def _offset_slices(offs, stride, dilation, out):
    """The strided slices of the padded input that kernel offset ``offs`` reads for every window."""
    return tuple(slice(o * d, o * d + (n - 1) * s + 1, s) for o, d, n, s in zip(offs, dilation, out, stride))


def vol2col(a, kernel, stride, dilation, pad, out, fill=0):
    """The windows of ``a`` (N, C, *S) zero-padded (or ``fill``-padded) by ``pad``: an (N, C, *K, *O) array."""
    lead = (slice(None),) * (a.ndim - len(kernel))
    if any(lo or hi for lo, hi in pad):
        a = xp.pad(a, ((0, 0),) * len(lead) + tuple(pad), constant_values=fill)
    cols = xp.empty(a.shape[: len(lead)] + tuple(kernel) + tuple(out), dtype=a.dtype)
    for offs in itertools.product(*(range(k) for k in kernel)):
        cols[lead + offs] = a[lead + _offset_slices(offs, stride, dilation, out)]
    return cols


def col2vol(cols, spatial, kernel, stride, dilation, pad):
    """The adjoint of ``vol2col``: (N, C, *K, *O) columns summed back into an (N, C, *S) array."""
    nsp = len(kernel)
    lead_shape = cols.shape[: cols.ndim - 2 * nsp]
    out = cols.shape[cols.ndim - nsp:]
    lead = (slice(None),) * len(lead_shape)
    padded = xp.zeros(lead_shape + tuple(n + lo + hi for n, (lo, hi) in zip(spatial, pad)), dtype=cols.dtype)
    for offs in itertools.product(*(range(k) for k in kernel)):
        padded[lead + _offset_slices(offs, stride, dilation, out)] += cols[lead + offs]
    return padded[lead + tuple(slice(lo, lo + n) for n, (lo, _) in zip(spatial, pad))]


class Vol2ColBackward(Op):
    """Windows of an (N, C, *S) tensor as (N, C, *K, *O) (``vol2col``); backward: ``col2vol`` of the gradient.

    The differentiable building block of the 3-D convolution's recorded backward (create_graph): an internal
    node, as aten's vol2col is (torch records its convolution double backward as convolutions instead).
    Params: (kernel, stride, dilation, pad pairs, input spatial size, window counts).
    """

    @staticmethod
    def forward(a, kernel, stride, dilation, pad, spatial, out):
        return vol2col(a, kernel, stride, dilation, pad, out)

    def backward(self, g):
        return (apply(Col2VolBackward, (g,), self._params),)


class Col2VolBackward(Op):
    """``col2vol``: (N, C, *K, *O) columns summed into (N, C, *S); backward: ``vol2col`` of the gradient."""

    @staticmethod
    def forward(cols, kernel, stride, dilation, pad, spatial, out):
        return col2vol(cols, spatial, kernel, stride, dilation, pad)

    def backward(self, g):
        return (apply(Vol2ColBackward, (g,), self._params),)


def _prod(vals) -> int:
    n = 1
    for v in vals:
        n *= v
    return n


def pad_pairs(pad) -> tuple:
    """conv.py's flat (lo0, hi0, lo1, hi1, ...) padding as ((lo0, hi0), (lo1, hi1), ...)."""
    return tuple((pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2))


def transposed_size(spatial, kernel, stride, pad, dilation, output_padding) -> tuple:
    """The output size of a transposed convolution: (n - 1) * s - lo - hi + d * (k - 1) + output_padding + 1."""
    return tuple((n - 1) * s - lo - hi + d * (k - 1) + op + 1
                 for n, k, s, (lo, hi), d, op in zip(spatial, kernel, stride, pad, dilation, output_padding))


def conv_forward(x, w, b, stride, pad, dilation, transposed, output_padding, groups):
    """3-D convolution (or its transpose) on arrays: x (N, C, D, H, W), w (O, C/G, kd, kh, kw) or, transposed,
    (C, O/G, kd, kh, kw); ``pad`` flat as conv.py keeps it.

    Regular: out[n, o, p] = sum_{c, k} w[o, c, k] x_pad[n, c, p * s + k * d] (+ bias[o]) (PyTorch's Conv3d doc):
    one matrix product of the weight with the windows. Transposed: the adjoint of that map in x, the products
    w^T x summed back over the windows (col2vol) of the output.
    """
    pad = pad_pairs(pad)
    n = x.shape[0]
    kernel = w.shape[2:]
    k = _prod(kernel)
    if transposed:
        spatial = transposed_size(x.shape[2:], kernel, stride, pad, dilation, output_padding)
        cin, og = w.shape[:2]
        wt = w.reshape(groups, cin // groups, og * k).transpose(0, 2, 1)  # (G, O/G * k, C/G)
        cols = xp.matmul(wt, x.reshape(n, groups, cin // groups, -1))  # (N, G, O/G * k, L)
        cols = cols.reshape((n, groups * og) + tuple(kernel) + tuple(x.shape[2:]))
        out = col2vol(cols, spatial, kernel, stride, dilation, pad)
    else:
        counts = tuple(window_count(s_, k_, st, d, lo, hi)
                       for s_, k_, st, d, (lo, hi) in zip(x.shape[2:], kernel, stride, dilation, pad))
        cols = vol2col(x, kernel, stride, dilation, pad, counts)
        o = w.shape[0]
        cols = cols.reshape(n, groups, -1, _prod(counts))
        out = xp.matmul(w.reshape(groups, o // groups, -1), cols).reshape((n, o) + counts)
    if b is not None:
        out += b.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


def conv_backward(node, g: Tensor):
    """ConvolutionBackward0's gradients for a 3-D convolution, written with Tensor ops (differentiable again).

    aten's convolution_backward: for a regular convolution grad_input = col2vol(w^T g) and
    grad_weight = sum over the batch of g cols(x)^T; for a transposed one the roles swap (the windows are
    taken of grad: grad_input = w cols(g), grad_weight = sum of x cols(g)^T); grad_bias sums g over the batch
    and the positions.
    """
    x, w, b = node.saved()
    stride, pad, dilation, transposed, output_padding, groups, nd, cache = node._params
    pad = pad_pairs(pad)
    nf = node.next_functions
    kernel = tuple(w._data.shape[2:])
    k = _prod(kernel)
    n = x._data.shape[0]
    src, other = (g, x) if transposed else (x, g)  # the side whose windows are taken
    counts = tuple(other._data.shape[2:])
    params = (kernel, tuple(stride), tuple(dilation), pad, tuple(src._data.shape[2:]), counts)
    cols = apply(Vol2ColBackward, (src,), params)  # (N, Csrc, *K, *O)
    csrc, cother = src._data.shape[1], other._data.shape[1]
    cols = cols.reshape((n, groups, csrc // groups * k, -1))
    other2 = other.reshape((n, groups, cother // groups, -1))
    w2 = w.reshape((groups, cother // groups, csrc // groups * k))
    gx = gw = gb = None
    if nf[0][0] is not None:
        if transposed:
            gx = _products.matmul(w2, cols).reshape(x._data.shape)
        else:
            gcols = _products.matmul(w2.transpose(-1, -2), other2)
            gcols = gcols.reshape((n, csrc) + kernel + counts)
            gx = apply(Col2VolBackward, (gcols,), params)
    if nf[1][0] is not None:
        gw = red.sum(_products.matmul(other2, cols.transpose(-1, -2)), 0).reshape(w._data.shape)
    if b is not None and nf[2][0] is not None:
        gb = red.sum(g, (0,) + tuple(range(2, g._data.ndim)))
    return gx, gw, gb
