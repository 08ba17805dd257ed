"""NumPy operands of the operators, einsum's sublist form, apply_/map_, itemsize/nbytes, can_cast,
promote_types and result_type: each call on torch and on dyngrad, compared by result type, dtype and
values, or by error type and text (issue 11)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from conftest import assert_same_tensor


def _outcome(lib, code: str, inplace: bool = False):
    """What ``code`` gives on ``lib``: ("Tensor", dtype, values), ("ndarray", ...), another value's type and
    repr, or the error's type and text."""
    env = {"np": np, "m": lib, "t": lib.tensor([1.0, 2.0]), "ti": lib.tensor([1, 2]), "tb": lib.tensor([True, False]),
           "t8": lib.tensor([1, 2], dtype=lib.int8), "t64": lib.tensor([1.0, 2.0], dtype=lib.float64),
           "a": np.array([1.0, 3.0]), "ai": np.array([1, 3])}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if inplace:
                exec(code, env)
                r = env[code.split()[0]]  # ("t += a": t, a new tensor or the same)
            else:
                r = eval(code, env)
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e).__name__, str(e)
    if isinstance(r, (torch.Tensor, dyngrad.Tensor)):
        return "Tensor", str(r.dtype).rpartition(".")[2], tuple(r.shape), repr(r.tolist())
    if isinstance(r, np.ndarray):
        return "ndarray", str(r.dtype), repr(r.tolist())
    return type(r).__name__, repr(r)


_OPS = ["+", "-", "*", "/", "**", "%", "//", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "@"]

NUMPY_OPERANDS = [
    *[f"t {op} a" for op in _OPS], *[f"a {op} t" for op in _OPS],
    *[f"ti {op} ai" for op in _OPS], *[f"ai {op} ti" for op in _OPS],
    # the examples: a 0-d array promotes as NumPy does it (float64), a NumPy scalar as a Python number
    "t * np.array(2.0)", "np.array(2.0) * t", "np.ones(2) + t", "np.float64(2) * t", "t + np.float32(1)",
    "np.float32(1) + t", "t * np.array(2)", "t8 * np.array(2)", "t8 * np.array(2, np.int16)", "t * np.array(2.0, np.float16)",
    "np.int64(2) * t", "ti * np.float64(2)", "np.float64(2) * ti", "ti * np.array(2.5)", "np.array(2.5) * ti",
    "t64 + np.ones(2, np.float32)", "np.ones(2, np.float32) + t64", "np.float64(2) - t", "np.float64(2) / t",
    "np.float64(2) ** t", "t ** np.float64(2)", "t8 * np.int64(300)", "t8 + np.uint8(2)",
    # NumPy bool and complex64 scalars are read as floats (torch's PyFloat_AsDouble), complex128 as a complex
    "np.complex64(1j) * t", "t * np.complex64(1j)", "t + np.complex64(1j)", "t * np.complex128(1j)",
    "t * np.bool_(True)", "np.bool_(True) * t", "ti * np.bool_(True)", "tb * np.bool_(True)", "tb & np.bool_(True)",
    # comparisons: == takes the array, the orderings refuse it, != falls back to identity
    "t == np.ones(2)", "np.ones(2) == t", "t != np.ones(2)", "t < np.ones(2)", "np.ones(2) < t",
    "t > np.float64(1.5)", "np.float64(1.5) > t", "t == np.float64(1)",
    # NumPy functions on tensors give tensors (__array_wrap__; bool as uint8)
    "np.sin(t)", "np.greater(t, 0)", "np.add(t, 1)", "np.add(1, t)", "np.exp(ti)", "np.logical_not(tb)",
    "np.maximum(t, a)", "np.maximum(np.ones(2), t)",
    # the methods themselves
    "t.__mul__(a)", "t.__radd__(a)", "t.__rmul__(a)", "t.__iadd__(a)", "t.__lt__(a)", "t.__eq__(a)", "t.__ne__(a)",
    "t.__matmul__(a)", "t.mul(np.array(2.0))", "m.add(t, np.float32(2))", "t.add(np.float64(2))",
    "ti << 'a'", "t + 'a'",
]


@pytest.mark.parametrize("code", NUMPY_OPERANDS)
def test_numpy_operands(code):
    assert _outcome(dyngrad, code) == _outcome(torch, code)


@pytest.mark.parametrize("code", [
    "t += a", "t += np.array(2.0)", "t *= np.float64(2)", "ti *= np.array(2)", "ti += np.float64(2.5)", "ai -= ti",
])
def test_numpy_operands_in_place(code):
    """``t += array`` is ``t = t + array`` (torch's __iadd__ refuses the array): a new tensor, NumPy's dtype."""
    assert _outcome(dyngrad, code, inplace=True) == _outcome(torch, code, inplace=True)


