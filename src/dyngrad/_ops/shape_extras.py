"""Shape functions beyond shape.py and join_split.py: ravel, the split variants (split_with_sizes, unsafe_split, unsafe_chunk,
hsplit / vsplit / dsplit), constant_pad_nd, block_diag, diagflat, cartesian_prod, combinations,
Tensor.sum_to_size and torch.fill.

Gradients (derivatives.yaml): the splits concatenate their pieces' gradients back (split_backward);
block_diag gives each input its block of the gradient; fill gives the input a zero gradient and a tensor
value the sum of the gradient. The others are compositions of recorded ops, as in torch (whose
grad_fn they share: ravel ViewBackward0, diagflat DiagEmbedBackward0, cartesian_prod and combinations
StackBackward0, sum_to_size SumBackward1 / ViewBackward0).
"""

from __future__ import annotations

import itertools

from .._backend import xp
from .._dtype import result_type
from .._tensor import Tensor, _wrap_dim, wrap
from . import diagonals, join_split, padding
from . import shape as sh
from .registry import Op, apply, apply_multi, register


def _need_tensor(fn_name: str, value, arg: str = "input", position: int = 1) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn_name}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}")


def ravel(input):  # noqa: A002 - torch's name
    """torch.ravel(input): input flattened to 1-D, a view when input is contiguous (torch: contiguous().view(-1),
    so ViewBackward0, after a CloneBackward0 for a non-contiguous input)."""
    _need_tensor("ravel", input)
    return sh.view(sh.contiguous(input), -1)


# ------------------------------------------------------------------ splits
def split_with_sizes(input, split_sizes, dim: int = 0):  # noqa: A002 - torch's name
    """torch.split_with_sizes(input, split_sizes, dim=0): views of the given sizes along dim
    (SplitWithSizesBackward0). Raises RuntimeError when the sizes do not sum to the dim's size (torch's text)."""
    _need_tensor("split_with_sizes", input)
    d = _wrap_dim(dim, input._data.ndim)
    sizes = [int(s) for s in split_sizes]
    n = input._data.shape[d]
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={list(sizes)}")
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {d}), but got split_sizes={list(sizes)}")
    return join_split._split(input, join_split.SplitWithSizesBackward0, d, sizes)


@register
class UnsafeSplitBackward0(join_split._SplitOp):
    """unsafe_split(split_size) and unsafe_chunk: split's pieces without view tracking; backward as split's."""


@register
class UnsafeSplitWithSizesBackward0(join_split._SplitOp):
    """unsafe_split_with_sizes(sizes): split_with_sizes' pieces without view tracking; backward as split's."""


def _equal_sizes(n: int, split_size: int) -> list:
    if n == 0:
        return [0]
    return [min(split_size, n - start) for start in range(0, n, split_size)]


def unsafe_split(input, split_size: int, dim: int = 0):  # noqa: A002 - torch's name
    """torch.unsafe_split(input, split_size, dim=0): split's pieces (UnsafeSplitBackward0), not tracked as views
    of the input (an in-place change of a piece is not checked against the others, as in torch).

    Raises RuntimeError for a negative split_size, or 0 with a nonzero dim size (torch's texts)."""
    _need_tensor("unsafe_split", input)
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
    sizes = _equal_sizes(n, split_size) if split_size else [0]
    return tuple(apply_multi(UnsafeSplitBackward0, (input,), (d, tuple(sizes))))


def unsafe_split_with_sizes(input, split_sizes, dim: int = 0):  # noqa: A002 - torch's name
    """torch.unsafe_split_with_sizes: split_with_sizes' pieces (UnsafeSplitWithSizesBackward0), untracked views."""
    split_with_sizes(input, split_sizes, dim)  # its checks
    d = _wrap_dim(dim, input._data.ndim)
    return tuple(apply_multi(UnsafeSplitWithSizesBackward0, (input,), (d, tuple(int(s) for s in split_sizes))))


def unsafe_chunk(input, chunks: int, dim: int = 0):  # noqa: A002 - torch's name
    """torch.unsafe_chunk(input, chunks, dim=0): chunk's pieces through unsafe_split (size ceil(n / chunks)).
    Raises RuntimeError for chunks <= 0 (torch's text)."""
    _need_tensor("unsafe_chunk", input)
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    split_size = (n + chunks - 1) // chunks
    if split_size == 0 and n == 0:  # torch: as many empty pieces as chunks
        return tuple(apply_multi(UnsafeSplitWithSizesBackward0, (input,), (d, (0,) * chunks)))
    return unsafe_split(input, split_size, d)


