"""Pointwise ops: arithmetic, powers, transcendental functions and activations.

Derivative formulas follow PyTorch's tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

from .._backend import constant, xp
from .._tensor import Tensor, wrap
from . import complex_support as cs
from ._promote import OperandTypeError, operand_error, prepare, reflected
from .comparison import isnan
from .complex import conj_value as conj
from .registry import Op, apply, register

# ------------------------------------------------------------------ binary


def _array(value):
    """A saved input as an array (Python scalars stay as they are)."""
    return value._data if type(value) is Tensor else value


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
            "__module__": __name__,
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
    if d.dtype.kind in "fcV":
        return (d,)
    from .._dtype import default_float_np

    return (d.astype(default_float_np()),)


def exp(a: Tensor) -> Tensor:
    d = a._data
    return apply(ExpBackward0, (a,), (), (d,) if d.dtype.kind in "fcV" else _float_input(a))


def log(a: Tensor) -> Tensor:
    d = a._data
    return apply(LogBackward0, (a,), (), (d,) if d.dtype.kind in "fcV" else _float_input(a))


def sqrt(a: Tensor) -> Tensor:
    d = a._data
    return apply(SqrtBackward0, (a,), (), (d,) if d.dtype.kind in "fcV" else _float_input(a))


def sin(a: Tensor) -> Tensor:
    d = a._data
    return apply(SinBackward0, (a,), (), (d,) if d.dtype.kind in "fcV" else _float_input(a))


def cos(a: Tensor) -> Tensor:
    d = a._data
    return apply(CosBackward0, (a,), (), (d,) if d.dtype.kind in "fcV" else _float_input(a))


def tanh(a: Tensor) -> Tensor:
    d = a._data
    return apply(TanhBackward0, (a,), (), (d,) if d.dtype.kind in "fcV" else _float_input(a))


def sigmoid(a: Tensor) -> Tensor:
    d = a._data
    return apply(SigmoidBackward0, (a,), (), (d,) if d.dtype.kind in "fcV" else _float_input(a))


def reciprocal(a: Tensor) -> Tensor:
    d = a._data
    return apply(ReciprocalBackward0, (a,), (), (d,) if d.dtype.kind in "fcV" else _float_input(a))


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

_LN2 = 0.6931471805599453
_LN10 = 2.302585092994046
_TWO_OVER_SQRTPI = 1.1283791670955126  # 2 / sqrt(pi)
_SQRT1_2 = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi)
_SQRT_2_OVER_PI = 0.7978845608028654
_GELU_KAPPA = 0.044715
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_ONE_SIXTH_F32 = float(xp.float32(1.0) / xp.float32(6.0))


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
    if d.dtype.kind not in "fcV":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(d)}'")
    return d


def _real_float_only(a: Tensor, kernel: str):
    """The array of ``a``; torch's NotImplementedError for integer, bool and complex tensors."""
    d = a._data
    if d.dtype.kind not in "fV":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_name(d)}'")
    return d


def _need_tensor(fn_name: str, value, arg: str = "other", position: int = 2) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn_name}(): argument '{arg}' (position {position}) must be Tensor, not {type(value).__name__}")


def _to_float(d):
    if d.dtype.kind in "fcV":
        return d
    from .._dtype import default_float_np

    return d.astype(default_float_np())


# ------------------------------------------------------------------ unary, float results

def _log1p_backward(g, x):
    return g / conj(x + 1)


def _acosh_backward(g, x):
    # derivatives.yaml: the real case saves one rsqrt with sqrt(x*y) = sqrt(x) sqrt(y), untrue for complex
    if x._data.dtype.kind == "c":
        return g * conj(rsqrt(x + 1) * rsqrt(x - 1))
    return g * rsqrt(x * x - 1)


Exp2Backward0 = _unary("Exp2Backward0", _quiet(xp.exp2), lambda g, y: g * conj(y) * _LN2, save="result",
                       doc="exp2: grad * result.conj() * ln(2)", complex_grad=True)
Expm1Backward0 = _unary("Expm1Backward0", _quiet(xp.expm1), lambda g, y: g * (conj(y) + 1), save="result",
                        doc="expm1: grad * (result.conj() + 1)", complex_grad=True)
Log2Backward0 = _unary("Log2Backward0", _quiet(xp.log2), lambda g, x: g / (conj(x) * _LN2),
                       doc="log2: grad / (input.conj() * ln(2))", complex_grad=True)
Log10Backward0 = _unary("Log10Backward0", _quiet(xp.log10), lambda g, x: g / (conj(x) * _LN10),
                        doc="log10: grad / (input.conj() * ln(10))", complex_grad=True)
Log1PBackward0 = _unary("Log1PBackward0", _quiet(xp.log1p), _log1p_backward, doc="log1p: grad / (input + 1).conj()",
                        complex_grad=True)
RsqrtBackward0 = _unary("RsqrtBackward0", _quiet(lambda a: 1 / xp.sqrt(a)), lambda g, y: -0.5 * g * conj(y**3),
                        save="result", doc="rsqrt: -0.5 * grad * (result**3).conj()", complex_grad=True)
TanBackward0 = _unary("TanBackward0", xp.tan, lambda g, y: g * conj(1 + y * y), save="result",
                      doc="tan: grad * (1 + result**2).conj()", complex_grad=True)
AsinBackward0 = _unary("AsinBackward0", _quiet(xp.arcsin), lambda g, x: g * conj(rsqrt(-x * x + 1)),
                       doc="asin: grad * rsqrt(1 - input**2).conj()", complex_grad=True)
AcosBackward0 = _unary("AcosBackward0", _quiet(xp.arccos), lambda g, x: g * -conj(rsqrt(-x * x + 1)),
                       doc="acos: grad * -rsqrt(1 - input**2).conj()", complex_grad=True)
AtanBackward0 = _unary("AtanBackward0", xp.arctan, lambda g, x: g / conj(x * x + 1),
                       doc="atan: grad / (input**2 + 1).conj()", complex_grad=True)
SinhBackward0 = _unary("SinhBackward0", _quiet(xp.sinh), lambda g, x: g * conj(cosh(x)),
                       doc="sinh: grad * cosh(input).conj()", complex_grad=True)
CoshBackward0 = _unary("CoshBackward0", _quiet(xp.cosh), lambda g, x: g * conj(sinh(x)),
                       doc="cosh: grad * sinh(input).conj()", complex_grad=True)
AsinhBackward0 = _unary("AsinhBackward0", xp.arcsinh, lambda g, x: g * conj(rsqrt(x * x + 1)),
                        doc="asinh: grad * rsqrt(input**2 + 1).conj()", complex_grad=True)
