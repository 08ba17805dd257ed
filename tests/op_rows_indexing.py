"""Rows for the indexing family (src/dyngrad/_ops/indexing.py); they join tests/op_table.py."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from op_table import WITH_COMPLEX, OpInfo, fixed, one_shape

C = dict(dtypes=WITH_COMPLEX)  # ops torch runs (or refuses, in its words) on complex numbers


def _idx(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.int64))


def _index_select_params(data, shapes):
    nd = len(shapes[0])
    d = data.draw(st.integers(-nd, nd - 1))
    n = shapes[0][d]
    size = data.draw(st.integers(0, 5))
    return {"dim": d, "index": tuple(data.draw(st.integers(0, n - 1)) for _ in range(size)) if n else ()}


def _gather_params(data, shapes, cap: bool = False):
    shape = shapes[0]
    nd = len(shape)
    d = data.draw(st.integers(-nd, nd - 1))
    along = shape[d] if cap else 4  # scatter's src (shaped as self here) bounds the index along dim too
    ishape = tuple(data.draw(st.integers(0, shape[k])) if k != d % nd else data.draw(st.integers(0, along)) for k in range(nd))
    n = shape[d]
    if n == 0:
        ishape = tuple(0 if k == d % nd else s for k, s in enumerate(ishape))
    seed = data.draw(st.integers(0, 2**31))
    idx = np.random.default_rng(seed).integers(0, max(n, 1), size=ishape)
    return {"dim": d, "index": idx}


def _scatter_params(data, shapes):
    """An index with distinct targets along ``dim`` per position (scatter with repeats is undefined in torch)."""
    shape = shapes[0]
    nd = len(shape)
    d = data.draw(st.integers(-nd, nd - 1)) % nd
    k = data.draw(st.integers(0, shape[d]))
    ishape = tuple(k if j == d else data.draw(st.integers(0, shape[j])) for j in range(nd))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    idx = np.zeros(ishape, dtype=np.int64)
    moved = np.moveaxis(idx, d, -1)
    for pos in np.ndindex(moved.shape[:-1]):
        moved[pos] = rng.permutation(shape[d])[:k]
    return {"dim": d, "index": idx}


def _scatter_shapes():
    return one_shape(min_dims=1, max_dims=3, min_side=1).map(lambda s: (s[0], s[0]))


def _reduce_params(data, shapes):
    p = _gather_params(data, shapes[:1], cap=True)
    p["reduce"] = data.draw(st.sampled_from(["sum", "mean", "amax", "amin", "prod"]))
    p["include_self"] = data.draw(st.booleans())
    return p


def _index_add_params(data, shapes):
    shape, src = shapes
    d = len(shape) - len(src) if False else 0
    n = shape[d]
    return {"index": tuple(data.draw(st.integers(0, n - 1)) for _ in range(src[d]))}


def _index_add_shapes():
    @st.composite
    def draw(draw):
        shape = draw(one_shape(min_dims=1, max_dims=3, min_side=1))[0]
        k = draw(st.integers(0, 4))
        return (shape, (k,) + shape[1:])

    return draw()


def _mask_params(data, shapes):
    shape = shapes[0]
    # a mask that broadcasts with the input: the input's shape with some dims set to 1, or extra leading dims
    mshape = tuple(data.draw(st.sampled_from([n, 1])) for n in shape)
    if data.draw(st.booleans()):
        mshape = (data.draw(st.integers(1, 2)),) + mshape
    seed = data.draw(st.integers(0, 2**31))
    return {"mask": np.random.default_rng(seed).random(mshape) < 0.5}


def _own_mask_params(data, shapes):
    seed = data.draw(st.integers(0, 2**31))
    return {"mask": np.random.default_rng(seed).random(shapes[0]) < 0.5}


def _take_params(data, shapes):
    n = int(np.prod(shapes[0]))
    ishape = data.draw(st.sampled_from([(), (3,), (2, 2)])) if n else (0,)
    seed = data.draw(st.integers(0, 2**31))
    return {"index": np.random.default_rng(seed).integers(-n, max(n, 1), size=ishape) if n else np.zeros(0, np.int64)}


def _crop(y, index):
    """The leading ``index.shape`` block of ``y``: src of the index's shape (torch's gradient for a larger src is
    an error)."""
    return y[tuple(slice(0, n) for n in index.shape)]


def _mask(lib, m):
    return lib.from_numpy(m.copy())


def _masked_scatter(lib, x, src, mask):
    return x.masked_scatter(_mask(lib, mask), src)


ROWS: list[OpInfo] = [
    OpInfo("index_select", lambda lib, x, dim, index: lib.index_select(x, dim, _idx(lib, index)),
           shapes=one_shape(min_dims=1), params=_index_select_params, covers=("IndexSelectBackward0",), int_ok=True, **C),
    OpInfo("index_select_0d", lambda lib, x: x.index_select(0, _idx(lib, [0])), fixed(()),
           covers=("IndexSelectBackward0",), **C),
    OpInfo("gather", lambda lib, x, dim, index: x.gather(dim, lib.from_numpy(index.copy())),
           shapes=one_shape(min_dims=1), params=_gather_params, covers=("GatherBackward0",), int_ok=True, **C),
    OpInfo("take_along_dim", lambda lib, x, dim, index: lib.take_along_dim(x, lib.from_numpy(index.copy()), dim),
           shapes=one_shape(min_dims=1, min_side=1), params=_gather_params, covers=("GatherBackward0", "ExpandBackward0"), **C),
    OpInfo("take_along_dim_flat", lambda lib, x: x.take_along_dim(_idx(lib, [[0, 0], [1, 2]])), fixed((2, 3)),
           covers=("GatherBackward0", "ViewBackward0"), **C),
    OpInfo("scatter", lambda lib, x, y, dim, index: x.scatter(dim, lib.from_numpy(index.copy()), _crop(y, index)), _scatter_shapes(),
           params=_scatter_params, covers=("ScatterBackward0", "ScatterBackward1", "SliceBackward0"), **C),
    OpInfo("scatter_value", lambda lib, x, dim, index: lib.scatter(x, dim, lib.from_numpy(index.copy()), 1.5),
           one_shape(min_dims=1, min_side=1), params=_scatter_params, covers=("ScatterBackward1",), **C),
    OpInfo("scatter_add", lambda lib, x, y, dim, index: x.scatter_add(dim, lib.from_numpy(index.copy()), _crop(y, index)),
           _scatter_shapes(), params=lambda d, s: _gather_params(d, s, cap=True),
           covers=("ScatterAddBackward0", "GatherBackward0"), **C),
    OpInfo("scatter_reduce", lambda lib, x, y, dim, index, reduce, include_self: x.scatter_reduce(
               dim, lib.from_numpy(index.copy()), _crop(y, index), reduce, include_self=include_self),
           _scatter_shapes(), params=_reduce_params, ties=True, gradcheck=False,
           covers=("ScatterReduceBackward0", "ScatterAddBackward0"), **C),
    OpInfo("index_add", lambda lib, x, y, index: x.index_add(0, _idx(lib, index), y, alpha=2), _index_add_shapes(),
           params=_index_add_params, covers=("IndexAddBackward0",), **C),
    OpInfo("index_copy", lambda lib, x, y, index: lib.index_copy(x, 0, _idx(lib, index), y),
           _index_add_shapes().filter(lambda s: s[1][0] <= s[0][0]),
           params=lambda d, s: {"index": tuple(d.draw(st.permutations(range(s[0][0])))[: s[1][0]])},
           covers=("IndexCopyBackward0", "IndexFillBackward0"), **C),
    OpInfo("index_fill", lambda lib, x, index: x.index_fill(-1, _idx(lib, index), -1.0), one_shape(min_dims=1, min_side=1),
           params=lambda d, s: {"index": tuple(d.draw(st.lists(st.integers(-s[0][-1], s[0][-1] - 1), max_size=4)))},
           covers=("IndexFillBackward0",), **C),
    OpInfo("index_fill_tensor", lambda lib, x, v: x.index_fill(0, _idx(lib, [0, 1, 0]), v), fixed((3, 2), ()),
           covers=("IndexFillBackward1",), **C),
    OpInfo("masked_fill", lambda lib, x, mask: x.masked_fill(_mask(lib, mask), 2.0), params=_mask_params,
           covers=("MaskedFillBackward0",), int_ok=True, **C),
    OpInfo("masked_fill_tensor", lambda lib, x, v, mask: lib.masked_fill(x, _mask(lib, mask), v),
           one_shape().map(lambda s: (s[0], ())), params=_mask_params, covers=("MaskedFillBackward1",), **C),
    OpInfo("masked_select", lambda lib, x, mask: x.masked_select(_mask(lib, mask)), params=_mask_params,
           covers=("MaskedSelectBackward0",), int_ok=True, **C),
    OpInfo("masked_scatter", _masked_scatter, one_shape().map(lambda s: (s[0], (int(np.prod(s[0])) + 1,))),
           params=_own_mask_params, covers=("MaskedScatterBackward0", "CatBackward0"), **C),
    OpInfo("take", lambda lib, x, index: x.take(lib.from_numpy(index.copy())), params=_take_params,
           covers=("TakeBackward0",), int_ok=True, **C),
    OpInfo("nonzero", lambda lib, x: lib.nonzero(x > 0), differentiable=False, covers=(), **C),
    OpInfo("nonzero_tuple", lambda lib, x: lib.stack(lib.nonzero(x > 0, as_tuple=True) + (x.new_zeros(0).long(),) * 0, 0)
           if x.dim() else lib.nonzero(x > 0, as_tuple=True)[0], differentiable=False, covers=(), **C),
]


# ---- assignment and in-place forms (x is cloned first: in-place on a leaf that requires grad is an error)
def _setitem_basic(lib, x, v, key):
    y = x * 1
    y[key] = v
    return y


def _setitem_scalar(lib, x, key):
    y = x.clone()
    y[key] = 0.5
    return y


def _setitem_advanced(lib, x, v, index):
    y = x * 1
    y[_idx(lib, index)] = v
    return y


def _view_inplace(lib, x, w):
    y = x * 1
    v = y[1:, ::2]
    v.mul_(w)
    return lib.stack([y.sum(), v.sum()])


def _view_inplace_view_result(lib, x, w):
    y = x * 2
    v = y.t()[0]
    v.add_(w)
    return v


def _inplace_index_ops(lib, x, y):
    z = x * 1
    z.index_add_(0, _idx(lib, [0, 2, 0]), y)
    z.masked_fill_(z > 1.0, 0.25)
    z.index_fill_(1, _idx(lib, [1]), -1.0)
    z.scatter_(0, _idx(lib, [[1, 0, 2, 1]]), y[:1])
    z.scatter_add_(1, _idx(lib, [[0, 0], [3, 3], [1, 2]]), y[:, :2])
    z.index_copy_(0, _idx(lib, [2]), y[1:2])
    return z


def _setitem_key(data, shapes):
    shape = shapes[0]
    key = []
    for n in shape:
        kind = data.draw(st.sampled_from(["int", "slice", "full"]))
        if kind == "int":
            key.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            key.append(slice(data.draw(st.integers(0, n)), data.draw(st.integers(0, n) | st.none()), data.draw(st.integers(1, 2))))
        else:
            key.append(slice(None))
    return {"key": tuple(key)}


@st.composite
def _setitem_shapes(draw):
    """x's shape and a value shape that broadcasts to a region (drawn as the trailing dims, with 1s)."""
    shape = draw(one_shape(min_dims=1, max_dims=3, min_side=1))[0]
    return (shape, ())


