"""dyngrad.distributions against torch.distributions in float64, case by case (tests/distribution_cases.py):
construction (shapes, repr, support and constraints), every method's values and gradients with respect to
the parameters (log_prob, cdf, icdf, entropy, mean, mode, variance, stddev, perplexity, enumerate_support),
their errors (type and text), expand, and the shapes and dtypes of sample and rsample.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import dyngrad
from conftest import to_numpy, torch
from distribution_cases import CASES, Case

IDS = [c.name for c in CASES]
BY_NAME = {c.name: c for c in CASES}


def _params(lib, case: Case):
    return [lib.tensor(p, dtype=lib.float64, requires_grad=True) for p in case.params]


def _build(lib, case: Case):
    params = _params(lib, case)
    return case.make(lib, *params), params


def _same_text(d_text: str, t_text: str) -> None:
    """Error texts agree, up to the package name in class reprs (<class 'torch.distributions.x.X'>)."""
    assert re.sub(r"dyngrad\.", "torch.", d_text) == t_text


def _run_both(fn_d, fn_t):
    """Both calls' results, or both raise the same exception type and text (then (None, None))."""
    try:
        rt = fn_t()
    except Exception as e:  # noqa: BLE001 - torch's error is the expectation
        with pytest.raises(type(e)) as info:
            fn_d()
        _same_text(str(info.value), str(e))
        return None, None
    return fn_d(), rt


