"""torch.i0 and torch.special's Bessel, modified Bessel, spherical Bessel and Airy functions against torch 2.13.

Values are compared element by element in ulps over wide grids in float32 and float64: both of
each approximation's ranges and their boundaries, tails and large arguments (float32 overflow of
exp(x) near 88.7, underflow of K0/K1 into subnormals), the first zeros of J0, J1, Y0, Y1 and Ai,
negative arguments (where Y and K are NaN), signed zeros, +-inf and NaN. dyngrad's kernels
round as torch's CPU build does (bessel_kernels.py, cpu_rounding.py): they agree to a few ulps
everywhere, at the zeros too. Gradients (i0, i0e, i1, i1e) are in the op table (op_rows_bessel.py);
here: their values at x = 0 and near it, where torch's formulas switch branches.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
from conftest import both, torch
from special_compare import assert_ulp_close

DIFFERENTIABLE = ["i0", "i0e", "i1", "i1e"]
FORWARD_ONLY = [
    "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
    "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "spherical_bessel_j0", "airy_ai",
]
ALL = DIFFERENTIABLE + FORWARD_ONLY

ZEROS = [
    2.404825557695773, 5.520078110286311, 8.653727912911013, 30.634606468431976,  # J0
    3.8317059702075125, 7.015586669815619, 10.173468135062722,  # J1
    0.8935769662791675, 3.957678419314858, 7.086051060301773,  # Y0
    2.197141326031017, 5.429681040794135,  # Y1
    -2.338107410459767, -4.08794944413097, -5.520559828095551,  # Ai
]
BOUNDARIES = [1e-5, 0.5, 2.0, 2.09, 5.0, 8.0, 8.3203353, 103.892, 88.7, 89.0, 700.0, 709.0, 710.0, 745.0, 746.0]


def _grid() -> np.ndarray:
    rng = np.random.default_rng(1234)
    points = np.concatenate([
        np.linspace(-40.0, 40.0, 8001),
        np.geomspace(1e-30, 1e3, 2000),
        -np.geomspace(1e-30, 1e3, 2000),
        rng.standard_normal(2000) * 30.0,
        np.asarray(ZEROS), np.nextafter(ZEROS, 0.0), np.nextafter(ZEROS, 100.0),
        np.asarray(BOUNDARIES), -np.asarray(BOUNDARIES), np.nextafter(BOUNDARIES, 0.0), np.nextafter(BOUNDARIES, 1e3),
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 5e-324],
    ])
    return points


GRID = _grid()
# The largest differences seen from torch are 5 ulps (float64 K0 near x = 1.5, exp/log rounding); 8 leaves margin.
ULPS = 8


def _envelope(name: str, x: np.ndarray):
    """The size the error is measured against: the result itself, except for the oscillating functions,
    whose approximations (and torch's sin/cos) are accurate relative to their envelope, not to the tiny
    values near their zeros: sqrt(2 / (pi |x|)) for J and Y, 1 / |x| for the spherical j0, and
    |x|^(-1/4) / sqrt(pi) for Ai on the negative axis."""
    ax = np.abs(x.astype(np.float64))
    with np.errstate(divide="ignore"):
        if name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"):
            return np.minimum(1.0, np.sqrt(2.0 / (np.pi * ax)))
        if name == "spherical_bessel_j0":
            return np.minimum(1.0, 1.0 / ax)
        if name == "airy_ai":
            return np.where(x < 0, np.minimum(1.0, ax**-0.25 / np.sqrt(np.pi)), 0.0)
    return np.zeros_like(ax)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ALL)
def test_values_match_torch_on_a_wide_grid(name, dtype) -> None:
    x = GRID.astype(dtype)
    mine = getattr(dyngrad.special, name)(dyngrad.from_numpy(x)).numpy()
    ref = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
    scale = np.maximum(np.abs(ref.astype(np.float64)), _envelope(name, x))
    assert_ulp_close(mine, ref, ULPS, f"{name} {dtype}", scale=scale)


@pytest.mark.parametrize("name", ["i0", "i0_method", "i0_inplace"])
def test_torch_i0_forms_match(name) -> None:
    x = GRID.astype("float32")

    def run(lib):
        t = lib.from_numpy(x.copy())
        if name == "i0":
            return lib.i0(t)
        if name == "i0_method":
            return t.i0()
        return t.i0_()

    assert_ulp_close(run(dyngrad).numpy(), run(torch).numpy(), ULPS, name)


def test_float32_rounds_and_overflows_where_torch_does() -> None:
    """torch computes float32 in float32: i0(0) is 0.99999994 and i0(89) overflows (I0(89) = 1.9e37 would fit)."""
    x = np.array([0.0, 88.5, 89.0, -89.0], dtype="float32")
    for name in ("i0", "i1", "modified_bessel_i0", "modified_bessel_i1"):
        mine = getattr(dyngrad.special, name)(dyngrad.from_numpy(x)).numpy()
        ref = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
        np.testing.assert_array_equal(mine, ref, err_msg=name)
    assert dyngrad.special.i0(dyngrad.tensor([0.0])).item() == np.float32(0.99999994)
    assert np.isinf(dyngrad.special.i0(dyngrad.tensor([89.0])).item())


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool"])
@pytest.mark.parametrize("name", ALL)
def test_integer_and_bool_inputs_promote_to_the_default_float(name, dtype) -> None:
    values = np.array([0, 1, 3, 7, 9, 12, 100], dtype=dtype) if dtype != "bool" else np.array([True, False])
    for default in ("float32", "float64"):
        def run(lib, default=default):
            previous = lib.get_default_dtype()
            lib.set_default_dtype(getattr(lib, default))
            try:
                return getattr(lib.special, name)(lib.from_numpy(values.copy()))
            finally:
                lib.set_default_dtype(previous)

        mine, ref = run(dyngrad), run(torch)
        assert repr(mine.dtype) == repr(ref.dtype)
        assert_ulp_close(mine.numpy(), ref.numpy(), ULPS, f"{name} {dtype} default {default}")


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_float16_is_computed_in_float32(name) -> None:
    """Every finite float16, as torch: in float32, rounded once. Exception: torch's i0e has no float16
    overload of its scalar kernel, so the elements its vectorised loop leaves over (the tail of each
    chunk, at most 31 of them) are computed in float16 arithmetic: up to 2 ulps apart there."""
    bits = np.arange(-(2**15), 2**15, dtype=np.int64).astype(np.uint16).view(np.float16)
    x = np.concatenate([bits[np.isfinite(bits)], [np.inf, -np.inf, np.nan]]).astype("float16")
    mine = getattr(dyngrad.special, name)(dyngrad.from_numpy(x)).numpy()
    ref = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
    assert_ulp_close(mine, ref, 2 if name == "i0e" else 0, f"{name} float16")


@pytest.mark.parametrize("name", FORWARD_ONLY)
def test_float16_is_refused_where_torch_has_no_kernel(name) -> None:
    both(lambda lib: getattr(lib.special, name)(lib.tensor([1.0], dtype=lib.float16)))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", ALL)
def test_complex_inputs_raise_torchs_error(name, dtype) -> None:
    both(lambda lib: getattr(lib.special, name)(lib.tensor([1.0], dtype=getattr(lib, dtype))))


def test_complex_torch_i0_names_its_kernel() -> None:
    both(lambda lib: lib.i0(lib.tensor([1.0], dtype=lib.complex64)))


@pytest.mark.parametrize("argument", [0.5, [0.5], None, "a"])
@pytest.mark.parametrize("name", ALL)
def test_non_tensor_arguments_raise_torchs_type_error(name, argument) -> None:
    both(lambda lib: getattr(lib.special, name)(argument))


@pytest.mark.parametrize("name", ALL)
def test_keyword_argument_names_and_arity_are_torchs(name) -> None:
    keyword = "x" if name in ("airy_ai", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
                              "spherical_bessel_j0") else "input"
    both(lambda lib: getattr(lib.special, name)(**{keyword: lib.tensor([0.5, 2.0])}))
    both(lambda lib: getattr(lib.special, name)(lib.tensor([0.5]), lib.tensor([0.5])))
    assert getattr(dyngrad.special, name).__name__ == getattr(torch.special, name).__name__


def test_torch_i0_and_i0_underscore_refuse_non_tensors() -> None:
    both(lambda lib: lib.i0(0.5))
    both(lambda lib: lib.i0_([0.5]))


@pytest.mark.parametrize("name", FORWARD_ONLY)
def test_forward_only_functions_are_not_differentiable_as_in_torch(name) -> None:
    def run(lib):
        x = lib.tensor([0.5, 1.5, 3.0], dtype=lib.float64, requires_grad=True)
        y = getattr(lib.special, name)(x)
        assert y.requires_grad is False and y.grad_fn is None
        (y * x).sum().backward()  # the gradient flows through x only
        return y, x.grad

    both(run)
    both(lambda lib: getattr(lib.special, name)(lib.tensor([0.5, 1.5], requires_grad=True)).sum().backward())


@pytest.mark.parametrize("name", FORWARD_ONLY)
def test_forward_only_functions_carry_no_tangent(name) -> None:
    def run(lib):
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            x = fwad.make_dual(lib.tensor([0.5, 1.5], dtype=lib.float64), lib.ones(2, dtype=lib.float64))
            y = getattr(lib.special, name)(x)
            return fwad.unpack_dual(y).tangent is None

    both(run)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_forward_mode_tangents_match_torch(name) -> None:
    def run(lib):
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            primal = lib.tensor([0.0, 0.5, -1.5, 9.0, -20.0], dtype=lib.float64)
            x = fwad.make_dual(primal, lib.tensor([1.0, 2.0, -1.0, 0.5, 3.0], dtype=lib.float64))
            return fwad.unpack_dual(getattr(lib.special, name)(x)).tangent

    both(run)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradients_at_and_near_zero_match_torch(name, dtype) -> None:
    """i1/i1e's backward takes its limit 1/2 where |x| <= eps and i0e's uses sgn(0) = 0; first and second order."""
    eps = float(np.finfo(dtype).eps)
    values = [0.0, -0.0, eps, -eps, eps * 2, 1e-30, -1e-30, 1e-3, 8.0, -8.0, 8.000001]

    def run(lib):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        y = getattr(lib.special, name)(x)
        (g,) = lib.autograd.grad(y, x, lib.ones_like(y), create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return g.detach(), gg, type(y.grad_fn).__name__

    both(run)


def test_grad_fn_names_are_torchs() -> None:
    def run(lib):
        x = lib.tensor([0.5], requires_grad=True)
        return [type(f(x).grad_fn).__name__ for f in (lib.i0, lib.special.i0, lib.special.i0e, lib.special.i1,
                                                          lib.special.i1e)] + [type(x.i0().grad_fn).__name__]

    both(run)


def test_in_place_i0() -> None:
    def run(lib):
        base = lib.tensor([0.5, -2.0, 9.0], requires_grad=True)
        y = base * 1.0
        y.i0_()
        y.sum().backward()
        return y.detach(), base.grad, type(y.grad_fn).__name__

    both(run)
    both(lambda lib: lib.tensor([1, 2]).i0_())
    both(lambda lib: lib.tensor([1.0, 2.0], requires_grad=True).i0_())
    both(lambda lib: lib.i0_(lib.tensor([1.0, 2.0])))


def test_out_argument() -> None:
    def run(lib):
        out = lib.empty(3)
        result = lib.special.bessel_j0(lib.tensor([1.0, 2.0, 3.0]), out=out)
        return result is out, out

    both(run)
    both(lambda lib: lib.special.airy_ai(lib.tensor([1.0, 2.0]), out=lib.empty(2, dtype=lib.float64)))
    both(lambda lib: lib.special.i0e(lib.tensor([1.0, 2.0]), out=lib.empty(0)))
    both(lambda lib: lib.special.bessel_y0(lib.tensor([1.0, 2.0]), out=lib.empty(2, dtype=lib.int64)))
    both(lambda lib: lib.special.i1(lib.tensor([1.0, 2.0], requires_grad=True), out=lib.empty(2)))
    both(lambda lib: lib.i0(lib.tensor([1.0, 2.0]), out=lib.empty(2, requires_grad=True)))
    both(lambda lib: lib.special.bessel_j1(lib.tensor([1.0, 2.0], requires_grad=True), out=lib.empty(2)))


def test_out_argument_resizes_with_torchs_warning() -> None:
    messages = []
    for lib in (dyngrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.empty(5)
            lib.special.i0(lib.tensor([1.0, 2.0]), out=out)
            assert tuple(out.shape) == (2,)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


@pytest.mark.parametrize("name", ALL)
def test_shapes_zero_dim_and_empty(name) -> None:
    for shape in [(), (0,), (1, 0, 3), (2, 3, 4)]:
        both(lambda lib, shape=shape: getattr(lib.special, name)(
            lib.from_numpy(np.linspace(0.1, 30.0, int(np.prod(shape))).reshape(shape))))


def test_non_contiguous_input() -> None:
    x = np.linspace(-20, 20, 60).reshape(6, 10)
    for name in ALL:
        both(lambda lib, name=name: getattr(lib.special, name)(lib.from_numpy(x.copy()).t()[::2]))
