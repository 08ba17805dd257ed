"""Rows for the 3-D convolution and pooling kernels (src/dyngrad/_ops/convnd.py, pool3d.py) and the channel
ops (channel_ops.py): dyngrad.nn.functional vs torch.nn.functional."""

from __future__ import annotations

from hypothesis import strategies as st

from op_rows_nn import _interp, _interp_params
from op_table import C, OpInfo, fixed


def F(lib):
    return lib.nn.functional


@st.composite
def _conv3d_shapes(draw, transposed=False):
    g = draw(st.integers(1, 2))
    cg, og = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    n = draw(st.integers(1, 2))
    spatial = tuple(draw(st.lists(st.integers(1, 4), min_size=3, max_size=3)))
    kernel = tuple(draw(st.lists(st.integers(1, 2), min_size=3, max_size=3)))
    shapes = ((n, g * cg) + spatial, ((g * cg, og) if transposed else (g * og, cg)) + kernel)
    if draw(st.booleans()):
        shapes += ((g * og,),)
    return shapes


def _conv3d_params(data, shapes, transposed=False):
    groups = shapes[0][1] // (shapes[1][0] if transposed else shapes[1][1])
    pads = [0, 1, (1, 0, 1)] + ([] if transposed else ["same", "valid"])
    if transposed:  # (an empty transposed output: torch's float32 mkldnn path raises another message)
        sizes = [n + k - 1 for n, k in zip(shapes[0][2:], shapes[1][2:])]
        pads = [p for p in pads if all(s > 2 * q for s, q in zip(sizes, p if isinstance(p, tuple) else (p,) * 3))]
    out = {"stride": data.draw(st.sampled_from([1, 2, (1, 2, 1)])), "padding": data.draw(st.sampled_from(pads)),
           "dilation": data.draw(st.sampled_from([1, 2])), "groups": groups}
    if out["padding"] == "same":
        out["stride"] = 1
    if transposed:
        out["output_padding"] = data.draw(st.sampled_from([0, 1]))
    return out


@st.composite
def _volume(draw, nd=3, min_side=1):
    lead = tuple(draw(st.lists(st.integers(1, 2), min_size=1, max_size=2)))
    return (lead + tuple(draw(st.lists(st.integers(min_side, 4), min_size=nd, max_size=nd))),)


def _pool3d_params(data, shapes, dilation=True):
    out = {"kernel_size": data.draw(st.sampled_from([1, 2, (2, 1, 2)])),
           "stride": data.draw(st.sampled_from([None, 1, 2, (1, 2, 1)])),
           "padding": data.draw(st.sampled_from([0, 1, (1, 0, 0)])),
           "ceil_mode": data.draw(st.booleans())}
    if dilation:
        out["dilation"] = data.draw(st.sampled_from([1, 2]))
    return out


def _avg3d_params(data, shapes):
    out = _pool3d_params(data, shapes, dilation=False)
    out["count_include_pad"] = data.draw(st.booleans())
    out["divisor_override"] = data.draw(st.sampled_from([None, None, 3]))
    return out


def _adaptive3d_params(data, shapes):
    d, h, w = shapes[0][-3:]
    return {"output_size": data.draw(st.sampled_from([1, (1, 1, 1), (2, None, 1), (3, 2, 2), (d, h, w),
                                                      (d + 1, 1, h)]))}


def _adaptive1d_params(data, shapes):
    return {"output_size": data.draw(st.sampled_from([1, 2, 3, shapes[0][-1] + 1]))}


@st.composite
def _shuffle_shapes(draw, up=True):
    r = draw(st.integers(1, 2))
    lead = tuple(draw(st.lists(st.integers(1, 2), min_size=0, max_size=2)))
    c, h, w = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    return ((lead + ((c * r * r, h, w) if up else (c, h * r, w * r))),), r


def _unpool(lib, x, nd, stride):
    """max_pool then max_unpool back to the input's size (the pooled values and the unpooling are what is tested)."""
    pool = {1: F(lib).max_pool1d, 2: F(lib).max_pool2d, 3: F(lib).max_pool3d}[nd]
    unpool = {1: F(lib).max_unpool1d, 2: F(lib).max_unpool2d, 3: F(lib).max_unpool3d}[nd]
    values, indices = pool(x, 2, stride, return_indices=True)
    return unpool(values, indices, 2, stride, output_size=tuple(x.shape[-nd:]))


