"""Rows of the op table for src/dyngrad/_ops/copies.py: the *_copy family, the *_scatter ops and as_strided
(see tests/op_table.py)."""

from __future__ import annotations

from op_table import WITH_COMPLEX, OpInfo, fixed, one_shape

C = dict(dtypes=WITH_COMPLEX)


def _diag_scatter(lib, x, src):
    return lib.diagonal_scatter(x, src, 1, 0, 1)


def _select_scatter(lib, x, src):
    return lib.select_scatter(x, src, 1, -1)


def _slice_scatter(lib, x, src):
    return lib.slice_scatter(x, src, 1, 0, 4, 2)


# as_strided reads memory, so the rows give it contiguous inputs (the table also draws non-contiguous ones,
# whose memory layout is the table's choice, not the op's)
def _as_strided_overlapping(lib, x):
    # windows that overlap (stride 1 along both dims): each storage element is read several times
    return lib.as_strided(x.contiguous(), (3, 3), (1, 1), 1)


def _as_strided_of_view(lib, x):
    # as_strided of a view reads the base's storage from the view's offset (torch's storage semantics)
    return lib.as_strided(x.contiguous()[1:], (2, 2), (2, 1))


ROWS = [
    OpInfo("alias_copy", lambda lib, x: lib.alias_copy(x), covers=("AliasBackward0_copy",), **C),
    OpInfo("expand_copy", lambda lib, x: lib.expand_copy(x, (2, 3, 4)), fixed((3, 1)),
           covers=("ExpandBackward0_copy",), **C),
    OpInfo("narrow_copy", lambda lib, x: lib.narrow_copy(x, 1, 1, 2), fixed((2, 4)), covers=("NarrowCopyBackward0",),
           **C),
    OpInfo("permute_copy", lambda lib, x: lib.permute_copy(x, (2, 0, 1)), fixed((2, 3, 4)),
           covers=("PermuteBackward0_copy",), **C),
    OpInfo("squeeze_copy", lambda lib, x: lib.squeeze_copy(x), one_shape(), covers=("SqueezeBackward0_copy",), **C),
    OpInfo("squeeze_copy_dim", lambda lib, x: lib.squeeze_copy(x, 1), fixed((2, 1, 3)),
           covers=("SqueezeBackward1_copy",), **C),
    OpInfo("squeeze_copy_dims", lambda lib, x: lib.squeeze_copy(x, (0, 1)), fixed((1, 1, 3)),
           covers=("SqueezeBackward2_copy",), **C),
    OpInfo("t_copy", lambda lib, x: lib.t_copy(x), fixed((2, 3)), covers=("TBackward0_copy",), **C),
    OpInfo("transpose_copy", lambda lib, x: lib.transpose_copy(x, 0, -1), fixed((2, 3, 4)),
           covers=("TransposeBackward0_copy",), **C),
    OpInfo("unbind_copy", lambda lib, x: lib.stack(lib.unbind_copy(x, 1)[::-1]), fixed((2, 3)),
           covers=("UnbindBackward0_copy", "StackBackward0"), **C),
    OpInfo("unfold_copy", lambda lib, x: lib.unfold_copy(x, 0, 2, 1), fixed((4, 3)), covers=("UnfoldBackward0_copy",),
           **C),
    OpInfo("unsqueeze_copy", lambda lib, x: lib.unsqueeze_copy(x, -1), one_shape(),
           covers=("UnsqueezeBackward0_copy",), **C),
    OpInfo("view_copy", lambda lib, x: lib.view_copy(x, (-1,)), one_shape(), covers=("ViewBackward0_copy",), **C),
    OpInfo("split_with_sizes_copy", lambda lib, x: lib.split_with_sizes_copy(x, [1, 3], 1)[1], fixed((2, 4)),
           covers=("SplitWithSizesBackward0_copy",), **C),
    OpInfo("diagonal_scatter", _diag_scatter, fixed((3, 4), (3,)), covers=("DiagonalScatterBackward0",), **C),
    # torch 2.13 refuses complex autograd for select_scatter and slice_scatter: real rows
    OpInfo("select_scatter", _select_scatter, fixed((2, 3, 2), (2, 2)), covers=("SelectScatterBackward0",)),
    OpInfo("slice_scatter", _slice_scatter, fixed((2, 5), (2, 2)), covers=("SliceScatterBackward0",)),
    OpInfo("as_strided", _as_strided_overlapping, fixed((4, 3)), covers=("AsStridedBackward0",), **C),
    OpInfo("as_strided_of_view", _as_strided_of_view, fixed((6,)), covers=("AsStridedBackward0", "SliceBackward0"),
           **C),
    OpInfo("as_strided_copy", lambda lib, x: lib.as_strided_copy(x.contiguous(), (2, 2), (1, 2)), fixed((3, 3)),
           covers=("AsStridedBackward0_copy",), **C),
    OpInfo("as_strided_scatter", lambda lib, x, s: lib.as_strided_scatter(x.contiguous(), s, (2, 2), (1, 2), 1),
           fixed((3, 3), (2, 2)), covers=("AsStridedScatterBackward0",), gradcheck=False, **C),
]
