"""Process groups: the default group made by ``init_process_group`` and the subgroups of ``new_group``.

A ``ProcessGroup`` wraps an MPI communicator. Ranks are those of the default group (the job's
``MPI.COMM_WORLD``); a subgroup maps them to its own communicator's ranks.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta

from . import _mpi

NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class Backend(str):
    """Backend names, as ``torch.distributed.Backend`` (only ``"mpi"`` is built)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)


class ProcessGroup:
    """A set of ranks and the MPI communicator that joins them."""

    def __init__(self, comm, world_ranks: list[int]) -> None:
        self.comm = comm  # None on a rank that is not a member
        self.world_ranks = world_ranks

    def rank(self) -> int:
        return self.comm.Get_rank() if self.comm is not None else -1

    def size(self) -> int:
        return len(self.world_ranks)

    def name(self) -> str:
        return "mpi"

    def __repr__(self) -> str:
        return f"<dyngrad.distributed.ProcessGroup ranks={self.world_ranks}>"


class _GroupMember:
    """``group.WORLD``: the default group, resolved when used (``dist.group.WORLD``)."""

    @property
    def WORLD(self):  # noqa: N802 - torch's name
        return _STATE.default

    NON_GROUP_MEMBER = object()


group = _GroupMember()
GroupMember = group


class _State:
    default: ProcessGroup | None = None
    backend: str | None = None
    groups: list = []


_STATE = _State()


def is_available() -> bool:
    """True: the distributed package is part of dyngrad (its transport, MPI, may still be missing)."""
    return True


def is_mpi_available() -> bool:
    """Whether the MPI transport can be used (the ``mpi4py`` package imports)."""
    return _mpi.available()


def is_gloo_available() -> bool:
    return False


def is_nccl_available() -> bool:
    return False


def is_ucc_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def is_initialized() -> bool:
    return _STATE.default is not None


def _default() -> ProcessGroup:
    if _STATE.default is None:
        raise ValueError(NOT_INITIALIZED)
    return _STATE.default


def _resolve(group) -> ProcessGroup:
    if group is None or group is GroupMember.WORLD:
        return _default()
    _default()
    return group


def init_process_group(backend=None, init_method=None, timeout=None, world_size: int = -1, rank: int = -1,
                       store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Join the job's processes into the default group, over MPI (torch's ``"mpi"`` backend).

    Launch the script with ``mpiexec -n N python script.py``: rank and world size come from MPI.

    Args:
        backend (str): ``"mpi"`` (or None, which picks it). ``"gloo"``/``"nccl"``/``"ucc"`` are not built
            into dyngrad: RuntimeError.
        init_method, store: accepted for torch's scripts; MPI needs no rendezvous. Giving both is an error,
            as in torch.
        timeout (datetime.timedelta): accepted (MPI has its own).
        world_size (int), rank (int): -1, or the values MPI gives (torch's MPI backend checks the same).

    Raises:
        ValueError: called twice ("trying to initialize the default process group twice!"), both
            ``init_method`` and ``store`` given, or a rank/world size MPI does not confirm.
        RuntimeError: a backend other than MPI, or mpi4py not installed.
    """
    if _STATE.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if not (init_method is None or store is None):
        raise ValueError("Cannot specify both init_method and store.")
    if timeout is not None and not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    name = Backend(backend) if backend is not None else Backend.MPI
    if name != Backend.MPI:
        raise RuntimeError(
            f"Distributed package doesn't have {str(name).upper()} built in: dyngrad's only backend is \"mpi\" "
            "(mpiexec -n N python script.py)")
    MPI = _mpi.mpi()
    if not MPI.Is_initialized():
        MPI.Init()
    comm = MPI.COMM_WORLD.Dup()
    if world_size not in (-1, comm.Get_size()):
        raise ValueError(f"world_size {world_size} does not match the MPI job's {comm.Get_size()} processes")
    if rank not in (-1, comm.Get_rank()):
        raise ValueError(f"rank {rank} does not match this process's MPI rank {comm.Get_rank()}")
    _STATE.default = ProcessGroup(comm, list(range(comm.Get_size())))
    _STATE.backend = Backend.MPI
    if comm.Get_size() > 1:
        _abort_on_uncaught_exception(MPI)


def _abort_on_uncaught_exception(MPI) -> None:
    """An exception that ends one rank ends the job (MPI_Abort) after its traceback is printed: the other ranks
    would otherwise wait forever in their next collective. (``python -m mpi4py`` does the same.)"""
    previous = sys.excepthook
    if getattr(previous, "_dyngrad_abort", False):
        return

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.flush()
        MPI.COMM_WORLD.Abort(1)

    hook._dyngrad_abort = True
    sys.excepthook = hook


def destroy_process_group(group=None) -> None:
    """Leave the default group (and every subgroup), or free one subgroup."""
    if group is None or group is _STATE.default:
        if _STATE.default is None:
            raise AssertionError("Process group cannot be None")
        for g in _STATE.groups:
            if g.comm is not None:
                g.comm.Free()
        _STATE.default.comm.Free()
        _STATE.default, _STATE.backend, _STATE.groups = None, None, []
        return
    if group.comm is not None:
        group.comm.Free()
        group.comm = None
    _STATE.groups.remove(group)


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (the default group if None); -1 if it is not a member."""
    return _resolve(group).rank()


def get_world_size(group=None) -> int:
    """The number of processes in ``group`` (the default group if None)."""
    return _resolve(group).size()


def get_backend(group=None) -> str:
    _resolve(group)
    return _STATE.backend


def get_process_group_ranks(group) -> list[int]:
    return list(_resolve(group).world_ranks)


def get_global_rank(group, group_rank: int) -> int:
    return _resolve(group).world_ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    ranks = _resolve(group).world_ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None) -> ProcessGroup:
    """A subgroup of the default group's ``ranks`` (all of them if None); every process must call it.

    A process outside ``ranks`` gets a group it cannot use (``get_rank(group)`` is -1), as in torch.
    """
    world = _default()
    ranks = sorted(range(world.size()) if ranks is None else ranks)
    for r in ranks:
        if not 0 <= r < world.size():
            raise ValueError(f"Invalid rank {r} in new_group: the world size is {world.size()}")
    MPI = _mpi.mpi()
    me = world.comm.Get_rank()
    comm = world.comm.Split(0 if me in ranks else MPI.UNDEFINED, ranks.index(me) if me in ranks else 0)
    pg = ProcessGroup(comm if comm != MPI.COMM_NULL else None, ranks)
    _STATE.groups.append(pg)
    return pg


def comm_of(group):
    """The MPI communicator of ``group``, for this process (torch's error if it is not a member)."""
    pg = _resolve(group)
    if pg.comm is None:
        raise RuntimeError("Invalid process group specified: this rank is not a member of the group")
    return pg