ROWS += [
    OpInfo("setitem_basic", _setitem_basic, _setitem_shapes(), params=_setitem_key,
           covers=("CopySlices", "CopyBackwards", "MulBackward0"), **C),
    OpInfo("setitem_row", lambda lib, x, v: _setitem_basic(lib, x, v, (1,)), fixed((3, 4), (4,)), covers=("CopySlices",), **C),
    OpInfo("setitem_broadcast", lambda lib, x, v: _setitem_basic(lib, x, v, (slice(0, 2), slice(None))),
           fixed((3, 4), (1, 4)), covers=("CopySlices",), **C),
    OpInfo("setitem_mismatch", lambda lib, x, v: _setitem_basic(lib, x, v, (slice(0, 2),)), fixed((3, 4), (3, 4)),
           covers=("CopySlices",), **C),
    OpInfo("setitem_scalar", _setitem_scalar, one_shape(min_dims=1, max_dims=3, min_side=1), params=_setitem_key,
           covers=("CopySlices", "FillBackward3", "CloneBackward0"), **C),
    OpInfo("setitem_advanced", _setitem_advanced, fixed((4, 3), (3,)),
           params=lambda d, s: {"index": tuple(d.draw(st.lists(st.integers(-4, 3), max_size=4)))},
           gradcheck=False, covers=("IndexPutBackward0",), **C),  # repeated indices: torch's gradient is not the FD one
    OpInfo("setitem_advanced_value_shape", _setitem_advanced, fixed((4, 3), (2, 3)),
           params=lambda d, s: {"index": tuple(d.draw(st.lists(st.integers(-4, 3), min_size=1, max_size=3)))},
           gradcheck=False, covers=("IndexPutBackward0",), **C),
    OpInfo("index_put_accumulate", lambda lib, x, v: x.index_put((_idx(lib, [0, 2, 0]),), v, accumulate=True),
           fixed((3, 2), (3, 2)), covers=("IndexPutBackward0",), **C),
    OpInfo("view_inplace", _view_inplace, fixed((3, 4), (2, 2)), covers=("CopySlices", "AsStridedBackward0"), **C),
    OpInfo("view_inplace_view_result", _view_inplace_view_result, fixed((3, 2), (2,)),
           covers=("CopySlices", "AsStridedBackward0", "AddBackward0"), **C),
    OpInfo("inplace_index_ops", _inplace_index_ops, fixed((3, 4), (3, 4)),
           covers=("IndexAddBackward0", "MaskedFillBackward0", "IndexFillBackward0", "ScatterBackward0",
                   "ScatterAddBackward0", "IndexCopyBackward0"), **C),
]


