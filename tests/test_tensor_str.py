"""Checks dyngrad._tensor_str against the real torch repr (PyTorch 2.13).

The module is loaded straight from its file so that these tests do not depend
on the rest of the dyngrad package being importable.
"""

import contextlib
import importlib.util
import math
import pathlib

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

_PATH = (
    pathlib.Path(__file__).resolve().parents[1] / "src" / "dyngrad" / "_tensor_str.py"
)
_spec = importlib.util.spec_from_file_location("dyngrad_tensor_str_under_test", _PATH)
ts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ts)

# Dtypes that torch leaves implicit with the stock default dtype (float32).
_IMPLICIT = {"float32", "complex64", "int64", "bool"}
nan, inf = math.nan, math.inf


def _dtype_name(arr):
    return str(torch.from_numpy(np.zeros(1, arr.dtype)).dtype).removeprefix("torch.")


def ours(arr, **kw):
    name = _dtype_name(arr)
    return ts.format_tensor(
        arr, dtype_name=name, is_default_dtype=name in _IMPLICIT, **kw
    )


def theirs(arr):
    # A C-ordered copy keeps the ndim (unlike ascontiguousarray on 0-d input)
    # and has no negative strides, which from_numpy rejects.
    return torch.from_numpy(np.array(arr, order="C"))


@contextlib.contextmanager
def options(**kw):
    """Apply the same print options to torch and to us, then restore defaults."""
    torch.set_printoptions(**kw)
    ts.set_printoptions(**kw)
    try:
        yield
    finally:
        torch.set_printoptions(profile="default")
        ts.set_printoptions(profile="default")


def check(arr, **opts):
    with options(**opts):
        assert ours(arr) == repr(theirs(arr))


@pytest.fixture(autouse=True)
def _reset_options():
    yield
    torch.set_printoptions(profile="default")
    ts.set_printoptions(profile="default")


f32, f64, f16 = np.float32, np.float64, np.float16

EDGE_CASES = {
    "one_float": np.array([4.0], f32),
    "scalar_float": np.array(15.0, f32),
    "scalar_int": np.array(-7, np.int64),
    "scalar_bool": np.array(True),
    "scalar_nan": np.array(nan, f32),
    "scalar_neg_zero": np.array(-0.0, f32),
    "scalar_f64_fraction": np.array(1 / 3, f64),
    "int_valued_floats": np.array([2.0, 3.0, -10.0], f32),
    "fractions": np.array([0.5, 1.25, -3.125], f32),
    "precision_rounding": np.array([1.23456789, 2.5e-3, 0.1], f32),
    "sci_by_ratio": np.array([1.0, 1001.0], f32),
    "no_sci_ratio_1000": np.array([1.0, 1000.0], f32),
    "sci_by_max": np.array([1e9, 2e9], f32),
    "sci_by_min": np.array([5e-5, 6e-5], f32),
    "sci_int_mode": np.array([1.0, 1e10], f64),
    "nan_inf_mixed": np.array([nan, inf, -inf, 1.5, 0.0], f32),
    "only_nonfinite_and_zero": np.array([0.0, nan, inf, -0.0], f32),
    "negative_zero": np.array([-0.0, 1.0, 2.5], f32),
    "neg_zero_int_mode": np.array([-0.0, 1.0], f32),
    "all_zero": np.zeros(4, f32),
    "subnormal_f64": np.array([1e308, 5e-324], f64),
    "alignment": np.array([1.0, -22.5, 333.25], f32),
    "wrap_floats": np.linspace(-1, 1, 40).astype(f32),
    "wrap_ints": np.arange(-30, 30, dtype=np.int64),
    "matrix": np.arange(12, dtype=f32).reshape(3, 4) / 3,
    "cube": np.arange(24, dtype=np.int64).reshape(2, 3, 4),
    "four_d": np.arange(48, dtype=f32).reshape(2, 2, 3, 4) - 20,
    "size1_dims": np.ones((1, 1, 3), f32),
    "wide_matrix_wraps": np.arange(60, dtype=f64).reshape(2, 30) * 1.5,
    "summarised_vector": np.arange(1001, dtype=f32),
    "summarised_matrix": np.arange(2000, dtype=f32).reshape(20, 100) / 7,
    "summarised_3d": np.arange(5000, dtype=np.int64).reshape(10, 10, 50),
    "summarised_short_rows": np.arange(1200, dtype=f32).reshape(600, 2),
    "bools": np.array([True, False, True]),
    "bool_matrix": np.eye(3, dtype=bool),
    "uint8": np.arange(0, 256, 37, dtype=np.uint8),
    "int8": np.array([-128, 0, 127], np.int8),
    "int16": np.array([-32768, 5], np.int16),
    "int32": np.array([[1, -2], [300, 4]], np.int32),
    "float16": np.array([0.1, 65504.0, -2.0], f16),
    "float16_int_mode": np.array([1.0, 2.0], f16),
    "float64_suffix": np.array([1.0, 2.0], f64),
    "f64_matrix_suffix_newline": np.arange(33, dtype=f64).reshape(3, 11) / 7,
    "empty_1d": np.zeros(0, f32),
    "empty_2d": np.zeros((0, 3), f32),
    "empty_int": np.zeros(0, np.int64),
    "empty_bool_3d": np.zeros((2, 0, 1), bool),
    "empty_f64": np.zeros((3, 0), f64),
    "complex": np.array([1 + 2j, -0.5 - 0j, nan + 1j, 3.25 - 1e-6j], np.complex64),
    "complex_matrix": (np.arange(6) + 1j * np.arange(6)[::-1])
    .reshape(2, 3)
    .astype(np.complex128),
    "complex_scalar": np.array(1 - 1j, np.complex64),
    "empty_complex": np.zeros(0, np.complex64),
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_cases_default_options(name):
    check(EDGE_CASES[name])


NON_CONTIGUOUS = {
    "transposed": np.arange(12, dtype=f32).reshape(3, 4).T,
    "reversed": np.arange(10, dtype=np.int64)[::-1],
    "strided": (np.arange(40, dtype=f64) / 3)[::3],
    "fortran": np.asfortranarray(np.arange(6, dtype=f32).reshape(2, 3)),
    "big_transposed": np.arange(3000, dtype=f32).reshape(30, 100).T,
}


@pytest.mark.parametrize("name", sorted(NON_CONTIGUOUS))
def test_non_contiguous(name):
    check(NON_CONTIGUOUS[name])


OPTION_CASES = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 10},
    {"threshold": 5},
    {"threshold": 0},
    {"edgeitems": 0, "threshold": 5},
    {"edgeitems": 0},
    {"edgeitems": 1, "threshold": 3},
    {"linewidth": 20},
    {"linewidth": 1},
    {"linewidth": 200},
    {"sci_mode": True},
    {"sci_mode": False},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "short", "precision": 6},
]


