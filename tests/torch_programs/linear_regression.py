"""Fit y = 2x - 1 with nn.Linear, MSELoss and SGD."""
import torch
import torch.nn as nn

x = torch.linspace(-1, 1, 20).unsqueeze(1)
y = 2 * x - 1

model = nn.Linear(1, 1)
with torch.no_grad():
    model.weight.fill_(0.1)
    model.bias.fill_(0.0)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for epoch in range(100):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    if epoch % 20 == 0:
        print(f"epoch {epoch:3d} loss {loss.item():.6f}")

print(f"weight {model.weight.item():.4f} bias {model.bias.item():.4f}")
print(model)
print(list(model.state_dict().keys()))
