"""Matrix products: dot, mv, mm, bmm and ``matmul``, composed as torch composes it.

``matmul`` dispatches on the operands' dims like torch (so ``grad_fn`` names match):
1-D @ 1-D -> DotBackward0; 2-D @ 1-D -> MvBackward0; 2-D @ 2-D -> MmBackward0;
1-D @ 2-D -> mm then SqueezeBackward4; N-D @ 1-D/2-D -> folded into one mv/mm
then UnsafeViewBackward0; otherwise the batch dims broadcast, fold into bmm and
unfold (UnsafeViewBackward0). Gradients (derivatives.yaml): for C = A B,
dA = dC B^T and dB = A^T dC.
"""

from __future__ import annotations

import sys

from .._backend import xp
from .._tensor import Tensor, wrap
from .complex import conj_value as conj
from .registry import Op, apply, register


def _dims(shape) -> str:
    return "x".join(str(n) for n in shape)


@register
class DotBackward0(Op):
    """dot(a, b) of two 1-D tensors: da = grad * b.conj(), db = grad * a.conj() (derivatives.yaml)."""

    save_inputs = True
    save_needs = ((1,), (0,))  # each gradient reads only the other factor
    complex_grad = True

    @staticmethod
    def forward(a, b):
        return xp.asarray(xp.dot(a, b))

    def backward(self, g):
        a, b = self.saved()
        return (g * conj(b) if self.needs_input_grad(0) else None, g * conj(a) if self.needs_input_grad(1) else None)


@register
class MvBackward0(Op):
    """mv(mat, vec): dmat = outer(grad, vec.conj()), dvec = mat^H grad."""

    save_inputs = True
    save_needs = ((1,), (0,))  # each gradient reads only the other factor
    complex_grad = True

    @staticmethod
    def forward(m, v):
        return m @ v

    def backward(self, g):
        m, v = self.saved()
        gm = g.unsqueeze(1) * conj(v) if self.needs_input_grad(0) else None
        gv = mv(conj(m.t()), g) if self.needs_input_grad(1) else None
        return gm, gv

    def backward_arrays(self, g):
        if g.dtype.kind == "c":
            return self.backward(wrap(g))
        m, v = self.saved()
        gm = wrap(g[:, None] * v._data) if self.needs_input_grad(0) else None
        gv = wrap(m._data.T @ g) if self.needs_input_grad(1) else None
        return gm, gv


@register
class MmBackward0(Op):
    """mm(a, b): da = grad b^H, db = a^H grad (derivatives.yaml: mm_mat1_backward, mm_mat2_backward)."""

    save_inputs = True
    save_needs = ((1,), (0,))  # each gradient reads only the other factor
    complex_grad = True

    @staticmethod
    def forward(a, b):
        return a @ b

    def backward(self, g):
        a, b = self.saved()
        ga = mm(g, conj(b.t())) if self.needs_input_grad(0) else None
        gb = mm(conj(a.t()), g) if self.needs_input_grad(1) else None
        return ga, gb

    def backward_arrays(self, g):
        if g.dtype.kind == "c":
            return self.backward(wrap(g))
        a, b = self.saved()
        ga = wrap(g @ b._data.T) if self.needs_input_grad(0) else None
        gb = wrap(a._data.T @ g) if self.needs_input_grad(1) else None
        return ga, gb


@register
class BmmBackward0(Op):
    """bmm(a, b) on (B, n, k) @ (B, k, m): da = grad b^H, db = a^H grad."""

    save_inputs = True
    save_needs = ((1,), (0,))  # each gradient reads only the other factor
    complex_grad = True

    @staticmethod
    def forward(a, b):
        return xp.matmul(a, b)

    def backward(self, g):
        a, b = self.saved()
        ga = bmm(g, conj(b.transpose(1, 2))) if self.needs_input_grad(0) else None
        gb = bmm(conj(a.transpose(1, 2)), g) if self.needs_input_grad(1) else None
        return ga, gb

    def backward_arrays(self, g):
        if g.dtype.kind == "c":
            return self.backward(wrap(g))
        a, b = self.saved()
        ga = wrap(xp.matmul(g, b._data.transpose(0, 2, 1))) if self.needs_input_grad(0) else None
        gb = wrap(xp.matmul(a._data.transpose(0, 2, 1), g)) if self.needs_input_grad(1) else None
        return ga, gb


_C_TYPE_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def _check_float_pair(a: Tensor, b: Tensor, name: str):
    if a._data.dtype != b._data.dtype:
        from .._dtype import scalar_type_name

        ta, tb = scalar_type_name(a._data.dtype), scalar_type_name(b._data.dtype)
        # mm's message names the C++ types (float, double, long int), the others torch's type names
        ca, cb = _C_TYPE_NAMES.get(a._data.dtype.name, ta), _C_TYPE_NAMES.get(b._data.dtype.name, tb)
        if name == "mm":
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {ca} != {cb}")
        if name in ("dot", "vdot"):
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {ta} and {tb}")
        if name == "mv":  # torch's addmv names (result, mat, vec), the result taking the vector's dtype
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {tb}, {ta}, and {tb}")
        raise RuntimeError(f"expected scalar type {ta} but found {tb}")


def _check_vectors(a: Tensor, b: Tensor, name: str) -> None:
    """torch's checks for dot / vdot: two 1-D tensors of one size and one non-bool dtype."""
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors")
    if a._data.shape[0] != b._data.shape[0]:
        n, m = a._data.shape[0], b._data.shape[0]
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of elements, "
            f"but got {n} and {m} elements respectively"
        )
    _check_float_pair(a, b, name)
    if a._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")


def dot(a: Tensor, b: Tensor) -> Tensor:
    _check_vectors(a, b, "dot")
    return apply(DotBackward0, (a, b))


@register
class VdotBackward0(DotBackward0):
    """vdot(a, b) = sum(conj(a) * b) of two 1-D tensors (real tensors: dot). derivatives.yaml: self: grad.conj()
    * other; other: grad * self."""

    @staticmethod
    def forward(a, b):
        return xp.asarray(xp.vdot(a, b))

    def backward(self, g):
        a, b = self.saved()
        return (conj(g) * b if self.needs_input_grad(0) else None, g * a if self.needs_input_grad(1) else None)


def vdot(a: Tensor, b: Tensor) -> Tensor:
    """torch.vdot: the dot product with the first argument conjugated (VdotBackward0); dot's errors."""
    _check_vectors(a, b, "vdot")
    return apply(VdotBackward0, (a, b))


def inner(a: Tensor, b: Tensor) -> Tensor:
    """torch.inner: sums over the last dims, result shape a.shape[:-1] + b.shape[:-1]; a 0-d operand
    multiplies. A composite as torch's (a matrix product under a ViewBackward0)."""
    if a._data.ndim == 0 or b._data.ndim == 0:
        return a * b
    k, k2 = a._data.shape[-1], b._data.shape[-1]
    if k != k2:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"[{', '.join(map(str, a._data.shape))}] and [{', '.join(map(str, b._data.shape))}]"
        )
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    out = mm(a.reshape(-1, k), b.reshape(-1, k).t())
    return out.view(*(a._data.shape[:-1] + b._data.shape[:-1]))


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
        # x.matmul(b) counts b as argument 1, torch.matmul(x, b) as 2 (Tensor.matmul is a renamed copy)
        position = 1 if sys._getframe(0).f_code.co_qualname.startswith("Tensor.") else 2
        raise TypeError(f"matmul(): argument 'other' (position {position}) must be Tensor, not {type(b).__name__}")
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


# ================================================================== products with an added term
# addmm / baddbmm compute beta * input + alpha * (mat1 @ mat2) in one node
# (derivatives.yaml: input: grad * beta; mat1: alpha * grad @ mat2^T;
# mat2: alpha * mat1^T @ grad). ``input`` broadcasts to the product's shape; the
# engine sums its gradient back. With beta == 0, ``input`` is ignored (nan and inf
# in it do not propagate) and its gradient is grad * 0, as in torch.


def _scaled(t: Tensor, c):
    return t if c == 1 else t * c


class _AddProduct(Op):
    save_inputs = True
    product = None  # "mm" or "bmm"

    @classmethod
    def forward(cls, inp, m1, m2, beta, alpha):
        prod = xp.matmul(m1, m2)
        if alpha != 1:
            prod = prod * alpha
        if beta == 0:
            return xp.broadcast_to(prod, prod.shape).astype(prod.dtype, copy=True)
        return prod + (inp if beta == 1 else inp * beta)

    def backward(self, g):
        _, m1, m2 = self.saved()
        beta, alpha = self._params
        mul = mm if self.product == "mm" else bmm
        gi = _scaled(g, beta) if self.needs_input_grad(0) else None
        g1 = _scaled(mul(g, m2.mT), alpha) if self.needs_input_grad(1) else None
        g2 = _scaled(mul(m1.mT, g), alpha) if self.needs_input_grad(2) else None
        return gi, g1, g2


@register
class AddmmBackward0(_AddProduct):
    """addmm(input, mat1, mat2, *, beta=1, alpha=1): (n, k) @ (k, m) plus ``input`` broadcast to (n, m)."""

    product = "mm"


@register
class BaddbmmBackward0(_AddProduct):
    """baddbmm(input, batch1, batch2, *, beta=1, alpha=1): (b, n, k) @ (b, k, m) plus ``input``."""

    product = "bmm"


