"""A small MLP classifier: nn.Sequential, CrossEntropyLoss, Adam, DataLoader over a TensorDataset."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def init_deterministic(module):
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (-1) ** i)


# two interleaved classes on a grid, no random numbers
grid = torch.stack(torch.meshgrid(torch.linspace(-1, 1, 8), torch.linspace(-1, 1, 8), indexing="ij"), -1).reshape(-1, 2)
labels = ((grid[:, 0] * grid[:, 1]) > 0).long()

model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 2))
init_deterministic(model)
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
loader = DataLoader(TensorDataset(grid, labels), batch_size=16, shuffle=False)

for epoch in range(30):
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1} mean loss {total / len(grid):.4f}")

model.eval()
with torch.no_grad():
    pred = model(grid).argmax(dim=1)
print("accuracy", (pred == labels).float().mean().item())
print(sum(p.numel() for p in model.parameters()), "parameters")
