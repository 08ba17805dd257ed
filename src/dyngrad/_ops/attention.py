"""Attention kernels: ``scaled_dot_product_attention`` and ``multi_head_attention_forward``
(torch.nn.functional), with ``_safe_softmax``.

torch's CPU ``scaled_dot_product_attention`` picks one of two implementations (aten's
``select_sdp_backend_cpp``), and the grad_fn shows which ran:

- the fused flash kernel (``ScaledDotProductFlashAttentionForCpuBackward0``, one node whose edges are
  query, key and value) when the three are 4-D with equal batch and head sizes (or grouped heads with
  ``enable_gqa``), equal head dims, non-empty sequences, unit-stride last dims, ``dropout_p == 0`` and a mask that is 2-D or
  4-D and does not require grad;
- otherwise the composite "math" path (aten's ``_scaled_dot_product_attention_math``): q and k each
  scaled by sqrt(scale) (MulBackward1), q @ k^T, the mask added (AddBackward0), ``_safe_softmax``
  (SafeSoftmaxBackward0: a row whose every score is -inf gives zeros, not NaN), dropout, @ v.

Both compute softmax(q k^T * scale + mask) v with scale = 1/sqrt(E) by default; a boolean mask is
True where attention is allowed (converted to 0 / -inf), ``is_causal`` allows key j for query i when
j <= i (top-left aligned: ``ones(L, S).tril()``). The flash node's backward is the usual attention
gradient (dV = P^T dO; dS = P * (dO V^T - D), D = rowsum(dO * O); dQ = dS K scale; dK = dS^T Q scale),
on arrays by head blocks with the forward's P (Note [Attention in head blocks]), and with dyngrad ops
under create_graph; torch raises for its second derivative ("derivative for
aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented"), so does dyngrad.

``multi_head_attention_forward`` follows torch.nn.functional's Python function step by step (packed or
separate in-projections, bias_k/bias_v, add_zero_attn, key_padding_mask merged into the mask, the
``need_weights`` path with bmm/baddbmm and the SDPA path otherwise), with its assertion texts.
"""

from __future__ import annotations

import math
import warnings

from .. import _creation
from .._backend import xp
from .._dtype import FLOATING_KINDS, scalar_type_name
from .._dtype import bool as _bool
from .._dtype import float32 as _float32
from .._tensor import Tensor, wrap
from ..autograd import saved_hooks
from ..autograd.grad_mode import _state, no_grad
from . import join_split
from . import matmul as mm
from . import nn_kernels as nk
from . import reduction as red
from . import shape as sh
from .broadcast import broadcast_shape
from .registry import Op, apply, apply_multi, register
from .special_ops import MulBackward1

# ------------------------------------------------------------------ safe softmax


def _safe_softmax_array(a, axis: int):
    """softmax along ``axis``; where every entry of a slice is -inf the slice is zeros (aten's _safe_softmax)."""
    if a.size == 0:
        return a.copy()
    m = a.max(axis=axis, keepdims=True)
    dead = xp.isneginf(m)
    e = xp.exp(a - xp.where(dead, 0, m))
    s = e.sum(axis=axis, keepdims=True)
    s[dead] = 1  # the slice's exps are all 0: 0 / 1 = 0
    e *= 1 / s
    return e


@register
class SafeSoftmaxBackward0(Op):
    """_safe_softmax(input, dim): softmax, except that fully masked (all -inf) rows give 0 (aten, 2.5+).

    Backward as softmax's (derivatives.yaml routes _safe_softmax to _softmax_backward_data):
    grad_input = y * (grad - sum(grad * y, dim)), which is 0 on the zero rows.
    """

    save_result = True

    @staticmethod
    def forward(a, axis):
        return _safe_softmax_array(a, axis)

    def backward(self, g):
        (axis,) = self._params
        y = self.saved_result()
        return (y * (g - red.sum(g * y, axis, keepdim=True)),)


def _safe_softmax(x: Tensor, dim: int) -> Tensor:
    return apply(SafeSoftmaxBackward0, (x,), (dim % max(x.dim(), 1),))


# ------------------------------------------------------------------ flash (fused) kernel


