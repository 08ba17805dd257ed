"""Rows for the margin, embedding and likelihood losses (src/dyngrad/_ops/losses_margin.py, ctc.py):
dyngrad.nn.functional vs torch.nn.functional, values, gradients and second gradients.

Targets that torch does not differentiate (±1 labels, class indices) are drawn as parameters and built
inside the row's function; targets torch does differentiate are drawn inputs.
"""

from __future__ import annotations

from hypothesis import strategies as st

from op_table import OpInfo, one_shape

REDUCTIONS = st.sampled_from(["none", "mean", "sum"])


def F(lib):
    return lib.nn.functional


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _signs(data, shape, zero_ok=False):
    values = st.sampled_from([-1.0, 1.0, 0.5] if zero_ok else [-1.0, 1.0])
    return data.draw(st.lists(values, min_size=_numel(shape), max_size=_numel(shape)))


def _sign_tensor(x, flat, shape):
    return x.new_tensor(flat).reshape(shape) if flat else x.new_zeros(shape)


# ----------------------------------------------------------------- soft margin / hinge / ranking


def _soft_margin(lib, x, target, reduction):
    return F(lib).soft_margin_loss(x, _sign_tensor(x, target, x.shape), reduction=reduction)


def _signed_params(data, shapes, zero_ok=False):
    return {"target": _signs(data, shapes[0], zero_ok), "reduction": data.draw(REDUCTIONS)}


def _hinge(lib, x, target, margin, reduction):
    return F(lib).hinge_embedding_loss(x, _sign_tensor(x, target, x.shape), margin=margin, reduction=reduction)


def _ranking(lib, x1, x2, target, margin, reduction):
    return F(lib).margin_ranking_loss(x1, x2, _sign_tensor(x1, target, x1.shape), margin=margin, reduction=reduction)


def _with_margin(data, shapes, zero_ok=False):
    out = _signed_params(data, shapes, zero_ok)
    out["margin"] = data.draw(st.sampled_from([0.0, 0.5, 1.0, 2.0]))
    return out


# ----------------------------------------------------------------- multi-class margins


@st.composite
def _class_rows(draw):
    c = draw(st.integers(1, 4))
    if draw(st.booleans()):
        return ((c,),)
    return ((draw(st.integers(1, 3)), c),)


def _multi_margin_params(data, shapes):
    shape = shapes[0]
    c = shape[-1]
    n = 1 if len(shape) == 1 else shape[0]
    hi = c if data.draw(st.integers(0, 9)) == 0 else c - 1  # now and then out of range: torch's error
    return {"target": data.draw(st.lists(st.integers(0, hi), min_size=n, max_size=n)),
            "p": data.draw(st.sampled_from([1, 2])), "margin": data.draw(st.sampled_from([0.5, 1.0, 2.0])),
            "weight": data.draw(st.none() | st.lists(st.floats(0.25, 2.0), min_size=c, max_size=c)),
            "reduction": data.draw(REDUCTIONS)}


def _multi_margin(lib, x, target, p, margin, weight, reduction):
    t = lib.tensor(target, dtype=lib.int64)
    t = t.reshape(()) if x.dim() == 1 else t
    w = None if weight is None else x.new_tensor(weight)
    return F(lib).multi_margin_loss(x, t, p=p, margin=margin, weight=w, reduction=reduction)


def _multilabel_params(data, shapes):
    shape = shapes[0]
    c = shape[-1]
    rows = []
    for _ in range(1 if len(shape) == 1 else shape[0]):
        k = data.draw(st.integers(0, c))
        row = data.draw(st.lists(st.integers(0, c - 1), min_size=k, max_size=k))
        rows.append(row + [-1] * (c - k) if k < c else row)
    return {"target": rows, "reduction": data.draw(REDUCTIONS)}


def _multilabel(lib, x, target, reduction):
    t = lib.tensor(target, dtype=lib.int64)
    t = t[0] if x.dim() == 1 else t
    return F(lib).multilabel_margin_loss(x, t, reduction=reduction)


def _multilabel_soft(lib, x, t, weight, reduction):
    w = None if weight is None else x.new_tensor(weight)
    return F(lib).multilabel_soft_margin_loss(x, t.sigmoid(), weight=w, reduction=reduction)


def _multilabel_soft_params(data, shapes):
    c = shapes[0][-1]
    return {"weight": data.draw(st.none() | st.lists(st.floats(0.25, 2.0), min_size=c, max_size=c)),
            "reduction": data.draw(REDUCTIONS)}


# ----------------------------------------------------------------- embeddings, triplets


@st.composite
def _embedding_pair(draw, n_inputs=2):
    d = draw(st.integers(1, 4))
    shape = (d,) if draw(st.booleans()) else (draw(st.integers(1, 3)), d)
    return (shape,) * n_inputs


