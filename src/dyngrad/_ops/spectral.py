"""torch.stft and torch.istft: the short-time Fourier transform and its inverse (overlap-add).

Both are composites in torch 2.13 (torch/functional.py stft for the centering pad, aten/src/ATen/native/
SpectralOps.cpp stft / istft for the rest), and dyngrad builds them from the same ops in the same order,
so their graphs are torch's node for node and their gradients (first and higher order) come from those
ops' formulas:

stft: [ViewBackward0, pad (ReflectionPad1DBackward0 / ReplicationPad1DBackward0 / ConstantPadNdBackward0 /
CopySlices), ViewBackward0] when ``center``, UnsqueezeBackward0 for 1-D input, [ConstantPadNdBackward0 with
``align_to_window=True``], AsStridedBackward0 (the frames), MulBackward0 (the window, when there is one;
a shorter window is centred in zeros by copy_ into a slice: CopySlices), FftR2CBackward0 (real) or
FftC2CBackward0 (complex input or window), TransposeBackward1, SqueezeBackward4 for 1-D input,
ViewAsRealBackward0 with ``return_complex=False``.

istft: ViewAsRealBackward0, UnsqueezeBackward0 for 2-D input, TransposeBackward0, ViewAsComplexBackward0,
[SliceBackward0] and FftC2RBackward0 (or FftC2CBackward0 with ``return_complex=True``), MulBackward0 by the
window (ViewBackward0), UnfoldBackwardBackward0 (overlap-add), SliceBackward0, DivBackward0 by the window
envelope (PowBackward0, ExpandBackward0, UnfoldBackwardBackward0, SliceBackward0), SqueezeBackward1,
[ConstantPadNdBackward0 when ``length`` is longer than the signal].
"""

from __future__ import annotations

import warnings

from .._backend import xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from . import fft as _fft
from .inplace import AsStridedBackward0
from .registry import apply
from .shape import UnfoldBackwardBackward0

_WARNED: set = set()  # torch's TORCH_WARN_ONCE: each of these warnings once per process

_STFT_NO_WINDOW = (
    "A window was not provided. A rectangular window will be applied,which is known to cause spectral leakage. "
    "Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce spectral leakage."
    "To suppress this warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
    "device=<device>)`. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:835.)"
)
_STFT_REAL_OUTPUT = (
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex tensors "
    "for all inputs, and return_complex=False will raise an error.\nNote: you can still call torch.view_as_real on "
    "the complex output to recover the old return format. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:874.)"
)
_ISTFT_NO_WINDOW = (
    "A window was not provided. A rectangular window will be applied.Please provide the same window used by stft "
    "to make the inversion lossless.To suppress this warning and use a rectangular window, explicitly set "
    "`window=torch.ones(n_fft, device=<device>)`. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:1035.)"
)
_ISTFT_PADDED = (
    "The length of signal is shorter than the length parameter. Result is being padded with zeros in the tail. "
    "Please check your center and hop_length settings. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:1199.)"
)


def _warn_once(text: str) -> None:
    if text not in _WARNED:
        _WARNED.add(text)
        warnings.warn(text, UserWarning, stacklevel=3)  # (the caller of stft / istft)


_TYPE_STRINGS = {  # at::Tensor::toString(), which torch's stft/istft messages print
    "float16": "torch.HalfTensor", "float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
    "complex64": "CPUComplexFloatType", "complex128": "CPUComplexDoubleType", "int64": "torch.LongTensor",
    "int32": "torch.IntTensor", "int16": "torch.ShortTensor", "int8": "torch.CharTensor",
    "uint8": "torch.ByteTensor", "bool": "CPUBoolType",
}


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(n) for n in t._data.shape) + "]"


def _describe(t: Tensor) -> str:
    return _TYPE_STRINGS[t._data.dtype.name]


def _opt(v) -> str:
    """torch's write_opt: None, or the value (bools as 0/1)."""
    return "None" if v is None else str(int(v)) if isinstance(v, bool) else str(v)


