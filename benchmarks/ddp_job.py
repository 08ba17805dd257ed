"""One DDP benchmark job, written for ``torch`` so that the same file runs on both libraries:

    mpiexec -n 2 python -m dyngrad benchmarks/ddp_job.py     # dyngrad, MPI
    torchrun --nproc_per_node=2 benchmarks/ddp_job.py        # PyTorch, gloo

(benchmarks/distributed.py launches these and prints the table.) The model is the digits CNN of
examples/digits.py on 8x8 images; rank 0 prints one JSON line of timings.
"""

import json
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

torch.set_num_threads(1)
dist.init_process_group(backend="mpi" if dist.is_mpi_available() else "gloo")
rank, world = dist.get_rank(), dist.get_world_size()
# BENCH_PER_PROCESS=1: each process takes a batch of BENCH_BATCH (weak scaling, the usual DDP setting);
# otherwise a global batch of BENCH_BATCH is split across the processes (strong scaling).
BATCH = int(os.environ.get("BENCH_BATCH", "32"))
GLOBAL_BATCH = BATCH * world if os.environ.get("BENCH_PER_PROCESS") == "1" else BATCH
STEPS = int(os.environ.get("BENCH_STEPS", "60"))
data = np.random.RandomState(rank)
xs = torch.tensor(data.rand(GLOBAL_BATCH // world, 1, 8, 8).astype(np.float32))
ys = torch.tensor(data.randint(0, 10, size=GLOBAL_BATCH // world))
model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1),
                      nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
ddp = DDP(model)
opt = torch.optim.Adam(ddp.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()


def step(sync=True):
    opt.zero_grad()
    if sync:
        loss_fn(ddp(xs), ys).backward()
    else:
        with ddp.no_sync():
            loss_fn(ddp(xs), ys).backward()
    opt.step()


def timed(fn, steps):
    for _ in range(5):
        fn()
    dist.barrier()
    start = time.perf_counter()
    for _ in range(steps):
        fn()
    dist.barrier()
    return (time.perf_counter() - start) / steps


t_step = timed(step, STEPS)
t_local = timed(lambda: step(sync=False), STEPS)  # the same step without any communication
flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
t_allreduce = timed(lambda: dist.all_reduce(flat), STEPS)  # the gradient's all-reduce alone, blocking
if rank == 0:
    print(json.dumps({"library": torch.__name__, "world": world, "step_s": t_step, "local_step_s": t_local,
                      "allreduce_s": t_allreduce, "samples_per_s": GLOBAL_BATCH / t_step}), flush=True)
dist.destroy_process_group()
