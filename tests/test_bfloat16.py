"""torch.bfloat16 over ml_dtypes (Note [bfloat16], Note [bfloat16 compute]): dtype, conversions, printing, and ops
on bfloat16 tensors against torch's CPU kernels, values and gradients compared bit for bit (or within the stated
number of bfloat16 ulps, with the reason)."""

from __future__ import annotations

import ml_dtypes  # the bfloat16 extra: part of the test extra, so its absence is an error
import numpy as np
import pytest
import torch

import dyngrad
from conftest import same_error


def _f32(t) -> np.ndarray:
    """A bfloat16 tensor's values as float32 (exact) through each library's own conversion."""
    return t.detach().float().numpy()


def _ulps(d, t) -> int:
    """The largest distance, in bfloat16 ulps, between two bfloat16 tensors' values (0: the same bits)."""
    a, b = _f32(d), _f32(t)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if not a.size:
        return 0

    def ordered(x):  # bfloat16 bits as a signed, monotonic integer
        bits = (x.view(np.int32) >> 16).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFF), bits)

    return int(np.max(np.abs(ordered(a) - ordered(b))))


# ---------------------------------------------------------------- the dtype
def test_dtype_properties_match_torch():
    d, t = dyngrad.bfloat16, torch.bfloat16
    assert repr(d) == repr(t) == "torch.bfloat16"
    for attr in ("is_floating_point", "is_complex", "is_signed", "itemsize"):
        assert getattr(d, attr) == getattr(t, attr), attr
    assert repr(d.to_complex()) == repr(t.to_complex())


def test_finfo_matches_torch():
    d, t = dyngrad.finfo(dyngrad.bfloat16), torch.finfo(torch.bfloat16)
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(d, attr) == getattr(t, attr), attr
    assert repr(d) == repr(t)


_OTHERS = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
           "complex64", "complex128")


@pytest.mark.parametrize("other", _OTHERS)
def test_promote_types_match_torch(other):
    for a, b in (("bfloat16", other), (other, "bfloat16")):
        got = dyngrad.promote_types(getattr(dyngrad, a), getattr(dyngrad, b))
        assert repr(got) == repr(torch.promote_types(getattr(torch, a), getattr(torch, b)))


@pytest.mark.parametrize("program", [
    lambda L: L.ones(3, dtype=L.bfloat16) + 1,
    lambda L: L.ones(3, dtype=L.bfloat16) + 1.5,
    lambda L: L.ones(3, dtype=L.bfloat16) * L.tensor(2.5),
    lambda L: L.ones(3, dtype=L.bfloat16) + L.ones(3, dtype=L.float16),
    lambda L: L.ones(3, dtype=L.bfloat16) + L.ones(3),
    lambda L: L.ones(3, dtype=L.bfloat16) * L.arange(3),
    lambda L: L.ones((), dtype=L.bfloat16) + L.ones(3, dtype=L.int32),
    lambda L: L.ones(3, dtype=L.bfloat16) * 1j,
    lambda L: L.ones(3, dtype=L.bfloat16) / 3,
    lambda L: L.arange(3) / L.ones(3, dtype=L.bfloat16),
], ids=lambda f: "")
def test_result_dtypes_and_values_match_torch(program):
    d, t = program(dyngrad), program(torch)
    assert repr(d.dtype) == repr(t.dtype)
    if t.dtype == torch.bfloat16:
        assert _ulps(d, t) == 0
    else:
        np.testing.assert_array_equal(d.numpy(), t.numpy())


# ---------------------------------------------------------------- making, converting, printing
def test_conversion_rounds_to_nearest_even_as_torch():
    rng = np.random.default_rng(1)
    base = rng.standard_normal(2000).astype(np.float32) * np.float32(10.0) ** rng.integers(-40, 38, 2000)
    bits = base.view(np.uint32)
    ties = ((bits & ~np.uint32(0xFFFF)) | np.uint32(0x8000)).view(np.float32)  # exactly half-way
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38, 1e-45, 1.0 + 2.0**-8], np.float32)
    values = np.concatenate([base, ties, ties + np.float32(0), special])
    d = dyngrad.tensor(values).to(dyngrad.bfloat16)
    t = torch.tensor(values).to(torch.bfloat16)
    np.testing.assert_array_equal(_f32(d), _f32(t))
    # from float64 torch goes through float (two roundings): the same here
    values64 = rng.standard_normal(2000) * 10.0 ** rng.integers(-30, 30, 2000)
    np.testing.assert_array_equal(_f32(dyngrad.tensor(values64, dtype=dyngrad.bfloat16)),
                                  _f32(torch.tensor(values64, dtype=torch.bfloat16)))


