"""Neural-net kernels for ``dyngrad.nn.functional``: softmax, convolution, pooling, normalisation, losses.

Each op torch records as one node is one registry class named as torch's ``grad_fn``
(``SoftmaxBackward0``, ``ConvolutionBackward0``, ``NllLossBackward0``, ...); functions
torch itself composes from smaller ops (``l1_loss``, ``kl_div``, ``normalize``,
``cross_entropy`` = ``nll_loss(log_softmax(x))``) are composed here the same way, so
the top ``grad_fn`` matches. Formulas follow PyTorch's tools/autograd/derivatives.yaml
and the kernels of aten/src/ATen/native (Loss.cpp, LossNLL.cpp, Normalization.cpp, ...).

Every ``backward`` is written with dyngrad Tensor ops (so second derivatives work);
the hot ones also have ``backward_arrays`` on NumPy arrays (Note [Backward on arrays]).

Convolution gathers the sliding windows of the padded input into columns (``im2col``:
one strided block copy per kernel offset, faster than copying numpy's
``sliding_window_view``) and contracts them with the weight in one BLAS matrix
product; the backward adds columns back with one strided add per kernel offset
(``_col2im``). Pooling runs the same per-offset loop over strided views. No Python
loop runs over pixels, channels or batch entries.
"""

from __future__ import annotations

import warnings

from .._backend import along_axis_key, generator, index_add, scratch, xp
from .._dtype import result_type, scalar_type_name
from .._tensor import Tensor, _wrap_dim, wrap
from ..autograd.grad_mode import is_grad_enabled
from . import matmul as _products
from . import pointwise as pw
from . import reduction as red
from . import shape as sh
from .registry import REGISTRY, Op, apply, apply_multi, register

# ------------------------------------------------------------------ helpers


def _register_once(cls: type) -> type:
    """Register ``cls`` unless another family already declared an op of that torch name.

    Used for general ops this family needs but does not own (``AddmmBackward0``, ``DivBackward1``,
    ``NormBackward1``): if their owning family declares them, that entry stays the registry's, and
    this family keeps calling its own class (whose parameters it knows).
    """
    if cls.__name__ not in REGISTRY:
        register(cls)
    return cls


def _type_name(a) -> str:
    """torch's ScalarType name of an array's dtype ('Float', 'Long', ...)."""
    return scalar_type_name(a.dtype)


def _reduction(reduction: str, size_average=None, reduce=None) -> str:
    """torch's reduction argument, including the legacy ``size_average`` / ``reduce`` flags."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
            UserWarning,
            stacklevel=3,
        )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return red.mean(loss)
    if reduction == "sum":
        return red.sum(loss)
    return loss


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
    return axis == a.ndim - 1 and a.size > 0 and a.dtype.kind == "f" and a.itemsize >= 4 and a.flags.c_contiguous


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
    if a._data.dtype.kind not in "fc":
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


class _Addmm(Op):
    """addmm(bias, mat1, mat2, beta=1, alpha=1) = beta * bias + alpha * mat1 @ mat2 (linear's node).

    Backward (derivatives.yaml): bias: grad * beta (summed to its shape by the engine);
    mat1: grad @ mat2^T * alpha; mat2: mat1^T @ grad * alpha.
    """

    save_inputs = True

    @staticmethod
    def forward(bias, m1, m2, beta=1, alpha=1):
        out = m1 @ m2
        if alpha != 1:
            out = out * alpha
        out += bias if beta == 1 else beta * bias
        return out

    def backward(self, g):
        bias, m1, m2 = self.saved()
        beta, alpha = self._params or (1, 1)
        nf = self.next_functions
        gb = (g if beta == 1 else g * beta) if nf[0][0] is not None else None
        g1 = _products.mm(g, m2.t()) if nf[1][0] is not None else None
        g2 = _products.mm(m1.t(), g) if nf[2][0] is not None else None
        if alpha != 1:
            g1 = g1 * alpha if g1 is not None else None
            g2 = g2 * alpha if g2 is not None else None
        return gb, g1, g2

    def backward_arrays(self, g):
        bias, m1, m2 = self.saved()
        beta, alpha = self._params or (1, 1)
        nf = self.next_functions
        gb = wrap(g if beta == 1 else g * beta) if nf[0][0] is not None else None
        g1 = wrap(g @ m2._data.T * alpha) if nf[1][0] is not None else None
        g2 = wrap(m1._data.T @ g * alpha) if nf[2][0] is not None else None
        return gb, g1, g2


_Addmm.__name__ = _Addmm.__qualname__ = "AddmmBackward0"
AddmmBackward0 = _register_once(_Addmm)


def _addmm(bias: Tensor, m1: Tensor, m2: Tensor) -> Tensor:
    fn = getattr(_products, "addmm", None)
    if fn is not None:
        return fn(bias, m1, m2)
    if m1._data.shape[1] != m2._data.shape[0]:
        a, b = m1._data.shape, m2._data.shape
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a[0]}x{a[1]} and {b[0]}x{b[1]})")
    out_shape = (m1._data.shape[0], m2._data.shape[1])
    try:
        xp.broadcast_shapes(bias._data.shape, out_shape)
    except ValueError:
        sh.expand(bias, out_shape)  # raises torch's expand error
    return apply(AddmmBackward0, (bias, m1, m2))


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """y = input @ weight^T + bias, dispatched as aten's linear so ``grad_fn`` names match.

    2-D input with bias: one AddmmBackward0; contiguous N-D input with a 1-D bias: flattened
    to 2-D, addmm, viewed back (ViewBackward0); otherwise matmul (MmBackward0 /
    UnsafeViewBackward0 / ...) followed by an add of the bias (AddBackward0).
    """
    nd = input._data.ndim
    if bias is not None and nd == 2:
        return _addmm(bias, input, weight.t())
    if (bias is not None and bias._data.ndim and input.is_contiguous() and weight._data.ndim == 2
            and (nd == 3 or bias._data.ndim == 1)):  # (a 0-d bias takes matmul + add, as torch)
        shape = input._data.shape
        n = 1
        for s in shape[:-1]:
            n *= s
        out = _addmm(bias, sh.reshape(input, (n, shape[-1]) if nd else (1, 1)), weight.t())
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
    Bernoulli(1 - p) mask from dyngrad's generator (Note [Random streams]): MulBackward0,
    whose gradient is grad * mask / (1 - p).
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    a = input._data
    if not training or p == 0 or a.size == 0:
        return input
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_type_name(a)}")
    if p == 1:
        noise = xp.zeros((), dtype=a.dtype)
    else:
        noise = (generator().random(a.shape) >= p).astype(a.dtype)
        noise /= xp.asarray(1 - p, dtype=a.dtype)
    if inplace:
        return input.mul_(wrap(noise))
    return pw.mul(input, wrap(noise))


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:  # noqa: A002
    """aten's ``feature_dropout``: zero whole channels (dim 1 of a batched input) with probability ``p``.

    The Bernoulli(1 - p) noise has shape (N, C, 1, ...), scaled by 1 / (1 - p) (p == 1: all zeros), and the
    result is input * noise: MulBackward0 (MulBackward0 / in-place: the input's own node), as torch. Not
    training, p == 0 or an empty input return the input itself.
    """
    a = input._data
    if not training or p == 0 or a.size == 0:
        return input
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"result type Float can't be cast to the desired output type {_type_name(a)}")
    shape = a.shape[:2] + (1,) * (a.ndim - 2)
    if p == 1:
        noise = xp.zeros(shape, dtype=a.dtype)
    else:
        noise = (generator().random(shape) >= p).astype(a.dtype)
        noise /= xp.asarray(1 - p, dtype=a.dtype)
    if inplace:
        return input.mul_(wrap(noise))
    return pw.mul(input, wrap(noise))


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
    if a.dtype.kind not in "fc":
        raise NotImplementedError(f"\"prelu_cpu\" not implemented for '{_type_name(a)}'")
    if nd != w.ndim:
        shape = [1] * nd
        if nd > 1:
            shape[1] = w.size
        weight = sh.reshape(weight, tuple(shape))
    return apply(PreluKernelBackward0, (input, weight))


# ------------------------------------------------------------------ upsampling (interpolate)


def _nearest_map(n_in: int, n_out: int, scale, dtype):
    """aten's nearest source index: min(floor(i * s), n_in - 1), s = 1/scale_factor (when given) or n_in/n_out,
    in float32 as the CPU kernel computes it."""
    s = xp.float32(1.0 / scale) if scale is not None and scale > 0 else xp.float32(n_in) / xp.float32(n_out)
    idx = xp.minimum(xp.floor(xp.arange(n_out, dtype=xp.float32) * s).astype(xp.int64), n_in - 1)
    return idx, None, None, None


def _linear_map(n_in: int, n_out: int, scale, align_corners: bool, dtype):
    """aten's linear source indices and weights (area_pixel_compute_scale / _source_index), in the input's
    dtype (its opmath type): align_corners maps the corner pixels onto each other, otherwise pixel centres
    (src = s * (i + 0.5) - 0.5, clamped at 0); idx1 = idx0 + 1 except at the last input pixel."""
    one = xp.asarray(1, dtype=dtype)
    if align_corners:
        s = (xp.asarray(n_in - 1, dtype=dtype) / (n_out - 1)) if n_out > 1 else xp.asarray(0, dtype=dtype)
        src = s * xp.arange(n_out, dtype=dtype)
    else:
        s = (one / xp.asarray(scale, dtype=dtype)) if scale is not None and scale > 0 else \
            xp.asarray(n_in, dtype=dtype) / xp.asarray(n_out, dtype=dtype)
        src = xp.maximum(s * (xp.arange(n_out, dtype=dtype) + xp.asarray(0.5, dtype=dtype)) - xp.asarray(0.5, dtype=dtype),
                         xp.asarray(0, dtype=dtype))
    i0 = src.astype(xp.int64)
    i1 = i0 + (i0 < n_in - 1)
    l1 = xp.clip(src - i0.astype(dtype), 0, 1).astype(dtype)
    return i0, i1, one - l1, l1


def _map_matrix(m, n_in: int, dtype):
    """The (n_out, n_in) matrix of one axis' map, for the backward's transposed product."""
    i0, i1, l0, l1 = m
    n_out = i0.shape[0]
    rows = xp.arange(n_out)
    mat = xp.zeros((n_out, n_in), dtype=dtype)
    if l0 is None:
        mat[rows, i0] = 1
    else:
        xp.add.at(mat, (rows, i0), l0)
        xp.add.at(mat, (rows, i1), l1)
    return mat


class _Upsample(Op):
    """Separable upsampling: each spatial axis maps its input pixels to output pixels (nearest: one source,
    linear: two sources weighted l0, l1). The forward gathers along W, then H (aten's nesting order); the
    backward is the transposed map, applied as a product with each axis' (out, in) matrix (written with
    Tensor ops, so higher derivatives work; the map is linear). A NaN in the incoming gradient spreads
    along the rows of that product, where aten's scatter-add would keep it in place.
    """

    @staticmethod
    def forward(a, maps, mats):
        for axis, m in reversed(list(enumerate(maps, start=2))):
            i0, i1, l0, l1 = m
            if l0 is None:
                a = xp.take(a, i0, axis=axis)
            else:
                shape = (-1,) + (1,) * (a.ndim - 1 - axis)
                a = xp.take(a, i0, axis=axis) * l0.reshape(shape) + xp.take(a, i1, axis=axis) * l1.reshape(shape)
        return a

    def backward(self, g):
        mats = self._params[1]
        nd = len(mats)
        for k, mat in enumerate(mats):
            t = wrap(mat.astype(g._data.dtype, copy=False))
            if k == nd - 1:  # the last axis: (..., out) @ (out, in)
                g = _products.matmul(g, t)
            else:  # an earlier axis: move it last, product, move it back
                axis = 2 + k
                g = sh.movedim(_products.matmul(sh.movedim(g, axis, -1), t), -1, axis)
        return (g,)


@register
class UpsampleNearest1DBackward0(_Upsample):
    """upsample_nearest1d(input (N, C, W), output_size, scales); see _Upsample."""


@register
class UpsampleNearest2DBackward0(_Upsample):
    """upsample_nearest2d(input (N, C, H, W), output_size, scales); see _Upsample."""


@register
class UpsampleLinear1DBackward0(_Upsample):
    """upsample_linear1d(input (N, C, W), output_size, align_corners, scales); see _Upsample."""


@register
class UpsampleBilinear2DBackward0(_Upsample):
    """upsample_bilinear2d(input (N, C, H, W), output_size, align_corners, scales); see _Upsample."""


_UPSAMPLE_OPS = {("nearest", 3): UpsampleNearest1DBackward0, ("nearest", 4): UpsampleNearest2DBackward0,
                 ("linear", 3): UpsampleLinear1DBackward0, ("bilinear", 4): UpsampleBilinear2DBackward0}


def _upsample(input, op, output_size, scales, align_corners):  # noqa: A002
    a = input._data
    spatial = a.shape[2:]
    if output_size is None:  # aten: the output size is the truncated product, the kernel keeps the scales
        output_size = [int(n * float(sf)) for n, sf in zip(spatial, scales)]
    else:
        output_size = [int(n) for n in output_size]
        scales = [None] * len(spatial)
    if any(n <= 0 for n in spatial) or any(n <= 0 for n in output_size):
        names = "HW"[-len(spatial):] if len(spatial) <= 2 else "DHW"
        fmt = ", ".join
        ins = fmt(f"{c}: {n}" for c, n in zip(names, spatial))
        outs = fmt(f"{c}: {n}" for c, n in zip(names, output_size))
        sep = " and" if len(spatial) == 1 else ""
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({ins}){sep} output ({outs})")
    nearest = op in (UpsampleNearest1DBackward0, UpsampleNearest2DBackward0)
    if a.dtype.kind != "f":
        kernel = "compute_indices_weights_nearest" if nearest else "compute_indices_weights_linear"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(a)}'")
    maps = tuple(_nearest_map(i, o, sf, a.dtype) if nearest else _linear_map(i, o, sf, align_corners, a.dtype)
                 for i, o, sf in zip(spatial, output_size, scales))
    mats = tuple(_map_matrix(m, i, a.dtype) for m, i in zip(maps, spatial))
    return apply(op, (input,), (maps, mats))


def _is_integer(v) -> bool:
    return isinstance(v, int) or (isinstance(v, Tensor) and v._data.dtype.kind in "biu")


def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias: bool = False):
    """Resize (N, C, W) or (N, C, H, W) inputs (torch.nn.functional.interpolate).

    Modes: 'nearest' (3-D, 4-D: UpsampleNearest1D/2DBackward0), 'linear' (3-D: UpsampleLinear1DBackward0),
    'bilinear' (4-D: UpsampleBilinear2DBackward0), and 'area' on 4-D inputs (adaptive_avg_pool2d, as torch).
    ``size`` or ``scale_factor`` (one of them), int or per-axis sequence; a given scale factor is passed on
    to the kernel (its source-index scale is 1/scale_factor) unless ``recompute_scale_factor``. Argument
    errors as torch's (ValueError, TypeError, NotImplementedError for a mode and rank that do not fit).
    dyngrad does not implement 'bicubic', 'trilinear', 'nearest-exact', 5-D inputs nor ``antialias``:
    those raise NotImplementedError naming dyngrad.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the "
                             "interpolating modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(v) for v in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(v) for v in size]}")
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {spatial} and "
                    f"scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
                         "a 4-D tensor as input")
    nd = input.dim()
    op = _UPSAMPLE_OPS.get((mode, nd))
    if op is not None and not antialias:
        return _upsample(input, op, output_size, scale_factors, align_corners)
    if mode == "area" and nd == 4:
        return adaptive_avg_pool2d(input, output_size)
    wants = {"linear": 3, "bilinear": 4, "trilinear": 5}
    if mode in wants and nd in (3, 4, 5) and nd != wants[mode]:
        raise NotImplementedError(f"Got {nd}D input, but {mode} mode needs {wants[mode]}D input")
    known = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "lanczos", "area", "nearest-exact")
    if nd in (3, 4, 5) and mode in known:
        raise NotImplementedError(f"dyngrad: interpolate mode '{mode}' is not implemented for {nd}D input"
                                  + (" with antialias=True" if antialias else ""))
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {nd}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
        f" (got {mode})")


