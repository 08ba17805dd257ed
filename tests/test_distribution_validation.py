"""Argument validation of dyngrad.distributions against torch: constructor errors for invalid parameters and
bad arguments, the support and shape checks of log_prob/cdf, ``validate_args=False`` and the global default,
and the warnings torch gives (type and text of each)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import dyngrad
from conftest import to_numpy, torch


def _same_error(program):
    """program(lib) raises the same exception type and text in both libraries (class reprs name the
    package: compared with dyngrad's name replaced by torch's); returns the message."""
    with pytest.raises(Exception) as t_info:  # noqa: PT011 - whatever torch raises is the expectation
        program(torch)
    with pytest.raises(Exception) as d_info:  # noqa: PT011 - compared by name below
        program(dyngrad)
    # by name: torch's LinAlgError is torch._C._LinAlgError, dyngrad's dyngrad._ops.linalg._LinAlgError
    assert type(d_info.value).__name__ == type(t_info.value).__name__
    assert re.sub(r"dyngrad\.", "torch.", str(d_info.value)) == str(t_info.value)
    return str(t_info.value)


def D(lib):  # noqa: N802 - the module, as programs spell it
    return lib.distributions


def t64(lib, *values):
    return lib.tensor(values, dtype=lib.float64)


INVALID = {
    # parameters outside their constraints (the message prints the distribution and the values)
    "normal_scale": lambda lib: D(lib).Normal(0.0, -1.0),
    "normal_scale_tensor": lambda lib: D(lib).Normal(t64(lib, 0.0, 1.0), t64(lib, 1.0, -1.0)),
    "normal_loc_nan": lambda lib: D(lib).Normal(t64(lib, float("nan")), 1.0),
    "uniform_order": lambda lib: D(lib).Uniform(1.0, 0.0),
    "uniform_tensor": lambda lib: D(lib).Uniform(t64(lib, 0.0, 2.0), t64(lib, 1.0, 1.0)),
    "exponential": lambda lib: D(lib).Exponential(t64(lib, -1.0, 2.0)),
    "gamma": lambda lib: D(lib).Gamma(t64(lib, -1.0), 1.0),
    "chi2": lambda lib: D(lib).Chi2(-1.0),
    "beta": lambda lib: D(lib).Beta(0.0, 1.0),
    "dirichlet": lambda lib: D(lib).Dirichlet(t64(lib, 1.0, -1.0)),
    "dirichlet_scalar": lambda lib: D(lib).Dirichlet(lib.tensor(1.0)),
    "bernoulli_probs": lambda lib: D(lib).Bernoulli(probs=1.5),
    "bernoulli_neither": lambda lib: D(lib).Bernoulli(),
    "bernoulli_both": lambda lib: D(lib).Bernoulli(probs=0.5, logits=0.0),
    "categorical_probs": lambda lib: D(lib).Categorical(probs=t64(lib, 0.5, -0.2)),
    "categorical_scalar": lambda lib: D(lib).Categorical(probs=lib.tensor(0.5)),
    "categorical_logits_scalar": lambda lib: D(lib).Categorical(logits=lib.tensor(0.5)),
    "binomial_count": lambda lib: D(lib).Binomial(2.5, t64(lib, 0.5)),
    "binomial_probs": lambda lib: D(lib).Binomial(3, t64(lib, 1.5)),
    "geometric_zero": lambda lib: D(lib).Geometric(t64(lib, 0.0, 0.5)),
    "negative_binomial": lambda lib: D(lib).NegativeBinomial(2.0, t64(lib, 1.0)),
    "poisson": lambda lib: D(lib).Poisson(-1.0),
    "multinomial_count": lambda lib: D(lib).Multinomial(lib.tensor(3), t64(lib, 0.5, 0.5)),
    "studentt": lambda lib: D(lib).StudentT(-1.0),
    "pareto": lambda lib: D(lib).Pareto(1.0, -1.0),
    "von_mises": lambda lib: D(lib).VonMises(t64(lib, 0.0), t64(lib, -1.0)),
    "lognormal": lambda lib: D(lib).LogNormal(0.0, -1.0),
    "laplace": lambda lib: D(lib).Laplace(0.0, 0.0),
    "cauchy": lambda lib: D(lib).Cauchy(0.0, -2.0),
    "weibull": lambda lib: D(lib).Weibull(-1.0, 1.0),
    "kumaraswamy": lambda lib: D(lib).Kumaraswamy(1.0, -1.0),
    "half_normal": lambda lib: D(lib).HalfNormal(-1.0),
    "continuous_bernoulli": lambda lib: D(lib).ContinuousBernoulli(probs=1.5, validate_args=True),
    "relaxed_bernoulli": lambda lib: D(lib).RelaxedBernoulli(t64(lib, 0.5), probs=t64(lib, 1.5)),
    "lkj_dim": lambda lib: D(lib).LKJCholesky(1),
    "lkj_concentration": lambda lib: D(lib).LKJCholesky(3, -1.0),
    "generalized_pareto": lambda lib: D(lib).GeneralizedPareto(0.0, -1.0, 0.1),
    # matrices
    "mvn_none": lambda lib: D(lib).MultivariateNormal(lib.zeros(2)),
    "mvn_two": lambda lib: D(lib).MultivariateNormal(lib.zeros(2), lib.eye(2), scale_tril=lib.eye(2)),
    "mvn_loc_scalar": lambda lib: D(lib).MultivariateNormal(lib.tensor(0.0), lib.eye(2)),
    "mvn_cov_vector": lambda lib: D(lib).MultivariateNormal(lib.zeros(2), lib.ones(2)),
    "mvn_tril_vector": lambda lib: D(lib).MultivariateNormal(lib.zeros(2), scale_tril=lib.ones(2)),
    "mvn_precision_vector": lambda lib: D(lib).MultivariateNormal(lib.zeros(2), precision_matrix=lib.ones(2)),
    "mvn_not_pd": lambda lib: D(lib).MultivariateNormal(lib.zeros(2), scale_tril=lib.tensor([[1.0, 1.0], [0.0, 1.0]])),
    "lowrank_loc": lambda lib: D(lib).LowRankMultivariateNormal(lib.tensor(0.0), lib.ones(2, 1), lib.ones(2)),
    "lowrank_factor": lambda lib: D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2), lib.ones(2)),
    "lowrank_factor_rows": lambda lib: D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(3, 1), lib.ones(2)),
    "lowrank_diag": lambda lib: D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.ones(3)),
    "lowrank_batch": lambda lib: D(lib).LowRankMultivariateNormal(lib.zeros(3, 2), lib.ones(4, 2, 1), lib.ones(2)),
    "lowrank_negative_diag": lambda lib: D(lib).LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), -lib.ones(2)),
    "wishart_df": lambda lib: D(lib).Wishart(1.0, lib.eye(3)),
    "wishart_none": lambda lib: D(lib).Wishart(4.0),
    "wishart_vector": lambda lib: D(lib).Wishart(4.0, lib.ones(3)),
    # wrappers
    "independent_dims": lambda lib: D(lib).Independent(D(lib).Normal(0.0, 1.0), 1),
    "mixture_not_categorical": lambda lib: D(lib).MixtureSameFamily(D(lib).Normal(0.0, 1.0), D(lib).Normal(0.0, 1.0)),
    "mixture_not_distribution": lambda lib: D(lib).MixtureSameFamily(D(lib).Categorical(lib.ones(2)), 3),
    "mixture_components": lambda lib: D(lib).MixtureSameFamily(D(lib).Categorical(lib.ones(2)),
                                                               D(lib).Normal(lib.zeros(3), 1.0)),
    "mixture_batch": lambda lib: D(lib).MixtureSameFamily(D(lib).Categorical(lib.ones(2, 3)),
                                                          D(lib).Normal(lib.zeros(4, 3), 1.0)),
    "transformed_not_transform": lambda lib: D(lib).TransformedDistribution(D(lib).Normal(0.0, 1.0), "exp"),
    "transformed_list": lambda lib: D(lib).TransformedDistribution(D(lib).Normal(0.0, 1.0), ["exp"]),
    "transformed_event_dims": lambda lib: D(lib).TransformedDistribution(
        D(lib).Normal(0.0, 1.0), D(lib).transforms.StickBreakingTransform()),
    "broadcast_all": lambda lib: D(lib).Normal("a", 1.0),
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_arguments_raise_as_torch(name) -> None:
    _same_error(INVALID[name])


SCORING = {
    "exponential_negative": lambda lib: D(lib).Exponential(2.0).log_prob(t64(lib, -1.0)),
    "bernoulli_half": lambda lib: D(lib).Bernoulli(0.5).log_prob(t64(lib, 0.5)),
    "normal_shape": lambda lib: D(lib).Normal(lib.zeros(2), 1.0).log_prob(lib.zeros(3)),
    "normal_not_tensor": lambda lib: D(lib).Normal(0.0, 1.0).log_prob(0.5),
    "dirichlet_event": lambda lib: D(lib).Dirichlet(lib.ones(3)).log_prob(t64(lib, 0.5, 0.5)),
    "dirichlet_not_simplex": lambda lib: D(lib).Dirichlet(lib.ones(2)).log_prob(lib.tensor([0.5, 0.6])),
    "categorical_range": lambda lib: D(lib).Categorical(lib.ones(3)).log_prob(lib.tensor(5.0)),
    "uniform_outside": lambda lib: D(lib).Uniform(0.0, 1.0).log_prob(lib.tensor(2.0)),
    "uniform_cdf_outside": lambda lib: D(lib).Uniform(0.0, 1.0).cdf(lib.tensor(-1.0)),
    "gamma_cdf": lambda lib: D(lib).Gamma(1.0, 1.0).cdf(lib.tensor(-1.0)),
    "binomial_above": lambda lib: D(lib).Binomial(3, lib.tensor(0.5)).log_prob(lib.tensor(4.0)),
    "poisson_fraction": lambda lib: D(lib).Poisson(2.0).log_prob(lib.tensor(1.5)),
    "one_hot": lambda lib: D(lib).OneHotCategorical(lib.ones(3)).log_prob(lib.tensor([1.0, 1.0, 0.0])),
    "mvn_event": lambda lib: D(lib).MultivariateNormal(lib.zeros(2), lib.eye(2)).log_prob(lib.zeros(3)),
    "wishart_not_pd": lambda lib: D(lib).Wishart(4.0, lib.eye(2)).log_prob(-lib.eye(2)),
    "lkj_not_cholesky": lambda lib: D(lib).LKJCholesky(2).log_prob(lib.ones(2, 2)),
    "half_normal_negative": lambda lib: D(lib).HalfNormal(1.0).log_prob(lib.tensor(-1.0)),
    "pareto_below_scale": lambda lib: D(lib).Pareto(2.0, 1.0).log_prob(lib.tensor(1.0)),
    "transformed_cdf": lambda lib: D(lib).LogNormal(0.0, 1.0).cdf(lib.tensor(-1.0)),
    "mixture": lambda lib: D(lib).MixtureSameFamily(D(lib).Categorical(lib.ones(2)),
                                                    D(lib).Exponential(lib.ones(2))).log_prob(lib.tensor(-1.0)),
    "independent": lambda lib: D(lib).Independent(D(lib).Exponential(lib.ones(2)), 1).log_prob(lib.tensor([1.0, -1.0])),
    "binomial_entropy_counts": lambda lib: D(lib).Binomial(lib.tensor([2.0, 3.0]), lib.tensor([0.5, 0.5])).entropy(),
    "independent_enumerate": lambda lib: D(lib).Independent(D(lib).Bernoulli(lib.ones(2) / 2), 1).enumerate_support(),
    "binomial_kl_counts": lambda lib: D(lib).kl_divergence(D(lib).Binomial(2, lib.tensor(0.5)),
                                                           D(lib).Binomial(3, lib.tensor(0.5))),
}


@pytest.mark.parametrize("name", sorted(SCORING))
def test_scoring_errors_match_torch(name) -> None:
    _same_error(SCORING[name])


def test_validate_args_false_skips_the_checks() -> None:
    """validate_args=False: invalid parameters and values go through (giving torch's nan/inf values)."""
    for lib_d, lib_t in ((dyngrad, torch),):
        d = D(lib_d).Normal(0.0, -1.0, validate_args=False).log_prob(lib_d.tensor(0.5))
        t = D(lib_t).Normal(0.0, -1.0, validate_args=False).log_prob(lib_t.tensor(0.5))
        np.testing.assert_allclose(to_numpy(d), to_numpy(t), equal_nan=True)
        d = D(lib_d).Exponential(2.0, validate_args=False).log_prob(lib_d.tensor(-1.0))
        t = D(lib_t).Exponential(2.0, validate_args=False).log_prob(lib_t.tensor(-1.0))
        np.testing.assert_allclose(to_numpy(d), to_numpy(t))


@pytest.mark.parametrize("lib", [dyngrad, torch], ids=["dyngrad", "torch"])
def test_default_validation_switch(lib) -> None:
    """Distribution.set_default_validate_args turns the default off (and back on); it takes only bools."""
    base = D(lib).Distribution
    assert base._validate_args is True
    try:
        base.set_default_validate_args(False)
        d = D(lib).Normal(0.0, -1.0)
        assert d._validate_args is False
    finally:
        base.set_default_validate_args(True)
    with pytest.raises(ValueError) as info:
        base.set_default_validate_args(2)
    assert str(info.value) == ""
    with pytest.raises(ValueError):
        D(lib).Normal(0.0, -1.0)


def _warning(program):
    """The (category, text) of the warnings program(lib) gives, in each library."""
    out = []
    for lib in (dyngrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            program(lib)
        out.append([(w.category, re.sub(r"dyngrad\.", "torch.", str(w.message))) for w in caught])
    return out


def _no_constraints(lib):
    cls = type("NoConstraints", (D(lib).Distribution,), {})
    return cls(lib.Size(), validate_args=True)


def _no_support(lib):
    cls = type("NoSupport", (D(lib).Distribution,), {"arg_constraints": {}})
    cls(lib.Size(), validate_args=True)._validate_sample(lib.tensor(1.0))


WARNINGS = {
    "sample_n": lambda lib: D(lib).Normal(0.0, 1.0).sample_n(3),
    "no_arg_constraints": _no_constraints,
    "no_support": _no_support,
    "wishart_low_df": lambda lib: D(lib).Wishart(2.5, lib.eye(3)),
    "wishart_rsample": lambda lib: D(lib).Wishart(4.0, lib.eye(2)).rsample(),
}


@pytest.mark.parametrize("name", sorted(WARNINGS))
def test_warnings_match_torch(name) -> None:
    d, t = _warning(WARNINGS[name])
    assert t, "torch warned"
    assert d == t


def test_expand_requires_custom_expand_for_custom_init() -> None:
    """A subclass with its own __init__ must define expand (torch's NotImplementedError text)."""

    def program(lib):
        class MyNormal(D(lib).Normal):
            def __init__(self, loc):
                super().__init__(loc, 1.0)

        return MyNormal(lib.zeros(2)).expand((3, 2))

    message = _same_error(program)
    assert "must also define a custom .expand() method" in message