@pytest.mark.parametrize("program", [
    lambda L: L.zeros(2, 3, dtype=L.bfloat16),
    lambda L: L.ones(4, dtype=L.bfloat16),
    lambda L: L.full((2,), 1.1, dtype=L.bfloat16),
    lambda L: L.arange(5, dtype=L.bfloat16),
    lambda L: L.linspace(0, 1, 7, dtype=L.bfloat16),
    lambda L: L.tensor([1.1, 2.2, 3.3e5], dtype=L.bfloat16),
    lambda L: L.tensor([[1.0, 2.0], [3.5, -4.25]]).bfloat16(),
    lambda L: L.tensor([1.0, 2.0], dtype=L.bfloat16).float(),
    lambda L: L.tensor([1.0, 2.0], dtype=L.bfloat16).to(L.float64),
    lambda L: L.tensor([1.7, -2.5], dtype=L.bfloat16).long(),
    lambda L: L.tensor([1, 2]).to(L.bfloat16),
    lambda L: L.tensor([1.0, 2.0]).bfloat16().half(),
    lambda L: L.zeros_like(L.ones(2), dtype=L.bfloat16),
], ids=lambda f: "")
def test_factories_and_casts_match_torch(program):
    d, t = program(dyngrad), program(torch)
    assert repr(d.dtype) == repr(t.dtype)
    assert tuple(d.shape) == tuple(t.shape)
    np.testing.assert_array_equal(d.float().numpy(), t.float().numpy())


@pytest.mark.parametrize("values", [[1.0, 2.0], [1.1, 2.2, 3.3e5], [0.001, 1000.0], [[1.5, -2.0], [3.0, 4.0]], 3.25,
                                    [1e-8, 1.0], [float("nan"), float("inf"), -1.0]])
def test_repr_matches_torch(values):
    for grad in (False, True):
        d = dyngrad.tensor(values, dtype=dyngrad.bfloat16, requires_grad=grad)
        t = torch.tensor(values, dtype=torch.bfloat16, requires_grad=grad)
        assert repr(d) == repr(t)
        assert str(d * 2) == str(t * 2)


def test_tolist_item_and_numpy_match_torch():
    vals = [1.1, -2.7, 3e5]
    d, t = dyngrad.tensor(vals, dtype=dyngrad.bfloat16), torch.tensor(vals, dtype=torch.bfloat16)
    assert d.tolist() == t.tolist()
    assert d[1].item() == t[1].item() and type(d[1].item()) is type(t[1].item())
    same_error(lambda: d.numpy(), lambda: t.numpy())
    same_error(lambda: np.asarray(d), lambda: np.asarray(t))
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        t.numpy()


def test_ml_dtypes_arrays_are_refused_as_torch():
    arr = np.array([1.0, 2.0], dtype=ml_dtypes.bfloat16)
    same_error(lambda: dyngrad.from_numpy(arr), lambda: torch.from_numpy(arr))
    same_error(lambda: dyngrad.tensor(arr), lambda: torch.tensor(arr))
    with pytest.raises(TypeError, match="ml_dtypes.bfloat16"):
        torch.from_numpy(arr)


def test_requires_grad_and_module_cast():
    d = dyngrad.ones(2, dtype=dyngrad.bfloat16, requires_grad=True)
    assert d.is_floating_point() and d.requires_grad
    lin_d, lin_t = dyngrad.nn.Linear(3, 2).bfloat16(), torch.nn.Linear(3, 2).bfloat16()
    assert repr(lin_d.weight.dtype) == repr(lin_t.weight.dtype) == "torch.bfloat16"
    assert lin_d.weight.type() == lin_t.weight.type() == "torch.BFloat16Tensor"


# ---------------------------------------------------------------- ops: torch's CPU kernels, bit for bit
_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((4, 6)).astype(np.float32)
_Y = _RNG.standard_normal((4, 6)).astype(np.float32)
_W = _RNG.standard_normal((5, 6)).astype(np.float32)
_B = _RNG.standard_normal(5).astype(np.float32)
_IMG = _RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
_K = _RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
_TARGET = np.array([1, 0, 4, 2])

