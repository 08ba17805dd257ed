"""kl_divergence against torch: every pair of torch's table (the same pairs registered, the same values and
gradients w.r.t. both distributions' parameters, float64), the Bregman-divergence fallback for exponential
families, infinite divergences where supports differ, the NotImplementedError of pairs without a closed
form, and register_kl's dispatch (most specific match, the ambiguity warning)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import dyngrad
from conftest import to_numpy, torch


def a(*v):
    return np.array(v, dtype=np.float64)


def _spd(lib, x):
    return x @ x.mT + lib.eye(x.shape[-1], dtype=x.dtype)


# type name -> (params for p, params for q, make(lib, *params)); batch shape (2,) throughout
FACTORIES = {
    "Bernoulli": ([a(0.2, 0.7)], [a(0.5, 0.4)], lambda lib, p: lib.distributions.Bernoulli(p)),
    "Beta": ([a(0.5, 2.0), a(1.5, 0.7)], [a(2.5, 1.0), a(0.5, 3.0)], lambda lib, c1, c0: lib.distributions.Beta(c1, c0)),
    "Binomial": ([a(0.2, 0.7)], [a(0.5, 0.4)], lambda lib, p: lib.distributions.Binomial(5, p)),
    "Categorical": ([np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])], [np.array([[0.4, 0.4, 0.2], [0.1, 0.1, 0.8]])],
                    lambda lib, p: lib.distributions.Categorical(p)),
    "Cauchy": ([a(0.5, -1.0), a(1.5, 0.3)], [a(-0.5, 1.0), a(0.5, 2.0)], lambda lib, m, s: lib.distributions.Cauchy(m, s)),
    "ContinuousBernoulli": ([a(0.2, 0.7)], [a(0.4, 0.9)], lambda lib, p: lib.distributions.ContinuousBernoulli(p)),
    "Dirichlet": ([np.array([[0.5, 2.0, 1.5], [3.0, 0.7, 1.2]])], [np.array([[1.5, 1.0, 0.5], [2.0, 2.0, 0.2]])],
                  lambda lib, c: lib.distributions.Dirichlet(c)),
    "Exponential": ([a(0.5, 2.0)], [a(1.5, 0.3)], lambda lib, r: lib.distributions.Exponential(r)),
    "Gamma": ([a(0.5, 2.0), a(1.5, 0.7)], [a(2.5, 1.0), a(0.5, 3.0)], lambda lib, c, r: lib.distributions.Gamma(c, r)),
    "Geometric": ([a(0.2, 0.7)], [a(0.5, 0.4)], lambda lib, p: lib.distributions.Geometric(p)),
    "Gumbel": ([a(0.5, -1.0), a(1.5, 0.3)], [a(-0.5, 1.0), a(0.5, 2.0)], lambda lib, m, s: lib.distributions.Gumbel(m, s)),
    "HalfNormal": ([a(1.5, 0.3)], [a(0.5, 2.0)], lambda lib, s: lib.distributions.HalfNormal(s)),
    "Independent": ([np.array([[0.5, -1.0], [2.0, 0.0]]), a(1.5, 0.3)], [np.array([[0.0, 1.0], [1.0, 0.5]]), a(0.5, 2.0)],
                    lambda lib, m, s: lib.distributions.Independent(lib.distributions.Normal(m, s), 1)),
    "Laplace": ([a(0.5, -1.0), a(1.5, 0.3)], [a(-0.5, 1.0), a(0.5, 2.0)],
                lambda lib, m, s: lib.distributions.Laplace(m, s)),
    "LowRankMultivariateNormal": (
        [np.array([[0.5, -1.0, 2.0], [0.0, 1.0, 0.5]]), np.array([[0.3, -0.2], [0.5, 0.1], [-0.3, 0.2]]),
         a(0.5, 1.5, 0.8)],
        [a(0.0, 1.0, 1.0), np.array([[0.1, 0.4], [-0.2, 0.3], [0.6, 0.0]]), a(1.5, 0.5, 1.2)],
        lambda lib, m, w, d: lib.distributions.LowRankMultivariateNormal(m, w, d)),
    "MultivariateNormal": (
        [np.array([[0.5, -1.0, 2.0], [0.0, 1.0, 0.5]]), np.array([[0.3, -0.2, 0.1], [0.5, 0.1, -0.4], [-0.3, 0.2, 0.2]])],
        [a(0.0, 1.0, 1.0), np.array([[0.1, 0.4, 0.0], [-0.2, 0.3, 0.3], [0.6, 0.0, -0.1]])],
        lambda lib, m, x: lib.distributions.MultivariateNormal(m, covariance_matrix=_spd(lib, x))),
    "Normal": ([a(0.5, -1.0), a(1.5, 0.3)], [a(-0.5, 1.0), a(0.5, 2.0)], lambda lib, m, s: lib.distributions.Normal(m, s)),
    "OneHotCategorical": ([np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])], [np.array([[0.4, 0.4, 0.2], [0.1, 0.1, 0.8]])],
                          lambda lib, p: lib.distributions.OneHotCategorical(p)),
    "Pareto": ([a(1.5, 0.3), a(2.5, 3.0)], [a(1.0, 0.5), a(1.5, 0.7)], lambda lib, s, al: lib.distributions.Pareto(s, al)),
    "Poisson": ([a(0.5, 2.0)], [a(1.5, 0.3)], lambda lib, r: lib.distributions.Poisson(r)),
    "TransformedDistribution": ([a(0.5, -1.0), a(1.5, 0.3)], [a(-0.5, 1.0), a(0.5, 2.0)],
                                lambda lib, m, s: lib.distributions.LogNormal(m, s)),
    "Uniform": ([a(0.1, -1.0), a(0.6, 0.5)], [a(0.0, -2.0), a(0.9, 1.0)],
                lambda lib, lo, hi: lib.distributions.Uniform(lo, hi)),
    "Wishart": ([a(4.0, 5.5), np.array([[0.3, -0.2], [0.5, 0.1]])], [a(3.0, 6.0), np.array([[0.1, 0.4], [-0.2, 0.3]])],
                lambda lib, df, x: lib.distributions.Wishart(df, covariance_matrix=_spd(lib, x))),
}


def _build(lib, name: str, side: int):
    params = [lib.tensor(p, requires_grad=True) for p in FACTORIES[name][side]]
    return FACTORIES[name][2](lib, *params), params


def _pair_names():
    return sorted((p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY)


def test_the_table_is_torchs() -> None:
    mine = sorted((p.__name__, q.__name__) for p, q in dyngrad.distributions.kl._KL_REGISTRY)
    assert mine == _pair_names()


def _kl_case(p_name, q_name):
    p_name = "Wishart" if p_name == "ExponentialFamily" else p_name
    q_name = "Wishart" if q_name == "ExponentialFamily" else q_name
    return p_name, q_name


def _compare(p_name, q_name):
    dp, dpp = _build(dyngrad, p_name, 0)
    dq, dqp = _build(dyngrad, q_name, 1)
    tp, tpp = _build(torch, p_name, 0)
    tq, tqp = _build(torch, q_name, 1)
    try:
        t_kl = torch.distributions.kl_divergence(tp, tq)
    except Exception as e:  # noqa: BLE001 - torch's error is the expectation
        with pytest.raises(type(e)) as info:
            dyngrad.distributions.kl_divergence(dp, dq)
        assert str(info.value) == str(e)
        return
    d_kl = dyngrad.distributions.kl_divergence(dp, dq)
    assert tuple(d_kl.shape) == tuple(t_kl.shape)
    np.testing.assert_allclose(to_numpy(d_kl), to_numpy(t_kl), rtol=1e-9, atol=1e-10)
    assert d_kl.requires_grad == t_kl.requires_grad
    if not t_kl.requires_grad or not np.isfinite(to_numpy(t_kl)).all():
        return
    t_grads = torch.autograd.grad(t_kl.sum(), tpp + tqp, allow_unused=True)
    d_grads = dyngrad.autograd.grad(d_kl.sum(), dpp + dqp, allow_unused=True)
    for i, (g, h) in enumerate(zip(d_grads, t_grads)):
        if h is None:
            assert g is None or not np.any(to_numpy(g)), f"grad {i}"
        else:
            np.testing.assert_allclose(to_numpy(g), to_numpy(h), rtol=1e-8, atol=1e-10, err_msg=f"grad {i}")


@pytest.mark.parametrize("pair", _pair_names(), ids=lambda pq: f"{pq[0]}-{pq[1]}")
def test_kl_pair_matches_torch(pair) -> None:
    _compare(*_kl_case(*pair))


@pytest.mark.parametrize("pair", [("Normal", "Normal"), ("Uniform", "Uniform"), ("Pareto", "Pareto"),
                                  ("Beta", "Uniform"), ("Uniform", "Beta"), ("Binomial", "Binomial")])
def test_kl_with_self_and_reversed(pair) -> None:
    """KL(p || p) and KL(q || p): zeros and infinities of the supports' order, as torch's."""
    _compare(pair[1], pair[0])
    _compare(pair[0], pair[0])


@pytest.mark.parametrize("pair", [("Poisson", "Gamma"), ("Normal", "Cauchy"), ("Cauchy", "Normal"),
                                  ("Wishart", "Normal"), ("Categorical", "Normal"), ("Beta", "Dirichlet")])
def test_pairs_without_closed_form_raise_as_torch(pair) -> None:
    _compare(*pair)


def test_register_kl_dispatch_and_ambiguity() -> None:
    """The most specific registration wins; equally specific ones warn with torch's text."""
    messages = []
    for lib in (dyngrad, torch):
        D = lib.distributions

        class MyNormal(D.Normal):
            pass

        class MyLaplace(D.Laplace):
            pass

        @D.register_kl(MyNormal, D.Normal)
        def _first(p, q, lib=lib):
            return lib.tensor(1.0)

        @D.register_kl(D.Normal, MyNormal)
        def _second(p, q, lib=lib):
            return lib.tensor(2.0)

        p, q = MyNormal(0.0, 1.0), MyNormal(0.0, 2.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = D.kl_divergence(p, q)
        assert float(value) == 1.0
        messages.append([(w.category, str(w.message)) for w in caught])
        assert float(D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0))) == 1.0
        assert float(D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 1.0))) == 2.0

        @D.register_kl(MyLaplace, MyLaplace)
        def _third(p, q, lib=lib):
            return lib.tensor(3.0)

        assert float(D.kl_divergence(MyLaplace(0.0, 1.0), MyLaplace(0.0, 1.0))) == 3.0
        assert float(D.kl_divergence(MyLaplace(0.0, 1.0), D.Laplace(0.0, 1.0))) == 0.0
        for key in [(MyNormal, D.Normal), (D.Normal, MyNormal), (MyLaplace, MyLaplace)]:
            del D.kl._KL_REGISTRY[key]
        D.kl._KL_MEMOIZE.clear()
    assert messages[0] == messages[1] and messages[0]


def test_kl_docstring_lists_the_table() -> None:
    doc = dyngrad.distributions.kl_divergence.__doc__
    tail = torch.distributions.kl_divergence.__doc__
    start = tail.index("KL divergence is currently implemented")
    assert doc.endswith(tail[start:])
    assert re.search(r":class:`~torch.distributions.Normal` and :class:`~torch.distributions.Gumbel`", doc)