def upsample(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None):  # noqa: A002
    """Deprecated alias of interpolate (torch warns the same)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


# ------------------------------------------------------------------ classification losses


def _div_scalar_forward(a, other):
    return a / xp.asarray(other, dtype=a.dtype)


class _DivScalar(Op):
    """div(input, other: Scalar) as aten records it from C++ (torch's Python ``x / 2`` is DivBackward0)."""

    @staticmethod
    def forward(a, other):
        return _div_scalar_forward(a, other)

    def backward(self, g):
        return (g / self._params[0],)


_DivScalar.__name__ = _DivScalar.__qualname__ = "DivBackward1"
DivBackward1 = _register_once(_DivScalar)


def _check_weight(weight, n_classes: int, fn: str):
    if weight is None:
        return None
    if weight._requires_grad:
        from ..autograd.grad_mode import is_grad_enabled

        if is_grad_enabled():
            raise RuntimeError(
                f"The function '{fn}' is not differentiable with respect to argument 'weight'. "
                "This input cannot have requires_grad True."
            )
    if weight._data.ndim != 1 or weight._data.shape[0] != n_classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes but got weight "
            f"tensor of shape: [{', '.join(str(n) for n in weight._data.shape)}]"
        )
    return weight._data


@register
class NllLossBackward0(Op):
    """nll_loss(input, target, weight, reduction, ignore_index): -weight[t] * input[n, t, ...].

    ``mean`` divides by the summed weight of the non-ignored targets (nan if none).
    Backward (aten's nll_loss_backward): the gradient at each target position is
    -weight[t] * grad (/ total weight for ``mean``), zero elsewhere; it is linear in grad
    and constant in the input, so its second derivative is zero.
    Params: (target as (N, ...) with ignored entries set to 0, per-target weight (0 where
    ignored), reduction, total weight, input shape); a 1-D input (C,) is one sample.
    """

    @staticmethod
    def forward(x, t, wt, reduction, total, shape):
        if x.ndim == 1:
            x = x[None]
        if x.ndim == 2:
            picked = x[xp.arange(x.shape[0]), t]
        else:
            picked = xp.take_along_axis(x, t[:, None], axis=1)[:, 0]
        losses = picked * -wt
        if reduction == "none":
            return losses.reshape(()) if len(shape) == 1 else losses
        s = losses.sum()
        if reduction == "sum":
            return xp.asarray(s)
        with xp.errstate(invalid="ignore", divide="ignore"):
            return xp.asarray(s / total)

    def _coef(self, dtype, g=None):
        """Zeros of the input's shape with -weight[t] (/ total for mean) at the targets; times ``g`` (an array
        shaped as the loss) when given, applied to the per-target values before they are scattered."""
        t, wt, reduction, total, shape = self._params
        shape2 = (1,) + shape if len(shape) == 1 else shape
        coef = xp.zeros(shape2, dtype=dtype)
        w = -wt.astype(dtype)
        if reduction == "mean":
            w = w / xp.asarray(total, dtype=dtype) if total != 0 else w * 0
        if g is not None:
            w = w * (g.reshape(w.shape) if reduction == "none" else g)
        if len(shape2) == 2:
            coef[xp.arange(shape2[0]), t] = w
        else:
            coef[along_axis_key(t[:, None], 1)] = w[:, None]
        return coef

    def backward(self, g):
        coef = self._coef(g._data.dtype)
        t, wt, reduction, total, shape = self._params
        if reduction == "none":
            g = g.reshape((1, 1)) if len(shape) == 1 else g.unsqueeze(1)
        out = wrap(coef) * g
        return (out.reshape(shape) if len(shape) == 1 else out,)

    def backward_arrays(self, g):
        coef = self._coef(g.dtype, g)  # g scales the few picked entries, not a pass over the input's size
        shape = self._params[4]
        return (wrap(coef.reshape(shape) if len(shape) == 1 else coef),)


