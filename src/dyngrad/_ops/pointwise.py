"""Pointwise ops, the core: arithmetic (add, sub, mul, div, pow and the rounded divisions, remainder, fmod,
lerp, addcmul, addcdiv), the basic unary functions (neg, abs, reciprocal, exp, log, sqrt, sin, cos, tanh,
sigmoid, relu), where, and the factories and checks the other pointwise families share (``_unary``,
``_float_unary``, ``_float_binary``, the in-place wrappers).

The other pointwise families, each its own module: exp_log.py (exp2, expm1, log2, log10, log1p, rsqrt, erf,
erfc, erfinv, xlogy, logaddexp, logit), trigonometric.py (tan, the inverse and hyperbolic functions, atan2,
hypot, sinc), rounding.py (sign, copysign, floor, ceil, round, trunc, frac, nan_to_num), clamp_minmax.py
(clamp, clamp_min/max, maximum, minimum, fmax, fmin) and activations.py (the nn.functional activations);
complex.py and numeric.py hold more.

Derivative formulas follow PyTorch's tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

import sys

from .._backend import constant, xp
from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS, LIMITED_NP, _limited_in_use
from .._tensor import Tensor, wrap
from . import complex_support as cs
from ._promote import OperandTypeError, operand_error, prepare, reflected
from .complex import conj_value as conj
from .registry import Op, apply, register

# ------------------------------------------------------------------ binary


def _array(value):
    """A saved input as an array (Python scalars stay as they are; a Parameter or other subclass is unwrapped
    too: ``array * parameter`` would reach Parameter.__rmul__, which refuses an ndarray as torch's does)."""
    return value._data if isinstance(value, Tensor) else value


@register
class AddBackward0(Op):
    """add(input, other, alpha=1) = input + alpha * other."""

    @staticmethod
    def forward(a, b, alpha=1):
        return a + b if alpha == 1 else a + alpha * b

    def backward(self, g):
        alpha = self._params[0] if self._params else 1
        return g, (g if alpha == 1 else g * conj(alpha))


@register
class SubBackward0(Op):
    """sub(input, other, alpha=1) = input - alpha * other."""

    @staticmethod
    def forward(a, b, alpha=1):
        return a - b if alpha == 1 else a - alpha * b

    def backward(self, g):
        if self.next_functions[1][0] is None:
            return g, None
        alpha = self._params[0] if self._params else 1
        return g, (-g if alpha == 1 else g * -conj(alpha))

    def backward_arrays(self, g):
        if self.next_functions[1][0] is None:
            return wrap(g), None
        alpha = self._params[0] if self._params else 1
        return wrap(g), wrap(-g if alpha == 1 else g * -conj(alpha))


@register
class RsubBackward0(Op):
    """rsub(input, other: Tensor, alpha=1) = other - alpha * input (``torch.rsub(x, y)``, ``x.__rsub__(y)``)."""

    @staticmethod
    def forward(a, b, alpha=1):
        return b - a if alpha == 1 else b - alpha * a

    def backward(self, g):
        alpha = self._params[0] if self._params else 1
        return (-g if alpha == 1 else g * -conj(alpha)), g


@register
class RsubBackward1(Op):
    """rsub(input, other: Scalar) = other - input (``2 - x``); only ``input`` is an edge, as in torch."""

    @staticmethod
    def forward(a, other):
        return other - a

    def backward(self, g):
        return (-g,)

    def backward_arrays(self, g):
        return (wrap(-g),)


@register
class MulBackward0(Op):
    """mul(input, other): d/dinput = grad * other.conj(), d/dother = grad * input.conj()."""

    save_inputs = True
    save_needs = ((1,), (0,))  # each gradient reads only the other factor
    complex_grad = True

    @staticmethod
    def forward(a, b):
        return a * b

    def backward(self, g):
        a, b = self.saved()
        return (g * conj(b) if self.next_functions[0][0] is not None else None,
                g * conj(a) if self.next_functions[1][0] is not None else None)

    def backward_arrays(self, g):
        if g.dtype.kind == "c":
            return self.backward(wrap(g))
        a, b = self.saved()
        return (
            wrap(g * _array(b)) if self.next_functions[0][0] is not None else None,
            wrap(g * _array(a)) if self.next_functions[1][0] is not None else None,
        )


@register
class DivBackward0(Op):
    """div(input, other): d/dinput = grad / other.conj(), d/dother = -grad * ((input / other) / other).conj()
    (derivatives.yaml: div_tensor_self_backward, div_tensor_other_backward)."""

    save_inputs = True
    save_needs = ((1,), (0, 1))
    complex_grad = True

    @staticmethod
    def forward(a, b):
        return a / b

    def backward(self, g):
        a, b = self.saved()
        ga = g / conj(b) if self.next_functions[0][0] is not None else None
        gb = -g * conj(a / b / b) if self.next_functions[1][0] is not None else None
        return ga, gb

    def backward_arrays(self, g):
        if g.dtype.kind == "c":
            return self.backward(wrap(g))
        a, b = self.saved()
        a, b = _array(a), _array(b)
        ga = wrap(g / b) if self.next_functions[0][0] is not None else None
        gb = wrap(-g * ((a / b) / b)) if self.next_functions[1][0] is not None else None  # torch's rounding order
        return ga, gb


@register
class PowBackward0(Op):
    """pow(input, exponent: Scalar): grad * (exponent * input**(exponent - 1)).conj() (zero for exponent 0)."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, exponent):
        return a**exponent

    def backward(self, g):
        (a,) = self.saved()
        p = self._params[0]
        if p == 0:
            return (g * 0.0,)
        return (g * conj(p * a ** (p - 1)),)


@register
class PowBackward1(Op):
    """pow(input, exponent: Tensor).

    d/dinput = grad * (exponent * input**(exponent-1)).conj(), zero where exponent == 0;
    d/dexponent = grad * (result * log(input)).conj(), zero where input == 0 and exponent >= 0 (real)
    (FunctionsManual.cpp pow_backward_self / pow_backward_exponent).
    """

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(a, b):
        return a**b

    def backward(self, g):
        a, b, _ = self.saved()
        ga = gb = None
        if self.next_functions[0][0] is not None:
            ga = where_(b == 0, 0.0, g * conj(b * a ** (b - 1)))
        if self.next_functions[1][0] is not None:
            result = self.saved_result()
            gb = where_((a == 0) & _nonnegative(b), 0.0, g * conj(result * log(a)))
        return ga, gb


def _nonnegative(t: Tensor) -> Tensor:
    """t >= 0, for a complex t: a real, non-negative value (pow_backward_exponent's test)."""
    if t._data.dtype.kind != "c":
        return t >= 0
    return wrap((t._data.imag == 0) & (t._data.real >= 0))


@register
class PowBackward2(Op):
    """pow(self: Scalar, exponent: Tensor) (``2 ** x``): grad * (result * log(self)).conj()."""

    save_inputs = True
    save_result = True
    complex_grad = True

    @staticmethod
    def forward(exponent, base):
        return xp.asarray(base, dtype=exponent.dtype) ** exponent

    def backward(self, g):
        import cmath
        import math

        base = self._params[0]
        result = self.saved_result()
        if base == 0:
            exponent = self.saved()[0]
            return (where_(_nonnegative(exponent), 0.0, g * conj(result) * float("-inf")),)
        log_base = cmath.log(base) if isinstance(base, complex) or base < 0 else math.log(base)
        return (g * conj(result * log_base),)


# ------------------------------------------------------------------ unary


def _unary(name: str, fn, derivative, save: str = "input", doc: str = "", on_arrays=None, complex_grad=None):
    """Declare a unary op whose backward is ``derivative(grad, saved)``.

    ``on_arrays`` is the same formula on NumPy arrays for real dtypes, used when no graph is
    recorded (see Note [Backward on arrays] in registry.py); complex gradients take ``derivative``.

    ``complex_grad``: the formula follows Note [Complex gradients] (registry.py).
    """
    module = sys._getframe(1).f_globals.get("__name__", __name__)  # the family module that declares the op

    if save == "result":

        def backward(self, g):
            return (derivative(g, self.saved_result()),)

        def backward_arrays(self, g):
            if g.dtype.kind == "c":
                return self.backward(wrap(g))
            return (wrap(on_arrays(g, self.saved()[-1]._data)),)

    elif save == "input":

        def backward(self, g):
            return (derivative(g, self.saved()[0]),)

        def backward_arrays(self, g):
            if g.dtype.kind == "c":
                return self.backward(wrap(g))
            return (wrap(on_arrays(g, self.saved()[0]._data)),)

    else:

        def backward(self, g):
            return (derivative(g, None),)

        def backward_arrays(self, g):
            return (wrap(on_arrays(g, None)),)

    cls = type(
        name,
        (Op,),
        {
            "__slots__": (),
            "__doc__": doc,
            "save_inputs": save == "input",
            "save_result": save == "result",
            "complex_grad": complex_grad,
            "forward": staticmethod(fn),
            "backward": backward,
            "backward_arrays": backward_arrays if on_arrays is not None else None,
            "__module__": module,
        },
    )
    return register(cls)


NegBackward0 = _unary("NegBackward0", xp.negative, lambda g, _: -g, save="none", doc="neg: -grad", on_arrays=lambda g, _: -g)
ExpBackward0 = _unary(
    "ExpBackward0", xp.exp, lambda g, y: g * conj(y), save="result", doc="exp: grad * result.conj()",
    on_arrays=xp.multiply, complex_grad=True,
)
LogBackward0 = _unary("LogBackward0", xp.log, lambda g, x: g / conj(x), doc="log: grad / input.conj()",
                      on_arrays=xp.true_divide, complex_grad=True)
SqrtBackward0 = _unary(
    "SqrtBackward0",
    xp.sqrt,
    lambda g, y: g / (2 * conj(y)),
    save="result",
    doc="sqrt: grad / (2 * result.conj())",
    on_arrays=lambda g, y: g / (2 * y),
    complex_grad=True,
)
SinBackward0 = _unary(
    "SinBackward0", xp.sin, lambda g, x: g * conj(x.cos()), doc="sin: grad * cos(input).conj()",
    on_arrays=lambda g, x: g * xp.cos(x), complex_grad=True,
)
CosBackward0 = _unary(
    "CosBackward0", xp.cos, lambda g, x: g * -conj(x.sin()), doc="cos: grad * -sin(input).conj()",
    on_arrays=lambda g, x: g * -xp.sin(x), complex_grad=True,
)
@register
class TanhBackwardBackward0(Op):
    """tanh_backward(grad, result) = grad * (1 - result**2).conj(), one node as in torch.

    Its own backward: d/dgrad = tanh_backward(gg, result.conj()); d/dresult = gg.conj() * -2 * grad *
    result.conj() (the output is antiholomorphic in result: Note [Complex gradients]).
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(g, y):
        if y.dtype.kind == "c":
            return g * (1 - y * y).conj()
        out = y * y
        if type(out) is not xp.ndarray or out.shape != g.shape or out.dtype != g.dtype:
            return g * (1 - out)  # 0-d, broadcast or mixed dtypes: no buffer to reuse
        xp.subtract(constant(1, out.dtype), out, out=out)
        return xp.multiply(g, out, out=out)

    def backward(self, gg):
        g, y = self.saved()
        return (
            tanh_backward(gg, conj(y)) if self.next_functions[0][0] is not None else None,
            conj(gg) * (g * conj(y) * -2) if self.next_functions[1][0] is not None else None,
        )


def tanh_backward(g: Tensor, y: Tensor) -> Tensor:
    return apply(TanhBackwardBackward0, (g, y))


@register
class SigmoidBackwardBackward0(Op):
    """sigmoid_backward(grad, result) = grad * (result * (1 - result)).conj(), one node as in torch.

    Its own backward: d/dgrad = sigmoid_backward(gg, result.conj()); d/dresult = gg.conj() * grad *
    (1 - 2 * result.conj()) (antiholomorphic in result: Note [Complex gradients]).
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(g, y):
        if y.dtype.kind == "c":
            return g * (y * (1 - y)).conj()
        return g * (y * (1 - y))

    def backward(self, gg):
        g, y = self.saved()
        return (
            sigmoid_backward(gg, conj(y)) if self.next_functions[0][0] is not None else None,
            conj(gg) * g * (1 - 2 * conj(y)) if self.next_functions[1][0] is not None else None,
        )


def sigmoid_backward(g: Tensor, y: Tensor) -> Tensor:
    return apply(SigmoidBackwardBackward0, (g, y))


@register
class ThresholdBackwardBackward0(Op):
    """threshold_backward(grad, result, 0): grad where result > 0, else 0 (relu's backward, as torch)."""

    save_inputs = True

    @staticmethod
    def forward(g, y):
        # torch's rule is "0 where result <= 0, else grad": a NaN result lets the gradient through
        return g * ~(y <= 0)

    def backward(self, gg):
        _, y = self.saved()
        # d/dresult is zero (derivatives.yaml), but still an edge, so a third derivative finds x
        return (
            threshold_backward(gg, y) if self.next_functions[0][0] is not None else None,
            wrap(xp.zeros_like(y._data)) if self.next_functions[1][0] is not None else None,
        )


def threshold_backward(g: Tensor, y: Tensor) -> Tensor:
    return apply(ThresholdBackwardBackward0, (g, y))


TanhBackward0 = _unary(
    "TanhBackward0",
    xp.tanh,
    tanh_backward,
    save="result",
    doc="tanh: grad * (1 - result**2).conj()",
    on_arrays=TanhBackwardBackward0.forward,
    complex_grad=True,
)
ReciprocalBackward0 = _unary(
    "ReciprocalBackward0", xp.reciprocal, lambda g, y: -g * conj(y * y), save="result",
    doc="reciprocal: -grad * (result**2).conj()", complex_grad=True,
)


_IGNORE_OVERFLOW = {"over": "ignore"}


def _sigmoid(a):
    if a.dtype.kind == "c":
        return 1 / (1 + xp.exp(-a))
    if a.dtype == xp.float32 or a.dtype == xp.float64:
        # torch's kernel, 1 / (1 + exp(-a)): exp overflowing to inf for very negative a gives 0, as torch's
        # (one pass per step, 5x faster than the sign split below on small arrays)
        e = xp.negative(a, out=xp.empty_like(a))  # out= keeps a 0-d result an array
        with xp.errstate(**_IGNORE_OVERFLOW):
            xp.exp(e, out=e)
        e += 1
        return xp.reciprocal(e, out=e)
    # 1 / (1 + exp(-a)) overflows for very negative a in exp; split by sign for stability.
    out = xp.empty_like(a)
    pos = a >= 0
    out[pos] = 1.0 / (1.0 + xp.exp(-a[pos]))
    e = xp.exp(a[~pos])
    out[~pos] = e / (1.0 + e)
    return out


SigmoidBackward0 = _unary(
    "SigmoidBackward0",
    _sigmoid,
    sigmoid_backward,
    save="result",
    doc="sigmoid: grad * (result * (1 - result)).conj()",
    on_arrays=SigmoidBackwardBackward0.forward,
    complex_grad=True,
)


def _relu(a):
    return xp.maximum(a, constant(0, a.dtype)) if a.dtype.kind != "b" else a.copy()


# torch's threshold_backward: the gradient passes where result > 0 (so 0 at exactly 0).
ReluBackward0 = _unary(
    "ReluBackward0",
    _relu,
    threshold_backward,
    save="result",
    doc="relu: grad where result > 0",
    on_arrays=ThresholdBackwardBackward0.forward,
)


def _abs_backward(g, x):
    # sgn() is itself differentiable (zero gradient for real input): second derivatives see it, as torch's
    from .complex import sgn

    return g * sgn(x)


AbsBackward0 = _unary("AbsBackward0", xp.abs, _abs_backward, doc="abs: grad * sgn(input) (0 at 0, as torch)",
                      complex_grad=True)


# ------------------------------------------------------------------ where (used by backward formulas)


@register
class WhereBackward0(Op):
    """where(condition, input, other); condition is not differentiable."""

    save_inputs = True
    complex_grad = True  # only the condition is saved: linear in both branches
    save_needs = ((), (0,), (0,))  # both branches' gradients read only the condition

    @staticmethod
    def forward(cond, a, b):
        return xp.where(cond, a, b)

    def backward(self, g):
        cond = self.saved()[0]
        zero = wrap(xp.zeros((), dtype=g._data.dtype))
        ga = where_(cond, g, zero) if self.next_functions[1][0] is not None else None
        gb = where_(cond, zero, g) if self.next_functions[2][0] is not None else None
        return None, ga, gb


def where_(cond, a, b) -> Tensor:
    """torch.where(condition, input, other) with scalar or tensor branches."""
    c = cond._data if isinstance(cond, Tensor) else xp.asarray(cond)
    if c.dtype.kind != "b":
        from .._dtype import scalar_type_name

        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype {scalar_type_name(c.dtype)}")
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        # two numbers: torch promotes them as scalars (2.0 and 1j give the default complex dtype)
        from .._dtype import result_type

        rt = result_type(a, b)
        ad, bd = xp.asarray(a, dtype=rt), xp.asarray(b, dtype=rt)
    else:
        ad, bd = prepare(a, b)
    cond_t = cond if isinstance(cond, Tensor) else wrap(c)
    return apply(WhereBackward0, (cond_t, a, b), (), (c, ad, bd))


# ------------------------------------------------------------------ public functions


def add(a, b, alpha=1):
    if alpha == 1 and type(a) is Tensor and type(b) is Tensor and a._data.dtype is b._data.dtype:
        return apply(AddBackward0, (a, b), (), (a._data, b._data))
    try:
        x, y = prepare(a, b)
    except OperandTypeError:
        return operand_error("add", b)
    if not isinstance(a, Tensor):  # scalar + tensor: torch calls tensor.__radd__, i.e. add(tensor, scalar)
        a, b, x, y = b, a, y, x
    if alpha != 1:
        if type(alpha) is complex:
            _check_alpha(x)
        return apply(AddBackward0, (a, b), (alpha,), (x, y))
    return apply(AddBackward0, (a, b), (), (x, y))


def _check_alpha(x) -> None:
    """A complex alpha needs a complex input (torch's check)."""
    if getattr(x, "dtype", None) is not None and x.dtype.kind != "c":
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


def _check_bool_subtraction(a, b) -> None:
    """torch refuses ``-`` on bool tensors (a Python bool counts as a bool tensor here)."""
    a_bool = type(a) is bool or (isinstance(a, Tensor) and a._data.dtype.kind == "b")
    b_bool = type(b) is bool or (isinstance(b, Tensor) and b._data.dtype.kind == "b")
    if a_bool and b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
            "operator instead."
        )
    if a_bool or b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
            "use the `~` or `logical_not()` operator instead."
        )