# ---- searchsorted / isin / bincount (sorting.py; not differentiable)
def _searchsorted(lib, seq, vals, side, batched, out_int32):
    s = seq.sort(-1)[0] if batched else seq.reshape(-1).sort()[0]
    v = vals.round() if side == "left" else vals  # rounded values make ties with the boundaries
    return lib.searchsorted(s, v, side=side, out_int32=out_int32)


def _searchsorted_params(data, shapes):
    return {"side": data.draw(st.sampled_from(["left", "right"])), "batched": data.draw(st.booleans()),
            "out_int32": data.draw(st.booleans())}


def _isin(lib, x, y, invert, scalar):
    a, b = (x * 2).round(), (y * 2).round()
    return lib.isin(a, float(b.reshape(-1)[0]) if scalar and b.numel() else b, invert=invert)


def _bincount(lib, x, w, minlength, weighted):
    idx = ((x + 2) * 1.5).long().reshape(-1)
    return lib.bincount(idx, w.reshape(-1)[: idx.numel()] if weighted else None, minlength=minlength)


ROWS += [
    OpInfo("searchsorted", _searchsorted, one_shape(min_dims=1, max_dims=3).map(lambda s: (s[0], s[0])),
           params=_searchsorted_params, covers=(), differentiable=False, ties=True, int_ok=True, **C),
    OpInfo("searchsorted_right_kw", lambda lib, s, v: lib.searchsorted(s.reshape(-1).sort()[0], v, right=True),
           covers=(), differentiable=False, ties=True, shapes=one_shape().map(lambda s: (s[0], s[0])), **C),
    OpInfo("isin", _isin, one_shape().map(lambda s: (s[0], s[0][:1])),
           params=lambda d, s: {"invert": d.draw(st.booleans()), "scalar": d.draw(st.booleans())},
           covers=(), differentiable=False, int_ok=True, **C),
    OpInfo("bincount", _bincount, one_shape(max_dims=1).map(lambda s: (s[0], s[0])),
           params=lambda d, s: {"minlength": d.draw(st.integers(-1, 6)), "weighted": d.draw(st.booleans())},
           covers=(), differentiable=False, ties=True, **C),
]


