"""Rows of the op table for src/dyngrad/_ops/shape_extras.py (see tests/op_table.py)."""

from __future__ import annotations

from op_table import WITH_COMPLEX, OpInfo, fixed, one_shape

C = dict(dtypes=WITH_COMPLEX)


def _pieces(lib, pieces):
    """The pieces of a split joined in reverse order: every piece's gradient path is exercised."""
    return lib.cat([p.reshape(-1) for p in pieces[::-1]])


def _fill_tensor(lib, x, v):
    # the value gets grad.sum(), the input zeros: multiply by x so both gradients are non-trivial
    return lib.fill(x, v.sum()) * x


ROWS = [
    OpInfo("unsafe_split", lambda lib, x: _pieces(lib, lib.unsafe_split(x, 2, 1)), fixed((2, 5)),
           covers=("UnsafeSplitBackward0", "CatBackward0", "ViewBackward0"), **C),
    OpInfo("unsafe_chunk", lambda lib, x: _pieces(lib, x.unsafe_chunk(3, 0)), fixed((7, 2)),
           covers=("UnsafeSplitBackward0", "CatBackward0", "ViewBackward0"), **C),
    OpInfo("unsafe_split_with_sizes", lambda lib, x: _pieces(lib, lib.unsafe_split_with_sizes(x, [1, 0, 3], 0)),
           fixed((4, 2)), covers=("UnsafeSplitWithSizesBackward0", "CatBackward0", "ViewBackward0"), **C),
    OpInfo("block_diag", lambda lib, a, b, c: lib.block_diag(a, b, c), fixed((), (3,), (2, 4)),
           covers=("BlockDiagBackward0",), **C),
    OpInfo("block_diag_any", lambda lib, a, b: lib.block_diag(a, b), one_shape(0, 2).map(lambda s: (s[0], (2, 1))),
           covers=("BlockDiagBackward0",), **C),
    OpInfo("fill", lambda lib, x: lib.fill(x, 1.5) * x, covers=("FillBackward0", "MulBackward0"), **C),
    OpInfo("fill_tensor", _fill_tensor, fixed((2, 3), (2,)), covers=("FillBackward1", "SumBackward0", "MulBackward0")),
]