@register
class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss2d: nll_loss on (N, C, H, W) input and (N, H, W) target (aten's node for spatial inputs)."""


def _nll_loss(x: Tensor, target: Tensor, weight, reduction: str, ignore_index: int) -> Tensor:
    """aten's nll_loss_nd: input (C,), (N, C) or (N, C, d1, ...), target (), (N,) or (N, d1, ...)."""
    a, t = x._data, target._data
    if a.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {a.ndim})")
    if a.ndim != 1 and a.shape[0] != (t.shape[0] if t.ndim else 1):
        raise ValueError(
            f"Expected input batch_size ({a.shape[0]}) to match target batch_size ({t.shape[0] if t.ndim else 1})."
        )
    # The checks run in aten's order, which differs between the 1-D/2-D kernel (nll_loss) and the spatial
    # one (nll_loss2d; 3-D and 5-D+ inputs reach it through nll_loss_nd's (N, C, 1, -1) view, after
    # nll_loss_nd's own target-size check).
    shape_text = ", ".join(str(n) for n in t.shape)
    if a.ndim <= 2:
        if t.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif a.ndim == 4:
        if t.ndim != 3:
            raise RuntimeError(
                f"only batches of spatial targets supported (3D tensors) but got targets of dimension: {t.ndim}"
            )
    elif t.shape != a.shape[:1] + a.shape[2:]:
        expected = a.shape[:1] + a.shape[2:]
        raise RuntimeError(f"Expected target size [{', '.join(str(n) for n in expected)}], got [{shape_text}]")
    if t.dtype != xp.int64 and t.dtype != xp.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(t)}")
    n_classes = a.shape[0] if a.ndim == 1 else a.shape[1]
    if a.ndim > 2 and weight is not None and weight._data.size != n_classes:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    w = _check_weight(weight, n_classes, "nll_loss_forward")
    if a.ndim == 4 and t.shape != a.shape[:1] + a.shape[2:]:
        raise RuntimeError(f"size mismatch (got input: [{', '.join(str(n) for n in a.shape)}] , target: [{shape_text}]")
    if a.dtype.kind != "f":
        kernel = "nll_loss_out_frame" if a.ndim <= 2 else "nll_loss2d_forward_out_frame"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_name(a)}\'')
    if w is not None and w.dtype != a.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(a)} but found {_type_name(w)}")
    t2 = t.reshape(1) if a.ndim == 1 else t
    t2 = t2.astype(xp.int64, copy=False)
    valid = t2 != ignore_index
    bad = valid & ((t2 < 0) | (t2 >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(t2[bad].reshape(-1)[0])} is out of bounds.")
    tc = xp.where(valid, t2, 0) if not valid.all() else t2
    wt = w[tc].astype(a.dtype) * valid if w is not None else valid.astype(a.dtype)
    total = wt.sum()
    if a.ndim <= 2:
        return apply(NllLossBackward0, (x,), (tc, wt, reduction, total, a.shape))
    if a.ndim == 4:
        return apply(NllLoss2DBackward0, (x,), (tc, wt, reduction, total, a.shape))
    # aten's nll_loss_nd: other spatial ranks go through a (N, C, 1, -1) view of the input
    n, c = a.shape[:2]
    x4 = sh.view(sh.contiguous(x), (n, c, 1, -1) if a.size else (n, c, 0, 0))
    tshape = (n, 1, -1) if tc.size else (n, 0, 0)
    out = apply(NllLoss2DBackward0, (x4,), (tc.reshape(tshape), wt.reshape(tshape), reduction, total,
                                            x4._data.shape))
    return sh.view(out, (n,) + a.shape[2:]) if reduction == "none" else out


def nll_loss(input: Tensor, target: Tensor, weight=None, size_average=None, ignore_index: int = -100,  # noqa: A002
             reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction(reduction, size_average, reduce)
    return _nll_loss(input, target, weight, reduction, ignore_index)


def cross_entropy(input: Tensor, target: Tensor, weight=None, size_average=None, ignore_index: int = -100,  # noqa: A002
                  reduce=None, reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """aten's cross_entropy_loss: ``nll_loss(log_softmax(input, class_dim), target)`` for class indices,
    ``-(log_softmax(input) * target).sum(...)`` for class probabilities (target shaped as input),
    with label smoothing composed as aten composes it (so the top ``grad_fn`` matches)."""
    reduction = _reduction(reduction, size_average, reduce)
    a = input._data
    class_dim = 0 if a.ndim == 1 else 1
    if target._data.shape == a.shape:
        if target._data.dtype.kind != "f":
            raise RuntimeError(
                f"Expected floating point type for target with class probabilities, got {_type_name(target._data)}"
            )
        if a.ndim == 0:  # aten takes log_softmax over dim 1
            raise IndexError("Dimension specified as 1 but tensor has no dimensions")
        n_classes = a.shape[class_dim]
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing, class_dim, n_classes)
    if a.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
        return _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing, class_dim)
    return _nll_loss(_torch_log_softmax(input, class_dim), target, weight, reduction, ignore_index)


def _weight_view(weight: Tensor, ndim: int) -> Tensor:
    if ndim > 1:
        return sh.view(weight, (1, weight._data.shape[0]) + (1,) * (ndim - 2))
    return weight


def _cross_entropy_smoothed(x, target, weight, reduction, ignore_index, ls, class_dim):
    n_classes = x._data.shape[class_dim]
    logp = _torch_log_softmax(x, class_dim)
    nll = _nll_loss(logp, target, weight, reduction, ignore_index)
    ignore = target._data == ignore_index
    if weight is not None:
        _check_weight(weight, n_classes, "nll_loss_forward")
        smooth = -red.sum(logp * _weight_view(weight, x._data.ndim), class_dim)
    else:
        smooth = -red.sum(logp, class_dim)
    # masked_fill_(ignore_mask, 0): a where, so an infinite gradient (0 / 0 weight) does not leak as nan
    smooth = pw.where_(wrap(ignore), wrap(xp.zeros((), dtype=smooth._data.dtype)), smooth)
    if reduction == "mean":
        if weight is not None:
            t = target._data[~ignore].reshape(-1)
            denom = weight._data[t].sum()
        else:
            denom = (~ignore).sum()
        ret = red.sum(smooth) / wrap(xp.asarray(denom, dtype=smooth._data.dtype))
    elif reduction == "sum":
        ret = red.sum(smooth)
    else:
        ret = smooth
    return pw.add(nll * (1 - ls), ret * (ls / n_classes))


def _cross_entropy_probs(x, target, weight, reduction, ls, class_dim, n_classes):
    w = _check_weight(weight, n_classes, "cross_entropy") if weight is not None else None
    logp = _torch_log_softmax(x, class_dim)
    if ls > 0.0:
        if ls > 1.0:
            raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {ls}")
        target = target * (1 - ls) + ls / n_classes
    prod = logp * target
    if w is not None:
        prod = prod * _weight_view(weight, x._data.ndim)
    if reduction == "none":
        return -red.sum(prod, class_dim)
    total = -red.sum(prod)
    if reduction == "sum":
        return total
    if x._data.size == 0:  # aten: -(...).sum().fill_(NaN), still shown as NegBackward0
        total._data = xp.full((), xp.nan, dtype=total._data.dtype)
        return total
    return apply(DivBackward1, (total,), (x._data.size // n_classes,))


# ------------------------------------------------------------------ regression losses


def _broadcast_pair(x: Tensor, t: Tensor, name: str):
    if x._data.shape != t._data.shape:
        from .._tensor import Size

        warnings.warn(
            f"Using a target size ({Size(t._data.shape)}) that is different to the input size "
            f"({Size(x._data.shape)}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )
        shape = sh.broadcast_shape(x._data.shape, t._data.shape) if hasattr(sh, "broadcast_shape") else None
        if shape is None:
            from .broadcast import broadcast_shape

            shape = broadcast_shape(x._data.shape, t._data.shape)
        x, t = sh.expand(x, shape), sh.expand(t, shape)
    return x, t


class _PointwiseLoss(Op):
    """A loss l(input - target) reduced by ``reduction``; subclasses give l and dl/dd.

    Backward: grad_input = dl(d) * grad (/ numel for ``mean``), grad_target = -grad_input,
    with dl written in Tensor ops of the saved inputs so second derivatives follow.
    """

    save_inputs = True
    kernel = ""

    @classmethod
    def forward(cls, x, t, reduction, param, out_dtype=None):
        # x and t arrive in torch's result type (float32 input, int64 target -> float32); huber_loss then
        # writes into the input's dtype (``out_dtype``), as aten's huber_loss_out does
        d = x - t
        loss = cls.loss(d, param)
        if out_dtype is not None:
            loss = loss.astype(out_dtype, copy=False)
        if reduction == "none":
            return loss
        if reduction == "sum":
            return xp.asarray(loss.sum())
        with xp.errstate(invalid="ignore", divide="ignore"):
            return xp.asarray(loss.mean()) if loss.size else xp.asarray(xp.nan, dtype=loss.dtype)

    def backward(self, g):
        x, t = self.saved()
        reduction, param = self._params[:2]
        gi = self.dloss(x - t, param) * g
        if reduction == "mean":
            gi = gi / max(x._data.size, 1)
        nf = self.next_functions
        return (gi if nf[0][0] is not None else None, -gi if nf[1][0] is not None else None)

    def backward_arrays(self, g):
        x, t = self.saved()
        reduction, param = self._params[:2]
        xa, ta = x._data, t._data
        if xa.dtype != ta.dtype:  # in torch's result type, not NumPy's (float32 - int64 is float32)
            rt = result_type(xa, ta)
            xa, ta = xa.astype(rt, copy=False), ta.astype(rt, copy=False)
        gi = self.dloss_arrays(xa - ta, param) * g
        if reduction == "mean":
            gi = gi / max(x._data.size, 1)
        nf = self.next_functions
        return (wrap(gi) if nf[0][0] is not None else None, wrap(-gi) if nf[1][0] is not None else None)


@register
class MseLossBackward0(_PointwiseLoss):
    """mse_loss: (input - target)**2; derivative 2 * (input - target) (derivatives.yaml mse_loss_backward)."""

    kernel = "mse_cpu"

    @staticmethod
    def loss(d, param):
        return d * d

    @staticmethod
    def dloss(d, param):
        return d * 2

    @staticmethod
    def dloss_arrays(d, param):
        return d * 2


@register
class SmoothL1LossBackward0(_PointwiseLoss):
    """smooth_l1_loss(beta): 0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta.

    Derivative (aten smooth_l1_backward): d / beta inside [-beta, beta], sign(d) outside.
    """

    kernel = "smooth_l1_cpu"

    @staticmethod
    def loss(d, beta):
        ad = xp.abs(d)
        return xp.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta)

    @staticmethod
    def dloss(d, beta):
        inside = xp.abs(d._data) < beta  # at |d| == beta both sides agree; torch's double backward uses <
        return pw.where_(wrap(inside), d / beta, wrap(xp.sign(d._data)))

    @staticmethod
    def dloss_arrays(d, beta):
        return xp.where(xp.abs(d) <= beta, d / beta, xp.sign(d))


@register
class HuberLossBackward0(_PointwiseLoss):
    """huber_loss(delta): 0.5 d**2 where |d| < delta, else delta * (|d| - 0.5 delta).

    Derivative (aten huber_backward): d inside [-delta, delta], delta * sign(d) outside.
    aten's huber_loss_backward needs input and target of one dtype: the forward accepts a float32
    input with an int64 (or float64) target, but its backward then raises
    ``RuntimeError: Found dtype Long but expected Float`` (arguments swapped for the target's
    gradient); dyngrad raises the same.
    """

    kernel = "huber_cpu"

    def _check_dtypes(self):
        x, t = self.saved()
        for i, (a, b) in enumerate(((x, t), (t, x))):
            if self.next_functions[i][0] is not None and a._data.dtype != b._data.dtype:
                raise RuntimeError(f"Found dtype {_type_name(b._data)} but expected {_type_name(a._data)}")

    def backward(self, g):
        self._check_dtypes()
        return super().backward(g)

    def backward_arrays(self, g):
        self._check_dtypes()
        return super().backward_arrays(g)

    @staticmethod
    def loss(d, delta):
        ad = xp.abs(d)
        return xp.where(ad < delta, 0.5 * d * d, delta * (ad - 0.5 * delta))

    @staticmethod
    def dloss(d, delta):
        inside = xp.abs(d._data) < delta
        return pw.where_(wrap(inside), d, wrap(xp.sign(d._data) * delta))

    @staticmethod
    def dloss_arrays(d, delta):
        return xp.where(xp.abs(d) <= delta, d, xp.sign(d) * delta)


def _pointwise_loss(op, x: Tensor, t: Tensor, reduction: str, param, into_input: bool = False) -> Tensor:
    """Run a _PointwiseLoss in torch's result type of input and target (an integer target does not
    upcast a float32 input). ``into_input``: the loss takes the input's dtype (huber_loss), so a float
    result for an integer input is an error, as for torch's ``out=`` casts."""
    xa, ta = x._data, t._data
    rt = xa.dtype if xa.dtype == ta.dtype else result_type(xa, ta)
    if rt.kind not in "fc":
        raise NotImplementedError(f'"{op.kernel}" not implemented for \'{_type_name(xp.empty(0, rt))}\'')
    out_dtype = None
    if into_input and xa.dtype != rt:
        if xa.dtype.kind not in "fc":
            raise RuntimeError(
                f"result type {_type_name(xp.empty(0, rt))} can't be cast to the desired output type {_type_name(xa)}"
            )
        out_dtype = xa.dtype
    return apply(op, (x, t), (reduction, param, out_dtype), (xa.astype(rt, copy=False), ta.astype(rt, copy=False)))


def _weighted(loss: Tensor, weight, input, reduction: str, mean_by_weight: bool) -> Tensor:
    if weight._data.shape != input._data.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return red.sum(weighted)
    return red.sum(weighted) / red.sum(weight) if mean_by_weight else red.mean(weighted)


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",  # noqa: A002
             weight=None) -> Tensor:
    x, t = _broadcast_pair(input, target, "mse_loss")
    reduction = _reduction(reduction, size_average, reduce)
    if weight is not None:
        return _weighted(pw.pow(x - t, 2), weight, input, reduction, True)
    return _pointwise_loss(MseLossBackward0, x, t, reduction, None)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",  # noqa: A002
            weight=None) -> Tensor:
    """aten composes l1_loss: abs(input - target), then mean / sum (MeanBackward0, SumBackward0, AbsBackward0)."""
    x, t = _broadcast_pair(input, target, "l1_loss")
    reduction = _reduction(reduction, size_average, reduce)
    loss = pw.abs(x - t)
    if weight is not None:
        return _weighted(loss, weight, input, reduction, True)
    return _reduce(loss, reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",  # noqa: A002
                   beta: float = 1.0) -> Tensor:
    x, t = _broadcast_pair(input, target, "smooth_l1_loss")
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(x, t, reduction=reduction)
    return _pointwise_loss(SmoothL1LossBackward0, x, t, reduction, float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,  # noqa: A002
               weight=None) -> Tensor:
    x, t = _broadcast_pair(input, target, "huber_loss")
    reduction = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is not None:
        loss = _pointwise_loss(HuberLossBackward0, x, t, "none", float(delta), into_input=True)
        return _weighted(loss, weight, input, reduction, False)
    return _pointwise_loss(HuberLossBackward0, x, t, reduction, float(delta), into_input=True)



# ------------------------------------------------------------------ sliding windows (convolution, pooling)
# Spatial ops work on (N, C, H, W) arrays; 1-D ops run as 2-D with H = 1. ``pad`` is
# (top, bottom, left, right), so padding='same' with an even kernel can be asymmetric.


def _tuple(v, n: int) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(int(i) for i in v)
    return (int(v),) * n


def _out_size(size: int, k: int, s: int, d: int, lo: int, hi: int) -> int:
    return (size + lo + hi - d * (k - 1) - 1) // s + 1


def _pad_array(a, pad, value=0):
    if not any(pad):
        return a
    pt, pb, pl, pr = pad
    return xp.pad(a, ((0, 0),) * (a.ndim - 2) + ((pt, pb), (pl, pr)), constant_values=value)


def _col2im(cols, hw, kernel, stride, dilation, pad):
    """Sum windows back into an image: ``cols`` (N, C, kh, kw, oh, ow) -> (N, C, H, W).

    The inverse (adjoint) of ``windows``: one strided add per kernel offset (kh * kw adds).
    """
    n, c, kh, kw, oh, ow = cols.shape
    (sh_, sw), (dh, dw) = stride, dilation
    pt, pb, pl, pr = pad
    out = xp.zeros((n, c, hw[0] + pt + pb, hw[1] + pl + pr), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh : i * dh + (oh - 1) * sh_ + 1 : sh_, j * dw : j * dw + (ow - 1) * sw + 1 : sw] += cols[:, :, i, j]
    return out[:, :, pt : pt + hw[0], pl : pl + hw[1]]


def _unfold_array(a, kernel, dilation, pad, stride):
    cols = im2col(a, kernel, stride, dilation, pad)
    n, c, kh, kw, oh, ow = cols.shape
    return cols.reshape(n, c * kh * kw, oh * ow), (oh, ow)


@register
class Im2ColBackward0(Op):
    """unfold / im2col: (N, C, H, W) -> (N, C * kh * kw, L), each column one sliding window.

    Backward: col2im (fold) of the gradient, the adjoint of taking windows. Also the
    differentiable building block of convolution's recorded backward.
    Params: (kernel, dilation, pad (t, b, l, r), stride, input (H, W)).
    """

    @staticmethod
    def forward(a, kernel, dilation, pad, stride, hw):
        return _unfold_array(a, kernel, dilation, pad, stride)[0]

    def backward(self, g):
        kernel, dilation, pad, stride, hw = self._params
        return (_fold(g, hw, kernel, dilation, pad, stride),)


@register
class Col2ImBackward0(Op):
    """fold / col2im: (N, C * kh * kw, L) -> (N, C, H, W), overlapping windows summed.

    Backward: im2col (unfold) of the gradient. Params as Im2ColBackward0's, ``hw`` the output size.
    """

    @staticmethod
    def forward(cols, kernel, dilation, pad, stride, hw):
        n, ck, _ = cols.shape
        kh, kw = kernel
        oh = _out_size(hw[0], kh, stride[0], dilation[0], pad[0], pad[1])
        ow = _out_size(hw[1], kw, stride[1], dilation[1], pad[2], pad[3])
        c6 = cols.reshape(n, ck // (kh * kw), kh, kw, oh, ow)
        return _col2im(c6, hw, kernel, stride, dilation, pad)

    def backward(self, g):
        kernel, dilation, pad, stride, hw = self._params
        return (_unfold(g, kernel, dilation, pad, stride),)


def _unfold(a: Tensor, kernel, dilation, pad, stride) -> Tensor:
    return apply(Im2ColBackward0, (a,), (kernel, dilation, pad, stride, a._data.shape[2:]))


def _fold(cols: Tensor, hw, kernel, dilation, pad, stride) -> Tensor:
    return apply(Col2ImBackward0, (cols,), (kernel, dilation, pad, stride, tuple(hw)))


def _sym_pad(padding) -> tuple:
    ph, pw_ = padding
    return (ph, ph, pw_, pw_)


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:  # noqa: A002
    """torch.nn.functional.unfold: sliding local blocks of a (N, C, H, W) or (C, H, W) input."""
    if input._data.ndim not in (3, 4):
        raise NotImplementedError(
            f"Input Error: Only 3D or 4D input Tensors are supported (got {input._data.ndim}D)"
        )
    batched = input._data.ndim == 4
    x = input if batched else sh.unsqueeze(input, 0)
    out = _unfold(x, _tuple(kernel_size, 2), _tuple(dilation, 2), _sym_pad(_tuple(padding, 2)), _tuple(stride, 2))
    return out if batched else sh.squeeze(out, 0)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:  # noqa: A002
    """torch.nn.functional.fold: sum sliding blocks (N, C * kh * kw, L) back into (N, C, H, W)."""
    if input._data.ndim not in (2, 3):
        raise NotImplementedError(
            f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got {input._data.ndim}D)"
        )
    batched = input._data.ndim == 3
    x = input if batched else sh.unsqueeze(input, 0)
    hw, k, d, p, st = (_tuple(v, 2) for v in (output_size, kernel_size, dilation, padding, stride))
    ck, L = x._data.shape[1:]
    if ck % (k[0] * k[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={ck} and kernel_size={k}."
        )
    blocks = [_out_size(hw[i], k[i], st[i], d[i], p[i], p[i]) for i in range(2)]
    if blocks[0] * blocks[1] != L:
        raise RuntimeError(
            f"Given output_size={hw}, kernel_size={k}, dilation={d}, padding={p}, stride={st}, expected size of "
            f"input's dimension {2 if batched else 1} to match the calculated number of sliding blocks {blocks[0]} * "
            f"{blocks[1]} = {blocks[0] * blocks[1]}, but got input.size({2 if batched else 1})={L}."
        )
    out = _fold(x, hw, k, d, _sym_pad(p), st)
    return out if batched else sh.squeeze(out, 0)


# ------------------------------------------------------------------ convolution


def im2col(a, kernel, stride, dilation, pad, channels_first=False):
    """The sliding windows of ``a`` (N, C, H, W) padded by ``pad``, as a contiguous array.

    Layout (N, C, kh, kw, oh, ow), or (C, kh, kw, N, oh, ow) with ``channels_first`` (what convolution
    uses: then a whole batch is one BLAS matrix product). Built with one strided copy per kernel offset
    (kh * kw copies of (N, C, oh, ow) blocks), which NumPy does far faster than copying the 6-D
    strided view of ``windows``.
    """
    n, c, h, w = a.shape
    (kh, kw), (sh_, sw), (dh, dw) = kernel, stride, dilation
    oh = _out_size(h, kh, sh_, dh, pad[0], pad[1])
    ow = _out_size(w, kw, sw, dw, pad[2], pad[3])
    ap = _padded_scratch(a, pad)  # read only here: a pooled buffer (Note [Scratch buffers])
    if channels_first:
        ap = ap.transpose(1, 0, 2, 3)
        cols = xp.empty((c, kh, kw, n, oh, ow), dtype=a.dtype)
    else:
        cols = xp.empty((n, c, kh, kw, oh, ow), dtype=a.dtype)
    for i in range(kh):
        for j in range(kw):
            block = ap[:, :, i * dh : i * dh + (oh - 1) * sh_ + 1 : sh_, j * dw : j * dw + (ow - 1) * sw + 1 : sw]
            if channels_first:
                cols[:, i, j] = block
            else:
                cols[:, :, i, j] = block
    return cols


def _padded_scratch(a, pad):
    """``a`` (N, C, H, W) zero-padded by ``pad`` (t, b, l, r), in the scratch buffer "im2col_pad"."""
    if not any(pad):
        return a
    n, c, h, w = a.shape
    pt, pb, pl, pr = pad
    ap = scratch("im2col_pad", (n, c, h + pt + pb, w + pl + pr), a.dtype)
    # zero only the border (the interior is overwritten next)
    ap[:, :, :pt] = 0
    ap[:, :, pt + h :] = 0
    ap[:, :, pt : pt + h, :pl] = 0
    ap[:, :, pt : pt + h, pl + w :] = 0
    ap[:, :, pt : pt + h, pl : pl + w] = a
    return ap


def _col2im_cf(cols, n, hw, kernel, stride, dilation, pad):
    """``_col2im`` for channels-first columns (C, kh, kw, N, oh, ow) -> (N, C, H, W)."""
    c, kh, kw, _, oh, ow = cols.shape
    (sh_, sw), (dh, dw) = stride, dilation
    pt, pb, pl, pr = pad
    out = xp.zeros((c, n, hw[0] + pt + pb, hw[1] + pl + pr), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            out[:, :, i * dh : i * dh + (oh - 1) * sh_ + 1 : sh_, j * dw : j * dw + (ow - 1) * sw + 1 : sw] += cols[:, i, j]
    return out[:, :, pt : pt + hw[0], pl : pl + hw[1]].transpose(1, 0, 2, 3)


# Note [Wide columns]
# With stride 1, window (i, j) of output position (r, q) starts at flat index (r + i*dh) * Wp + q + j*dw
# of the padded image flattened row by row (Wp the padded width): the offset of (i, j) is the same
# for every position. So if the gradient of a stride-1 convolution's input is laid on the whole
# padded (Hp, Wp) grid of every image, zero outside its (oh, ow) corner (``_wide_grad``), the
# columns W^T @ grad of one kernel offset, for all channels, images and positions, are one
# contiguous run that adds into the flattened padded input (channels, images, Hp, Wp) at that
# offset: kh * kw one-dimensional adds (``_wide_col2im``), much faster than 2-D strided ones.
# What the zero positions add wraps into padding, the next row, image or channel as exact zeros.
# The grid costs (Hp * Wp) / (oh * ow) more columns in the matrix product (about 1.3x for a 3x3
# kernel on 14x14 with padding 1), less than the strided adds it saves.


def _wide_col2im(cols, c, n, hw, kernel, dilation, pad):
    """col2im of stride-1 columns on the padded grid (Note [Wide columns]) -> a new (N, C, H, W) array.

    ``cols`` is (G, kh, kw, C/G * N * Hp * Wp), the kernel offset outside the channels of a group.
    """
    groups = cols.shape[0]
    kh, kw = kernel
    (dh, dw) = dilation
    hp, wp = hw[0] + pad[0] + pad[1], hw[1] + pad[2] + pad[3]
    size = c * n * hp * wp
    # the flat padded input gradient, only read below: a pooled buffer (Note [Scratch buffers])
    flat = scratch("conv_col2im_flat", (size + (kh - 1) * dh * wp + (kw - 1) * dw,), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            off = i * dh * wp + j * dw
            run = flat[off : off + size].reshape(groups, -1)
            if i == j == 0:  # the first offset (0) sets the image, then only the tail needs zeros
                run[...] = cols[:, 0, 0]
                flat[size:] = 0
            else:
                run += cols[:, i, j]
    img = flat[:size].reshape(c, n, hp, wp)[:, :, pad[0] : pad[0] + hw[0], pad[2] : pad[2] + hw[1]]
    out = xp.empty((n, c, hw[0], hw[1]), dtype=cols.dtype)
    out.transpose(1, 0, 2, 3)[...] = img
    return out


def _wide_grad(g, hp, wp):
    """g (N, O, oh, ow) as (O, N, Hp, Wp), zero outside the (oh, ow) corner (see Note [Wide columns]).

    The result is the scratch buffer "conv_wide_grad" (Note [Scratch buffers]): read it before the next call."""
    n, o, oh, ow = g.shape
    out = scratch("conv_wide_grad", (o, n, hp, wp), g.dtype)
    out[:, :, oh:] = 0
    out[:, :, :oh, ow:] = 0
    out[:, :, :oh, :ow] = g.transpose(1, 0, 2, 3)
    return out


def _conv_forward(x, w, stride, pad, dilation, groups, cache=None):
    """Cross-correlation of x (N, C, H, W) with w (O, C/groups, kh, kw): im2col, then matmul.

    out[n, o, h, w] = sum_{c, i, j} w[o, c, i, j] * x_pad[n, c, h * s + i * d, w * s + j * d].
    The columns are channels-first (C * kh * kw, N, L); the product is batched over N with each
    column block read in place (a strided BLAS operand), so the result comes out in (N, O, L)
    order with no transpose copy.
    """
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    cols = im2col(x, (kh, kw), stride, dilation, pad, channels_first=True)  # (C, kh, kw, N, oh, ow)
    if cache is not None:
        cache[:] = [cols]
    oh, ow = cols.shape[4:]
    if groups == 1:
        out = xp.matmul(w.reshape(o, -1), cols.reshape(-1, n, oh * ow).transpose(1, 0, 2))  # (N, O, L)
        return out.reshape(n, o, oh, ow)
    cols = cols.reshape(groups, -1, n, oh * ow).transpose(2, 0, 1, 3)  # (N, G, Cg * k, L)
    out = xp.matmul(w.reshape(groups, o // groups, -1), cols)
    return out.reshape(n, o, oh, ow)


def _conv_grad_input(g, w, hw, stride, pad, dilation, groups):
    """The adjoint of ``_conv_forward`` in x (also transposed convolution's forward): g (N, O, oh, ow) -> (N, C, H, W)."""
    n, o, oh, ow = g.shape
    _, cg, kh, kw = w.shape
    if stride == (1, 1):
        hp, wp = hw[0] + pad[0] + pad[1], hw[1] + pad[2] + pad[3]
        gw = _wide_grad(g, hp, wp).reshape(groups, o // groups, -1)
        # w as (G, kh * kw * Cg, O/G): the kernel offset outside the channel, for _wide_col2im's runs
        wt = w.reshape(groups, o // groups, cg, kh * kw).transpose(0, 3, 2, 1).reshape(groups, -1, o // groups)
        # the column matrix only feeds _wide_col2im: a pooled buffer (Note [Scratch buffers])
        cols = scratch("conv_grad_cols", (groups, wt.shape[1], gw.shape[2]), xp.result_type(wt, gw))
        xp.matmul(wt, gw, out=cols)
        return _wide_col2im(cols.reshape(groups, kh, kw, -1), groups * cg, n, hw, (kh, kw), dilation, pad)
    wt = w.reshape(groups, o // groups, -1).transpose(0, 2, 1)  # (G, Cg * k, O/G)
    gt = g.transpose(1, 0, 2, 3).reshape(groups, o // groups, n * oh * ow)
    cols = xp.matmul(wt, gt)  # (G, Cg * k, N * L)
    return _col2im_cf(cols.reshape(groups * cg, kh, kw, n, oh, ow), n, hw, (kh, kw), stride, dilation, pad)


def _conv_grad_weight(x, g, kernel, stride, pad, dilation, groups, cache=None):
    """The adjoint of ``_conv_forward`` in w: im2col(x) contracted with g over batch and positions -> (O, C/G, kh, kw)."""
    c = x.shape[1]
    n, o, oh, ow = g.shape
    cols = cache[0] if cache else im2col(x, kernel, stride, dilation, pad, channels_first=True)
    if cols.shape[4:] != (oh, ow):  # transposed convolution with output_padding >= stride: extra windows
        cols = cols[:, :, :, :, :oh, :ow]
    gt = g.transpose(1, 0, 2, 3).reshape(groups, o // groups, -1)
    cols = cols.reshape(groups, -1, gt.shape[2])
    gw = xp.matmul(cols, gt.transpose(0, 2, 1))  # (G, Cg * k, O/G): the faster orientation for OpenBLAS
    return gw.transpose(0, 2, 1).reshape(o, c // groups, *kernel)


def _as4d(a, nd):
    return a[:, :, None] if nd == 1 else a


@register
class ConvolutionBackward0(Op):
    """convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups).

    Regular: out[n, o] = sum_c,i,j w[o, c, i, j] * x_pad[n, c, h*s + i*d, w*s + j*d] (+ bias[o]), computed as
    one tensordot of the windows of the padded input (no copy until BLAS packs them) with the weight.
    Transposed: the adjoint of that map in its input. Backward (aten's convolution_backward):
    grad_input is the other direction of the same map, grad_weight a contraction of the windows
    with grad, grad_bias the sum of grad over batch and positions. The recorded form (create_graph)
    uses Im2ColBackward0 / Col2ImBackward0 and matmul, so it is differentiable again.
    1-D convolutions run as 2-D with a height-1 kernel.
    Params: (stride, pad (t, b, l, r), dilation, transposed, output_padding, groups, spatial dims).
    """

    save_inputs = True

    @staticmethod
    def forward(x, w, b, stride, pad, dilation, transposed, output_padding, groups, nd, cache):
        x4, w4 = _as4d(x, nd), _as4d(w, nd)
        if transposed:
            hw = _transposed_size(x4.shape[2:], w4.shape[2:], stride, pad, dilation, output_padding)
            out = _conv_grad_input(x4, w4, hw, stride, pad, dilation, groups)
        else:
            out = _conv_forward(x4, w4, stride, pad, dilation, groups, cache)
        if b is not None:
            out += b.reshape(1, -1, 1, 1)
        return out[:, :, 0] if nd == 1 else out

    def backward_arrays(self, g):
        x, w, b = self.saved()
        stride, pad, dilation, transposed, output_padding, groups, nd, cache = self._params
        nf = self.next_functions
        x4, w4, g4 = _as4d(x._data, nd), _as4d(w._data, nd), _as4d(g, nd)
        gx = gw = gb = None
        if nf[0][0] is not None:
            if transposed:
                # output_padding >= stride (allowed below the dilation) leaves windows past the input: dropped
                gx = _conv_forward(g4, w4, stride, pad, dilation, groups)[:, :, : x4.shape[2], : x4.shape[3]]
            else:
                gx = _conv_grad_input(g4, w4, x4.shape[2:], stride, pad, dilation, groups)
            gx = wrap(gx.reshape(x._data.shape))
        if nf[1][0] is not None:
            if transposed:
                gw = _conv_grad_weight(g4, x4, w4.shape[2:], stride, pad, dilation, groups)
            else:
                gw = _conv_grad_weight(x4, g4, w4.shape[2:], stride, pad, dilation, groups, cache)
            gw = wrap(gw.reshape(w._data.shape))
        if b is not None and nf[2][0] is not None:
            gb = wrap(g4.sum(axis=(0, 2, 3)))
        return gx, gw, gb

    def backward(self, g):
        x, w, b = self.saved()
        stride, pad, dilation, transposed, output_padding, groups, nd, cache = self._params
        nf = self.next_functions
        xs, ws = x._data.shape, w._data.shape
        if nd == 1:
            x, w, g = sh.unsqueeze(x, 2), sh.unsqueeze(w, 2), sh.unsqueeze(g, 2)
        kernel = w._data.shape[2:]
        k = kernel[0] * kernel[1]
        n = x._data.shape[0]
        # the side whose windows are taken: the input for a regular convolution, grad for a transposed one
        src, other = (g, x) if transposed else (x, g)
        cols = _unfold(src, kernel, dilation, pad, stride)  # (N, Csrc * k, L)
        csrc, cother = src._data.shape[1], other._data.shape[1]
        if transposed:
            hw = x._data.shape[2:]
            oh = _out_size(g._data.shape[2], kernel[0], stride[0], dilation[0], pad[0], pad[1])
            ow = _out_size(g._data.shape[3], kernel[1], stride[1], dilation[1], pad[2], pad[3])
            if (oh, ow) != tuple(hw):  # output_padding >= stride: windows past the input are dropped
                cols = cols.reshape((n, csrc * k, oh, ow))[:, :, : hw[0], : hw[1]].reshape((n, csrc * k, -1))
        cols = cols.reshape((n, groups, csrc // groups * k, -1))
        other2 = other.reshape((n, groups, cother // groups, -1))
        # w as (groups, other-side channels per group, src-side channels per group * k)
        w2 = w.reshape((groups, cother // groups, csrc // groups * k))
        gx = gw = gb = None
        if nf[0][0] is not None:
            if transposed:
                gx = _products.matmul(w2, cols).reshape(x._data.shape)
            else:
                gcols = _products.matmul(w2.transpose(-1, -2), other2).reshape((n, csrc * k, -1))
                gx = _fold(gcols, x._data.shape[2:], kernel, dilation, pad, stride)
            gx = gx.reshape(xs)
        if nf[1][0] is not None:
            gw = red.sum(_products.matmul(other2, cols.transpose(-1, -2)), 0).reshape(ws)
        if b is not None and nf[2][0] is not None:
            gb = red.sum(g, (0, 2, 3))
        return gx, gw, gb


def _transposed_size(hw, kernel, stride, pad, dilation, output_padding):
    return tuple(
        (hw[i] - 1) * stride[i] - pad[2 * i] - pad[2 * i + 1] + dilation[i] * (kernel[i] - 1) + output_padding[i] + 1
        for i in range(2)
    )


def _shape_list(shape) -> str:
    return "[" + ", ".join(str(n) for n in shape) + "]"


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, transposed=False, output_padding=0):  # noqa: A002
    name = ("conv_transpose" if transposed else "conv") + f"{nd}d"
    if input._data.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of size: "
            f"{_shape_list(input._data.shape)}"
        )
    if input._data.ndim == nd + 1:
        out = _conv(sh.unsqueeze(input, 0), weight, bias, stride, padding, dilation, groups, nd, transposed,
                    output_padding)
        return sh.squeeze(out, 0)
    x, w = input._data, weight._data
    if w.ndim != nd + 2:
        raise RuntimeError(
            f"Expected {nd + 2}-dimensional input for {nd + 2}-dimensional weight {_shape_list(w.shape)}, but got "
            f"{x.ndim}-dimensional input of size {_shape_list(x.shape)} instead"
        )
    for arg, v in (("stride", stride), ("dilation", dilation)) + ((("padding", padding),) if not isinstance(padding, str) else ()):
        if isinstance(v, (list, tuple)) and len(v) != nd:
            raise RuntimeError(
                f"expected {arg} to be a single integer value or a list of {nd} values to match the convolution "
                f"dimensions, but got {arg}={list(v)}"
            )
    stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    kernel = w.shape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pad = (0,) * (2 * nd)
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pad = ()
            for k, d in zip(kernel, dilation):
                total = d * (k - 1)
                pad += (total // 2, total - total // 2)
            if any(d * (k - 1) % 2 for k, d in zip(kernel, dilation)):
                warnings.warn(
                    "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy "
                    "of the input be created (Triggered internally at "
                    "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)",
                    UserWarning,
                    stacklevel=3,
                )
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        p = _tuple(padding, nd)
        if any(v < 0 for v in p):
            raise RuntimeError("negative padding is not supported")
        pad = tuple(v for v in p for _ in range(2))
    out_pad = _tuple(output_padding, nd)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    c = x.shape[1]
    if not transposed and c != w.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_shape_list(w.shape)}, expected input{_shape_list(x.shape)} to "
            f"have {w.shape[1] * groups} channels, but got {c} channels instead"
        )
    if transposed and c != w.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {_shape_list(w.shape)}, expected input{_shape_list(x.shape)} to "
            f"have {w.shape[0]} channels, but got {c} channels instead"
        )
    out_channels = w.shape[1] * groups if transposed else w.shape[0]
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != out_channels):
        raise RuntimeError(
            f"Given {'transposed=1, ' if transposed else ''}weight of size {_shape_list(w.shape)}, expected bias to be "
            f"1-dimensional with {out_channels} elements, but got bias of size {_shape_list(bias._data.shape)} instead"
        )
    if transposed:
        for i in range(nd):
            if out_pad[i] >= stride[i] and out_pad[i] >= dilation[i]:
                names = ("height", "width") if nd == 2 else ("width",)
                raise RuntimeError(
                    "output padding must be smaller than either stride or dilation, but got "
                    + " ".join(f"output_padding_{n}: {v}" for n, v in zip(names, out_pad)) + " "
                    + " ".join(f"stride_{n}: {v}" for n, v in zip(names, stride)) + " "
                    + " ".join(f"dilation_{n}: {v}" for n, v in zip(names, dilation))
                )
        outs = _transposed_size(x.shape[2:] if nd == 2 else (1,) + x.shape[2:],
                                kernel if nd == 2 else (1,) + kernel,
                                stride if nd == 2 else (1,) + stride, pad if nd == 2 else (0, 0) + pad,
                                dilation if nd == 2 else (1,) + dilation, out_pad if nd == 2 else (0,) + out_pad)
        if any(v <= 0 for v in outs):
            outs = outs[2 - nd:]
            raise RuntimeError(
                f"Given input size per channel: ({' x '.join(str(v) for v in x.shape[2:])}). Calculated output size "
                f"per channel: ({' x '.join(str(v) for v in outs)}). Output size is too small"
            )
    else:
        padded = tuple(x.shape[2 + i] + pad[2 * i] + pad[2 * i + 1] for i in range(nd))
        eff = tuple(dilation[i] * (kernel[i] - 1) + 1 for i in range(nd))
        if any(p < k for p, k in zip(padded, eff)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(str(v) for v in padded)}). Kernel size: "
                f"({' x '.join(str(v) for v in eff)}). Kernel size can't be greater than actual input size"
            )
    if x.dtype != w.dtype or (bias is not None and bias._data.dtype != x.dtype):
        other = w.dtype if x.dtype != w.dtype else bias._data.dtype
        raise RuntimeError(f"expected scalar type {_type_name(x)} but found {_type_name(xp.empty(0, other))}")
    if nd == 1:
        stride, dilation, pad, out_pad = (1,) + stride, (1,) + dilation, (0, 0) + pad, (0,) + out_pad
    # Note [Convolution column cache]: the forward's im2col columns are kept for grad_weight when
    # a graph is recorded (the node's params hold the cache; it goes with the node), saving a second
    # im2col at the cost of kh * kw copies of the input in memory until backward.
    cache = [] if (is_grad_enabled() and weight._requires_grad and not transposed) else None
    params = (stride, pad, dilation, transposed, out_pad, groups, nd, cache)
    return apply(ConvolutionBackward0, (input, weight, bias), params)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):  # noqa: A002
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, True, output_padding)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):  # noqa: A002
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, True, output_padding)



# ------------------------------------------------------------------ pooling


def _pool_out(size: int, k: int, pad: int, s: int, d: int, ceil_mode: bool) -> int:
    """aten's pooling_output_shape, with its checks."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * d + 1) // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} and dilation={d}"
        )
    out = (size + 2 * pad - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + pad:
        out -= 1
    return out


def _pool_setup(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode):
    """Normalise pooling arguments and run aten's shape checks; returns (kernel, stride, pad4, dilation, out_hw)."""
    kernel = _tuple(kernel_size, 2)
    stride = kernel if stride is None or (isinstance(stride, (list, tuple)) and not stride) else _tuple(stride, 2)
    pad, dil = _tuple(padding, 2), _tuple(dilation, 2)
    a = x._data
    h, w = a.shape[-2:]
    oh = _pool_out(h, kernel[0], pad[0], stride[0], dil[0], ceil_mode)
    ow = _pool_out(w, kernel[1], pad[1], stride[1], dil[1], ceil_mode)
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if stride[0] <= 0 or stride[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if dil[0] <= 0 or dil[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dil[0]} dilationW: {dil[1]}")
    if any(n == 0 for n in a.shape[-3:]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{_shape_list(a.shape)}"
        )
    if oh < 1 or ow < 1:
        raise RuntimeError(
            f"Given input size: ({a.shape[-3]}x{h}x{w}). Calculated output size: ({a.shape[-3]}x{oh}x{ow}). "
            "Output size is too small"
        )
    # the far side may need more padding than ``pad`` for the last window of ceil_mode
    pb = max(pad[0], (oh - 1) * stride[0] + dil[0] * (kernel[0] - 1) + 1 - h - pad[0])
    pr = max(pad[1], (ow - 1) * stride[1] + dil[1] * (kernel[1] - 1) + 1 - w - pad[1])
    return kernel, stride, (pad[0], pb, pad[1], pr), dil, (oh, ow)


def _offsets(kernel, stride, dilation, out_hw):
    """For each kernel offset (i, j): the strided slices of the padded input it reads."""
    (sh_, sw), (dh, dw), (oh, ow) = stride, dilation, out_hw
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            yield i, j, (slice(i * dh, i * dh + (oh - 1) * sh_ + 1, sh_), slice(j * dw, j * dw + (ow - 1) * sw + 1, sw))


def _max_pool_arrays(a, kernel, stride, pad, dilation, out_hw):
    """Max over each window and its flat index into H * W, as aten's CPU kernel picks them.

    aten starts each window at its first in-bounds element with value -inf, then takes an element
    when it is greater than the running max or NaN: the first maximum wins ties, the last NaN wins.
    """
    h, w = a.shape[-2:]
    oh, ow = out_hw
    low = -xp.inf if a.dtype.kind == "f" else xp.iinfo(a.dtype).min
    ap = _pad_array(a, pad, low)
    rows = xp.arange(oh)[:, None] * stride[0] - pad[0]
    cols = xp.arange(ow)[None, :] * stride[1] - pad[2]
    first_r = xp.where(rows < 0, rows + (-rows + dilation[0] - 1) // dilation[0] * dilation[0], rows)
    first_c = xp.where(cols < 0, cols + (-cols + dilation[1] - 1) // dilation[1] * dilation[1], cols)
    shape = a.shape[:-2] + (oh, ow)
    best = xp.full(shape, low, dtype=a.dtype)
    idx = xp.empty(shape, dtype=xp.int64)
    idx[...] = first_r * w + first_c
    for i, j, (rs, cs) in _offsets(kernel, stride, dilation, out_hw):
        v = ap[..., rs, cs]
        take = v > best
        if a.dtype.kind == "f":
            take |= xp.isnan(v)
        xp.copyto(best, v, where=take)
        xp.copyto(idx, (rows + i * dilation[0]) * w + cols + j * dilation[1], where=take)
    return best, idx


def _scatter_flat(g, idx, in_shape):
    """Sum g into zeros of ``in_shape`` at the flat (H * W) positions ``idx`` of each (n, c) plane."""
    hw = in_shape[-2] * in_shape[-1]
    planes = 1
    for n in in_shape[:-2]:
        planes *= n
    offs = (xp.arange(planes) * hw).reshape(g.shape[:-2] + (1, 1))
    flat = (idx + offs).reshape(-1)
    weights = g.reshape(-1)
    inside = (idx >= 0) & (idx < hw)  # a window wholly in the padding has no element (aten: undefined)
    if not inside.all():
        flat, weights = flat[inside.reshape(-1)], weights[inside.reshape(-1)]
    out = xp.bincount(flat, weights=weights, minlength=planes * hw)
    return out.astype(g.dtype, copy=False).reshape(in_shape)


@register
class MaxPool2DWithIndicesBackward0(Op):
    """max_pool2d_with_indices: (values, indices) over sliding windows; indices are flat positions in H * W.

    Backward (derivatives.yaml, max_pool2d_with_indices_backward): the gradient of each window goes to its
    argmax (summed where windows share it). Params: (kernel, stride, pad (t, b, l, r), dilation, out size).
    """

    save_inputs = True

    @staticmethod
    def forward(a, kernel, stride, pad, dilation, out_hw):
        return _max_pool_arrays(a, kernel, stride, pad, dilation, out_hw)

    def backward(self, g, _gi=None):
        (x,) = self.saved()
        return (apply(MaxPool2DWithIndicesBackwardBackward0, (g,), (self._indices, x._data.shape)),)


@register
class MaxPool2DWithIndicesBackwardBackward0(Op):
    """max_pool2d_with_indices_backward(grad, indices): grad summed into zeros at the indices.

    Its own backward (derivatives.yaml): the gradient gathered at the indices (linear in grad).
    """

    @staticmethod
    def forward(g, idx, in_shape):
        return _scatter_flat(g, idx, in_shape)

    def backward(self, gg):
        idx, in_shape = self._params
        flat_shape = in_shape[:-2] + (in_shape[-2] * in_shape[-1],)
        picked = gg.reshape(flat_shape)[_gather_key(idx, flat_shape)]
        return (picked,)


def _gather_key(idx, flat_shape):
    """The advanced-indexing key picking flat positions ``idx`` (.., oh, ow) from a (.., H * W) array."""
    lead = idx.shape[:-2]
    key = []
    for d, n in enumerate(lead):
        shape = [1] * idx.ndim
        shape[d] = n
        key.append(xp.arange(n).reshape(shape))
    key.append(xp.clip(idx, 0, flat_shape[-1] - 1))
    return tuple(key)


def _max_pool2d(x: Tensor, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    if x._data.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    kernel, stride, pad, dil, out_hw = _pool_setup(x, kernel_size, stride, padding, dilation, ceil_mode)
    values, indices = apply_multi(MaxPool2DWithIndicesBackward0, (x,), (kernel, stride, pad, dil, out_hw))
    if values._grad_fn is not None:
        values._grad_fn._indices = indices._data
    return (values, indices) if return_indices else values


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    return _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _pool1d_args(kernel_size, stride, padding, dilation):
    one = lambda v: (1, _tuple(v, 1)[0])  # noqa: E731
    return one(kernel_size), (None if stride is None or stride == [] else one(stride)), (0, _tuple(padding, 1)[0]), \
        one(dilation)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """aten's max_pool1d_with_indices: unsqueeze(-2), max_pool2d with a height-1 kernel, squeeze(-2)."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got {_shape_list(input._data.shape)}")
    k, s, p, d = _pool1d_args(kernel_size, stride, padding, dilation)
    if not return_indices:  # aten's max_pool1d checks first; max_pool1d_with_indices goes straight to 2-D
        _check_max_pool1d(input, k, s or k, p, d, ceil_mode)
    out = _max_pool2d(sh.unsqueeze(input, -2), k, s, p, d, ceil_mode, True)
    values, indices = sh.squeeze(out[0], -2), wrap(out[1]._data.squeeze(-2))
    return (values, indices) if return_indices else values


def _check_max_pool1d(input, k, s, p, d, ceil_mode):  # noqa: A002
    if k[1] <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k[1]}")
    if s[1] <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s[1]}")
    if p[1] < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p[1]}")
    if p[1] > k[1] // 2:
        raise RuntimeError(
            f"max_pool1d() padding should be at most half of kernel size, but got padding={p[1]} and kernel_size={k[1]}"
        )
    if d[1] <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d[1]}")
    ow = _pool_out(input._data.shape[-1], k[1], p[1], s[1], d[1], ceil_mode)
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")


def _avg_divisor(in_hw, kernel, stride, pad, out_hw, count_include_pad, divisor_override, dtype):
    """aten's avg_pool2d divisor for every output position, as an (oh, ow) array."""
    if divisor_override:
        return xp.asarray(divisor_override, dtype=dtype)
    sizes = []
    for axis in range(2):
        start = xp.arange(out_hw[axis]) * stride[axis] - pad[2 * axis]
        end = xp.minimum(start + kernel[axis], in_hw[axis] + pad[2 * axis])
        full = end - start
        start, end = xp.maximum(start, 0), xp.minimum(end, in_hw[axis])
        sizes.append(full if count_include_pad else end - start)
    return (sizes[0][:, None] * sizes[1][None, :]).astype(dtype)


@register
class AvgPool2DBackward0(Op):
    """avg_pool2d: the sum of each window (zero padding) divided by aten's divisor.

    Backward (avg_pool2d_backward): each output's grad / divisor spread over its window. Params:
    (kernel, stride, pad (t, b, l, r) with symmetric ``padding`` in pad[0], pad[2], out size, divisor).
    """

    @staticmethod
    def forward(a, kernel, stride, pad, out_hw, divisor):
        ap = _pad_array(a, pad)
        out = None
        for _, _, (rs, cs) in _offsets(kernel, stride, (1, 1), out_hw):
            v = ap[..., rs, cs]
            out = v.copy() if out is None else xp.add(out, v, out=out)
        if out.dtype.kind != "f":
            return (out / divisor).astype(a.dtype)  # aten's integer division truncates toward zero
        out /= divisor
        return out

    def backward(self, g):
        return (apply(AvgPool2DBackwardBackward0, (g,), self._params + (self._in_shape,)),)

    def backward_arrays(self, g):
        return (wrap(AvgPool2DBackwardBackward0.forward(g, *self._params, self._in_shape)),)


@register
class AvgPool2DBackwardBackward0(Op):
    """avg_pool2d_backward(grad): grad / divisor summed back over each window; its backward is avg_pool2d again."""

    @staticmethod
    def forward(g, kernel, stride, pad, out_hw, divisor, in_shape):
        gd = g / divisor
        h, w = in_shape[-2:]
        out = xp.zeros(in_shape[:-2] + (h + pad[0] + pad[1], w + pad[2] + pad[3]), dtype=g.dtype)
        for _, _, (rs, cs) in _offsets(kernel, stride, (1, 1), out_hw):
            out[..., rs, cs] += gd
        return out[..., pad[0] : pad[0] + h, pad[2] : pad[2] + w]

    def backward(self, gg):
        params = self._params[:-1]
        node_out = apply(AvgPool2DBackward0, (gg,), params)
        if node_out._grad_fn is not None:
            node_out._grad_fn._in_shape = gg._data.shape
        return (node_out,)


def _avg_pool2d(x: Tensor, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    a = x._data
    if a.ndim not in (3, 4):
        if a.ndim < 3:
            _wrap_dim(-3, a.ndim)
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:"
            f"{_shape_list(a.shape)}"
        )
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernel, stride, pad, _, out_hw = _pool_setup(x, kernel_size, stride, padding, 1, ceil_mode)
    divisor = _avg_divisor(a.shape[-2:], kernel, stride, pad, out_hw, count_include_pad, divisor_override,
                           a.dtype if a.dtype.kind == "f" else xp.int64)
    out = apply(AvgPool2DBackward0, (x,), (kernel, stride, pad, out_hw, divisor))
    if out._grad_fn is not None:
        out._grad_fn._in_shape = a.shape
    return out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,  # noqa: A002
               divisor_override=None):
    return _avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):  # noqa: A002
    """aten's avg_pool1d: unsqueeze(-2), avg_pool2d with a height-1 kernel, squeeze(-2)."""
    if input._data.ndim not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got {_shape_list(input._data.shape)}")
    k, s, p, _ = _pool1d_args(kernel_size, stride, padding, 1)
    out = _avg_pool2d(sh.unsqueeze(input, -2), k, s, p, ceil_mode, count_include_pad, None)
    return sh.squeeze(out, -2)



# ------------------------------------------------------------------ normalisation
# layer_norm, batch_norm and group_norm share one backward: with xhat = (x - mean) * rstd over the
# normalised axes and gxhat = grad * weight,
#     grad_input = rstd * (gxhat - mean(gxhat) - xhat * mean(gxhat * xhat)),
# (aten's native_layer_norm_backward / batch_norm_backward / native_group_norm_backward); weight and
# bias get sums of grad * xhat and grad over the other axes. The Tensor form recomputes mean and
# rstd from the saved input with Tensor ops, so second derivatives are exact.


def _stats(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    xc = x - mean
    var = (xc * xc).mean(axis=axes, keepdims=True)
    return mean, xc, var, 1 / xp.sqrt(var + eps)


def _norm_backward_arrays(g, x, w_b, axes, eps, rstd=None, mean=None):
    """grad_input of (x - mean) * rstd (* w_b) on arrays; ``rstd``/``mean`` given means fixed statistics."""
    if rstd is None:
        _, xc, _, rstd = _stats(x, axes, eps)
        xhat = xc * rstd
        gxhat = g * w_b if w_b is not None else g
        gi = gxhat - gxhat.mean(axis=axes, keepdims=True)
        gi -= xhat * (gxhat * xhat).mean(axis=axes, keepdims=True)
        gi *= rstd
        return gi, xhat
    xhat = (x - mean) * rstd
    return (g * w_b if w_b is not None else g) * rstd, xhat


def _norm_backward(g: Tensor, x: Tensor, w_b, axes, eps, fixed=None):
    """The same formula in Tensor ops (records a graph under create_graph)."""
    if fixed is not None:
        mean, rstd = fixed
        xhat = (x - mean) * rstd
        gxhat = g * w_b if w_b is not None else g
        return gxhat * rstd, xhat
    mean = red.mean(x, axes, keepdim=True)
    xc = x - mean
    var = red.mean(xc * xc, axes, keepdim=True)
    rstd = pw.pow(var + eps, -0.5)
    xhat = xc * rstd
    gxhat = g * w_b if w_b is not None else g
    gi = gxhat - red.mean(gxhat, axes, keepdim=True) - xhat * red.mean(gxhat * xhat, axes, keepdim=True)
    return gi * rstd, xhat


@register
class NativeLayerNormBackward0(Op):
    """native_layer_norm(input, normalized_shape, weight, bias, eps): normalise over the trailing dims.

    Biased variance, rstd = 1 / sqrt(var + eps); y = xhat * weight + bias. Params: (number of
    normalised dims, eps).
    """

    save_inputs = True

    @staticmethod
    def forward(x, w, b, k, eps):
        axes = tuple(range(x.ndim - k, x.ndim))
        _, xc, _, rstd = _stats(x, axes, eps)
        y = xc
        y *= rstd
        if w is not None:
            y *= w
        if b is not None:
            y += b
        return y

    def backward(self, g):
        x, w, b = self.saved()
        k, eps = self._params
        nf = self.next_functions
        axes = tuple(range(x._data.ndim - k, x._data.ndim))
        lead = tuple(range(x._data.ndim - k))
        gi, xhat = _norm_backward(g, x, w, axes, eps)
        total = (lambda t: red.sum(t, lead)) if lead else (lambda t: t)  # sum(t, ()) would sum every dim
        return (gi if nf[0][0] is not None else None,
                total(g * xhat) if w is not None and nf[1][0] is not None else None,
                total(g) if b is not None and nf[2][0] is not None else None)

    def backward_arrays(self, g):
        x, w, b = self.saved()
        k, eps = self._params
        nf = self.next_functions
        xd = x._data
        axes = tuple(range(xd.ndim - k, xd.ndim))
        lead = tuple(range(xd.ndim - k))
        gi, xhat = _norm_backward_arrays(g, xd, w._data if w is not None else None, axes, eps)
        return (wrap(gi) if nf[0][0] is not None else None,
                wrap((g * xhat).sum(axis=lead)) if w is not None and nf[1][0] is not None else None,
                wrap(g.sum(axis=lead)) if b is not None and nf[2][0] is not None else None)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):  # noqa: A002
    if isinstance(normalized_shape, int) or not isinstance(normalized_shape, (list, tuple)):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
            f"{type(normalized_shape).__name__}"
        )
    ns = tuple(int(n) for n in normalized_shape)
    shape = input._data.shape
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.shape != ns:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                f"{_shape_list(t._data.shape)} and normalized_shape = {_shape_list(ns)}"
            )
    if len(shape) < len(ns) or shape[len(shape) - len(ns):] != ns:
        raise RuntimeError(
            f"Given normalized_shape={_shape_list(ns)}, expected input with shape [*, {', '.join(str(n) for n in ns)}], "
            f"but got input of size{_shape_list(shape)}"
        )
    return apply(NativeLayerNormBackward0, (input, weight, bias), (len(ns), float(eps)))


@register
class NativeBatchNormBackward0(Op):
    """native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps).

    Statistics per channel (dim 1) over every other dim: the batch's own (biased variance) when
    training, the running ones otherwise. Backward: the shared normalisation formula (training) or,
    with fixed running statistics, grad * weight * rstd. Params: (training, eps, running mean, running var).
    """

    save_inputs = True

    @staticmethod
    def forward(x, w, b, training, eps, rm, rv):
        shape = (1, -1) + (1,) * (x.ndim - 2)
        if training:
            axes = (0,) + tuple(range(2, x.ndim))
            _, y, _, rstd = _stats(x, axes, eps)
            y *= rstd
        else:
            y = (x - rm.reshape(shape)) / xp.sqrt(rv.reshape(shape) + eps)
        if w is not None:
            y *= w.reshape(shape)
        if b is not None:
            y += b.reshape(shape)
        return y.astype(x.dtype, copy=False)

    def _fixed(self, x):
        training, eps, rm, rv = self._params
        if training:
            return None
        shape = (1, -1) + (1,) * (x.ndim - 2)
        return rm.reshape(shape).astype(x.dtype), (1 / xp.sqrt(rv + eps)).reshape(shape).astype(x.dtype)

    def backward(self, g):
        x, w, b = self.saved()
        eps = self._params[1]
        nd = x._data.ndim
        shape = (1, -1) + (1,) * (nd - 2)
        axes = (0,) + tuple(range(2, nd))
        fixed = self._fixed(x._data)
        wb = sh.reshape(w, shape) if w is not None else None
        gi, xhat = _norm_backward(g, x, wb, axes, eps, None if fixed is None else tuple(wrap(f) for f in fixed))
        nf = self.next_functions
        return (gi if nf[0][0] is not None else None,
                red.sum(g * xhat, axes) if w is not None and nf[1][0] is not None else None,
                red.sum(g, axes) if b is not None and nf[2][0] is not None else None)

    def backward_arrays(self, g):
        x, w, b = self.saved()
        eps = self._params[1]
        xd = x._data
        shape = (1, -1) + (1,) * (xd.ndim - 2)
        axes = (0,) + tuple(range(2, xd.ndim))
        fixed = self._fixed(xd)
        wb = w._data.reshape(shape) if w is not None else None
        if fixed is None:
            gi, xhat = _norm_backward_arrays(g, xd, wb, axes, eps)
        else:
            gi, xhat = _norm_backward_arrays(g, xd, wb, axes, eps, fixed[1], fixed[0])
        nf = self.next_functions
        return (wrap(gi) if nf[0][0] is not None else None,
                wrap((g * xhat).sum(axis=axes)) if w is not None and nf[1][0] is not None else None,
                wrap(g.sum(axis=axes)) if b is not None and nf[2][0] is not None else None)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,  # noqa: A002
               momentum: float = 0.1, eps: float = 1e-5):
    """Batch normalisation; when training, ``running_mean``/``running_var`` are updated in place
    (running = (1 - momentum) * running + momentum * batch statistic, the variance unbiased), as torch."""
    a = input._data
    if training:
        size = a.shape[0] * (1 if a.ndim < 2 else 1)
        for n in a.shape[2:]:
            size *= n
        if a.ndim < 2:
            _wrap_dim(1, a.ndim)
        if size == 1:
            from .._tensor import Size

            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {Size(a.shape)}"
            )
    if a.ndim < 2:
        _wrap_dim(1, a.ndim)
    c = a.shape[1]
    if not training and running_mean is None:
        raise RuntimeError("running_mean must be defined in evaluation mode")
    if not training and running_var is None:
        raise RuntimeError("running_var must be defined in evaluation mode")
    # aten's checks, in its order: sizes (running stats first), the input's dtype, mixed dtypes, ranks
    named = (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias))
    for name, t in named:
        if t is not None and t._data.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"batch_norm" not implemented for \'{_type_name(a)}\'')
    # a half input may take float32 parameters (aten's "mixed type"); other mixes are errors
    allowed = (a.dtype, xp.dtype(xp.float32)) if a.dtype == xp.float16 else (a.dtype,)
    if any(t is not None and t._data.dtype not in allowed for _, t in named):
        if a.dtype == xp.float32:
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    for t in (running_mean, running_var):
        if t is not None and t._data.ndim != 1:
            raise RuntimeError(f"TensorAccessor expected 1 dims but tensor has {t._data.ndim}")
    if training and (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    # a weight or bias of another shape with C elements is used as its flat view, as aten does
    weight = sh.reshape(weight, (c,)) if weight is not None and weight._data.ndim != 1 else weight
    bias = sh.reshape(bias, (c,)) if bias is not None and bias._data.ndim != 1 else bias
    rm = running_mean._data if running_mean is not None else None
    rv = running_var._data if running_var is not None else None
    out = apply(NativeBatchNormBackward0, (input, weight, bias), (training, float(eps), rm, rv))
    if training and (running_mean is not None or running_var is not None):
        axes = (0,) + tuple(range(2, a.ndim))
        n = a.size // c if c else 0
        for t, stat in ((running_mean, lambda: a.mean(axis=axes)),
                        (running_var, lambda: a.var(axis=axes) * (n / (n - 1) if n > 1 else 1.0))):
            if t is not None:
                t._data[...] = (1 - momentum) * t._data + momentum * stat()
                t._vc[0] += 1
    return out


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,  # noqa: A002
                  use_input_stats: bool = True, momentum: float = 0.1, eps: float = 1e-5):
    """Normalise each (sample, channel) slice of an (N, C, *) input over its spatial elements.

    As aten's ``instance_norm``: the input is viewed as (1, N * C, *), weight, bias and running stats
    are repeated N times, ``batch_norm`` runs on that (NativeBatchNormBackward0, its per-slice running
    stats updated when ``use_input_stats``) and the result is viewed back (ViewBackward0); the running
    stats become the mean over the batch of the per-slice ones. Errors: torch's ValueError for one
    spatial element while using input statistics, RuntimeError for missing running stats otherwise.
    """
    a = input._data
    if use_input_stats:
        spatial = 1
        for n in a.shape[2:]:
            spatial *= n
        if spatial == 1:
            from .._tensor import Size

            raise ValueError(f"Expected more than 1 spatial element when training, got input size {Size(a.shape)}")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    _wrap_dim(1, a.ndim)
    b, c = a.shape[0], a.shape[1]

    def rep(t):
        return None if t is None else sh.repeat(t, b)

    rm, rv = rep(running_mean), rep(running_var)
    x = sh.reshape(input.contiguous(), (1, b * c) + a.shape[2:])
    out = batch_norm(x, rm, rv, rep(weight), rep(bias), use_input_stats, momentum, eps)
    for t, r in ((running_mean, rm), (running_var, rv)):
        if t is not None:  # aten copies the batch mean back into the caller's buffers
            t._data[...] = r._data.reshape(b, c).mean(axis=0)
            t._vc[0] += 1
    return sh.view(out, a.shape)


@register
class NativeGroupNormBackward0(Op):
    """native_group_norm(input, weight, bias, N, C, HxW, group, eps): normalise each group of C / G channels
    over its channels and positions, then a per-channel affine map. Params: (groups, eps)."""

    save_inputs = True

    @staticmethod
    def forward(x, w, b, groups, eps):
        n, c = x.shape[:2]
        xg = x.reshape(n, groups, -1)
        _, y, _, rstd = _stats(xg, (2,), eps)
        y *= rstd
        y = y.reshape(x.shape)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        if w is not None:
            y *= w.reshape(shape)
        if b is not None:
            y += b.reshape(shape)
        return y

    def backward(self, g):
        x, w, b = self.saved()
        groups, eps = self._params
        shape = x._data.shape
        n = shape[0]
        cshape = (1, -1) + (1,) * (len(shape) - 2)
        axes = (0,) + tuple(range(2, len(shape)))
        gx = g * sh.reshape(w, cshape) if w is not None else g
        gi, xhat = _norm_backward(gx.reshape((n, groups, -1)), x.reshape((n, groups, -1)), None, (2,), eps)
        xhat = xhat.reshape(shape)
        nf = self.next_functions
        return (gi.reshape(shape) if nf[0][0] is not None else None,
                red.sum(g * xhat, axes) if w is not None and nf[1][0] is not None else None,
                red.sum(g, axes) if b is not None and nf[2][0] is not None else None)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):  # noqa: A002
    a = input._data
    if a.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {a.ndim}")
    c = a.shape[1]
    if num_groups > 0 and c % num_groups == 0:  # torch.nn.functional's _verify_batch_size on the grouped shape
        size = [a.shape[0] * c // num_groups, num_groups] + list(a.shape[2:])
        prod = size[0]
        for k in size[2:]:
            prod *= k
        if prod == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{_shape_list(a.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t._data.ndim != 1 or t._data.size != c):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in input, but got {name} of "
                f"shape {_shape_list(t._data.shape)} and input of shape {_shape_list(a.shape)}"
            )
    return apply(NativeGroupNormBackward0, (input, weight, bias), (num_groups, float(eps)))


# ------------------------------------------------------------------ embedding


@register
class EmbeddingBackward0(Op):
    """embedding(weight, indices, padding_idx): rows of ``weight`` picked by integer ``indices``.

    Backward (embedding_dense_backward): the gradient rows summed into zeros shaped as weight at
    their indices; rows of ``padding_idx`` get none; with ``scale_grad_by_freq`` each row's gradient
    is divided by how often its index occurs. Params: (indices array, padding_idx or None, scale_grad_by_freq).
    """

    @staticmethod
    def forward(w, idx, padding_idx, scale_grad_by_freq):
        return w[idx]

    def _grad_rows(self, g_dtype):
        """The flat indices, and a per-row factor (0 at padding_idx, 1 / frequency with scale_grad_by_freq) or None."""
        idx, padding_idx, by_freq = self._params
        flat = idx.reshape(-1)
        keep = None if padding_idx is None else (flat != padding_idx).astype(g_dtype)
        if by_freq:
            counts = xp.bincount(flat, minlength=self._meta_w[0])
            scale = (1 / counts[flat]).astype(g_dtype)
            keep = scale if keep is None else keep * scale
        return flat, keep

    def backward(self, g):
        d = g._data.shape[-1]
        flat, keep = self._grad_rows(g._data.dtype)
        g2 = g.reshape((-1, d))
        if keep is not None:
            g2 = g2 * wrap(keep[:, None])
        from .indexing import index_backward

        return (index_backward(g2, self._meta_w, (flat,), True),)

    def backward_arrays(self, g):
        d = g.shape[-1]
        flat, keep = self._grad_rows(g.dtype)
        g2 = g.reshape(-1, d)
        if keep is not None:
            g2 = g2 * keep[:, None]
        out = xp.zeros(self._meta_w, dtype=g.dtype)
        index_add(out, flat, g2)
        return (wrap(out),)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type: float = 2.0,  # noqa: A002
              scale_grad_by_freq: bool = False, sparse: bool = False):
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    n = weight._data.shape[0]
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < n, "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -n, "Padding_idx must be within num_embeddings"
            padding_idx = n + padding_idx
    idx = input._data
    if idx.dtype not in (xp.int64, xp.int32):
        kind = f"torch.{_type_name(idx)}Tensor"
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
            f"{kind} instead (while checking arguments for embedding)"
        )
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    if max_norm is not None:  # renormalise the looked-up rows in place, outside autograd (as torch)
        rows = xp.unique(idx)
        wd = weight._data
        norms = (xp.abs(wd[rows]) ** norm_type).sum(axis=1) ** (1.0 / norm_type)
        scale = xp.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0).astype(wd.dtype)
        wd[rows] *= scale[:, None]
        weight._vc[0] += 1
    out = apply(EmbeddingBackward0, (weight,), (idx, padding_idx, bool(scale_grad_by_freq)))
    if out._grad_fn is not None:
        out._grad_fn._meta_w = weight._data.shape
    return out



