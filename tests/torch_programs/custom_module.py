"""A user-defined nn.Module: submodules, parameters, buffers, repr, state_dict, train/eval."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, n_in: int, n_hidden: int, n_out: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(n_hidden, n_out)
        self.register_buffer("scale", torch.tensor(2.0))
        self.extra = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = self.drop(x)
        return F.log_softmax(self.fc2(x) * self.scale + self.extra, dim=-1)


net = Net(4, 8, 3)
print(net)
for name, p in net.named_parameters():
    print(name, tuple(p.shape), p.requires_grad)
print(list(net.state_dict()))
print([name for name, _ in net.named_modules()])
print(net.training, net.eval().training, net.fc1.training)
with torch.no_grad():
    for p in net.parameters():
        p.fill_(0.1)
out = net(torch.ones(2, 4))
print(out)
print(out.exp().sum(dim=1).round(decimals=4))  # rows of a softmax sum to 1 (to float32 rounding)
net.zero_grad()
out.sum().backward()
print(net.fc1.weight.grad.abs().max() < 1e-5, net.extra.grad.abs().max() < 1e-5)
net.requires_grad_(False)
print(all(not p.requires_grad for p in net.parameters()))
