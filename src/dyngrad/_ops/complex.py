"""Complex numbers: conj and its conjugate bit, the real/imag views, view_as_real / view_as_complex,
complex(), polar(), angle(), sgn(), isreal() and the adjoint (``mH``, ``H``).

Gradients follow torch's convention (Note [Complex gradients] in registry.py); the formulas are
derivatives.yaml's and FunctionsManual.cpp's (angle_backward, sgn_backward, polar_backward).

Note [Conjugate bit]
torch's ``conj()`` is lazy: it returns a view of the same memory with a conjugate bit set
(``is_conj()``), which views of it keep and ``resolve_conj()`` materialises. NumPy has no
conjugated view, so dyngrad's ``conj()`` computes the conjugated values into a new array and
keeps the bit only as a flag: every value, gradient, print and ``is_conj()`` answer is torch's,
but the result does not share memory with its input (an in-place change to one is not seen by
the other; torch's would be). ``imag`` of a conjugated tensor carries torch's negative bit
(``is_neg()``) the same way.
"""

from __future__ import annotations

import builtins

from .._backend import xp
from .._dtype import FLOATING_KINDS
from .._tensor import Tensor, wrap
from .registry import Op, apply, register

_ndarray = xp.ndarray


def conj_value(v):
    """The conjugate of a tensor (free for real ones: the tensor itself), a Python number or an array."""
    if type(v) is Tensor:
        return v if v._data.dtype.kind != "c" else conj(v)
    if type(v) is _ndarray:
        return v.conj() if v.dtype.kind == "c" else v
    if type(v) is builtins.complex:  # (this module's ``complex`` is torch.complex)
        return v.conjugate()
    return v


# ------------------------------------------------------------------ conj


@register
class ConjBackward0(Op):
    """conj(): the complex conjugate (a conjugate view in torch, see Note [Conjugate bit]); backward grad.conj()."""

    @staticmethod
    def forward(a):
        return xp.conjugate(a)

    def backward(self, g):
        return (conj(g),)


def conj(input: Tensor) -> Tensor:  # noqa: A002 - torch's name
    """torch.conj: the conjugate with the conjugate bit set; a real tensor is returned as it is."""
    if input._data.dtype.kind != "c":
        return input
    out = apply(ConjBackward0, (input,))
    if not input._is_conj:  # conj of a conjugated view is the plain tensor again
        out._is_conj = True
    return out


@register
class ConjPhysicalBackward0(Op):
    """conj_physical(): the conjugate, materialised (no conjugate bit); backward grad.conj_physical()."""

    @staticmethod
    def forward(a):
        return xp.conjugate(a)

    def backward(self, g):
        return (conj_physical(g),)


def conj_physical(input: Tensor) -> Tensor:  # noqa: A002
    if input._data.dtype.kind != "c":
        return input
    return apply(ConjPhysicalBackward0, (input,))


def conj_physical_(input: Tensor) -> Tensor:  # noqa: A002
    if input._data.dtype.kind != "c":
        return input
    from .inplace import inplace

    return inplace(input, conj_physical)


def resolve_conj(input: Tensor) -> Tensor:  # noqa: A002
    """A tensor without the conjugate bit: a copy (CloneBackward0) if ``input`` has it, else ``input``."""
    if not input._is_conj:
        return input
    from .shape import clone

    return clone(input)


def resolve_neg(input: Tensor) -> Tensor:  # noqa: A002
    """A tensor without the negative bit: a copy (CloneBackward0) if ``input`` has it, else ``input``."""
    if not input._is_neg:
        return input
    from .shape import clone

    return clone(input)


def is_conj(input: Tensor) -> bool:  # noqa: A002
    return input._is_conj


def is_neg(input: Tensor) -> bool:  # noqa: A002
    return input._is_neg


# ------------------------------------------------------------------ real views


