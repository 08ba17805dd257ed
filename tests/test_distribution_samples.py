"""Draws of dyngrad.distributions against torch's.

dyngrad's random stream is not torch's (Note [Random streams] in src/dyngrad/_backend.py), so draws are
compared two ways:

- **Replayed noise.** Every distribution draws through a few primitives (``Tensor.normal_``, ``rand``,
  ``_standard_gamma``, ``multinomial``, ...). The test records what dyngrad's primitives return during
  ``rsample``/``sample`` and makes torch's primitives return the same values, in the same order; the draws
  must then be equal, and so must the gradients of rsample with respect to the parameters. Replayed gamma
  draws carry torch's own gradient formula (derivatives.yaml: ``grad * _standard_gamma_grad(alpha, x)``) and
  Dirichlet draws go through torch's own ``_Dirichlet`` backward, so the implicit reparameterisation
  gradients of Gamma, Chi2, Beta, Dirichlet, StudentT, FisherSnedecor, InverseGamma and Wishart are checked
  against torch's on the same base noise.
- **Statistics.** With fixed seeds, 4000 draws of each library are compared by two-sample
  Kolmogorov-Smirnov tests on every event coordinate and on their sum, at a family-wise level of 1e-3
  (Bonferroni over the coordinates of a case).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dyngrad
from conftest import to_numpy, torch
from distribution_cases import CASES

BY_NAME = {c.name: c for c in CASES}

_FILLS = ("normal_", "uniform_", "exponential_", "cauchy_")
_FUNCTIONS = ("rand", "randn", "normal", "bernoulli", "binomial", "poisson", "multinomial", "_standard_gamma",
              "_sample_dirichlet")


class _Tape:
    """What dyngrad's primitives returned, in call order (outermost calls only)."""

    def __init__(self) -> None:
        self.values: list = []
        self.depth = 0

    def wrap(self, fn):
        def recorded(*args, **kwargs):
            self.depth += 1
            try:
                out = fn(*args, **kwargs)
            finally:
                self.depth -= 1
            if self.depth == 0:
                self.values.append(to_numpy(out).copy())
            return out

        return recorded

    def pop(self, shape):
        value = self.values.pop(0)
        assert tuple(value.shape) == tuple(shape), f"replayed {value.shape} for {tuple(shape)}"
        return value


class _ReplayedGamma(torch.autograd.Function):
    """A given Gamma(alpha, 1) draw with torch's derivative of one (derivatives.yaml, _standard_gamma)."""

    @staticmethod
    def forward(ctx, alpha, draw):
        ctx.save_for_backward(alpha, draw)
        return draw.clone()

    @staticmethod
    def backward(ctx, grad):
        alpha, draw = ctx.saved_tensors
        return grad * torch._standard_gamma_grad(alpha, draw), None


def _install(monkeypatch, tape: _Tape) -> None:
    for name in _FILLS:
        monkeypatch.setattr(dyngrad.Tensor, name, tape.wrap(getattr(dyngrad.Tensor, name)))
    for name in _FUNCTIONS:
        monkeypatch.setattr(dyngrad, name, tape.wrap(getattr(dyngrad, name)))

    def fill(self, *args, **kwargs):
        with torch.no_grad():
            self.copy_(torch.from_numpy(tape.pop(self.shape)))
        return self

    for name in _FILLS:
        monkeypatch.setattr(torch.Tensor, name, fill)

    def _shape(args, kwargs):
        size = args[0] if len(args) == 1 and not isinstance(args[0], int) else args
        return tuple(kwargs.get("size", size))

    def creator(*args, dtype=None, **kwargs):
        value = torch.from_numpy(tape.values.pop(0))
        assert tuple(value.shape) == _shape(args, kwargs)
        return value.to(dtype) if dtype is not None else value

    monkeypatch.setattr(torch, "rand", creator)
    monkeypatch.setattr(torch, "randn", creator)

    def like_first(first, *args, **kwargs):
        shape = first.shape if isinstance(first, torch.Tensor) else torch.broadcast_shapes(
            *[a.shape for a in args if isinstance(a, torch.Tensor)])
        return torch.from_numpy(tape.pop(shape))

    def multinomial(probs, n, replacement=False, **kwargs):
        return torch.from_numpy(tape.values.pop(0))

    for name in ("normal", "bernoulli", "poisson", "_sample_dirichlet"):
        monkeypatch.setattr(torch, name, like_first)
    monkeypatch.setattr(torch, "binomial", lambda count, prob, **k: torch.from_numpy(
        tape.pop(torch.broadcast_shapes(count.shape, prob.shape))))
    monkeypatch.setattr(torch, "multinomial", multinomial)
    monkeypatch.setattr(torch, "_standard_gamma", lambda alpha, **k: _ReplayedGamma.apply(
        alpha, torch.from_numpy(tape.pop(alpha.shape)).to(alpha.dtype)))


