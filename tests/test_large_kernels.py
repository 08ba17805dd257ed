"""Kernel paths that only large inputs reach, against torch.

The op table draws small shapes; some kernels switch strategy on size (softmax walks rows in
blocks of ~512 KB and redoes a block with the max subtracted when a row would overflow or
underflow; index_add sums many repeated rows by sorting). These tests feed inputs big enough
for those paths, with rows that force each fallback, and compare values and gradients.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from conftest import assert_same_tensor, torch

# float32: a gradient entry near 0 is a difference of O(1) terms summed over 1000 entries
TOL = {np.float32: dict(rtol=2e-5, atol=1e-5), np.float64: dict(rtol=1e-10, atol=1e-12)}


def _logits(dtype) -> np.ndarray:
    rng = np.random.default_rng(0)
    z = (3 * rng.standard_normal((300, 1000))).astype(dtype)  # 1.2 MB in float32: several blocks
    z[7] += 200.0  # exp overflows unshifted
    z[150] -= 200.0  # every exp underflows unshifted
    z[151, :500] -= 1000.0  # half the row far below its max
    z[299] = z[299] * 40  # a wide spread
    return z


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "cross_entropy"])
def test_softmax_family_on_large_inputs(fn, dtype) -> None:
    z = _logits(dtype)
    rng = np.random.default_rng(1)
    g = rng.standard_normal(z.shape).astype(dtype)
    target = rng.integers(0, z.shape[1], z.shape[0])
    results = []
    for lib in (dyngrad, torch):
        x = lib.tensor(z, requires_grad=True)
        F = lib.nn.functional
        if fn == "cross_entropy":
            out = F.cross_entropy(x, lib.tensor(target))
            out.backward()
        else:
            out = getattr(F, fn)(x, dim=1)
            out.backward(lib.tensor(g))
        results.append((out, x.grad))
    (d_out, d_grad), (t_out, t_grad) = results
    assert_same_tensor(d_out, t_out, tol=TOL[dtype], what="value")
    assert_same_tensor(d_grad, t_grad, tol=TOL[dtype], what="gradient")


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_softmax_rows_with_non_finite_values(bad) -> None:
    z = _logits(np.float32)
    z[3, 5] = bad
    outs = [lib.nn.functional.softmax(lib.tensor(z), dim=-1) for lib in (dyngrad, torch)]
    assert_same_tensor(outs[0], outs[1], tol=TOL[np.float32])


@pytest.mark.parametrize("negative", [False, True])
def test_many_repeated_rows_accumulate_as_torch(negative) -> None:
    # large enough for the sorted-rows path of _backend.index_add
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 300, 900) - (300 if negative else 0)
    table = rng.standard_normal((300, 40)).astype(np.float32)
    g = rng.standard_normal((900, 40)).astype(np.float32)
    grads = []
    for lib in (dyngrad, torch):
        x = lib.tensor(table, requires_grad=True)
        w = lib.tensor(table, requires_grad=True)
        i = lib.tensor(idx)
        (x[i] * lib.tensor(g)).sum().backward()
        if not negative:
            (lib.nn.functional.embedding(i, w) * lib.tensor(g)).sum().backward()
        grads.append((x.grad, w.grad))
    (dx, dw), (tx, tw) = grads
    assert_same_tensor(dx, tx, tol=dict(rtol=1e-5, atol=1e-5))
    if not negative:
        assert_same_tensor(dw, tw, tol=dict(rtol=1e-5, atol=1e-5))


@pytest.mark.parametrize("fn", ["log_softmax", "softmax", "logsumexp"])
def test_softmax_family_rounds_as_torch_mostly(fn) -> None:
    # Same formulas in the same order as torch's CPU kernels (shift by the max; (x - max) - log(sum);
    # exp(x - max) * (1 / sum)): most float32 results are bit-identical to torch's. The rest differ
    # by an ulp because NumPy's float32 exp is not torch's; a reordered formula drops the share
    # well below these bounds (log_softmax without the shift: 0.60).
    rng = np.random.default_rng(0)
    x = (2 * rng.standard_normal((2000, 10))).astype(np.float32)
    floor = {"log_softmax": 0.75, "softmax": 0.45, "logsumexp": 0.75}[fn]
    ours = getattr(dyngrad, fn)(dyngrad.tensor(x), 1).numpy()
    theirs = getattr(torch, fn)(torch.tensor(x), 1).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    assert (ours == theirs).mean() >= floor


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("name", ["i0", "i1e", "bessel_y1", "airy_ai"])
def test_special_functions_in_chunks(name, dtype) -> None:
    """The Bessel kernels run on 65536 elements at a time (bessel.in_working_dtype): a 3-D input of
    200000 elements crosses chunk boundaries; values and i0/i1e's gradients match torch's."""
    if dtype == np.float16 and name in ("bessel_y1", "airy_ai"):
        return  # torch has no float16 kernel for these (tested in test_bessel.py)
    x = np.random.default_rng(3).uniform(-40, 40, (8, 250, 100)).astype(dtype)
    results = []
    for lib in (dyngrad, torch):
        t = lib.tensor(x, requires_grad=name in ("i0", "i1e") and dtype != np.float16)
        y = getattr(lib.special, name)(t)
        grad = lib.autograd.grad(y.sum(), t)[0] if t.requires_grad else None
        results.append((y, grad))
    (dy, dg), (ty, tg) = results
    # atol: near the zeros of Y1 and Ai the values are tiny and agree to an ulp of their envelope (~0.1)
    tol = {np.float16: dict(rtol=2e-3, atol=0.0), np.float32: dict(rtol=1e-6, atol=1e-7),
           np.float64: dict(rtol=1e-14, atol=1e-16)}[dtype]
    assert_same_tensor(dy, ty, tol=tol)
    if tg is not None:
        assert_same_tensor(dg, tg, tol=tol)