AcoshBackward0 = _unary("AcoshBackward0", _quiet(xp.arccosh), _acosh_backward,
                        doc="acosh: grad * rsqrt(input**2 - 1) (complex: (rsqrt(x + 1) * rsqrt(x - 1)).conj())",
                        complex_grad=True)
AtanhBackward0 = _unary("AtanhBackward0", _quiet(xp.arctanh), lambda g, x: g / conj(1 - x * x),
                        doc="atanh: grad / (1 - input**2).conj()", complex_grad=True)


def _erf_forward(a):
    from .special import erf as _erf

    return _erf(a)


def _erfc_forward(a):
    from .special import erfc as _erfc

    return _erfc(a)


def _erfinv_forward(a):
    from .special import erfinv as _erfinv

    return _erfinv(a)


ErfBackward0 = _unary("ErfBackward0", _erf_forward, lambda g, x: _TWO_OVER_SQRTPI * exp(-(x * x)) * g,
                      doc="erf: 2 / sqrt(pi) * exp(-input**2) * grad (forward: special.erf, Cody's approximation)")
ErfcBackward0 = _unary("ErfcBackward0", _erfc_forward, lambda g, x: -_TWO_OVER_SQRTPI * exp(-(x * x)) * g,
                       doc="erfc: -2 / sqrt(pi) * exp(-input**2) * grad")
ErfinvBackward0 = _unary("ErfinvBackward0", _erfinv_forward, lambda g, y: (0.5 * 1.7724538509055159) * exp(y * y) * g,
                         save="result", doc="erfinv: sqrt(pi) / 2 * exp(erfinv(input)**2) * grad")


def _float_unary(op, real_kernel=None):
    """``real_kernel``: the op has no complex kernel in torch (its name, for torch's error)."""

    def fn(input, *, out=None):  # noqa: A002 - torch's name
        d = input._data
        if real_kernel is not None and d.dtype.kind == "c":
            raise cs.kernel_error(real_kernel, d.dtype)
        return apply(op, (input,), (), (d,) if d.dtype.kind in "fcV" else (_to_float(d),))

    return fn


exp2 = _float_unary(Exp2Backward0)
expm1 = _float_unary(Expm1Backward0)
log2 = _float_unary(Log2Backward0)
log10 = _float_unary(Log10Backward0)
log1p = _float_unary(Log1PBackward0)
rsqrt = _float_unary(RsqrtBackward0)
tan = _float_unary(TanBackward0)
asin = arcsin = _float_unary(AsinBackward0)
acos = arccos = _float_unary(AcosBackward0)
atan = arctan = _float_unary(AtanBackward0)
sinh = _float_unary(SinhBackward0)
cosh = _float_unary(CoshBackward0)
asinh = arcsinh = _float_unary(AsinhBackward0)
acosh = arccosh = _float_unary(AcoshBackward0)
atanh = arctanh = _float_unary(AtanhBackward0)
erf = _float_unary(ErfBackward0, "erf_vml_cpu")
erfc = _float_unary(ErfcBackward0, "erfc_vml_cpu")
erfinv = _float_unary(ErfinvBackward0, "erfinv_vml_cpu")


def _sinc_forward(a):
    # torch's kernel: 1 at 0, else sin(pi x) / (pi x) with pi x formed in the working dtype
    with xp.errstate(all="ignore"):
        product = a * a.dtype.type(xp.pi)
        out = xp.sin(product) / product
    return xp.where(a == 0, a.dtype.type(1), out)


def _sinc_backward(g, x):
    x_pi = x * xp.pi
    x_squared_pi = x * x * xp.pi
    out = g * conj((x_pi * cos(x_pi) - sin(x_pi)) / x_squared_pi)
    return where_(x_squared_pi == 0, 0.0, out)


SincBackward0 = _unary("SincBackward0", _sinc_forward, _sinc_backward,
                       doc="sinc: sin(pi x) / (pi x), 1 at 0; backward (FunctionsManual.cpp sinc_backward) "
                           "grad * ((pi x cos(pi x) - sin(pi x)) / (pi x^2)).conj(), 0 where pi x^2 is 0",
                       complex_grad=True)
sinc = _float_unary(SincBackward0)


# ------------------------------------------------------------------ unary, dtype kept

def _sign_forward(a):
    if a.dtype.kind == "b":
        return a.copy()
    if a.dtype.kind in "fV":
        return xp.where(xp.isnan(a), 0, xp.sign(a))  # torch: sign(nan) is 0
    return xp.sign(a)


SignBackward0 = _unary("SignBackward0", _sign_forward, lambda g, _: g * 0, save="none",
                       doc="sign: zero gradient everywhere (derivatives.yaml: zeros_like(grad)); sign(nan) = 0 as torch")
FloorBackward0 = _unary("FloorBackward0", xp.floor, lambda g, _: g * 0, save="none", doc="floor: zero gradient")
CeilBackward0 = _unary("CeilBackward0", xp.ceil, lambda g, _: g * 0, save="none", doc="ceil: zero gradient")
RoundBackward0 = _unary("RoundBackward0", xp.rint, lambda g, _: g * 0, save="none",
                        doc="round: half to even, zero gradient")
TruncBackward0 = _unary("TruncBackward0", xp.trunc, lambda g, _: g * 0, save="none", doc="trunc: zero gradient")
FracBackward0 = _unary("FracBackward0", lambda a: a - xp.trunc(a), lambda g, _: g, save="none",
                       doc="frac: input - trunc(input); gradient passes unchanged")


@register
class RoundBackward1(Op):
    """round(input, decimals=d): rint(x * 10**d) / 10**d (d < 0: rint(x / 10**-d) * 10**-d), as torch; zero gradient."""

    @staticmethod
    def forward(a, decimals):
        if decimals > 0:
            ten = float(10**decimals)
            return xp.rint(a * ten) / ten
        ten = float(10 ** (-decimals))
        return xp.rint(a / ten) * ten

    def backward(self, g):
        return (g * 0,)


def sign(input):  # noqa: A002
    if input._data.dtype.kind == "c":
        raise NotImplementedError(cs.SIGN)
    return apply(SignBackward0, (input,))


def _rounding(op, kernel, complex_text=None):
    """``complex_text``: torch's own refusal of complex input (floor/ceil/trunc); else its kernel error."""

    def fn(input, **kwargs):  # noqa: A002
        d = input._data
        kind = d.dtype.kind
        if kind == "b":
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        if kind in "iu":
            return wrap(d.copy())
        if kind == "c":
            raise NotImplementedError(complex_text) if complex_text else cs.kernel_error(kernel, d.dtype)
        return apply(op, (input,))

    return fn


