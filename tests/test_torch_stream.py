# ruff: noqa: B023  (each lambda is called at once, inside its loop iteration)
"""dyngrad's CPU random stream against torch's, value for value (docs/random.md).

Each check seeds both libraries alike, runs the same op, and compares the values bit for bit (where noted,
within a few ulps) and the generator state after the draw (the next draw agrees)."""

import struct

import numpy as np
import pytest
import torch

import dyngrad

SEEDS = (0, 1, 7, 20)
SIZES = (0, 1, 15, 16, 17, 1000)
FLOATS = ("float32", "float64", "float16")


def _np(t):
    return t.detach().numpy()


def _run(fn, seed):
    out = []
    for lib in (torch, dyngrad):
        lib.manual_seed(seed)
        value = fn(lib)
        out.append((_np(value) if value is not None else None, lib.get_rng_state().numpy().tobytes()))
    return out


def _same(fn, seed, ulps=0):
    (a, sa), (b, sb) = _run(fn, seed)
    assert sa == sb, "generator state after the draw differs"
    if a is None:
        return
    assert a.shape == b.shape and a.dtype == b.dtype
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    if ulps == 0 or a.dtype.kind not in "f":
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    else:  # float32's 16-block normal fill: torch's vectorised log/sin/cos round differently (docs/random.md)
        np.testing.assert_allclose(b, a, rtol=ulps * float(np.finfo(a.dtype).eps), atol=1e-6 if a.dtype != np.float64 else 0)


def test_state_bytes_both_ways():
    for seed in SEEDS:
        torch.manual_seed(seed)
        dyngrad.manual_seed(seed)
        assert torch.get_rng_state().numpy().tobytes() == dyngrad.get_rng_state().numpy().tobytes()
        torch.randn(3, dtype=torch.float64)  # leaves a cached normal value in the state
        dyngrad.randn(3, dtype=dyngrad.float64)
        ts = torch.get_rng_state()
        assert ts.numpy().tobytes() == dyngrad.get_rng_state().numpy().tobytes()
        dyngrad.manual_seed(seed + 100)
        dyngrad.set_rng_state(dyngrad.tensor(ts.numpy()))  # torch's state restores dyngrad's generator
        np.testing.assert_array_equal(dyngrad.randn(5, dtype=dyngrad.float64).numpy(),
                                      torch.randn(5, dtype=torch.float64).numpy())
        torch.set_rng_state(torch.from_numpy(dyngrad.get_rng_state().numpy()))  # and the reverse
        np.testing.assert_array_equal(dyngrad.rand(7).numpy(), torch.rand(7).numpy())
    assert dyngrad.get_rng_state().shape == torch.get_rng_state().shape == (5056,)


def test_generator_objects():
    for lib in (torch, dyngrad):
        g = lib.Generator()
        assert g.initial_seed() == 67280421310721
    a, b = torch.Generator().manual_seed(5), dyngrad.Generator().manual_seed(5)
    np.testing.assert_array_equal(torch.rand(4, generator=a).numpy(), dyngrad.rand(4, generator=b).numpy())
    assert a.get_state().numpy().tobytes() == b.get_state().numpy().tobytes()
    b2 = dyngrad.Generator().set_state(dyngrad.tensor(a.get_state().numpy()))
    np.testing.assert_array_equal(torch.randperm(30, generator=a).numpy(), dyngrad.randperm(30, generator=b2).numpy())
    assert dyngrad.Generator().manual_seed(2**64 - 1).initial_seed() == torch.Generator().manual_seed(2**64 - 1).initial_seed()
    for lib in (torch, dyngrad):
        with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
            lib.Generator().manual_seed(2**64)
        lib.manual_seed(-1)
        assert lib.initial_seed() == 2**64 - 1
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056"):
        dyngrad.set_rng_state(dyngrad.zeros(10, dtype=dyngrad.uint8))


