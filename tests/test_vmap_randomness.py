"""Random ops under ``vmap`` against torch.func.vmap with the same seed: the values torch draws, where torch puts them.

torch's randomness batching rules run on the *physical* tensor, level by level from the innermost vmap out, so which
sample gets which numbers depends on the physical layout at the time of the draw (a copy keeps its input's layout, a
batch dim at 1 stays at 1) and on the mix of "different" / "same" vmaps: each case here runs one program under both
libraries (fixed seed) for every in-place fill and several ways of making the filled tensor, at in_dims 0, 1 and 2
and nested, and the results must agree exactly (values, shape, dtype), or both must raise the same error.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch.func

import dyngrad
import dyngrad.func
from conftest import assert_same_tensor

X = np.zeros((3, 4, 5))

FILLS = {
    "normal_": lambda v: v.normal_(),
    "uniform_": lambda v: v.uniform_(-1, 2),
    "bernoulli_": lambda v: v.bernoulli_(0.4),
    "exponential_": lambda v: v.exponential_(),
    "cauchy_": lambda v: v.cauchy_(),
    "log_normal_": lambda v: v.log_normal_(),
    "geometric_": lambda v: v.geometric_(0.3),
    "random_": lambda v: v.random_(0, 10),
}

# How the filled tensor is made from the vmapped one: its physical layout decides the order of the numbers.
PREPS = {
    "clone": lambda lib, v: v.clone(),
    "to_complex": lambda lib, v: v.to(lib.complex128),
    "clone_t": lambda lib, v: v.clone().t(),
    "t_clone": lambda lib, v: v.t().clone(),
    "mul": lambda lib, v: v * 2,
    "add": lambda lib, v: v + v,
    "exp": lambda lib, v: v.exp(),
    "empty_like": lambda lib, v: lib.empty_like(v),
    "zeros_like": lambda lib, v: lib.zeros_like(v),
    "ones_like": lambda lib, v: lib.ones_like(v),
    "contiguous": lambda lib, v: v.clone().contiguous(),
    "clone_contiguous_format": lambda lib, v: v.clone(memory_format=lib.contiguous_format),
    "float32": lambda lib, v: v.float(),
    "new_zeros_plus": lambda lib, v: v.new_zeros(v.shape) + v,
    "unsqueeze_clone": lambda lib, v: v.unsqueeze(0).clone(),
}

# (in_dims, randomness) from the innermost vmap out
CONFIGS = [
    ((0,), ("different",)), ((1,), ("different",)), ((2,), ("different",)), ((1,), ("same",)), ((2,), ("same",)),
    ((1, 0), ("different", "different")), ((0, 1), ("different", "different")), ((1, 2), ("different", "different")),
    ((1, 1), ("different", "same")), ((0, 1), ("different", "same")), ((1, 0), ("same", "different")),
    ((1, 1), ("same", "same")),
]


def _run(lib, fn, dims, rnds, *arrays):
    f = fn
    for d, r in zip(dims, rnds):
        f = lib.func.vmap(f, in_dims=d, randomness=r)
    lib.manual_seed(0)
    try:
        return f(*[lib.tensor(a) for a in arrays])
    except Exception as e:  # noqa: BLE001 - compared with torch's below
        return e


def _same(d, t, what):
    if isinstance(t, Exception) or isinstance(d, Exception):
        assert type(d) is type(t) and str(d) == str(t), f"{what}: dyngrad {d!r}, torch {t!r}"
    else:
        assert_same_tensor(d, t, what=what)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{d}{r[0]}" for d, r in zip(*c)))
@pytest.mark.parametrize("prep", sorted(PREPS))
def test_inplace_fill_order(prep, config):
    dims, rnds = config
    for name, fill in FILLS.items():
        if prep == "to_complex" and name not in ("normal_", "uniform_"):
            continue  # torch's other fills refuse complex tensors (tests/test_random_ops.py)

        def program(lib, v, fill=fill):
            return fill(PREPS[prep](lib, v))

        d = _run(dyngrad, lambda v: program(dyngrad, v), dims, rnds, X)
        t = _run(torch, lambda v: program(torch, v), dims, rnds, X)
        _same(d, t, f"{prep}.{name}")


P = np.random.default_rng(3).uniform(0.1, 0.9, (3, 4, 5))

# Ops that draw for a tensor (out of place, or in place with a tensor of probabilities), and the *_like factories.
PROGRAMS = {
    "rand_like": (lambda lib, v: lib.rand_like(v), 1),
    "randn_like": (lambda lib, v: lib.randn_like(v), 1),
    "randn_like_t": (lambda lib, v: lib.randn_like(v.t()), 1),
    "randint_like": (lambda lib, v: lib.randint_like(v, 0, 7), 1),
    "randn_like_contiguous": (lambda lib, v: lib.randn_like(v, memory_format=lib.contiguous_format), 1),
    "randn_like_captured": (lambda lib, v: lib.randn_like(lib.zeros(5, 2, dtype=lib.float64).t()) + v.sum(), 1),
    "bernoulli": (lambda lib, v: lib.bernoulli(v), 1),
    "bernoulli_float": (lambda lib, v: lib.bernoulli(v, 0.3), 1),
    "bernoulli__tensor": (lambda lib, v, q: v.clone().bernoulli_(q), 2),
    "bernoulli__captured_p": (lambda lib, v: v.clone().bernoulli_(lib.full((1,), 0.3, dtype=lib.float64)), 1),
    "bernoulli__p_row": (lambda lib, v, q: v.clone().bernoulli_(q[..., :1]), 2),
    "normal__mean_std": (lambda lib, v: v.clone().normal_(2.0, 0.5), 1),
    "dropout": (lambda lib, v: lib.nn.functional.dropout(v, 0.4), 1),
}


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{d}{r[0]}" for d, r in zip(*c)))
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_random_ops_of_tensors(name, config):
    dims, rnds = config
    fn, nargs = PROGRAMS[name]
    arrays = (P, np.flip(P, -1).copy())[:nargs]
    d = _run(dyngrad, lambda *v: fn(dyngrad, *v), dims, rnds, *arrays)
    t = _run(torch, lambda *v: fn(torch, *v), dims, rnds, *arrays)
    _same(d, t, name)


NEW_FACTORIES = {
    "new_zeros_add_": lambda lib, v: v.new_zeros(v.shape).add_(v),
    "new_empty_fill_": lambda lib, v: v.new_empty(2).fill_(1.5),
    "new_ones_mul_": lambda lib, v: v.new_ones(2, 5).mul_(v[0]),
    "new_full_mul_": lambda lib, v: v.new_full((5,), 3.0).mul_(v[1]),
    "new_zeros_normal_": lambda lib, v: v.new_zeros(3).normal_(),
    "new_zeros_dtype": lambda lib, v: v.new_zeros(2, dtype=lib.int64) + 1,
}


@pytest.mark.parametrize("config", CONFIGS[:2] + CONFIGS[5:7], ids=lambda c: "-".join(f"{d}{r[0]}" for d, r in zip(*c)))
@pytest.mark.parametrize("name", sorted(NEW_FACTORIES))
def test_new_factories_are_batched(name, config):
    """``x.new_zeros(...)`` of a batched tensor is batched (torch's rule), so in-place ops and "different" fills on
    it act per sample."""
    dims, rnds = config
    d = _run(dyngrad, lambda v: NEW_FACTORIES[name](dyngrad, v), dims, rnds, X + P)
    t = _run(torch, lambda v: NEW_FACTORIES[name](torch, v), dims, rnds, X + P)
    _same(d, t, name)


def test_view_of_a_copy_batched_at_1():
    """A copy keeps the batch dim where it was, so viewing it flat is refused as torch refuses it."""
    for lib in (torch, dyngrad):
        with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
            lib.func.vmap(lambda v: v.clone().view(-1), in_dims=1)(lib.zeros(3, 4, 5))
    out = [lib.func.vmap(lambda v: v.clone().reshape(-1) * 2, in_dims=1)(lib.tensor(P)) for lib in (dyngrad, torch)]
    assert_same_tensor(*out)


@pytest.mark.parametrize("in_dims", [0, 1, 2])
def test_copies_own_their_memory(in_dims):
    """A copy that keeps the physical layout is still a copy: writing into it leaves the input alone, and in-place
    ops on it record gradients in its layout (values and gradients as torch's)."""
    base = np.random.default_rng(5).standard_normal((4, 3, 2)).transpose(2, 0, 1)  # a physical array not in C order
    ct = np.random.default_rng(6).standard_normal((2, 3, 4))
    results = []
    for lib in (torch, dyngrad):
        x = lib.from_numpy(base.copy().transpose(1, 2, 0).copy().transpose(2, 0, 1)).requires_grad_(True)

        def f(v, lib=lib):
            y = v.clone()
            y.mul_(2)
            z = (v * 1).t().clone()
            z[0] = 0.5
            w = v.sin()  # (keeps the batch dim where v has it)
            w.mul_(v)
            u = v.cos()
            u[..., 0] = 0.5
            return y + v, z.sum(0), lib.nn.functional.elu(v * 1, inplace=True), w, u

        outs = lib.func.vmap(f, in_dims=in_dims)(x)
        cts = [lib.from_numpy(ct.reshape(-1)[: o.numel()].reshape(tuple(o.shape)).copy()) for o in outs]
        results.append((outs, lib.autograd.grad(outs, x, cts)[0]))
    (t_outs, t_grad), (d_outs, d_grad) = results
    for d, t in zip(d_outs, t_outs):
        assert_same_tensor(d, t)
    assert_same_tensor(d_grad, t_grad, what="grad")
