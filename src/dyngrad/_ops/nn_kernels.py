"""Neural-net kernels for ``dyngrad.nn.functional`` that have no family of their own: softmax, linear and
bilinear, dropout, prelu and the gated / shrinking activations, one_hot. Convolution (conv.py), pooling
(pooling.py), normalisation (normalization.py), losses (loss.py), embedding (embedding.py), upsampling
(sampling.py) and the distances (distance.py) live in their own modules, named as torch's sources.

Each op torch records as one node is one registry class named as torch's ``grad_fn``
(``SoftmaxBackward0``, ``AddmmBackward0``, ...); functions torch itself composes from smaller ops are
composed here the same way, so the top ``grad_fn`` matches. Formulas follow PyTorch's
tools/autograd/derivatives.yaml and the kernels of aten/src/ATen/native.

Every ``backward`` is written with dyngrad Tensor ops (so second derivatives work);
the hot ones also have ``backward_arrays`` on NumPy arrays (Note [Backward on arrays]).
"""

from __future__ import annotations

import warnings

from .._backend import generator, xp
from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS, scalar_type_name
from .._tensor import Tensor, _wrap_dim, wrap
from ..autograd.forward_ad import STATE as _fw
from ..autograd.grad_mode import is_grad_enabled
from . import autocast_policy, join_split
from . import matmul as _products
from . import pointwise as pw
from . import reduction as red
from . import shape as sh
from .registry import REGISTRY, Op, apply, apply_multi, register

# ------------------------------------------------------------------ helpers


def _register_once(cls: type) -> type:
    """Register ``cls`` unless another family already declared an op of that torch name.

    Used for general ops this family needs but does not own (``DivBackward1``,
    ``NormBackward1``): if their owning family declares them, that entry stays the registry's, and
    this family keeps calling its own class (whose parameters it knows).
    """
    if cls.__name__ not in REGISTRY:
        register(cls)
    return cls


def _shape_list(shape) -> str:
    """A shape as torch prints it in messages: [2, 3]."""
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _type_name(a) -> str:
    """torch's ScalarType name of an array's dtype ('Float', 'Long', ...)."""
    return scalar_type_name(a.dtype)


# ------------------------------------------------------------------ softmax family


# Note [Softmax in row blocks]
# For the usual case (softmax over the last, contiguous axis of a float32/float64 array) the
# forward and backward walk the rows in blocks of about _ROW_BLOCK_BYTES, so that the block each
# NumPy pass writes is still in the L2 cache when the next pass reads it (the max, the shift, exp,
# the row sums, the scaling; the row dots, the subtraction, the product). The formulas are torch's
# CPU kernels' own, in the same order: softmax = exp(x - max) * (1 / sum), log_softmax =
# (x - max) - log(sum). Skipping the max pass (exp of the raw input when it cannot overflow) was
# measurably faster, but rounded differently from torch about half the time more often, and
# losses printed to six digits then differed in their last digit; dyngrad prints what torch
# prints first. The blocks are views of the output: no memory is kept.
_ROW_BLOCK_BYTES = 1 << 19
_add_reduce = xp.add.reduce


def _blockable(a, axis) -> bool:
    """Whether the row-block kernels apply: the last axis of a non-empty C-contiguous float32/64 array."""
    return (axis == a.ndim - 1 and a.size > 0 and a.dtype.kind in FLOATING_KINDS and a.itemsize >= 4
            and a.flags.c_contiguous)


