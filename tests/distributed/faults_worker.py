"""Run as plain ``mpiexec -n 3 python faults_worker.py``: bad input gives errors on every rank, never a hang;
then rank 1 raises, and the job must end (non-zero) instead of leaving ranks 0 and 2 waiting."""

import sys

import dyngrad as torch
import dyngrad.distributed as dist

dist.init_process_group("mpi")
rank = dist.get_rank()
try:
    dist.init_process_group("mpi")
except ValueError as e:
    assert str(e) == "trying to initialize the default process group twice!"
    print(f"OK second init rank={rank}", flush=True)
for name, call in [("all_reduce", lambda t: dist.all_reduce(t)), ("broadcast", lambda t: dist.broadcast(t, 0))]:
    try:
        call(torch.zeros(2 + rank))
    except RuntimeError as e:
        assert str(e).startswith(f"{name}: the tensors must have the same shape and dtype on every rank"), e
        print(f"OK mismatched sizes {name} rank={rank}", flush=True)
try:
    dist.all_reduce(torch.zeros(2, dtype=torch.float64 if rank else torch.float32))
except RuntimeError:
    print(f"OK mismatched dtypes rank={rank}", flush=True)
dist.barrier()
if rank == 1:
    raise ZeroDivisionError("rank 1 fails on purpose")
dist.all_reduce(torch.ones(1))  # ranks 0 and 2 wait here for rank 1, which has died
print("NOT REACHED", flush=True)
sys.exit(0)
