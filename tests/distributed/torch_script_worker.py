"""An unmodified PyTorch DDP script: run as ``mpiexec -n 3 python -m dyngrad torch_script_worker.py``."""

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

assert torch.__name__ == "dyngrad", "this job must run on dyngrad (python -m dyngrad)"
dist.init_process_group(backend="mpi")
rank = dist.get_rank()
xs = torch.arange(24, dtype=torch.float64).reshape(12, 2) / 10
ys = xs.sum(1, keepdim=True)
model = DistributedDataParallel(nn.Linear(2, 1).double())
with torch.no_grad():
    model.module.weight.fill_(0.5)
    model.module.bias.zero_()
loader = DataLoader(TensorDataset(xs, ys), batch_size=2, sampler=DistributedSampler(xs, shuffle=False))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
weights = [torch.zeros(1, 2, dtype=torch.float64) for _ in range(dist.get_world_size())]
dist.all_gather(weights, model.module.weight.detach())
assert all(torch.equal(w, weights[0]) for w in weights)
print(f"OK weights {model.module.weight.detach().numpy().round(12).tolist()} rank={rank}", flush=True)
dist.destroy_process_group()
