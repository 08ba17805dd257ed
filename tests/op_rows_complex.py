"""Rows of the op table for the complex-number ops (see tests/op_table.py): conj and its bit, the
real/imag views, view_as_real / view_as_complex, complex(), polar(), angle(), sgn() and the adjoint."""

from __future__ import annotations

from hypothesis import strategies as st

from op_table import NONZERO, REAL, WITH_COMPLEX, OpInfo, broadcast_pair, one_shape

C = dict(dtypes=WITH_COMPLEX)
COMPLEX = dict(dtypes=("complex64", "complex128"))


def _pairs():
    """Shapes whose last dim has size 2 (view_as_complex's input), non-empty."""
    return one_shape(max_dims=3, min_side=1).map(lambda s: (s[0] + (2,),))


ROWS = [
    OpInfo("conj", lambda lib, x: x.conj(), covers=("ConjBackward0",), **C),
    OpInfo("conj_twice", lambda lib, x: lib.conj(x.conj()) * 2, covers=("ConjBackward0",), **C),
    OpInfo("conj_physical", lambda lib, x: lib.conj_physical(x), covers=("ConjPhysicalBackward0",), **C),
    OpInfo("resolve_conj", lambda lib, x: x.conj().resolve_conj(), covers=("CloneBackward0",), **C),
    OpInfo("real", lambda lib, x: x.real, covers=("SelectBackward0", "ViewAsRealBackward0"), **C),
    OpInfo("imag", lambda lib, x: lib.imag(x), covers=("SelectBackward0",), **COMPLEX),
    OpInfo("imag_of_conj", lambda lib, x: x.conj().imag.resolve_neg(), covers=("SelectBackward0",), **COMPLEX),
    # (non-empty: torch.from_numpy gives an empty array zero strides, which view_as_complex refuses)
    OpInfo("view_as_real", lambda lib, x: lib.view_as_real(x), one_shape(min_side=1), covers=("ViewAsRealBackward0",),
           **COMPLEX),
    OpInfo("view_as_complex", lambda lib, x: lib.view_as_complex(x.contiguous()), _pairs(),
           covers=("ViewAsComplexBackward0",), complex_out=True),
    OpInfo("view_as_complex_round_trip", lambda lib, x: lib.view_as_complex(lib.view_as_real(x) * 2),
           covers=("ViewAsComplexBackward0", "ViewAsRealBackward0"), **COMPLEX),
    OpInfo("complex", lambda lib, x, y: lib.complex(x, y), broadcast_pair(), covers=("ComplexBackward0",), complex_out=True),
    OpInfo("polar", lambda lib, x, y: lib.polar(x, y), broadcast_pair(), covers=("PolarBackward0",),
           domain=(0.2, 2.0), complex_out=True),
    OpInfo("angle", lambda lib, x: x.angle(), covers=("AngleBackward0",), domain=NONZERO, **C),
    OpInfo("sgn", lambda lib, x: lib.sgn(x), covers=("SgnBackward0",), domain=NONZERO, **C),
    OpInfo("abs_complex", lambda lib, x: (x * x).abs(), covers=("AbsBackward0", "MulBackward0"), domain=NONZERO, **C),
    OpInfo("mH", lambda lib, x: x.mH, one_shape(min_dims=2), covers=("TransposeBackward0", "ConjBackward0"), **C),
    OpInfo("adjoint", lambda lib, x: x.adjoint() * 1, one_shape(min_dims=2), covers=("TransposeBackward0",), **C),
    OpInfo("H", lambda lib, x: x.H, one_shape(min_dims=2, max_dims=2), covers=("TransposeBackward0",), **C),
    OpInfo("isreal", lambda lib, x: lib.isreal(x * (x.abs() > 1)), differentiable=False, **C),
    OpInfo("real_times_complex", lambda lib, x, y: x * lib.complex(y, y * 2), broadcast_pair(),
           covers=("MulBackward0", "ComplexBackward0"), dtypes=("float64",), complex_out=True),
    OpInfo("complex_scalar", lambda lib, x, s: x * s + s, covers=("MulBackward0", "AddBackward0"),
           params=lambda d, sh: {"s": d.draw(st.sampled_from([1j, 2 - 0.5j, -1.5]))}, **COMPLEX),
    OpInfo("real_times_complex_scalar", lambda lib, x, s: x * s - s / (x * x + 1), covers=("MulBackward0",),
           params=lambda d, sh: {"s": d.draw(st.sampled_from([1j, 2 - 0.5j]))}, complex_out=True),
    OpInfo("to_complex", lambda lib, x: x.to(lib.complex128) * (1 + 1j), covers=("ToCopyBackward0",), dtypes=REAL, complex_out=True),
]