def test_fork_rng():
    dyngrad.manual_seed(0)
    with dyngrad.random.fork_rng():
        dyngrad.rand(10)
    torch.manual_seed(0)
    np.testing.assert_array_equal(dyngrad.rand(3).numpy(), torch.rand(3).numpy())


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES + (100003,))
def test_rand_uniform(dtype, n):
    for seed in SEEDS:
        _same(lambda lib: lib.rand(n, dtype=getattr(lib, dtype)), seed)
        _same(lambda lib: lib.empty(n, dtype=getattr(lib, dtype)).uniform_(-0.3, 0.7), seed)


@pytest.mark.parametrize("n", SIZES + (100003,))
def test_randn_float64(n):
    for seed in SEEDS:
        _same(lambda lib: lib.randn(n, dtype=lib.float64), seed)
        _same(lambda lib: lib.empty(n, dtype=lib.float64).normal_(0.3, 1.7), seed)
        _same(lambda lib: lib.normal(0.3, 1.7, (n,), dtype=lib.float64), seed)


GRID_SEEDS = tuple(range(21))
GRID_SIZES = (0, 1, 15, 16, 17, 1000, 100003)


@pytest.mark.parametrize("dtype", ("float32", "float16"))
@pytest.mark.parametrize("n", GRID_SIZES)
def test_normal_grid_bit_for_bit(dtype, n):
    """The issue's grid: seeds 0..20, every size, float32 and float16 normal fills bit for bit (the 16-block
    fill through torch's AVX2 log/sincos polynomials, _avx_box_muller)."""
    for seed in GRID_SEEDS:
        _same(lambda lib: lib.randn(n, dtype=getattr(lib, dtype)), seed)
        _same(lambda lib: lib.empty(n, dtype=getattr(lib, dtype)).normal_(-1.0, 0.5), seed)
        _same(lambda lib: lib.normal(0.3, 1.7, (n,), dtype=getattr(lib, dtype)), seed)


@pytest.mark.parametrize("dtype", ("float32", "float16"))
@pytest.mark.parametrize("n", GRID_SIZES)
def test_float_draws_grid_bit_for_bit(dtype, n):
    """The same grid for the other float fills: uniform, exponential, Cauchy, log-normal, geometric, integers."""
    gen = (torch.Generator(), dyngrad.Generator())
    for seed in GRID_SEEDS:
        d = lambda lib: getattr(lib, dtype)  # noqa: E731
        _same(lambda lib: lib.rand(n, dtype=d(lib)), seed)
        _same(lambda lib: lib.empty(n, dtype=d(lib)).uniform_(-0.3, 0.7), seed)
        _same(lambda lib: lib.empty(n, dtype=d(lib)).exponential_(2.5), seed)
        _same(lambda lib: lib.empty(n, dtype=d(lib)).cauchy_(0.5, 2.0), seed)
        _same(lambda lib: lib.empty(n, dtype=d(lib)).cauchy_(-3.0, 0.1), seed)  # (median + sigma * tan fused)
        _same(lambda lib: lib.empty(n, dtype=d(lib)).log_normal_(0.2, 0.7), seed)
        _same(lambda lib: lib.empty(n, dtype=d(lib)).geometric_(0.3), seed)
        _same(lambda lib: lib.empty(n, dtype=d(lib)).random_(), seed)  # (float16: modulo 2**11 + 1)
        x = np.linspace(-3, 3, n).astype(dtype)
        _same(lambda lib: lib.nn.functional.dropout(lib.tensor(x), 0.37), seed)
        if dtype == "float32":  # (ranges from 2**28: the bounds move to floats, 64-bit draws)
            _same(lambda lib: lib.randint(0, 2**28, (n,), dtype=d(lib)), seed)
            _same(lambda lib: lib.randint(-5, 2**30, (n,), dtype=d(lib)), seed)
            _same(lambda lib: lib.empty(n, dtype=d(lib)).random_(3, 2**25 + 1), seed)
    for g in gen:  # an explicit generator: the same values, and the default generator untouched
        g.manual_seed(11)
    a = torch.randn(n, dtype=getattr(torch, dtype), generator=gen[0]).numpy()
    b = dyngrad.randn(n, dtype=getattr(dyngrad, dtype), generator=gen[1]).numpy()
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    assert gen[0].get_state().numpy().tobytes() == gen[1].get_state().numpy().tobytes()


