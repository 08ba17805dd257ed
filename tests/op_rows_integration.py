"""Rows of the op table for src/dyngrad/_ops/integration.py: compositions of recorded ops (see tests/op_table.py)."""

from __future__ import annotations

from op_table import WITH_COMPLEX, OpInfo, fixed

C = dict(dtypes=WITH_COMPLEX)


def _gradient_coordinates(lib, y, x):
    # uneven sample coordinates: sorted cumulative spacings keep them increasing
    coords = lib.cumsum(x.abs() + 0.5, 0)
    return lib.cat([g.reshape(-1) for g in lib.gradient(y, spacing=[coords], dim=1, edge_order=2)])


ROWS = [
    OpInfo("trapezoid_dx", lambda lib, y: lib.trapezoid(y, dx=0.5, dim=0), fixed((4, 3)),
           covers=("MulBackward1", "SumBackward1", "SelectBackward0", "AddBackward0", "SubBackward0"), **C),
    OpInfo("trapezoid_x", lambda lib, y, x: lib.trapezoid(y, x), fixed((2, 5), (5,)),
           covers=("DivBackward1", "MulBackward0", "SumBackward1", "SliceBackward0", "SubBackward0"), **C),
    OpInfo("cumulative_trapezoid_x", lambda lib, y, x: lib.cumulative_trapezoid(y, x, dim=0), fixed((4, 2), (4, 2)),
           covers=("DivBackward1", "CumsumBackward0", "MulBackward0"), **C),
    OpInfo("cumulative_trapezoid_dx", lambda lib, y: lib.cumulative_trapezoid(y, dx=2.0), fixed((3, 4)),
           covers=("CumsumBackward0", "MulBackward1"), **C),
    OpInfo("gradient", lambda lib, y: lib.cat([g.reshape(-1) for g in lib.gradient(y, spacing=0.5)]),
           fixed((3, 4)), covers=("CatBackward0",), **C),
    OpInfo("gradient_edge2", lambda lib, y: lib.gradient(y, dim=0, edge_order=2)[0], fixed((4, 2)),
           covers=("CatBackward0",), **C),
    OpInfo("gradient_coordinates", _gradient_coordinates, fixed((2, 5), (5,)), covers=("CatBackward0",)),
]
