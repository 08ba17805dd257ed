"""dyngrad.nn.parallel: ``DistributedDataParallel`` (data parallelism across MPI processes) and ``DataParallel``
(which, on the CPU, runs the module as it is)."""

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
