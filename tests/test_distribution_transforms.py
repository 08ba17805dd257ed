"""dyngrad.distributions.transforms, constraints and biject_to/transform_to against torch, in float64:
each transform's values, inverse, log_abs_det_jacobian and their gradients (w.r.t. the input and the
transform's parameters), shapes, reprs, domains, signs, caching and equality; each constraint's checks; the
transforms biject_to and transform_to pick for each constraint and their values."""

from __future__ import annotations

import re

import numpy as np
import pytest

import dyngrad
from conftest import to_numpy, torch

TOL = dict(rtol=1e-9, atol=1e-10)


def T(lib):  # noqa: N802 - torch.distributions.transforms, as programs spell it
    return lib.distributions.transforms


def C(lib):  # noqa: N802
    return lib.distributions.constraints


def t64(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.float64))


def _leaf(lib, values):
    return t64(lib, values).requires_grad_()


X3 = [0.3, -1.2, 2.0]
X23 = [[0.3, -1.2, 2.0], [0.5, 0.1, -0.7]]
POS3 = [0.3, 1.2, 2.0]
M33 = [[0.3, -0.2, 0.1], [0.5, 0.1, -0.4], [-0.3, 0.2, 0.2]]

# name -> (make(lib, *param_tensors), params, x)
TRANSFORMS = {
    "exp": (lambda lib: T(lib).ExpTransform(), [], X23),
    "exp_inv": (lambda lib: T(lib).ExpTransform().inv, [], POS3),
    "power": (lambda lib, e: T(lib).PowerTransform(e), [[0.5, -1.5, 2.0]], POS3),
    "power_scalar": (lambda lib, e: T(lib).PowerTransform(e), [-1.0], POS3),
    "sigmoid": (lambda lib: T(lib).SigmoidTransform(), [], X23),
    "sigmoid_inv": (lambda lib: T(lib).SigmoidTransform().inv, [], [0.2, 0.5, 0.9]),
    "tanh": (lambda lib: T(lib).TanhTransform(), [], X23),
    "softplus": (lambda lib: T(lib).SoftplusTransform(), [], X23),
    "abs": (lambda lib: T(lib).AbsTransform(), [], X3),
    "affine": (lambda lib, m, s: T(lib).AffineTransform(m, s), [[0.5, -1.0, 2.0], [1.5, -0.7, 2.0]], X23),
    "affine_numbers": (lambda lib: T(lib).AffineTransform(1.0, -2.0), [], X23),
    "affine_event": (lambda lib, m, s: T(lib).AffineTransform(m, s, event_dim=1), [[0.5, -1.0, 2.0],
                                                                                  [1.5, -0.7, 2.0]], X23),
    "softmax": (lambda lib: T(lib).SoftmaxTransform(), [], X23),
    "stick_breaking": (lambda lib: T(lib).StickBreakingTransform(), [], X23),
    "stick_breaking_inv": (lambda lib: T(lib).StickBreakingTransform().inv, [], [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]]),
    "lower_cholesky": (lambda lib: T(lib).LowerCholeskyTransform(), [], [M33, M33]),
    "positive_definite": (lambda lib: T(lib).PositiveDefiniteTransform(), [], [M33]),
    "corr_cholesky": (lambda lib: T(lib).CorrCholeskyTransform(), [], X23),
    "corr_cholesky_6": (lambda lib: T(lib).CorrCholeskyTransform(), [], [0.3, -1.2, 2.0, 0.5, 0.1, -0.7]),
    "compose": (lambda lib, s: T(lib).ComposeTransform([T(lib).ExpTransform(), T(lib).AffineTransform(1.0, s)]),
                [[1.5, -0.7, 2.0]], X23),
    "compose_stick": (lambda lib: T(lib).ComposeTransform([T(lib).AffineTransform(0.5, 2.0),
                                                          T(lib).StickBreakingTransform()]), [], X23),
    "compose_empty": (lambda lib: T(lib).ComposeTransform([]), [], X23),
    "compose_inv": (lambda lib: T(lib).ComposeTransform([T(lib).ExpTransform(), T(lib).AffineTransform(1.0, 2.0)]).inv,
                    [], [[1.5, 3.2, 2.0]]),
    "identity": (lambda lib: T(lib).identity_transform, [], X3),
    "independent": (lambda lib: T(lib).IndependentTransform(T(lib).ExpTransform(), 1), [], X23),
    "independent_2": (lambda lib: T(lib).IndependentTransform(T(lib).SigmoidTransform(), 2), [], X23),
    "reshape": (lambda lib: T(lib).ReshapeTransform((2, 3), (3, 2)), [], X23),
    "cat": (lambda lib: T(lib).CatTransform([T(lib).ExpTransform(), T(lib).identity_transform], dim=1,
                                            lengths=[2, 1]), [], X23),
    "cat_dim0": (lambda lib: T(lib).CatTransform([T(lib).ExpTransform(), T(lib).SigmoidTransform()], dim=0), [], X23),
    "stack": (lambda lib: T(lib).StackTransform([T(lib).ExpTransform(), T(lib).SigmoidTransform()], dim=0), [], X23),
    "stack_dim1": (lambda lib: T(lib).StackTransform([T(lib).ExpTransform(), T(lib).TanhTransform(),
                                                      T(lib).AffineTransform(0.5, 3.0)], dim=1), [], X23),
    "cdf": (lambda lib, m: T(lib).CumulativeDistributionTransform(lib.distributions.Normal(m, 2.0)),
            [[0.5, -1.0, 2.0]], X23),
}


