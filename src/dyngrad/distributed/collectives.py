"""The collectives and point-to-point calls on tensors, each the MPI call of the same name.

As in torch, a collective writes its result into the tensors it is given, in place and outside
autograd (the version counter moves, no graph is recorded); ``dyngrad.distributed.nn.functional``
has the differentiable forms. ``src``/``dst`` are ranks of the default group, as in torch.
With ``async_op=True`` a call returns a ``Work`` at once (MPI's non-blocking call); ``wait()``
completes it.
"""

from __future__ import annotations

import enum

import numpy as np

from . import _mpi
from .process_group import comm_of


class ReduceOp(enum.Enum):
    """The reductions of ``all_reduce``, ``reduce`` and ``reduce_scatter`` (torch.distributed.ReduceOp)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"


class Work:
    """A collective in flight (what ``async_op=True`` returns); ``wait()`` completes it."""

    def __init__(self, requests=(), finish=None, result=None) -> None:
        self._requests = list(requests)
        self._finish = finish
        self._done = False
        self._result = result

    def is_completed(self) -> bool:
        if not self._done and all(r.Test() for r in self._requests):
            self._complete()
        return self._done

    def wait(self, timeout=None) -> bool:
        if not self._done:
            for r in self._requests:
                r.Wait()
            self._complete()
        return True

    def _complete(self) -> None:
        if self._finish is not None:
            self._finish()
        self._done = True

    def is_success(self) -> bool:
        return self._done

    def result(self):
        return self._result if self._result is not None else []

    def source_rank(self) -> int:
        return self._result


def _bump(t) -> None:
    t._vc[0] += 1


def _wire(t):
    """(array MPI reads/writes, a function that writes it back into ``t``)."""
    a = t._data
    if a.dtype == np.bool_:
        w = a.astype(np.uint8)
        return w, lambda: (np.copyto(t._data, w.astype(bool)), _bump(t))
    w, copied = _mpi.wire_array(a)
    if copied:
        return w, lambda: (np.copyto(t._data, w.astype(a.dtype, copy=False)), _bump(t))
    return w, lambda: _bump(t)


def _run(async_op: bool, start, finish):
    """Start a blocking or non-blocking MPI call; return a Work (async) or None after finishing."""
    if async_op:
        return Work([start(True)], finish)
    start(False)
    finish()
    return None


def _same_everywhere(pg, name: str, *arrays) -> None:
    """Raise on every rank, instead of hanging or corrupting memory, when the ranks' tensors differ in
    shape or dtype (MPI would read past a smaller buffer). One small all-gather of the metadata."""
    mine = tuple((a.dtype.str, a.shape) for a in arrays)
    everyone = pg.comm.allgather(mine)
    if any(other != mine for other in everyone):
        described = ", ".join(f"rank {pg.world_ranks[r]} has " + " ".join(f"{np.dtype(d).name}{list(s)}" for d, s in m)
                              for r, m in enumerate(everyone))
        raise RuntimeError(f"{name}: the tensors must have the same shape and dtype on every rank, but {described}")


def _root(pg, rank: int) -> int:
    if rank not in pg.world_ranks:
        raise ValueError(f"Group {pg} does not contain rank {rank}")
    return pg.world_ranks.index(rank)


def _check_tensor(t, name: str = "tensor") -> None:
    from .._tensor import Tensor

    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``tensor`` across the group's processes; every process gets the result, in place.

    Args:
        tensor (Tensor): input and output, any shape and dtype (the same on every rank).
        op (ReduceOp): SUM (default), AVG, PRODUCT, MIN, MAX, BAND, BOR or BXOR.
        group (ProcessGroup or None): the default group if None.
        async_op (bool): return a ``Work`` instead of waiting.
    """
    _check_tensor(tensor)
    pg = comm_of(group)
    MPI = _mpi.mpi()
    w, write_back = _wire(tensor)
    _same_everywhere(pg, "all_reduce", w)
    mop = _mpi.mpi_op(op)

    def finish():
        if op is ReduceOp.AVG:
            if np.issubdtype(w.dtype, np.integer):
                np.floor_divide(w, pg.size(), out=w)
            else:
                np.divide(w, pg.size(), out=w)
        write_back()

    def start(nonblocking):
        call = pg.comm.Iallreduce if nonblocking else pg.comm.Allreduce
        return call(MPI.IN_PLACE, w, op=mop)

    return _run(async_op, start, finish)


