"""Boundary and NaN cases of existing ops that differed from torch (issue 11's "wrong or failing today" list):
values, gradients and second gradients compared with torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch  # noqa: F401 - the oracle, imported plainly

from conftest import both

NAN = float("nan")


def _grads(lib, fn, *values):
    """The output, its gradients and the gradients of sum(grad**2) (zeros where a gradient is constant)."""
    xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values]
    out = fn(lib, *xs)
    grads = lib.autograd.grad(out.sum(), xs, create_graph=True, allow_unused=True)
    s = sum((g * g).sum() for g in grads if g is not None)
    second = lib.autograd.grad(s, xs, allow_unused=True) if s.requires_grad else [None] * len(xs)
    second = [lib.zeros_like(x) if g is None else g for x, g in zip(xs, second)]
    return [out.detach(), *[g.detach() for g in grads if g is not None], *second]


CASES = {
    "threshold_nan": lambda lib: _grads(lib, lambda m, x: m.nn.functional.threshold(x, 0.5, 2.0),
                                        [NAN, -1.0, 0.5, 1.0] + [NAN] * 9),
    "threshold_inplace_nan": lambda lib: _grads(lib, lambda m, x: m.nn.functional.threshold(x * 1, 0.5, 2.0, True),
                                                [NAN, -1.0, 0.5, 1.0]),
    "elu_family_nan": lambda lib: _grads(lib, lambda m, x: m.nn.functional.elu(x) + m.nn.functional.celu(x, 0.5)
                                         + m.nn.functional.selu(x) + m.nn.functional.mish(x), [NAN, -1.0, 0.0, 1.0]),
    "atan2_origin": lambda lib: _grads(lib, lambda m, a, b: m.atan2(a, b), [0.0, 1.0, 0.0, -0.0], [0.0, 0.0, 2.0, 0.0]),
    "hardtanh_bounds": lambda lib: _grads(lib, lambda m, x: m.nn.functional.hardtanh(x), [-1.0, 1.0, 0.5, 2.0]),
    "relu6_bounds": lambda lib: _grads(lib, lambda m, x: m.nn.functional.relu6(x), [0.0, 6.0, 3.0, 7.0]),
    "normalize_p0": lambda lib: _grads(lib, lambda m, x: m.nn.functional.normalize(x, p=0, dim=0), [1.0, 0.0, 2.0, NAN]),
    "normalize_p0_2d": lambda lib: _grads(lib, lambda m, x: m.nn.functional.normalize(x, p=0.0, dim=1),
                                          [[1.0, 0.0], [0.0, 0.0]]),
    "avg_pool2d_one_element_padding": lambda lib: _grads(
        lib, lambda m, x: m.nn.functional.avg_pool2d(x, (3, 3), (1, 1), (1,), True, False, 2),
        np.arange(2 * 81.0).reshape(2, 1, 9, 9) / 40),
    "avg_pool2d_ceil_divisor": lambda lib: _grads(
        lib, lambda m, x: m.nn.functional.avg_pool2d(x, 2, 2, ceil_mode=True, count_include_pad=False,
                                                     divisor_override=3), np.arange(25.0).reshape(1, 1, 5, 5)),
    "tensordot_tensor_dims": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 5), dims=lib.tensor(1)),
    "tensordot_tensor_lists": lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 5), dims=lib.tensor([[1], [0]])),
    "tensordot_list_dims": lambda lib: lib.tensordot(lib.ones(2, 3, 4), lib.ones(3, 4, 5), dims=[[1, 2], [0, 1]]),
    "flip_dims_keyword": lambda lib: (lib.flip(lib.arange(6).reshape(2, 3), dims=(0,)),
                                      lib.arange(6).reshape(2, 3).flip(dims=[1])),
    "atleast_of_a_list": lambda lib: (lib.atleast_1d([lib.tensor(1.0), lib.tensor([2.0, 3.0])]),
                                      lib.atleast_3d((lib.tensor(1.0), lib.ones(2, 2)))),
    "tensor_split_0d": lambda lib: lib.tensor_split(lib.arange(7), lib.tensor(3)),
    "take_along_dim_negative": lambda lib: lib.take_along_dim(lib.arange(6.0).reshape(2, 3), lib.tensor([[-1], [-3]]),
                                                              dim=1),
    "gather_empty_index": lambda lib: (lib.gather(lib.arange(6.0).reshape(2, 3), 1, lib.empty(2, 0, dtype=lib.int64)),
                                       lib.gather(lib.arange(6.0).reshape(2, 3), 0, lib.empty(0, 3, dtype=lib.int64))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_boundary_case_matches_torch(name):
    both(CASES[name])
