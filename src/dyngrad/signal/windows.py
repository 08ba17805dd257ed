"""torch.signal.windows: window functions of length ``M`` with SciPy's conventions (``sym=True`` gives a
symmetric window for filter design, ``sym=False`` a periodic one for spectral analysis).

Every function returns a 1-D tensor of ``M`` values of ``dtype`` (float32 or float64; the default
dtype when None) and takes its options as keywords only: ``sym=True, dtype=None, layout=strided,
device=None, requires_grad=False``, plus its own parameters. As torch's (torch/signal/windows/windows.py)
the windows are built from tensor operations on ``linspace`` grids, so with ``requires_grad=True``
the result records them (``exp``: ExpBackward0, ``general_cosine``: SumBackward1 ...) and ``M = 0``
gives an empty leaf. The formulas (SciPy's, as torch's documentation gives them), with N = M - 1 for
symmetric windows and N = M for periodic ones (M > 1):
- exponential: exp(-|k - center| / tau), center (M - 1) / 2 or N / 2;
- cosine: sin(pi (k + 1/2) / (N + 1));
- gaussian: exp(-(k - N / 2)^2 / (2 std^2));
- kaiser: I0(beta sqrt(1 - (2k / N - 1)^2)) / I0(beta);
- general_cosine: sum_i (-1)^i a_i cos(2 pi i k / N); hamming/hann/general_hamming are it with
  a = (alpha, 1 - alpha) (alpha 0.54, 0.5), blackman with (0.42, 0.5, 0.08), nuttall with
  (0.3635819, 0.4891775, 0.1365995, 0.0106411);
- bartlett: 1 - |2k / N - 1|.

Raises (torch's texts): ValueError for a negative M (``<name> requires non-negative window length,
got M=-1``), a layout other than strided, a dtype other than float32/float64, a non-positive tau
or std, a negative beta, a center given with sym=True, empty coefficients; TypeError for
coefficients that are not iterable. hann, hamming, general_hamming and nuttall report their checks
under the name ``general_cosine``, as torch's do.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .. import _dtype
from .._creation import arange, empty, linspace, ones, tensor
from .._ops.bessel import i0
from .._ops.clamp_minmax import minimum
from .._ops.pointwise import abs as _abs
from .._ops.pointwise import cos, exp, sin, sqrt
from .._ops.pointwise import pow as _pow
from .._tensor import Tensor, strided

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming",
    "hann", "kaiser", "nuttall",
]


def _checks(name: str, M: int, dtype, layout) -> None:  # noqa: N803 - torch's name
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")


def _dtype_or_default(dtype):
    return _dtype.get_default_dtype() if dtype is None else dtype


def _empty(dtype, device, requires_grad) -> Tensor:
    return empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)


def _ones(dtype, device, requires_grad) -> Tensor:
    return ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True, dtype=None,  # noqa: N803
                layout=strided, device=None, requires_grad: bool = False) -> Tensor:
    """The exponential (Poisson) window exp(-|k - center| / tau); ``center`` only for sym=False."""
    dtype = _dtype_or_default(dtype)
    _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = linspace(-center * constant, (-center + (M - 1)) * constant, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    return exp(-_abs(k))


def cosine(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,  # noqa: N803
           requires_grad: bool = False) -> Tensor:
    """The cosine (sine) window sin(pi (k + 1/2) / M') with M' = M, or M + 1 for a periodic window."""
    dtype = _dtype_or_default(dtype)
    _checks("cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, device, requires_grad)
    start = 0.5
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = linspace(start * constant, (start + (M - 1)) * constant, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    return sin(k)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=strided, device=None,  # noqa: N803
             requires_grad: bool = False) -> Tensor:
    """The Gaussian window exp(-((k - N/2) / std)^2 / 2)."""
    dtype = _dtype_or_default(dtype)
    _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty(dtype, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = linspace(start * constant, (start + (M - 1)) * constant, M, dtype=dtype, device=device,
                 requires_grad=requires_grad)
    return exp(-(k**2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=strided, device=None,  # noqa: N803
           requires_grad: bool = False) -> Tensor:
    """The Kaiser window I0(beta sqrt(1 - (2k/N - 1)^2)) / I0(beta) (I0: Cephes, as torch.i0)."""
    dtype = _dtype_or_default(dtype)
    _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if M == 1:
        return _ones(dtype, device, requires_grad)
    beta = tensor(beta, dtype=dtype, device=device)  # torch: a tensor, so that the grid is computed in dtype
    start = -beta
    constant = 2.0 * beta / (M if not sym else M - 1)
    end = minimum(beta, start + (M - 1) * constant)
    k = linspace(start, end, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return i0(sqrt(beta * beta - _pow(k, 2))) / i0(beta)


def general_cosine(M, *, a: Iterable, sym: bool = True, dtype=None, layout=strided, device=None,  # noqa: N803
                   requires_grad: bool = False) -> Tensor:
    """sum_i (-1)^i a_i cos(2 pi i k / N): the generalised cosine window with coefficients ``a``."""
    dtype = _dtype_or_default(dtype)
    _checks("general_cosine", M, dtype, layout)
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if M == 1:
        return _ones(dtype, device, requires_grad)
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = linspace(0, (M - 1) * constant, M, dtype=dtype, device=device, requires_grad=requires_grad)
    signed = tensor([(-1) ** i * w for i, w in enumerate(a)], device=device, dtype=dtype, requires_grad=requires_grad)
    orders = arange(signed.shape[0], dtype=signed.dtype, requires_grad=signed.requires_grad)
    return (signed.unsqueeze(-1) * cos(orders.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=strided,  # noqa: N803
                    device=None, requires_grad: bool = False) -> Tensor:
    """alpha - (1 - alpha) cos(2 pi k / N): general_cosine with a = (alpha, 1 - alpha)."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,  # noqa: N803
            requires_grad: bool = False) -> Tensor:
    """The Hamming window: general_hamming with alpha = 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,  # noqa: N803
         requires_grad: bool = False) -> Tensor:
    """The Hann window: general_hamming with alpha = 0.5."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,  # noqa: N803
             requires_grad: bool = False) -> Tensor:
    """The Blackman window: general_cosine with a = (0.42, 0.5, 0.08)."""
    dtype = _dtype_or_default(dtype)
    _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,  # noqa: N803
             requires_grad: bool = False) -> Tensor:
    """The triangular Bartlett window 1 - |2k/N - 1|."""
    dtype = _dtype_or_default(dtype)
    _checks("bartlett", M, dtype, layout)
    if M == 0:
        return _empty(dtype, device, requires_grad)
    if M == 1:
        return _ones(dtype, device, requires_grad)
    start = -1
    constant = 2 / (M if not sym else M - 1)
    k = linspace(start, start + (M - 1) * constant, M, dtype=dtype, device=device, requires_grad=requires_grad)
    return 1 - _abs(k)


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=strided, device=None,  # noqa: N803
            requires_grad: bool = False) -> Tensor:
    """The minimum 4-term Blackman-Harris window of Nuttall: general_cosine with
    a = (0.3635819, 0.4891775, 0.1365995, 0.0106411)."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)
