"""SyncBatchNorm: batch normalisation whose batch statistics span every process of a distributed job."""

from __future__ import annotations

from ... import _creation
from ...autograd import grad_mode
from .normalization import _NormBase


class SyncBatchNorm(_NormBase):
    """Batch normalisation over the whole distributed batch, as ``torch.nn.SyncBatchNorm``.

    In training, when a process group has more than one process, the per-channel sums of ``x`` and
    ``x**2`` and the element counts of every process are added with one differentiable all-reduce
    (``dyngrad.distributed.nn.functional.all_reduce``), so each process normalises with the mean and
    biased variance of the concatenated batch and the gradient flows through the shared statistics
    to every process's input, as torch's SyncBatchNorm. The running statistics take the unbiased
    variance of the whole batch. In eval mode, or outside a distributed job, it is ``BatchNorm``.

    Args:
        num_features (int): C of an input of shape (N, C, ...).
        eps, momentum, affine, track_running_stats: as ``BatchNorm1d``.
        process_group: the processes that share statistics (the default group if None).

    Raises:
        ValueError: an input with fewer than 2 dims (torch's text).
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _world(self) -> int:
        from ... import distributed as dist

        return dist.get_world_size(self.process_group) if dist.is_initialized() else 1

    def forward(self, input):
        if not self.training or self._world() == 1:
            return super().forward(input)
        from ... import cat
        from ...distributed.nn import functional as dfn

        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        c = input.shape[1]
        dims = [0] + list(range(2, input.dim()))
        count = _creation.full((1,), input.numel() // max(c, 1), dtype=input.dtype)
        totals = dfn.all_reduce(cat([input.sum(dims), (input * input).sum(dims), count]), group=self.process_group)
        n = totals[2 * c]
        mean = totals[:c] / n
        var = totals[c:2 * c] / n - mean * mean
        shape = [1, c] + [1] * (input.dim() - 2)
        out = (input - mean.reshape(shape)) / (var.reshape(shape) + self.eps).sqrt()
        if self.weight is not None:
            out = out * self.weight.reshape(shape)
        if self.bias is not None:
            out = out + self.bias.reshape(shape)
        if self.track_running_stats and self.running_mean is not None:
            with grad_mode.no_grad():
                self.running_mean.mul_(1 - factor).add_(mean.detach() * factor)
                unbiased = var.detach() * (n.detach() / (n.detach() - 1))
                self.running_var.mul_(1 - factor).add_(unbiased * factor)
        return out

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*D layer replaced by a SyncBatchNorm holding the same parameters and
        running statistics (the module itself if it is one; otherwise its children are replaced in place)."""
        from .. import modules

        batch_norms = tuple(getattr(modules, n) for n in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d") if hasattr(modules, n))
        output = module
        if isinstance(module, batch_norms):
            output = cls(module.num_features, module.eps, module.momentum, module.affine,
                         module.track_running_stats, process_group)
            if module.affine:
                with grad_mode.no_grad():
                    output.weight = module.weight
                    output.bias = module.bias
            output.running_mean = module.running_mean
            output.running_var = module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return output
