"""Tensor methods and operators, bound to the functions in ``_ops``.

Kept apart from ``_tensor.py`` so the Tensor class stays small and the ops can
import it; every method here is a thin call into one op function.
"""

from __future__ import annotations

import types

import numpy as np

from ._ops import (
    activations,
    attention,
    bessel,
    cholesky_extras,
    clamp_minmax,
    conv,
    copies,
    diagonals,
    distance,
    dropout_alpha,
    embedding,
    exp_log,
    fft,
    householder,
    indexing,
    indexing_extra,
    inplace,
    integration,
    join_split,
    ldl,
    linalg,
    linalg_composite,
    loss,
    lowrank,
    lstsq,
    lu,
    matmul,
    nn_kernels,
    normalization,
    norms,
    numeric,
    packed,
    padding,
    polynomials,
    pooling,
    random_dist,
    random_ops,
    reduction,
    rnn,
    rounding,
    sampling,
    segment,
    shape,
    shape_extras,
    sorting,
    special_ops,
    spectral,
    statistics,
    tensor_extras,
    torch_inplace,
    trigonometric,
    weight_norm,
)
from ._ops import comparison as cmp
from ._ops import complex as cplx
from ._ops import pointwise as pw
from ._ops._promote import OperandTypeError, reflected
from ._ops.nn_families import NN_FAMILIES
from ._tensor import Tensor

# Note [Operators and foreign operands]
# ``x + "a"`` must raise Python's own TypeError, as with torch, whose operators return
# NotImplemented for an operand they cannot take. The op functions raise OperandTypeError
# for such an operand, or return NotImplemented when they run as an operator: the operator
# methods are copies of the op functions renamed to the dunder (``as_operator``), which
# ``_promote.operand_error`` sees on its caller's frame. A copy, not a wrapper, keeps the
# hot path at one Python call per operator. The wrappers below catch the error instead.
# The named methods (``x.add("a")``) are renamed copies too: torch counts the argument's
# position from 1 there, from 2 in ``torch.add(x, "a")``.


