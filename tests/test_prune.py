"""torch.nn.utils.prune against torch: the same masks (random ones too, from the same seed), parameters and
buffers, gradients through the pruned weight, combined (iterative) pruning, global pruning, remove, errors."""

from __future__ import annotations

import importlib

import pytest

import dyngrad
from conftest import both


def _prune(lib):
    return importlib.import_module(f"{lib.__name__}.nn.utils.prune")


def _linear_l1(lib):
    prune = _prune(lib)
    lib.manual_seed(0)
    m = lib.nn.Linear(4, 3)
    prune.l1_unstructured(m, "weight", amount=0.5)
    names = (list(m.state_dict()), [n for n, _ in m.named_buffers()], [n for n, _ in m.named_parameters()])
    m(lib.ones(1, 4)).sum().backward()
    # (the hooks by count: their ids come from a process-wide counter, so they depend on the tests run before)
    pruned = (m.weight_mask, m.weight, m.weight_orig.grad, prune.is_pruned(m), len(m._forward_pre_hooks))
    prune.remove(m, "weight")
    return names, pruned, list(m.state_dict()), m.weight, type(m.weight).__name__, prune.is_pruned(m)


def _random(lib):
    prune = _prune(lib)
    lib.manual_seed(0)
    m = lib.nn.Linear(4, 3)
    prune.random_unstructured(m, "weight", amount=5)
    c = lib.nn.Conv2d(2, 4, 3)
    prune.random_structured(c, "weight", amount=0.5, dim=0)
    return m.weight_mask, c.weight_mask, lib.rand(2)  # the same draws, so the generator is where torch's is


def _structured_and_iterative(lib):
    prune = _prune(lib)
    lib.manual_seed(0)
    c = lib.nn.Conv2d(2, 4, 3)
    prune.ln_structured(c, "weight", amount=2, n=2, dim=0)
    prune.ln_structured(c, "weight", amount=1, n=1, dim=1)
    m = lib.nn.Linear(5, 4)
    prune.l1_unstructured(m, "weight", 0.3)
    prune.random_unstructured(m, "weight", 0.3)
    prune.l1_unstructured(m, "bias", 2)
    container = [h for h in m._forward_pre_hooks.values() if h._tensor_name == "weight"][0]
    return c.weight_mask, m.weight_mask, m.bias_mask, len(container), [type(x).__name__ for x in container]


def _global_custom_identity(lib):
    prune = _prune(lib)
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Linear(4, 2))
    prune.global_unstructured([(net[0], "weight"), (net[1], "weight")], pruning_method=prune.L1Unstructured,
                              amount=0.4)
    m = lib.nn.Linear(2, 2)
    prune.custom_from_mask(m, "bias", lib.tensor([0, 1]))
    prune.identity(m, "weight")
    direct = prune.L1Unstructured(0.5).prune(lib.tensor([[1.0, -3.0], [0.5, 2.0]]))
    return net[0].weight_mask, net[1].weight_mask, m.bias_mask, m.weight_mask, m.bias, direct


@pytest.mark.parametrize("program", [_linear_l1, _random, _structured_and_iterative, _global_custom_identity])
def test_pruning_as_torch(program):
    both(program)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: _prune(lib).l1_unstructured(lib.nn.Linear(2, 2), "weight", amount=1.5),
        lambda lib: _prune(lib).l1_unstructured(lib.nn.Linear(2, 2), "weight", amount=10),
        lambda lib: _prune(lib).l1_unstructured(lib.nn.Linear(2, 2), "weight", amount="a"),
        lambda lib: _prune(lib).random_structured(lib.nn.Linear(2, 2), "bias", 1, dim=0),
        lambda lib: _prune(lib).random_structured(lib.nn.Linear(2, 2), "weight", 1, dim=2),
        lambda lib: _prune(lib).remove(lib.nn.Linear(2, 2), "weight").__class__,
        lambda lib: _prune(lib).global_unstructured([(lib.nn.Linear(2, 2), "weight")], _prune(lib).L1Unstructured,
                                                    importance_scores=[], amount=1),
    ],
)
def test_pruning_errors(program):
    both(program)


def test_runs_as_torch_module():
    """``import torch.nn.utils.prune`` under ``python -m dyngrad`` reaches this module."""
    import subprocess
    import sys

    code = "import torch.nn.utils.prune as p; print(p.__name__, p.is_pruned(torch.nn.Linear(1, 1)))"
    run = subprocess.run([sys.executable, "-m", "dyngrad", "-c", "import torch\n" + code], capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["dyngrad.nn.utils.prune", "False"]
    assert dyngrad.nn.utils.prune.__name__ == "dyngrad.nn.utils.prune"
