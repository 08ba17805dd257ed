# Seed article 1, example 2: .backward() on a non-scalar needs a `gradient` of the same shape.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = 2 * x
y.backward(gradient=torch.ones_like(y))
print("dy/dx =", x.grad)  # tensor([2., 2., 2.])
