"""torch.fft and torch.stft / torch.istft against torch 2.13: errors (type and text), dtype promotion,
fftfreq / rfftfreq, the conjugate bit, ``out=``, float32 accuracy on long signals, stft / istft over their
arguments (values, graphs, first and second order gradients, round trips, warnings, torch's checks).

Values and gradients of every transform over drawn n / s / dim / norm are checked by the op table
(tests/op_rows_fft.py); this file checks the rest.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
from conftest import assert_same_tensor, both, same_error, to_numpy, torch

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
TWO_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]
ALL = ONE_D + N_D + TWO_D


def _x(lib, shape=(4, 6, 5), dtype="float32", seed=0):
    values = np.random.default_rng(seed).uniform(-2, 2, size=shape)
    if dtype.startswith("complex"):
        values = values + 1j * np.random.default_rng(seed + 1).uniform(-2, 2, size=shape)
    return lib.from_numpy(values.astype(dtype))


def both_scaled(program) -> None:
    """conftest.both with tolerances relative to each tensor's largest entry: sums of many float32 terms (the
    transforms, overlap-adds and their gradients) leave an entry that cancels to about 0 with an absolute
    error of a few ulps of the largest, as torch's own single-precision result has."""
    d, t = same_error(lambda: program(dyngrad), lambda: program(torch))

    def compare(a, b, path):
        if isinstance(b, torch.Tensor):
            single = b.dtype in (torch.float32, torch.complex64)
            scale = max(1.0, float(np.abs(to_numpy(b)).max())) if b.numel() else 1.0
            tol = dict(rtol=1e-4, atol=2e-6 * scale) if single else dict(rtol=1e-9, atol=1e-12 * scale)
            assert_same_tensor(a, b, tol=tol, what=path)
        elif isinstance(b, (tuple, list)):
            assert len(a) == len(b), path
            for i, (u, v) in enumerate(zip(a, b)):
                compare(u, v, f"{path}[{i}]")
        else:
            assert a == b, f"{path}: {a!r} != {b!r}"

    if t is not None:
        compare(d, t, "result")


def _chain(t, opaque: str = "") -> list:
    """The grad_fn names of ``t``'s graph, depth first; the inputs of nodes named ``opaque`` are not followed."""
    out = []

    def walk(fn, depth):
        if fn is None:
            return
        out.append((depth, type(fn).__name__))
        if type(fn).__name__ == opaque:
            return
        for f, _ in fn.next_functions:
            walk(f, depth + 1)

    walk(t.grad_fn, 0)
    return out


# ------------------------------------------------------------------ errors


ERROR_CASES_1D = [
    lambda f, lib: f(lib.zeros(0, 8)),  # empty batch: torch's MKL text
    lambda f, lib: f(lib.zeros(8, 0)),  # empty signal
    lambda f, lib: f(lib.tensor(1.0)),  # 0-d: no dim
    lambda f, lib: f(_x(lib), n=0),
    lambda f, lib: f(_x(lib), n=-1),
    lambda f, lib: f(_x(lib), dim=3),
    lambda f, lib: f(_x(lib), dim=-4),
    lambda f, lib: f(_x(lib), norm="bogus"),
    lambda f, lib: f(_x(lib), norm=3),
    lambda f, lib: f(_x(lib).half()),
    lambda f, lib: f(_x(lib).half(), n=0, dim=7),  # the dtype is checked first
    lambda f, lib: f(_x(lib, dtype="complex64"), n=0, dim=7),
    lambda f, lib: f(_x(lib), n=2.0),
    lambda f, lib: f(_x(lib), n=True),
    lambda f, lib: f(_x(lib), dim=(0,)),
    lambda f, lib: f([1.0, 2.0]),
    lambda f, lib: f(_x(lib, (3, 1))),  # irfft / hfft: 2 * (1 - 1) = 0 points
    lambda f, lib: f(_x(lib, (3, 1)), n=1),
    lambda f, lib: f(_x(lib, dtype="complex64")),  # rfft / ihfft refuse complex input
    lambda f, lib: f(_x(lib), out=lib.empty(0)),
    lambda f, lib: f(_x(lib), out=lib.empty(0, dtype=lib.complex64)),
]


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("case", range(len(ERROR_CASES_1D)))
def test_one_d_errors_and_edge_cases_match_torch(name, case) -> None:
    both(lambda lib: ERROR_CASES_1D[case](getattr(lib.fft, name), lib))


