"""Complex numbers through the op families, against torch 2.13: torch's refusals (exception type and text),
printing over many generated tensors, optimizers stepping complex parameters, clip_grad_norm_, complex
random fills, creation, view(dtype) and complex32.

Values and gradients of each op on complex inputs are checked by the op table (the rows marked ``**C``,
tests/test_ops.py::test_op_complex_*); this file checks what a table row cannot.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dyngrad
from conftest import both, same_error, torch

F = lambda lib: lib.nn.functional  # noqa: E731


def _z(lib, dtype="complex64", shape=(2, 3)):
    """A fixed complex tensor (one zero element) of ``dtype``."""
    values = np.arange(1, 7).reshape(2, 3) * (0.5 - 0.75j) + np.array([0.25j, -1, 0])
    values[0, 1] = 0
    return lib.tensor(values.reshape(shape).astype(dtype))


# ------------------------------------------------------------------ refusals
# Each program runs on a complex input; torch raises (its kernel has no complex version, or it checks
# the dtype itself): dyngrad must raise the same exception type with the same text.
REFUSED = {
    "sign": lambda L, z: L.sign(z), "sign_": lambda L, z: z.sign_(),
    "floor": lambda L, z: z.floor(), "ceil": lambda L, z: L.ceil(z), "trunc": lambda L, z: L.trunc(z), "fix": lambda L, z: z.fix(),
    "round": lambda L, z: L.round(z), "round_decimals": lambda L, z: z.round(decimals=2), "frac": lambda L, z: L.frac(z),
    "erf": lambda L, z: L.erf(z), "erfc": lambda L, z: z.erfc(), "erfinv": lambda L, z: L.erfinv(z), "logit": lambda L, z: z.logit(),
    "relu": lambda L, z: L.relu(z), "relu_": lambda L, z: z.relu_(), "relu6": lambda L, z: F(L).relu6(z),
    "hardtanh": lambda L, z: F(L).hardtanh(z), "leaky_relu": lambda L, z: F(L).leaky_relu(z), "elu": lambda L, z: F(L).elu(z),
    "selu": lambda L, z: L.selu(z), "celu": lambda L, z: F(L).celu(z), "gelu": lambda L, z: F(L).gelu(z), "mish": lambda L, z: F(L).mish(z),
    "softplus": lambda L, z: F(L).softplus(z), "logsigmoid": lambda L, z: F(L).logsigmoid(z), "hardswish": lambda L, z: F(L).hardswish(z),
    "hardsigmoid": lambda L, z: F(L).hardsigmoid(z), "threshold": lambda L, z: F(L).threshold(z, 0.5, 1.0),
    "clamp": lambda L, z: z.clamp(-1, 1), "clamp_min": lambda L, z: z.clamp_min(0), "clamp_max": lambda L, z: L.clamp_max(z, 0),
    "clamp_tensor_min": lambda L, z: L.clamp_min(z.real, z), "clamp_tensor_max": lambda L, z: z.real.clamp(max=z),
    "clamp_complex_bound": lambda L, z: z.real.clamp(max=1j), "clamp_min_complex_scalar": lambda L, z: z.real.clamp_min(1j),
    "clip_": lambda L, z: z.clip_(0, 1),
    "lt": lambda L, z: z < z, "le": lambda L, z: L.le(z, 1), "gt": lambda L, z: 0 > z, "ge": lambda L, z: z.ge(z.real),
    "atan2": lambda L, z: L.atan2(z, z), "atan2_mixed": lambda L, z: L.atan2(z.real, z), "hypot": lambda L, z: L.hypot(z, z),
    "copysign": lambda L, z: L.copysign(z, 2.0), "xlogy": lambda L, z: L.xlogy(z, z), "xlogy_scalar": lambda L, z: L.xlogy(2.0, z),
    "remainder": lambda L, z: z % 2, "rremainder": lambda L, z: 2 % z, "fmod": lambda L, z: L.fmod(z, z),
    "div_floor": lambda L, z: L.div(z, 2, rounding_mode="floor"), "div_trunc": lambda L, z: z.div(z, rounding_mode="trunc"),
    "floor_divide": lambda L, z: z // z, "maximum": lambda L, z: L.maximum(z, z), "minimum": lambda L, z: z.minimum(z.real),
    "fmax": lambda L, z: L.fmax(z.real, z), "fmin": lambda L, z: L.fmin(z, z), "max_other": lambda L, z: L.max(z, z),
    "isposinf": lambda L, z: L.isposinf(z), "isneginf": lambda L, z: z.isneginf(), "abs_": lambda L, z: z.abs_(),
    "float_power_": lambda L, z: z.to(L.complex64).float_power_(2), "float_power_real": lambda L, z: z.real.double().float_power_(z),
    "lerp_complex_weight": lambda L, z: L.lerp(z.real, z.real, 0.5j), "addcmul_value": lambda L, z: L.addcmul(z.real, z.real, z.real, value=1j),
    "add_complex_alpha": lambda L, z: L.add(z.real, z.real, alpha=1j),
    "max": lambda L, z: z.max(), "min": lambda L, z: L.min(z), "max_dim": lambda L, z: z.max(0), "min_dim": lambda L, z: z.min(1),
    "amax": lambda L, z: z.amax(), "amin": lambda L, z: L.amin(z, 0), "argmax": lambda L, z: z.argmax(), "argmin": lambda L, z: L.argmin(z, 1),
    "cummax": lambda L, z: z.cummax(0), "cummin": lambda L, z: L.cummin(z, 1), "nansum": lambda L, z: z.nansum(), "nanmean": lambda L, z: L.nanmean(z),
    "sort": lambda L, z: z.sort(), "argsort": lambda L, z: L.argsort(z, 0), "msort": lambda L, z: L.msort(z), "topk": lambda L, z: z.topk(1),
    "kthvalue": lambda L, z: z.kthvalue(1), "median": lambda L, z: z.median(), "median_dim": lambda L, z: z.median(0),
    "nanmedian": lambda L, z: z.nanmedian(), "nanmedian_dim": lambda L, z: L.nanmedian(z, 1), "mode": lambda L, z: z.mode(),
    "unique": lambda L, z: L.unique(z), "unique_dim": lambda L, z: z.unique(dim=0),
    "searchsorted": lambda L, z: L.searchsorted(z[0], z), "searchsorted_real_sequence": lambda L, z: L.searchsorted(z.real[0], z),
    "isin": lambda L, z: L.isin(z, z), "isin_scalar": lambda L, z: L.isin(z.real, 1j),
    "vector_norm_real_dtype": lambda L, z: L.linalg.vector_norm(z, dtype=L.float64),
    "vector_norm_complex_dtype_of_real": lambda L, z: L.linalg.vector_norm(z.real, dtype=L.complex64),
    "scatter_reduce_amax": lambda L, z: z.scatter_reduce(1, L.tensor([[0, 1, 1]] * 2), z, "amax"),
    "index_reduce_prod": lambda L, z: z[0].index_reduce(0, L.tensor([0, 0]), z[1, :2], "prod"),
    "index_reduce_amax": lambda L, z: z.index_reduce(0, L.tensor([0, 0]), z, "amax"),
    "index_reduce_exclude_self": lambda L, z: z.index_reduce(0, L.tensor([1, 0]), z, "mean", include_self=False),
    "bernoulli_": lambda L, z: z.bernoulli_(0.5), "bernoulli_tensor_p": lambda L, z: z.real.bernoulli_(z),
    "bernoulli": lambda L, z: L.bernoulli(z), "random_": lambda L, z: z.random_(), "random_to": lambda L, z: z.random_(3),
    "exponential_": lambda L, z: z.exponential_(), "geometric_": lambda L, z: z.geometric_(0.5), "cauchy_": lambda L, z: z.cauchy_(),
    "log_normal_": lambda L, z: z.log_normal_(), "normal_complex_std": lambda L, z: L.normal(z.real, z),
    "normal_float_mean_complex_std": lambda L, z: L.normal(0.0, z), "multinomial": lambda L, z: L.multinomial(z, 1),
    "randint_complex": lambda L, z: L.randint(3, (2,), dtype=z.dtype), "randperm_complex": lambda L, z: L.randperm(3, dtype=z.dtype),
    "arange_complex_bound": lambda L, z: L.arange(0, 1j), "linspace_real_dtype": lambda L, z: L.linspace(0, 1j, 3, dtype=L.float32),
    "fill_real_with_complex": lambda L, z: z.real.clone().fill_(1j), "full_int_complex": lambda L, z: L.full((2,), 1j, dtype=L.int32),
    "view_conj_as_real_dtype": lambda L, z: z.conj().view(L.float32), "view_0d": lambda L, z: z[0, 0].view(L.float32),
    "view_strided": lambda L, z: z.t().view(L.float32), "view_odd_size": lambda L, z: z.real[:, :1].contiguous().view(z.dtype),
    "view_offset": lambda L, z: z.real.reshape(-1)[1:5].view(z.dtype),
    "clip_grad_value_": lambda L, z: L.nn.utils.clip_grad_value_([_with_grad(L, z)], 0.5),
}


def _with_grad(lib, z):
    p = lib.zeros(z.shape, dtype=z.dtype, requires_grad=True)
    p.grad = z
    return p


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_match_torch(name, dtype) -> None:
    program = REFUSED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (index_reduce's beta warning)
        d, t = same_error(lambda: program(dyngrad, _z(dyngrad, dtype)), lambda: program(torch, _z(torch, dtype)))
    assert t is None, f"torch accepts {name}: this table lists refusals only"


# Ops torch runs on complex values but whose gradient it refuses to record (silu, nan_to_num, ...), and the ones
# whose 0-d or empty inputs run no kernel (so torch's autograd refuses them instead of the kernel).
AUTOGRAD_REFUSED = {
    "silu": lambda L, z: F(L).silu(z), "nan_to_num": lambda L, z: z.nan_to_num(), "cummax_0d": lambda L, z: z[0, 0].cummax(0),
    "kthvalue_0d": lambda L, z: z[0, 0].kthvalue(1), "mode_0d": lambda L, z: z[0, 0].mode(), "scatter_reduce_sum": lambda L, z:
    z.scatter_reduce(1, L.tensor([[0, 1, 1]] * 2), z, "sum"), "normal_complex_mean": lambda L, z: L.normal(z, 1.0),
    "bernoulli_empty": lambda L, z: L.bernoulli(z[:0]),
}


@pytest.mark.parametrize("name", sorted(AUTOGRAD_REFUSED))
def test_autograd_refusals_match_torch(name) -> None:
    program = AUTOGRAD_REFUSED[name]
    for requires_grad in (False, True):
        def run(lib, rg=requires_grad):
            z = _z(lib).requires_grad_(rg) * 1
            return program(lib, z)

        d, t = same_error(lambda: run(dyngrad), lambda: run(torch))
        if requires_grad:
            assert t is None, "torch records it"
        else:
            assert t is not None


# ------------------------------------------------------------------ printing
def _random_part(rng, shape):
    """One part of a generated tensor: magnitudes from 1e-8 to 1e12, integers, zeros and -0, nan and infs."""
    kind = rng.integers(0, 8)
    if kind == 0:
        return np.where(rng.random(shape) < 0.5, -0.0, 0.0)
    if kind == 1:
        return rng.integers(-5, 6, size=shape).astype(float)
    if kind == 2:
        return rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 12)
    if kind == 3:
        return rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, size=shape)
    if kind == 4:
        m = rng.random(shape)
        return np.where(m < 0.2, np.nan, np.where(m < 0.35, np.inf, np.where(m < 0.5, -np.inf, rng.standard_normal(shape))))
    if kind == 5:
        return rng.integers(-100000, 100000, size=shape).astype(float) * 10.0 ** rng.integers(0, 6)
    if kind == 6:
        return np.round(rng.standard_normal(shape) * 100, rng.integers(0, 3))
    return rng.standard_normal(shape)


def _random_shape(rng):
    kind = rng.integers(0, 7)
    if kind == 0:
        return ()
    if kind in (1, 2):
        return (int(rng.integers(0, 25)),)
    if kind == 3:
        return tuple(int(x) for x in rng.integers(1, 7, size=2))
    if kind == 4:
        return tuple(int(x) for x in rng.integers(1, 5, size=3))
    if kind == 5:
        return (int(rng.integers(990, 1200)),)  # summarised (over the 1000-element threshold)
    return (int(rng.integers(20, 40)), int(rng.integers(30, 50)))


@pytest.mark.parametrize("seed", range(8))
def test_printing_generated_complex_tensors_matches_torch(seed) -> None:
    """repr of 60 generated complex tensors per seed: both parts drawn independently over mixed magnitudes,
    nan/inf/-0 parts, summarised sizes, with random precision, sci_mode, linewidth, threshold and edgeitems."""
    rng = np.random.default_rng(seed)
    for case in range(60):
        opts = {}
        if rng.random() < 0.4:
            opts["precision"] = int(rng.integers(0, 9))
        if rng.random() < 0.4:
            opts["sci_mode"] = [True, False][rng.integers(0, 2)]
        if rng.random() < 0.3:
            opts["linewidth"] = int(rng.integers(20, 200))
        if rng.random() < 0.2:
            opts["threshold"] = int(rng.integers(5, 2000))
        if rng.random() < 0.2:
            opts["edgeitems"] = int(rng.integers(0, 5))
        shape = _random_shape(rng)
        dtype = ["complex64", "complex128"][rng.integers(0, 2)]
        arr = np.asarray(_random_part(rng, shape) + 1j * _random_part(rng, shape)).astype(dtype)
        requires_grad, conj = rng.random() < 0.15, rng.random() < 0.1
        texts = []
        for lib in (torch, dyngrad):
            lib.set_printoptions(**opts)
            try:
                t = lib.from_numpy(arr.copy()).requires_grad_(requires_grad)
                texts.append(repr(t.conj() if conj else t))
            finally:
                lib.set_printoptions(profile="default")
        assert texts[1] == texts[0], f"case {case}: {dtype} {shape} {opts}\ntorch:\n{texts[0]}\ndyngrad:\n{texts[1]}"


def test_printing_with_a_float64_default_dtype_names_complex64() -> None:
    def program(lib):
        lib.set_default_dtype(lib.float64)
        try:
            return [repr(lib.tensor([1 + 2j, 3.5])), repr(lib.tensor([1j], dtype=lib.complex64)), repr(lib.tensor(1j))]
        finally:
            lib.set_default_dtype(lib.float32)

    assert program(dyngrad) == program(torch)


# ------------------------------------------------------------------ optimizers
_OPTIMIZERS = [
    ("SGD", dict(lr=0.05)), ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.5, dampening=0.1)),
    ("Adam", dict(lr=0.05)), ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1)), ("Adam", dict(lr=0.05, maximize=True)),
    ("AdamW", dict(lr=0.05)), ("AdamW", dict(lr=0.05, amsgrad=True)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.1)),
    ("Adadelta", dict(lr=1.0, weight_decay=0.1)), ("ASGD", dict(lr=0.05, t0=5, weight_decay=0.01)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1)), ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05)), ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RMSprop", dict(lr=0.01)), ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1)),
    ("Rprop", dict(lr=0.01)), ("LBFGS", dict(lr=0.5, max_iter=5)), ("LBFGS", dict(lr=1, line_search_fn="strong_wolfe")),
]


def _optimize(lib, name, kwargs, dtype, steps=25):
    """``steps`` steps on a complex weight and a real bias: |A w + b - i|^2 + |w|^4 + Re(w) Im(w) terms."""
    rng = np.random.default_rng(0)
    real = np.float32 if dtype == "complex64" else np.float64
    w = lib.tensor((rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dtype), requires_grad=True)
    b = lib.tensor(rng.standard_normal(4).astype(real), requires_grad=True)
    a = lib.tensor((rng.standard_normal((5, 3)) + 1j * rng.standard_normal((5, 3))).astype(dtype))
    opt = getattr(lib.optim, name)([w, b], **kwargs)

    def closure():
        opt.zero_grad()
        loss = ((a @ w + b - 1j).abs() ** 2).sum() * 0.05 + (w.abs() ** 4).sum() * 0.01 + (w.real * w.imag).sum() * 0.1
        loss.backward()
        return loss

    for _ in range(steps):
        if name == "LBFGS":
            opt.step(closure)
        else:
            closure()
            opt.step()
    return w, b, opt


# (the strong-Wolfe search amplifies float32 rounding, see the LBFGS tests of test_optim: complex128 only)
_OPTIMIZER_CASES = [(name, kwargs, dtype) for name, kwargs in _OPTIMIZERS for dtype in ("complex64", "complex128")
                    if dtype == "complex128" or "line_search_fn" not in kwargs]


@pytest.mark.parametrize("name,kwargs,dtype", _OPTIMIZER_CASES,
                         ids=[f"{n}-{i // 2}-{d}" for i, (n, _, d) in enumerate(_OPTIMIZER_CASES)])
def test_optimizers_step_complex_parameters_as_torch(name, kwargs, dtype) -> None:
    """25 steps (LBFGS: 25 calls of up to 5 or 20 iterations) against torch, which updates a complex parameter
    as its real view (view_as_real in each step; SGD directly): parameters, and the state's names and dtypes."""
    dw, db, dopt = _optimize(dyngrad, name, kwargs, dtype)
    tw, tb, topt = _optimize(torch, name, kwargs, dtype)
    tol = dict(rtol=2e-4, atol=1e-5) if dtype == "complex64" else dict(rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(dw.detach().numpy(), tw.detach().numpy(), **tol)
    np.testing.assert_allclose(db.detach().numpy(), tb.detach().numpy(), **tol)
    for dstate, tstate in zip(dopt.state_dict()["state"].values(), topt.state_dict()["state"].values()):
        assert sorted(dstate) == sorted(tstate)
        for key, tv in tstate.items():
            if isinstance(tv, torch.Tensor):
                assert repr(dstate[key].dtype) == repr(tv.dtype) and tuple(dstate[key].shape) == tuple(tv.shape), key
                if name != "LBFGS":  # (its state near convergence is differences of tiny gradients: rounding noise)
                    np.testing.assert_allclose(dstate[key].numpy(), tv.numpy(), **tol, err_msg=key)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 3.0, 0.5])
