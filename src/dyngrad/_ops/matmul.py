"""Matrix products: dot, vdot, inner, mv, mm, bmm and ``matmul`` (composed as torch composes it), the
products with an added term (addmm, baddbmm, addmv, addr, addbmm), outer, kron, tensordot and einsum.

``matmul`` dispatches on the operands' dims like torch (so ``grad_fn`` names match):
1-D @ 1-D -> DotBackward0; 2-D @ 1-D -> MvBackward0; 2-D @ 2-D -> MmBackward0;
1-D @ 2-D -> mm then SqueezeBackward4; N-D @ 1-D/2-D -> folded into one mv/mm
then UnsafeViewBackward0; otherwise the batch dims broadcast, fold into bmm and
unfold (UnsafeViewBackward0). Gradients (derivatives.yaml): for C = A B,
dA = dC B^H and dB = A^H dC (Note [Complex gradients] in registry.py).
"""


from __future__ import annotations

import sys

from .._backend import xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from ..autograd.forward_ad import STATE as _fw
from . import autocast_policy
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
    "bfloat16": "c10::BFloat16",
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
    if a._data.dtype != b._data.dtype:  # aten checks the dtypes before the sizes
        _check_float_pair(a, b, name)
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


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """torch.linalg.vecdot: sum(x.conj() * y) over ``dim`` (x, y broadcast), composed as torch: vdot for two
    1-D tensors (VdotBackward0), else a product and a sum (SumBackward1).

    Raises:
        RuntimeError: a non-float x, or x and y of different dtypes (torch's texts); broadcast errors.
    """
    if x._data.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got {_type_name(x._data.dtype)}")
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type {_type_name(x._data.dtype)} "
            f"and y of type {_type_name(y._data.dtype)} instead"
        )
    if x._data.ndim == 1 and y._data.ndim == 1:
        return vdot(x, y)
    return (conj(x) * y).sum(dim)


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
    return out.view(a._data.shape[:-1] + b._data.shape[:-1])  # a tuple: view() of no argument is an error


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
    if _fw.autocast:  # Note [CPU autocast]: a lower-precision op
        a, b = autocast_policy.lower_precision_args(a, b)
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
    if _fw.autocast:  # Note [CPU autocast]: a lower-precision op
        a, b = autocast_policy.lower_precision_args(a, b)
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
    if _fw.autocast:  # matmul is a lower-precision op of CPU autocast as a whole, its mv/dot paths too
        a, b = autocast_policy.lower_precision_args(a, b)
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
# (derivatives.yaml: input: grad * beta.conj(); mat1: alpha.conj() * grad @ mat2^H;
# mat2: alpha.conj() * mat1^H @ grad). ``input`` broadcasts to the product's shape; the
# engine sums its gradient back. With beta == 0, ``input`` is ignored (nan and inf
# in it do not propagate) and its gradient is grad * 0, as in torch. alpha and beta
# may be complex for complex tensors; torch converts them to the tensors' type, so a
# complex value with an imaginary part is an error for real ones (_check_scalars).


def _scaled(t: Tensor, c):
    """t * conj(c), skipping a product by 1 (derivatives.yaml's maybe_multiply(grad, alpha.conj()))."""
    return t if c == 1 else t * conj(c)


# The C++ type torch names when a complex alpha / beta does not fit a real tensor's type (addmv and
# addr name c10::Half for half tensors; the matrix products compute half in float).
_SCALAR_TYPE = {"float32": "float", "float64": "double", "float16": "float", "int64": "int64_t", "int32": "int",
                "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t", "bool": "bool"}


def _check_scalars(dtype, *values, half: str = "float") -> None:
    """torch's error for a complex alpha / beta (imaginary part != 0) with real tensors."""
    if dtype.kind == "c":
        return
    for v in values:
        if isinstance(v, complex) and v.imag != 0:
            name = half if dtype == xp.float16 else _SCALAR_TYPE.get(dtype.name, dtype.name)
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")


