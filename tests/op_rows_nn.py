"""Rows for the neural-net kernels (src/dyngrad/_ops/nn_kernels.py, conv.py, pooling.py,
normalization.py, loss.py, embedding.py, sampling.py, distance.py, rnn.py): dyngrad.nn.functional vs torch.nn.functional.

Integer arguments (class targets, indices) are drawn as parameters and built inside the
row's function with ``lib.tensor``; float side inputs that torch does not differentiate
(class weights) are made with ``x.new_tensor`` so they share the input's dtype.
"""

from __future__ import annotations

from hypothesis import assume
from hypothesis import strategies as st

from op_table import C, OpInfo, fixed, one_shape


def F(lib):
    return lib.nn.functional


def _dim(data, shapes):
    nd = len(shapes[0])
    if nd == 0:
        return {"dim": data.draw(st.sampled_from([0, -1]))}
    return {"dim": data.draw(st.integers(-nd, nd - 1))}


REDUCTIONS = st.sampled_from(["none", "mean", "sum"])


# ----------------------------------------------------------------- classification targets


@st.composite
def _class_shapes(draw, min_dims=1, max_dims=5):
    nd = draw(st.integers(min_dims, max_dims))
    c = draw(st.integers(1, 4))
    if nd == 1:
        return ((c,),)
    n = draw(st.integers(0, 3))
    rest = tuple(draw(st.lists(st.integers(1, 3), min_size=nd - 2, max_size=nd - 2)))
    return ((n, c) + rest,)


def _target_shape(shape):
    return () if len(shape) == 1 else shape[:1] + shape[2:]


def _nested(flat, shape):
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nested(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _class_params(data, shapes, smoothing=False):
    shape = shapes[0]
    c = shape[0] if len(shape) == 1 else shape[1]
    tshape = _target_shape(shape)
    n = 1
    for s in tshape:
        n *= s
    ignore = data.draw(st.sampled_from([-100, 0, 1]))
    values = st.one_of(st.integers(0, c - 1), st.just(ignore)) if data.draw(st.booleans()) else st.integers(0, c - 1)
    if data.draw(st.integers(0, 9)) == 0:  # now and then a target out of range: torch's IndexError
        values = st.integers(-1, c)
    flat = data.draw(st.lists(values, min_size=n, max_size=n))
    weight = data.draw(st.none() | st.lists(st.floats(0.25, 2.0), min_size=c, max_size=c))
    out = {"target": (_nested(flat, tshape), tshape), "weight": weight, "ignore_index": ignore,
           "reduction": data.draw(REDUCTIONS)}
    if smoothing:
        out["label_smoothing"] = data.draw(st.sampled_from([0.0, 0.1, 0.5]))
    return out


def _target(lib, target):
    values, shape = target
    t = lib.tensor(values, dtype=lib.int64)
    return t.reshape(shape)


def _weight(x, weight):
    return None if weight is None else x.new_tensor(weight)


def _nll(lib, x, target, weight, ignore_index, reduction):
    # torch 2.13's nll_loss2d double backward fails on non-contiguous 4-D input ("grad_input must be contiguous")
    x = x.contiguous() if x.dim() == 4 else x
    return F(lib).nll_loss(x, _target(lib, target), _weight(x, weight), ignore_index=ignore_index, reduction=reduction)


def _ce(lib, x, target, weight, ignore_index, reduction, label_smoothing):
    x = x.contiguous() if x.dim() == 4 else x
    return F(lib).cross_entropy(x, _target(lib, target), _weight(x, weight), ignore_index=ignore_index,
                                reduction=reduction, label_smoothing=label_smoothing)


def _ce_probs_params(data, shapes):
    shape = shapes[0]
    c = shape[0] if len(shape) == 1 else shape[1]
    return {"weight": data.draw(st.none() | st.lists(st.floats(0.25, 2.0), min_size=c, max_size=c)),
            "reduction": data.draw(REDUCTIONS), "label_smoothing": data.draw(st.sampled_from([0.0, 0.2]))}


def _ce_probs(lib, x, p, weight, reduction, label_smoothing):
    # p's softmax makes a probability target that still depends on the drawn input p (its gradient is compared)
    dim = 0 if x.dim() == 1 else 1
    return F(lib).cross_entropy(x, p.softmax(dim), _weight(x, weight), reduction=reduction,
                                label_smoothing=label_smoothing)


# ----------------------------------------------------------------- linear


@st.composite
def _linear_shapes(draw):
    k, m = draw(st.integers(1, 4)), draw(st.integers(0, 3))
    lead = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    bias = draw(st.sampled_from([(m,), (), (1,), None]))
    shapes = (lead + (k,), (m, k))
    return shapes + ((bias,) if bias is not None else ())


def _linear(lib, x, w, b=None):
    return F(lib).linear(x, w, b)


# ----------------------------------------------------------------- regression losses


def _loss_params(data, shapes):
    return {"reduction": data.draw(REDUCTIONS)}


def _same_shape_pair():
    return one_shape().map(lambda s: (s[0], s[0]))


# ----------------------------------------------------------------- convolution


@st.composite
def _conv_shapes(draw, nd=2, transposed=False):
    g = draw(st.integers(1, 2))
    cg, og = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    n = draw(st.integers(1, 2))
    spatial = tuple(draw(st.lists(st.integers(1, 5), min_size=nd, max_size=nd)))
    kernel = tuple(draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd)))
    if transposed:
        shapes = ((n, g * cg) + spatial, (g * cg, og) + kernel)
    else:
        shapes = ((n, g * cg) + spatial, (g * og, cg) + kernel)
    if draw(st.booleans()):
        shapes += ((g * og,),)
    return shapes


