"""A small CNN: Conv2d, BatchNorm2d, MaxPool2d, Flatten, train() and eval(), gradients."""
import torch
import torch.nn as nn

net = nn.Sequential(
    nn.Conv2d(1, 4, kernel_size=3, padding=1),
    nn.BatchNorm2d(4),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(4, 2, kernel_size=3),
    nn.Flatten(),
    nn.Linear(2 * 2 * 2, 3),
)
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.linspace(-0.3, 0.3, p.numel()).reshape(p.shape) * (1 + i % 2))
x = torch.linspace(-1, 1, 2 * 8 * 8).reshape(2, 1, 8, 8)
out = net(x)
print(out.shape)
print(out)
out.pow(2).sum().backward()
print(net[0].weight.grad.sum(), net[1].running_mean, net[1].num_batches_tracked)
net.eval()
print(net(x))
print(nn.functional.conv2d(x, torch.ones(1, 1, 2, 2), stride=2).shape)
