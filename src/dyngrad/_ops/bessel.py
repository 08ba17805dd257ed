"""torch's Bessel functions: ``torch.i0`` and ``torch.special``'s i0/i0e/i1/i1e (differentiable), and
its Bessel, modified Bessel, spherical Bessel and Airy functions (which torch does not differentiate).

Every function takes one tensor of any shape and returns a tensor of the same shape; float32 and
float64 stay as they are, integer and bool tensors become the default float dtype, float16 is
accepted by i0/i0e/i1/i1e only (computed in float32, as torch), complex tensors raise torch's
NotImplementedError. The kernels (bessel_kernels.py) run in the working dtype, as torch's CPU
kernels do (Note [Working precision] there).

Gradients (torch 2.13's tools/autograd/derivatives.yaml and FunctionsManual.cpp), written with
dyngrad ops so that they differentiate again:
- i0: grad * i1(x);
- special_i0e: grad * (i1e(x) - sgn(x) * result);
- special_i1 (i1_backward): grad * (i0(x) - result / x), with 1/2 where |x| <= eps;
- special_i1e (i1e_backward): grad * (i0e(x) - result * (sgn(x) + 1 / x)), 1/2 where |x| <= eps.
The other functions are not differentiable in torch: their result never requires grad (and so
``backward()`` through it alone raises "element 0 of tensors does not require grad ..."); the
same holds here.
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import default_float_np, scalar_type_name
from .._tensor import Tensor, wrap
from .._type_info import finfo
from . import bessel_kernels as kernels
from .out_param import check_out_autograd, write_out
from .pointwise import where_
from .registry import Op, apply, register
from .rounding import sign

_CHUNK = 1 << 16  # elements per kernel call: the series' temporaries stay in cache (about twice as fast)


def in_working_dtype(kernel):
    """``kernel`` (written for 1-D arrays) on an array of any shape: float32/float64 as they are, float16
    through float32 (torch's upcast), in chunks of ``_CHUNK`` elements."""

    def run(a):
        half = a.dtype == xp.float16
        flat = (a.astype(xp.float32) if half else a).reshape(-1)
        if flat.size <= _CHUNK:
            out = kernel(flat)
        else:
            out = xp.concatenate([kernel(flat[i : i + _CHUNK]) for i in range(0, flat.size, _CHUNK)])
        out = out.reshape(a.shape)
        return out.astype(xp.float16) if half else out

    run.__name__ = kernel.__name__
    run.__doc__ = kernel.__doc__
    return run


def float_operand(input, fn_name: str, arg: str, kernel_name: str, half_ok: bool):  # noqa: A002 - torch's name
    """The array a unary float function computes on: integers and bools as the default float dtype.

    Raises:
        TypeError: ``input`` is not a tensor (torch's argument-parser text).
        NotImplementedError: a complex tensor, or float16 where torch's kernel lacks it.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn_name}(): argument '{arg}' (position 1) must be Tensor, not {type(input).__name__}")
    d = input._data
    kind = d.dtype.kind
    if kind in "biu":
        return d.astype(default_float_np())
    if kind == "c" or (d.dtype == xp.float16 and not half_ok):
        raise NotImplementedError(f"\"{kernel_name}\" not implemented for '{scalar_type_name(d.dtype)}'")
    return d


# ----------------------------------------------------------------- differentiable: i0, i0e, i1, i1e

_i0 = in_working_dtype(kernels.i0)
_i0e = in_working_dtype(kernels.i0e)
_i1 = in_working_dtype(kernels.i1)
_i1e = in_working_dtype(kernels.i1e)


@register
class I0Backward0(Op):
    """i0 (torch.i0, special.i0, Tensor.i0): Cephes' Chebyshev expansion (Math.h calc_i0).

    Backward (derivatives.yaml): grad * special_i1(self).
    """

    __slots__ = ()
    save_inputs = True
    forward = staticmethod(_i0)

    def backward(self, g):
        (x,) = self.saved()
        return (g * special_i1(x),)


@register
class SpecialI0EBackward0(Op):
    """special.i0e = exp(-|x|) I0(x) (Math.h calc_i0e).

    Backward (derivatives.yaml): grad * (special_i1e(self) - self.sgn() * result).
    """

    __slots__ = ()
    save_inputs = True
    save_result = True
    forward = staticmethod(_i0e)

    def backward(self, g):
        x = self.saved()[0]
        return (g * (special_i1e(x) - sign(x) * self.saved_result()),)


def _divided_by_x_backward(g, x, lead, result, shift):
    """grad * (lead(x) - result * shift(x)), and grad / 2 where |x| <= eps (FunctionsManual's i1_backward
    and i1e_backward: the formula's 1/x is 0/0 at the origin, where the derivative is 1/2). Both ``where``
    calls are kept as in torch, so that the second derivative picks the same branches."""
    eps = finfo(x.dtype).eps
    not_tiny = x.abs() > eps
    safe = where_(not_tiny, x, eps)
    slope = lead(safe) - result * shift(safe)
    return g * where_(not_tiny, slope, 0.5)


@register
class SpecialI1Backward0(Op):
    """special.i1 (Math.h calc_i1; float32 uses its shorter coefficient tables).

    Backward (derivatives.yaml -> FunctionsManual i1_backward): grad * (i0(x) - result / x), 1/2 at |x| <= eps.
    """

    __slots__ = ()
    save_inputs = True
    save_result = True
    forward = staticmethod(_i1)

    def backward(self, g):
        x = self.saved()[0]
        return (_divided_by_x_backward(g, x, i0, self.saved_result(), lambda s: s.reciprocal()),)


@register
class SpecialI1EBackward0(Op):
    """special.i1e = exp(-|x|) I1(x) (Math.h calc_i1e).

    Backward (FunctionsManual i1e_backward): grad * (i0e(x) - result * (sgn(x) + 1 / x)), 1/2 at |x| <= eps.
    """

    __slots__ = ()
    save_inputs = True
    save_result = True
    forward = staticmethod(_i1e)

    def backward(self, g):
        x = self.saved()[0]
        return (_divided_by_x_backward(g, x, special_i0e, self.saved_result(), lambda s: sign(s) + s.reciprocal()),)


def _differentiable(op, fn_name: str, kernel_name: str, doc: str):
    def fn(input, *, out=None):  # noqa: A002 - torch's name
        d = float_operand(input, fn_name, "input", kernel_name, True)
        check_out_autograd(fn_name, out, input)
        return write_out(apply(op, (input,), (), (d,)), out)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = doc
    return fn


_SHAPES = (
    "Shape: any; the result has the input's shape. Dtype: float32/float64 kept, float16 computed in float32, "
    "integer and bool promote to the default float dtype."
)
_ERRORS = (
    "Raises: TypeError for a non-tensor argument; NotImplementedError for complex input; RuntimeError for "
    "out= while an argument requires grad, or an out tensor of an integer dtype."
)
i0 = _differentiable(
    I0Backward0, "i0", "i0_vml_cpu",
    f"I0(x), the modified Bessel function of the first kind of order 0 (torch.i0).\n\n{_SHAPES}\n{_ERRORS}\n"
    "Source: Cephes i0.c's Chebyshev expansions, as PyTorch's Math.h calc_i0. Gradient: grad * i1(x).",
)
special_i0 = _differentiable(I0Backward0, "special_i0", "i0_vml_cpu", i0.__doc__.replace("torch.i0", "torch.special.i0"))
special_i0e = _differentiable(
    SpecialI0EBackward0, "special_i0e", "i0e_cpu",
    f"exp(-|x|) I0(x), the exponentially scaled I0 (torch.special.i0e).\n\n{_SHAPES}\n{_ERRORS}\n"
    "Source: Cephes i0e (Math.h calc_i0e). Gradient: grad * (i1e(x) - sgn(x) * i0e(x)).",
)
special_i1 = _differentiable(
    SpecialI1Backward0, "special_i1", "i1_cpu",
    f"I1(x), the modified Bessel function of the first kind of order 1 (torch.special.i1).\n\n{_SHAPES}\n{_ERRORS}\n"
    "Source: Cephes i1.c (Math.h calc_i1). Gradient: grad * (i0(x) - i1(x) / x), 1/2 at the origin.",
)
special_i1e = _differentiable(
    SpecialI1EBackward0, "special_i1e", "i1e_cpu",
    f"exp(-|x|) I1(x), the exponentially scaled I1 (torch.special.i1e).\n\n{_SHAPES}\n{_ERRORS}\n"
    "Source: Cephes i1e (Math.h calc_i1e). Gradient: grad * (i0e(x) - i1e(x) * (sgn(x) + 1/x)), 1/2 at the origin.",
)


def i0_(input):  # noqa: A002 - torch's name
    """In-place i0 (torch.i0_, Tensor.i0_): the tensor's dtype must hold a float result.

    Raises:
        RuntimeError: ``result type Float can't be cast to the desired output type Long`` for integer tensors.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"i0_(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    from .inplace import inplace

    return inplace(input, i0)


# ----------------------------------------------------------------- not differentiable in torch


def _forward_only(kernel, fn_name: str, arg: str, doc: str):
    """A function torch does not differentiate: its result never requires grad (no graph node)."""
    run = in_working_dtype(kernel)
    kernel_name = fn_name.removeprefix("special_") + "_cpu"

    def compute(input, out):  # noqa: A002 - torch's name
        d = float_operand(input, fn_name, arg, kernel_name, False)
        return write_out(wrap(run(d)), out)

    if arg == "x":
        def fn(x, *, out=None):
            return compute(x, out)
    else:
        def fn(input, *, out=None):  # noqa: A002 - torch's name
            return compute(input, out)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (
        f"{doc}\n\nShape: any; the result has the input's shape. Dtype: float32/float64 kept, integer and bool "
        "promote to the default float dtype. Not differentiable (as in torch): the result does not require grad.\n"
        "Raises: TypeError for a non-tensor argument; NotImplementedError for float16 and complex input."
    )
    return fn


bessel_j0 = _forward_only(kernels.bessel_j0, "special_bessel_j0", "input",
                          "J0(x), the Bessel function of the first kind of order 0 (Cephes j0.c, Math.h bessel_j0_forward).")
bessel_j1 = _forward_only(kernels.bessel_j1, "special_bessel_j1", "input",
                          "J1(x), the Bessel function of the first kind of order 1 (Cephes j1.c, Math.h bessel_j1_forward).")
bessel_y0 = _forward_only(kernels.bessel_y0, "special_bessel_y0", "input",
                          "Y0(x), the Bessel function of the second kind of order 0: -inf at 0, NaN below "
                          "(Cephes j0.c, Math.h bessel_y0_forward).")
bessel_y1 = _forward_only(kernels.bessel_y1, "special_bessel_y1", "input",
                          "Y1(x), the Bessel function of the second kind of order 1: -inf at 0, NaN below "
                          "(Cephes j1.c, Math.h bessel_y1_forward).")
modified_bessel_i0 = _forward_only(kernels.modified_bessel_i0, "special_modified_bessel_i0", "input",
                                   "I0(x) (Cephes i0.c, Math.h modified_bessel_i0_forward).")
modified_bessel_i1 = _forward_only(kernels.modified_bessel_i1, "special_modified_bessel_i1", "input",
                                   "I1(x) (Cephes i1.c, Math.h modified_bessel_i1_forward).")
modified_bessel_k0 = _forward_only(kernels.modified_bessel_k0, "special_modified_bessel_k0", "input",
                                   "K0(x), the modified Bessel function of the second kind of order 0: inf at 0, NaN "
                                   "below (Cephes k0.c, Math.h modified_bessel_k0_forward).")
modified_bessel_k1 = _forward_only(kernels.modified_bessel_k1, "special_modified_bessel_k1", "input",
                                   "K1(x): inf at 0, NaN below (Cephes k1.c, Math.h modified_bessel_k1_forward).")
scaled_modified_bessel_k0 = _forward_only(kernels.scaled_modified_bessel_k0, "special_scaled_modified_bessel_k0", "x",
                                          "exp(x) K0(x) (Cephes k0e, Math.h scaled_modified_bessel_k0_forward).")
scaled_modified_bessel_k1 = _forward_only(kernels.scaled_modified_bessel_k1, "special_scaled_modified_bessel_k1", "x",
                                          "exp(x) K1(x) (Cephes k1e, Math.h scaled_modified_bessel_k1_forward).")
spherical_bessel_j0 = _forward_only(kernels.spherical_bessel_j0, "special_spherical_bessel_j0", "x",
                                    "j0(x) = sin(x) / x, 0 at +-inf (Math.h spherical_bessel_j0_forward).")
airy_ai = _forward_only(kernels.airy_ai, "special_airy_ai", "x",
                        "Ai(x), the Airy function of the first kind: NaN at +-inf (Cephes airy.c, Math.h "
                        "airy_ai_forward).")


EXPORTS: dict = dict(i0=i0, i0_=i0_)
TENSOR_METHODS: dict = dict(i0=i0, i0_=i0_)
SPECIAL_EXPORTS: dict = dict(
    i0=special_i0, i0e=special_i0e, i1=special_i1, i1e=special_i1e,
    bessel_j0=bessel_j0, bessel_j1=bessel_j1, bessel_y0=bessel_y0, bessel_y1=bessel_y1,
    modified_bessel_i0=modified_bessel_i0, modified_bessel_i1=modified_bessel_i1,
    modified_bessel_k0=modified_bessel_k0, modified_bessel_k1=modified_bessel_k1,
    scaled_modified_bessel_k0=scaled_modified_bessel_k0, scaled_modified_bessel_k1=scaled_modified_bessel_k1,
    spherical_bessel_j0=spherical_bessel_j0, airy_ai=airy_ai,
)
