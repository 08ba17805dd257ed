"""Lazy modules and UninitializedParameter/UninitializedBuffer against torch: reprs before and after the first
forward, the class they become, inferred shapes, outputs with the same weights, state_dict before
initialization, and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch  # noqa: F401 - the oracle, imported plainly

from conftest import both

MODULES = {
    "LazyLinear": (lambda lib: lib.nn.LazyLinear(3), (2, 5)),
    "LazyLinear_no_bias": (lambda lib: lib.nn.LazyLinear(3, bias=False), (4, 2, 5)),
    "LazyConv1d": (lambda lib: lib.nn.LazyConv1d(4, 3, padding=1), (2, 3, 7)),
    "LazyConv1d_unbatched": (lambda lib: lib.nn.LazyConv1d(4, 3), (3, 7)),
    "LazyConv2d": (lambda lib: lib.nn.LazyConv2d(4, 3, stride=2, groups=2), (1, 2, 6, 6)),
    "LazyConvTranspose1d": (lambda lib: lib.nn.LazyConvTranspose1d(4, 3), (2, 3, 5)),
    "LazyConvTranspose2d": (lambda lib: lib.nn.LazyConvTranspose2d(4, 3, stride=2), (1, 2, 4, 4)),
    "LazyBatchNorm1d": (lambda lib: lib.nn.LazyBatchNorm1d(), (6, 3)),
    "LazyBatchNorm2d": (lambda lib: lib.nn.LazyBatchNorm2d(momentum=0.3), (2, 3, 4, 4)),
    "LazyBatchNorm1d_no_affine": (lambda lib: lib.nn.LazyBatchNorm1d(affine=False), (6, 3, 2)),
    "LazyConv3d": (lambda lib: lib.nn.LazyConv3d(4, 3, padding=1), (2, 3, 4, 5, 4)),
    "LazyConv3d_unbatched": (lambda lib: lib.nn.LazyConv3d(2, (1, 2, 3)), (3, 3, 4, 5)),
    "LazyConvTranspose3d": (lambda lib: lib.nn.LazyConvTranspose3d(4, 2, stride=2), (1, 2, 3, 3, 2)),
    "LazyBatchNorm3d": (lambda lib: lib.nn.LazyBatchNorm3d(momentum=0.2), (2, 3, 2, 3, 2)),
    "LazyBatchNorm3d_no_stats": (lambda lib: lib.nn.LazyBatchNorm3d(track_running_stats=False), (2, 3, 2, 2, 2)),
    "LazyInstanceNorm1d": (lambda lib: lib.nn.LazyInstanceNorm1d(), (2, 3, 5)),
    "LazyInstanceNorm2d": (lambda lib: lib.nn.LazyInstanceNorm2d(bias=False), (2, 3, 4, 4)),
    "LazyInstanceNorm3d": (lambda lib: lib.nn.LazyInstanceNorm3d(affine=False), (2, 3, 2, 3, 2)),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_lazy_module_matches_torch(name):
    make, shape = MODULES[name]

    def program(lib):
        m = make(lib).double()
        before = (repr(m), [(k, repr(v)) for k, v in m.named_parameters()], m.has_uninitialized_params())
        x = lib.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
        m(x)  # the first call infers the shapes (and draws torch's/dyngrad's own random init)
        rng = np.random.default_rng(1)
        with lib.no_grad():  # same weights in both libraries from here
            for p in m.parameters():
                p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
        out = m(x)
        grads = lib.autograd.grad(out.sum(), [x, *m.parameters()])
        after = (type(m).__name__, repr(m), [(k, tuple(v.shape), type(v).__name__) for k, v in m.named_parameters()],
                 [(k, tuple(v.shape)) for k, v in m.named_buffers()])
        return before, after, out, grads

    both(program)


def test_uninitialized_tensors():
    def program(lib):
        p = lib.nn.parameter.UninitializedParameter()
        b = lib.nn.parameter.UninitializedBuffer()
        state = lib.nn.LazyLinear(3).state_dict()
        return (repr(p), repr(b), isinstance(p, lib.nn.Parameter), p.requires_grad,
                [(k, repr(v)) for k, v in state.items()])

    both(program)


def test_materialize():
    def program(lib):
        p = lib.nn.parameter.UninitializedParameter()
        p.materialize((2, 3))
        return type(p).__name__, tuple(p.shape), p.requires_grad

    both(program)


ERRORS = {
    "shape_before_forward": lambda lib: lib.nn.LazyLinear(3).weight.shape,
    "conv_rank": lambda lib: lib.nn.LazyConv2d(4, 3)(lib.ones(5)),
    "conv_groups": lambda lib: lib.nn.LazyConv2d(4, 3, groups=2)(lib.ones(1, 3, 5, 5)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_lazy_errors(name):
    both(lambda lib: ERRORS[name](lib) and None)