def _expand_error(target, shape) -> RuntimeError:
    """torch's message when ``input`` of addmm/baddbmm cannot be expanded to the product's shape."""
    lead = len(target) - len(shape)
    for i in range(len(shape) - 1, -1, -1):
        if shape[i] != 1 and shape[i] != target[lead + i]:
            return RuntimeError(
                f"The expanded size of the tensor ({target[lead + i]}) must match the existing size ({shape[i]}) at "
                f"non-singleton dimension {lead + i}.  Target sizes: [{', '.join(map(str, target))}].  "
                f"Tensor sizes: [{', '.join(map(str, shape))}]"
            )
    return RuntimeError(
        f"expand(torch.{_type_name(None)}Tensor{{[{', '.join(map(str, shape))}]}}, size=[{', '.join(map(str, target))}]): "
        f"the number of sizes provided ({len(target)}) must be greater or equal to the number of dimensions in the "
        f"tensor ({len(shape)})"
    )


def _type_name(dtype) -> str:
    from .._dtype import scalar_type_name

    return scalar_type_name(dtype)


def _check_expandable(inp: Tensor, target) -> None:
    shape = inp._data.shape
    if len(shape) > len(target) or any(
        s != 1 and s != t for s, t in zip(shape[::-1], tuple(target)[::-1])
    ):
        raise _expand_error(tuple(target), shape)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:  # noqa: A002
    """beta * input + alpha * (mat1 @ mat2); ``input`` broadcasts to (n, m).

    Raises:
        RuntimeError: mat1/mat2 not 2-D, shapes that cannot be multiplied, mixed dtypes,
            or ``input`` not expandable to the product's shape (torch's messages).
    """
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if t._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t._data.ndim}-D tensor")
    if mat1._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_dims(mat1._data.shape)} and {_dims(mat2._data.shape)})"
        )
    dts = [t._data.dtype for t in (input, mat1, mat2)]
    if len(set(dts)) > 1:
        if dts[1] != dts[2]:
            raise RuntimeError(
                f"mat1 and mat2 must have the same dtype, but got {_type_name(dts[1])} and {_type_name(dts[2])}"
            )
        raise RuntimeError(
            f"self and mat2 must have the same dtype, but got {_type_name(dts[0])} and {_type_name(dts[2])}"
        )
    _check_expandable(input, (mat1._data.shape[0], mat2._data.shape[1]))
    return apply(AddmmBackward0, (input, mat1, mat2), (beta, alpha))


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:  # noqa: A002
    """beta * input + alpha * (batch1 @ batch2) on (b, n, k) @ (b, k, m); ``input`` broadcasts to (b, n, m).

    Raises:
        RuntimeError: batches not 3-D, mismatched sizes or ``input`` not expandable (torch's messages).
    """
    if batch1._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (b, n, k), (b2, k2, m) = batch1._data.shape, batch2._data.shape
    _check_expandable(input, (b, n, m))
    if b != b2 or k != k2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: [{b2}, {k2}]."
        )
    dts = [t._data.dtype for t in (input, batch1, batch2)]
    if len(set(dts)) > 1:
        raise RuntimeError(f"expected scalar type {_type_name(dts[0])} but found {_type_name(next(d for d in dts if d != dts[0]))}")
    return apply(BaddbmmBackward0, (input, batch1, batch2), (beta, alpha))


@register
class AddmvBackward0(Op):
    """addmv(input, mat, vec, *, beta=1, alpha=1) = beta * input + alpha * mat @ vec; (n, m) @ (m) -> (n).

    derivatives.yaml: input: grad * beta; mat: alpha * outer(grad, vec); vec: alpha * mat^T grad.
    """

    save_inputs = True

    @staticmethod
    def forward(inp, m, v, beta, alpha):
        prod = m @ v
        prod = prod * alpha if alpha != 1 else prod
        return xp.broadcast_to(prod, prod.shape).astype(prod.dtype, copy=True) if beta == 0 else prod + inp * beta

    def backward(self, g):
        _, m, v = self.saved()
        beta, alpha = self._params
        gi = _scaled(g, beta) if self.needs_input_grad(0) else None
        gm = _scaled(g.unsqueeze(1) * v, alpha) if self.needs_input_grad(1) else None
        gv = _scaled(mv(m.t(), g), alpha) if self.needs_input_grad(2) else None
        return gi, gm, gv


@register
class AddrBackward0(Op):
    """addr(input, vec1, vec2, *, beta=1, alpha=1) = beta * input + alpha * outer(vec1, vec2); (n), (m) -> (n, m).

    derivatives.yaml: input: grad * beta; vec1: alpha * grad @ vec2; vec2: alpha * grad^T @ vec1.
    """

    save_inputs = True

    @staticmethod
    def forward(inp, a, b, beta, alpha):
        prod = xp.multiply.outer(a, b)
        prod = prod * alpha if alpha != 1 else prod
        return xp.broadcast_to(prod, prod.shape).astype(prod.dtype, copy=True) if beta == 0 else prod + inp * beta

    def backward(self, g):
        _, a, b = self.saved()
        beta, alpha = self._params
        gi = _scaled(g, beta) if self.needs_input_grad(0) else None
        ga = _scaled(mv(g, b), alpha) if self.needs_input_grad(1) else None
        gb = _scaled(mv(g.t(), a), alpha) if self.needs_input_grad(2) else None
        return gi, ga, gb