def _row_block(n: int, itemsize: int) -> int:
    """How many rows of ``n`` elements make one block (Note [Softmax in row blocks])."""
    return max(1, _ROW_BLOCK_BYTES // max(1, n * itemsize))


def _softmax_rows(a):
    """Softmax over the last axis of a C-contiguous float32/float64 array (Note [Softmax in row blocks])."""
    n = a.shape[-1]
    rows = a.reshape(-1, n)
    res = xp.empty(a.shape, dtype=a.dtype)  # allocated whole and returned so (not a view with a base)
    out = res.reshape(rows.shape)
    step = _row_block(n, a.itemsize)
    for r in range(0, rows.shape[0], step):
        ab, ob = rows[r : r + step], out[r : r + step]
        xp.subtract(ab, ab.max(axis=1, keepdims=True), out=ob)
        xp.exp(ob, out=ob)
        ob *= 1 / _add_reduce(ob, axis=1, keepdims=True)  # one reciprocal per row, then multiplies
    return res


def _softmax_array(a, axis):
    if a.ndim == 0:
        return xp.ones_like(a)
    if a.size == 0:
        return a.copy()
    if _blockable(a, axis):
        return _softmax_rows(a)
    e = a - a.max(axis=axis, keepdims=True)
    xp.exp(e, out=e)
    e *= 1 / e.sum(axis=axis, keepdims=True)  # one reciprocal per row, then multiplies (torch's order)
    return e


def _softmax_backward_rows(g, y):
    """y * (g - sum(g * y)) over the last axis of C-contiguous ``y`` (Note [Softmax in row blocks])."""
    n = y.shape[-1]
    yr, gr = y.reshape(-1, n), g.reshape(-1, n)
    # allocated whole and returned so: the engine may then keep it as a leaf's .grad without a copy
    res = xp.empty(y.shape, dtype=xp.result_type(g, y))
    out = res.reshape(yr.shape)
    step = _row_block(n, out.itemsize)
    for r in range(0, yr.shape[0], step):
        gb, yb, ob = gr[r : r + step], yr[r : r + step], out[r : r + step]
        xp.subtract(gb, xp.vecdot(gb, yb)[:, None], out=ob)  # vecdot: the row dot products
        ob *= yb
    return res


def _log_softmax_rows(a, cache):
    """log_softmax over the last axis of a C-contiguous float32/float64 array, by row blocks
    (Note [Softmax in row blocks]); with a ``cache`` list, softmax = exp(result) is left there."""
    n = a.shape[-1]
    rows = a.reshape(-1, n)
    res = xp.empty(a.shape, dtype=a.dtype)
    out = res.reshape(rows.shape)
    soft = xp.empty(rows.shape, dtype=a.dtype) if cache is not None else None
    step = _row_block(n, a.itemsize)
    for r in range(0, rows.shape[0], step):
        ab, ob = rows[r : r + step], out[r : r + step]
        xp.subtract(ab, ab.max(axis=1, keepdims=True), out=ob)  # x - max
        e = xp.exp(ob, out=soft[r : r + step]) if soft is not None else xp.exp(ob)
        s = _add_reduce(e, axis=1, keepdims=True)
        ob -= xp.log(s)
        if soft is not None:
            e *= 1 / s
    if cache is not None:
        cache[:] = [soft.reshape(a.shape)]
    return res


def _log_softmax_array(a, axis, cache=None):
    """log_softmax on arrays; with a ``cache`` list, also leaves softmax = exp(result) there for backward."""
    if a.ndim == 0:
        return xp.zeros_like(a)
    if a.size == 0:
        return a.copy()
    if _blockable(a, axis):
        return _log_softmax_rows(a, cache)
    z = a - a.max(axis=axis, keepdims=True)  # (x - max) - log(sum(exp(x - max))), torch's order
    e = xp.exp(z)
    s = e.sum(axis=axis, keepdims=True)
    z -= xp.log(s)
    if cache is not None:
        e *= 1 / s
        cache[:] = [e]
    return z


@register
class SoftmaxBackward0(Op):
    """softmax(input, dim): exp(x) / sum(exp(x)) along ``dim``, computed after subtracting the max.

    Backward (derivatives.yaml, _softmax_backward_data): grad_input = y * (grad - sum(grad * y, dim)).
    Float inputs only (torch: NotImplementedError naming its CPU kernel).
    """

    save_result = True

    @staticmethod
    def forward(a, axis):
        return _softmax_array(a, axis)

    def backward(self, g):
        (axis,) = self._params
        y = self.saved_result()
        return (y * (g - red.sum(g * y, axis, keepdim=True)),)

    def backward_arrays(self, g):
        (axis,) = self._params
        y = self.saved()[-1]._data
        if y.ndim == 0:
            return (wrap(g * 0),)
        if _blockable(y, axis) and g.shape == y.shape:
            return (wrap(_softmax_backward_rows(g, y)),)
        out = g - (g * y).sum(axis=axis, keepdims=True)
        out *= y
        return (wrap(out),)


@register
class LogSoftmaxBackward0(Op):
    """log_softmax(input, dim) = x - max - log(sum(exp(x - max))) (one fused node, stable for large |x|).

    Backward (derivatives.yaml, _log_softmax_backward_data): grad - exp(y) * sum(grad, dim).
    """

    save_result = True

    @staticmethod
    def forward(a, axis, cache=None):
        return _log_softmax_array(a, axis, cache)

    def backward(self, g):
        axis = self._params[0]
        y = self.saved_result()
        return (g - pw.exp(y) * red.sum(g, axis, keepdim=True),)

    def backward_arrays(self, g):
        axis, cache = self._params
        y = self.saved()[-1]._data
        if y.ndim == 0:
            return (wrap(g * 0),)
        # exp(result) is the forward's softmax, kept when a graph was recorded (Note [Softmax cache]);
        # it is dropped once read, so it lives no longer than the saved result would
        soft = cache.pop() if cache else None
        if _blockable(y, axis) and g.shape == y.shape:
            return (wrap(_log_softmax_backward_rows(g, y, soft)),)
        out = (soft if soft is not None else xp.exp(y)) * -g.sum(axis=axis, keepdims=True)
        out += g
        return (wrap(out),)


def _log_softmax_backward_rows(g, y, soft):
    """g - softmax * sum(g) over the last axis, by row blocks (Note [Softmax in row blocks]);
    softmax is the forward's (``soft``) or exp(y)."""
    n = y.shape[-1]
    yr, gr = y.reshape(-1, n), g.reshape(-1, n)
    sr = soft.reshape(-1, n) if soft is not None else None
    res = xp.empty(y.shape, dtype=xp.result_type(g, y))
    out = res.reshape(yr.shape)
    ones = xp.ones(n, dtype=out.dtype)
    step = _row_block(n, out.itemsize)
    for r in range(0, yr.shape[0], step):
        gb, ob = gr[r : r + step], out[r : r + step]
        if sr is not None:
            xp.multiply(sr[r : r + step], (-(gb @ ones))[:, None], out=ob)
        else:
            xp.exp(yr[r : r + step], out=ob)
            ob *= (-(gb @ ones))[:, None]
        ob += gb
    return res


def _softmax_dim(ndim: int, name: str, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_like(op, kernel: str, a: Tensor, dim, dtype) -> Tensor:
    if dtype is not None:
        a = sh.to(a, dtype)
    nd = a._data.ndim
    axis = _wrap_dim(dim, nd)
    if a._data.dtype.kind not in FLOATING_KINDS:  # (complex too: torch's kernels are real-only)
        if a._data.size == 0:
            return wrap(a._data.copy())
        last = "lastdim_" if nd == 0 or axis == nd - 1 else ""
        raise NotImplementedError(f'"{kernel}_{last}kernel_impl" not implemented for \'{_type_name(a._data)}\'')
    if op is LogSoftmaxBackward0:
        # Note [Softmax cache]: when a graph is recorded, the forward's softmax is kept for the array
        # backward (grad - softmax * sum(grad)), saving it an exp; it goes with the node.
        return apply(op, (a,), (axis, [] if a._requires_grad and is_grad_enabled() else None))
    return apply(op, (a,), (axis,))


def softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002 - torch's name
    """torch.nn.functional.softmax; ``dtype`` casts the input first (a ToCopyBackward0 below)."""
    if dim is None:
        dim = _softmax_dim(input._data.ndim, "softmax", _stacklevel)
    return _softmax_like(SoftmaxBackward0, "softmax", input, dim, dtype)


def log_softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002
    if dim is None:
        dim = _softmax_dim(input._data.ndim, "log_softmax", _stacklevel)
    return _softmax_like(LogSoftmaxBackward0, "log_softmax", input, dim, dtype)


def softmin(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: A002
    """softmax(-input): torch records NegBackward0 under SoftmaxBackward0."""
    if dim is None:
        dim = _softmax_dim(input._data.ndim, "softmin", _stacklevel)
    if dtype is not None:
        return softmax(pw.neg(sh.to(input, dtype)), dim)
    return softmax(pw.neg(input), dim)


def _torch_softmax(input: Tensor, dim, dtype=None) -> Tensor:
    """torch.softmax / Tensor.softmax: ``dim`` is required."""
    return _softmax_like(SoftmaxBackward0, "softmax", input, dim, dtype)


def _torch_log_softmax(input: Tensor, dim, dtype=None) -> Tensor:
    return _softmax_like(LogSoftmaxBackward0, "log_softmax", input, dim, dtype)


# ------------------------------------------------------------------ linear


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """y = input @ weight^T + bias, dispatched as aten's linear so ``grad_fn`` names match.

    2-D input with bias: one AddmmBackward0; contiguous N-D input with a 1-D bias: flattened
    to 2-D, addmm, viewed back (ViewBackward0); otherwise matmul (MmBackward0 /
    UnsafeViewBackward0 / ...) followed by an add of the bias (AddBackward0).
    """
    if _fw.autocast:  # Note [CPU autocast]: a lower-precision op
        input, weight, bias = autocast_policy.lower_precision_args(input, weight, bias)
    nd = input._data.ndim
    if bias is not None and nd == 2:
        return _products.addmm(bias, input, weight.t())
    if (bias is not None and bias._data.ndim and input.is_contiguous() and weight._data.ndim == 2
            and (nd == 3 or bias._data.ndim == 1)):  # (a 0-d bias takes matmul + add, as torch)
        shape = input._data.shape
        n = 1
        for s in shape[:-1]:
            n *= s
        out = _products.addmm(bias, sh.reshape(input, (n, shape[-1]) if nd else (1, 1)), weight.t())
        return sh.view(out, shape[:-1] + (out._data.shape[1],))
    out = _products.matmul(input, weight.t())
    if bias is not None:
        out = pw.add(out, bias)
    return out


# ------------------------------------------------------------------ dropout


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p).

    As aten's CPU ``dropout``: not training, p == 0 or an empty input return the input
    itself; p == 1 multiplies by a 0-d zero; otherwise input * (mask / (1 - p)) with a
    Bernoulli(1 - p) mask drawn as torch's bernoulli_ (Note [Random streams]): MulBackward0,
    whose gradient is grad * mask / (1 - p).
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    a = input._data
    if not training or p == 0 or a.size == 0:
        return input
    if a.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_type_name(a)}")
    _check_bernoulli(a, p)
    if p == 1:
        noise = xp.zeros((), dtype=a.dtype)
    else:
        # torch: empty_like(input).bernoulli_(1 - p) (input's strides), then div_(1 - p)
        from .._random_kernels import arrange, bernoulli_scalar, divide_noise, is_dense

        if _vmap_active():  # one mask per sample under randomness="different" (torch's batching rule)
            noise = _vmap_noise(a.shape, 1 - p, a.dtype)
        else:
            strides = a.strides if is_dense(a) else xp.empty(a.shape, dtype=a.dtype).strides
            noise = arrange(bernoulli_scalar(generator(), a.size, 1 - p), a.shape, strides).astype(a.dtype)
            divide_noise(noise, 1 - p)
    if inplace:
        return input.mul_(wrap(noise))
    return pw.mul(input, wrap(noise))


def _vmap_active() -> bool:
    from .._batching.context import STATE

    return bool(STATE.stack)


def _vmap_noise(shape: tuple, q: float, dtype):
    """Dropout's scaled Bernoulli(q) noise under vmap, drawn by torch's randomness rules (_creation._vmap_draw):
    one mask per sample under "different", one for the batch under "same", refused under "error"."""
    import math

    from .._creation import _vmap_draw
    from .._random_kernels import bernoulli_scalar

    def draw(s):
        return bernoulli_scalar(generator(), math.prod(s), q).reshape(s).astype(dtype) / xp.asarray(q, dtype=dtype)

    return _vmap_draw(draw, tuple(shape))


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:  # noqa: A002
    """aten's ``feature_dropout``: zero whole channels (dim 1 of a batched input) with probability ``p``.

    The Bernoulli(1 - p) noise has shape (N, C, 1, ...), scaled by 1 / (1 - p) (p == 1: all zeros), and the
    result is input * noise: MulBackward0 (MulBackward0 / in-place: the input's own node), as torch. Not
    training, p == 0 or an empty input return the input itself.
    """
    a = input._data
    if not training or p == 0 or a.size == 0:
        return input
    if a.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_type_name(a)}")
    _check_bernoulli(a, p)
    shape = a.shape[:2] + (1,) * (a.ndim - 2)
    if p == 1:
        noise = xp.zeros(shape, dtype=a.dtype)
    else:
        from .._random_kernels import bernoulli_scalar, divide_noise

        if _vmap_active():  # one mask per sample under randomness="different" (torch's batching rule)
            noise = _vmap_noise(shape, 1 - p, a.dtype)
        else:
            n = 1
            for d in shape:
                n *= d
            noise = bernoulli_scalar(generator(), n, 1 - p).reshape(shape).astype(a.dtype)
            divide_noise(noise, 1 - p)
    if inplace:
        return input.mul_(wrap(noise))
    return pw.mul(input, wrap(noise))