def sub(a, b, alpha=1):
    if alpha == 1 and type(a) is Tensor and type(b) is Tensor and a._data.dtype is b._data.dtype:
        if a._data.dtype.kind != "b":
            return apply(SubBackward0, (a, b), (), (a._data, b._data))
    _check_bool_subtraction(a, b)
    try:
        x, y = prepare(a, b)
    except OperandTypeError:
        return operand_error("sub", b)
    if alpha != 1:
        if type(alpha) is complex:
            _check_alpha(x)
        return apply(SubBackward0, (a, b), (alpha,), (x, y))
    return apply(SubBackward0, (a, b), (), (x, y))


def rsub(a: Tensor, other, alpha=1):
    """other - alpha * a (``2 - x``, ``torch.rsub(x, y)``); RsubBackward0 for a Tensor ``other``, RsubBackward1
    for a number, as torch."""
    _check_bool_subtraction(other, a)
    if isinstance(other, Tensor):
        x, y = prepare(a, other)
        if alpha != 1:
            if type(alpha) is complex:
                _check_alpha(x)
            return apply(RsubBackward0, (a, other), (alpha,), (x, y))
        return apply(RsubBackward0, (a, other), (), (x, y))
    x, y = prepare(a, other)
    if alpha != 1:
        return apply(RsubBackward1, (a,), (y,), (x * alpha,))
    return apply(RsubBackward1, (a,), (y,), (x,))