@register
class AddbmmBackward0(Op):
    """addbmm(input, batch1, batch2, *, beta=1, alpha=1) = beta * input + alpha * sum_b batch1[b] @ batch2[b].

    derivatives.yaml: input: grad * beta; batch1: alpha * grad @ batch2^T (for each b);
    batch2: alpha * batch1^T @ grad.
    """

    save_inputs = True

    @staticmethod
    def forward(inp, a, b, beta, alpha):
        prod = xp.matmul(a, b).sum(axis=0) if a.shape[0] else xp.zeros((a.shape[1], b.shape[2]), dtype=a.dtype)
        prod = prod * alpha if alpha != 1 else prod
        return xp.broadcast_to(prod, prod.shape).astype(prod.dtype, copy=True) if beta == 0 else prod + inp * beta

    def backward(self, g):
        _, a, b = self.saved()
        beta, alpha = self._params
        gi = _scaled(g, beta) if self.needs_input_grad(0) else None
        ga = _scaled(matmul(g, b.mT), alpha) if self.needs_input_grad(1) else None
        gb = _scaled(matmul(a.mT, g), alpha) if self.needs_input_grad(2) else None
        return gi, ga, gb


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:  # noqa: A002
    """beta * input + alpha * (mat @ vec); ``input`` is (n), (1) or 0-d.

    Raises:
        RuntimeError: wrong dims or sizes (torch's messages).
    """
    di, dm, dv = input._data.ndim, mat._data.ndim, vec._data.ndim
    if not (dm == 2 and dv == 1 and di <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {di}, {dm}, {dv}")
    n, k = mat._data.shape
    if k != vec._data.shape[0] or not (input._data.size == 1 or input._data.shape[0] == n):
        isz = input._data.shape[0] if di else 1
        raise RuntimeError(f"size mismatch, got input ({isz}), mat ({n}x{k}), vec ({vec._data.shape[0]})")
    return apply(AddmvBackward0, (input, mat, vec), (beta, alpha))


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:  # noqa: A002
    """beta * input + alpha * outer(vec1, vec2); ``input`` broadcasts to (n, m).

    Raises:
        RuntimeError: non-1-D vectors or ``input`` not expandable (torch's messages).
    """
    for name, t in (("vec1", vec1), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    _check_expandable(input, (vec1._data.shape[0], vec2._data.shape[0]))
    return apply(AddrBackward0, (input, vec1, vec2), (beta, alpha))


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:  # noqa: A002
    """beta * input + alpha * (batch1 @ batch2).sum(0); (b, n, k), (b, k, m) -> (n, m).

    Raises:
        RuntimeError: batches not 3-D, mismatched sizes or ``input`` not expandable (torch's messages).
    """
    from .._tensor import _wrap_dim

    # torch expands ``input`` to (batch1.size(1), batch2.size(2)) before checking the dims
    n = batch1._data.shape[_wrap_dim(1, batch1._data.ndim)]
    m = batch2._data.shape[_wrap_dim(2, batch2._data.ndim)]
    _check_expandable(input, (n, m))
    if batch1._data.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2._data.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (b, n, k), (b2, k2, m) = batch1._data.shape, batch2._data.shape
    if b != b2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {b2}")
    if k != k2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and {k2}x{m})")
    return apply(AddbmmBackward0, (input, batch1, batch2), (beta, alpha))


# ================================================================== outer, kron, tensordot, trace, cross


def outer(a: Tensor, b: Tensor) -> Tensor:
    """outer(vec1, vec2) -> (n, m): as torch, ``vec1.reshape(n, 1) * vec2`` (grad_fn MulBackward0).

    Raises:
        RuntimeError: an argument that is not 1-D.
    """
    for name, t in (("self", a), ("vec2", b)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return a.reshape(a._data.shape[0], 1) * b


def kron(a: Tensor, b: Tensor) -> Tensor:
    """Kronecker product, composed as torch composes it: interleaved views, a product, one unsafe view.

    Shapes: a (a_1..a_d), b (b_1..b_d) (the shorter is padded with leading 1s) -> (a_1 b_1, ..., a_d b_d).
    """
    da, db = a._data.ndim, b._data.ndim
    nd = max(da, db)
    sa = (1,) * (nd - da) + a._data.shape
    sb = (1,) * (nd - db) + b._data.shape
    va, vb = [], []
    for x, y in zip(sa, sb):
        va += [x, 1]
        vb += [1, y]
    prod = _unsafe_view(a, va) * _unsafe_view(b, vb)
    return _unsafe_view(prod, tuple(x * y for x, y in zip(sa, sb)))


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Contract ``dims`` of ``a`` with ``dims`` of ``b`` (an int: the last/first ``dims`` dims; or two lists).

    As torch: permute and reshape each operand to a matrix, one ``mm``, and a reshape
    of the product (grad_fn ViewBackward0).

    Raises:
        RuntimeError: negative dims, lists of different lengths, or contracted sizes that differ.
    """
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a._data.ndim or dims > b._data.ndim:
            raise RuntimeError(
                f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}"
            )
        d1, d2 = list(range(-dims, 0)), list(range(dims))
    else:
        d1, d2 = dims
        d1 = [d1] if isinstance(d1, int) else list(d1)
        d2 = [d2] if isinstance(d2, int) else list(d2)
    if len(d1) != len(d2):
        raise RuntimeError("both dimension lists should have same length")
    from .._tensor import _wrap_dim

    sa, sb = a._data.shape, b._data.shape
    w1 = [_wrap_dim(d, a._data.ndim) for d in d1]
    w2 = [_wrap_dim(d, b._data.ndim) for d in d2]
    csize = 1
    for x, y, o1, o2 in zip(w1, w2, d1, d2):
        if sa[x] != sb[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {sa[x]} in dim {o1} and second has size "
                f"{sb[y]} in dim {o2}"
            )
        csize *= sa[x]
    free1 = [i for i in range(a._data.ndim) if i not in w1]
    free2 = [i for i in range(b._data.ndim) if i not in w2]
    m, n = _prod([sa[i] for i in free1]), _prod([sb[i] for i in free2])
    t1 = a.permute(*(free1 + w1)).reshape(m, csize)
    t2 = b.permute(*(w2 + free2)).reshape(csize, n)
    return mm(t1, t2).reshape(tuple(sa[i] for i in free1) + tuple(sb[i] for i in free2))


@register
class TraceBackward0(Op):
    """trace(input) of an (n, m) matrix: the sum of its diagonal; the gradient is grad on the diagonal
    (derivatives.yaml: trace_backward)."""

    @staticmethod
    def forward(a, shape):
        return xp.asarray(xp.trace(a), dtype=xp.int64 if a.dtype.kind in "biu" else a.dtype)

    def backward(self, g):
        n, m = self._params[0]
        return (g * wrap(xp.eye(n, m, dtype=g._data.dtype)),)


def trace(a: Tensor) -> Tensor:
    """Sum of the diagonal of a 2-D tensor (int inputs give int64).

    Raises:
        RuntimeError: input that is not 2-D.
    """
    if a._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a._data.ndim}")
    return apply(TraceBackward0, (a,), (a._data.shape,))


@register
class LinalgCrossBackward0(Op):
    """cross(input, other, dim): 3-vectors along ``dim``, broadcast elsewhere.

    derivatives.yaml: d/dinput = cross(other, grad), d/dother = cross(grad, input).
    """

    save_inputs = True

    @staticmethod
    def forward(a, b, dim):
        return xp.cross(a, b, axis=dim)

    def backward(self, g):
        a, b = self.saved()
        dim = self._params[0]
        ga = apply(LinalgCrossBackward0, (b, g), (dim,)) if self.needs_input_grad(0) else None
        gb = apply(LinalgCrossBackward0, (g, a), (dim,)) if self.needs_input_grad(1) else None
        return ga, gb


def linalg_cross(a: Tensor, b: Tensor, *, dim: int = -1) -> Tensor:
    """torch.linalg.cross: both inputs have the same number of dims, broadcast, size 3 along ``dim``.

    Raises:
        RuntimeError: different numbers of dims, sizes that do not broadcast, or ``dim`` not of length 3.
        IndexError: ``dim`` out of range.
    """
    from .._tensor import _wrap_dim

    if a._data.ndim != b._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = _wrap_dim(dim, a._data.ndim)
    if a._data.shape[d] != 3 or b._data.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {a._data.shape[d]} and {b._data.shape[d]}"
        )
    try:
        xp.broadcast_shapes(a._data.shape, b._data.shape)
    except ValueError:
        raise RuntimeError(_broadcast_error(a._data.shape, b._data.shape)) from None
    if a._data.dtype != b._data.dtype:
        from .._dtype import result_type

        rt = result_type(a._data, b._data)
        a, b = a.to(_torch_dtype(rt)), b.to(_torch_dtype(rt))
    return apply(LinalgCrossBackward0, (a, b), (d,))


def _torch_dtype(npd):
    from .._dtype import from_numpy

    return from_numpy(npd)


def cross(a: Tensor, b: Tensor, dim=None) -> Tensor:
    """torch.cross: like linalg.cross; without ``dim`` it takes the first dim of size 3 (with torch's warning)."""
    if dim is None:
        import warnings

        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly "
            "or simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of "
            "linalg.cross in a future release. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)",
            UserWarning,
            stacklevel=2,
        )
        dim = next((i for i, s in enumerate(a._data.shape) if s == 3), -1)
    return linalg_cross(a, b, dim=dim)


# ================================================================== torch.linalg: checks and errors


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a linear-algebra routine failed (singular or not positive-definite input).

    Named as torch's class (``torch._C._LinAlgError``, which ``torch.linalg.LinAlgError`` is), so that
    ``type(e).__name__`` and printed tracebacks read the same; exposed as ``dyngrad.linalg.LinAlgError``.
    """


LinAlgError = _LinAlgError


def _check_matrix(a: Tensor, fname: str, square: bool = True, floating: bool = True) -> None:
    """torch's checks for a (batch of) matrices: at least 2-D, square, floating point."""
    if not isinstance(a, Tensor):
        raise TypeError(f"{fname.split('.')[-1]}(): argument 'A' (position 1) must be Tensor, not {type(a).__name__}")
    d = a._data
    if d.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if square and d.shape[-1] != d.shape[-2]:
        raise RuntimeError(
            f"{fname}: A must be batches of square matrices, but they are {d.shape[-2]} by {d.shape[-1]} matrices"
        )
    if floating and d.dtype.kind not in "fc":
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {_type_name(d.dtype)}")


def _batch_prefix(a, i: int) -> str:
    return f"(Batch element {i}): " if a.ndim > 2 else ""


def _first_zero_pivot(m) -> int:
    """1-based index of the first exactly-zero pivot of LU with partial pivoting (LAPACK getrf's info), or 0."""
    m = m.astype(m.dtype, copy=True)
    n = m.shape[0]
    for j in range(n):
        p = j + int(xp.argmax(xp.abs(m[j:, j])))
        if m[p, j] == 0:
            return j + 1
        if p != j:
            m[[j, p]] = m[[p, j]]
        m[j + 1:, j] /= m[j, j]
        m[j + 1:, j + 1:] -= xp.outer(m[j + 1:, j], m[j, j + 1:])
    return 0


def _singular_index(a):
    """(batch index, 1-based zero pivot) of the first singular matrix in a batch, or None."""
    flat = a.reshape((-1,) + a.shape[-2:])
    for i, m in enumerate(flat):
        k = _first_zero_pivot(m)
        if k:
            return i, k
    return None


def _raise_singular_inv(a, fname="linalg.inv"):
    found = _singular_index(a)
    i, k = found if found else (0, 1)
    raise LinAlgError(
        f"{fname}: {_batch_prefix(a, i)}The diagonal element {k} is zero, the inversion could not be completed "
        "because the input matrix is singular."
    )


def _identity_like(t: Tensor) -> Tensor:
    n = t._data.shape[-1]
    return wrap(xp.eye(n, dtype=t._data.dtype))


def _tril_mask(n: int, dtype, k: int = 0) -> Tensor:
    return wrap(xp.tril(xp.ones((n, n), dtype=dtype), k))


def _diag_embed(v: Tensor) -> Tensor:
    """(..., n) -> (..., n, n) with ``v`` on the diagonal (differentiable: a product with the identity)."""
    n = v._data.shape[-1]
    return v.unsqueeze(-1) * wrap(xp.eye(n, dtype=v._data.dtype))


def _is_zero(g) -> bool:
    """An output gradient the engine filled with zeros: treated as torch's undefined gradient."""
    return g is None or not xp.any(g._data)


# ------------------------------------------------------------------ multi-output nodes that save their outputs


def _apply_saving_outputs(op, inputs: tuple, params: tuple = (), check_inputs: bool = True) -> tuple:
    """apply_multi, and save the outputs' arrays on the node (Note [No reference cycles]).

    The inputs stay saved too (see ``_saved_outputs``); with ``check_inputs=False`` an
    in-place change to them is not an error, as for torch's ops that save only outputs.
    """
    from ..autograd.graph import SavedResult
    from .registry import apply_multi

    outs = apply_multi(op, inputs, params)
    node = next((o._grad_fn for o in outs if o._grad_fn is not None), None)
    if node is not None:
        node._saved = tuple(inputs) + tuple(SavedResult(o._data, o._vc) for o in outs)
        node._versions = [
            t._vc[0] if check_inputs and isinstance(t, Tensor) else None for t in inputs
        ] + [0] * len(outs)
    return outs


def _saved_outputs(node, count: int) -> list:
    """The node's saved outputs rebuilt as tensors whose grad_fn is the node.

    A node made by plain ``apply_multi`` (forward-mode AD derives tangents that way) saved
    only its inputs: the outputs are then recomputed from them (the forward is deterministic).
    """
    saved = node.saved()
    n_in = len(node.next_functions)
    if len(saved) == n_in + count:
        arrays = [sr._data for sr in saved[n_in:]]
    else:
        arrays = type(node).forward(*[t._data if isinstance(t, Tensor) else t for t in saved[:n_in]], *node._params)
    out = []
    for i, arr in enumerate(arrays):
        t = wrap(arr, True, node)
        t._output_nr = i
        out.append(t)
    return out


# ================================================================== inverse, determinants, solve


@register
class LinalgInvExBackward0(Op):
    """linalg.inv(A) of (..., n, n): derivatives.yaml (linalg_inv_ex): dA = -inv^H grad inv^H
    (Giles 2008, "Collected matrix derivative results", sec. 2.2.1)."""

    save_result = True

    @staticmethod
    def forward(a):
        if a.size == 0:
            return xp.empty(a.shape, dtype=a.dtype)
        try:
            return xp.linalg.inv(a).astype(a.dtype, copy=False)
        except xp.linalg.LinAlgError:
            _raise_singular_inv(a)

    def backward(self, g):
        inv_t = self.saved_result().mT
        return (-(matmul(inv_t, matmul(g, inv_t))),)


def inv(a: Tensor) -> Tensor:
    """Inverse of a square matrix or a batch of them (..., n, n).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
        LinAlgError: a singular matrix (torch's message, naming the zero pivot and batch element).
    """
    _check_matrix(a, "linalg.inv")
    return apply(LinalgInvExBackward0, (a,))


def inv_ex(a: Tensor, *, check_errors: bool = False):
    """linalg.inv_ex: (inverse, info); info > 0 names the zero pivot of a singular matrix instead of raising."""
    from collections import namedtuple

    _check_matrix(a, "linalg.inv_ex")
    d = a._data
    info = xp.zeros(d.shape[:-2], dtype=xp.int32)
    flat = info.reshape(-1)
    mats = d.reshape((-1,) + d.shape[-2:])
    for i, m in enumerate(mats):
        flat[i] = _first_zero_pivot(m) if m.size else 0
    if xp.any(info):
        if check_errors:
            _raise_singular_inv(d, "linalg.inv_ex")
        with _errstate():
            out = wrap(_inv_with_nans(d))
        return namedtuple("linalg_inv_ex", ["inverse", "info"])(out, wrap(info))
    return namedtuple("linalg_inv_ex", ["inverse", "info"])(apply(LinalgInvExBackward0, (a,)), wrap(info))


def _errstate():
    return xp.errstate(all="ignore")


def _inv_with_nans(d):
    out = xp.empty_like(d)
    fo, fi = out.reshape((-1,) + d.shape[-2:]), d.reshape((-1,) + d.shape[-2:])
    for i, m in enumerate(fi):
        try:
            fo[i] = xp.linalg.inv(m)
        except xp.linalg.LinAlgError:
            fo[i] = xp.nan
    return out


@register
class LinalgDetBackward0(Op):
    """linalg.det(A) of (..., n, n) -> (...).

    Gradient (derivatives.yaml: linalg_det_backward): grad * det * A^{-H} for an invertible
    A; where some matrix is singular, the adjugate computed from an SVD (torch's singular
    branch: U diag(prod_{j != i} S_j) V^H times det(U) det(V^H)); that branch is treated
    as a constant under create_graph.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a):
        return xp.asarray(xp.linalg.det(a), dtype=a.dtype)

    def backward(self, g):
        a, _ = self.saved()
        det = self.saved_result()
        if a._data.size and xp.any(det._data == 0):
            return (g.unsqueeze(-1).unsqueeze(-1) * wrap(_adjugate_t(a._data)),)
        return ((g * det).unsqueeze(-1).unsqueeze(-1) * inv(a).mT,)


def _adjugate_t(a):
    """The transposed adjugate (cofactor matrix) of each matrix, via the SVD (valid when singular)."""
    u, s, vh = xp.linalg.svd(a)
    n = s.shape[-1]
    others = xp.stack([xp.prod(xp.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1) if n else s
    alpha = xp.linalg.det(u) * xp.linalg.det(vh)
    return ((u * (alpha[..., None] * others)[..., None, :]) @ vh).astype(a.dtype)


def det(a: Tensor) -> Tensor:
    """Determinant of (..., n, n) -> (...).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
    """
    _check_matrix(a, "linalg.det")
    return apply(LinalgDetBackward0, (a,))


@register
class LinalgSlogdetBackward0(Op):
    """linalg.slogdet(A) -> (sign, logabsdet), both (...).

    Gradient (derivatives.yaml: slogdet_backward, real case): the sign gets none;
    d/dA = grad_logabsdet * A^{-H} (Giles 2008, sec. 2.2.1).
    """

    save_inputs = True

    @staticmethod
    def forward(a):
        sign, logabs = xp.linalg.slogdet(a)
        return xp.asarray(sign, dtype=a.dtype), xp.asarray(logabs, dtype=a.dtype)

    def backward(self, g_sign, g_logabs):
        a = self.saved()[0]
        return (g_logabs.unsqueeze(-1).unsqueeze(-1) * inv(a).mT,)


def slogdet(a: Tensor):
    """(sign, logabsdet) of (..., n, n); a singular matrix gives (0, -inf).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
    """
    from collections import namedtuple

    _check_matrix(a, "linalg.slogdet")
    sign, logabs = _apply_saving_outputs(LinalgSlogdetBackward0, (a,))
    return namedtuple("slogdet", ["sign", "logabsdet"])(sign, logabs)


def logdet(a: Tensor) -> Tensor:
    """log(det(A)): nan for a negative determinant (as torch: where(sign == -1, nan, logabsdet))."""
    from .pointwise import where_

    _check_matrix(a, "linalg.slogdet")
    sign, logabs = slogdet(a)
    return where_(wrap(sign._data == -1), float("nan"), logabs)


@register
class LinalgSolveExBackward0(Op):
    """linalg.solve(A, B, left=True): X with A X = B (or X A = B); A (*, n, n), B (*, n, k) or a vector.

    Gradient (derivatives.yaml: linalg_solve_backward): gB = A^{-H} gX (left) or
    gX A^{-H} (right), gA = -gB X^H (left) or -X^H gB (right); in the vector case
    gA = -outer(gB, X). Batch dims broadcast; the engine sums gradients back.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, b, vector, left):
        if not left:
            a = xp.swapaxes(a, -1, -2)
            b = b if vector else xp.swapaxes(b, -1, -2)
        bm = b[..., None] if vector else b
        batch = xp.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        bm = xp.broadcast_to(bm, batch + bm.shape[-2:])
        if a.size == 0 or bm.size == 0:
            x = xp.zeros(bm.shape, dtype=a.dtype)
        else:
            try:
                x = xp.linalg.solve(a, bm)
            except xp.linalg.LinAlgError:
                found = _singular_index(a)
                raise LinAlgError(
                    f"torch.linalg.solve: {_batch_prefix(a, found[0] if found else 0)}The solver failed because the "
                    "input matrix is singular."
                ) from None
        x = x[..., 0] if vector else x
        if not left and not vector:
            x = xp.swapaxes(x, -1, -2)
        return x.astype(a.dtype, copy=False)

    def backward(self, g):
        a = self.saved()[0]
        vector, left = self._params
        x = self.saved_result()
        gb = solve(a.mT, g, left=left)
        ga = None
        if self.needs_input_grad(0):
            if vector:
                ga = -(gb.unsqueeze(-1) * x.unsqueeze(-2)) if left else -(x.unsqueeze(-1) * gb.unsqueeze(-2))
            else:
                ga = -matmul(gb, x.mT) if left else -matmul(x.mT, gb)
        return ga, (gb if self.needs_input_grad(1) else None)


def solve(a: Tensor, b: Tensor, *, left: bool = True, out=None) -> Tensor:
    """Solve A X = B (left) or X A = B for X; batch dims broadcast.

    B is a vector (batch of vectors) when it is 1-D or has A's shape without its last dim.

    Raises:
        RuntimeError: non-square A, incompatible shapes, mixed dtypes (torch's messages).
        LinAlgError: a singular A.
    """
    _check_matrix(a, "linalg.solve")
    ad, bd = a._data, b._data
    if ad.dtype != bd.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type {_type_name(ad.dtype)} and "
            f"B of type {_type_name(bd.dtype)} instead"
        )
    vector = bd.ndim == 1 or (bd.ndim == ad.ndim - 1 and bd.shape == ad.shape[:-1])
    n = ad.shape[-1]
    bshape = (bd.shape[-1], 1) if vector else bd.shape[-2:]
    rows = bshape[0] if left else bshape[1]
    if rows != n or (not vector and bd.ndim < 2):
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {bshape[0]}x{bshape[1]})"
        )
    try:
        xp.broadcast_shapes(ad.shape[:-2], bd.shape[:-1] if vector else bd.shape[:-2])
    except ValueError:
        raise RuntimeError(_broadcast_error(bd.shape[:-1] if vector else bd.shape[:-2], ad.shape[:-2])) from None
    return apply(LinalgSolveExBackward0, (a, b), (vector, left))