def test_clip_grad_norm_of_complex_gradients_matches_torch(norm_type, dtype) -> None:
    """The total norm of complex gradients is real (|z|), and it scales them as torch."""
    rng = np.random.default_rng(1)
    g1 = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dtype)
    g2 = rng.standard_normal(5).astype(np.float32 if dtype == "complex64" else np.float64)

    def program(lib):
        p1 = lib.zeros(3, 4, dtype=getattr(lib, dtype), requires_grad=True)
        p2 = lib.zeros(5, dtype=p1.real.dtype, requires_grad=True)
        p1.grad, p2.grad = lib.tensor(g1.copy()), lib.tensor(g2.copy())
        total = lib.nn.utils.clip_grad_norm_([p1, p2], 1.5, norm_type=norm_type)
        return total, p1.grad, p2.grad

    both(program)


# ------------------------------------------------------------------ random fills and samplers
def test_complex_fills_draw_both_parts_as_torch() -> None:
    """torch fills a complex tensor's real view: uniform_/normal_ shift both parts (normal_ with std / sqrt(2) each),
    randn has parts of variance 1/2; deterministic draws (zero width or std) equal torch's exactly."""
    both(lambda lib: [lib.zeros(3, dtype=lib.complex64).uniform_(2, 2), lib.zeros(3, dtype=lib.complex128).normal_(1.5, 0),
                      lib.normal(2.0, 0.0, (2,), dtype=lib.complex64), lib.normal(_z(lib), 0.0)])
    dyngrad.manual_seed(0)
    n = 200_000
    z = dyngrad.randn(n, dtype=dyngrad.complex128).numpy()
    for part in (z.real, z.imag):  # each part N(0, 1/2): standard errors 0.0016 (mean) and 0.0016 (variance)
        assert abs(part.mean()) < 0.01 and abs(part.var() - 0.5) < 0.01
    u = dyngrad.rand(n, dtype=dyngrad.complex64).numpy()
    for part in (u.real, u.imag):
        assert part.min() >= 0 and part.max() < 1 and abs(part.mean() - 0.5) < 0.01
    v = dyngrad.zeros(n, dtype=dyngrad.complex128).normal_(1.0, 2.0).numpy()
    for part in (v.real, v.imag):  # N(1, 2): std 2 / sqrt(2) per part
        assert abs(part.mean() - 1.0) < 0.02 and abs(part.var() - 2.0) < 0.03
    w = dyngrad.zeros(n, dtype=dyngrad.complex64).uniform_(-1, 3).numpy()
    for part in (w.real, w.imag):
        assert part.min() >= -1 and part.max() < 3 and abs(part.mean() - 1.0) < 0.02
    assert dyngrad.randn_like(dyngrad.zeros(2, dtype=dyngrad.complex64)).dtype is dyngrad.complex64