def _untemper(y: np.ndarray) -> np.ndarray:
    """The mt19937 state words whose tempered outputs are ``y`` (the tempering's four steps undone)."""
    y = y.astype(np.uint64)
    y ^= y >> np.uint64(18)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    r = y.copy()
    for _ in range(5):
        r = y ^ ((r << np.uint64(7)) & np.uint64(0x9D2C5680))
    y = r & np.uint64(0xFFFFFFFF)
    r = y.copy()
    for _ in range(3):
        r = y ^ (r >> np.uint64(11))
    return r & np.uint64(0xFFFFFFFF)


def _state_drawing(words: np.ndarray) -> np.ndarray:
    """A 5056-byte generator state whose next ``len(words)`` (<= 623) 32-bit draws are ``words``: the state array
    holds their untempered values from position 1 on, with ``next = 1``, ``left = 624`` (no twist before)."""
    torch.manual_seed(0)
    raw = bytearray(torch.get_rng_state().numpy().tobytes())
    struct.pack_into("<iiQ", raw, 8, 624, 1, 1)
    state = np.frombuffer(bytes(raw), dtype=np.uint8).copy()
    state[24 + 8:24 + 8 + 8 * len(words)] = _untemper(np.asarray(words)).astype("<u8").view(np.uint8)
    return state


