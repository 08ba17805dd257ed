"""One training program for both libraries: ``torchrun --nproc_per_node=2`` on PyTorch (gloo) and
``mpiexec -n 2 python -m dyngrad`` on dyngrad (MPI). Rank 0 prints the mean loss
of each step over the processes; the two runs must print the same lines."""

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group(backend="mpi" if dist.is_mpi_available() else "gloo")
rank, world = dist.get_rank(), dist.get_world_size()
data = np.random.RandomState(0)
xs = torch.tensor(data.randn(40, 5))
ys = torch.tensor(data.randint(0, 3, size=40))
model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3)).double()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(data.randn(*p.shape)) * 0.5)
ddp = DDP(model)
opt = torch.optim.Adam(ddp.parameters(), lr=0.01)
sampler = DistributedSampler(TensorDataset(xs, ys), shuffle=False)
loader = DataLoader(TensorDataset(xs, ys), batch_size=4, sampler=sampler)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(ddp(x), y)
        loss.backward()
        opt.step()
        total = loss.detach().clone()
        dist.all_reduce(total)
        if rank == 0:  # one writer: two processes' lines could interleave in the launcher's output
            print(f"rank {rank} loss {total.item() / world:.15e}", flush=True)
dist.destroy_process_group()