def _window_repr(window) -> str:
    return "None" if window is None else f"{_describe(window)}{{{_sizes(window)}}}"


# ------------------------------------------------------------------ stft


def _center_pad(input: Tensor, n_fft: int, pad_mode: str) -> Tensor:  # noqa: A002
    """torch/functional.py stft's centering: a view to 3 dims, F.pad of n_fft // 2 on both sides, a view back."""
    from .padding import pad
    from .shape import view

    signal_dim = input._data.ndim
    extended = (1,) * (3 - signal_dim) + tuple(input._data.shape)
    amount = int(n_fft // 2)
    x = view(input, extended)
    if pad_mode in ("reflect", "replicate") and x._data.ndim == 3 and 0 in x._data.shape[1:]:
        raise RuntimeError(  # (torch's reflection / replication pad kernels refuse empty non-batch dims)
            "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
            f"input, but got: {_sizes(x)}"
        )
    x = pad(x, [amount, amount], pad_mode)
    return view(x, x._data.shape[len(x._data.shape) - signal_dim :] if signal_dim else x._data.shape)


# Note [Frames and overlap-add]
# stft reads overlapping frames of the signal (torch: as_strided, AsStridedBackward0) and istft adds
# frames back at their positions (torch: unfold_backward, UnfoldBackwardBackward0). dyngrad's generic ops
# of those names gather / scatter element by element (registry entries in inplace.py and shape.py); here
# the same two maps run as strided NumPy views: the frames are a view of the signal (no copy), and the
# overlap-add is ceil(n_fft / hop) strided additions instead of one per frame offset. They are private
# subclasses with torch's names (not registry entries), and each is the other's gradient, so their
# gradients of any order are the same linear maps (values as torch's).


def _overlap_add_array(g, length: int, size: int, step: int):
    """The frames g (..., F, size), frame t starting at t * step, added into a signal (..., length)."""
    lead, count = g.shape[:-2], g.shape[-2]
    chunks = -(-size // step) if size else 0
    out = xp.zeros(lead + (step * (count + chunks),), dtype=g.dtype)
    item = out.itemsize
    for j in range(chunks):  # chunk j of every frame: a strided block with no overlap (its width <= step)
        width = min(step, size - j * step)
        base = out[..., j * step :]
        block = xp.lib.stride_tricks.as_strided(base, lead + (count, width), base.strides[:-1] + (step * item, item))
        block += g[..., j * step : j * step + width]
    return xp.ascontiguousarray(out[..., :length])


class _OverlapAdd(UnfoldBackwardBackward0):
    """UnfoldBackwardBackward0 (unfold_backward) along the last dim, with the strided kernel of Note [Frames and
    overlap-add]; other cases as the parent's. Backward (inherited): unfold of the gradient."""

    @staticmethod
    def forward(g, shape, d, size, step):
        if shape and d == len(shape) - 1 and step > 0:
            return _overlap_add_array(g, shape[-1], size, step)
        return UnfoldBackwardBackward0.forward(g, shape, d, size, step)


_OverlapAdd.__name__ = _OverlapAdd.__qualname__ = "UnfoldBackwardBackward0"


class _Frames(AsStridedBackward0):
    """AsStridedBackward0 as stft's as_strided((batch, n_frames, n_fft), (stride0, hop * stride1, stride1)) of a
    (batch, len) signal: a strided view; backward: the frames' gradients overlap-added (_OverlapAdd)."""

    @staticmethod
    def forward(a, n_frames, n_fft, hop, in_shape):
        batch = a.shape[0]
        view = xp.lib.stride_tricks.as_strided(
            a, (batch, n_frames, n_fft), (a.strides[0], hop * a.strides[1], a.strides[1]), writeable=False
        )
        return view

    def backward(self, g):
        n_frames, n_fft, hop, in_shape = self._params
        return (apply(_OverlapAdd, (g,), (in_shape, 1, n_fft, hop)),)


_Frames.__name__ = _Frames.__qualname__ = "AsStridedBackward0"


def _frames(x: Tensor, n_frames: int, n_fft: int, hop: int) -> Tensor:
    """x.as_strided((batch, n_frames, n_fft), (stride0, hop * stride1, stride1)): the frames of a (batch, len)
    tensor, a view of it (Note [Frames and overlap-add])."""
    from .shape import _mark_view

    return _mark_view(apply(_Frames, (x,), (n_frames, n_fft, hop, x._data.shape)), x)


def _padded_window(window, win_length: int, n_fft: int, input: Tensor):  # noqa: A002
    """stft's window of n_fft points: ``window`` centred in zeros (copy_ into a slice: CopySlices when it
    requires grad), or ones centred in zeros when there is no window; None for no window of full length."""
    from .._creation import zeros

    if win_length >= n_fft:
        return window
    left = (n_fft - win_length) // 2
    if window is not None:
        out = zeros(n_fft, dtype=window.dtype)
        out.narrow(0, left, win_length).copy_(window)
        return out
    arr = xp.zeros(n_fft, dtype=input._data.dtype)
    arr[left : left + win_length] = 1
    return wrap(arr)


def stft(input: Tensor, n_fft: int, hop_length=None, win_length=None, window=None, center: bool = True,  # noqa: A002
         pad_mode: str = "reflect", normalized: bool = False, onesided=None, return_complex=None,
         align_to_window=None) -> Tensor:
    """torch.stft: the Fourier transforms of overlapping windowed frames of a 1-D signal (L,) or a batch (B, L).

    Frame m is input[m * hop_length : m * hop_length + n_fft] (after ``center`` pads n_fft // 2 on both sides
    with ``pad_mode``) times the window (win_length <= n_fft points, centred in zeros; none: all ones). The
    result is (B?, N, T) complex, N = n_fft // 2 + 1 when one-sided (default for real input and window) else
    n_fft, T = 1 + (L' - n_fft) // hop_length; ``normalized`` scales by 1/sqrt(n_fft); ``return_complex=False``
    gives the deprecated (B?, N, T, 2) real form. Defaults: hop_length n_fft // 4, win_length n_fft.
    ``align_to_window=True`` (center=False only) pads the signal with (n_fft - win_length) // 2 zeros on both
    sides and counts 1 + (L - win_length) // hop_length frames, as torch 2.13 does (torch's own setStorage
    error where those frames do not fit is reproduced).

    Warns (once per process, torch's texts): no window; ``return_complex=False``.
    Raises:
        RuntimeError: ``return_complex`` not given for real input and window; non-float input; not 1-D/2-D;
            n_fft, hop_length, win_length or window size out of range (torch's messages, which print the
            arguments); a one-sided request for complex data; ``align_to_window`` with ``center``; float16
            (torch's MKL text).
        NotImplementedError: an unknown ``pad_mode``.
    Source: torch/functional.py stft, SpectralOps.cpp stft.
    """
    from .complex import view_as_real
    from .shape import squeeze_, transpose_, unsqueeze

    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        input = _center_pad(input, n_fft, pad_mode)  # noqa: A001
    if window is None:
        _warn_once(_STFT_NO_WINDOW)
    hop = (n_fft >> 2) if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    real_in = input._data.dtype.kind != "c"
    wants_complex = not real_in or (window is not None and window._data.dtype.kind == "c")
    complex_out = wants_complex if return_complex is None else bool(return_complex)

    def fail(text: str):
        return RuntimeError(
            f"stft({_describe(input)}{_sizes(input)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
            f"window={_window_repr(window)}, normalized={int(bool(normalized))}, onesided={_opt(onesided)}, "
            f"return_complex={_opt(return_complex)}, align_to_window={_opt(align_to_window)}) : {text}"
        )

    if not complex_out:
        if return_complex is None:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and will further require that "
                "return_complex=True in a future PyTorch release."
            )
        _warn_once(_STFT_REAL_OUTPUT)
    if input._data.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise fail("expected a tensor of floating point or complex values")
    if input._data.ndim not in (1, 2):
        raise fail("expected a 1D or 2D tensor")
    x = unsqueeze(input, 0) if input._data.ndim == 1 else input
    batch, length = x._data.shape
    if n_fft <= 0 or n_fft > length:
        raise fail(f"expected 0 < n_fft < {length}, but got n_fft={win}")  # (torch prints win_length there)
    if hop <= 0:
        raise fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window._data.ndim != 1 or window._data.shape[0] != win):
        raise fail(f"expected a 1D window tensor of size equal to win_length={win}, but got window with size "
                   f"{_sizes(window)}")
    full_window = _padded_window(window, win, n_fft, input)
    if align_to_window:
        from .padding import pad

        left = (n_fft - win) // 2
        n_frames = 1 + (length - win) // hop
        x = pad(x, [left, left])
        padded = x._data.shape[1]
        if (n_frames - 1) * hop + n_fft > padded:  # torch's as_strided of frames past the end
            item = x._data.dtype.itemsize
            raise RuntimeError(
                f"setStorage: sizes [{batch}, {n_frames}, {n_fft}], strides [{padded}, {hop}, 1], storage offset 0, "
                f"and itemsize {item} requiring a storage size of {item * (batch * padded - padded + (n_frames - 1) * hop + n_fft)} "
                f"are out of bounds for storage of size {item * batch * padded}"
            )
    else:
        n_frames = 1 + (length - n_fft) // hop
    frames = _frames(x, n_frames, n_fft, hop)
    if full_window is not None:
        frames = frames * full_window
    complex_fft = frames._data.dtype.kind == "c"
    sided = (not complex_fft) if onesided is None else bool(onesided)
    norm = _fft.NORM_SQRT if normalized else _fft.NORM_NONE
    if complex_fft:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = _fft.c2c(frames, (2,), norm, True)
    else:
        if frames._data.dtype == xp.float16:
            raise RuntimeError("MKL FFT doesn't support tensors of type: Half")
        out = _fft.r2c(frames, (2,), norm, sided)
    out = transpose_(out, 1, 2)
    if input._data.ndim == 1:
        out = squeeze_(out, 0)
    return out if complex_out else view_as_real(out)


