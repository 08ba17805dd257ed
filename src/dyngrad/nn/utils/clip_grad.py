"""Gradient clipping (torch.nn.utils.clip_grad_norm_ / clip_grad_value_).

The total norm is the ``norm_type``-norm of the per-tensor norms, as torch computes it; grads are
scaled by ``min(1, max_norm / (total_norm + 1e-6))``.
"""

from __future__ import annotations

import warnings

from ..._backend import xp
from ..._tensor import Tensor, wrap


def _norm(a, p: float):
    a = xp.abs(a).astype(xp.float64, copy=False).ravel()  # (|z| for complex grads: their norm is real)
    if p == float("inf"):
        return a.max() if a.size else 0.0
    if p == float("-inf"):
        return a.min() if a.size else float("inf")
    if p == 0:
        return float((a != 0).sum())
    return (a**p).sum() ** (1.0 / p)


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The norm of all ``tensors`` seen as one vector (torch.nn.utils.get_total_norm)."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return wrap(xp.array(0.0, dtype=xp.float32))
    norms = xp.array([_norm(t._data, norm_type) for t in tensors])
    total = _norm(norms, norm_type)
    out = wrap(xp.asarray(total).astype(tensors[0]._data.real.dtype))  # real for complex grads
    if error_if_nonfinite and not xp.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return out


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Scale the grads of ``parameters`` in place so their total norm is at most ``max_norm``; returns the
    total norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = hasattr(parameters, "__next__")
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p._grad for p in parameters if p._grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    if not grads:
        return total
    coef = float(max_norm) / (total._data.astype(xp.float64) + 1e-6)
    # torch computes the coefficient in the grads' dtype and clamps it at 1
    coef = min(xp.asarray(coef).astype(total._data.dtype), 1.0)
    for g in grads:
        g._data *= xp.asarray(coef).astype(g._data.real.dtype)
        g._vc[0] += 1
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """Deprecated alias of clip_grad_norm_ (with torch's warning)."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp each grad of ``parameters`` in place to [-clip_value, clip_value]."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    for p in parameters:
        if p._grad is not None:
            g = p._grad
            if g._data.dtype.kind == "c":  # torch clamps the grad: no complex ordering
                raise NotImplementedError("clamp is not supported for complex types")
            xp.clip(g._data, -clip_value, clip_value, out=g._data)
            g._vc[0] += 1
