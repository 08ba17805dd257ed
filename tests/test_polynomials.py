"""torch.special's orthogonal polynomials against torch 2.13.

Each polynomial is evaluated on a grid of x (inside and outside [-1, 1], the points +-1, 0, 1 +- ulp
where torch switches formulas, +-inf, NaN) times a grid of degrees n (negative, 0 .. 20, the
thresholds where torch switches to its closed forms (4, 6, 8) and to NaN for Hermite (128, 512),
up to 1000, non-integers, NaN, +-inf, 1e30), in float32 and float64. dyngrad evaluates torch's
recurrences and closed forms with its rounding (fused multiply-adds): float64 values agree with
torch's to an ulp or two, most float32 values exactly. The float32 closed forms cos(n acos x) ...
carry torch's own error: the rounding of acos(x) and of (n + c) acos(x), divided by their
denominators (sin(acos x) ... near +-1), which glibc's acosf and the float64-rounded acos used
here round differently; there a float32 value may differ from torch's by that bound
(``_closed_form_error``) plus 8 ulps.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from conftest import both, torch
from special_compare import assert_ulp_close

NAMES = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p",
]
# torch's kernels for these return a variable they never assign when x is NaN and n >= 2 (undefined:
# 0 or a denormal in practice); dyngrad returns NaN there. Those entries are checked apart.
UNASSIGNED_AT_NAN = set(NAMES) - {"chebyshev_polynomial_t", "hermite_polynomial_h", "hermite_polynomial_he"}


def _x_grid(dtype) -> np.ndarray:
    edges = np.array([-1.0, 1.0, 0.0, 0.5, -0.5, 0.25, 0.75], dtype=dtype)
    return np.concatenate([
        np.linspace(-1.5, 1.5, 121).astype(dtype),
        edges, np.nextafter(edges, np.array(2.0, dtype=dtype)), np.nextafter(edges, np.array(-2.0, dtype=dtype)),
        np.array([2.0, -3.0, 10.0, 1e-8, -1e-8, 1e30, -1e30, np.inf, -np.inf, np.nan], dtype=dtype),
    ])


DEGREES = np.array([-3, -1, *range(0, 21), 25, 31, 64, 100, 127, 128, 129, 200, 511, 512, 513, 1000,
                    2.7, -0.5, 0.99, 9.99, np.nan, np.inf, -np.inf, 1e30, -1e30])


# torch's closed forms inside (-1, 1): degree threshold, multiplier m of the angle, and the denominator
CLOSED_FORMS = {
    "chebyshev_polynomial_t": (6, 0.0, lambda t: 1.0),
    "chebyshev_polynomial_u": (8, 1.0, lambda t: np.abs(np.sin(t))),
    "chebyshev_polynomial_v": (8, 0.5, lambda t: np.abs(np.cos(t / 2))),
    "chebyshev_polynomial_w": (8, 0.5, lambda t: np.abs(np.sin(t / 2))),
    "shifted_chebyshev_polynomial_t": (6, 0.0, lambda t: 1.0),
    "shifted_chebyshev_polynomial_u": (6, 1.0, lambda t: np.abs(np.sin(t))),
    "shifted_chebyshev_polynomial_v": (6, 0.5, lambda t: np.abs(np.cos(t / 2))),
    "shifted_chebyshev_polynomial_w": (4, 0.5, lambda t: np.abs(np.sin(t / 2))),
}


def _closed_form_error(name: str, x: np.ndarray, n: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """The float32 error torch's own closed form can carry: acos(y) and (n + c) acos(y) are each rounded
    (to float32), a rounding that glibc's acosf and dyngrad's acos may make differently; the error of the
    angle, m ulp(theta) + ulp(m theta) for each, passes to the value divided by the denominator."""
    if name not in CLOSED_FORMS:
        return np.zeros(ref.shape)
    threshold, shift, denominator = CLOSED_FORMS[name]
    y = (x + x - np.float32(1.0)) if name.startswith("shifted") else x
    degree = np.trunc(np.nan_to_num(n, nan=-1.0, posinf=-1.0, neginf=-1.0))
    inside = (np.abs(y) < 1) & (degree > threshold)
    theta = np.arccos(np.clip(y.astype(np.float64), -1, 1))
    m = degree + shift
    angle = m * np.spacing(np.float32(theta)) + np.spacing(np.abs(m * theta).astype(np.float32))
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = 2.0 * angle * (1.0 + np.abs(ref.astype(np.float64))) / denominator(theta)
    return np.where(inside, np.nan_to_num(bound, nan=0.0, posinf=0.0), 0.0)


def _compare(name: str, x: np.ndarray, n: np.ndarray) -> None:
    """dyngrad against torch at (x, n): NaN/inf where torch's, float64 within 4 ulps of max(|value|, 1),
    float32 within 8 ulps plus the rounding of torch's closed forms (module docstring)."""
    mine = getattr(dyngrad.special, name)(dyngrad.from_numpy(x), dyngrad.from_numpy(n)).numpy()
    ref = getattr(torch.special, name)(torch.from_numpy(x), torch.from_numpy(n)).numpy()
    if name in UNASSIGNED_AT_NAN:
        valid_degree = np.isfinite(n) & (np.abs(np.nan_to_num(n)) < 2.0**63) & (np.nan_to_num(n) >= 2)
        undefined = np.broadcast_to(np.isnan(x) & valid_degree, mine.shape)
        assert np.isnan(mine[undefined]).all(), f"{name}: NaN expected where torch's result is unassigned"
        ref = np.where(undefined, mine, ref)
    magnitude = np.maximum(np.abs(ref.astype(np.float64)), 1.0)
    if x.dtype == np.float64:
        assert_ulp_close(mine, ref, 4, f"{name} float64", scale=magnitude)
        return
    assert_ulp_close(mine, ref, 8, f"{name} float32", scale=magnitude, atol=_closed_form_error(name, x, n, ref))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_values_match_torch_on_grids_of_x_and_n(name, dtype) -> None:
    _compare(name, _x_grid(dtype)[:, None], DEGREES.astype(dtype)[None, :])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", NAMES)
