"""Joining and splitting: cat (concat, concatenate), stack, hstack, vstack, row_stack, dstack, column_stack,
atleast_1d/2d/3d, meshgrid, unbind, split, chunk and tensor_split (more split variants in shape_extras.py).

The pieces of unbind, split and chunk are views of their input (NumPy views), as torch's are. Each backward
is the inverse movement of the gradient (derivatives.yaml).
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import scalar_type_name as _scalar_name
from .._tensor import Tensor, _wrap_dim, wrap
from ..autograd.grad_mode import _state as _grad_state
from .registry import Op, apply, register
from .shape import _mark_multi_view, _mark_view, _shape_str, expand, narrow, reshape, unsqueeze, view


@register
class UnbindBackward0(Op):
    """unbind(dim): one view per index along ``dim``; the gradients are stacked back."""

    @staticmethod
    def forward(a, dim):
        return tuple(xp.moveaxis(a, dim, 0))

    def backward(self, *grads):
        return (stack(grads, self._params[0]),)


def unbind(a: Tensor, dim: int = 0) -> tuple:
    from .registry import apply_multi

    if a._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, a._data.ndim)
    outs = apply_multi(UnbindBackward0, (a,), (d,))
    return _mark_multi_view(outs, a, "UnbindBackward0")


@register
class StackBackward0(Op):
    """stack(tensors, dim): the gradient is unbound along ``dim``, one piece per input."""

    @staticmethod
    def forward(*arrays_and_dim):
        *arrays, dim = arrays_and_dim
        return xp.stack(arrays, axis=dim)

    def backward(self, g):
        return unbind(g, self._params[0])


def _tensor_seq(name: str, tensors) -> tuple:
    """The ``tensors`` argument of cat/stack and kin as a tuple, with torch's TypeErrors for anything but a
    list or tuple of Tensors (``torch.cat(x)`` of one tensor included)."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}"
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tuple(tensors)


