"""Rows of the op table for torch.fft and torch.stft / torch.istft (see tests/op_table.py).

Each transform has a row for real input and one for complex input where torch takes both: a real input
whose result is complex (fft of a real signal, rfft, ihfft, the n-D forms promoted to complex) is a
``complex_out`` row, checked by the complex tests with real inputs. ``n`` / ``s`` / ``dim`` / ``norm`` are
drawn, so the crop (SliceBackward0) and zero-pad (ConstantPadNdBackward0) paths and every normalization
are reached; invalid draws (an irfft of a size-1 dim, n past what a dim allows) must raise torch's error.
float32 tolerance: a transform sums up to 256 terms of size <= 2, so an entry that cancels to about 0 keeps
an absolute error of a few 1e-6 * max|X|, which is also torch's own rounding (two single-precision FFTs).
"""

from __future__ import annotations

from hypothesis import strategies as st

from op_table import POSITIVE, REAL, WITH_COMPLEX, OpInfo, fixed, one_shape

COMPLEX = ("complex64", "complex128")
C = dict(dtypes=COMPLEX)
BOTH = dict(dtypes=WITH_COMPLEX)
REAL_IN = dict(dtypes=REAL, complex_out=True)
F32_TOL = {"float32": dict(rtol=1e-4, atol=5e-5), "complex64": dict(rtol=1e-4, atol=5e-5)}
NORMS = [None, "backward", "ortho", "forward"]

SIGNALS = one_shape(min_dims=1, max_dims=3, min_side=1)
GRIDS = one_shape(min_dims=2, max_dims=3, min_side=1)


def _one_d(data, shapes):
    nd = len(shapes[0])
    return {
        "n": data.draw(st.none() | st.integers(1, 6), label="n"),
        "dim": data.draw(st.integers(-nd, nd - 1) if nd else st.sampled_from([0, -1]), label="dim"),
        "norm": data.draw(st.sampled_from(NORMS), label="norm"),
    }


def _sizes(data, k: int):
    return tuple(data.draw(st.lists(st.sampled_from([-1, 1, 2, 3, 4, 5]), min_size=k, max_size=k), label="s"))


def _n_d(data, shapes):
    """s and/or dim for an n-D transform: s alone (the last len(s) dims), dim alone, both, or neither."""
    nd = len(shapes[0])
    k = data.draw(st.integers(1, nd), label="k")
    dims = tuple(d - nd * data.draw(st.booleans()) for d in data.draw(st.permutations(range(nd)), label="dims")[:k])
    form = data.draw(st.sampled_from(["s", "dim", "both", "none"]), label="form")
    out = {"norm": data.draw(st.sampled_from(NORMS), label="norm")}
    if form in ("s", "both"):
        out["s"] = _sizes(data, k)
    if form in ("dim", "both"):
        out["dim"] = dims
    return out


def _two_d(data, shapes):
    """s and/or dim for the 2-D forms (two distinct dims; the default is the last two)."""
    nd = len(shapes[0])
    out = {"norm": data.draw(st.sampled_from(NORMS), label="norm")}
    if data.draw(st.booleans(), label="has_dim"):
        out["dim"] = tuple(data.draw(st.permutations(range(-nd, 0)), label="dims")[:2])
    if data.draw(st.booleans(), label="has_s"):
        out["s"] = _sizes(data, 2)
    return out


def _shift_dims(data, shapes):
    nd = len(shapes[0])
    choice = data.draw(st.sampled_from(["none", "int", "tuple"]), label="form")
    if choice == "none" or nd == 0:
        return {"dim": None}
    if choice == "int":
        return {"dim": data.draw(st.integers(-nd, nd - 1), label="dim")}
    k = data.draw(st.integers(1, nd), label="k")
    return {"dim": tuple(data.draw(st.permutations(range(nd)), label="dims")[:k])}


def _fft(name):
    return lambda lib, x, **p: getattr(lib.fft, name)(x, **p)


def _row(name, fn_name, covers, shapes, params, **kw):
    return OpInfo(name, _fft(fn_name), shapes, covers=covers, params=params, tol=F32_TOL, **kw)


PAD = ("ConstantPadNdBackward0", "SliceBackward0")
R2C, C2C, C2R = "FftR2CBackward0", "FftC2CBackward0", "FftC2RBackward0"