class _AddProduct(Op):
    save_inputs = True
    profiled_backward = True  # torch's backward calls aten::mm / aten::bmm (registry.Op.profiled_backward)
    complex_grad = True
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
        g1 = _scaled(mul(g, conj(m2.mT)), alpha) if self.needs_input_grad(1) else None
        g2 = _scaled(mul(conj(m1.mT), g), alpha) if self.needs_input_grad(2) else None
        return gi, g1, g2

    def backward_arrays(self, g):
        """The same formulas on arrays (Note [Backward on arrays]); the engine sums gi to input's shape."""
        if g.dtype.kind == "c":
            return self.backward(wrap(g))
        _, m1, m2 = self.saved()
        beta, alpha = self._params
        gi = wrap(g if beta == 1 else g * beta) if self.needs_input_grad(0) else None
        g1 = g2 = None
        if self.needs_input_grad(1):
            g1 = xp.matmul(g, xp.swapaxes(m2._data, -1, -2))
            g1 = wrap(g1 if alpha == 1 else g1 * alpha)
        if self.needs_input_grad(2):
            g2 = xp.matmul(xp.swapaxes(m1._data, -1, -2), g)
            g2 = wrap(g2 if alpha == 1 else g2 * alpha)
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
    if shape == target or (len(shape) == 1 and shape[0] == target[-1]):  # linear's bias: nothing to check
        return
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
    if _fw.autocast:  # Note [CPU autocast]: a lower-precision op
        input, mat1, mat2 = autocast_policy.lower_precision_args(input, mat1, mat2)
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if t._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t._data.ndim}-D tensor")
    if mat1._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({_dims(mat1._data.shape)} and {_dims(mat2._data.shape)})"
        )
    _check_same_dtypes(input, mat1, mat2)
    _check_expandable(input, (mat1._data.shape[0], mat2._data.shape[1]))
    if type(beta) is complex or type(alpha) is complex:  # (linear's hot path passes 1 and 1)
        _check_scalars(mat1._data.dtype, beta, alpha)
    return apply(AddmmBackward0, (input, mat1, mat2), (beta, alpha))


def _check_same_dtypes(input: Tensor, mat1: Tensor, mat2: Tensor) -> None:  # noqa: A002
    """addmm's / addbmm's dtype check, in torch's order: self against mat2 first, then mat1 against mat2."""
    d0, d1, d2 = input._data.dtype, mat1._data.dtype, mat2._data.dtype
    if d0 != d2:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_type_name(d0)} and {_type_name(d2)}")
    if d1 != d2:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_type_name(d1)} and {_type_name(d2)}")


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:  # noqa: A002
    """beta * input + alpha * (batch1 @ batch2) on (b, n, k) @ (b, k, m); ``input`` broadcasts to (b, n, m).

    Raises:
        RuntimeError: batches not 3-D, mismatched sizes or ``input`` not expandable (torch's messages).
    """
    if _fw.autocast:  # Note [CPU autocast]: a lower-precision op
        input, batch1, batch2 = autocast_policy.lower_precision_args(input, batch1, batch2)
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
    d0, d1, d2 = input._data.dtype, batch1._data.dtype, batch2._data.dtype
    if d0 != d1:  # (the C++ type names, as _C_TYPE_NAMES)
        c0, c1, c2 = (_C_TYPE_NAMES.get(d.name, _type_name(d)) for d in (d0, d1, d2))
        raise RuntimeError(f"Input dtypes must be the same, got: input {c0}, batch1: {c1}, batch2: {c2}")
    if d1 != d2:
        raise RuntimeError(f"expected scalar type {_type_name(d1)} but found {_type_name(d2)}")
    _check_scalars(d1, beta, alpha)
    return apply(BaddbmmBackward0, (input, batch1, batch2), (beta, alpha))


