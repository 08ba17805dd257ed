"""dyngrad.distributed on MPI: collectives and DistributedDataParallel in real ``mpiexec`` jobs.

The jobs (tests/distributed/*_worker.py) check each result against the value it must give (the
collectives) or against one PyTorch process trained on the whole batch (DDP), print one ``OK`` line
per check and rank, and abort the job on the first failure (``python -m mpi4py``). Every job runs
with a timeout in its own process group, killed whole if it hangs: no process is left behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import dyngrad
import dyngrad.distributed as dist
from dyngrad.utils.data import DistributedSampler

HERE = Path(__file__).parent
WORLD = 3


def _mpiexec() -> str:
    """The mpiexec of the environment (the mpich wheel puts it next to python); its absence is an error."""
    candidate = Path(sys.executable).parent / "mpiexec"
    assert candidate.exists(), "mpiexec is missing: install the test extra (mpi4py and the mpich wheel)"
    return str(candidate)


def _run_job(worker: str, timeout: float = 240, runner: str = "mpi4py") -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([_mpiexec(), "-n", str(WORLD), sys.executable, "-m", runner, str(HERE / "distributed" /
                             worker)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"{worker} did not finish in {timeout} s:\n{out}")
    assert proc.returncode == 0, out
    return out


def _oks(out: str) -> set:
    return {line.split("OK ", 1)[1].strip() for line in out.replace("OK ", "\nOK ").splitlines()
            if line.startswith("OK ")}


def test_collectives_in_an_mpi_job():
    oks = _oks(_run_job("collectives_worker.py"))
    for name in ("all_reduce SUM torch.float64", "all_reduce AVG", "all_reduce BXOR", "broadcast", "reduce",
                 "all_gather", "gather", "scatter", "reduce_scatter_tensor", "all_to_all_single", "batch_isend_irecv",
                 "objects", "nn.functional.all_reduce grad", "nn.functional.all_gather grad", "done"):
        for rank in range(WORLD):
            if name == "gather" and rank != 0:
                continue
            assert f"{name} rank={rank}" in oks, f"missing: {name} on rank {rank}"


def test_distributed_data_parallel_matches_single_process_torch():
    oks = _oks(_run_job("ddp_worker.py"))
    for name in ("ddp bucket_cap_mb=25", "ddp bucket_cap_mb=1e-05", "ddp no_sync", "ddp find_unused_parameters",
                 "ddp unused parameter error"):
        for rank in range(WORLD):
            assert f"{name} rank={rank}" in oks, f"missing: {name} on rank {rank}"


def test_unmodified_torch_script_under_python_m_dyngrad():
    """A torch DDP script (torch imports, DistributedSampler, DataLoader) run through ``python -m dyngrad``: the
    ranks end equal, with the weights of plain torch trained on the batches in the same order."""
    out = _run_job("torch_script_worker.py", runner="dyngrad")
    xs = torch.arange(24, dtype=torch.float64).reshape(12, 2) / 10
    ys = xs.sum(1, keepdim=True)
    model = torch.nn.Linear(2, 1).double()
    with torch.no_grad():
        model.weight.fill_(0.5)
        model.bias.zero_()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(2):  # 12 samples, 3 ranks, batches of 2: two steps; rank r reads samples r, r+3, r+6, r+9
        opt.zero_grad()
        loss = 0
        for rank in range(WORLD):
            idx = [rank + 3 * (2 * step), rank + 3 * (2 * step + 1)]
            loss = loss + torch.nn.functional.mse_loss(model(xs[idx]), ys[idx]) / WORLD
        loss.backward()
        opt.step()
    import ast

    import numpy as np

    printed = {ok.rsplit(" rank=", 1)[1]: ast.literal_eval(ok.split(" ", 1)[1].rsplit(" rank=", 1)[0])
               for ok in _oks(out) if ok.startswith("weights ")}
    assert sorted(printed) == [str(r) for r in range(WORLD)], out
    for weights in printed.values():
        np.testing.assert_allclose(weights, model.weight.detach().numpy(), rtol=0, atol=1e-11)


def test_errors_without_a_process_group():
    assert dist.is_available() and not dist.is_initialized()
    for call in (dist.get_rank, dist.get_world_size, lambda: dist.all_reduce(dyngrad.ones(2))):
        with pytest.raises(ValueError) as ours:
            call()
        assert str(ours.value) == ("Default process group has not been initialized, please make sure to call "
                                   "init_process_group.")
    with pytest.raises(RuntimeError, match="Distributed package doesn't have GLOO built in"):
        dist.init_process_group("gloo")
    with pytest.raises(ValueError, match="Cannot specify both init_method and store."):
        dist.init_process_group("mpi", init_method="env://", store=object())


@pytest.mark.parametrize("n", [1, 5, 9, 10, 11])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_matches_torch_in_order(n, drop_last):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    for rank in range(WORLD):
        ours = DistributedSampler(range(n), num_replicas=WORLD, rank=rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(range(n), num_replicas=WORLD, rank=rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_distributed_sampler_shuffles_one_permutation_per_epoch():
    """The ranks' shares of a shuffled epoch partition one permutation (padded to equal shares), the same
    for every rank; another epoch is another permutation."""
    def epoch(e):
        shares = []
        for rank in range(WORLD):
            s = DistributedSampler(range(10), num_replicas=WORLD, rank=rank, seed=3)
            s.set_epoch(e)
            shares.append(list(s))
        return shares

    shares = epoch(0)
    assert all(len(s) == 4 for s in shares)
    flat = [i for position in zip(*shares) for i in position]  # the padded permutation, in its order
    assert sorted(flat[:10]) == list(range(10)) and flat[10:] == flat[:2]
    assert epoch(0) == shares and epoch(1) != shares


def test_distributed_sampler_errors_as_torch():
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    with pytest.raises(ValueError) as theirs:
        TorchSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError) as ours:
        DistributedSampler(range(4), num_replicas=2, rank=2)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError) as ours:
        DistributedSampler(range(4))
    assert "Default process group has not been initialized" in str(ours.value)
    assert torch.distributed.is_available()