def _run_both(fn_d, fn_t):
    try:
        rt = fn_t()
    except Exception as e:  # noqa: BLE001 - torch's error is the expectation
        with pytest.raises(Exception) as info:  # noqa: PT011 - compared by name and text
            fn_d()
        assert type(info.value).__name__ == type(e).__name__
        assert re.sub(r"dyngrad\.", "torch.", str(info.value)) == str(e)
        return None, None
    return fn_d(), rt


def _close(d, t, what):
    if isinstance(t, torch.Tensor):
        assert isinstance(d, dyngrad.Tensor), what
        assert tuple(d.shape) == tuple(t.shape), f"{what}: {tuple(d.shape)} vs {tuple(t.shape)}"
        assert str(d.dtype) == str(t.dtype), what
        np.testing.assert_allclose(to_numpy(d), to_numpy(t), equal_nan=True, err_msg=what, **TOL)
    else:
        assert d == t, f"{what}: {d!r} vs {t!r}"


def _grads(d_out, t_out, d_leaves, t_leaves, what):
    if not t_out.requires_grad:
        assert not d_out.requires_grad, what
        return
    w = np.random.default_rng(1).standard_normal(tuple(t_out.shape))
    dg, tg = _run_both(lambda: dyngrad.autograd.grad(d_out, d_leaves, dyngrad.tensor(w), allow_unused=True),
                       lambda: torch.autograd.grad(t_out, t_leaves, torch.tensor(w), allow_unused=True))
    if tg is None:
        return
    for i, (a, b) in enumerate(zip(dg, tg)):
        if b is None:
            assert a is None or not np.any(to_numpy(a)), f"{what}: grad {i}"
        else:
            _close(a, b, f"{what}: grad {i}")


def _build(lib, name):
    make, params, x = TRANSFORMS[name]
    leaves = [_leaf(lib, p) for p in params]
    xs = _leaf(lib, x)
    return make(lib, *leaves), leaves + [xs], xs


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_matches_torch(name) -> None:
    d, d_leaves, dx = _build(dyngrad, name)
    t, t_leaves, tx = _build(torch, name)
    assert repr(d).replace("dyngrad", "torch") == repr(t)
    for attr in ("bijective", "sign", "event_dim"):
        a, b = _run_both(lambda attr=attr: getattr(d, attr), lambda attr=attr: getattr(t, attr))
        _close(a, b, attr)
    for side in ("domain", "codomain"):
        a, b = _run_both(lambda side=side: repr(getattr(d, side)), lambda side=side: repr(getattr(t, side)))
        assert a == b, side
        if b is not None:
            assert getattr(d, side).event_dim == getattr(t, side).event_dim
    dy, ty = _run_both(lambda: d(dx), lambda: t(tx))
    if ty is None:
        return
    _close(dy, ty, "forward")
    _grads(dy, ty, d_leaves, t_leaves, "forward")
    assert tuple(d.forward_shape(dx.shape)) == tuple(t.forward_shape(tx.shape)) == tuple(ty.shape)
    assert tuple(d.inverse_shape(dy.shape)) == tuple(t.inverse_shape(ty.shape))
    # the inverse on a fresh tensor (no cache), and the Jacobian
    dy2, ty2 = dy.detach().requires_grad_(), ty.detach().requires_grad_()
    dxi, txi = _run_both(lambda: d.inv(dy2), lambda: t.inv(ty2))
    if txi is not None:
        _close(dxi, txi, "inverse")
        _grads(dxi, txi, d_leaves + [dy2], t_leaves + [ty2], "inverse")
    dj, tj = _run_both(lambda: d.log_abs_det_jacobian(dx, dy), lambda: t.log_abs_det_jacobian(tx, ty))
    if tj is not None:
        _close(dj, tj, "log_abs_det_jacobian")
        _grads(dj, tj, d_leaves, t_leaves, "log_abs_det_jacobian")
    dij, tij = _run_both(lambda: d.inv.log_abs_det_jacobian(dy, dx), lambda: t.inv.log_abs_det_jacobian(ty, tx))
    if tij is not None:
        _close(dij, tij, "inverse log_abs_det_jacobian")


