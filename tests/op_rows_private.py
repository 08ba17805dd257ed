"""Rows of the op table for aten's private entry points (src/dyngrad/_ops/native_norms.py, aten_kernels.py and
dyngrad.ops.aten): the tuple-returning native_* norms and the operators called as ``torch.ops.aten.<name>``
(see tests/op_table.py). Each row runs the same lambda on torch and dyngrad (``lib.ops.aten`` is torch's
dispatcher namespace on one side, dyngrad's stand-in on the other)."""

from __future__ import annotations

from hypothesis import strategies as st

from op_rows_nn import _gn_params, _gn_shapes
from op_table import WITH_COMPLEX, OpInfo, fixed, one_shape

C = dict(dtypes=WITH_COMPLEX)


@st.composite
def _channel_shapes(draw, affine=None):
    # (3, C, *): 3 or more values per channel (one value gives a zero variance, a NaN running variance, and an
    # output that is 0 up to torch's rounding; two give a gradient that is 0 up to rounding)
    c = draw(st.integers(1, 3))
    shapes = ((3, c) + tuple(draw(st.lists(st.sampled_from([1, 3]), max_size=2))),)
    if affine or (affine is None and draw(st.booleans())):
        shapes += ((c,), (c,))
    return shapes


@st.composite
def _ln_shapes(draw):
    # 3 or more normalised elements (one gives xhat = 0, two a gradient that is 0, each up to torch's rounding)
    lead = tuple(draw(st.lists(st.sampled_from([1, 3]), max_size=2)))
    ns = draw(st.sampled_from([(3,), (4,), (1, 3), (3, 4)]))
    return (lead + ns, ns, ns)


# ---- batch norm: the output (differentiable) and the saved statistics (not differentiable)
def _native_bn(lib, x, w=None, b=None, training=True):
    c = x.shape[1]
    rm, rv = lib.zeros(c, dtype=x.dtype) + 0.25, lib.ones(c, dtype=x.dtype) * 1.5
    return lib.native_batch_norm(x, w, b, rm, rv, training, 0.1, 1e-5)[0]


def _native_bn_stats(lib, x, w=None, b=None):
    _, mean, invstd = lib.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)
    return lib.cat([mean, invstd])


def _legit(lib, x, w=None, b=None, stats=False):
    c = x.shape[1]
    rm, rv = lib.zeros(c, dtype=x.dtype), lib.ones(c, dtype=x.dtype)
    out, mean, invstd = lib._native_batch_norm_legit(x, w, b, rm, rv, True, 0.5, 1e-5)
    return lib.cat([mean, invstd, rm, rv]) if stats else out  # the saved statistics and the updated buffers


def _legit_no_stats(lib, x, w=None, b=None):
    return lib._native_batch_norm_legit(x, w, b, True, 0.1, 1e-5)[0]


def _with_update(lib, x, w, b, stats=False):
    c = x.shape[1]
    rm, rv = lib.zeros(c, dtype=x.dtype), lib.ones(c, dtype=x.dtype)
    out, mean, invstd, reserve = lib.ops.aten._batch_norm_with_update(x, w, b, rm, rv, 0.1, 1e-5)
    assert reserve.shape == (0,) and reserve.dtype == lib.uint8
    return lib.cat([mean, invstd, rm, rv]) if stats else out


# ---- layer and group norm: every output (group norm's statistics are differentiable)
def _native_ln(lib, x, w, b, stats=False):
    out, mean, rstd = lib.native_layer_norm(x, tuple(w.shape), w, b, 1e-5)
    return lib.cat([mean.flatten(), rstd.flatten()]) if stats else out  # (the statistics are not differentiable)


def _native_gn(lib, x, w=None, b=None, groups=1):
    n, c = x.shape[:2]
    hw = x[0, 0].numel()
    out, mean, rstd = lib.native_group_norm(x, w, b, n, c, hw, groups, 1e-5)
    return lib.cat([out.flatten(), mean.flatten(), rstd.flatten()])


def _native_gn_output(lib, x, w=None, b=None, groups=1):
    n, c = x.shape[:2]
    return lib.native_group_norm(x, w, b, n, c, x[0, 0].numel(), groups, 1e-5)[0]


# ---- torch.ops.aten operators
def _softmax_backward_data(lib, g, x, dim):
    return lib.ops.aten._softmax_backward_data(g, x.softmax(dim), dim, x.dtype)


def _dim_of_second(data, shapes):
    nd = max(len(shapes[0]), 1)
    return {"dim": data.draw(st.integers(-nd, nd - 1))}


