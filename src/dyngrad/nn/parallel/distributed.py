"""DistributedDataParallel: one model replica per process, gradients averaged during backward.

How it works (torch's design, on MPI):
- At construction rank 0's parameters and buffers are broadcast, so every replica starts equal.
- The parameters that require grad are cut into buckets of about ``bucket_cap_mb`` megabytes, in
  reverse order of ``module.parameters()`` (about the order backward produces their gradients).
- A post-accumulate-grad hook on each parameter counts the bucket's ready gradients; when a bucket
  is complete, its gradients (each divided by the world size, as torch's reducer does) are packed
  into one flat array and a non-blocking ``MPI_Iallreduce`` starts, while backward goes on.
  Buckets start in order (a bucket waits for the ones before it), so every process issues the
  same collectives in the same order, as MPI requires.
- When the last bucket has started, every request is waited on and the averaged gradients are
  written back into ``p.grad``, all before ``backward()`` returns.
- ``find_unused_parameters=True``: forward walks the output's graph and counts the parameters it
  cannot reach as ready (their part of the bucket is zeros), so a model that skips some layers
  still completes its reduction.
"""

from __future__ import annotations

import contextlib

import numpy as np

from ... import distributed as dist
from ...autograd import grad_mode
from ..modules.module import Module

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs participate "
    "in calculating loss."
)


class _Bucket:
    def __init__(self, params) -> None:
        self.params = params
        self.pending = len(params)
        self.request = None
        self.buffer = None


