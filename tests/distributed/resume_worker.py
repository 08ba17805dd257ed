"""Run under ``mpiexec -n 2``: resume the checkpoint ddp_worker.py wrote on 3 processes, train on."""

import os

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist
from dyngrad.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
data = np.random.RandomState(0)
X, Y = data.randn(12, 4), data.randn(12, 1)
checkpoint = torch.load(os.environ["CHECKPOINT"])
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).double()
ddp = DDP(model)
ddp.load_state_dict(checkpoint["model"])
opt = torch.optim.Adam(ddp.parameters(), lr=0.05)
opt.load_state_dict(checkpoint["optimizer"])
shard = slice(rank, None, world)
for _ in range(2):
    opt.zero_grad()
    ((ddp(torch.tensor(X[shard])) - torch.tensor(Y[shard])) ** 2).mean().backward()
    opt.step()
flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
print(f"OK resumed {flat.numpy().tolist()} epoch={checkpoint['epoch']} rank={rank}", flush=True)
dist.destroy_process_group()
