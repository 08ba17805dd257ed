"""_glibc_log.log and _glibc_exp.exp against math.log and math.exp (the C library's, which torch's CPU kernels
call), bit for bit.

The suite checks about 2.7 million inputs of log (each test a few hundred thousand): the sampler's uniforms, every
exponent, the interval near 1 and its edges, the table's subinterval edges, subnormals and the special values; and
about 1.7 million of exp. The same comparisons on 400 million (log) and 100 million (exp) inputs were run once when
the modules were written (docs/random.md).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import dyngrad
from dyngrad import _glibc_exp, _glibc_log

_u64 = np.uint64


def _math_log(values: np.ndarray) -> np.ndarray:
    return np.array([math.log(v) for v in values.tolist()], dtype=np.float64)


def _assert_bits_equal(values: np.ndarray) -> None:
    got = _glibc_log._vector_log(values)
    want = _math_log(values)
    bad = np.flatnonzero(got.view(_u64) != want.view(_u64))
    assert bad.size == 0, [(float.hex(float(values[i])), float.hex(float(got[i])), float.hex(float(want[i])))
                           for i in bad[:5]]


def _neighbours(values: np.ndarray, spread: int = 3) -> np.ndarray:
    """Each value and the ``spread`` doubles on either side of it (positive values)."""
    bits = values.view(np.int64)
    return np.concatenate([(bits + d).view(np.float64) for d in range(-spread, spread + 1)])


def test_uniforms_as_the_samplers_draw_them():
    # normal_fill_16 takes log(1 - u), u a multiple of 2**-53 in [0, 1); geometric takes log(u)
    rng = np.random.default_rng(0)
    steps = rng.integers(0, 1 << 53, 600_000)
    _assert_bits_equal(np.concatenate([1.0 - steps * 2.0**-53, (steps[:200_000] + 1) * 2.0**-53]))


def test_all_exponents_random_bits():
    rng = np.random.default_rng(1)
    _assert_bits_equal(rng.integers(1, 0x7FF0000000000000, 600_000, dtype=np.int64).view(np.float64))


def test_near_one():
    rng = np.random.default_rng(2)
    tiny = np.arange(1, 20_001, dtype=np.float64) * 2.0**-52
    edges = np.array([1 - 2.0**-4, 1 + float.fromhex("0x1.09p-4")])
    _assert_bits_equal(np.concatenate([1.0 + rng.uniform(-0.07, 0.07, 400_000), 1.0 + tiny, 1.0 - tiny / 2,
                                       1.0 + rng.uniform(-2.0**-20, 2.0**-20, 100_000), _neighbours(edges, 50),
                                       [1.0]]))


def test_table_subinterval_edges_and_powers_of_two():
    # z's 128 subintervals start at the bits 0x3fe6... + i * 2**45; each edge at several exponents, with neighbours
    edges = (np.uint64(0x3FE6000000000000) + np.arange(128, dtype=np.uint64) * np.uint64(1 << 45)).view(np.float64)
    scaled = np.concatenate([edges * 2.0**e for e in (-1000, -60, -3, -1, 0, 1, 2, 50, 900)])
    powers = 2.0 ** np.arange(-1022, 1024, dtype=np.float64)
    _assert_bits_equal(np.concatenate([_neighbours(scaled, 20), _neighbours(powers, 3)[3:]]))


def test_subnormals_and_extremes():
    rng = np.random.default_rng(3)
    subnormal = rng.integers(1, 1 << 52, 200_000, dtype=np.int64).view(np.float64)
    small = np.arange(1, 2000, dtype=np.int64).view(np.float64)
    extremes = np.array([5e-324, 2.0**-1022, np.nextafter(2.0**-1022, 0), np.finfo(np.float64).max,
                         np.nextafter(np.inf, 0)])
    _assert_bits_equal(np.concatenate([subnormal, small, extremes]))


def test_special_values_follow_the_c_library():
    # math.log raises for 0 and negatives; the C function (and torch's kernels) returns -inf and nan
    values = np.array([0.0, -0.0, -1.0, -5e-324, -np.inf, np.inf, np.nan, 1.0, 2.0])
    got = _glibc_log.log(values)
    with np.errstate(all="ignore"):
        want = torch.log(torch.tensor(values)).numpy()
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[-2]) == np.signbit(want[-2])  # (+0 for log(1))
    np.testing.assert_array_equal(_glibc_log._libm_log(values), want)  # (the fallback of other platforms)


@pytest.mark.parametrize("shape", [(7, 3), (2, 0), ()])
def test_shapes_and_the_platform_check(shape):
    values = np.random.default_rng(4).uniform(0.01, 10.0, shape)
    got = _glibc_log.log(values)
    assert got.shape == values.shape and got.dtype == np.float64
    assert np.array_equal(got.view(_u64), _math_log(values.ravel()).reshape(shape).view(_u64))
    assert _glibc_log._matches_libm  # (this platform's math.log is glibc's: the vectorised path is the one used)
    got = _glibc_exp.exp(values)
    assert got.shape == values.shape and got.dtype == np.float64
    assert np.array_equal(got.view(_u64), np.array([math.exp(v) for v in values.ravel().tolist()]).reshape(shape)
                          .view(_u64))


def test_randn_and_normal_rsample_match_torch():
    for lib in (torch, dyngrad):
        lib.manual_seed(3)
    want = torch.randn(300_001, dtype=torch.float64).numpy()
    got = dyngrad.randn(300_001, dtype=dyngrad.float64).numpy()
    assert np.array_equal(got.view(_u64), want.view(_u64))
    loc, scale = np.linspace(-2, 2, 250_000), np.linspace(0.5, 3, 250_000)
    draws = []
    for lib in (torch, dyngrad):
        lib.manual_seed(9)
        dist = lib.distributions.Normal(lib.tensor(loc, requires_grad=True), lib.tensor(scale))
        draws.append(dist.rsample().detach().numpy())
    assert np.array_equal(draws[1].view(_u64), draws[0].view(_u64))


def test_large_normal_draws_match_torch():
    # 2**20 float64 normals: 2**19 logs through the normal_fill_16 path, the block tail included
    for n, mean, std in ((1 << 20, 0.0, 1.0), (100_003, 1.5, 0.25)):
        torch.manual_seed(7)
        dyngrad.manual_seed(7)
        want = torch.empty(n, dtype=torch.float64).normal_(mean, std).numpy()
        got = dyngrad.empty(n, dtype=dyngrad.float64).normal_(mean, std).numpy()
        assert np.array_equal(got.view(_u64), want.view(_u64))


def _assert_exp_bits_equal(values: np.ndarray) -> None:
    got = _glibc_exp._vector_exp(values)
    want = np.array([math.exp(v) for v in values.tolist()], dtype=np.float64)
    bad = np.flatnonzero(got.view(_u64) != want.view(_u64))
    assert bad.size == 0, [(float.hex(float(values[i])), float.hex(float(got[i])), float.hex(float(want[i])))
                           for i in bad[:5]]


def test_exp_normal_and_uniform_arguments():
    # log_normal_ takes exp(normal * std + mean)
    rng = np.random.default_rng(5)
    _assert_exp_bits_equal(np.concatenate([rng.standard_normal(600_000) * 2 + 1, rng.uniform(-745, 709.7, 400_000)]))


def test_exp_all_exponents_and_edges():
    rng = np.random.default_rng(6)
    bits = rng.integers(0, 0x4086000000000000, 300_000, dtype=np.int64).view(np.float64)  # |x| below 704
    # the paths' edges (2**-54 and 512) and k's half-integers x = (j + 1/2) ln2 / 128, where the rounding of k
    # decides the table entry
    half = (np.arange(-20_000, 20_000) + 0.5) * (math.log(2) / 128)
    edges = np.array([2.0**-54, 512.0, 1.0, 709.78, -708.0])
    _assert_exp_bits_equal(np.concatenate([bits, -bits, _neighbours(half, 2), _neighbours(edges, 30),
                                           -_neighbours(edges, 30), [0.0, -0.0, 5e-324, -5e-324]]))


def test_exp_special_values_follow_the_c_library():
    values = np.array([np.inf, -np.inf, np.nan, 710.0, 1e300, -746.0, -1e300, 0.0])
    got = _glibc_exp.exp(values)
    want = torch.exp(torch.tensor(values)).numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(_glibc_exp._libm_exp(values), want)
    assert _glibc_exp._matches_libm


def test_log_normal_draws_match_torch():
    for n, mean, std in ((200_003, 1.0, 2.0), (5000, -3.0, 0.5)):
        torch.manual_seed(11)
        dyngrad.manual_seed(11)
        want = torch.empty(n, dtype=torch.float64).log_normal_(mean, std).numpy()
        got = dyngrad.empty(n, dtype=dyngrad.float64).log_normal_(mean, std).numpy()
        assert np.array_equal(got.view(_u64), want.view(_u64))
