"""Maximum-likelihood fits that need special functions: counts, angles and binary outcomes.

Ordinary PyTorch code using ``torch.lgamma``, ``torch.special`` and ``torch.i0``:

- a negative-binomial regression of overdispersed counts, whose log-likelihood needs
  ``lgamma`` (and whose gradient in the dispersion is therefore ``digamma``), fitted by L-BFGS;
- a von Mises distribution of wind directions, whose normaliser is ``log(2 pi I0(kappa))``;
- a probit model of binary outcomes through ``special.log_ndtr``.

Data come from NumPy's seeded generator. Run it with ``python examples/likelihoods.py``;
replacing the import line with ``import torch`` gives the same printed numbers
(tests/test_science_examples.py checks that).
"""

from __future__ import annotations

import math

import numpy as np

import dyngrad as torch


def negative_binomial(seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, size=400)
    mean = np.exp(1.0 + 0.8 * x)
    counts = rng.negative_binomial(n=3.0, p=3.0 / (3.0 + mean))  # dispersion r = 3
    x, y = torch.tensor(x), torch.tensor(counts, dtype=torch.float64)

    params = torch.zeros(3, dtype=torch.float64, requires_grad=True)  # intercept, slope, log r
    opt = torch.optim.LBFGS([params], lr=1, max_iter=100, line_search_fn="strong_wolfe")

    def nll():
        opt.zero_grad()
        b0, b1, log_r = params
        mu, r = torch.exp(b0 + b1 * x), torch.exp(log_r)
        ll = (torch.lgamma(y + r) - torch.lgamma(r) - torch.lgamma(y + 1)
              + r * torch.log(r / (r + mu)) + y * torch.log(mu / (r + mu)))
        loss = -ll.mean()
        loss.backward()
        return loss

    opt.step(nll)
    loss = nll()  # at the optimum (step returns the loss it started from)
    b0, b1, log_r = params.detach()
    print(f"negative binomial: nll {loss.item():.6f}  intercept {b0.item():.4f}  slope {b1.item():.4f}  "
          f"dispersion {log_r.exp().item():.4f}")
    # the dispersion's gradient goes through lgamma's derivative, digamma: check one value by hand
    r = log_r.exp()
    print("digamma at the fitted dispersion:", torch.special.digamma(r))


def von_mises(seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    angles = torch.tensor(rng.vonmises(mu=0.7, kappa=2.5, size=500))
    loc = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    log_kappa = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([loc, log_kappa], lr=0.05)
    for _ in range(300):
        kappa = log_kappa.exp()
        nll = -(kappa * torch.cos(angles - loc)).mean() + torch.log(2 * math.pi * torch.i0(kappa))
        opt.zero_grad()
        nll.backward()
        opt.step()
    print(f"von Mises: nll {nll.item():.6f}  location {loc.item():.4f}  concentration {log_kappa.exp().item():.4f}")
    print("scaled Bessel I0e at the fit:", torch.special.i0e(log_kappa.detach().exp()))


def probit(seed: int = 2) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((300, 2))
    z = x @ np.array([1.2, -0.5]) + 0.3
    y = (z + rng.standard_normal(300) > 0).astype(np.float64)
    x, y = torch.tensor(x), torch.tensor(y)
    w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w], lr=1, max_iter=50, line_search_fn="strong_wolfe")

    def nll():
        opt.zero_grad()
        eta = x @ w[:2] + w[2]
        loss = -(y * torch.special.log_ndtr(eta) + (1 - y) * torch.special.log_ndtr(-eta)).mean()
        loss.backward()
        return loss

    opt.step(nll)
    loss = nll()
    print(f"probit: nll {loss.item():.6f}  weights {w.detach()}")
    print("fitted probabilities of the first rows:", torch.special.ndtr(x[:3] @ w.detach()[:2] + w.detach()[2]))


def main() -> None:
    negative_binomial()
    von_mises()
    probit()


if __name__ == "__main__":
    main()