# name -> (function of (lib, x, y, w, b), input arrays, allowed ulps of the gradients)
# Gradient ulps above 0 are where torch's backward is one fused kernel in float32 and dyngrad's formula is
# several ops each rounded to bfloat16 (Note [bfloat16 fused backward] covers the kernels it lists).
_OPS = {
    "add": (lambda L, x, y: x + y, (_X, _Y), 0),
    "add_scalar": (lambda L, x: x + 0.3, (_X,), 0),
    "sub_scalar": (lambda L, x: x - 0.3, (_X,), 0),
    "mul": (lambda L, x, y: x * y, (_X, _Y), 0),
    "mul_scalar": (lambda L, x: x * 0.1, (_X,), 0),
    "div": (lambda L, x, y: x / y, (_X, _Y), 0),
    "exp": (lambda L, x: x.exp(), (_X,), 0),
    "log": (lambda L, x: x.log(), (np.abs(_X) + 0.1,), 0),
    "tanh": (lambda L, x: x.tanh(), (_X,), 0),
    "sigmoid": (lambda L, x: x.sigmoid(), (_X,), 0),
    "relu": (lambda L, x: L.relu(x), (_X,), 0),
    "gelu": (lambda L, x: L.nn.functional.gelu(x), (_X,), 0),
    "silu": (lambda L, x: L.nn.functional.silu(x), (_X,), 0),
    "sqrt": (lambda L, x: x.sqrt(), (np.abs(_X) + 0.1,), 0),
    "pow2": (lambda L, x: x**2, (_X,), 0),
    "softmax": (lambda L, x: L.softmax(x, 1), (_X,), 0),
    # torch's _log_softmax_backward_data rounds an intermediate to bfloat16 that dyngrad keeps in float32
    "log_softmax": (lambda L, x: L.log_softmax(x, 1), (_X,), 1),
    # torch's bfloat16 layer_norm keeps its mean and rstd as bfloat16 for the backward; dyngrad recomputes them
    # in float32, so gradients near zero (cancellation) differ by many ulps of their own small size
    "layer_norm": (lambda L, x, w: L.nn.functional.layer_norm(x, (6,), w), (_X, _X[0]), 160),
    "matmul": (lambda L, x, y: x @ y.T, (_X, _Y), 0),
    # the bias gradient: a sum over the batch whose float32 accumulation order differs from torch's
    "linear": (lambda L, x, w, b: L.nn.functional.linear(x, w, b), (_X, _W, _B), 1),
    "sum": (lambda L, x: x.sum(), (_X,), 0),
    "sum_dim": (lambda L, x: x.sum(1), (_X,), 0),
    "mean": (lambda L, x: x.mean(0), (_X,), 0),
    "cumsum": (lambda L, x: x.cumsum(1), (_X,), 0),
    "tanh_inplace": (lambda L, x: (x * 1).tanh_(), (_X,), 0),
    "where": (lambda L, x, y: L.where(x > 0, x, y), (_X, _Y), 0),
    "var": (lambda L, x: x.var(1), (_X,), 0),
    "max_pool2d": (lambda L, x: L.nn.functional.max_pool2d(x, 2), (_IMG,), 0),
    "avg_pool2d": (lambda L, x: L.nn.functional.avg_pool2d(x, 2), (_IMG,), 0),
    "conv2d": (lambda L, x, k: L.nn.functional.conv2d(x, k, padding=1), (_IMG, _K), 0),
    "cross_entropy": (lambda L, x: L.nn.functional.cross_entropy(x[:, :5], L.tensor(_TARGET)), (_X,), 0),
}


def _run(lib, fn, arrays, grad_out):
    xs = [lib.tensor(a).to(lib.bfloat16).requires_grad_() for a in arrays]
    out = fn(lib, *xs)
    out.backward(lib.tensor(grad_out).to(lib.bfloat16) if out.dim() else None)
    return out, [x.grad for x in xs]