ERROR_CASES_ND = [
    lambda f, lib: f(_x(lib), s=(3, 4), dim=(0,)),
    lambda f, lib: f(_x(lib), s=(3, 4, 5, 6)),
    lambda f, lib: f(_x(lib), dim=(0, 0)),
    lambda f, lib: f(_x(lib), dim=(0, -3)),
    lambda f, lib: f(_x(lib), dim=(0, 3)),
    lambda f, lib: f(_x(lib), s=(-1, 4)),
    lambda f, lib: f(_x(lib), s=(-2, 4)),
    lambda f, lib: f(_x(lib), s=(0, 4)),
    lambda f, lib: f(_x(lib), s=(4, -1)),
    lambda f, lib: f(_x(lib), dim=()),
    lambda f, lib: f(_x(lib), s=()),
    lambda f, lib: f(lib.tensor(2.0)),
    lambda f, lib: f(lib.tensor(2.0), dim=()),
    lambda f, lib: f(_x(lib, dtype="complex64")),
    lambda f, lib: f(_x(lib, dtype="complex64"), dim=(0, 0)),
    lambda f, lib: f(_x(lib, dtype="complex64"), norm="bad"),
    lambda f, lib: f(_x(lib).half()),
    lambda f, lib: f(_x(lib).half(), dim=()),
    lambda f, lib: f(_x(lib), norm="x"),
    lambda f, lib: f(_x(lib), dim=1),
    lambda f, lib: f(_x(lib), s=5),
    lambda f, lib: f(_x(lib), s=2.5),
    lambda f, lib: f(_x(lib), s=(2.5,)),
    lambda f, lib: f(_x(lib), dim="a"),
    lambda f, lib: f(_x(lib, (4, 1, 5))),
    lambda f, lib: f(_x(lib, (0, 4, 5)), dim=(1, 2)),
    lambda f, lib: f(_x(lib, (0, 4, 5)), dim=()),
    lambda f, lib: f(_x(lib, (4, 0, 5))),
    lambda f, lib: f(_x(lib, (4, 6, 1))),
    lambda f, lib: f(_x(lib), s=[3, 3], dim=[2, 0]),
    lambda f, lib: f(_x(lib), None, (0,), "ortho"),
]


@pytest.mark.parametrize("name", N_D + TWO_D)
@pytest.mark.parametrize("case", range(len(ERROR_CASES_ND)))
def test_n_d_errors_and_edge_cases_match_torch(name, case) -> None:
    both(lambda lib: ERROR_CASES_ND[case](getattr(lib.fft, name), lib))


# ------------------------------------------------------------------ dtypes, graphs, the conjugate bit


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64", "int32", "uint8", "bool"])
def test_dtype_promotion_graph_and_conjugate_bit_match_torch(name, dtype) -> None:
    def run(lib):
        x = _x(lib, (4, 6), dtype="float64" if dtype in ("float64",) else "float32")
        if dtype.startswith("complex"):
            x = _x(lib, (4, 6), dtype=dtype)
        elif dtype == "bool":
            x = x > 0
        elif dtype not in ("float32", "float64"):
            x = (x * 3).to(getattr(lib, dtype))
        if x.dtype.is_floating_point or x.dtype.is_complex:
            x.requires_grad_(True)
        y = getattr(lib.fft, name)(x)
        return y, y.is_conj(), _chain(y)

    both(run)


def test_integer_input_follows_the_default_dtype() -> None:
    def run(lib):
        old = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            return lib.fft.rfft(lib.arange(6)), lib.fft.fft(lib.arange(5)), lib.fft.irfft(lib.arange(5))
        finally:
            lib.set_default_dtype(old)

    both(run)


def test_noncontiguous_and_strided_inputs_match_torch() -> None:
    def run(lib):
        x = _x(lib, (6, 8, 5), dtype="complex128")
        r = _x(lib, (6, 8, 5), dtype="float64")
        return (lib.fft.fftn(x.transpose(0, 2)[:, ::2], s=(3, 6)), lib.fft.rfft(r[::2, :, 1::2], dim=1),
                lib.fft.irfftn(x.permute(2, 0, 1), dim=(0, 2)), lib.fft.hfft(x.mT, n=7, dim=0))

    both(run)