@register
class AddmvBackward0(Op):
    """addmv(input, mat, vec, *, beta=1, alpha=1) = beta * input + alpha * mat @ vec; (n, m) @ (m) -> (n).

    derivatives.yaml: input: grad * beta.conj(); mat: alpha.conj() * outer(grad, vec.conj());
    vec: alpha.conj() * mat^H grad.
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(inp, m, v, beta, alpha):
        prod = m @ v
        prod = prod * alpha if alpha != 1 else prod
        return xp.broadcast_to(prod, prod.shape).astype(prod.dtype, copy=True) if beta == 0 else prod + inp * beta

    def backward(self, g):
        _, m, v = self.saved()
        beta, alpha = self._params
        gi = _scaled(g, beta) if self.needs_input_grad(0) else None
        gm = _scaled(g.unsqueeze(1) * conj(v), alpha) if self.needs_input_grad(1) else None
        gv = _scaled(mv(m.mH, g), alpha) if self.needs_input_grad(2) else None
        return gi, gm, gv


@register
class AddrBackward0(Op):
    """addr(input, vec1, vec2, *, beta=1, alpha=1) = beta * input + alpha * outer(vec1, vec2); (n), (m) -> (n, m).

    derivatives.yaml: input: grad * beta.conj(); vec1: alpha.conj() * grad @ vec2.conj();
    vec2: alpha.conj() * grad^T @ vec1.conj().
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(inp, a, b, beta, alpha):
        prod = xp.multiply.outer(a, b)
        prod = prod * alpha if alpha != 1 else prod
        return xp.broadcast_to(prod, prod.shape).astype(prod.dtype, copy=True) if beta == 0 else prod + inp * beta

    def backward(self, g):
        _, a, b = self.saved()
        beta, alpha = self._params
        gi = _scaled(g, beta) if self.needs_input_grad(0) else None
        ga = _scaled(mv(g, conj(b)), alpha) if self.needs_input_grad(1) else None
        gb = _scaled(mv(g.t(), conj(a)), alpha) if self.needs_input_grad(2) else None
        return gi, ga, gb