# ------------------------------------------------------------------ creation, conversion, view(dtype)
@pytest.mark.parametrize(
    "program",
    [
        lambda L: [L.tensor([1, 2.5, 3j]), L.tensor([[1j, 2], [3, 4.5]]), L.tensor([True, 1j]), L.tensor(1 + 1j)],
        lambda L: [L.tensor([1, 2], dtype=L.complex128), L.tensor([L.tensor(1j), L.tensor(2.0)])],
        lambda L: [L.full((2,), 1j), L.full((2,), 1 + 1j, dtype=L.complex128), L.full_like(L.zeros(2), 1j)],
        lambda L: [L.zeros_like(_z(L)), L.ones_like(_z(L), dtype=L.complex128), L.eye(2, dtype=L.complex64)],
        lambda L: [L.linspace(0, 1j, 5), L.linspace(1 + 1j, 2, 4, dtype=L.complex128), L.linspace(0, 1, 5, dtype=L.cfloat)],
        lambda L: [L.linspace(0, 1j, 1), L.linspace(0, 1j, 0), L.arange(3, dtype=L.complex64)],
        lambda L: [_z(L)[0, 0].item(), _z(L).tolist(), _z(L, "complex128").reshape(6, 1).tolist(), complex(_z(L)[1, 2])],
        lambda L: [_z(L).fill_(2 + 3j), _z(L).fill_(L.tensor(1j)), _z(L).copy_(L.ones(2, 3)), _z(L).clone(), _z(L).zero_()],
        lambda L: [L.zeros(2).new_full((2,), 1j), _z(L).new_zeros(2), _z(L).new_tensor([1, 2])],
        lambda L: [L.tensor([1.0, 2.0]).cfloat(), L.tensor([1, 2]).cdouble(), _z(L).cdouble().cfloat()],
        lambda L: [_z(L).view(L.float32), _z(L, "complex128").view(L.float32), L.arange(8.0).reshape(2, 4).view(L.complex64)],
        lambda L: [L.arange(8.0, dtype=L.float64).view(L.complex128), _z(L).view(L.int64), _z(L).view(L.uint8),
                   L.zeros(0, 4).view(L.complex64), _z(L).view(L.complex64)],
        lambda L: [L.where(_z(L).real > 0, 2.0, 1j), L.where(_z(L).real > 0, 1, 2), L.where(_z(L).imag > 0, _z(L), 0.5)],
        lambda L: [repr(L.result_type(L.zeros(2), 1j)), repr(L.result_type(_z(L), 1.0)),
                   repr(L.promote_types(L.float16, L.complex64))],
        lambda L: [L.range(0.5, -1, -1, dtype=L.int64), L.range(3, 1.75, -1, dtype=L.int64), L.range(0.5, 4, 2, dtype=L.int32)],
    ],
)
def test_creation_and_conversion_match_torch(program) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch.range's deprecation)
        both(program)


