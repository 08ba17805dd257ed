"""Autograd as the PyTorch tutorials show it: leaves, grad_fn, backward, accumulation, no_grad."""
import torch

x = torch.tensor([2.0, 3.0], requires_grad=True)
y = x * x + 3 * x
z = y.sum()
print(y)
print(z, z.grad_fn.name(), [type(f[0]).__name__ for f in z.grad_fn.next_functions])
z.backward()
print(x.grad, x.is_leaf, y.is_leaf)

z = (x ** 3).sum()
z.backward()
print(x.grad)  # accumulated
x.grad.zero_()

(g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), x)
print(g, gg)

with torch.no_grad():
    w = x * 2
print(w.requires_grad, (x * 2).requires_grad)

y = x.detach()
print(y.requires_grad, y.data_ptr() == x.data_ptr())

a = torch.ones(2, 2, requires_grad=True)
b = a * 2
out = b.mean()
out.backward(retain_graph=True)
out.backward()
print(a.grad)

try:
    out2 = (x * 2).sum()
    out2.backward()
    out2.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
