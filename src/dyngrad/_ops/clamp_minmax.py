"""Bounds and elementwise extremes: clamp (clip), clamp_min, clamp_max, maximum, minimum, fmax and fmin.

Derivative formulas follow PyTorch's tools/autograd/derivatives.yaml; ties and bounds were checked against torch.
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor
from . import complex_support as cs
from ._promote import prepare
from .comparison import isnan
from .pointwise import (
    _binary_grads,
    _need_tensor,
    _with_inplace_forms,
    where_,
)
from .registry import Op, apply, register


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


# ------------------------------------------------------------------ registration
_FUNCTIONS = dict(
    clamp=clamp, clip=clip, clamp_min=clamp_min, clamp_max=clamp_max, maximum=maximum, minimum=minimum, fmax=fmax,
    fmin=fmin,
)
EXPORTS: dict = dict(_FUNCTIONS)  # dyngrad.<name>
TENSOR_METHODS: dict = _with_inplace_forms(  # Tensor.<name>
    _FUNCTIONS, binary=("clamp", "clip", "clamp_min", "clamp_max"),
)
