"""The Wishart distribution over positive definite p x p matrices (torch.distributions.Wishart), with
``df`` degrees of freedom and a scale matrix given as covariance, precision or lower Cholesky factor L.

log density -df (p log 2 / 2 + sum log diag L) - mvlgamma(df / 2, p) + (df - p - 1) / 2 log det X
- tr(S^-1 X) / 2 with S = L L^T; mean df S; variance df (S_ij^2 + S_ii S_jj); mode (df - p - 1) S (nan for
df <= p + 1); entropy (p + 1)(p log 2 / 2 + sum log diag L) + mvlgamma(df/2, p) - (df - p - 1)/2
mvdigamma(df/2, p) + df p / 2. Reparameterised by the Bartlett decomposition: L A A^T L^T with A lower
triangular, A_ii = sqrt(Chi2(df - i)), A_ij ~ N(0, 1) below the diagonal (singular draws redrawn).
"""

from __future__ import annotations

import math
import warnings

import dyngrad

from .._tensor import Size
from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import _is_number, lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p: int):
    """The multivariate digamma sum_{i<p} digamma(x - i/2) (the derivative of mvlgamma)."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    shifts = dyngrad.arange(p, dtype=x.dtype).div(2).expand(x.shape + (-1,))
    return dyngrad.digamma(x.unsqueeze(-1) - shifts).sum(-1)


def _clamp_above_eps(x):
    return x.clamp(min=dyngrad.finfo(x.dtype).eps)


class Wishart(ExponentialFamily):
    """Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None): exactly one matrix
    (..., p, p); df > p - 1 (ValueError otherwise; a UserWarning when df < p, where draws are often
    singular)."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite, "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if _is_number(df):
            batch_shape = Size(param.shape[:-2])
            self.df = dyngrad.tensor(df, dtype=param.dtype)
        else:
            batch_shape = dyngrad.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if self.df.le(p - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        if scale_tril is not None:
            self.scale_tril = param.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(batch_shape + (-1, -1))
        else:
            self.precision_matrix = param.expand(batch_shape + (-1, -1))
        if self.df.lt(p).any():
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.",
                          stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = dyngrad.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._bartlett_chi2(self.df, batch_shape)

    def _bartlett_chi2(self, df, batch_shape):
        """Chi2(df - i) for i = 0..p-1: the squared diagonal of the Bartlett factor."""
        p = self._event_shape[-1]
        steps = dyngrad.arange(p, dtype=self._unbroadcasted_scale_tril.dtype).expand(batch_shape + (-1,))
        return Chi2(df=df.unsqueeze(-1) - steps)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        new._event_shape = self.event_shape  # (read by _bartlett_chi2 before the base init below)
        new._dist_chi2 = new._bartlett_chi2(new.df, batch_shape)
        return self._finish_expand(new, batch_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        factor = self._unbroadcasted_scale_tril
        return (factor @ factor.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        eye = dyngrad.eye(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return dyngrad.cholesky_solve(eye, self._unbroadcasted_scale_tril).expand(self._batch_shape + self._event_shape)

    @property
    def mean(self):
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        v = self.covariance_matrix
        diag = v.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (v.pow(2) + dyngrad.einsum("...i,...j->...ij", diag, diag))

    def _bartlett_sampling(self, sample_shape=()):
        p = self._event_shape[-1]
        noise = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt()).diag_embed(dim1=-2, dim2=-1)
        i, j = dyngrad.tril_indices(p, p, offset=-1)
        noise[..., i, j] = dyngrad.randn(Size(sample_shape) + self._batch_shape + (int(p * (p - 1) / 2),),
                                         dtype=noise.dtype)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Bartlett draws; draws that fail the positive-definiteness check are redrawn up to
        ``max_try_correction`` (10) times, with a UserWarning."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        # (torch's check marks valid draws here: its "singular" flags are True for positive definite ones)
        is_singular = self.support.check(sample)
        if self._batch_shape:
            is_singular = is_singular.amax(self._batch_dims)
        if is_singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                fresh = self._bartlett_sampling(is_singular[is_singular].shape)
                sample[is_singular] = fresh
                still = ~self.support.check(fresh)
                if self._batch_shape:
                    still = still.amax(self._batch_dims)
                is_singular[is_singular.clone()] = still
                if not is_singular.any():
                    break
        return sample

    def _log_scale_det(self):
        """p log 2 / 2 + sum log diag L."""
        p = self._event_shape[-1]
        return p * _LOG_2 / 2 + self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        trace = dyngrad.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * self._log_scale_det() - dyngrad.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * dyngrad.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        return ((p + 1) * self._log_scale_det() + dyngrad.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-dyngrad.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p)
                + dyngrad.mvlgamma(y + (p + 1) / 2, p=p))
