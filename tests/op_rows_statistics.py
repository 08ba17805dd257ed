"""Rows of the op table for src/dyngrad/_ops/statistics.py (see tests/op_table.py)."""

from __future__ import annotations

from hypothesis import strategies as st

from op_table import WITH_COMPLEX, OpInfo, broadcast_pair, fixed, one_shape

C = dict(dtypes=WITH_COMPLEX)


def _dim(data, shapes):
    nd = len(shapes[0])
    return {"dim": data.draw(st.integers(-nd, nd - 1)) if nd else data.draw(st.sampled_from([0, -1]))}


def _p(data, shapes):
    return {"p": data.draw(st.sampled_from([1.0, 2.0, 3.0, 1.5, float("inf")]))}


def _aminmax_sum(lib, x, dim):
    mn, mx = lib.aminmax(x, dim=dim, keepdim=dim == 0)
    return mn * 2 + mx


ROWS = [
    OpInfo("logcumsumexp", lambda lib, x, dim: lib.logcumsumexp(x, dim), one_shape(), params=_dim,
           covers=("LogcumsumexpBackward0", "FlipBackward0", "ExpBackward0", "AddBackward0", "SubBackward0",
                   "LogBackward0", "AbsBackward0", "WhereBackward0"), **C),
    OpInfo("aminmax", _aminmax_sum, one_shape(min_dims=1, min_side=1), params=_dim, ties=True, gradcheck=False,
           covers=("AminmaxBackward0", "MulBackward1", "AddBackward0")),
    OpInfo("aminmax_all", lambda lib, x: lib.stack(list(lib.aminmax(x))), one_shape(min_side=1), ties=True,
           gradcheck=False, covers=("AminmaxBackward0", "StackBackward0")),
    # dist at p = inf and 1 has kinks; the random inputs stay away from them
    OpInfo("dist", lambda lib, x, y, p: lib.dist(x, y, p), broadcast_pair(), params=_p, covers=("DistBackward0",),
           **C),
    # torch's gradient takes the norms in the accumulate dtype (complex64 -> complex128): for p = inf its mask of
    # the elements at the norm is often empty for complex64 input, and the gradient NaN, which dyngrad reproduces
    OpInfo("renorm", lambda lib, x, p: lib.renorm(x, p, 1, 1.0), fixed((3, 4, 2)), params=_p,
           covers=("RenormBackward0",), **C),
]