ROWS: list[OpInfo] = [
    # ---- one-dimensional
    _row("fft", "fft", (C2C,) + PAD, SIGNALS, _one_d, **C),
    _row("fft_real", "fft", (R2C,) + PAD, SIGNALS, _one_d, **REAL_IN),
    _row("ifft", "ifft", (C2C,) + PAD, SIGNALS, _one_d, **C),
    _row("ifft_real", "ifft", (R2C, "ConjBackward0") + PAD, SIGNALS, _one_d, **REAL_IN),
    _row("rfft", "rfft", (R2C,) + PAD, SIGNALS, _one_d, **REAL_IN),
    _row("irfft", "irfft", (C2R, "ToCopyBackward0") + PAD, SIGNALS, _one_d, **BOTH),
    _row("hfft", "hfft", (C2R, "ConjBackward0", "ToCopyBackward0") + PAD, SIGNALS, _one_d, **BOTH),
    _row("ihfft", "ihfft", (R2C, "ConjBackward0") + PAD, SIGNALS, _one_d, **REAL_IN),
    # 0-d and empty inputs: torch's dim and "Invalid number of data points" errors, its MKL text for an empty batch
    _row("fft_any_shape", "fft", (C2C,), one_shape(), _one_d, **C),
    _row("rfft_any_shape", "rfft", (R2C,), one_shape(), _one_d, **REAL_IN),
    _row("irfft_any_shape", "irfft", (C2R,), one_shape(), _one_d, **C),
    # ---- n-dimensional
    _row("fftn", "fftn", (C2C,) + PAD, SIGNALS, _n_d, **C),
    _row("fftn_real", "fftn", (C2C, "ToCopyBackward0") + PAD, SIGNALS, _n_d, **REAL_IN),
    _row("ifftn", "ifftn", (C2C,) + PAD, SIGNALS, _n_d, **C),
    _row("rfftn", "rfftn", (R2C,) + PAD, SIGNALS, _n_d, **REAL_IN),
    _row("irfftn", "irfftn", (C2R, "ToCopyBackward0") + PAD, SIGNALS, _n_d, **BOTH),
    _row("hfftn", "hfftn", (C2R, C2C, "ConjBackward0") + PAD, SIGNALS, _n_d, **BOTH),
    _row("ihfftn", "ihfftn", (R2C, C2C, "ConjBackward0", "ConjPhysicalBackward0") + PAD, SIGNALS, _n_d,
         **REAL_IN),
    _row("fftn_all_dims", "fftn", (C2C,), one_shape(max_dims=3), lambda d, s: {}, **C),
    # ---- two-dimensional
    _row("fft2", "fft2", (C2C,) + PAD, GRIDS, _two_d, **C),
    _row("ifft2_real", "ifft2", (C2C, "ToCopyBackward0") + PAD, GRIDS, _two_d, **REAL_IN),
    _row("rfft2", "rfft2", (R2C,) + PAD, GRIDS, _two_d, **REAL_IN),
    _row("irfft2", "irfft2", (C2R,) + PAD, GRIDS, _two_d, **BOTH),
    _row("hfft2", "hfft2", (C2R, C2C, "ConjBackward0") + PAD, GRIDS, _two_d, **BOTH),
    _row("ihfft2", "ihfft2", (R2C, C2C, "ConjPhysicalBackward0") + PAD, GRIDS, _two_d, **REAL_IN),
    # ---- shifts (a roll, any dtype)
    OpInfo("fftshift", _fft("fftshift"), one_shape(), covers=("RollBackward0",), params=_shift_dims, int_ok=True,
           **BOTH),
    OpInfo("ifftshift", _fft("ifftshift"), one_shape(), covers=("RollBackward0",), params=_shift_dims, **BOTH),
    # ---- a transform and its inverse: every node's gradient in one chain
    OpInfo("rfft_irfft", lambda lib, x, **p: lib.fft.irfft(lib.fft.rfft(x, **p) * 1.5, **p), SIGNALS,
           covers=(R2C, C2R), params=_one_d, tol=F32_TOL),
    # ---- stft / istft: the window is the second input, so its gradient is compared too (values kept positive:
    # the istft envelope divides by the overlap-added squared window)
    OpInfo("stft", lambda lib, x, w, **p: lib.stft(x, 8, window=w, return_complex=True, **p),
           st.sampled_from([((20,), (8,)), ((2, 17), (8,)), ((13,), (8,))]),
           covers=("AsStridedBackward0", "ReflectionPad1DBackward0", "ViewBackward0", "UnsqueezeBackward0",
                   "TransposeBackward1", "SqueezeBackward4", "MulBackward0", R2C, C2C),
           params=lambda d, s: {"hop_length": d.draw(st.sampled_from([None, 1, 3])),
                                "center": d.draw(st.booleans()), "normalized": d.draw(st.booleans()),
                                "onesided": d.draw(st.sampled_from([None, False]))},
           domain=POSITIVE, tol=F32_TOL, **REAL_IN),
    OpInfo("stft_complex", lambda lib, x, w, **p: lib.stft(x, 8, window=w, **p),
           st.sampled_from([((20,), (6,)), ((2, 17), (6,))]),
           covers=("AsStridedBackward0", "CopySlices", R2C, C2C),
           params=lambda d, s: {"hop_length": d.draw(st.sampled_from([None, 2])), "win_length": 6,
                                "center": d.draw(st.booleans()), "pad_mode": d.draw(st.sampled_from(["reflect",
                                                                                                    "constant"]))},
           domain=POSITIVE, tol=F32_TOL, **C),
    OpInfo("istft", lambda lib, x, w, **p: lib.istft(x, 8, window=w.abs() + 0.5, **p),
           st.sampled_from([((5, 6), (8,)), ((2, 5, 4), (8,))]),
           covers=("UnfoldBackwardBackward0", "DivBackward0", "PowBackward0", "ExpandBackward0",
                   "ViewAsRealBackward0", "ViewAsComplexBackward0", "SqueezeBackward1", C2R),
           params=lambda d, s: {"hop_length": d.draw(st.sampled_from([None, 1, 3])),
                                "center": d.draw(st.booleans()), "normalized": d.draw(st.booleans()),
                                "length": d.draw(st.sampled_from([None, 5, 30]))},
           domain=POSITIVE, tol=F32_TOL, **C),
    OpInfo("istft_two_sided", lambda lib, x, w, **p: lib.istft(x, 6, window=w.abs() + 0.5, **p),
           fixed((6, 5), (6,)), covers=(C2C, C2R, "SliceBackward0"),
           params=lambda d, s: {"hop_length": 2, "return_complex": d.draw(st.booleans()),
                                "onesided": False},
           domain=POSITIVE, tol=F32_TOL, **C),
    OpInfo("stft_istft_round_trip",
           lambda lib, x, w: lib.istft(lib.stft(x, 8, hop_length=2, window=w, return_complex=True), 8, hop_length=2,
                                       window=w, length=x.shape[-1]),
           st.sampled_from([((20,), (8,)), ((2, 12), (8,))]), covers=(R2C, C2R, "UnfoldBackwardBackward0"),
           domain=POSITIVE, tol=F32_TOL),
]