def reduce(tensor, dst: int = 0, op=ReduceOp.SUM, group=None, async_op: bool = False, group_dst=None):
    """Reduce ``tensor`` across the group into rank ``dst``'s tensor (the others keep theirs)."""
    _check_tensor(tensor)
    pg = comm_of(group)
    MPI = _mpi.mpi()
    root = group_dst if group_dst is not None else _root(pg, dst)
    w, write_back = _wire(tensor)
    _same_everywhere(pg, "reduce", w)
    me = pg.comm.Get_rank()
    mop = _mpi.mpi_op(op)

    def finish():
        if me == root:
            if op is ReduceOp.AVG:
                np.divide(w, pg.size(), out=w, casting="unsafe")
            write_back()

    def start(nonblocking):
        call = pg.comm.Ireduce if nonblocking else pg.comm.Reduce
        if me == root:
            return call(MPI.IN_PLACE, w, op=mop, root=root)
        return call(w, None, op=mop, root=root)

    return _run(async_op, start, finish)


def broadcast(tensor, src: int = 0, group=None, async_op: bool = False, group_src=None):
    """Copy rank ``src``'s ``tensor`` into every other process's ``tensor``."""
    _check_tensor(tensor)
    pg = comm_of(group)
    root = group_src if group_src is not None else _root(pg, src)
    w, write_back = _wire(tensor)
    _same_everywhere(pg, "broadcast", w)

    def start(nonblocking):
        return (pg.comm.Ibcast if nonblocking else pg.comm.Bcast)(w, root=root)

    return _run(async_op, start, write_back)


def _gather_buffer(t, n):
    w, _ = _mpi.wire_array(t._data if t._data.dtype != np.bool_ else t._data.astype(np.uint8))
    return w, np.empty((n,) + w.shape, dtype=w.dtype)


def _check_list(tensors, n: int, what: str) -> None:
    if len(tensors) != n:
        raise ValueError(f"{what}: the list has {len(tensors)} tensors, the group has {n} processes")


def _store(t, value) -> None:
    np.copyto(t._data, np.asarray(value).reshape(t._data.shape).astype(t._data.dtype, copy=False))
    _bump(t)


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """Gather every process's ``tensor`` into ``tensor_list`` (one tensor per rank) on every process."""
    _check_tensor(tensor)
    pg = comm_of(group)
    _check_list(tensor_list, pg.size(), "all_gather")
    send, recv = _gather_buffer(tensor, pg.size())
    _same_everywhere(pg, "all_gather", send)

    def finish():
        for out, part in zip(tensor_list, recv):
            _store(out, part)

    def start(nonblocking):
        return (pg.comm.Iallgather if nonblocking else pg.comm.Allgather)(send, recv)

    return _run(async_op, start, finish)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Every process's ``input_tensor`` concatenated (or stacked) along dim 0 into ``output_tensor``."""
    _check_tensor(input_tensor, "input_tensor")
    pg = comm_of(group)
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input tensor size")
    send, recv = _gather_buffer(input_tensor, pg.size())
    _same_everywhere(pg, "all_gather_into_tensor", send)

    def start(nonblocking):
        return (pg.comm.Iallgather if nonblocking else pg.comm.Allgather)(send, recv)

    return _run(async_op, start, lambda: _store(output_tensor, recv))