class DistributedDataParallel(Module):
    """Data parallelism across the processes of a ``dyngrad.distributed`` group, as
    ``torch.nn.parallel.DistributedDataParallel``.

    Each process runs the same model on its own share of the data; ``backward()`` leaves in every
    process the gradient averaged over the processes, so the optimizers keep the replicas equal.

    Args:
        module (Module): the model; ``ddp.module`` is it, and ``ddp.state_dict()`` keys start with
            ``module.`` as in torch.
        device_ids, output_device, dim: accepted for torch's scripts; must be None on the CPU.
        broadcast_buffers (bool): copy rank 0's buffers (BatchNorm statistics) to every process at
            each forward. Default True.
        process_group: the group (default: the default group).
        bucket_cap_mb (float): bucket size in megabytes. Default 25.
        find_unused_parameters (bool): find the parameters the forward did not use. Default False.
        gradient_as_bucket_view, static_graph, check_reduction: accepted (no effect).

    Raises:
        ValueError: the default process group is not initialized (torch's text).
        RuntimeError: a forward starts while the previous backward left a reduction unfinished
            (unused parameters without ``find_unused_parameters=True``), with torch's text.

    Example::

        # mpiexec -n 2 python train.py
        dist.init_process_group("mpi")
        model = DistributedDataParallel(nn.Linear(10, 1))
        loss = model(x_shard).pow(2).mean()
        loss.backward()          # every process now holds the mean gradient over both shards
    """

    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0, broadcast_buffers: bool = True,
                 init_sync: bool = True, process_group=None, bucket_cap_mb=None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params: bool = False) -> None:
        super().__init__()
        if device_ids:
            raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                             "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                             f"{device_ids}, output_device {output_device}, and module parameters {{device(type='cpu')}}.")
        self.module = module
        self.process_group = process_group
        self._group_size = dist.get_world_size(process_group)
        self._src = dist.get_process_group_ranks(process_group)[0] if process_group is not None else 0
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.static_graph = static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        if init_sync:
            with grad_mode.no_grad():
                for t in list(module.parameters()) + list(module.buffers()):
                    dist.broadcast(t, self._src, group=process_group)
        self._params = [p for p in module.parameters() if p.requires_grad]
        self._buckets = self._make_buckets()
        self._bucket_of = {id(p): b for b in self._buckets for p in b.params}
        self._active = False  # a reduction is armed for the current backward
        self._next = 0  # the next bucket to start
        self._hooks = [p.register_post_accumulate_grad_hook(self._grad_ready) for p in self._params]

    def _make_buckets(self) -> list:
        buckets, current, size = [], [], 0
        for p in reversed(self._params):
            nbytes = p._data.nbytes
            if current and size + nbytes > self.bucket_bytes_cap:
                buckets.append(_Bucket(current))
                current, size = [], 0
            current.append(p)
            size += nbytes
        if current:
            buckets.append(_Bucket(current))
        return buckets

    # -- forward ---------------------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        if self._active and self._next < len(self._buckets):
            raise RuntimeError(_UNFINISHED)
        if self.broadcast_buffers and self.require_forward_param_sync and self._group_size > 1:
            with grad_mode.no_grad():
                for b in self.module.buffers():
                    dist.broadcast(b, self._src, group=self.process_group)
        output = self.module(*inputs, **kwargs)
        self._arm(output)
        return output

    def _arm(self, output) -> None:
        """Prepare the reduction of the coming backward (torch's ``prepare_for_backward``)."""
        self._active = grad_mode.is_grad_enabled() and self.require_backward_grad_sync and bool(self._buckets)
        if not self._active:
            return
        self._next = 0
        for b in self._buckets:
            b.pending, b.request, b.buffer = len(b.params), None, None
        if self.find_unused_parameters:
            used = _reachable_leaves(output)
            for p in self._params:
                if id(p) not in used:
                    self._mark_ready(p)

    # -- backward --------------------------------------------------------------------------------------

    def _grad_ready(self, p) -> None:
        if self._active:
            self._mark_ready(p)

    def _mark_ready(self, p) -> None:
        bucket = self._bucket_of[id(p)]
        bucket.pending -= 1
        while self._next < len(self._buckets) and self._buckets[self._next].pending == 0:
            self._start(self._buckets[self._next])
            self._next += 1
        if self._next == len(self._buckets):
            self._finish()

    def _start(self, bucket: _Bucket) -> None:
        from ...distributed import _mpi

        parts = []
        for p in bucket.params:
            g = p.grad
            parts.append(np.zeros(p._data.size, p._data.dtype) if g is None else g._data.reshape(-1) / self._group_size)
        bucket.buffer = np.concatenate(parts) if len(parts) > 1 else np.array(parts[0])
        MPI = _mpi.mpi()
        comm = (self.process_group or dist.group.WORLD).comm
        bucket.request = comm.Iallreduce(MPI.IN_PLACE, bucket.buffer, op=MPI.SUM)

    def _finish(self) -> None:
        for bucket in self._buckets:
            bucket.request.Wait()
            offset = 0
            for p in bucket.params:
                n = p._data.size
                if p.grad is not None:
                    np.copyto(p.grad._data, bucket.buffer[offset:offset + n].reshape(p._data.shape))
                    p.grad._vc[0] += 1
                offset += n
            bucket.buffer = bucket.request = None
        self._active = False

    # -- torch's other public pieces -------------------------------------------------------------------

    @contextlib.contextmanager
    def no_sync(self):
        """Inside the block, backward accumulates gradients locally without reducing them (gradient
        accumulation); the first backward after it reduces the accumulated gradients."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    @contextlib.contextmanager
    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True, throw_on_early_termination=False):
        """Accepted for torch's scripts; every process must run the same number of iterations."""
        yield

    def register_comm_hook(self, state, hook) -> None:
        raise NotImplementedError("dyngrad's DistributedDataParallel has no communication hooks yet")

    def _set_static_graph(self) -> None:
        self.static_graph = True


def _reachable_leaves(output) -> set:
    """ids of the leaf tensors the graph behind ``output`` (a tensor or a nested container) reaches."""
    from ..._tensor import Tensor

    roots, stack, seen, leaves = [], [output], set(), set()
    while stack:
        x = stack.pop()
        if isinstance(x, Tensor):
            if x.grad_fn is not None:
                roots.append(x.grad_fn)
            elif x.requires_grad:
                leaves.add(id(x))
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
    while roots:
        node = roots.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            leaves.add(id(variable))
        roots.extend(n for n, _ in node.next_functions if n is not None)
    return leaves