# ------------------------------------------------------------------ adaptive pooling


def _adaptive_bounds(size: int, out: int):
    """aten's adaptive windows: [floor(i * size / out), ceil((i + 1) * size / out)) for each output i."""
    i = xp.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _adaptive_output_size(a, output_size, name):
    if a.ndim not in (3, 4):
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got {_shape_list(a.shape)}")
    out = _tuple(output_size, 2) if not isinstance(output_size, (list, tuple)) else tuple(output_size)
    if len(out) != 2:
        raise RuntimeError(f"{name}: output_size must be 2")
    return tuple(a.shape[-2 + i] if out[i] is None else int(out[i]) for i in range(2))


@register
class AdaptiveAvgPool2DBackward0(Op):
    """adaptive_avg_pool2d: the mean of each adaptive window, from a summed-area table (no loop over cells).

    Backward: each output's grad / window area spread over its window, through a 2-D difference
    array and two cumulative sums. Params: (output size, input shape).
    """

    @staticmethod
    def forward(a, out_hw, in_shape):
        (sh_, eh), (sw, ew) = (_adaptive_bounds(in_shape[-2], out_hw[0]), _adaptive_bounds(in_shape[-1], out_hw[1]))
        acc = xp.float64 if a.dtype != xp.float64 else a.dtype
        table = xp.zeros(a.shape[:-2] + (a.shape[-2] + 1, a.shape[-1] + 1), dtype=acc)
        table[..., 1:, 1:] = a.astype(acc).cumsum(-2).cumsum(-1)
        r0, r1, c0, c1 = sh_[:, None], eh[:, None], sw[None, :], ew[None, :]
        total = table[..., r1, c1] - table[..., r0, c1] - table[..., r1, c0] + table[..., r0, c0]
        return (total / ((r1 - r0) * (c1 - c0))).astype(a.dtype)

    def backward(self, g):
        return (apply(AdaptiveAvgPool2DBackwardBackward0, (g,), self._params),)

    def backward_arrays(self, g):
        return (wrap(AdaptiveAvgPool2DBackwardBackward0.forward(g, *self._params)),)


