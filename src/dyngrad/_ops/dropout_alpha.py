"""alpha_dropout, feature_alpha_dropout and dropout3d (torch.nn.functional), drawing their masks as torch.

aten's ``_dropout_impl`` (native/Dropout.cpp) on the CPU: a Bernoulli(1 - p) ``noise`` (``empty_like(input)``,
or ``(N, C, 1, ...)`` for the feature variants) drawn by ``bernoulli_(1 - p)`` from torch's stream; for the alpha
variants, with alpha = 1.7580993408473766 (SELU's negative saturation, Klambauer et al. 2017, "Self-Normalizing
Neural Networks") and ``a = 1 / sqrt((alpha^2 p + 1)(1 - p))``:
``b = (noise - 1) * (alpha a) + alpha a p``, ``noise *= a`` and the result ``input * noise + b`` (MulBackward0
then AddBackward0), each step rounded in the input's dtype. Not training, p == 0 or an empty input return the
input itself; p == 1 multiplies by a 0-d zero.
"""

from __future__ import annotations

import math
import warnings

from .. import _dtype
from .._backend import generator, xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._random_kernels import arrange, bernoulli_scalar, is_dense
from .._tensor import Tensor, wrap
from . import pointwise as pw
from .nn_kernels import _check_bernoulli, _check_p, _feature_dropout

_ALPHA = 1.7580993408473766


def _noise(a, p: float, feature: bool):
    """The Bernoulli(1 - p) noise in a's dtype: input-shaped (a's strides when dense) or (N, C, 1, ...)."""
    if feature:
        if a.ndim < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = a.shape[:2] + (1,) * (a.ndim - 2)
        n = a.shape[0] * a.shape[1]
        return bernoulli_scalar(generator(), n, 1 - p).reshape(shape).astype(a.dtype)
    strides = a.strides if is_dense(a) else xp.empty(a.shape, dtype=a.dtype).strides
    return arrange(bernoulli_scalar(generator(), a.size, 1 - p), a.shape, strides).astype(a.dtype)


def _alpha_impl(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:  # noqa: A002
    _check_p(p)
    a = input._data
    if p == 0 or not training or a.size == 0:
        return input
    if a.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_dtype.scalar_type_name(a.dtype)}")
    _check_bernoulli(a, p)
    if p == 1:
        zero = wrap(xp.zeros((), dtype=a.dtype))
        return input.mul_(zero) if inplace else pw.mul(input, zero)
    t = a.dtype.type
    noise = _noise(a, p, feature)
    scale = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
    b = ((noise + t(-1)) * t(_ALPHA * scale) + t(_ALPHA * scale * p)).astype(a.dtype)
    noise = (noise * t(scale)).astype(a.dtype)
    if inplace:
        return input.mul_(wrap(noise)).add_(wrap(b))
    return pw.mul(input, wrap(noise)).add_(wrap(b))


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:  # noqa: A002
    """torch.nn.functional.alpha_dropout: dropout that keeps SELU's self-normalisation (mean and variance).

    Errors: ValueError for p outside [0, 1] (torch's text)."""
    return _alpha_impl(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,  # noqa: A002
                          inplace: bool = False) -> Tensor:
    """torch.nn.functional.feature_alpha_dropout: alpha dropout of whole channels (dim 1). Errors: ValueError for
    p outside [0, 1]; RuntimeError for an input of fewer than 2 dims when training."""
    return _alpha_impl(input, p, training, inplace, feature=True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """torch.nn.functional.dropout3d: channel-wise dropout of (N, C, D, H, W) or (C, D, H, W) inputs (other ranks
    warn, as torch, and are read as batched). Errors: ValueError for p outside [0, 1]."""
    _check_p(p)
    nd = input.ndim
    if nd not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {nd}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout3d "
            "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    if nd == 5:
        return _feature_dropout(input, p, training, inplace)
    x = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    out = _feature_dropout(x, p, training, inplace)
    return out.squeeze_(0) if inplace else out.squeeze(0)


EXPORTS: dict = {
    "alpha_dropout": lambda input, p, train: alpha_dropout(input, p, train),  # noqa: A006 - torch.alpha_dropout
    "feature_alpha_dropout": lambda input, p, train: feature_alpha_dropout(input, p, train),  # noqa: A006
    "alpha_dropout_": lambda input, p, train: alpha_dropout(input, p, train, inplace=True),  # noqa: A006
}
FUNCTIONAL_EXPORTS: dict = {
    "alpha_dropout": alpha_dropout, "feature_alpha_dropout": feature_alpha_dropout, "dropout3d": dropout3d,
}
