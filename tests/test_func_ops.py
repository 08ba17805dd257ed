"""Every op of the table (tests/op_table.py) under ``vmap``, against torch's ``torch.func.vmap``.

For each row, in float64, over shapes drawn by hypothesis: the row's inputs get a batch of 3
samples at in_dim 0, 1 or None (a mix, at least one batched), the row's function runs under
``vmap`` in both libraries, and the outputs must agree (values, shapes, dtypes); then the gradients
of the outputs (with random cotangents) with respect to the batched inputs, through the vmap.
Where torch's vmap refuses an op (no batching rule, "dynamic shape"), dyngrad's vmap is checked
against dyngrad run once per sample, which tests/test_ops.py checks against torch.

``test_ops_without_batching_rule`` keeps the list of ops that still run once per sample under
vmap (docs/func.md): the goal is none.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch.func
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dyngrad
import dyngrad.func
from conftest import assert_same_tensor, torch
from dyngrad._batching import array as batching_array
from op_table import OPS
from test_ops import _make_array

SETTINGS = settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
BATCH = 3

# Rows whose function cannot run under vmap in either library for reasons of the row itself
# (it calls .item() or backward() inside, or draws random numbers): checked elsewhere.
SKIP = {
    "floor_divide": "the row runs backward() inside its function",
    "qr_mode_errors": "the row runs backward() inside its function",
    "inplace_shape_stale": "the row runs backward() inside its function",
    "inplace_shape_version": "the row reads ._version inside its function (vmap's versions are the physical tensor's)",
    "inplace_shape_leaf": "an in-place shape op on the vmapped leaf itself: torch's batched wrapper is no leaf, "
                          "dyngrad's batched view is the leaf (docs/func.md, differences)",
}


# Rows that do not match torch's vmap yet (listed in docs/func.md): none left.
NOT_YET: set = set()

# Rows whose torch.func.vmap gives other values or gradients than torch's own op run once per sample (torch bugs,
# shown by test_torch_vmap_bugs below): there dyngrad's vmap is checked against torch's op run once per sample
# (values and gradients through that loop), which is what vmap means (docs/func.md, differences).
TORCH_VMAP_BUGS = {
    "select_scatter": "torch's rule scatters src expanded over the whole dim, so src's gradient through the vmap is "
                      "multiplied by that dim's size",
    "linalg.lu_solve": "with left=False and B broadcast over a batch dim of its own, torch's rule pairs the samples' "
                       "LU and B wrongly",
    "grid_sample_2d": "with the input and the grid batched at different dims, torch's rule reads one's batch dim as "
                      "the other's N (values and result layout)",
    "grid_sample_3d": "as grid_sample_2d",
    "var_mean": "with dim=() torch's own backward reads () as 'no dim' (for unbiased=True its gradient is inf, for "
                "False twice the derivative) while its vmap gives the derivative of the variance over all dims",
    "solve_ex": "torch's rule takes B for a batch of vectors when its physical rank is A's logical rank - 1 (B of "
                "shape (1, 1) against A of (1, 1, 1, 1) gives one dim less than the op)",
}

ROWS = [op for op in OPS if "float64" in op.dtypes and not op.complex_out and op.name not in SKIP
        and op.name not in NOT_YET]

FALLBACKS: set = set()  # ops that ran once per sample (test_ops_without_batching_rule checks the list)
BACKWARD_FALLBACKS: dict = {}  # {op or NumPy function that ran once per sample in a backward formula: rows}


def _flat(x):
    if isinstance(x, (tuple, list)):
        out = []
        for y in x:
            out.extend(_flat(y))
        return out
    return [x]


def _batched_arrays(op, arrays, dims, rng):
    out = []
    for a, d in zip(arrays, dims):
        if d is None:
            out.append(a)
            continue
        samples = [_make_array(rng, a.shape, a.dtype, op, False, False) for _ in range(BATCH)]
        out.append(np.stack(samples, axis=d))
    return out


def _draw(op, data):
    shapes = data.draw(op.shapes, label="shapes")
    params = op.params(data, shapes) if op.params else {}
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    rng = np.random.default_rng(seed)
    arrays = [_make_array(rng, s, "float64", op, False, False) for s in shapes]
    dims = []
    for a in arrays:
        choices = [0, None] + ([1] if a.ndim >= 1 else [])
        dims.append(data.draw(st.sampled_from(choices), label="in_dim"))
    if all(d is None for d in dims):
        dims[0] = 0
    return arrays, params, dims, rng


def _vmap_limitation(error) -> bool:
    """torch's vmap refusing an op (no batching rule, values that decide shapes, .item() inside the op),
    as opposed to the op raising on its arguments."""
    text = str(error)
    return any(s in text for s in ("vmap", "Batching rule", "batching rule", "BatchedTensor", "batched tensor",
                                   "doesn't have storage", "functorch", "Batched"))


def _same_as_torch_per_sample(t_fn, t_in, dims, d_error):
    """dyngrad's error under vmap is the one torch's op raises on a sample (where torch's vmap differs)."""
    args = [x if d is None else x.select(d, 0) for x, d in zip(t_in, dims)]
    with pytest.raises(type(d_error)) as info:
        t_fn(*args)
    assert str(info.value) == str(d_error)


def _torch_per_sample(t_fn, t_in, dims):
    """torch's op run once per sample and stacked (flat outputs): the reference for TORCH_VMAP_BUGS."""
    outs = [_flat(t_fn(*[x if d is None else x.select(d, i) for x, d in zip(t_in, dims)])) for i in range(BATCH)]
    return [torch.stack([o[j] for o in outs]) for j in range(len(outs[0]))]


def _per_sample(fn, inputs, dims):
    """dyngrad run once per sample, stacked: the reference where torch's vmap has no rule."""
    outs = []
    for i in range(BATCH):
        args = [x if d is None else x.select(d, i) for x, d in zip(inputs, dims)]
        outs.append(fn(*args))
    flat = [_flat(o) for o in outs]
    return [dyngrad.stack([f[j] for f in flat]) for j in range(len(flat[0]))]


def _check_per_sample_grads(fn, arrays, dims, d_grads, cts, which):
    """The gradients through dyngrad's vmap equal those through dyngrad run once per sample."""
    leaves = [dyngrad.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    outs = _per_sample(fn, leaves, dims)
    outs = [outs[i] for i in which]
    ref = dyngrad.autograd.grad(outs, leaves, [dyngrad.from_numpy(c) for c in cts], allow_unused=True)
    for i, (g, r) in enumerate(zip(d_grads, ref)):
        if r is None:
            assert g is None or not np.any(g.numpy()), f"grad {i}"
        else:
            np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-9, atol=1e-10, err_msg=f"grad {i} vs per-sample")


def _compare(d_flat, t_flat, what):
    assert len(d_flat) == len(t_flat), what
    for i, (d, t) in enumerate(zip(d_flat, t_flat)):
        if isinstance(t, torch.Tensor):
            assert_same_tensor(d, t, what=f"{what} {i}")
        else:
            assert d == t, f"{what} {i}"


@pytest.fixture(autouse=True)
def _backward_fallbacks(request):
    """Records the ops and NumPy functions that ran once per sample in the backward formulas of the sweep: their
    performance warnings (the sweep's forward runs with warnings ignored, so what is recorded comes after it)."""
    if request.node.originalname != "test_op_under_vmap":
        yield
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    row = request.node.callspec.params["op"].name
    for w in caught:
        text = str(w.message)
        if "performance drop" in text:
            name = text.split("batching rule for aten::", 1)[1].split(". Please", 1)[0]
            BACKWARD_FALLBACKS.setdefault(name, set()).add(row)


@pytest.mark.parametrize("op", ROWS, ids=[op.name for op in ROWS])
@SETTINGS
@given(data=st.data())
def test_op_under_vmap(op, data) -> None:
    arrays, params, dims, rng = _draw(op, data)
    arrays = _batched_arrays(op, arrays, dims, rng)
    grad_ok = op.differentiable
    t_in = [torch.from_numpy(a.copy()).requires_grad_(grad_ok) for a in arrays]
    d_in = [dyngrad.from_numpy(a.copy()).requires_grad_(grad_ok) for a in arrays]

    def t_fn(*xs):
        return op.fn(torch, *xs, **params)

    def d_fn(*xs):
        return op.fn(dyngrad, *xs, **params)

    t_error = d_error = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if op.name in TORCH_VMAP_BUGS:
                t_out = _torch_per_sample(t_fn, t_in, dims)
            else:
                t_out = torch.func.vmap(t_fn, in_dims=tuple(dims))(*t_in)
    except Exception as e:  # noqa: BLE001 - compared with dyngrad's below
        t_out, t_error = None, e
    log = batching_array.FALLBACK_LOG = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d_out = dyngrad.func.vmap(d_fn, in_dims=tuple(dims))(*d_in)
    except Exception as e:  # noqa: BLE001
        d_error = e
    finally:
        batching_array.FALLBACK_LOG = None
    FALLBACKS.update(log)
    if t_error is not None and not _vmap_limitation(t_error):
        # an error of the op itself (bad arguments, singular input): dyngrad raises the same, unless the op is
        # valid for every sample (torch's batching rule then refuses what its per-sample op takes)
        if d_error is None:
            ref = _per_sample(d_fn, d_in, dims)  # raises if some sample is invalid
            for i, (d, r) in enumerate(zip(_flat(d_out), ref)):
                np.testing.assert_allclose(d.detach().numpy(), r.detach().numpy(), rtol=1e-9, atol=1e-10,
                                           err_msg=f"output {i} vs per-sample (torch: {t_error})")
            return
        if type(d_error) is not type(t_error):  # torch's batching rule raises another error than its op does
            _same_as_torch_per_sample(t_fn, t_in, dims, d_error)
        return
    if d_error is not None:
        if t_error is not None and type(d_error) is type(t_error) and _vmap_limitation(d_error):
            # both refuse (random ops under randomness="error", dynamic shapes); the exact texts of the common
            # refusals are checked by tests/test_func.py
            return
        if t_error is None:  # torch's batching rule takes what its op refuses: dyngrad follows the op
            _same_as_torch_per_sample(t_fn, t_in, dims, d_error)
            return
        raise d_error
    d_flat = _flat(d_out)
    if t_out is None:
        ref = _per_sample(d_fn, d_in, dims)
        for i, (d, r) in enumerate(zip(d_flat, ref)):
            np.testing.assert_allclose(d.detach().numpy(), r.detach().numpy(), rtol=1e-9, atol=1e-10,
                                       err_msg=f"output {i} vs per-sample")
        return
    t_flat = _flat(t_out)
    _compare(d_flat, t_flat, "output")

    # gradients through the vmap, with random cotangents
    pairs = [(d, t) for d, t in zip(d_flat, t_flat)
             if isinstance(t, torch.Tensor) and t.requires_grad and t.dtype.is_floating_point]
    if not (grad_ok and pairs):
        return
    cts = [rng.standard_normal(tuple(t.shape)) for _, t in pairs]
    try:
        t_grads = torch.autograd.grad([t for _, t in pairs], t_in, [torch.from_numpy(c) for c in cts],
                                      allow_unused=True)
    except RuntimeError:
        # torch's physical graph refuses (an in-place op inside the vmap changed a value its backward saves):
        # dyngrad refuses too, or its gradients are the per-sample ones
        try:
            d_grads = dyngrad.autograd.grad([d for d, _ in pairs], d_in, [dyngrad.from_numpy(c) for c in cts],
                                            allow_unused=True)
        except RuntimeError:
            return
        _check_per_sample_grads(d_fn, arrays, dims, d_grads, cts, [i for i, t in enumerate(t_flat) if any(
            t is tt for _, tt in pairs)])
        return
    d_grads = dyngrad.autograd.grad([d for d, _ in pairs], d_in, [dyngrad.from_numpy(c) for c in cts],
                                    allow_unused=True)
    for i, (dg, tg) in enumerate(zip(d_grads, t_grads)):
        if tg is None:
            assert dg is None or not np.any(dg.numpy()), f"grad {i}: torch None"
            continue
        assert dg is not None, f"grad {i}: dyngrad None"
        assert_same_tensor(dg, tg, what=f"grad {i}")


def _torch_disagrees_with_itself(fn, inputs, dims) -> bool:
    ins = [torch.from_numpy(a).requires_grad_(True) for a in inputs]
    out = torch.func.vmap(fn, in_dims=dims)(*ins)
    ref = _torch_per_sample(fn, ins, dims)[0]
    if out.shape != ref.shape:
        return True
    ct = torch.from_numpy(np.random.default_rng(1).standard_normal(tuple(out.shape)))
    grads = torch.autograd.grad(out, ins, ct)
    ref_grads = torch.autograd.grad(ref, ins, ct)
    return not (torch.allclose(out, ref) and all(torch.allclose(g, r) for g, r in zip(grads, ref_grads)))


def test_torch_vmap_bugs() -> None:
    """Each entry of TORCH_VMAP_BUGS is a case where torch's vmap disagrees with torch's op run per sample (should
    torch fix one, its rows go back to being compared with torch.func.vmap)."""
    rng = np.random.default_rng(0)
    cases = {
        "select_scatter": (lambda x, s: torch.select_scatter(x, s, 1, -1), [(3, 2, 5, 2), (3, 2, 2)], (0, 0)),
        "linalg.lu_solve": (lambda lu, piv, b: torch.linalg.lu_solve(lu, piv, b, left=False), None, (0, 0, 0)),
        "solve_ex": (lambda a, b: torch.linalg.solve_ex(a + 3, b).result, [(3, 1, 1, 1, 1), (3, 1, 1)], (0, 0)),
        "var_mean": (lambda x: torch.var_mean(x, (), False, False)[0], [(3, 2)], (0,)),
        "grid_sample_2d": (lambda x, g: torch.nn.functional.grid_sample(x, g, align_corners=True),
                           [(3, 1, 1, 1, 1), (1, 3, 1, 1, 2)], (0, 1)),
        "grid_sample_3d": (lambda x, g: torch.nn.functional.grid_sample(x, g, align_corners=True),
                           [(2, 3, 2, 2, 1, 1), (3, 2, 2, 2, 1, 3)], (1, 0)),
    }
    assert set(cases) == set(TORCH_VMAP_BUGS)
    for name, (fn, shapes, dims) in cases.items():
        if shapes is None:  # lu_solve: LU factors of well-conditioned matrices, B with a batch dim of its own
            lu, piv = torch.linalg.lu_factor(torch.from_numpy(rng.standard_normal((3, 2, 2)) + 3 * np.eye(2)))
            b = torch.from_numpy(rng.standard_normal((3, 1, 1, 2))).requires_grad_(True)
            out = torch.func.vmap(fn, in_dims=dims)(lu, piv, b)
            ref = _torch_per_sample(fn, [lu, piv, b], dims)[0]
            assert not torch.allclose(out, ref), name
            continue
        assert _torch_disagrees_with_itself(fn, [rng.standard_normal(s) for s in shapes], dims), name


# Ops whose kernels still run once per sample under vmap in this sweep (docs/func.md lists them, with the reason).
# An op whose first sample raises its own error is no fallback (the loop warns only once every sample ran).
WITHOUT_RULE = {
    "bincount": "the output's size depends on the values (torch's vmap loops too)",
    "linalg_solve_ex": "only for singular matrices: LAPACK's error codes matrix by matrix",
    "linalg_cholesky_ex": "only for matrices that are not positive-definite: the partial factor matrix by matrix",
    # ops torch's vmap has no rule for: it runs them once per sample with this warning, and so does dyngrad's
    # (test_torch_loops_too)
    "fill.Scalar": "torch's vmap loops too", "fill.Tensor": "torch's vmap loops too",
    "embedding_bag.padding_idx": "torch's vmap loops too",
}


def _fallback_warnings(lib, fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = lib.func.vmap(fn)(*args)
    return out, [str(w.message) for w in caught if "performance drop" in str(w.message)]


def _loop_case(lib, case, mode, x, v, w):
    """(function, args) of a test_torch_loops_too case for ``lib``."""
    idx, offsets = lib.tensor([0, 2, 1, 5, 3, 4]), lib.tensor([0, 2, 4])
    if case == "fill.Scalar":
        return (lambda a: lib.fill(a, 1.5)), (lib.from_numpy(x),)
    if case == "fill.Tensor":
        return (lambda a, b: lib.fill(a, b)), (lib.from_numpy(x), lib.from_numpy(v))
    return (lambda weight: lib.nn.functional.embedding_bag(idx, weight, offsets, mode=mode)), (lib.from_numpy(w),)


@pytest.mark.parametrize("case", ["fill.Scalar", "fill.Tensor", "embedding_bag.padding_idx"])
def test_torch_loops_too(case) -> None:
    """The ops dyngrad's vmap runs once per sample because torch's does: the same values and the same warning."""
    rng = np.random.default_rng(0)
    x, v, w = rng.standard_normal((3, 4, 2)), rng.standard_normal(3), rng.standard_normal((3, 6, 2))
    for mode in ("mean", "sum", "max") if case.startswith("embedding") else (None,):
        results = []
        for lib in (torch, dyngrad):
            fn, args = _loop_case(lib, case, mode, x, v, w)
            results.append(_fallback_warnings(lib, fn, *args))
        (t_out, t_warn), (d_out, d_warn) = results
        assert_same_tensor(d_out, t_out)
        assert d_warn == t_warn and len(t_warn) == 1 and f"aten::{case}." in t_warn[0]


def test_ops_without_batching_rule() -> None:
    """Every op that fell back to a loop above is one of the documented ones (run after the sweep)."""
    unexpected = sorted(FALLBACKS - set(WITHOUT_RULE))
    assert not unexpected, f"ops without a batching rule: {unexpected} (add a rule, or document them)"


# NumPy functions and ops that still run once per sample inside backward formulas under vmap in this sweep
# (docs/func.md): the goal is none.
BACKWARD_WITHOUT_RULE = {
    "embedding_bag.padding_idx_backward": "torch's vmap loops embedding_bag's forward too",
    "segment_reduce_backward": "_segment_reduce's backward",
}


def test_backward_formulas_batch() -> None:
    """No backward formula of the sweep above looped over the samples (run after the sweep)."""
    unexpected = {k: sorted(v) for k, v in sorted(BACKWARD_FALLBACKS.items()) if k not in BACKWARD_WITHOUT_RULE}
    assert not unexpected, f"backward formulas that looped: {unexpected} (add a rule, or document them)"


@pytest.mark.parametrize("in_dim", [0, 1])
@pytest.mark.parametrize("case", ["own_offset", "before_sample", "past_sample", "view"])
def test_as_strided_under_vmap(case, in_dim) -> None:
    """as_strided under vmap reads each sample's storage as torch's batching rule does (offsets relative to the
    storage shifted by the sample's batch stride), and refuses views that leave the sample with torch's error."""
    fns = {
        "own_offset": lambda x: x.as_strided((3, 3), (1, 1), 5),
        "before_sample": lambda x: x.contiguous()[1:].as_strided((3, 3), (1, 1), 0),
        "past_sample": lambda x: x.as_strided((5, 3), (3, 1), 0),
        "view": lambda x: x.t().as_strided((2, 2), (1, 3), 1),
    }
    x = np.moveaxis(np.random.default_rng(0).standard_normal((3, 4, 3)), 0, in_dim)
    results = []
    for lib in (torch, dyngrad):
        xs = lib.from_numpy(x).requires_grad_(True)
        try:
            out = lib.func.vmap(fns[case], in_dims=in_dim)(xs)
        except RuntimeError as e:
            results.append(str(e))
            continue
        ct = lib.from_numpy(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)))
        results.append((out, lib.autograd.grad(out, xs, ct)[0]))
    t, d = results
    if isinstance(t, str):
        assert d == t
        return
    assert_same_tensor(d[0], t[0])
    assert_same_tensor(d[1], t[1], what="grad")