@register
class AdaptiveAvgPool2DBackwardBackward0(Op):
    """adaptive_avg_pool2d_backward(grad): grad / area over each window; its backward is the pooling again."""

    @staticmethod
    def forward(g, out_hw, in_shape):
        h, w = in_shape[-2:]
        (sh_, eh), (sw, ew) = _adaptive_bounds(h, out_hw[0]), _adaptive_bounds(w, out_hw[1])
        acc = xp.float64 if g.dtype != xp.float64 else g.dtype
        v = g.astype(acc) / ((eh - sh_)[:, None] * (ew - sw)[None, :])
        diff = xp.zeros(g.shape[:-2] + (h + 1, w + 1), dtype=acc)
        lead = (slice(None),) * (g.ndim - 2)
        r0, r1, c0, c1 = sh_[:, None], eh[:, None], sw[None, :], ew[None, :]
        for rows, cols, sign in ((r0, c0, 1), (r0, c1, -1), (r1, c0, -1), (r1, c1, 1)):
            xp.add.at(diff, lead + (xp.broadcast_to(rows, v.shape[-2:]), xp.broadcast_to(cols, v.shape[-2:])),
                      v if sign > 0 else -v)
        return diff.cumsum(-2).cumsum(-1)[..., :h, :w].astype(g.dtype)

    def backward(self, gg):
        return (apply(AdaptiveAvgPool2DBackward0, (gg,), self._params),)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    a = input._data
    out_hw = _adaptive_output_size(a, output_size, "adaptive_avg_pool2d")
    if out_hw == (1, 1):  # aten reduces to a mean over the last two dims
        return red.mean(input, (-1, -2), keepdim=True)
    return apply(AdaptiveAvgPool2DBackward0, (input,), (out_hw, a.shape))


