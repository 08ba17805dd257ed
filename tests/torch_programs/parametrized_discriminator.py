"""A spectrally normalised discriminator and an orthogonal, weight-normalised generator layer, trained a few steps."""
import torch
import torch.nn as nn
from torch.nn.utils import parametrizations, parametrize


def fill(module):
    # deterministic weights (no dependence on the random stream)
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape).cos() * (1 if i % 2 else -1))


disc = nn.Sequential(nn.Linear(4, 6), nn.LeakyReLU(0.2), nn.Linear(6, 1))
fill(disc)
for layer in (disc[0], disc[2]):
    parametrizations.spectral_norm(layer)
    sn = layer.parametrizations.weight[0]
    with torch.no_grad():  # power-iteration vectors set by hand, so the run does not depend on the generator
        sn._u.copy_(torch.nn.functional.normalize(torch.linspace(1, 2, sn._u.numel()), dim=0))
        sn._v.copy_(torch.nn.functional.normalize(torch.linspace(-1, 1, sn._v.numel()) + 0.3, dim=0))
print(disc)
print([name for name, _ in disc.named_parameters()])

gen = nn.Linear(3, 4)
fill(gen)
parametrizations.weight_norm(gen)
print(parametrize.is_parametrized(gen, "weight"), type(gen).__name__)

square = nn.Linear(4, 4, bias=False)
fill(square)
with torch.no_grad():  # well conditioned, so its QR (the orthogonal trivialization's base) is well defined
    square.weight.mul_(0.2).add_(torch.tensor([[0.0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, -1]]))
parametrizations.orthogonal(square)
w = square.weight
print(torch.allclose(w @ w.T, torch.eye(4), atol=1e-6))

opt = torch.optim.Adam(list(disc.parameters()) + list(gen.parameters()) + list(square.parameters()), lr=0.05)
z = torch.linspace(-1, 1, 15).reshape(5, 3)
real = torch.linspace(0, 2, 20).reshape(5, 4)
for step in range(4):
    fake = square(torch.tanh(gen(z)))
    loss = nn.functional.softplus(-disc(real)).mean() + nn.functional.softplus(disc(fake)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
with torch.no_grad():
    print(round(torch.linalg.matrix_norm(disc[0].weight, ord=2).item(), 3) if hasattr(torch, "linalg") else None)
print(torch.allclose(square.weight @ square.weight.T, torch.eye(4), atol=1e-5))
parametrize.remove_parametrizations(gen, "weight")
print(type(gen).__name__, [name for name, _ in gen.named_parameters()])
