"""Matrix products: dot, mv, mm, bmm and ``matmul``, composed as torch composes it.

``matmul`` dispatches on the operands' dims like torch (so ``grad_fn`` names match):
1-D @ 1-D -> DotBackward0; 2-D @ 1-D -> MvBackward0; 2-D @ 2-D -> MmBackward0;
1-D @ 2-D -> mm then SqueezeBackward4; N-D @ 1-D/2-D -> folded into one mv/mm
then UnsafeViewBackward0; otherwise the batch dims broadcast, fold into bmm and
unfold (UnsafeViewBackward0). Gradients (derivatives.yaml): for C = A B,
dA = dC B^T and dB = A^T dC.
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor
from .registry import Op, apply, register


def _dims(shape) -> str:
    return "x".join(str(n) for n in shape)


@register
class DotBackward0(Op):
    """dot(a, b) of two 1-D tensors."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return xp.asarray(xp.dot(a, b))

    def backward(self, g):
        a, b = self.saved()
        return (g * b if self.needs_input_grad(0) else None, g * a if self.needs_input_grad(1) else None)


@register
class MvBackward0(Op):
    """mv(mat, vec): dmat = outer(grad, vec), dvec = mat^T grad."""

    save_inputs = True

    @staticmethod
    def forward(m, v):
        return m @ v

    def backward(self, g):
        m, v = self.saved()
        gm = g.unsqueeze(1) * v if self.needs_input_grad(0) else None
        gv = mv(m.t(), g) if self.needs_input_grad(1) else None
        return gm, gv


@register
class MmBackward0(Op):
    """mm(a, b): da = grad b^T, db = a^T grad."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return a @ b

    def backward(self, g):
        a, b = self.saved()
        ga = mm(g, b.t()) if self.needs_input_grad(0) else None
        gb = mm(a.t(), g) if self.needs_input_grad(1) else None
        return ga, gb


@register
class BmmBackward0(Op):
    """bmm(a, b) on (B, n, k) @ (B, k, m)."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return xp.matmul(a, b)

    def backward(self, g):
        a, b = self.saved()
        ga = bmm(g, b.transpose(1, 2)) if self.needs_input_grad(0) else None
        gb = bmm(a.transpose(1, 2), g) if self.needs_input_grad(1) else None
        return ga, gb


def _check_float_pair(a: Tensor, b: Tensor, name: str):
    if a._data.dtype != b._data.dtype:
        from .._dtype import from_numpy

        names = {"float32": "Float", "float64": "Double", "int64": "Long", "float16": "Half", "int32": "Int"}
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {names.get(from_numpy(a._data.dtype).name)} "
            f"!= {names.get(from_numpy(b._data.dtype).name)}"
            if name == "mm"
            else f"expected scalar type {names.get(from_numpy(a._data.dtype).name)} but found "
            f"{names.get(from_numpy(b._data.dtype).name)}"
        )


def dot(a: Tensor, b: Tensor) -> Tensor:
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors"
        )
    if a._data.shape[0] != b._data.shape[0]:
        n, m = a._data.shape[0], b._data.shape[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of elements, "
            f"but got {n} and {m} elements respectively"
        )
    _check_float_pair(a, b, "dot")
    return apply(DotBackward0, (a, b))


def mv(m: Tensor, v: Tensor) -> Tensor:
    if m._data.ndim != 2 or v._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {m._data.ndim}, {v._data.ndim}")
    if m._data.shape[1] != v._data.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({m._data.shape[0]}), mat ({_dims(m._data.shape)}), vec ({v._data.shape[0]})"
        )
    _check_float_pair(m, v, "mv")
    return apply(MvBackward0, (m, v))


def mm(a: Tensor, b: Tensor) -> Tensor:
    if a._data.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b._data.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a._data.shape[1] != b._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_dims(a._data.shape)} and {_dims(b._data.shape)})"
        )
    _check_float_pair(a, b, "mm")
    return apply(MmBackward0, (a, b))


def bmm(a: Tensor, b: Tensor) -> Tensor:
    if a._data.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if b._data.ndim != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor")
    (B, n, k), (B2, k2, m) = a._data.shape, b._data.shape
    if B != B2 or k != k2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{B}, {k}] but got: [{B2}, {k2}]."
        )
    _check_float_pair(a, b, "bmm")
    return apply(BmmBackward0, (a, b))


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product with torch's broadcasting rules (torch.matmul).

    Shapes: (n) @ (n) -> (); (n, k) @ (k) -> (n); (k) @ (k, m) -> (m); (n, k) @ (k, m) -> (n, m);
    (*b1, n, k) @ (*b2, k, m) -> (*broadcast(b1, b2), n, m).

    Raises:
        RuntimeError: 0-D operands or sizes that cannot be multiplied (torch's messages).
    """
    if not isinstance(b, Tensor) or not isinstance(a, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not {type(b).__name__}")
    da, db = a._data.ndim, b._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 1 and db == 2:
        return _squeeze4(mm(a.unsqueeze(0), b))
    if da == 2 and db == 2:
        return mm(a, b)
    if da >= 3 and db <= 2:
        # Fold the batch dims of a into its rows: one mm / mv call.
        batch = a._data.shape[:-1]
        k = a._data.shape[-1]
        if db == 2 and b._data.shape[0] != k:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({_dims((_prod(batch), k))} and {_dims(b._data.shape)})"
            )
        flat = a.reshape(-1, k)
        out = mm(flat, b) if db == 2 else mv(flat, b)
        shape = batch + ((b._data.shape[1],) if db == 2 else ())
        return _unsafe_view(out, shape)
    # General case: broadcast the batch dims and use bmm.
    a2 = a.unsqueeze(0) if da == 1 else a
    b2 = b.unsqueeze(-1) if db == 1 else b
    n, k = a2._data.shape[-2:]
    k2, m = b2._data.shape[-2:]
    if k != k2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{_prod(a2._data.shape[:-2])}, {k}] "
            f"but got: [{_prod(b2._data.shape[:-2])}, {k2}]."
        )
    try:
        batch = xp.broadcast_shapes(a2._data.shape[:-2], b2._data.shape[:-2])
    except ValueError:
        raise RuntimeError(_broadcast_error(a2._data.shape[:-2], b2._data.shape[:-2])) from None
    B = _prod(batch)
    a3 = a2.expand(batch + (n, k)).reshape(B, n, k)
    b3 = b2.expand(batch + (k, m)).reshape(B, k, m)
    shape = batch + ((n,) if da > 1 else ()) + ((m,) if db > 1 else ())
    return _unsafe_view(bmm(a3, b3), shape)


def _prod(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _broadcast_error(s1, s2) -> str:
    for i in range(1, max(len(s1), len(s2)) + 1):
        x = s1[-i] if i <= len(s1) else 1
        y = s2[-i] if i <= len(s2) else 1
        if x != y and x != 1 and y != 1:
            dim = max(len(s1), len(s2)) - i
            return f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {dim}"
    return "shapes cannot be broadcast"


def _unsafe_view(t: Tensor, shape) -> Tensor:
    from .shape import UnsafeViewBackward0

    return apply(UnsafeViewBackward0, (t,), (tuple(shape), t._data.shape))


def _squeeze4(t: Tensor) -> Tensor:
    from .shape import SqueezeBackward4

    return apply(SqueezeBackward4, (t,), ((0,), t._data.shape))