# ---- boolean masks whose shape differs from the dims they index: torch's IndexError text
def _mask_key(data, shapes):
    shape = shapes[0]
    prefix = data.draw(st.sampled_from(["", "int", "none", "slice", "ellipsis"]))
    mshape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=1, max_size=2)))
    if data.draw(st.booleans()):  # often the right shape for the dims it meets
        start = {"int": 1, "none": 0, "slice": 1, "ellipsis": max(len(shape) - len(mshape), 0)}.get(prefix, 0)
        mshape = tuple(shape[start: start + len(mshape)]) or mshape
    mask = tuple(data.draw(st.lists(st.booleans(), min_size=int(np.prod(mshape)), max_size=int(np.prod(mshape)))))
    return {"prefix": prefix, "mshape": mshape, "mask": mask}


def _masked(lib, x, prefix, mshape, mask):
    m = lib.tensor(np.array(mask, dtype=bool).reshape(mshape))
    head = {"": (), "int": (0,), "none": (None,), "slice": (slice(1, None),), "ellipsis": (Ellipsis,)}[prefix]
    return x[head + (m,)]


ROWS += [
    OpInfo("mask_shape_errors", _masked, one_shape(min_dims=1, max_dims=3, min_side=1), params=_mask_key,
           covers=("IndexBackward0",), **C),
]


# Forms found by torch's OpInfo samples: take_along_dim along a dim takes any index modulo the dim's size
# (torch 2.13), gather returns an empty result for an empty index of any number of dims.
ROWS += [
    OpInfo("take_along_dim_wrapped", lambda lib, x, dim: lib.take_along_dim(x, _idx(lib, [[-1, 0, -5, 7, 3]] * 3), dim),
           fixed((3, 5)), params=lambda d, s: {"dim": d.draw(st.sampled_from([1, -1]))}, covers=("GatherBackward0",), **C),
    OpInfo("gather_empty_index", lambda lib, x, shape: lib.gather(x, 0, lib.zeros(shape, dtype=lib.int64)) * 2,
           fixed((5,)), params=lambda d, s: {"shape": d.draw(st.sampled_from([(2, 0), (0,), (0, 3, 1)]))},
           covers=("GatherBackward0", "MulBackward0"), **C),
]