def test_short_recurrences_are_exact(name, dtype) -> None:
    """Below torch's closed-form thresholds (degree <= 4) the recurrence is run as torch's, rounding for rounding."""
    x = _x_grid(dtype)[:, None]
    n = np.arange(-1, 5, dtype=dtype)[None, :]
    mine = getattr(dyngrad.special, name)(dyngrad.from_numpy(x), dyngrad.from_numpy(n)).numpy()
    ref = getattr(torch.special, name)(torch.from_numpy(x), torch.from_numpy(n)).numpy()
    if name in UNASSIGNED_AT_NAN:
        ref = np.where(np.isnan(x) & (n >= 2), mine, ref)
    np.testing.assert_array_equal(mine, ref, err_msg=f"{name} {dtype}")


@pytest.mark.parametrize("name", NAMES)
def test_number_and_tensor_operands_and_promotion(name) -> None:
    cases = [
        lambda lib: (lib.tensor([0.3, -0.7, 1.0, 2.0]), 3),
        lambda lib: (lib.tensor([0.3, -0.7, 1.0, 2.0]), 3.9),
        lambda lib: (lib.tensor([0.3, -0.7]), True),
        lambda lib: (lib.tensor([0.3, -0.7]), np.float64(2.5)),
        lambda lib: (0.5, lib.tensor([0, 1, 2, 7, 12])),
        lambda lib: (2, lib.tensor([0, 1, 2, 7, 12])),
        lambda lib: (True, lib.tensor([3, 4])),
        lambda lib: (np.float32(0.25), lib.tensor([3, 4])),
        lambda lib: (lib.tensor([1, 2, 3]), lib.tensor([2, 3, 4])),
        lambda lib: (lib.tensor([True, False]), lib.tensor([2])),
        lambda lib: (lib.tensor([0.3], dtype=lib.float32), lib.tensor(3.0, dtype=lib.float64)),
        lambda lib: (lib.tensor([0.3], dtype=lib.float32), lib.tensor([3.0], dtype=lib.float64)),
        lambda lib: (lib.tensor([1, 2], dtype=lib.int32), lib.tensor(3.0, dtype=lib.float64)),
        lambda lib: (lib.tensor(0.3, dtype=lib.float64), lib.tensor([2, 3], dtype=lib.int8)),
        lambda lib: (lib.tensor([[0.3], [-0.8]], dtype=lib.float64), lib.tensor([1.0, 2.0, 9.0])),
        lambda lib: (lib.tensor(0.3), lib.tensor(5)),
        lambda lib: (lib.empty(0, 3), lib.tensor([1, 2, 3])),
    ]
    for make in cases:
        both(lambda lib, make=make: getattr(lib.special, name)(*make(lib)))