def _lp_params(data, shapes, nd):
    return {"norm_type": data.draw(st.sampled_from([1.0, 2.0, 3.0, float("inf")])),
            "kernel_size": data.draw(st.sampled_from([1, 2] + ([(2, 1, 2)[:nd]] if nd > 1 else []))),
            "stride": data.draw(st.sampled_from([None, 1, 2])), "ceil_mode": data.draw(st.booleans())}


_LP_COVERS = ("PowBackward0", "AvgPool2DBackward0", "AvgPool3DBackward0", "MaxPool2DWithIndicesBackward0",
              "MaxPool3DWithIndicesBackward0", "SqueezeBackward1", "UnsqueezeBackward0", "MulBackward0", "SignBackward0",
              "ReluBackward0", "AbsBackward0", "NegBackward0")


def _lp(nd):
    return lambda lib, x, **kw: {1: F(lib).lp_pool1d, 2: F(lib).lp_pool2d, 3: F(lib).lp_pool3d}[nd](x, **kw)


@st.composite
def _grid_shapes(draw, nd=2):
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    spatial = tuple(draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd)))
    out = tuple(draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd)))
    return ((n, c) + spatial, (n,) + out + (nd,))


def _grid_params(data, shapes, bicubic=True):
    modes = ["bilinear", "nearest"] + (["bicubic"] if bicubic else [])
    return {"mode": data.draw(st.sampled_from(modes)),
            "padding_mode": data.draw(st.sampled_from(["zeros", "border", "reflection"])),
            "align_corners": data.draw(st.booleans())}


def _embedding_bag(lib, w, idx, offsets, psw=None, **kw):
    """embedding_bag of fixed indices (bags from ``offsets``, or 2-D ``idx``) into the drawn table ``w``."""
    i = lib.tensor(idx, dtype=lib.int64)
    off = None if offsets is None else lib.tensor(offsets, dtype=lib.int64)
    if psw is not None:
        psw = psw[: i.numel()].reshape(i.shape)
    return F(lib).embedding_bag(i, w, off, per_sample_weights=psw, **kw)