def _additive_mask(mask, dtype, causal: bool, L: int, S: int):
    """The mask as an array to add to the scores: bool -> 0 / -inf, float cast to ``dtype``, causal -inf added."""
    out = None
    if mask is not None:
        out = xp.where(mask, 0.0, -xp.inf).astype(dtype) if mask.dtype == xp.bool_ else mask.astype(dtype)
    if causal:
        c = xp.where(xp.tril(xp.ones((L, S), dtype=bool)), 0.0, -xp.inf).astype(dtype)
        out = c if out is None else out + c
    return out


def _repeat_heads(a, rep: int):
    return a if rep == 1 else xp.repeat(a, rep, axis=-3)


def _blasable(a):
    """``a`` itself when BLAS can read its matrices (one of the last two dims has unit stride), else a copy."""
    if a.ndim >= 2 and a.size and a.strides[-1] != a.itemsize and a.strides[-2] != a.itemsize:
        return xp.ascontiguousarray(a)
    return a


def _softmax_rows_inplace(s):
    """_safe_softmax over the last axis of ``s``, in place: exp(s - rowmax) / rowsum; all -inf rows give 0."""
    m = s.max(axis=-1, keepdims=True)
    dead = xp.isneginf(m)
    if dead.any():
        m[dead] = 0  # the row's exps are all 0; 0 * (1 / 1) = 0 below
    s -= m
    xp.exp(s, out=s)
    d = s.sum(axis=-1, keepdims=True)
    if dead.any():
        d[dead] = 1
    s *= 1 / d
    return s


# Note [Attention in head blocks]
# The (B, H, L, S) scores are the large array of attention: on the benchmark's shapes (16, 8, 128, 128)
# they are 8 MB of float32, and each NumPy pass over them (scale, max, shift, exp, sum, normalise) reads
# and writes main memory. The flash node therefore works on a few heads at a time, sized so that one
# block of scores (about _BLOCK_BYTES) stays in the L2 cache from its product q k^T through the softmax
# to its product with v (and, in backward, from dP = dO v^T to dQ and dK): each block is a handful of
# batched BLAS calls, and the passes between them hit the cache. The probabilities P are kept for
# backward (one array of the scores' size, while the graph lives), so backward does not recompute q k^T
# and the softmax; torch's flash kernel keeps only the row log-sum-exps and recomputes P block by block.
# Above _KEEP_PROBS_BYTES of scores (long sequences, where a model of several layers would hold one P
# per layer) the node keeps nothing and backward recomputes each block's P, as torch's kernel does.
_BLOCK_BYTES = 256 << 10
_KEEP_PROBS_BYTES = 64 << 20


def _block_probs(q, kt, mask, sc, i: int, hs: slice, out=None):
    """softmax(q k^T * scale + mask) for block (batch i, heads hs), written into ``out`` if given."""
    s = xp.matmul(q[i, hs], kt[i, hs], out=out)
    s *= sc
    mb = _mask_block(mask, i, hs)
    if mb is not None:
        s += mb
    return _softmax_rows_inplace(s)


