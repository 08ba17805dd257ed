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
xs = torch.arange(22, dtype=torch.float64).reshape(11, 2) / 10  # 11 samples: the sampler pads the last share
ys = xs.sum(1, keepdim=True)
model = DistributedDataParallel(nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Linear(3, 1)).double())
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel(), dtype=torch.float64).reshape(p.shape) * (i + 1))
loader = DataLoader(TensorDataset(xs, ys), batch_size=2, sampler=DistributedSampler(xs, shuffle=False))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    opt.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    opt.step()
final = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
weights = [torch.zeros_like(final) for _ in range(dist.get_world_size())]
dist.all_gather(weights, final)
assert all(torch.equal(w, weights[0]) for w in weights)
print(f"OK weights {final.numpy().tolist()} rank={rank}", flush=True)
print(f"OK buffers {model.module[1].running_mean.numpy().tolist()} rank={rank}", flush=True)
dist.destroy_process_group()