def _check_bernoulli(a, p) -> None:
    """torch draws the mask with bernoulli_ in the input's dtype, which has no complex kernel (p == 1 draws none)."""
    if a.dtype.kind == "c" and p != 1:
        raise NotImplementedError(f"\"bernoulli_scalar_cpu_\" not implemented for '{_type_name(a)}'")


def _check_p(p) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Channel-wise dropout of (N, C, L) or (C, L) inputs (torch.nn.functional.dropout1d).

    Raises torch's ValueError for p outside [0, 1] and RuntimeError for other ranks. An unbatched
    input is unsqueezed to (1, C, L) first and squeezed back, as torch (so its grad_fn is SqueezeBackward1).
    """
    _check_p(p)
    nd = input.ndim
    if nd not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {nd}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs).")
    if nd == 3:
        return _feature_dropout(input, p, training, inplace)
    x = input.unsqueeze_(0) if inplace else sh.unsqueeze(input, 0)
    out = _feature_dropout(x, p, training, inplace)
    return out.squeeze_(0) if inplace else sh.squeeze(out, 0)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Channel-wise dropout of (N, C, H, W) inputs (torch.nn.functional.dropout2d).

    As torch: any rank runs (dim 1 is the channel dim), with torch's UserWarning for ranks other than
    3 and 4, and a second one for 3-D inputs (read as (N, C, L), not as an unbatched (C, H, W)).
    """
    _check_p(p)
    nd = input.ndim
    if nd not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if nd == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


