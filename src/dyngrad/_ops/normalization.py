"""Normalisation layers' kernels: layer_norm, batch_norm, instance_norm and group_norm
(aten/src/ATen/native/layer_norm.cpp, Normalization.cpp, group_norm.cpp), with their backward formulas
from derivatives.yaml / FunctionsManual.cpp."""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_KINDS
from .._tensor import Tensor, _wrap_dim, wrap
from . import pointwise as pw
from . import reduction as red
from . import shape as sh
from .nn_kernels import _shape_list, _type_name
from .registry import Op, apply, register

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
    if input._data.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"LayerNormKernelImpl" not implemented for \'{_type_name(input._data)}\'')
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


def _empty_batch_norm(input, weight, bias):  # noqa: A002
    """aten's batch_norm of an input without elements: a copy (CloneBackward0, not a view, so the graph goes on),
    times ``weight[0]`` and plus ``bias[0]`` where given; no checks and no running-stat update."""
    out = input.clone()
    if weight is not None:
        out = out * sh.select(weight, 0, 0)
    if bias is not None:
        out = out + sh.select(bias, 0, 0)
    return out


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,  # noqa: A002
               momentum: float = 0.1, eps: float = 1e-5, _op=None):
    """Batch normalisation; when training, ``running_mean``/``running_var`` are updated in place
    (running = (1 - momentum) * running + momentum * batch statistic, the variance unbiased), as torch.
    ``_op``: the node class to record, given by aten's entry points (native_batch_norm, ...), which name theirs
    differently and skip nn.functional's Python-level check of more than one value per channel."""
    a = input._data
    if training and _op is None:  # torch.nn.functional's _verify_batch_size
        size = a.shape[0]
        for n in a.shape[2:]:
            size *= n
        if size == 1:
            from .._tensor import Size

            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {Size(a.shape)}"
            )
    # aten reads the channel count as sizes()[1] without a rank check: torch 2.13 sees 0 for a 1-D input
    c = a.shape[1] if a.ndim >= 2 else 0
    if a.size == 0:
        return _empty_batch_norm(input, weight, bias)
    # aten's checks, in its order: sizes (a missing running stat in evaluation mode in its place), the rank,
    # the input's dtype, mixed dtypes, the running stats' ranks
    named = (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias))
    for name, t in named:
        if t is not None and t._data.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t._data.size}")
        if t is None and not training and name.startswith("running"):
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    if a.ndim < 2:
        _wrap_dim(1, a.ndim)
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"batch_norm" not implemented for \'{_type_name(a)}\'')
    # a half or bfloat16 input may take float32 parameters (aten's "mixed type"); other mixes are errors
    allowed = (a.dtype, xp.dtype(xp.float32)) if a.dtype == xp.float16 or a.dtype.kind == "V" else (a.dtype,)  # (V: bfloat16)
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
    out = apply(_op or NativeBatchNormBackward0, (input, weight, bias), (training, float(eps), rm, rv))
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


def _group_size(shape, groups: int) -> int:
    """Elements per (sample, group): C / groups channels times the spatial positions."""
    size = shape[1] // groups
    for k in shape[2:]:
        size *= k
    return size


@register
class NativeGroupNormBackward0(Op):
    """native_group_norm(input, weight, bias, N, C, HxW, group, eps): normalise each group of C / G channels
    over its channels and positions, then a per-channel affine map. Params: (groups, eps)."""

    save_inputs = True

    @staticmethod
    def forward(x, w, b, groups, eps):
        if x.size == 0:  # nothing to normalise (and no statistics of empty groups to warn about)
            return x.copy()
        n = x.shape[0]
        xg = x.reshape(n, groups, _group_size(x.shape, groups))
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
        grouped = (n, groups, _group_size(shape, groups))
        gi, xhat = _norm_backward(gx.reshape(grouped), x.reshape(grouped), None, (2,), eps)
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
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"GroupNormKernelImpl" not implemented for \'{_type_name(a)}\'')
    return apply(NativeGroupNormBackward0, (input, weight, bias), (num_groups, float(eps)))


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.nn.functional; __init__.py, _tensor_methods.py and nn/functional.py merge these.
EXPORTS: dict = {
    "layer_norm": lambda input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True: layer_norm(  # noqa: A006
        input, normalized_shape, weight, bias, eps),
    "group_norm": lambda input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True: group_norm(  # noqa: A006
        input, num_groups, weight, bias, eps),
}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {  # dyngrad.nn.functional.<name>
    "instance_norm": instance_norm,
    "layer_norm": layer_norm,
    "batch_norm": batch_norm,
    "group_norm": group_norm,
}
