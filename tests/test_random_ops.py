"""Random fills and sampling (src/dyngrad/_ops/random_ops.py) against torch 2.13.

Values cannot match torch's stream, so these compare what can be compared: shapes, dtypes,
ranges and moments of large samples, in-place behaviour (returns self, version bump, leaf
checks, no_grad) and errors (type and text).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad
from conftest import same_error, torch

N = 20000


def _both_errors(program):
    d, t = same_error(lambda: program(dyngrad), lambda: program(torch))
    assert t is None, "torch did not raise"


@pytest.mark.parametrize(
    "call, lo, hi, mean, var",
    [
        (lambda t: t.uniform_(-1, 3), -1, 3, 1.0, 16 / 12),
        (lambda t: t.normal_(2, 0.5), -math.inf, math.inf, 2.0, 0.25),
        (lambda t: t.bernoulli_(0.3), 0, 1, 0.3, 0.21),
        (lambda t: t.random_(2, 6), 2, 5, 3.5, 1.25),
        (lambda t: t.random_(4), 0, 3, 1.5, 1.25),
        (lambda t: t.exponential_(2.0), 0, math.inf, 0.5, 0.25),
        (lambda t: t.geometric_(0.25), 1, math.inf, 4.0, 12.0),
        (lambda t: t.log_normal_(0.0, 0.25), 0, math.inf, math.exp(0.25**2 / 2), None),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fill_range_and_moments(call, lo, hi, mean, var, dtype) -> None:
    dyngrad.manual_seed(0)
    t = dyngrad.zeros(N, dtype=getattr(dyngrad, dtype))
    v = t._version
    out = call(t)
    assert out is t and t._version == v + 1
    assert t.dtype == getattr(dyngrad, dtype) and tuple(t.shape) == (N,)
    a = t.numpy().astype(np.float64)
    assert a.min() >= lo and a.max() <= hi
    assert abs(a.mean() - mean) < 0.05 * max(1.0, abs(mean))
    if var is not None:
        assert abs(a.var() - var) < 0.1 * var
    assert len(np.unique(a)) > 1


def test_uniform_open_at_the_top_and_cauchy_median() -> None:
    dyngrad.manual_seed(1)
    k = dyngrad.empty(100).uniform_(**{"from": 2, "to": 3}).numpy()
    assert k.min() >= 2 and k.max() < 3
    assert dyngrad.empty(100).uniform_(to=0.5).numpy().max() < 0.5
    a = dyngrad.empty(N).uniform_(0, 1).numpy()
    assert a.min() >= 0 and a.max() < 1
    c = dyngrad.empty(N).cauchy_(3.0, 0.5).numpy()
    assert abs(np.median(c) - 3.0) < 0.05
    assert abs(np.mean(np.abs(c - 3.0) < 0.5) - 0.5) < 0.02  # half the mass within one sigma


def test_random_default_ranges_and_int_dtypes() -> None:
    dyngrad.manual_seed(2)
    f = dyngrad.empty(N).random_().numpy()
    assert f.min() >= 0 and f.max() <= 2**24 and np.all(f == np.round(f)) and f.max() > 2**23
    b = dyngrad.empty(N, dtype=dyngrad.bool).random_().numpy()
    assert set(np.unique(b)) == {False, True}
    u = dyngrad.empty(N, dtype=dyngrad.uint8).random_().numpy()
    assert u.min() == 0 and u.max() == 255
    i = dyngrad.empty(N, dtype=dyngrad.int64).random_(-3, None).numpy()
    assert i.min() >= -3 and i.max() > 2**60
    g = dyngrad.zeros(N, dtype=dyngrad.int32).geometric_(0.5)
    assert g.dtype == dyngrad.int32 and g.numpy().min() >= 1
    bern = dyngrad.zeros(N, dtype=dyngrad.int64).bernoulli_(0.5)
    assert bern.dtype == dyngrad.int64 and set(np.unique(bern.numpy())) == {0, 1}


def test_generator_kwarg_and_manual_seed_reproduce() -> None:
    g1, g2 = dyngrad.Generator().manual_seed(5), dyngrad.Generator().manual_seed(5)
    a = dyngrad.empty(10).normal_(generator=g1)
    b = dyngrad.empty(10).normal_(generator=g2)
    assert np.array_equal(a.numpy(), b.numpy())
    dyngrad.manual_seed(3)
    x = dyngrad.empty(5).uniform_()
    dyngrad.manual_seed(3)
    assert np.array_equal(x.numpy(), dyngrad.empty(5).uniform_().numpy())


def test_leaf_checks_no_grad_and_data() -> None:
    for lib in (torch, dyngrad):
        w = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            w.uniform_()
        with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
            w[:2].normal_()
        with lib.no_grad():
            assert w.uniform_(-1, 1) is w
        assert w.requires_grad and w.grad_fn is None
        w.data.normal_()
        lin = lib.nn.Linear(3, 2)
        lin.weight.data.uniform_(-1, 1)
        assert lin.weight.requires_grad


def test_fill_on_a_view_reaches_the_base() -> None:
    x = dyngrad.zeros(4, 3)
    x[1].uniform_(5, 6)
    a = x.numpy()
    assert np.all((a[1] >= 5) & (a[1] < 6)) and not a[[0, 2, 3]].any()


def test_fill_in_a_graph_blocks_the_gradient() -> None:
    for lib in (torch, dyngrad):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        y.exponential_()
        (y * x).sum().backward()
        assert type(y.grad_fn).__name__ == "ExponentialBackward0"
        assert np.allclose(x.grad.numpy(), y.detach().numpy())  # only the direct path: d(y*x)/dx = y


@pytest.mark.parametrize(
    "fill",
    [
        lambda t: t.uniform_(), lambda t: t.normal_(), lambda t: t.bernoulli_(0.5), lambda t: t.bernoulli_(t.detach() * 0),
        lambda t: t.random_(), lambda t: t.random_(3), lambda t: t.random_(1, 3), lambda t: t.exponential_(),
        lambda t: t.geometric_(0.5), lambda t: t.cauchy_(), lambda t: t.log_normal_(),
    ],
)
def test_fill_node_names_and_zero_gradients(fill) -> None:
    names = []
    for lib in (torch, dyngrad):
        x = lib.ones(3, requires_grad=True)
        y = fill(x * 2)
        names.append((type(y.grad_fn).__name__, y.grad_fn.next_functions[0][0] is not None))
        (y * 3).sum().backward()
        assert not x.grad.numpy().any()
    assert names[0] == names[1]


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.zeros(2).uniform_(3, 2),
        lambda lib: lib.zeros(2).uniform_(3.5, 2.25),
        lambda lib: lib.zeros(2, dtype=lib.int64).uniform_(),
        lambda lib: lib.zeros(2).uniform_(5),
        lambda lib: lib.zeros(2).uniform_(a=1),
        lambda lib: lib.zeros(2).uniform_(0.5, **{"from": 1}),
        lambda lib: lib.zeros(2).uniform_(**{"from": 3, "to": 2}),
        lambda lib: lib.zeros(2).normal_(0, -1),
        lambda lib: lib.zeros(2, dtype=lib.int32).normal_(),
        lambda lib: lib.zeros(2).bernoulli_(1.5),
        lambda lib: lib.zeros(2).bernoulli_(-0.5),
        lambda lib: lib.zeros(3).bernoulli_(lib.tensor([2.0, 1, 1])),
        lambda lib: lib.zeros(3).bernoulli_(lib.tensor([0, 1, 1])),
        lambda lib: lib.zeros(3).bernoulli_(lib.tensor([1.0, 1])),
        lambda lib: lib.zeros(3).random_(5, 5),
        lambda lib: lib.zeros(3).random_(0),
        lambda lib: lib.zeros(3, dtype=lib.uint8).random_(0, 300),
        lambda lib: lib.zeros(3, dtype=lib.int8).random_(200),
        lambda lib: lib.zeros(2).exponential_(0),
        lambda lib: lib.zeros(2).exponential_(-1.5),
        lambda lib: lib.zeros(2, dtype=lib.int64).exponential_(),
        lambda lib: lib.zeros(2, dtype=lib.int16).exponential_(),
        lambda lib: lib.zeros(2).geometric_(1),
        lambda lib: lib.zeros(2).geometric_(0),
        lambda lib: lib.zeros(2, dtype=lib.bool).geometric_(0.5),
        lambda lib: lib.zeros(2).cauchy_(1, 0),
        lambda lib: lib.zeros(2, dtype=lib.int64).cauchy_(),
        lambda lib: lib.zeros(2, dtype=lib.uint8).cauchy_(),
        lambda lib: lib.zeros(2).log_normal_(1, 0),
        lambda lib: lib.zeros(2, dtype=lib.int64).log_normal_(),
    ],
)
def test_fill_errors(program) -> None:
    _both_errors(program)


# ------------------------------------------------------------------ sampling functions
def test_normal_overloads() -> None:
    dyngrad.manual_seed(4)
    for lib in (torch, dyngrad):
        assert lib.normal(0.0, 1.0, (2, 3)).shape == (2, 3)
        assert lib.normal(0.0, 1.0, size=(4,), dtype=lib.float64).dtype == lib.float64
        assert lib.normal(lib.zeros(2, 1), lib.ones(3)).shape == (2, 3)
        assert lib.normal(lib.zeros(2), lib.ones(2, dtype=lib.float64)).dtype == lib.float32
        assert lib.normal(lib.zeros(2, dtype=lib.float64), 2.0).dtype == lib.float64
        assert lib.normal(1.0, lib.ones(3)).shape == (3,)
    big = dyngrad.normal(dyngrad.full((N,), 3.0), dyngrad.full((N,), 2.0)).numpy()
    assert abs(big.mean() - 3) < 0.1 and abs(big.std() - 2) < 0.1
    assert abs(dyngrad.normal(-1.0, 0.5, (N,)).numpy().mean() + 1) < 0.05


def test_bernoulli_and_its_not_implemented_gradient() -> None:
    dyngrad.manual_seed(5)
    p = dyngrad.full((N,), 0.25)
    s = dyngrad.bernoulli(p)
    assert s.dtype == dyngrad.float32 and set(np.unique(s.numpy())) == {0.0, 1.0}
    assert abs(s.numpy().mean() - 0.25) < 0.02
    assert abs(p.bernoulli(0.75).numpy().mean() - 0.75) < 0.02
    for lib in (torch, dyngrad):
        x = lib.full((3,), 0.5, requires_grad=True)
        y = lib.bernoulli(x, 1.0)
        assert type(y.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="^derivative for aten::bernoulli is not implemented$"):
            y.sum().backward()


def test_multinomial() -> None:
    dyngrad.manual_seed(6)
    w = dyngrad.tensor([0.0, 1.0, 3.0])
    s = dyngrad.multinomial(w, N, replacement=True).numpy()
    assert s.dtype == np.int64 and s.shape == (N,)
    assert not (s == 0).any() and abs((s == 2).mean() - 0.75) < 0.02
    for _ in range(20):
        d = w.multinomial(3).numpy()  # without replacement: each category once, weight 0 last
        assert sorted(d) == [0, 1, 2] and d[2] == 0
    rows = dyngrad.multinomial(dyngrad.ones(4, 5), 5)
    assert tuple(rows.shape) == (4, 5)
    assert all(sorted(r) == [0, 1, 2, 3, 4] for r in rows.numpy().tolist())
    first = [int(dyngrad.multinomial(dyngrad.tensor([1.0, 9.0]), 1)) for _ in range(400)]
    assert 0.85 < np.mean(first) < 0.95


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.multinomial(lib.tensor([-1.0, 1.0]), 1),
        lambda lib: lib.multinomial(lib.tensor([float("nan"), 1.0]), 1),
        lambda lib: lib.multinomial(lib.tensor([0.0, 0.0]), 1),
        lambda lib: lib.multinomial(lib.tensor([1.0, 1.0]), 0),
        lambda lib: lib.multinomial(lib.tensor(1.0), 1),
        lambda lib: lib.multinomial(lib.ones(2, 2, 2), 1),
        lambda lib: lib.multinomial(lib.ones(3), 4),
        lambda lib: lib.multinomial(lib.tensor([1, 2]), 1),
        lambda lib: lib.bernoulli(lib.tensor([1.5])),
        lambda lib: lib.bernoulli(lib.tensor([1, 0])),
        lambda lib: lib.bernoulli(lib.tensor([0.5]), 1.5),
        lambda lib: lib.normal(lib.ones(2), -lib.ones(2)),
        lambda lib: lib.normal(lib.ones(2), lib.ones(3)),
        lambda lib: lib.normal(lib.ones(2), -1.0),
        lambda lib: lib.normal(1.0, lib.ones(2, dtype=lib.int64)),
        lambda lib: lib.normal(lib.ones(2, dtype=lib.int64), 1.0),
        lambda lib: lib.normal(0, 1),
        lambda lib: lib.normal(0.0, -1.0, (2,)),
    ],
)
def test_sampling_errors(program) -> None:
    _both_errors(program)


def test_rng_state_round_trips() -> None:
    s = dyngrad.get_rng_state()
    assert s.dtype == dyngrad.uint8 and s.dim() == 1
    a = dyngrad.rand(4)
    b = dyngrad.empty(4).normal_()
    dyngrad.set_rng_state(s)
    assert np.array_equal(dyngrad.rand(4).numpy(), a.numpy())
    assert np.array_equal(dyngrad.empty(4).normal_().numpy(), b.numpy())
    dyngrad.manual_seed(7)  # a state taken after manual_seed still applies to the reseeded stream
    s = dyngrad.get_rng_state()
    c = dyngrad.randn(3)
    dyngrad.set_rng_state(s)
    assert np.array_equal(dyngrad.randn(3).numpy(), c.numpy())


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.set_rng_state(lib.get_rng_state().float()),
        lambda lib: lib.set_rng_state([1]),
    ],
)
def test_rng_state_errors(program) -> None:
    _both_errors(program)


def test_rng_state_wrong_size() -> None:
    # torch's state is 5056 bytes (docs/random.md); the message is torch's
    for lib in (torch, dyngrad):
        with pytest.raises(RuntimeError, match="^Expected a CPUGeneratorImplState of size 5056 but found the input "
                                               "RNG state size to be 10$"):
            lib.set_rng_state(lib.get_rng_state()[:10])


def test_range_warns_as_torch() -> None:
    for lib in (torch, dyngrad):
        with pytest.warns(UserWarning) as record:
            lib.range(1, 3)
        assert str(record[0].message).startswith("torch.range is deprecated and will be removed in a future release")
        assert record[0].filename == __file__  # reported at the caller's line
    with pytest.warns(UserWarning) as t_rec:
        torch.range(0, 1)
    with pytest.warns(UserWarning) as d_rec:
        dyngrad.range(0, 1)
    assert str(t_rec[0].message) == str(d_rec[0].message)


def test_generator_state_round_trips():
    g = dyngrad.Generator().manual_seed(3)
    state = g.get_state()
    first = dyngrad.rand(5, generator=g)
    assert g.set_state(state) is g
    assert dyngrad.equal(dyngrad.rand(5, generator=g), first)
    assert state.dtype == dyngrad.uint8 and state.dim() == 1