def _safe_softmax(lib, x, dim):
    # with 2 or more dims, the slices along ``dim`` at index 0 of another dim are all -inf: softmax would
    # give NaN there, _safe_softmax gives zeros (and a zero gradient)
    if x.dim() >= 2:
        other = (dim + 1) % x.dim()
        mask = lib.zeros(x.shape, dtype=lib.bool)
        mask.select(other, 0).fill_(True)
        x = x.masked_fill(mask, float("-inf"))
    return lib.ops.aten._safe_softmax.default(x, dim)


def _dropout_backward(lib, g):
    return lib.ops.aten.native_dropout_backward.default(g, g.detach() > 0, 2.0)


def _max_pool_backward(lib, x):
    out, idx = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
    return lib.ops.aten.max_pool2d_with_indices_backward.default(out * 2, x, [2, 2], [2, 2], [0, 0], [1, 1], False, idx)


def _slice(lib, x, dim, start, end, step):
    return lib.ops.aten.slice.Tensor(x, dim, start, end, step)


def _slice_params(data, shapes):
    nd = len(shapes[0])
    return {"dim": data.draw(st.integers(-nd, nd - 1)), "start": data.draw(st.sampled_from([None, 0, 1, -2])),
            "end": data.draw(st.sampled_from([None, 3, -1, 10])), "step": data.draw(st.integers(1, 3))}


def _upsample_aa(lib, x, size, scales):
    return lib.ops.aten._upsample_bilinear2d_aa.default(x, size, False, *scales)


def _upsample_aa_params(data, shapes):
    # sides of 2 or more that differ from the input's (5, 4): torch's forward leaves a side of unchanged size as it
    # is whatever its scale, but its backward applies the scale (see the report); a side of 1 differs too
    size = (data.draw(st.sampled_from([2, 3, 6])), data.draw(st.sampled_from([2, 3, 6])))
    # scales no smaller than size / input: a smaller one maps output pixels past the input's edge, where torch's
    # float32 kernel reads memory it never wrote (0, NaN or anything, run to run)
    scales = data.draw(st.sampled_from([(None, None), (size[0] / 5, size[1] / 4), (size[0] / 4, size[1] / 3.2)]))
    return {"size": size, "scales": scales}


# ---- _chunk_cat, _unsafe_masked_index(_put_accumulate): torch's top-level private ops (private_ops.py)
def _chunk_cat(lib, a, b, dim, chunks):
    return lib._chunk_cat([a, b], dim, chunks)


def _chunk_cat_params(data, shapes):
    return {"dim": data.draw(st.integers(0, 1)), "chunks": data.draw(st.integers(1, 4))}


def _masked_key(lib, rows: int, cols: int):
    # (rows, cols) positions into a (3, 4) input; those out of range are masked off, as torch's decompositions do
    r = lib.arange(rows).reshape(rows, 1) - 1
    c = lib.arange(cols).reshape(1, cols) * 2 - 1
    mask = (r >= 0) & (r < 3) & (c >= 0) & (c < 4)
    return mask, [r, c]


def _unsafe_masked_index(lib, x):
    mask, idx = _masked_key(lib, 5, 3)
    return lib._unsafe_masked_index(x, mask, idx, -1.5)