def _bag_params(data, shapes):
    v = shapes[0][0]
    n = data.draw(st.integers(0, 6))
    idx = data.draw(st.lists(st.integers(0, v - 1), min_size=n, max_size=n))
    mode = data.draw(st.sampled_from(["sum", "mean", "max"]))
    if n and n % 2 == 0 and data.draw(st.booleans()):
        return {"idx": [idx[: n // 2], idx[n // 2:]], "offsets": None, "mode": mode}
    cuts = sorted(data.draw(st.lists(st.integers(0, n), min_size=1, max_size=3)))
    return {"idx": idx, "offsets": [0] + cuts[1:], "mode": mode,
            "padding_idx": data.draw(st.sampled_from([None, 0, -1])),
            "include_last_offset": False}


def _aa_params(data, shapes):
    """Sizes or scale factors that keep the output at least 2 wide (see the antialias rows)."""
    if data.draw(st.booleans()):
        out = {"size": (data.draw(st.integers(1, 6)), data.draw(st.integers(2, 6)))}
    else:
        out = {"scale_factor": data.draw(st.sampled_from([1.0, 1.5, 2, (0.5, 1.5), (0.75, 1.0)]))}
    out["align_corners"] = data.draw(st.booleans())
    return out


ROWS: list[OpInfo] = [
    OpInfo("conv3d", lambda lib, x, w, b=None, **kw: F(lib).conv3d(x, w, b, **kw), _conv3d_shapes(),
           covers=("ConvolutionBackward0",), params=_conv3d_params, **C),
    OpInfo("conv_transpose3d", lambda lib, x, w, b=None, **kw: F(lib).conv_transpose3d(x, w, b, **kw),
           _conv3d_shapes(transposed=True), covers=("ConvolutionBackward0",),
           params=lambda d, s: _conv3d_params(d, s, transposed=True), **C),
    OpInfo("conv3d_unbatched", lambda lib, x, w: F(lib).conv3d(x, w, padding=1), fixed((2, 3, 2, 3), (1, 2, 2, 2, 2)),
           covers=("ConvolutionBackward0", "SqueezeBackward1", "UnsqueezeBackward0")),
    OpInfo("max_pool3d", lambda lib, x, **kw: F(lib).max_pool3d(x, **kw), _volume(),
           covers=("MaxPool3DWithIndicesBackward0", "MaxPool3DWithIndicesBackwardBackward0"), params=_pool3d_params,
           ties=True, gradcheck=False),
    OpInfo("max_pool3d_indices", lambda lib, x, **kw: F(lib).max_pool3d(x, return_indices=True, **kw)[1], _volume(),
           covers=(), params=_pool3d_params, ties=True, differentiable=False),
    OpInfo("max_pool3d_smooth", lambda lib, x, **kw: F(lib).max_pool3d(x, **kw), _volume(),
           covers=("MaxPool3DWithIndicesBackward0",), params=lambda d, s: _pool3d_params(d, s, dilation=False)),
    OpInfo("avg_pool3d", lambda lib, x, **kw: F(lib).avg_pool3d(x, **kw), _volume(),
           covers=("AvgPool3DBackward0", "AvgPool3DBackwardBackward0"), params=_avg3d_params),
    OpInfo("adaptive_avg_pool3d", lambda lib, x, output_size: F(lib).adaptive_avg_pool3d(x, output_size), _volume(),
           covers=("AdaptiveAvgPool3DBackward0", "AdaptiveAvgPool3DBackwardBackward0", "MeanBackward1"),
           params=_adaptive3d_params),
    OpInfo("adaptive_max_pool3d", lambda lib, x, output_size: F(lib).adaptive_max_pool3d(x, output_size), _volume(),
           covers=("AdaptiveMaxPool3DBackward0", "MaxPool3DWithIndicesBackwardBackward0"), params=_adaptive3d_params,
           ties=True, gradcheck=False),
    OpInfo("adaptive_max_pool3d_indices",
           lambda lib, x, output_size: F(lib).adaptive_max_pool3d(x, output_size, return_indices=True)[1], _volume(),
           covers=(), params=_adaptive3d_params, ties=True, differentiable=False),
    OpInfo("adaptive_avg_pool1d", lambda lib, x, output_size: F(lib).adaptive_avg_pool1d(x, output_size),
           _volume(nd=1), covers=("AdaptiveAvgPool2DBackward0", "SqueezeBackward1", "UnsqueezeBackward0"),
           params=_adaptive1d_params),
    OpInfo("adaptive_max_pool1d", lambda lib, x, output_size: F(lib).adaptive_max_pool1d(x, output_size),
           _volume(nd=1), covers=("AdaptiveMaxPool2DBackward0", "SqueezeBackward1", "UnsqueezeBackward0"),
           params=_adaptive1d_params, ties=True, gradcheck=False),
    OpInfo("pixel_shuffle", lambda lib, x, r: F(lib).pixel_shuffle(x, r), _shuffle_shapes().map(lambda s: s[0]),
           covers=("PixelShuffleBackward0", "PixelUnshuffleBackward0"),
           params=lambda d, s: {"r": d.draw(st.sampled_from([r for r in (1, 2) if s[0][-3] % (r * r) == 0]))}, **C),
    OpInfo("pixel_unshuffle", lambda lib, x, r: F(lib).pixel_unshuffle(x, r), _shuffle_shapes(up=False).map(
           lambda s: s[0]), covers=("PixelUnshuffleBackward0", "PixelShuffleBackward0"),
           params=lambda d, s: {"r": d.draw(st.sampled_from(
               [r for r in (1, 2, 3) if s[0][-1] % r == 0 and s[0][-2] % r == 0]))}, **C),
    OpInfo("channel_shuffle", lambda lib, x, g: F(lib).channel_shuffle(x, g), fixed((2, 6, 2, 3)),
           covers=("ChannelShuffleBackward0",), params=lambda d, s: {"g": d.draw(st.sampled_from([1, 2, 3, 6]))}, **C),
    OpInfo("local_response_norm", lambda lib, x, **kw: F(lib).local_response_norm(x, **kw),
           st.sampled_from([((2, 5, 3),), ((1, 4, 2, 3),), ((2, 3, 2, 1, 2),)]),
           covers=("MulBackward0", "ConstantPadNdBackward0", "AvgPool2DBackward0", "AvgPool3DBackward0",
                   "SqueezeBackward1", "UnsqueezeBackward0", "ViewBackward0", "AddBackward0", "PowBackward0",
                   "DivBackward0"),
           params=lambda d, s: {"size": d.draw(st.sampled_from([1, 2, 3])), "alpha": 0.5,
                                "beta": d.draw(st.sampled_from([0.75, 1.5])), "k": 2.0}),
    OpInfo("max_unpool1d", lambda lib, x, stride: _unpool(lib, x, 1, stride), _volume(nd=1, min_side=2),
           covers=("MaxUnpool2DBackward0", "SqueezeBackward1", "UnsqueezeBackward0", "MaxPool2DWithIndicesBackward0"),
           params=lambda d, s: {"stride": d.draw(st.sampled_from([None, 1]))}, ties=True, gradcheck=False),
    OpInfo("max_unpool2d", lambda lib, x, stride: _unpool(lib, x, 2, stride), _volume(nd=2, min_side=2),
           covers=("MaxUnpool2DBackward0", "MaxPool2DWithIndicesBackward0"),
           params=lambda d, s: {"stride": d.draw(st.sampled_from([None, 1]))}, ties=True, gradcheck=False),
    OpInfo("max_unpool3d", lambda lib, x, stride: _unpool(lib, x, 3, stride), _volume(nd=3, min_side=2),
           covers=("MaxUnpool3DBackward0", "MaxPool3DWithIndicesBackward0"),
           params=lambda d, s: {"stride": d.draw(st.sampled_from([None, 1]))}, ties=True, gradcheck=False),
    OpInfo("lp_pool1d", _lp(1), _volume(nd=1, min_side=2), covers=_LP_COVERS,
           params=lambda d, s: _lp_params(d, s, 1), domain=(0.5, 2.0), gradcheck=False),
    OpInfo("lp_pool2d", _lp(2), _volume(nd=2, min_side=2), covers=_LP_COVERS,
           params=lambda d, s: _lp_params(d, s, 2), domain=(0.5, 2.0), gradcheck=False),
    OpInfo("lp_pool3d", _lp(3), _volume(nd=3, min_side=2), covers=_LP_COVERS,
           params=lambda d, s: _lp_params(d, s, 3), domain=(0.5, 2.0), gradcheck=False),
    # torch has no second derivative of pdist (_pdist_backward is not differentiable)
    OpInfo("pdist", lambda lib, x, p: F(lib).pdist(x, p), st.sampled_from([((1, 3),), ((2, 1),), ((4, 3),), ((5, 2),)]),
           covers=("PdistBackward0",), params=lambda d, s: {"p": d.draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0,
                                                                                       float("inf")]))},
           second_order=False),
    OpInfo("grid_sample_2d", lambda lib, x, g, **kw: F(lib).grid_sample(x, g, **kw), _grid_shapes(),
           covers=("GridSampler2DBackward0",), params=_grid_params, domain=(-1.2, 1.2), gradcheck=False),
    OpInfo("grid_sample_3d", lambda lib, x, g, **kw: F(lib).grid_sample(x, g, **kw), _grid_shapes(nd=3),
           covers=("GridSampler3DBackward0",), params=lambda d, s: _grid_params(d, s, bicubic=False),
           domain=(-1.2, 1.2), gradcheck=False),
    OpInfo("affine_grid", lambda lib, t, size, align_corners: F(lib).affine_grid(t, size, align_corners=align_corners),
           st.sampled_from([((1, 2, 3),), ((2, 2, 3),), ((2, 3, 4),)]), covers=("AffineGridGeneratorBackward0",),
           params=lambda d, s: {"size": (s[0][0], 2) + ((3, 4) if s[0][1] == 2 else (2, 3, 4)),
                                "align_corners": d.draw(st.booleans())}),
    OpInfo("embedding_bag", lambda lib, w, **kw: _embedding_bag(lib, w, **kw), st.sampled_from([((4, 3),), ((6, 2),)]),
           covers=("EmbeddingBagBackward0",), params=_bag_params, ties=True, gradcheck=False, second_order=False),
    OpInfo("embedding_bag_per_sample_weights", lambda lib, w, p, **kw: _embedding_bag(lib, w, psw=p, **kw),
           st.sampled_from([((4, 3), (6,)), ((6, 2), (6,))]), covers=("EmbeddingBagBackward0",),
           params=lambda d, s: {**_bag_params(d, s), "mode": "sum"}, second_order=False),
    # scale_grad_by_freq: torch's CPU kernel's divisors (embedding_bag._freq_divisors), not a derivative
    OpInfo("embedding_bag_scale_grad_by_freq", lambda lib, w, **kw: _embedding_bag(lib, w, **kw),
           st.sampled_from([((4, 3),), ((6, 2),)]), covers=("EmbeddingBagBackward0",),
           params=lambda d, s: {**_bag_params(d, s), "mode": d.draw(st.sampled_from(["sum", "mean"])),
                                "scale_grad_by_freq": True},
           ties=True, gradcheck=False, second_order=False),
    OpInfo("embedding_bag_scale_grad_by_freq_per_sample_weights",
           lambda lib, w, p, **kw: _embedding_bag(lib, w, psw=p, **kw),
           st.sampled_from([((4, 3), (6,)), ((6, 2), (6,))]), covers=("EmbeddingBagBackward0",),
           params=lambda d, s: {**_bag_params(d, s), "mode": "sum", "scale_grad_by_freq": True},
           gradcheck=False, second_order=False),
    # ---- interpolate's further modes (resample.py)
    OpInfo("interpolate_nearest3d", _interp("nearest"), _volume(min_side=1), covers=("UpsampleNearest3DBackward0",),
           params=lambda d, s: _interp_params(d, s, False)),
    OpInfo("interpolate_trilinear", _interp("trilinear"), _volume(), covers=("UpsampleTrilinear3DBackward0",),
           params=lambda d, s: _interp_params(d, s, True)),
    OpInfo("interpolate_nearest_exact1d", _interp("nearest-exact"), _volume(nd=1),
           covers=("UpsampleNearestExact1DBackward0",), params=lambda d, s: _interp_params(d, s, False)),
    OpInfo("interpolate_nearest_exact2d", _interp("nearest-exact"), _volume(nd=2),
           covers=("UpsampleNearestExact2DBackward0",), params=lambda d, s: _interp_params(d, s, False)),
    OpInfo("interpolate_nearest_exact3d", _interp("nearest-exact"), _volume(),
           covers=("UpsampleNearestExact3DBackward0",), params=lambda d, s: _interp_params(d, s, False)),
    OpInfo("interpolate_bicubic", _interp("bicubic"), _volume(nd=2), covers=("UpsampleBicubic2DBackward0",),
           params=lambda d, s: _interp_params(d, s, True)),
    # antialias: outputs at least 2 wide (torch 2.13's antialiased kernels, for an output 1 pixel wide, give every
    # row the first row's value: a torch defect dyngrad does not copy)
    OpInfo("interpolate_bilinear_antialias", lambda lib, x, **kw: F(lib).interpolate(x, mode="bilinear", antialias=True,
           **kw), _volume(nd=2, min_side=2), covers=("UpsampleBilinear2DAaBackward0",), params=_aa_params),
    OpInfo("interpolate_bicubic_antialias", lambda lib, x, **kw: F(lib).interpolate(x, mode="bicubic", antialias=True,
           **kw), _volume(nd=2, min_side=2), covers=("UpsampleBicubic2DAaBackward0",), params=_aa_params),
    OpInfo("interpolate_area_1d_3d", lambda lib, x, size: F(lib).interpolate(x, size=size, mode="area"),
           st.sampled_from([((2, 2, 7),), ((1, 2, 3, 4, 5),)]), covers=("AdaptiveAvgPool3DBackward0",
                                                                        "AdaptiveAvgPool2DBackward0"),
           params=lambda d, s: {"size": d.draw(st.sampled_from([2, 3])) if len(s[0]) == 3 else (2, 3, 2)}),
    # ---- fractional max pooling with the random samples given (deterministic windows)
    OpInfo("fractional_max_pool2d", lambda lib, x, u, k, o: F(lib).fractional_max_pool2d(x, k, output_size=o,
           _random_samples=u.detach()), st.sampled_from([((1, 2, 5, 6), (1, 2, 2)), ((2, 1, 4, 4), (2, 1, 2)), ((2, 4, 5), (1, 2, 2))]),
           covers=("FractionalMaxPool2DBackward0", "MaxPool2DWithIndicesBackwardBackward0"), domain=(0.0, 1.0),
           params=lambda d, s: {"k": d.draw(st.sampled_from([1, 2, (2, 1)])), "o": d.draw(st.sampled_from([1, 2, (3, 2)]))},
           ties=True, gradcheck=False),
    OpInfo("fractional_max_pool3d", lambda lib, x, u, k, o: F(lib).fractional_max_pool3d(x, k, output_size=o,
           _random_samples=u.detach()), st.sampled_from([((1, 2, 3, 4, 4), (1, 2, 3)), ((2, 3, 4, 3), (1, 2, 3))]),
           covers=("FractionalMaxPool3DBackward0", "MaxPool3DWithIndicesBackwardBackward0"), domain=(0.0, 1.0),
           params=lambda d, s: {"k": d.draw(st.sampled_from([1, 2])), "o": d.draw(st.sampled_from([1, 2, (2, 2, 1)]))},
           ties=True, gradcheck=False),
]
