"""Rows for the shape and movement family (src/dyngrad/_ops/shape.py, join_split.py, diagonals.py, padding.py); they
join tests/op_table.py."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from op_table import WITH_COMPLEX, OpInfo, fixed, one_shape

C = dict(dtypes=WITH_COMPLEX)  # ops torch runs (or refuses, in its words) on complex numbers


def _dim_of(shape, extra: int = 0):
    nd = len(shape) + extra
    return st.integers(-nd, nd - 1) if nd else st.sampled_from([0, -1])


def _dim(data, shapes):
    return {"dim": data.draw(_dim_of(shapes[0]))}


def _same_but_dim(n: int = 3):
    """``n`` shapes equal except along one dim (for cat)."""

    @st.composite
    def draw(draw):
        base = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
        d = draw(st.integers(0, len(base) - 1))
        out = []
        for _ in range(n):
            s = list(base)
            s[d] = draw(st.integers(0, 3))
            out.append(tuple(s))
        return tuple(out) + ((d - len(base) if draw(st.booleans()) else d,),)

    return draw().map(lambda s: s[:-1] + ((s[-1],),))


def _cat_shapes():
    return _same_but_dim(3).map(lambda s: s[:3])


def _cat_params(data, shapes):
    a, b, c = shapes
    nd = len(a)
    dims = [d for d in range(-nd, nd) if all(x[k] == a[k] for x in shapes for k in range(nd) if k != d % nd)]
    return {"dim": data.draw(st.sampled_from(dims))}


def _split_params(data, shapes):
    nd = len(shapes[0])
    d = data.draw(st.integers(-nd, nd - 1))
    n = shapes[0][d]
    if data.draw(st.booleans()):
        size = data.draw(st.integers(1, max(n, 1))) if n else data.draw(st.integers(0, 2))
        return {"arg": size, "dim": d}
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=3)))
    sizes, prev = [], 0
    for c in cuts + [n]:
        sizes.append(c - prev)
        prev = c
    return {"arg": sizes, "dim": d}


def _chunk_params(data, shapes):
    nd = len(shapes[0])
    return {"chunks": data.draw(st.integers(1, 4)), "dim": data.draw(st.integers(-nd, nd - 1))}


def _narrow_params(data, shapes):
    nd = len(shapes[0])
    d = data.draw(st.integers(-nd, nd - 1))
    n = shapes[0][d]
    start = data.draw(st.integers(-n, n))
    s = start + n if start < 0 else start
    return {"dim": d, "start": start, "length": data.draw(st.integers(0, n - s))}


def _flip_params(data, shapes):
    nd = len(shapes[0])
    if nd == 0:
        return {"dims": ()}
    return {"dims": tuple(data.draw(st.lists(st.integers(0, nd - 1), unique=True, max_size=nd)))}


def _roll_params(data, shapes):
    nd = len(shapes[0])
    if nd == 0 or data.draw(st.booleans()):
        return {"shifts": data.draw(st.integers(-5, 5)), "dims": None}
    dims = tuple(data.draw(st.lists(st.integers(-nd, nd - 1), min_size=1, max_size=nd)))
    return {"shifts": tuple(data.draw(st.integers(-5, 5)) for _ in dims), "dims": dims}


def _rot90_params(data, shapes):
    nd = len(shapes[0])
    dims = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=2, max_size=2, unique_by=lambda d: d % nd))
    return {"k": data.draw(st.integers(-5, 5)), "dims": tuple(dims)}


def _diag_params(data, shapes):
    nd = len(shapes[0])
    dims = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=2, max_size=2, unique_by=lambda d: d % nd))
    return {"offset": data.draw(st.integers(-3, 3)), "d1": dims[0], "d2": dims[1]}


def _diag_embed_params(data, shapes):
    nd = len(shapes[0]) + 1
    dims = data.draw(st.lists(st.integers(-nd, nd - 1), min_size=2, max_size=2, unique_by=lambda d: d % nd))
    return {"offset": data.draw(st.integers(-2, 2)), "d1": dims[0], "d2": dims[1]}


def _repeat_params(data, shapes):
    nd = len(shapes[0])
    lead = data.draw(st.integers(0, 2))
    return {"reps": tuple(data.draw(st.integers(0, 3)) for _ in range(nd + lead))}


def _tile_params(data, shapes):
    return {"reps": tuple(data.draw(st.lists(st.integers(0, 3), max_size=len(shapes[0]) + 1)))}


def _ri_params(data, shapes):
    nd = len(shapes[0])
    dim = data.draw(st.none() | (st.integers(-nd, nd - 1) if nd else st.sampled_from([0, -1])))
    return {"repeats": data.draw(st.integers(0, 3)), "dim": dim}


def _ri_tensor_params(data, shapes):
    nd = len(shapes[0])
    d = data.draw(st.integers(-nd, nd - 1))
    n = shapes[0][d]
    return {"repeats": tuple(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))), "dim": d}


def _movedim_params(data, shapes):
    nd = len(shapes[0])
    if nd == 0:
        return {"src": 0, "dst": -1}
    k = data.draw(st.integers(1, nd))
    src = data.draw(st.lists(st.integers(0, nd - 1), min_size=k, max_size=k, unique=True))
    dst = data.draw(st.lists(st.integers(0, nd - 1), min_size=k, max_size=k, unique=True))
    if k == 1 and data.draw(st.booleans()):
        return {"src": src[0] - nd, "dst": dst[0]}
    return {"src": tuple(src), "dst": tuple(dst)}


def _unflatten_params(data, shapes):
    nd = len(shapes[0])
    d = data.draw(st.integers(-nd, nd - 1))
    n = shapes[0][d]
    options = [(n,), (1, n), (n, 1), (-1,), (1, -1)]
    if n and n % 2 == 0:
        options += [(2, n // 2), (2, -1)]
    return {"dim": d, "sizes": data.draw(st.sampled_from(options))}


def _tri_params(data, shapes):
    return {"k": data.draw(st.integers(-4, 4))}


def _pad_constant(data, shapes):
    nd = len(shapes[0])
    k = data.draw(st.integers(1, max(nd, 1))) if nd else 0
    pads = []
    for i in range(k):
        n = shapes[0][nd - 1 - i]
        lo = data.draw(st.integers(-n, 3))
        hi = data.draw(st.integers(-(n + lo) if lo < 0 else -n, 3))
        pads += [lo, hi]
    return {"pad": tuple(pads), "value": data.draw(st.sampled_from([None, 0.0, 1.5]))}


@st.composite
def _nc_pad_case(draw):
    k = draw(st.integers(1, 3))
    batch = draw(st.integers(0, 1)) + 1
    shape = tuple(draw(st.integers(1, 3)) for _ in range(batch)) + tuple(draw(st.integers(1, 4)) for _ in range(k))
    return (shape,)


def _nc_pad_params(mode):
    def params(data, shapes):
        shape = shapes[0]
        nd = len(shape)
        k = data.draw(st.integers(1, 3).filter(lambda k: nd - 2 <= k <= nd - 1))
        pads = []
        for i in range(k):
            n = shape[nd - 1 - i]
            hi = n - 1 if mode == "reflect" else (n if mode == "circular" else 4)
            pads += [data.draw(st.integers(0, hi)), data.draw(st.integers(0, hi))]
        return {"pad": tuple(pads)}

    return params


def _meshgrid_shapes():
    return st.lists(st.integers(0, 3), min_size=1, max_size=3).map(lambda ns: tuple((n,) for n in ns))


def _meshgrid(lib, *xs, indexing):
    return lib.stack([g.reshape(-1) for g in lib.meshgrid(*xs, indexing=indexing)], 0)


# ---- in-place shape ops (t_, transpose_, squeeze_, unsqueeze_): run on a non-leaf copy, so that the
# gradient flows back through the in-place node to the input


def _inplace_shape_args(data, shapes):
    nd = len(shapes[0])
    name = data.draw(st.sampled_from(["t_", "transpose_", "swapdims_", "swapaxes_", "squeeze_", "squeeze_dim",
                                      "squeeze_dims", "unsqueeze_"]))
    if name == "t_":
        args = ()
    elif name in ("transpose_", "swapdims_", "swapaxes_"):
        args = (data.draw(_dim_of(shapes[0])), data.draw(_dim_of(shapes[0])))
    elif name == "squeeze_":
        args = ()
    elif name == "squeeze_dim":
        name, args = "squeeze_", (data.draw(_dim_of(shapes[0])),)
    elif name == "squeeze_dims":
        dims = data.draw(st.lists(_dim_of(shapes[0]), max_size=max(nd, 1)))
        name, args = "squeeze_", (tuple(dims),)
    else:
        args = (data.draw(_dim_of(shapes[0], extra=1)),)
    return {"name": name, "args": args, "view": data.draw(st.booleans())}


def _inplace_shape(lib, x, name, args, view):
    """``name(*args)`` in place on a copy of x (or on a view of the copy); the copy's base keeps its shape."""
    y = x.clone()
    target = y[...] if view else y
    out = getattr(target, name)(*args)
    assert out is target
    return target * 1 + y.sum() if view else target


