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
            if self._data.dtype.kind not in "fcV":  # (V: bfloat16) torch's _make_subclass text, not requires_grad_'s
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            self.requires_grad_(True)
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


# ------------------------------------------------------------------ lazy (uninitialized) parameters and buffers

_UNINITIALIZED_ACCESS = (
    "Can't access the {} of an uninitialized parameter or buffer. This error usually happens in `load_state_dict` "
    "when trying to load an uninitialized parameter into an initialized one. Call `forward` to initialize the "
    "parameters before accessing their attributes."
)


class _UninitializedMixin:
    """A tensor with no shape yet (torch.nn.parameter.UninitializedTensorMixin): the lazy modules make one per
    parameter/buffer and ``materialize(shape)`` gives it its shape (uninitialized values) and its final class."""

    cls_to_become = Tensor

    def materialize(self, shape, device=None, dtype=None) -> None:
        npd = self._data.dtype if dtype is None else dtype.np
        self._data = xp.empty(tuple(shape) if isinstance(shape, (list, tuple)) else (shape,), dtype=npd)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(_UNINITIALIZED_ACCESS.format("shape"))

    def size(self, dim=None):
        raise RuntimeError(_UNINITIALIZED_ACCESS.format("size"))

    def numel(self):
        raise RuntimeError(_UNINITIALIZED_ACCESS.format("numel"))

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def detach(self):
        """Still uninitialized (a state_dict of a lazy module holds these, as torch's)."""
        return type(self)(requires_grad=False)

    def to(self, *args, **kwargs):
        """Still uninitialized, in the requested dtype (so ``module.double()`` before the first forward holds)."""
        from .._dtype import dtype as _dtype_cls

        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, _dtype_cls):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
        out = type(self)(requires_grad=self._requires_grad)
        out._data = xp.empty((0,), dtype=dtype.np if dtype is not None else self._data.dtype)
        return out


class UninitializedParameter(_UninitializedMixin, Parameter):
    """A parameter of a lazy module before its first forward (torch.nn.parameter.UninitializedParameter)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        self = Parameter.__new__(cls, None, requires_grad)
        if dtype is not None:
            self._data = xp.empty((0,), dtype=dtype.np)
        return self

    def __init__(self, requires_grad: bool = True, device=None, dtype=None) -> None:
        pass


class UninitializedBuffer(_UninitializedMixin, Tensor):
    """A buffer of a lazy module before its first forward (torch.nn.parameter.UninitializedBuffer)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        self = object.__new__(cls)
        self._data = xp.empty((0,), dtype=(dtype.np if dtype is not None else get_default_dtype().np))
        self._vc = [0]
        self._requires_grad = requires_grad
        return self

    def __init__(self, *args, **kwargs) -> None:
        pass
