"""Complex numbers against torch: creation, promotion, printing, the conjugate and negative bits,
the real/imag views, errors and warnings, and gradients of real losses of complex leaves.

Each op's values and gradients (first and second order, finite differences) are checked by the
op table (tests/op_rows_complex.py and the rows marked for complex); this file checks the rest.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from conftest import both, same_error, torch

Z = [1 + 2j, 3 - 1j, -0.5 + 0j, 0 - 2.5j]


def _printed(lib, fn):
    return repr(fn(lib))


# ------------------------------------------------------------------ creation, promotion, printing
@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.tensor(Z),
        lambda lib: lib.tensor(Z, dtype=lib.complex128),
        lambda lib: lib.tensor([[1.123456 + 2j, 3 - 1j], [0.1j, 1]], dtype=lib.complex128),
        lambda lib: lib.tensor([1.5e-5 + 2j, 3e4 - 1j]),
        lambda lib: lib.tensor([1e10 + 1j, 1 - 1e-10j]),
        lambda lib: lib.tensor([float("nan") + 1j, float("inf") - 1j, complex(1, float("-inf"))]),
        lambda lib: lib.tensor(2 - 3j),
        lambda lib: lib.tensor([], dtype=lib.complex64),
        lambda lib: lib.tensor(Z, requires_grad=True),
        lambda lib: lib.tensor(Z, requires_grad=True) * 2,
        lambda lib: lib.tensor(Z).conj(),
        lambda lib: lib.tensor([1 + 1j, 2 + 0j]).conj(),  # -0 imaginary parts print as torch's
        lambda lib: lib.arange(1200, dtype=lib.float32).reshape(30, 40) * (1 - 1j),
        lambda lib: lib.ones(2) * 1j,
        lambda lib: lib.ones(2, dtype=lib.float64) * lib.ones(2, dtype=lib.cfloat),
        lambda lib: lib.tensor([1, 2]) + 0.5j,
        lambda lib: lib.complex(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])),
        lambda lib: lib.polar(lib.tensor([1.0, 2.0], dtype=lib.float64), lib.tensor([0.5, -1.0], dtype=lib.float64)),
        lambda lib: lib.zeros(2, 2, dtype=lib.cdouble),
        lambda lib: lib.tensor([1.0, 2.0]).to(lib.complex64),
    ],
)
def test_values_dtypes_and_printing_match_torch(make) -> None:
    both(make)
    assert _printed(dyngrad, make) == _printed(torch, make)


@pytest.mark.parametrize("precision,sci", [(2, None), (6, None), (4, True), (4, False)])
def test_print_options_match_torch(precision, sci) -> None:
    for lib in (torch, dyngrad):
        lib.set_printoptions(precision=precision, sci_mode=sci)
    try:
        for values in ([1.123456 + 2.5j, -3e-3 - 1j], [1e6 + 1j, 2 - 3j]):
            assert repr(dyngrad.tensor(values)) == repr(torch.tensor(values))
    finally:
        for lib in (torch, dyngrad):
            lib.set_printoptions(profile="default")


def test_promotion_matches_torch() -> None:
    cases = [
        lambda lib: lib.tensor([1.0], dtype=lib.float64) + lib.tensor([1j], dtype=lib.complex64),
        lambda lib: lib.tensor([1.0], dtype=lib.float32) + lib.tensor([1j], dtype=lib.complex128),
        lambda lib: lib.tensor([1], dtype=lib.int64) * 1j,
        lambda lib: lib.tensor(1j, dtype=lib.complex64) + lib.tensor([1.0], dtype=lib.float64),
        lambda lib: lib.tensor([1.0], dtype=lib.float64) * lib.tensor(1j, dtype=lib.complex64),
        lambda lib: lib.tensor([True]) + 2j,
        lambda lib: lib.tensor([1 + 1j]) / 2,
    ]
    for case in cases:
        both(case)
    assert dyngrad.promote_types(dyngrad.float64, dyngrad.complex64) == dyngrad.complex128
    assert dyngrad.result_type(dyngrad.tensor([1.0]), 1j) == dyngrad.complex64


# ------------------------------------------------------------------ conj, the bits, real/imag views
def test_conjugate_and_negative_bits_match_torch() -> None:
    for fn in [
        lambda x: x.conj(),
        lambda x: x.conj().conj(),
        lambda x: x.conj().T,
        lambda x: x.conj()[0],
        lambda x: x.conj().view(2, 2),
        lambda x: x.conj().clone(),
        lambda x: x.conj() + 0,
        lambda x: x.conj().detach(),
        lambda x: x.conj().resolve_conj(),
        lambda x: x.conj().imag,
        lambda x: x.conj().imag.resolve_neg(),
        lambda x: x.conj().real,
        lambda x: x.conj_physical(),
        lambda x: x.mH,
    ]:
        outs = []
        for lib in (torch, dyngrad):
            x = lib.tensor(Z, requires_grad=True).reshape(2, 2) * 1
            y = fn(x)
            outs.append((y.is_conj(), y.is_neg(), type(y.grad_fn).__name__ if y.grad_fn else None))
        assert outs[0] == outs[1]


def test_conj_of_real_and_is_complex_match_torch() -> None:
    for lib in (torch, dyngrad):
        r = lib.tensor([1.0, -2.0], requires_grad=True)
        assert r.conj() is r and r.conj_physical() is r and r.resolve_conj() is r and r.real is r
        assert not r.is_complex() and lib.tensor([1j]).is_complex() and lib.is_complex(lib.tensor([1j]))
    both(lambda lib: lib.isreal(lib.tensor([1 + 0j, 1 + 1j, -2 + 0j])))
    both(lambda lib: lib.isreal(lib.tensor([1, 2])))


def test_real_and_imag_are_views_that_write_through() -> None:
    both(_write_through)


def _write_through(lib):
    x = lib.tensor(Z)
    x.real[0] = 10.0
    x.imag.mul_(2)
    x.real = lib.tensor([5.0, 6.0, 7.0, 8.0])
    lib.view_as_real(x)[1, 1] = -9.0
    base = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    lib.view_as_complex(base)[0] = 1j
    return x, base


# ------------------------------------------------------------------ errors and warnings
@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.view_as_complex(lib.randn(3, 3)),
        lambda lib: lib.view_as_complex(lib.randn(4, 2).T),
        lambda lib: lib.view_as_complex(lib.randn(3, 3)[:, 1:]),
        lambda lib: lib.view_as_complex(lib.arange(6.0)[1:5].view(2, 2)),
        lambda lib: lib.view_as_complex(lib.tensor([1, 2])),
        lambda lib: lib.view_as_complex(lib.tensor(1.0)),
        lambda lib: lib.view_as_real(lib.randn(2)),
        lambda lib: lib.view_as_real(lib.tensor(Z).conj()),
        lambda lib: lib.complex(lib.randn(2), lib.randn(2, dtype=lib.float64)),
        lambda lib: lib.complex(lib.tensor([1, 2]), lib.tensor([1, 2])),
        lambda lib: lib.complex(lib.randn(2), lib.randn(3)),
        lambda lib: lib.complex(lib.randn(2), 1.0),
        lambda lib: lib.polar(lib.tensor([1, 2]), lib.tensor([1, 2])),
        lambda lib: lib.tensor([1.0]).imag,
        lambda lib: lib.tensor(Z).mH,
        lambda lib: lib.tensor(Z).H,
        lambda lib: lib.zeros(2, 2, 2, dtype=lib.cfloat).H,
        lambda lib: lib.tensor(Z).adjoint(),
        lambda lib: lib.tensor(Z).conj().numpy(),
        lambda lib: lib.tensor(Z).conj().imag.numpy(),
        lambda lib: lib.tensor(Z, requires_grad=True).sum().backward(),
        lambda lib: float(lib.tensor(1 + 1j)),
        lambda lib: lib.nn.functional.silu(lib.tensor(Z, requires_grad=True)),
        lambda lib: (lambda x: lib.autograd.grad(x * 2, x, lib.ones(4)))(lib.tensor(Z, requires_grad=True)),
        lambda lib: (lib.ones(2, requires_grad=True) * 2).backward(lib.ones(2, dtype=lib.complex64)),
    ],
)
def test_errors_match_torch(program) -> None:
    d, t = same_error(lambda: program(dyngrad), lambda: program(torch))
    assert t is None, "torch accepted the program: it belongs in a value test"


_CASTS = """
import sys, warnings
lib = __import__(sys.argv[1])
z = lib.tensor([1 + 2j, 3 - 1j])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    outs = [z.to(lib.float32), z.float(), z.double(), lib.zeros(2).copy_(z), lib.tensor([1j], requires_grad=True).to(lib.float64)]
print([str(w.message) for w in caught])
print([(str(o.dtype), o.tolist()) for o in outs])
"""


def test_casting_complex_to_real_warns_once_as_torch() -> None:
    """torch warns once per process (TORCH_WARN_ONCE) when a cast or copy drops imaginary parts."""
    import subprocess
    import sys

    def run(lib):
        done = subprocess.run([sys.executable, "-c", _CASTS, lib], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.replace("dyngrad", "torch")

    assert run("dyngrad") == run("torch")


# ------------------------------------------------------------------ gradients of real losses
def _grads(lib, loss, *values):
    leaves = [lib.tensor(v, requires_grad=True) for v in values]
    loss(lib, *leaves).backward()
    return [leaf.grad for leaf in leaves]


@pytest.mark.parametrize(
    "loss",
    [
        lambda lib, x: (x * x).abs().sum(),  # the defect this file started from
        lambda lib, x: (x.conj() * x).real.sum(),
        lambda lib, x: (x.exp() * x.sin()).abs().pow(2).sum(),
        lambda lib, x: x.angle().sum() + x.sgn().real.sum(),
        lambda lib, x: lib.view_as_real(x * (1 + 2j)).pow(2).sum(),
        lambda lib, x: ((x @ x.reshape(2, 2).mH.reshape(4)) * 1j).imag,
        lambda lib, x: (x.reshape(2, 2) @ x.reshape(2, 2).mH).abs().sum(),
        lambda lib, x: (x / (x.conj() + 3)).log().abs().sum(),
        lambda lib, x: x.real.sum() * x.imag.sum(),
    ],
)
def test_gradients_of_real_losses_match_torch(loss) -> None:
    t_grads = _grads(torch, loss, np.array(Z))
    d_grads = _grads(dyngrad, loss, np.array(Z))
    for d, t in zip(d_grads, t_grads):
        np.testing.assert_allclose(d.numpy(force=True), t.numpy(force=True), rtol=1e-10, atol=1e-12)


def test_real_leaf_mixed_with_complex_gets_a_real_gradient() -> None:
    def loss(lib, r, z):
        return (r * z).abs().sum() + (lib.complex(r, r * 2) * z).real.sum()

    t_grads = _grads(torch, loss, np.array([0.5, -1.0, 2.0, 1.5]), np.array(Z))
    d_grads = _grads(dyngrad, loss, np.array([0.5, -1.0, 2.0, 1.5]), np.array(Z))
    assert d_grads[0].dtype == dyngrad.float64
    for d, t in zip(d_grads, t_grads):
        np.testing.assert_allclose(d.numpy(force=True), t.numpy(force=True), rtol=1e-10, atol=1e-12)


def test_grad_with_complex_grad_outputs_and_gradcheck() -> None:
    def program(lib):
        x = lib.tensor(Z, requires_grad=True)
        y = x * x.conj() + x.exp()
        (g,) = lib.autograd.grad(y, x, lib.tensor([1j, 2 - 1j, 0.5, -1 + 0j]), create_graph=True)
        (gg,) = lib.autograd.grad(g.abs().sum(), x)
        return g, gg

    both(program)
    x = dyngrad.tensor(Z, dtype=dyngrad.complex128, requires_grad=True)
    assert dyngrad.autograd.gradcheck(lambda t: (t * t.conj()).exp() * t.sin(), (x,))
    assert dyngrad.autograd.gradgradcheck(lambda t: t.abs() * t, (x,))


def test_an_op_without_complex_gradients_refuses_to_record() -> None:
    # torch's text for ops whose backward is real-only; dyngrad never computes a wrong complex gradient
    both(lambda lib: lib.nn.functional.silu(lib.tensor(Z, requires_grad=True)))
    with dyngrad.no_grad():  # without a graph the forward runs
        dyngrad.nn.functional.silu(dyngrad.tensor(Z))


# ------------------------------------------------------------------ regressions found by complex draws
def test_edge_cases_found_while_adding_complex_rows() -> None:
    both(lambda lib: lib.autograd.grad(lib.std(_leaf(lib, [1.0, 2.0]), dim=(), correction=0), _LEAVES[-1]))
    both(lambda lib: lib.unique(lib.zeros(3, 0, 0), dim=0))
    both(lambda lib: lib.unique(lib.zeros(0, 0, 1), dim=0))
    both(lambda lib: lib.flatten(_leaf(lib, np.zeros((0, 1, 1))), 1, -1))
    both(lambda lib: type(lib.nn.functional.linear(_leaf(lib, np.zeros((1, 2, 1))), lib.zeros(3, 1), lib.zeros(()))
                          .grad_fn).__name__)


_LEAVES: list = []


def _leaf(lib, values):
    t = lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)
    _LEAVES.append(t)
    return t


_CAST_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                "complex64", "complex128"]


def test_can_cast_as_torch() -> None:
    for a in _CAST_DTYPES:
        for b in _CAST_DTYPES:
            assert dyngrad.can_cast(getattr(dyngrad, a), getattr(dyngrad, b)) == torch.can_cast(
                getattr(torch, a), getattr(torch, b)), (a, b)
    both(lambda lib: lib.can_cast(1, lib.int64))
    both(lambda lib: lib.can_cast(lib.float32, "int"))
