"""Copying forms of the view ops (torch's ``*_copy`` family: view_copy, permute_copy, ...), the
``*_scatter`` ops that write a tensor into a view of a copy (diagonal_scatter, select_scatter,
slice_scatter, as_strided_scatter) and torch.as_strided itself.

Note [Copies of views]
torch generates ``X_copy(input, ...)`` as ``X(input, ...).clone()`` with the node of the view op renamed
``XBackward0_copy`` (``NarrowCopyBackward0`` for narrow_copy): the same gradient as the view's. Here each
copy runs the view function once on a stand-in leaf (same array, requires grad) to learn which node and
parameters the view records, then applies a copying subclass of that node to the real input. So the
copy takes exactly the view's argument checks, error texts and gradient.

Gradients of the scatters (derivatives.yaml): for ``out = X_scatter(input, src, ...)`` the input gets the
gradient with the written region zeroed (``X_scatter(grad, zeros, ...)``) and src gets ``X(grad, ...)``, the
region itself. as_strided (derivatives.yaml as_strided_backward): the gradient is added into a zero
storage at the output's positions and read back at the input's positions, divided by how many times
the input's geometry reads each storage element.
"""

from __future__ import annotations

from .._backend import xp
from .._batching.array import BatchedArray as _BatchedArray
from .._dtype import FLOAT8_NP
from .._tensor import Tensor, _wrap_dim, wrap
from ..autograd.grad_mode import _state as _grad_state
from . import diagonals, join_split
from . import shape as sh
from .indexing import AliasBackward0, SliceBackward0
from .registry import REGISTRY, Op, apply, apply_multi, register
from .shape import ExpandBackward0, PermuteBackward0

# ====================================================================== the *_copy family
_COPY_CLASSES: dict = {}


def _copy_class(view_cls: type, name: str | None = None) -> type:
    """The copying subclass of a view node (Note [Copies of views]), named ``<view>_copy`` unless ``name``."""
    name = name or view_cls.__name__ + "_copy"
    cls = _COPY_CLASSES.get((view_cls, name))
    if cls is not None:
        return cls
    existing = REGISTRY.get(name)
    if existing is not None and issubclass(existing, view_cls):
        _COPY_CLASSES[(view_cls, name)] = existing
        return existing
    base_forward = view_cls.forward

    def forward(*args):
        out = base_forward(*args)
        if isinstance(out, tuple):
            return tuple(xp.array(o, copy=True) for o in out)
        return xp.array(out, copy=True)

    cls = type(name, (view_cls,), {"__slots__": (), "forward": staticmethod(forward), "__module__": __name__,
                                   "__doc__": f"{name}: a copy of {view_cls.__name__}'s view, the same gradient."})
    if _REGISTERING:  # the copies of the module's list below; one made later for another view node stays unlisted
        register(cls)
    _COPY_CLASSES[(view_cls, name)] = cls
    return cls


_REGISTERING = True


