"""The ops behind the distributions (src/dyngrad/_ops/random_dist.py, cholesky_extras.py) against torch:
the implicit-reparameterisation kernels over all their regimes, the gradient nodes of the samplers, the
samplers' edge values and errors, and the index and shape helpers."""

from __future__ import annotations

import re

import numpy as np
import pytest

import dyngrad
from conftest import to_numpy, torch


def _same_error(program):
    with pytest.raises(Exception) as t_info:  # noqa: PT011 - torch's error is the expectation
        program(torch)
    with pytest.raises(Exception) as d_info:  # noqa: PT011 - compared by name and text
        program(dyngrad)
    assert type(d_info.value).__name__ == type(t_info.value).__name__
    assert re.sub(r"dyngrad\.", "torch.", str(d_info.value)) == str(t_info.value)


# ---------------------------------------------------------------------- the gradient kernels
def _gamma_grid():
    """alpha from 1e-3 to 50 and x from 1e-4 to 80: the small-x series (x < 0.8), Rice's expansion (alpha > 8,
    near and away from x = alpha) and the fitted rational function."""
    alpha = np.geomspace(1e-3, 50.0, 37)
    x = np.geomspace(1e-4, 80.0, 41)
    aa, xx = np.meshgrid(alpha, x)
    extra = np.array([[9.0, 9.0], [9.0, 8.5], [20.0, 19.0], [20.0, 21.5], [0.5, 0.79], [0.5, 0.8], [8.0, 8.0]])
    return np.concatenate([aa.ravel(), extra[:, 0]]), np.concatenate([xx.ravel(), extra[:, 1]])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_standard_gamma_grad_matches_torch(dtype) -> None:
    alpha, x = _gamma_grid()
    d = dyngrad._standard_gamma_grad(dyngrad.tensor(alpha.astype(dtype)), dyngrad.tensor(x.astype(dtype)))
    t = torch._standard_gamma_grad(torch.tensor(alpha.astype(dtype)), torch.tensor(x.astype(dtype)))
    assert str(d.dtype) == str(t.dtype)
    tol = dict(rtol=1e-11, atol=1e-300) if dtype == "float64" else dict(rtol=2e-6, atol=1e-37)
    np.testing.assert_allclose(to_numpy(d), to_numpy(t), equal_nan=True, **tol)


def test_standard_gamma_grad_edges_match_torch() -> None:
    alpha = np.array([0.0, -1.0, np.nan, 1.0, 2.0, 1.0, np.inf, 3.0])
    x = np.array([1.0, 1.0, 1.0, 0.0, -1.0, np.nan, 1.0, np.inf])
    d = dyngrad._standard_gamma_grad(dyngrad.tensor(alpha), dyngrad.tensor(x))
    t = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x))
    np.testing.assert_allclose(to_numpy(d), to_numpy(t), equal_nan=True)


def _dirichlet_grid():
    """x in (0, 1), alpha and total - alpha from 0.05 to 40: the series near 0 and 1, Rice's expansion for
    alpha, beta > 6 (near and away from the mean) and the fitted rational correction."""
    xs = np.concatenate([np.geomspace(1e-4, 0.5, 12), 1 - np.geomspace(1e-4, 0.5, 12)[::-1]])
    a = np.geomspace(0.05, 40.0, 11)
    b = np.geomspace(0.05, 40.0, 11)
    xx, aa, bb = np.meshgrid(xs, a, b, indexing="ij")
    return xx.ravel(), aa.ravel(), (aa + bb).ravel()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_dirichlet_grad_matches_torch(dtype) -> None:
    x, alpha, total = _dirichlet_grid()
    ext = [v.astype(dtype) for v in (x, alpha, total)]
    d = dyngrad._dirichlet_grad(*[dyngrad.tensor(v) for v in ext])
    t = torch._dirichlet_grad(*[torch.tensor(v) for v in ext])
    tol = dict(rtol=1e-9, atol=1e-13) if dtype == "float64" else dict(rtol=5e-4, atol=1e-6)
    np.testing.assert_allclose(to_numpy(d), to_numpy(t), equal_nan=True, **tol)


