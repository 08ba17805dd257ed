"""Run under ``mpiexec -n 3``: each collective against the value it must give (tests/test_distributed.py)."""

import numpy as np

import dyngrad as torch
import dyngrad.distributed as dist

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
assert world == 3 and dist.is_initialized() and dist.get_backend() == "mpi"


def check(name, got, expected):
    got = got.numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
    assert np.array_equal(got, np.asarray(expected)), f"{name} on rank {rank}: {got} != {expected}"
    print(f"OK {name} rank={rank}", flush=True)


# all_reduce with every op, several dtypes; the result is in place and outside autograd.
for op, fold in [(dist.ReduceOp.SUM, sum), (dist.ReduceOp.PRODUCT, np.prod), (dist.ReduceOp.MIN, min),
                 (dist.ReduceOp.MAX, max)]:
    for dtype in (torch.float64, torch.float32, torch.int64, torch.float16):
        t = torch.tensor([rank + 1, 2 * rank - 1], dtype=dtype)
        version = t._version
        dist.all_reduce(t, op=op)
        values = [np.array([r + 1, 2 * r - 1]) for r in range(world)]
        expected = [fold([v[i] for v in values]) for i in range(2)]
        check(f"all_reduce {op.name} {dtype}", t, np.array(expected, dtype=t.numpy().dtype))
        assert t._version > version
t = torch.tensor([1.0, 2.0, 3.0]) * (rank + 1)
dist.all_reduce(t, op=dist.ReduceOp.AVG)
check("all_reduce AVG", t, np.array([2.0, 4.0, 6.0], dtype=np.float32))
for op, expected in [(dist.ReduceOp.BAND, 0b001), (dist.ReduceOp.BOR, 0b111), (dist.ReduceOp.BXOR, 0b001 ^ 0b011 ^ 0b101)]:
    t = torch.tensor([[1, 3, 5][rank]], dtype=torch.int32)
    dist.all_reduce(t, op=op)
    check(f"all_reduce {op.name}", t, np.array([expected], dtype=np.int32))
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).t() * (rank + 1)  # not contiguous
dist.all_reduce(w)
check("all_reduce non-contiguous", w, np.array([[1.0, 3.0], [2.0, 4.0]], dtype=np.float32) * 6)
leaf = torch.ones(2, requires_grad=True)
with torch.no_grad():
    dist.all_reduce(leaf)
check("all_reduce leaf under no_grad", leaf.detach(), np.full(2, 3.0, dtype=np.float32))
work = dist.all_reduce(torch.tensor([float(rank)]), async_op=True)
assert work.wait() is True and work.is_completed()
print(f"OK async rank={rank}", flush=True)

# broadcast, reduce, all_gather, gather, scatter, reduce_scatter, all_to_all.
t = torch.tensor([rank * 10.0, rank * 10.0 + 1])
dist.broadcast(t, src=2)
check("broadcast", t, np.array([20.0, 21.0], dtype=np.float32))
t = torch.tensor([rank + 1.0])
dist.reduce(t, dst=1)
check("reduce", t, np.array([6.0 if rank == 1 else rank + 1.0], dtype=np.float32))
outs = [torch.zeros(2, dtype=torch.int64) for _ in range(world)]
dist.all_gather(outs, torch.tensor([rank, -rank]))
check("all_gather", torch.stack(outs), np.array([[r, -r] for r in range(world)]))
big = torch.zeros(world * 2)
dist.all_gather_into_tensor(big, torch.tensor([rank, rank + 0.5]))
check("all_gather_into_tensor", big, np.array([0, 0.5, 1, 1.5, 2, 2.5], dtype=np.float32))
gl = [torch.zeros(1) for _ in range(world)] if rank == 0 else None
dist.gather(torch.tensor([rank * 2.0]), gl, dst=0)
if rank == 0:
    check("gather", torch.cat(gl), np.array([0.0, 2.0, 4.0], dtype=np.float32))