def test_view_dtype_shares_memory_and_is_not_differentiable() -> None:
    for lib in (torch, dyngrad):
        x = lib.arange(8.0).reshape(2, 4).requires_grad_()
        z = x.detach().view(lib.complex64)
        z[0, 0] = 5 - 1j
        assert x[0, 0].item() == 5.0 and x[0, 1].item() == -1.0
        assert not x.view(lib.complex64).requires_grad and x.view(lib.complex64).grad_fn is None


# ------------------------------------------------------------------ complex32
def test_complex32_is_a_named_dtype_as_torch() -> None:
    both(lambda L: [repr(L.complex32), repr(L.chalf), L.chalf is L.complex32, str(L.complex32)])
    both(lambda L: [L.complex32.is_complex, L.complex32.is_floating_point, L.complex32.is_signed, L.complex32.itemsize,
                    repr(L.complex32.to_real()), repr(L.complex32.to_complex()), repr(L.float16.to_complex())])
    both(lambda L: [repr(L.promote_types(a, b)) for a, b in [(L.complex32, L.float16), (L.complex32, L.int64),
                                                              (L.complex32, L.bool), (L.complex32, L.float32),
                                                              (L.complex32, L.float64), (L.float32, L.complex32),
                                                              (L.complex32, L.complex128), (L.complex32, L.complex32)]])
    import pickle

    assert pickle.loads(pickle.dumps(dyngrad.complex32)) is dyngrad.complex32


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.zeros(2, dtype=L.complex32), lambda L: L.tensor([1j], dtype=L.chalf), lambda L: L.ones(2).chalf(),
        lambda L: L.ones(2).to(L.complex32), lambda L: L.full((2,), 1j, dtype=L.complex32),
        lambda L: L.empty(3, dtype=L.chalf), lambda L: L.randn(2, dtype=L.complex32),
    ],
)
def test_complex32_tensors_raise_dyngrads_clear_error(make) -> None:
    """torch makes ComplexHalf tensors; NumPy has no such dtype, so dyngrad refuses with one clear message."""
    assert repr(make(torch).dtype) == "torch.complex32"
    with pytest.raises(RuntimeError) as info:
        make(dyngrad)
    assert str(info.value) == dyngrad._dtype.NO_COMPLEX32