# ---------------------------------------------------------------------- sampler nodes
def test_standard_gamma_gradient_is_the_implicit_one() -> None:
    """The gradient of a draw is torch's _standard_gamma_grad at that draw; the node's names are torch's."""
    dyngrad.manual_seed(3)
    alpha_values = np.array([0.05, 0.5, 1.0, 3.0, 9.5, 40.0])
    alpha = dyngrad.tensor(alpha_values, requires_grad=True)
    draws = dyngrad._standard_gamma(alpha)
    assert type(draws.grad_fn).__name__ == "StandardGammaBackward0"
    w = np.linspace(0.5, 2.0, alpha_values.size)
    (grad,) = dyngrad.autograd.grad(draws, alpha, dyngrad.tensor(w), create_graph=True)
    expected = torch._standard_gamma_grad(torch.tensor(alpha_values), torch.tensor(to_numpy(draws))) * torch.tensor(w)
    np.testing.assert_allclose(to_numpy(grad), expected.numpy(), rtol=1e-12)
    t_alpha = torch.tensor(alpha_values, requires_grad=True)
    (t_grad,) = torch.autograd.grad(torch._standard_gamma(t_alpha), t_alpha, torch.tensor(w), create_graph=True)
    assert type(grad.grad_fn).__name__ == type(t_grad.grad_fn).__name__
    for lib in (torch, dyngrad):
        a = lib.tensor([1.5], requires_grad=True)
        g = lib._standard_gamma_grad(a, lib.tensor([0.5]))
        assert type(g.grad_fn).__name__ == "StandardGammaGradBackward0"

    def second_order(lib):
        a = lib.tensor([1.5, 2.5], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib._standard_gamma(a).sum(), a, create_graph=True)
        g.sum().backward()

    _same_error(second_order)


NO_DERIVATIVE = {
    "_sample_dirichlet": lambda lib, a: lib._sample_dirichlet(a),
    "binomial": lambda lib, a: lib.binomial(a * 4, a / 4),
    "_dirichlet_grad": lambda lib, a: lib._dirichlet_grad(a / 4, a, a * 2),
}


@pytest.mark.parametrize("name", sorted(NO_DERIVATIVE))
def test_samplers_without_derivative_raise_as_torch(name) -> None:
    def program(lib):
        a = lib.tensor([1.5, 2.5], requires_grad=True)
        out = NO_DERIVATIVE[name](lib, a)
        assert type(out.grad_fn).__name__ == "NotImplemented"
        out.sum().backward()

    _same_error(program)


def test_poisson_gradient_is_zero() -> None:
    for lib in (torch, dyngrad):
        r = lib.tensor([1.5, 20.0], requires_grad=True)
        y = lib.poisson(r)
        assert type(y.grad_fn).__name__ == "PoissonBackward0"
        y.sum().backward()
        assert to_numpy(r.grad).tolist() == [0.0, 0.0]


SAMPLER_ERRORS = {
    "gamma_int": lambda lib: lib._standard_gamma(lib.tensor([1, 2])),
    "dirichlet_int": lambda lib: lib._sample_dirichlet(lib.tensor([1, 2])),
    "poisson_int": lambda lib: lib.poisson(lib.tensor([1, 2])),
    "poisson_negative": lambda lib: lib.poisson(lib.tensor([-1.0, 2.0])),
    "poisson_nan": lambda lib: lib.poisson(lib.tensor([float("nan")])),
    "binomial_int": lambda lib: lib.binomial(lib.tensor([1, 2]), lib.tensor([0.5, 0.5])),
    "gamma_grad_int": lambda lib: lib._standard_gamma_grad(lib.tensor([1, 2]), lib.tensor([1, 2])),
    "cholesky_solve_vector": lambda lib: lib.cholesky_solve(lib.ones(3), lib.eye(3)),
    "cholesky_solve_square": lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.ones(3, 2)),
    "cholesky_solve_rows": lambda lib: lib.cholesky_solve(lib.ones(3, 2), lib.eye(2)),
    "cholesky_solve_dtype": lambda lib: lib.cholesky_solve(lib.ones(3, 2, dtype=lib.float64), lib.eye(3)),
    "cholesky_solve_batch": lambda lib: lib.cholesky_solve(lib.ones(3, 2, 1), lib.eye(2).expand(4, 2, 2)),
    "cholesky_solve_int": lambda lib: lib.cholesky_solve(lib.ones(2, 1, dtype=lib.long), lib.eye(2, dtype=lib.long)),
    "cholesky_inverse_vector": lambda lib: lib.cholesky_inverse(lib.ones(3)),
    "cholesky_inverse_square": lambda lib: lib.cholesky_inverse(lib.ones(3, 2)),
    "cholesky_inverse_int": lambda lib: lib.cholesky_inverse(lib.eye(3, dtype=lib.long)),
    "cholesky_inverse_singular": lambda lib: lib.cholesky_inverse(lib.eye(3) * lib.tensor([1.0, 0.0, 1.0])),
    "tril_indices_negative": lambda lib: lib.tril_indices(-1, 3),
    "tril_indices_float": lambda lib: lib.tril_indices(3, 3, dtype=lib.float32),
    "broadcast_shapes": lambda lib: lib.broadcast_shapes((2,), (3,)),
    "broadcast_shapes_later": lambda lib: lib.broadcast_shapes((2, 1), (1, 3), (4, 1, 1), (5, 1)),
    "broadcast_shapes_negative": lambda lib: lib.broadcast_shapes((2, -1)),
}