def _unsafe_masked_put(lib, x, v):
    mask, idx = _masked_key(lib, 5, 3)
    return lib._unsafe_masked_index_put_accumulate(x, mask, [idx[0] // 2, idx[1] // 2], v)


# ---- torch._segment_reduce: consecutive segments of one axis, lengths (or offsets) per leading batch element
def _segment(lib, x, reduce, lengths, axis, initial, offsets):
    index = lib.tensor(lengths, dtype=lib.int64)
    if offsets:  # the same segments given by their boundaries
        index = lib.cat([lib.zeros(index.shape[:-1] + (1,), dtype=lib.int64), index.cumsum(-1)], -1)
        return lib._segment_reduce(x, reduce, offsets=index, axis=axis, initial=initial)
    return lib._segment_reduce(x, reduce, lengths=index, axis=axis, initial=initial)


def _segment_params(reductions):
    def params(data, shapes):
        shape = shapes[0]
        axis = data.draw(st.integers(0, len(shape) - 1))
        n, count = shape[axis], data.draw(st.integers(1, 4))

        def row():  # ``count`` lengths (zeros allowed: empty segments) summing to n
            cuts = sorted(data.draw(st.lists(st.integers(0, n), min_size=count - 1, max_size=count - 1)))
            bounds = [0, *cuts, n]
            return [bounds[i + 1] - bounds[i] for i in range(count)]

        def nest(dims):  # one row of lengths per element of the leading dimensions
            return [nest(dims[1:]) for _ in range(dims[0])] if dims else row()

        lengths = nest(shape[:axis])
        return {"reduce": data.draw(st.sampled_from(reductions)), "lengths": lengths, "axis": axis,
                "initial": data.draw(st.sampled_from([None, 1.5, -0.5])), "offsets": data.draw(st.booleans())}
    return params


_SEGMENT_SHAPES = st.sampled_from([((5,),), ((4, 3),), ((2, 5, 3),), ((3, 4),)])


ROWS = [
    OpInfo("native_batch_norm_train", _native_bn, _channel_shapes(), covers=("NativeBatchNormBackward0",)),
    OpInfo("native_batch_norm_eval", lambda lib, x, w=None, b=None: _native_bn(lib, x, w, b, training=False),
           _channel_shapes(), covers=("NativeBatchNormBackward0",)),
    OpInfo("native_batch_norm_stats", _native_bn_stats, _channel_shapes(), differentiable=False),
    OpInfo("_native_batch_norm_legit", _legit, _channel_shapes(), covers=("NativeBatchNormLegitBackward0",)),
    OpInfo("_native_batch_norm_legit_stats", lambda lib, x, w=None, b=None: _legit(lib, x, w, b, stats=True),
           _channel_shapes(), differentiable=False),
    OpInfo("_native_batch_norm_legit_no_stats", _legit_no_stats, _channel_shapes(),
           covers=("NativeBatchNormLegitBackward1",)),
    OpInfo("_batch_norm_with_update", _with_update, _channel_shapes(affine=True), covers=("BatchNormWithUpdateBackward0",)),
    OpInfo("_batch_norm_with_update_stats", lambda lib, x, w, b: _with_update(lib, x, w, b, stats=True),
           _channel_shapes(affine=True), differentiable=False),
    OpInfo("native_layer_norm", _native_ln, _ln_shapes(), covers=("NativeLayerNormBackward0",)),
    OpInfo("native_layer_norm_stats", lambda lib, x, w, b: _native_ln(lib, x, w, b, stats=True), _ln_shapes(),
           differentiable=False),
    OpInfo("native_group_norm", _native_gn, _gn_shapes(), covers=("NativeGroupNormBackward0",), params=_gn_params),
    OpInfo("native_group_norm_output", _native_gn_output, _gn_shapes(), covers=("NativeGroupNormBackward0",),
           params=_gn_params),
    OpInfo("_softmax_backward_data", _softmax_backward_data,
           one_shape(min_dims=1).map(lambda s: (s[0], s[0])), covers=("SoftmaxBackwardDataBackward0",),
           params=_dim_of_second),
    OpInfo("_safe_softmax", _safe_softmax, one_shape(min_dims=1, min_side=1), covers=("SafeSoftmaxBackward0",),
           params=_dim_of_second),
    OpInfo("native_dropout_backward", _dropout_backward, covers=("NativeDropoutBackwardBackward0",)),
    OpInfo("max_pool2d_with_indices_backward", _max_pool_backward,
           st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(2, 5), st.integers(2, 5)).map(lambda s: (s,)),
           covers=("MaxPool2DWithIndicesBackwardBackward0",)),
    OpInfo("aten_slice", _slice, one_shape(min_dims=1), covers=("SliceBackward0",), params=_slice_params),
    OpInfo("_chunk_cat", _chunk_cat, st.sampled_from([((2, 3, 1), (2, 5)), ((1, 4), (1, 7, 2)), ((3, 2), (3, 2))]),
           differentiable=False, params=_chunk_cat_params, **C),
    OpInfo("_unsafe_masked_index", _unsafe_masked_index, fixed((3, 4)), covers=("UnsafeMaskedIndexBackward0",), **C),
    OpInfo("_unsafe_masked_index_put_accumulate", _unsafe_masked_put, fixed((3, 4), (5, 3)),
           covers=("UnsafeMaskedIndexPutAccumulateBackward0",), **C),
    OpInfo("_upsample_bilinear2d_aa", _upsample_aa, fixed((2, 2, 5, 4)), covers=("UpsampleBilinear2DAaBackward0",),
           params=_upsample_aa_params),
    # torch raises for a second-order gradient (no derivative for aten::_segment_reduce_backward)
    OpInfo("_segment_reduce", _segment, _SEGMENT_SHAPES, covers=("SegmentReduceBackward0",),
           params=_segment_params(["sum", "mean", "prod"]), second_order=False),
    OpInfo("_segment_reduce_max_min", _segment, _SEGMENT_SHAPES, covers=("SegmentReduceBackward0",),
           params=_segment_params(["max", "min"]), second_order=False, ties=True, gradcheck=False),
]
