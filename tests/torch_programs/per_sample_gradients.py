"""Per-sample gradients of a small classifier with torch.func: vmap(grad(...)) over functional_call, checked
against a Python loop over the samples, then per-sample gradient norms clipped as in DP-SGD."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, grad_and_value, vmap

rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((16, 8)))
y = torch.from_numpy(rng.integers(0, 4, 16))

model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).double()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)) * 0.3))
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def loss_one(params, buffers, sample, target):
    out = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
    return F.cross_entropy(out, target.unsqueeze(0))


per_sample = vmap(grad(loss_one), in_dims=(None, None, 0, 0))(params, buffers, x, y)
for name, g in per_sample.items():
    print(name, tuple(g.shape), f"{g.norm().item():.10f}")

# the same by a loop over the samples
for name in params:
    looped = torch.stack([grad(loss_one)(params, buffers, x[i], y[i])[name] for i in range(len(x))])
    print(name, "loop agrees:", torch.allclose(looped, per_sample[name], rtol=1e-12, atol=1e-14))

# gradients and losses at once, and the mean of the per-sample gradients is the batch gradient
grads, losses = vmap(grad_and_value(loss_one), in_dims=(None, None, 0, 0))(params, buffers, x, y)
print("losses", [round(v, 8) for v in losses.tolist()[:5]])
model.zero_grad()
F.cross_entropy(model(x), y).backward()
for name, p in model.named_parameters():
    print(name, "mean of per-sample = batch gradient:", torch.allclose(grads[name].mean(0), p.grad, atol=1e-14))

# DP-SGD style clipping: each sample's whole gradient scaled to norm <= 1, then summed
norms = torch.stack([g.flatten(1).norm(dim=1) for g in grads.values()], dim=1).norm(dim=1)
scale = (1.0 / norms).clamp(max=1.0)
clipped = {k: torch.einsum("n,n...->...", scale, g) for k, g in grads.items()}
print("norms", [round(v, 6) for v in norms.tolist()[:6]])
print({k: round(v.sum().item(), 8) + 0.0 for k, v in clipped.items()})  # + 0.0: no -0.0 from rounding