def _run_copy(view_fn, input, args, kwargs, name: str | None = None):  # noqa: A002
    """``view_fn(input, *args, **kwargs)`` as a copy recorded with the view's node renamed (Note [Copies of views])."""
    if not isinstance(input, Tensor):
        raise TypeError(f"argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    from .._batching.context import STATE as _VMAP

    if _VMAP.stack:  # under vmap the stand-in cannot be a fresh leaf of batched data: the view, then a copy
        out = view_fn(input, *args, **kwargs)
        return tuple(o.clone() for o in out) if isinstance(out, (tuple, list)) else out.clone()
    stand_in = wrap(input._data, True)
    prev = _grad_state.enabled
    _grad_state.enabled = True
    try:
        probe = view_fn(stand_in, *args, **kwargs)
    finally:
        _grad_state.enabled = prev
    multi = isinstance(probe, (tuple, list))
    node = (probe[0] if multi else probe).grad_fn
    params = getattr(node, "_params", ())
    cls = _copy_class(type(node), name)
    if multi:
        return tuple(apply_multi(cls, (input,), params))
    return apply(cls, (input,), params)


def _copy_of(view_fn, torch_name: str, node_name: str | None = None, doc: str = ""):
    def fn(input, *args, out=None, **kwargs):  # noqa: A002 - torch's name
        return _run_copy(view_fn, input, args, kwargs, node_name)

    fn.__name__ = fn.__qualname__ = torch_name
    fn.__doc__ = (f"torch.{torch_name}: ``{torch_name[:-5]}(input, ...)`` as a new contiguous tensor (no view); the "
                  f"same shapes, errors and gradient as the view (Note [Copies of views] in copies.py). {doc}")
    return fn


def _alias(t: Tensor) -> Tensor:
    return t[...]


def _view(t: Tensor, *shape):
    # torch's view_copy reshapes where a view is impossible (its node is still ViewBackward0_copy)
    return sh.reshape(t, *shape)


alias_copy = _copy_of(_alias, "alias_copy")
diagonal_copy = _copy_of(diagonals.diagonal, "diagonal_copy")
expand_copy = _copy_of(sh.expand, "expand_copy", doc="``implicit`` is accepted and ignored, as torch.")
def _narrow(t: Tensor, dim: int, start, length: int):
    if t._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(dim, int) and dim >= t._data.ndim:  # narrow_copy checks this bound before wrapping the dim
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an enhancement request to PyTorch.)")
    if isinstance(length, int) and length < 0 and isinstance(start, int):  # narrow_copy has no own length check
        n = t._data.shape[dim]
        if -n <= start <= n:
            raise RuntimeError(f"start ({start + n if start < 0 else start}) + length ({length}) exceeds dimension "
                               f"size ({n}).")
    return sh.narrow(t, dim, start, length)


narrow_copy = _copy_of(_narrow, "narrow_copy", "NarrowCopyBackward0")
permute_copy = _copy_of(sh.permute, "permute_copy")
squeeze_copy = _copy_of(sh.squeeze, "squeeze_copy")
t_copy = _copy_of(sh.t, "t_copy")
transpose_copy = _copy_of(sh.transpose, "transpose_copy")
def _unbind(t: Tensor, dim: int = 0):
    if t._data.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return join_split.unbind(t, dim)


unbind_copy = _copy_of(_unbind, "unbind_copy")
unfold_copy = _copy_of(sh.unfold, "unfold_copy")
unsqueeze_copy = _copy_of(sh.unsqueeze, "unsqueeze_copy")
view_copy = _copy_of(_view, "view_copy", "ViewBackward0_copy")
split_with_sizes_copy = _copy_of(lambda t, sizes, dim=0: join_split.split(t, list(sizes), dim), "split_with_sizes_copy")


def _expand_copy(input, size, *, implicit=False, out=None):  # noqa: A002
    return _run_copy(sh.expand, input, (size,), {})


_expand_copy.__doc__ = expand_copy.__doc__
expand_copy = _expand_copy


# the nodes the copies record, made (and listed in REGISTRY) at import so that the registry does not depend on calls
for _view_cls in (AliasBackward0, ExpandBackward0, PermuteBackward0, sh.SqueezeBackward0, sh.SqueezeBackward1,
                  sh.SqueezeBackward2, sh.TBackward0, sh.TransposeBackward0, join_split.UnbindBackward0, sh.UnfoldBackward0,
                  sh.UnsqueezeBackward0, sh.ViewBackward0, join_split.SplitWithSizesBackward0):
    _copy_class(_view_cls)
_copy_class(SliceBackward0, "NarrowCopyBackward0")


# ====================================================================== the *_scatter family
def _check_scatter_src(name: str, view_shape, src: Tensor) -> None:
    if tuple(view_shape) != tuple(src._data.shape):
        from .._tensor import Size

        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {Size(src._data.shape)}"
                           f", slice size = {Size(view_shape)}")


