"""Every op of the table (tests/op_table.py) against torch 2.13.

For each row, over shapes drawn by hypothesis (broadcasting, 0-d, empty, size-1
dims, non-contiguous inputs, float32 and float64): forward values, dtype, shape,
``grad_fn`` name, gradients, second-order gradients, errors; then a float64
finite-difference check of dyngrad's own gradients; int inputs where torch takes them.
Rows of ops torch runs on complex numbers get the same checks in complex64/complex128
(``test_op_complex_*``).

Note [Stable draws]: hypothesis derives each test's examples from the test function's
source (comments aside), so editing a test body redraws every row's examples. The
real-dtype tests below keep their bodies as they are; complex support lives in
helpers and tests of its own.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dyngrad
from conftest import assert_same_tensor, same_error, torch
from dyngrad._ops.registry import REGISTRY
from op_table import COVERED_ELSEWHERE, OPS

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
IDS = [op.name for op in OPS]


def _real_part(rng, shape, dtype, op, ties: bool) -> np.ndarray:
    lo, hi = op.domain
    if ties:
        return rng.integers(-2, 3, size=shape).astype(dtype)
    arr = rng.uniform(lo, hi, size=shape).astype(dtype)
    if op.domain == (0.5, 2.0):  # NONZERO: random signs, magnitudes kept away from 0
        arr *= rng.choice([-1, 1], size=shape).astype(dtype)
    return arr


def _make_array(rng, shape, dtype, op, ties: bool, noncontig: bool) -> np.ndarray:
    if np.dtype(dtype).kind == "c":  # both parts drawn from the row's domain
        real = np.finfo(dtype).dtype
        arr = np.asarray(_real_part(rng, shape, real, op, ties) + 1j * _real_part(rng, shape, real, op, ties))
        arr = arr.astype(dtype)
    else:
        arr = _real_part(rng, shape, dtype, op, ties)
    if noncontig and len(shape) >= 2:
        arr = np.ascontiguousarray(arr.T).T  # same values, Fortran strides
    return arr


def _inputs(lib, arrays, requires_grad: bool):
    out = []
    for a in arrays:
        t = lib.from_numpy(a.copy(order="K"))
        if requires_grad:
            t.requires_grad_(True)
        out.append(t)
    return out


def _draw_case(op, data, dtypes=("float32", "float64")):
    dtypes = tuple(d for d in dtypes if d in op.dtypes)
    shapes = data.draw(op.shapes, label="shapes")
    dtype = data.draw(st.sampled_from(dtypes), label="dtype")
    params = op.params(data, shapes) if op.params else {}
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    ties = op.ties and data.draw(st.booleans(), label="ties")
    noncontig = data.draw(st.booleans(), label="noncontig")
    rng = np.random.default_rng(seed)
    arrays = [_make_array(rng, s, dtype, op, ties, noncontig) for s in shapes]
    return arrays, params, rng


def _grad_fn_name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


REAL_ROWS = [op for op in OPS if set(op.dtypes) & {"float32", "float64"} and not op.complex_out]
COMPLEX_ROWS = [op for op in OPS if set(op.dtypes) & {"complex64", "complex128"} or op.complex_out]
_COMPLEX = ("complex64", "complex128")


@pytest.mark.parametrize("op", REAL_ROWS, ids=[op.name for op in REAL_ROWS])
@SETTINGS
@given(data=st.data())
def test_op_matches_torch(op, data) -> None:
    arrays, params, rng = _draw_case(op, data)
    tol = (op.tol or {}).get(str(arrays[0].dtype))  # a row's own tolerance, where its formula amplifies rounding
    t_in = _inputs(torch, arrays, op.differentiable)
    d_in = _inputs(dyngrad, arrays, op.differentiable)
    d_out, t_out = same_error(lambda: op.fn(dyngrad, *d_in, **params), lambda: op.fn(torch, *t_in, **params))
    if t_out is None:
        return
    assert_same_tensor(d_out, t_out, tol=tol, what="forward")
    assert _grad_fn_name(d_out) == _grad_fn_name(t_out)
    if d_out.grad_fn is not None:
        assert d_out.grad_fn.name() == t_out.grad_fn.name()
    assert d_out.requires_grad == t_out.requires_grad
    if not (op.differentiable and t_out.requires_grad):
        return

    # First order, with a random output gradient.
    g = rng.standard_normal(size=tuple(t_out.shape)).astype(arrays[0].dtype)
    t_grads = torch.autograd.grad(t_out, t_in, torch.from_numpy(g.copy()), allow_unused=True, create_graph=True)
    d_grads = dyngrad.autograd.grad(d_out, d_in, dyngrad.from_numpy(g.copy()), allow_unused=True, create_graph=True)
    for i, (dg, tg) in enumerate(zip(d_grads, t_grads)):
        if tg is None:
            assert dg is None or not np.any(dg.detach().numpy()), f"grad {i}: torch None"
            continue
        assert dg is not None, f"grad {i}: dyngrad None, torch {tg}"
        assert_same_tensor(dg, tg, tol=tol, what=f"grad {i}")

    # First order again through a plain backward (no graph recorded: the engine may use the
    # array formulas of Note [Backward on arrays]); leaves accumulate what torch's do.
    t_leaves = _inputs(torch, arrays, True)
    d_leaves = _inputs(dyngrad, arrays, True)
    op.fn(torch, *t_leaves, **params).backward(torch.from_numpy(g.copy()))
    op.fn(dyngrad, *d_leaves, **params).backward(dyngrad.from_numpy(g.copy()))
    for i, (dl, tl) in enumerate(zip(d_leaves, t_leaves)):
        if tl.grad is None:
            assert dl.grad is None or not np.any(dl.grad.numpy()), f"plain backward grad {i}: torch None"
        else:
            assert_same_tensor(dl.grad, tl.grad, tol=tol, what=f"plain backward grad {i}")

    # Second order: differentiate <grads, v> again.
    if not op.second_order:
        return
    pairs = [(dg, tg) for dg, tg in zip(d_grads, t_grads) if tg is not None and tg.requires_grad]
    if not pairs:
        return
    vs = [rng.standard_normal(size=tuple(tg.shape)).astype(arrays[0].dtype) for _, tg in pairs]
    t_s = sum((tg * torch.from_numpy(v)).sum() for (_, tg), v in zip(pairs, vs))
    d_s = sum((dg * dyngrad.from_numpy(v)).sum() for (dg, _), v in zip(pairs, vs))
    t_gg = torch.autograd.grad(t_s, t_in, allow_unused=True)
    if not d_s.requires_grad:  # dyngrad's first-order grad is constant in the inputs: torch's must be too
        assert all(tg is None or not np.any(tg.numpy(force=True)) for tg in t_gg)
        return
    d_gg = dyngrad.autograd.grad(d_s, d_in, allow_unused=True)
    for i, (dg, tg) in enumerate(zip(d_gg, t_gg)):
        if tg is None:
            assert dg is None or not np.any(dg.numpy()), f"second-order grad {i}: torch None"
            continue
        if dg is None:
            assert not np.any(tg.numpy(force=True)), f"second-order grad {i}: dyngrad None, torch {tg}"
            continue
        assert_same_tensor(dg, tg, tol=tol, what=f"second-order grad {i}")


def _finite_difference(fn, arrays, i, v, eps=1e-6):
    """Central differences of <fn(arrays), v> with respect to arrays[i] (float64)."""
    base = [a.copy() for a in arrays]
    grad = np.zeros_like(base[i])
    flat = base[i].reshape(-1)
    for k in range(flat.size):
        old = flat[k]
        flat[k] = old + eps
        plus = (fn(base) * v).sum()
        flat[k] = old - eps
        minus = (fn(base) * v).sum()
        flat[k] = old
        grad.reshape(-1)[k] = (plus - minus) / (2 * eps)
    return grad


@pytest.mark.parametrize("op", [op for op in REAL_ROWS if op.differentiable and op.gradcheck], ids=lambda op: op.name)
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_op_finite_differences(op, data) -> None:
    arrays, params, rng = _draw_case(op, data, dtypes=("float64",))
    if sum(a.size for a in arrays) > 64:
        return  # keep the O(n) loop of forward passes cheap
    try:
        out = op.fn(dyngrad, *_inputs(dyngrad, arrays, False), **params)
    except Exception:  # noqa: BLE001 - invalid draws are covered by test_op_matches_torch
        return
    v = rng.standard_normal(size=tuple(out.shape))
    inputs = _inputs(dyngrad, arrays, True)
    out = op.fn(dyngrad, *inputs, **params)
    (out * dyngrad.from_numpy(v)).sum().backward()

    def f(arrs):
        with dyngrad.no_grad():
            return op.fn(dyngrad, *[dyngrad.from_numpy(a) for a in arrs], **params).numpy()

    for i, t in enumerate(inputs):
        expected = _finite_difference(f, arrays, i, v)
        got = t.grad.numpy() if t.grad is not None else np.zeros_like(expected)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=f"input {i}")


# ------------------------------------------------------------------ complex dtypes
# Complex gradients follow torch's convention: for an output gradient v, backward gives the gradient
# of the real loss Re(sum(conj(v) * out)) with respect to each input, as d/dRe + i d/dIm (Note
# [Complex gradients] in src/dyngrad/_ops/registry.py); _complex_finite_difference computes exactly that.


def _random(rng, shape, dtype) -> np.ndarray:
    """Standard normal values of ``dtype`` (both parts for a complex dtype)."""
    values = rng.standard_normal(size=shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(size=shape)
    return np.asarray(values).astype(dtype)


def _dtype_name(t) -> str:
    return str(t.dtype).removeprefix("torch.")


def _compare_grads(d_grads, t_grads, what: str) -> None:
    for i, (dg, tg) in enumerate(zip(d_grads, t_grads)):
        if tg is None:
            assert dg is None or not np.any(dg.detach().numpy(force=True)), f"{what} {i}: torch None"
        elif dg is None:
            assert not np.any(tg.detach().numpy(force=True)), f"{what} {i}: dyngrad None, torch {tg}"
        else:
            assert_same_tensor(dg, tg, what=f"{what} {i}")


@pytest.mark.parametrize("op", COMPLEX_ROWS, ids=[op.name for op in COMPLEX_ROWS])
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_op_complex_matches_torch(op, data) -> None:
    """The real-dtype checks in complex64 / complex128: values, grad_fn, gradients (recorded and plain
    backward, with complex output gradients) and second-order gradients of a real function of them."""
    arrays, params, rng = _draw_case(op, data, dtypes=op.dtypes if op.complex_out else _COMPLEX)
    t_in = _inputs(torch, arrays, op.differentiable)
    d_in = _inputs(dyngrad, arrays, op.differentiable)
    d_out, t_out = same_error(lambda: op.fn(dyngrad, *d_in, **params), lambda: op.fn(torch, *t_in, **params))
    if t_out is None:
        return
    assert_same_tensor(d_out, t_out, what="forward")
    assert _grad_fn_name(d_out) == _grad_fn_name(t_out)
    assert d_out.requires_grad == t_out.requires_grad
    assert d_out.is_conj() == t_out.is_conj() and d_out.is_neg() == t_out.is_neg()
    if not (op.differentiable and t_out.requires_grad):
        return
    g = _random(rng, tuple(t_out.shape), _dtype_name(t_out))
    t_grads = torch.autograd.grad(t_out, t_in, torch.from_numpy(g.copy()), allow_unused=True, create_graph=True)
    d_grads = dyngrad.autograd.grad(d_out, d_in, dyngrad.from_numpy(g.copy()), allow_unused=True, create_graph=True)
    _compare_grads(d_grads, t_grads, "grad")

    t_leaves, d_leaves = _inputs(torch, arrays, True), _inputs(dyngrad, arrays, True)
    op.fn(torch, *t_leaves, **params).backward(torch.from_numpy(g.copy()))
    op.fn(dyngrad, *d_leaves, **params).backward(dyngrad.from_numpy(g.copy()))
    _compare_grads([t.grad for t in d_leaves], [t.grad for t in t_leaves], "plain backward grad")

    pairs = [(dg, tg) for dg, tg in zip(d_grads, t_grads) if tg is not None and tg.requires_grad]
    if not op.second_order or not pairs:
        return
    vs = [_random(rng, tuple(tg.shape), _dtype_name(tg)) for _, tg in pairs]
    t_s = sum((tg * torch.from_numpy(v)).sum().real for (_, tg), v in zip(pairs, vs))
    d_s = sum((dg * dyngrad.from_numpy(v)).sum().real for (dg, _), v in zip(pairs, vs))
    t_gg = torch.autograd.grad(t_s, t_in, allow_unused=True)
    if not d_s.requires_grad:
        assert all(tg is None or not np.any(tg.numpy(force=True)) for tg in t_gg)
        return
    _compare_grads(dyngrad.autograd.grad(d_s, d_in, allow_unused=True), t_gg, "second-order grad")


def _complex_finite_difference(fn, arrays, i, v, eps=1e-6):
    """Central differences of the real loss Re(sum(conj(v) * fn(arrays))) with respect to arrays[i]
    (complex128 or float64): d/dx + i d/dy for a complex input x + iy, d/dx for a real one."""
    base = [a.copy() for a in arrays]
    grad = np.zeros_like(base[i])
    flat = base[i].reshape(-1)
    steps = (eps, 1j * eps) if flat.dtype.kind == "c" else (eps,)
    for k in range(flat.size):
        old = flat[k]
        for step in steps:
            flat[k] = old + step
            plus = (np.conj(v) * fn(base)).sum().real
            flat[k] = old - step
            minus = (np.conj(v) * fn(base)).sum().real
            flat[k] = old
            grad.reshape(-1)[k] += (plus - minus) / (2 * eps) * (step / eps)
    return grad


@pytest.mark.parametrize("op", [op for op in COMPLEX_ROWS if op.differentiable and op.gradcheck],
                         ids=lambda op: op.name)
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_op_complex_finite_differences(op, data) -> None:
    arrays, params, rng = _draw_case(op, data, dtypes=("float64",) if op.complex_out else ("complex128",))
    if sum(a.size for a in arrays) > 32:
        return
    try:
        out = op.fn(dyngrad, *_inputs(dyngrad, arrays, False), **params)
    except Exception:  # noqa: BLE001 - invalid draws are covered by test_op_complex_matches_torch
        return
    v = _random(rng, tuple(out.shape), _dtype_name(out))
    inputs = _inputs(dyngrad, arrays, True)
    op.fn(dyngrad, *inputs, **params).backward(dyngrad.from_numpy(v))

    def f(arrs):
        with dyngrad.no_grad():
            return op.fn(dyngrad, *[dyngrad.from_numpy(a) for a in arrs], **params).numpy(force=True)

    for i, t in enumerate(inputs):
        expected = _complex_finite_difference(f, arrays, i, v)
        got = t.grad.numpy(force=True) if t.grad is not None else np.zeros_like(expected)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=f"input {i}")


@pytest.mark.parametrize("op", [op for op in OPS if op.int_ok], ids=lambda op: op.name)
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_op_int_inputs(op, data) -> None:
    shapes = data.draw(op.shapes)
    params = op.params(data, shapes) if op.params else {}
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    arrays = [np.asarray(rng.integers(1, 4, size=s) * rng.choice([-1, 1], size=s), dtype=np.int64) for s in shapes]
    d_out, t_out = same_error(
        lambda: op.fn(dyngrad, *_inputs(dyngrad, arrays, False), **params),
        lambda: op.fn(torch, *_inputs(torch, arrays, False), **params),
    )
    if t_out is not None:
        assert_same_tensor(d_out, t_out, what="int forward")


def test_every_registry_entry_has_a_row_and_every_row_an_entry() -> None:
    covered = {name for op in OPS for name in op.covers}
    assert covered - set(REGISTRY) == set(), "rows name ops that are not in the registry"
    assert set(REGISTRY) - covered - COVERED_ELSEWHERE == set(), "registry entries without a test row"