def _cosine_params(data, shapes):
    shape = shapes[0]
    tshape = () if len(shape) == 1 else shape[:1]
    return {"target": data.draw(st.lists(st.sampled_from([-1.0, 1.0, 0.0]), min_size=_numel(tshape),
                                         max_size=_numel(tshape))),
            "margin": data.draw(st.sampled_from([-0.5, 0.0, 0.5])), "reduction": data.draw(REDUCTIONS)}


def _cosine(lib, x1, x2, target, margin, reduction):
    tshape = () if x1.dim() == 1 else x1.shape[:1]
    return F(lib).cosine_embedding_loss(x1, x2, x1.new_tensor(target).reshape(tshape), margin=margin,
                                        reduction=reduction)


def _triplet_params(data, shapes):
    return {"margin": data.draw(st.sampled_from([0.5, 1.0, 3.0])), "p": data.draw(st.sampled_from([1.0, 2.0, 3.0])),
            "swap": data.draw(st.booleans()), "reduction": data.draw(REDUCTIONS)}


def _triplet(lib, a, p_, n, margin, p, swap, reduction):
    return F(lib).triplet_margin_loss(a, p_, n, margin=margin, p=p, swap=swap, reduction=reduction)


def _triplet_distance(lib, a, p_, n, margin, distance, swap, reduction):
    fn = None
    if distance == "cosine":
        def fn(x, y):
            return 1.0 - F(lib).cosine_similarity(x, y, dim=-1)
    elif distance == "l1":
        def fn(x, y):
            return (x - y).abs().sum(-1)
    return F(lib).triplet_margin_with_distance_loss(a, p_, n, distance_function=fn, margin=margin, swap=swap,
                                                    reduction=reduction)


def _triplet_distance_params(data, shapes):
    return {"margin": data.draw(st.sampled_from([0.5, 1.0, 3.0])),
            "distance": data.draw(st.sampled_from([None, "cosine", "l1"])),
            "swap": data.draw(st.booleans()), "reduction": data.draw(REDUCTIONS)}


# ----------------------------------------------------------------- likelihoods


def _poisson(lib, x, t, log_input, full, reduction):
    target = t.exp() * 2  # positive counts-like targets, some above 1 (the Stirling term)
    inp = x if log_input else x.exp()
    return F(lib).poisson_nll_loss(inp, target, log_input=log_input, full=full, reduction=reduction)


def _poisson_params(data, shapes):
    return {"log_input": data.draw(st.booleans()), "full": data.draw(st.booleans()),
            "reduction": data.draw(REDUCTIONS)}


@st.composite
def _gaussian_shapes(draw):
    shape = draw(one_shape(min_dims=1, max_dims=3, min_side=1))[0]
    kind = draw(st.sampled_from(["same", "short", "one"]))
    if kind == "short":
        var = shape[:-1]
    elif kind == "one":
        var = shape[:-1] + (1,)
    else:
        var = shape
    return (shape, shape, var)


def _gaussian(lib, x, t, v, full, eps, reduction):
    return F(lib).gaussian_nll_loss(x, t, v.exp() * 0.5, full=full, eps=eps, reduction=reduction)


def _gaussian_params(data, shapes):
    # eps 0.3 clamps some variances (exp(v) / 2 reaches below it): torch's clamp is not differentiated
    return {"full": data.draw(st.booleans()), "eps": data.draw(st.sampled_from([1e-6, 0.3])),
            "reduction": data.draw(REDUCTIONS)}


@st.composite
def _linear_ce_shapes(draw):
    k, c = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    lead = (draw(st.integers(1, 3)),) if draw(st.booleans()) else ()
    shapes = (lead + (k,), (c, k))
    if draw(st.booleans()):
        shapes += ((c,),)
    return shapes


def _linear_ce_params(data, shapes):
    n = shapes[0][0] if len(shapes[0]) == 2 else None
    c = shapes[1][0]
    count = 1 if n is None else n
    return {"target": data.draw(st.lists(st.integers(0, c - 1), min_size=count, max_size=count)),
            "reduction": data.draw(REDUCTIONS), "label_smoothing": data.draw(st.sampled_from([0.0, 0.2]))}


def _linear_ce(lib, x, w, *bias, target, reduction, label_smoothing):
    t = lib.tensor(target, dtype=lib.int64)
    t = t.reshape(()) if x.dim() == 1 else t
    return F(lib).linear_cross_entropy(x, w, t, linear_bias=bias[0] if bias else None, reduction=reduction,
                                       label_smoothing=label_smoothing)