def _inplace_shape_version(lib, x, name, args, view):
    """The version counter after the op (one bump), and that of the base when the op ran on a view."""
    y = x.detach().clone()
    target = y[...] if view else y
    getattr(target, name)(*args)
    return lib.tensor([target._version, y._version, target.dim()])


def _inplace_shape_stale(lib, x, name, args, view):
    """A result saved before the op is stale after it: backward raises torch's error."""
    y = x.detach().requires_grad_().exp()
    getattr(y, name)(*args)
    y.sum().backward()


ROWS: list[OpInfo] = [
    OpInfo("view_as", lambda lib, x: x.view_as(x.reshape(-1)), covers=("ViewBackward0",), **C),
    OpInfo("flatten_dims", lambda lib, x, s, e: lib.flatten(x, s, e), shapes=one_shape(min_dims=1),
           params=lambda d, sh: {"s": d.draw(st.integers(0, len(sh[0]) - 1)), "e": d.draw(st.integers(-1, -1))},
           covers=("ViewBackward0", "UnsafeViewBackward0"), **C),
    OpInfo("unflatten", lambda lib, x, dim, sizes: x.unflatten(dim, sizes), shapes=one_shape(min_dims=1),
           params=_unflatten_params, covers=("ViewBackward0",), **C),
    OpInfo("swapaxes", lambda lib, x: lib.swapaxes(x, 0, -1), shapes=one_shape(min_dims=1),
           covers=("TransposeBackward0",), **C),
    OpInfo("movedim", lambda lib, x, src, dst: lib.movedim(x, src, dst), params=_movedim_params,
           covers=("PermuteBackward0",), **C),
    OpInfo("broadcast_to", lambda lib, x: lib.broadcast_to(x, (2,) + tuple(x.shape)), covers=("ExpandBackward0",), **C),
    OpInfo("expand_as", lambda lib, x, y: x.expand_as(y), fixed((3, 1), (2, 3, 4)), covers=("ExpandBackward0",), **C),
    OpInfo("repeat", lambda lib, x, reps: x.repeat(*reps), params=_repeat_params, covers=("RepeatBackward0",),
           int_ok=True, **C),
    OpInfo("tile", lambda lib, x, reps: lib.tile(x, reps), params=_tile_params, covers=("RepeatBackward0",), **C),
    OpInfo("repeat_interleave", lambda lib, x, repeats, dim: x.repeat_interleave(repeats, dim=dim),
           params=_ri_params, covers=("ViewBackward0", "UnsafeViewBackward0", "CloneBackward0", "ExpandBackward0",
                                      "UnsqueezeBackward0"), **C),
    OpInfo("repeat_interleave_tensor",
           lambda lib, x, repeats, dim: lib.repeat_interleave(x, lib.tensor(list(repeats), dtype=lib.int64), dim=dim),
           shapes=one_shape(min_dims=1), params=_ri_tensor_params, covers=("IndexSelectBackward0",), **C),
    OpInfo("cat", lambda lib, x, y, z, dim: lib.cat([x, y, z], dim), _cat_shapes(), params=_cat_params,
           covers=("CatBackward0",), int_ok=True, **C),
    OpInfo("cat_legacy_empty", lambda lib, x, y: lib.cat([x, y, x], 1), fixed((2, 3), (0,)), covers=("CatBackward0",), **C),
    OpInfo("concat_one", lambda lib, x: lib.concat([x], -1), shapes=one_shape(min_dims=1), covers=("CatBackward0",), **C),
    OpInfo("hstack", lambda lib, x, y: lib.hstack([x, y, x]), one_shape(max_dims=3).map(lambda s: (s[0], s[0])),
           covers=("CatBackward0", "ViewBackward0"), **C),
    OpInfo("vstack", lambda lib, x, y: lib.vstack((x, y)), one_shape(max_dims=3).map(lambda s: (s[0], s[0])),
           covers=("CatBackward0", "ViewBackward0", "UnsqueezeBackward0"), **C),
    OpInfo("split", lambda lib, x, arg, dim: lib.stack([p.sum() for p in x.split(arg, dim)] + [x.split(arg, dim)[-1].sum() * 2]),
           shapes=one_shape(min_dims=1), params=_split_params,
           covers=("SplitBackward0", "SplitWithSizesBackward0", "SumBackward0", "StackBackward0"), **C),
    OpInfo("split_views", lambda lib, x, arg, dim: lib.cat([p.reshape(-1) * (i + 1) for i, p in enumerate(lib.split(x, arg, dim))]),
           shapes=one_shape(min_dims=1), params=_split_params,
           covers=("SplitBackward0", "SplitWithSizesBackward0", "CatBackward0"), **C),
    OpInfo("split_first_only", lambda lib, x: x.split(1)[0], shapes=one_shape(min_dims=1, min_side=1),
           covers=("SplitBackward0",), **C),
    OpInfo("chunk", lambda lib, x, chunks, dim: lib.cat([p.reshape(-1) * (i + 1) for i, p in enumerate(x.chunk(chunks, dim))]),
           shapes=one_shape(min_dims=1), params=_chunk_params, covers=("SplitBackward0", "SplitWithSizesBackward0"), **C),
    OpInfo("narrow", lambda lib, x, dim, start, length: x.narrow(dim, start, length), shapes=one_shape(min_dims=1),
           params=_narrow_params, covers=("SliceBackward0",), **C),
    OpInfo("flip", lambda lib, x, dims: x.flip(dims), params=_flip_params, covers=("FlipBackward0",), int_ok=True, **C),
    OpInfo("fliplr", lambda lib, x: lib.fliplr(x), shapes=one_shape(min_dims=2), covers=("FlipBackward0",), **C),
    OpInfo("flipud", lambda lib, x: x.flipud(), shapes=one_shape(min_dims=1), covers=("FlipBackward0",), **C),
    OpInfo("roll", lambda lib, x, shifts, dims: x.roll(shifts, dims), params=_roll_params, covers=("RollBackward0",),
           int_ok=True, **C),
    OpInfo("rot90", lambda lib, x, k, dims: x.rot90(k, dims), shapes=one_shape(min_dims=2), params=_rot90_params,
           covers=("Rot90Backward0",), **C),
    OpInfo("diagonal", lambda lib, x, offset, d1, d2: x.diagonal(offset, d1, d2), shapes=one_shape(min_dims=2),
           params=_diag_params, covers=("DiagonalBackward0", "DiagonalBackwardBackward0"), **C),
    OpInfo("diag_embed", lambda lib, x, offset, d1, d2: lib.diag_embed(x, offset, d1, d2), shapes=one_shape(max_dims=3),
           params=_diag_embed_params, covers=("DiagEmbedBackward0",), **C),
    OpInfo("diag", lambda lib, x, k: lib.diag(x, k), shapes=one_shape(min_dims=1, max_dims=2),
           params=lambda d, s: {"k": d.draw(st.integers(-3, 3))}, covers=("DiagEmbedBackward0", "DiagonalBackward0_copy"), **C),
    OpInfo("triu", lambda lib, x, k: x.triu(k), shapes=one_shape(min_dims=2), params=_tri_params,
           covers=("TriuBackward0",), int_ok=True, **C),
    OpInfo("tril", lambda lib, x, k: lib.tril(x, k), shapes=one_shape(min_dims=2), params=_tri_params,
           covers=("TrilBackward0",), **C),
    OpInfo("meshgrid", _meshgrid, _meshgrid_shapes(), params=lambda d, s: {"indexing": d.draw(st.sampled_from(["ij", "xy"]))},
           covers=("ExpandBackward0", "ViewBackward0"), **C),
    OpInfo("meshgrid_xy", lambda lib, x, y, z: _meshgrid(lib, x, y, z, indexing="xy"), fixed((2,), (3,), (1,)),
           covers=("ExpandBackward0", "ViewBackward0"), **C),
    OpInfo("pad_constant", lambda lib, x, pad, value: lib.nn.functional.pad(x, pad, value=value), params=_pad_constant,
           covers=("ConstantPadNdBackward0",), **C),
    OpInfo("pad_reflect", lambda lib, x, pad: lib.nn.functional.pad(x, pad, mode="reflect"), _nc_pad_case(),
           params=_nc_pad_params("reflect"),
           covers=("ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0"), **C),
    OpInfo("pad_replicate", lambda lib, x, pad: lib.nn.functional.pad(x, pad, mode="replicate"), _nc_pad_case(),
           params=_nc_pad_params("replicate"),
           covers=("ReplicationPad1DBackward0", "ReplicationPad2DBackward0", "ReplicationPad3DBackward0"), **C),
    OpInfo("pad_circular", lambda lib, x, pad: lib.nn.functional.pad(x, pad, mode="circular"), _nc_pad_case(),
           params=_nc_pad_params("circular"), covers=("_CircularPad",), **C),
    OpInfo("inplace_shape", _inplace_shape, one_shape(max_dims=3), params=_inplace_shape_args,
           covers=("CloneBackward0", "TBackward1", "TransposeBackward1", "SqueezeBackward3", "SqueezeBackward4",
                   "SqueezeBackward5", "UnsqueezeBackward1", "AliasBackward0", "MulBackward0"), **C),
    OpInfo("inplace_shape_leaf", lambda lib, x, name, args, view: getattr(x[...] if view else x, name)(*args),
           one_shape(max_dims=3), params=_inplace_shape_args, covers=(), gradcheck=False, **C),
    OpInfo("inplace_shape_no_grad", lambda lib, x, name, args, view: getattr(x[...] if view else x, name)(*args),
           one_shape(max_dims=3), params=_inplace_shape_args, covers=(), differentiable=False, int_ok=True, **C),
    OpInfo("inplace_shape_version", _inplace_shape_version, one_shape(max_dims=3), params=_inplace_shape_args,
           covers=(), differentiable=False, **C),
    OpInfo("inplace_shape_stale", _inplace_shape_stale, one_shape(max_dims=3), params=_inplace_shape_args,
           covers=(), differentiable=False, **C),
]


