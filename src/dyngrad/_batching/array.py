"""``BatchedArray``: the array under a tensor that ``vmap`` batches.

A batched array holds a *physical* array ``value`` with one extra dim, its batch dim ``bdim``,
and the ``level`` of the vmap that added it. What every piece of dyngrad sees (``shape``,
``ndim``, ``dtype``, ``strides``) is the *logical* array, one sample's; every computation on it
(NumPy's ufuncs and functions through NumPy's dispatch protocols ``__array_ufunc__`` and
``__array_function__``, the ndarray methods, indexing) runs once on the physical array by a
batching rule and gives a batched array again. So the kernels of the ~700 ops of the registry,
written on ndarrays, batch without knowing it: see Note [Batching at the array level] in
``_batching/dispatch.py``.

Nested vmaps nest batched arrays: ``value`` may itself be a batched array of a lower level, and
the outermost wrapper always has the highest level (``add_level`` keeps that order), so a rule
only ever unwraps the top level and calls NumPy on what is under it, which dispatches again.

What a rule cannot batch fails loudly, never silently: a batched array has no memory of its own
that NumPy could read (``__array__`` raises), so ``np.asarray`` outside dyngrad's namespace,
writing batched values into a plain array, data-dependent Python control flow (``bool``,
``item``) raise. Inside an op's kernel they raise ``BatchingFallback`` and the op runs once per
sample instead (``registry.apply`` catches it); in user code they raise torch's errors.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

_ndarray = np.ndarray


class _State:
    kernel = 0  # > 0 while an op's kernel or backward formula runs: what cannot batch falls back to a loop
    op = None  # torch's name of the op whose kernel runs (for the performance warning)


STATE = _State()


class BatchingFallback(Exception):
    """Raised inside an op's kernel for a computation no batching rule covers: the op then runs
    once per sample (with torch's performance warning)."""


def _torch_named(base: type, name: str) -> type:
    """An exception type that is ``base`` for users (same name in tracebacks, caught as ``base``) and a
    ``BatchingFallback`` for the op dispatcher."""
    cls = type(name, (base, BatchingFallback), {})
    cls.__name__ = cls.__qualname__ = base.__name__
    cls.__module__ = "builtins"
    return cls


VmapRuntimeError = _torch_named(RuntimeError, "VmapRuntimeError")
VmapMissingAttribute = _torch_named(AttributeError, "VmapMissingAttribute")

ITEM_MESSAGE = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
    "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere inside "
    "PyTorch internals, please file a bug report."
)
CONTROL_FLOW_MESSAGE = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We don't support "
    "that yet, please file an issue at https://github.com/pytorch/pytorch/issues ."
)
NO_STORAGE_MESSAGE = "Cannot access data pointer of Tensor that doesn't have storage"
DYNAMIC_SHAPE_MESSAGE = (
    "vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap over aten::{}. "
    "Please file an issue at https://github.com/pytorch/pytorch/issues if you need this feature."
)
PERFORMANCE_MESSAGE = (
    "There is a performance drop because we have not yet implemented the batching rule for aten::{}. Please file us "
    "an issue on GitHub so that we can prioritize its implementation. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/functorch/BatchedFallback.cpp:82.)"
)


def fail(message: str):
    """Raise torch's error for user code, or fall back to a loop inside a kernel."""
    if STATE.kernel:
        raise BatchingFallback(message)
    raise RuntimeError(message)


def refuse(message: str):
    """torch's error for what vmap cannot do at all (a shape per sample, random numbers under "error"): raised
    as is, also inside a kernel, where it is no reason to run the op once per sample."""
    error = RuntimeError(message)
    error._vmap_refusal = True
    raise error


# torch's overload names where its fallback warning names one (ops torch's vmap runs once per sample itself)
TORCH_OVERLOADS = {"FillBackward0": "fill.Scalar", "FillBackward1": "fill.Tensor",
                   "EmbeddingBagBackward0": "embedding_bag.padding_idx"}


def op_name(default: str) -> str:
    """torch's name of the op whose kernel runs (for messages), or ``default``."""
    op = STATE.op
    if op is None:
        return default
    if isinstance(op, type):
        from .._ops.registry import aten_name

        return TORCH_OVERLOADS.get(op.__name__) or aten_name(op)
    return str(op)