# ------------------------------------------------------------------ prelu


@register
class PreluKernelBackward0(Op):
    """_prelu_kernel(input, weight): x if x > 0 else weight * x, weight broadcast against x.

    Backward (derivatives.yaml, _prelu_kernel_backward): grad_input = grad if x > 0 else weight * grad
    (so ``weight`` at x == 0), grad_weight = 0 if x > 0 else x * grad, in the broadcast shape (the engine
    sums it to the weight's). Written with Tensor ops so second order works (torch's double backward node
    is PreluKernelBackwardBackward0; the values agree).
    """

    save_inputs = True
    save_needs = ((0, 1), (0,))

    @staticmethod
    def forward(a, w):
        return xp.where(a > 0, a, w * a)

    def backward(self, g):
        x, w = self.saved()
        gx, gw = apply_multi(PreluKernelBackwardBackward0, (g, x, w))
        return (gx if self.next_functions[0][0] is not None else None,
                gw if self.next_functions[1][0] is not None else None)


@register
class PreluKernelBackwardBackward0(Op):
    """_prelu_kernel_backward(grad, x, weight) -> (grad_input, grad_weight), PreluKernelBackward0's formula.

    A node of its own because torch's double backward (derivatives.yaml) switches its mask to x >= 0, so at
    x == 0 the second derivatives differ from differentiating the first-order formula: for incoming
    (gg_input, gg_weight), d/dgrad = gg_input if x >= 0 else gg_input * weight + gg_weight * x,
    d/dx = 0 if x >= 0 else gg_weight * grad, d/dweight = 0 if x >= 0 else gg_input * grad.
    """

    save_inputs = True

    @staticmethod
    def forward(g, a, w):
        pos = a > 0
        return xp.where(pos, g, w * g), xp.where(pos, xp.zeros((), dtype=g.dtype), a * g)

    def backward(self, ggx, ggw):
        g, x, w = self.saved()
        nonneg = x >= 0
        if ggx is None:
            ggx = pw.mul(g, 0.0)
        if ggw is None:
            ggw = pw.mul(g, 0.0)
        return (pw.where_(nonneg, ggx, ggx * w + ggw * x),
                pw.where_(nonneg, 0.0, ggw * g),
                pw.where_(nonneg, 0.0, ggx * g))