def mul(a, b):
    if type(a) is Tensor and type(b) is Tensor and a._data.dtype is b._data.dtype:  # no promotion needed
        return apply(MulBackward0, (a, b), (), (a._data, b._data))
    try:
        x, y = prepare(a, b)
    except OperandTypeError:
        return operand_error("mul", b)
    if not isinstance(a, Tensor):
        a, b, x, y = b, a, y, x
    return apply(MulBackward0, (a, b), (), (x, y))


def div(a, b, *, rounding_mode=None):
    """div(input, other, *, rounding_mode=None): true division (DivBackward0), or 'trunc' / 'floor' (DivBackward2)."""
    if rounding_mode is not None:
        return _rounded_div(a, b, rounding_mode)
    if not isinstance(a, Tensor):  # scalar / tensor: torch computes reciprocal(b) * a
        return mul(reciprocal(b), a)
    try:
        x, y = prepare(a, b, true_divide=True)
    except OperandTypeError:
        return operand_error("div", b)
    return apply(DivBackward0, (a, b), (), (x, y))


true_divide = divide = div


def pow(a, exponent):  # noqa: A001 - torch's name
    if isinstance(a, Tensor):
        if isinstance(exponent, Tensor):
            x, y = prepare(a, exponent)
            return apply(PowBackward1, (a, exponent), (), (x, y))
        try:
            x, y = prepare(a, exponent)
        except OperandTypeError:
            return operand_error("pow", exponent)
        return apply(PowBackward0, (a,), (y,), (x,))
    # scalar base, tensor exponent
    x, y = prepare(a, exponent)
    return apply(PowBackward2, (exponent,), (x,), (y,))


