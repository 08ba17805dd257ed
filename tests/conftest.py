"""Shared test helpers: run the same code on torch (the oracle) and dyngrad, and compare."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # for `import op_table`

import torch  # noqa: E402 - the oracle; a required test dependency, so its absence is an error, not a skip

torch.set_num_threads(1)

import dyngrad  # noqa: E402

TOL = {np.dtype("float32"): dict(rtol=1e-4, atol=1e-5), np.dtype("float64"): dict(rtol=1e-9, atol=1e-10)}
TOL[np.dtype("complex64")], TOL[np.dtype("complex128")] = TOL[np.dtype("float32")], TOL[np.dtype("float64")]


def to_numpy(t) -> np.ndarray:
    """The values of a torch or dyngrad tensor as an array."""
    if isinstance(t, dyngrad.Tensor):
        return t.detach().numpy(force=True)  # force: a tensor with the conjugate bit too
    return t.detach().cpu().numpy(force=True)  # force: torch's ZeroTensor (a known-zero gradient) too


def assert_same_tensor(d, t, *, tol=None, what: str = "value") -> None:
    """dyngrad tensor ``d`` equals torch tensor ``t``: shape, dtype and values."""
    assert isinstance(d, dyngrad.Tensor), f"{what}: expected a dyngrad Tensor, got {type(d).__name__}"
    assert tuple(d.shape) == tuple(t.shape), f"{what}: shape {tuple(d.shape)} != torch {tuple(t.shape)}"
    assert repr(d.dtype) == repr(t.dtype), f"{what}: dtype {d.dtype} != torch {t.dtype}"
    dn, tn = to_numpy(d), to_numpy(t)
    if dn.dtype.kind in "fc":
        kw = tol or TOL.get(dn.dtype, dict(rtol=1e-3, atol=1e-3))
        np.testing.assert_allclose(dn, tn, equal_nan=True, err_msg=what, **kw)
    else:
        np.testing.assert_array_equal(dn, tn, err_msg=what)


def same_error(fn_d, fn_t):
    """Run both; if torch raises, dyngrad must raise the same type with the same text. Returns the results."""
    try:
        rt = fn_t()
    except Exception as e:  # noqa: BLE001 - any torch error is the expectation
        with pytest.raises(type(e)) as info:
            fn_d()
        assert str(info.value) == str(e)
        return None, None
    return fn_d(), rt


def compare_results(d, t, path: str = "result") -> None:
    """dyngrad's result ``d`` equals torch's ``t``: tensors by value/dtype/shape, sequences item by item."""
    if isinstance(t, torch.Tensor):
        assert_same_tensor(d, t, what=path)
    elif isinstance(t, (tuple, list)):
        assert len(d) == len(t), path
        for i, (a, b) in enumerate(zip(d, t)):
            compare_results(a, b, f"{path}[{i}]")
    else:
        assert d == t, f"{path}: {d!r} != {t!r}"


def both(program) -> None:
    """Run ``program(lib)`` on dyngrad and on torch; same error (type and text), or same results."""
    d, t = same_error(lambda: program(dyngrad), lambda: program(torch))
    if t is not None:
        compare_results(d, t)


# Note [Hypothesis settings under parametrize]
# hypothesis' pytest plugin (6.170) wraps a parametrized test's settings in a new settings object
# before each item, with the previous wrapper as parent, so the chain grows by one per item and
# reading it recurses: a test with ~950 parametrized items fails with RecursionError. Before the
# plugin runs, each item gets the test's own settings back, so the plugin wraps them once.
_OWN_SETTINGS: dict = {}


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_call(item):
    fn = getattr(item, "obj", None)
    fn = getattr(fn, "__func__", fn)
    if fn is not None and hasattr(fn, "_hypothesis_internal_use_settings"):
        own = _OWN_SETTINGS.setdefault(id(fn), (fn, fn._hypothesis_internal_use_settings))[1]
        fn._hypothesis_internal_use_settings = own
    yield