# ---- select / unfold / diff / broadcast_tensors / type_as
def _select_params(data, shapes):
    nd = len(shapes[0])
    dim = data.draw(st.integers(-nd - 1, nd) if nd else st.sampled_from([0, -1, 1]))
    n = shapes[0][dim] if -nd <= dim < nd else 2
    return {"dim": dim, "index": data.draw(st.integers(-n - 1, n))}  # out-of-range dims/indices: torch's errors


def _unfold_params(data, shapes):
    nd = len(shapes[0])
    dim = data.draw(st.integers(-nd, nd - 1) if nd else st.sampled_from([0, -1]))
    n = shapes[0][dim] if nd else 1
    return {"dim": dim, "size": data.draw(st.integers(-1, n + 1)), "step": data.draw(st.integers(0, 3))}


def _diff_params(data, shapes):
    nd = len(shapes[0])
    dim = data.draw(st.integers(-nd, nd - 1) if nd else st.sampled_from([0, -1]))
    return {"n": data.draw(st.integers(-1, 3)), "dim": dim}


def _diff_pend(lib, x, y, dim, n, which):
    kw = {which: y} if which != "both" else {"prepend": y, "append": y * 2}
    return lib.diff(x, n=n, dim=dim, **kw)


@st.composite
def _pend_shapes(draw):
    """(input shape, prepend/append shape): equal except along one dim, sometimes not (torch's errors)."""
    base = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
    d = draw(st.integers(0, len(base) - 1))
    other = list(base)
    other[d] = draw(st.integers(0, 2))
    if draw(st.integers(0, 9)) == 0:  # a mismatch elsewhere: torch's error
        other = other + [1] if draw(st.booleans()) else [k + 1 for k in other]
    return (base, tuple(other))


