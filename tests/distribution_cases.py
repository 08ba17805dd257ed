"""The distributions under test: one case per distribution (and per parameterisation), run the same way on
torch and dyngrad by tests/test_distributions.py and its companions.

A case builds the distribution from float64 parameter tensors (``make(lib, *params)``: the same code on
both libraries), names values inside its support (``value``, batched against the distribution's batch
shape) and, for distributions with an icdf, probabilities (``prob``). Parameters are chosen away from the
edges where the formulas switch branches, with both branches present where a distribution has them
(ContinuousBernoulli's Taylor region, StudentT's df <= 1 / <= 2 / > 2 moments).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Case:
    """One distribution under test.

    Attributes:
        name: the test id.
        make: ``make(lib, *params)`` -> a distribution of ``lib.distributions``.
        params: float64 arrays, passed as tensors that require grad.
        value: a value (or a batch of values) in the support, for log_prob and cdf.
        prob: probabilities for icdf (None: icdf is not compared).
        tol: (rtol, atol) for values and gradients where a formula amplifies rounding (say why).
    """

    name: str
    make: object
    params: list
    value: object = None
    prob: object = None
    tol: tuple = (1e-9, 1e-10)


def a(*values):
    return np.array(values, dtype=np.float64)


P = a(0.2, 0.5, 0.9)  # probabilities for icdf, batch of 3
P2 = np.array([[0.2, 0.5, 0.9], [0.7, 0.05, 0.4]])


def _tril(lib, x):
    """A lower Cholesky factor from a square matrix: its strict lower triangle and exp of its diagonal."""
    return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()


def _spd(lib, x):
    n = x.shape[-1]
    return x @ x.mT + lib.eye(n, dtype=x.dtype)


_M = np.array([[0.3, -0.2, 0.1], [0.5, 0.1, -0.4], [-0.3, 0.2, 0.2]])
_M2 = np.array([[[0.3, -0.2], [0.5, 0.1]], [[-0.1, 0.4], [0.2, -0.3]]])

CASES = [
    # ---- continuous, location-scale
    Case("Normal", lambda lib, m, s: lib.distributions.Normal(m, s), [a(0.5, -1.0, 2.0), a(1.5, 0.7, 2.0)],
         value=a(0.3, -2.0, 4.0), prob=P),
    Case("Normal_broadcast", lambda lib, m, s: lib.distributions.Normal(m, s), [a(0.5, -1.0, 2.0), a(1.3)],
         value=np.array([[0.3, -2.0, 4.0], [1.0, 0.0, -1.0]]), prob=P2),
    Case("Uniform", lambda lib, lo, hi: lib.distributions.Uniform(lo, hi), [a(-1.0, 0.0, 2.0), a(1.5, 0.5, 5.0)],
         value=a(0.3, 0.2, 4.0), prob=P),
    Case("Cauchy", lambda lib, m, s: lib.distributions.Cauchy(m, s), [a(0.5, -1.0), a(1.5, 0.3)], value=a(2.0, -1.2),
         prob=a(0.3, 0.8)),
    Case("Laplace", lambda lib, m, s: lib.distributions.Laplace(m, s), [a(0.5, -1.0), a(1.5, 0.3)], value=a(2.0, -1.2),
         prob=a(0.3, 0.8)),
    Case("Gumbel", lambda lib, m, s: lib.distributions.Gumbel(m, s), [a(0.5, -1.0), a(1.5, 0.3)], value=a(2.0, -1.2),
         prob=a(0.3, 0.8)),
    Case("StudentT", lambda lib, df, m, s: lib.distributions.StudentT(df, m, s),
         [a(0.7, 1.5, 3.0, 8.0), a(0.5, -1.0, 0.0, 2.0), a(1.5, 0.3, 1.0, 2.5)], value=a(2.0, -1.2, 0.3, 1.0)),
    # ---- continuous, positive
    Case("Exponential", lambda lib, r: lib.distributions.Exponential(r), [a(0.5, 2.0, 3.5)], value=a(0.3, 1.0, 4.0),
         prob=P),
    Case("Gamma", lambda lib, c, r: lib.distributions.Gamma(c, r), [a(0.5, 2.0, 9.0), a(1.5, 0.7, 2.0)],
         value=a(0.3, 2.0, 4.0)),
    Case("Chi2", lambda lib, df: lib.distributions.Chi2(df), [a(0.7, 3.0, 12.0)], value=a(0.3, 2.0, 10.0)),
    Case("InverseGamma", lambda lib, c, r: lib.distributions.InverseGamma(c, r), [a(0.5, 1.5, 3.0), a(1.5, 0.7, 2.0)],
         value=a(0.3, 2.0, 4.0)),
    Case("LogNormal", lambda lib, m, s: lib.distributions.LogNormal(m, s), [a(0.5, -1.0), a(1.5, 0.3)],
         value=a(2.0, 0.4), prob=a(0.3, 0.8)),
    Case("HalfNormal", lambda lib, s: lib.distributions.HalfNormal(s), [a(1.5, 0.3)], value=a(2.0, 0.4),
         prob=a(0.3, 0.8)),
    Case("HalfCauchy", lambda lib, s: lib.distributions.HalfCauchy(s), [a(1.5, 0.3)], value=a(2.0, 0.4),
         prob=a(0.3, 0.8)),
    Case("Pareto", lambda lib, sc, al: lib.distributions.Pareto(sc, al), [a(1.5, 0.3, 2.0), a(0.7, 1.5, 3.0)],
         value=a(2.0, 0.4, 2.5), prob=P),
    Case("Weibull", lambda lib, sc, k: lib.distributions.Weibull(sc, k), [a(1.5, 0.3), a(0.7, 2.5)], value=a(2.0, 0.4),
         prob=a(0.3, 0.8)),
    Case("FisherSnedecor", lambda lib, d1, d2: lib.distributions.FisherSnedecor(d1, d2),
         [a(1.5, 3.0, 6.0), a(1.5, 4.5, 9.0)], value=a(0.5, 1.0, 2.5)),
    Case("GeneralizedPareto", lambda lib, m, s, c: lib.distributions.GeneralizedPareto(m, s, c),
         [a(0.5, -1.0, 0.0), a(1.5, 0.3, 1.0), a(0.3, -0.2, 0.6)], value=a(1.0, -0.5, 0.4), prob=P),
    # torch's GeneralizedPareto.log_prob compares float64 parameters with a float32 zero (isclose raises
    # "Double did not match Float", as dyngrad does): the float32 case compares its values
    Case("GeneralizedPareto_float32", lambda lib, m, s, c: lib.distributions.GeneralizedPareto(m.float(), s.float(),
                                                                                             c.float()),
         [a(0.5, -1.0, 0.0), a(1.5, 0.3, 1.0), a(0.3, -0.2, 0.6)], value=np.float32([1.0, -0.5, 0.4]), prob=P,
         tol=(2e-6, 1e-6)),
    # ---- continuous on [0, 1] and the simplex
    Case("Beta", lambda lib, c1, c0: lib.distributions.Beta(c1, c0), [a(0.5, 2.0, 7.0), a(1.5, 0.7, 9.0)],
         value=a(0.3, 0.8, 0.45)),
    Case("Kumaraswamy", lambda lib, c1, c0: lib.distributions.Kumaraswamy(c1, c0),
         [a(0.5, 2.0, 1.5), a(1.5, 0.7, 3.0)], value=a(0.3, 0.8, 0.45), prob=P),
    Case("ContinuousBernoulli", lambda lib, p: lib.distributions.ContinuousBernoulli(p),
         [a(0.2, 0.4995, 0.8)], value=a(0.3, 0.8, 0.45), prob=P),
    Case("ContinuousBernoulli_logits", lambda lib, lg: lib.distributions.ContinuousBernoulli(logits=lg),
         [a(-1.2, 0.001, 2.0)], value=a(0.3, 0.8, 0.45), prob=P),
    Case("Dirichlet", lambda lib, c: lib.distributions.Dirichlet(c), [np.array([[0.5, 2.0, 1.5], [3.0, 0.7, 1.2]])],
         value=np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])),
    Case("LogisticNormal", lambda lib, m, s: lib.distributions.LogisticNormal(m, s), [a(0.5, -1.0), a(1.5, 0.3)],
         value=a(0.2, 0.5, 0.3)),
    Case("RelaxedBernoulli", lambda lib, t, p: lib.distributions.RelaxedBernoulli(t, probs=p),
         [a(0.7), a(0.2, 0.6)], value=a(0.3, 0.8)),
    Case("RelaxedOneHotCategorical", lambda lib, t, lg: lib.distributions.RelaxedOneHotCategorical(t, logits=lg),
         [a(0.7), a(0.2, -0.6, 1.0)], value=a(0.2, 0.5, 0.3)),
    Case("VonMises", lambda lib, m, k: lib.distributions.VonMises(m, k), [a(0.5, -1.0, 2.0), a(0.5, 2.0, 8.0)],
         value=a(0.3, -2.0, 1.5)),
    # ---- discrete
    Case("Bernoulli", lambda lib, p: lib.distributions.Bernoulli(p), [a(0.2, 0.5, 0.9)], value=a(0.0, 1.0, 1.0)),
    Case("Bernoulli_logits", lambda lib, lg: lib.distributions.Bernoulli(logits=lg), [a(-1.2, 0.0, 2.0)],
         value=a(0.0, 1.0, 1.0)),
    Case("Binomial", lambda lib, p: lib.distributions.Binomial(10, p), [a(0.2, 0.5, 0.9)], value=a(0.0, 4.0, 10.0)),
    Case("Binomial_counts", lambda lib, p: lib.distributions.Binomial(lib.tensor([5.0, 10.0, 7.0],
                                                                                 dtype=lib.float64), logits=p),
         [a(-1.2, 0.0, 2.0)], value=a(2.0, 4.0, 7.0)),
    Case("Categorical", lambda lib, p: lib.distributions.Categorical(p),
         [np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])], value=a(2.0, 0.0)),
    Case("Categorical_logits", lambda lib, lg: lib.distributions.Categorical(logits=lg),
         [np.array([[0.2, -0.5, 1.3], [0.6, 0.1, -2.0]])], value=np.array([[2.0, 0.0], [1.0, 1.0]])),
    Case("OneHotCategorical", lambda lib, p: lib.distributions.OneHotCategorical(p),
         [np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])], value=np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])),
    Case("OneHotCategoricalStraightThrough", lambda lib, lg: lib.distributions.OneHotCategoricalStraightThrough(
        logits=lg), [a(0.2, -0.5, 1.3)], value=a(0.0, 1.0, 0.0)),
    Case("Geometric", lambda lib, p: lib.distributions.Geometric(p), [a(0.2, 0.5, 0.9)], value=a(0.0, 3.0, 1.0)),
    Case("Geometric_logits", lambda lib, lg: lib.distributions.Geometric(logits=lg), [a(-1.2, 0.0, 2.0)],
         value=a(0.0, 3.0, 1.0)),
    Case("NegativeBinomial", lambda lib, n, p: lib.distributions.NegativeBinomial(n, p), [a(2.0, 5.5, 1.0),
                                                                                          a(0.2, 0.5, 0.9)],
         value=a(0.0, 3.0, 7.0)),
    Case("Poisson", lambda lib, r: lib.distributions.Poisson(r), [a(0.5, 2.0, 7.5)], value=a(0.0, 3.0, 7.0)),
    Case("Multinomial", lambda lib, p: lib.distributions.Multinomial(6, p), [np.array([[0.2, 0.5, 0.3],
                                                                                       [0.6, 0.1, 0.3]])],
         value=np.array([[1.0, 3.0, 2.0], [0.0, 6.0, 0.0]])),
    # ---- multivariate normal family, matrices
    Case("MultivariateNormal_cov", lambda lib, m, x: lib.distributions.MultivariateNormal(
        m, covariance_matrix=_spd(lib, x)), [a(0.5, -1.0, 2.0), _M], value=np.array([[0.3, -2.0, 4.0],
                                                                                     [1.0, 0.0, -1.0]])),
    Case("MultivariateNormal_tril", lambda lib, m, x: lib.distributions.MultivariateNormal(m, scale_tril=_tril(lib, x)),
         [np.array([[0.5, -1.0], [0.0, 1.0]]), _M2], value=a(0.3, -2.0)),
    Case("MultivariateNormal_precision", lambda lib, m, x: lib.distributions.MultivariateNormal(
        m, precision_matrix=_spd(lib, x)), [a(0.5, -1.0, 2.0), _M], value=a(0.3, -2.0, 4.0)),
    Case("LowRankMultivariateNormal", lambda lib, m, w, d: lib.distributions.LowRankMultivariateNormal(m, w, d),
         [a(0.5, -1.0, 2.0), np.array([[0.3, -0.2], [0.5, 0.1], [-0.3, 0.2]]), a(0.5, 1.5, 0.8)],
         value=np.array([[0.3, -2.0, 4.0], [1.0, 0.0, -1.0]])),
    Case("Wishart", lambda lib, df, x: lib.distributions.Wishart(df, covariance_matrix=_spd(lib, x)),
         [a(5.0), _M], value=np.array([[2.0, 0.3, -0.2], [0.3, 1.5, 0.1], [-0.2, 0.1, 1.0]])),
    Case("Wishart_tril", lambda lib, df, x: lib.distributions.Wishart(df, scale_tril=_tril(lib, x)),
         [a(4.5, 6.0), _M2], value=np.array([[1.0, 0.3], [0.3, 2.0]])),
    Case("LKJCholesky", lambda lib, c: lib.distributions.LKJCholesky(3, c), [a(0.5, 2.0)],
         value=np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]])),
    # ---- wrappers
    Case("Independent", lambda lib, m, s: lib.distributions.Independent(lib.distributions.Normal(m, s), 1),
         [np.array([[0.5, -1.0], [2.0, 0.0]]), a(1.5, 0.7)], value=a(0.3, -2.0)),
    Case("MixtureSameFamily", lambda lib, w, m, s: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(logits=w), lib.distributions.Normal(m, s)),
         [a(0.2, -0.5, 1.3), a(-1.0, 0.5, 2.0), a(0.5, 1.0, 0.7)], value=a(0.3, -2.0, 1.0)),
    Case("MixtureSameFamily_mvn", lambda lib, w, m, s: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(logits=w), lib.distributions.Independent(lib.distributions.Normal(m, s), 1)),
         [a(0.2, -0.5), np.array([[-1.0, 0.5], [2.0, 0.0]]), np.array([[0.5, 1.0], [0.7, 1.2]])],
         value=np.array([[0.3, -2.0], [1.0, 1.0]])),
    Case("TransformedDistribution", lambda lib, m, s: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(m, s), [lib.distributions.transforms.ExpTransform(),
                                         lib.distributions.transforms.AffineTransform(1.0, 2.0)]),
         [a(0.5, -1.0), a(1.5, 0.3)], value=a(2.0, 1.4), prob=a(0.3, 0.8)),
]
