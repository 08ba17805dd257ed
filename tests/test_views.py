"""Views against torch: shared memory and version counters, in-place ops through views, and torch's refusals.

Each test runs the same code on torch and on dyngrad and compares values, grad_fn names, gradients and
errors (type and exact text).
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from conftest import assert_same_tensor, same_error, torch

LIBS = [torch, dyngrad]


def _both(fn):
    """Run ``fn(lib)`` on torch and dyngrad; same error or results (a tuple of tensors / values) compared."""
    d, t = same_error(lambda: fn(dyngrad), lambda: fn(torch))
    if t is None:
        return None
    for dv, tv in zip(d, t):
        if isinstance(tv, torch.Tensor):
            assert_same_tensor(dv, tv)
        else:
            assert dv == tv
    return d, t


def _name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


VIEWS = {
    "select": lambda x: x[1],
    "slice": lambda x: x[:, 1:3],
    "step": lambda x: x[::2],
    "transpose": lambda x: x.t(),
    "permute": lambda x: x.permute(1, 0),
    "view": lambda x: x.view(12),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "diagonal": lambda x: x.diagonal(),
    "split": lambda x: x.split(2, 1)[1],
    "unbind": lambda x: x.unbind(1)[2],
    "movedim": lambda x: x.movedim(0, 1),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "scalar": lambda x: x[1, 2],
}


@pytest.mark.parametrize("view", VIEWS, ids=list(VIEWS))
def test_write_through_a_view_is_seen_by_the_base(view) -> None:
    def run(lib):
        x = lib.arange(12.0).reshape(3, 4)
        v = VIEWS[view](x)
        before = x._version
        with lib.no_grad():
            v.mul_(10)
        return x, v, x._version - before, v._version == x._version

    _both(run)


def test_a_view_shares_the_version_counter_and_saved_checks_see_it() -> None:
    def run(lib):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a * 2
        c = b[1:]
        y = b * b  # saves b, which is modified through its view c below
        c.add_(1)
        return (b._version, c._version, lambda: y.sum().backward())

    (d, t) = _both(lambda lib: run(lib)[:2])
    dy, ty = run(dyngrad)[2], run(torch)[2]
    same_error(dy, ty)


def test_setitem_and_views_under_no_grad_are_not_recorded() -> None:
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True)
        with lib.no_grad():
            x[0] = 5.0
            x[:, 1] = lib.tensor([7.0, 8.0])
            x[lib.tensor([1])] = 2.0
        return x, x.is_leaf, x._version

    _both(run)


@pytest.mark.parametrize(
    "case",
    [
        lambda lib, x: x[0].mul_(2),  # a view of a leaf
        lambda lib, x: x.t().add_(1),
        lambda lib, x: x.__setitem__(0, 1.0),  # setitem on a leaf takes a view first
        lambda lib, x: x.__setitem__(lib.tensor([0]), 1.0),
        lambda lib, x: x.masked_fill_(x > 0, 0.0),
    ],
    ids=["select", "transpose", "setitem", "setitem_advanced", "masked_fill_"],
)
def test_inplace_on_a_leaf_or_its_view_is_refused(case) -> None:
    def run(lib):
        x = lib.randn(2, 3, requires_grad=True) if lib is torch else dyngrad.ones(2, 3, requires_grad=True)
        case(lib, x)
        return ()

    _both(run)


@pytest.mark.parametrize(
    "case",
    [
        lambda y: y.split(2)[0].mul_(2),
        lambda y: y.split([1, 2])[1].add_(1),
        lambda y: y.chunk(3)[2].zero_(),
        lambda y: y.unbind(0)[1].mul_(2),
        lambda y: y.unbind(0)[0].__setitem__(0, 1.0),  # a view of a multi-output view
        lambda y: y.unbind(1)[0][1:].mul_(3),
    ],
    ids=["split", "split_with_sizes", "chunk", "unbind", "unbind_setitem", "unbind_slice"],
)
def test_inplace_on_outputs_of_multi_output_view_ops_is_refused(case) -> None:
    def run(lib):
        x = lib.ones(3, 2, requires_grad=True)
        case(x * 1)
        return ()

    _both(run)


def test_multi_output_views_may_be_modified_under_no_grad() -> None:
    def run(lib):
        y = lib.ones(3, 2, requires_grad=True) * 1
        with lib.no_grad():
            parts = y.split(1)
            parts[1].mul_(5)
        return (y.detach(),)

    _both(run)


def test_a_view_made_under_no_grad_may_not_be_modified_in_grad_mode() -> None:
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        with lib.no_grad():
            v = y[1:]
        v.mul_(2)
        return ()

    _both(run)


def test_inplace_on_a_view_rebases_the_base_as_copyslices() -> None:
    def run(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        w = lib.tensor([0.5, -1.0], requires_grad=True)
        y = x * 1
        v = y[:, 1]
        v.mul_(w)
        names = (_name(y), y.grad_fn.name(), _name(v), [_name_of(n) for n, _ in y.grad_fn.next_functions])
        (y * lib.arange(6.0).reshape(2, 3)).sum().backward()
        return (y, v, x.grad, w.grad, names)

    _both(run)


def _name_of(node):
    return None if node is None else type(node).__name__


def test_setitem_gradients_and_names() -> None:
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        s = lib.tensor(3.0, requires_grad=True)
        y = x * 2
        y[1:3] = x[:2] ** 2  # CopySlices
        y[0] = s  # a 0-d value: fill
        z = x * 1
        z[lib.tensor([0, 0, 3])] = lib.tensor([1.0, 2.0, 3.0])  # IndexPutBackward0
        z[:] = z * 2  # the whole tensor: CopyBackwards on z itself
        out = (y * lib.arange(4.0)).sum() + (z**2).sum()
        gx, gs = lib.autograd.grad(out, (x, s), create_graph=True)
        (ggx,) = lib.autograd.grad(gx.sum(), x)
        return (y, z, gx, gs, ggx, _name(y), _name(z))

    _both(run)


def test_setitem_errors_and_casts() -> None:
    _both(lambda lib: (lib.zeros(2, 3).__setitem__((slice(None), 0), lib.ones(3)),))
    _both(lambda lib: (lib.zeros(3).__setitem__(lib.tensor([0, 1]), lib.ones(3)),))
    _both(lambda lib: (lib.zeros(3).__setitem__(lib.tensor([0, 1]), lib.ones(2, dtype=lib.float64) * 1),))

    def cast(lib):
        b = lib.zeros(4, dtype=lib.int64)
        b[1:3] = lib.tensor([1.7, 2.2])
        b[lib.tensor([3])] = 2.7
        c = lib.zeros(2, 3)
        c[:, 0] = lib.tensor([1.0, 2.0])
        c[0] = lib.tensor(5.0)
        c[..., -1] = 9
        return (b, c)

    _both(cast)


def test_view_positions_cover_strided_and_transposed_views() -> None:
    from dyngrad._ops.inplace import view_positions

    base = np.arange(24.0).reshape(2, 3, 4)
    for view in (base[1], base[:, ::2, 1:], base.transpose(2, 0, 1)[1:], np.diagonal(base, 0, 1, 2), base[0, 1, 2:3]):
        pos = view_positions(base, view)
        np.testing.assert_array_equal(base.reshape(-1)[pos], view)
    f = np.asfortranarray(base)
    pos = view_positions(f, f[:, 1])
    np.testing.assert_array_equal(f.reshape(-1)[pos], f[:, 1])


# In-place changes through views and on bases, with the gradients and second-order gradients they give.
SCENARIOS = {
    "iadd_row": lambda L, x, w: _do(x, lambda y: y.__setitem__(0, y[0].__iadd__(w))),
    "imul_column": lambda L, x, w: _do(x, lambda y: y[:, 1].mul_(w[:3])),
    "mask_assign": lambda L, x, w: _do(x, lambda y: y.__setitem__(y > 0.8, 0.0)),
    "index_iadd": lambda L, x, w: _do(x, lambda y: y.__setitem__(L.tensor([0, 2]), y[L.tensor([0, 2])] + w)),
    "through_transpose": lambda L, x, w: _do(x, lambda y: y.t().__setitem__(1, w[:3] * 2)),
    "view_of_view": lambda L, x, w: _do(x, lambda y: y[1:][:, ::2].mul_(w[:2])) * 1,
    "other_view_refreshed": lambda L, x, w: _reshaped_then_copy(x, w),
    "diagonal": lambda L, x, w: _do(x, lambda y: y.diagonal().mul_(w[:3])),
    "into_zeros": lambda L, x, w: _into_zeros(L, x, w),
    "ellipsis_and_scalar": lambda L, x, w: _do(x, lambda y: (y.__setitem__((Ellipsis, 2), 3.0), y.__setitem__((0, 0), w[0]))),
    "masked_and_index_ops_on_a_row": lambda L, x, w: _do(
        x, lambda y: (y[1].masked_fill_(y[1] > 0.8, 0.0), y[1].index_add_(0, L.tensor([0, 0]), w[:2]))),
    "base_modified_views_follow": lambda L, x, w: _base_modified(x, w),
    "block_assign": lambda L, x, w: _do(x, lambda y: y.__setitem__((slice(1, None), slice(1, None)), w[:3])),
}


def _do(x, change):
    y = x * 1
    change(y)
    return y


def _reshaped_then_copy(x, w):
    y = (x * 1).reshape(12)  # a view of the product; the copy below goes through another view of the same base
    y.view(3, 4)[1].copy_(w**2)
    return y


def _into_zeros(L, x, w):
    y = L.zeros(3, 4)
    y[1] = w
    y[:, 0] = x[:, 0] ** 2
    return y


def _base_modified(x, w):
    y = x * 2
    v, u = y[0], y[1:]
    y.mul_(w)
    return v.sum() * u


@pytest.mark.parametrize("name", SCENARIOS, ids=list(SCENARIOS))
def test_inplace_through_views_matches_torch_to_second_order(name) -> None:
    def run(lib):
        x = lib.from_numpy(np.arange(1.0, 13.0).reshape(3, 4) / 7).requires_grad_()
        w = lib.tensor([0.5, -1.5, 2.0, 0.25], dtype=lib.float64, requires_grad=True)
        out = SCENARIOS[name](lib, x, w)
        gx, gw = lib.autograd.grad((out**2).sum(), (x, w), create_graph=True, allow_unused=True)
        grads = [g for g in (gx, gw) if g is not None]
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), (x, w), allow_unused=True)
        zeros = [lib.zeros_like(t) for t in (x, w)]
        return (out, _name(out)) + tuple(g if g is not None else z for g, z in zip((gx, gw) + second, zeros * 2))

    _both(run)
