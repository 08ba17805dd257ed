"""Hooks, no_grad/inference_mode/set_grad_enabled, zero_grad, requires_grad_ and clip_grad_norm_."""
import torch
import torch.nn as nn

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
seen = []
h = x.register_hook(lambda g: seen.append(g.clone()) or g * 2)
(x * x).sum().backward()
print(seen, x.grad)
h.remove()

lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]]))
    lin.bias.zero_()
outputs = []
handle = lin.register_forward_hook(lambda mod, inp, out: outputs.append(out.detach()))
grads = []
lin.register_full_backward_hook(lambda mod, gin, gout: grads.append(gout[0]))
y = lin(x)
y.sum().backward()
print(outputs, grads)
handle.remove()
print(lin.weight.grad)
lin.zero_grad()
print(lin.weight.grad)
with torch.inference_mode():
    print(lin(x).requires_grad, torch.is_inference_mode_enabled())
with torch.set_grad_enabled(False):
    print(lin(x).requires_grad, torch.is_grad_enabled())
print(torch.is_grad_enabled())
for p in lin.parameters():
    p.grad = torch.full_like(p, 10.0)
norm = nn.utils.clip_grad_norm_(lin.parameters(), max_norm=1.0)
print(norm, lin.weight.grad)