def _directional_split(name: str, dim: int, min_dims: int, input, indices_or_sections):  # noqa: A002
    _need_tensor(name, input)
    nd = input._data.ndim
    if nd < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                           f"{nd} dimensions!")
    if not isinstance(indices_or_sections, (int, tuple, list)):  # torch's parser text for its two overloads
        got = type(indices_or_sections).__name__
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, {got}), but expected one "
                        f"of:\n * (Tensor input, int sections)\n      didn't match because some of the arguments have "
                        f"invalid types: (Tensor, !{got}!)\n * (Tensor input, tuple of ints indices)\n      didn't "
                        f"match because some of the arguments have invalid types: (Tensor, !{got}!)\n")
    if isinstance(indices_or_sections, int):
        n = input._data.shape[dim]
        if indices_or_sections == 0 or n % indices_or_sections != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{n} is not divisible by the split_size {indices_or_sections}!")
    return join_split.tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):  # noqa: A002 - torch's name
    """torch.hsplit: tensor_split along dim 1 (dim 0 for 1-D input); an int must divide that dim (torch's
    RuntimeError otherwise, and for a 0-d input)."""
    dim = 0 if isinstance(input, Tensor) and input._data.ndim == 1 else 1
    return _directional_split("hsplit", dim, 1, input, indices_or_sections)


def vsplit(input, indices_or_sections):  # noqa: A002 - torch's name
    """torch.vsplit: tensor_split along dim 0 of a tensor with at least 2 dims (torch's RuntimeError otherwise)."""
    return _directional_split("vsplit", 0, 2, input, indices_or_sections)


def dsplit(input, indices_or_sections):  # noqa: A002 - torch's name
    """torch.dsplit: tensor_split along dim 2 of a tensor with at least 3 dims (torch's RuntimeError otherwise)."""
    return _directional_split("dsplit", 2, 3, input, indices_or_sections)


# ------------------------------------------------------------------ padding, block matrices, combinatorics
def constant_pad_nd(input, pad, value=0):  # noqa: A002 - torch's name
    """torch.constant_pad_nd(input, pad, value=0): nn.functional.pad in constant mode (ConstantPadNdBackward0);
    ``pad`` lists (before, after) amounts from the last dim backwards, negative amounts crop."""
    _need_tensor("constant_pad_nd", input)
    pad = tuple(int(p) for p in pad)
    if isinstance(value, complex):  # (nn.functional.pad's binding takes a float; constant_pad_nd's a Scalar)
        padding.pad(input.detach(), pad, "constant", 0)  # its checks and texts
        k = len(pad) // 2
        pads = tuple((pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]) for i in range(k))
        return apply(padding.ConstantPadNdBackward0, (input,), (pads, value))
    return padding.pad(input, pad, "constant", value)


@register
class BlockDiagBackward0(Op):
    """block_diag(*tensors): the inputs (0-d as 1x1, 1-D as one row) on the diagonal of a zero matrix.
    Backward (derivatives.yaml block_diag_backward): each input gets its block of the gradient, in its shape;
    as in torch, a (0,) input (which still takes a row in the forward) does not advance the
    backward's offsets, so the blocks after it are read from the row above their own."""

    @staticmethod
    def forward(*args):
        arrays, (shapes, dtype) = args[:-2], args[-1]
        rows = sum(s[0] for s in shapes)
        cols = sum(s[1] for s in shapes)
        out = xp.zeros((rows, cols), dtype=dtype)
        r = c = 0
        for a, (h, w) in zip(arrays, shapes):
            out[r:r + h, c:c + w] = a.reshape(h, w)
            r += h
            c += w
        return out

    def backward(self, g):
        in_shapes, (shapes, _) = self._params
        grads = []
        r = c = 0
        for i, (h, w) in enumerate(shapes):
            if in_shapes[i] == (0,):  # torch's block_diag_backward skips a (0,) input without moving past its row
                grads.append(wrap(xp.zeros(in_shapes[i], dtype=g._data.dtype)))
                continue
            if self.next_functions[i][0] is not None:
                block = g[r:r + h, c:c + w]
                grads.append(block.reshape(in_shapes[i]))
            else:
                grads.append(None)
            r += h
            c += w
        return tuple(grads)