@register
class AdaptiveMaxPool2DBackward0(Op):
    """adaptive_max_pool2d: (max, flat index) over each adaptive window; backward routes grad to the index."""

    save_inputs = True

    @staticmethod
    def forward(a, out_hw):
        h, w = a.shape[-2:]
        (sh_, eh), (sw, ew) = _adaptive_bounds(h, out_hw[0]), _adaptive_bounds(w, out_hw[1])
        low = -xp.inf if a.dtype.kind == "f" else xp.iinfo(a.dtype).min
        shape = a.shape[:-2] + tuple(out_hw)
        best = xp.full(shape, low, dtype=a.dtype)
        idx = xp.empty(shape, dtype=xp.int64)
        idx[...] = sh_[:, None] * w + sw[None, :]
        for di in range(int((eh - sh_).max())):
            rows = xp.minimum(sh_ + di, eh - 1)[:, None]  # past the window: repeat its last row (never taken again)
            for dj in range(int((ew - sw).max())):
                cols = xp.minimum(sw + dj, ew - 1)[None, :]
                v = a[..., rows, cols]
                take = v > best
                if a.dtype.kind == "f":
                    take |= xp.isnan(v) & ((rows == sh_[:, None] + di) & (cols == sw[None, :] + dj))
                xp.copyto(best, v, where=take)
                xp.copyto(idx, xp.broadcast_to(rows * w + cols, shape), where=take)
        return best, idx

    def backward(self, g, _gi=None):
        (x,) = self.saved()
        return (apply(MaxPool2DWithIndicesBackwardBackward0, (g,), (self._indices, x._data.shape)),)


