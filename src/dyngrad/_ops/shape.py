"""Shape and movement ops: reshape/view, transpose, permute, squeeze, unsqueeze, expand, clone, dtype casts.

Views share memory with their input (NumPy views), as torch's do. Each backward
is the inverse movement of the gradient (derivatives.yaml).
"""

from __future__ import annotations

from .._backend import sum_to_shape, xp
from .._tensor import Size, Tensor, _wrap_dim, wrap
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
    if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Size)):
        return a.to(shape[0])  # view(dtype)
    shape = _infer_shape(_parse_shape(shape), a._data.size)
    if not _viewable(a._data, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
            "two contiguous subspaces). Use .reshape(...) instead."
        )
    return _mark_view(apply(ViewBackward0, (a,), (shape, a._data.shape)), a)


def _mark_view(out: Tensor, a: Tensor) -> Tensor:
    out._vc = a._vc
    out._base = a if a._base is None else a._base
    return out


@register
class TransposeBackward0(Op):
    """transpose(dim0, dim1): the gradient is transposed back."""

    @staticmethod
    def forward(a, d0, d1):
        return xp.swapaxes(a, d0, d1)

    def backward(self, g):
        return (g.transpose(*self._params),)

    def backward_arrays(self, g):
        return (wrap(xp.swapaxes(g, *self._params)),)


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


def squeeze(a: Tensor, dim=None) -> Tensor:
    shape = a._data.shape
    if dim is None:
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
        op = SqueezeBackward0
    elif isinstance(dim, (tuple, list)):
        axes = tuple(i for i in sorted({_wrap_dim(d, len(shape)) for d in dim}) if shape[i] == 1)
        op = SqueezeBackward2
    else:
        d = _wrap_dim(dim, len(shape))
        axes = (d,) if shape and shape[d] == 1 else ()
        op = SqueezeBackward1
    return _mark_view(apply(op, (a,), (axes, shape)), a)


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
            f"expand(torch.FloatTensor{{[{', '.join(map(str, shape))}]}}, size=[{', '.join(map(str, sizes))}]): the "
            "number of sizes provided ("
            f"{len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    lead = len(sizes) - len(shape)
    target = list(sizes)
    for i, n in enumerate(shape):
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


@register
class ToCopyBackward0(Op):
    """to(dtype): a cast; the gradient is cast back to the input's dtype."""

    @staticmethod
    def forward(a, npd, in_npd):
        return a.astype(npd)

    def backward(self, g):
        return (g.to(self._params[1]),)


def to(a: Tensor, *args, **kwargs) -> Tensor:
    """to(dtype) / to(device) / to(tensor) / to(device, dtype); ``copy=True`` forces a copy."""
    from .._dtype import dtype as _dt
    from .._dtype import to_numpy

    target = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    device = kwargs.pop("device", None)
    for arg in args:
        if isinstance(arg, Tensor):
            target = arg._data.dtype
        elif isinstance(arg, _dt) or isinstance(arg, type) or hasattr(arg, "kind"):
            target = arg
        elif isinstance(arg, str) or arg is None or hasattr(arg, "type"):
            device = arg
        elif isinstance(arg, bool):
            continue
    if device is not None:
        from .._tensor import device as _device

        _device(device)  # raises for anything but the CPU
    npd = a._data.dtype if target is None else to_numpy(target)
    if npd == a._data.dtype and not copy:
        return a
    if npd.kind not in "fc" and a._requires_grad:
        # Casting to an integer type cuts the graph, as torch does.
        from .._tensor import wrap

        return wrap(a._data.astype(npd))
    return apply(ToCopyBackward0, (a,), (npd, a._data.dtype))


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

    d = _wrap_dim(dim, a._data.ndim)
    outs = apply_multi(UnbindBackward0, (a,), (d,))
    for out in outs:
        _mark_view(out, a)
    return outs


@register
class StackBackward0(Op):
    """stack(tensors, dim): the gradient is unbound along ``dim``, one piece per input."""

    @staticmethod
    def forward(*arrays_and_dim):
        *arrays, dim = arrays_and_dim
        return xp.stack(arrays, axis=dim)

    def backward(self, g):
        return unbind(g, self._params[0])


def stack(tensors, dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a new dim (torch.stack).

    Raises:
        RuntimeError: an empty list, or tensors of different shapes (torch's messages).
    """
    tensors = tuple(tensors)
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


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