def block_diag(*tensors):
    """torch.block_diag(*tensors): a 2-D tensor with the inputs as diagonal blocks (0-d -> 1x1, 1-D -> 1 x n,
    2-D as it is), dtype promoted over the inputs; no inputs give a (1, 0) tensor.

    Raises RuntimeError for an input with more than 2 dims (torch's text)."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                            f"{type(t).__name__}")
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t._data.ndim} dimensions")
    if not tensors:
        return wrap(xp.zeros((1, 0), dtype=xp.float32))
    dtype = tensors[0]._data.dtype
    for t in tensors[1:]:  # torch promotes over the inputs' dtypes, whatever their dims
        dtype = result_type(xp.zeros((1,), dtype), xp.zeros((1,), t._data.dtype))
    shapes = []
    for t in tensors:
        s = t._data.shape
        shapes.append((1, 1) if len(s) == 0 else (1, s[0]) if len(s) == 1 else tuple(s))
    in_shapes = tuple(t._data.shape for t in tensors)
    arrays = tuple(t._data for t in tensors)
    return apply(BlockDiagBackward0, tuple(tensors), (in_shapes, (tuple(shapes), dtype)), arrays)


def diagflat(input, offset: int = 0):  # noqa: A002 - torch's name
    """torch.diagflat(input, offset=0): the flattened input on the ``offset`` diagonal of a square zero matrix
    (DiagEmbedBackward0, as torch)."""
    _need_tensor("diagflat", input)
    return diagonals.diag_embed(sh.reshape(input, -1), offset)


def cartesian_prod(*tensors):
    """torch.cartesian_prod(*tensors): every combination of elements of the 1-D inputs, as rows of an (N, k)
    tensor (one input: the input itself); StackBackward0 as torch's meshgrid + stack.

    Raises RuntimeError for an input that is not 1-D (torch's text)."""
    for t in tensors:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = join_split.meshgrid(*tensors, indexing="ij")
    return join_split.stack([sh.reshape(g, -1) for g in grids], 1)


def combinations(input, r: int = 2, with_replacement: bool = False):  # noqa: A002 - torch's name
    """torch.combinations(input, r=2, with_replacement=False): the length-r combinations of the elements of the
    1-D input as rows of an (N, r) tensor, in itertools' order (r = 0 gives an empty 1-D tensor).

    Raises RuntimeError for input that is not 1-D or a negative r (torch's texts)."""
    _need_tensor("combinations", input)
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return wrap(xp.zeros((0,), dtype=input._data.dtype))
    n = input._data.shape[0]
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = xp.array(list(pick(range(n), r)), dtype=xp.int64).reshape(-1, r)
    from .indexing import index_select

    return join_split.stack([index_select(input, 0, wrap(xp.ascontiguousarray(idx[:, k]))) for k in range(r)], 1)


def sum_to_size(self, *size):
    """Tensor.sum_to_size(*size): self summed down to ``size`` (the inverse of expanding ``size`` to self's shape);
    self itself when the shapes agree. Raises RuntimeError when ``size`` cannot be expanded to self's shape."""
    from .reduction import sum_to

    size = sh._parse_shape(size)
    shape = self._data.shape
    lead = len(shape) - len(size)
    ok = lead >= 0 and all(s == n or s == 1 for s, n in zip(size, shape[lead:]))
    if not ok:
        raise RuntimeError(f"size {{[{', '.join(map(str, size))}]}} is not expandable to size "
                           f"{{[{', '.join(map(str, shape))}]}}.")
    if not size:  # torch's sum_to: an empty size is a full sum, even of a 0-d tensor
        from .reduction import sum as _sum

        return _sum(self)
    if tuple(size) == tuple(shape):
        return self
    return sum_to(self, tuple(size))


# ------------------------------------------------------------------ fill
@register
class FillBackward0(Op):
    """fill(input, value: Scalar): a tensor like input full of value. Backward (derivatives.yaml): zeros."""

    @staticmethod
    def forward(a, value):
        return xp.full(a.shape, value, dtype=a.dtype)

    def backward(self, g):
        return (wrap(xp.zeros_like(g._data)),)


@register
class FillBackward1(Op):
    """fill(input, value: 0-d Tensor). Backward (derivatives.yaml): zeros for input, grad.sum() for value."""

    @staticmethod
    def forward(a, value):
        return xp.full(a.shape, value, dtype=a.dtype)

    def backward(self, g):
        from .reduction import sum as _sum

        gi = wrap(xp.zeros_like(g._data)) if self.next_functions[0][0] is not None else None
        gv = _sum(g) if self.next_functions[1][0] is not None else None
        return gi, gv


def fill(input, value):  # noqa: A002 - torch's name
    """torch.fill(input, value): a new tensor of input's shape and dtype, every element ``value`` (a number or
    a 0-d tensor). Raises RuntimeError for a value tensor with dims, or a complex value for a real input."""
    _need_tensor("fill", input)
    a = input._data
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} "
                               "dimensions.")
        v = value._data
        if v.dtype.kind == "c" and a.dtype.kind != "c":
            raise RuntimeError("value cannot be converted to type " + str(a.dtype) + " without overflow")
        return apply(FillBackward1, (input, value), (), (a, v.astype(a.dtype) if a.dtype.kind == "c" else v.real.astype(a.dtype)))
    if isinstance(value, complex) and a.dtype.kind != "c":
        raise RuntimeError("value cannot be converted to type " + str(a.dtype) + " without overflow")
    return apply(FillBackward0, (input,), (value,))


EXPORTS = dict(
    ravel=ravel, split_with_sizes=split_with_sizes, unsafe_split=unsafe_split,
    unsafe_split_with_sizes=unsafe_split_with_sizes, unsafe_chunk=unsafe_chunk, hsplit=hsplit, vsplit=vsplit,
    dsplit=dsplit, constant_pad_nd=constant_pad_nd, block_diag=block_diag, diagflat=diagflat,
    cartesian_prod=cartesian_prod, combinations=combinations, fill=fill,
)

TENSOR_METHODS = dict(
    ravel=ravel, split_with_sizes=split_with_sizes, unsafe_split=unsafe_split,
    unsafe_split_with_sizes=unsafe_split_with_sizes, unsafe_chunk=unsafe_chunk, hsplit=hsplit, vsplit=vsplit,
    dsplit=dsplit, diagflat=diagflat, sum_to_size=sum_to_size,
)