def _real_view(a):
    """The (..., 2) float view of a complex array (real and imaginary parts side by side, same memory)."""
    r = a.real  # same strides, the real dtype
    shape = a.shape + (2,)
    strides = r.strides + (r.itemsize,)
    if a.flags.c_contiguous:  # (a 0-d array cannot change its itemsize: flatten it first)
        return a.reshape(-1).view(r.dtype).reshape(shape)
    return xp.lib.stride_tricks.as_strided(r, shape, strides, writeable=r.flags.writeable)


def _complex_view(a):
    """The complex view of a float array whose last dim has size 2 and stride 1 (same memory)."""
    cd = xp.result_type(a.dtype, xp.complex64)
    return a.view(cd)[..., 0]


@register
class ViewAsRealBackward0(Op):
    """view_as_real(z): (..., 2) real view; backward view_as_complex(grad.contiguous())."""

    @staticmethod
    def forward(a):
        return _real_view(a)

    def backward(self, g):
        from .shape import contiguous

        return (apply(ViewAsComplexBackward0, (contiguous(g),)),)


@register
class ViewAsComplexBackward0(Op):
    """view_as_complex(x): complex view of (..., 2) floats; backward view_as_real(grad)."""

    @staticmethod
    def forward(a):
        return _complex_view(a)

    def backward(self, g):
        return (apply(ViewAsRealBackward0, (g,)),)


def _as_real(input: Tensor) -> Tensor:
    from .shape import _mark_view

    out = _mark_view(apply(ViewAsRealBackward0, (input,)), input)
    if out._is_conj:  # real numbers carry no conjugate bit (imag() sets the negative bit instead)
        out._is_conj = False
    return out


def view_as_real(input: Tensor) -> Tensor:  # noqa: A002
    """torch.view_as_real: a complex tensor of shape S as a float tensor of shape S + (2,), sharing memory.

    Raises:
        RuntimeError: the input is not complex, or has the conjugate bit set (torch's texts).
    """
    if input._data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if input._is_conj:
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate tensor so you can "
            "view it as real, use self.resolve_conj(); however, be warned that the resulting tensor will NOT alias "
            "the original."
        )
    return _as_real(input)


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002
    """torch.view_as_complex: a float tensor of shape S + (2,) as a complex tensor of shape S, sharing memory.

    Raises:
        RuntimeError: torch's checks, in its order: the dtype (float32/float64), at least one dim, a last
            dim of size 2 and stride 1, even strides elsewhere and an even storage offset.
    """
    from .._dtype import scalar_type_name
    from .shape import _mark_view

    d = input._data
    if d.dtype.kind not in FLOATING_KINDS or d.dtype.itemsize < 4:
        if d.dtype.kind in FLOATING_KINDS:  # float16 would give complex32, which NumPy (and so dyngrad) lacks
            raise RuntimeError("view_as_complex: dyngrad has no complex32 (ComplexHalf) dtype: NumPy lacks it")
        raise RuntimeError(
            "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: "
            f"{scalar_type_name(d.dtype)}"
        )
    if d.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if d.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    strides = input.stride()
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return _mark_view(apply(ViewAsComplexBackward0, (input,)), input)


def real(input: Tensor) -> Tensor:  # noqa: A002
    """torch.real: the real part as a view (torch's graph: SelectBackward0 over ViewAsRealBackward0);
    a real tensor is returned as it is."""
    if input._data.dtype.kind != "c":
        return input
    from .shape import select

    return select(_as_real(input), -1, 0)