def neg(a: Tensor) -> Tensor:
    try:  # (a try costs nothing on the hot path; NumPy refuses a bool negation with its own TypeError)
        return apply(NegBackward0, (a,))
    except TypeError:
        if isinstance(a, Tensor) and a._data.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                               "invert a mask, use the `~` or `logical_not()` operator instead.") from None
        raise


negative = neg


def _float_input(a: Tensor):
    """Unary float functions promote integer tensors to the default float dtype, as torch."""
    d = a._data
    if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS:
        return (d,)
    from .._dtype import default_float_np

    return (d.astype(default_float_np()),)


def exp(a: Tensor) -> Tensor:
    d = a._data
    return apply(ExpBackward0, (a,), (), (d,) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else _float_input(a))


def log(a: Tensor) -> Tensor:
    d = a._data
    return apply(LogBackward0, (a,), (), (d,) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else _float_input(a))


def sqrt(a: Tensor) -> Tensor:
    d = a._data
    return apply(SqrtBackward0, (a,), (), (d,) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else _float_input(a))


def sin(a: Tensor) -> Tensor:
    d = a._data
    return apply(SinBackward0, (a,), (), (d,) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else _float_input(a))


def cos(a: Tensor) -> Tensor:
    d = a._data
    return apply(CosBackward0, (a,), (), (d,) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else _float_input(a))