# ================================================================== decompositions


def _raise_not_pd(a, fname, upper=False):
    flat = a.reshape((-1,) + a.shape[-2:])
    for i, m in enumerate(flat):
        m = m.T if upper else m
        for k in range(1, m.shape[0] + 1):
            try:
                xp.linalg.cholesky(m[:k, :k])
            except xp.linalg.LinAlgError:
                raise LinAlgError(
                    f"{fname}: {_batch_prefix(a, i)}The factorization could not be completed because the input is not "
                    f"positive-definite (the leading minor of order {k} is not positive-definite)."
                ) from None
    raise LinAlgError(f"{fname}: The factorization could not be completed because the input is not positive-definite.")


@register
class LinalgCholeskyExBackward0(Op):
    """linalg.cholesky(A, upper=False): L (lower, A = L L^H) or U (upper, A = U^H U) of (..., n, n).

    Reads only the lower (upper) triangle of A. Gradient (FunctionsManual cholesky_backward,
    after Murray 2016, arXiv:1602.07527): with P = tril(L^H gL),
    gA = L^{-H} (P + tril(P, -1)^H) / 2 L^{-1}, a symmetric matrix.
    """

    save_result = True

    @staticmethod
    def forward(a, upper):
        if a.size == 0:
            return xp.zeros(a.shape, dtype=a.dtype)
        m = xp.swapaxes(a, -1, -2) if upper else a
        # NumPy reads the lower triangle; torch's upper=True reads the upper one.
        try:
            low = xp.linalg.cholesky(m)
        except xp.linalg.LinAlgError:
            _raise_not_pd(a, "linalg.cholesky", upper)
        return (xp.swapaxes(low, -1, -2) if upper else low).astype(a.dtype, copy=False)

    def backward(self, g):
        out = self.saved_result()
        upper = self._params[0]
        low, gl = (out.mT, g.mT) if upper else (out, g)
        n = low._data.shape[-1]
        p = matmul(low.mT, gl) * _tril_mask(n, low._data.dtype)
        phi = (p + (p * _tril_mask(n, low._data.dtype, -1)).mT) * 0.5
        linv = inv(low)
        return (matmul(linv.mT, matmul(phi, linv)),)


