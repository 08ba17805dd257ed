"""The digits CNN of examples/digits.py, trained data-parallel on several processes with MPI.

Run it with (the mpich wheel of ``pip install 'dyngrad[distributed]'`` puts ``mpiexec`` next to python)::

    mpiexec -n 2 python examples/digits_ddp.py
    mpiexec -n 2 python examples/digits_ddp.py --epochs 10 --lr 3e-3 --plot /tmp/ddp.png

What it shows: ``init_process_group("mpi")``, ``DistributedDataParallel`` (each process holds a
replica; ``backward()`` leaves the gradient averaged over the processes, so the replicas stay equal),
and a ``DistributedSampler`` that gives each process its share of every epoch. The global batch is
``--batch-size`` (each of N processes takes batch-size / N), so N processes make the same number of
optimizer steps per epoch as examples/digits.py and reach the same accuracy (about 98%), each step
computed N ways in parallel. Rank 0 prints, and plots the curves (``digits_ddp_curves.png`` in the
folder ``autograd-examples`` of the system temp folder by default).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # examples/digits.py: the data, model and plot

import digits  # noqa: E402

import dyngrad as torch  # noqa: E402
import dyngrad.distributed as dist  # noqa: E402
from dyngrad.nn.parallel import DistributedDataParallel  # noqa: E402
from dyngrad.utils.data import DataLoader, DistributedSampler, TensorDataset  # noqa: E402

DEFAULT_PLOT = os.path.join(tempfile.gettempdir(), "autograd-examples", "digits_ddp_curves.png")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The options of examples/digits.py (epochs, lr, global batch size, seed), and the plot's path."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=40, help="passes over the training set (default: %(default)s)")
    parser.add_argument("--lr", type=float, default=2e-3, help="Adam step size (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=32, help="global batch, all processes (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of weights, split and shuffling (default: %(default)s)")
    parser.add_argument("--plot", default=DEFAULT_PLOT, help="PNG for the curves, by rank 0 (default: %(default)s)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> float:
    """Train on every process, print from rank 0; returns the held-out accuracy."""
    args = parse_args(argv)
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch_size % world:
        raise SystemExit(f"--batch-size {args.batch_size} must be divisible by the {world} processes")
    torch.manual_seed(args.seed)
    x_train, y_train, x_test, y_test = digits.load_data(args.seed)
    model = DistributedDataParallel(digits.make_model())  # rank 0's initial weights reach every replica
    data = TensorDataset(x_train, y_train)
    sampler = DistributedSampler(data, shuffle=True, seed=args.seed)
    loader = DataLoader(data, batch_size=args.batch_size // world, sampler=sampler)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    losses, accuracies = [], []
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every process
        total = torch.zeros(2, dtype=torch.float64)  # (summed loss, samples) of this process
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()  # the gradients are averaged across the processes here
            optimizer.step()
            total += torch.tensor([loss.item() * len(yb), len(yb)], dtype=torch.float64)
        dist.all_reduce(total)  # the whole epoch's mean loss, over every process's share
        losses.append((total[0] / total[1]).item())
        accuracies.append(digits.accuracy(model.module, x_test, y_test))
        if rank == 0:
            print(f"epoch {epoch + 1:3d}  mean train loss {losses[-1]:.4f}  test accuracy {accuracies[-1]:.2%}",
                  flush=True)
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    replicas = [torch.zeros_like(flat) for _ in range(world)]
    dist.all_gather(replicas, flat)
    acc = accuracies[-1]
    if rank == 0:
        print(f"test accuracy: {acc:.2%} ({x_test.shape[0]} held-out images), {world} processes; replicas equal: "
              f"{all(torch.equal(r, flat) for r in replicas)}")
        os.makedirs(os.path.dirname(os.path.abspath(args.plot)), exist_ok=True)
        digits.plot_curves(losses, accuracies, args.plot)
        print(f"training curves saved to {args.plot}")
    dist.destroy_process_group()
    return acc


if __name__ == "__main__":
    main()
