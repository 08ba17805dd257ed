"""torch.nn.DataParallel on a CPU-only build: the module runs as it is.

torch's DataParallel replicates a module over GPUs; with none available (``device_ids`` empty) it keeps the
module as ``self.module`` and its forward calls the module directly, which is what dyngrad, CPU-only, always
does. The wrapper's shape is torch's: ``state_dict`` keys carry ``module.``, ``repr`` shows ``(module)``.
"""

from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """DataParallel(module, device_ids=None, output_device=None, dim=0): ``forward`` is ``module.forward``."""

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids = []  # no accelerator: torch's CPU-only DataParallel keeps none and sets nothing else

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0, module_kwargs=None):
    """torch.nn.parallel.data_parallel without accelerators: ``module(*inputs, **module_kwargs)``."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
