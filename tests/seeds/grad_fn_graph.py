# Seed article 2: following grad_fn as the graph is built, then z.backward().
import torch

# Step 1: a leaf tensor that requires grad
x = torch.tensor([2.0, 3.0], requires_grad=True)
print(f"X (leaf): {x}")
print(f"X grad_fn: {x.grad_fn}\n")

# Step 2: forward pass; y = x * 3 gets a grad_fn
y = x * 3
print(f"Y: {y}")
print(f"Y grad_fn: {y.grad_fn}")

# reduce to a scalar z
z = y.sum()
print(f"Z: {z}")
print(f"Z grad_fn: {z.grad_fn}\n")

# Step 3: backward from z
z.backward()
print(f"X grad (x.grad): {x.grad}")
