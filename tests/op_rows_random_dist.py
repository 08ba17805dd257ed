"""Rows for the distributions' samplers and solvers (src/dyngrad/_ops/random_dist.py, cholesky_extras.py).

Draws cannot match torch's numbers, so the sampler rows return a zero that still sends the gradient
into the draw's node (``y * 0``, ``y - y.detach()``): they check node names and that torch's zero (or
finite) gradients come back. The reparameterisation gradient itself is the deterministic
``_standard_gamma_grad``, compared here on values over its regimes (small x, the fitted middle, large
alpha); tests/test_distribution_ops.py checks that a gamma draw's gradient is that function of the draw,
and the samplers' statistics.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from op_table import OpInfo, broadcast_pair

POSITIVE = (0.2, 3.0)
_NO_GRADCHECK = dict(gradcheck=False, second_order=False)


@st.composite
def _factor_and_rhs(draw):
    """A (*a, n, n) factor and B (*b, n, k), batch dims broadcasting."""
    n, k = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    pair = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3))
    return (tuple(pair.input_shapes[1]) + (n, k), tuple(pair.input_shapes[0]) + (n, n))


@st.composite
def _factor(draw):
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    n = draw(st.integers(1, 4))
    return (tuple(batch) + (n, n),)


def _well(lib, a):
    """A well-conditioned factor: its diagonal near 3, both signs of off-diagonal entries."""
    n = a.shape[-1]
    return a / n + 3 * lib.eye(n, dtype=a.dtype)


def _zeroed(y):
    """A draw turned into zeros that still pass the gradient into the draw's node."""
    return y - y.detach()


def _upper(data, shapes):
    return {"upper": data.draw(st.booleans())}


ROWS = [
    OpInfo("_standard_gamma", lambda lib, a: lib._standard_gamma(a) * 0, domain=POSITIVE,
           covers=("StandardGammaBackward0",), **_NO_GRADCHECK),
    OpInfo("_standard_gamma_grad", lambda lib, a, x: lib._standard_gamma_grad(a, x), broadcast_pair(),
           domain=POSITIVE, covers=("StandardGammaGradBackward0",), differentiable=False),
    OpInfo("_standard_gamma_grad_large_alpha", lambda lib, a, x: lib._standard_gamma_grad(a * 6, x * 6),
           broadcast_pair(), domain=POSITIVE, covers=(), differentiable=False),
    OpInfo("poisson", lambda lib, r: _zeroed(lib.poisson(r)), domain=POSITIVE,
           covers=("PoissonBackward0",), **_NO_GRADCHECK),
    # torch's factor gradient is -S L for a full L (as if A = L L^H used every entry) while the forward reads
    # one triangle: finite differences of the forward disagree by design, so only torch's values are checked.
    OpInfo("cholesky_solve", lambda lib, b, a, upper: lib.cholesky_solve(b, _well(lib, a), upper=upper),
           _factor_and_rhs(), params=_upper, covers=("CholeskySolveBackward0",), gradcheck=False),
    OpInfo("cholesky_inverse", lambda lib, a, upper: lib.cholesky_inverse(_well(lib, a), upper=upper), _factor(),
           params=_upper, covers=("CholeskyInverseBackward0",), gradcheck=False),
]
