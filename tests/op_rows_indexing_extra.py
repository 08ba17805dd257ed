"""Rows for put / put_ and index_reduce / index_reduce_ (src/dyngrad/_ops/indexing_extra.py)."""

from __future__ import annotations

import functools
import warnings

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dyngrad
import dyngrad._ops.indexing_extra as _extra
from op_table import WITH_COMPLEX, OpInfo

C = dict(dtypes=WITH_COMPLEX)  # ops torch runs (or refuses, in its words) on complex numbers

warnings.filterwarnings("ignore", message="index_reduce\\(\\) is in beta")


def _method(x, name):
    """``x.<name>``; on dyngrad, the family file's function until _tensor_methods.FAMILIES lists the family
    (Tensor.index_put is the indexing family's until then, without torch's argument checks)."""
    if isinstance(x, dyngrad.Tensor) and getattr(type(x), name, None) is not getattr(_extra, name):
        return functools.partial(getattr(_extra, name), x)
    return getattr(x, name)


def _long(lib, values):
    return lib.tensor(values, dtype=lib.int64)


# ---------------------------------------------------------------- put


@st.composite
def _put_shapes(draw, unique: bool = False):
    """(input, source): any input; a source of 0..5 elements (at most the input's with ``unique``), 1-D or 2-D."""
    shape = tuple(draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)))
    n = 1
    for s in shape:
        n *= s
    k = draw(st.integers(0, min(5, n) if unique else 5))
    src = (k,) if k < 2 or draw(st.booleans()) else ((1, k) if draw(st.booleans()) else (k, 1))
    return (shape, src)


def _put_args(unique: bool):
    def draw(data, shapes):
        n = 1
        for s in shapes[0]:
            n *= s
        k = 1
        for s in shapes[1]:
            k *= s
        if n == 0:
            index = [0] * k  # torch's error for a non-empty index into an empty tensor (or nothing to put)
        elif unique and k <= n:
            index = [p - n * data.draw(st.booleans()) for p in data.draw(st.permutations(range(n)))[:k]]
        else:
            index = data.draw(st.lists(st.integers(-n, n - 1), min_size=k, max_size=k))
            if not unique and data.draw(st.integers(0, 9)) == 0:
                index = index[:-1] + [n]  # out of range (or a source / index size mismatch when k == 0)
        return {"index": index, "accumulate": data.draw(st.booleans())}

    return draw


def _put(lib, x, src, index, accumulate):
    return _method(x, "put")(_long(lib, index), src, accumulate=accumulate)


def _put_inplace(lib, x, src, index, accumulate):
    y = x * 1
    out = _method(y, "put_")(_long(lib, index), src, accumulate)
    assert out is y
    return y


def _put_errors(lib, x, src, which):
    index = [_long(lib, [0, 1]), lib.tensor([0.0, 1.0]), lib.tensor([0, 1], dtype=lib.int32), _long(lib, [0])][which]
    source = src if which != 3 else src.double()
    return _method(x, "put")(index, source)


# ---------------------------------------------------------------- index_reduce


@st.composite
def _reduce_shapes(draw):
    """(input, source) equal but along one dim; both may be 0-d (a single-element reduction)."""
    base = list(draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)))
    if not base:
        return ((), ())
    d = draw(st.integers(0, len(base) - 1))
    src = list(base)
    src[d] = draw(st.integers(0, 4))
    return (tuple(base), tuple(src))


def _reduce_args(data, shapes):
    shape, src = shapes
    if not shape:
        dim, n, k = 0, 1, 1
    else:
        dim = next(i for i, (a, b) in enumerate(zip(shape, src)) if a != b) if shape != src else \
            data.draw(st.integers(0, len(shape) - 1))
        n, k = shape[dim], src[dim]
        dim -= len(shape) * data.draw(st.booleans())
    return {"dim": dim, "index": data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)),
            "reduce": data.draw(st.sampled_from(["prod", "mean", "amax", "amin"])),
            "include_self": data.draw(st.booleans())}


def _index_reduce(lib, x, src, dim, index, reduce, include_self):
    return _method(x, "index_reduce")(dim, _long(lib, index), src, reduce, include_self=include_self)


def _index_reduce_inplace(lib, x, src, dim, index, reduce, include_self):
    y = x * 1
    out = _method(y, "index_reduce_")(dim, _long(lib, index), src, reduce, include_self=include_self)
    assert out is y
    return y


_REDUCE_ERRORS = [
    (0, [0, 2, 2], (3, 2), "sum"), (0, [[0], [2], [2]], (3, 2), "amax"), (0, [0.0, 2.0, 2.0], (3, 2), "amax"),
    (0, [0, 2], (3, 2), "amax"), (0, [0, 1, 2], (3, 3), "amax"), (0, [0, 1, 2], (3,), "amax"),
    (0, [0, 4, 1], (3, 2), "amax"), (0, [0, -1, 1], (3, 2), "amax"), (2, [0, 1], (3, 2), "amax"),
    (1, [0, 1], (4,), "amax"), (-1, [1, 1], (4, 2), "mean"), (0, [0, 1, 2], (3, 2), "max"),
]