def test_numpy_result_keeps_no_history_and_warns_as_torch():
    x_t, x_d = torch.tensor([1.0, 2.0]), dyngrad.tensor([1.0, 2.0])
    with warnings.catch_warnings(record=True) as w_t:
        warnings.simplefilter("always")
        r_t = np.sin(x_t)
    with warnings.catch_warnings(record=True) as w_d:
        warnings.simplefilter("always")
        r_d = np.sin(x_d)
    assert [(w.category, str(w.message)) for w in w_d] == [(w.category, str(w.message)) for w in w_t]
    assert_same_tensor(r_d, r_t)
    assert r_d.grad_fn is None and not r_d.requires_grad


def test_numpy_complex64_scalar_warns_as_torch():
    def caught(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.tensor([1.0, 2.0]) * np.complex64(1j)
        return [(x.category, str(x.message)) for x in w]

    assert caught(dyngrad) == caught(torch)
    assert caught(torch)  # (NumPy's ComplexWarning: the imaginary part is dropped)


# ---------------------------------------------------------------------------- einsum's sublist form


@pytest.mark.parametrize("code", [
    "m.einsum(a, [0, 1], b, [1, 2], [0, 2])", "m.einsum(a, [0, 1], b, [1, 2])", "m.einsum(a, [0, Ellipsis], [Ellipsis])",
    "m.einsum(a, [0, 1])", "m.einsum(a, [0, 0])", "m.einsum(v, [0], v, [0], [])", "m.einsum(a, [0, 1], [1, 0])",
    "m.einsum(a, [0, 51], [51])", "m.einsum(a, [0, 60], [60])", "m.einsum(a, [0, -1])", "m.einsum(a, [0, 1.0])",
    "m.einsum(a, [0, 1], b, [1])", "m.einsum(a)", "m.einsum('ij')", "m.einsum()", "m.einsum('ij', [])",
    "m.einsum('ij,jk->ik', a, b)", "m.einsum('ij,jk->ik', [a, b])", "m.einsum('i,i', [v], v)", "m.einsum('i', 2.0)",
    "m.einsum('ij', ())", "m.einsum('i', None)",
])
def test_einsum_sublist(code):
    def run(lib):
        env = {"m": lib, "a": lib.arange(6.0).reshape(2, 3), "b": lib.arange(12.0).reshape(3, 4), "v": lib.arange(3.0)}
        try:
            return "ok", eval(code, env)
        except Exception as e:  # noqa: BLE001 - the error is the outcome compared
            return type(e).__name__, str(e)

    d, t = run(dyngrad), run(torch)
    assert d[0] == t[0]
    if t[0] == "ok":
        assert_same_tensor(d[1], t[1])
    else:
        assert d[1] == t[1]


def test_einsum_sublist_gradients():
    a = np.random.default_rng(0).standard_normal((2, 3))
    b = np.random.default_rng(1).standard_normal((3, 4))
    grads = []
    for lib in (dyngrad, torch):
        x, y = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        (lib.einsum(x, [0, 1], y, [1, 2], [0, 2]) * lib.tensor(np.arange(8.0).reshape(2, 4))).sum().backward()
        grads.append((x.grad, y.grad))
    assert_same_tensor(grads[0][0], grads[1][0])
    assert_same_tensor(grads[0][1], grads[1][1])


# ---------------------------------------------------------------------------- apply_ / map_


_RESULTS = {"'a'": lambda v: "a", "2.7": lambda v: 2.7, "-1.5": lambda v: -1.5, "1j": lambda v: 1j, "True": lambda v: True,
            "300": lambda v: 300, "-1": lambda v: -1, "-256": lambda v: -256, "None": lambda v: None, "2**70": lambda v: 2 ** 70, "v*2": lambda v: v * 2,
            "type": lambda v: float(len(type(v).__name__))}


@pytest.mark.parametrize("dtype", ["int64", "bool", "complex64", "uint8", "float16", "float64", "int8"])
@pytest.mark.parametrize("result", list(_RESULTS))
def test_apply_converts_results_as_torch(dtype, result):
    def run(lib):
        try:
            x = lib.arange(3).to(getattr(lib, dtype))
            r = x.apply_(_RESULTS[result])
            return "ok", r is x, str(r.dtype).rpartition(".")[2], repr(r.tolist())
        except Exception as e:  # noqa: BLE001 - the error is the outcome compared
            return type(e).__name__, str(e)

    assert run(dyngrad) == run(torch)


@pytest.mark.parametrize("code", [
    "m.ones(2, requires_grad=True).apply_(lambda v: v)", "m.ones(2).apply_(3)", "m.ones(2).apply_()",
    "m.ones(2).apply_(callable=abs)", "m.ones(2).apply_(abs, abs)",
    "m.ones(2, 2).map_(m.tensor([1., 2.]), lambda a, b: a + b)", "m.ones(2).map_(m.ones(2, 2), lambda a, b: a + b)",
    "m.ones(2).map_(m.ones(2, dtype=m.long), lambda a, b: a + b)", "m.ones(2).map_(2.0, lambda a, b: a + b)",
    "m.ones(2).map_(m.ones(2, requires_grad=True), lambda a, b: a)", "m.ones(2).map_(m.ones(2))",
    "m.ones(2).map_(m.ones(2), lambda a, b: a, 3)", "m.ones(2).map_(other=m.ones(2), callable=lambda a, b: a * b)",
    "m.arange(4).map_(m.arange(4), lambda a, b: a * b + 0.5)", "m.ones(2, dtype=m.uint8).map_(m.ones(2, dtype=m.uint8), lambda a, b: -1)",
])
def test_apply_and_map_calls(code):
    def run(lib):
        try:
            r = eval(code, {"m": lib})
            return "ok", str(r.dtype).rpartition(".")[2], repr(r.tolist())
        except Exception as e:  # noqa: BLE001 - the error is the outcome compared
            return type(e).__name__, str(e).replace("dyngrad", "torch")

    d, t = run(dyngrad), run(torch)
    if t[0] == "TypeError" and "positional argument" in t[1] and "<lambda>" in t[1]:
        assert d[0] == t[0]  # (Python's message names the lambda by its place in the test)
    else:
        assert d == t


@pytest.mark.parametrize("lib", [dyngrad, torch], ids=["dyngrad", "torch"])
def test_apply_writes_through_views_without_a_version_bump(lib):
    base = lib.arange(6.0)
    view = base[1::2]
    version = base._version
    assert view.apply_(lambda v: -v) is view
    view.map_(lib.ones(3), lambda p, q: p - q)
    assert base.tolist() == [0.0, -2.0, 2.0, -4.0, 4.0, -6.0]
    assert base._version == version  # (torch's apply_/map_ write past the version counter)


# ---------------------------------------------------------------------------- sizes and dtype rules


_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", _DTYPES)
def test_itemsize_and_nbytes(dtype):
    for shape in [(), (3,), (2, 0), (2, 3)]:
        d = dyngrad.zeros(shape, dtype=getattr(dyngrad, dtype))
        t = torch.zeros(shape, dtype=getattr(torch, dtype))
        assert (d.itemsize, d.nbytes) == (t.itemsize, t.nbytes)
    assert dyngrad.zeros(4)[::2].nbytes == torch.zeros(4)[::2].nbytes  # (numel * itemsize, not the storage's)


def test_can_cast_every_pair():
    for a in _DTYPES:
        for b in _DTYPES:
            got = dyngrad.can_cast(getattr(dyngrad, a), getattr(dyngrad, b))
            assert got is torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)
    assert dyngrad.can_cast(from_=dyngrad.int32, to=dyngrad.float32) is True