def adaptive_max_pool2d(input, output_size, return_indices: bool = False):  # noqa: A002
    a = input._data
    out_hw = _adaptive_output_size(a, output_size, "adaptive_max_pool2d")
    values, indices = apply_multi(AdaptiveMaxPool2DBackward0, (input,), (out_hw,))
    if values._grad_fn is not None:
        values._grad_fn._indices = indices._data
    return (values, indices) if return_indices else values


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
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size:
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if a.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return wrap((a[..., None] == xp.arange(num_classes)).astype(xp.int64))


class _Norm(Op):
    """norm(input, p, dim, keepdim) = (sum |x|^p)^(1/p) over ``dim`` (p finite > 0, or inf).

    Backward (derivatives.yaml, norm_backward): p = 2: grad * x / norm; general p: grad * x * |x|^(p-2) /
    norm^(p-1); p = 1: grad * sign(x); zero where the norm is 0; inf: grad at the maxima of |x|, split evenly.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, p, axes, keepdim):
        if p == float("inf"):
            return xp.abs(a).max(axis=axes, keepdims=keepdim) if a.size else xp.zeros(
                xp.sum(a, axis=axes, keepdims=keepdim).shape, dtype=a.dtype)
        if p == 2:
            return xp.sqrt((a * a).sum(axis=axes, keepdims=keepdim))
        return (xp.abs(a) ** p).sum(axis=axes, keepdims=keepdim) ** (1.0 / p)

    def backward(self, g):
        x, _ = self.saved()
        p, axes, keepdim = self._params
        norm = self.saved_result()
        if not keepdim:
            for ax in axes:
                norm, g = norm.unsqueeze(ax), g.unsqueeze(ax)
        zero = wrap(norm._data == 0)
        if p == 1:
            return (g * wrap(xp.sign(x._data)),)
        if p == float("inf"):
            mask = (xp.abs(x._data) == norm._data).astype(x._data.dtype)
            count = mask.sum(axis=axes, keepdims=True)
            return (g * wrap(xp.sign(x._data) * mask / count),)
        safe = pw.where_(zero, wrap(xp.ones((), dtype=norm._data.dtype)), norm)
        if p == 2:
            out = x * (g / safe)
        else:
            out = x * pw.pow(pw.abs(x), p - 2) * (g / pw.pow(safe, p - 1))
        return (pw.where_(zero, wrap(xp.zeros((), dtype=out._data.dtype)), out),)


_Norm.__name__ = _Norm.__qualname__ = "NormBackward1"
NormBackward1 = _register_once(_Norm)


def _norm(x: Tensor, p, dim, keepdim=False) -> Tensor:
    nd = x._data.ndim
    axes = (_wrap_dim(dim, nd),) if nd else ()
    return apply(NormBackward1, (x,), (float(p), axes, keepdim))


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """norm(x1 - x2 + eps, p, last dim): aten's pairwise_distance (NormBackward1 on top)."""
    nd = max(x1._data.ndim, x2._data.ndim)
    d = x1 - x2 + eps
    if nd == 0:
        return _norm(d, p, 0, keepdim)
    return _norm(d, p, nd - 1, keepdim)


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps), dim), as aten computes it: each norm is clamped in a
    no-grad copy, so the gradient flows through the unclamped norm."""
    shape = sh.broadcast_shape(x1._data.shape, x2._data.shape) if hasattr(sh, "broadcast_shape") else None
    if shape is None:
        from .broadcast import broadcast_shape

        shape = broadcast_shape(x1._data.shape, x2._data.shape)
    a, b = sh.expand(x1, shape), sh.expand(x2, shape)
    d = _wrap_dim(dim, len(shape))

    def unit(t):
        n = _norm(t, 2, d, keepdim=True)
        n = sh.clone(n)
        n._data = xp.maximum(n._data, xp.asarray(eps, dtype=n._data.dtype))
        return t / n

    return red.sum(unit(a) * unit(b), d)


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):  # noqa: A002
    """input / max(norm(input, p, dim), eps) expanded: DivBackward0 on top, as torch."""
    n = _norm(input, p, dim, keepdim=True)
    denom = pw.where_(wrap(n._data >= eps), n, wrap(xp.asarray(eps, dtype=n._data.dtype)))
    return input / sh.expand(denom, input._data.shape)


# ------------------------------------------------------------------ binary and divergence losses


def _loss_weight(weight, fn: str, arg: str = "weight"):
    if weight is None:
        return None
    from ..autograd.grad_mode import is_grad_enabled

    if weight._requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{fn}' is not differentiable with respect to argument '{arg}'. "
            "This input cannot have requires_grad True."
        )
    return weight._data


def _apply_reduction(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return xp.asarray(loss.sum())
    with xp.errstate(invalid="ignore", divide="ignore"):
        return xp.asarray(loss.mean()) if loss.size else xp.asarray(xp.nan, dtype=loss.dtype)


@register
class BinaryCrossEntropyBackward0(Op):
    """binary_cross_entropy(input, target, weight): -w * (t * log(x) + (1 - t) * log(1 - x)), each log clamped at -100.

    Backward (derivatives.yaml): input: grad * w * (x - t) / max(x * (1 - x), 1e-12); target:
    -grad * w * logit(x) (/ numel for ``mean``). Params: (weight array or None, reduction).
    """

    save_inputs = True

    @staticmethod
    def forward(x, t, w, reduction):
        with xp.errstate(divide="ignore"):
            loss = -(t * xp.maximum(xp.log(x), -100) + (1 - t) * xp.maximum(xp.log1p(-x), -100))
        if w is not None:
            loss = loss * w
        return _apply_reduction(loss.astype(x.dtype, copy=False), reduction)

    def backward(self, g):
        x, t = self.saved()
        w, reduction = self._params
        if reduction == "mean":
            g = g / max(x._data.size, 1)
        if w is not None:
            g = g * wrap(w)
        nf = self.next_functions
        gx = gt = None
        if nf[0][0] is not None:
            denom = x * (1 - x)
            eps = wrap(xp.asarray(1e-12, dtype=x._data.dtype))
            gx = g * (x - t) / pw.where_(wrap(denom._data > 1e-12), denom, eps)
        if nf[1][0] is not None:
            gt = g * (pw.log(1 - x) - pw.log(x))
        return gx, gt


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                         reduction: str = "mean"):
    reduction = _reduction(reduction, size_average, reduce)
    if target._data.shape != input._data.shape:
        from .._tensor import Size

        raise ValueError(
            f"Using a target size ({Size(target._data.shape)}) that is different to the input size "
            f"({Size(input._data.shape)}) is deprecated. Please ensure they have the same size."
        )
    x, t = input._data, target._data
    if t.dtype != x.dtype:  # aten's binary_cross_entropy_out_cpu checks before its dtype dispatch
        raise RuntimeError(f"Found dtype {_type_name(t)} but expected {_type_name(x)}")
    if x.dtype.kind != "f":
        raise NotImplementedError(f'"binary_cross_entropy" not implemented for \'{_type_name(x)}\'')
    w = _loss_weight(weight, "binary_cross_entropy")
    if x.size and ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    return apply(BinaryCrossEntropyBackward0, (input, target), (w, reduction))


def _log_sigmoid_arrays(x):
    return xp.minimum(x, 0) - xp.log1p(xp.exp(-xp.abs(x)))


def _log_sigmoid(x: Tensor) -> Tensor:
    zero = wrap(xp.zeros((), dtype=x._data.dtype))
    return pw.where_(wrap(x._data < 0), x, zero) - pw.log(1 + pw.exp(-pw.abs(x)))


@register
class BinaryCrossEntropyWithLogitsBackward0(Op):
    """binary_cross_entropy_with_logits(input, target, weight, pos_weight), as aten computes it:
    (1 - t) * x - (1 + (pos_weight - 1) * t) * log_sigmoid(x), times weight.

    Backward (derivatives.yaml): input: ((pos_weight * t + 1 - t) * sigmoid(x) - pos_weight * t) * grad * w;
    target: (log_sigmoid(-x) - pos_weight * log_sigmoid(x)) * grad * w, or -x * grad * w without pos_weight.
    Params: (weight array or None, pos_weight array or None, reduction).
    """

    save_inputs = True

    @staticmethod
    def forward(x, t, w, pos_w, reduction):
        ls = _log_sigmoid_arrays(x)
        if pos_w is not None:
            ls = ls * ((pos_w - 1) * t + 1)
        loss = (1 - t) * x - ls
        if w is not None:
            loss = loss * w
        # aten writes the loss in place into ``1 - target``: it has the target's dtype
        return _apply_reduction(loss.astype(t.dtype, copy=False), reduction)

    def backward(self, g):
        x, t = self.saved()
        w, pos_w, reduction = self._params
        if w is not None:
            g = g * wrap(w)
        nf = self.next_functions
        gx = gt = None
        if nf[0][0] is not None:
            if pos_w is not None:
                pt = t * wrap(pos_w)
                gx = ((pt + 1 - t) * pw.sigmoid(x) - pt) * g
            else:
                gx = (pw.sigmoid(x) - t) * g
        if nf[1][0] is not None:
            if pos_w is not None:
                gt = (_log_sigmoid(-x) - _log_sigmoid(x) * wrap(pos_w)) * g
            else:
                gt = -x * g
        if reduction == "mean":  # last, as aten: the loss may be float32 and the input float64
            n = max(x._data.size, 1)
            gx = gx / n if gx is not None else None
            gt = gt / n if gt is not None else None
        return gx, gt


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,  # noqa: A002
                                     reduction: str = "mean", pos_weight=None):
    reduction = _reduction(reduction, size_average, reduce)
    if target._data.shape != input._data.shape:
        from .._tensor import Size

        raise ValueError(
            f"Target size ({Size(target._data.shape)}) must be the same as input size ({Size(input._data.shape)})"
        )
    x, t = input._data, target._data
    # aten: log_sigmoid(input), then (1 - target).mul_(input).sub_(...): the loss is computed in place in the
    # target's dtype, so the input must be float and the target a float too (a float result can't be written
    # into an integer target's copy)
    if x.dtype.kind != "f":
        raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for \'{_type_name(x)}\'')
    if t.dtype == xp.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if t.dtype.kind != "f":
        raise RuntimeError(
            f"result type {_type_name(xp.empty(0, result_type(t, x)))} can't be cast to the desired output type "
            f"{_type_name(t)}"
        )
    w = _loss_weight(weight, "binary_cross_entropy_with_logits")
    pos_w = _loss_weight(pos_weight, "binary_cross_entropy_with_logits", "pos_weight")
    return apply(BinaryCrossEntropyWithLogitsBackward0, (input, target), (w, pos_w, reduction))


def kl_div(input, target, size_average=None, reduce=None, reduction: str = "mean",  # noqa: A002
           log_target: bool = False):
    """aten's kl_div: exp(t) * (t - input) with ``log_target``, else xlogy(t, t) - t * input; reduced.

    ``batchmean`` is the sum divided by the batch size (DivBackward0, as torch.nn.functional does).
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=2,
        )
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    for t in (input, target):
        if t._data.dtype.kind not in "fc":
            raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = pw.exp(target) * (target - input)
    else:
        tz = target._data == 0
        safe = pw.where_(wrap(tz), wrap(xp.ones((), dtype=target._data.dtype)), target)
        xlogy = pw.where_(wrap(tz), wrap(xp.zeros((), dtype=target._data.dtype)), target * pw.log(safe))
        loss = xlogy - target * input
    if reduction == "batchmean":
        total = red.sum(loss)
        return total / input._data.shape[0] if input._data.ndim else total
    return _reduce(loss, reduction)


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
        return (sh.cat([ga, ga * a * (1 - sb)], dim),)