def _params(lib, case):
    return [lib.tensor(p, requires_grad=True) for p in case.params]


@pytest.mark.parametrize("method", ["rsample", "sample"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_draws_on_replayed_noise_match_torch(case, method, monkeypatch) -> None:
    dyngrad.manual_seed(0)
    tape = _Tape()
    _install(monkeypatch, tape)
    dp, tp = _params(dyngrad, case), _params(torch, case)
    d, t = case.make(dyngrad, *dp), case.make(torch, *tp)
    if method == "rsample" and not t.has_rsample:
        assert not d.has_rsample
        return
    if case.name.startswith("Wishart") and method == "rsample":
        # torch's Wishart.rsample redraws every valid draw once through a boolean mask that it then changes in
        # place: with a sample shape its backward raises ("modified by an inplace operation"), without one
        # the gradient reaches the discarded first draw. Its reparameterised part, the Bartlett draw, is
        # compared here; dyngrad's rsample returns the redraw with that draw's gradient.
        method = "_bartlett_sampling"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (Wishart warns on every draw, in both)
        dx = getattr(d, method)((5,))
        tx = getattr(t, method)((5,))
    assert not tape.values, f"{len(tape.values)} recorded draws left over: the two libraries drew differently"
    rtol, atol = case.tol
    np.testing.assert_allclose(to_numpy(dx), to_numpy(tx), rtol=max(rtol, 1e-9), atol=max(atol, 1e-10))
    assert str(dx.dtype) == str(tx.dtype)
    assert dx.requires_grad == tx.requires_grad
    if not tx.requires_grad:
        return
    w = np.random.default_rng(2).standard_normal(tuple(tx.shape))
    tg = torch.autograd.grad(tx, tp, torch.tensor(w), allow_unused=True)
    dg = dyngrad.autograd.grad(dx, dp, dyngrad.tensor(w), allow_unused=True)
    for i, (g, h) in enumerate(zip(dg, tg)):
        if h is None:
            assert g is None or not np.any(to_numpy(g)), f"grad {i}"
        else:
            np.testing.assert_allclose(to_numpy(g), to_numpy(h), rtol=max(rtol, 1e-8), atol=max(atol, 1e-10),
                                       err_msg=f"grad {i}")


# ---------------------------------------------------------------------- statistics
N = 4000


def _ks_statistic(x: np.ndarray, y: np.ndarray) -> float:
    """sup |F_x - F_y| of the two empirical CDFs."""
    both = np.sort(np.concatenate([x, y]))
    fx = np.searchsorted(np.sort(x), both, side="right") / x.size
    fy = np.searchsorted(np.sort(y), both, side="right") / y.size
    return float(np.abs(fx - fy).max())


def _columns(draws: np.ndarray) -> list:
    """Every coordinate of the (batch, event) dims, and the sum over them, as 1-D samples."""
    flat = draws.reshape(draws.shape[0], -1)
    return [flat[:, j] for j in range(flat.shape[1])] + [flat.sum(axis=1)]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_sample_statistics_match_torch(case) -> None:
    torch.manual_seed(0)
    dyngrad.manual_seed(0)
    d = case.make(dyngrad, *[dyngrad.tensor(p) for p in case.params])
    t = case.make(torch, *[torch.tensor(p) for p in case.params])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dx = to_numpy(d.sample((N,))).astype(np.float64)
        tx = to_numpy(t.sample((N,))).astype(np.float64)
    columns_d, columns_t = _columns(dx), _columns(tx)
    level = 1e-3 / len(columns_d)
    critical = math.sqrt(-math.log(level / 2) / 2) * math.sqrt(2 / N)  # the asymptotic KS quantile
    for j, (a, b) in enumerate(zip(columns_d, columns_t)):
        if np.all(a == a[0]) and np.all(b == b[0]):
            assert a[0] == b[0], f"column {j}: constant {a[0]} vs {b[0]}"
            continue
        stat = _ks_statistic(a, b)
        assert stat < critical, f"column {j}: KS statistic {stat:.4f} >= {critical:.4f}"