def cholesky(a: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """Cholesky factor of a symmetric positive-definite (..., n, n).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input.
        LinAlgError: a matrix that is not positive-definite (naming the failing leading minor).
    """
    _check_matrix(a, "linalg.cholesky")
    return apply(LinalgCholeskyExBackward0, (a,), (upper,))


@register
class LinalgQrBackward0(Op):
    """linalg.qr(A, mode) of (..., m, n) -> (Q, R).

    Gradient for mode 'reduced' (or m <= n), after Seeger et al. 2017 / Liao et al. 2019
    (PRX 9, 031041), the formula of torch's linalg_qr_backward: for m >= n, with
    M = R gR^H - gQ^H Q, gA = (gQ + Q copyltu(M)) R^{-H}, where copyltu copies the lower
    triangle of M onto its upper one. For m < n, A = [X | Y], R = [U | V]:
    gY = Q gV and gX is the square case with gQ + Y gV^H and gU.

    Raises (in backward):
        RuntimeError: mode 'r' (Q not computed) or mode 'complete' with m > n (torch's messages).
    """

    save_inputs = True

    @staticmethod
    def forward(a, mode):
        m, n = a.shape[-2:]
        k = min(m, n)
        if a.size == 0:
            qs = (m, m) if mode == "complete" else (m, k)
            rs = (m, n) if mode == "complete" else (k, n)
            q = xp.zeros(a.shape[:-2] + qs, dtype=a.dtype)
            if mode != "r" and q.size:
                q[...] = xp.eye(*qs, dtype=a.dtype)
            return (q if mode != "r" else xp.zeros((0,), a.dtype)), xp.zeros(a.shape[:-2] + rs, dtype=a.dtype)
        if mode == "r":
            r = xp.linalg.qr(a, mode="r")
            return xp.zeros((0,), dtype=a.dtype), r.astype(a.dtype, copy=False)
        q, r = xp.linalg.qr(a, mode=mode)
        return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)

    def backward(self, gq, gr):
        mode = self._params[0]
        q, r = _saved_outputs(self, 2)
        m, n = q._data.shape[-2], r._data.shape[-1]
        if mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
            )
        if mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if m >= n:
            return (_qr_backward_tall(gq, gr, q, r),)
        x_cols = r[..., :, :m]
        gu, gv = gr[..., :, :m], gr[..., :, m:]
        y = matmul(q, r[..., :, m:])  # A's right block, from the outputs (torch saves only Q and R)
        gx = _qr_backward_tall(gq + matmul(y, gv.mT), gu, q, x_cols)
        gy = matmul(q, gv)
        return (_cat_last(gx, gy),)


def _cat_last(a: Tensor, b: Tensor) -> Tensor:
    """Concatenate along the last dim with differentiable ops (zero-padding and a sum)."""
    na, nb = a._data.shape[-1], b._data.shape[-1]
    ea = wrap(xp.eye(na, na + nb, dtype=a._data.dtype))
    eb = wrap(xp.eye(nb, na + nb, k=na, dtype=b._data.dtype))
    return matmul(a, ea) + matmul(b, eb)


def _qr_backward_tall(gq: Tensor, gr: Tensor, q: Tensor, r: Tensor) -> Tensor:
    n = r._data.shape[-1]
    dt = r._data.dtype
    mm_ = matmul(r, gr.mT) - matmul(gq.mT, q)
    low = mm_ * _tril_mask(n, dt)
    copyltu = low + (mm_ * _tril_mask(n, dt, -1)).mT
    b = gq + matmul(q, copyltu)
    # b R^{-H}: solve R X^H = b^H
    return solve(r, b.mT).mT


def qr(a: Tensor, mode: str = "reduced"):
    """QR decomposition of (..., m, n): mode 'reduced' (Q (m, k), R (k, n)), 'complete' (Q (m, m)) or 'r'.

    Raises:
        RuntimeError: fewer than 2 dims, non-float input or an unknown mode.
    """
    from collections import namedtuple

    if mode not in ("reduced", "r", "complete"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    _check_matrix(a, "linalg.qr", square=False)
    q, r = _apply_saving_outputs(LinalgQrBackward0, (a,), (mode,), check_inputs=False)
    return namedtuple("qr", ["Q", "R"])(q, r)


@register
class LinalgEighBackward0(Op):
    """linalg.eigh(A, UPLO) of a symmetric (..., n, n) -> (eigenvalues ascending, eigenvectors).

    Reads one triangle of A. Gradient (FunctionsManual linalg_eig_backward, hermitian case):
    gA = V (diag(gL) + skew(V^H gV) / E) V^H with skew(X) = (X - X^H) / 2 and
    E_ij = L_j - L_i off the diagonal; without a gradient for V, V diag(gL) V^H.
    """

    save_inputs = True

    @staticmethod
    def forward(a, uplo):
        if a.size == 0:
            return xp.zeros(a.shape[:-1], dtype=a.dtype), xp.zeros(a.shape, dtype=a.dtype)
        w, v = xp.linalg.eigh(a, UPLO=uplo)
        return w.astype(a.dtype, copy=False), v.astype(a.dtype, copy=False)

    def backward(self, gl, gv):
        lam, v = _saved_outputs(self, 2)
        if _is_zero(gv):
            return (matmul(v * gl.unsqueeze(-2), v.mT),)
        vhgv = matmul(v.mT, gv)
        skew = (vhgv - vhgv.mT) * 0.5
        n = lam._data.shape[-1]
        eye = xp.eye(n, dtype=lam._data.dtype)
        e = lam.unsqueeze(-2) - lam.unsqueeze(-1) + wrap(eye)
        inner = skew / e
        if not _is_zero(gl):
            inner = inner + _diag_embed(gl)
        return (matmul(v, matmul(inner, v.mT)),)


def _check_eigh_input(a: Tensor) -> None:
    _check_matrix(a, "linalg.eigh", floating=False)
    if a._data.dtype.kind not in "fc":
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{_type_name(a._data.dtype)}\'')


def eigh(a: Tensor, UPLO: str = "L"):  # noqa: N803 - torch's name
    """Eigen-decomposition of a symmetric (..., n, n): (eigenvalues (..., n) ascending, eigenvectors (..., n, n)).

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-float input, or UPLO not 'L'/'U'.
    """
    from collections import namedtuple

    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_eigh_input(a)
    w, v = _apply_saving_outputs(LinalgEighBackward0, (a,), (UPLO,), check_inputs=False)
    return namedtuple("eigh", ["eigenvalues", "eigenvectors"])(w, v)


