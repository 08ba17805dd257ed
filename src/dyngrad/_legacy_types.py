"""torch's legacy tensor types: ``torch.FloatTensor``, ``LongTensor``, ... and the names ``x.type()`` gives.

Each is a class whose instances are the tensors of its dtype (``isinstance(x, torch.FloatTensor)`` is true
for a float32 tensor, as torch's ``torch.tensortype`` metaclass makes it) and whose call builds a tensor
of that dtype the old way (torch's ``legacy_tensor_ctor``, torch/csrc/utils/tensor_new.cpp):

- ``FloatTensor()``: an empty 1-D tensor; ``FloatTensor(2, 3)`` or ``FloatTensor(torch.Size([2, 3]))``:
  uninitialized of that shape; ``FloatTensor([1, 2])``: from data; ``FloatTensor(t)``: an alias of ``t``
  when it has the dtype (else torch's TypeError quoting the two TensorOptions).

Raises (texts from torch 2.13): ``new(): invalid data type 'str'``, ``new(): data must be a sequence
(got float)``.

BFloat16Tensor is missing: NumPy has no bfloat16 (docs/differences.md).
"""

from __future__ import annotations

import builtins

from . import _dtype
from ._tensor import Size, Tensor

_NAMES = {  # torch's legacy class name -> dtype name
    "FloatTensor": "float32",
    "DoubleTensor": "float64",
    "HalfTensor": "float16",
    "ByteTensor": "uint8",
    "CharTensor": "int8",
    "ShortTensor": "int16",
    "IntTensor": "int32",
    "LongTensor": "int64",
    "BoolTensor": "bool",
}

# TensorOptions' C++ names of the dtypes, as torch's mismatch message prints them
_CPP_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "uint8": "unsigned char",
    "int8": "signed char", "int16": "short int", "int32": "int", "int64": "long int", "bool": "bool",
}


def _options(name: str) -> str:
    return (
        f"TensorOptions(dtype={_CPP_NAMES[name]}, device=cpu, layout=Strided, requires_grad=false (default), "
        "pinned_memory=false (default), memory_format=(nullopt))"
    )


class tensortype(type):
    """The metaclass of the legacy types (torch.tensortype)."""

    def __instancecheck__(cls, obj) -> builtins.bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"

    def __call__(cls, *args, **kwargs):
        from ._creation import empty, tensor

        target = cls.dtype
        if kwargs.keys() - {"device"}:
            # torch parses the legacy constructors against the signatures of Tensor.new (tensor_new.cpp)
            from ._argparse import explain

            error = explain("Tensor.new", args, kwargs)
            if error is not None:
                raise error
            raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs.keys() - {'device'}))}'")
        if not args:
            return empty(0, dtype=target)
        if len(args) == 1:
            (arg,) = args
            if isinstance(arg, Tensor):
                if arg.dtype is not target:
                    raise TypeError(f"expected {_options(target.name)} (got {_options(arg.dtype.name)})")
                return arg[...]  # an alias sharing the data (AliasBackward0), as torch's
            if isinstance(arg, Size):
                return empty(*arg, dtype=target)
            if isinstance(arg, str):
                raise TypeError("new(): invalid data type 'str'")
            if isinstance(arg, (builtins.int,)) and not isinstance(arg, builtins.bool):
                return empty(arg, dtype=target)
            if not isinstance(arg, (list, tuple)) and not hasattr(arg, "__array__"):
                raise TypeError(f"new(): data must be a sequence (got {type(arg).__name__})")
            return tensor(arg, dtype=target)
        return empty(*args, dtype=target)


def _make(name: str):
    cls = tensortype(name, (), {"__module__": "torch", "dtype": getattr(_dtype, _NAMES[name])})
    return cls


LEGACY_TYPES = {name: _make(name) for name in _NAMES}
BY_STRING = {f"torch.{name}": cls for name, cls in LEGACY_TYPES.items()}


_BY_DTYPE = {cls.dtype: cls for cls in LEGACY_TYPES.values()}


def new(self: Tensor, *args, **kwargs) -> Tensor:
    """``x.new(...)``: the legacy constructor of ``x``'s type (``x.new(2, 3)``, ``x.new([1, 2])``, ``x.new()``):
    a tensor of ``x``'s dtype, by the rules of ``torch.FloatTensor(...)`` above. Raises TypeError for a dtype
    without a legacy type (bfloat16, complex: dyngrad names none)."""
    cls = _BY_DTYPE.get(self.dtype)
    if cls is None:
        raise TypeError(f"Tensor.new() is not supported for {self.dtype} in dyngrad")
    return cls(*args, **kwargs)
