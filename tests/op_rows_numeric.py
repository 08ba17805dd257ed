"""Rows of the op table for the numeric pointwise functions of src/dyngrad/_ops/numeric.py (see tests/op_table.py)."""

from __future__ import annotations

from op_table import WITH_COMPLEX, OpInfo, broadcast_pair


def _ldexp_int_exponent(lib, x):
    """ldexp with an integer exponent tensor (the common use): gradient to the mantissa only."""
    e = lib.arange(x.numel()).reshape(x.shape) % 5 - 2
    return lib.ldexp(x, e)


ROWS = [
    OpInfo("deg2rad", lambda lib, x: lib.deg2rad(x), covers=("Deg2RadBackward0",)),
    OpInfo("rad2deg", lambda lib, x: x.rad2deg(), covers=("Rad2DegBackward0",)),
    # the exponent is piecewise constant, so gradients agree away from powers of two (gradcheck off at jumps)
    OpInfo("frexp", lambda lib, x: lib.frexp(x * 3).mantissa, covers=("FrexpBackward0", "MulBackward0"),
           gradcheck=False),
    OpInfo("ldexp", lambda lib, x, y: lib.ldexp(x, y), broadcast_pair(), covers=("LdexpBackward0",),
           dtypes=WITH_COMPLEX),
    # torch's gradient for a negative integer exponent is 0 (pow(2, k) in integers), not finite differences
    OpInfo("ldexp_int_exponent", _ldexp_int_exponent, covers=("LdexpBackward0",), gradcheck=False),
    OpInfo("nextafter", lambda lib, x, y: lib.nextafter(x, y), broadcast_pair(), covers=("NextafterBackward0",),
           gradcheck=False),  # a step of one ulp: finite differences cannot see it
]