def imag(input: Tensor) -> Tensor:  # noqa: A002
    """torch.imag: the imaginary part as a view; torch's RuntimeError for a real tensor."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    from .shape import select

    out = select(_as_real(input), -1, 1)
    if input._is_conj:
        out._is_neg = True
    return out


def _set_part(part):
    def setter(self, value):
        target = part(self)
        from .inplace import copy_

        copy_(target, value)

    return setter


# ------------------------------------------------------------------ complex(), polar()


def _check_pair(real_: Tensor, imag_: Tensor, fn: str):
    from .._dtype import scalar_type_name

    names = ("real", "imag") if fn == "complex" else ("abs", "angle")
    for name, pos, v in ((names[0], 1, real_), (names[1], 2, imag_)):
        if not isinstance(v, Tensor):
            raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type(v).__name__}")
    a, b = real_._data.dtype, imag_._data.dtype
    if a.kind not in FLOATING_KINDS or b.kind not in FLOATING_KINDS:
        raise RuntimeError(
            f"Expected both inputs to be Half, Float or Double tensors but got {scalar_type_name(a)} and "
            f"{scalar_type_name(b)}"
        )
    if a != b:
        raise RuntimeError(
            f"Expected object of scalar type {scalar_type_name(a)} but got scalar type {scalar_type_name(b)} for "
            "second argument"
        )
    if a.itemsize < 4:
        raise RuntimeError(f"{fn}: dyngrad has no complex32 (ComplexHalf) dtype: NumPy lacks it")


def _broadcast(a, b):
    from .broadcast import broadcast_shape

    shape = broadcast_shape(a.shape, b.shape)
    return xp.broadcast_to(a, shape), xp.broadcast_to(b, shape)


@register
class ComplexBackward0(Op):
    """complex(real, imag) = real + i imag; backward: real(grad), imag(grad)."""

    @staticmethod
    def forward(re, im):
        re, im = _broadcast(re, im)
        out = xp.empty(re.shape, dtype=xp.result_type(re.dtype, xp.complex64))
        out.real = re
        out.imag = im
        return out

    def backward(self, g):
        return (real(g) if self.needs_input_grad(0) else None, imag(g) if self.needs_input_grad(1) else None)


def complex(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A001 - torch's name
    """torch.complex: a complex tensor from real and imaginary parts (same float dtype, broadcast).

    Raises:
        TypeError: an argument is not a Tensor.
        RuntimeError: the dtypes are not both float32 or both float64 (torch's texts), or do not broadcast.
    """
    _check_pair(real, imag, "complex")
    return apply(ComplexBackward0, (real, imag))


@register
class PolarBackward0(Op):
    """polar(abs, angle) = abs * (cos(angle) + i sin(angle)).

    Backward (FunctionsManual.cpp polar_backward): grad_abs = real(grad.conj() * sgn(result)),
    grad_angle = real(grad.conj() * result * i).
    """

    save_result = True
    complex_grad = True

    @staticmethod
    def forward(r, theta):
        r, theta = _broadcast(r, theta)
        out = xp.empty(r.shape, dtype=xp.result_type(r.dtype, xp.complex64))
        out.real = r * xp.cos(theta)
        out.imag = r * xp.sin(theta)
        return out

    def backward(self, g):
        result = self.saved_result()
        gc = conj(g)
        g_abs = real(gc * sgn(result)) if self.needs_input_grad(0) else None
        g_angle = real(gc * (result * 1j)) if self.needs_input_grad(1) else None
        return g_abs, g_angle


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002 - torch's names
    """torch.polar: the complex tensor with magnitude ``abs`` and phase ``angle`` (radians)."""
    _check_pair(abs, angle, "polar")
    return apply(PolarBackward0, (abs, angle))


# ------------------------------------------------------------------ angle, sgn, isreal


def _angle_forward(a):
    if a.dtype.kind == "c":
        return xp.angle(a)
    # real input: pi for negatives, 0 otherwise (also -0.0), NaN stays NaN, as torch
    out = xp.where(a < 0, xp.pi, 0.0).astype(a.dtype)
    return xp.where(xp.isnan(a), a, out)


@register
class AngleBackward0(Op):
    """angle(z): the phase atan2(imag, real) in radians (pi / 0 for real input).

    Backward (FunctionsManual.cpp angle_backward): grad * z / |z|**2 * i, 0 at z == 0; zeros for real input.
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a):
        return _angle_forward(a)

    def backward(self, g):
        from .pointwise import where_

        (z,) = self.saved()
        if z._data.dtype.kind != "c":
            return (wrap(xp.zeros(z._data.shape, dtype=z._data.dtype)),)
        a2 = _abs(z) ** 2
        return (where_(z == 0, 0.0, g * z / a2 * 1j),)


