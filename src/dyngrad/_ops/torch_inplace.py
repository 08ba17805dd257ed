"""The torch-level in-place functions (``torch.abs_(x)``, ``torch.sin_(x)``, ...): torch 2.13 exposes
``torch.X_`` for some of its in-place Tensor methods; each here calls ``Tensor.X_`` on its first argument, so
it shares the method's checks, version bump and autograd record (``AbsBackward0`` ... on the modified tensor).
A non-tensor first argument raises torch's TypeError.
"""

from __future__ import annotations

from .._tensor import Tensor

# torch 2.13's torch.X_ functions whose Tensor.X_ method dyngrad has
_METHOD_FORMS = (
    "abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_ ceil_ clamp_ "
    "clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ detach_ erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ "
    "gcd_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ round_ rsqrt_ "
    "sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_"
).split()


def _method_form(name: str):
    def fn(input, *args, **kwargs):  # noqa: A002 - torch's name
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}(input, ...): ``input.{name}(...)`` (in place; returns input)."
    return fn


def dropout_(input, p: float = 0.5, train: bool = True):  # noqa: A002 - torch's name
    """torch.dropout_(input, p, train): nn.functional.dropout(input, p, train, inplace=True)."""
    from ..nn import functional as F

    return F.dropout(input, p, train, inplace=True)


EXPORTS = {name: _method_form(name) for name in _METHOD_FORMS}
EXPORTS["dropout_"] = dropout_