@pytest.mark.parametrize("code", ["m.can_cast(1, m.int32)", "m.can_cast(m.int32)", "m.can_cast(m.int32, 'a')"])
def test_can_cast_errors(code):
    def run(lib):
        with pytest.raises(TypeError) as info:
            eval(code, {"m": lib})
        return str(info.value)

    assert run(dyngrad) == run(torch)


@pytest.mark.parametrize("code", [
    "m.promote_types(m.float32, m.int64)", "m.promote_types(m.uint8, m.int8)", "m.promote_types(m.bool, m.float16)",
    "m.promote_types(m.complex64, m.float64)", "m.promote_types(m.int32, 1)", "m.promote_types(type1=m.int32, type2=m.int64)",
    "m.result_type(x, 1.0)", "m.result_type(xi, 1.0)", "m.result_type(xi, 1)", "m.result_type(1, 1.0)",
    "m.result_type(1, xi)", "m.result_type(True, xi)", "m.result_type(1j, x)", "m.result_type(2, 3)",
    "m.result_type(2.0, 3)", "m.result_type(True, False)", "m.result_type(1j, 2)", "m.result_type(xi, x)",
    "m.result_type(m.tensor(1.0, dtype=m.float64), xi)", "m.result_type(xi, np.float64(1))", "m.result_type(xi, 'a')",
    "m.result_type(x)", "m.result_type(tensor=xi, other=1.0)", "m.result_type(scalar1=1, scalar2=2.0)",
    "m.result_type(x8, 1000)", "m.result_type(x8, m.tensor(1000))",
])
def test_promote_types_and_result_type(code):
    def run(lib):
        env = {"np": np, "m": lib, "x": lib.tensor([1.0, 2.0]), "xi": lib.tensor([1, 2]), "x8": lib.tensor([1, 2], dtype=lib.int8)}
        try:
            return "ok", str(eval(code, env)).rpartition(".")[2]
        except Exception as e:  # noqa: BLE001 - the error is the outcome compared
            return type(e).__name__, str(e)

    assert run(dyngrad) == run(torch)