def _blocks(b: int, h: int, per_head: int):
    """(batch index, head slice) pairs covering (b, h) with about _BLOCK_BYTES of scores each."""
    hc = max(1, min(h, _BLOCK_BYTES // max(per_head, 1)))
    return [(i, slice(j, min(j + hc, h))) for i in range(b) for j in range(0, h, hc)]


def _mask_block(mask, i: int, hs: slice):
    """The part of a 2-D or 4-D additive mask that block (batch i, heads hs) adds (broadcast dims stay 1)."""
    if mask is None or mask.ndim == 2:
        return mask
    return mask[i if mask.shape[0] > 1 else 0, hs if mask.shape[1] > 1 else slice(None)]


@register
class ScaledDotProductFlashAttentionForCpuBackward0(Op):
    """The fused CPU attention of 4-D (B, H, L, E) query, (B, Hk, S, E) key and (B, Hk, S, Ev) value.

    Params: the additive mask array (or None, already with the causal part), the scale, the head
    repeat factor H // Hk (``enable_gqa``) and a list that receives the probabilities P when a graph
    is recorded (Note [Attention in head blocks]). Gradients for q, k, v only (the mask has no edge).
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(q, k, v, mask, scale, rep, cache=None):
        if not all(type(a) is xp.ndarray and a.ndim == 4 for a in (q, k, v)):
            # batched by vmap (more dims, or the batching layer's arrays): whole-array products, no blocks
            kr, vr = _repeat_heads(k, rep), _repeat_heads(v, rep)
            s = xp.matmul(q, xp.swapaxes(kr, -1, -2)) * q.dtype.type(scale)
            if mask is not None:
                s = s + mask
            return xp.matmul(_safe_softmax_array(s, -1), vr)
        q, kr, vr = _blasable(q), _blasable(_repeat_heads(k, rep)), _blasable(_repeat_heads(v, rep))
        b, h, L, _ = q.shape
        S = kr.shape[-2]
        out = xp.empty((b, h, L, vr.shape[-1]), dtype=q.dtype)
        keep = cache is not None and b * h * L * S * q.itemsize <= _KEEP_PROBS_BYTES
        probs = xp.empty((b, h, L, S), dtype=q.dtype) if keep else None
        sc = q.dtype.type(scale)
        kt = xp.swapaxes(kr, -1, -2)
        for i, hs in _blocks(b, h, L * S * q.itemsize):
            p = _block_probs(q, kt, mask, sc, i, hs, probs[i, hs] if keep else None)
            xp.matmul(p, vr[i, hs], out=out[i, hs])
        if keep:
            cache[:] = [probs]
        return out

    def backward_arrays(self, g):
        """The gradient on arrays (Note [Backward on arrays]), by head blocks (Note [Attention in head blocks]).

        dV = P^T dO; dS = P * (dO V^T - D) with D = rowsum(dO * O) (= rowsum(P * dO V^T), the flash
        attention paper's form); dQ = dS K scale; dK = dS^T Q scale.
        """
        q, k, v, out = (t._data for t in self.saved())
        mask, scale, rep, cache = self._params
        if not all(type(a) is xp.ndarray and a.ndim == 4 for a in (q, k, v, g)):  # batched by vmap
            return self._grads(wrap(g))
        # P from the forward, read once; recomputed by blocks when the forward kept none (large) or a second
        # backward runs through a retained graph
        probs = cache.pop() if cache else None
        q, kr, vr, g = _blasable(q), _blasable(_repeat_heads(k, rep)), _blasable(_repeat_heads(v, rep)), _blasable(g)
        b, h, L, _ = q.shape
        S = kr.shape[-2]
        dtype = xp.result_type(q, g)
        dq, dk, dv = (xp.empty(a.shape, dtype=dtype) for a in (q, kr, vr))
        rowdot = xp.einsum("...i,...i->...", g, out)[..., None]  # D: (B, H, L, 1)
        sc = q.dtype.type(scale)
        vt = xp.swapaxes(vr, -1, -2)
        kt = xp.swapaxes(kr, -1, -2)
        for i, hs in _blocks(b, h, L * S * q.itemsize):
            p = probs[i, hs] if probs is not None else _block_probs(q, kt, mask, sc, i, hs)
            xp.matmul(xp.swapaxes(p, -1, -2), g[i, hs], out=dv[i, hs])
            ds = xp.matmul(g[i, hs], vt[i, hs])
            ds -= rowdot[i, hs]
            ds *= p
            ds *= sc
            xp.matmul(ds, kr[i, hs], out=dq[i, hs])
            xp.matmul(xp.swapaxes(ds, -1, -2), q[i, hs], out=dk[i, hs])
        if rep > 1:
            dk = dk.reshape(k.shape[0], k.shape[1], rep, *dk.shape[2:]).sum(2)
            dv = dv.reshape(v.shape[0], v.shape[1], rep, *dv.shape[2:]).sum(2)
        return tuple(wrap(a) if fn is not None else None for a, (fn, _) in zip((dq, dk, dv), self.next_functions))

    def backward(self, g):
        if _state.enabled:  # create_graph=True: torch records a node that refuses a second derivative
            with no_grad():
                grads = self._grads(g)
            q, k, v = self.saved()[:3]
            wanted = [i for i, (fn, _) in enumerate(self.next_functions) if fn is not None]
            outs = apply_multi(_FlashBackwardNotImplemented, (q, k, v, g),
                               (tuple(grads[i]._data for i in wanted),))
            res = [None, None, None]
            for i, t in zip(wanted, outs):
                res[i] = t
            return tuple(res)
        return self._grads(g)

    def _grads(self, g):
        q, k, v = self.saved()[:3]
        mask, scale, rep, _ = self._params
        kr = sh.repeat_interleave(k, rep, dim=-3) if rep > 1 else k
        vr = sh.repeat_interleave(v, rep, dim=-3) if rep > 1 else v
        s = apply(MulBackward1, (mm.matmul(q, kr.transpose(-1, -2)),), (scale,))
        if mask is not None:
            s = s + wrap(mask)
        p = _safe_softmax(s, -1)
        dv = mm.matmul(p.transpose(-1, -2), g)
        dp = mm.matmul(g, vr.transpose(-1, -2))
        ds = p * (dp - red.sum(dp * p, -1, keepdim=True))
        dq = apply(MulBackward1, (mm.matmul(ds, kr),), (scale,))
        dk = apply(MulBackward1, (mm.matmul(ds.transpose(-1, -2), q),), (scale,))
        if rep > 1:
            b, hk = k.shape[0], k.shape[1]
            dk = dk.reshape(b, hk, rep, *dk.shape[2:]).sum(2)
            dv = dv.reshape(b, hk, rep, *dv.shape[2:]).sum(2)
        return dq, dk, dv


def _flash_double_backward(self, *grads):
    raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented")


# The gradients of the flash node under create_graph=True come from this node (torch's name for a
# formula-less node); it is not in the registry, having no gradient to compare.
_FlashBackwardNotImplemented = type("NotImplemented", (Op,), {
    "__slots__": (),
    "__doc__": "The flash attention backward's outputs under create_graph: its own backward raises, as torch's.",
    "forward": staticmethod(lambda *arrays: arrays[-1]),
    "backward": _flash_double_backward,
    "name": lambda self: "torch::autograd::NotImplemented",
    "__module__": __name__,
})


# ------------------------------------------------------------------ scaled_dot_product_attention


def _validate(query, key, value, attn_mask, dropout_p):
    """aten's validate_sdpa_input, with its texts."""
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_cpp_name(query)} key.dtype: {_cpp_name(key)} and value.dtype: {_cpp_name(value)} instead.")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if attn_mask is not None:
        md = attn_mask.dtype
        # torch's "float" is float32 itself: a float16 or float64 mask must match the query's dtype
        if not (md == _bool or md == _float32 or md == query.dtype):
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                f"{_cpp_name(attn_mask)} and  query.dtype: {_cpp_name(query)} instead.")
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")


_CPP_NAMES = {"Float": "float", "Double": "double", "Half": "c10::Half", "BFloat16": "c10::BFloat16",
              "Long": "long int", "Int": "int", "Short": "short int", "Char": "signed char", "Byte": "unsigned char",
              "Bool": "bool", "ComplexFloat": "c10::complex<float>", "ComplexDouble": "c10::complex<double>"}


def _cpp_name(t: Tensor) -> str:
    """The C++ type name torch prints for a dtype in SDPA's messages ('double', 'long int')."""
    name = scalar_type_name(t._data.dtype)
    return _CPP_NAMES.get(name, name)


def _gqa_ok(query, key, value) -> bool:
    hq, hk, hv = query.size(-3), key.size(-3), value.size(-3)
    if hq % hk or hq % hv:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return True


def _use_flash(query, key, value, attn_mask, dropout_p, enable_gqa) -> bool:
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4 or dropout_p > 0.0:
        return False
    if query._data.dtype.kind not in FLOATING_KINDS:
        return False
    if any(t.size(-1) > 1 and t.stride(-1) != 1 for t in (query, key, value)):  # strided last dim: math
        return False
    if attn_mask is not None and (attn_mask.dim() not in (2, 4) or attn_mask.requires_grad):
        return False
    if not (query.size(-1) == key.size(-1) == value.size(-1)) or key.size(-2) != value.size(-2):
        return False
    if not (query.size(0) == key.size(0) == value.size(0)):
        return False
    hq, hk, hv = query.size(1), key.size(1), value.size(1)
    if not (hq == hk == hv or (enable_gqa and hk == hv and hq % hk == 0)):
        return False
    return query.size(-2) > 0 and key.size(-2) > 0


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(query @ key^T * scale + mask) @ value (torch.nn.functional.scaled_dot_product_attention).

    Shapes: query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev); batch dims broadcast
    on the math path. ``attn_mask``: bool (True = may attend) or float (added), broadcast to (..., L, S).
    ``is_causal``: key j allowed for query i iff j <= i. ``scale`` defaults to 1/sqrt(E).
    ``enable_gqa``: key/value may have fewer heads (dim -3) than query, repeated to match.
    ``dropout_p``: dropout on the attention weights (inverted, as F.dropout).

    The result's grad_fn is torch's CPU choice (module docstring): ScaledDotProductFlashAttentionForCpuBackward0
    for the fused kernel, else the math path's nodes (UnsafeViewBackward0 from the final matmul).

    Raises torch's RuntimeErrors: mixed q/k/v dtypes, fewer than 2 dims, a mask dtype other than bool or
    float, dropout_p outside [0, 1], an explicit mask with ``is_causal`` (math path), head counts that do
    not divide (gqa), and broadcasting errors of the mask or batch dims.
    """
    _validate(query, key, value, attn_mask, dropout_p)
    if enable_gqa:
        _gqa_ok(query, key, value)
    if _use_flash(query, key, value, attn_mask, dropout_p, enable_gqa):
        b, h, L, _ = query.shape
        S = key.size(-2)
        sc = scale if scale is not None else 1.0 / math.sqrt(query.size(-1))
        mask = attn_mask._data if attn_mask is not None else None
        if mask is not None:
            broadcast_shape((b, h, L, S), mask.shape)  # torch's broadcasting error for a bad mask
        add = _additive_mask(mask, query._data.dtype, is_causal, L, S)
        # keep P for backward only when a graph is recorded and no saved_tensors_hooks (checkpointing,
        # save_on_cpu) decide what is stored: P would bypass them
        record = (_state.enabled and not saved_hooks.STACK
                  and (query.requires_grad or key.requires_grad or value.requires_grad))
        return apply(ScaledDotProductFlashAttentionForCpuBackward0, (query, key, value),
                     (add, sc, h // key.size(1), [] if record else None))
    return _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """aten's _scaled_dot_product_attention_math, op for op (so the grad_fn chain is torch's)."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    L, S = query.size(-2), key.size(-2)
    if enable_gqa:
        rep_k, rep_v = query.size(-3) // key.size(-3), query.size(-3) // value.size(-3)
        key = sh.repeat_interleave(key, rep_k, dim=-3) if rep_k > 1 else key
        value = sh.repeat_interleave(value, rep_v, dim=-3) if rep_v > 1 else value
    sc = scale if scale is not None else 1.0 / math.sqrt(query.size(-1))
    factor = math.sqrt(abs(sc))
    q = apply(MulBackward1, (query,), (-factor if sc < 0 else factor,))
    if is_causal:
        attn_mask = _creation.ones(L, S, dtype=_bool).tril()
    if attn_mask is not None and attn_mask.dtype == _bool:
        attn_mask = _creation.zeros(attn_mask.shape, dtype=query.dtype).masked_fill(attn_mask.logical_not(),
                                                                                    float("-inf"))
    k_t = apply(MulBackward1, (key.transpose(-2, -1),), (factor,))
    attn = mm.matmul(q, k_t)
    if attn_mask is not None:
        attn = attn + attn_mask
    attn = _safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = nk.dropout(attn, dropout_p, True)
    return mm.matmul(attn, value)


