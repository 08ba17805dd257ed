"""nn.Parameter and nn.Buffer: tensors a Module registers when assigned as attributes.

A Parameter is a leaf Tensor (``isinstance(p, dyngrad.Tensor)`` holds) that shares memory and
version counter with the data it was made from, and requires grad by default. Ops on a
Parameter return plain Tensors, as in torch.
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import get_default_dtype
from .._tensor import Tensor


class Parameter(Tensor):
    """A tensor that is a module parameter (torch.nn.Parameter).

    ``Parameter(data=None, requires_grad=True)``: ``data`` is shared, not copied (a detached view
    of it, so a non-leaf ``data`` gives a leaf parameter); without data, an empty 1-D tensor.
    """

    def __new__(cls, data=None, requires_grad: bool = True):
        self = object.__new__(cls)
        if data is None:
            self._data = xp.empty((0,), dtype=get_default_dtype().np)
            self._vc = [0]
        else:
            if not isinstance(data, Tensor):
                raise TypeError(
                    f"Parameter.__new__ expected a Tensor for 'data', got {type(data).__name__}"
                )
            self._data = data._data
            self._vc = data._vc
        self._requires_grad = False
        if requires_grad:
            self.requires_grad_(True)  # refuses integer dtypes with torch's text
        return self

    def __init__(self, data=None, requires_grad: bool = True) -> None:
        pass  # everything happens in __new__ (Tensor.__init__ would rebuild the data)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = Parameter(_copy(self), self._requires_grad)
        if self._grad is not None:
            out._grad = _copy(self._grad)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data, self._requires_grad))


def _copy(t: Tensor) -> Tensor:
    from .._tensor import wrap

    return wrap(t._data.copy())


def _rebuild_parameter(data, requires_grad):
    from .._tensor import wrap

    return Parameter(wrap(data), requires_grad)


class Buffer(Tensor):
    """Marks a tensor as a buffer when assigned to a Module attribute (torch.nn.Buffer).

    ``Buffer(data, persistent=True)`` returns ``data`` itself marked as a Buffer type, sharing memory.
    """

    def __new__(cls, data=None, *, persistent: bool = True):
        self = object.__new__(cls)
        if data is None:
            self._data = xp.empty((0,), dtype=get_default_dtype().np)
            self._vc = [0]
            self._requires_grad = False
        else:
            self._data = data._data
            self._vc = data._vc
            self._requires_grad = data._requires_grad if data._grad_fn is None else False
        self.persistent = persistent
        return self

    def __init__(self, data=None, *, persistent: bool = True) -> None:
        pass
