"""The one seam between dyngrad and its array library.

Every op reaches NumPy through ``xp`` (the array namespace) and the named helpers
below. A CuPy backend would provide the same names; nothing else would change.
"""

from __future__ import annotations

import threading

import numpy as np

xp = np
ndarray = np.ndarray

# Note [Floating-point warnings]
# torch computes inf and nan silently (log(0), 1/0, sqrt(-1)); NumPy warns. dyngrad
# turns NumPy's floating-point warnings off when it is imported, for the importing
# thread, so its ops behave as torch's. A per-op np.errstate would cost about 1 us
# per op, as much as the rest of a small op. Users who want NumPy's warnings back
# can call np.seterr(all="warn") after importing dyngrad.
np.seterr(all="ignore")

# Note [Random streams]
# dyngrad's default CPU generator is torch's: an mt19937 with torch's draws, seed and state layout
# (_torch_rng.py), and the sampling kernels draw from it as torch's CPU kernels do (_random_kernels.py),
# so ``manual_seed(s)`` followed by the same ops gives torch's numbers (docs/random.md says which ops
# match to the bit).
from ._torch_rng import MT19937Stream  # noqa: E402

_generator = MT19937Stream()


def manual_seed(seed: int) -> None:
    _generator.manual_seed(seed)


def generator() -> MT19937Stream:
    """The default generator's stream (torch.default_generator)."""
    return _generator


def sum_to_axes(broadcast_shape: tuple, shape: tuple) -> tuple:
    """The axes to sum (keeping dims) to bring ``broadcast_shape`` back to ``shape``; the leading
    axes it added are then dropped by a reshape. Shared by the array and the Tensor reductions."""
    lead = len(broadcast_shape) - len(shape)
    axes = list(range(lead))
    for i, n in enumerate(shape):
        if n == 1 and broadcast_shape[i + lead] != 1:
            axes.append(i + lead)
    return tuple(axes)


_add_reduce = np.add.reduce


def sum_to_shape(array: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum a broadcast array down to ``shape`` (the inverse of broadcasting)."""
    axes = sum_to_axes(array.shape, shape)
    lead = array.ndim - len(shape)
    if not axes:
        return array.reshape(shape) if lead else array
    if len(axes) == lead:  # only added leading dims (a bias row): sum them away, no reshape
        return _add_reduce(array, axis=axes)
    out = _add_reduce(array, axis=axes, keepdims=True)
    return out.reshape(shape) if lead else out


def broadcast_to(array: np.ndarray, shape: tuple) -> np.ndarray:
    """``np.broadcast_to`` (a read-only view with zero strides) at a third of its cost for a
    C-contiguous array, which is what gradients flowing back through a reduction are."""
    n, k = len(shape), array.ndim
    if type(array) is np.ndarray and k <= n and array.flags.c_contiguous:
        strides = [0] * (n - k)
        for size, stride, want in zip(array.shape, array.strides, shape[n - k :]):
            if size == want:
                strides.append(stride)
            elif size == 1:
                strides.append(0)
            else:
                break
        else:
            view = np.ndarray(shape, array.dtype, array, 0, tuple(strides))
            view.flags.writeable = False
            return view
    return np.broadcast_to(array, shape)


def index_add(target: np.ndarray, index, values: np.ndarray) -> None:
    """target[index] += values, accumulating over repeated indices.

    Many rows picked by a 1-D index (an embedding's or ``x[idx]``'s backward) are summed per
    distinct index with one stable sort and ``np.add.reduceat``: about 5x faster than
    ``np.add.at`` for 700 rows of 200 values, equal to it up to the order of the additions.
    """
    if type(index) is tuple and len(index) == 1:  # x[(idx,)] is x[idx]
        index = index[0]
    if (
        type(index) is np.ndarray
        and index.ndim == 1
        and index.dtype.kind in "iu"
        and target.ndim >= 2
        and index.size >= 16
        and type(values) is np.ndarray
        and values.size >= 4096  # below that, np.add.at's lower fixed cost wins
        and values.shape == index.shape + target.shape[1:]
    ):
        order = np.argsort(index, kind="stable")
        rows = index[order]
        if rows[0] >= 0:  # negative indices would name one row twice: left to np.add.at
            starts = np.flatnonzero(np.concatenate(([True], rows[1:] != rows[:-1])))
            target[rows[starts]] += np.add.reduceat(values[order], starts, axis=0)
            return
    np.add.at(target, index, values)


_constants: dict = {}


def constant(value, dtype) -> np.ndarray:
    """A cached read-only 0-d array: NumPy combines it with an array faster than a Python scalar."""
    key = (value, dtype)
    c = _constants.get(key)
    if c is None:
        c = np.array(value, dtype=dtype)
        c.flags.writeable = False
        _constants[key] = c
    return c


def along_axis_key(index: np.ndarray, axis: int) -> tuple:
    """The advanced-indexing key that picks ``index`` along ``axis`` (as np.take_along_axis does).

    ``a[along_axis_key(idx, axis)]`` equals ``np.take_along_axis(a, idx, axis)`` and, unlike it,
    also works as an assignment target; ``idx`` has the same number of dims as ``a``.
    """
    key = []
    for i, n in enumerate(index.shape):
        if i == axis:
            key.append(index)
        else:
            shape = [1] * index.ndim
            shape[i] = n
            key.append(np.arange(n).reshape(shape))
    return tuple(key)


# Note [Scratch buffers]
# Large temporaries that never leave a kernel (the column matrix of a convolution's input gradient, ...)
# are taken from a small per-thread pool instead of being allocated each call: the C allocator hands
# blocks of a few MB back to the system when they are freed, so a fresh one costs a page fault per
# 4 KiB page on first touch, which for the convolution backward was as much as its matrix products.
# A kernel names each buffer it uses (``key``); the array it gets is valid until its next call with
# that key on this thread, so it must not be returned, saved, or used by a nested call of the same key.
_scratch = threading.local()


def scratch(key: str, shape: tuple, dtype) -> np.ndarray:
    """An uninitialised array of ``shape`` and ``dtype`` from this thread's pool (see Note [Scratch buffers])."""
    dtype = np.dtype(dtype)
    nbytes = dtype.itemsize
    for n in shape:
        nbytes *= n
    pool = getattr(_scratch, "pool", None)
    if pool is None:
        pool = _scratch.pool = {}
    buf = pool.get(key)
    if buf is None or buf.size < nbytes:
        buf = pool[key] = np.empty(max(nbytes, 1), dtype=np.uint8)
    return buf[:nbytes].view(dtype).reshape(shape)