def dynamic_shape(aten: str):
    fail(DYNAMIC_SHAPE_MESSAGE.format(op_name(aten)))


# torch's three messages for an in-place op writing batched values into a tensor vmap does not batch
# (a captured tensor): by in-place op, as torch 2.13 gives them; any other op gets the fallback's text.
_SHAPE_MESSAGE_OPS = {"add_", "atan2_", "copysign_", "__iadd__"}
_ARITHMETIC_OPS = {"sub_", "mul_", "div_", "true_divide_", "clamp_min_", "clamp_max_", "copy_", "__setitem__",
                   "subtract_", "multiply_", "divide_", "__isub__", "__imul__", "__itruediv__"}
_NAMED_OPS = {"fill_", "index_add_", "index_fill_", "scatter_add_", "index_put_", "scatter_reduce_"}
_INPLACE_TAIL = (
    "(self, *extra_args) is not possible because there exists a Tensor `other` in extra_args that has more elements "
    "than `self`. This happened due to `other` being vmapped over but `self` not being vmapped over {where}. Please "
    "try to use out-of-place operators instead of {name}. If said operator is being called inside the PyTorch "
    "framework, please file a bug report instead."
)


def _inplace_op_name():
    """The in-place op that is writing (from the call stack), or None."""
    import sys

    f = sys._getframe(2)
    while f is not None:
        module = f.f_globals.get("__name__", "")
        if module.startswith("dyngrad.") and not module.startswith("dyngrad._batching"):
            name = f.f_code.co_name
            if name in ("setitem", "__setitem__"):
                return "__setitem__"
            if name.startswith("__i") and name.endswith("__"):
                return name
            if name.endswith("_") and not name.endswith("__"):
                return re.sub(r"^_+|_method_$", "", name).rstrip("_") + "_"  # "_add_", "_igamma_method_"
            if name == "method":
                for key in ("fn", "compute"):
                    fn_name = getattr(f.f_locals.get(key), "__name__", "")
                    if fn_name.isidentifier() and fn_name not in ("fn", "op", "method", "compute"):
                        return fn_name.rstrip("_") + "_"
        f = f.f_back
    return None


def unbatched_write(dst_shape, batch_size: int):
    """Batched values written into memory that is not batched (an in-place op on a tensor captured by the
    vmapped function): torch's message for that op."""
    if STATE.kernel:
        raise BatchingFallback("unbatched write")
    name = _inplace_op_name()
    if name in _SHAPE_MESSAGE_OPS:
        message = (f"output with shape [{', '.join(map(str, dst_shape))}] doesn't match the broadcast shape "
                   f"[{', '.join(map(str, (batch_size, *dst_shape)))}]")
    elif name is None or name in _ARITHMETIC_OPS:
        message = "vmap: inplace arithmetic" + _INPLACE_TAIL.format(where="in a vmap", name="inplace arithmetic")
    elif name in _NAMED_OPS:
        message = f"vmap: {name}" + _INPLACE_TAIL.format(where="in a vmap", name=name)
    else:
        from .context import STATE as vmaps

        name = {"__ipow__": "pow_"}.get(name, name)
        where = f"at level {max(len(vmaps.stack), 1)}"
        message = f"vmap: aten::{name}" + _INPLACE_TAIL.format(where=where, name=f"aten::{name}")
    raise RuntimeError(message)


# Ops named in the performance warning: one warning per op and call site, as Python's default filter does.
def warn_fallback(name: str) -> None:
    warnings.warn(PERFORMANCE_MESSAGE.format(op_name(name)), UserWarning, stacklevel=3)


FALLBACK_LOG: list | None = None  # tests set a list here to see which ops and functions looped


