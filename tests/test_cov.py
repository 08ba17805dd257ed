"""torch.cov's corner cases (aten/src/ATen/native/Correlation.cpp), each compared with torch: the normaliser's
cases, one observation with one kind of weights (aten zeroes the input in place), the imaginary part of a
one-variable or one-observation complex product (zeroed), and the degrees-of-freedom warning."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from conftest import assert_same_tensor, both

X = [[1.5, -0.5, 2.0], [0.25, 3.0, -1.0]]
ONE_OBSERVATION = [[1.5], [2.5]]


def _cov_case(x, kind="float64", **weights):
    """cov of ``x`` with the named weights; returns the result, the input afterwards and the weights' gradient."""

    def program(lib):
        t = lib.tensor(x, dtype=getattr(lib, kind))
        kw = {}
        for name, value in weights.items():
            if name == "correction":
                kw[name] = value
            elif name == "fweights":
                kw[name] = lib.tensor(value)
            else:
                kw[name] = lib.tensor(value, dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = lib.cov(t, **kw)
        result = [out, t]
        if "aweights" in kw and out.requires_grad:
            g = out.real.sum() if out.is_complex() else out.sum()
            result.append(lib.autograd.grad(g, kw["aweights"], allow_unused=True)[0])
        return result

    return program


CASES = {
    "plain": _cov_case(X),
    "correction-0": _cov_case(X, correction=0),
    "fweights": _cov_case(X, fweights=[1, 2, 1]),
    "fweights-correction-0": _cov_case(X, fweights=[1, 2, 1], correction=0),
    "aweights": _cov_case(X, aweights=[0.5, 0.25, 1.0]),
    "aweights-correction-2": _cov_case(X, aweights=[0.5, 0.25, 1.0], correction=2),
    "both-weights": _cov_case(X, fweights=[1, 2, 1], aweights=[0.5, 0.25, 1.0]),
    # one observation: aten's exact-zero normaliser (aweights only, correction 1) and the zeroed input
    "one-observation-aweights": _cov_case(ONE_OBSERVATION, aweights=[0.5]),
    "one-observation-aweights-correction-0": _cov_case(ONE_OBSERVATION, aweights=[0.5], correction=0),
    "one-observation-fweights": _cov_case(ONE_OBSERVATION, fweights=[2]),
    "one-observation-both": _cov_case(ONE_OBSERVATION, fweights=[2], aweights=[0.5]),
    "one-observation-none": _cov_case(ONE_OBSERVATION),
    "one-observation-int-aweights": _cov_case([[1], [2]], "int64", aweights=[0.5]),
    "one-observation-int-fweights": _cov_case([[1], [2]], "int64", fweights=[3], correction=0),
    "one-observation-1d": _cov_case([3.0], aweights=[0.5], correction=0),
    # complex: one variable (or one observation) has its imaginary part zeroed, also where it divides by 0
    "complex-one-variable": _cov_case([[1 + 2j, 3 - 1j, 0.5j]], "complex64", aweights=[0.3, 0.9, 0.2]),
    "complex-one-variable-no-dof": _cov_case([[1 + 2j, 3 - 1j]], "complex128", aweights=[0.3, 0.9], correction=3),
    "complex-one-observation": _cov_case([[1 + 2j], [3 - 1j]], "complex128", fweights=[2]),
    "complex-two-variables": _cov_case([[1 + 2j, 3 - 1j, 0.5j], [2 - 1j, 1 + 1j, 3.0]], "complex128"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_cov_matches_torch(name):
    both(CASES[name])


def test_cov_one_observation_zeroes_a_leaf_that_requires_grad_as_torch_refuses():
    def program(lib):
        x = lib.tensor(ONE_OBSERVATION, requires_grad=True)
        return lib.cov(x, aweights=lib.tensor([0.5]))

    both(program)


def test_cov_warns_with_torchs_text():
    texts = []
    for lib in (torch, dyngrad):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.cov(lib.tensor(X), correction=3)
        texts.append([str(w.message) for w in caught if w.category is UserWarning])
    assert texts[0] == texts[1] and len(texts[0]) == 1


def test_cov_weights_gradient_through_the_normaliser_matches_torch():
    """float32, two observations: the covariance does not depend on the weights, so their gradient is rounding
    noise; it is torch's only when the division's gradient rounds as torch's (-g * ((a / b) / b))."""
    x = np.array([[-0.17831861972808838, 7.136005401611328]], dtype=np.float32)  # torch's OpInfo sample 15
    w = np.array([0.3488934636116028, 0.40171730518341064], dtype=np.float32)

    def program(lib):
        aw = lib.from_numpy(w.copy()).requires_grad_()
        out = lib.cov(lib.from_numpy(x.copy()), aweights=aw)
        return out, lib.autograd.grad(out, aw)[0]

    d, t = program(dyngrad), program(torch)
    assert_same_tensor(d[0], t[0])
    assert np.array_equal(d[1].numpy(), t[1].numpy())  # exactly: torch's noise is 0 and 2**-16
