# Seed article 1, "keeping the graph": retain_graph=True allows a second backward.
import torch

x = torch.tensor([2.0], requires_grad=True)
y = x**2
y.backward(retain_graph=True)
print(x.grad)  # tensor([4.])
y.backward()
print(x.grad)  # tensor([8.])
