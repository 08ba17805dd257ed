"""Small torch.nn names kept for old code: ``nn.Container`` (deprecated in torch) and ``nn.factory_kwargs``."""

from __future__ import annotations

import warnings

from .modules.module import Module

__all__ = ["Container", "factory_kwargs"]


class Container(Module):
    """torch.nn.Container: a Module holding the modules given as keyword arguments; warns as torch does."""

    def __init__(self, **kwargs) -> None:
        super().__init__()
        warnings.warn(
            "`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. Subclass "
            "that instead.", DeprecationWarning, stacklevel=2,
        )
        for key, value in kwargs.items():
            self.add_module(key, value)


def factory_kwargs(kwargs):
    """torch.nn.factory_kwargs: the ``device`` / ``dtype`` / ``memory_format`` entries of ``kwargs`` as one dict,
    merged with a ``factory_kwargs`` entry (a key given both ways raises torch's TypeError)."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    expected = simple | {"factory_kwargs"}
    if not kwargs.keys() <= expected:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected}")
    result = dict(kwargs.get("factory_kwargs", {}))
    for key in simple:
        if key in kwargs:
            if key in result:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            result[key] = kwargs[key]
    return result