def _pend_params(data, shapes):
    base, other = shapes
    differ = [k for k in range(min(len(base), len(other))) if base[k] != other[k]]
    d = differ[0] if len(differ) == 1 else data.draw(st.integers(0, len(base) - 1))
    return {"dim": data.draw(st.sampled_from([d, d - len(base)])), "n": data.draw(st.integers(0, 2)),
            "which": data.draw(st.sampled_from(["prepend", "append", "both"]))}


ROWS += [
    OpInfo("select", lambda lib, x, dim, index: lib.select(x, dim, index), params=_select_params,
           covers=("SelectBackward0",), **C),
    OpInfo("select_method", lambda lib, x: x.select(-1, 0) * 2, one_shape(min_dims=1, min_side=1),
           covers=("SelectBackward0", "MulBackward0"), **C),
    OpInfo("tensor_unfold", lambda lib, x, dim, size, step: x.unfold(dim, size, step), params=_unfold_params,
           covers=("UnfoldBackward0", "UnfoldBackwardBackward0"), **C),
    OpInfo("tensor_unfold_square", lambda lib, x: x.unfold(0, 2, 1) ** 2, one_shape(min_dims=1, min_side=2),
           covers=("UnfoldBackward0", "UnfoldBackwardBackward0", "PowBackward0"), **C),
    OpInfo("diff", lambda lib, x, n, dim: lib.diff(x, n, dim), params=_diff_params,
           covers=("SubBackward0", "SliceBackward0", "CopyBackwards"), int_ok=True, **C),
    OpInfo("diff_pend", lambda lib, x, y, dim, n, which: _diff_pend(lib, x, y, dim, n, which), _pend_shapes(),
           params=_pend_params,
           covers=("SubBackward0", "CatBackward0", "SliceBackward0", "CopyBackwards"), **C),
    OpInfo("broadcast_tensors", lambda lib, x, y: lib.stack(lib.broadcast_tensors(x, y * 3)),
           hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0, max_side=3).map(
               lambda b: tuple(b.input_shapes)),
           covers=("ExpandBackward0", "StackBackward0", "MulBackward0"), **C),
    OpInfo("broadcast_tensors_bad", lambda lib, x, y: lib.broadcast_tensors(x, y)[0],
           fixed((2, 3), (3, 2)), covers=(), **C),
    OpInfo("type_as", lambda lib, x: x.type_as(lib.ones(1, dtype=lib.float64)) * 2, covers=("ToCopyBackward0",), **C),
    OpInfo("type_as_int", lambda lib, x: x.type_as(lib.ones(1, dtype=lib.int64)), covers=(), differentiable=False,
           int_ok=True, **C),
]


