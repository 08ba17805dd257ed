"""Save a training checkpoint (model, optimizer, epoch), load it into fresh objects, resume."""
import os
import tempfile

import torch
import torch.nn as nn


def make_model():
    model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) / (i + 1))
    return model


x = torch.linspace(-1, 1, 30).reshape(10, 3)
y = x.pow(2).sum(1, keepdim=True)
loss_fn = nn.MSELoss()


def train(model, optimizer, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


model = make_model()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
print(f"after 5 steps: {train(model, optimizer, 5):.5f}")

path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
torch.save({"epoch": 5, "model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict()}, path)

model2 = make_model()
optimizer2 = torch.optim.Adam(model2.parameters(), lr=0.5)
checkpoint = torch.load(path, weights_only=True)
model2.load_state_dict(checkpoint["model_state_dict"])
optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
print("epoch", checkpoint["epoch"], "lr", optimizer2.param_groups[0]["lr"])
print(sorted(checkpoint["optimizer_state_dict"]["state"][0].keys()))
print(f"resumed 5 more: {train(model2, optimizer2, 5):.5f}")
print(f"uninterrupted: {train(model, optimizer, 5):.5f}")
torch.save(model2.state_dict(), path)
print(model2.load_state_dict(torch.load(path)))
os.remove(path)