class _ScatterOp(Op):
    """X_scatter(input, src, *view_params): a copy of input with src written into its view X.
    Backward (derivatives.yaml): input gets grad with the region zeroed (X_scatter(grad, 0)), src gets X(grad)."""

    view_key = None  # (array, *params) -> the view of the array

    @classmethod
    def region(cls, a, params):
        raise NotImplementedError

    @classmethod
    def forward(cls, a, src, *params):
        out = xp.array(a, copy=True)
        view = cls.region(out, params)
        view[...] = src
        return out

    def backward(self, g):
        params = self._params
        cls = type(self)
        gi = gs = None
        if self.next_functions[0][0] is not None:
            zeros = wrap(xp.zeros(cls.region(g._data, params).shape, dtype=g._data.dtype))
            gi = apply(cls, (g, zeros), params)
        if self.next_functions[1][0] is not None:
            gs = cls.region_tensor(g, params)
        return gi, gs


def _writable_diagonal(a, offset, d1, d2):
    v = xp.diagonal(a, offset, d1, d2)
    v.flags.writeable = True  # NumPy's diagonal views are read-only by policy, not by necessity
    return v


@register
class DiagonalScatterBackward0(_ScatterOp):
    __doc__ = "diagonal_scatter(input, src, offset, dim1, dim2). " + _ScatterOp.__doc__

    @classmethod
    def region(cls, a, params):
        return _writable_diagonal(a, *params)

    @classmethod
    def region_tensor(cls, g, params):
        offset, d1, d2 = params
        return diagonals.diagonal(g, offset, d1, d2)


@register
class SelectScatterBackward0(_ScatterOp):
    __doc__ = "select_scatter(input, src, dim, index). " + _ScatterOp.__doc__
    complex_grad = False  # torch 2.13 refuses complex autograd for select_scatter (its text)

    @classmethod
    def region(cls, a, params):
        dim, index = params
        return a[(slice(None),) * dim + (index, Ellipsis)]

    @classmethod
    def region_tensor(cls, g, params):
        return sh.select(g, *params)


@register
class SliceScatterBackward0(_ScatterOp):
    __doc__ = "slice_scatter(input, src, dim, start, end, step). " + _ScatterOp.__doc__
    complex_grad = False  # torch 2.13 refuses complex autograd for slice_scatter (its text)

    @classmethod
    def region(cls, a, params):
        dim, start, end, step = params
        return a[(slice(None),) * dim + (slice(start, end, step),)]

    @classmethod
    def region_tensor(cls, g, params):
        dim, start, end, step = params
        return g[(slice(None),) * dim + (slice(start, end, step),)]


def _scatter(op, name: str, input, src, params):  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    view_shape = op.region(input._data, params).shape
    _check_scatter_src(name, view_shape, src)
    s = src._data
    if s.dtype != input._data.dtype:
        s = s.astype(input._data.dtype)
    return apply(op, (input, src), params, (input._data, s))


def diagonal_scatter(input, src, offset: int = 0, dim1: int = 0, dim2: int = 1, *, out=None):  # noqa: A002
    """torch.diagonal_scatter(input, src, offset=0, dim1=0, dim2=1): a copy of input whose (offset, dim1, dim2)
    diagonal is src (src's shape: input.diagonal(offset, dim1, dim2)'s). Raises IndexError for dims out of range,
    RuntimeError for a src of another shape (torch's texts)."""
    n = input._data.ndim
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _scatter(DiagonalScatterBackward0, "diagonal_scatter", input, src, (int(offset), d1, d2))


def select_scatter(input, src, dim: int, index: int, *, out=None):  # noqa: A002
    """torch.select_scatter(input, src, dim, index): a copy of input with input.select(dim, index) replaced by src.
    Raises IndexError for a dim or index out of range, RuntimeError for a src of another shape."""
    n = input._data.ndim
    d = _wrap_dim(dim, n)
    size = input._data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input._data.shape)} at "
                         f"dimension {dim}")
    return _scatter(SelectScatterBackward0, "select_scatter", input, src, (d, int(index) % size))