def angle(input: Tensor) -> Tensor:  # noqa: A002
    """torch.angle: elementwise phase in radians; integer input gives the default float dtype."""
    d = input._data
    if d.dtype.kind in "biu":
        from .._dtype import default_float_np

        return apply(AngleBackward0, (input,), (), (d.astype(default_float_np()),))
    return apply(AngleBackward0, (input,))


def _sgn_forward(a):
    if a.dtype.kind != "c":
        from .rounding import _sign_forward

        return _sign_forward(a)
    mag = xp.abs(a)
    zero = mag == 0
    return xp.where(zero, 0, a / xp.where(zero, 1, mag)).astype(a.dtype)


@register
class SgnBackward0(Op):
    """sgn(z) = z / |z| (0 at 0); sign for real input.

    Backward (FunctionsManual.cpp sgn_backward): (grad - sgn**2 * grad.conj()) / (2 |z|), 0 where z == 0;
    zeros for real input.
    """

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a):
        return _sgn_forward(a)

    def backward(self, g):
        from .pointwise import where_

        z = self.saved()[0]
        if z._data.dtype.kind != "c":
            return (g * 0,)
        s = self.saved_result()
        mag = _abs(z)
        return (where_(mag == 0, 0.0, (g - s * s * conj(g)) / (2 * mag)),)


def sgn(input: Tensor) -> Tensor:  # noqa: A002
    """torch.sgn: z / |z| for complex input (0 at 0), sign(x) for real input."""
    return apply(SgnBackward0, (input,))


def _abs(x: Tensor) -> Tensor:
    from .pointwise import abs as _abs

    return _abs(x)


def isreal(input: Tensor) -> Tensor:  # noqa: A002
    """torch.isreal: True where the imaginary part is zero (every element of a real tensor)."""
    d = input._data
    if d.dtype.kind != "c":
        return wrap(xp.ones(d.shape, dtype=bool))
    return wrap(d.imag == 0)


# ------------------------------------------------------------------ adjoint


def adjoint(input: Tensor) -> Tensor:  # noqa: A002
    """The conjugate transpose of the last two dims (``mH``): a transpose, conjugated for complex input."""
    return _adjoint(input, "tensor.adjoint()")


def _adjoint(input: Tensor, what: str) -> Tensor:  # noqa: A002
    if input._data.ndim < 2:
        raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. Got {input._data.ndim}-D tensor.")
    from .shape import transpose

    return conj(transpose(input, -2, -1))


def _mH(self: Tensor) -> Tensor:
    return _adjoint(self, "tensor.mH")


def _H(self: Tensor) -> Tensor:
    nd = self._data.ndim
    if nd != 2 and nd != 0:
        hint = " For batches of matrices, consider using tensor.mH" if nd > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor.{hint}")
    if nd == 0:
        return conj(self)
    from .shape import transpose

    return conj(transpose(self, 0, 1))


_FUNCTIONS = (
    "conj", "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "view_as_real", "view_as_complex",
    "real", "imag", "complex", "polar", "angle", "sgn", "isreal", "adjoint",
)
EXPORTS: dict = {name: globals()[name] for name in _FUNCTIONS}
EXPORTS["conj_physical_"] = conj_physical_
TENSOR_METHODS: dict = {
    name: globals()[name]
    for name in ("conj", "conj_physical", "conj_physical_", "resolve_conj", "resolve_neg", "is_conj", "is_neg",
                 "angle", "sgn", "isreal", "adjoint")
}
TENSOR_PROPERTIES: dict = {
    "real": property(real, _set_part(real)),
    "imag": property(imag, _set_part(imag)),
    "mH": property(_mH),
    "H": property(_H),
}
LINALG_EXPORTS: dict = {}
FUNCTIONAL_EXPORTS: dict = {}