class _Flags:
    """``a.flags`` of a batched array: contiguous when the logical array is (every batch dim leading)."""

    __slots__ = ("_a",)

    def __init__(self, a) -> None:
        self._a = a

    @property
    def c_contiguous(self) -> bool:
        a = self._a
        while type(a) is BatchedArray:
            if a.bdim:
                return False
            a = a.value
        return a.flags.c_contiguous

    contiguous = c_contiguous

    @property
    def f_contiguous(self) -> bool:
        return self._a.ndim <= 1 and self.c_contiguous

    @property
    def writeable(self) -> bool:
        return physical(self._a).flags.writeable

    @writeable.setter
    def writeable(self, value: bool) -> None:
        physical(self._a).flags.writeable = value

    @property
    def owndata(self) -> bool:
        return False

    @property
    def aligned(self) -> bool:
        return True

    def __getitem__(self, key):
        return getattr(self, {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous", "WRITEABLE": "writeable",
                              "OWNDATA": "owndata", "ALIGNED": "aligned"}.get(key, key.lower()))


class BatchedArray(NDArrayOperatorsMixin):
    """A physical array ``value`` seen without its batch dim ``bdim`` (the vmap of ``level``)."""

    __slots__ = ("value", "bdim", "level", "_shape")
    __array_priority__ = 2000

    def __init__(self, value, bdim: int, level: int) -> None:
        self.value = value
        self.bdim = bdim
        self.level = level
        s = value.shape
        self._shape = s[:bdim] + s[bdim + 1 :]

    # ------------------------------------------------------------ what the logical array looks like
    @property
    def shape(self) -> tuple:
        return self._shape

    @shape.setter
    def shape(self, new) -> None:
        """``v.shape = s`` reshapes without a copy, as on an ndarray (AttributeError when that needs one)."""
        new = (new,) if isinstance(new, (int, np.integer)) else tuple(new)
        v = move_front(self.value, self.bdim)
        if v is self.value:
            v = v.view()  # a new view, so the assignment below does not reshape an array others hold
        v.shape = (v.shape[0],) + new
        self.value, self.bdim, self._shape = v, 0, tuple(v.shape[1:])

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n

    @property
    def itemsize(self) -> int:
        return self.value.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.value.itemsize

    @property
    def batch_size(self) -> int:
        return self.value.shape[self.bdim]

    @property
    def strides(self) -> tuple:
        s = self.value.strides
        return s[: self.bdim] + s[self.bdim + 1 :]

    @property
    def flags(self) -> _Flags:
        return _Flags(self)

    @property
    def base(self):
        return self.value  # never None: a batched array owns no memory of its own

    @property
    def real(self):
        return BatchedArray(self.value.real, self.bdim, self.level)

    @real.setter
    def real(self, values) -> None:
        rules_indexing.setitem(self.real, Ellipsis, values)

    @property
    def imag(self):
        return BatchedArray(self.value.imag, self.bdim, self.level)

    @imag.setter
    def imag(self, values) -> None:
        rules_indexing.setitem(self.imag, Ellipsis, values)

    @property
    def T(self):  # noqa: N802 - NumPy's name
        return np.transpose(self)

    @property
    def mT(self):  # noqa: N802 - NumPy's name
        return np.swapaxes(self, -1, -2)

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __repr__(self) -> str:
        return f"BatchedArray(lvl={self.level}, bdim={self.bdim}, value={self.value!r})"

    # ------------------------------------------------------------ values that would need one sample
    def __array__(self, dtype=None, copy=None):
        fail(NO_STORAGE_MESSAGE)

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(
                "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()")
        return bool(_agreed(self, CONTROL_FLOW_MESSAGE))

    def item(self, *args):
        if args:
            fail(ITEM_MESSAGE)
        return _agreed(self, ITEM_MESSAGE).item()

    def __float__(self):
        return float(_agreed(self, ITEM_MESSAGE))

    def __int__(self):
        return int(_agreed(self, ITEM_MESSAGE))

    def __complex__(self):
        return complex(_agreed(self, ITEM_MESSAGE))

    def __index__(self):
        return int(_agreed(self, ITEM_MESSAGE).__index__())

    def tolist(self):
        fail(NO_STORAGE_MESSAGE)

    def tobytes(self, order="C"):
        fail(NO_STORAGE_MESSAGE)

    def __getattr__(self, name: str):
        # Only for names the class lacks: an ndarray method no rule covers
        if name.startswith("__"):
            raise AttributeError(name)
        if STATE.kernel:
            raise VmapMissingAttribute(f"'BatchedArray' object has no attribute '{name}'")
        raise AttributeError(f"'BatchedArray' object has no attribute '{name}'")

    def __reduce__(self):
        fail(NO_STORAGE_MESSAGE)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # ------------------------------------------------------------ NumPy's dispatch
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return rules_ufunc.dispatch(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return rules.dispatch(func, args, kwargs)

    def __getitem__(self, key):
        return rules_indexing.getitem(self, key)

    def __setitem__(self, key, values) -> None:
        rules_indexing.setitem(self, key, values)

    # ------------------------------------------------------------ ndarray methods (each is a NumPy function)
    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return BatchedArray(self.value.astype(dtype, order=order, casting=casting, copy=copy), self.bdim, self.level)

    def copy(self, order="C"):
        # a C-ordered copy with the batch dim first, so that views of the copy (``out.reshape(-1)[k] = v``)
        # are views, as on an ndarray copy
        v = move_front(self.value, self.bdim)
        return BatchedArray(v.copy() if type(v) is not _ndarray else np.array(v, order="C"), 0, self.level)

    def view(self, dtype=None, type=None):  # noqa: A002 - NumPy's names
        if dtype is None:
            return BatchedArray(self.value.view(), self.bdim, self.level)
        dtype = np.dtype(dtype)
        v = self.value
        if dtype.itemsize != v.itemsize and (self.ndim == 0 or self.bdim == v.ndim - 1):
            # the last logical dim changes its length: it must be the last physical dim too
            v = move_front(v, self.bdim)
            if type(v) is _ndarray and not v.flags.c_contiguous:
                fail(NO_STORAGE_MESSAGE)
            return BatchedArray(v.view(dtype), 0, self.level)
        return BatchedArray(v.view(dtype), self.bdim, self.level)

    def conj(self):
        return np.conjugate(self)

    conjugate = conj

    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        return np.reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], (int, np.integer))):
            axes = axes[0]
        return np.transpose(self, axes if axes != () else None)

    def swapaxes(self, a1, a2):
        return np.swapaxes(self, a1, a2)

    def squeeze(self, axis=None):
        return np.squeeze(self, axis)

    def ravel(self, order="C"):
        return np.reshape(self, (-1,))

    def flatten(self, order="C"):
        return np.reshape(self, (-1,)).copy()

    def fill(self, value) -> None:
        if type(value) is BatchedArray:
            self[...] = value
        else:
            self.value.fill(value)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return np.sum(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kw)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return np.prod(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kw)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kw):
        return np.mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims, **kw)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw):
        return np.std(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, **kw)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kw):
        return np.var(self, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, **kw)

    def max(self, axis=None, out=None, keepdims=False, **kw):
        return np.max(self, axis=axis, out=out, keepdims=keepdims, **kw)

    def min(self, axis=None, out=None, keepdims=False, **kw):
        return np.min(self, axis=axis, out=out, keepdims=keepdims, **kw)

    def any(self, axis=None, out=None, keepdims=False, **kw):
        return np.any(self, axis=axis, out=out, keepdims=keepdims, **kw)

    def all(self, axis=None, out=None, keepdims=False, **kw):
        return np.all(self, axis=axis, out=out, keepdims=keepdims, **kw)

    def argmax(self, axis=None, out=None, keepdims=False):
        return np.argmax(self, axis=axis, out=out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, keepdims=False):
        return np.argmin(self, axis=axis, out=out, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        return np.cumsum(self, axis=axis, dtype=dtype, out=out)

    def cumprod(self, axis=None, dtype=None, out=None):
        return np.cumprod(self, axis=axis, dtype=dtype, out=out)

    def clip(self, min=None, max=None, out=None, **kw):  # noqa: A002 - NumPy's names
        return np.clip(self, min, max, out=out, **kw)

    def round(self, decimals=0, out=None):
        return np.round(self, decimals, out=out)

    def sort(self, axis=-1, kind=None, order=None) -> None:
        self[...] = np.sort(self, axis=axis, kind=kind)

    def argsort(self, axis=-1, kind=None, order=None, **kw):
        return np.argsort(self, axis=axis, kind=kind, **kw)

    def nonzero(self):
        return np.nonzero(self)

    def take(self, indices, axis=None, out=None, mode="raise"):
        return np.take(self, indices, axis=axis, out=out, mode=mode)

    def repeat(self, repeats, axis=None):
        return np.repeat(self, repeats, axis=axis)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return np.diagonal(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return np.trace(self, offset, axis1, axis2, dtype, out)

    def dot(self, b, out=None):
        return np.dot(self, b, out=out)

    def ptp(self, axis=None, out=None, keepdims=False):
        return np.ptp(self, axis=axis, out=out, keepdims=keepdims)

    def __matmul__(self, other):
        return np.matmul(self, other)

    def __rmatmul__(self, other):
        return np.matmul(other, self)


# Note [Values every sample agrees on]
# Python needs one value where a batched array has one per sample: ``if``, ``int()``, ``.item()``. In the
# user's function that is data-dependent control flow, and torch's vmap refuses it. dyngrad's own code
# does the same for checks (``if (p < 0).any(): raise``) and for sizes it computes from values, where
# torch's C++ kernels see the whole batch at once: there, a value every sample agrees on is that value
# (the check passes for all, the size is the same for all), and only values that differ between the
# samples are refused. The caller is found from the frame: dyngrad's modules, except the Tensor methods
# (``Tensor.item``) through which the user asks.
def _agreed(a, message: str):
    import sys

    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__") in _PASS_THROUGH:
        frame = frame.f_back
    name = frame.f_globals.get("__name__", "") if frame is not None else ""
    if name.startswith("dyngrad.") and not name.startswith("dyngrad.func"):
        values = physical(a).reshape(-1)
        first = values[0]
        if values.size and (values == first).all() or (first != first and (values != values).all()):
            return first
    fail(message)


_PASS_THROUGH = {"dyngrad._tensor", "dyngrad._batching.array", "numpy", "builtins"}


# ---------------------------------------------------------------------------------- levels
def physical(x):
    """The innermost physical ndarray under every batch level."""
    while type(x) is BatchedArray:
        x = x.value
    return x


def top_level(x) -> int:
    return x.level if type(x) is BatchedArray else -1


def layout(x) -> tuple:
    """((level, bdim), ...) from the outermost level in: how ``x`` sits on its physical array."""
    out = []
    while type(x) is BatchedArray:
        out.append((x.level, x.bdim))
        x = x.value
    return tuple(out)


def from_layout(array, lay: tuple):
    """The batched array of layout ``lay`` on the physical ``array`` (the inverse of ``layout``)."""
    for level, bdim in reversed(lay):
        array = BatchedArray(array, bdim, level)
    return array


def levels(x) -> dict:
    """{level: batch size} of every level of ``x``."""
    out = {}
    while type(x) is BatchedArray:
        out[x.level] = x.value.shape[x.bdim]
        x = x.value
    return out


def move_front(v, d: int):
    """``v`` with its dim ``d`` moved to the front (a view)."""
    if d == 0:
        return v
    if type(v) is _ndarray:
        n = v.ndim
        return v.transpose((d,) + tuple(range(d)) + tuple(range(d + 1, n)))
    return np.moveaxis(v, d, 0)


def front(x, level: int):
    """The physical array of ``x`` at ``level`` with the batch dim first, or None when ``x`` is not batched there."""
    if type(x) is BatchedArray and x.level == level:
        return move_front(x.value, x.bdim)
    return None


def add_level(x, dim: int, level: int):
    """Read dim ``dim`` of ``x`` as the batch dim of ``level``; the wrapper goes under any higher level."""
    if type(x) is not BatchedArray or x.level < level:
        return BatchedArray(x, dim, level)
    if x.level == level:
        raise RuntimeError(f"dyngrad internal error: level {level} is already batched")
    q = dim if dim < x.bdim else dim + 1  # the dim in x.value's coordinates
    inner = add_level(x.value, q, level)
    return BatchedArray(inner, x.bdim if x.bdim < q else x.bdim - 1, x.level)


def remove_level(x, level: int):
    """(y, p): ``x`` without the batch level ``level``, whose dim is dim ``p`` of ``y`` (a view)."""
    if type(x) is not BatchedArray:
        raise RuntimeError(f"dyngrad internal error: level {level} is not batched")
    if x.level == level:
        return x.value, x.bdim
    inner, p_in = remove_level(x.value, level)
    b = x.bdim if x.bdim < p_in else x.bdim + 1  # x's batch dim in inner's coordinates
    return BatchedArray(inner, b, x.level), (p_in if p_in < b else p_in - 1)


def max_level(items) -> int:
    best = -1
    for x in items:
        t = type(x)
        if t is BatchedArray:
            if x.level > best:
                best = x.level
        elif t is list or t is tuple:
            lv = max_level(x)
            if lv > best:
                best = lv
    return best


def batch_size_at(items, level: int) -> int:
    for x in items:
        t = type(x)
        if t is BatchedArray and x.level == level:
            return x.value.shape[x.bdim]
        if t is list or t is tuple:
            n = batch_size_at(x, level)
            if n >= 0:
                return n
        if t is dict:
            n = batch_size_at(list(x.values()), level)
            if n >= 0:
                return n
    return -1


def sample(x, i: int, level: int):
    """Sample ``i`` of ``level`` in ``x`` (lists, tuples and dicts walked); anything else is returned as is."""
    t = type(x)
    if t is BatchedArray:
        if x.level == level:
            return x.value[(slice(None),) * x.bdim + (i,)]
        return x
    if t is list:
        return [sample(y, i, level) for y in x]
    if t is tuple:
        return tuple(sample(y, i, level) for y in x)
    if t is dict:
        return {k: sample(v, i, level) for k, v in x.items()}
    return x


def stack_samples(results: list, level: int):
    """The samples a loop computed, stacked into batched arrays at ``level`` (tuples and lists too)."""
    first = results[0]
    if isinstance(first, tuple) and not hasattr(first, "shape"):
        parts = [stack_samples([r[j] for r in results], level) for j in range(len(first))]
        return type(first)(*parts) if hasattr(first, "_fields") else tuple(parts)
    if isinstance(first, list):
        return [stack_samples([r[j] for r in results], level) for j in range(len(first))]
    if first is None:
        return None
    if isinstance(first, (bool, str)) or (not hasattr(first, "shape") and not isinstance(first, (int, float, complex))):
        if all(r == first for r in results):
            return first
        fail(CONTROL_FLOW_MESSAGE)
    arrays = [r if type(r) is BatchedArray or type(r) is _ndarray else np.asarray(r) for r in results]
    shape = np.shape(arrays[0])
    for i, a in enumerate(arrays):
        if np.shape(a) != shape:  # samples whose results differ in shape (torch's loop stacks them the same way)
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got [{', '.join(map(str, shape))}] at entry 0 and "
                f"[{', '.join(map(str, np.shape(a)))}] at entry {i}")
    return BatchedArray(np.stack(arrays), 0, level)


def loop(func, args: tuple, kwargs: dict, level: int, name: str):
    """``func`` run once per sample of ``level`` and stacked: the fallback of a function without a rule."""
    out = kwargs.get("out")
    if out is not None:  # every sample would write into the same array
        for o in out if type(out) is tuple else (out,):
            if o is not None and not (type(o) is BatchedArray and o.level == level):
                unbatched_write(np.shape(o), batch_size_at(list(args), level))
    from .context import allocating

    n = batch_size_at(list(args) + list(kwargs.values()), level)
    with allocating(None):  # one sample's call allocates one sample's arrays
        results = [func(*sample(args, i, level), **sample(kwargs, i, level)) for i in range(n)]
    # warned after the samples ran: an error of the first sample is the op's own (torch's kernel raises it on
    # the batch, before any loop), not a loop's
    if FALLBACK_LOG is not None:
        FALLBACK_LOG.append(op_name(name))
    warn_fallback(name)
    return stack_samples(results, level)


def per_sample(func, *args):
    """``func(*args)`` once per sample of the top batch level of ``args`` (a helper that walks matrices one
    by one anyway, such as LAPACK's error codes), results stacked; no warning: nothing faster exists."""
    level = max_level(args)
    if level < 0:
        return func(*args)
    n = batch_size_at(list(args), level)
    return stack_samples([per_sample(func, *sample(args, i, level)) for i in range(n)], level)


def any_sample(x) -> bool:
    """Whether any element of any sample of ``x`` is true."""
    return bool(np.any(physical(x)))


# The rules use the class above: bound here, once (a function-level import costs about 1 us per call).
from . import rules, rules_indexing, rules_ufunc  # noqa: E402
