"""Creation, storage and index utilities beyond _creation.py and indexing.py: torch.scalar_tensor,
empty_strided, empty_permuted, Tensor.new_empty_strided, Tensor.resize_ / resize_as_, Tensor.char and
Tensor.bfloat16, torch.unique_consecutive, torch.unravel_index, torch.nonzero_static and torch.histogram.

None of these has a gradient (torch records none: resize_ refuses a tensor that requires grad).
Tensor.bfloat16() needs the optional ml_dtypes package (Note [bfloat16] in _dtype.py); without it, it raises
dyngrad's RuntimeError naming the extra.
"""

from __future__ import annotations

import builtins  # histogram's ``range`` argument hides the builtin
import math

from .. import _dtype
from .._backend import xp
from .._dtype import FLOATING_KINDS, scalar_type_name
from .._tensor import Tensor, _wrap_dim, wrap
from .reduction import return_type


def _torch():
    import dyngrad

    return dyngrad


def _np_dtype(dtype, default=None):
    from .._dtype import default_float_np, to_numpy

    if dtype is None:
        return default if default is not None else default_float_np()
    return to_numpy(dtype)


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        t.requires_grad_(True)
    return t


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad: bool = False):
    """torch.scalar_tensor(s, *, dtype=None, ...): a 0-d tensor holding the number s, of the default float dtype
    (or ``dtype``)."""
    if isinstance(s, Tensor):
        s = s.item()
    npd = _np_dtype(dtype)
    if isinstance(s, complex) and dtype is None:
        npd = xp.dtype(xp.complex64) if npd == xp.float32 else xp.dtype(xp.complex128)
    return _finish(wrap(xp.asarray(s, dtype=npd)), requires_grad)


def _strided_zeros(size, stride, npd):
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    need = 0 if any(n == 0 for n in size) else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    buffer = xp.zeros(max(need, 1), dtype=npd)
    return xp.lib.stride_tricks.as_strided(buffer, size, tuple(s * buffer.itemsize for s in stride))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None,
                  requires_grad: bool = False):
    """torch.empty_strided(size, stride, *, dtype=None, ...): a tensor of shape ``size`` whose elements lie
    ``stride`` elements apart in memory (dyngrad fills the memory with zeros; torch leaves it uninitialised)."""
    return _finish(wrap(_strided_zeros(size, stride, _np_dtype(dtype))), requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, pin_memory=None,
                   requires_grad: bool = False):
    """torch.empty_permuted(size, physical_layout, *, dtype=None, ...): a tensor of shape ``size`` whose dims lie
    in memory in the order ``physical_layout`` (outermost first); zeros here, uninitialised in torch.

    Raises RuntimeError when physical_layout is not a permutation of the dims (torch's text)."""
    size = tuple(int(n) for n in size)
    perm = tuple(int(d) for d in physical_layout)
    if len(perm) != len(size):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(perm)}")
    for i, d in enumerate(perm):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} at "
                               f"index {i}).  NB: negative dims not currently supported; file an issue if you want it.")
    if len(set(perm)) != len(perm):
        raise RuntimeError("Duplicate dim not allowed")
    physical = xp.zeros(tuple(size[d] for d in perm), dtype=_np_dtype(dtype))
    inverse = [0] * len(perm)
    for i, d in enumerate(perm):
        inverse[d] = i
    return _finish(wrap(physical.transpose(inverse)), requires_grad)


def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=None,
                      requires_grad: bool = False):
    """Tensor.new_empty_strided(size, stride, *, dtype=None, ...): empty_strided with self's dtype by default."""
    npd = _np_dtype(dtype, self._data.dtype)
    return _finish(wrap(_strided_zeros(size, stride, npd)), requires_grad)


def char(self, memory_format=None):
    """Tensor.char(): self as int8 (Tensor.to(torch.int8))."""
    from .shape import to

    return to(self, _torch().int8, memory_format=memory_format)


def bfloat16(self, memory_format=None):
    """Tensor.bfloat16(): self as torch.bfloat16 (Tensor.to(torch.bfloat16): ToCopyBackward0, round to nearest even).

    Raises RuntimeError (naming the ``dyngrad[bfloat16]`` extra) when ml_dtypes is not installed."""
    from .shape import to

    return to(self, _torch().bfloat16)


# ------------------------------------------------------------------ resize_
def resize_(self, *sizes, memory_format=None):
    """Tensor.resize_(*sizes): self reshaped in place to ``sizes``; its first elements (in memory order of a
    contiguous copy) are kept, new elements are zeros (uninitialised in torch). Bumps the version counter.

    Raises RuntimeError for a tensor that requires grad (torch's text: it cannot be resized)."""
    from .shape import _parse_shape

    shape = tuple(int(n) for n in _parse_shape(sizes))
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    old = xp.ascontiguousarray(self._data).reshape(-1)
    if tuple(self._data.shape) == shape:
        return self
    n = math.prod(shape)
    fresh = xp.zeros(n, dtype=old.dtype)
    k = min(n, old.size)
    fresh[:k] = old[:k]
    self._data = fresh.reshape(shape)
    self._vc[0] += 1
    return self