def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    """max(0, x) + weight * min(0, x), one weight per channel (dim 1) or one shared (torch.nn.functional.prelu).

    ``weight`` is 0-d or 1-D with 1 or C elements (C = input.size(1), or 1 for inputs of fewer than 2 dims);
    it is reshaped to (1, C, 1, ...) (ViewBackward0) and the kernel is PreluKernelBackward0. Errors as aten's
    ``prelu``: TypeError for a non-tensor weight, RuntimeError for differing dtypes (no promotion), a
    channel-count mismatch, a 0-d input with several weights or a weight of 2+ dims, and
    NotImplementedError for integer inputs.
    """
    if _fw.autocast:  # Note [CPU autocast]: a lower-precision op
        input, weight = autocast_policy.lower_precision_args(input, weight)
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    a, w = input._data, weight._data
    if a.dtype != w.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_type_name(a)} and {_type_name(w)}")
    nd = a.ndim
    if w.size != 1:
        if nd == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = a.shape[1] if nd > 1 else 1
        if channels != w.size:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{w.size} and channel size = {channels}.")
    if w.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {w.ndim}")
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f"\"prelu_cpu\" not implemented for '{_type_name(a)}'")
    if nd != w.ndim:
        shape = [1] * nd
        if nd > 1:
            shape[1] = w.size
        weight = sh.reshape(weight, tuple(shape))
    return apply(PreluKernelBackward0, (input, weight))