def _range_params(data, shapes):
    start = data.draw(st.sampled_from([0, 1, -2, 0.5, 3]))
    end = data.draw(st.sampled_from([0, 4, 1.75, -1, 3]))
    dtype = data.draw(st.sampled_from([None, "float64", "int64"]))
    # torch's int64 range divides by the step truncated to an integer: a fractional or zero step kills the process
    step = data.draw(st.sampled_from([1, -1, 2] if dtype == "int64" else [1, 0.25, -1, 0.1, 0, 2]))
    return {"start": start, "end": end, "step": step, "dtype": dtype}


ROWS += [
    OpInfo("torch_range", lambda lib, x, start, end, step, dtype: lib.range(
        start, end, step, dtype=None if dtype is None else getattr(lib, dtype)), fixed(()), params=_range_params,
        covers=(), differentiable=False, **C),
]


_SEQ_FNS = ("cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack")


def _seq_arg(lib, x, y, name, kind):
    arg = {"tensor": x, "tuple": (x, y), "list": [x, y], "int": 3, "none": None, "mixed": [x, 2.5], "gen": iter([x])}
    return getattr(lib, name)(arg[kind])


ROWS += [
    OpInfo("tensor_sequence_args", _seq_arg, fixed((2,), (2,)),
           params=lambda d, s: {"name": d.draw(st.sampled_from(_SEQ_FNS)),
                                "kind": d.draw(st.sampled_from(["tensor", "tuple", "list", "int", "none", "mixed",
                                                                 "gen"]))},
           covers=("CatBackward0", "StackBackward0", "ViewBackward0", "UnsqueezeBackward0"), gradcheck=False, **C),
]