# ------------------------------------------------------------------ istft


def _as_complex(x: Tensor) -> Tensor:
    """SpectralOps.cpp as_complex: view_as_complex, after a contiguous clone when the strides do not allow it."""
    from .complex import view_as_complex
    from .shape import clone

    strides = x.stride()
    viewable = all(s % 2 == 0 for s in strides[:-1]) and strides[-1] == 1 and x.storage_offset() % 2 == 0
    return view_as_complex(x if viewable else clone(x))


def istft(input: Tensor, n_fft: int, hop_length=None, win_length=None, window=None, center: bool = True,  # noqa: A002
          normalized: bool = False, onesided=None, length=None, return_complex: bool = False) -> Tensor:
    """torch.istft: the least-squares inverse of :func:`stft`: each frame's inverse transform times the window,
    overlap-added, divided by the overlap-added squared window (the envelope).

    ``input``: the complex (N, T) or (B, N, T) output of stft (N = n_fft // 2 + 1 one-sided, or n_fft).
    Returns (B?, L) with L = n_fft + hop_length * (T - 1), less n_fft // 2 on each side when ``center``, or
    ``length`` points (zero-padded at the end with torch's once-per-process warning if the signal is
    shorter); real unless ``return_complex`` (which needs a two-sided input). The window must be the stft's
    (none: ones, with torch's once-per-process warning).

    Raises:
        RuntimeError: real input; an empty input; not 2-D/3-D complex; a frequency size not matching n_fft;
            hop_length / win_length / window out of range (torch's messages, which print the arguments); a
            complex window with ``return_complex=False``; a one-sided input with ``return_complex=True``; an
            envelope below 1e-11 somewhere (the NOLA condition: ``window overlap add min``).
        IndexError: a 0-d or 1-D input (torch's size(-3) fails).
    Source: SpectralOps.cpp istft.
    """
    from .._creation import ones
    from .complex import resolve_conj, view_as_real
    from .indexing import slice_view
    from .padding import pad
    from .shape import squeeze, transpose, unsqueeze, view

    if window is None:
        _warn_once(_ISTFT_NO_WINDOW)
    hop = (n_fft >> 2) if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if input._data.dtype.kind != "c":
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with return_complex=True."
        )
    x = view_as_real(resolve_conj(input))
    input_dim = x._data.ndim
    n_frames = x.size(-2)
    fft_size = x.size(-3)
    expected_len = n_fft + hop * (n_frames - 1)

    def fail(text: str, sep: str = ": "):
        return RuntimeError(
            f"istft({_describe(input)}{_sizes(input)}, n_fft={n_fft}, hop_length={hop}, win_length={win}, "
            f"window={_window_repr(window)}, center={int(bool(center))}, normalized={int(bool(normalized))}, "
            f"onesided={_opt(onesided)}, length={_opt(length)}, return_complex={int(bool(return_complex))}) "
            f"{sep}{text}"
        )

    if x._data.size == 0:
        raise fail("input tensor cannot be empty.")
    if input_dim not in (3, 4):
        raise fail(f"expected a tensor with 3 or 4 dimensions, but got {input_dim}")
    sided = (fft_size != n_fft) if onesided is None else bool(onesided)
    if sided and n_fft // 2 + 1 != fft_size:
        raise fail("expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 "
                   f"when onesided=True, but got {fft_size}")
    if not sided and n_fft != fft_size:
        raise fail("expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
                   f"onesided=False, but got {fft_size}")
    if not (0 < hop <= win):
        raise fail("expected 0 < hop_length <= win_length")
    if not (0 < win <= n_fft):
        raise fail("expected 0 < win_length <= n_fft")
    if window is not None and (window._data.ndim != 1 or window._data.shape[0] != win):
        raise fail("Invalid window shape. window has to be 1D and length of `win_length`")

    window_tmp = window if window is not None else ones(win, dtype=x.dtype)
    if win != n_fft:
        left = (n_fft - win) // 2
        window_tmp = pad(window_tmp, [left, n_fft - win - left])
    if input_dim == 3:
        x = unsqueeze(x, 0)
    x = _as_complex(transpose(x, 1, 2))  # (channel, n_frames, fft_size)
    norm = _fft.NORM_SQRT if normalized else _fft.NORM_N
    if return_complex:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        x = _fft.c2c(x, (2,), norm, False)
    else:
        if window is not None and window._data.dtype.kind == "c":
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not sided:
            x = slice_view(x, 2, 0, n_fft // 2 + 1)
        x = _fft.c2r(x, (2,), norm, n_fft)
    y = x * view(window_tmp, 1, 1, n_fft)
    y = apply(_OverlapAdd, (y,), ((y._data.shape[0], expected_len), 1, n_fft, hop))
    envelope = (window_tmp ** 2).expand(1, n_frames, n_fft)
    envelope = apply(_OverlapAdd, (envelope,), ((1, expected_len), 1, n_fft, hop))
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = -(n_fft // 2) if center else expected_len
    y = slice_view(y, 1, start, end)
    envelope = slice_view(envelope, 1, start, end)
    if bool((envelope.abs().min() < 1e-11).item()):
        raise fail("window overlap add min: 1\n[ CPUBoolType{} ]", sep="")
    y = y / envelope
    if input_dim == 3:
        y = squeeze(y, 0)
    if end > expected_len:
        _warn_once(_ISTFT_PADDED)
        y = pad(y, [0, end - expected_len])
    return y


EXPORTS: dict = {"stft": stft, "istft": istft}
TENSOR_METHODS: dict = {"stft": stft, "istft": istft}
FFT_EXPORTS: dict = {}
