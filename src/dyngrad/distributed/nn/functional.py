"""Differentiable collectives, as ``torch.distributed.nn.functional``.

Unlike ``dyngrad.distributed.all_reduce`` (in place, outside autograd), these return new tensors
and have gradients: the backward of a sum across processes is a sum of the gradients across
processes (each process's output depends on every process's input), the backward of a gather is
the sum over processes of the gradient slices that belong to this process, and the backward of a
broadcast is a reduction of the gradients onto the source.
"""

from __future__ import annotations

from ... import autograd
from .. import collectives as c
from ..process_group import comm_of


class _AllReduce(autograd.Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        if op not in (c.ReduceOp.SUM, c.ReduceOp.AVG):
            raise RuntimeError(f"dyngrad.distributed.nn.functional.all_reduce: the gradient of {op} is not "
                               "defined; use SUM or AVG")
        ctx.op, ctx.group = op, group
        out = tensor.clone()
        c.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad)


def all_reduce(tensor, op=c.ReduceOp.SUM, group=None):
    """The reduction of ``tensor`` across processes, as a new tensor with a gradient (SUM or AVG).

    Args:
        tensor (Tensor): this process's contribution, any shape (the same on every process).
        op (ReduceOp): SUM (default) or AVG.
        group: the default group if None.

    Returns:
        Tensor: the reduction, the same on every process; its gradient is the same reduction of the
        gradients (every process must call backward).
    """
    return _AllReduce.apply(op, group, tensor)


class _AllGather(autograd.Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        pg = comm_of(group)
        outs = [tensor.new_empty(tensor.shape) for _ in range(pg.size())]
        c.all_gather(outs, tensor.contiguous(), group=group)
        ctx.rank = pg.comm.Get_rank()
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        from ... import stack, zeros_like

        grads = [g if g is not None else zeros_like(grads[0]) for g in grads]
        summed = _AllReduce.apply(c.ReduceOp.SUM, ctx.group, stack(grads))
        return None, summed[ctx.rank]


def all_gather(tensor, group=None):
    """Every process's ``tensor``, as a tuple (one per rank) with gradients.

    Returns:
        tuple of Tensor: element i is process i's tensor; the gradient that reaches ``tensor`` is
        the sum over processes of the gradients of element ``rank``.
    """
    return _AllGather.apply(group, tensor)


class _Broadcast(autograd.Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group = src, group
        out = tensor.clone()
        c.broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        from ... import zeros_like
        from ..process_group import get_rank

        total = grad.clone()
        c.reduce(total, ctx.src, group=ctx.group)
        return None, None, total if get_rank() == ctx.src else zeros_like(grad)


def broadcast(tensor, src, group=None):
    """Rank ``src``'s ``tensor`` on every process, with a gradient (the sum of every process's
    gradient reaches ``src``'s input; the others' inputs get zeros)."""
    return _Broadcast.apply(src, group, tensor)