# Forms found by torch's OpInfo samples (run in complex64/complex128): negative circular pads crop before
# wrapping, tensor arguments of tensor_split, lists of tensors for atleast_Nd, flip's ``dims`` keyword,
# view(dtype) as a reinterpretation of the memory (complex <-> real pairs; not differentiable).
ROWS += [
    OpInfo("pad_circular_crop", lambda lib, x, pad: lib.nn.functional.pad(x, pad, mode="circular"), fixed((1, 2, 5, 6)),
           params=lambda d, s: {"pad": d.draw(st.sampled_from([(-1, 2, 1, -2), (-2, 3), (3, -2), (-1, -1, 2, 2)]))},
           covers=("_CircularPad",), **C),
    OpInfo("tensor_split_tensor", lambda lib, x, sections, dim: lib.stack([p.sum() for p in lib.tensor_split(
        x, lib.tensor(sections), dim)]), fixed((4, 5)), covers=("SliceBackward0", "SumBackward0", "StackBackward0"),
           params=lambda d, s: {"sections": d.draw(st.sampled_from([2, 3, [1, 3], [0, 4, 2]])),
                                "dim": d.draw(st.sampled_from([0, 1, -1]))}, **C),
    OpInfo("atleast_lists", lambda lib, x, y: lib.cat([t.reshape(-1) for t in lib.atleast_2d([x, y])
                                                       + lib.atleast_3d(x, y) + lib.atleast_1d((x,))]),
           one_shape(max_dims=2).map(lambda s: (s[0], ())), covers=("ViewBackward0", "CatBackward0", "UnsqueezeBackward0"),
           **C),
    OpInfo("flip_dims_keyword", lambda lib, x: lib.flip(x, dims=(0, -1)) + x.flip(dims=[0]), one_shape(min_dims=2),
           covers=("FlipBackward0", "AddBackward0"), **C),
    OpInfo("view_dtype", lambda lib, x, dt: x.detach().view(getattr(lib, dt)) * 1, fixed((3, 4)),
           params=lambda d, s: {"dt": d.draw(st.sampled_from(["float32", "float64", "complex64", "complex128", "int32",
                                                               "int64", "uint8"]))},
           covers=(), differentiable=False, **C),
]