@pytest.mark.parametrize("lib", [dyngrad, torch], ids=["dyngrad", "torch"])
def test_cache_inverse_and_equality(lib) -> None:
    """A cached transform returns the very input it saw; inv.inv is the transform; equality as torch's."""
    exp = T(lib).ExpTransform(cache_size=1)
    x = lib.tensor([0.5, 1.0])
    y = exp(x)
    assert exp.inv(y) is x
    assert exp(x) is y
    assert exp.inv.inv is exp
    assert T(lib).ExpTransform() == T(lib).ExpTransform()
    assert T(lib).AffineTransform(1.0, 2.0) == T(lib).AffineTransform(1.0, 2.0)
    assert T(lib).AffineTransform(1.0, 2.0) != T(lib).AffineTransform(1.0, 3.0)
    assert T(lib).AffineTransform(lib.tensor([1.0]), 2.0) == T(lib).AffineTransform(1.0, 2.0)
    assert T(lib).PowerTransform(lib.tensor(2.0)) == T(lib).PowerTransform(lib.tensor(2.0))
    assert T(lib).ExpTransform().inv == T(lib).ExpTransform().inv
    assert T(lib).ComposeTransform([T(lib).ExpTransform()]) == T(lib).ComposeTransform([T(lib).ExpTransform()])
    assert T(lib).ExpTransform() != T(lib).SigmoidTransform()
    assert T(lib).ExpTransform().with_cache(1)._cache_size == 1
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T(lib).ExpTransform(cache_size=2)
    with pytest.raises(NotImplementedError):
        T(lib).AbsTransform().sign  # noqa: B018


def _plain_init(lib):
    """An __init__ of a user's transform (so with_cache cannot rebuild it)."""
    return lambda self: T(lib).Transform.__init__(self)


SHAPE_ERRORS = {
    "reshape_numel": lambda lib: T(lib).ReshapeTransform((2, 3), (4,)),
    "reshape_forward": lambda lib: T(lib).ReshapeTransform((2, 3), (6,)).forward_shape((3, 2)),
    "reshape_too_few": lambda lib: T(lib).ReshapeTransform((2, 3), (6,)).inverse_shape(()),
    "corr_not_triangular": lambda lib: T(lib).CorrCholeskyTransform().forward_shape((4,)),
    "corr_not_square": lambda lib: T(lib).CorrCholeskyTransform().inverse_shape((2, 3)),
    "stick_scalar": lambda lib: T(lib).StickBreakingTransform().forward_shape(()),
    "event_dim": lambda lib: T(lib).ComposeTransform([T(lib).StickBreakingTransform(),
                                                      T(lib).CorrCholeskyTransform()]).event_dim,
    "cat_size": lambda lib: T(lib).CatTransform([T(lib).ExpTransform()], dim=0)(lib.ones(2)),
    "stack_size": lambda lib: T(lib).StackTransform([T(lib).ExpTransform()], dim=0)(lib.ones(2)),
    "cat_dim": lambda lib: T(lib).CatTransform([T(lib).ExpTransform()], dim=3)(lib.ones(1)),
    "independent_dims": lambda lib: T(lib).IndependentTransform(T(lib).ExpTransform(), 2)(lib.ones(2)),
    "with_cache": lambda lib: type("Mine", (T(lib).Transform,), {"__init__": _plain_init(lib)})().with_cache(1),
}