floor = _rounding(FloorBackward0, "floor_vml_cpu", "floor is not supported for complex inputs")
ceil = _rounding(CeilBackward0, "ceil_vml_cpu", "ceil is not supported for complex inputs")
trunc = fix = _rounding(TruncBackward0, "trunc_vml_cpu", "trunc is not supported for complex inputs")
_round0 = _rounding(RoundBackward0, "round_vml_cpu")


_NO_DECIMALS = object()  # round() called without ``decimals``: torch's other overload


def round(input, decimals=_NO_DECIMALS):  # noqa: A001, A002 - torch's names
    """round(input, *, decimals=0): half to even.

    Without ``decimals`` this is torch's round() (RoundBackward0, integers copied); with ``decimals`` given,
    even 0, it is round.decimals (RoundBackward1, floating point only: torch's round_vml_cpu error for
    decimals=0, round_cpu otherwise)."""
    if decimals is _NO_DECIMALS:
        return _round0(input)
    _real_float_only(input, "round_vml_cpu" if decimals == 0 else "round_cpu")
    return apply(RoundBackward1, (input,), (int(decimals),))


def frac(input):  # noqa: A002
    _real_float_only(input, "frac_cpu")
    return apply(FracBackward0, (input,))


@register
class NanToNumBackward0(Op):
    """nan_to_num(input, nan=0, posinf=None, neginf=None): grad * isfinite(input)."""

    save_inputs = True

    @staticmethod
    def forward(a, nan, posinf, neginf):
        return xp.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)

    def backward(self, g):
        (x,) = self.saved()
        return (g * wrap(xp.isfinite(x._data)),)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    d = input._data
    if d.dtype.kind not in "fcV":
        return wrap(d.copy())
    return apply(NanToNumBackward0, (input,), (nan, posinf, neginf))


def square(input):  # noqa: A002
    """square(input) = pow(input, 2) (PowBackward0, as torch); bool gives int64."""
    if input._data.dtype.kind == "b":
        return wrap(input._data.astype(xp.int64) ** 2)
    return pow(input, 2)


# ------------------------------------------------------------------ activations

def _bool_error(a: Tensor, message: str) -> None:
    if a._data.dtype.kind == "b":
        raise RuntimeError(message)


def _stable_log_sigmoid(a):
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): no overflow for either sign.
    return xp.minimum(a, 0) - xp.log1p(xp.exp(-xp.abs(a)))


LogSigmoidBackward0 = _unary(
    "LogSigmoidBackward0", _stable_log_sigmoid, lambda g, x: g * sigmoid(-x),
    doc="logsigmoid: grad * sigmoid(-input) (log_sigmoid_backward)")


@register
class SoftplusBackward0(Op):
    """softplus(input, beta, threshold): log1p(exp(beta * x)) / beta, or x where beta * x > threshold.

    Backward (softplus_backward): grad * sigmoid(beta * x), or grad where beta * x > threshold.
    """

    save_inputs = True

    @staticmethod
    def forward(a, beta, threshold):
        z = a * beta
        with xp.errstate(all="ignore"):  # exp overflows only where the threshold branch is taken
            soft = xp.log1p(xp.exp(z)) / beta
        return xp.where(z > threshold, a, soft)

    def backward(self, g):
        (x,) = self.saved()
        beta, threshold = self._params
        z = x * beta
        return (where_(z > threshold, g, g * sigmoid(z)),)


@register
class HardtanhBackward0(Op):
    """hardtanh(input, min_val, max_val) (and relu6): clamp; gradient passes strictly inside (min_val, max_val)."""

    save_inputs = True

    @staticmethod
    def forward(a, lo, hi):
        out = xp.minimum(xp.maximum(a, lo), hi)
        return out.astype(a.dtype, copy=False) if out.dtype != a.dtype else out  # int tensors stay int

    def backward(self, g):
        (x,) = self.saved()
        lo, hi = self._params
        return (where_((x > lo) & (x < hi), g, 0.0),)


@register
class LeakyReluBackward0(Op):
    """leaky_relu(input, negative_slope): x if x > 0 else x * slope; gradient slope at 0, as torch."""

    save_inputs = True

    @staticmethod
    def forward(a, slope):
        return xp.where(a > 0, a, a * slope)

    def backward(self, g):
        (x,) = self.saved()
        return (where_(x > 0, g, g * self._params[0]),)


@register
class LeakyReluBackward1(LeakyReluBackward0):
    """leaky_relu_ (in place): torch's node for the in-place form; same formula (from the saved old values)."""


@register
class EluBackward0(Op):
    """elu(input, alpha, scale, input_scale) (elu, selu): scale * x for x > 0, else scale * alpha * expm1(x * input_scale).

    Backward (elu_backward): grad * scale for x > 0, else grad * input_scale * scale * alpha * exp(x * input_scale)
    (the negative branch at x == 0, as torch).
    """

    save_inputs = True

    @staticmethod
    def forward(a, alpha, scale, input_scale):
        with xp.errstate(all="ignore"):
            neg = xp.expm1(xp.minimum(a, 0) * input_scale) * (alpha * scale)
        return xp.where(a > 0, a * scale, neg)

    def backward(self, g):
        (x,) = self.saved()
        p = self._params
        alpha, scale, input_scale = (p[0], p[1], p[3]) if len(p) == 4 else p  # celu: its backward scale
        # exp of the input with positives replaced by 0: the branch not taken never overflows (no nan at
        # second order), and the second derivative is 0 at x == 0, as torch's elu_double_backward.
        neg = g * (exp(where_(x < 0, x, 0.0) * input_scale) * (input_scale * scale * alpha))
        return (where_(x <= 0, neg, g * scale),)


@register
class EluBackward1(EluBackward0):
    """elu_ / selu_ (in place): torch's node for the in-place form; same formula."""


@register
class CeluBackward0(EluBackward0):
    """celu(input, alpha) = elu with scale 1 and input_scale 1 / alpha.

    Params (alpha, 1, 1 / alpha, 1 / float32(alpha)): torch's forward uses 1 / alpha, its backward
    1.0 / alpha.toFloat() (alpha rounded to float32 first); the last param is that backward scale.
    """

    @staticmethod
    def forward(a, alpha, scale, input_scale, grad_input_scale):
        return EluBackward0.forward(a, alpha, scale, input_scale)


@register
class CeluBackward1(CeluBackward0):
    """celu_ (in place)."""