def test_out_argument_matches_torch() -> None:
    def run(lib):
        out = lib.empty(0, dtype=lib.complex128)
        r = lib.fft.fft(_x(lib, (3, 4)), out=out)
        out2 = lib.empty(3, 5)
        r2 = lib.fft.irfft(_x(lib, (3, 4), dtype="complex64"), n=5, out=out2)
        out3 = lib.empty(0, dtype=lib.complex64)
        r3 = lib.fft.ihfft(_x(lib, (3, 4)), out=out3)
        return r is out, r, r2 is out2, r2, r3 is out3, r3.is_conj(), r3

    both(run)
    both(lambda lib: lib.fft.fft(_x(lib, (3, 4)).requires_grad_(), out=lib.empty(0, dtype=lib.complex64)))


def test_fft_namespace_lists_torchs_functions() -> None:
    names = set(ALL) | {"fftfreq", "rfftfreq", "fftshift", "ifftshift"}
    assert names <= {n for n in dir(torch.fft) if not n.startswith("_")}
    for n in names:
        assert callable(getattr(dyngrad.fft, n)), n


# ------------------------------------------------------------------ accuracy of long float32 transforms


@pytest.mark.parametrize("n", [1000, 4096, 4097, 6561])
def test_long_float32_transforms_are_as_close_to_torch_as_two_single_precision_ffts(n) -> None:
    rng = np.random.default_rng(n)
    x = rng.uniform(-2, 2, size=(8, n)).astype(np.float32)
    z = (x + 1j * rng.uniform(-2, 2, size=(8, n))).astype(np.complex64)
    pairs = [
        (lambda lib, a: lib.fft.rfft(a), x), (lambda lib, a: lib.fft.fft(a), z),
        (lambda lib, a: lib.fft.irfft(a, n=n), z[:, : n // 2 + 1]), (lambda lib, a: lib.fft.ifft(a, norm="ortho"), z),
    ]
    for fn, a in pairs:
        t = fn(torch, torch.from_numpy(a)).numpy()
        d = fn(dyngrad, dyngrad.from_numpy(a)).numpy()
        truth = fn(torch, torch.from_numpy(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))).numpy()
        scale = np.abs(truth).max()
        assert d.dtype == t.dtype
        assert np.abs(d - t).max() <= 5e-7 * scale
        # dyngrad's single precision error is of the size of torch's own
        assert np.abs(d - truth).max() <= 2 * np.abs(t - truth).max() + 1e-7 * scale


# ------------------------------------------------------------------ fftfreq, rfftfreq


@pytest.mark.parametrize("fn", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8, 31, 1001, 4096])
@pytest.mark.parametrize("d", [1.0, 0.1, 0.3, -0.7, 0.0, 7])
@pytest.mark.parametrize("dtype", [None, "float16", "float32", "float64"])
def test_frequencies_are_torchs_bit_for_bit(fn, n, d, dtype) -> None:
    kw = lambda lib: {} if dtype is None else {"dtype": getattr(lib, dtype)}  # noqa: E731
    t = getattr(torch.fft, fn)(n, d, **kw(torch))
    r = getattr(dyngrad.fft, fn)(n, d, **kw(dyngrad))
    assert repr(r.dtype) == repr(t.dtype) and tuple(r.shape) == tuple(t.shape)
    np.testing.assert_array_equal(r.numpy(), t.numpy())


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.fft.fftfreq(-1),
        lambda lib: lib.fft.rfftfreq(-3),
        lambda lib: lib.fft.rfftfreq(-4),
        lambda lib: lib.fft.fftfreq(4, dtype=lib.int64),
        lambda lib: lib.fft.rfftfreq(4, dtype=lib.int32),
        lambda lib: lib.fft.fftfreq(4, dtype=lib.complex64),
        lambda lib: lib.fft.fftfreq(-1, dtype=lib.int64),
        lambda lib: lib.fft.fftfreq(4.0),
        lambda lib: lib.fft.fftfreq(3, d=lib.tensor(2.0)),
        lambda lib: lib.fft.fftfreq(5, requires_grad=True),
        lambda lib: lib.fft.rfftfreq(5, 0.5, requires_grad=True).requires_grad,
        lambda lib: lib.fft.fftfreq(4, out=lib.empty(2, dtype=lib.float64)),
    ],
)
def test_frequency_errors_and_options_match_torch(program) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(program)


