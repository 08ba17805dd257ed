"""Pointwise ops: arithmetic, powers, transcendental functions and activations.

Derivative formulas follow PyTorch's tools/autograd/derivatives.yaml.
"""

from __future__ import annotations

from .._backend import constant, xp
from .._tensor import Tensor, wrap
from ._promote import prepare
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
        return g, (g if alpha == 1 else g * alpha)


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
        return g, (-g if alpha == 1 else g * -alpha)

    def backward_arrays(self, g):
        if self.next_functions[1][0] is None:
            return wrap(g), None
        alpha = self._params[0] if self._params else 1
        return wrap(g), wrap(-g if alpha == 1 else g * -alpha)


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
    """mul(input, other): d/dinput = grad * other, d/dother = grad * input."""

    save_inputs = True
    save_needs = ((1,), (0,))  # each gradient reads only the other factor

    @staticmethod
    def forward(a, b):
        return a * b

    def backward(self, g):
        a, b = self.saved()
        return (g * b if self.next_functions[0][0] is not None else None,
                g * a if self.next_functions[1][0] is not None else None)

    def backward_arrays(self, g):
        a, b = self.saved()
        return (
            wrap(g * _array(b)) if self.next_functions[0][0] is not None else None,
            wrap(g * _array(a)) if self.next_functions[1][0] is not None else None,
        )


@register
class DivBackward0(Op):
    """div(input, other): d/dinput = grad / other, d/dother = -grad * input / other**2."""

    save_inputs = True
    save_needs = ((1,), (0, 1))

    @staticmethod
    def forward(a, b):
        return a / b

    def backward(self, g):
        a, b = self.saved()
        ga = g / b if self.next_functions[0][0] is not None else None
        gb = -g * a / (b * b) if self.next_functions[1][0] is not None else None
        return ga, gb

    def backward_arrays(self, g):
        a, b = self.saved()
        a, b = _array(a), _array(b)
        ga = wrap(g / b) if self.next_functions[0][0] is not None else None
        gb = wrap(-g * a / (b * b)) if self.next_functions[1][0] is not None else None
        return ga, gb


@register
class PowBackward0(Op):
    """pow(input, exponent: Scalar): grad * exponent * input**(exponent - 1) (zero for exponent 0)."""

    save_inputs = True

    @staticmethod
    def forward(a, exponent):
        return a**exponent

    def backward(self, g):
        (a,) = self.saved()
        p = self._params[0]
        if p == 0:
            return (g * 0.0,)
        return (g * (p * a ** (p - 1)),)