def resize_as_(self, the_template, *, memory_format=None):
    """Tensor.resize_as_(other): resize_(other.shape)."""
    return resize_(self, tuple(the_template._data.shape))


def torch_resize_as_(input, the_template, *, memory_format=None):  # noqa: A002 - torch's name
    """torch.resize_as_(input, the_template): Tensor.resize_as_ as a function."""
    return resize_as_(input, the_template)


# ------------------------------------------------------------------ index utilities
def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):  # noqa: A002
    """torch.unique_consecutive(input, return_inverse=False, return_counts=False, dim=None): input with each run
    of equal consecutive elements (or slices along dim) kept once; optionally the inverse indices (input's
    shape, or the dim's length) and the run lengths (int64). Without dim the input is flattened."""
    a = input._data
    if _dtype._limited_in_use[0]:
        from .limited_dtypes import refuse

        refuse("unique", a, unsigned=False)
    if dim is None:
        flat = a.reshape(-1)
        if flat.size == 0:
            starts = xp.zeros(0, dtype=bool)
        else:
            starts = xp.concatenate([[True], flat[1:] != flat[:-1]])
        values = flat[starts]
        inverse_shape = a.shape
    else:
        d = _wrap_dim(dim, a.ndim)
        moved = xp.moveaxis(a, d, 0)
        n = moved.shape[0]
        if n == 0:
            starts = xp.zeros(0, dtype=bool)
        else:
            diff = (moved[1:] != moved[:-1]).reshape(n - 1, math.prod(moved.shape[1:])).any(axis=1)
            starts = xp.concatenate([[True], diff])
        values = xp.moveaxis(moved[starts], 0, d)
        inverse_shape = (n,)
    run_id = xp.cumsum(starts) - 1
    out = [wrap(xp.ascontiguousarray(values))]
    if return_inverse:
        out.append(wrap(run_id.astype(xp.int64).reshape(inverse_shape)))
    if return_counts:
        counts = xp.bincount(run_id, minlength=int(starts.sum())) if run_id.size else xp.zeros(0, dtype=xp.int64)
        out.append(wrap(counts.astype(xp.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def unravel_index(indices, shape):
    """torch.unravel_index(indices, shape) -> tuple of int64 tensors: the coordinates of flat indices into a
    tensor of ``shape`` (negative indices count from the end), one tensor per dim, each of indices' shape.

    Raises TypeError for floating indices, RuntimeError for indices out of bounds or negative sizes (torch's
    texts)."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index(): argument 'indices' (position 1) must be Tensor, not {type(indices).__name__}")
    idx = indices._data
    if idx.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {scalar_type_name(idx.dtype)}")
    shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise RuntimeError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    total = math.prod(shape)
    idx = idx.astype(xp.int64)
    if idx.size and ((idx < -total).any() or (idx >= total).any()):
        raise RuntimeError(f"'indices' must be in range [-{total}, {total - 1}]")
    idx = xp.where(idx < 0, idx + total, idx)
    out = []
    for s in reversed(shape):
        out.append(idx % s if s else idx * 0)
        idx = idx // s if s else idx * 0
    return tuple(wrap(xp.array(o, dtype=xp.int64)) for o in reversed(out))


def nonzero_static(input, *, size: int, fill_value: int = -1):  # noqa: A002 - torch's name
    """torch.nonzero_static(input, *, size, fill_value=-1): nonzero's (N, ndim) int64 indices cut or padded with
    fill_value to exactly ``size`` rows. Raises RuntimeError for a negative size (torch's text)."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got size: {size}")
    a = input._data
    found = xp.argwhere(a) if a.ndim else xp.argwhere(a.reshape(1))[:, :0]
    out = xp.full((size, a.ndim), fill_value, dtype=xp.int64)
    k = min(size, found.shape[0])
    out[:k] = found[:k]
    return wrap(out)


_HistogramResult = return_type("histogram", ("hist", "bin_edges"))


def histogram(input, bins=100, *, range=None, weight=None, density: bool = False, out=None):  # noqa: A002
    """torch.histogram(input, bins, *, range=None, weight=None, density=False) -> (hist, bin_edges): counts (or
    summed weights, or a density) of the elements in ``bins`` equal bins over ``range`` (default: the data's),
    or in the bins between the sorted edges of a 1-D ``bins`` tensor; the last bin includes its right edge.

    Raises RuntimeError for integer input, bins < 1, an inverted range (torch's texts)."""
    a = input._data
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{scalar_type_name(a.dtype)}'")
    flat = a.reshape(-1)
    w = None if weight is None else weight._data.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins._data.astype(a.dtype)
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
            if lo > hi:
                raise RuntimeError(f"torch.histogram(): min should not exceed max, but got min {lo} max {hi}")
        elif flat.size:
            lo, hi = float(flat.min()), float(flat.max())
        else:
            lo, hi = 0.0, 1.0  # torch's bins for an empty input without a range
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5  # torch widens a zero range as NumPy does
        edges = xp.linspace(lo, hi, int(bins) + 1).astype(a.dtype)
    pos, keep = _bin_positions(flat, edges, not isinstance(bins, Tensor))
    nb = edges.size - 1
    weights = None if w is None else w[keep]
    hist = xp.bincount(pos, weights=weights, minlength=nb)[:nb].astype(a.dtype) if nb > 0 else xp.zeros(0, a.dtype)
    if density:
        widths = xp.diff(edges)
        total = hist.sum()
        hist = (hist / (total * widths)).astype(a.dtype)
    return _HistogramResult((wrap(hist), wrap(xp.ascontiguousarray(edges))))


def _bin_positions(values, edges, equal_width: bool):
    """(bin of each value inside [edges[0], edges[-1]], mask of those values); the last bin includes its right
    edge. Equal bins: ATen's (x - min) * bins / (max - min), as histc; other edges: a binary search."""
    nb = edges.size - 1
    lo, hi = edges[0], edges[-1]
    keep = (values >= lo) & (values <= hi)
    vals = values[keep]
    if equal_width:
        pos = ((vals - lo) * nb / (hi - lo)).astype(xp.int64)
    else:
        pos = xp.searchsorted(edges, vals, side="right") - 1
    return xp.clip(pos, 0, max(nb - 1, 0)), keep


def _equal_edges(column, count, lo_hi):
    if lo_hi is not None:
        lo, hi = lo_hi
    elif column.size:
        lo, hi = float(column.min()), float(column.max())
    else:
        lo, hi = 0.0, 1.0
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return xp.linspace(lo, hi, int(count) + 1).astype(column.dtype)


_HistogramddResult = return_type("histogramdd", ("hist", "bin_edges"))


def histogramdd(input, bins=10, *, range=None, weight=None, density: bool = False):  # noqa: A002 - torch's names
    """torch.histogramdd(input, bins, *, range=None, weight=None, density=False) -> (hist, bin_edges): the
    D-dimensional histogram of the rows of input (..., D); ``bins`` an int, a list of D ints or a list of D 1-D
    edge tensors; ``range`` a flat list (min_0, max_0, ..., min_{D-1}, max_{D-1}); rows outside any range are
    dropped. Raises RuntimeError for integer input or mismatched bins / range lengths (torch's texts)."""
    a = input._data
    if a.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{scalar_type_name(a.dtype)}'")
    d = a.shape[-1] if a.ndim else 1
    rows = a.reshape(-1, d)
    if isinstance(bins, int):
        bins = [bins] * d
    if len(bins) != d:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    ranges = None if range is None else [(float(range[2 * i]), float(range[2 * i + 1])) for i in builtins.range(d)]
    edges = []
    for i in builtins.range(d):
        b = bins[i]
        edges.append(b._data.astype(a.dtype) if isinstance(b, Tensor) else
                     _equal_edges(rows[:, i], b, None if ranges is None else ranges[i]))
    keep = xp.ones(rows.shape[0], dtype=bool)
    positions = []
    for i in builtins.range(d):
        pos, inside = _bin_positions(rows[:, i], edges[i], not isinstance(bins[i], Tensor))
        full = xp.zeros(rows.shape[0], dtype=xp.int64)
        full[inside] = pos
        positions.append(full)
        keep &= inside
    shape = tuple(e.size - 1 for e in edges)
    hist = xp.zeros(shape, dtype=a.dtype)
    w = None if weight is None else weight._data.reshape(-1)[keep]
    index = tuple(p[keep] for p in positions)
    xp.add.at(hist, index, 1 if w is None else w)
    if density:
        total = hist.sum()
        volume = xp.ones(shape, dtype=a.dtype)
        for i, e in enumerate(edges):
            view = [1] * d
            view[i] = -1
            volume = volume * xp.diff(e).reshape(view)
        hist = (hist / (total * volume)).astype(a.dtype)
    return _HistogramddResult((wrap(hist), tuple(wrap(xp.ascontiguousarray(e)) for e in edges)))


EXPORTS = dict(scalar_tensor=scalar_tensor, empty_strided=empty_strided, empty_permuted=empty_permuted,
               resize_as_=torch_resize_as_, unique_consecutive=unique_consecutive, unravel_index=unravel_index,
               nonzero_static=nonzero_static, histogram=histogram, histogramdd=histogramdd)
TENSOR_METHODS = dict(new_empty_strided=new_empty_strided, char=char, bfloat16=bfloat16, resize_=resize_,
                      resize_as_=resize_as_, unique_consecutive=unique_consecutive, nonzero_static=nonzero_static,
                      histogram=histogram)
