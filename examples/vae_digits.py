"""A variational autoencoder on scikit-learn's handwritten digits, with ``torch.distributions``.

What it shows: the encoder outputs a ``Normal`` posterior q(z | x) over a 2-d latent code, the decoder a
``Bernoulli`` over the 64 binarised pixels; the loss is the negative ELBO,
-E_q[log p(x | z)] + KL(q(z | x) || N(0, I)), with the KL term from ``kl_divergence`` in closed form and the
expectation estimated by one reparameterised draw z = loc + scale * eps. After training it reports the
test ELBO, an importance-weighted estimate of the test log-likelihood (``log_prob`` of the prior,
posterior and decoder), and the posterior means of a few test digits.

The data is ``sklearn.datasets.load_digits`` (1,797 8x8 images; no download), pixels thresholded at half
intensity. Weights start from NumPy's seeded generator and the noise eps comes from it too
(``q.rsample()`` would draw eps from the framework's own stream, which differs between dyngrad and
PyTorch), so this file prints the same numbers with ``import torch`` in place of the import line below
(tests/test_distribution_examples.py checks that). Computation is in float64.

Run it with ``python examples/vae_digits.py [--epochs 30]``.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import dyngrad as torch

nn = torch.nn
distributions = torch.distributions
Bernoulli, Normal, kl_divergence = distributions.Bernoulli, distributions.Normal, distributions.kl_divergence

LATENT = 2
HIDDEN = 64


def load_digits(seed: int):
    """Binarised digits as float64 tensors, split 3:1 into training and test sets by a seeded shuffle."""
    from sklearn.datasets import load_digits as sklearn_digits

    images = (sklearn_digits().data / 16.0 > 0.5).astype(np.float64)
    order = np.random.default_rng(seed).permutation(len(images))
    cut = len(images) * 3 // 4
    return torch.from_numpy(images[order[:cut]]), torch.from_numpy(images[order[cut:]])


def linear(rng, n_in: int, n_out: int) -> nn.Linear:
    """An nn.Linear with weights drawn from NumPy (uniform, +-1/sqrt(n_in) as PyTorch's default)."""
    layer = nn.Linear(n_in, n_out)
    bound = 1 / math.sqrt(n_in)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(rng.uniform(-bound, bound, (n_out, n_in))))
        layer.bias.copy_(torch.from_numpy(rng.uniform(-bound, bound, n_out)))
    return layer


class VAE(nn.Module):
    def __init__(self, rng) -> None:
        super().__init__()
        self.encoder = nn.Sequential(linear(rng, 64, HIDDEN), nn.Tanh(), linear(rng, HIDDEN, 2 * LATENT))
        self.decoder = nn.Sequential(linear(rng, LATENT, HIDDEN), nn.Tanh(), linear(rng, HIDDEN, 64))

    def posterior(self, x) -> Normal:
        loc, log_scale = self.encoder(x).chunk(2, dim=-1)
        return Normal(loc, log_scale.exp())

    def likelihood(self, z) -> Bernoulli:
        return Bernoulli(logits=self.decoder(z))

    def elbo(self, x, eps):
        """The ELBO of each image, with the latent draw z = loc + scale * eps (the reparameterisation)."""
        q = self.posterior(x)
        z = q.loc + q.scale * eps
        prior = Normal(torch.zeros_like(q.loc), torch.ones_like(q.scale))
        return self.likelihood(z).log_prob(x).sum(-1) - kl_divergence(q, prior).sum(-1)

    def log_likelihood(self, x, eps):
        """log p(x) by importance sampling with the posterior as proposal: logmeanexp over the K draws in eps
        (K, N, LATENT) of log p(x | z) + log p(z) - log q(z | x)."""
        q = self.posterior(x)
        z = q.loc + q.scale * eps
        prior = Normal(torch.zeros(LATENT, dtype=x.dtype), torch.ones(LATENT, dtype=x.dtype))
        log_w = self.likelihood(z).log_prob(x).sum(-1) + prior.log_prob(z).sum(-1) - q.log_prob(z).sum(-1)
        return torch.logsumexp(log_w, dim=0) - math.log(eps.shape[0])


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv=None) -> float:
    args = parse_args(argv)
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(args.seed)
    train, test = load_digits(args.seed)
    model = VAE(rng)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    n = train.shape[0]
    for epoch in range(1, args.epochs + 1):
        order = torch.from_numpy(rng.permutation(n))
        total = 0.0
        for start in range(0, n, args.batch):
            x = train[order[start:start + args.batch]]
            eps = torch.from_numpy(rng.standard_normal((x.shape[0], LATENT)))
            loss = -model.elbo(x, eps).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * x.shape[0]
        if epoch % 5 == 0 or epoch == args.epochs:
            print(f"epoch {epoch:3d}  train -ELBO {total / n:.4f}")
    with torch.no_grad():
        test_elbo = model.elbo(test, torch.from_numpy(rng.standard_normal((test.shape[0], LATENT)))).mean()
        eps = torch.from_numpy(rng.standard_normal((50, test.shape[0], LATENT)))
        test_ll = model.log_likelihood(test, eps).mean()
        means = model.posterior(test[:4]).mean
    print(f"test ELBO {test_elbo.item():.4f}  test log-likelihood (50 importance samples) {test_ll.item():.4f}")
    print("posterior means of four test digits:")
    for row in means:
        print("  " + "  ".join(f"{v:+.4f}" for v in row.tolist()))
    return test_ll.item()


if __name__ == "__main__":
    main()
