"""Everyday tensor code: creation, indexing, broadcasting, reductions, linear algebra, dtypes, errors."""
import torch

a = torch.arange(12).reshape(3, 4)
print(a, a.dtype, a.shape, a.stride())
print(a[1], a[:, 2], a[a > 5], a[[0, 2]][:, [1, 3]])
b = a.float() / 3
print(b)
print(b.sum(), b.mean(dim=0), b.max(dim=1), b.argmax(), b.std())
print(torch.cat([a, a], dim=0).shape, torch.stack([a, a]).shape)
print(torch.where(a % 2 == 0, a, -a))
m = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
print(m @ m, torch.linalg.inv(m), torch.linalg.det(m))
print(torch.einsum("ij,jk->ik", m, m))
print(torch.ones(2, 1) + torch.arange(3))
print(torch.tensor([1, 2]) / 2, torch.tensor([1, 2]) // 2, (torch.tensor([1, 2]) * 1.5).dtype)
print(torch.zeros(2, dtype=torch.int32) + 1.0)
s, i = torch.sort(torch.tensor([3.0, 1.0, 2.0]), descending=True)
print(s, i, torch.topk(torch.tensor([3.0, 1.0, 2.0]), 2))
print(torch.tensor([[1, 2], [3, 4]]).T.contiguous().view(-1))
print(torch.tensor(3.5).item(), torch.tensor([1, 2]).tolist(), torch.full((2,), 7))
print(torch.finfo(torch.float32).eps, torch.iinfo(torch.int8).max)
for bad in (lambda: torch.ones(2, 3) @ torch.ones(2, 3), lambda: torch.ones(2).view(3), lambda: a[5]):
    try:
        bad()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
print(torch.tensor([1 + 2j, 3j]).abs(), torch.tensor([1.0, float("nan")]).isnan())
