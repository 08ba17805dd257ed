"""Distributed data parallel, side by side: dyngrad (MPI) against PyTorch (gloo), 1 and 2 processes.

    .venv/bin/python benchmarks/distributed.py            # about a minute

Runs benchmarks/ddp_job.py (the digits CNN, batches of 32 per process and then a global batch of 32
split across the processes, one BLAS thread per process) as real jobs: dyngrad under ``mpiexec -n N python -m dyngrad``, PyTorch
under ``torchrun --nproc_per_node=N``. It prints the step time and throughput of each, the scaling
from 1 to 2 processes, dyngrad's step time over torch's, and how much of the all-reduce the
bucketing hides behind the backward pass: 1 - (DDP step - step without communication) / all-reduce.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = os.path.join(HERE, "ddp_job.py")
BIN = os.path.dirname(sys.executable)
ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
           PYTHONPATH=os.pathsep.join([os.path.join(HERE, "..", "src"), os.environ.get("PYTHONPATH", "")]))


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(library: str, world: int, per_process: bool) -> dict:
    if library == "dyngrad":
        cmd = [os.path.join(BIN, "mpiexec"), "-n", str(world), sys.executable, "-m", "dyngrad", JOB]
    else:
        cmd = [os.path.join(BIN, "torchrun"), f"--nproc_per_node={world}", f"--master_port={_port()}", JOB]
    env = dict(ENV, BENCH_PER_PROCESS="1" if per_process else "0")
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, check=True).stdout
    return json.loads([line for line in out.splitlines() if line.startswith("{")][-1])


def main() -> None:
    for per_process in (True, False):
        print("batch of 32 per process (weak scaling)" if per_process else
              "global batch of 32, split across the processes (strong scaling)")
        table(per_process)
        print()


def table(per_process: bool) -> None:
    results = {(lib, n): run(lib, n, per_process) for lib in ("dyngrad", "torch") for n in (1, 2)}
    print(f"{'library':8} {'procs':>5} {'step ms':>8} {'samples/s':>10} {'local ms':>9} {'allreduce ms':>13} "
          f"{'hidden':>7}")
    for (lib, n), r in results.items():
        # the part of the all-reduce that does not add to the step (noise can push the estimate outside [0, 1])
        hidden = "" if n == 1 else f"{min(1.0, max(0.0, 1 - (r['step_s'] - r['local_step_s']) / r['allreduce_s'])):7.0%}"
        print(f"{lib:8} {n:5d} {r['step_s'] * 1e3:8.2f} {r['samples_per_s']:10.0f} {r['local_step_s'] * 1e3:9.2f} "
              f"{r['allreduce_s'] * 1e3:13.3f} {hidden:>7}")
    for lib in ("dyngrad", "torch"):
        print(f"{lib}: throughput of 2 processes / 1 process = "
              f"{results[(lib, 2)]['samples_per_s'] / results[(lib, 1)]['samples_per_s']:.2f}x")
    print(f"dyngrad / torch step time, 2 processes: "
          f"{results[('dyngrad', 2)]['step_s'] / results[('torch', 2)]['step_s']:.2f}x")


if __name__ == "__main__":
    main()