def stack(tensors, dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a new dim (torch.stack).

    Raises:
        TypeError: ``tensors`` not a list or tuple of Tensors; RuntimeError: an empty list, or tensors of
        different shapes (torch's messages).
    """
    tensors = _tensor_seq("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape0 = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != shape0:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got [{', '.join(map(str, shape0))}] at entry 0 "
                f"and [{', '.join(map(str, t._data.shape))}] at entry {i}"
            )
    d = _wrap_dim(dim, len(shape0) + 1)
    from .._dtype import result_type

    npd = result_type(*[t._data for t in tensors])
    arrays = tuple(t._data if t._data.dtype == npd else t._data.astype(npd) for t in tensors)
    return apply(StackBackward0, tensors, (d,), arrays)


# ------------------------------------------------------------- cat / split
@register
class CatBackward0(Op):
    """cat(tensors, dim): the gradient is cut back into each input's slice along ``dim``."""

    @staticmethod
    def forward(*arrays_and_params):
        *arrays, dim, sizes, shapes = arrays_and_params
        return xp.concatenate(arrays, axis=dim)

    def backward(self, g):
        dim, sizes, shapes = self._params
        grads = []
        start = 0
        for i, n in enumerate(sizes):
            if self.next_functions[i][0] is None:
                grads.append(None)
            else:
                legacy_empty = shapes[i] == (0,) and g._data.ndim != 1
                grads.append(wrap(xp.zeros((0,), g._data.dtype)) if legacy_empty else narrow(g, dim, start, n))
            start += n
        return tuple(grads)


def cat(tensors, dim: int = 0, *, out=None, _name: str = "cat") -> Tensor:
    """Join tensors along an existing dim (torch.cat). Legacy 1-D empty tensors are skipped as in torch.

    Raises:
        TypeError: ``tensors`` not a list or tuple of Tensors; ValueError: an empty list; RuntimeError:
        mismatched sizes (torch's messages).
    """
    tensors = _tensor_seq(_name, tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    ref = next((t for t in tensors if t._data.shape != (0,)), tensors[0])
    nd = ref._data.ndim
    if nd == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, nd)
    for i, t in enumerate(tensors):
        sh = t._data.shape
        if sh == (0,) and nd != 1:
            continue
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if len(sh) != nd:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {nd} and {len(sh)}"
            )
        for k in range(nd):
            if k != d and sh[k] != ref._data.shape[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {ref._data.shape[k]} but "
                    f"got size {sh[k]} for tensor number {i} in the list."
                )
    from .._dtype import result_type

    npd = result_type(*[t._data for t in tensors])
    empty = ref._data.shape[:d] + (0,) + ref._data.shape[d + 1 :]
    # a legacy 1-D empty tensor is skipped by torch; it stays an input of the node (with no gradient)
    arrays = tuple(
        xp.zeros(empty, npd) if (t._data.shape == (0,) and nd != 1)
        else (t._data if t._data.dtype == npd else t._data.astype(npd))
        for t in tensors
    )
    sizes = tuple(x.shape[d] for x in arrays)
    shapes = tuple(t._data.shape for t in tensors)
    return apply(CatBackward0, tensors, (d, sizes, shapes), arrays)


def concat(tensors, dim: int = 0, *, out=None) -> Tensor:
    return cat(tensors, dim, _name="concat")


def concatenate(tensors, dim: int = 0, *, out=None) -> Tensor:
    return cat(tensors, dim, _name="concatenate")


def _non_empty(name: str, tensors, empty_name: str | None = None) -> tuple:
    """_tensor_seq, and torch's RuntimeError for an empty list (the stacking functions check before cat;
    row_stack's names vstack there)."""
    tensors = _tensor_seq(name, tensors)
    if not tensors:
        raise RuntimeError(f"{empty_name or name} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, _name: str = "hstack") -> Tensor:
    tensors = [atleast_1d(t) for t in _non_empty(_name, tensors)]
    return cat(tensors, 0 if tensors and tensors[0]._data.ndim == 1 else 1)


def vstack(tensors, *, _name: str = "vstack") -> Tensor:
    return cat([atleast_2d(t) for t in _non_empty(_name, tensors, "vstack")], 0)


def row_stack(tensors) -> Tensor:
    return vstack(tensors, _name="row_stack")


def dstack(tensors) -> Tensor:
    return cat([atleast_3d(t) for t in _non_empty("dstack", tensors)], 2)


def column_stack(tensors) -> Tensor:
    ts = [reshape(t, t._data.size, 1) if t._data.ndim <= 1 else t for t in _non_empty("column_stack", tensors)]
    return hstack(ts)


def _each_tensor(one):
    """torch's atleast_Nd overloads: one tensor gives a tensor; several tensors, or a list or tuple of them,
    give a tuple."""

    def fn(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return one(tensors[0])
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        return tuple(one(t) for t in tensors)

    fn.__name__ = one.__name__
    fn.__doc__ = one.__doc__
    return fn


@_each_tensor
def atleast_1d(t: Tensor) -> Tensor:
    return reshape(t, 1) if t._data.ndim == 0 else t


@_each_tensor
def atleast_2d(t: Tensor) -> Tensor:
    n = t._data.ndim
    return reshape(t, 1, 1) if n == 0 else (unsqueeze(t, 0) if n == 1 else t)


@_each_tensor
def atleast_3d(t: Tensor) -> Tensor:
    n = t._data.ndim
    if n == 0:
        return reshape(t, 1, 1, 1)
    if n == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    if n == 2:
        return unsqueeze(t, -1)
    return t


class _SplitOp(Op):
    """The gradients of the pieces are concatenated back (derivatives.yaml: split_backward); a piece that got
    no gradient counts as zeros."""

    @staticmethod
    def forward(a, dim, sizes):
        outs = []
        start = 0
        for n in sizes:
            key = (slice(None),) * dim + (slice(start, start + n),)
            outs.append(a[key])
            start += n
        return tuple(outs)

    def backward(self, *grads):
        if not _grad_state.enabled:  # a plain backward: one concatenate on arrays (Note [Backward on arrays])
            arrays = [g._data for g in grads]
            if all(type(a) is xp.ndarray and a.dtype == arrays[0].dtype for a in arrays):  # (not vmap-batched)
                return (wrap(xp.concatenate(arrays, axis=self._params[0])),)
        return (cat(grads, self._params[0]),)


@register
class SplitBackward0(_SplitOp):
    """split(int) and chunk: views of equal pieces (the last may be smaller)."""


@register
class SplitWithSizesBackward0(_SplitOp):
    """split([sizes]): views of the given sizes."""


def _split(a: Tensor, op, d: int, sizes) -> tuple:
    from .registry import apply_multi

    outs = apply_multi(op, (a,), (d, tuple(sizes)))
    return _mark_multi_view(outs, a, op.__name__)


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """split(int or [sizes], dim): views (SplitBackward0 / SplitWithSizesBackward0). (``tensor``: torch.split's
    parameter name, torch.split(tensor=x, split_size_or_sections=1).)"""
    a = tensor
    if a._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, a._data.ndim)
    n = a._data.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        for s in sizes:
            if s < 0:
                raise RuntimeError(
                    f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                    f"split_sizes={_shape_str(sizes)}"
                )
        if sum(sizes) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at dimension {d}), "
                f"but got split_sizes={_shape_str(sizes)}"
            )
        return _split(a, SplitWithSizesBackward0, d, sizes)
    s = int(split_size_or_sections)
    if s < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={s}")
    if s == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
    if s == 0:
        sizes = [0]
    else:
        count = max((n + s - 1) // s, 1)
        sizes = [s] * (count - 1) + [n - s * (count - 1)]
    return _split(a, SplitBackward0, d, sizes)


def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple:
    if a._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, a._data.ndim)
    n = a._data.shape[d]
    size = (n + chunks - 1) // chunks
    if size == 0 and n == 0:
        return _split(a, SplitWithSizesBackward0, d, [0] * chunks)
    return split(a, size, d)