def eigvalsh(a: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803 - torch's name
    """Eigenvalues (ascending) of a symmetric (..., n, n); grad_fn LinalgEighBackward0 as in torch."""
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_eigh_input(a)
    return _apply_saving_outputs(LinalgEighBackward0, (a,), (UPLO,), check_inputs=False)[0]


@register
class LinalgSvdBackward0(Op):
    """linalg.svd(A, full_matrices) of (..., m, n) -> (U, S, Vh), S descending.

    Gradient (FunctionsManual svd_backward; Townsend 2016, "Differentiating the singular
    value decomposition"), on the first k = min(m, n) columns of U / rows of Vh: with
    E_ij = S_j^2 - S_i^2 (1 on the diagonal), skew(X) = X - X^H,
    gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS)] V^H, plus
    (I - U U^H) gU S^{-1} V^H when m > n, or U S^{-1} gVh (I - V V^H) when m < n.
    Without gradients for U and Vh: U diag(gS) V^H.
    """

    save_inputs = True

    @staticmethod
    def forward(a, full_matrices):
        m, n = a.shape[-2:]
        k = min(m, n)
        if a.size == 0:
            b = a.shape[:-2]
            um, vn = (m, n) if full_matrices else (k, k)
            u = xp.zeros(b + (m, um), dtype=a.dtype)
            vh = xp.zeros(b + (vn, n), dtype=a.dtype)
            if full_matrices:
                u[...] = xp.eye(m, dtype=a.dtype)
                vh[...] = xp.eye(n, dtype=a.dtype)
            return u, xp.zeros(b + (k,), dtype=a.dtype), vh
        u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
        return u.astype(a.dtype, copy=False), s.astype(a.dtype, copy=False), vh.astype(a.dtype, copy=False)

    def backward(self, gu, gs, gvh):
        u, s, vh = _saved_outputs(self, 3)
        k = s._data.shape[-1]
        if self._params[0]:
            u, vh = u[..., :, :k], vh[..., :k, :]
            gu = None if _is_zero(gu) else gu[..., :, :k]
            gvh = None if _is_zero(gvh) else gvh[..., :k, :]
        else:
            gu = None if _is_zero(gu) else gu
            gvh = None if _is_zero(gvh) else gvh
        m, n = u._data.shape[-2], vh._data.shape[-1]
        if gu is None and gvh is None:
            return (matmul(u * gs.unsqueeze(-2), vh),)
        dt = s._data.dtype
        s2 = s * s
        e = s2.unsqueeze(-2) - s2.unsqueeze(-1) + wrap(xp.eye(k, dtype=dt))
        ga = None
        if gu is not None:
            uhgu = matmul(u.mT, gu)
            ga = (uhgu - uhgu.mT) * s.unsqueeze(-2)
        if gvh is not None:
            vhgv = matmul(vh, gvh.mT)
            term = s.unsqueeze(-1) * (vhgv - vhgv.mT)
            ga = term if ga is None else ga + term
        ga = ga / e
        if not _is_zero(gs):
            ga = ga + _diag_embed(gs)
        if m > n and gu is not None:
            ga = matmul(u, ga)
            gusinv = gu / s.unsqueeze(-2)
            ga = ga + gusinv - matmul(u, matmul(u.mT, gusinv))
            return (matmul(ga, vh),)
        if m < n and gvh is not None:
            ga = matmul(ga, vh)
            sinvgvh = gvh / s.unsqueeze(-1)
            ga = ga + sinvgvh - matmul(matmul(sinvgvh, vh.mT), vh)
            return (matmul(u, ga),)
        return (matmul(u, matmul(ga, vh)),)


def svd(a: Tensor, full_matrices: bool = True, *, driver=None):
    """Singular value decomposition of (..., m, n): (U, S, Vh) with S (..., k) descending, k = min(m, n).

    Raises:
        RuntimeError: fewer than 2 dims or non-float input.
    """
    from collections import namedtuple

    _check_matrix(a, "linalg.svd", square=False)
    u, s, vh = _apply_saving_outputs(LinalgSvdBackward0, (a,), (full_matrices,), check_inputs=False)
    return namedtuple("svd", ["U", "S", "Vh"])(u, s, vh)


def svdvals(a: Tensor, *, driver=None) -> Tensor:
    """Singular values (..., k), descending; grad_fn LinalgSvdBackward0 as in torch."""
    _check_matrix(a, "linalg.svd", square=False)
    return _apply_saving_outputs(LinalgSvdBackward0, (a,), (False,), check_inputs=False)[1]


# ------------------------------------------------------------------ matrix norms through singular values


def _ord_text(ord) -> str:
    """An order as torch's message prints it (a C++ double: 3.0 -> 3, inf -> inf)."""
    if isinstance(ord, str):
        return ord
    f = float(ord)
    if f != f or f in (float("inf"), float("-inf")):
        return str(f)
    return str(int(f)) if f == int(f) else repr(f)


def _matrix_norm_checks(A: Tensor, dim, dtype) -> tuple:
    """torch's _linalg_matrix_norm_checks, in its order: A's dims and dtype, dim, the dtype argument.

    Returns the two wrapped dims.
    """
    from .._dtype import promote_types, scalar_type_name, to_numpy
    from .._tensor import _wrap_dim

    _check_matrix(A, "linalg.matrix_norm", square=False)
    dim = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    nd = A._data.ndim
    d0, d1 = _wrap_dim(dim[0], nd), _wrap_dim(dim[1], nd)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if dtype is not None:
        npd = to_numpy(dtype)
        if npd.kind not in "fc":
            raise RuntimeError(
                f"linalg.matrix_norm: dtype should be floating point or complex, but got {scalar_type_name(npd)}"
            )
        own = A._data.dtype
        if promote_types(own, npd) != npd:
            raise RuntimeError(
                f"linalg.matrix_norm: the dtype of the input ({scalar_type_name(own)}) should be convertible "
                f"without narrowing to the specified dtype ({scalar_type_name(npd)})"
            )
    return d0, d1


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None) -> Tensor:
    """torch.linalg.matrix_norm(A, ord, dim, keepdim, dtype) of (..., m, n) matrices spread over ``dim``.

    ord 'nuc' (sum of singular values), 2 (largest), -2 (smallest) are computed as torch's
    composite: the two dims are moved to the end (PermuteBackward0), ``svdvals``
    (LinalgSvdBackward0), then sum / amax / amin over the last dim (SumBackward1 /
    AmaxBackward0 / AminBackward0); with keepdim the result is unsqueezed and permuted back.
    Their gradients are those of the parts (svd_backward with only gS: U diag(gS) V^H; amax
    splits ties evenly). 'fro', 1, -1, inf, -inf go to the vector-norm composites of the
    reduction family. With ``dtype`` the input is cast first.

    Raises:
        RuntimeError: an unsupported ord (checked first, as torch), fewer than 2 dims, an
            integer input, ``dim`` not 2 distinct dims, a non-float or narrowing ``dtype``;
            ord 2 on matrices with no elements gives zeros (not recorded) as torch, ord -2 the
            error of ``amin`` on an empty dim.
        IndexError: a dim out of range.
    """
    from . import reduction as red
    from .shape import permute, to

    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif abs(float(ord)) not in (1.0, 2.0, float("inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {_ord_text(ord)} not supported.")
    d0, d1 = _matrix_norm_checks(A, dim, dtype)
    if ord not in ("nuc", 2, -2):
        return red.matrix_norm(A, ord, (d0, d1), keepdim, dtype=dtype)
    x = to(A, dtype) if dtype is not None else A
    nd = A._data.ndim
    perm = [i for i in range(nd) if i not in (d0, d1)] + [d0, d1]
    s = svdvals(permute(x, *perm))
    if ord == "nuc":
        r = red.sum(s, -1, keepdim)
    elif ord == 2 and s._data.shape[-1] == 0:
        # the largest of no singular values: torch returns zeros, not recorded
        shape = s._data.shape[:-1] + ((1,) if keepdim else ())
        r = wrap(xp.zeros(shape, dtype=s._data.dtype))
    else:
        r = (red.amax if ord == 2 else red.amin)(s, -1, keepdim)
    if keepdim:
        inverse = [0] * nd
        for i, d in enumerate(perm):
            inverse[d] = i
        r = permute(r.unsqueeze(-1), *inverse)
    return r


def linalg_norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """torch.linalg.norm: a matrix norm when ord is given with a 2-tuple dim (or no dim and a 2-D
    input), or when ord is a string; a vector norm (ord 2 by default) otherwise.

    Raises:
        RuntimeError: ``dim`` of length other than 1 or 2; ord given without dim on an input
            that is not 1-D or 2-D (torch's texts).
    """
    from . import reduction as red

    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None and A._data.ndim not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A._data.ndim}D."
        )
    if isinstance(ord, str) or (ord is not None and (len(dim) == 2 if dim is not None else A._data.ndim == 2)):
        return matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    return red.vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def norm(a: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """torch.norm / Tensor.norm: 'nuc' is a matrix norm over ``dim`` (all dims when None, so only a
    2-D input passes the 2-tuple check, as in torch); everything else is the reduction family's."""
    from . import reduction as red

    if p == "nuc":
        if isinstance(dim, int):
            dim = (dim,)
        return matrix_norm(a, "nuc", tuple(range(a._data.ndim)) if dim is None else dim, keepdim, dtype=dtype)
    return red.norm(a, p, dim, keepdim, dtype=dtype)


def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None) -> Tensor:
    """torch.linalg.matrix_rank: the number of singular values (|eigenvalues| when ``hermitian``)
    above max(atol, rtol * largest), int64 of shape A.shape[:-2]; never differentiable.

    Tolerances as torch: ``tol`` is atol with rtol 0; with neither given rtol is eps * max(m, n);
    with only a positive atol, rtol is 0. ``atol`` / ``rtol`` may be tensors broadcast over the batch.

    Raises:
        RuntimeError: fewer than 2 dims, or an integer input (torch's texts).
    """
    if A._data.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if tol is not None:
        atol, rtol = tol, 0.0
    d = A._data
    if d.dtype.kind not in "fc":
        # torch fails where it first needs a float: the default rtol's eps, else the decomposition
        if rtol is None:
            raise RuntimeError("This function doesn't handle types other than float and double")
        if d.size:
            if hermitian:
                raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for \'{_type_name(d.dtype)}\'')
            raise RuntimeError(f"linalg.svd: Expected a floating point or complex tensor as input. Got {_type_name(d.dtype)}")
    m, n = d.shape[-2:]

    def arr(v):
        return v._data if isinstance(v, Tensor) else v

    if d.size == 0:
        return wrap(xp.zeros(d.shape[:-2], dtype=xp.int64))
    if hermitian:
        s = xp.abs(xp.linalg.eigvalsh(d)).astype(d.dtype, copy=False)
    else:
        s = xp.linalg.svd(d, compute_uv=False).astype(d.dtype, copy=False)
    real = d.real.dtype if d.dtype.kind == "c" else d.dtype
    if atol is None and rtol is None:
        rtol = xp.finfo(real).eps * max(m, n)
    elif rtol is None:
        a = xp.asarray(arr(atol))
        rtol = xp.where(a > 0, 0.0, xp.finfo(real).eps * max(m, n))
    atol = 0.0 if atol is None else arr(atol)
    smax = s.max(axis=-1) if s.shape[-1] else xp.zeros(s.shape[:-1], dtype=s.dtype)
    limit = xp.maximum(xp.asarray(atol, dtype=real), xp.asarray(rtol, dtype=real) * smax)
    return wrap(xp.asarray((s > xp.asarray(limit)[..., None]).sum(axis=-1), dtype=xp.int64))


def torch_svd(a: Tensor, some: bool = True, compute_uv: bool = True):
    """torch.svd (deprecated form): (U, S, V) with V = Vh^H."""
    from collections import namedtuple

    u, s, vh = svd(a, full_matrices=not some)
    return namedtuple("svd", ["U", "S", "V"])(u, s, vh.mT)