t = torch.zeros(2)
dist.scatter(t, [torch.tensor([r, r * r], dtype=torch.float32) for r in range(world)] if rank == 1 else None, src=1)
check("scatter", t, np.array([rank, rank * rank], dtype=np.float32))
out = torch.zeros(1)
dist.reduce_scatter(out, [torch.tensor([float(rank * 10 + i)]) for i in range(world)])
check("reduce_scatter", out, np.array([sum(r * 10 + rank for r in range(world))], dtype=np.float32))
out = torch.zeros(2)
dist.reduce_scatter_tensor(out, torch.arange(6, dtype=torch.float32) + rank)
check("reduce_scatter_tensor", out, (np.arange(6, dtype=np.float32)[2 * rank:2 * rank + 2] * 3 + 3))
outs = [torch.zeros(1) for _ in range(world)]
dist.all_to_all(outs, [torch.tensor([float(rank * 10 + j)]) for j in range(world)])
check("all_to_all", torch.cat(outs), np.array([r * 10 + rank for r in range(world)], dtype=np.float32))
out = torch.zeros(world)
dist.all_to_all_single(out, torch.tensor([rank * 10.0 + j for j in range(world)]))
check("all_to_all_single", out, np.array([r * 10 + rank for r in range(world)], dtype=np.float32))

# point to point, in a ring.
right, left = (rank + 1) % world, (rank - 1) % world
received = torch.zeros(2)
reqs = dist.batch_isend_irecv([dist.P2POp(dist.isend, torch.tensor([rank, 1.0]), right),
                               dist.P2POp(dist.irecv, received, left)])
for r in reqs:
    r.wait()
check("batch_isend_irecv", received, np.array([left, 1.0], dtype=np.float32))
if rank == 0:
    dist.send(torch.tensor([42]), dst=2)
elif rank == 2:
    got = torch.zeros(1, dtype=torch.int64)
    sender = dist.recv(got)
    assert sender == 0
    check("send/recv", got, np.array([42]))

# objects, subgroups, barrier.
objs = [None] * world
dist.all_gather_object(objs, {"rank": rank})
assert objs == [{"rank": r} for r in range(world)]
lst = [rank, "x"] if rank == 0 else [None, None]
dist.broadcast_object_list(lst, src=0)
assert lst == [0, "x"]
gathered = [None] * world if rank == 0 else None
dist.gather_object(rank * 3, gathered, dst=0)
assert rank != 0 or gathered == [0, 3, 6]
mine = [None]
dist.scatter_object_list(mine, [("item", r) for r in range(world)] if rank == 0 else None, src=0)
assert mine == [("item", rank)]
print(f"OK objects rank={rank}", flush=True)
pair = dist.new_group([0, 2])
if rank in (0, 2):
    t = torch.tensor([1.0])
    dist.all_reduce(t, group=pair)
    check("new_group all_reduce", t, np.array([2.0], dtype=np.float32))
    assert dist.get_rank(pair) == [0, 2].index(rank) and dist.get_world_size(pair) == 2
dist.barrier()

# differentiable collectives: d/dx of sum_r (r+1) * x_r^2 summed across processes.
import dyngrad.distributed.nn.functional as dfn  # noqa: E402

x = torch.tensor([1.0 + rank], dtype=torch.float64, requires_grad=True)
total = dfn.all_reduce(x * x * (rank + 1))
total.sum().backward()
# every process's loss is the same total, so x_r's gradient is world * (r+1) * 2 x_r
check("nn.functional.all_reduce grad", x.grad, np.array([world * (rank + 1) * 2 * (1.0 + rank)]))
x = torch.tensor([float(rank)], dtype=torch.float64, requires_grad=True)
parts = dfn.all_gather(x * 2)
sum(p * (i + 1) for i, p in enumerate(parts)).sum().backward()
check("nn.functional.all_gather grad", x.grad, np.array([world * 2.0 * (rank + 1)]))
dist.destroy_process_group()
assert not dist.is_initialized()
print(f"OK done rank={rank}", flush=True)
