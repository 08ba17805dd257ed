"""Shape and movement ops: reshape/view, transpose, permute, squeeze, unsqueeze, expand, clone, dtype casts,
unflatten, movedim, repeat, tile, narrow, flips and rolls, select, unfold, diff, broadcast_tensors.

Views share memory with their input (NumPy views), as torch's do. Each backward
is the inverse movement of the gradient (derivatives.yaml).

More of the family, each its own module: join_split.py (cat, stack, unbind, split, chunk, tensor_split,
meshgrid and kin), diagonals.py (diagonal, diag, diag_embed, triu, tril), padding.py (nn.functional.pad),
shape_extras.py and copies.py.
"""

from __future__ import annotations

from weakref import ref as _weakref

from .._backend import sum_to_shape, xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._dtype import scalar_type_name as _scalar_name
from .._tensor import Size, Tensor, _wrap_dim, wrap
from ..autograd.grad_mode import _state as _grad_state
from .registry import Op, apply, register


def _parse_shape(args) -> tuple:
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(torch.Size)``."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = args[0]
    try:
        return tuple(int(a) for a in args)
    except TypeError:
        raise TypeError(f"shape must be a sequence of ints, got {args!r}") from None


def _infer_shape(shape: tuple, numel: int) -> tuple:
    """Resolve a single -1 in ``shape``; torch's errors for invalid shapes."""
    infer = [i for i, n in enumerate(shape) if n == -1]
    if len(infer) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if infer and numel == 0 and 0 in shape:
        raise RuntimeError(
            f"cannot reshape tensor of 0 elements into shape [{', '.join(map(str, shape))}] because the "
            "unspecified dimension size -1 can be any value and is ambiguous"
        )
    for n in shape:
        if n < -1:
            raise RuntimeError(f"invalid shape dimension {n}")
    known = 1
    for n in shape:
        if n != -1:
            known *= n
    if infer:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = shape[: infer[0]] + (numel // known,) + shape[infer[0] + 1 :]
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


@register
class ViewBackward0(Op):
    """view/reshape without a copy: the gradient is reshaped back."""

    @staticmethod
    def forward(a, shape, in_shape):
        v = a.view()
        v.shape = shape  # raises when the memory layout cannot be viewed this way
        return v

    def backward(self, g):
        return (g.reshape(self._params[1]),)

    def backward_arrays(self, g):
        return (wrap(g.reshape(self._params[1])),)


@register
class UnsafeViewBackward0(Op):
    """reshape that needed a copy (non-contiguous input), and the fold of batched matmul."""

    @staticmethod
    def forward(a, shape, in_shape):
        return a.reshape(shape)

    def backward(self, g):
        return (g.reshape(self._params[1]),)

    def backward_arrays(self, g):
        return (wrap(g.reshape(self._params[1])),)


def _viewable(a, shape) -> bool:
    if a.flags.c_contiguous:
        return True
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        return False
    return True


def reshape(a: Tensor, *shape) -> Tensor:
    shape = _infer_shape(_parse_shape(shape), a._data.size)
    if _viewable(a._data, shape):
        return _mark_view(apply(ViewBackward0, (a,), (shape, a._data.shape)), a)
    return apply(UnsafeViewBackward0, (a,), (shape, a._data.shape))


def view(a: Tensor, *shape) -> Tensor:
    # (a NumPy int or a 0-d tensor is a size too, as torch's parser reads it: x.view(np.int64(6)))
    if len(shape) == 1 and not isinstance(shape[0], (int, xp.integer, Tensor, tuple, list, Size)):
        return view_dtype(a, shape[0])
    shape = _infer_shape(_parse_shape(shape), a._data.size)
    if not _viewable(a._data, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
            "two contiguous subspaces). Use .reshape(...) instead."
        )
    return _mark_view(apply(ViewBackward0, (a,), (shape, a._data.shape)), a)


def view_dtype(a: Tensor, dtype) -> Tensor:
    """Tensor.view(dtype): the same memory read as another dtype (torch's view.dtype).

    Elements of a different size rescale the last dim (complex64 (n, 2k) <-> float32 (n, 4k)). Not
    differentiable (the result never requires grad, as torch's). Raises torch's RuntimeErrors: a conjugated
    tensor, and for a different element size a 0-d tensor, a last stride other than 1, and (when the
    elements grow) a last size, storage offset or other strides not divisible by the size ratio.
    """
    from .._dtype import to_numpy

    d = a._data
    npd = to_numpy(dtype)
    if npd == d.dtype:
        return a
    if a._is_conj:
        raise RuntimeError(
            "torch.Tensor.view is not supported for conjugate view tensors when converting to a different dtype.")
    if npd.itemsize != d.dtype.itemsize:
        what = f"to view {_scalar_name(d.dtype)} as {_scalar_name(npd)} (different element sizes)"
        if d.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        strides = a.stride()
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
        if npd.itemsize > d.dtype.itemsize:
            ratio = npd.itemsize // d.dtype.itemsize
            if d.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {d.shape[-1]}")
            offset = a.storage_offset()
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
            for i, st in enumerate(strides[:-1]):
                if st % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {st}")
    if d.size == 0 and npd.itemsize != d.dtype.itemsize:  # (no memory to reinterpret; only the shape changes)
        arr = xp.empty(d.shape[:-1] + (d.shape[-1] * d.dtype.itemsize // npd.itemsize,), npd)
    else:
        arr = d.view(npd)  # NumPy rescales the (contiguous) last axis as torch does
    out = wrap(arr)
    out._vc = a._vc  # the same memory: in-place changes show through both
    return out


def _mark_view(out: Tensor, a: Tensor) -> Tensor:
    """Make ``out`` a view of ``a``: the same version counter and base (the root of a chain of views).

    Two of torch's view rules are recorded here for the in-place checks (inplace.py): a view of an
    output of a multi-view op (split, unbind) inherits its restriction, and a view made in no_grad mode
    of a tensor that requires grad may not be modified in grad mode.
    """
    out._vc = a._vc
    if a._is_conj:  # views keep torch's conjugate / negative bits (Note [Conjugate bit])
        out._is_conj = True
    if a._is_neg:
        out._is_neg = True
    base = a._base
    if base is None:
        base = a
    elif getattr(a, "_multi_view", False):
        out._multi_view = True
    out._base = base
    if _grad_state.enabled:
        if base._requires_grad and base._grad_fn is None:
            return out  # a leaf that requires grad cannot be changed in place in grad mode: nothing to re-derive
        # the base lists its views (weakly) so that an in-place op can re-derive their history
        views = base.__dict__.get("_views")
        if views is None:
            views = base._views = []
        elif len(views) >= 64 and not len(views) & 63:
            views[:] = [r for r in views if r() is not None]
        views.append(_weakref(out))
    elif base._requires_grad:
        out._no_grad_view = True
    return out


@register
class TransposeBackward0(Op):
    """transpose(dim0, dim1): the gradient is transposed back."""

    @staticmethod
    def forward(a, d0, d1):
        return xp.swapaxes(a, d0, d1) if a.ndim else a.view()  # a 0-d tensor accepts dims 0 / -1

    def backward(self, g):
        return (g.transpose(*self._params),)

    def backward_arrays(self, g):
        return (wrap(xp.swapaxes(g, *self._params) if g.ndim else g),)


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    n = a._data.ndim
    d0, d1 = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    return _mark_view(apply(TransposeBackward0, (a,), (d0, d1)), a)


swapaxes = swapdims = transpose


@register
class TBackward0(Op):
    """t(): transpose of a matrix (0-D and 1-D are returned as they are)."""

    @staticmethod
    def forward(a):
        return a.T

    def backward(self, g):
        return (g.t(),)

    def backward_arrays(self, g):
        return (wrap(g.T),)


def t(a: Tensor) -> Tensor:
    if a._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {a._data.ndim}D")
    return _mark_view(apply(TBackward0, (a,)), a)


@register
class PermuteBackward0(Op):
    """permute(dims): the gradient is permuted by the inverse permutation."""

    @staticmethod
    def forward(a, dims):
        return a.transpose(dims)

    def backward(self, g):
        dims = self._params[0]
        inverse = [0] * len(dims)
        for i, d in enumerate(dims):
            inverse[d] = i
        return (g.permute(inverse),)


def permute(a: Tensor, *dims) -> Tensor:
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = _parse_shape(dims)
    n = a._data.ndim
    if len(dims) != n:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
            f"ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {len(dims)}"
        )
    dims = tuple(_wrap_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _mark_view(apply(PermuteBackward0, (a,), (dims,)), a)


@register
class UnsqueezeBackward0(Op):
    """unsqueeze(dim): the gradient is squeezed at ``dim``."""

    @staticmethod
    def forward(a, dim):
        return xp.expand_dims(a, dim)

    def backward(self, g):
        return (g.squeeze(self._params[0]),)


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    d = _wrap_dim(dim, a._data.ndim + 1)
    return _mark_view(apply(UnsqueezeBackward0, (a,), (d,)), a)


class _SqueezeOp(Op):
    @staticmethod
    def forward(a, axes, in_shape):
        return a.squeeze(axes) if axes else a.view()

    def backward(self, g):
        return (g.reshape(self._params[1]),)


@register
class SqueezeBackward0(_SqueezeOp):
    """squeeze(): every size-1 dim removed."""


@register
class SqueezeBackward1(_SqueezeOp):
    """squeeze(dim)."""


@register
class SqueezeBackward2(_SqueezeOp):
    """squeeze(dims tuple)."""


@register
class SqueezeBackward4(_SqueezeOp):
    """The squeeze torch's matmul applies after a 1-D @ 2-D product."""


def _squeeze_axes(shape: tuple, dim) -> tuple:
    """(axes to drop, form) for squeeze's ``dim`` argument; form 0: all size-1 dims, 1: one dim, 2: a list.

    Raises:
        IndexError: a dim out of range. RuntimeError: a dim repeated in the list.
    """
    if dim is None:
        return tuple(i for i, n in enumerate(shape) if n == 1), 0
    if isinstance(dim, (tuple, list)):
        wrapped = [_wrap_dim(d, len(shape)) for d in dim]
        for i, d in enumerate(wrapped):
            if d in wrapped[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        return tuple(i for i in sorted(set(wrapped)) if shape and shape[i] == 1), 2
    d = _wrap_dim(dim, len(shape))
    return ((d,) if shape and shape[d] == 1 else ()), 1


def squeeze(a: Tensor, dim=None) -> Tensor:
    shape = a._data.shape
    axes, form = _squeeze_axes(shape, dim)
    op = (SqueezeBackward0, SqueezeBackward1, SqueezeBackward2)[form]
    return _mark_view(apply(op, (a,), (axes, shape)), a)


# ------------------------------------------------------------------ in-place shape ops
# Note [In-place shape ops]
# t_(), transpose_(), squeeze_(), unsqueeze_() (and swapdims_ / swapaxes_) change a tensor's shape
# and strides but not its memory or values. As torch does, they bump the version counter (a tensor
# saved before the change is stale), refuse a leaf that requires grad (and a view of one) in grad
# mode, and give a tensor that requires grad a node of its own numbered after the out-of-place
# op's (TBackward1, TransposeBackward1, SqueezeBackward3/4/5, UnsqueezeBackward1) whose backward
# is the inverse movement. On a view, only the view's own history changes: its base keeps its
# shape and grad_fn (no CopySlices, since no value changes). The tensor's array becomes a NumPy
# view of the same memory, so its base and other views still share it.


@register
class TBackward1(TBackward0):
    """t_(): t() in place; the gradient is transposed back."""


@register
class TransposeBackward1(TransposeBackward0):
    """transpose_(dim0, dim1) / swapdims_ / swapaxes_: transpose in place."""


@register
class UnsqueezeBackward1(UnsqueezeBackward0):
    """unsqueeze_(dim): unsqueeze in place; the gradient is squeezed at ``dim``."""


@register
class SqueezeBackward3(_SqueezeOp):
    """squeeze_(): every size-1 dim removed in place; the gradient is reshaped back."""


@register
class SqueezeBackward5(_SqueezeOp):
    """squeeze_(dims tuple) in place (squeeze_(dim) is SqueezeBackward4, as in torch)."""


def _check_inplace_shape(t: Tensor) -> None:
    """torch refuses the in-place op (a leaf that requires grad ...) before it looks at the arguments."""
    if _grad_state.enabled:
        from .inplace import _check_inplace_allowed

        _check_inplace_allowed(t)


def _inplace_shape(t: Tensor, op, params: tuple) -> Tensor:
    """Apply the shape op ``op`` to ``t`` in place (Note [In-place shape ops]); ``t`` was checked."""
    from ..autograd.forward_ad import _register as _fw_register

    if _grad_state.enabled:
        if t._requires_grad:
            old = wrap(t._data, True, t._grad_fn)  # t's history up to now, as the node's input
            old._output_nr = t._output_nr
            old._fw_grad = t._fw_grad
            result = apply(op, (old,), params)
            t._data = result._data
            t._grad_fn = result._grad_fn
            t._output_nr = 0
            if result._fw_grad is not None:
                _fw_register(t, result._fw_grad)
            t._vc[0] += 1
            return t
    t._data = op.forward(t._data, *params)
    if t._fw_grad is not None:  # the tangent moves with the values
        _fw_register(t, wrap(op.forward(t._fw_grad._data, *params)))
    t._vc[0] += 1
    return t


def t_(a: Tensor) -> Tensor:
    """Tensor.t_(): t() in place (TBackward1). Raises RuntimeError for more than 2 dims, as t()."""
    _check_inplace_shape(a)
    if a._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {a._data.ndim}D")
    return _inplace_shape(a, TBackward1, ())


def transpose_(a: Tensor, dim0: int, dim1: int) -> Tensor:
    """Tensor.transpose_(dim0, dim1) (also swapdims_ / swapaxes_): TransposeBackward1. IndexError out of range."""
    _check_inplace_shape(a)
    n = a._data.ndim
    return _inplace_shape(a, TransposeBackward1, (_wrap_dim(dim0, n), _wrap_dim(dim1, n)))


def unsqueeze_(a: Tensor, dim: int) -> Tensor:
    """Tensor.unsqueeze_(dim): UnsqueezeBackward1. IndexError out of [-ndim-1, ndim]."""
    _check_inplace_shape(a)
    return _inplace_shape(a, UnsqueezeBackward1, (_wrap_dim(dim, a._data.ndim + 1),))


def squeeze_(a: Tensor, dim=None) -> Tensor:
    """Tensor.squeeze_(), squeeze_(dim), squeeze_(dims): SqueezeBackward3 / 4 / 5 (torch's in-place nodes).

    Raises:
        IndexError: a dim out of range. RuntimeError: a dim repeated in ``dims``.
    """
    _check_inplace_shape(a)
    shape = a._data.shape
    axes, form = _squeeze_axes(shape, dim)
    op = (SqueezeBackward3, SqueezeBackward4, SqueezeBackward5)[form]
    return _inplace_shape(a, op, (axes, shape))


@register
class ExpandBackward0(Op):
    """expand(*sizes): a broadcast view; the gradient is summed back to the input's shape."""

    @staticmethod
    def forward(a, shape, in_shape):
        return xp.broadcast_to(a, shape)

    def backward(self, g):
        from .reduction import sum_to

        return (sum_to(g, self._params[1]),)

    def backward_arrays(self, g):
        return (wrap(sum_to_shape(g, self._params[1])),)


def expand(a: Tensor, *sizes) -> Tensor:
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    sizes = _parse_shape(sizes)
    shape = a._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(
            f"expand(torch.{_scalar_name(a._data.dtype)}Tensor{{[{', '.join(map(str, shape))}]}}, size=[{', '.join(map(str, sizes))}]): the "
            "number of sizes provided ("
            f"{len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    target = list(sizes)
    for i in reversed(range(len(shape))):  # torch checks from the last dim
        n = shape[i]
        want = sizes[lead + i]
        if want == -1:
            target[lead + i] = n
        elif want != n and n != 1:
            raise RuntimeError(
                f"The expanded size of the tensor ({want}) must match the existing size ({n}) at non-singleton "
                f"dimension {lead + i}.  Target sizes: [{', '.join(map(str, sizes))}].  Tensor sizes: "
                f"[{', '.join(map(str, shape))}]"
            )
    for i in range(lead):
        if sizes[i] < 0:
            raise RuntimeError(
                f"The expanded size of the tensor ({sizes[i]}) isn't allowed in a leading, non-existing dimension {i}"
            )
    return _mark_view(apply(ExpandBackward0, (a,), (tuple(target), shape)), a)


def expand_as(a: Tensor, other: Tensor) -> Tensor:
    return expand(a, other._data.shape)


@register
class CloneBackward0(Op):
    """clone(): a copy; the gradient passes through."""

    @staticmethod
    def forward(a):
        return a.copy()

    def backward(self, g):
        return (g,)


def clone(a: Tensor, *, memory_format=None) -> Tensor:
    return apply(CloneBackward0, (a,))


def contiguous(a: Tensor, memory_format=None) -> Tensor:
    if a._data.flags.c_contiguous:
        return a
    return clone(a)


_COMPLEX_TO_REAL = (
    "Casting complex values to real discards the imaginary part (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/Copy.cpp:307.)"
)


_warned_complex_to_real = False


def warn_complex_to_real() -> None:
    """torch's UserWarning when a cast or copy drops the imaginary part (once per process, as torch's
    TORCH_WARN_ONCE)."""
    global _warned_complex_to_real
    if not _warned_complex_to_real:
        _warned_complex_to_real = True
        import warnings

        warnings.warn(_COMPLEX_TO_REAL, UserWarning, stacklevel=3)


@register
class ToCopyBackward0(Op):
    """to(dtype): a cast; the gradient is cast back to the input's dtype (its real part for a real input:
    derivatives.yaml's _to_copy_backward)."""

    @staticmethod
    def forward(a, npd, in_npd):
        if a.dtype.kind == "c" and npd.kind != "c":
            return a.real.astype(npd)  # (the warning is the caller's, once per call as torch)
        return a.astype(npd)

    def backward(self, g):
        in_npd = self._params[1]
        if g._data.dtype.kind == "c" and in_npd.kind != "c":
            from .complex import real

            g = real(g)
        return (g.to(in_npd),)


def _needs_layout_copy(a: Tensor, memory_format) -> bool:
    """Whether ``memory_format`` makes to()/double()... copy: torch aliases only when the format is
    preserve_format or the one the tensor suggests; dyngrad's tensors are never channels_last, so asking
    for channels_last(_3d) always copies (after torch's rank check), contiguous_format never does."""
    from .._tensor import channels_last, channels_last_3d

    for fmt, rank in ((channels_last, 4), (channels_last_3d, 5)):
        if memory_format is fmt:
            if a._data.ndim != rank:
                raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
            return True
    return False


def to(a: Tensor, *args, **kwargs) -> Tensor:
    """to(dtype) / to(device) / to(tensor) / to(device, dtype); ``copy=True`` forces a copy."""
    from .._dtype import dtype as _dt
    from .._dtype import to_numpy

    target = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    device = kwargs.pop("device", None)
    flags = []  # positional (non_blocking, copy), after the device/dtype/tensor as in torch's overloads
    for arg in args:
        if isinstance(arg, Tensor):
            target = arg._data.dtype
        elif isinstance(arg, _dt) or isinstance(arg, type) or hasattr(arg, "kind"):
            target = arg
        elif isinstance(arg, str) or arg is None or hasattr(arg, "type"):
            device = arg
        elif isinstance(arg, bool):
            flags.append(arg)
    if len(flags) > 1:
        copy = flags[1]
    if device is not None:
        from .._tensor import require_cpu

        require_cpu(device)  # torch's error for anything but the CPU
    if _needs_layout_copy(a, kwargs.pop("memory_format", None)):
        copy = True
    npd = a._data.dtype if target is None else to_numpy(target)
    if npd == a._data.dtype and not copy:
        return a
    if a._data.dtype.kind == "c" and npd.kind != "c":
        warn_complex_to_real()
    if npd.kind not in FLOATING_OR_COMPLEX_KINDS and a._requires_grad:
        # Casting to an integer type cuts the graph, as torch does.
        from .._tensor import wrap

        return wrap(a._data.astype(npd))
    return apply(ToCopyBackward0, (a,), (npd, a._data.dtype))


def _shape_str(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _as_view(out: Tensor, a: Tensor) -> Tensor:
    """Mark ``out`` a view of ``a`` (shared memory and version counter); see ``_mark_view``."""
    return _mark_view(out, a)


def _mark_multi_view(outs, a: Tensor, name: str) -> tuple:
    """Views returned together by one op (split, chunk, unbind) refuse in-place ops in grad mode, as torch's do."""
    for out in outs:
        _mark_view(out, a)
        if out._requires_grad:
            out._multi_view = name
    return outs


# ---------------------------------------------------------------- more views
def unflatten(a: Tensor, dim: int, sizes) -> Tensor:
    """unflatten(dim, sizes): split one dim into ``sizes`` (a view; ViewBackward0)."""
    shape = a._data.shape
    d = _wrap_dim(dim, len(shape))
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if -1 in sizes:
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        if known == 0 or shape[d] % known:
            raise RuntimeError(
                f"unflatten: Provided sizes {_shape_str(sizes)} don't multiply up to the size of dim {dim} "
                f"({shape[d]}) in the input tensor"
            )
        sizes = tuple(shape[d] // known if s == -1 else s for s in sizes)
    elif known != shape[d]:
        raise RuntimeError(
            f"unflatten: Provided sizes {_shape_str(sizes)} don't multiply up to the size of dim {dim} ({shape[d]}) "
            "in the input tensor"
        )
    return view(a, shape[:d] + sizes + shape[d + 1 :])


def movedim(a: Tensor, source, destination) -> Tensor:
    """movedim(source, destination): a permutation (PermuteBackward0)."""
    n = a._data.ndim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({_shape_str(src)} dims) should contain the same "
            f"number of dims as destination ({_shape_str(dst)} dims)"
        )
    if n == 0:
        for s in src + dst:
            _wrap_dim(s, 0)
        from .indexing import AliasBackward0

        return _mark_view(apply(AliasBackward0, (a,), ((Ellipsis,), (), False)), a)
    src = [_wrap_dim(s, n) for s in src]
    dst = [_wrap_dim(s, n) for s in dst]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({_shape_str(list(source))})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({_shape_str(list(destination))})")
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute(a, *order)


def broadcast_to(a: Tensor, size) -> Tensor:
    return expand(a, tuple(size))


@register
class RepeatBackward0(Op):
    """repeat(*repeats): tile the input; the gradient sums the tiles (derivatives.yaml: repeat_backward)."""

    @staticmethod
    def forward(a, reps, in_shape):
        lead = len(reps) - a.ndim
        return xp.tile(a.reshape((1,) * lead + a.shape), reps)

    def backward(self, g):
        reps, in_shape = self._params
        padded = (1,) * (len(reps) - len(in_shape)) + tuple(in_shape)
        split = []
        for r, s in zip(reps, padded):
            split += [r, s]
        axes = tuple(range(0, 2 * len(reps), 2))
        from .reduction import sum as _sum

        return (_sum(g.reshape(split), axes).reshape(in_shape),)


def repeat(a: Tensor, *reps) -> Tensor:
    if not reps:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    reps = _parse_shape(reps)
    if len(reps) < a._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    padded = (1,) * (len(reps) - a._data.ndim) + a._data.shape
    sizes = [r * n for r, n in zip(reps, padded)]
    for n in sizes:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {_shape_str(sizes)}")
    return apply(RepeatBackward0, (a,), (reps, a._data.shape))


def tile(a: Tensor, *dims) -> Tensor:
    reps = _parse_shape(dims)
    reps = (1,) * (a._data.ndim - len(reps)) + reps
    return repeat(a, reps)


def repeat_interleave(a: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """repeat_interleave(repeats, dim): int repeats as torch's unsqueeze/expand/clone/view; tensor repeats as index_select."""
    if isinstance(a, Tensor) and repeats is None:  # torch.repeat_interleave(repeats_tensor)
        counts = a._data
        return wrap(xp.repeat(xp.arange(counts.size, dtype=xp.int64), counts))
    if dim is None:
        a = reshape(a, -1)
        d = 0
    elif a._data.ndim == 0:  # torch unsqueezes at dim + 1 first, which a 0-d tensor cannot take
        _wrap_dim(dim, 0)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    else:
        d = _wrap_dim(dim, a._data.ndim)
    if isinstance(repeats, Tensor):
        counts = repeats._data
        if counts.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if counts.size == 1:  # one count for every entry
            counts = xp.full(a._data.shape[d], int(counts.reshape(())), dtype=xp.int64)
        if counts.size != a._data.shape[d]:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{counts.size} and input.size({d}) = {a._data.shape[d]}"
            )
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        from .indexing import index_select

        idx = wrap(xp.repeat(xp.arange(counts.size, dtype=xp.int64), counts))
        return index_select(a, d, idx)
    r = int(repeats)
    if r < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = a._data.shape
    if not shape:
        a = reshape(a, 1)
        shape = (1,)
    e = expand(unsqueeze(a, d + 1), shape[: d + 1] + (r,) + shape[d + 1 :])
    return reshape(clone(e), shape[:d] + (shape[d] * r,) + shape[d + 1 :])


def narrow(a: Tensor, dim: int, start, length: int) -> Tensor:
    """narrow(dim, start, length): a slice view (SliceBackward0)."""
    if a._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, Tensor):
        if start._data.ndim != 0 or start._data.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start.item())
    d = _wrap_dim(dim, a._data.ndim)
    n = a._data.shape[d]
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    from .indexing import slice_view

    return slice_view(a, d, start, start + length)


# ------------------------------------------------------------ flips, rolls
@register
class FlipBackward0(Op):
    """flip(dims): a copy in reverse order; the gradient is flipped back."""

    @staticmethod
    def forward(a, dims):
        return xp.flip(a, dims).copy() if dims else a.copy()

    def backward(self, g):
        return (flip(g, self._params[0]),)


def flip(a: Tensor, *dims, **kwargs) -> Tensor:
    if "dims" in kwargs:  # torch.flip(input, dims=...) / x.flip(dims=...)
        dims = (kwargs.pop("dims"),)
    if kwargs:
        raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
    dims = _parse_shape(dims)
    n = a._data.ndim
    w = tuple(_wrap_dim(d, n) for d in dims)
    if len(set(w)) != len(w):
        raise RuntimeError(f"dim {w[0]} appears multiple times in the list of dims")
    return apply(FlipBackward0, (a,), (w if n else (),))


def fliplr(a: Tensor) -> Tensor:
    if a._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(a, 1)


def flipud(a: Tensor) -> Tensor:
    if a._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(a, 0)


@register
class RollBackward0(Op):
    """roll(shifts, dims): the gradient is rolled by the opposite shifts."""

    @staticmethod
    def forward(a, shifts, dims):
        if not dims:
            return xp.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
        return xp.roll(a, shifts, dims)

    def backward(self, g):
        shifts, dims = self._params
        return (apply(RollBackward0, (g,), (tuple(-s for s in shifts), dims)),)


def roll(a: Tensor, shifts, dims=None) -> Tensor:
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return apply(RollBackward0, (a,), (shifts, ()))
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    n = a._data.ndim
    if n == 0 and dims:  # aten wraps each dim without the scalar allowance
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    dims = tuple(_wrap_dim(d, n) for d in dims)
    return apply(RollBackward0, (a,), (shifts, dims))


@register
class Rot90Backward0(Op):
    """rot90(k, dims): the gradient is rotated by -k."""

    @staticmethod
    def forward(a, k, dims):
        return xp.rot90(a, k, dims).copy()

    def backward(self, g):
        k, dims = self._params
        return (apply(Rot90Backward0, (g,), (-k, dims)),)


def rot90(a: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    dims = tuple(dims)
    n = a._data.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = _wrap_dim(dims[0], n), _wrap_dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return apply(Rot90Backward0, (a,), (k % 4, (d0, d1)))


# ------------------------------------------------------- select / unfold / diff
def select(a: Tensor, dim: int, index) -> Tensor:
    """select(dim, index): the slice at ``index`` along ``dim``, without that dim (a view; SelectBackward0).

    Raises IndexError for a 0-d input, a dim out of range or an index out of range (torch's texts).
    """
    nd = a._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, nd)
    if isinstance(index, Tensor):
        index = int(index.item())
    n = a._data.shape[d]
    if not -n <= index < n:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {_shape_str(a._data.shape)} at dimension {d}"
        )
    from .indexing import SelectBackward0

    key = (slice(None),) * d + (index,)
    return _mark_view(apply(SelectBackward0, (a,), (key, a._data.shape, False)), a)


def _unfold_array(a, d: int, size: int, step: int):
    """The windows of ``a`` along ``d`` as a strided view: dim ``d`` counts the windows, a new last dim walks one."""
    if a.ndim == 0:  # torch: a 0-d input gives shape (size,), size being 0 or 1
        return a.reshape(1)[:size]
    count = (a.shape[d] - size) // step + 1
    shape = a.shape[:d] + (count,) + a.shape[d + 1 :] + (size,)
    strides = a.strides[:d] + (a.strides[d] * step,) + a.strides[d + 1 :] + (a.strides[d],)
    # writable only where windows do not overlap (overlapping elements refuse in-place writes)
    return xp.lib.stride_tricks.as_strided(a, shape, strides, writeable=bool(a.flags.writeable and step >= size))


@register
class UnfoldBackward0(Op):
    """unfold(dim, size, step): sliding windows (a view). Backward: each window's gradient is added back
    at the positions it covers (derivatives.yaml: unfold_backward, recorded as UnfoldBackwardBackward0)."""

    @staticmethod
    def forward(a, d, size, step, in_shape):
        return _unfold_array(a, d, size, step)

    def backward(self, g):
        d, size, step, shape = self._params
        return (apply(UnfoldBackwardBackward0, (g,), (shape, d, size, step)),)


@register
class UnfoldBackwardBackward0(Op):
    """unfold's backward as an op (windows summed back onto zeros of the input's shape); linear, and its own
    backward is unfold of the gradient."""

    @staticmethod
    def forward(g, shape, d, size, step):
        out = xp.zeros(shape, dtype=g.dtype)
        if not shape:  # a 0-d input: its one window (of size 0 or 1)
            out[()] = g.sum()
            return out
        count = g.shape[d]
        # window j, element k sits at position j*step + k along d
        for k in range(size):
            src = xp.take(g, k, axis=g.ndim - 1)
            sl = [slice(None)] * len(shape)
            sl[d] = slice(k, k + (count - 1) * step + 1, step) if count else slice(0, 0)
            out[tuple(sl)] += src
        return out

    def backward(self, gg):
        shape, d, size, step = self._params
        return (_unfold(gg, d, size, step),)


def _unfold(a: Tensor, d: int, size: int, step: int) -> Tensor:
    return apply(UnfoldBackward0, (a,), (d, size, step, a._data.shape))


def unfold(a: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Tensor.unfold(dimension, size, step): every window of ``size`` elements along ``dimension``, ``step``
    apart; that dim becomes the window count and a last dim of ``size`` is added (a view; UnfoldBackward0).

    Raises IndexError (dim out of range) and RuntimeError (window larger than the dim, step <= 0, size < 0).
    """
    nd = a._data.ndim
    d = _wrap_dim(dimension, nd)
    n = a._data.shape[d] if nd else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return _mark_view(_unfold(a, d, size, step), a)


def diff(a: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """The n-th forward difference along ``dim`` (torch.diff), with ``prepend``/``append`` joined first.

    A composite, as torch's: slices and a subtraction per order (SliceBackward0, SubBackward0); bool
    inputs use logical_xor. Raises torch's errors for a 0-d input, n < 0 and mismatched prepend/append.
    """
    if a._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, a._data.ndim)
    parts = []
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is None:
            continue
        if not isinstance(extra, Tensor):
            raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(extra).__name__}")
        if extra._data.ndim != a._data.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for k in range(a._data.ndim):
            if k != d and extra._data.shape[k] != a._data.shape[k]:
                raise RuntimeError(
                    "diff expects the shape of tensor to prepend or append to match that of input except along the "
                    f"differencing dimension; input.size({k}) = {a._data.shape[k]}, but got tensor.size({k}) = "
                    f"{extra._data.shape[k]}"
                )
    if n == 0:  # torch returns a copy of the input alone (made by copy_: CopyBackwards), prepend/append unused
        from .._creation import empty_like

        return empty_like(a).copy_(a)
    if prepend is not None or append is not None:
        from .join_split import cat

        parts = ([prepend] if prepend is not None else []) + [a] + ([append] if append is not None else [])
        a = cat(parts, d)
    out = a
    for _ in range(n):
        m = out._data.shape[d]
        if m == 0:
            break
        hi, lo = narrow(out, d, 1, m - 1), narrow(out, d, 0, m - 1)
        if out._data.dtype == xp.bool_:
            from .comparison import logical_xor

            out = logical_xor(hi, lo)
        else:
            out = hi - lo
    return out


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common broadcast shape (views; ExpandBackward0). A tensor already of
    that shape is returned itself, as torch does. Raises TypeError for a non-tensor argument and torch's
    RuntimeError for shapes that do not broadcast."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    from .broadcast import broadcast_shape

    shape = ()
    for t in tensors:
        shape = broadcast_shape(shape, t._data.shape)
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


def type_as(a: Tensor, other: Tensor) -> Tensor:
    """``a`` cast to ``other``'s dtype (``a`` itself when it already has it; else ToCopyBackward0)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return to(a, other.dtype)


# ------------------------------------------------------------------ torch.range
_RANGE_WARNING = (
    "torch.range is deprecated and will be removed in a future release because its behavior is inconsistent with "
    "Python's range builtin. Instead, use torch.arange, which produces values in [start, end)."
)


def torch_range(start=None, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
                requires_grad: bool = False) -> Tensor:
    """torch.range (deprecated): ``floor((end - start) / step) + 1`` values from ``start`` to ``end`` inclusive,
    in the default float dtype unless ``dtype`` is given; warns with torch's UserWarning each call."""
    import math
    import warnings

    from .. import _dtype
    from .._creation import _check_device, _finish

    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    from .._argparse import stacklevel

    warnings.warn(_RANGE_WARNING, UserWarning, stacklevel=stacklevel(2))  # at the caller's line
    _check_device(device)
    npd = _dtype.to_numpy(dtype) if dtype is not None else _dtype.default_float_np()
    fstart, fend, fstep = float(start), float(end), float(step)
    if npd.kind in "iu":
        # torch checks the bounds as given, then counts and steps in int64 from the truncated bounds
        istart, iend, istep = int(start), int(end), int(step)
        if istep == 0:
            raise RuntimeError("step must be nonzero")
        if not ((fstep > 0 and fend >= fstart) or (fstep < 0 and fend <= fstart)):
            raise RuntimeError("upper bound and lower bound inconsistent with step sign")
        n = abs(iend - istart) // abs(istep) + 1  # (the truncated bounds keep the order checked above)
        return _finish((istart + xp.arange(n, dtype=xp.int64) * istep).astype(npd), requires_grad)
    if fstep == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(fstart) and math.isfinite(fend)):
        raise RuntimeError(f"unsupported range: {fstart:g} -> {fend:g}")
    if not ((fstep > 0 and fend >= fstart) or (fstep < 0 and fend <= fstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int(math.floor((fend - fstart) / fstep)) + 1
    values = fstart + xp.arange(n, dtype=xp.float64) * fstep
    return _finish(values.astype(npd), requires_grad)


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = {
    name: globals()[name]
    for name in (
        "unflatten movedim broadcast_to tile repeat_interleave narrow flip fliplr flipud roll rot90 expand_as select "
        "diff broadcast_tensors"
    ).split()
}
EXPORTS["moveaxis"] = movedim


def zero_(input: Tensor) -> Tensor:  # noqa: A002 - torch's name
    """torch.zero_(input): Tensor.zero_ as a function."""
    from .inplace import zero_ as _zero_

    return _zero_(input)


EXPORTS["zero_"] = zero_
EXPORTS["range"] = torch_range  # (named so that it does not hide the builtin here)
TENSOR_METHODS: dict = {
    name: globals()[name]
    for name in (
        "unflatten movedim broadcast_to repeat tile repeat_interleave narrow flip fliplr flipud roll rot90 select "
        "unfold diff type_as"
    ).split()
}
TENSOR_METHODS["moveaxis"] = movedim


TENSOR_METHODS.update(t_=t_, transpose_=transpose_, swapdims_=transpose_, swapaxes_=transpose_, squeeze_=squeeze_,
                      unsqueeze_=unsqueeze_)


def _complex_cast(name):
    def method(self, memory_format=None):
        from .. import _dtype

        # (complex32: its dtype raises dyngrad's clear error)
        return to(self, getattr(_dtype, name), memory_format=memory_format)

    method.__name__ = {"complex64": "cfloat", "complex128": "cdouble", "complex32": "chalf"}[name]
    return method


TENSOR_METHODS.update(cfloat=_complex_cast("complex64"), cdouble=_complex_cast("complex128"),
                      chalf=_complex_cast("complex32"))
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