@register
class GeluBackward0(Op):
    """gelu(input, approximate): x * Phi(x) ('none') or its tanh approximation ('tanh').

    Backward (gelu_backward): 'none': grad * (Phi(x) + x * phi(x)); 'tanh': with
    u = sqrt(2/pi) * (x + 0.044715 x^3), t = tanh(u):
    grad * (0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2)).
    """

    save_inputs = True

    @staticmethod
    def forward(a, approximate):
        if approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (a + _GELU_KAPPA * (a * a * a))
            return 0.5 * a * (1 + xp.tanh(inner))
        return a * (0.5 * (1 + _erf_forward(a * _SQRT1_2)))

    def backward(self, g):
        (x,) = self.saved()
        if self._params[0] == "tanh":
            x2 = x * x
            t = tanh(_SQRT_2_OVER_PI * (x + _GELU_KAPPA * (x2 * x)))
            left = 0.5 * (1 + t)
            right = 0.5 * x * (1 - t * t) * (_SQRT_2_OVER_PI * (1 + 3 * _GELU_KAPPA * x2))
            return (g * (left + right),)
        cdf = 0.5 * (1 + erf(x * _SQRT1_2))
        pdf = _INV_SQRT_2PI * exp(-0.5 * (x * x))
        return (g * (cdf + x * pdf),)


SiluBackward0 = _unary(
    "SiluBackward0", lambda a: a * _sigmoid(a),
    lambda g, x: g * (lambda s: s * (1 + x * (1 - s)))(sigmoid(x)),
    doc="silu: x * sigmoid(x); backward grad * s * (1 + x * (1 - s)) with s = sigmoid(x)")


@_quiet
def _softplus_array(a):
    # as torch's mish kernel: log1p(exp(x)) (inf for large x, where tanh gives 1 anyway)
    return xp.log1p(xp.exp(a))


def _mish_backward(g, x):
    t = tanh(softplus(x))
    return g * (t + x * sigmoid(x) * (1 - t * t))


MishBackward0 = _unary(
    "MishBackward0", lambda a: a * xp.tanh(_softplus_array(a)), _mish_backward,
    doc="mish: x * tanh(softplus(x)); backward grad * (t + x * sigmoid(x) * (1 - t^2)), t = tanh(softplus(x))")


@register
class HardsigmoidBackward0(Op):
    """hardsigmoid: min(max(x + 3, 0), 6) / 6; gradient grad / 6 strictly inside (-3, 3)."""

    save_inputs = True

    @staticmethod
    def forward(a):
        return xp.minimum(xp.maximum(a + 3, 0), 6) / 6

    def backward(self, g):
        (x,) = self.saved()
        # torch multiplies by 1/6 rounded to float32 (for every dtype): the same constant here.
        return (where_((x > -3) & (x < 3), g * _ONE_SIXTH_F32, 0.0),)


@register
class HardswishBackward0(Op):
    """hardswish: x * min(max(x + 3, 0), 6) / 6.

    Backward (hardswish_backward): 0 for x <= -3, grad * (x / 3 + 0.5) for -3 < x < 3, grad for x >= 3.
    """

    save_inputs = True

    @staticmethod
    def forward(a):
        return a * xp.minimum(xp.maximum(a + 3, 0), 6) / 6

    def backward(self, g):
        (x,) = self.saved()
        return (where_(x <= -3, 0.0, where_(x < 3, g * (x / 3 + 0.5), g)),)


@register
class ThresholdBackward0(Op):
    """threshold(input, threshold, value): value where x <= threshold, else x; gradient zero where x <= threshold.

    The test is aten's ``x <= threshold``, so a NaN input passes through (NaN out, gradient kept)."""

    save_inputs = True

    @staticmethod
    def forward(a, threshold, value):
        return xp.where(a <= threshold, xp.asarray(value, dtype=a.dtype), a)

    def backward(self, g):
        (x,) = self.saved()
        return (where_(x <= self._params[0], 0.0, g),)


@register
class ThresholdBackward1(ThresholdBackward0):
    """threshold_ (in place)."""


def _maybe_inplace(input, inplace, compute):  # noqa: A002
    if inplace:
        from .inplace import inplace as _inplace

        return _inplace(input, compute)
    return compute(input)


def logsigmoid(input):  # noqa: A002
    _real_float_only(input, "log_sigmoid_cpu")
    return apply(LogSigmoidBackward0, (input,))


def softplus(input, beta=1.0, threshold=20.0):  # noqa: A002
    _real_float_only(input, "softplus_cpu")
    return apply(SoftplusBackward0, (input,), (beta, threshold))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    _bool_error(input, "Bool inputs not supported for hardtanh")
    if input._data.dtype.kind == "c":
        raise NotImplementedError(cs.CLAMP)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(input, inplace, lambda a: apply(HardtanhBackward0, (a,), (min_val, max_val)))


def hardtanh_(input, min_val=-1.0, max_val=1.0):  # noqa: A002
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):  # noqa: A002
    return hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002
    _real_float_only(input, "leaky_relu_cpu")
    if inplace:
        from .inplace import inplace as _inplace

        return _inplace(input, lambda a: apply(LeakyReluBackward1, (a,), (negative_slope,)))
    return apply(LeakyReluBackward0, (input,), (negative_slope,))


def leaky_relu_(input, negative_slope=0.01):  # noqa: A002
    return leaky_relu(input, negative_slope, True)


def _elu(input, op, params, inplace_op, inplace):  # noqa: A002
    _real_float_only(input, "elu_cpu")
    if inplace:
        from .inplace import inplace as _inplace

        return _inplace(input, lambda a: apply(inplace_op, (a,), params))
    return apply(op, (input,), params)


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    return _elu(input, EluBackward0, (alpha, 1.0, 1.0), EluBackward1, inplace)


def elu_(input, alpha=1.0):  # noqa: A002
    return elu(input, alpha, True)


def selu(input, inplace=False):  # noqa: A002
    return _elu(input, EluBackward0, (_SELU_ALPHA, _SELU_SCALE, 1.0), EluBackward1, inplace)


def selu_(input):  # noqa: A002
    return selu(input, True)


def celu(input, alpha=1.0, inplace=False):  # noqa: A002
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    # torch passes input_scale = 1.0 / alpha.toFloat(): alpha rounded to float32 first
    return _elu(input, CeluBackward0, (alpha, 1.0, 1.0 / alpha, 1.0 / float(xp.float32(alpha))), CeluBackward1, inplace)


def celu_(input, alpha=1.0):  # noqa: A002
    return celu(input, alpha, True)


def gelu(input, approximate="none"):  # noqa: A002
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _real_float_only(input, "GeluKernelImpl")
    return apply(GeluBackward0, (input,), (approximate,))


def silu(input, inplace=False):  # noqa: A002
    _float_only(input, "silu_cpu")
    return _maybe_inplace(input, inplace, lambda a: apply(SiluBackward0, (a,)))


def mish(input, inplace=False):  # noqa: A002
    _real_float_only(input, "mish_cpu")
    return _maybe_inplace(input, inplace, lambda a: apply(MishBackward0, (a,)))


