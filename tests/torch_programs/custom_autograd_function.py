"""A custom torch.autograd.Function, checked with gradcheck."""
import torch
from torch.autograd import Function, gradcheck


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x ** 2


class ScaledSum(Function):
    @staticmethod
    def forward(ctx, x, scale: float):
        ctx.scale = scale
        return x.sum() * scale

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.scale * torch.ones(3), None


x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
y = Cube.apply(x)
print(y, y.grad_fn.__class__.__name__)
y.sum().backward()
print(x.grad)
z = ScaledSum.apply(x, 2.5)
print(z)
print(gradcheck(Cube.apply, (torch.tensor([0.3, -1.2], dtype=torch.double, requires_grad=True),)))
print(gradcheck(lambda t: ScaledSum.apply(t, 1.5), (torch.randn(3, dtype=torch.double, requires_grad=True),)))