# ------------------------------------------------------------------ multi_head_attention_forward


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    """torch's _mha_shape_check: whether the input is batched, with its AssertionError texts."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                 f" but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                                 f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                                 f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                     f" but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(
        f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query tensor")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """torch's F._canonical_mask: a bool mask becomes a float mask of 0 / -inf in ``target_type``."""
    if mask is None:
        return None
    if mask.dtype != _bool and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not mask.dtype.is_floating_point:
        mask = _creation.zeros(mask.shape, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(t):
    if t is None:
        return None
    if isinstance(t, Tensor):
        return t.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _split_packed(proj: Tensor, n: int, e: int):
    """torch's unflatten(-1, (n, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous(), then its rows."""
    proj = proj.unflatten(-1, (n, e)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
    return [proj[i] for i in range(n)]


def _in_projection_packed(q, k, v, w, b=None):
    e = q.size(-1)
    if k is v:
        if q is k:
            return _split_packed(nk.linear(q, w, b), 3, e)
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        return [nk.linear(q, w_q, b_q), *_split_packed(nk.linear(k, w_kv, b_kv), 2, e)]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return [nk.linear(q, w_q, b_q), nk.linear(k, w_k, b_k), nk.linear(v, w_v, b_v)]


def _pad_last(t: Tensor) -> Tensor:
    """F.pad(t, (0, 1)): one zero column."""
    return join_split.cat([t, _creation.zeros((*t.shape[:-1], 1), dtype=t.dtype)], -1)


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight, out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None, use_separate_proj_weight: bool = False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True, is_causal: bool = False):
    """torch.nn.functional.multi_head_attention_forward: multi-head attention of (L, N, E) query and (S, N, E)
    key/value (unbatched (L, E) / (S, E) too).

    Returns (attn_output (L, N, E), attn_weights (N, L, S) averaged over heads, (N, H, L, S) if not
    ``average_attn_weights``, or None unless ``need_weights``). Masks: ``key_padding_mask`` (N, S) and
    ``attn_mask`` (L, S) or (N*H, L, S), bool (True = masked out) or float (added). Follows torch's Python
    function (Vaswani et al. 2017, "Attention is all you need"), including its AssertionError /
    RuntimeError texts for bad shapes and mask types.
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # SDPA builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = (nk.linear(query, q_proj_weight, b_q), nk.linear(key, k_proj_weight, b_k),
                   nk.linear(value, v_proj_weight, b_v))
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = join_split.cat([k, bias_k.repeat(1, bsz, 1)])
        v = join_split.cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, bsz, num_heads, head_dim, "static_k")
    v = _heads(v, static_v, bsz, num_heads, head_dim, "static_v")
    if add_zero_attn:
        zeros = (bsz * num_heads, 1, head_dim)
        k = join_split.cat([k, _creation.zeros(zeros, dtype=k.dtype)], 1)
        v = join_split.cat([v, _creation.zeros(zeros, dtype=v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got {key_padding_mask.shape[1]}")
        kpm = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
            bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        e = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(e))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = attn_mask.baddbmm(q_scaled, k.transpose(-2, -1))
        else:
            weights = q_scaled.bmm(k.transpose(-2, -1))
        weights = nk.softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = nk.dropout(weights, p=dropout_p)
        out = weights.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = nk.linear(out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.size(1))
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = nk.linear(out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.size(1))
    if not is_batched:
        out = out.squeeze(1)
    return out, None


def _heads(t, static, bsz, num_heads, head_dim, name):
    """(S, N, E) -> (N*H, S, head_dim), or the given static_k / static_v after torch's checks."""
    if static is None:
        return t.view(t.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if static.size(0) != bsz * num_heads:
        raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static


FUNCTIONAL_EXPORTS: dict = {  # dyngrad.nn.functional.<name>
    "scaled_dot_product_attention": scaled_dot_product_attention,
    "multi_head_attention_forward": multi_head_attention_forward,
    "_canonical_mask": _canonical_mask,
    "_none_or_dtype": _none_or_dtype,
    "_mha_shape_check": _mha_shape_check,
    "_in_projection_packed": _in_projection_packed,
}
EXPORTS: dict = {"_safe_softmax": lambda input, dim, dtype=None: _safe_softmax(  # noqa: A002
    input if dtype is None else sh.to(input, dtype), dim)}
