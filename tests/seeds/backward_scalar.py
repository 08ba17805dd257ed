# Seed article 1, example 1: .backward() on a scalar (z = x**2 + y**3).
import torch

# 1. tensors that need gradients
x = torch.tensor([2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
# 2. build the graph: z = x^2 + y^3
z = x**2 + y**3
# 3. backpropagate
z.backward()
# 4. the gradients (dz/dx = 2x, dz/dy = 3y^2)
print("dz/dx =", x.grad)  # tensor([4.])
print("dz/dy =", y.grad)  # tensor([27.])
