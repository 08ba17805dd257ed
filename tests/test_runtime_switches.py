"""The process-wide switches scripts set first (set_default_device, autocast, ...), against torch's CPU build."""

from __future__ import annotations

import warnings

import pytest
import torch

import dyngrad


def _warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in caught]


def test_default_device() -> None:
    for lib in (dyngrad, torch):
        lib.set_default_device("cpu")
        lib.set_default_device(None)
        assert repr(lib.get_default_device()) == "device(type='cpu')"
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        dyngrad.set_default_device("cuda")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        dyngrad.set_default_device("nowhere")


def test_matmul_precision_and_determinism() -> None:
    for lib in (dyngrad, torch):
        lib.set_float32_matmul_precision("high")
        assert lib.get_float32_matmul_precision() == "high"
        lib.set_float32_matmul_precision("highest")
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.are_deterministic_algorithms_enabled() and lib.is_deterministic_algorithms_warn_only_enabled()
        lib.use_deterministic_algorithms(False)
    assert _warnings(lambda: dyngrad.set_float32_matmul_precision("bogus")) == \
        _warnings(lambda: torch.set_float32_matmul_precision("bogus"))
    assert dyngrad.get_float32_matmul_precision() == "highest"


def test_threads() -> None:
    before = dyngrad.get_num_threads()
    assert before >= 1
    dyngrad.set_num_threads(1)
    assert dyngrad.get_num_threads() == 1
    dyngrad.set_num_threads(before)


def test_autocast_as_a_cpu_only_build() -> None:
    def cuda(lib):
        with lib.autocast("cuda", dtype=lib.float16):
            pass

    assert _warnings(lambda: cuda(dyngrad)) == _warnings(lambda: cuda(torch))

    def off(lib):
        with lib.autocast("cpu", enabled=False):
            return (lib.ones(2, 2) @ lib.ones(2, 2)).dtype

    assert repr(off(dyngrad)) == repr(off(torch)) == "torch.float32"
    with pytest.raises(RuntimeError) as ours:
        dyngrad.autocast("xyz")
    with pytest.raises(RuntimeError) as theirs:
        torch.autocast("xyz")
    assert str(ours.value) == str(theirs.value)
