"""torch._segment_reduce beyond the op table's random draws: its error texts, the double backward that
raises, and the kernel's choices at exact ties and zeros (each compared with torch by ``both``)."""

from __future__ import annotations

import pytest

from conftest import both

_CALLS = {
    "unsafe_sum_mismatch": (("sum",), dict(lengths=[3, 2])),
    "no_lengths_nor_offsets": (("sum",), {}),
    "unknown_reduce": (("foo",), dict(lengths=[3, 3])),
    "lengths_more_dims_than_data": (("sum",), dict(lengths=[[3, 3]])),
    "offsets_not_from_zero": (("max",), dict(offsets=[1, 3, 4])),
    "unsafe_short_lengths_mean": (("mean",), dict(lengths=[3, 2], unsafe=True)),
    "empty_segments_defaults_max": (("max",), dict(lengths=[0, 6, 0])),
    "empty_segments_defaults_min": (("min",), dict(lengths=[0, 6, 0])),
    "empty_segments_defaults_mean": (("mean",), dict(lengths=[0, 6, 0])),
    "empty_segments_defaults_prod": (("prod",), dict(lengths=[0, 6, 0])),
    "empty_segments_initial_mean": (("mean",), dict(lengths=[0, 6, 0], initial=2)),
}


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_calls_and_errors(name):
    args, kw = _CALLS[name]

    def program(lib):
        d = lib.tensor([1., 3., 3., 2., 0., 5.], dtype=lib.float64, requires_grad=True)
        kw2 = {k: (lib.tensor(v) if isinstance(v, list) else v) for k, v in kw.items()}
        return lib._segment_reduce(d, *args, **kw2)
    both(program)


def test_dtype_errors():
    both(lambda lib: lib._segment_reduce(lib.arange(6), "sum", lengths=lib.tensor([3, 3])))
    both(lambda lib: lib._segment_reduce(lib.ones(6), "sum", lengths=lib.tensor([3., 3.])))


@pytest.mark.parametrize("reduce", ["max", "min", "prod", "mean", "sum"])
@pytest.mark.parametrize("initial", [None, 2, 3])
def test_gradient_at_ties_and_zeros(reduce, initial):
    # ties of the max/min (a positive and a negative output gradient: aten divides only the positive one),
    # zeros in a product (one zero, two zeros), an empty segment
    def program(lib):
        d = lib.tensor([3., 3., 1., 0., 2., 0., 0., 4., 3., 3.], dtype=lib.float64, requires_grad=True)
        out = lib._segment_reduce(d, reduce, lengths=lib.tensor([3, 2, 0, 3, 2]), initial=initial)
        g = lib.tensor([2., -3., 5., 7., -1.], dtype=lib.float64)
        return out, lib.autograd.grad(out, d, g)[0]
    both(program)


def test_double_backward_raises():
    def program(lib):
        d = lib.tensor([1., 3., 3., 2.], dtype=lib.float64, requires_grad=True)
        out = lib._segment_reduce(d, "prod", lengths=lib.tensor([1, 3]))
        (g,) = lib.autograd.grad(out.sum(), d, create_graph=True)
        return lib.autograd.grad(g.sum(), d)
    both(program)
