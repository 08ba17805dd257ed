"""The op table: one row per op, driving tests/test_ops.py.

A row says how to call the op (the same lambda runs on torch and on dyngrad),
which input shapes to draw, which values the op is defined on, and which
registry entries (``grad_fn`` classes) it exercises. Adding an op is adding a row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# ----------------------------------------------------------------- shape strategies
SIDE = dict(min_side=0, max_side=4)


def one_shape(min_dims: int = 0, max_dims: int = 4, min_side: int = 0):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=4).map(lambda s: (s,))


def broadcast_pair():
    return hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, **SIDE).map(
        lambda b: tuple(b.input_shapes)
    )


def fixed(*shapes):
    return st.just(tuple(shapes))


@st.composite
def matmul_pair(draw):
    """Shapes for every matmul case: 1-D, 2-D, batched and broadcast batch dims."""
    n, k, m = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    kind = draw(st.sampled_from(["1x1", "2x1", "1x2", "2x2", "Nx1", "Nx2", "1xN", "2xN", "NxN"]))
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=1, max_dims=2, min_side=1, max_side=3))
    b1, b2 = batch.input_shapes
    a = {"1": (k,), "2": (n, k), "N": tuple(b1) + (n, k)}[kind[0]]
    b = {"1": (k,), "2": (k, m), "N": tuple(b2) + (k, m)}[kind[2]]
    return (a, b)


@dataclass
class OpInfo:
    """One op under test.

    Attributes:
        name: the row's id.
        fn: ``fn(lib, *tensors, **params)`` run on torch and dyngrad alike.
        shapes: strategy for the tuple of input shapes.
        covers: registry entries (grad_fn class names) this row exercises.
        params: optional ``params(data, shapes) -> dict`` drawing extra arguments.
        domain: (low, high) for input values.
        ties: also draw inputs with repeated values (for max/min/relu/abs kinks).
        differentiable: compare gradients.
        second_order: compare second-order gradients.
        gradcheck: run the float64 finite-difference check (off at kinks).
        int_ok: also run on int64 inputs (forward only).
        dtypes: the floating dtypes drawn; rows of ops that take complex input add complex64 and
            complex128 (``WITH_COMPLEX``): both parts of each element are drawn from ``domain``.
        complex_out: real inputs give complex outputs (``complex()``, ``x * 1j``): the row is checked by
            the complex tests, with its real ``dtypes`` as inputs.
        tol: per-dtype tolerances (``{"float32": dict(rtol=..., atol=...)}``) replacing the defaults of
            tests/conftest.py, for formulas that amplify rounding noise (say why at the row).
    """

    name: str
    fn: Callable
    shapes: st.SearchStrategy = field(default_factory=one_shape)
    covers: tuple = ()
    params: Callable | None = None
    domain: tuple = (-2.0, 2.0)
    ties: bool = False
    differentiable: bool = True
    second_order: bool = True
    gradcheck: bool = True
    int_ok: bool = False
    dtypes: tuple = ("float32", "float64")
    tol: dict | None = None
    complex_out: bool = False


REAL = ("float32", "float64")
WITH_COMPLEX = REAL + ("complex64", "complex128")
C = dict(dtypes=WITH_COMPLEX)  # a row's keyword arguments for ops torch runs on complex


def _dim(data, shapes, allow_none: bool = False):
    nd = len(shapes[0])
    if nd == 0:
        return {"dim": data.draw(st.sampled_from([0, -1]))}
    return {"dim": data.draw(st.integers(-nd, nd - 1))}


def _dims_keepdim(data, shapes):
    nd = len(shapes[0])
    if nd == 0:
        dim = data.draw(st.sampled_from([0, -1, (), (0,)]))
    else:
        dim = data.draw(
            st.one_of(
                st.integers(-nd, nd - 1),
                st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).map(tuple),
            )
        )
    return {"dim": dim, "keepdim": data.draw(st.booleans())}


def _perm(data, shapes):
    nd = len(shapes[0])
    return {"dims": tuple(data.draw(st.permutations(range(nd))))}


def _transpose(data, shapes):
    nd = max(len(shapes[0]), 1)
    return {"d0": data.draw(st.integers(-nd, nd - 1)), "d1": data.draw(st.integers(-nd, nd - 1))}


def _expand(data, shapes):
    shape = shapes[0]
    lead = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    target = tuple(data.draw(st.sampled_from([n, 3, -1])) if n == 1 else data.draw(st.sampled_from([n, -1])) for n in shape)
    return {"size": lead + target}


def _basic_key(data, shapes):
    shape = shapes[0]
    key = []
    for n in shape:
        kind = data.draw(st.sampled_from(["int", "slice", "full", "none"] if n else ["slice", "full", "none"]))
        if kind == "int":
            key.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            start = data.draw(st.integers(-n - 1, n + 1) | st.none())
            stop = data.draw(st.integers(-n - 1, n + 1) | st.none())
            step = data.draw(st.integers(1, 3) | st.none())
            key.append(slice(start, stop, step))
        elif kind == "full":
            key.append(slice(None))
        else:
            key.append(None)
            key.append(slice(None))
    if data.draw(st.booleans()) and key:
        key = key[: data.draw(st.integers(0, len(key)))] + [Ellipsis]
    return {"key": tuple(key)}


def _adv_key(data, shapes):
    n = shapes[0][0]
    kind = data.draw(st.sampled_from(["list", "mask"]))
    if kind == "mask":
        return {"key": ("mask", tuple(data.draw(st.lists(st.booleans(), min_size=n, max_size=n))))}
    return {"key": ("list", tuple(data.draw(st.lists(st.integers(-n, n - 1), max_size=5))))}


def _index(lib, x, key):
    kind, values = key
    if kind == "mask":
        return x[lib.tensor(list(values), dtype=lib.bool)]
    return x[lib.tensor(list(values), dtype=lib.int64)]


def _reshape_target(data, shapes):
    shape = shapes[0]
    n = 1
    for s in shape:
        n *= s
    options = [(n,), (-1,), shape + (1,), (1,) + shape]
    if n and n % 2 == 0:
        options.append((2, -1))
    return {"shape": data.draw(st.sampled_from(options))}


def _squeeze(data, shapes):
    nd = len(shapes[0])
    choices = [None] + (list(range(-nd, nd)) if nd else [0, -1])
    return {"dim": data.draw(st.sampled_from(choices))}


def _exponent(data, shapes):
    return {"p": data.draw(st.sampled_from([2, 3, 0.5, 0, -1, 1.5, -2]))}


POSITIVE = (0.2, 3.0)
NONZERO = (0.5, 2.0)  # with a random sign flip applied in the test

OPS: list[OpInfo] = [
    # ---- pointwise, unary
    OpInfo("neg", lambda lib, x: -x, covers=("NegBackward0",), int_ok=True, **C),
    OpInfo("exp", lambda lib, x: x.exp(), covers=("ExpBackward0",), **C),
    OpInfo("log", lambda lib, x: lib.log(x), covers=("LogBackward0",), domain=POSITIVE, **C),
    OpInfo("sqrt", lambda lib, x: x.sqrt(), covers=("SqrtBackward0",), domain=POSITIVE, **C),
    OpInfo("sin", lambda lib, x: lib.sin(x), covers=("SinBackward0",), **C),
    OpInfo("cos", lambda lib, x: x.cos(), covers=("CosBackward0",), **C),
    OpInfo("tanh", lambda lib, x: lib.tanh(x), covers=("TanhBackward0", "TanhBackwardBackward0"), **C),
    OpInfo("sigmoid", lambda lib, x: x.sigmoid(), covers=("SigmoidBackward0", "SigmoidBackwardBackward0"), domain=(-6.0, 6.0), **C),
    OpInfo("relu", lambda lib, x: x.relu(), covers=("ReluBackward0", "ThresholdBackwardBackward0"), ties=True, gradcheck=False, int_ok=True),
    OpInfo("abs", lambda lib, x: x.abs(), covers=("AbsBackward0",), ties=True, gradcheck=False, int_ok=True, **C),
    OpInfo("reciprocal", lambda lib, x: x.reciprocal(), covers=("ReciprocalBackward0",), domain=NONZERO, **C),
    # ---- pointwise, binary with broadcasting
    OpInfo("add", lambda lib, x, y: x + y, broadcast_pair(), covers=("AddBackward0",), int_ok=True, **C),
    OpInfo("add_alpha", lambda lib, x, y: lib.add(x, y, alpha=2), broadcast_pair(), covers=("AddBackward0",), **C),
    OpInfo("sub", lambda lib, x, y: x - y, broadcast_pair(), covers=("SubBackward0",), int_ok=True, **C),
    OpInfo("sub_alpha", lambda lib, x, y: x.sub(y, alpha=3), broadcast_pair(), covers=("SubBackward0",), **C),
    OpInfo("mul", lambda lib, x, y: x * y, broadcast_pair(), covers=("MulBackward0",), int_ok=True, **C),
    OpInfo("div", lambda lib, x, y: x / y, broadcast_pair(), covers=("DivBackward0",), domain=NONZERO, int_ok=True, **C),
    OpInfo("pow_tensor", lambda lib, x, y: x**y, broadcast_pair(), covers=("PowBackward1",), domain=POSITIVE, **C),
    OpInfo("where", lambda lib, x, y: lib.where(x > y, x, y), broadcast_pair(), covers=("WhereBackward0",)),
    # ---- with Python scalars (reflected forms too)
    OpInfo("add_scalar", lambda lib, x: x + 2.5, covers=("AddBackward0",), int_ok=True, **C),
    OpInfo("radd_scalar", lambda lib, x: 2 + x, covers=("AddBackward0",), int_ok=True, **C),
    OpInfo("sub_scalar", lambda lib, x: x - 1.5, covers=("SubBackward0",), **C),
    OpInfo("rsub_scalar", lambda lib, x: 2 - x, covers=("RsubBackward1",), int_ok=True, **C),
    # torch.rsub / Tensor.__rsub__ with a Tensor ``other``: RsubBackward0 (not SubBackward0)
    OpInfo("rsub_tensor", lambda lib, x, y: lib.rsub(x, y) + x.__rsub__(y), broadcast_pair(), covers=("RsubBackward0",),
           int_ok=True, **C),
    OpInfo("rsub_tensor_alpha", lambda lib, x, y: lib.rsub(x, y, alpha=3), broadcast_pair(), covers=("RsubBackward0",),
           **C),
    OpInfo("mul_scalar", lambda lib, x: x * 3, covers=("MulBackward0",), int_ok=True, **C),
    OpInfo("rmul_scalar", lambda lib, x: 0.5 * x, covers=("MulBackward0",), **C),
    OpInfo("div_scalar", lambda lib, x: x / 4, covers=("DivBackward0",), int_ok=True, **C),
    OpInfo("rdiv_scalar", lambda lib, x: 2 / x, covers=("MulBackward0", "ReciprocalBackward0"), domain=NONZERO, **C),
    OpInfo("pow_scalar", lambda lib, x, p: x**p, covers=("PowBackward0",), domain=POSITIVE, params=_exponent, **C),
    OpInfo("pow_int_on_negatives", lambda lib, x: x**3, covers=("PowBackward0",), **C),
    OpInfo("rpow_scalar", lambda lib, x: 2**x, covers=("PowBackward2",), **C),
    OpInfo("torch_pow_scalar_base", lambda lib, x: lib.pow(1.5, x), covers=("PowBackward2",), **C),
    # ---- reductions
    OpInfo("sum", lambda lib, x: x.sum(), covers=("SumBackward0",), int_ok=True, **C),
    OpInfo("sum_dim", lambda lib, x, dim, keepdim: x.sum(dim, keepdim=keepdim), covers=("SumBackward1",),
           params=_dims_keepdim, int_ok=True, **C),
    OpInfo("mean", lambda lib, x: x.mean(), covers=("MeanBackward0",), shapes=one_shape(min_side=1), **C),
    OpInfo("mean_dim", lambda lib, x, dim, keepdim: lib.mean(x, dim, keepdim), covers=("MeanBackward1",),
           params=_dims_keepdim, shapes=one_shape(min_side=1), **C),
    OpInfo("max", lambda lib, x: x.max(), covers=("MaxBackward1",), shapes=one_shape(min_side=1), ties=True,
           gradcheck=False, int_ok=True),
    OpInfo("min", lambda lib, x: lib.min(x), covers=("MinBackward1",), shapes=one_shape(min_side=1), ties=True,
           gradcheck=False, int_ok=True),
    OpInfo("max_dim", lambda lib, x, dim: x.max(dim)[0], covers=("MaxBackward0",), shapes=one_shape(min_side=1),
           params=_dim, ties=True, gradcheck=False),
    OpInfo("max_dim_indices", lambda lib, x, dim: x.max(dim, keepdim=True)[1], covers=(),
           shapes=one_shape(min_side=1), params=_dim, ties=True, differentiable=False),
    OpInfo("min_dim", lambda lib, x, dim: x.min(dim=dim)[0], covers=("MinBackward0",), shapes=one_shape(min_side=1),
           params=_dim, ties=True, gradcheck=False),
    # ---- shape
    OpInfo("reshape", lambda lib, x, shape: x.reshape(shape), covers=("ViewBackward0", "UnsafeViewBackward0"),
           params=_reshape_target, int_ok=True, **C),
    OpInfo("view", lambda lib, x, shape: x.contiguous().view(*shape), covers=("ViewBackward0", "CloneBackward0"),
           params=_reshape_target, **C),
    OpInfo("flatten", lambda lib, x: x.flatten(), covers=("ViewBackward0",), **C),
    OpInfo("transpose", lambda lib, x, d0, d1: x.transpose(d0, d1), covers=("TransposeBackward0",),
           params=_transpose, shapes=one_shape(min_dims=1), **C),
    OpInfo("t", lambda lib, x: x.t(), covers=("TBackward0",), shapes=one_shape(max_dims=2), **C),
    OpInfo("T", lambda lib, x: x.T, covers=("PermuteBackward0",), shapes=one_shape(min_dims=2, max_dims=2), **C),
    OpInfo("mT", lambda lib, x: x.mT, covers=("TransposeBackward0",), shapes=one_shape(min_dims=2), **C),
    OpInfo("permute", lambda lib, x, dims: x.permute(*dims), covers=("PermuteBackward0",), params=_perm, **C),
    OpInfo("unsqueeze", lambda lib, x, dim: x.unsqueeze(dim), covers=("UnsqueezeBackward0",),
           params=lambda d, s: {"dim": d.draw(st.integers(-len(s[0]) - 1, len(s[0])))}, **C),
    OpInfo("squeeze", lambda lib, x, dim: x.squeeze() if dim is None else x.squeeze(dim),
           covers=("SqueezeBackward0", "SqueezeBackward1"), params=_squeeze, **C),
    OpInfo("squeeze_dims", lambda lib, x: x.squeeze((0, -1)), covers=("SqueezeBackward2",),
           shapes=one_shape(min_dims=2), **C),
    OpInfo("expand", lambda lib, x, size: x.expand(*size), covers=("ExpandBackward0",), params=_expand, **C),
    OpInfo("clone", lambda lib, x: x.clone(), covers=("CloneBackward0",), **C),
    OpInfo("to_double", lambda lib, x: x.to(lib.float64), covers=("ToCopyBackward0",)),
    OpInfo("double", lambda lib, x: x.double() * 2, covers=("ToCopyBackward0",)),
    # to(device, dtype, non_blocking, copy) positionally, and a channels_last request: copies even to the same dtype
    OpInfo("to_copy_positional", lambda lib, x: x.to("cpu", x.dtype, False, True), covers=("ToCopyBackward0",), **C),
    OpInfo("to_channels_last", lambda lib, x: x.to(memory_format=lib.channels_last), covers=("ToCopyBackward0",),
           shapes=one_shape(4, 4), **C),
    OpInfo("double_channels_last_3d", lambda lib, x: x.double(memory_format=lib.channels_last_3d),
           covers=("ToCopyBackward0",), shapes=one_shape(5, 5)),
    OpInfo("stack", lambda lib, x, y, dim: lib.stack([x, y], dim), one_shape().map(lambda s: (s[0], s[0])),
           covers=("StackBackward0",), params=lambda d, s: {"dim": d.draw(st.integers(-len(s[0]) - 1, len(s[0])))}, **C),
    OpInfo("unbind", lambda lib, x, dim: lib.stack(x.unbind(dim)[::-1], 0), one_shape(min_dims=1, min_side=1),
           covers=("UnbindBackward0", "StackBackward0"), params=_dim, **C),
    OpInfo("unbind_one_output", lambda lib, x: x.unbind(0)[0] * 2, one_shape(min_dims=1, min_side=1),
           covers=("UnbindBackward0",), **C),
    # ---- indexing
    OpInfo("basic_index", lambda lib, x, key: x[key],
           covers=("SelectBackward0", "SliceBackward0", "AliasBackward0", "IndexPutBackward"),
           params=_basic_key, shapes=one_shape(min_dims=1), **C),
    OpInfo("advanced_index", lambda lib, x, key: _index(lib, x, key), covers=("IndexBackward0",),
           params=_adv_key, shapes=one_shape(min_dims=1, min_side=1), **C),
    OpInfo("mixed_index", lambda lib, x: x[..., lib.tensor([0, 0])][0], covers=("IndexBackward0", "SelectBackward0"),
           shapes=one_shape(min_dims=2, min_side=1), **C),
    # ---- matmul family
    OpInfo("matmul", lambda lib, x, y: x @ y, matmul_pair(),
           covers=("DotBackward0", "MvBackward0", "MmBackward0", "BmmBackward0", "SqueezeBackward4"), **C),
    OpInfo("mm", lambda lib, x, y: lib.mm(x, y), fixed((3, 2), (2, 4)), covers=("MmBackward0",), **C),
    OpInfo("bmm", lambda lib, x, y: lib.bmm(x, y), fixed((2, 3, 2), (2, 2, 4)), covers=("BmmBackward0",), **C),
    OpInfo("mv", lambda lib, x, y: x.mv(y), fixed((3, 2), (2,)), covers=("MvBackward0",), **C),
    OpInfo("dot", lambda lib, x, y: lib.dot(x, y), fixed((5,), (5,)), covers=("DotBackward0",), **C),
]

# Each op family keeps its further rows in its own file (tests/op_rows_<family>.py,
# a list named ROWS); every such file joins the table here, in name order.
def _family_rows():
    import importlib
    import pathlib

    rows = []
    for path in sorted(pathlib.Path(__file__).parent.glob("op_rows_*.py")):
        rows.extend(importlib.import_module(path.stem).ROWS)
    return rows


OPS.extend(_family_rows())

# Entries that only appear inside other ops or in-place forms, tested elsewhere
# (tests/test_inplace.py) rather than by a row of their own.
COVERED_ELSEWHERE = {"ZeroBackward0", "FillBackward2", "CopyBackwards"}