def _assert_close(d, t, case: Case, what: str) -> None:
    assert isinstance(d, dyngrad.Tensor), f"{what}: {type(d)}"
    assert tuple(d.shape) == tuple(t.shape), f"{what}: shape {tuple(d.shape)} vs torch {tuple(t.shape)}"
    assert str(d.dtype) == str(t.dtype), f"{what}: dtype {d.dtype} vs {t.dtype}"
    rtol, atol = case.tol
    dn, tn = to_numpy(d), to_numpy(t)
    if dn.dtype.kind in "fc":
        np.testing.assert_allclose(dn, tn, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(dn, tn, err_msg=what)


def _compare_grads(d_out, t_out, d_params, t_params, case: Case, what: str) -> None:
    """Gradients of <out, w> w.r.t. the parameters, w a fixed random weighting."""
    assert d_out.requires_grad == t_out.requires_grad, f"{what}: requires_grad"
    if not t_out.requires_grad:
        return
    w = np.random.default_rng(0).standard_normal(tuple(t_out.shape))
    dg, tg = _run_both(lambda: dyngrad.autograd.grad(d_out, d_params, dyngrad.tensor(w), allow_unused=True),
                       lambda: torch.autograd.grad(t_out, t_params, torch.tensor(w), allow_unused=True))
    if tg is None:  # both raised the same error (no derivative formula)
        return
    for i, (a, b) in enumerate(zip(dg, tg)):
        if b is None:
            assert a is None or not np.any(to_numpy(a)), f"{what}: grad {i}, torch None"
        else:
            assert a is not None, f"{what}: grad {i} is None, torch {b}"
            _assert_close(a, b, case, f"{what}: grad {i}")


# ---------------------------------------------------------------------- construction
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_construction_matches_torch(case: Case) -> None:
    d, _ = _build(dyngrad, case)
    t, _ = _build(torch, case)
    assert tuple(d.batch_shape) == tuple(t.batch_shape)
    assert tuple(d.event_shape) == tuple(t.event_shape)
    assert type(d).__name__ == type(t).__name__
    assert repr(d) == repr(t)
    assert d.has_rsample == t.has_rsample
    assert d.has_enumerate_support == t.has_enumerate_support
    assert list(d.arg_constraints) == list(t.arg_constraints)
    for (k, cd), ct in zip(d.arg_constraints.items(), t.arg_constraints.values()):
        assert type(cd).__name__ == type(ct).__name__, k
    sd, st = _run_both(lambda: repr(d.support), lambda: repr(t.support))
    assert sd == st
    if st is not None:
        assert d.support.is_discrete == t.support.is_discrete
        assert d.support.event_dim == t.support.event_dim


# ---------------------------------------------------------------------- methods, values and gradients
_METHODS = {
    "log_prob": lambda lib, dist, case: dist.log_prob(lib.tensor(case.value)),
    "cdf": lambda lib, dist, case: dist.cdf(lib.tensor(case.value)),
    "icdf": lambda lib, dist, case: dist.icdf(lib.tensor(case.prob)),
    "entropy": lambda lib, dist, case: dist.entropy(),
    "perplexity": lambda lib, dist, case: dist.perplexity(),
    "mean": lambda lib, dist, case: dist.mean,
    "mode": lambda lib, dist, case: dist.mode,
    "variance": lambda lib, dist, case: dist.variance,
    "stddev": lambda lib, dist, case: dist.stddev,
    "enumerate_support": lambda lib, dist, case: dist.enumerate_support(),
    "enumerate_support_unexpanded": lambda lib, dist, case: dist.enumerate_support(expand=False),
}
_PAIRS = [(c, m) for c in CASES for m in _METHODS if m != "icdf" or c.prob is not None]


@pytest.mark.parametrize("case,method", _PAIRS, ids=[f"{c.name}-{m}" for c, m in _PAIRS])
def test_method_matches_torch(case: Case, method: str) -> None:
    d, d_params = _build(dyngrad, case)
    t, t_params = _build(torch, case)
    fn = _METHODS[method]
    d_out, t_out = _run_both(lambda: fn(dyngrad, d, case), lambda: fn(torch, t, case))
    if t_out is None:
        return
    _assert_close(d_out, t_out, case, method)
    _compare_grads(d_out, t_out, d_params, t_params, case, method)


# ---------------------------------------------------------------------- expand, sample and rsample shapes
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_expand_matches_torch(case: Case) -> None:
    d, _ = _build(dyngrad, case)
    t, _ = _build(torch, case)
    shape = (2,) + tuple(t.batch_shape)
    de, te = _run_both(lambda: d.expand(shape), lambda: t.expand(shape))
    if te is None:
        return
    assert type(de).__name__ == type(te).__name__
    assert tuple(de.batch_shape) == tuple(te.batch_shape) and tuple(de.event_shape) == tuple(te.event_shape)
    assert de._validate_args == te._validate_args
    assert repr(de) == repr(te)
    value = case.value
    lp_d, lp_t = _run_both(lambda: de.log_prob(dyngrad.tensor(value)), lambda: te.log_prob(torch.tensor(value)))
    if lp_t is not None:
        _assert_close(lp_d, lp_t, case, "expanded log_prob")
    md, mt = _run_both(lambda: de.mean, lambda: te.mean)
    if mt is not None:
        _assert_close(md, mt, case, "expanded mean")


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("sample_shape", [(), (4,), (2, 3)], ids=["scalar", "n", "nm"])
def test_sample_shapes_match_torch(case: Case, sample_shape) -> None:
    d, _ = _build(dyngrad, case)
    t, _ = _build(torch, case)
    for method in ("sample", "rsample"):
        sd, st = _run_both(lambda m=method: getattr(d, m)(sample_shape), lambda m=method: getattr(t, m)(sample_shape))
        if st is None:
            continue
        assert tuple(sd.shape) == tuple(st.shape), method
        assert str(sd.dtype) == str(st.dtype), method
        assert sd.requires_grad == st.requires_grad, method
        assert (sd.grad_fn is None) == (st.grad_fn is None), method
        if st.grad_fn is not None and not (case.name.startswith("Wishart") and sample_shape == ()):
            # (Wishart's redraw assigns through a 0-d boolean mask: torch records CopySlices for that
            # assignment, dyngrad's indexing IndexPutBackward0; the gradients agree, tests/test_distribution_samples.py)
            assert type(sd.grad_fn).__name__ == type(st.grad_fn).__name__, method
        assert bool(d.support.check(sd).all()), f"{method} outside the support"


@pytest.mark.parametrize("case,method", _PAIRS, ids=[f"{c.name}-{m}" for c, m in _PAIRS])
def test_method_matches_torch_float32(case: Case, method: str) -> None:
    """The same in float32 (parameters and values): dtypes, and values to float32 precision."""
    f32 = Case(case.name, case.make, [p.astype(np.float32) for p in case.params],
               None if case.value is None else np.asarray(case.value, dtype=np.float32),
               None if case.prob is None else np.asarray(case.prob, dtype=np.float32), tol=(1e-4, 1e-5))
    d, _ = _build(dyngrad, f32)
    t, _ = _build(torch, f32)
    fn = _METHODS[method]
    d_out, t_out = _run_both(lambda: fn(dyngrad, d, f32), lambda: fn(torch, t, f32))
    if t_out is not None:
        _assert_close(d_out, t_out, f32, method)


# ---------------------------------------------------------------------- utils
def test_utils_match_torch() -> None:
    """torch.distributions.utils: broadcast_all's dtypes, the probs/logits maps, the triangle packing."""
    u_d, u_t = dyngrad.distributions.utils, torch.distributions.utils
    for args in [(1.0, 2), (dyngrad.tensor([1.0, 2.0], dtype=dyngrad.float64), 3.0), (True, 0.5)]:
        t_args = [torch.tensor(a.numpy()) if isinstance(a, dyngrad.Tensor) else a for a in args]
        for a, b in zip(u_d.broadcast_all(*args), u_t.broadcast_all(*t_args)):
            _assert_close(a, b, CASES[0], "broadcast_all")
    x = np.array([[0.2, -1.0, 3.0], [0.5, 0.5, -0.2]])
    p = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    for binary in (False, True):
        _assert_close(u_d.logits_to_probs(dyngrad.tensor(x), binary), u_t.logits_to_probs(torch.tensor(x), binary),
                      CASES[0], "logits_to_probs")
        _assert_close(u_d.probs_to_logits(dyngrad.tensor(p), binary), u_t.probs_to_logits(torch.tensor(p), binary),
                      CASES[0], "probs_to_logits")
    _assert_close(u_d.clamp_probs(dyngrad.tensor(p)), u_t.clamp_probs(torch.tensor(p)), CASES[0], "clamp_probs")
    m = np.arange(32.0).reshape(2, 4, 4)
    for diag in (-2, -1, 0, 1):
        vd = u_d.tril_matrix_to_vec(dyngrad.tensor(m), diag)
        vt = u_t.tril_matrix_to_vec(torch.tensor(m), diag)
        _assert_close(vd, vt, CASES[0], f"tril_matrix_to_vec {diag}")
        _assert_close(u_d.vec_to_tril_matrix(vd, diag), u_t.vec_to_tril_matrix(vt, diag), CASES[0],
                      f"vec_to_tril_matrix {diag}")
    for program in (lambda u, lib: u.tril_matrix_to_vec(lib.ones(3, 3), 3),
                    lambda u, lib: u.vec_to_tril_matrix(lib.ones(4)),
                    lambda u, lib: u.broadcast_all([1.0])):
        d, t = _run_both(lambda f=program: f(u_d, dyngrad), lambda f=program: f(u_t, torch))
        if t is not None:  # (torch's size check lets a 4-vector through: it rounds the side down)
            _assert_close(d, t, CASES[0], "no error")