def test_normal_fill_chosen_uniforms():
    """torch's float32 16-block fill on chosen uniforms (the generator state written so that its next words
    are them): a stride through all 2**24 float uniforms as u1 (the log) and as u2 (sine, cosine), the edges,
    the u1 either side of the log's sqrt(1/2) split, and the three u2 of 2**24 whose reduced angle needs the
    fused x + j * DP3 (12582909, 12582912, 12582913). scripts/check_avx_normal.py runs all 2**24 of each."""
    special = [0, 1, 2, 3, (1 << 23) - 1, 1 << 23, (1 << 24) - 1, 4913933, 4913934, 12582909, 12582912, 12582913]
    k = np.concatenate([special, np.arange(0, 1 << 24, 4093)])
    k = np.concatenate([k, np.full((-k.size) % 304, 777, np.int64)])  # (u1 = 1 would zero the radius)
    words = np.empty((k.size // 8, 16), np.int64)
    words[:, :8] = k.reshape(-1, 8)
    words[:, 8:] = k[::-1].reshape(-1, 8)
    words = words.reshape(-1, 608) | (0xA5 << 24)  # (the high 8 bits are not drawn on)
    for i, chunk in enumerate(words):
        state = _state_drawing(chunk)
        for draw in (lambda lib: lib.randn(608), lambda lib: lib.empty(608).normal_(0.3, 1.7)):
            out = []
            for lib in (torch, dyngrad):
                lib.set_rng_state(lib.tensor(state))
                out.append((draw(lib).numpy().view(np.int32), lib.get_rng_state().numpy().tobytes()))
            np.testing.assert_array_equal(out[0][0], out[1][0], err_msg=f"chunk {i}")
            assert out[0][1] == out[1][1]


def test_randint_float_bounds():
    """float bounds that the dtype cannot hold move inwards as torch's update_from/update_to."""
    for seed in SEEDS:
        for dtype, lo, hi in (("float32", -(2**30) - 7, 5), ("float32", -(2**25) - 1, 2**25 + 1),
                              ("float16", -(2**12) - 1, 2**12 + 1), ("float64", 0, 2**53 + 5)):
            _same(lambda lib: lib.randint(lo, hi, (300,), dtype=getattr(lib, dtype)), seed)


def test_randn_float32_beyond_exact_limit():
    """Beyond EXACT_MAX values the fill takes the fast approximation: within 3 ulps, the stream position exact."""
    from dyngrad._avx_box_muller import EXACT_MAX

    n = EXACT_MAX + 17
    _same(lambda lib: lib.randn(n), 0, ulps=3)
    _same(lambda lib: lib.randn(EXACT_MAX), 0)


def test_normal_non_contiguous_and_overloads():
    for seed in SEEDS:
        _same(lambda lib: lib.empty(8, 5, dtype=lib.float64).t().normal_(), seed)  # scalar path, memory order
        _same(lambda lib: lib.empty(6, 7).t().uniform_(), seed)
        _same(lambda lib: lib.empty(6, 7, dtype=lib.int64).t().random_(0, 9), seed)
        m = np.linspace(-1, 1, 40).reshape(8, 5)
        s = np.linspace(0.1, 2, 40).reshape(8, 5)
        _same(lambda lib: lib.normal(lib.tensor(m), lib.tensor(s)), seed)
        _same(lambda lib: lib.normal(lib.tensor(m), 2.0), seed)
        _same(lambda lib: lib.normal(0.5, lib.tensor(s)), seed)
        _same(lambda lib: lib.randn(3, 4, dtype=lib.complex128), seed)
        _same(lambda lib: lib.rand(5, dtype=lib.complex64), seed)


@pytest.mark.parametrize("dtype", ("int64", "int32", "int16", "int8", "uint8", "float32", "float64"))
def test_randint_random(dtype):
    for seed in SEEDS:
        for n in (0, 1, 17, 1000):
            _same(lambda lib: lib.randint(0, 100, (n,), dtype=getattr(lib, dtype)), seed)
            if dtype != "uint8":
                _same(lambda lib: lib.randint(-3, 5, (n,), dtype=getattr(lib, dtype)), seed)
            _same(lambda lib: lib.empty(n, dtype=getattr(lib, dtype)).random_(), seed)
            _same(lambda lib: lib.empty(n, dtype=getattr(lib, dtype)).random_(7), seed)
        if dtype in ("int64", "float64"):
            _same(lambda lib: lib.randint(-(2**40), 2**40, (50,), dtype=getattr(lib, dtype)), seed)
            _same(lambda lib: lib.randint(0, 2**28, (50,), dtype=getattr(lib, dtype)), seed)
    _same(lambda lib: lib.empty(20, dtype=lib.bool).random_(), 3)
    _same(lambda lib: lib.empty(20, dtype=lib.int64).random_(-(2**63), None), 3)


@pytest.mark.parametrize("n", (0, 1, 2, 15, 16, 17, 1000, 100003))
def test_randperm(n):
    for seed in SEEDS[:2]:
        _same(lambda lib: lib.randperm(n), seed)


def test_likes():
    for seed in SEEDS:
        _same(lambda lib: lib.rand_like(lib.zeros(3, 40)), seed)
        _same(lambda lib: lib.randn_like(lib.zeros(3, 40, dtype=lib.float64)), seed)
        _same(lambda lib: lib.randn_like(lib.zeros(40, 3, dtype=lib.float64).t()), seed)  # preserve_format strides
        _same(lambda lib: lib.randint_like(lib.zeros(3, 4), 10), seed)


@pytest.mark.parametrize("dtype", ("float32", "float64", "int64", "bool"))
def test_bernoulli(dtype):
    for seed in SEEDS:
        for n in (1, 17, 1000):
            _same(lambda lib: lib.empty(n, dtype=getattr(lib, dtype)).bernoulli_(0.3), seed)
            _same(lambda lib: lib.empty(n, dtype=getattr(lib, dtype)).bernoulli_(lib.full((n,), 0.6)), seed)
            p = np.linspace(0, 1, n)
            _same(lambda lib: lib.bernoulli(lib.tensor(p)), seed)
            _same(lambda lib: lib.bernoulli(lib.tensor(p, dtype=lib.float32)), seed)


def test_dropout():
    x = np.linspace(-2, 2, 600).reshape(6, 10, 10).astype(np.float32)
    for seed in SEEDS:
        _same(lambda lib: lib.nn.functional.dropout(lib.tensor(x), 0.3), seed)
        _same(lambda lib: lib.nn.Dropout(0.5)(lib.tensor(x)), seed)
        _same(lambda lib: lib.nn.Dropout2d(0.5)(lib.tensor(x).reshape(2, 3, 10, 10)), seed)
        _same(lambda lib: lib.nn.Dropout1d(0.25)(lib.tensor(x)), seed)


def test_other_distributions():
    for seed in SEEDS:
        for dtype in ("float32", "float64"):
            d = lambda lib: getattr(lib, dtype)  # noqa: E731
            _same(lambda lib: lib.empty(1000, dtype=d(lib)).exponential_(2.5), seed)
            _same(lambda lib: lib.empty(1000, dtype=d(lib)).geometric_(0.3), seed)
            _same(lambda lib: lib.empty(1000, dtype=d(lib)).cauchy_(0.5, 2.0), seed)
            _same(lambda lib: lib.empty(1000, dtype=d(lib)).cauchy_(-3.0, 0.1), seed)
            _same(lambda lib: lib.empty(1000, dtype=d(lib)).cauchy_(100.0, 7.0), seed)
            _same(lambda lib: lib.empty(1000, dtype=d(lib)).exponential_(0.3), seed)
            _same(lambda lib: lib.empty(1000, dtype=d(lib)).log_normal_(1.5, 2.0), seed)
            _same(lambda lib: lib.empty(1000, dtype=d(lib)).log_normal_(0.2, 0.7), seed)


def test_multinomial():
    w = np.array([[0.1, 0.2, 0.3, 0.4, 0.0, 1.5], [1, 1, 1, 1, 1, 1]], dtype=np.float32)
    for seed in SEEDS:
        _same(lambda lib: lib.multinomial(lib.tensor(w), 4), seed)
        _same(lambda lib: lib.multinomial(lib.tensor(w), 1), seed)
        _same(lambda lib: lib.multinomial(lib.tensor(w), 50, replacement=True), seed)
        _same(lambda lib: lib.multinomial(lib.tensor(w[0].astype(np.float64)), 30, replacement=True), seed)


def test_init_and_layers():
    def build(lib):
        layers = [lib.nn.Linear(7, 5), lib.nn.Conv2d(3, 4, 3), lib.nn.LSTM(3, 4), lib.nn.Embedding(9, 3),
                  lib.nn.GRU(2, 3), lib.nn.Conv1d(2, 3, 2)]
        w = lib.empty(4, 6)
        lib.nn.init.orthogonal_(w)
        lib.nn.init.xavier_uniform_(lib.empty(5, 5))
        lib.nn.init.kaiming_normal_(lib.empty(5, 5, dtype=lib.float64))
        lib.nn.init.trunc_normal_(lib.empty(3, 7, dtype=lib.float64))
        lib.nn.init.trunc_normal_(lib.empty(40, dtype=lib.float64), a=1.0, b=1.5)
        lib.nn.init.sparse_(lib.empty(6, 3, dtype=lib.float64), 0.4)
        return lib.cat([p.detach().reshape(-1) for m in layers for p in m.parameters()])

    for seed in SEEDS:
        _same(build, seed)


def test_samplers_and_loader():
    from torch.utils import data as tdata

    from dyngrad.utils import data as ddata

    for seed in SEEDS:
        out = []
        for lib, data in ((torch, tdata), (dyngrad, ddata)):
            lib.manual_seed(seed)
            ds = data.TensorDataset(lib.arange(23))
            batches = [b[0].tolist() for epoch in range(2) for b in data.DataLoader(ds, batch_size=5, shuffle=True)]
            parts = [list(p.indices) for p in data.random_split(range(10), [3, 7])]
            sub = list(data.SubsetRandomSampler([3, 5, 8, 13]))
            rep = list(data.RandomSampler(range(10), replacement=True, num_samples=40))
            wts = list(data.WeightedRandomSampler([0.1, 0.5, 2.0, 1.0], 12))
            out.append((batches, parts, sub, rep, wts, lib.rand(2).tolist()))
        assert out[0] == out[1]


def test_seeded_training_matches_torch():
    """A default-initialised MLP with Dropout, trained by Adam on a shuffled DataLoader: torch's losses."""
    from torch.utils import data as tdata

    from dyngrad.utils import data as ddata

    def train(lib, data):
        lib.manual_seed(3)
        x = lib.randn(64, 6)
        y = (x[:, :1] * 2 - x[:, 1:2]).sin()
        model = lib.nn.Sequential(lib.nn.Linear(6, 16), lib.nn.ReLU(), lib.nn.Dropout(0.2), lib.nn.Linear(16, 1))
        opt = lib.optim.Adam(model.parameters(), lr=0.01)
        loader = data.DataLoader(data.TensorDataset(x, y), batch_size=8, shuffle=True)
        losses = []
        while len(losses) < 20:
            for xb, yb in loader:
                loss = lib.nn.functional.mse_loss(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
        return np.array(losses[:20])

    a, b = train(torch, tdata), train(dyngrad, ddata)
    np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_rejection_samplers():
    alphas = np.array([0.3, 0.5, 1.0, 2.5, 7.0, 0.05, 30.0, 0.0] * 4)
    rates = np.array([0.5, 3.0, 12.0, 100.0, 0.0, 9.99, 1e4] * 4)
    counts = np.array([10.0, 100.0, 5.0, 1000.0, 0.0, 37.0] * 4)
    probs = np.array([0.3, 0.05, 0.9, 0.5, 0.5, 0.99] * 4)
    for seed in SEEDS:
        for dtype in ("float32", "float64"):
            d = lambda lib: getattr(lib, dtype)  # noqa: E731
            _same(lambda lib: lib._standard_gamma(lib.tensor(alphas, dtype=d(lib))), seed)
            _same(lambda lib: lib.poisson(lib.tensor(rates, dtype=d(lib))), seed)
            _same(lambda lib: lib.binomial(lib.tensor(counts, dtype=d(lib)), lib.tensor(probs, dtype=d(lib))), seed)
        _same(lambda lib: lib._sample_dirichlet(lib.tensor(alphas[:12].reshape(3, 4) + 0.1)), seed)


def test_distribution_samples():
    def draw(lib):
        D = lib.distributions
        parts = [D.Normal(lib.tensor([0.0, 1.0], dtype=lib.float64), 2.0).sample((3,)),
                 D.Gamma(lib.tensor([0.5, 3.0], dtype=lib.float64), 2.0).sample((4,)),
                 D.Beta(lib.tensor([0.5, 3.0], dtype=lib.float64), lib.tensor(1.5, dtype=lib.float64)).sample(),
                 D.Dirichlet(lib.tensor([0.5, 3.0, 1.0], dtype=lib.float64)).sample((2,)).reshape(-1),
                 D.Poisson(lib.tensor([0.5, 30.0], dtype=lib.float64)).sample((3,)).reshape(-1),
                 D.Bernoulli(probs=lib.tensor([0.2, 0.9], dtype=lib.float64)).sample((3,)).reshape(-1),
                 D.Categorical(probs=lib.tensor([0.2, 0.5, 0.3], dtype=lib.float64)).sample((5,)).double(),
                 D.Exponential(lib.tensor([1.5], dtype=lib.float64)).sample((3,)).reshape(-1),
                 D.Uniform(lib.tensor(-1.0, dtype=lib.float64), 2.0).sample((4,))]
        return lib.cat([p.reshape(-1) for p in parts])

    for seed in SEEDS:
        _same(draw, seed)


def test_alpha_and_3d_dropout():
    x = np.linspace(-2, 2, 2 * 3 * 4 * 5 * 2).reshape(2, 3, 4, 5, 2).astype(np.float32)
    for seed in SEEDS:
        for p in (0.2, 0.5):
            _same(lambda lib: lib.nn.functional.alpha_dropout(lib.tensor(x), p, True), seed)
            _same(lambda lib: lib.nn.functional.feature_alpha_dropout(lib.tensor(x), p, True), seed)
            _same(lambda lib: lib.nn.functional.dropout3d(lib.tensor(x), p), seed)
            _same(lambda lib: lib.nn.AlphaDropout(p)(lib.tensor(x.astype(np.float64))), seed)
            _same(lambda lib: lib.nn.FeatureAlphaDropout(p)(lib.tensor(x[0])), seed)
            _same(lambda lib: lib.nn.Dropout3d(p)(lib.tensor(x[0])), seed)
    for lib in (torch, dyngrad):  # graph: MulBackward0 then AddBackward0, as torch
        y = lib.nn.functional.alpha_dropout(lib.tensor(x, requires_grad=True), 0.3, True)
        assert type(y.grad_fn).__name__ == "AddBackward0"
        assert type(y.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