def hardsigmoid(input, inplace=False):  # noqa: A002
    _real_float_only(input, "hardsigmoid_cpu")
    return _maybe_inplace(input, inplace, lambda a: apply(HardsigmoidBackward0, (a,)))


def hardswish(input, inplace=False):  # noqa: A002
    _real_float_only(input, "hardswish_cpu")
    return _maybe_inplace(input, inplace, lambda a: apply(HardswishBackward0, (a,)))


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    if input._data.dtype.kind == "c":
        raise cs.kernel_error("threshold_cpu", input._data.dtype)
    if type(threshold) is complex or type(value) is complex:
        cs.check_scalar_fits(complex(threshold if type(threshold) is complex else value), input._data.dtype)
    if inplace:
        from .inplace import inplace as _inplace

        return _inplace(input, lambda a: apply(ThresholdBackward1, (a,), (threshold, value)))
    return apply(ThresholdBackward0, (input,), (threshold, value))


def threshold_(input, threshold_value, value):  # noqa: A002
    return threshold(input, threshold_value, value, True)


def relu_functional(input, inplace=False):  # noqa: A002
    if inplace:
        from .inplace import inplace as _inplace

        return _inplace(input, relu)
    return relu(input)


def relu_(input):  # noqa: A002
    return relu_functional(input, True)


# ------------------------------------------------------------------ binary

def _binary_grads(self):
    return self.next_functions[0][0] is not None, self.next_functions[1][0] is not None


@register
class Atan2Backward0(Op):
    """atan2(input, other): with r = 1 / (input**2 + other**2): grad * other * r, grad * -input * r; at
    (0, 0) r is taken as 0 (torch's atan2_backward masks the infinite reciprocal), so the gradients are 0 and -0."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return xp.arctan2(a, b)

    def backward(self, g):
        a, b = self.saved()
        denom = a * a + b * b
        r = where_(denom == 0, 0.0, reciprocal(denom))
        need_a, need_b = _binary_grads(self)
        return (g * b * r if need_a else None, g * -a * r if need_b else None)


def atan2(input, other):  # noqa: A002
    _need_tensor("atan2", other)
    x, y = prepare(input, other, true_divide=True)
    if _operand_dtype(x, y).kind == "c":
        raise cs.kernel_error("atan2_cpu", _operand_dtype(x, y))
    return apply(Atan2Backward0, (input, other), (), (x, y))


arctan2 = atan2


@register
class MaximumBackward0(Op):
    """maximum(input, other): the gradient goes to the larger input; ties split it 0.5 / 0.5 (as torch)."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return xp.maximum(a, b)

    def backward(self, g):
        a, b = self.saved()
        need_a, need_b = _binary_grads(self)
        half = where_(a == b, g * 0.5, g)
        return (where_(a < b, 0.0, half) if need_a else None, where_(a > b, 0.0, half) if need_b else None)


@register
class MinimumBackward0(Op):
    """minimum(input, other): the gradient goes to the smaller input; ties split it 0.5 / 0.5 (as torch)."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return xp.minimum(a, b)

    def backward(self, g):
        a, b = self.saved()
        need_a, need_b = _binary_grads(self)
        half = where_(a == b, g * 0.5, g)
        return (where_(a > b, 0.0, half) if need_a else None, where_(a < b, 0.0, half) if need_b else None)


@register
class FmaxBackward0(Op):
    """fmax(input, other): maximum ignoring NaN; gradient to input where input >= other or other is NaN (no split)."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return xp.fmax(a, b)

    def backward(self, g):
        a, b = self.saved()
        pick_a = (a >= b) | isnan(b)
        need_a, need_b = _binary_grads(self)
        return (where_(pick_a, g, 0.0) if need_a else None, where_(pick_a, 0.0, g) if need_b else None)