def _index_reduce_errors(lib, x, which, double):
    dim, index, shape, reduce = _REDUCE_ERRORS[which]
    src = lib.ones(shape, dtype=lib.float64 if double else x.dtype)
    return _method(x, "index_reduce")(dim, lib.tensor(index), src, reduce)


# ---------------------------------------------------------------- index_put / index_put_ argument forms


def _index_put_form(lib, which):
    """(indices, values, accumulate) of form ``which`` for a (2, 3, 4) input: valid forms, then torch's errors."""
    t, v = lib.tensor, lib.tensor(5.0)
    forms = [
        ((t([0, 1]), t([[0], [2]])), v, False), ((t([True, False]), t([True, False, True])), lib.ones(4), False),
        ((t([0, 0]),), lib.ones(3, 4), True), ([t([1], dtype=lib.int32)], v, False),
        ((t([1, 0], dtype=lib.uint8),), lib.ones(3, 4), False), ((t([-1]), t([0, -3])), t([1.0, 2.0, 3.0, 4.0]), True),
        # errors
        (t([0]), v, False), ((None, t([1])), v, False), ((0, 1), v, False), ((t([0]),), 5.0, False),
        ((t([1, 0], dtype=lib.uint8),), v, False), ((t([1, 0], dtype=lib.int8),), v, False), ((t([0]),) * 4, v, False),
        ((lib.ones(2, 2, dtype=lib.bool),), v, False), ((t([0]), lib.ones(3, 5, dtype=lib.bool)), v, False),
        ((t([0, 7, -9]), t([1])), v, False), ((t([0]), t([9]), t([9])), v, False), ((t([0, -3]),), v, False),
        ((t([0]), t([0.0])), v, False), ((t([0, 1]), t([0, 1, 2])), v, False),
        ((t([0]),), t(5.0, dtype=lib.float16), False),
    ]
    return forms[which]


_INDEX_PUT_FORMS = 21  # len of the list above


def _index_put(lib, x, which, inplace):
    indices, values, accumulate = _index_put_form(lib, which)
    if isinstance(values, lib.Tensor) and values.dtype != lib.float16:  # float16: the dtype-mismatch error
        values = values.to(x.dtype)
    if inplace:
        y = x * 1
        assert _method(y, "index_put_")(indices, values, accumulate) is y
        return y
    return _method(x, "index_put")(indices, values, accumulate)


ROWS: list[OpInfo] = [
    OpInfo("put", _put, _put_shapes(unique=True), params=_put_args(unique=True), covers=("PutBackward0",), int_ok=True, **C),
    # a position written twice keeps the last value, and each value sent there gets its gradient (torch's
    # formula), which finite differences of the overwritten values do not see
    OpInfo("put_repeated", _put, _put_shapes(), params=_put_args(unique=False), covers=("PutBackward0",),
           gradcheck=False, int_ok=True, **C),
    OpInfo("put_inplace", _put_inplace, _put_shapes(), params=_put_args(unique=False),
           covers=("PutBackward0", "MulBackward0"), gradcheck=False, **C),
    OpInfo("put_inplace_leaf", lambda lib, x, src: _method(x, "put_")(_long(lib, [0]), src[:1]),
           st.just(((3,), (2,))), covers=(), gradcheck=False, **C),
    OpInfo("put_errors", _put_errors, st.just(((2, 3), (2,))),
           params=lambda d, s: {"which": d.draw(st.sampled_from([1, 2, 3]))}, covers=(), differentiable=False, **C),
    # (complex: index_reduce_ties, without the finite-difference check, since torch refuses complex gradients)
    OpInfo("index_reduce", _index_reduce, _reduce_shapes(), params=_reduce_args, covers=("IndexReduceBackward0",),
           int_ok=True),
    # ties (repeated values and zeros): amax/amin split the gradient among equal values, prod's single zeros;
    # no second order (torch refuses prod's double backward with several zeros at one position)
    OpInfo("index_reduce_ties", _index_reduce, _reduce_shapes(), params=_reduce_args,
           covers=("IndexReduceBackward0",), ties=True, gradcheck=False, second_order=False, **C),
    # (real only: torch's in-place index_reduce_ records a complex graph that its out-of-place form refuses)
    OpInfo("index_reduce_inplace", _index_reduce_inplace, _reduce_shapes(), params=_reduce_args,
           covers=("IndexReduceBackward0", "MulBackward0")),
    OpInfo("index_reduce_errors", _index_reduce_errors, st.just(((4, 2),)),
           params=lambda d, s: {"which": d.draw(st.integers(0, len(_REDUCE_ERRORS) - 1)),
                                "double": d.draw(st.booleans())},
           covers=(), differentiable=False, **C),
    OpInfo("index_put_forms", _index_put, st.just(((2, 3, 4),)),
           params=lambda d, s: {"which": d.draw(st.integers(0, _INDEX_PUT_FORMS - 1)), "inplace": d.draw(st.booleans())},
           covers=("IndexPutBackward0", "MulBackward0"), gradcheck=False, **C),
    OpInfo("index_put_leaf", lambda lib, x: _method(x, "index_put_")((lib.tensor([0]),), lib.tensor(1.0, dtype=x.dtype)),
           st.just(((2, 3),)), covers=(), gradcheck=False, **C),
]