# ------------------------------------------------------------------ mixed real / complex operands
_Z0 = (np.arange(6).reshape(2, 3) * (0.5 - 0.75j)).astype(np.complex64)
_X0 = np.arange(6.0).reshape(2, 3).astype(np.float32)


def _zx(lib, rg, dtype=None):
    z = lib.tensor(_Z0 if dtype is None else _Z0.astype(dtype)).requires_grad_(rg)
    return z, lib.tensor(_X0).requires_grad_(rg)


def _setitem(t, key, value):
    t[key] = value
    return t


def _iadd(t, other):
    t += other
    return t


MIXED = {
    "cat": lambda L, z, x: [L.cat([x, z]), L.stack([z, x], 1), L.cat([L.tensor([[1, 2, 3]]), z]), L.hstack([x, z.cdouble()])],
    "masked_fill": lambda L, z, x: [z.masked_fill(x > 2, 1j), z.masked_fill(x > 2, L.tensor(2 - 1j)),
                                     z.masked_fill(x > 2, L.tensor(2.0))],
    "masked_fill_real_complex_value": lambda L, z, x: x.masked_fill(x > 2, 1j),
    "masked_fill_real_complex_tensor": lambda L, z, x: x.masked_fill(x > 2, L.tensor(2j)),
    "masked_fill_shape_first": lambda L, z, x: x.masked_fill(L.ones(5, dtype=L.bool), 1j),
    "index_ops": lambda L, z, x: [z.index_add(0, L.tensor([1, 0]), z, alpha=1j), z.index_fill(1, L.tensor([0, 2]), 1 + 1j),
                                   z.scatter(1, L.tensor([[0], [2]]), 1j), z.take(L.tensor([0, 5])),
                                   z.masked_select(x > 2), z.put(L.tensor([0, 5]), L.tensor([1j, 2]))],
    "index_add_mixed_dtypes": lambda L, z, x: z.index_add(0, L.tensor([1, 0]), x),
    "index_add_real_complex_alpha": lambda L, z, x: x.index_add(0, L.tensor([1, 0]), x, alpha=1j),
    "scatter_real_complex_value": lambda L, z, x: x.scatter(1, L.tensor([[0], [2]]), 1j),
    "scatter_add_mixed": lambda L, z, x: x.scatter_add(1, L.tensor([[0], [2]]), z),
    "index_fill_real_complex": lambda L, z, x: x.index_fill(1, L.tensor([0, 2]), 1j),
    "index_fill_real_complex_tensor": lambda L, z, x: x.index_fill(5, L.tensor([0]), L.tensor(1j)),
    "masked_scatter_dtypes": lambda L, z, x: z.masked_scatter(x > 2, x),
    "index_put_real_complex": lambda L, z, x: x.index_put((L.tensor([0, 1]),), z),
    "pad": lambda L, z, x: [L.nn.functional.pad(z, (1, 1), value=2.0), L.nn.functional.pad(z.unsqueeze(0), (2, 1), mode="reflect")],
    "pad_complex_value": lambda L, z, x: L.nn.functional.pad(z, (1, 1), value=1j),
    "where": lambda L, z, x: [L.where(x > 2, x, z), L.where(x > 2, x, 1j), L.where(x > 2, z, 2)],
    "compare": lambda L, z, x: [z == x, z != 0, x == 1 + 0j, L.isclose(z, z + 1e-7j), L.isclose(z, x),
                                L.isclose(L.tensor([complex(float("inf"), 1)]), L.tensor([complex(float("inf"), 1)])),
                                L.isclose(z * float("nan"), z * float("nan"), equal_nan=True),
                                L.allclose(z, z * (1 + 1e-9)), L.equal(z, z.clone())],
    "reductions_with_dtype": lambda L, z, x: [x.sum(dtype=L.complex64), x.mean(1, dtype=L.complex128),
                                              x.cumsum(1, dtype=L.complex64), x.prod(dtype=L.complex128),
                                              x.cumprod(0, dtype=L.complex64)],
    "sum_complex_to_real_dtype": lambda L, z, x: z.sum(dtype=L.float32),
    "arithmetic": lambda L, z, x: [x * z, x + 1j, L.tensor([1, 2]) * 1j, L.tensor([1, 2]) / (1 + 1j), z ** 2,
                                   x ** (0.5 + 0j), x.to(L.complex64).real, x.angle(), x.type_as(z)],
    "inplace": lambda L, z, x: [_iadd(z * 1, x), (z * 1).square_(), (z * 1).sqrt_(), (z * 1).tanh_(), (z * 1).sgn_()],
    "inplace_complex_into_real": lambda L, z, x: _iadd(x * 1, z),
    "mul_complex_into_real": lambda L, z, x: (x * 1).mul_(1j),
    "casts": lambda L, z, x: [z.bool(), z.int(), z.float(), z.half(), z.conj().clone(), z.conj() + 1, z.conj().reshape(3, 2)],
    "shape_ops": lambda L, z, x: [L.diag(z), z.tril(), z.roll(1, 1), z.repeat(2, 1), L.diff(z, prepend=x[:, :1])],
    "queries": lambda L, z, x: [z.nonzero(), z.count_nonzero(), z.any(1), z.all(), z.var(1, keepdim=True), z.norm(p=3)],
}
for _kind, _key in {"basic": lambda L, y: (0, 1), "advanced": lambda L, y: (L.tensor([0]),), "mask": lambda L, y: (y > 2,),
                    "bare_mask": lambda L, y: y > 2}.items():
    for _vkind, _value in {"number": lambda L: 1j, "0d": lambda L: L.tensor(1j), "1d": lambda L: L.ones(3, dtype=L.complex64),
                           "0d_double": lambda L: L.tensor(2j, dtype=L.complex128)}.items():
        MIXED[f"setitem_{_kind}_{_vkind}_into_real"] = (
            lambda L, z, x, key=_key, value=_value: _setitem(x.detach() * 1, key(L, x), value(L)))


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name", sorted(MIXED))
def test_mixed_real_and_complex_operands_match_torch(name, requires_grad) -> None:
    """Promotion of real and complex operands, complex fill values, and torch's errors for a complex value
    written into a real tensor (values, dtypes and grad_fns; errors in type and text)."""
    program = MIXED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the once-per-process warning of a complex-to-real copy)
        both(lambda L: program(L, *_zx(L, requires_grad)))


