"""dyngrad.testing.assert_close and make_tensor against torch.testing: the same pass/fail, exception type and
report text for each pair of inputs; make_tensor's shapes, dtypes, ranges, layout and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import dyngrad
from conftest import both

NAN, INF = float("nan"), float("inf")

CASES = {
    "close_float32": lambda lib: ([1.0, 2.0, 3.0], [1.0, 2.0 + 1e-6, 3.0], {}),
    "one_off": lambda lib: (lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 2.5, 3.0]), {}),
    "two_d": lambda lib: (lib.tensor([[1.0, 2.0], [3.0, 4.0]]), lib.tensor([[1.0, 2.5], [3.0, 5.0]]), {}),
    "shape": lambda lib: (lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 2.0]), {}),
    "dtype": lambda lib: (lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0], dtype=lib.float64), {}),
    "dtype_unchecked": lambda lib: (lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.1], dtype=lib.float64),
                                    {"check_dtype": False}),
    "ints": lambda lib: (lib.tensor([1, 2]), lib.tensor([1, 3]), {}),
    "ints_with_tolerance": lambda lib: (lib.tensor([1, 2]), lib.tensor([1, 4]), {"rtol": 0.1, "atol": 0.5}),
    "bools": lambda lib: (lib.tensor([True]), lib.tensor([False]), {}),
    "float_scalars": lambda lib: (1.0, 1.1, {}),
    "int_scalars": lambda lib: (1, 2, {}),
    "int_float": lambda lib: (1, 1.0, {}),
    "complex_scalars": lambda lib: (1 + 1j, 1 + 2j, {}),
    "bool_scalars": lambda lib: (True, False, {}),
    "none": lambda lib: (None, 1, {}),
    "nan_tensor": lambda lib: (lib.tensor(NAN), lib.tensor(NAN), {}),
    "nan_equal": lambda lib: (lib.tensor([NAN, 1.0]), lib.tensor([NAN, 1.0]), {"equal_nan": True}),
    "zero_dim": lambda lib: (lib.tensor(1.0), lib.tensor(1.1), {}),
    "inf_sign": lambda lib: (lib.tensor([1.0, INF]), lib.tensor([1.0, -INF]), {}),
    "inf_same": lambda lib: (lib.tensor([1.0, INF]), lib.tensor([1.0, INF]), {}),
    "all_off": lambda lib: (lib.zeros(3, 4), lib.ones(3, 4), {}),
    "near_zero": lambda lib: (lib.tensor([0.0, 1.0]), lib.tensor([1e-3, 1.0]), {}),
    "complex_tensor": lambda lib: (lib.tensor([1.0 + 1j]), lib.tensor([1.0 + 2j]), {}),
    "exact": lambda lib: (lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.1]), {"rtol": 0, "atol": 0}),
    "sequence_item": lambda lib: ([lib.tensor(1.0), lib.tensor(2.0)], [lib.tensor(1.0), lib.tensor(3.0)], {}),
    "sequence_length": lambda lib: ([1, 2], [1, 2, 3], {}),
    "tuple_mixed": lambda lib: ((1.0, lib.tensor([1.0])), (1.0, lib.tensor([2.0])), {}),
    "mapping_value": lambda lib: ({"a": lib.tensor(1.0)}, {"a": lib.tensor(2.0)}, {}),
    "mapping_keys": lambda lib: ({"a": 1, "b": 2}, {"b": 2, "c": 3}, {}),
    "mapping_missing": lambda lib: ({"a": 1}, {"a": 1, "c": 3}, {}),
    "tensor_float": lambda lib: (lib.tensor(1.0), 1.0, {}),
    "tensor_list": lambda lib: (lib.tensor([1.0, 2.0]), [1.0, 2.0], {}),
    "strings": lambda lib: ("a", "a", {}),
    "rtol_only": lambda lib: (lib.tensor([1.0]), lib.tensor([1.0]), {"rtol": 1e-3}),
    "atol_only": lambda lib: (lib.tensor([1.0]), lib.tensor([1.0]), {"atol": 1e-3}),
    "numpy": lambda lib: (np.array([1.0, 2.0]), np.array([1.0, 2.1]), {}),
    "tensor_numpy": lambda lib: (lib.tensor([1.0, 2.0]), np.array([1.0, 2.0], dtype=np.float32), {}),
    "stride": lambda lib: (lib.tensor([[1.0, 2.0], [3.0, 4.0]]).T, lib.tensor([[1.0, 3.0], [2.0, 4.0]]),
                           {"check_stride": True}),
    "msg_string": lambda lib: (lib.tensor(1.0), lib.tensor(2.0), {"msg": "custom"}),
    "msg_callable": lambda lib: (lib.tensor([1.0, 2.0]), lib.tensor([1.0, 3.0]), {"msg": lambda m: "X" + m}),
    "requires_grad": lambda lib: (lib.tensor(1.0, requires_grad=True), lib.tensor(2.0), {}),
    "int_dtypes": lambda lib: (lib.tensor([1, 2]), lib.tensor([1, 2], dtype=lib.int32), {}),
    "empty": lambda lib: (lib.empty(0), lib.empty(0), {}),
    "float64_close": lambda lib: (lib.tensor([1.0], dtype=lib.float64), lib.tensor([1.0 + 1e-8], dtype=lib.float64), {}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_matches_torch(name):
    def program(lib):
        actual, expected, kwargs = CASES[name](lib)
        if isinstance(actual, list) and name == "close_float32":
            actual, expected = lib.tensor(actual), lib.tensor(expected)
        lib.testing.assert_close(actual, expected, **kwargs)
        return "passed"

    both(program)


def test_make_tensor_ranges_and_layout():
    for dtype in ("float32", "float64", "int64", "int32", "uint8", "bool", "complex64"):
        t = dyngrad.testing.make_tensor(200, 3, dtype=getattr(dyngrad, dtype), device="cpu")
        r = torch.testing.make_tensor(200, 3, dtype=getattr(torch, dtype), device="cpu")
        assert tuple(t.shape) == tuple(r.shape) and repr(t.dtype) == repr(r.dtype)
        if dtype == "bool":
            continue
        parts = [t.real, t.imag] if dtype == "complex64" else [t]
        lo, hi = {"uint8": (0, 9), "float32": (-9, 9), "float64": (-9, 9), "complex64": (-9, 9)}.get(dtype, (-9, 9))
        for p in parts:
            assert lo <= float(p.min()) and float(p.max()) <= hi and float(p.max()) - float(p.min()) > 5
    t = dyngrad.testing.make_tensor((3, 4), dtype=dyngrad.float32, device="cpu", low=2, high=3,
                                    noncontiguous=True, exclude_zero=True, requires_grad=True)
    r = torch.testing.make_tensor((3, 4), dtype=torch.float32, device="cpu", low=2, high=3, noncontiguous=True,
                                  exclude_zero=True, requires_grad=True)
    assert (t.is_contiguous(), t.stride(), t.requires_grad) == (r.is_contiguous(), r.stride(), r.requires_grad)
    assert 2 <= float(t.min()) and float(t.max()) < 3


MAKE_ERRORS = {
    "low_high": lambda lib: lib.testing.make_tensor((2, 3), dtype=lib.float32, device="cpu", low=3, high=1),
    "low_high_int": lambda lib: lib.testing.make_tensor(2, 3, dtype=lib.int64, device="cpu", low=2, high=2),
    "nan": lambda lib: lib.testing.make_tensor(2, 3, dtype=lib.float32, device="cpu", low=NAN),
    "grad_int": lambda lib: lib.testing.make_tensor(3, dtype=lib.int64, device="cpu", requires_grad=True),
    "no_device": lambda lib: lib.testing.make_tensor((2, 3), dtype=lib.float32),
    "uint8_range": lambda lib: lib.testing.make_tensor(3, dtype=lib.uint8, device="cpu", low=-5, high=-1),
}


@pytest.mark.parametrize("name", list(MAKE_ERRORS))
def test_make_tensor_errors(name):
    both(lambda lib: MAKE_ERRORS[name](lib) and None)
