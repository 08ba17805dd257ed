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


def _run_job(worker: str, timeout: float = 240, runner: str | None = "mpi4py", world: int = WORLD,
             expect_success: bool = True, extra_env: dict | None = None) -> str:
    env = dict(os.environ, **(extra_env or {}), PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([_mpiexec(), "-n", str(world), sys.executable, *(["-m", runner] if runner else []), str(HERE / "distributed" /
                             worker)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"{worker} did not finish in {timeout} s:\n{out}")
    assert (proc.returncode == 0) == expect_success, out
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


def test_distributed_data_parallel_matches_single_process_torch(tmp_path):
    """DDP on 3 processes against torch on the whole batch; then its checkpoint (written by rank 0 with
    dyngrad.save mid-training) resumes on 2 processes, and equals torch resuming the same file in one process."""
    import ast

    import numpy as np

    checkpoint = tmp_path / "ddp.pt"
    oks = _oks(_run_job("ddp_worker.py", extra_env={"CHECKPOINT": str(checkpoint)}))
    for name in ("ddp bucket_cap_mb=25", "ddp bucket_cap_mb=1e-05", "ddp no_sync", "ddp find_unused_parameters",
                 "ddp unused parameter error", "sync batchnorm", "checkpoint"):
        for rank in range(WORLD):
            assert f"{name} rank={rank}" in oks, f"missing: {name} on rank {rank}"

    out = _run_job("resume_worker.py", world=2, extra_env={"CHECKPOINT": str(checkpoint)})
    saved = torch.load(checkpoint, weights_only=True)  # PyTorch reads the file dyngrad's rank 0 wrote
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).double()
    model.load_state_dict({k.removeprefix("module."): v for k, v in saved["model"].items()})
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    opt.load_state_dict(saved["optimizer"])
    data = np.random.RandomState(0)
    X, Y = torch.tensor(data.randn(12, 4)), torch.tensor(data.randn(12, 1))
    for _ in range(2):
        opt.zero_grad()
        ((model(X) - Y) ** 2).mean().backward()
        opt.step()
    expected = torch.cat([p.detach().reshape(-1) for p in model.parameters()]).numpy()
    resumed = [ok for ok in _oks(out) if ok.startswith("resumed ")]
    assert len(resumed) == 2, out
    for ok in resumed:
        values, rest = ok[len("resumed "):].split("] ", 1)
        assert rest.startswith("epoch=2")
        np.testing.assert_allclose(np.array(ast.literal_eval(values + "]")), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("world", [2, 3])
def test_unmodified_torch_script_under_python_m_dyngrad(world):
    """A torch DDP script (torch imports, DistributedSampler padding an uneven dataset, DataLoader, BatchNorm
    buffers broadcast from rank 0) run through ``python -m dyngrad``: every rank ends with the weights of plain
    torch trained on the same batches (the mean of the ranks' losses per step), and rank 0's BatchNorm buffers."""
    import ast

    import numpy as np
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    out = _run_job("torch_script_worker.py", runner="dyngrad", world=world)
    xs = torch.arange(22, dtype=torch.float64).reshape(11, 2) / 10
    ys = xs.sum(1, keepdim=True)
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 1)).double()
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel(), dtype=torch.float64).reshape(p.shape) * (i + 1))
    shares = [list(TorchSampler(xs, num_replicas=world, rank=r, shuffle=False)) for r in range(world)]
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    params = dict(model.named_parameters())
    buffers = {k: v.clone() for k, v in model.named_buffers()}
    for step in range(0, len(shares[0]), 2):
        opt.zero_grad()
        loss, start = 0, buffers
        for r in range(world):  # each rank starts from rank 0's buffers (DDP broadcasts them at each forward)
            idx = shares[r][step:step + 2]
            own = {k: v.clone() for k, v in start.items()}
            out_r = torch.func.functional_call(model, {**params, **own}, (xs[idx],))
            loss = loss + torch.nn.functional.mse_loss(out_r, ys[idx]) / world
            if r == 0:
                buffers = own
        loss.backward()
        opt.step()

    def printed(kind):
        found = {ok.rsplit(" rank=", 1)[1]: ast.literal_eval(ok.split(" ", 1)[1].rsplit(" rank=", 1)[0])
                 for ok in _oks(out) if ok.startswith(kind + " ")}
        assert sorted(found) == [str(r) for r in range(world)], out
        return found

    expected = torch.cat([p.detach().reshape(-1) for p in model.parameters()]).numpy()
    for weights in printed("weights").values():
        np.testing.assert_allclose(weights, expected, rtol=0, atol=1e-11)
    running_mean = printed("buffers")["0"]  # rank 0's (the others' hold the statistics of their own last batch)
    np.testing.assert_allclose(running_mean, buffers["1.running_mean"].numpy(), rtol=0, atol=1e-12)


def test_bad_input_raises_on_every_rank_and_a_failing_rank_ends_the_job():
    out = _run_job("faults_worker.py", runner=None, timeout=120, expect_success=False)
    oks = _oks(out)
    for name in ("second init", "mismatched sizes all_reduce", "mismatched sizes broadcast", "mismatched dtypes"):
        for rank in range(WORLD):
            assert f"{name} rank={rank}" in oks, out
    assert "ZeroDivisionError: rank 1 fails on purpose" in out and "NOT REACHED" not in out


def test_digits_ddp_example_trains_as_the_single_process_demo(tmp_path):
    """examples/digits_ddp.py on 2 processes, the CNN demo's short run (10 epochs, lr 3e-3): the accuracy bound of
    tests/test_examples.py's single-process short run, equal replicas, rank 0's PNG."""
    plot = tmp_path / "ddp.png"
    env = dict(os.environ, PYTHONPATH=str(HERE.parent / "src"), OMP_NUM_THREADS="1")
    proc = subprocess.run([_mpiexec(), "-n", "2", sys.executable, "-m", "mpi4py", str(HERE.parent / "examples" /
                           "digits_ddp.py"), "--epochs", "10", "--lr", "3e-3", "--plot", str(plot)],
                          capture_output=True, text=True, timeout=300, env=env, start_new_session=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    last = [line for line in proc.stdout.splitlines() if line.startswith("test accuracy: ")]
    assert len(last) == 1 and last[0].endswith("2 processes; replicas equal: True"), proc.stdout
    assert float(last[0].split()[2].rstrip("%")) / 100 >= 0.93
    assert proc.stdout.count("mean train loss") == 10  # rank 0 alone prints
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_same_program_prints_the_same_losses_on_torch_gloo_and_dyngrad_mpi():
    """tests/distributed/same_program.py, unchanged: PyTorch under torchrun (gloo, 2 processes) and dyngrad under
    mpiexec (MPI, 2 processes) print the same per-step losses (the mean over the processes)."""
    program = str(HERE / "distributed" / "same_program.py")
    torchrun = Path(sys.executable).parent / "torchrun"
    proc = subprocess.Popen([str(torchrun), "--nproc_per_node=2", f"--master_port={_free_port()}", program],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        torch_out, _ = proc.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        torch_out, _ = proc.communicate()
        pytest.fail(f"torchrun did not finish:\n{torch_out}")
    assert proc.returncode == 0, torch_out
    ours = _run_job("same_program.py", runner="dyngrad", world=2)

    def losses(out):
        return sorted(line for line in out.splitlines() if line.startswith("rank ") and " loss " in line)

    assert len(losses(torch_out)) == 10 and losses(ours) == losses(torch_out), (ours, torch_out)


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