@register
class PowBackward1(Op):
    """pow(input, exponent: Tensor).

    d/dinput = grad * exponent * input**(exponent-1), zero where exponent == 0;
    d/dexponent = grad * result * log(input), zero where input == 0 and exponent >= 0.
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, b):
        return a**b

    def backward(self, g):
        a, b, _ = self.saved()
        ga = gb = None
        if self.next_functions[0][0] is not None:
            ga = where_(b == 0, 0.0, g * b * a ** (b - 1))
        if self.next_functions[1][0] is not None:
            result = self.saved_result()
            gb = where_((a == 0) & (b >= 0), 0.0, g * result * log(a))
        return ga, gb


@register
class PowBackward2(Op):
    """pow(self: Scalar, exponent: Tensor) (``2 ** x``): grad * result * log(self)."""

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(exponent, base):
        return xp.asarray(base, dtype=exponent.dtype) ** exponent

    def backward(self, g):
        base = self._params[0]
        result = self.saved_result()
        if base == 0:
            exponent = self.saved()[0]
            return (where_(exponent >= 0, 0.0, g * result * float("-inf")),)
        return (g * result * float(xp.log(base)),)


# ------------------------------------------------------------------ unary


def _unary(name: str, fn, derivative, save: str = "input", doc: str = "", on_arrays=None):
    """Declare a unary op whose backward is ``derivative(grad, saved)``.

    ``on_arrays`` is the same formula on NumPy arrays, used when no graph is recorded
    (see Note [Backward on arrays] in registry.py).
    """

    if save == "result":

        def backward(self, g):
            return (derivative(g, self.saved_result()),)

        def backward_arrays(self, g):
            return (wrap(on_arrays(g, self.saved()[-1]._data)),)

    elif save == "input":

        def backward(self, g):
            return (derivative(g, self.saved()[0]),)

        def backward_arrays(self, g):
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
            "forward": staticmethod(fn),
            "backward": backward,
            "backward_arrays": backward_arrays if on_arrays is not None else None,
            "__module__": __name__,
        },
    )
    return register(cls)


NegBackward0 = _unary("NegBackward0", xp.negative, lambda g, _: -g, save="none", doc="neg: -grad", on_arrays=lambda g, _: -g)
ExpBackward0 = _unary(
    "ExpBackward0", xp.exp, lambda g, y: g * y, save="result", doc="exp: grad * result", on_arrays=xp.multiply
)
LogBackward0 = _unary("LogBackward0", xp.log, lambda g, x: g / x, doc="log: grad / input", on_arrays=xp.true_divide)
SqrtBackward0 = _unary(
    "SqrtBackward0",
    xp.sqrt,
    lambda g, y: g / (2 * y),
    save="result",
    doc="sqrt: grad / (2 * result)",
    on_arrays=lambda g, y: g / (2 * y),
)
SinBackward0 = _unary(
    "SinBackward0", xp.sin, lambda g, x: g * x.cos(), doc="sin: grad * cos(input)", on_arrays=lambda g, x: g * xp.cos(x)
)
CosBackward0 = _unary(
    "CosBackward0", xp.cos, lambda g, x: g * -x.sin(), doc="cos: grad * -sin(input)", on_arrays=lambda g, x: g * -xp.sin(x)
)
@register
class TanhBackwardBackward0(Op):
    """tanh_backward(grad, result) = grad * (1 - result**2), one node as in torch.

    Its own backward: d/dgrad = gg * (1 - result**2); d/dresult = -2 * gg * grad * result.
    """

    save_inputs = True

    @staticmethod
    def forward(g, y):
        out = y * y
        if type(out) is not xp.ndarray or out.shape != g.shape or out.dtype != g.dtype:
            return g * (1 - out)  # 0-d, broadcast or mixed dtypes: no buffer to reuse
        xp.subtract(constant(1, out.dtype), out, out=out)
        return xp.multiply(g, out, out=out)

    def backward(self, gg):
        g, y = self.saved()
        return (
            tanh_backward(gg, y) if self.next_functions[0][0] is not None else None,
            gg * g * y * -2 if self.next_functions[1][0] is not None else None,
        )


def tanh_backward(g: Tensor, y: Tensor) -> Tensor:
    return apply(TanhBackwardBackward0, (g, y))


@register
class SigmoidBackwardBackward0(Op):
    """sigmoid_backward(grad, result) = grad * result * (1 - result), one node as in torch.

    Its own backward: d/dgrad = gg * result * (1 - result); d/dresult = gg * grad * (1 - 2 * result).
    """

    save_inputs = True

    @staticmethod
    def forward(g, y):
        return g * (y * (1 - y))

    def backward(self, gg):
        g, y = self.saved()
        return (
            sigmoid_backward(gg, y) if self.next_functions[0][0] is not None else None,
            gg * g * (1 - 2 * y) if self.next_functions[1][0] is not None else None,
        )


def sigmoid_backward(g: Tensor, y: Tensor) -> Tensor:
    return apply(SigmoidBackwardBackward0, (g, y))


@register
class ThresholdBackwardBackward0(Op):
    """threshold_backward(grad, result, 0): grad where result > 0, else 0 (relu's backward, as torch)."""

    save_inputs = True

    @staticmethod
    def forward(g, y):
        return g * (y > 0)

    def backward(self, gg):
        _, y = self.saved()
        return (threshold_backward(gg, y) if self.next_functions[0][0] is not None else None, None)


def threshold_backward(g: Tensor, y: Tensor) -> Tensor:
    return apply(ThresholdBackwardBackward0, (g, y))


TanhBackward0 = _unary(
    "TanhBackward0",
    xp.tanh,
    tanh_backward,
    save="result",
    doc="tanh: grad * (1 - result**2)",
    on_arrays=TanhBackwardBackward0.forward,
)
ReciprocalBackward0 = _unary(
    "ReciprocalBackward0", xp.reciprocal, lambda g, y: -g * (y * y), save="result", doc="reciprocal: -grad * result**2"
)


def _sigmoid(a):
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
    doc="sigmoid: grad * result * (1 - result)",
    on_arrays=SigmoidBackwardBackward0.forward,
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
    return g * wrap(xp.sign(x._data))


AbsBackward0 = _unary("AbsBackward0", xp.abs, _abs_backward, doc="abs: grad * sign(input) (0 at 0, as torch)")


# ------------------------------------------------------------------ where (used by backward formulas)


@register
class WhereBackward0(Op):
    """where(condition, input, other); condition is not differentiable."""

    save_inputs = True

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
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError("where(): at least one of input and other must be a Tensor")
    ad, bd = prepare(a, b)
    cond_t = cond if isinstance(cond, Tensor) else wrap(c)
    return apply(WhereBackward0, (cond_t, a, b), (), (c, ad, bd))


# ------------------------------------------------------------------ public functions


def add(a, b, alpha=1):
    if alpha == 1 and type(a) is Tensor and type(b) is Tensor and a._data.dtype is b._data.dtype:
        return apply(AddBackward0, (a, b), (), (a._data, b._data))
    x, y = prepare(a, b)
    if not isinstance(a, Tensor):  # scalar + tensor: torch calls tensor.__radd__, i.e. add(tensor, scalar)
        a, b, x, y = b, a, y, x
    if alpha != 1:
        return apply(AddBackward0, (a, b), (alpha,), (x, y))
    return apply(AddBackward0, (a, b), (), (x, y))


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
    x, y = prepare(a, b)
    if alpha != 1:
        return apply(SubBackward0, (a, b), (alpha,), (x, y))
    return apply(SubBackward0, (a, b), (), (x, y))


def rsub(a: Tensor, other, alpha=1):
    """other - alpha * a, for ``other`` a Python number (``2 - x``)."""
    if isinstance(other, Tensor):
        return sub(other, a, alpha)
    _check_bool_subtraction(other, a)
    x, y = prepare(a, other)
    if alpha != 1:
        return apply(RsubBackward1, (a,), (y,), (x * alpha,))
    return apply(RsubBackward1, (a,), (y,), (x,))


def mul(a, b):
    if type(a) is Tensor and type(b) is Tensor and a._data.dtype is b._data.dtype:  # no promotion needed
        return apply(MulBackward0, (a, b), (), (a._data, b._data))
    x, y = prepare(a, b)
    if not isinstance(a, Tensor):
        a, b, x, y = b, a, y, x
    return apply(MulBackward0, (a, b), (), (x, y))


def div(a, b, rounding_mode=None):
    if rounding_mode is not None:
        from .._tensor import Tensor as _T  # noqa: F401

        x, y = prepare(a, b)
        fn = xp.floor_divide if rounding_mode == "floor" else (lambda p, q: xp.trunc(p / q).astype(xp.result_type(p, q)))
        return wrap(xp.asarray(fn(x, y)))
    if not isinstance(a, Tensor):  # scalar / tensor: torch computes reciprocal(b) * a
        return mul(reciprocal(b), a)
    x, y = prepare(a, b, true_divide=True)
    return apply(DivBackward0, (a, b), (), (x, y))


true_divide = divide = div


def pow(a, exponent):  # noqa: A001 - torch's name
    if isinstance(a, Tensor):
        if isinstance(exponent, Tensor):
            x, y = prepare(a, exponent)
            return apply(PowBackward1, (a, exponent), (), (x, y))
        x, y = prepare(a, exponent)
        return apply(PowBackward0, (a,), (y,), (x,))
    # scalar base, tensor exponent
    x, y = prepare(a, exponent)
    return apply(PowBackward2, (exponent,), (x,), (y,))


def neg(a: Tensor) -> Tensor:
    return apply(NegBackward0, (a,))


negative = neg


def _float_input(a: Tensor):
    """Unary float functions promote integer tensors to the default float dtype, as torch."""
    d = a._data
    if d.dtype.kind in "fc":
        return (d,)
    from .._dtype import default_float_np

    return (d.astype(default_float_np()),)


def exp(a: Tensor) -> Tensor:
    d = a._data
    return apply(ExpBackward0, (a,), (), (d,) if d.dtype.kind in "fc" else _float_input(a))


def log(a: Tensor) -> Tensor:
    d = a._data
    return apply(LogBackward0, (a,), (), (d,) if d.dtype.kind in "fc" else _float_input(a))


def sqrt(a: Tensor) -> Tensor:
    d = a._data
    return apply(SqrtBackward0, (a,), (), (d,) if d.dtype.kind in "fc" else _float_input(a))


def sin(a: Tensor) -> Tensor:
    d = a._data
    return apply(SinBackward0, (a,), (), (d,) if d.dtype.kind in "fc" else _float_input(a))


def cos(a: Tensor) -> Tensor:
    d = a._data
    return apply(CosBackward0, (a,), (), (d,) if d.dtype.kind in "fc" else _float_input(a))


def tanh(a: Tensor) -> Tensor:
    d = a._data
    return apply(TanhBackward0, (a,), (), (d,) if d.dtype.kind in "fc" else _float_input(a))


def sigmoid(a: Tensor) -> Tensor:
    d = a._data
    return apply(SigmoidBackward0, (a,), (), (d,) if d.dtype.kind in "fc" else _float_input(a))


def reciprocal(a: Tensor) -> Tensor:
    d = a._data
    return apply(ReciprocalBackward0, (a,), (), (d,) if d.dtype.kind in "fc" else _float_input(a))


def relu(a: Tensor) -> Tensor:
    return apply(ReluBackward0, (a,))


def abs(a: Tensor) -> Tensor:  # noqa: A001 - torch's name
    return apply(AbsBackward0, (a,))


absolute = abs


# ------------------------------------------------------------------ registration
# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor
# (``Tensor.<name>``); __init__.py and _tensor_methods.py merge these at import.
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}  # dyngrad.linalg.<name>
FUNCTIONAL_EXPORTS: dict = {}  # dyngrad.nn.functional.<name>