@pytest.mark.parametrize("name", sorted(SHAPE_ERRORS))
def test_transform_errors_match_torch(name) -> None:
    with pytest.raises(Exception) as t_info:  # noqa: PT011 - torch's error is the expectation
        SHAPE_ERRORS[name](torch)
    with pytest.raises(Exception) as d_info:  # noqa: PT011
        SHAPE_ERRORS[name](dyngrad)
    assert type(d_info.value).__name__ == type(t_info.value).__name__
    assert re.sub(r"dyngrad\.", "torch.", str(d_info.value)) == str(t_info.value)


# ---------------------------------------------------------------------- constraints
CONSTRAINTS = {
    "real": (lambda lib: C(lib).real, [0.5, float("nan"), float("inf")]),
    "positive": (lambda lib: C(lib).positive, [0.5, 0.0, -1.0]),
    "nonnegative": (lambda lib: C(lib).nonnegative, [0.5, 0.0, -1.0]),
    "greater_than": (lambda lib: C(lib).greater_than(1.0), [0.5, 1.0, 2.0]),
    "greater_than_eq": (lambda lib: C(lib).greater_than_eq(1.0), [0.5, 1.0, 2.0]),
    "less_than": (lambda lib: C(lib).less_than(1.0), [0.5, 1.0, 2.0]),
    "interval": (lambda lib: C(lib).interval(-1.0, 1.0), [0.5, 1.0, 2.0]),
    "half_open_interval": (lambda lib: C(lib).half_open_interval(-1.0, 1.0), [-1.0, 1.0, 0.0]),
    "unit_interval": (lambda lib: C(lib).unit_interval, [0.0, 1.0, 1.5]),
    "boolean": (lambda lib: C(lib).boolean, [0.0, 1.0, 0.5]),
    "nonnegative_integer": (lambda lib: C(lib).nonnegative_integer, [0.0, 2.0, 1.5]),
    "positive_integer": (lambda lib: C(lib).positive_integer, [0.0, 2.0, 3.0]),
    "integer_interval": (lambda lib: C(lib).integer_interval(0, 3), [0.0, 4.0, 2.0]),
    "integer_less_than": (lambda lib: C(lib)._IntegerLessThan(2), [0.0, 4.0, 2.0]),
    "simplex": (lambda lib: C(lib).simplex, [[0.2, 0.3, 0.5], [0.2, 0.3, 0.6]]),
    "one_hot": (lambda lib: C(lib).one_hot, [[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]),
    "multinomial": (lambda lib: C(lib).multinomial(4), [[1.0, 2.0, 1.0], [3.0, 2.0, 0.0]]),
    "real_vector": (lambda lib: C(lib).real_vector, [[0.2, float("nan")], [0.1, 0.2]]),
    "independent": (lambda lib: C(lib).independent(C(lib).positive, 1), [[0.2, 1.0], [0.1, -0.2]]),
    "lower_triangular": (lambda lib: C(lib).lower_triangular, [[[1.0, 0.0], [2.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]]),
    "lower_cholesky": (lambda lib: C(lib).lower_cholesky, [[[1.0, 0.0], [2.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]]]),
    "corr_cholesky": (lambda lib: C(lib).corr_cholesky, [[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.9]]]),
    "square": (lambda lib: C(lib).square, [[[1.0, 0.0], [2.0, 1.0]]]),
    "symmetric": (lambda lib: C(lib).symmetric, [[[1.0, 2.0], [2.0, 1.0]], [[1.0, 0.0], [2.0, 1.0]]]),
    "positive_definite": (lambda lib: C(lib).positive_definite, [[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]]),
    "positive_semidefinite": (lambda lib: C(lib).positive_semidefinite, [[[1.0, 1.0], [1.0, 1.0]],
                                                                          [[1.0, 2.0], [2.0, 1.0]]]),
    "cat": (lambda lib: C(lib).cat([C(lib).positive, C(lib).real], 0, [2, 1]), [0.5, -1.0, -2.0]),
    "stack": (lambda lib: C(lib).stack([C(lib).positive, C(lib).unit_interval], dim=1), [[0.5, 0.5], [-1.0, 2.0]]),
    "mixture": (lambda lib: C(lib).MixtureSameFamilyConstraint(C(lib).positive), [0.5, -1.0]),
}


@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
def test_constraint_matches_torch(name) -> None:
    make, values = CONSTRAINTS[name]
    d, t = make(dyngrad), make(torch)
    assert repr(d) == repr(t)
    assert d.is_discrete == t.is_discrete and d.event_dim == t.event_dim
    dc, tc = _run_both(lambda: d.check(t64(dyngrad, values)), lambda: t.check(t64(torch, values)))
    if tc is not None:
        _close(dc, tc, "check")


def test_dependent_constraints_match_torch() -> None:
    for lib_d, lib_t in ((dyngrad, torch),):
        for lib in (lib_d, lib_t):
            assert C(lib).is_dependent(C(lib).dependent)
            assert C(lib).is_dependent(lib.distributions.Binomial.support)
            assert not C(lib).is_dependent(C(lib).real)
            assert C(lib).dependent(is_discrete=True, event_dim=1).event_dim == 1
        for attr in ("is_discrete", "event_dim"):
            with pytest.raises(NotImplementedError) as t_info:
                getattr(C(lib_t).dependent, attr)
            with pytest.raises(NotImplementedError) as d_info:
                getattr(C(lib_d).dependent, attr)
            assert str(d_info.value) == str(t_info.value)
        with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
            C(lib_d).dependent.check(lib_d.ones(1))


# ---------------------------------------------------------------------- biject_to / transform_to
REGISTRY_CASES = {
    "real": (lambda lib: C(lib).real, X23),
    "real_vector": (lambda lib: C(lib).real_vector, X23),
    "positive": (lambda lib: C(lib).positive, X23),
    "nonnegative": (lambda lib: C(lib).nonnegative, X23),
    "greater_than": (lambda lib: C(lib).greater_than(2.0), X23),
    "greater_than_eq_tensor": (lambda lib: C(lib).greater_than_eq(t64(lib, [1.0, 2.0, 3.0])), X23),
    "less_than": (lambda lib: C(lib).less_than(-1.0), X23),
    "unit_interval": (lambda lib: C(lib).unit_interval, X23),
    "interval": (lambda lib: C(lib).interval(-1.0, 2.0), X23),
    "half_open_interval": (lambda lib: C(lib).half_open_interval(0.0, 1.0), X23),
    "simplex": (lambda lib: C(lib).simplex, X23),
    "lower_cholesky": (lambda lib: C(lib).lower_cholesky, [M33]),
    "positive_definite": (lambda lib: C(lib).positive_definite, [M33]),
    "positive_semidefinite": (lambda lib: C(lib).positive_semidefinite, [M33]),
    "corr_cholesky": (lambda lib: C(lib).corr_cholesky, X23),
    "independent": (lambda lib: C(lib).independent(C(lib).positive, 1), X23),
    "cat": (lambda lib: C(lib).cat([C(lib).positive, C(lib).real], 1, [2, 1]), X23),
    "stack": (lambda lib: C(lib).stack([C(lib).positive, C(lib).unit_interval], dim=0), X23),
    "boolean": (lambda lib: C(lib).boolean, X3),
    "dependent": (lambda lib: C(lib).dependent, X3),
}


@pytest.mark.parametrize("which", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", sorted(REGISTRY_CASES))
def test_registry_matches_torch(which, name) -> None:
    make, x = REGISTRY_CASES[name]
    d_t, t_t = _run_both(lambda: getattr(dyngrad.distributions, which)(make(dyngrad)),
                         lambda: getattr(torch.distributions, which)(make(torch)))
    if t_t is None:
        return
    assert repr(d_t) == repr(t_t)
    dx, tx = _leaf(dyngrad, x), _leaf(torch, x)
    dy, ty = d_t(dx), t_t(tx)
    _close(dy, ty, "value")
    _grads(dy, ty, [dx], [tx], "value")
    assert bool(make(dyngrad).check(dy).all())


def test_registry_register() -> None:
    """register: a new constraint kind, by class or instance; anything else raises torch's TypeError."""
    for lib in (dyngrad, torch):
        registry = lib.distributions.constraint_registry.ConstraintRegistry()
        registry.register(C(lib).positive, lambda c, lib=lib: T(lib).ExpTransform())
        assert isinstance(registry(C(lib).positive), T(lib).ExpTransform)
        with pytest.raises(NotImplementedError, match="Cannot transform _Real constraints"):
            registry(C(lib).real)
    with pytest.raises(TypeError) as t_info:
        torch.distributions.constraint_registry.ConstraintRegistry().register(3, lambda c: None)
    with pytest.raises(TypeError) as d_info:
        dyngrad.distributions.constraint_registry.ConstraintRegistry().register(3, lambda c: None)
    assert str(d_info.value) == str(t_info.value)