@register
class FminBackward0(Op):
    """fmin(input, other): minimum ignoring NaN; gradient to input where input <= other or other is NaN."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return xp.fmin(a, b)

    def backward(self, g):
        a, b = self.saved()
        pick_a = (a <= b) | isnan(b)
        need_a, need_b = _binary_grads(self)
        return (where_(pick_a, g, 0.0) if need_a else None, where_(pick_a, 0.0, g) if need_b else None)


def _tensor_binary(op, name):
    def fn(input, other):  # noqa: A002
        _need_tensor(name, other)
        x, y = prepare(input, other)
        if x.dtype.kind == "c":
            raise RuntimeError(f"{name} not implemented for complex tensors.")
        return apply(op, (input, other), (), (x, y))

    fn.__name__ = name
    return fn


maximum = _tensor_binary(MaximumBackward0, "maximum")
minimum = _tensor_binary(MinimumBackward0, "minimum")
fmax = _tensor_binary(FmaxBackward0, "fmax")
fmin = _tensor_binary(FminBackward0, "fmin")


def _xlogy_array(x, y):
    with xp.errstate(all="ignore"):
        out = x * xp.log(y)
    # torch: 0 where x == 0 (even for y <= 0 or inf), nan wherever y is nan.
    out = xp.where((x == 0) & ~xp.isnan(y), 0, out)
    return out.astype(xp.result_type(x, y), copy=False) if hasattr(out, "astype") else out


@register
class XlogyBackward0(Op):
    """xlogy(input, other) = input * log(other) (0 where input == 0).

    d/dinput = xlogy(grad, other), 0 where input == 0 and other <= 0; d/dother = grad * input / other.
    """

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return _xlogy_array(a, b)

    def backward(self, g):
        a, b = self.saved()
        need_a, need_b = _binary_grads(self)
        ga = where_((a == 0) & (b <= 0), 0.0, xlogy(g, b)) if need_a else None
        return ga, (g * a / b if need_b else None)


@register
class XlogyBackward1(Op):
    """xlogy(self: Scalar, other): d/dother = grad * self / other."""

    save_inputs = True

    @staticmethod
    def forward(b, a):
        return _xlogy_array(xp.asarray(a, dtype=b.dtype), b)

    def backward(self, g):
        (b,) = self.saved()
        return (g * self._params[0] / b,)


@register
class XlogyBackward2(Op):
    """xlogy(input, other: Scalar): d/dinput = xlogy(grad, other), 0 where input == 0 when other <= 0."""

    save_inputs = True

    @staticmethod
    def forward(a, b):
        return _xlogy_array(a, xp.asarray(b, dtype=a.dtype))

    def backward(self, g):
        (a,) = self.saved()
        other = self._params[0]
        gx = xlogy(g, other)
        return (gx if other > 0 else where_(a == 0, 0.0, gx),)


def xlogy(input, other):  # noqa: A002
    """torch.xlogy: int inputs give the default float dtype; no complex kernel, as torch."""
    if not isinstance(input, Tensor):
        x, y = prepare(input, other, true_divide=True)
        cs.no_complex(y, "xlogy_cpu")
        return apply(XlogyBackward1, (other,), (float(x),), (y,))
    x, y = prepare(input, other, true_divide=True)
    if _operand_dtype(x, y).kind == "c":
        raise cs.kernel_error("xlogy_cpu", _operand_dtype(x, y))
    if not isinstance(other, Tensor):
        return apply(XlogyBackward2, (input,), (float(y),), (x,))
    return apply(XlogyBackward0, (input, other), (), (x, y))


@register
class LogaddexpBackward0(Op):
    """logaddexp(input, other) = log(exp(input) + exp(other)) (complex: ATen's _log_add_exp_helper).

    Backward (derivatives.yaml): grad / (1 + exp(other - input)).conj() and symmetric.
    """

    save_inputs = True
    complex_grad = True

    @staticmethod
    def forward(a, b):
        if a.dtype.kind == "c":
            return cs.logaddexp(a, b)
        return xp.logaddexp(a, b)

    def backward(self, g):
        a, b = self.saved()
        need_a, need_b = _binary_grads(self)
        return (g / conj(1 + exp(b - a)) if need_a else None, g / conj(1 + exp(a - b)) if need_b else None)


@register
class HypotBackward0(Op):
    """hypot(input, other) = sqrt(input**2 + other**2): grad * input / result, grad * other / result."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, b):
        return xp.hypot(a, b)

    def backward(self, g):
        a, b, _ = self.saved()
        r = self.saved_result()
        need_a, need_b = _binary_grads(self)
        return (g * a / r if need_a else None, g * b / r if need_b else None)


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


logaddexp = _float_binary(LogaddexpBackward0, "logaddexp", "logaddexp_cpu")
hypot = _float_binary(HypotBackward0, "hypot", "hypot_cpu", "f")


def _copysign_grad(g, x, r):
    # copysign_tensor_self_backward: grad * result / input, 0 where input == 0.
    ratio = where_(x == 0, 0.0, r / x)
    return g * ratio


@register
class CopysignBackward0(Op):
    """copysign(input, other: Tensor): |input| with other's sign; d/dinput = grad * result / input (0 at 0), d/dother = 0."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, b):
        return xp.copysign(a, b)

    def backward(self, g):
        a, _, _ = self.saved()
        need_a, need_b = _binary_grads(self)
        return (_copysign_grad(g, a, self.saved_result()) if need_a else None, g * 0 if need_b else None)


@register
class CopysignBackward1(Op):
    """copysign(input, other: Scalar)."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, b):
        return xp.copysign(a, xp.asarray(b, dtype=a.dtype))

    def backward(self, g):
        a, _ = self.saved()
        return (_copysign_grad(g, a, self.saved_result()),)


def copysign(input, other):  # noqa: A002
    x, y = prepare(input, other, true_divide=True)
    if _operand_dtype(x, y).kind == "c":
        raise cs.kernel_error("copysign_cpu", _operand_dtype(x, y))
    if not isinstance(other, Tensor):
        return apply(CopysignBackward1, (input,), (float(y),), (x,))
    return apply(CopysignBackward0, (input, other), (), (x, y))


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


# ------------------------------------------------------------------ ternary: lerp, addcmul, addcdiv, clamp

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


@register
class ClampBackward1(Op):
    """clamp(input, min: Scalar?, max: Scalar?): gradient passes where min <= input <= max (inclusive, as torch)."""

    save_inputs = True

    @staticmethod
    def forward(a, lo, hi):
        out = a
        if lo is not None:
            out = xp.maximum(out, lo)
        if hi is not None:
            out = xp.minimum(out, hi)
        return out if out is not a else a.copy()

    def backward(self, g):
        (x,) = self.saved()
        lo, hi = self._params
        if lo is not None and hi is not None:
            return (where_((x >= lo) & (x <= hi), g, 0.0),)
        if lo is not None:
            return (where_(x >= lo, g, 0.0),)
        return (where_(x <= hi, g, 0.0),)


@register
class ClampMinBackward0(Op):
    """clamp_min(input, min: Scalar): gradient where input >= min."""

    save_inputs = True

    @staticmethod
    def forward(a, lo):
        return xp.maximum(a, lo)

    def backward(self, g):
        (x,) = self.saved()
        return (where_(x >= self._params[0], g, 0.0),)


@register
class ClampMaxBackward0(Op):
    """clamp_max(input, max: Scalar): gradient where input <= max."""

    save_inputs = True

    @staticmethod
    def forward(a, hi):
        return xp.minimum(a, hi)

    def backward(self, g):
        (x,) = self.saved()
        return (where_(x <= self._params[0], g, 0.0),)


@register
class ClampBackward0(Op):
    """clamp(input, min: Tensor?, max: Tensor?) (min or max may be absent: the params say which are present).

    input: grad where min <= input <= max. With both bounds: min gets grad where input < min and min < max;
    max gets grad where input > max or max < min (then max is the result). One bound: it gets grad where it is the result.
    """

    save_inputs = True

    @staticmethod
    def forward(a, *rest):
        *bounds, has_lo, has_hi = rest
        it = iter(bounds)
        lo = next(it) if has_lo else None
        hi = next(it) if has_hi else None
        out = a
        if lo is not None:
            out = xp.maximum(out, lo)
        if hi is not None:
            out = xp.minimum(out, hi)
        return out

    def backward(self, g):
        saved = self.saved()
        has_lo, has_hi = self._params
        x = saved[0]
        lo = saved[1] if has_lo else None
        hi = saved[1 + has_lo] if has_hi else None
        nf = self.next_functions
        gx = glo = ghi = None
        if lo is not None and hi is not None:
            if nf[0][0] is not None:
                gx = where_((x >= lo) & (x <= hi), g, 0.0)
            if nf[1][0] is not None:
                glo = where_((x < lo) & (lo < hi), g, 0.0)
            if nf[2][0] is not None:
                ghi = where_((x > hi) | (hi < lo), g, 0.0)
            return gx, glo, ghi
        bound = lo if lo is not None else hi
        if nf[0][0] is not None:
            gx = where_(x >= bound, g, 0.0) if lo is not None else where_(x <= bound, g, 0.0)
        if nf[1][0] is not None:
            glo = where_(x < bound, g, 0.0) if lo is not None else where_(x > bound, g, 0.0)
        return gx, glo


@register
class ClampMinBackward1(Op):
    """clamp_min(input, min: Tensor): input gets grad where input >= min, min where input < min."""

    save_inputs = True

    @staticmethod
    def forward(a, lo):
        return xp.maximum(a, lo)

    def backward(self, g):
        x, lo = self.saved()
        nf = self.next_functions
        return (where_(x >= lo, g, 0.0) if nf[0][0] is not None else None,
                where_(x < lo, g, 0.0) if nf[1][0] is not None else None)


@register
class ClampMaxBackward1(Op):
    """clamp_max(input, max: Tensor): input gets grad where input <= max, max where input > max."""

    save_inputs = True

    @staticmethod
    def forward(a, hi):
        return xp.minimum(a, hi)

    def backward(self, g):
        x, hi = self.saved()
        nf = self.next_functions
        return (where_(x <= hi, g, 0.0) if nf[0][0] is not None else None,
                where_(x > hi, g, 0.0) if nf[1][0] is not None else None)


def _clamp_mixed_error(lo, hi):
    def tname(v):
        return "Tensor" if isinstance(v, Tensor) else type(v).__name__

    got = ", ".join(tname(v) for v in (lo, hi) if v is not None)
    marks = ", ".join(f"!{tname(v)}!" for v in (lo, hi) if v is not None)
    return TypeError(
        f"clamp() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (Tensor min = None, Tensor max = None)\n"
        f"      didn't match because some of the arguments have invalid types: ({marks})\n"
        " * (Number min = None, Number max = None)\n"
        f"      didn't match because some of the arguments have invalid types: ({marks})\n"
    )


def clamp(input, min=None, max=None):  # noqa: A002
    """clamp(input, min, max): both bounds numbers (ClampBackward1) or tensors (ClampBackward0); min > max gives max."""
    lo, hi = min, max
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if input._data.dtype.kind == "c":
        raise NotImplementedError(cs.CLAMP)
    lo_t, hi_t = isinstance(lo, Tensor), isinstance(hi, Tensor)
    if lo_t or hi_t:
        if (lo is not None and not lo_t) or (hi is not None and not hi_t):
            raise _clamp_mixed_error(lo, hi)
        from .._dtype import result_type

        present = [t for t in (lo, hi) if t is not None]
        rt = result_type(input._data, *[t._data for t in present])
        if rt.kind == "c":  # complex bounds of a real input: the kernel torch dispatches to has no complex form
            raise cs.kernel_error("clamp_cpu" if len(present) == 2 else "maximum_cpu" if lo_t else "minimum_cpu", rt)
        arrays = tuple(t._data if t._data.dtype == rt else t._data.astype(rt) for t in (input, *present))
        return apply(ClampBackward0, (input, *present), (lo is not None, hi is not None), arrays)
    from .._dtype import result_type

    if type(lo) is complex or type(hi) is complex:  # torch reads scalar bounds as double
        raise RuntimeError("value cannot be converted to type double without overflow")
    operands = [v for v in (lo, hi) if v is not None]
    rt = result_type(input._data, *operands)
    d = input._data if input._data.dtype == rt else input._data.astype(rt)
    if d.dtype.kind == "b":
        d = d.astype(xp.int64)
    return apply(ClampBackward1, (input,), (lo, hi), (d,))


clip = clamp


def clamp_min(input, min):  # noqa: A002
    if isinstance(min, Tensor):
        x, y = prepare(input, min)
        cs.no_complex(x, "maximum_cpu")
        return apply(ClampMinBackward1, (input, min), (), (x, y))
    x, y = prepare(input, min)
    cs.refuse_complex(x, cs.CLAMP)
    return apply(ClampMinBackward0, (input,), (y,), (x,))


def clamp_max(input, max):  # noqa: A002
    if isinstance(max, Tensor):
        x, y = prepare(input, max)
        cs.no_complex(x, "minimum_cpu")
        return apply(ClampMaxBackward1, (input, max), (), (x, y))
    x, y = prepare(input, max)
    cs.refuse_complex(x, cs.CLAMP)
    return apply(ClampMaxBackward0, (input,), (y,), (x,))


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
            return _inplace(self, lambda a: apply(node, (a,), (), (a._data if a._data.dtype.kind in "fcV"
                                                                  else _to_float(a._data),)))
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


class _NoInplaceDerivative(Op):
    """The node of an in-place form derivatives.yaml marks ``not_implemented`` (asinh_, acosh_, atanh_):
    the forward is the op's, the backward raises torch's NotImplementedError."""

    def backward(self, g):
        raise NotImplementedError(f"the derivative for 'inplace version of {self.what}' is not implemented.")


def _no_inplace_derivative(name: str, fn):
    stem = name[0].upper() + name[1:]
    return register(type(f"{stem}Backward1", (_NoInplaceDerivative,), {
        "__doc__": f"{name}_ (in place): torch has no derivative for it; its backward raises torch's error.",
        "forward": staticmethod(fn), "what": name, "__module__": __name__,
    }))


_INPLACE_NODE = {name: _no_inplace_derivative(name, fn) for name, fn in (
    ("asinh", AsinhBackward0.forward), ("acosh", AcoshBackward0.forward), ("atanh", AtanhBackward0.forward))}

_INPLACE_UNARY = dict(
    exp2=exp2, expm1=expm1, log2=log2, log10=log10, log1p=log1p, rsqrt=rsqrt, tan=tan, asin=asin, acos=acos,
    atan=atan, arcsin=asin, arccos=acos, arctan=atan, sinh=sinh, cosh=cosh, asinh=asinh, acosh=acosh, atanh=atanh,
    arcsinh=asinh, arccosh=acosh, arctanh=atanh, erf=erf, erfc=erfc, erfinv=erfinv, sign=sign, floor=floor, ceil=ceil,
    round=round, trunc=trunc, fix=fix, frac=frac, nan_to_num=nan_to_num, square=square, reciprocal=reciprocal,
    absolute=abs, negative=neg,
)
_INPLACE_BINARY = dict(
    clamp=clamp, clip=clip, clamp_min=clamp_min, clamp_max=clamp_max, lerp=lerp, addcmul=addcmul, addcdiv=addcdiv,
    atan2=atan2, arctan2=atan2, remainder=remainder, fmod=fmod, floor_divide=floor_divide, float_power=float_power,
    xlogy=xlogy, hypot=hypot, copysign=copysign,
)


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


def _pw_tensor_methods():
    methods = {name: fn for name, fn in dict(
        exp2=exp2, expm1=expm1, log2=log2, log10=log10, log1p=log1p, rsqrt=rsqrt, square=square, sign=sign,
        tan=tan, asin=asin, acos=acos, atan=atan, arcsin=asin, arccos=acos, arctan=atan, atan2=atan2,
        arctan2=atan2, sinh=sinh, cosh=cosh, asinh=asinh, acosh=acosh, atanh=atanh, arcsinh=asinh,
        arccosh=acosh, arctanh=atanh, erf=erf, erfc=erfc, erfinv=erfinv, lerp=lerp, addcmul=addcmul,
        addcdiv=addcdiv, clamp=clamp, clip=clip, clamp_min=clamp_min, clamp_max=clamp_max, maximum=maximum,
        minimum=minimum, fmax=fmax, fmin=fmin, floor=floor, ceil=ceil, round=round, trunc=trunc, fix=fix,
        frac=frac, nan_to_num=nan_to_num, xlogy=xlogy, logaddexp=logaddexp, hypot=hypot, copysign=copysign,
        remainder=remainder, fmod=fmod, floor_divide=floor_divide, float_power=float_power,
        where=_tensor_where, relu=relu, div=div, divide=div,
        __mod__=remainder, __floordiv__=floor_divide,
        __rmod__=reflected(remainder), __rfloordiv__=reflected(floor_divide),
    ).items()}
    for name, fn in _INPLACE_UNARY.items():
        methods[name + "_"] = _inplace_method(fn)
    for name, fn in _INPLACE_BINARY.items():
        methods[name + "_"] = _inplace_no_tensor_args(fn)
    methods["relu_"] = relu_
    for name, fn in (("asinh", asinh), ("acosh", acosh), ("atanh", atanh)):  # torch: no derivative in place
        methods[name + "_"] = methods["arc" + name[1:] + "_"] = _inplace_method(fn, _INPLACE_NODE[name])
    methods["abs_"] = _abs_
    methods["sgn_"] = _sgn_
    methods["float_power_"] = _float_power_
    methods["div_"] = _div_
    methods["__imod__"] = methods["remainder_"]
    methods["__ifloordiv__"] = methods["floor_divide_"]
    return methods


# ------------------------------------------------------------------ logit
@register
class LogitBackward0(Op):
    """logit(input, eps=None) = log(z / (1 - z)), z = input clamped to [eps, 1 - eps] (eps >= 0 only).

    Float/complex in, integers promote to the default float. Backward (derivatives.yaml:
    infinitely_differentiable_logit_backward): grad / (x (1 - x)) where eps <= x <= 1 - eps and 0 elsewhere;
    without eps, grad / (x (1 - x)) inside [0, 1] (inf at 0 and 1) and NaN outside. A negative eps does not
    clamp the forward but does bound the gradient to [eps, 1 - eps], as torch's.
    """

    save_inputs = True

    @staticmethod
    def forward(a, eps):
        z = a if eps is None or eps < 0 else xp.clip(a, eps, 1 - eps)
        return xp.log(z / (1 - z))

    def backward(self, g):
        (x,) = self.saved()
        eps = self._params[0]
        # torch's formula takes a given eps literally here, a negative one too (whose forward does not clamp)
        lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
        inside = (x >= lo).logical_and(x <= hi)
        if eps is not None:
            return (where_(inside, g / (x * (1 - x)), 0.0),)
        # torch's NaN outside [0, 1], written as a constant factor (1 inside, NaN outside) of a formula linear
        # in g: forward AD derives its tangent from it (Note [Tangents from the backward formulas]) and so gets
        # torch's NaN there, where a NaN branch of the where would be lost
        nan_outside = wrap(xp.where(inside._data, 1.0, xp.nan).astype(x._data.dtype))
        return (where_(inside, g / (x * (1 - x)), g) * nan_outside,)

    def backward_arrays(self, g):
        """Under a plain backward torch runs its logit_backward kernel instead, which treats a negative eps
        as no eps (NaN outside [0, 1]); this path is the same choice (Note [Backward on arrays])."""
        (x,) = self.saved()
        x = x._data
        eps = self._params[0]
        if eps is None or eps < 0:
            lo, hi, outside = 0.0, 1.0, xp.nan
        else:
            lo, hi, outside = eps, 1.0 - eps, 0.0
        out = xp.where((x >= lo) & (x <= hi), g / (x * (1 - x)), xp.asarray(outside, dtype=x.dtype))
        return (wrap(out.astype(x.dtype, copy=False)),)


def logit(input: Tensor, eps=None) -> Tensor:  # noqa: A002 - torch's name
    """torch.logit(input, eps=None) (LogitBackward0); no complex kernel, as torch."""
    cs.no_complex(input._data, "logit_cpu")
    return apply(LogitBackward0, (input,), (eps,), _float_input(input))


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = dict(
    floor_divide=floor_divide, remainder=remainder, fmod=fmod, float_power=float_power, exp2=exp2, expm1=expm1,
    log2=log2, log10=log10, log1p=log1p, rsqrt=rsqrt, square=square, sign=sign, tan=tan, asin=asin, acos=acos,
    atan=atan, arcsin=asin, arccos=acos, arctan=atan, atan2=atan2, arctan2=atan2, sinh=sinh, cosh=cosh,
    asinh=asinh, acosh=acosh, atanh=atanh, arcsinh=asinh, arccosh=acosh, arctanh=atanh, erf=erf, erfc=erfc,
    erfinv=erfinv, lerp=lerp, addcmul=addcmul, addcdiv=addcdiv, clamp=clamp, clip=clip, clamp_min=clamp_min,
    clamp_max=clamp_max, maximum=maximum, minimum=minimum, fmax=fmax, fmin=fmin, floor=floor, ceil=ceil,
    round=round, trunc=trunc, fix=fix, frac=frac, nan_to_num=nan_to_num, xlogy=xlogy, logaddexp=logaddexp,
    hypot=hypot, copysign=copysign, selu=selu, celu=celu, selu_=selu_, celu_=celu_, relu_=relu_,
    threshold=threshold, threshold_=threshold_,
)
TENSOR_METHODS: dict = _pw_tensor_methods()
EXPORTS["logit"] = TENSOR_METHODS["logit"] = logit
EXPORTS["sinc"] = TENSOR_METHODS["sinc"] = sinc
TENSOR_METHODS["sinc_"] = _inplace_method(sinc)
SPECIAL_EXPORTS: dict = {"sinc": sinc}  # dyngrad.special.<name>
TENSOR_METHODS["logit_"] = _inplace_no_tensor_args(logit)
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = dict(  # dyngrad.nn.functional.<name>
    relu=relu_functional, relu_=relu_, sigmoid=sigmoid, tanh=tanh, logsigmoid=logsigmoid, softplus=softplus,
    relu6=relu6, leaky_relu=leaky_relu, leaky_relu_=leaky_relu_, elu=elu, elu_=elu_, selu=selu, selu_=selu_,
    celu=celu, celu_=celu_, gelu=gelu, silu=silu, mish=mish, hardtanh=hardtanh, hardtanh_=hardtanh_,
    hardsigmoid=hardsigmoid, hardswish=hardswish, threshold=threshold, threshold_=threshold_,
)
