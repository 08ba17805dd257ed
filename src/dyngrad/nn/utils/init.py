"""torch.nn.utils.skip_init."""

from __future__ import annotations

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """An instance of ``module_cls(*args, **kwargs)`` whose parameters are not meant to be initialised.

    torch builds the module on its meta device and allocates uninitialised memory; dyngrad has no meta
    device, so the module is built as usual (its values are then arbitrary by contract, as torch's).
    RuntimeError (torch's text) if the class takes no ``device`` argument.
    """
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.pop("device", None)
    return module_cls(*args, **kwargs)
