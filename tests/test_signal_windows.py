"""torch's window functions against torch 2.13: the factories (``hann_window`` ... ``kaiser_window``)
and ``torch.signal.windows``.

The factories are compared for every length up to 64 and some long ones, both ``periodic``
settings and float16/float32/float64: float16 exactly (each operation rounded as torch's), the
others to 4 ulps of 1 (torch's vectorised cos is Sleef's, within an ulp of the rounded cos used
here). ``torch.signal.windows`` builds its windows from ``linspace`` grids, which dyngrad's
``linspace`` rounds as torch's scalar kernel does but not always as its vectorised one (a grid
point may be an ulp of the grid's largest value apart, more where the grid crosses zero): the
tolerance there is 8 ulps of that largest value times the window's steepness, plus 8 ulps of 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad
from conftest import both, torch
from special_compare import assert_ulp_close

FACTORIES = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
LENGTHS = [*range(0, 65), 100, 255, 256, 1000, 1023, 4097]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", FACTORIES)
def test_factories_match_torch_for_many_lengths(name, dtype) -> None:
    for periodic in (True, False):
        for length in LENGTHS:
            mine = getattr(dyngrad, name)(length, periodic, dtype=getattr(dyngrad, dtype)).numpy()
            ref = getattr(torch, name)(length, periodic, dtype=getattr(torch, dtype)).numpy()
            ulps = 0 if dtype == "float16" else 4
            assert_ulp_close(mine, ref, ulps, f"{name}({length}, {periodic}) {dtype}", scale=np.ones_like(ref))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_factory_parameters(dtype) -> None:
    cases = [
        ("hamming_window", (20, True, 0.3)), ("hamming_window", (21, False, 0.3, 0.6)),
        ("hamming_window", (16, True, 1.0, 0.0)), ("hamming_window", (9, False, True, 2)),
        ("kaiser_window", (31, False, 3.5)), ("kaiser_window", (32, True, 0.0)), ("kaiser_window", (33, True, 30.0)),
        ("kaiser_window", (64, False, 0.5)), ("kaiser_window", (7, True, 12)),
    ]
    for name, args in cases:
        mine = getattr(dyngrad, name)(*args, dtype=getattr(dyngrad, dtype)).numpy()
        ref = getattr(torch, name)(*args, dtype=getattr(torch, dtype)).numpy()
        assert_ulp_close(mine, ref, 0 if dtype == "float16" else 4, f"{name}{args} {dtype}", scale=np.ones_like(ref))


@pytest.mark.parametrize("name", FACTORIES)
def test_factory_defaults_keywords_and_leaves(name) -> None:
    both(lambda lib: getattr(lib, name)(12))
    both(lambda lib: getattr(lib, name)(window_length=12, periodic=False))
    both(lambda lib: getattr(lib, name)(lib.tensor(7)))
    both(lambda lib: getattr(lib, name)(np.int64(7), dtype=lib.float64, device="cpu", layout=lib.strided))

    def leaf(lib):
        w = getattr(lib, name)(10, requires_grad=True, dtype=lib.float64)
        return w.requires_grad, w.is_leaf, w.grad_fn is None, w.detach()

    both(leaf)
    for length in (0, 1):
        both(lambda lib, length=length: getattr(lib, name)(length, requires_grad=True))
        both(lambda lib, length=length: getattr(lib, name)(length, dtype=lib.complex64))

    def default_float64(lib):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            return getattr(lib, name)(9)
        finally:
            lib.set_default_dtype(previous)

    both(default_float64)


@pytest.mark.parametrize("name", FACTORIES)
def test_factory_errors_are_torchs(name) -> None:
    for program in [
        lambda lib: getattr(lib, name)(-1),
        lambda lib: getattr(lib, name)(-1, dtype=lib.int64),
        lambda lib: getattr(lib, name)(5, dtype=lib.int64, layout=lib.strided),
        lambda lib: getattr(lib, name)(5, dtype=lib.int32, device="cpu"),
        lambda lib: getattr(lib, name)(5, dtype=lib.int16),
        lambda lib: getattr(lib, name)(5, dtype=lib.int8, requires_grad=True),
        lambda lib: getattr(lib, name)(5, False, dtype=lib.uint8),
        lambda lib: getattr(lib, name)(5, dtype=lib.bool),
        lambda lib: getattr(lib, name)(5, dtype=lib.complex128),
        lambda lib: getattr(lib, name)(5, pin_memory=True),
        lambda lib: getattr(lib, name)(5.0),
        lambda lib: getattr(lib, name)(True),
        lambda lib: getattr(lib, name)(None),
        lambda lib: getattr(lib, name)(lib.tensor(5.0)),
        lambda lib: getattr(lib, name)(lib.tensor([5])),
        lambda lib: getattr(lib, name)(),
        lambda lib: getattr(lib, name)(5, 1),
        lambda lib: getattr(lib, name)(5, np.bool_(True)),
        lambda lib: getattr(lib, name)(5, periodic=1),
        lambda lib: getattr(lib, name)(5, True, "a"),
        lambda lib: getattr(lib, name)(5, True, 0.5, 0.5, 0.5),
        lambda lib: getattr(lib, name)(5, dtype="float"),
        lambda lib: getattr(lib, name)(5, requires_grad=1),
        lambda lib: getattr(lib, name)(5, foo=1),
        lambda lib: getattr(lib, name)(5, alpha=0.5),
        lambda lib: getattr(lib, name)(5, beta=0.5),
        lambda lib: getattr(lib, name)(5.0, True),
    ]:
        both(program)


def test_hamming_and_kaiser_take_their_parameters_by_keyword_once_periodic_is_given() -> None:
    both(lambda lib: lib.hamming_window(8, periodic=False, alpha=0.5, beta=0.4))
    both(lambda lib: lib.hamming_window(8, True, beta=0.4, alpha=0.5))
    both(lambda lib: lib.hamming_window(8, True, lib.tensor(0.3)))
    both(lambda lib: lib.kaiser_window(8, periodic=True, beta=2))
    both(lambda lib: lib.hamming_window(8, True, 0.3, None))


# ----------------------------------------------------------------- torch.signal.windows

WINDOWS = {
    "bartlett": {}, "blackman": {}, "cosine": {}, "hamming": {}, "hann": {}, "nuttall": {},
    "exponential": {"tau": 2.5}, "gaussian": {"std": 1.7}, "kaiser": {"beta": 5.0},
    "general_cosine": {"a": [0.46, 0.23, 0.31]}, "general_hamming": {"alpha": 0.6},
}
COSINE_SUMS = {"blackman": [0.42, 0.5, 0.08], "hamming": [0.54, 0.46], "hann": [0.5, 0.5],
               "nuttall": [0.3635819, 0.4891775, 0.1365995, 0.0106411]}


def _grid_error(name: str, params: dict, M: int, sym: bool, dtype) -> float:
    """How far a window value may move when its linspace grid point moves 8 ulps of the grid's largest value."""
    if M < 2:
        return 0.0
    span = M - 1 if sym else M
    if name == "exponential":
        largest, steepness = (span / 2.0 + 1) / params["tau"], 1.0
    elif name == "gaussian":
        largest, steepness = (span / 2.0 + 1) / (params["std"] * math.sqrt(2)), 1.0
    elif name == "cosine":
        largest, steepness = math.pi, 1.0
    elif name == "kaiser":
        largest, steepness = params["beta"], params["beta"]
    elif name == "bartlett":
        largest, steepness = 1.0, 1.0
    else:
        a = params.get("a") or COSINE_SUMS.get(name) or [params["alpha"], 1 - params["alpha"]]
        largest, steepness = 2 * math.pi, sum(i * abs(w) for i, w in enumerate(a))
    return 8.0 * float(np.spacing(np.asarray(largest, dtype=dtype))) * steepness


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(WINDOWS))
def test_signal_windows_match_torch(name, dtype) -> None:
    params = WINDOWS[name]
    for sym in (True, False):
        for M in [*range(0, 41), 100, 257]:
            mine = getattr(dyngrad.signal.windows, name)(M, sym=sym, dtype=getattr(dyngrad, dtype), **params).numpy()
            ref = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dtype), **params).numpy()
            assert_ulp_close(mine, ref, 8, f"{name}({M}, sym={sym}) {dtype}", scale=np.ones_like(ref),
                             atol=_grid_error(name, params, M, sym, dtype))