@register
class LinalgPinvBackward0(Op):
    """linalg.pinv(A, atol, rtol, hermitian) of (..., m, n) -> (..., n, m), through the SVD.

    Singular values <= max(atol, rtol * S_max) count as zero; rtol defaults to
    eps * max(m, n) when neither tolerance is given. Gradient (FunctionsManual
    pinv_backward; Golub & Pereyra 1973, valid where the rank of A is locally constant),
    arranged as torch does to keep the products small: with P = pinv(A), g^H the
    conjugate-transposed output gradient, and for m <= n K = g^H P:
    gA = -(P K)^H + K P^H - A P K P^H + P^H P (g^H - K A); for m > n, K = P g^H:
    gA = -(K P)^H + (g^H - A K) P P^H + P^H K - P^H K P A.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, atol, rtol, hermitian):
        m, n = a.shape[-2:]
        if a.size == 0:
            return xp.zeros(a.shape[:-2] + (n, m), dtype=a.dtype)
        if hermitian:
            w, v = xp.linalg.eigh(a)
            s = xp.abs(w)
            cut = xp.maximum(atol, rtol * s.max(axis=-1, keepdims=True))
            winv = xp.where(s > cut, 1 / xp.where(w == 0, 1, w), 0)
            return ((v * winv[..., None, :]) @ xp.swapaxes(v, -1, -2)).astype(a.dtype)
        u, s, vh = xp.linalg.svd(a, full_matrices=False)
        cut = xp.maximum(atol, rtol * s[..., :1]) if s.shape[-1] else 0
        sinv = xp.where(s > cut, 1 / xp.where(s == 0, 1, s), 0)
        return (xp.swapaxes(vh, -1, -2) * sinv[..., None, :]) @ xp.swapaxes(u, -1, -2)

    def backward(self, g):
        a, _ = self.saved()
        p = self.saved_result()
        m, n = a._data.shape[-2:]
        ph, gh = p.mT, g.mT
        if m <= n:
            k = matmul(gh, p)
            kph = matmul(k, ph)
            return (
                -matmul(p, k).mT + kph - matmul(matmul(a, p), kph) + matmul(matmul(ph, p), gh - matmul(k, a)),
            )
        k = matmul(p, gh)
        phk = matmul(ph, k)
        return (
            -matmul(k, p).mT + matmul(matmul(gh - matmul(a, k), p), ph) + phk - matmul(matmul(phk, p), a),
        )


def pinv(a: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """Moore-Penrose pseudo-inverse of (..., m, n) -> (..., n, m).

    Raises:
        RuntimeError: fewer than 2 dims or non-float input.
    """
    d = a._data
    if d.ndim < 2 or d.dtype.kind not in "fc":
        dims = ", ".join(map(str, d.shape))
        raise RuntimeError(
            f"linalg.pinv({_type_name(d.dtype)}{{[{dims}]}}): expected a tensor with 2 or more dimensions of float, "
            "double, cfloat or cdouble types"
        )
    atol_v = 0.0 if atol is None else float(atol)
    if rtol is None:
        rtol_v = float(xp.finfo(d.dtype).eps) * max(d.shape[-2:]) if (atol is None or atol_v <= 0) else 0.0
    else:
        rtol_v = float(rtol)
    return apply(LinalgPinvBackward0, (a,), (atol_v, rtol_v, hermitian))


def pinverse(a: Tensor, rcond: float = 1e-15) -> Tensor:
    """torch.pinverse: linalg.pinv with rtol = rcond."""
    return pinv(a, rtol=rcond)


def matrix_power(a: Tensor, n: int) -> Tensor:
    """A^n for (..., m, m) and an integer n, composed as torch composes it (matmuls by repeated
    squaring, linalg.inv first for n < 0, a clone for n = 1, the identity copied in for n = 0).

    Raises:
        RuntimeError: fewer than 2 dims or non-square input.
        LinAlgError: n < 0 and a singular matrix.
    """
    d = a._data
    if d.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if d.shape[-1] != d.shape[-2]:
        raise RuntimeError(
            f"linalg.matrix_power: A must be batches of square matrices, but they are {d.shape[-2]} by "
            f"{d.shape[-1]} matrices"
        )
    if n == 0:
        from .inplace import copy_

        eye = wrap(xp.broadcast_to(xp.eye(d.shape[-1], dtype=d.dtype), d.shape))
        return copy_(a.clone(), eye)
    if n < 0:
        a = inv(a)
        n = -n
        if n == 1:
            return a
    elif n == 1:
        return a.clone()
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    z = result = None
    while n > 0:
        bit = n % 2
        n //= 2
        z = a if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


# ================================================================== einsum
# Composed of dyngrad ops exactly as torch composes it (aten/src/ATen/native/Linear.cpp,
# without a contraction path: left to right), so the graph, and the output's grad_fn,
# match torch's: each operand's repeated labels become diagonals, missing labels size-1
# dims, and all operands are permuted to (output labels, contracted labels); pairs are
# multiplied (MulBackward0) or, when they share contracted labels, reduced through one
# bmm; a final view drops the contracted dims (ViewBackward0), or with one operand a
# sum does (SumBackward1).

_ELLIPSIS = 52
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list) -> Tensor:
    """(left * right).sum(sum_dims, keepdim=True) of two operands with equal ndim, through bmm."""
    if not sum_dims:
        return left * right
    ndim = left._data.ndim
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(ndim):
        sl, sr = left._data.shape[i] != 1, right._data.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left._data.shape[i] != right._data.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._data.shape[i]
            elif sl:
                left = left.sum(i, keepdim=True)
            elif sr:
                right = right.sum(i, keepdim=True)
        elif sl and sr:
            if left._data.shape[i] != right._data.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._data.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._data.shape[i]
        else:
            ro.append(i)
            ro_size *= right._data.shape[i]
    out_size = (
        [left._data.shape[d] for d in lro] + [left._data.shape[d] for d in lo] + [1] * len(sum_dims)
        + [right._data.shape[d] for d in ro]
    )
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    left = left.permute(tuple(lperm)).reshape(lro_size, lo_size, sum_size)
    right = right.permute(tuple(rperm)).reshape(lro_size, sum_size, ro_size)
    return bmm(left, right).view(tuple(out_size)).permute(tuple(operm))


def _einsum_parse(equation: str, num_ops: int):
    """Labels (0..51, or _ELLIPSIS) of each operand, and the output part (None when implicit)."""
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = [[] for _ in range(num_ops)]
    ell_in_input = False
    cur = 0
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if ell_in_input:
                raise RuntimeError(f"einsum(): found '.' for operand {cur} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(f"einsum(): found '.' for operand {cur} that is not part of any ellipsis")
            i += 2
            op_labels[cur].append(_ELLIPSIS)
            ell_in_input = True
        elif c == ",":
            cur += 1
            if cur >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
            ell_in_input = False
        elif c != " ":
            if c not in _LETTERS:
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {i} in the equation string, subscripts must be in "
                    "[a-zA-Z]"
                )
            op_labels[cur].append(_LETTERS.index(c))
        i += 1
    if cur != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels, lhs, (None if arrow < 0 else equation[arrow + 2:])


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation (torch.einsum): ``einsum("ij,jk->ik", a, b)`` or with a list of operands.

    Supports implicit outputs, ellipses (broadcast), repeated labels (diagonals) and
    size-1 broadcasting, contracting left to right as torch does without opt_einsum.

    Raises:
        RuntimeError: malformed equations, operand/subscript count mismatches and sizes
            that do not broadcast (torch's messages).
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    num_ops = len(operands)
    op_labels, lhs, rhs = _einsum_parse(equation, num_ops)
    label_count = [0] * 52
    ell_num_dim = 0
    for i, (t, labels) in enumerate(zip(operands, op_labels)):
        ndims = t._data.ndim
        nlabels = len(labels)
        has_ell = _ELLIPSIS in labels
        if has_ell:
            nlabels -= 1
            ell_num_dim = max(ell_num_dim, ndims - nlabels)
        for lab in labels:
            if lab != _ELLIPSIS:
                label_count[lab] += 1
        if (nlabels > ndims) if has_ell else (nlabels != ndims):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) "
                + ("is more than the number of dimensions (" if has_ell else "does not match the number of dimensions (")
                + f"{ndims}) for operand {i}"
                + ("" if has_ell else " and no ellipsis was given")
            )
    perm_index_of = [-1] * 52
    perm_index = 0
    ell_index = 0
    ell_in_output = False
    if rhs is None:
        perm_index = ell_num_dim
        ell_in_output = True
        for lab in range(52):
            if label_count[lab] == 1:
                perm_index_of[lab] = perm_index
                perm_index += 1
    else:
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if ell_in_output:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            elif c != " ":
                if c not in _LETTERS:
                    raise RuntimeError(
                        f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the equation string, "
                        "subscripts must be in [a-zA-Z]"
                    )
                lab = _LETTERS.index(c)
                if not (label_count[lab] > 0 and perm_index_of[lab] == -1):
                    why = (
                        " appears more than once in the output" if perm_index_of[lab] > -1
                        else " does not appear in the equation for any input operand"
                    )
                    raise RuntimeError(f"einsum(): output subscript {c}{why}")
                perm_index_of[lab] = perm_index
                perm_index += 1
            i += 1
    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for lab in range(52):
        if label_count[lab] > 0 and perm_index_of[lab] == -1:
            perm_index_of[lab] = perm_index
            perm_index += 1

    label_size = [1] * 52
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for i, (op, labels) in enumerate(zip(operands, op_labels)):
        permutation = [-1] * perm_index
        dim = 0
        for lab in labels:
            if lab == _ELLIPSIS:
                ndim = operands[i]._data.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op._data.shape[dim]
                    if size != 1:
                        if ell_sizes[j] != 1 and ell_sizes[j] != size:
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size {size} which "
                                f"does not broadcast with previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension"
                            )
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_index_of[lab]] == -1:
                size = op._data.shape[dim]
                if size != 1:
                    if label_size[lab] != 1 and label_size[lab] != size:
                        raise RuntimeError(
                            f"einsum(): subscript {_LETTERS[lab]} has size {size} for operand {i} which does not "
                            f"broadcast with previously seen size {label_size[lab]}"
                        )
                    label_size[lab] = size
                    dim_counts[perm_index_of[lab]] += 1
                permutation[perm_index_of[lab]] = dim
                dim += 1
            else:
                prev = permutation[perm_index_of[lab]]
                if op._data.shape[dim] != op._data.shape[prev]:
                    raise RuntimeError(
                        f"einsum(): subscript {_LETTERS[lab]} is repeated for operand {i} but the sizes don't match, "
                        f"{op._data.shape[dim]} != {op._data.shape[prev]}"
                    )
                op = op.diagonal(0, prev, dim).movedim(-1, prev)
        for k, val in enumerate(permutation):
            if val == -1:
                op = op.unsqueeze(dim)
                permutation[k] = dim
                dim += 1
        ops.append(op.permute(tuple(permutation)))

    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_num_dim, perm_index):
            if a._data.shape[d] != 1 and b._data.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a._data.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b._data.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = a.sum(a_sum, keepdim=True)
        if b_sum:
            b = b.sum(b_sum, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    if perm_index - out_num_dim > 0:
        if num_ops > 1:
            return ops[0].view(tuple(ops[0]._data.shape[:out_num_dim]))
        return ops[0].sum(list(range(out_num_dim, perm_index)))
    return ops[0]


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
# ------------------------------------------------------------------ cdist
def _pairwise_diff(x1, x2):
    """x1[..., i, :] - x2[..., j, :] for every pair: shape (..., r1, r2, m)."""
    return x1[..., :, None, :] - x2[..., None, :, :]


def _cdist_array(x1, x2, p):
    """The p-norm distances between the rows of x1 and x2 (batch dims broadcast), as torch's kernel."""
    diff = xp.abs(_pairwise_diff(x1, x2))
    if p == 0:
        return (diff != 0).sum(-1).astype(x1.dtype)
    if p == 1:
        return diff.sum(-1)
    if p == 2:
        return xp.sqrt((diff * diff).sum(-1))
    if p == xp.inf:
        return diff.max(-1, initial=0).astype(x1.dtype)
    return (diff**p).sum(-1) ** (1.0 / p)


