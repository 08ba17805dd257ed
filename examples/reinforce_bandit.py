"""REINFORCE with a ``Categorical`` policy on a contextual bandit.

What it shows: a policy network maps a context (one of 6 situations, one-hot) to the logits of a
``torch.distributions.Categorical`` over 4 actions; each step acts in a batch of contexts, receives noisy
rewards, and ascends the score-function (REINFORCE) estimate of the expected reward's gradient,
E[(r - b) grad log pi(a | s)], with a running-mean baseline b and an entropy bonus
(``log_prob``, ``entropy``). It prints the average reward as the policy learns and, at the end, the policy's
probability of the best action in each context and the expected reward it achieves.

Actions are drawn from the policy's probabilities by inverse transform sampling with NumPy's seeded
generator (``pi.sample()`` would use the framework's own stream, which differs between dyngrad and
PyTorch), and the weights start from NumPy too, so this file prints the same numbers with
``import torch`` in place of the import line below (tests/test_distribution_examples.py checks that).

Run it with ``python examples/reinforce_bandit.py [--steps 300]``.
"""

from __future__ import annotations

import argparse

import numpy as np

import dyngrad as torch

nn = torch.nn
Categorical = torch.distributions.Categorical

CONTEXTS, ACTIONS = 6, 4


def reward_table(rng) -> np.ndarray:
    """Mean reward of each action in each context; one clearly best action per context."""
    means = rng.uniform(0.0, 0.8, (CONTEXTS, ACTIONS))
    means[np.arange(CONTEXTS), rng.integers(0, ACTIONS, CONTEXTS)] = 1.0
    return means


def draw(probs: np.ndarray, rng) -> np.ndarray:
    """One action per row of ``probs`` by inverse transform sampling."""
    u = rng.random((probs.shape[0], 1))
    return np.minimum((probs.cumsum(axis=1) < u).sum(axis=1), probs.shape[1] - 1)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv=None) -> float:
    args = parse_args(argv)
    torch.set_default_dtype(torch.float64)
    rng = np.random.default_rng(args.seed)
    means = reward_table(rng)
    policy = nn.Sequential(nn.Linear(CONTEXTS, 16), nn.ReLU(), nn.Linear(16, ACTIONS))
    with torch.no_grad():
        for p in policy.parameters():
            p.copy_(torch.from_numpy(rng.normal(0.0, 0.3, tuple(p.shape))))
    opt = torch.optim.Adam(policy.parameters(), lr=args.lr)
    eye = torch.eye(CONTEXTS)
    baseline, window = 0.0, []
    for step in range(1, args.steps + 1):
        contexts = rng.integers(0, CONTEXTS, args.batch)
        pi = Categorical(logits=policy(eye[torch.from_numpy(contexts)]))
        actions = draw(pi.probs.detach().numpy(), rng)
        rewards = means[contexts, actions] + rng.normal(0.0, 0.3, args.batch)
        advantage = torch.from_numpy(rewards - baseline)
        loss = -(pi.log_prob(torch.from_numpy(actions)) * advantage).mean() - args.entropy * pi.entropy().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        baseline = 0.9 * baseline + 0.1 * rewards.mean()
        window.append(rewards.mean())
        if step % 50 == 0:
            print(f"step {step:4d}  mean reward {np.mean(window):.4f}  policy entropy {pi.entropy().mean().item():.4f}")
            window = []
    with torch.no_grad():
        probs = Categorical(logits=policy(eye)).probs.numpy()
    best = means.argmax(axis=1)
    print("probability of the best action per context:", " ".join(f"{p:.3f}" for p in probs[np.arange(CONTEXTS), best]))
    expected = float((probs * means).sum(axis=1).mean())
    print(f"expected reward {expected:.4f} (best possible 1.0000)")
    return expected


if __name__ == "__main__":
    main()
