"""Helpers shared by the distributions (torch.distributions.utils): parameter broadcasting, the
probs/logits conversions, cached properties and the packing of a triangle into a vector."""

from __future__ import annotations

import functools

import dyngrad

from .._tensor import Size, Tensor

# The Euler-Mascheroni constant (DLMF 5.2.3), for Gumbel and Weibull moments.
euler_constant = 0.57721566490153286060

__all__ = [
    "broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property", "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]

_NUMBER = (int, float, bool)


def broadcast_all(*values) -> tuple:
    """The arguments (numbers or tensors) as tensors broadcast to one shape.

    Numbers become tensors of the first tensor argument's dtype, or of the default dtype when all are
    numbers. Raises ValueError (torch's text) for anything else."""
    if not all(isinstance(v, (Tensor, *_NUMBER)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, torch.Tensor or objects implementing __torch_function__."
        )
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None else dyngrad.get_default_dtype()
    tensors = [v if isinstance(v, Tensor) else dyngrad.tensor(v, dtype=dtype) for v in values]
    return dyngrad.broadcast_tensors(*tensors)


def _standard_normal(shape, dtype, device=None) -> Tensor:
    """N(0, 1) noise of ``shape`` (the base noise of every location-scale rsample)."""
    return dyngrad.empty(shape, dtype=dtype).normal_()


def _sum_rightmost(value, dim: int):
    """``value`` summed over its ``dim`` rightmost dims (a no-op for 0)."""
    if dim == 0:
        return value
    return value.reshape(value.shape[: value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """sigmoid(logits) for a binary variable, softmax over the last dim otherwise."""
    if is_binary:
        return dyngrad.sigmoid(logits)
    return dyngrad.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities clamped to [eps, 1 - eps] of their dtype, so their logs stay finite."""
    eps = dyngrad.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """log p - log(1 - p) for a binary variable, log p otherwise (p clamped by clamp_probs)."""
    p = clamp_probs(probs)
    if is_binary:
        return dyngrad.log(p) - dyngrad.log1p(-p)
    return dyngrad.log(p)


class lazy_property:  # noqa: N801 - torch's name
    """A property computed on first access (with grad mode on) and then stored on the instance, so a
    parameter given one way (``probs``) yields the other (``logits``) once, and an instance that was
    given the value directly never calls the function."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped
        functools.update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with dyngrad.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _tril_mask(n: int, diag: int) -> Tensor:
    rows = dyngrad.arange(n)
    return rows < rows.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries of the last two dims' lower triangle (below diagonal ``diag``) in row-major order.

    Raises ValueError when ``diag`` is outside [-n, n - 1]."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The inverse of tril_matrix_to_vec: a (..., D, D) matrix with ``vec`` in its lower triangle, zeros
    elsewhere. D solves D (D + 1) / 2 + D diag = len (a triangle with diagonal ``diag``).

    Raises ValueError when the last dim's size is no such triangle's."""
    m = vec.shape[-1]
    k = 1 + 2 * diag
    n = (-k + (k * k + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > dyngrad.finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {m} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + Size((n, n)))
    mat[..., _tril_mask(n, diag)] = vec
    return mat


def _is_number(value) -> bool:
    return isinstance(value, _NUMBER)


def _batch_shape(given, broadcast: Tensor) -> Size:
    """A scalar batch when every parameter was given as a Python number, else the broadcast parameters'."""
    return Size() if all(_is_number(v) for v in given) else broadcast.size()


def _one_of(probs, logits) -> None:
    """torch's check that a distribution got exactly one of ``probs`` and ``logits``."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class _BinaryParameter:
    """Mixin for distributions of a binary trial given by ``probs`` or ``logits`` (Bernoulli, Binomial,
    Geometric, ...): the other one is derived on first use (lazy_property), ``_param`` is the given one."""

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def _expand_trial(self, new, shape) -> None:
        """Give ``new`` this instance's given parameter(s), expanded to ``shape``."""
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(shape))
                new._param = new.__dict__[name]