def test_shifts_match_torch() -> None:
    def run(lib):
        x = _x(lib, (5, 6, 3), dtype="complex64").requires_grad_()
        return (lib.fft.fftshift(x), lib.fft.ifftshift(x, dim=(0, -1)), lib.fft.fftshift(x, dim=1),
                _chain(lib.fft.fftshift(x)), lib.fft.ifftshift(lib.arange(7)))

    both(run)
    both(lambda lib: lib.fft.fftshift(lib.tensor(1.0)))
    both(lambda lib: lib.fft.fftshift(_x(lib), dim=()))
    both(lambda lib: lib.fft.fftshift(_x(lib), dim=3))


# ------------------------------------------------------------------ forward-mode AD


def test_forward_mode_tangents_match_torch() -> None:
    import torch.autograd.forward_ad as tfw

    import dyngrad.autograd.forward_ad as dfw

    def run(lib, fw):
        x, t = _x(lib, (4, 6), dtype="float64"), _x(lib, (4, 6), dtype="float64", seed=5)
        with fw.dual_level():
            dual = fw.make_dual(x, t)
            y = lib.fft.irfft(lib.fft.rfft(dual, n=8) * (1 + 2j), n=7)
            z = lib.fft.hfftn(fw.make_dual(x.to(lib.complex128), t.to(lib.complex128)), s=(3, 4))
            return fw.unpack_dual(y).tangent, fw.unpack_dual(z).tangent

    for a, b in zip(run(dyngrad, dfw), run(torch, tfw)):
        assert_same_tensor(a, b)


# ------------------------------------------------------------------ stft / istft

def _second_order(lib, grads, leaves):
    """The gradient of sum |first-order grads|^2 with respect to the leaves, zeros where it does not depend on
    them (torch records some backward formulas on the input even where they are constant in it, as the
    reflection pad's; dyngrad's records none there: the values must agree)."""
    s = sum((gr.abs() ** 2).sum() for gr in grads)
    if not s.requires_grad:
        return [lib.zeros_like(t) for t in leaves]
    second = lib.autograd.grad(s, leaves, allow_unused=True)
    return [lib.zeros_like(t) if g is None else g for g, t in zip(second, leaves)]


STFT_CASES = [
    dict(n_fft=16, return_complex=True),
    dict(n_fft=16, hop_length=3, window="hann", return_complex=True),
    dict(n_fft=16, window="hann", return_complex=False),
    dict(n_fft=16, hop_length=5, win_length=10, window="hann10", return_complex=True),
    dict(n_fft=16, win_length=11, return_complex=True),
    dict(n_fft=16, window="hann", center=False, return_complex=True),
    dict(n_fft=16, window="hann", pad_mode="constant", normalized=True, return_complex=True),
    dict(n_fft=16, window="hann", pad_mode="replicate", onesided=False, return_complex=True),
    dict(n_fft=16, window="hann", pad_mode="circular", return_complex=True),
    dict(n_fft=15, hop_length=4, win_length=10, window="hann10", center=False, align_to_window=True,
         return_complex=True),
    dict(n_fft=16, hop_length=4, win_length=10, window="hann10", center=False, align_to_window=False,
         return_complex=True),
    dict(n_fft=16, window="complex", return_complex=True),
    dict(n_fft=7, hop_length=1, window="rand7", return_complex=True),
]


def _window(lib, kind, dtype):
    if kind is None:
        return None
    if kind == "hann":
        return lib.hann_window(16, dtype=dtype)
    if kind == "hann10":
        return lib.hann_window(10, dtype=dtype)
    if kind == "rand7":
        return lib.from_numpy(np.random.default_rng(3).uniform(0.2, 2, size=7)).to(dtype).requires_grad_()
    return (lib.hann_window(16, dtype=dtype) * (1 + 0.5j)).requires_grad_()


