"""How ops run on bfloat16 arrays: in float32, the result rounded to bfloat16 once (Note [bfloat16 compute]).

Note [bfloat16 compute]
torch's CPU kernels load bfloat16 values into float32 ("opmath"), compute there, and store the result
rounded to bfloat16 once per op; reductions and matrix products accumulate in float32. dyngrad's op
forwards are NumPy code of several steps (a sigmoid is an exp, an add and a division), which on
``ml_dtypes.bfloat16`` arrays would round after every step, and NumPy sums bfloat16 in bfloat16. So while
a bfloat16 dtype has been used (``forward_ad.STATE.bf16``, a sticky flag that sends ops to registry's slow
path and costs nothing to programs that never use bfloat16), an op with a bfloat16 input array:

- runs as it is when it only moves data (a view must stay a view of its input): the shape, indexing, copy
  and complex-view ops, casts, and the other ops whose result is made a view (``_VIEW_OPS``);
- otherwise gets its bfloat16 arrays as float32 (exact: every bfloat16 is a float32). A Python number stays
  a float32 number, as torch's mul/div kernels take it, except in add and sub, whose kernels see it rounded
  to bfloat16 first (found by comparing with torch: ``x - 0.3`` differs otherwise in a third of the values);
  when every floating input was bfloat16 its floating results are rounded to bfloat16 (round to nearest
  even, ml_dtypes' cast, as c10::BFloat16's), otherwise (a float32 input: torch promotes) they stay.

Backward formulas are dyngrad ops too, so gradients are bfloat16 and each backward op rounds once; where
torch fuses a backward into one kernel (tanh_backward: ``g * (1 - y * y)`` rounded once), dyngrad rounds
after each op of the formula: such gradients may differ from torch's by a bfloat16 ulp (docs/differences.md).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype

_F32 = np.dtype(np.float32)
_ndarray = np.ndarray

# modules whose ops only move or pick data: they run on the bfloat16 arrays as they are
_DATA_MOVEMENT_MODULES = frozenset(
    "dyngrad._ops." + m
    for m in ("shape", "join_split", "diagonals", "padding", "shape_extras", "indexing", "indexing_extra", "copies",
              "broadcast", "inplace", "complex")
)
# the view ops defined elsewhere (every op whose result _mark_view makes a view of its input)
_VIEW_OPS = frozenset(("_Frames", "ReshapeAliasBackward0"))
_runs_as_is: dict = {}  # op class -> whether it runs on bfloat16 arrays unchanged


def _round_number(value):
    """A Python number as torch's kernels see it next to a bfloat16 tensor: rounded to bfloat16."""
    t = type(value)
    if t is float or (t is int and abs(value) > 256):  # (integers up to 256 are exact bfloat16 values)
        return float(np.asarray(value, _F32).astype(_dtype.BF16_NP))  # through float, as c10::BFloat16(double)
    return value


_ROUNDS_NUMBERS = ("AddBackward", "SubBackward", "RsubBackward")
# normalizations whose result has the input's dtype when their weight/bias are float32 (aten's mixed type)
_FOLLOWS_INPUT = frozenset(("NativeLayerNormBackward0", "NativeBatchNormBackward0", "NativeGroupNormBackward0"))


def _log_softmax_bf16(a, axis, cache=None):
    """torch's bfloat16 log_softmax kernel on float32 values: the sum of exp(x - max) and its log are each
    rounded to bfloat16 before ``x - max - log(sum)`` (found by comparing with torch: it matches to the bit)."""
    bf16 = _dtype.BF16_NP
    m = a.max(axis=axis, keepdims=True)
    total = np.exp(a - m).sum(axis=axis, keepdims=True).astype(bf16).astype(_F32)
    return a - m - np.log(total).astype(bf16).astype(_F32)


# ops whose float32 forward is not torch's bfloat16 kernel: their bfloat16 forward (on float32 values)
_BF16_FORWARDS = {"LogSoftmaxBackward0": _log_softmax_bf16}


def _to_compute(op, arrays, params):
    """(float32 arrays and rounded numbers, whether floating results round back to bfloat16)."""
    bf16 = _dtype.BF16_NP
    round_numbers = op.__name__.startswith(_ROUNDS_NUMBERS)
    other_float = False
    up = []
    for a in arrays:
        if type(a) is _ndarray:
            if a.dtype == bf16:
                a = a.astype(_F32)
            elif a.dtype.kind in "fc":
                other_float = True
        elif round_numbers:
            a = _round_number(a)
        up.append(a)
    explicit_dtype = False
    for p in params:
        if isinstance(p, (np.dtype, _dtype.dtype)):
            if p == bf16 or p is _dtype.bfloat16:  # a bfloat16 result asked for: computed in float32, rounded
                continue
            explicit_dtype = True
    if op.__name__ in _FOLLOWS_INPUT:  # float32 parameters of a bfloat16 input ("mixed type"): the input's dtype
        first = arrays[0]
        return up, type(first) is _ndarray and first.dtype == bf16
    return up, not (other_float or explicit_dtype)


