# Seed article 1, "disabling gradients": no graph is recorded under no_grad
# (the article lost the indentation of the with-block; restored here).
import torch

x = torch.tensor([2.0], requires_grad=True)
with torch.no_grad():
    y = x**2
# y.backward() would raise here: nothing was recorded under no_grad
print(y.requires_grad)  # False