def gather(tensor, gather_list=None, dst: int = 0, group=None, async_op: bool = False, group_dst=None):
    """Every process's ``tensor`` into ``gather_list`` on rank ``dst`` (None elsewhere)."""
    _check_tensor(tensor)
    pg = comm_of(group)
    root = group_dst if group_dst is not None else _root(pg, dst)
    me = pg.comm.Get_rank()
    if me == root:
        if gather_list is None:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_list(gather_list, pg.size(), "gather")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    send, recv = _gather_buffer(tensor, pg.size())
    _same_everywhere(pg, "gather", send)

    def finish():
        if me == root:
            for out, part in zip(gather_list, recv):
                _store(out, part)

    def start(nonblocking):
        return (pg.comm.Igather if nonblocking else pg.comm.Gather)(send, recv if me == root else None, root=root)

    return _run(async_op, start, finish)


def scatter(tensor, scatter_list=None, src: int = 0, group=None, async_op: bool = False, group_src=None):
    """Rank ``src``'s ``scatter_list[i]`` into process i's ``tensor``."""
    _check_tensor(tensor)
    pg = comm_of(group)
    root = group_src if group_src is not None else _root(pg, src)
    me = pg.comm.Get_rank()
    w, write_back = _wire(tensor)
    send = None
    if me == root:
        if scatter_list is None:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_list(scatter_list, pg.size(), "scatter")
        send = np.stack([np.asarray(t._data, dtype=w.dtype) for t in scatter_list])
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")

    def start(nonblocking):
        return (pg.comm.Iscatter if nonblocking else pg.comm.Scatter)(send, w, root=root)

    return _run(async_op, start, write_back)


def _reduce_scatter(output, send, op, pg, async_op):
    w, write_back = _wire(output)
    _same_everywhere(pg, "reduce_scatter", w, send)
    mop = _mpi.mpi_op(op)

    def finish():
        if op is ReduceOp.AVG:
            np.divide(w, pg.size(), out=w, casting="unsafe")
        write_back()

    def start(nonblocking):
        call = pg.comm.Ireduce_scatter_block if nonblocking else pg.comm.Reduce_scatter_block
        return call(send, w, op=mop)

    return _run(async_op, start, finish)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``input_list[i]`` across processes into process i's ``output``."""
    _check_tensor(output, "output")
    pg = comm_of(group)
    _check_list(input_list, pg.size(), "reduce_scatter")
    w, _ = _mpi.wire_array(output._data)
    send = np.stack([np.asarray(t._data, dtype=w.dtype) for t in input_list])
    return _reduce_scatter(output, send, op, pg, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op: bool = False):  # noqa: A002
    """``input`` split in world-size chunks along dim 0; chunk i reduced across processes into process i's ``output``."""
    _check_tensor(output, "output")
    pg = comm_of(group)
    if input.numel() != output.numel() * pg.size():
        raise ValueError("input tensor must be the same size as output size times world size")
    w, _ = _mpi.wire_array(output._data)
    send = np.ascontiguousarray(input._data, dtype=w.dtype)
    return _reduce_scatter(output, send, op, pg, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op: bool = False):
    """Process i's ``input_tensor_list[j]`` goes to process j's ``output_tensor_list[i]`` (sizes may differ)."""
    pg = comm_of(group)
    _check_list(input_tensor_list, pg.size(), "all_to_all")
    _check_list(output_tensor_list, pg.size(), "all_to_all")
    received = pg.comm.alltoall([np.array(t._data) for t in input_tensor_list])
    for out, part in zip(output_tensor_list, received):
        _store(out, part)
    return Work() if async_op else None


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,  # noqa: A002
                      async_op: bool = False):
    """``all_to_all`` on the dim-0 pieces of one tensor (equal pieces, or ``*_split_sizes``)."""
    pg = comm_of(group)
    n = pg.size()
    a = np.asarray(input._data)
    if input_split_sizes is None:
        if a.shape[0] % n:
            raise ValueError("all_to_all_single: the input's dim 0 must be divisible by the world size")
        input_split_sizes = [a.shape[0] // n] * n
    pieces = np.split(a, np.cumsum(input_split_sizes)[:-1])
    received = pg.comm.alltoall([np.array(p) for p in pieces])
    _store(output, np.concatenate(received, axis=0))
    return Work() if async_op else None


def barrier(group=None, async_op: bool = False, device_ids=None):
    """Wait until every process of the group has called ``barrier``."""
    pg = comm_of(group)
    if async_op:
        return Work([pg.comm.Ibarrier()])
    pg.comm.Barrier()
    return None


def monitored_barrier(group=None, timeout=None, wait_all_ranks: bool = False) -> None:
    barrier(group)


def send(tensor, dst: int, group=None, tag: int = 0, group_dst=None) -> None:
    """Send ``tensor`` to rank ``dst`` (blocking)."""
    _check_tensor(tensor)
    pg = comm_of(group)
    w, _ = _wire(tensor)
    pg.comm.Send(w, dest=group_dst if group_dst is not None else _root(pg, dst), tag=tag)


def recv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank if None); returns the sender's rank."""
    _check_tensor(tensor)
    pg = comm_of(group)
    MPI = _mpi.mpi()
    w, write_back = _wire(tensor)
    status = MPI.Status()
    source = group_src if group_src is not None else (MPI.ANY_SOURCE if src is None else _root(pg, src))
    pg.comm.Recv(w, source=source, tag=tag, status=status)
    write_back()
    return pg.world_ranks[status.Get_source()]


