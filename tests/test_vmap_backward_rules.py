"""Backward formulas under ``vmap`` that used to run once per sample now batch: values and gradients against
torch.func.vmap, and no performance warning from dyngrad (the sweep of tests/test_func_ops.py checks the rest of
the op table the same way, BACKWARD_WITHOUT_RULE)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch.func

import dyngrad
import dyngrad.func
from conftest import assert_same_tensor

RNG = np.random.default_rng(11)


def _run(lib, fn, arrays, dims, grad_of):
    ins = [lib.from_numpy(a.copy()) for a in arrays]
    for i in grad_of:
        ins[i].requires_grad_(True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = lib.func.vmap(lambda *a: fn(lib, *a), in_dims=dims)(*ins)
        ct = lib.from_numpy(np.random.default_rng(1).standard_normal(tuple(out.shape)))
        grads = lib.autograd.grad(out, [ins[i] for i in grad_of], ct)
    loops = [str(w.message) for w in caught if "performance drop" in str(w.message)]
    return out, grads, loops


def _zero_sample(shape):
    x = RNG.standard_normal(shape)
    x[1, 0] = 0  # one sample's row of zeros: the norm's gradient takes its zero branch there only
    return x


def _masked_det(lib, x, m):
    return lib.linalg.det(x * m)


SQUARES = RNG.standard_normal((3, 3, 3))
# sample 1's last column is zeroed (a singular matrix whose gradient there is multiplied by 0); the others invertible
MASKS = np.ones((3, 3)); MASKS[1, 2] = 0  # noqa: E702

CASES = {
    "det_some_singular": (_masked_det, [SQUARES, MASKS], (0, 0), (0,)),
    "det_some_singular_in_dim_1": (_masked_det, [SQUARES.transpose(1, 0, 2).copy(), MASKS], (1, 0), (0,)),
    "det_all_singular": (lambda lib, x: lib.linalg.det(x * lib.tensor([1.0, 1.0, 0.0], dtype=x.dtype)), [SQUARES],
                         (0,), (0,)),
    "irfft_n": (lambda lib, x: lib.fft.irfft(x, n=7), [RNG.standard_normal((3, 2, 5)) + 1j * RNG.standard_normal((3, 2, 5))],
                (0,), (0,)),
    "irfft_n_even_in_dim_1": (lambda lib, x: lib.fft.irfft(x, n=6, norm="ortho"),
                              [RNG.standard_normal((2, 3, 4)) + 1j * RNG.standard_normal((2, 3, 4))], (1,), (0,)),
    "irfft2": (lambda lib, x: lib.fft.irfft2(x, s=(3, 5)), [RNG.standard_normal((3, 3, 4)) + 1j * RNG.standard_normal((3, 3, 4))],
               (0,), (0,)),
    "hfft": (lambda lib, x: lib.fft.hfft(x, n=5), [RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))], (0,),
             (0,)),
    "hfftn": (lambda lib, x: lib.fft.hfftn(x, s=(2, 6)), [RNG.standard_normal((2, 3, 4)) + 1j * RNG.standard_normal((2, 3, 4))],
              (1,), (0,)),
    "gather_index_per_sample_in_dim_1": (lambda lib, x, i: lib.gather(x, 1, i),
                                         [RNG.standard_normal((3, 4, 5)), RNG.integers(0, 3, (2, 4, 2))], (1, 1), (0,)),
    "take_along_dim_index_per_sample": (lambda lib, x, i: lib.take_along_dim(x, i, 1),
                                        [RNG.standard_normal((3, 4, 5)), RNG.integers(0, 5, (3, 4, 2))], (0, 0), (0,)),
    "vector_norm_zero_sample": (lambda lib, x: lib.linalg.vector_norm(x, dim=-1), [_zero_sample((3, 2, 4))], (0,), (0,)),
    "grid_sample_some_taps_outside": (
        lambda lib, x, grid: lib.nn.functional.grid_sample(x, grid, align_corners=False),
        [RNG.standard_normal((3, 1, 2, 4, 5)), np.stack([RNG.uniform(-0.9, 0.9, (1, 3, 2, 2)),
                                                         RNG.uniform(-1.6, 1.6, (1, 3, 2, 2)),
                                                         RNG.uniform(-0.9, 0.9, (1, 3, 2, 2))])], (0, 0), (0, 1)),
    "max_pool3d": (lambda lib, x: lib.nn.functional.max_pool3d(x, 2, stride=1, padding=1),
                   [RNG.standard_normal((3, 1, 3, 3, 4))], (0,), (0,)),
    "adaptive_max_pool3d_in_dim_1": (lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x, (2, 1, 2)),
                                     [RNG.standard_normal((1, 3, 2, 3, 4))], (1,), (0,)),
}
TIES = np.round(RNG.standard_normal((2, 3, 6)), 0)  # integer values: ties in every reduction
SCATTER_INDEX = np.array([0, 1, 0, 2, 1, 0])
for _reduce in ("amax", "amin", "prod"):
    CASES[f"scatter_reduce_{_reduce}_ties"] = (
        lambda lib, a, s, r=_reduce: a.scatter_reduce(0, lib.from_numpy(SCATTER_INDEX.copy()), s, r), [*TIES], (0, 0),
        (0, 1))
    CASES[f"index_reduce_{_reduce}_ties_in_dim_1"] = (
        lambda lib, a, s, r=_reduce: a.index_reduce(0, lib.from_numpy(SCATTER_INDEX.copy()), s, r, include_self=False),
        [TIES[0].T.copy(), TIES[1]], (1, 0), (0, 1))


@pytest.mark.parametrize("name", sorted(CASES))
def test_backward_batches(name):
    fn, arrays, dims, grad_of = CASES[name]
    t_out, t_grads, _ = _run(torch, fn, arrays, dims, grad_of)
    d_out, d_grads, d_loops = _run(dyngrad, fn, arrays, dims, grad_of)
    assert_same_tensor(d_out, t_out)
    for d, t in zip(d_grads, t_grads):
        assert_same_tensor(d, t, what="grad")
    assert not d_loops, d_loops