ROWS: list[OpInfo] = [
    OpInfo("soft_margin_loss", _soft_margin, one_shape(), covers=("SoftMarginLossBackward0",), params=_signed_params),
    OpInfo("hinge_embedding_loss", _hinge, one_shape(), covers=("ClampMinBackward0", "WhereBackward0", "AddBackward0"),
           params=lambda d, s: _with_margin(d, s, zero_ok=True)),
    OpInfo("margin_ranking_loss", _ranking, one_shape().map(lambda s: (s[0], s[0])),
           covers=("ClampMinBackward0", "SubBackward0"), params=_with_margin),
    OpInfo("multi_margin_loss", _multi_margin, _class_rows(), covers=("MultiMarginLossBackward0",),
           params=_multi_margin_params, second_order=False),  # torch: "derivative ... is not implemented"
    OpInfo("multilabel_margin_loss", _multilabel, _class_rows(), covers=("MultilabelMarginLossBackward0",),
           params=_multilabel_params, second_order=False),
    OpInfo("multilabel_soft_margin_loss", _multilabel_soft, one_shape(min_dims=1, min_side=1).map(lambda s: (s[0], s[0])),
           covers=("DivBackward0", "SumBackward1", "NegBackward0"), params=_multilabel_soft_params),
    OpInfo("cosine_embedding_loss", _cosine, _embedding_pair(), covers=("SqrtBackward0", "WhereBackward0"),
           params=_cosine_params),
    OpInfo("triplet_margin_loss", _triplet, _embedding_pair(3), covers=("NormBackward1", "MinimumBackward0",
                                                                        "ClampMinBackward0"),
           params=_triplet_params),
    OpInfo("triplet_margin_with_distance_loss", _triplet_distance, _embedding_pair(3),
           covers=("ClampMinBackward0", "MinimumBackward0"), params=_triplet_distance_params),
    OpInfo("poisson_nll_loss", _poisson, one_shape().map(lambda s: (s[0], s[0])),
           covers=("ExpBackward0", "LogBackward0", "MaskedFillBackward0"), params=_poisson_params),
    OpInfo("gaussian_nll_loss", _gaussian, _gaussian_shapes(), covers=("CloneBackward0", "LogBackward0",
                                                                      "PowBackward0"),
           params=_gaussian_params),
    OpInfo("linear_cross_entropy", _linear_ce, _linear_ce_shapes(), covers=("NllLossBackward0",
                                                                          "LogSoftmaxBackward0"),
           params=_linear_ce_params),
]


# ----------------------------------------------------------------- CTC


@st.composite
def _ctc_shapes(draw):
    t, c = draw(st.integers(1, 6)), draw(st.integers(2, 5))
    if draw(st.booleans()):
        return ((t, c),)  # unbatched
    return ((t, draw(st.integers(1, 3)), c),)


def _ctc_params(data, shapes):
    shape = shapes[0]
    t, c = shape[0], shape[-1]
    n = 1 if len(shape) == 2 else shape[1]
    blank = data.draw(st.integers(0, c - 1))
    labels = [k for k in range(c) if k != blank]
    tl = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    il = data.draw(st.lists(st.integers(0, t), min_size=n, max_size=n))
    targets = [data.draw(st.lists(st.sampled_from(labels), min_size=k, max_size=k)) for k in tl]
    return {"targets": targets, "il": il, "tl": tl, "blank": blank, "padded": data.draw(st.booleans()),
            "reduction": data.draw(REDUCTIONS), "zero_infinity": data.draw(st.booleans()),
            "lengths": data.draw(st.sampled_from(["tensor", "tuple"]))}


def _ctc(lib, x, targets, il, tl, blank, padded, reduction, zero_infinity, lengths):
    lp = x.log_softmax(-1)
    if padded and x.dim() == 3:
        width = max(max(tl), 1)
        tg = lib.tensor([row + [blank] * (width - len(row)) for row in targets], dtype=lib.int64)
    else:
        tg = lib.tensor([v for row in targets for v in row], dtype=lib.int64)
    if lengths == "tensor":
        il_, tl_ = lib.tensor(il), lib.tensor(tl)
    else:
        il_, tl_ = tuple(il), tuple(tl)
    return F(lib).ctc_loss(lp, tg, il_, tl_, blank=blank, reduction=reduction, zero_infinity=zero_infinity)


ROWS.append(
    # torch's gradient presumes log_softmax input, so the row differentiates through log_softmax (where it is
    # the true gradient); no finite-difference check at impossible alignments (an infinite loss)
    OpInfo("ctc_loss", _ctc, _ctc_shapes(), covers=("CtcLossBackward0", "LogSoftmaxBackward0", "WhereBackward0"),
           params=_ctc_params, second_order=False, gradcheck=False)
)
