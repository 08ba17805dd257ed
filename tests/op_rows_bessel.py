"""Rows of the op table for torch.i0 and torch.special's i0e/i1/i1e (see tests/op_table.py).

The domain spans both of Cephes' expansions (|x| <= 8 and beyond); ``ties`` draws integer inputs,
so x = 0 (where i1/i1e's backward switches to its limit 1/2 and i0e's to sgn(0) = 0) is reached.
The other Bessel functions and the polynomials are not differentiable in torch: they are compared
in tests/test_bessel.py and tests/test_polynomials.py.
"""

from __future__ import annotations

from op_table import OpInfo

WIDE = (-10.0, 10.0)

ROWS: list[OpInfo] = [
    OpInfo("i0", lambda lib, x: lib.i0(x), covers=("I0Backward0",), domain=WIDE, ties=True, int_ok=True),
    OpInfo("special_i0", lambda lib, x: lib.special.i0(x), covers=("I0Backward0",), domain=WIDE),
    OpInfo("i0_method", lambda lib, x: x.i0(), covers=("I0Backward0",), domain=WIDE),
    OpInfo("special_i0e", lambda lib, x: lib.special.i0e(x), covers=("SpecialI0EBackward0",), domain=WIDE, ties=True,
           int_ok=True),
    OpInfo("special_i1", lambda lib, x: lib.special.i1(x), covers=("SpecialI1Backward0",), domain=WIDE, ties=True,
           int_ok=True),
    OpInfo("special_i1e", lambda lib, x: lib.special.i1e(x), covers=("SpecialI1EBackward0",), domain=WIDE,
           ties=True, int_ok=True),
]
