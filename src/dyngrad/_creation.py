"""Tensor creation: tensor, as_tensor, from_numpy, zeros, ones, full, arange, rand, ... and *_like.

Random functions draw from dyngrad's NumPy generator (see Note [Random streams]
in _backend.py): seeded by ``manual_seed`` and reproducible, but not the same
numbers torch draws.
"""

from __future__ import annotations

import builtins
import math

import numpy as _np  # only for type checks of incoming NumPy data

from . import _dtype
from ._backend import generator, xp
from ._tensor import Size, Tensor, wrap


def to_array(data, dtype=None):
    """Convert ``data`` to a new array with torch's dtype inference.

    Python floats give the default float dtype, ints int64, bools bool; NumPy arrays
    keep their dtype. Raises TypeError for strings and other non-numeric data.
    """
    npd = _dtype.to_numpy(dtype) if dtype is not None else None
    if isinstance(data, Tensor):
        arr = data._data.copy()
        return arr if npd is None else arr.astype(npd)
    if isinstance(data, _np.ndarray):
        if npd is None:
            _dtype.from_numpy(data.dtype)  # raises for unsupported dtypes
            return data.copy()
        return data.astype(npd)
    if isinstance(data, (list, tuple)) and _contains_tensor(data):
        data = _tensors_to_lists(data)
    try:
        arr = xp.array(data)
    except (ValueError, TypeError) as e:
        raise ValueError(f"could not convert data to a tensor: {e}") from None
    kind = arr.dtype.kind
    if kind in "USO":
        bad = _first_bad(data)
        raise TypeError(f"new(): invalid data type '{type(bad).__name__}'")
    if npd is not None:
        return arr.astype(npd)
    if kind == "f":
        if isinstance(data, _np.generic):
            return arr
        return arr.astype(_dtype.default_float_np())
    if kind == "c":
        return arr.astype(_dtype.get_default_dtype().to_complex().np)
    if kind in "iu":
        return arr.astype(xp.int64) if not isinstance(data, _np.generic) else arr
    return arr


def _contains_tensor(data) -> bool:
    return builtins.any(isinstance(x, Tensor) or (isinstance(x, (list, tuple)) and _contains_tensor(x)) for x in data)


def _tensors_to_lists(data):
    out = []
    for x in data:
        if isinstance(x, Tensor):
            out.append(x._data.tolist())
        elif isinstance(x, (list, tuple)):
            out.append(_tensors_to_lists(x))
        else:
            out.append(x)
    return out


def _first_bad(data):
    if isinstance(data, (list, tuple)):
        for x in data:
            b = _first_bad(x)
            if b is not None:
                return b
        return None
    return None if isinstance(data, (int, float, complex, bool)) else data


def _finish(arr, requires_grad: bool) -> Tensor:
    t = wrap(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (torch.tensor).

    Raises:
        TypeError: non-numeric data (``new(): invalid data type 'str'``).
        RuntimeError: ``requires_grad=True`` on an integer or bool dtype.
    """
    arr = to_array(data, dtype)
    if requires_grad and arr.dtype.kind not in "fc":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return _finish(arr, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array or tensor when no conversion is needed."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, _np.ndarray) and (dtype is None or _dtype.to_numpy(dtype) == data.dtype):
        _dtype.from_numpy(data.dtype)
        return wrap(data)
    return wrap(to_array(data, dtype))


def from_numpy(array) -> Tensor:
    """A tensor sharing memory with ``array`` (torch.from_numpy)."""
    if not isinstance(array, _np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy(array.dtype)
    return wrap(array)


def _size(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    try:
        return tuple(int(s) for s in size)
    except TypeError:
        raise TypeError(f"size must be a tuple of ints, got {size!r}") from None


def _float_dtype(dtype):
    return _dtype.to_numpy(dtype) if dtype is not None else _dtype.default_float_np()


def zeros(*size, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    return _finish(xp.zeros(_size(size), dtype=_float_dtype(dtype)), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    return _finish(xp.ones(_size(size), dtype=_float_dtype(dtype)), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    return _finish(xp.empty(_size(size), dtype=_float_dtype(dtype)), requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if dtype is None:
        npd = _dtype.result_type(fill_value)
    else:
        npd = _dtype.to_numpy(dtype)
    return _finish(xp.full(_size((size,)), fill_value, dtype=npd), requires_grad)


def _like(t: Tensor, dtype):
    return t._data.shape, (t._data.dtype if dtype is None else _dtype.to_numpy(dtype))


def zeros_like(t: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    shape, npd = _like(t, dtype)
    return _finish(xp.zeros(shape, dtype=npd), requires_grad)


def ones_like(t: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    shape, npd = _like(t, dtype)
    return _finish(xp.ones(shape, dtype=npd), requires_grad)


def empty_like(t: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    shape, npd = _like(t, dtype)
    return _finish(xp.empty(shape, dtype=npd), requires_grad)


def full_like(t: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    shape, npd = _like(t, dtype)
    return _finish(xp.full(shape, fill_value, dtype=npd), requires_grad)


def rand_like(t: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    shape, npd = _like(t, dtype)
    return _finish(generator().random(shape).astype(npd), requires_grad)


def randn_like(t: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    shape, npd = _like(t, dtype)
    return _finish(generator().standard_normal(shape).astype(npd), requires_grad)


def randint_like(t: Tensor, low=0, high=None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if high is None:
        low, high = 0, low
    shape, npd = _like(t, dtype)
    return _finish(generator().integers(low, high, size=shape).astype(npd), requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 when all are integers (torch.arange)."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is not None:
        npd = _dtype.to_numpy(dtype)
    elif builtins.all(isinstance(v, (int, _np.integer)) and not isinstance(v, bool) for v in vals):
        npd = xp.int64
    else:
        npd = _dtype.default_float_np()
    n = builtins.max(0, math.ceil((vals[1] - vals[0]) / vals[2]))
    arr = (vals[0] + xp.arange(n, dtype=xp.float64 if npd.kind == "f" else xp.int64) * vals[2]).astype(npd)
    return _finish(arr, requires_grad)


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(xp.linspace(start, end, int(steps)).astype(_float_dtype(dtype)), requires_grad)


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(xp.eye(n, m, dtype=_float_dtype(dtype)), requires_grad)


def rand(*size, generator_=None, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    from ._backend import generator as _gen

    g = generator._rng if generator is not None else _gen()
    return _finish(g.random(_size(size)).astype(_float_dtype(dtype)), requires_grad)


def randn(*size, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    from ._backend import generator as _gen

    g = generator._rng if generator is not None else _gen()
    return _finish(g.standard_normal(_size(size)).astype(_float_dtype(dtype)), requires_grad)


def randint(low, high=None, size=None, *, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    from ._backend import generator as _gen

    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    g = generator._rng if generator is not None else _gen()
    npd = _dtype.to_numpy(dtype) if dtype is not None else xp.int64
    return _finish(g.integers(low, high, size=_size((size,))).astype(npd), requires_grad)


def randperm(n: int, *, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    from ._backend import generator as _gen

    g = generator._rng if generator is not None else _gen()
    npd = _dtype.to_numpy(dtype) if dtype is not None else xp.int64
    return _finish(g.permutation(n).astype(npd), requires_grad)


class Generator:
    """A seedable random stream (torch.Generator), for ``randperm``/``rand``/DataLoader shuffling."""

    def __init__(self, device="cpu") -> None:
        self._rng = xp.random.default_rng()
        self._seed = None

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._rng = xp.random.default_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        return self._seed