@register
class AddbmmBackward0(Op):
    """addbmm(input, batch1, batch2, *, beta=1, alpha=1) = beta * input + alpha * sum_b batch1[b] @ batch2[b].

    derivatives.yaml: input: grad * beta.conj(); batch1: alpha.conj() * grad @ batch2^H (for each b);
    batch2: alpha.conj() * batch1^H @ grad.
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(inp, a, b, beta, alpha):
        prod = xp.matmul(a, b).sum(axis=0) if a.shape[0] else xp.zeros((a.shape[1], b.shape[2]), dtype=a.dtype)
        prod = prod * alpha if alpha != 1 else prod
        return xp.broadcast_to(prod, prod.shape).astype(prod.dtype, copy=True) if beta == 0 else prod + inp * beta

    def backward(self, g):
        _, a, b = self.saved()
        beta, alpha = self._params
        gi = _scaled(g, beta) if self.needs_input_grad(0) else None
        ga = _scaled(matmul(g, b.mH), alpha) if self.needs_input_grad(1) else None
        gb = _scaled(matmul(a.mH, g), alpha) if self.needs_input_grad(2) else None
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
    dts = [t._data.dtype for t in (input, mat, vec)]
    if dts[0] != dts[1] or dts[1] != dts[2]:
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {_type_name(dts[0])}, {_type_name(dts[1])}, "
            f"and {_type_name(dts[2])}"
        )
    _check_scalars(dts[0], beta, alpha, half="c10::Half")
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
    from .._dtype import result_type

    _check_scalars(result_type(input._data, vec1._data, vec2._data), beta, alpha, half="c10::Half")
    return apply(AddrBackward0, (input, vec1, vec2), (beta, alpha))


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:  # noqa: A002
    """beta * input + alpha * (batch1 @ batch2).sum(0); (b, n, k), (b, k, m) -> (n, m).

    Raises:
        RuntimeError: batches not 3-D, mismatched sizes or ``input`` not expandable (torch's messages).
    """
    if _fw.autocast:  # Note [CPU autocast]: a lower-precision op
        input, batch1, batch2 = autocast_policy.lower_precision_args(input, batch1, batch2)
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
    _check_same_dtypes(input, batch1, batch2)
    _check_scalars(batch1._data.dtype, beta, alpha)
    return apply(AddbmmBackward0, (input, batch1, batch2), (beta, alpha))



# ================================================================== outer, kron, tensordot


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
    if isinstance(dims, Tensor):  # torch.tensordot(a, b, dims=torch.tensor(1)) or a tensor of dim lists
        dims = int(dims.item()) if dims._data.ndim == 0 else dims.tolist()
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
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    from .._tensor import _wrap_dim

    sa, sb = a._data.shape, b._data.shape
    w1 = [_wrap_dim(d, a._data.ndim) for d in d1]
    w2 = [_wrap_dim(d, b._data.ndim) for d in d2]
    csize = 1
    for x, y, o1, o2 in zip(w1, w2, d1, d2):
        if sb[y] == 1:  # a size-1 dim broadcasts: its partner is summed right away, as torch
            a = a.sum(x, keepdim=True)
        elif sa[x] == 1:
            b = b.sum(y, keepdim=True)
        elif sa[x] != sb[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {sa[x]} in dim {o1} and second has size "
                f"{sb[y]} in dim {o2}"
            )
        else:
            csize *= sa[x]
    sa, sb = a._data.shape, b._data.shape
    free1 = [i for i in range(a._data.ndim) if i not in w1]
    free2 = [i for i in range(b._data.ndim) if i not in w2]
    m, n = _prod([sa[i] for i in free1]), _prod([sb[i] for i in free2])
    t1 = a.permute(*(free1 + w1)).reshape(m, csize)
    t2 = b.permute(*(w2 + free2)).reshape(csize, n)
    result = mm(t1, t2).reshape(tuple(sa[i] for i in free1) + tuple(sb[i] for i in free2))
    if out is None:
        return result
    from .out_param import write_out

    return write_out(result, out, "tensordot", (a, b))  # (torch's tensordot_out takes inputs that require grad)



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


def _sublist_label(n) -> str:
    """A subscript of einsum's sublist form as the equation's letter: 0-25 are A-Z, 26-51 a-z, Ellipsis ``...``
    (torch/functional.py's einsum)."""
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def _sublist_equation(args: tuple) -> tuple:
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])``: (the equation ``"AB,BC->AC"``, the operands); an odd number of
    arguments ends with the output's subscripts."""
    inputs = ",".join("".join(_sublist_label(n) for n in labels) for labels in args[1::2])
    if len(args) % 2:
        return inputs + "->" + "".join(_sublist_label(n) for n in args[-1]), args[:-1:2]
    return inputs, args[::2]


def einsum(*args) -> Tensor:
    """Einstein summation (torch.einsum): ``einsum("ij,jk->ik", a, b)``, with a list of operands, or in the
    sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (subscripts 0-51, Ellipsis for ``...``).

    Supports implicit outputs, ellipses (broadcast), repeated labels (diagonals) and
    size-1 broadcasting, contracting left to right as torch does without opt_einsum.

    Raises:
        ValueError: fewer than two arguments; a sublist subscript outside [0, 52) (torch's messages).
        RuntimeError: malformed equations, operand/subscript count mismatches and sizes
            that do not broadcast (torch's messages).
    """
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation, operands = _sublist_equation(args)
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):  # einsum(eq, [a, b]) is einsum(eq, a, b)
        return einsum(equation, *operands[0])
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):  # (torch's parser of the operand list)
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(t).__name__}")
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
# What this family adds to dyngrad's top level (``dyngrad.<name>``), to Tensor (``Tensor.<name>``)
# and to dyngrad.linalg; __init__.py, _tensor_methods.py and linalg.py merge these at import.

EXPORTS: dict = {
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
}
LINALG_EXPORTS: dict = {  # dyngrad.linalg.<name>
    "matmul": matmul,
    "vecdot": vecdot,
}
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