def tanh(a: Tensor) -> Tensor:
    d = a._data
    return apply(TanhBackward0, (a,), (), (d,) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else _float_input(a))


def sigmoid(a: Tensor) -> Tensor:
    d = a._data
    return apply(SigmoidBackward0, (a,), (), (d,) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else _float_input(a))


def reciprocal(a: Tensor) -> Tensor:
    d = a._data
    return apply(ReciprocalBackward0, (a,), (), (d,) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else _float_input(a))


def relu(a: Tensor) -> Tensor:
    kind = a._data.dtype.kind
    if kind == "b":
        raise RuntimeError("Boolean inputs not supported for relu")
    if kind == "c":
        raise NotImplementedError(cs.CLAMP)
    return apply(ReluBackward0, (a,))


def abs(a: Tensor) -> Tensor:  # noqa: A001 - torch's name
    return apply(AbsBackward0, (a,))


absolute = abs


# ================================================================== more pointwise ops
# Formulas: PyTorch's tools/autograd/derivatives.yaml (and the kernels it names in
# FunctionsManual.cpp); choices at kinks and ties were checked against torch 2.13.


def _quiet(fn):
    """``fn`` with NumPy's floating-point warnings off: torch returns inf/nan silently."""

    def run(*args):
        with xp.errstate(all="ignore"):
            return fn(*args)

    run.__name__ = getattr(fn, "__name__", "run")
    return run


def _type_name(a) -> str:
    from .._dtype import scalar_type_name

    return scalar_type_name(a.dtype if hasattr(a, "dtype") else xp.asarray(a).dtype)


def _float_only(a: Tensor, kernel: str):
    """The array of ``a``; torch's NotImplementedError for integer and bool tensors."""
    d = a._data
    if d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(d)}'")
    return d


def _real_float_only(a: Tensor, kernel: str):
    """The array of ``a``; torch's NotImplementedError for integer, bool and complex tensors."""
    d = a._data
    if d.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(d)}'")
    return d


def _need_tensor(fn_name: str, value, arg: str = "other", position: int = 2) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn_name}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}")


def _to_float(d):
    if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS:
        return d
    from .._dtype import default_float_np

    return d.astype(default_float_np())


def _float_unary(op, real_kernel=None):
    """``real_kernel``: the op has no complex kernel in torch (its name, for torch's error)."""

    def fn(input, *, out=None):  # noqa: A002 - torch's name
        d = input._data
        if real_kernel is not None and d.dtype.kind == "c":
            raise cs.kernel_error(real_kernel, d.dtype)
        return apply(op, (input,), (), (d,) if d.dtype.kind in FLOATING_OR_COMPLEX_KINDS else (_to_float(d),))

    return fn


def _binary_grads(self):
    return self.next_functions[0][0] is not None, self.next_functions[1][0] is not None


def _float_binary(op, name, kernel, kinds="fc"):
    """``kinds``: the dtype kinds torch has a kernel for (``"f"``: no complex one)."""

    def fn(input, other):  # noqa: A002
        _need_tensor(name, other)
        x, y = prepare(input, other)
        if getattr(x, "dtype", xp.dtype("f8")).kind not in kinds:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(x)}'")
        return apply(op, (input, other), (), (x, y))

    fn.__name__ = name
    return fn


# ------------------------------------------------------------------ divisions: remainder, fmod, floor_divide

@register
class RemainderBackward0(Op):
    """remainder(input, other: Scalar) (Python's %, sign of the divisor): gradient passes to input."""

    @staticmethod
    def forward(a, b):
        return xp.remainder(a, b)

    def backward(self, g):
        return (g,)