def test_a_saved_complex_value_changed_in_place_is_named_as_torch() -> None:
    """torch names a complex tensor by its type in this error ([CPUComplexFloatType [2]]), a real one by its class."""
    def program(lib, values):
        x = lib.tensor(values, requires_grad=True)
        (x * 1).exp2_().tan_().sum().abs().backward()

    for values in ([0.5 + 0.2j, 0.3], [0.5, 0.3]):
        same_error(lambda v=values: program(dyngrad, v), lambda v=values: program(torch, v))
    with pytest.raises(RuntimeError, match=r"\[CPUComplexFloatType \[2\]\]"):
        program(dyngrad, [0.5 + 0.2j, 0.3])


# ------------------------------------------------------------------ found by torch's OpInfo samples (real dtypes too)
def _scatter_mean_0d_grad(lib):
    x = lib.tensor(1.5, requires_grad=True)
    y = x.scatter_reduce(0, lib.tensor(0), lib.tensor(-1.75), "mean", include_self=False) * 2
    return y, lib.autograd.grad(y, x)


@pytest.mark.parametrize(
    "program",
    [
        lambda L: L.unique(L.zeros(5, 0, 5), dim=1, return_inverse=True, return_counts=True),
        lambda L: L.unique(L.zeros(0, 3), dim=-2, return_inverse=True, return_counts=True),
        lambda L: L.unique(L.tensor(3.0), dim=0),
        lambda L: L.unique(L.tensor(3.0), dim=-1, return_counts=True),
        _scatter_mean_0d_grad,
        lambda L: L.zeros(2, 3).masked_fill(L.ones(5, dtype=L.bool), 1.0),
        lambda L: _setitem(L.zeros(2, 3), (0, 1), L.ones(3)),
        lambda L: _setitem(L.zeros(2, 3), (0,), L.ones(2, 3, dtype=L.float64)),
        lambda L: _setitem(L.zeros(2, 3), (0, 1), L.ones(1, 1, 3, dtype=L.int64)),
        lambda L: L.zeros(2, 3).masked_scatter(L.ones(2, 3, dtype=L.bool), L.ones(1, dtype=L.float64)),
        lambda L: L.tensor_split(L.arange(20.0).reshape(4, 5), L.tensor(2.0)),
        lambda L: L.tensor_split(L.arange(20.0).reshape(4, 5), L.tensor([[1]])),
        lambda L: L.tensor_split(L.arange(20.0).reshape(4, 5), [-1, 9, 2]),
        lambda L: [L.atleast_1d(), L.atleast_2d(L.tensor(1.0), L.tensor([2.0]))],
    ],
)
def test_forms_found_by_opinfo_samples_match_torch(program) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(program)
