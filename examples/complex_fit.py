"""Fit a complex-valued linear model with Adam: identify a multi-channel system from its responses.

An ordinary PyTorch program on complex parameters: inputs are complex phasors x (4 channels),
the unknown system is a complex matrix H (3 x 4), responses are y = H x plus complex noise, and
the model's complex weight W is fitted by Adam on the real loss mean |y - W x|^2. PyTorch's
complex autograd convention makes W.grad the direction of steepest ascent of that real loss,
so the ordinary optimizers work on complex parameters unchanged.

Run it with ``python examples/complex_fit.py``; replacing the import line with ``import torch``
gives the same printed numbers (tests/test_science_examples.py checks that).
"""

from __future__ import annotations

import numpy as np

import dyngrad as torch


def make_data(n: int = 200, seed: int = 0):
    rng = np.random.default_rng(seed)
    h = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    x = np.exp(2j * np.pi * rng.random((n, 4))) * rng.uniform(0.5, 1.5, (n, 4))
    noise = 0.05 * (rng.standard_normal((n, 3)) + 1j * rng.standard_normal((n, 3)))
    y = x @ h.T + noise
    return torch.tensor(h), torch.tensor(x), torch.tensor(y)


def main(steps: int = 300) -> None:
    h_true, x, y = make_data()
    w = torch.zeros(3, 4, dtype=torch.complex128, requires_grad=True)
    opt = torch.optim.Adam([w], lr=0.05)
    for step in range(steps):
        residual = y - x @ w.mT
        loss = (residual.abs() ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step:3d}  loss {loss.item():.6f}")
    error = (w.detach() - h_true).abs().max()
    print(f"largest error in the fitted weights: {error.item():.4f}")
    print("first row of W:", w.detach()[0])
    print("phase of W[0, 0] (radians):", torch.angle(w.detach()[0, 0]))


if __name__ == "__main__":
    main()