def slice_scatter(input, src, dim: int = 0, start=None, end=None, step: int = 1, *, out=None):  # noqa: A002
    """torch.slice_scatter(input, src, dim=0, start=None, end=None, step=1): a copy of input with
    input[..., start:end:step, ...] (along dim) replaced by src. Raises RuntimeError for step <= 0 or a src of
    another shape (torch's texts)."""
    n = input._data.ndim
    d = _wrap_dim(dim, n)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return _scatter(SliceScatterBackward0, "slice_scatter", input, src, (d, start, end, int(step)))


# ====================================================================== as_strided
def _root_of(a):
    """The array owning ``a``'s memory: the end of its chain of NumPy views (through the DummyArray that
    numpy.lib.stride_tricks.as_strided puts between a strided view and its source)."""
    root = a
    while True:
        base = root.base
        if isinstance(base, xp.ndarray):
            root = base
        elif base is not None and isinstance(getattr(base, "base", None), xp.ndarray):
            root = base.base
        else:
            return root


def _storage_of(a):
    """(flat storage array, element offset of ``a`` in it): the memory ``a`` shares with its root."""
    if type(a) is _BatchedArray:
        return _batched_storage(a)[:2]
    root = _root_of(a)
    if not root.flags.c_contiguous:
        return xp.ascontiguousarray(a).reshape(-1), 0
    flat = root.reshape(-1)
    offset = (a.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // a.itemsize if a.size else 0
    return flat, offset


def _batched_storage(a):
    """(storage, offset, strides) of an array batched by vmap, as torch's as_strided batching rule reads it: sample
    i's storage is the memory from the physical array's start shifted by i batch strides, so that offsets and
    strides (of one sample, in elements) mean within each sample's storage what they mean for the first sample's
    (functorch's note on as_strided: y[i] has storage offset ``offset + i * x.stride(batch_dim)``). The storage is
    a batched (overlapping) view of the root's memory; an array that does not lie in its root's memory with
    non-negative batch strides is copied first (then each sample owns a contiguous storage)."""
    from .._batching.op_rules import _physical_front, _wrap_front

    v, order = _physical_front(a)
    k = len(order)
    item = v.itemsize
    root = _root_of(v)
    if not root.flags.c_contiguous or any(s < 0 or s % item for s in v.strides):
        v = xp.ascontiguousarray(v)
        root = v
    flat = root.reshape(-1)
    offset = (v.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // item if v.size else 0
    batch_strides = tuple(s // item for s in v.strides[:k])
    lead = v.shape[:k]
    length = flat.size - sum((n - 1) * s for n, s in zip(lead, batch_strides))
    if length < 0:  # (an empty batch)
        length = 0
    storage = xp.lib.stride_tricks.as_strided(flat, lead + (length,), tuple(s * item for s in batch_strides) + (item,))
    return _wrap_front(storage, order), offset, tuple(s // item for s in v.strides[k:])


_VMAP_AS_STRIDED = (
    "result = tensor.as_strided({size}, {stride}, {offset}) can access memory outside of `tensor`. `result` can "
    "access some memory in range [{r0}, {r1}], but `tensor` can only access some memory in range [{t0}, {t1}]. This "
    "is not supported inside of vmap, please try to rewrite the `as_strided` call as a sequence of PyTorch view "
    "operations")


def _check_vmap_geometry(a, size, stride, offset, own_offset, own_strides) -> None:
    """torch's as_strided batching rule: each sample's view must stay within the memory the sample itself can
    reach (the range from its own offset to its last element), else its error."""
    if any(n == 0 for n in size) or any(n == 0 for n in a.shape):
        return
    r0, r1 = offset, offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    t0, t1 = own_offset, own_offset + sum((n - 1) * s for n, s in zip(a.shape, own_strides)) + 1
    if r0 < t0 or r1 > t1:
        raise RuntimeError(_VMAP_AS_STRIDED.format(size=list(size), stride=list(stride), offset=offset, r0=r0, r1=r1,
                                                   t0=t0, t1=t1))


def _positions(sizes, strides, offset):
    """The storage index of every element of the geometry (sizes, strides, offset), as an int64 array of ``sizes``."""
    # (built from aranges, not xp.full: a backward under vmap makes the arrays it allocates batched)
    idx = xp.asarray(offset, dtype=xp.int64)
    for d, (n, s) in enumerate(zip(sizes, strides)):
        shape = [1] * len(sizes)
        shape[d] = n
        idx = idx + (xp.arange(n, dtype=xp.int64) * s).reshape(shape)
    return xp.broadcast_to(idx, tuple(sizes)).copy()


def _input_geometry(a, offset: int):
    return tuple(a.shape), wrap(a).stride(), offset


def _check_geometry(name: str, a, size, stride, offset, storage_len) -> None:
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for s in stride:
        if s < 0:
            raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                               f"[{', '.join(map(str, stride))}]")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    need = 0 if any(n == 0 for n in size) else 1 + offset + sum((n - 1) * s for n, s in zip(size, stride))
    if need > storage_len:
        raise RuntimeError(
            f"setStorage: sizes [{', '.join(map(str, size))}], strides [{', '.join(map(str, stride))}], storage offset "
            f"{offset}, and itemsize {a.itemsize} requiring a storage size of {need * a.itemsize} are out of bounds for "
            f"storage of size {storage_len * a.itemsize}")


def _as_strided_grad(g: Tensor, in_geometry, out_idx, storage_len: int) -> Tensor:
    """derivatives.yaml as_strided_backward: add g into a zero storage at the output's positions, read the input's
    positions back (divided by how often the input's geometry reads each storage element)."""
    from .indexing import index_add

    in_sizes, in_strides, in_offset = in_geometry
    in_idx = _positions(in_sizes, in_strides, in_offset)
    length = max(storage_len, int(in_idx.max()) + 1 if in_idx.size else 0, int(out_idx.max()) + 1 if out_idx.size else 0)
    storage = wrap(xp.zeros(length, dtype=g._data.dtype))
    storage = index_add(storage, 0, wrap(out_idx.reshape(-1)), g.reshape(-1))
    taken = storage[wrap(in_idx.reshape(-1))]
    counts = xp.bincount(in_idx.reshape(-1), minlength=length)[in_idx.reshape(-1)]
    if (counts > 1).any():
        taken = taken / wrap(counts.astype(g._data.dtype))
    return taken.reshape(in_sizes)


@register
class AsStridedBackward0(Op):
    """as_strided(input, size, stride, storage_offset): a view of input's storage; gradient in the module docstring."""

    @staticmethod
    def forward(a, size, stride, offset, in_geometry, storage_len):
        flat, _ = _storage_of(a)
        if flat.dtype != a.dtype:  # a view of a root of another dtype (x.view(torch.uint8), a float8 cast's bytes)
            flat = flat.view(a.dtype)
        proxy = flat.view(xp.uint8) if a.dtype in FLOAT8_NP else flat  # (NumPy's as_strided loses ml_dtypes' float8)
        view = xp.lib.stride_tricks.as_strided(proxy[offset:], shape=tuple(size),
                                               strides=tuple(s * a.itemsize for s in stride), writeable=False)
        return view if proxy is flat else view.view(a.dtype)

    def backward(self, g):
        size, stride, offset, in_geometry, storage_len = self._params
        return (_as_strided_grad(g, in_geometry, _positions(size, stride, offset), storage_len),)


def _as_strided_params(name: str, input, size, stride, storage_offset):  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    a = input._data
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if type(a) is _BatchedArray:  # under vmap: torch's batching rule (see _batched_storage)
        flat, own_offset, own_strides = _batched_storage(a)
        offset = own_offset if storage_offset is None else int(storage_offset)
        _check_vmap_geometry(a, size, stride, offset, own_offset, own_strides)
        _check_geometry(name, a, size, stride, offset, flat.shape[-1])
        return (size, stride, offset, (tuple(a.shape), own_strides, own_offset), flat.shape[-1])
    flat, own_offset = _storage_of(a)
    offset = own_offset if storage_offset is None else int(storage_offset)
    _check_geometry(name, a, size, stride, offset, flat.size)
    geometry = _input_geometry(a, own_offset)
    return (size, stride, offset, geometry, flat.size)


def as_strided(input, size, stride, storage_offset=None):  # noqa: A002 - torch's name
    """torch.as_strided(input, size, stride, storage_offset=None): the elements of input's storage at
    storage_offset + sum(i_k * stride_k) (offset default: input's own), shape ``size``, a view. Strides and the
    offset count elements of the memory input shares with its base.

    Raises:
        RuntimeError: size and stride of different lengths, negative strides, a geometry beyond the storage
            (torch's texts).
    """
    params = _as_strided_params("as_strided", input, size, stride, storage_offset)
    out = apply(AsStridedBackward0, (input,), params)
    return sh._mark_view(out, input)


_AsStridedCopy = _copy_class(AsStridedBackward0)
_REGISTERING = False


def as_strided_copy(input, size, stride, storage_offset=None, *, out=None):  # noqa: A002
    """torch.as_strided_copy: as_strided(...) as a new tensor (AsStridedBackward0_copy); see as_strided."""
    return apply(_AsStridedCopy, (input,), _as_strided_params("as_strided_copy", input, size, stride, storage_offset))


@register
class AsStridedScatterBackward0(Op):
    """as_strided_scatter(input, src, size, stride, offset): a contiguous copy of input with src written at the
    strided positions. Backward (derivatives.yaml): src gets the elements of grad at those positions; input gets
    as_strided_scatter_backward, which in torch 2.13 keeps grad *at* those positions and zeroes the rest (it
    copies the slice of grad into zeros): dyngrad returns the same."""

    @staticmethod
    def forward(a, src, idx):
        out = xp.ascontiguousarray(a).copy()
        flat = out.reshape(-1)
        flat[idx.reshape(-1)] = src.reshape(-1)
        return out

    def backward(self, g):
        (idx,) = self._params
        gi = gs = None
        if self.next_functions[0][0] is not None:
            mask = xp.zeros(g._data.size, dtype=g._data.dtype)
            mask[idx.reshape(-1)] = 1
            gi = g * wrap(mask.reshape(g._data.shape))
        if self.next_functions[1][0] is not None:
            gs = g.reshape(-1)[wrap(idx.reshape(-1))].reshape(idx.shape)
        return gi, gs


def as_strided_scatter(input, src, size, stride, storage_offset=None, *, out=None):  # noqa: A002
    """torch.as_strided_scatter(input, src, size, stride, storage_offset=None): a copy of input (contiguous) whose
    elements at the storage positions storage_offset + sum(i_k * stride_k) are src's (src of shape ``size``).

    Raises:
        RuntimeError: as as_strided, and for a src whose shape is not ``size``.
    """
    a = input._data
    offset = 0 if storage_offset is None else int(storage_offset)
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    _check_geometry("as_strided_scatter", a, size, stride, offset, a.size)
    if tuple(src._data.shape) != size:
        from .._tensor import Size

        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {Size(src._data.shape)}"
                           f", slice size = {Size(size)}")
    idx = _positions(size, stride, offset)
    s = src._data.astype(a.dtype, copy=False)
    return apply(AsStridedScatterBackward0, (input, src), (idx,), (a, s))


EXPORTS = dict(
    alias_copy=alias_copy, diagonal_copy=diagonal_copy, expand_copy=expand_copy, narrow_copy=narrow_copy,
    permute_copy=permute_copy, squeeze_copy=squeeze_copy, t_copy=t_copy, transpose_copy=transpose_copy,
    unbind_copy=unbind_copy, unfold_copy=unfold_copy, unsqueeze_copy=unsqueeze_copy, view_copy=view_copy,
    split_with_sizes_copy=split_with_sizes_copy, diagonal_scatter=diagonal_scatter, select_scatter=select_scatter,
    slice_scatter=slice_scatter, as_strided=as_strided, as_strided_copy=as_strided_copy,
    as_strided_scatter=as_strided_scatter,
)

TENSOR_METHODS = dict(
    narrow_copy=narrow_copy, diagonal_scatter=diagonal_scatter, select_scatter=select_scatter,
    slice_scatter=slice_scatter, as_strided=as_strided, as_strided_scatter=as_strided_scatter,
)