@pytest.mark.parametrize("name", list(WINDOWS))
def test_signal_windows_record_torchs_graph_with_requires_grad(name) -> None:
    params = WINDOWS[name]
    for M in (0, 1, 2, 7):
        def run(lib, M=M):
            w = getattr(lib.signal.windows, name)(M, dtype=lib.float64, requires_grad=True, **params)
            node = type(w.grad_fn).__name__ if w.grad_fn is not None else None
            return w.requires_grad, w.is_leaf, node, w.detach()

        both(run)


def test_signal_windows_parameters_and_defaults() -> None:
    W = "signal.windows"  # noqa: N806
    for program in [
        lambda lib: lib.signal.windows.exponential(9, center=2.0, sym=False),
        lambda lib: lib.signal.windows.exponential(9, center=None, sym=False, tau=0.5),
        lambda lib: lib.signal.windows.gaussian(9, std=0.3, sym=False),
        lambda lib: lib.signal.windows.kaiser(9, beta=0.0),
        lambda lib: lib.signal.windows.kaiser(10, beta=30.0, sym=False),
        lambda lib: lib.signal.windows.general_cosine(8, a=(1.0,)),
        lambda lib: lib.signal.windows.general_cosine(8, a=np.array([0.5, 0.5])),
        lambda lib: lib.signal.windows.general_hamming(8, sym=False),
        lambda lib: lib.signal.windows.hann(M=6),
        lambda lib: lib.signal.windows.cosine(7, device="cpu", layout=lib.strided),
    ]:
        both(program)
    assert W


