"""Channel rearrangements and channel-wise ops of nn.functional: pixel_shuffle / pixel_unshuffle,
channel_shuffle, dropout3d, local_response_norm (aten/src/ATen/native/PixelShuffle.cpp, ChanelShuffle.cpp,
Dropout.cpp; torch/nn/functional.py)."""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor, wrap
from ..autograd.grad_mode import is_grad_enabled
from . import padding
from . import pointwise as pw
from . import shape as sh
from .registry import Op, apply, register

# ------------------------------------------------------------------ pixel shuffle


def _shuffle_array(a, r: int):
    """(*, C r^2, H, W) -> (*, C, H r, W r): out[c, h r + i, w r + j] = in[c r^2 + i r + j, h, w]."""
    *lead, c, h, w = a.shape
    oc = c // (r * r)
    t = a.reshape(*lead, oc, r, r, h, w)
    n = len(lead)
    t = t.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return t.reshape(*lead, oc, h * r, w * r)


def _unshuffle_array(a, r: int):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of ``_shuffle_array``."""
    *lead, c, hr, wr = a.shape
    h, w = hr // r, wr // r
    t = a.reshape(*lead, c, h, r, w, r)
    n = len(lead)
    t = t.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return t.reshape(*lead, c * r * r, h, w)


@register
class PixelShuffleBackward0(Op):
    """pixel_shuffle(input, upscale_factor): a fixed permutation; backward (derivatives.yaml): pixel_unshuffle."""

    @staticmethod
    def forward(a, r):
        return _shuffle_array(a, r)

    def backward(self, g):
        return (apply(PixelUnshuffleBackward0, (g,), self._params),)


@register
class PixelUnshuffleBackward0(Op):
    """pixel_unshuffle(input, downscale_factor); backward (derivatives.yaml): pixel_shuffle."""

    @staticmethod
    def forward(a, r):
        return _unshuffle_array(a, r)

    def backward(self, g):
        return (apply(PixelShuffleBackward0, (g,), self._params),)


def _check_rank(x: Tensor, name: str) -> None:
    if x._data.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with "
                           f"{x._data.ndim} dimension(s)")


def pixel_shuffle(input, upscale_factor: int):  # noqa: A002
    """torch.nn.functional.pixel_shuffle: (*, C r^2, H, W) -> (*, C, H r, W r) (PyTorch's PixelShuffle doc).

    Raises RuntimeError (torch's texts) for fewer than 3 dims, r <= 0 or C not divisible by r^2.
    """
    _check_rank(input, "pixel_shuffle")
    r = int(upscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = input._data.shape[-3]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    return apply(PixelShuffleBackward0, (input,), (r,))


def pixel_unshuffle(input, downscale_factor: int):  # noqa: A002
    """torch.nn.functional.pixel_unshuffle: (*, C, H r, W r) -> (*, C r^2, H, W), the inverse of pixel_shuffle."""
    _check_rank(input, "pixel_unshuffle")
    r = int(downscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    h, w = input._data.shape[-2:]
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{w} is not divisible by {r}")
    return apply(PixelUnshuffleBackward0, (input,), (r,))


# ------------------------------------------------------------------ channel shuffle


def _channel_shuffle_array(a, groups: int):
    """(N, C, *) -> channels regrouped: out[:, j * g + i] = in[:, i * (C / g) + j] (the transpose of (g, C/g))."""
    n, c = a.shape[:2]
    rest = a.shape[2:]
    return a.reshape((n, groups, c // groups) + rest).swapaxes(1, 2).reshape(a.shape)


@register
class ChannelShuffleBackward0(Op):
    """channel_shuffle(input, groups): a permutation of channels; backward: the inverse permutation, the same
    shuffle with C / groups groups."""

    @staticmethod
    def forward(a, groups):
        return _channel_shuffle_array(a, groups)

    def backward(self, g):
        (groups,) = self._params
        return (apply(ChannelShuffleBackward0, (g,), (g._data.shape[1] // groups,)),)


def channel_shuffle(input, groups: int):  # noqa: A002
    """torch.nn.functional.channel_shuffle: (N, C, *) with C divisible by ``groups`` (torch's errors otherwise)."""
    a = input._data
    if a.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{a.ndim} dimension(s)")
    g = int(groups)
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{g}")
    if a.shape[1] % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {a.shape[1]} channels and {g} groups.")
    return apply(ChannelShuffleBackward0, (input,), (g,))


# ------------------------------------------------------------------ dropout3d, local response norm


def local_response_norm(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):  # noqa: A002
    """torch.nn.functional.local_response_norm: x / (k + alpha * mean of x^2 over ``size`` neighbouring
    channels)^beta, the window zero-padded (size // 2 before, (size - 1) // 2 after), as torch composes it
    (so its grad_fn is DivBackward0). ValueError for inputs of fewer than 3 dims."""
    from .pool3d import avg_pool3d
    from .pooling import avg_pool2d

    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = pw.mul(input, input)
    if dim == 3:
        div = padding.pad(sh.unsqueeze(div, 1), (0, 0, size // 2, (size - 1) // 2))
        div = sh.squeeze(avg_pool2d(div, (size, 1), stride=1), 1)
    else:
        sizes = tuple(input.shape)
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = padding.pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = sh.squeeze(avg_pool3d(div, (size, 1, 1), stride=1), 1).view(sizes)
    div = pw.pow(pw.add(pw.mul(div, alpha), k), beta)
    return pw.div(input, div)


# ------------------------------------------------------------------ CrossMapLRN2d (torch's legacy Function)


def _cross_map_scale(x, size: int, alpha: float, k: float):
    """The normaliser of torch.nn.CrossMapLRN2d (torch/nn/modules/_functions.py), step for step: a running sum of
    squares over channels, started with channels [0, pre_pad), each next channel adding c + pre_pad - 1 and, for
    c > pre_pad, dropping c - pre_pad (so channel 0's square is never dropped, as in torch); then k + alpha/size *."""
    sq = x * x
    channels = x.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    scale = xp.empty_like(x)
    scale[:, 0] = sq[:, : min(pre_pad, channels)].sum(axis=1)
    for c in range(1, channels):
        scale[:, c] = scale[:, c - 1]
        if c < channels - pre_pad + 1:
            scale[:, c] += sq[:, c + pre_pad - 1]
        if c > pre_pad:
            scale[:, c] -= sq[:, c - pre_pad]
    return scale * (alpha / size) + k


class CrossMapLRN2dBackward(Op):  # (not in the registry: a Python Function of torch's, not an aten op; its
    # values and gradients are checked by the layer tests of tests/test_nn_volumetric.py)
    """torch.nn.CrossMapLRN2d's function: out = x * scale^-beta (``_cross_map_scale``).

    Backward: torch's hand-written formula (a running sum over channels of grad * out / scale, times
    -2 alpha beta / size * x, plus grad * scale^-beta), which torch computes with out= operations: like torch,
    it cannot be recorded (create_graph raises torch's error). Params: (size, alpha, beta, k).
    """

    save_inputs = True

    @staticmethod
    def forward(x, size, alpha, beta, k):
        return x * _cross_map_scale(x, size, alpha, k) ** -beta

    def backward(self, g):
        if is_grad_enabled():
            raise RuntimeError("mul(): functions with out=... arguments don't support automatic differentiation, but "
                               "one of the arguments requires grad.")
        x = self.saved()[0]._data
        size, alpha, beta, k = self._params
        g = g._data
        scale = _cross_map_scale(x, size, alpha, k)
        out = x * scale ** -beta
        channels = x.shape[1]
        inverse_pre_pad = int(size - (size - 1) / 2)
        grad_in = scale ** -beta * g
        padded = xp.zeros((x.shape[0], channels + size - 1) + x.shape[2:], dtype=x.dtype)
        padded[:, inverse_pre_pad: inverse_pre_pad + channels] = g * out / scale
        accum = padded[:, : size - 1].sum(axis=1)
        ratio = 2 * alpha * beta / size
        for c in range(channels):
            accum = accum + padded[:, c + size - 1]
            grad_in[:, c] -= ratio * x[:, c] * accum
            accum = accum - padded[:, c]
        return (wrap(grad_in),)


def cross_map_lrn2d(input, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1):  # noqa: A002
    """torch.nn.CrossMapLRN2d's computation on a 4-D (N, C, H, W) input (ValueError, torch's text, otherwise)."""
    if input.dim() != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
    return apply(CrossMapLRN2dBackward, (input,), (size, alpha, beta, k))


EXPORTS: dict = {
    "pixel_shuffle": pixel_shuffle,
    "pixel_unshuffle": pixel_unshuffle,
    "channel_shuffle": channel_shuffle,
}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}
FUNCTIONAL_EXPORTS: dict = {
    "pixel_shuffle": pixel_shuffle,
    "pixel_unshuffle": pixel_unshuffle,
    "channel_shuffle": channel_shuffle,
    "local_response_norm": local_response_norm,
}