@register
class RemainderBackward1(Op):
    """remainder(input, other: Tensor): grad, and -grad * floor(input / other) for other."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return xp.remainder(a, b)

    def backward(self, g):
        a, b = self.saved()
        need_a, need_b = _binary_grads(self)
        return (g if need_a else None, -g * div(a, b, rounding_mode="floor") if need_b else None)


@register
class FmodBackward0(Op):
    """fmod(input, other: Scalar) (C's fmod, sign of the dividend): gradient passes to input."""

    @staticmethod
    def forward(a, b):
        return xp.fmod(a, b)

    def backward(self, g):
        return (g,)


@register
class FmodBackward1(Op):
    """fmod(input, other: Tensor): grad, and -grad * trunc(input / other) for other."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return xp.fmod(a, b)

    def backward(self, g):
        a, b = self.saved()
        need_a, need_b = _binary_grads(self)
        return (g if need_a else None, -g * div(a, b, rounding_mode="trunc") if need_b else None)


def _operand_dtype(x, y):
    """The computation dtype of two prepared operands (arrays or Python numbers)."""
    return x.dtype if hasattr(x, "dtype") else y.dtype if hasattr(y, "dtype") else xp.asarray(x).dtype


def _mod_op(scalar_op, tensor_op, kernel):
    def fn(input, other):  # noqa: A002
        try:
            x, y = prepare(input, other)
        except OperandTypeError:
            return operand_error(kernel[: -len("_cpu")], other)
        npd = _operand_dtype(x, y)
        kind = npd.kind
        if kind == "b" or kind == "c":
            raise cs.kernel_error(kernel, npd)
        if kind in "iu" and xp.any(xp.asarray(y) == 0):
            raise RuntimeError("ZeroDivisionError")
        if not isinstance(input, Tensor):  # a number as dividend: a constant tensor
            input = wrap(xp.asarray(x))  # noqa: A001
            x = input._data
        with xp.errstate(all="ignore"):
            if not isinstance(other, Tensor):
                return apply(scalar_op, (input,), (y,), (x,))
            return apply(tensor_op, (input, other), (), (x, y))

    return fn


remainder = _mod_op(RemainderBackward0, RemainderBackward1, "remainder_cpu")
fmod = _mod_op(FmodBackward0, FmodBackward1, "fmod_cpu")


@register
class DivBackward2(Op):
    """div(input, other, rounding_mode='trunc' | 'floor'): piecewise constant, so zero gradients (derivatives.yaml)."""

    @staticmethod
    def forward(a, b, mode):
        with xp.errstate(all="ignore"):
            if mode == "floor":
                return xp.floor_divide(a, b)
            return xp.trunc(a / b)

    def backward(self, g):
        need_a, need_b = _binary_grads(self)
        return (g * 0 if need_a else None, g * 0 if need_b else None)


def _int_trunc_div(a, b):
    q = xp.floor_divide(a, b)
    # floor and trunc differ where the exact quotient is negative and inexact.
    fix = (xp.remainder(a, b) != 0) & ((xp.asarray(a) < 0) != (xp.asarray(b) < 0))
    return q + fix


def _rounded_div(a, b, mode):
    if mode not in ("trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")
    x, y = prepare(a, b)
    npd = _operand_dtype(x, y)
    kind = npd.kind
    if kind == "b" or kind == "c":
        raise cs.kernel_error(f"div_{mode}_cpu", npd)
    if kind in "iu":
        if xp.any(xp.asarray(y) == 0):
            raise RuntimeError("ZeroDivisionError")
        out = xp.floor_divide(x, y) if mode == "floor" else _int_trunc_div(x, y)
        return wrap(xp.asarray(out))
    if not isinstance(a, Tensor):
        a = wrap(xp.asarray(x))
    if not isinstance(b, Tensor):
        return apply(DivBackward2, (a,), (y, mode), (x,))
    return apply(DivBackward2, (a, b), (mode,), (x, y))


def _not_implemented_backward(self, g):
    raise RuntimeError("derivative for aten::floor_divide is not implemented")


# torch records floor_divide with a node that only raises at backward, named "NotImplemented".
FloorDivideNotImplemented = register(type("NotImplemented", (Op,), {
    "__slots__": (),
    "__doc__": "floor_divide: torch has no derivative; its node (named NotImplemented) raises at backward.",
    "forward": staticmethod(lambda a, b: xp.floor_divide(a, b)),
    "backward": _not_implemented_backward,
    "name": lambda self: "torch::autograd::NotImplemented",
    "__module__": __name__,
}))


def floor_divide(input, other):  # noqa: A002
    try:
        x, y = prepare(input, other)
    except OperandTypeError:
        return operand_error("floor_divide", other)
    npd = _operand_dtype(x, y)
    kind = npd.kind
    if kind == "b" or kind == "c":
        raise cs.kernel_error("div_floor_cpu", npd)
    if kind in "iu":
        if _limited_in_use[0] and npd in LIMITED_NP:  # uint16/32/64: torch has no floor-division kernel
            from .limited_dtypes import not_implemented

            raise not_implemented("div_floor_cpu", npd)
        if xp.any(xp.asarray(y) == 0):
            raise RuntimeError("ZeroDivisionError")
        return wrap(xp.asarray(xp.floor_divide(x, y)))
    if not isinstance(input, Tensor):
        input = wrap(xp.asarray(x))  # noqa: A001
    other_t = other if isinstance(other, Tensor) else wrap(xp.asarray(y, dtype=x.dtype))
    with xp.errstate(all="ignore"):
        return apply(FloorDivideNotImplemented, (input, other_t), (), (x, other_t._data))


def float_power(input, exponent):  # noqa: A002
    """float_power: pow computed in float64 (complex128 for complex inputs); a cast first where needed."""
    def up(v):
        if isinstance(v, Tensor):
            target = xp.complex128 if v._data.dtype.kind == "c" else xp.float64
            from .shape import to

            return to(v, xp.dtype(target))
        return complex(v) if isinstance(v, complex) else float(v)

    if isinstance(exponent, Tensor) and isinstance(input, Tensor):
        kind = "c" if "c" in (input._data.dtype.kind, exponent._data.dtype.kind) else "f"
        target = xp.dtype(xp.complex128 if kind == "c" else xp.float64)
        from .shape import to

        return pow(to(input, target), to(exponent, target))
    return pow(up(input), up(exponent))


def square(input):  # noqa: A002
    """square(input) = pow(input, 2) (PowBackward0, as torch); bool gives int64."""
    if input._data.dtype.kind == "b":
        return wrap(input._data.astype(xp.int64) ** 2)
    return pow(input, 2)


# ------------------------------------------------------------------ ternary: lerp, addcmul, addcdiv

def _lerp_array(a, b, w):
    diff = b - a
    small = xp.abs(w) < 0.5
    return xp.where(small, a + w * diff, b - diff * (1 - w))


@register
class LerpBackward0(Op):
    """lerp(input, end, weight: Scalar) = input + weight * (end - input).

    Backward (derivatives.yaml): grad * (1 - weight).conj(), grad * weight.conj().
    """

    @staticmethod
    def forward(a, b, w):
        out = _lerp_array(a, b, w)
        return out.astype(a.dtype, copy=False) if out.dtype != a.dtype else out

    def backward(self, g):
        w = self._params[0]
        need_a, need_b = _binary_grads(self)
        return (g * conj(1 - w) if need_a else None, g * conj(w) if need_b else None)


@register
class LerpBackward1(Op):
    """lerp(input, end, weight: Tensor): grad * (1 - weight).conj(), grad * weight.conj(), grad * (end - input).conj()."""

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, b, w):
        return _lerp_array(a, b, w)

    def backward(self, g):
        a, b, w = self.saved()
        nf = self.next_functions
        return (
            g * conj(1 - w) if nf[0][0] is not None else None,
            g * conj(w) if nf[1][0] is not None else None,
            g * conj(b - a) if nf[2][0] is not None else None,
        )


def lerp(input, end, weight):  # noqa: A002
    from .._dtype import scalar_type_name

    def name(t):
        return {"Float": "float", "Double": "double", "Long": "long int", "Int": "int", "Half": "c10::Half",
                "Bool": "bool", "ComplexFloat": "c10::complex<float>", "ComplexDouble": "c10::complex<double>",
                }.get(scalar_type_name(t._data.dtype), scalar_type_name(t._data.dtype).lower())

    _need_tensor("lerp", end, "end")
    if end._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected dtype {name(input)} for `end` but got dtype {name(end)}")
    if isinstance(weight, Tensor):
        if weight._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected dtype {name(input)} for `weight` but got dtype {name(weight)}")
        _float_only(input, "lerp_kernel_tensor")
        return apply(LerpBackward1, (input, end, weight))
    _float_only(input, "lerp_kernel_scalar")
    cs.check_scalar_fits(weight, input._data.dtype)
    return apply(LerpBackward0, (input, end), (weight if isinstance(weight, complex) else float(weight),))


@register
class AddcmulBackward0(Op):
    """addcmul(input, t1, t2, value) = input + value * t1 * t2.

    Backward (derivatives.yaml): grad, grad * (t2 * value).conj(), grad * (t1 * value).conj().
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, t1, t2, value):
        return a + value * t1 * t2

    def backward(self, g):
        _, t1, t2 = self.saved()
        value = self._params[0]
        nf = self.next_functions
        return (
            g if nf[0][0] is not None else None,
            g * conj(t2 * value) if nf[1][0] is not None else None,
            g * conj(t1 * value) if nf[2][0] is not None else None,
        )