def _conv_params(data, shapes, transposed=False):
    nd = len(shapes[0]) - 2
    groups = shapes[0][1] // (shapes[1][0] if transposed else shapes[1][1])
    pads = [0, 1, 2] + ([] if transposed else ["same", "valid"])
    out = {"stride": data.draw(st.sampled_from([1, 2, (1, 2)[:nd] if nd == 2 else 2])),
           "padding": data.draw(st.sampled_from(pads + ([(1, 0)] if nd == 2 else []))),
           "dilation": data.draw(st.sampled_from([1, 2])), "groups": groups}
    if transposed:
        out["output_padding"] = data.draw(st.sampled_from([0, 1]))
    return out


def _conv2d(lib, x, w, b=None, **kw):
    return F(lib).conv2d(x, w, b, **kw)


def _conv1d(lib, x, w, b=None, **kw):
    return F(lib).conv1d(x, w, b, **kw)


def _conv_transpose2d(lib, x, w, b=None, **kw):
    return F(lib).conv_transpose2d(x, w, b, **kw)


def _unfold_params(data, shapes):
    return {"kernel_size": data.draw(st.sampled_from([1, 2, (2, 1)])), "dilation": data.draw(st.sampled_from([1, 2])),
            "padding": data.draw(st.sampled_from([0, 1])), "stride": data.draw(st.sampled_from([1, 2]))}


# ----------------------------------------------------------------- pooling


@st.composite
def _image(draw, nd=2, min_side=1):
    lead = tuple(draw(st.lists(st.integers(1, 2), min_size=1, max_size=2)))
    return (lead + tuple(draw(st.lists(st.integers(min_side, 5), min_size=nd, max_size=nd))),)


def _pool_params(data, shapes, dilation=True):
    out = {"kernel_size": data.draw(st.sampled_from([1, 2, 3, (2, 1)])),
           "stride": data.draw(st.sampled_from([None, 1, 2, (1, 2)])),
           "padding": data.draw(st.sampled_from([0, 1, (1, 0)])),
           "ceil_mode": data.draw(st.booleans())}
    if dilation:
        out["dilation"] = data.draw(st.sampled_from([1, 2]))
    # torch 2.13's max_pool2d backward writes outside its buffer (heap corruption, then an abort) when some
    # output window lies wholly in the padding (its value -inf, its index invalid): such draws are skipped
    assume(_windows_touch_input(shapes[0][-2:], out))
    return out


