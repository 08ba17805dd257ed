"""Run under ``mpiexec -n 3``: DistributedDataParallel against one PyTorch process on the whole batch.

Each rank trains on its third of the batch; with a mean loss and equal shards, the gradient DDP
averages is the whole batch's gradient, so after a few SGD steps every rank's parameters must equal
those of plain torch trained on the whole batch from rank 0's initial weights.
"""

import numpy as np
import torch as real_torch

import dyngrad as torch
import dyngrad.distributed as dist
from dyngrad.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
data = np.random.RandomState(0)
X, Y = data.randn(12, 4), data.randn(12, 1)


def make(lib, seed):
    """An MLP with weights from ``seed`` (different on each rank: DDP must broadcast rank 0's)."""
    w = np.random.RandomState(seed)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1)).double()
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(w.randn(*p.shape)))
    return model


def train(model, lib, xs, ys, steps, unused=None):
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(lib.tensor(xs)) - lib.tensor(ys)) ** 2).mean()
        loss.backward()
        opt.step()
    return [p.detach().numpy() for p in model.parameters()]


reference = train(make(real_torch, 100), real_torch, X, Y, steps=4)
shard = slice(rank, None, world)
for cap in (25, 0.00001):  # one bucket, and one bucket per parameter
    ddp = DDP(make(torch, 100 + rank), bucket_cap_mb=cap)
    assert len(ddp._buckets) == (1 if cap == 25 else 4)
    got = train(ddp, torch, X[shard], Y[shard], steps=4)
    for a, b in zip(got, reference):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    assert list(ddp.state_dict()) == ["module.0.weight", "module.0.bias", "module.2.weight", "module.2.bias"]
    print(f"OK ddp bucket_cap_mb={cap} rank={rank}", flush=True)

# no_sync: the first micro-batch accumulates locally, the second reduces the sum.
ddp = DDP(make(torch, 7 + rank))
ref = make(real_torch, 7)
half = [slice(rank, 6, world), slice(6 + rank, None, world)]
with ddp.no_sync():
    ((ddp(torch.tensor(X[half[0]])) - torch.tensor(Y[half[0]])) ** 2).mean().backward()
((ddp(torch.tensor(X[half[1]])) - torch.tensor(Y[half[1]])) ** 2).mean().backward()
for h in (slice(0, 6), slice(6, None)):
    ((ref(real_torch.tensor(X[h])) - real_torch.tensor(Y[h])) ** 2).mean().backward()
for p, q in zip(ddp.module.parameters(), ref.parameters()):
    np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=0, atol=1e-12)
print(f"OK ddp no_sync rank={rank}", flush=True)


class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(4, 1).double(), torch.nn.Linear(4, 1).double()

    def forward(self, x):
        return self.a(x)  # b is never used


ddp = DDP(TwoHeads(), find_unused_parameters=True)
for _ in range(2):
    ddp.zero_grad()
    ddp(torch.tensor(X[shard])).sum().backward()
    assert ddp.module.b.weight.grad is None
grads = [torch.zeros(1, 4, dtype=torch.float64) for _ in range(world)]
dist.all_gather(grads, ddp.module.a.weight.grad)
assert all(np.array_equal(g.numpy(), grads[0].numpy()) for g in grads)
print(f"OK ddp find_unused_parameters rank={rank}", flush=True)

ddp = DDP(TwoHeads())
ddp(torch.tensor(X[shard])).sum().backward()
try:
    ddp(torch.tensor(X[shard]))
except RuntimeError as e:
    assert str(e).startswith("Expected to have finished reduction in the prior iteration"), e
    print(f"OK ddp unused parameter error rank={rank}", flush=True)
else:
    raise AssertionError("a forward after an unfinished reduction did not raise")

# SyncBatchNorm: batch statistics over the three shards are those of the whole batch.
def make_bn(lib, seed):
    w = np.random.RandomState(seed)
    model = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.BatchNorm1d(6), lib.nn.Tanh(), lib.nn.Linear(6, 1)).double()
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(w.randn(*p.shape)))
    return model


reference_model = make_bn(real_torch, 5)
reference = train(reference_model, real_torch, X, Y, steps=3)
sync = DDP(torch.nn.SyncBatchNorm.convert_sync_batchnorm(make_bn(torch, 5)))
assert type(sync.module[1]).__name__ == "SyncBatchNorm"
got = train(sync, torch, X[shard], Y[shard], steps=3)
for a, b in zip(got, reference):
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-10)
for name in ("running_mean", "running_var"):
    np.testing.assert_allclose(getattr(sync.module[1], name).numpy(), getattr(reference_model[1], name).numpy(),
                               rtol=0, atol=1e-12)
print(f"OK sync batchnorm rank={rank}", flush=True)

# A checkpoint written by rank 0 mid-training (tests/distributed/resume_worker.py resumes it on 2 processes).
import os  # noqa: E402

ddp = DDP(make(torch, 100 + rank))
opt = torch.optim.Adam(ddp.parameters(), lr=0.05)
for _ in range(2):
    opt.zero_grad()
    ((ddp(torch.tensor(X[shard])) - torch.tensor(Y[shard])) ** 2).mean().backward()
    opt.step()
if rank == 0:
    torch.save({"model": ddp.state_dict(), "optimizer": opt.state_dict(), "epoch": 2}, os.environ["CHECKPOINT"])
dist.barrier()
print(f"OK checkpoint rank={rank}", flush=True)
dist.destroy_process_group()