@register
class AddcdivBackward0(Op):
    """addcdiv(input, t1, t2, value) = input + value * t1 / t2.

    Backward (derivatives.yaml): grad, grad * (value / t2).conj(), -grad * (value * t1 / t2**2).conj().
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, t1, t2, value):
        with xp.errstate(all="ignore"):
            return a + value * (t1 / t2)

    def backward(self, g):
        _, t1, t2 = self.saved()
        value = self._params[0]
        nf = self.next_functions
        return (
            g if nf[0][0] is not None else None,
            g * conj(value / t2) if nf[1][0] is not None else None,
            -g * conj(value * t1 / (t2 * t2)) if nf[2][0] is not None else None,
        )


def _three(input, t1, t2, name):  # noqa: A002
    _need_tensor(name, t1, "tensor1", 2)
    _need_tensor(name, t2, "tensor2", 3)
    from .._dtype import result_type

    rt = result_type(input._data, t1._data, t2._data)
    from .broadcast import broadcast_shape

    broadcast_shape(broadcast_shape(input._data.shape, t1._data.shape), t2._data.shape)
    return rt, tuple(t._data if t._data.dtype == rt else t._data.astype(rt) for t in (input, t1, t2))


def addcmul(input, tensor1, tensor2, *, value=1):  # noqa: A002
    rt, arrays = _three(input, tensor1, tensor2, "addcmul")
    cs.check_scalar_fits(value, rt)
    if rt.kind == "b":
        raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
    if rt.kind in "iu":
        value = int(value)  # torch casts the scalar to the integer type
    return apply(AddcmulBackward0, (input, tensor1, tensor2), (value,), arrays)


_ADDCDIV_INT = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes."
)


def addcdiv(input, tensor1, tensor2, *, value=1):  # noqa: A002
    _need_tensor("addcdiv", tensor1, "tensor1", 2)
    _need_tensor("addcdiv", tensor2, "tensor2", 3)
    if tensor1._data.dtype.kind in "iub" and tensor2._data.dtype.kind in "iub":
        raise RuntimeError(_ADDCDIV_INT)
    rt, arrays = _three(input, tensor1, tensor2, "addcdiv")
    cs.check_scalar_fits(value, rt)
    return apply(AddcdivBackward0, (input, tensor1, tensor2), (value,), arrays)


def where(condition, input=None, other=None):  # noqa: A002
    """torch.where(condition, input, other); ``where(condition)`` gives the indices of True elements."""
    if input is None and other is None:
        return tuple(wrap(i.astype(xp.int64)) for i in xp.nonzero(condition._data))
    return where_(condition, input, other)


def _tensor_where(self, condition, other):
    return where_(condition, self, other)


# ------------------------------------------------------------------ in-place forms

def _inplace_method(fn, node=None):
    """``node``: the op torch records for the in-place form when it is not the out-of-place one's."""

    def method(self, *args, **kwargs):
        from .inplace import inplace as _inplace

        if node is not None:
            return _inplace(self, lambda a: apply(node, (a,), (), (_to_float(a._data),)))
        return _inplace(self, lambda a, *rest: fn(a, *rest, **kwargs), *args)

    method.__name__ = fn.__name__ + "_"
    return method