def as_method(fn, name: str):
    """``fn`` as ``Tensor.<name>`` (same code, defaults and closure: no extra call)."""
    if not isinstance(fn, types.FunctionType):
        return fn
    code = fn.__code__.replace(co_name=name, co_qualname=f"Tensor.{name}")
    copy = types.FunctionType(code, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__doc__ = fn.__doc__
    copy.__qualname__ = f"Tensor.{name}"
    return copy


RENAMED = frozenset(
    {"__add__", "__radd__", "__sub__", "__mul__", "__rmul__", "__truediv__", "__pow__", "__mod__", "__floordiv__",
     "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "matmul"}
)


_rpow = reflected(pw.pow)
def _rtruediv(self, other):
    """``other / self``; an ndarray as torch's Python ``__rtruediv__`` does it: ``reciprocal(self) * other``, which
    NumPy computes (Note [NumPy operands] in _ops/_promote.py)."""
    try:
        return pw.div(other, self)
    except OperandTypeError:
        if type(other) is np.ndarray:
            return pw.reciprocal(self) * other
        return NotImplemented



def _rsub(self, other):
    try:
        return pw.rsub(self, other)
    except OperandTypeError:
        return NotImplemented


def _bind_inplace(compute):
    def method(self, *args, **kwargs):
        return inplace.inplace(self, lambda a, *rest: compute(a, *rest, **kwargs), *args)

    return method


def _add_(self, other, *, alpha=1):
    if alpha == 1 and inplace.direct(self, other, inplace.xp.add):
        return self
    return inplace.inplace(self, lambda a, o: pw.add(a, o, alpha), other)


def _sub_(self, other, *, alpha=1):
    if alpha == 1 and inplace.direct(self, other, inplace.xp.subtract):
        return self
    return inplace.inplace(self, lambda a, o: pw.sub(a, o, alpha), other)


def _iop(fn, ufunc=None):
    def method(self, other):
        if ufunc is not None and inplace.direct(self, other, ufunc):
            return self
        try:
            return inplace.inplace(self, fn, other)
        except OperandTypeError:  # x += "a": Python's TypeError (Note [Operators and foreign operands])
            return NotImplemented

    return method


def _invert(self):
    kind = self._data.dtype.kind
    if kind == "b":
        return cmp.logical_not(self)
    if kind not in "iu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    from ._tensor import wrap

    return wrap(~self._data)


def _matmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul.matmul(self, other)


def _rmatmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul.matmul(other, self)


_T_WARNED: set = set()  # torch warns about .T once per process (TORCH_WARN_ONCE)


def _warn_once(key: str, message: str) -> None:
    if key not in _T_WARNED:
        _T_WARNED.add(key)
        import warnings

        warnings.warn(message, UserWarning, stacklevel=3)


def _T(self):
    n = self._data.ndim
    if n == 2:
        return shape.permute(self, 1, 0)
    if n == 0:
        _warn_once(
            "0d",
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. (Triggered "
            "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)",
        )
        return self
    _warn_once(
        "nd",
        "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will throw "
        "an error in a future release. Consider `x.mT` to transpose batches of matrices or `x.permute(*torch.arange"
        "(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. (Triggered internally at "
        "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)",
    )
    return shape.permute(self, *range(n - 1, -1, -1))


def _mT(self):
    if self._data.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return shape.transpose(self, -2, -1)


def _flatten(self, start_dim: int = 0, end_dim: int = -1):
    n = self._data.ndim
    if n == 0:
        return shape.reshape(self, 1)
    from ._tensor import _wrap_dim

    s, e = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    dims = self._data.shape
    size = 1
    for k in dims[s : e + 1]:
        size *= k
    return shape.reshape(self, dims[:s] + (size,) + dims[e + 1 :])


def _type_cast(npd_name):
    from . import _dtype

    target = getattr(_dtype, npd_name)

    def method(self, memory_format=None):
        return shape.to(self, target, memory_format=memory_format)

    return method


def _legacy_new(self, *args, **kwargs):
    """``x.new(...)``: the legacy constructor of x's type (_legacy_types.new)."""
    from ._legacy_types import new

    return new(self, *args, **kwargs)


def _type(self, dtype=None, non_blocking=False):
    """``t.type()`` names the tensor type (``torch.FloatTensor``); ``t.type(dtype, name or legacy type)`` casts.

    Raises:
        ValueError: ``invalid type: 'torch.Foo'``.
        TypeError: ``dtype must be a type, str, or dtype object``.
    """
    from . import _dtype
    from ._legacy_types import tensortype

    if dtype is None:
        return f"torch.{_dtype.scalar_type_name(self._data.dtype)}Tensor"
    if isinstance(dtype, str):
        by_type = {f"torch.{_dtype._SCALAR_TYPE_NAMES[d.name]}Tensor": d.name for d in _dtype.ALL}
        if dtype not in by_type:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = getattr(_dtype, by_type[dtype])
    elif isinstance(dtype, tensortype):
        dtype = dtype.dtype
    elif not isinstance(dtype, _dtype.dtype):
        raise TypeError("dtype must be a type, str, or dtype object")
    return shape.to(self, dtype)


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    from ._creation import tensor

    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _batched_as(self, t):
    """Under vmap, a new_* factory of a batched tensor gives a batched tensor (torch's batching rule)."""
    if type(self._data) is np.ndarray:
        return t
    from ._batching.tensors import batched_as

    return batched_as(self, t)


def _new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    from ._creation import zeros

    return _batched_as(self, zeros(*size, dtype=dtype or self.dtype, requires_grad=requires_grad))


def _new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    from ._creation import ones

    return _batched_as(self, ones(*size, dtype=dtype or self.dtype, requires_grad=requires_grad))


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    from ._creation import full

    return _batched_as(self, full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad))


def _new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    from ._creation import empty

    return _batched_as(self, empty(*size, dtype=dtype or self.dtype, requires_grad=requires_grad))


def _cpu(self, *args, **kwargs):
    return self


def _eq_method(self, other):
    if type(other) is np.ndarray:  # torch's __eq__ (alone of the operators) takes an array as a tensor
        from ._creation import as_tensor

        other = as_tensor(other)
    return cmp.eq(self, other)


def _ne_method(self, other):
    return cmp.ne(self, other)


def _equal(self, other) -> bool:
    return self._data.shape == other._data.shape and bool((self._data == other._data).all())






METHODS = {
    # arithmetic operators
    "__add__": pw.add,
    "__radd__": pw.add,
    "__sub__": pw.sub,
    "__rsub__": _rsub,
    "__mul__": pw.mul,
    "__rmul__": pw.mul,
    "__truediv__": pw.div,
    "__rtruediv__": _rtruediv,
    "__pow__": pw.pow,
    "__rpow__": _rpow,
    "__matmul__": _matmul,
    "__rmatmul__": _rmatmul,
    "__neg__": pw.neg,
    "__pos__": lambda self: self,
    "__abs__": pw.abs,
    "__iadd__": _iop(pw.add, inplace.xp.add),
    "__isub__": _iop(pw.sub, inplace.xp.subtract),
    "__imul__": _iop(pw.mul, inplace.xp.multiply),
    "__itruediv__": _iop(pw.div, inplace.xp.true_divide),
    "__eq__": _eq_method,
    "__ne__": _ne_method,
    "__lt__": cmp.lt,
    "__le__": cmp.le,
    "__gt__": cmp.gt,
    "__ge__": cmp.ge,
    "__and__": cmp.bitwise_and,
    "__or__": cmp.bitwise_or,
    "__xor__": cmp.bitwise_xor,
    "__invert__": _invert,
    "__getitem__": indexing.getitem,
    # named arithmetic
    "add": pw.add,
    "sub": pw.sub,
    "subtract": pw.sub,
    "mul": pw.mul,
    "multiply": pw.mul,
    "div": pw.div,
    "divide": pw.div,
    "true_divide": pw.div,
    "pow": pw.pow,
    "neg": pw.neg,
    "negative": pw.neg,
    "exp": pw.exp,
    "log": pw.log,
    "sqrt": pw.sqrt,
    "sin": pw.sin,
    "cos": pw.cos,
    "tanh": pw.tanh,
    "sigmoid": pw.sigmoid,
    "relu": pw.relu,
    "abs": pw.abs,
    "absolute": pw.abs,
    "reciprocal": pw.reciprocal,
    "eq": cmp.eq,
    "ne": cmp.ne,
    "lt": cmp.lt,
    "le": cmp.le,
    "gt": cmp.gt,
    "ge": cmp.ge,
    "equal": _equal,
    "logical_not": cmp.logical_not,
    # reductions
    "sum": reduction.sum,
    "mean": reduction.mean,
    "max": reduction.max,
    "min": reduction.min,
    # shape
    "reshape": shape.reshape,
    "view": shape.view,
    "view_as": lambda self, other: shape.view(self, other._data.shape),
    "reshape_as": lambda self, other: shape.reshape(self, other._data.shape),
    "flatten": _flatten,
    "transpose": shape.transpose,
    "swapaxes": shape.transpose,
    "swapdims": shape.transpose,
    "t": shape.t,
    "permute": shape.permute,
    "unsqueeze": shape.unsqueeze,
    "squeeze": shape.squeeze,
    "expand": shape.expand,
    "expand_as": shape.expand_as,
    "unbind": join_split.unbind,
    "clone": shape.clone,
    "contiguous": shape.contiguous,
    "to": shape.to,
    "type": _type,
    "new": _legacy_new,
    "float": _type_cast("float32"),
    "double": _type_cast("float64"),
    "half": _type_cast("float16"),
    "long": _type_cast("int64"),
    "int": _type_cast("int32"),
    "short": _type_cast("int16"),
    "bool": _type_cast("bool"),
    "byte": _type_cast("uint8"),
    "cpu": _cpu,
    "matmul": matmul.matmul,
    "mm": matmul.mm,
    "mv": matmul.mv,
    "bmm": matmul.bmm,
    "dot": matmul.dot,
    "new_tensor": _new_tensor,
    "new_zeros": _new_zeros,
    "new_ones": _new_ones,
    "new_full": _new_full,
    "new_empty": _new_empty,
    # in place
    "add_": _add_,
    "sub_": _sub_,
    "mul_": _iop(pw.mul, inplace.xp.multiply),
    "div_": _iop(pw.div, inplace.xp.true_divide),
    "pow_": _iop(pw.pow),
    "neg_": _bind_inplace(pw.neg),
    "exp_": _bind_inplace(pw.exp),
    "log_": _bind_inplace(pw.log),
    "sqrt_": _bind_inplace(pw.sqrt),
    "sin_": _bind_inplace(pw.sin),
    "cos_": _bind_inplace(pw.cos),
    "tanh_": _bind_inplace(pw.tanh),
    "sigmoid_": _bind_inplace(pw.sigmoid),
    "relu_": _bind_inplace(pw.relu),
    "abs_": _bind_inplace(pw.abs),
    "zero_": inplace.zero_,
    "fill_": inplace.fill_,
    "copy_": inplace.copy_,
}

PROPERTIES = {"T": _T, "mT": _mT}


# indexing_extra after indexing: its index_put / index_put_ (with torch's argument checks) replace indexing's
FAMILIES = (
    pw, exp_log, trigonometric, rounding, clamp_minmax, activations, cmp, reduction, sorting, shape, join_split,
    diagonals, padding, indexing, indexing_extra, matmul, linalg, norms, distance, nn_kernels, conv, pooling,
    normalization, loss, embedding, sampling, rnn, random_ops, cplx, bessel, polynomials, fft, spectral,
    special_ops, random_dist, cholesky_extras, dropout_alpha, numeric, copies, shape_extras,
    statistics, integration, tensor_extras, torch_inplace, attention, packed, weight_norm, linalg_composite, lu,
    householder, lstsq, lowrank, ldl, segment, *NN_FAMILIES,
)
# the nn losses and activations added with issue 12 (their own modules, gathered like the rest), and aten's
# private entry points that torch's OpInfo tests (issue 11: native_* norms, torch.ops.aten kernels, segment ops)
from ._ops import (  # noqa: E402
    activations_extra,
    aten_kernels,
    ctc,
    dtype_queries,
    functional_extras,
    hash_tensor,
    interop,
    losses_margin,
    native_norms,
    private_ops,
    scaled_mm,
)

FAMILIES = FAMILIES + (losses_margin, ctc, activations_extra, functional_extras, native_norms, aten_kernels, private_ops,
                       hash_tensor, scaled_mm, dtype_queries, interop)  # (interop: apply_/map_, itemsize/nbytes)


def install() -> None:
    methods = dict(METHODS)
    for family in FAMILIES:  # each op family may add methods (its TENSOR_METHODS)
        methods.update(getattr(family, "TENSOR_METHODS", {}))
    methods = {name: as_method(fn, name) if name in RENAMED else fn for name, fn in methods.items()}
    from ._argparse import check_methods  # torch's argument errors (Note [Argument checks off the hot path])

    for name, fn in check_methods(methods).items():
        setattr(Tensor, name, fn)
    for name, fn in PROPERTIES.items():
        setattr(Tensor, name, property(fn))
    for family in FAMILIES:  # properties with setters (Tensor.real / Tensor.imag ...)
        for name, prop in getattr(family, "TENSOR_PROPERTIES", {}).items():
            setattr(Tensor, name, prop)
    Tensor.__hash__ = lambda self: id(self)  # __eq__ is elementwise; hash stays by identity, as torch