# ------------------------------------------------------------------ bilinear, one_hot, distances


def bilinear(input1, input2, weight, bias=None):
    """out[..., o] = input1 W[o] input2 (+ bias[o]), composed as aten's bilinear (flatten, contract, reshape)."""
    a1, a2, w = input1._data, input2._data, weight._data
    if a1.ndim != a2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {a1.ndim} and {a2.ndim}")
    for i in range(a1.ndim - 1):
        if a1.shape[i] != a2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {a1.shape[i]} and {a2.shape[i]}")
    if a1.shape[-1] != w.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {a1.shape[-1]} but expected {w.shape[1]}")
    if a2.shape[-1] != w.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {a2.shape[-1]} but expected {w.shape[2]}")
    if bias is not None and bias._data.shape[0] != w.shape[0]:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias._data.shape[0]} but expected {w.shape[0]}"
        )
    if (is_grad_enabled() and any(t._data.dtype.kind == "c" for t in (input1, input2, weight))
            and any(t._requires_grad for t in (input1, input2, weight))):
        # torch's one _trilinear node has no complex backward
        raise RuntimeError("_trilinear does not support automatic differentiation for outputs with complex dtype.")
    o, i, j = w.shape
    x1 = sh.reshape(input1, (-1, i))
    x2 = sh.reshape(input2, (-1, j))
    wr = sh.reshape(sh.permute(weight, 1, 0, 2), (i, o * j))
    t = sh.reshape(_products.matmul(x1, wr), (-1, o, j))
    out = sh.reshape(red.sum(t * sh.unsqueeze(x2, 1), -1), a1.shape[:-1] + (o,))
    return pw.add(out, bias) if bias is not None else out