@pytest.mark.parametrize("name", NAMES)
def test_default_dtype_float64(name) -> None:
    def run(lib):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            return getattr(lib.special, name)(lib.tensor([1, 2, 3]), 4), getattr(lib.special, name)(0.3, lib.tensor([4]))
        finally:
            lib.set_default_dtype(previous)

    both(run)


@pytest.mark.parametrize("name", NAMES)
def test_errors_are_torchs(name) -> None:
    def call(*args, **kwargs):
        return lambda lib: getattr(lib.special, name)(*[a(lib) if callable(a) else a for a in args],
                                                       **{k: v(lib) if callable(v) else v for k, v in kwargs.items()})

    tensor = lambda lib: lib.tensor([0.5, 2.0])  # noqa: E731
    for program in [
        call(0.5, 2),
        call(tensor, "a"),
        call(tensor, None),
        call(tensor, 2, 3),
        call(tensor),
        call(),
        call(tensor, n="a"),
        call(x=tensor, n=2),
        call(n=2, x=tensor),
        call(input=tensor, n=2),
        call(tensor, 2, foo=1),
        call(tensor, 2, out=3),
        call(x=tensor, n="a", out=None),
        call([0.5], 2),
        call(lambda lib: lib.tensor([0.5], dtype=lib.float16), 2),
        call(lambda lib: lib.tensor([0.5], dtype=lib.complex64), 2),
        call(tensor, 2 + 1j),
        call(tensor, lambda lib: lib.tensor([1, 2, 3])),
    ]:
        both(program)


@pytest.mark.parametrize("name", NAMES)
def test_not_differentiable_and_out(name) -> None:
    def run(lib):
        x = lib.tensor([0.25, 0.5], requires_grad=True)
        n = lib.tensor([3.0, 9.0], requires_grad=True)
        y = getattr(lib.special, name)(x, n)
        assert y.requires_grad is False and y.grad_fn is None
        out = lib.empty(2, dtype=lib.float64)
        z = getattr(lib.special, name)(x, n, out=out)
        return y, z is out, out

    both(run)
    both(lambda lib: getattr(lib.special, name)(lib.tensor([0.5], requires_grad=True), 3).sum().backward())
    both(lambda lib: getattr(lib.special, name)(lib.tensor([0.5]), 3, out=lib.empty(1, dtype=lib.int64)))


def test_recurrence_cost_follows_the_largest_degree() -> None:
    """A large degree outside the closed forms' range runs its recurrence to the end, as torch's loop."""
    x = np.array([0.5, 1.5, -0.9], dtype="float64")
    for name in ("laguerre_polynomial_l", "legendre_polynomial_p"):
        mine = getattr(dyngrad.special, name)(dyngrad.from_numpy(x), 5000).numpy()
        ref = getattr(torch.special, name)(torch.from_numpy(x), 5000).numpy()
        assert_ulp_close(mine, ref, 8 * 5000, name, scale=np.maximum(np.abs(ref), 1.0))