def _windows_touch_input(sizes, kw) -> bool:
    """Whether every output window of a 2-D pool (torch's output size, ceil_mode's rule included) holds at least
    one input element."""
    pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    kernel, pad = pair(kw["kernel_size"]), pair(kw["padding"])
    stride = kernel if kw["stride"] is None else pair(kw["stride"])
    dil = pair(kw.get("dilation", 1))
    for n, k, s, p, d in zip(sizes, kernel, stride, pad, dil):
        span = n + 2 * p - d * (k - 1) - 1
        if span < 0:
            continue  # torch refuses the call: nothing to skip
        out = (-(-span // s) if kw["ceil_mode"] else span // s) + 1
        if kw["ceil_mode"] and (out - 1) * s >= n + p:
            out -= 1
        for o in range(out):
            if not any(0 <= o * s - p + j * d < n for j in range(k)):
                return False
    return True


def _pool1d_params(data, shapes, dilation=True):
    out = {"kernel_size": data.draw(st.sampled_from([1, 2, 3])), "stride": data.draw(st.sampled_from([None, 1, 2])),
           "padding": data.draw(st.sampled_from([0, 1])), "ceil_mode": data.draw(st.booleans())}
    if dilation:
        out["dilation"] = data.draw(st.sampled_from([1, 2]))
    return out


def _avg_params(data, shapes):
    out = _pool_params(data, shapes, dilation=False)
    out["count_include_pad"] = data.draw(st.booleans())
    out["divisor_override"] = data.draw(st.sampled_from([None, None, 3]))
    return out


def _avg1d_params(data, shapes):
    out = _pool1d_params(data, shapes, dilation=False)
    out["count_include_pad"] = data.draw(st.booleans())
    return out


# ----------------------------------------------------------------- normalisation


@st.composite
def _ln_shapes(draw, affine=True):
    nd = draw(st.integers(1, 4))
    # normalising over exactly 2 elements gives a gradient that is 0 up to rounding (then only noise is compared)
    shape = tuple(draw(st.lists(st.sampled_from([1, 3, 4]), min_size=nd, max_size=nd)))
    if not affine:
        return (shape,)
    k = draw(st.integers(1, min(2, nd)))
    ns = shape[nd - k:]
    return (shape, ns, ns)


def _ln_params(data, shapes):
    nd = len(shapes[0])
    k = data.draw(st.integers(1, min(2, nd)))
    return {"ns": shapes[0][nd - k:], "eps": data.draw(st.sampled_from([1e-5, 0.1]))}


@st.composite
def _channel_shapes(draw, min_side=1, groups=1):
    # sizes 1 and 3: normalising over exactly 2 elements gives a gradient that is 0 up to rounding
    n = draw(st.sampled_from([1, 3]))
    c = draw(st.integers(1, 3)) * groups
    rest = tuple(draw(st.lists(st.sampled_from([1, 3]), max_size=2)))
    shapes = ((n, c) + rest,)
    if draw(st.booleans()):
        shapes += ((c,), (c,))
    return shapes


def _bn_train(lib, x, w=None, b=None, momentum=0.1):
    c = x.shape[1]
    rm, rv = lib.zeros(c, dtype=x.dtype), lib.ones(c, dtype=x.dtype)
    return F(lib).batch_norm(x, rm, rv, w, b, training=True, momentum=momentum)


def _bn_stats(lib, x, w=None, b=None, momentum=0.1):
    c = x.shape[1]
    rm, rv = lib.zeros(c, dtype=x.dtype) + 0.5, lib.ones(c, dtype=x.dtype)
    F(lib).batch_norm(x, rm, rv, w, b, training=True, momentum=momentum)
    F(lib).batch_norm(x * 2, rm, rv, w, b, training=True, momentum=momentum)
    return lib.stack([rm, rv])


def _bn_eval(lib, x, w=None, b=None):
    c = x.shape[1]
    rm = x.new_tensor([0.1 * i for i in range(c)])
    rv = x.new_tensor([0.5 + 0.25 * i for i in range(c)])
    return F(lib).batch_norm(x, rm, rv, w, b, training=False)


def _gn(lib, x, w=None, b=None, groups=1):
    return F(lib).group_norm(x, groups, w, b)


@st.composite
def _gn_shapes(draw):
    # each group spans 3 or more elements (a group of 1 or 2 has a gradient that is 0 up to rounding)
    n, c = draw(st.integers(1, 2)), draw(st.sampled_from([1, 2, 3, 6]))
    rest = draw(st.sampled_from([(3,), (3, 1), (1, 4)]))
    shapes = ((n, c) + rest,)
    if draw(st.booleans()):
        shapes += ((c,), (c,))
    return shapes


def _gn_params(data, shapes):
    c = shapes[0][1]
    return {"groups": data.draw(st.sampled_from([d for d in (1, 2, 3) if c % d == 0]))}


def _emb_params(data, shapes):
    n = shapes[0][0]
    shape = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    size = 1
    for k in shape:
        size *= k
    values = data.draw(st.lists(st.integers(0, n - 1), min_size=size, max_size=size))
    return {"indices": (_nested(values, shape) if shape else values[0], shape),
            "padding_idx": data.draw(st.sampled_from([None, 0, -1]))}


def _emb(lib, w, indices, padding_idx, by_freq=False):
    values, shape = indices
    return F(lib).embedding(lib.tensor(values, dtype=lib.int64).reshape(shape), w, padding_idx=padding_idx,
                            scale_grad_by_freq=by_freq)


# ----------------------------------------------------------------- dropout


def _dropout_identity(lib, x, p):
    # out - x * mask / (1 - p) is 0 in value and in gradient exactly when dropout's gradient is mask * scale
    out = F(lib).dropout(x, p)
    mask = (out != 0).to(x.dtype)
    return out - x * mask / (1 - p)


def _dropout_identity_params(data, shapes):
    # the cases where dropout returns its input itself: p == 0, or not training
    p = data.draw(st.sampled_from([0.0, 0.5]))
    return {"p": p, "training": p == 0.0 and data.draw(st.booleans())}


def _dropout_statistics(lib, x, p):
    # the kept fraction is 1 - p within 4 standard deviations, kept values are scaled by 1 / (1 - p)
    ones = lib.ones(20000, dtype=x.dtype)
    out = F(lib).dropout(ones, p)
    kept = (out != 0).to(x.dtype).mean()
    bound = 4 * (p * (1 - p) / 20000) ** 0.5
    scale_ok = ((out - (out != 0).to(x.dtype) / (1 - p)).abs().max() < 1e-6).to(x.dtype)
    return lib.stack([((kept - (1 - p)).abs() < bound).to(x.dtype), scale_ok])


# ----------------------------------------------------------------- binary losses, distances


def _bce(lib, x, t, weight, reduction):
    w = None if weight is None else x.new_tensor(weight).expand(x.shape[-1:]) if x.dim() else None
    return F(lib).binary_cross_entropy(x.sigmoid(), t.sigmoid(), w, reduction=reduction)


def _bce_logits(lib, x, t, weight, pos_weight, reduction):
    w = None if weight is None or x.dim() == 0 else x.new_tensor(weight).expand(x.shape[-1:])
    pw_ = None if pos_weight is None or x.dim() == 0 else x.new_tensor(pos_weight).expand(x.shape[-1:])
    return F(lib).binary_cross_entropy_with_logits(x, t.sigmoid(), w, reduction=reduction, pos_weight=pw_)


def _bce_params(data, shapes, pos=False):
    out = {"weight": data.draw(st.sampled_from([None, 0.5, 2.0])), "reduction": data.draw(REDUCTIONS)}
    if pos:
        out["pos_weight"] = data.draw(st.sampled_from([None, 0.5, 3.0]))
    return out


def _kl(lib, x, t, reduction, log_target):
    target = t if log_target else t.softmax(-1) if t.dim() else t.sigmoid()
    return F(lib).kl_div(x.log_softmax(-1) if x.dim() else x, target, reduction=reduction, log_target=log_target)


def _adaptive_params(data, shapes):
    h, w = shapes[0][-2:]
    return {"output_size": data.draw(st.sampled_from([(1, 1), 1, (2, None), (3, 2), (h, w), (h + 1, 1)]))}


@st.composite
def _bilinear_shapes(draw):
    lead = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    i, j, o = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    shapes = (lead + (i,), lead + (j,), (o, i, j))
    return shapes + (((o,),) if draw(st.booleans()) else ())


ROWS: list[OpInfo] = [
    # ---- softmax family
    OpInfo("softmax", lambda lib, x, dim: F(lib).softmax(x, dim), covers=("SoftmaxBackward0",), params=_dim,
           domain=(-4.0, 4.0)),
    OpInfo("softmax_method", lambda lib, x, dim: x.softmax(dim), covers=("SoftmaxBackward0",), params=_dim),
    OpInfo("torch_softmax_dtype", lambda lib, x, dim: lib.softmax(x, dim, dtype=lib.float64),
           covers=("SoftmaxBackward0", "ToCopyBackward0"), params=_dim),
    OpInfo("log_softmax", lambda lib, x, dim: F(lib).log_softmax(x, dim), covers=("LogSoftmaxBackward0",),
           params=_dim, domain=(-4.0, 4.0)),
    OpInfo("log_softmax_method", lambda lib, x, dim: x.log_softmax(dim), covers=("LogSoftmaxBackward0",),
           params=_dim),
    OpInfo("softmin", lambda lib, x, dim: F(lib).softmin(x, dim), covers=("SoftmaxBackward0", "NegBackward0"),
           params=_dim),
    OpInfo("softmax_int_error", lambda lib, x, dim: F(lib).softmax(x.long(), dim), covers=(), params=_dim,
           differentiable=False),
    # ---- linear
    OpInfo("linear", _linear, _linear_shapes(),
           covers=("AddmmBackward0", "MmBackward0", "ViewBackward0", "UnsafeViewBackward0", "AddBackward0",
                   "TBackward0"), **C),
    # ---- classification losses
    OpInfo("nll_loss", _nll, _class_shapes(), covers=("NllLossBackward0", "NllLoss2DBackward0"),
           params=_class_params),
    OpInfo("cross_entropy", _ce, _class_shapes(),
           covers=("NllLossBackward0", "LogSoftmaxBackward0", "AddBackward0", "MulBackward0", "DivBackward0"),
           params=lambda d, s: _class_params(d, s, smoothing=True)),
    OpInfo("cross_entropy_probs", _ce_probs, _class_shapes().map(lambda s: (s[0], s[0])),
           covers=("LogSoftmaxBackward0", "DivBackward1", "SumBackward0", "SumBackward1", "NegBackward0"),
           params=_ce_probs_params),
    # ---- regression losses
    OpInfo("mse_loss", lambda lib, x, y, reduction: F(lib).mse_loss(x, y, reduction=reduction),
           _same_shape_pair(), covers=("MseLossBackward0",), params=_loss_params),
    OpInfo("mse_loss_broadcast", lambda lib, x, y: F(lib).mse_loss(x, y), fixed((2, 3), (3,)),
           covers=("MseLossBackward0", "ExpandBackward0")),
    OpInfo("mse_loss_weight", lambda lib, x, y, w, reduction: F(lib).mse_loss(x, y, reduction=reduction, weight=w),
           one_shape().map(lambda s: (s[0],) * 3), covers=("PowBackward0", "MulBackward0", "DivBackward0"),
           params=_loss_params),
    OpInfo("l1_loss", lambda lib, x, y, reduction: F(lib).l1_loss(x, y, reduction=reduction),
           _same_shape_pair(), covers=("AbsBackward0", "MeanBackward0"), params=_loss_params, ties=True,
           gradcheck=False),
    OpInfo("smooth_l1_loss", lambda lib, x, y, reduction, beta: F(lib).smooth_l1_loss(x, y, reduction=reduction,
           beta=beta), _same_shape_pair(), covers=("SmoothL1LossBackward0",), ties=True, gradcheck=False,
           params=lambda d, s: {"reduction": d.draw(REDUCTIONS), "beta": d.draw(st.sampled_from([1.0, 0.5, 2.0]))}),
    OpInfo("huber_loss", lambda lib, x, y, reduction, delta: F(lib).huber_loss(x, y, reduction=reduction,
           delta=delta), _same_shape_pair(), covers=("HuberLossBackward0",), ties=True, gradcheck=False,
           params=lambda d, s: {"reduction": d.draw(REDUCTIONS), "delta": d.draw(st.sampled_from([1.0, 0.5, 2.0]))}),
    # ---- convolution
    OpInfo("conv2d", _conv2d, _conv_shapes(), covers=("ConvolutionBackward0", "Im2ColBackward0", "Col2ImBackward0"),
           params=_conv_params, **C),
    OpInfo("conv1d", _conv1d, _conv_shapes(nd=1), covers=("ConvolutionBackward0",), params=_conv_params, **C),
    OpInfo("conv_transpose2d", _conv_transpose2d, _conv_shapes(transposed=True), covers=("ConvolutionBackward0",),
           params=lambda d, s: _conv_params(d, s, transposed=True), **C),
    OpInfo("conv2d_unbatched", lambda lib, x, w: F(lib).conv2d(x, w, padding=1), fixed((2, 3, 3), (1, 2, 2, 2)),
           covers=("ConvolutionBackward0", "SqueezeBackward1", "UnsqueezeBackward0"), **C),
    OpInfo("unfold", lambda lib, x, **kw: F(lib).unfold(x, **kw), fixed((2, 2, 4, 3)), covers=("Im2ColBackward0",),
           params=_unfold_params, **C),
    OpInfo("fold", lambda lib, x: F(lib).fold(x, (4, 3), 2, padding=1), fixed((2, 8, 20)),
           covers=("Col2ImBackward0",), **C),
    OpInfo("fold_error", lambda lib, x: F(lib).fold(x, (4, 3), 2, padding=1), fixed((2, 8, 12)), covers=()),
    # ---- pooling
    OpInfo("max_pool2d", lambda lib, x, **kw: F(lib).max_pool2d(x, **kw), _image(),
           covers=("MaxPool2DWithIndicesBackward0", "MaxPool2DWithIndicesBackwardBackward0"), params=_pool_params,
           ties=True, gradcheck=False, int_ok=True),
    OpInfo("max_pool2d_indices", lambda lib, x, **kw: F(lib).max_pool2d(x, return_indices=True, **kw)[1], _image(),
           covers=(), params=_pool_params, ties=True, differentiable=False),
    OpInfo("max_pool2d_smooth", lambda lib, x, **kw: F(lib).max_pool2d(x, **kw), _image(),
           covers=("MaxPool2DWithIndicesBackward0",), params=lambda d, s: _pool_params(d, s, dilation=False)),
    OpInfo("max_pool1d", lambda lib, x, **kw: F(lib).max_pool1d(x, **kw), _image(nd=1),
           covers=("MaxPool2DWithIndicesBackward0", "SqueezeBackward1", "UnsqueezeBackward0"), params=_pool1d_params,
           ties=True, gradcheck=False),
    OpInfo("max_pool1d_indices", lambda lib, x, **kw: F(lib).max_pool1d(x, return_indices=True, **kw)[1],
           _image(nd=1), covers=(), params=_pool1d_params, ties=True, differentiable=False),
    OpInfo("avg_pool2d", lambda lib, x, **kw: F(lib).avg_pool2d(x, **kw), _image(),
           covers=("AvgPool2DBackward0", "AvgPool2DBackwardBackward0"), params=_avg_params, int_ok=True),
    OpInfo("avg_pool1d", lambda lib, x, **kw: F(lib).avg_pool1d(x, **kw), _image(nd=1),
           covers=("AvgPool2DBackward0", "SqueezeBackward1", "UnsqueezeBackward0"), params=_avg1d_params),
    # ---- normalisation
    # float32: over a single normalised element torch's input gradient is rounding noise (1.5e-5) where the exact
    # value, dyngrad's, is 0
    OpInfo("layer_norm", lambda lib, x, w, b: F(lib).layer_norm(x, tuple(w.shape), w, b), _ln_shapes(),
           covers=("NativeLayerNormBackward0",), tol={"float32": dict(rtol=1e-4, atol=1e-4)}),
    OpInfo("layer_norm_plain", lambda lib, x, ns, eps: F(lib).layer_norm(x, ns, eps=eps), _ln_shapes(affine=False),
           covers=("NativeLayerNormBackward0",), params=_ln_params),
    OpInfo("batch_norm_train", _bn_train, _channel_shapes(), covers=("NativeBatchNormBackward0",),
           params=lambda d, s: {"momentum": d.draw(st.sampled_from([0.1, 0.5]))}),
    OpInfo("batch_norm_running_stats", _bn_stats, _channel_shapes(), covers=(), differentiable=False,
           params=lambda d, s: {"momentum": d.draw(st.sampled_from([0.1, 0.5]))}),
    OpInfo("batch_norm_eval", _bn_eval, _channel_shapes(min_side=1), covers=("NativeBatchNormBackward0",)),
    OpInfo("group_norm", _gn, _gn_shapes(), covers=("NativeGroupNormBackward0",), params=_gn_params),
    # ---- embedding
    OpInfo("embedding", _emb, one_shape(min_dims=2, max_dims=2, min_side=1), covers=("EmbeddingBackward0",),
           params=_emb_params),
    # scale_grad_by_freq divides each row's gradient by its index's count: not a derivative, so no finite differences
    OpInfo("embedding_scale_grad_by_freq", _emb, one_shape(min_dims=2, max_dims=2, min_side=1),
           covers=("EmbeddingBackward0",), params=lambda d, s: dict(_emb_params(d, s), by_freq=True), gradcheck=False),
    # ---- dropout
    OpInfo("dropout_p0_eval", lambda lib, x, p, training: F(lib).dropout(x, p, training), covers=(),
           params=_dropout_identity_params, **C),
    OpInfo("dropout_p1", lambda lib, x: F(lib).dropout(x, 1.0), covers=("MulBackward0",), **C),
    OpInfo("dropout_mask_scale", _dropout_identity, one_shape(min_side=1), covers=("MulBackward0",),
           params=lambda d, s: {"p": d.draw(st.sampled_from([0.2, 0.5, 0.9]))}),
    OpInfo("dropout_statistics", _dropout_statistics, fixed((1,)), covers=(), differentiable=False,
           params=lambda d, s: {"p": d.draw(st.sampled_from([0.1, 0.5, 0.8]))}),
    OpInfo("dropout_bad_p", lambda lib, x: F(lib).dropout(x, 1.5), covers=()),
    # ---- adaptive pooling, bilinear, one_hot, distances
    OpInfo("adaptive_avg_pool2d", lambda lib, x, output_size: F(lib).adaptive_avg_pool2d(x, output_size), _image(),
           covers=("AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool2DBackwardBackward0", "MeanBackward1"),
           params=_adaptive_params),
    OpInfo("adaptive_max_pool2d", lambda lib, x, output_size: F(lib).adaptive_max_pool2d(x, output_size), _image(),
           covers=("AdaptiveMaxPool2DBackward0", "MaxPool2DWithIndicesBackwardBackward0"), params=_adaptive_params,
           ties=True, gradcheck=False),
    OpInfo("adaptive_max_pool2d_indices",
           lambda lib, x, output_size: F(lib).adaptive_max_pool2d(x, output_size, return_indices=True)[1], _image(),
           covers=(), params=_adaptive_params, ties=True, differentiable=False),
    OpInfo("bilinear", lambda lib, x1, x2, w, b=None: F(lib).bilinear(x1, x2, w, b), _bilinear_shapes(),
           covers=("ViewBackward0", "AddBackward0", "SumBackward1", "MulBackward0", "MmBackward0")),
    OpInfo("one_hot", lambda lib, x, n: F(lib).one_hot((x.abs() * 2).long(), n), covers=(), differentiable=False,
           params=lambda d, s: {"n": d.draw(st.sampled_from([-1, 5, 2]))}),
    # norms over one element are |x|: their second derivative is 0 up to rounding, so the last dim has 2 or more
    OpInfo("pairwise_distance", lambda lib, x, y, p, keepdim: F(lib).pairwise_distance(x, y, p, keepdim=keepdim),
           one_shape(min_dims=1, min_side=2).map(lambda s: (s[0], s[0])), covers=("NormBackward1", "AddBackward0", "SubBackward0"),
           params=lambda d, s: {"p": d.draw(st.sampled_from([2.0, 1.5, 3.0])), "keepdim": d.draw(st.booleans())}, **C),
    OpInfo("cosine_similarity", lambda lib, x, y, dim: F(lib).cosine_similarity(x, y, dim),
           one_shape(min_dims=1, min_side=2).map(lambda s: (s[0], s[0])), covers=("SumBackward1", "NormBackward1",
                                                                                    "CloneBackward0"),
           params=lambda d, s: {"dim": d.draw(st.integers(-len(s[0]), len(s[0]) - 1))}),
    OpInfo("normalize", lambda lib, x, p, dim: F(lib).normalize(x, p, dim), one_shape(min_dims=1, min_side=2),
           covers=("DivBackward0", "ExpandBackward0", "NormBackward1", "WhereBackward0"),
           params=lambda d, s: {"p": d.draw(st.sampled_from([2.0, 1.5])), "dim": d.draw(st.integers(-len(s[0]),
                                                                                                  len(s[0]) - 1))}, **C),
    # p = 1, inf, 0.5: sgn(x) in the gradient, whose derivative is not zero for complex x; p < 1 masks x == 0
    OpInfo("normalize_sgn_norms", lambda lib, x, p, dim: F(lib).normalize(x, p, dim), one_shape(min_dims=1, min_side=2),
           covers=("DivBackward0", "NormBackward1"), gradcheck=False,
           params=lambda d, s: {"p": d.draw(st.sampled_from([1.0, float("inf"), 0.5])),
                                "dim": d.draw(st.integers(-len(s[0]), len(s[0]) - 1))}, **C),
    # ---- binary and divergence losses
    OpInfo("binary_cross_entropy", _bce, _same_shape_pair(), covers=("BinaryCrossEntropyBackward0",),
           params=_bce_params),
    OpInfo("binary_cross_entropy_with_logits", _bce_logits, _same_shape_pair(),
           covers=("BinaryCrossEntropyWithLogitsBackward0",), params=lambda d, s: _bce_params(d, s, pos=True)),
    OpInfo("kl_div", _kl, _same_shape_pair(), covers=("SubBackward0", "MeanBackward0", "SumBackward0",
                                                      "DivBackward0"),
           params=lambda d, s: {"reduction": d.draw(st.sampled_from(["none", "mean", "sum", "batchmean"])),
                                "log_target": d.draw(st.booleans())}),
]


# ----------------------------------------------------------------- fused LSTM layer (src/dyngrad/_ops/rnn.py)


@st.composite
def _lstm_layer_shapes(draw):
    steps, batch, n_in, hidden = (draw(st.integers(1, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 3)),
                                  draw(st.integers(1, 3)))
    g = 4 * hidden
    return ((steps, batch, n_in), (g, n_in), (g, hidden), (g,), (g,), (batch, hidden), (batch, hidden))


def _lstm_layer(lib, x, w_ih, w_hh, b_ih, b_hh, h, c, reverse, pick):
    """torch.mkldnn_rnn_layer (float32 only, as torch's oneDNN kernel: float64 raises in both libraries)."""
    if lib.__name__ == "dyngrad":
        from dyngrad._ops.rnn import mkldnn_rnn_layer as layer
    else:
        layer = lib.mkldnn_rnn_layer
    # torch's kernel misreads non-contiguous arguments (nn.LSTM always passes contiguous ones)
    args = [t.contiguous() for t in (x, w_ih, w_hh, b_ih, b_hh, h, c)]
    out, hy, cy, _ = layer(*args, reverse, [], 2, h.shape[1], 1, True, False, False, True)
    if pick == "all":  # the gradient flows into all three outputs at once
        return lib.cat([out.flatten(), hy.flatten(), cy.flatten()])
    return {"output": out, "hy": hy, "cy": cy}[pick]


ROWS.append(
    OpInfo("mkldnn_rnn_layer", _lstm_layer, _lstm_layer_shapes(), covers=("MkldnnRnnLayerBackward0", "CatBackward0",
                                                                          "ViewBackward0", "CloneBackward0"),
           params=lambda d, s: {"reverse": d.draw(st.booleans()),
                                "pick": d.draw(st.sampled_from(["output", "hy", "cy", "all"]))},
           gradcheck=False)  # float64 raises, as in torch: tests/test_nn.py checks the kernel in float64
)


def _glu_params(data, shapes):
    shape = shapes[0]
    even = [d for d, n in enumerate(shape) if n % 2 == 0]
    d = data.draw(st.sampled_from(even))
    return {"dim": data.draw(st.sampled_from([d, d - len(shape)]))}


ROWS.append(
    OpInfo("glu", lambda lib, x, dim: F(lib).glu(x, dim), one_shape(min_dims=0, max_dims=3).map(lambda s: (s[0] + (2,),)),
           covers=("GluBackward0",), params=_glu_params)
)


# ---- prelu: weight 0-d, (1,) or (C,) (C = size of dim 1, 1 below 2 dims); now and then a wrong count or rank
@st.composite
def _prelu_shapes(draw):
    x = draw(one_shape(min_dims=0, max_dims=4))[0]
    c = x[1] if len(x) > 1 else 1
    w = draw(st.sampled_from([(), (1,), (c,), (c,), (c + 1,), (1, c)]))
    return (x, w)


ROWS += [
    OpInfo("prelu", lambda lib, x, w: F(lib).prelu(x, w), _prelu_shapes(),
           covers=("PreluKernelBackward0", "PreluKernelBackwardBackward0", "ViewBackward0")),
    OpInfo("prelu_ties", lambda lib, x, w: lib.prelu(x, w), _prelu_shapes(),
           covers=("PreluKernelBackward0", "PreluKernelBackwardBackward0"),
           ties=True, gradcheck=False),
    OpInfo("prelu_method_int", lambda lib, x, w: x.prelu(w), fixed((2, 3), (3,)), covers=(), int_ok=True),
]


# ---- instance_norm: batch_norm over the (1, N * C, *) view; one spatial element is torch's ValueError
def _instance_norm(lib, x, w=None, b=None, eps=1e-5, stats=False):
    c = x.shape[1] if x.dim() > 1 else 1
    rm, rv = (x.new_zeros(c), x.new_ones(c)) if stats else (None, None)
    return F(lib).instance_norm(x, rm, rv, w, b, eps=eps)  # the updated stats: tests/test_nn.py


ROWS += [
    OpInfo("instance_norm", _instance_norm, _channel_shapes(),
           covers=("NativeBatchNormBackward0", "ViewBackward0", "RepeatBackward0"),
           params=lambda d, s: {"eps": d.draw(st.sampled_from([1e-5, 0.1])), "stats": d.draw(st.booleans())}),
]


# ---- interpolate: nearest (3-D, 4-D), linear (3-D), bilinear (4-D); by size or by scale factor (which the
# kernel keeps: its source scale is 1 / scale_factor), align_corners both ways
@st.composite
def _interp_shapes(draw, nd):
    return ((draw(st.integers(0, 2)), draw(st.integers(1, 2))) + tuple(draw(st.integers(1, 4)) for _ in range(nd)),)


def _interp_params(data, shapes, linear):
    nd = len(shapes[0]) - 2
    kind = data.draw(st.sampled_from(["size", "sizes", "scale", "scales", "recompute"]))
    out = {}
    if kind == "size":
        out["size"] = data.draw(st.integers(1, 6))
    elif kind == "sizes":
        out["size"] = tuple(data.draw(st.integers(0, 6)) for _ in range(nd))
    else:
        factors = st.sampled_from([0.5, 0.75, 1.0, 1.5, 1.7, 2, 3])
        out["scale_factor"] = data.draw(factors) if kind != "scales" else tuple(data.draw(factors) for _ in range(nd))
        if kind == "recompute":
            out["recompute_scale_factor"] = True
    if linear:
        out["align_corners"] = data.draw(st.booleans())
    return out


def _interp(mode):
    return lambda lib, x, **kw: F(lib).interpolate(x, mode=mode, **kw)


ROWS += [
    OpInfo("interpolate_nearest1d", _interp("nearest"), _interp_shapes(1), covers=("UpsampleNearest1DBackward0",),
           params=lambda d, s: _interp_params(d, s, False), int_ok=True),
    OpInfo("interpolate_nearest2d", _interp("nearest"), _interp_shapes(2), covers=("UpsampleNearest2DBackward0",),
           params=lambda d, s: _interp_params(d, s, False)),
    OpInfo("interpolate_linear1d", _interp("linear"), _interp_shapes(1), covers=("UpsampleLinear1DBackward0",),
           params=lambda d, s: _interp_params(d, s, True), int_ok=True),
    OpInfo("interpolate_bilinear2d", _interp("bilinear"), _interp_shapes(2), covers=("UpsampleBilinear2DBackward0",),
           params=lambda d, s: _interp_params(d, s, True)),
    OpInfo("interpolate_rank_errors", lambda lib, x, mode: F(lib).interpolate(x, size=3, mode=mode),
           st.sampled_from([(2, 3), (1, 2, 3), (1, 1, 2, 3)]).map(lambda s: (s,)), covers=(),
           params=lambda d, s: {"mode": d.draw(st.sampled_from(["nearest", "linear", "bilinear", "bogus"]))}),
]