@pytest.mark.parametrize("name", list(_OPS))
def test_op_matches_torch_bfloat16_kernel(name):
    fn, arrays, grad_ulps = _OPS[name]
    t_probe = fn(torch, *[torch.tensor(a).bfloat16() for a in arrays])
    grad_out = np.random.default_rng(7).standard_normal(tuple(t_probe.shape)).astype(np.float32)
    t_out, t_grads = _run(torch, fn, arrays, grad_out)
    d_out, d_grads = _run(dyngrad, fn, arrays, grad_out)
    assert repr(d_out.dtype) == repr(t_out.dtype) == "torch.bfloat16"
    assert type(d_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    assert _ulps(d_out, t_out) == 0, name
    for i, (dg, tg) in enumerate(zip(d_grads, t_grads)):
        assert repr(dg.dtype) == repr(tg.dtype) == "torch.bfloat16"
        assert _ulps(dg, tg) <= grad_ulps, f"{name}: gradient {i}"


def test_views_of_bfloat16_tensors_share_memory():
    d = dyngrad.zeros(2, 3, dtype=dyngrad.bfloat16)
    t = torch.zeros(2, 3, dtype=torch.bfloat16)
    for x in (d, t):
        x.view(6)[1] = 1.5
        x.t()[2, 1] = 2.25
        x[0].add_(0.3)
    np.testing.assert_array_equal(_f32(d), _f32(t))


def test_checkpoints_round_trip_with_torch(tmp_path):
    values = [1.1, -2.5, 3e5, float("inf")]
    torch.save({"w": torch.tensor(values, dtype=torch.bfloat16), "f": torch.ones(2)}, tmp_path / "t.pt")
    loaded = dyngrad.load(tmp_path / "t.pt")
    assert repr(loaded["w"].dtype) == "torch.bfloat16"
    np.testing.assert_array_equal(_f32(loaded["w"]), _f32(torch.tensor(values, dtype=torch.bfloat16)))
    dyngrad.save({"w": dyngrad.tensor(values, dtype=dyngrad.bfloat16)[1:]}, tmp_path / "d.pt")
    back = torch.load(tmp_path / "d.pt")
    assert back["w"].dtype == torch.bfloat16
    np.testing.assert_array_equal(_f32(back["w"]), _f32(torch.tensor(values, dtype=torch.bfloat16)[1:]))


def test_without_ml_dtypes_the_dtype_exists_and_tensors_name_the_extra():
    """Run in a fresh interpreter where ml_dtypes cannot be imported: torch.bfloat16 still prints, promotes and has
    torch's finfo; making a tensor of it raises a RuntimeError naming the extra."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['ml_dtypes'] = None\n"
        "import dyngrad\n"
        "print(repr(dyngrad.bfloat16), dyngrad.promote_types(dyngrad.bfloat16, dyngrad.float16),"
        " dyngrad.bfloat16.is_floating_point, dyngrad.bfloat16.itemsize)\n"
        "print(repr(dyngrad.finfo(dyngrad.bfloat16)))\n"
        "for make in (lambda: dyngrad.zeros(2, dtype=dyngrad.bfloat16), lambda: dyngrad.ones(2).bfloat16(),\n"
        "             lambda: dyngrad.autocast('cpu').__enter__()):\n"
        "    try:\n"
        "        make()\n"
        "    except RuntimeError as e:\n"
        "        print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "torch.bfloat16 torch.float32 True 2"
    assert out[1] == repr(torch.finfo(torch.bfloat16))
    assert out[2:] == [dyngrad._dtype.NO_BFLOAT16] * 3
    assert "pip install 'dyngrad[bfloat16]'" in out[2]


def test_dtype_objects_in_checkpoints_and_type_names(tmp_path):
    torch.save({"dt": torch.bfloat16, "w": torch.ones(2).bfloat16()}, tmp_path / "dt.pt")
    loaded = dyngrad.load(tmp_path / "dt.pt")
    assert loaded["dt"] is dyngrad.bfloat16
    d, t = dyngrad.ones(2).type("torch.BFloat16Tensor"), torch.ones(2).type("torch.BFloat16Tensor")
    assert repr(d.dtype) == repr(t.dtype) and d.type() == t.type() == "torch.BFloat16Tensor"


@pytest.mark.parametrize(("shift", "raises"), [(0.0, False), (0.1, True)])
def test_assert_close_on_bfloat16_as_torch(shift, raises):
    def program(lib):
        a = lib.tensor([1.0, 2.0]).bfloat16()
        lib.testing.assert_close(a, lib.tensor([1.001, 2.0]).bfloat16() + shift)
        lib.testing.assert_close(a, lib.tensor([1.001, 2.0]), check_dtype=False)
        return True

    # same_error: the same AssertionError text when torch raises, else both return True
    assert same_error(lambda: program(dyngrad), lambda: program(torch)) == ((None, None) if raises else (True, True))


@pytest.mark.parametrize("draw", ["rand", "randn", "uniform_", "normal_"])
@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 1000, 100003])
@pytest.mark.parametrize("seed", [0, 7])
def test_random_draws_are_torchs(draw, n, seed):
    """bfloat16 draws from torch's stream as float16 does (a float draw, rounded once), value for value, and the
    generator ends where torch's does (the next float draw agrees)."""

    def run(lib):
        lib.manual_seed(seed)
        if draw in ("rand", "randn"):
            out = getattr(lib, draw)(n, dtype=lib.bfloat16)
        elif draw == "uniform_":
            out = lib.empty(n, dtype=lib.bfloat16).uniform_(-2, 3)
        else:
            out = lib.empty(n, dtype=lib.bfloat16).normal_(1, 2)
        return out.float().numpy(), lib.rand(3).numpy()

    (d_vals, d_next), (t_vals, t_next) = run(dyngrad), run(torch)
    np.testing.assert_array_equal(d_vals, t_vals)
    np.testing.assert_array_equal(d_next, t_next)