def _cdist_backward_array(g, x1, x2, p, dist):
    """_cdist_backward: the gradient for x1, summed over x2's rows (torch's per-p kernels, with 0 where the
    distance or a coordinate difference is 0)."""
    diff = _pairwise_diff(x1, x2)
    gd = g[..., None]
    d = dist[..., None]
    if p == 0 or diff.size == 0:
        return xp.zeros(xp.broadcast_shapes(x1.shape, diff.shape[:-3] + x1.shape[-2:]), dtype=x1.dtype)
    if p == 1:
        terms = gd * xp.sign(diff)
    elif p < 2:
        ad = xp.abs(diff)
        terms = xp.where((d == 0) | (diff == 0), 0, xp.sign(diff) * ad ** (p - 1) * gd / d ** (p - 1))
    elif p == 2:
        terms = xp.where(d == 0, 0, gd * diff / xp.where(d == 0, 1, d))
    elif p == xp.inf:
        terms = gd * xp.sign(diff) * (xp.abs(diff) == d)
    else:
        terms = xp.where(d == 0, 0, diff * xp.abs(diff) ** (p - 2) * gd / xp.where(d == 0, 1, d) ** (p - 1))
    return terms.sum(-2).astype(x1.dtype, copy=False)


@register
class CdistBackward0(Op):
    """cdist(x1, x2, p) computed directly (p != 2, or few rows): (..., r1, m), (..., r2, m) -> (..., r1, r2).

    Backward (derivatives.yaml, _cdist_forward): x1 gets _cdist_backward(grad, x1, x2, p, result), x2 the
    same with the roles swapped; a CdistBackwardBackward0 node whose own derivative torch does not implement.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(x1, x2, p):
        return _cdist_array(x1, x2, p)

    def backward(self, g):
        x1, x2, res = self.saved()[0], self.saved()[1], self.saved_result()
        p = self._params[0]
        g1 = apply(CdistBackwardBackward0, (g, x1, x2, res), (p, False)) if self.needs_input_grad(0) else None
        g2 = apply(CdistBackwardBackward0, (g, x2, x1, res), (p, True)) if self.needs_input_grad(1) else None
        return g1, g2


@register
class CdistBackwardBackward0(Op):
    """_cdist_backward(grad, x1, x2, p, cdist) as a node; its derivative is not implemented, as in torch."""

    @staticmethod
    def forward(g, x1, x2, dist, p, swapped):
        if swapped:  # the gradient for x2: the distance matrix seen from x2's rows
            g, dist = xp.swapaxes(g, -1, -2), xp.swapaxes(dist, -1, -2)
        return _cdist_backward_array(g, x1, x2, p, dist)

    def backward(self, gg):
        raise NotImplementedError("the derivative for '_cdist_backward' is not implemented.")


def _euclidean_dist_array(x1, x2):
    """torch's _euclidean_dist: one matrix product of padded operands, clamped at 0, then sqrt."""
    n1 = (x1 * x1).sum(-1, keepdims=True)
    n2 = (x2 * x2).sum(-1, keepdims=True)
    a = xp.concatenate([-2 * x1, n1, xp.ones_like(n1)], -1)
    b = xp.concatenate([x2, xp.ones_like(n2), n2], -1)
    return xp.sqrt(xp.maximum(a @ xp.swapaxes(b, -1, -2), 0))


@register
class EuclideanDistBackward0(Op):
    """_euclidean_dist(x1, x2): cdist's p=2 path for more than 25 rows (or compute_mode 'use_mm_for_euclid_dist').

    Backward (derivatives.yaml: _euclidean_dist_backward): ratio = grad / result (0 where result is 0);
    x1: x1 * ratio.sum(-1) - ratio @ x2; x2: x2 * ratio.sum(-2) - ratio^T @ x1.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(x1, x2):
        return _euclidean_dist_array(x1, x2)

    def backward(self, g):
        from .pointwise import where_

        x1, x2, res = self.saved()[0], self.saved()[1], self.saved_result()
        ratio = where_(res == 0, 0.0, g / res)
        g1 = x1 * ratio.sum(-1, keepdim=True) - ratio.matmul(x2) if self.needs_input_grad(0) else None
        g2 = x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT.matmul(x1) if self.needs_input_grad(1) else None
        return g1, g2


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode="use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """torch.cdist: p-norm distances between the rows of x1 (..., r1, m) and x2 (..., r2, m), batch dims
    broadcast, result (..., r1, r2). p = 2 with more than 25 rows (or compute_mode='use_mm_for_euclid_dist')
    takes torch's matrix-product path (EuclideanDistBackward0 under a ViewBackward0); else CdistBackward0.

    Raises torch's RuntimeErrors for < 2-D inputs, mismatched columns, non-float dtypes, p < 0, mixed float
    dtypes and batch dims that do not broadcast; ValueError for an unknown compute_mode.
    """
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    a, b = x1._data, x2._data
    for name, arr in (("X1", a), ("X2", b)):
        if arr.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {arr.ndim}D")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} X2: {b.shape[-1]}")
    from .._dtype import scalar_type_name

    for name, arr in (("X1", a), ("X2", b)):
        if arr.dtype.kind != "f":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {scalar_type_name(arr.dtype)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if a.dtype != b.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(a.dtype)} but found {scalar_type_name(b.dtype)}"
        )
    from .broadcast import broadcast_shape

    batch = broadcast_shape(a.shape[:-2], b.shape[:-2])
    r1, r2 = a.shape[-2], b.shape[-2]
    mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and (r1 > 25 or r2 > 25)))
    if not mm or a.size == 0 or b.size == 0:  # torch: empty inputs always take _cdist_forward
        return apply(CdistBackward0, (x1, x2), (float(p),))
    m = a.shape[-1]
    if batch:  # the batch dims broadcast and fold into one, as torch's cdist_impl
        x1 = x1.expand(*batch, r1, m).reshape(-1, r1, m)
        x2 = x2.expand(*batch, r2, m).reshape(-1, r2, m)
    return apply(EuclideanDistBackward0, (x1, x2)).view(*batch, r1, r2)


EXPORTS: dict = {
    "cdist": cdist,
    "vdot": vdot,
    "inner": inner,
    "einsum": einsum,
    "addmm": addmm,
    "baddbmm": baddbmm,
    "addbmm": addbmm,
    "addr": addr,
    "addmv": addmv,
    "outer": outer,
    "ger": outer,
    "kron": kron,
    "tensordot": tensordot,
    "trace": trace,
    "cross": cross,
    "inverse": inv,
    "det": det,
    "slogdet": slogdet,
    "logdet": logdet,
    "pinverse": pinverse,
    "matrix_power": matrix_power,
    "svd": torch_svd,
    "norm": norm,
}
TENSOR_METHODS: dict = {
    "vdot": vdot,
    "inner": inner,
    "addmm": addmm,
    "baddbmm": baddbmm,
    "addbmm": addbmm,
    "addr": addr,
    "addmv": addmv,
    "outer": outer,
    "ger": outer,
    "kron": kron,
    "trace": trace,
    "cross": cross,
    "inverse": inv,
    "det": det,
    "slogdet": slogdet,
    "logdet": logdet,
    "pinverse": pinverse,
    "matrix_power": matrix_power,
    "svd": torch_svd,
    "norm": norm,
}
LINALG_EXPORTS: dict = {  # dyngrad.linalg.<name>
    "LinAlgError": LinAlgError,
    "cross": linalg_cross,
    "inv": inv,
    "inv_ex": inv_ex,
    "det": det,
    "slogdet": slogdet,
    "solve": solve,
    "cholesky": cholesky,
    "qr": qr,
    "eigh": eigh,
    "eigvalsh": eigvalsh,
    "svd": svd,
    "svdvals": svdvals,
    "matrix_norm": matrix_norm,
    "matrix_rank": matrix_rank,
    "norm": linalg_norm,
    "pinv": pinv,
    "matrix_power": matrix_power,
    "matmul": matmul,
}
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