def glu(input, dim: int = -1):  # noqa: A002
    """Gated linear unit; errors as torch's (even halving size, no 0-d input, float input)."""
    a = input._data
    if a.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, a.ndim)
    if a.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {a.shape[d]}")
    if a.dtype.kind != "f":
        raise NotImplementedError(f'"glu_cpu" not implemented for \'{_type_name(a)}\'')
    return apply(GluBackward0, (input,), (d,))


def softsign(input):  # noqa: A002
    """x / (1 + |x|), composed as torch.nn.functional composes it (DivBackward0)."""
    return input / (pw.abs(input) + 1)


def tanhshrink(input):  # noqa: A002
    """x - tanh(x), composed as torch.nn.functional composes it (SubBackward0)."""
    return input - pw.tanh(input)


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = {
    "max_pool1d": lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False: max_pool1d(  # noqa: A006
        input, kernel_size, stride or None, padding, dilation, ceil_mode),
    "max_pool2d": lambda input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False: max_pool2d(  # noqa: A006
        input, kernel_size, stride or None, padding, dilation, ceil_mode),
    "avg_pool1d": avg_pool1d,
    "cosine_similarity": cosine_similarity,
    "pairwise_distance": pairwise_distance,
    "bilinear": bilinear,
    "layer_norm": lambda input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True: layer_norm(  # noqa: A006
        input, normalized_shape, weight, bias, eps),
    "group_norm": lambda input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True: group_norm(  # noqa: A006
        input, num_groups, weight, bias, eps),
    "conv1d": conv1d,
    "conv2d": conv2d,
    "conv_transpose1d": conv_transpose1d,
    "conv_transpose2d": conv_transpose2d,
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
FUNCTIONAL_EXPORTS: dict = {
    "interpolate": interpolate,
    "upsample": upsample,
    "instance_norm": instance_norm,
    "prelu": prelu,
    "dropout1d": dropout1d,
    "dropout2d": dropout2d,
    "glu": glu,
    "softsign": softsign,
    "tanhshrink": tanhshrink,
    "adaptive_avg_pool2d": adaptive_avg_pool2d,
    "adaptive_max_pool2d": adaptive_max_pool2d,
    "bilinear": bilinear,
    "one_hot": one_hot,
    "pairwise_distance": pairwise_distance,
    "cosine_similarity": cosine_similarity,
    "normalize": normalize,
    "binary_cross_entropy": binary_cross_entropy,
    "binary_cross_entropy_with_logits": binary_cross_entropy_with_logits,
    "kl_div": kl_div,
    "layer_norm": layer_norm,
    "batch_norm": batch_norm,
    "group_norm": group_norm,
    "embedding": embedding,
    "max_pool1d": max_pool1d,
    "max_pool2d": max_pool2d,
    "avg_pool1d": avg_pool1d,
    "avg_pool2d": avg_pool2d,
    "conv1d": conv1d,
    "conv2d": conv2d,
    "conv_transpose1d": conv_transpose1d,
    "conv_transpose2d": conv_transpose2d,
    "unfold": unfold,
    "fold": fold,
    "softmax": softmax,
    "log_softmax": log_softmax,
    "softmin": softmin,
    "linear": linear,
    "dropout": dropout,
    "nll_loss": nll_loss,
    "cross_entropy": cross_entropy,
    "mse_loss": mse_loss,
    "l1_loss": l1_loss,
    "smooth_l1_loss": smooth_l1_loss,
    "huber_loss": huber_loss,
}