def isend(tensor, dst: int, group=None, tag: int = 0, group_dst=None) -> Work:
    """Start sending ``tensor`` to rank ``dst``; returns a ``Work``."""
    _check_tensor(tensor)
    pg = comm_of(group)
    w, _ = _wire(tensor)
    return Work([pg.comm.Isend(w, dest=group_dst if group_dst is not None else _root(pg, dst), tag=tag)])


def irecv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> Work:
    """Start receiving into ``tensor`` from rank ``src`` (any if None); returns a ``Work``."""
    _check_tensor(tensor)
    pg = comm_of(group)
    MPI = _mpi.mpi()
    w, write_back = _wire(tensor)
    source = group_src if group_src is not None else (MPI.ANY_SOURCE if src is None else _root(pg, src))
    return Work([pg.comm.Irecv(w, source=source, tag=tag)], write_back)


class P2POp:
    """One send or receive for ``batch_isend_irecv``: ``P2POp(dist.isend, tensor, peer)``."""

    def __init__(self, op, tensor, peer=None, group=None, tag: int = 0, group_peer=None) -> None:
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag


def batch_isend_irecv(p2p_op_list) -> list:
    """Start every send and receive of the list; returns their ``Work``s."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, group=p.group, tag=p.tag) for p in p2p_op_list]


# Objects travel pickled (mpi4py's lowercase calls), as torch's object collectives pickle them.

def all_gather_object(object_list, obj, group=None) -> None:
    """``object_list[i]`` becomes process i's ``obj`` (pickled), on every process."""
    pg = comm_of(group)
    object_list[:] = pg.comm.allgather(obj)


def broadcast_object_list(object_list, src: int = 0, group=None, device=None, group_src=None) -> None:
    """Every process's ``object_list`` becomes rank ``src``'s (same length on every process)."""
    pg = comm_of(group)
    root = group_src if group_src is not None else _root(pg, src)
    object_list[:] = pg.comm.bcast(list(object_list) if pg.comm.Get_rank() == root else None, root=root)


def gather_object(obj, object_gather_list=None, dst: int = 0, group=None, group_dst=None) -> None:
    """Every process's ``obj`` into ``object_gather_list`` on rank ``dst``."""
    pg = comm_of(group)
    root = group_dst if group_dst is not None else _root(pg, dst)
    result = pg.comm.gather(obj, root=root)
    if pg.comm.Get_rank() == root:
        object_gather_list[:] = result


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src: int = 0, group=None,
                        group_src=None) -> None:
    """Process i's ``scatter_object_output_list[0]`` becomes rank ``src``'s ``scatter_object_input_list[i]``."""
    pg = comm_of(group)
    root = group_src if group_src is not None else _root(pg, src)
    scatter_object_output_list[0] = pg.comm.scatter(
        list(scatter_object_input_list) if pg.comm.Get_rank() == root else None, root=root)