@pytest.mark.parametrize("opts", OPTION_CASES, ids=str)
@pytest.mark.parametrize(
    "name",
    [
        "fractions",
        "sci_by_ratio",
        "matrix",
        "cube",
        "summarised_vector",
        "wrap_ints",
        "complex",
        "scalar_float",
        "empty_2d",
        "bools",
        "nan_inf_mixed",
        "float64_suffix",
    ],
)
def test_print_options(name, opts):
    check(EDGE_CASES[name], **opts)


def test_big_tensor_full_profile():
    check(np.arange(1500, dtype=np.int64).reshape(30, 50), profile="full")


# --- autograd suffixes ------------------------------------------------------


def test_examples_from_autograd():
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    y = x * torch.tensor([3.0, 3.0])
    s = (x * 3).sum()
    a = np.array([2.0, 3.0], f32)
    assert (
        ours(a, requires_grad=True) == repr(x) == "tensor([2., 3.], requires_grad=True)"
    )
    assert ours(np.array([6.0, 9.0], f32), grad_fn_name="MulBackward0") == repr(y)
    assert repr(y) == "tensor([6., 9.], grad_fn=<MulBackward0>)"
    assert ours(np.array(15.0, f32), grad_fn_name="SumBackward0") == repr(s)
    assert repr(s) == "tensor(15., grad_fn=<SumBackward0>)"
    # grad_fn wins over requires_grad, as for any non-leaf tensor.
    assert ours(
        np.array([6.0, 9.0], f32), requires_grad=True, grad_fn_name="MulBackward0"
    ) == repr(y)


@pytest.mark.parametrize(
    "arr",
    [
        np.array([1.5, -2.0], f64),
        np.arange(33, dtype=f64).reshape(3, 11) / 7,  # suffixes overflow the line
        np.arange(11, dtype=f32) * 1.1,  # last row nearly full
        np.zeros((0, 4), f64),
        np.array(2.0, f16),
        np.arange(2000, dtype=f64),
        np.array([1 + 1j], np.complex128),
    ],
    ids=lambda a: f"{a.dtype}{a.shape}",
)
@pytest.mark.parametrize("linewidth", [80, 40])
def test_grad_suffixes_and_wrapping(arr, linewidth):
    with options(linewidth=linewidth):
        leaf = theirs(arr).requires_grad_()
        assert ours(arr, requires_grad=True) == repr(leaf)
        cloned = leaf.clone()
        assert ours(arr, grad_fn_name="CloneBackward0") == repr(cloned)