def tensor_split(a: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    """torch.tensor_split: views of ``a`` along ``dim`` (SliceBackward0 each), into a number of sections (an int
    or a 0-d long tensor; the first n % k get one more) or at indices (a list or a 1-d long tensor).

    Raises:
        RuntimeError: sections <= 0; a tensor argument not long or with more than one dim (torch's texts).
    """
    d = _wrap_dim(dim, a._data.ndim)
    n = a._data.shape[d]
    if isinstance(indices_or_sections, Tensor):  # a 0-d long tensor is a number of sections, a 1-d one indices
        t = indices_or_sections._data
        if t.dtype != xp.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{_scalar_name(t.dtype)}")
        if t.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {t.ndim} dims")
        indices_or_sections = int(t) if t.ndim == 0 else t.tolist()
    # torch slices each piece (SliceBackward0 views): with indices, piece i is [index i-1, index i) in slice
    # semantics (negative indices count from the end; a decreasing pair gives an empty piece)
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        base, extra = divmod(n, k)
        bounds, start = [], 0
        for i in range(k - 1):
            start += base + (1 if i < extra else 0)
            bounds.append(start)
    else:
        bounds = [int(i) for i in indices_or_sections]
    from .indexing import getitem_raw

    lead = (slice(None),) * d
    starts, ends = [0] + bounds, bounds + [None]
    return tuple(_mark_view(getitem_raw(a, lead + (slice(s, e),), a._data.shape, False), a)
                 for s, e in zip(starts, ends))


_MESHGRID_WARNED = []


def meshgrid(*tensors, indexing=None) -> tuple:
    """meshgrid(*tensors, indexing='ij'|'xy'): each 1-D input viewed and expanded (ExpandBackward0)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        if not _MESHGRID_WARNED:
            import warnings

            _MESHGRID_WARNED.append(True)
            warnings.warn(
                "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. "
                "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)",
                UserWarning,
                stacklevel=2,
            )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}"
            )
    ts = [atleast_1d(t) for t in tensors]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t._data.shape[0] for t in ts)
    outs = []
    for i, t in enumerate(ts):
        vshape = [1] * len(ts)
        vshape[i] = shape[i]
        outs.append(expand(view(t, vshape), shape))
    if swap:  # 'xy' is 'ij' of the first two inputs swapped, with the first two grids swapped back
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = {
    name: globals()[name]
    for name in (
        "cat concat concatenate hstack vstack row_stack dstack column_stack atleast_1d atleast_2d atleast_3d split "
        "chunk tensor_split meshgrid"
    ).split()
}
TENSOR_METHODS: dict = {name: globals()[name] for name in ("chunk", "tensor_split")}


def _split_method(self, split_size, dim=0):
    """Tensor.split: torch's is a Python function whose parameter is ``split_size`` (torch.split's is
    ``split_size_or_sections``): x.split(split_size=2)."""
    if not isinstance(split_size, (int, xp.integer, Tensor, list, tuple)):  # torch reads it as split_with_sizes'
        from .._argparse import explain

        error = explain("split_with_sizes", (self, split_size, dim), {})
        if error is not None:
            raise error
    return split(self, split_size, dim)


# (Python's own TypeErrors name the function by its qualified name: "Tensor.split() missing ...", as torch's)
_split_method.__qualname__ = "Tensor.split"
TENSOR_METHODS["split"] = _split_method