def _round_back(out):
    if isinstance(out, (_ndarray, np.floating)) and out.dtype.kind == "f":  # (NumPy gives 0-d results as scalars)
        return np.asarray(out).astype(_dtype.BF16_NP)
    return out


def has_bf16(arrays) -> bool:
    bf16 = _dtype.BF16_NP
    for a in arrays:
        if type(a) is _ndarray and a.dtype == bf16:
            return True
    return False


def _f32_params(params):
    """``params`` with a bfloat16 dtype (an explicit result dtype) replaced by float32, the compute type."""
    bf16 = _dtype.BF16_NP
    return tuple(_F32 if isinstance(p, np.dtype) and p == bf16 else p for p in params)


def compute(op, arrays, params):
    """Run ``op``'s forward on ``arrays`` (one of them bfloat16) and ``params`` by Note [bfloat16 compute]; its
    result (an array or a tuple of arrays) is returned, rounded as the note says."""
    forward = op.forward
    as_is = _runs_as_is.get(op)
    if as_is is None:
        as_is = _runs_as_is[op] = op.__module__ in _DATA_MOVEMENT_MODULES or op.__name__ in _VIEW_OPS
    if as_is:
        return forward(*arrays, *params)
    up, round_back = _to_compute(op, arrays, params)
    forward = _BF16_FORWARDS.get(op.__name__, forward)
    out = forward(*up, *_f32_params(params))
    if not round_back:
        return out
    if type(out) is tuple:
        return tuple(_round_back(o) for o in out)
    return _round_back(out)


# Note [bfloat16 fused backward]
# Some of torch's gradients are one kernel (tanh_backward, sigmoid_backward, _softmax_backward_data,
# native_layer_norm_backward, gelu_backward, ...): on bfloat16 they compute in float32 and round once. dyngrad
# writes them as several ops, which would round after each; for these nodes the engine runs the formula on
# float32 copies of the gradient and the saved values and rounds the gradients once (``backward`` below).
FUSED_BACKWARD = frozenset((
    "TanhBackward0", "SigmoidBackward0", "LogSigmoidBackward0", "SoftmaxBackward0", "LogSoftmaxBackward0",
    "GeluBackward0", "SiluBackward0", "EluBackward0", "SoftplusBackward0",
    "HardswishBackward0", "MishBackward0", "ConvolutionBackward0",
))

# of those, the ones whose Tensor backward is the recorded (create_graph) form: their array backward is the kernel
_ARRAY_BACKWARD = frozenset(("ConvolutionBackward0",))


_MIXED = object()


def _up(value):
    """A saved value or gradient with bfloat16 data as a float32 one (same version counter); _MIXED if it is
    floating but not bfloat16 (the fused path is then not taken)."""
    from .._tensor import Tensor, wrap
    from ..autograd.graph import SavedResult

    data = getattr(value, "_data", None)
    if type(data) is not _ndarray:
        return value
    if data.dtype != _dtype.BF16_NP:
        return _MIXED if data.dtype.kind in "fc" else value
    if type(value) is SavedResult:
        return SavedResult(data.astype(_F32), value._vc)
    if isinstance(value, Tensor):
        t = wrap(data.astype(_F32))
        t._vc = value._vc
        return t
    return value


def backward(node, grads, create_graph: bool):
    """``node.backward(*grads)``, with Note [bfloat16 fused backward] for torch's one-kernel gradients."""
    saved = node._saved
    if create_graph or type(node).__name__ not in FUSED_BACKWARD or not saved or node._packed:
        return node.backward(*grads)
    up_saved = tuple(_up(v) for v in saved)
    up_grads = [_up(g) if g is not None else None for g in grads]
    if any(v is _MIXED for v in up_saved) or any(u is _MIXED for u in up_grads):
        return node.backward(*grads)
    node._saved = up_saved
    try:
        if type(node).__name__ in _ARRAY_BACKWARD and len(up_grads) == 1:
            outs = node.backward_arrays(up_grads[0]._data)
        else:
            outs = node.backward(*up_grads)
    finally:
        node._saved = saved
    from .._tensor import Tensor, wrap

    one = type(outs) is not tuple
    rounded = tuple(
        wrap(o._data.astype(_dtype.BF16_NP)) if isinstance(o, Tensor) and o._data.dtype == _F32 else o
        for o in ((outs,) if one else outs)
    )
    return rounded[0] if one else rounded