@pytest.mark.parametrize("case", range(len(STFT_CASES)))
@pytest.mark.parametrize("shape", [(100,), (3, 64)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_stft_values_graph_and_gradients_match_torch(case, shape, dtype) -> None:
    kw = dict(STFT_CASES[case])
    kind = kw.pop("window", None)

    def run(lib):
        real_dtype = getattr(lib, "float32" if dtype == "float32" else "float64")
        x = _x(lib, shape, dtype).requires_grad_()
        w = _window(lib, kind, real_dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = lib.stft(x, window=w, **kw)
        leaves = [t for t in (x, w) if t is not None and t.requires_grad]
        g = np.random.default_rng(1).standard_normal(tuple(y.shape))
        if y.dtype.is_complex:
            g = g + 1j * np.random.default_rng(2).standard_normal(tuple(y.shape))
        g = lib.from_numpy(g).to(y.dtype)
        grads = lib.autograd.grad(y, leaves, g, create_graph=True)
        # F.pad(mode="circular") is one node in dyngrad, named as torch's top node (CopySlices), where torch has
        # a tree of slice copies: the graph is compared down to it
        opaque = "CopySlices" if kw.get("pad_mode") == "circular" else ""
        return y, _chain(y, opaque), grads, _second_order(lib, grads, leaves)

    both_scaled(run)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.stft(_x(lib, (100,)), 16),
        lambda lib: lib.stft(_x(lib, (100,)).to(lib.int64), 16, return_complex=True),
        lambda lib: lib.stft(_x(lib, (100,)).half(), 16, window=lib.ones(16).half(), return_complex=True),
        lambda lib: lib.stft(_x(lib, (2, 3, 100)), 16, return_complex=True),
        lambda lib: lib.stft(_x(lib, (1, 1, 40), "complex64"), 16, return_complex=True, center=False),
        lambda lib: lib.stft(lib.tensor(1.0), 16, return_complex=True),
        lambda lib: lib.stft(_x(lib, (100,)), 0, return_complex=True),
        lambda lib: lib.stft(_x(lib, (100,)), 200, return_complex=True),
        lambda lib: lib.stft(_x(lib, (100,)), 200, win_length=5, return_complex=True, center=False),
        lambda lib: lib.stft(_x(lib, (100,)), 16, hop_length=0, return_complex=True),
        lambda lib: lib.stft(_x(lib, (100,)), 16, win_length=20, return_complex=True),
        lambda lib: lib.stft(_x(lib, (100,)), 16, win_length=0, return_complex=True),
        lambda lib: lib.stft(_x(lib, (100,)), 16, window=lib.ones(10), return_complex=True),
        lambda lib: lib.stft(_x(lib, (100,)), 16, window=lib.ones(2, 8), return_complex=True),
        lambda lib: lib.stft(_x(lib, (100,)), 16, window=lib.ones(16, dtype=lib.float64), return_complex=True),
        lambda lib: lib.stft(_x(lib, (100,)), 16, return_complex=True, pad_mode="bogus"),
        lambda lib: lib.stft(_x(lib, (100,), "complex64"), 16, return_complex=True, onesided=True),
        lambda lib: lib.stft(_x(lib, (100,), "complex64"), 16, return_complex=False),
        lambda lib: lib.stft(_x(lib, (100,)), 16, return_complex=True, align_to_window=False),
        lambda lib: lib.stft(_x(lib, (5,)), 16, return_complex=True),
        lambda lib: lib.stft(_x(lib, (0,)), 16, return_complex=True, center=False),
        lambda lib: lib.stft(_x(lib, (0, 100)), 16, return_complex=True, center=False),
        lambda lib: lib.stft(_x(lib, (0, 100)), 16, return_complex=True),
        lambda lib: lib.stft(_x(lib, (12,)), 16, win_length=10, return_complex=True, center=False,
                             align_to_window=True),
        lambda lib: lib.stft(_x(lib, (30,), "float64"), 16, hop_length=1, win_length=9, return_complex=True,
                             center=False, align_to_window=True),  # torch's own as_strided overflow
        lambda lib: _x(lib, (50,)).stft(8, return_complex=True),
    ],
)
def test_stft_errors_match_torch(program) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(program)


def _spectrum(lib, n_fft=16, hop=4, onesided=True, shape=(100,), dtype="float32"):
    x = _x(lib, shape, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.stft(x, n_fft, hop_length=hop, window=lib.hann_window(n_fft, dtype=x.dtype),
                        onesided=onesided, return_complex=True)


ISTFT_CASES = [
    dict(),
    dict(window="hann"),
    dict(window="hann", length=50),
    dict(window="hann", length=120),
    dict(window="hann", center=False, hop_length=2),
    dict(window="hann10", win_length=10, hop_length=4),
    dict(window="hann", normalized=True),
    dict(window="hann", onesided=False, two_sided=True),
    dict(window="hann", return_complex=True, two_sided=True),
    dict(window="complex", return_complex=True, two_sided=True),
    dict(window="rand16", hop_length=3, batch=True),
    dict(window="hann", conj=True),
]


@pytest.mark.parametrize("case", range(len(ISTFT_CASES)))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_istft_values_graph_and_gradients_match_torch(case, dtype) -> None:
    kw = dict(ISTFT_CASES[case])
    kind = kw.pop("window", None)
    two_sided = kw.pop("two_sided", False)
    batch = kw.pop("batch", False)
    conj = kw.pop("conj", False)
    kw.setdefault("hop_length", 4)

    def run(lib):
        real_dtype = getattr(lib, dtype)
        spec = _spectrum(lib, hop=kw["hop_length"], onesided=not two_sided, shape=(3, 60) if batch else (100,),
                         dtype=dtype)
        spec = (spec.conj() if conj else spec).detach().requires_grad_()
        if kind == "rand16":
            w = lib.from_numpy(np.random.default_rng(4).uniform(0.5, 2, size=16)).to(real_dtype).requires_grad_()
        elif kind == "hann10":
            w = lib.hann_window(10, dtype=real_dtype)
        elif kind == "complex":
            w = (lib.hann_window(16, dtype=real_dtype) * (1 + 0.5j)).requires_grad_()
        else:
            w = None if kind is None else lib.hann_window(16, dtype=real_dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = lib.istft(spec, 16, window=w, **kw)
        leaves = [t for t in (spec, w) if t is not None and t.requires_grad]
        g = lib.from_numpy(np.random.default_rng(1).standard_normal(tuple(y.shape))).to(y.dtype)
        grads = lib.autograd.grad(y, leaves, g, create_graph=True)
        return y, _chain(y), grads, _second_order(lib, grads, leaves)

    both_scaled(run)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("center", [True, False])
def test_stft_istft_round_trip_recovers_the_signal_as_torch(dtype, center) -> None:
    def run(lib):
        x = _x(lib, (2, 96), dtype).requires_grad_()
        w = lib.hann_window(32, dtype=x.dtype)
        spec = lib.stft(x, 32, hop_length=8, window=w, center=center, return_complex=True)
        y = lib.istft(spec, 32, hop_length=8, window=w, center=center, length=96)
        (g,) = lib.autograd.grad((y * y).sum(), x)
        return y, g

    both_scaled(run)
    x = _x(dyngrad, (2, 96), dtype)
    w = dyngrad.hann_window(32, dtype=x.dtype)
    y = dyngrad.istft(dyngrad.stft(x, 32, hop_length=8, window=w, return_complex=True), 32, hop_length=8, window=w,
                      length=96)
    np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.istft(_spectrum(lib).real, 16),
        lambda lib: lib.istft(_spectrum(lib)[:, :0], 16),
        lambda lib: lib.istft(_spectrum(lib)[0], 16),
        lambda lib: lib.istft(_spectrum(lib)[None, None], 16),
        lambda lib: lib.istft(_spectrum(lib), 16, onesided=False),
        lambda lib: lib.istft(_spectrum(lib), 20),
        lambda lib: lib.istft(_spectrum(lib), 16, hop_length=0),
        lambda lib: lib.istft(_spectrum(lib), 16, hop_length=20),
        lambda lib: lib.istft(_spectrum(lib), 16, win_length=20),
        lambda lib: lib.istft(_spectrum(lib), 16, window=lib.ones(10)),
        lambda lib: lib.istft(_spectrum(lib), 16, window=lib.hann_window(16), return_complex=True),
        lambda lib: lib.istft(_spectrum(lib), 16, window=lib.zeros(16)),  # NOLA
        lambda lib: lib.istft(_spectrum(lib), 16, window=lib.hann_window(16), center=False),  # NOLA at the ends
        lambda lib: lib.istft(_spectrum(lib), 16, window=lib.hann_window(16).to(lib.complex64)),
        lambda lib: lib.istft(_spectrum(lib), 16, window=lib.hann_window(16), length=0),
        lambda lib: lib.istft(_spectrum(lib), 16, window=lib.hann_window(16), length=-5),
        lambda lib: _spectrum(lib).istft(16, window=lib.hann_window(16)),
    ],
)
def test_istft_errors_match_torch(program) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(program)


@pytest.mark.parametrize("spec_dtype,window_dtype", [("float64", "float32"), ("float32", "float64")])
def test_istft_of_mixed_precisions_promotes_as_torch(spec_dtype, window_dtype) -> None:
    """The result takes the wider dtype; its values have the narrower one's precision (the float32 envelope or
    transform), in torch as here: compared at float32 tolerance."""
    t = torch.istft(_spectrum(torch, dtype=spec_dtype), 16, window=torch.hann_window(16, dtype=getattr(torch,
                                                                                                    window_dtype)))
    d = dyngrad.istft(_spectrum(dyngrad, dtype=spec_dtype), 16, window=dyngrad.hann_window(16, dtype=getattr(
        dyngrad, window_dtype)))
    assert_same_tensor(d, t, tol=dict(rtol=1e-5, atol=1e-6))
    assert repr(d.dtype) == "torch.float64"


TRIGGERED = " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/SpectralOps.cpp:{}.)"
EXPECTED_WARNINGS = {
    "A window was not provided. A rectangular window will be applied,which is known to cause spectral leakage. Other "
    "windows such as torch.hann_window or torch.hamming_window are recommended to reduce spectral leakage.To "
    "suppress this warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`."
    + TRIGGERED.format(835),
    "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex tensors for "
    "all inputs, and return_complex=False will raise an error.\nNote: you can still call torch.view_as_real on the "
    "complex output to recover the old return format." + TRIGGERED.format(874),
    "A window was not provided. A rectangular window will be applied.Please provide the same window used by stft to "
    "make the inversion lossless.To suppress this warning and use a rectangular window, explicitly set "
    "`window=torch.ones(n_fft, device=<device>)`." + TRIGGERED.format(1035),
    "The length of signal is shorter than the length parameter. Result is being padded with zeros in the tail. "
    "Please check your center and hop_length settings." + TRIGGERED.format(1199),
}


def test_stft_and_istft_warn_once_with_torchs_texts() -> None:
    from dyngrad._ops import spectral

    def messages(lib, fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(lib)
            fn(lib)
        return [str(w.message) for w in caught if w.category is UserWarning]

    calls = [
        lambda lib: lib.stft(_x(lib, (64,)), 16, return_complex=True),
        lambda lib: lib.stft(_x(lib, (64,)), 16, window=lib.hann_window(16), return_complex=False),
        lambda lib: lib.istft(_spectrum(lib), 16),
        lambda lib: lib.istft(_spectrum(lib), 16, window=lib.hann_window(16), length=120),
    ]
    # torch warns once per process (TORCH_WARN_ONCE): texts it shows here are the expected ones, and it shows
    # none when an earlier test of this process has already triggered them
    torch_texts = [text for fn in calls for text in messages(torch, fn)]
    assert set(torch_texts) <= EXPECTED_WARNINGS
    spectral._WARNED.clear()  # dyngrad's once-per-process state, as a fresh process has it
    ours = [text for fn in calls for text in messages(dyngrad, fn)]
    assert sorted(ours) == sorted(EXPECTED_WARNINGS)  # each once, though each call ran twice


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numpy_1_kernels_match_torch(monkeypatch, dtype) -> None:
    """NumPy 1.x has no pocketfft gufuncs: the public numpy.fft functions run instead (Note [FFT kernels]); the
    same path is forced here on NumPy 2."""
    from dyngrad._ops import fft as fft_module

    monkeypatch.setattr(fft_module, "_pfu", None)

    def run(lib):
        x = _x(lib, (4, 6, 5), dtype).requires_grad_()
        z = _x(lib, (4, 6, 5), "complex64" if dtype == "float32" else "complex128")
        outs = (lib.fft.rfft(x, n=7), lib.fft.irfftn(z, s=(3, 8), norm="ortho"), lib.fft.fft2(z, norm="forward"),
                lib.fft.hfft(z, dim=0), lib.fft.ihfftn(x), lib.fft.fft(x))
        (g,) = lib.autograd.grad(sum((o.abs() ** 2).sum() for o in outs if o.requires_grad), x)
        return outs, g

    both_scaled(run)
