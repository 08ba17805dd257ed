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
from .._tensor import Tensor, wrap
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

    def backward_arrays(self, g):
        m, v = self.saved()
        gm = wrap(g[:, None] * v._data) if self.needs_input_grad(0) else None
        gv = wrap(m._data.T @ g) if self.needs_input_grad(1) else None
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

    def backward_arrays(self, g):
        a, b = self.saved()
        ga = wrap(g @ b._data.T) if self.needs_input_grad(0) else None
        gb = wrap(a._data.T @ g) if self.needs_input_grad(1) else None
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

    def backward_arrays(self, g):
        a, b = self.saved()
        ga = wrap(xp.matmul(g, b._data.transpose(0, 2, 1))) if self.needs_input_grad(0) else None
        gb = wrap(xp.matmul(a._data.transpose(0, 2, 1), g)) if self.needs_input_grad(1) else None
        return ga, gb


def _check_float_pair(a: Tensor, b: Tensor, name: str):
    if a._data.dtype != b._data.dtype:
        from .._dtype import scalar_type_name

        ta, tb = scalar_type_name(a._data.dtype), scalar_type_name(b._data.dtype)
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {ta} != {tb}"
            if name == "mm"
            else f"expected scalar type {ta} but found {tb}"
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
        raise RuntimeError("batch1 must be a 3D tensor")
    if b._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (B, _, k), (B2, k2, _) = a._data.shape, b._data.shape
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
    if _should_fold(a, b):
        # Fold the batch dims of the larger operand into matrix rows: one mm / mv call.
        transpose = db > da
        t1 = b.mT if transpose else a
        t2 = (a.t() if da == 2 else a) if transpose else b
        sizes = t1._data.shape
        k = sizes[-1]
        if t2._data.shape[0] != k:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({_prod(sizes[:-1])}x{k} and {_dims(t2._data.shape)})"
                if t2._data.ndim == 2
                else f"size mismatch, got input ({_prod(sizes[:-1])}), mat ({_prod(sizes[:-1])}x{k}), "
                f"vec ({t2._data.shape[0]})"
            )
        folded = t1.reshape(_prod(sizes[:-1]), k)
        if t2._data.ndim == 2:
            out = _unsafe_view(mm(folded, t2), sizes[:-1] + (t2._data.shape[1],))
            return out.mT.contiguous() if transpose else out
        return _unsafe_view(mv(folded, t2), sizes[:-1])
    # General case: broadcast the batch dims, fold them into one, and use bmm.
    n = a._data.shape[-2] if da > 1 else 1
    k = a._data.shape[-1]
    k2 = b._data.shape[-2] if db > 1 else b._data.shape[0]
    p = b._data.shape[-1] if db > 1 else 1
    batch_a, batch_b = a._data.shape[: max(da - 2, 0)], b._data.shape[: max(db - 2, 0)]
    try:
        batch = xp.broadcast_shapes(batch_a, batch_b)
    except ValueError:
        raise RuntimeError(_broadcast_error(batch_a, batch_b)) from None
    B = _prod(batch)
    a3 = a.expand(batch + (n, k)).reshape(B, n, k)
    if db == 1:
        b3 = b.expand(batch + (k2,)).reshape(B, k2).unsqueeze(2)
    else:
        b3 = b.expand(batch + (k2, p)).reshape(B, k2, p)
    shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    out = bmm(a3, b3)
    return _unsafe_view(out.squeeze(-1) if db == 1 else out, shape)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """torch's should_fold: fold into mm/mv when the larger operand is >= 3-D and the other <= 2-D."""
    a_larger = a._data.ndim >= b._data.ndim
    t1 = a if a_larger else b.mT
    small = b if a_larger else a
    if not (t1._data.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if a._data.ndim == 2:
        return False
    if t1._data.size == 0:
        return True
    shape, strides = t1._data.shape, t1._data.strides
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(t1._data.ndim - 2))


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


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
