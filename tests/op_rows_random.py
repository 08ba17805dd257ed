"""Rows for the random family (src/dyngrad/_ops/random_ops.py); they join tests/op_table.py.

Sampled values cannot match torch's, so each row makes the draw deterministic (a zero-width
range, a zero std, a probability of 1) or subtracts its detached self (``y - y.detach()``: zero, yet
the gradient still reaches the node, which must send zero on): the rows check the node names, the
in-place rebasing onto them and their zero gradients. Distributions and errors are tested
in tests/test_random_ops.py.
"""

from __future__ import annotations

from op_table import WITH_COMPLEX, OpInfo, broadcast_pair, one_shape

_PAIR = one_shape().map(lambda s: (s[0], s[0]))


def _zeroed(y):
    """A random draw turned into zeros that still pass the gradient into the draw's node."""
    return y - y.detach()

_FILL = dict(gradcheck=False, dtypes=WITH_COMPLEX)  # complex: both parts drawn, or torch's refusal

ROWS = [
    OpInfo("uniform_", lambda lib, x: (x * 1).uniform_(2, 2), covers=("UniformBackward0",), **_FILL),
    OpInfo("normal_", lambda lib, x: (x * 1).normal_(1.5, 0), covers=("NormalBackward0",), **_FILL),
    OpInfo("bernoulli_float", lambda lib, x: (x * 1).bernoulli_(1.0), covers=("BernoulliBackward2",), **_FILL),
    OpInfo("bernoulli_tensor", lambda lib, x, p: (x * 1).bernoulli_(p * 0 + 1), _PAIR, covers=("BernoulliBackward1",),
           **_FILL),
    OpInfo("random_from_to", lambda lib, x: (x * 1).random_(3, 4), covers=("RandomBackward0",), **_FILL),
    OpInfo("random_to", lambda lib, x: (x * 1).random_(1), covers=("RandomBackward1",), **_FILL),
    OpInfo("random_", lambda lib, x: _zeroed((x * 1).random_()), covers=("RandomBackward2",), **_FILL),
    OpInfo("exponential_", lambda lib, x: (x * 1).exponential_(float("inf")), covers=("ExponentialBackward0",), **_FILL),
    OpInfo("geometric_", lambda lib, x: _zeroed((x * 1).geometric_(0.5)), covers=("GeometricBackward0",), **_FILL),
    OpInfo("cauchy_", lambda lib, x: _zeroed((x * 1).cauchy_(1.0, 0.5)), covers=("CauchyBackward0",), **_FILL),
    OpInfo("log_normal_", lambda lib, x: _zeroed((x * 1).log_normal_(0.5, 0.5)), covers=("LogNormalBackward0",), **_FILL),
    OpInfo("normal_tensor_tensor", lambda lib, m, s: lib.normal(m, s * 0), broadcast_pair(),
           covers=("NormalBackward3",), **_FILL),
    OpInfo("normal_tensor_float", lambda lib, m: lib.normal(m, 0.0), covers=("NormalBackward1",), **_FILL),
    OpInfo("normal_float_tensor", lambda lib, s: lib.normal(1.5, s * 0), covers=("NormalBackward2",), **_FILL),
    OpInfo("bernoulli", lambda lib, p: lib.bernoulli(p * 0 + 1), covers=("BernoulliBackward0",), **_FILL),
]
