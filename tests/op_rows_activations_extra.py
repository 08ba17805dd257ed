"""Rows for hardshrink, softshrink, rrelu, alpha dropout and rms_norm (src/dyngrad/_ops/activations_extra.py):
dyngrad.nn.functional vs torch.nn.functional. Random draws (rrelu and alpha dropout in training) are checked by
their deterministic cases here (equal bounds, p = 1, eval mode) and statistically in tests/test_nn_activations.py.
"""

from __future__ import annotations

from hypothesis import strategies as st

from op_table import OpInfo, one_shape


def F(lib):
    return lib.nn.functional


def _lambd(data, shapes):
    return {"lambd": data.draw(st.sampled_from([0.0, 0.3, 0.5, 1.5]))}


def _rrelu_params(data, shapes):
    lower = data.draw(st.sampled_from([0.0, 0.125, 0.3]))
    return {"lower": lower, "upper": data.draw(st.sampled_from([lower, lower + 0.2]))}


def _rrelu_inplace(lib, x, lower, upper, training):
    return F(lib).rrelu(x * 1, lower, upper, training=training, inplace=True)


@st.composite
def _rms_shapes(draw):
    shape = draw(one_shape(min_dims=1, max_dims=4))[0]
    k = draw(st.integers(1, len(shape)))
    ns = shape[len(shape) - k:]
    return (shape, ns) if draw(st.booleans()) else (shape,)


def _rms(lib, x, *weight, eps, ns_len):
    ns = tuple(x.shape[x.dim() - ns_len:]) if not weight else tuple(weight[0].shape)
    return F(lib).rms_norm(x, ns, weight[0] if weight else None, eps=eps)


def _rms_params(data, shapes):
    return {"eps": data.draw(st.sampled_from([None, 1e-5, 0.1])),
            "ns_len": len(shapes[1]) if len(shapes) > 1 else data.draw(st.integers(1, len(shapes[0])))}


ROWS: list[OpInfo] = [
    OpInfo("hardshrink", lambda lib, x, lambd: F(lib).hardshrink(x, lambd), covers=("HardshrinkBackward0",),
           params=_lambd, ties=True, gradcheck=False),
    OpInfo("hardshrink_method", lambda lib, x: x.hardshrink(), covers=("HardshrinkBackward0",)),
    OpInfo("softshrink", lambda lib, x, lambd: F(lib).softshrink(x, lambd), covers=("SoftshrinkBackward0",),
           params=_lambd, ties=True, gradcheck=False),
    OpInfo("rrelu_eval", lambda lib, x, lower, upper: F(lib).rrelu(x, lower, upper), covers=("RreluWithNoiseBackward0",),
           params=_rrelu_params, ties=True, gradcheck=False),
    # equal bounds: training draws every slope as ``lower`` (deterministic), and the gradient is leaky_relu's
    OpInfo("rrelu_train_equal_bounds", lambda lib, x, lower: F(lib).rrelu(x, lower, lower, training=True),
           covers=("RreluWithNoiseBackward0",), params=lambda d, s: {"lower": d.draw(st.sampled_from([0.0, 0.2]))},
           gradcheck=False),
    OpInfo("rrelu_inplace", _rrelu_inplace, covers=("RreluWithNoiseBackward1", "MulBackward0"),
           params=lambda d, s: {**_rrelu_params(d, s), "training": False}, gradcheck=False),
    OpInfo("alpha_dropout_eval", lambda lib, x, p: F(lib).alpha_dropout(x * 1, p, training=False), covers=(),
           params=lambda d, s: {"p": d.draw(st.sampled_from([0.0, 0.5, 1.0]))}),
    OpInfo("alpha_dropout_p1", lambda lib, x: F(lib).alpha_dropout(x, 1.0, training=True), covers=("MulBackward0",)),
    OpInfo("feature_alpha_dropout_p1", lambda lib, x: F(lib).feature_alpha_dropout(x, 1.0, training=True),
           one_shape(min_dims=2), covers=("MulBackward0",)),
    OpInfo("rms_norm", _rms, _rms_shapes(), covers=("MulBackward0", "RsqrtBackward0", "MeanBackward1", "PowBackward0", "CloneBackward0",
                                                     "AddBackward0"),
           params=_rms_params),
]
