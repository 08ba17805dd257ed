# Seed article 1, "gradient accumulation": .grad adds up until it is zeroed
# (the article lost the indentation of the loop body; restored here).
import torch

x = torch.tensor([2.0], requires_grad=True)
for _ in range(2):
    y = x**2
    y.backward()
    print(x.grad)  # tensor([4.]) then tensor([8.])

x.grad.zero_()
y = x**2
y.backward()
print(x.grad)  # tensor([4.])
