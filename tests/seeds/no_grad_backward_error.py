# Seed article 1, the commented-out line made explicit: backward on a tensor made under no_grad fails.
import torch

x = torch.tensor([2.0], requires_grad=True)
with torch.no_grad():
    y = x**2
try:
    y.backward()
except RuntimeError as e:
    print(type(e).__name__, e)