def test_signal_windows_default_dtype() -> None:
    def run(lib):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            return [getattr(lib.signal.windows, name)(5, **params) for name, params in WINDOWS.items()]
        finally:
            lib.set_default_dtype(previous)

    both(run)


def test_signal_windows_errors_are_torchs() -> None:
    W = lambda lib: lib.signal.windows  # noqa: E731, N806
    for program in [
        lambda lib: W(lib).hann(5, True),
        lambda lib: W(lib).hann(-1),
        lambda lib: W(lib).hann(5, dtype=lib.int64),
        lambda lib: W(lib).hann(5, dtype=lib.float16),
        lambda lib: W(lib).hann(5, layout=None),
        lambda lib: W(lib).blackman(-2, dtype=lib.int32),
        lambda lib: W(lib).nuttall(-2),
        lambda lib: W(lib).kaiser(5, beta=-1),
        lambda lib: W(lib).kaiser(-1, beta=-1),
        lambda lib: W(lib).gaussian(5, std=0),
        lambda lib: W(lib).gaussian(5, std=-1.5),
        lambda lib: W(lib).exponential(5, tau=0),
        lambda lib: W(lib).exponential(5, center=1.0),
        lambda lib: W(lib).general_cosine(5, a=3),
        lambda lib: W(lib).general_cosine(5, a=[]),
        lambda lib: W(lib).general_cosine(1, a=3),
        lambda lib: W(lib).general_cosine(5),
        lambda lib: W(lib).bartlett(5, foo=1),
        lambda lib: W(lib).cosine(3, dtype=lib.complex64),
    ]:
        both(program)
    assert sorted(dyngrad.signal.windows.__all__) == sorted(torch.signal.windows.__all__)
