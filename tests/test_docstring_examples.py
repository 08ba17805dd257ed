"""The examples in public docstrings run, and print the same under dyngrad and under PyTorch.

Each example is written for ``torch`` (the reader's ``import dyngrad as torch``); doctest runs it
twice, once with ``torch`` bound to dyngrad and once to PyTorch 2.13, and both runs must print the
output written in the docstring. So a docstring example can neither rot nor drift from torch.
"""

from __future__ import annotations

import doctest

import pytest
import torch

import dyngrad
import dyngrad.optim as optim
import dyngrad.viz

DOCUMENTED = {
    f"optim.{name}": getattr(optim, name)
    for name in ("Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "Rprop",
                 "ASGD", "LBFGS")
}


def _examples(obj) -> doctest.DocTest:
    test = doctest.DocTestParser().get_doctest(obj.__doc__ or "", {}, obj.__qualname__, None, 0)
    assert test.examples, f"{obj.__qualname__} has no example"
    return test


@pytest.mark.parametrize("library", ["dyngrad", "torch"])
@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_docstring_example(name, library):
    test = _examples(DOCUMENTED[name])
    test.globs = {"torch": dyngrad if library == "dyngrad" else torch}
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)


# Tools torch does not have: their examples run on dyngrad alone, with the output written in them.
DYNGRAD_ONLY = {f"viz.{name}": getattr(dyngrad.viz, name) for name in (
    "tree", "to_dot", "draw", "Graph", "record_backward", "why_no_grad", "graph_memory", "GrowthMonitor")}


@pytest.mark.filterwarnings("ignore::dyngrad.viz.GraphGrowthWarning")
@pytest.mark.parametrize("name", sorted(DYNGRAD_ONLY))
def test_dyngrad_only_docstring_example(name):
    obj = DYNGRAD_ONLY[name]
    test = _examples(obj)
    test.globs = {"dyngrad": dyngrad, "viz": dyngrad.viz}
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)


SCHEDULERS = {f"lr_scheduler.{name}": getattr(optim.lr_scheduler, name) for name in (
    "LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ExponentialLR", "ConstantLR", "LinearLR",
    "PolynomialLR", "CosineAnnealingLR", "SequentialLR", "ChainedScheduler", "CyclicLR", "CosineAnnealingWarmRestarts",
    "OneCycleLR", "ReduceLROnPlateau")}


@pytest.mark.parametrize("name", sorted(DOCUMENTED) + sorted(SCHEDULERS))
def test_docstring_documents_every_argument(name):
    """Each argument of the constructor is named in the Args section (a flag may share a line with others)."""
    import inspect

    cls = {**DOCUMENTED, **SCHEDULERS}[name]
    args = cls.__doc__.split("Args:")[1].split("Raises:")[0]
    documented = {line.split()[0].rstrip(":,") for line in args.splitlines() if line.startswith(" " * 8) and
                  not line.startswith(" " * 9)}
    documented |= {word.rstrip(":,") for line in args.splitlines() if ", " in line.split(":")[0]
                   for word in line.split(":")[0].split()}
    for param in list(inspect.signature(cls.__init__).parameters)[1:]:
        assert param in documented, f"{name}: argument {param!r} is not documented"