@pytest.mark.parametrize("name", sorted(SAMPLER_ERRORS))
def test_errors_match_torch(name) -> None:
    _same_error(SAMPLER_ERRORS[name])


def test_sampler_edge_values_match_torch() -> None:
    """Deterministic draws: alpha <= 0 or nan gives the smallest normal number; an infinite Poisson rate
    the int64 minimum; binomial's count <= 0, prob <= 0 and prob >= 1 cases and a nan prob."""
    for dtype in ("float64", "float32"):
        alpha = np.array([0.0, -1.0, np.nan], dtype=dtype)
        d = dyngrad._standard_gamma(dyngrad.tensor(alpha))
        t = torch._standard_gamma(torch.tensor(alpha))
        np.testing.assert_array_equal(to_numpy(d), t.numpy())
    np.testing.assert_array_equal(to_numpy(dyngrad.poisson(dyngrad.tensor([np.inf, 0.0]))),
                                  torch.poisson(torch.tensor([np.inf, 0.0])).numpy())
    count = np.array([0.0, -2.0, 5.0, 5.0, 5.0, 4.0])
    prob = np.array([0.5, 0.5, 0.0, 1.0, 1.5, np.nan])
    np.testing.assert_array_equal(to_numpy(dyngrad.binomial(dyngrad.tensor(count), dyngrad.tensor(prob))),
                                  torch.binomial(torch.tensor(count), torch.tensor(prob)).numpy())
    d = dyngrad._sample_dirichlet(dyngrad.tensor([1e-30, 1e-30], dtype=dyngrad.float64))
    assert to_numpy(d).sum() == pytest.approx(1.0)


def _ks(x, y):
    both = np.sort(np.concatenate([x, y]))
    fx = np.searchsorted(np.sort(x), both, side="right") / x.size
    fy = np.searchsorted(np.sort(y), both, side="right") / y.size
    return float(np.abs(fx - fy).max())


SAMPLERS = {
    "_standard_gamma_small": lambda lib: lib._standard_gamma(lib.full((4000,), 0.3, dtype=lib.float64)),
    "_standard_gamma": lambda lib: lib._standard_gamma(lib.full((4000,), 4.5, dtype=lib.float64)),
    "_sample_dirichlet": lambda lib: lib._sample_dirichlet(lib.tensor([[0.5, 2.0, 1.5]]).expand(4000, 3))[:, 0],
    "poisson_small": lambda lib: lib.poisson(lib.full((4000,), 3.5)),
    "poisson_large": lambda lib: lib.poisson(lib.full((4000,), 250.0)),
    "binomial_inversion": lambda lib: lib.binomial(lib.full((4000,), 12.0), lib.full((4000,), 0.3)),
    "binomial_btrs": lambda lib: lib.binomial(lib.full((4000,), 400.0), lib.full((4000,), 0.7)),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_sampler_statistics_match_torch(name) -> None:
    """Two-sample Kolmogorov-Smirnov test at level 1e-3 (fixed seeds) against torch's draws."""
    torch.manual_seed(1)
    dyngrad.manual_seed(1)
    a = to_numpy(SAMPLERS[name](dyngrad)).astype(np.float64)
    b = to_numpy(SAMPLERS[name](torch)).astype(np.float64)
    assert _ks(a, b) < 1.95 * np.sqrt(2 / 4000)


# ---------------------------------------------------------------------- helpers
@pytest.mark.parametrize("args", [(3, 3), (3, 4, 1), (4, 3, -1), (0, 3), (3, 3, 5), (3, 3, -5), (1, 1)])
@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_triangle_indices_match_torch(name, args) -> None:
    d = getattr(dyngrad, name)(*args)
    t = getattr(torch, name)(*args)
    assert str(d.dtype) == str(t.dtype)
    np.testing.assert_array_equal(to_numpy(d), t.numpy())
    d32 = getattr(dyngrad, name)(*args, dtype=dyngrad.int32)
    assert str(d32.dtype) == "torch.int32"


@pytest.mark.parametrize("shapes", [((2, 1), (3,)), (), ((),), (5, (1, 5)), ((1, 2), dyngrad.Size([3, 1])),
                                    ((0,), (1,)), ((2, 1, 4), (3, 1), (1,))])
def test_broadcast_shapes_matches_torch(shapes) -> None:
    t_shapes = [torch.Size(s) if isinstance(s, dyngrad.Size) else s for s in shapes]
    d = dyngrad.broadcast_shapes(*shapes)
    t = torch.broadcast_shapes(*t_shapes)
    assert repr(d) == repr(t)