def one_hot(tensor, num_classes: int = -1):
    """One-hot int64 encoding (no gradient), with torch's errors."""
    a = tensor._data
    if a.dtype != xp.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if type(a) is not xp.ndarray:  # batched by vmap: a size from the values would differ per sample
            raise RuntimeError(
                "When vmap-ing torch.nn.functional.one_hot, please provide an explicit positive num_classes argument.")
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size:
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if a.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return wrap((a[..., None] == xp.arange(num_classes)).astype(xp.int64))


# ------------------------------------------------------------------ gated and shrinking activations


@register
class GluBackward0(Op):
    """glu(input, dim): a * sigmoid(b), a and b the two halves of ``input`` along ``dim``.

    Backward (derivatives.yaml glu_backward): grad_a = grad * sigmoid(b),
    grad_b = grad * a * sigmoid(b) * (1 - sigmoid(b)), joined along ``dim``. It is written with
    dyngrad ops, so a second derivative works; its nodes are the composite's (torch shows one
    GluBackwardBackward0 node there).
    """

    save_inputs = True

    @staticmethod
    def forward(x, dim):
        a, b = xp.split(x, 2, axis=dim)
        with xp.errstate(over="ignore"):
            return a / (1 + xp.exp(-b))

    def backward(self, g):
        (x,) = self.saved()
        dim = self._params[0]
        half = x._data.shape[dim] // 2
        a, b = sh.narrow(x, dim, 0, half), sh.narrow(x, dim, half, half)
        sb = pw.sigmoid(b)
        ga = g * sb
        return (join_split.cat([ga, ga * a * (1 - sb)], dim),)


def glu(input, dim: int = -1):  # noqa: A002
    """Gated linear unit; errors as torch's (even halving size, no 0-d input, float input)."""
    a = input._data
    if a.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, a.ndim)
    if a.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {a.shape[d]}")
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"glu_cpu" not implemented for \'{_type_name(a)}\'')
    return apply(GluBackward0, (input,), (d,))


def softsign(input):  # noqa: A002
    """x / (1 + |x|), composed as torch.nn.functional composes it (DivBackward0)."""
    return input / (pw.abs(input) + 1)


def tanhshrink(input):  # noqa: A002
    """x - tanh(x), composed as torch.nn.functional composes it (SubBackward0)."""
    return input - pw.tanh(input)


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.nn.functional; __init__.py, _tensor_methods.py and nn/functional.py merge these.
EXPORTS: dict = {
    "bilinear": bilinear,
    "softmax": _torch_softmax,
    "log_softmax": _torch_log_softmax,
    "dropout": lambda input, p, train: dropout(input, p, train),  # noqa: A006 - torch.dropout(input, p, train)
    "prelu": prelu,
}
TENSOR_METHODS: dict = {
    "prelu": prelu,
    "softmax": _torch_softmax,
    "log_softmax": _torch_log_softmax,
}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {  # dyngrad.nn.functional.<name>
    "prelu": prelu,
    "dropout1d": dropout1d,
    "dropout2d": dropout2d,
    "glu": glu,
    "softsign": softsign,
    "tanhshrink": tanhshrink,
    "bilinear": bilinear,
    "one_hot": one_hot,
    "softmax": softmax,
    "log_softmax": log_softmax,
    "softmin": softmin,
    "linear": linear,
    "dropout": dropout,
}