def _inplace_no_tensor_args(fn):
    """In-place form of an op whose extra arguments may be tensors: they are closed over, not passed."""

    def method(self, *args, **kwargs):
        from .inplace import inplace as _inplace

        return _inplace(self, lambda a: fn(a, *args, **kwargs))

    method.__name__ = fn.__name__ + "_"
    return method


def _with_inplace_forms(functions: dict, unary=(), binary=()) -> dict:
    """A family's Tensor methods: ``functions`` (name -> function) and the in-place form ``name_`` of each name
    in ``unary`` (``_inplace_method``: extra arguments passed through) and in ``binary``
    (``_inplace_no_tensor_args``: extra arguments, tensors among them, closed over)."""
    methods = dict(functions)
    for name in unary:
        methods[name + "_"] = _inplace_method(functions[name])
    for name in binary:
        methods[name + "_"] = _inplace_no_tensor_args(functions[name])
    return methods


def _div_(self, other, *, rounding_mode=None):
    from .inplace import direct
    from .inplace import inplace as _inplace

    if rounding_mode is None and direct(self, other, xp.true_divide):
        return self
    return _inplace(self, lambda a: div(a, other, rounding_mode=rounding_mode))


def _abs_(self):
    if self._data.dtype.kind == "c":  # |z| is real: torch will not write it back into a complex tensor
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    from .inplace import inplace as _inplace

    return _inplace(self, abs)


def _sgn_(self):
    from .complex import sgn
    from .inplace import inplace as _inplace

    return _inplace(self, sgn)


def _float_power_(self, exponent):
    """float_power_ computes in float64 / complex128, which must be the tensor's own dtype (torch's check)."""
    from .._dtype import scalar_type_name

    d = self._data.dtype
    complex_result = d.kind == "c" or (exponent._data.dtype.kind == "c" if isinstance(exponent, Tensor)
                                       else isinstance(exponent, complex))
    target = xp.dtype(xp.complex128 if complex_result else xp.float64)
    if d != target:
        raise RuntimeError(f"the base given to float_power_ has dtype {scalar_type_name(d)} but the operation's result "
                           f"requires dtype {scalar_type_name(target)}")
    from .inplace import inplace as _inplace

    return _inplace(self, lambda a: float_power(a, exponent))


_INPLACE_UNARY = dict(square=square, reciprocal=reciprocal, absolute=abs, negative=neg)
_INPLACE_BINARY = dict(
    lerp=lerp, addcmul=addcmul, addcdiv=addcdiv, remainder=remainder, fmod=fmod, floor_divide=floor_divide,
    float_power=float_power,
)


def _pw_tensor_methods():
    methods = dict(
        square=square, lerp=lerp, addcmul=addcmul, addcdiv=addcdiv, remainder=remainder, fmod=fmod,
        floor_divide=floor_divide, float_power=float_power, where=_tensor_where, relu=relu, div=div, divide=div,
        __mod__=remainder, __floordiv__=floor_divide,
        __rmod__=reflected(remainder), __rfloordiv__=reflected(floor_divide),
    )
    for name, fn in _INPLACE_UNARY.items():
        methods[name + "_"] = _inplace_method(fn)
    for name, fn in _INPLACE_BINARY.items():
        methods[name + "_"] = _inplace_no_tensor_args(fn)
    methods["abs_"] = _abs_
    methods["sgn_"] = _sgn_
    methods["float_power_"] = _float_power_
    methods["div_"] = _div_
    methods["__imod__"] = methods["remainder_"]
    methods["__ifloordiv__"] = methods["floor_divide_"]
    return methods


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = dict(
    floor_divide=floor_divide, remainder=remainder, fmod=fmod, float_power=float_power, square=square, lerp=lerp,
    addcmul=addcmul, addcdiv=addcdiv,
)
TENSOR_METHODS: dict = _pw_tensor_methods()
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