class AVeryLongCustomAutogradFunctionNameForWrapping(torch.autograd.Function):
    """Identity op whose grad_fn name is long enough to force a suffix line break."""

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g


@pytest.mark.parametrize("n", [1, 5, 9, 12])
def test_long_grad_fn_name_wraps_like_torch(n):
    arr = np.arange(n, dtype=f32) + 0.5
    out = AVeryLongCustomAutogradFunctionNameForWrapping.apply(
        theirs(arr).requires_grad_()
    )
    name = type(out.grad_fn).__name__
    assert ours(arr, grad_fn_name=name) == repr(out)


# --- print options API ------------------------------------------------------


def test_get_printoptions_defaults_match_torch():
    assert ts.get_printoptions() == torch._tensor_str.get_printoptions()
    assert ts.get_printoptions() == {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }


@pytest.mark.parametrize(
    "calls",
    [
        [{"profile": "full"}],
        [{"profile": "short"}],
        [{"profile": "short"}, {"precision": 7}],
        [{"sci_mode": True}, {"precision": 3}],  # second call resets sci_mode
        [{"profile": "full", "sci_mode": False}],
        [{"threshold": 10, "edgeitems": 1, "linewidth": 50}, {"profile": "default"}],
        [{"profile": "no-such-profile"}],
    ],
    ids=str,
)
def test_set_printoptions_semantics(calls):
    for kw in calls:
        torch.set_printoptions(**kw)
        ts.set_printoptions(**kw)
    assert ts.get_printoptions() == torch._tensor_str.get_printoptions()
    arr = np.arange(1500, dtype=f32) / 9
    assert ours(arr) == repr(theirs(arr))


def test_get_printoptions_returns_a_copy():
    opts = ts.get_printoptions()
    opts["precision"] = 99
    assert ts.get_printoptions()["precision"] == 4


# --- property-based comparison ---------------------------------------------

_FLOAT_VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**5), 10**5).map(float),
    st.builds(lambda m, e: m * 10.0**e, st.floats(-10, 10), st.integers(-12, 12)),
    st.sampled_from([0.0, -0.0, nan, inf, -inf, 0.5, 1e-4, 1e8, 1000.0]),
)
_SHAPES = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6)


@st.composite
def arrays(draw):
    kind = draw(st.sampled_from(["f32", "f64", "f16", "int", "bool", "complex"]))
    shape = draw(_SHAPES)
    if kind in ("f32", "f64", "f16"):
        base = draw(hnp.arrays(np.float64, shape, elements=_FLOAT_VALUES))
        with np.errstate(over="ignore"):
            arr = base.astype({"f32": f32, "f64": f64, "f16": f16}[kind])
    elif kind == "complex":
        re = draw(hnp.arrays(np.float64, shape, elements=_FLOAT_VALUES))
        im = draw(hnp.arrays(np.float64, shape, elements=_FLOAT_VALUES))
        dt = draw(st.sampled_from([np.complex64, np.complex128]))
        with np.errstate(over="ignore", invalid="ignore"):
            arr = np.asarray(re + 1j * im).astype(dt)
    elif kind == "int":
        dt = draw(st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8]))
        arr = draw(hnp.arrays(dt, shape))
    else:
        arr = draw(hnp.arrays(np.bool_, shape))
    # Exercise non-contiguous inputs too.
    if arr.ndim >= 2 and draw(st.booleans()):
        arr = arr.T
    if arr.ndim >= 1 and draw(st.booleans()):
        arr = arr[::-1]
    return arr


_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 8),
        "threshold": st.sampled_from([0, 3, 20, 100, 1000, inf]),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.integers(5, 140),
        "sci_mode": st.sampled_from([None, True, False]),
        "profile": st.sampled_from(["default", "short", "full"]),
    },
)

_FAST = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_FAST
@given(arr=arrays())
def test_matches_torch_default_options(arr):
    assert ours(arr) == repr(theirs(arr))


@_FAST
@given(arr=arrays(), opts=_OPTIONS)
def test_matches_torch_with_options(arr, opts):
    with options(**opts):
        assert ours(arr) == repr(theirs(arr))


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    arr=arrays(),
    linewidth=st.integers(20, 120),
    mode=st.sampled_from(["leaf", "clone"]),
)
def test_matches_torch_with_grad(arr, linewidth, mode):
    if arr.dtype.kind not in "fc":
        return  # only floating and complex tensors can require grad
    with options(linewidth=linewidth):
        t = theirs(arr).requires_grad_()
        if mode == "leaf":
            assert ours(arr, requires_grad=True) == repr(t)
        else:
            assert ours(arr, grad_fn_name="CloneBackward0") == repr(t.clone())
