"""dyngrad.func against torch.func: every transform and composition on a table of functions, in float64.

Each case is a program ``program(lib)`` written once against a library module (torch or dyngrad) that
builds its data from fixed NumPy arrays and returns a pytree of tensors; both libraries run it and
the results must agree (values, shapes, dtypes), or both must raise the same error type and text.
The functions: an MLP loss through ``functional_call``, a per-sample loss, a PINN residual (second
derivatives of a network in its input), an ensemble through ``stack_module_state``, and an empirical
neural tangent kernel.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch.func

import dyngrad
import dyngrad.func
from conftest import assert_same_tensor, torch

RNG = np.random.default_rng(1234)
X = RNG.standard_normal((5, 4))
Y = RNG.standard_normal((5, 3))
V = RNG.standard_normal(4)
M = RNG.standard_normal((3, 4))
W1, B1 = RNG.standard_normal((6, 4)) * 0.5, RNG.standard_normal(6) * 0.1
W2, B2 = RNG.standard_normal((3, 6)) * 0.5, RNG.standard_normal(3) * 0.1
LABELS = np.array([0, 2, 1, 1, 0])
PTS = RNG.uniform(-1, 1, (6, 2))  # collocation points of the PINN
A3, B3 = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((4, 3))


def F(lib):
    return lib.func


def T(lib, a):
    return lib.tensor(a, dtype=lib.float64)


def mlp(lib):
    """A small tanh MLP 4-6-3 with fixed weights, the same in both libraries."""
    net = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.Tanh(), lib.nn.Linear(6, 3)).double()
    with lib.no_grad():
        for p, a in zip(net.parameters(), (W1, B1, W2, B2)):
            p.copy_(T(lib, a))
    return net


def params_of(lib, net):
    return {k: v.detach() for k, v in net.named_parameters()}


def mlp_loss(lib, net):
    def loss(params, x, y):
        out = F(lib).functional_call(net, params, (x,))
        return ((out - y) ** 2).mean()

    return loss


def per_sample_ce(lib, net):
    def loss(params, x, label):
        logits = F(lib).functional_call(net, params, (x.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(logits, label.unsqueeze(0))

    return loss


def pinn_net(lib):
    net = lib.nn.Sequential(lib.nn.Linear(2, 5), lib.nn.Tanh(), lib.nn.Linear(5, 1)).double()
    rng = np.random.default_rng(7)
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(T(lib, rng.standard_normal(tuple(p.shape)) * 0.7))
    return net


def pinn_residual(lib, net):
    """The residual of the Poisson equation u_xx + u_yy = f at a point: second derivatives of the network."""

    def u(p):
        return net(p.unsqueeze(0)).squeeze()

    def residual(p):
        h = F(lib).hessian(u)(p)
        return h[0, 0] + h[1, 1] - lib.sin(p[0]) * lib.cos(p[1])

    return residual


# ---------------------------------------------------------------------------------- programs
def _grad_simple(lib):
    x = T(lib, V)
    m = T(lib, M)
    return F(lib).grad(lambda v: (m @ v).sin().sum())(x)


def _grad_argnums_tuple(lib):
    x, m = T(lib, V), T(lib, M)
    return F(lib).grad(lambda a, b: (b @ a).tanh().pow(2).sum(), argnums=(0, 1))(x, m)


def _grad_negative_argnum(lib):
    x, m = T(lib, V), T(lib, M)
    return F(lib).grad(lambda a, b: (b @ a).exp().sum(), argnums=-1)(x, m)


def _grad_has_aux(lib):
    x = T(lib, V)
    g, aux = F(lib).grad(lambda v: (v.sin().sum(), {"norm": v.norm(), "sq": v * v}), has_aux=True)(x)
    return g, aux["norm"], aux["sq"]


def _grad_and_value(lib):
    x = T(lib, V)
    return F(lib).grad_and_value(lambda v: (v ** 3).sum())(x)


def _grad_and_value_aux(lib):
    x = T(lib, V)
    g, (value, aux) = F(lib).grad_and_value(lambda v: ((v ** 3).sum(), v.max()), has_aux=True)(x)
    return g, value, aux


def _grad_pytree_arg(lib):
    d = {"a": T(lib, V), "b": (T(lib, M), T(lib, V[:3]))}
    g = F(lib).grad(lambda p: (p["b"][0] @ p["a"] + p["b"][1]).pow(2).sum())(d)
    return g["a"], g["b"][0], g["b"][1]


def _grad_unused_input(lib):
    x, m = T(lib, V), T(lib, M)
    return F(lib).grad(lambda a, b: a.sum() * 2, argnums=(0, 1))(x, m)


def _grad_of_grad(lib):
    x = T(lib, 0.7)
    return F(lib).grad(F(lib).grad(lambda t: t.sin() * t ** 3))(x)


def _grad_mlp(lib):
    net = mlp(lib)
    g = F(lib).grad(mlp_loss(lib, net))(params_of(lib, net), T(lib, X), T(lib, Y))
    return [g[k] for k in sorted(g)]


def _per_sample_grads(lib):
    net = mlp(lib)
    f = F(lib).vmap(F(lib).grad(per_sample_ce(lib, net)), in_dims=(None, 0, 0))
    g = f(params_of(lib, net), T(lib, X), lib.tensor(LABELS))
    return [g[k] for k in sorted(g)]


def _per_sample_grads_chunked(lib):
    net = mlp(lib)
    f = F(lib).vmap(F(lib).grad(per_sample_ce(lib, net)), in_dims=(None, 0, 0), chunk_size=2)
    g = f(params_of(lib, net), T(lib, X), lib.tensor(LABELS))
    return [g[k] for k in sorted(g)]


def _vjp(lib):
    x = T(lib, V)
    m = T(lib, M)
    out, fn = F(lib).vjp(lambda v: (m @ v).tanh(), x)
    return out, fn(T(lib, Y[0]))


def _vjp_multi(lib):
    x, m = T(lib, V), T(lib, M)
    out, fn = F(lib).vjp(lambda a, b: ((b @ a).sin(), a.cos()), x, m)
    return out, fn((T(lib, Y[1]), T(lib, X[0])))


def _vjp_has_aux(lib):
    x = T(lib, V)
    out, fn, aux = F(lib).vjp(lambda v: (v.exp(), v.sum()), x, has_aux=True)
    return out, fn(T(lib, X[1])), aux


def _jvp(lib):
    x, t = T(lib, V), T(lib, X[0])
    m = T(lib, M)
    return F(lib).jvp(lambda v: (m @ v).sin(), (x,), (t,))


def _jvp_two_inputs_aux(lib):
    x, m = T(lib, V), T(lib, M)
    return F(lib).jvp(lambda a, b: ((b @ a).exp(), a.sum()), (x, m), (T(lib, X[2]), T(lib, M * 0.5)), has_aux=True)


def _linearize(lib):
    x = T(lib, V)
    out, fn = F(lib).linearize(lambda v: v.sin() * v, x)
    return out, fn(T(lib, X[3])), fn(T(lib, X[4]))


def _jacrev(lib):
    m = T(lib, M)
    return F(lib).jacrev(lambda v: (m @ v).sin())(T(lib, V))


def _jacrev_argnums(lib):
    return F(lib).jacrev(lambda a, b: (b @ a).tanh(), argnums=(0, 1))(T(lib, V), T(lib, M))


def _jacrev_multi_output_aux(lib):
    def f(a):
        return (a.sin(), a.sum() * a), a.norm()

    return F(lib).jacrev(f, has_aux=True)(T(lib, V))


def _jacrev_chunked(lib):
    m = T(lib, M)
    return F(lib).jacrev(lambda v: (m @ v).exp(), chunk_size=2)(T(lib, V))


def _jacfwd(lib):
    m = T(lib, M)
    return F(lib).jacfwd(lambda v: (m @ v).sin())(T(lib, V))


def _jacfwd_argnums_aux(lib):
    return F(lib).jacfwd(lambda a, b: ((b @ a).tanh(), b.sum()), argnums=(0, 1), has_aux=True)(T(lib, V), T(lib, M))


def _hessian(lib):
    m = T(lib, M)
    return F(lib).hessian(lambda v: (m @ v).sin().pow(2).sum())(T(lib, V))


def _hessian_argnums(lib):
    return F(lib).hessian(lambda a, b: (b @ a).tanh().sum(), argnums=(0, 1))(T(lib, V), T(lib, M))


def _jacrev_jacrev(lib):
    m = T(lib, M)
    return F(lib).jacrev(F(lib).jacrev(lambda v: (m @ v).sin()))(T(lib, V))


def _jacfwd_jacfwd(lib):
    return F(lib).jacfwd(F(lib).jacfwd(lambda v: v.sin() * v.sum()))(T(lib, V))


def _vmap_jacfwd(lib):
    m = T(lib, M)
    return F(lib).vmap(F(lib).jacfwd(lambda v: (m @ v).sin()))(T(lib, X))


def _vmap_jacrev(lib):
    m = T(lib, M)
    return F(lib).vmap(F(lib).jacrev(lambda v: (m @ v).tanh()))(T(lib, X))


def _vmap_hessian(lib):
    return F(lib).vmap(F(lib).hessian(lambda v: v.sin().prod()))(T(lib, X))


def _jvp_of_grad(lib):
    m = T(lib, M)
    g = F(lib).grad(lambda v: (m @ v).sin().sum())
    return F(lib).jvp(g, (T(lib, V),), (T(lib, X[0]),))


def _grad_vmap_grad(lib):
    """grad inside vmap inside grad: d/dw of the sum of per-sample gradient norms."""
    xs = T(lib, X)

    def inner(w, x):
        return (w @ x).sin().sum()

    def outer(w):
        g = F(lib).vmap(F(lib).grad(inner), in_dims=(None, 0))(w, xs)
        return (g ** 2).sum()

    return F(lib).grad(outer)(T(lib, M))


def _mlp_jacrev(lib):
    net = mlp(lib)
    return F(lib).jacrev(lambda x: net(x))(T(lib, V))


def _mlp_hessian(lib):
    net = mlp(lib)
    return F(lib).hessian(lambda x: net(x).sum())(T(lib, V))


def _pinn(lib):
    net = pinn_net(lib)
    res = F(lib).vmap(pinn_residual(lib, net))(T(lib, PTS))
    return res


def _pinn_loss_grad(lib):
    """The gradient of the PINN loss in the network's parameters (grad of vmap of hessian)."""
    net = pinn_net(lib)
    params = {k: v.detach() for k, v in net.named_parameters()}

    def loss(p):
        def u(q):
            return F(lib).functional_call(net, p, (q.unsqueeze(0),)).squeeze()

        def residual(q):
            h = F(lib).hessian(u)(q)
            return h[0, 0] + h[1, 1] - lib.sin(q[0])

        return (F(lib).vmap(residual)(T(lib, PTS)) ** 2).mean()

    g = F(lib).grad(loss)(params)
    return [g[k] for k in sorted(g)]


def _ensemble(lib):
    models = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        net = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2)).double()
        with lib.no_grad():
            for p in net.parameters():
                p.copy_(T(lib, rng.standard_normal(tuple(p.shape))))
        models.append(net)
    params, buffers = F(lib).stack_module_state(models)

    def call(p, b, x):
        return F(lib).functional_call(models[0], (p, b), (x,))

    same = F(lib).vmap(call, in_dims=(0, 0, None))(params, buffers, T(lib, X))
    own = F(lib).vmap(call, in_dims=(0, 0, 0))(params, buffers, T(lib, X[:3]))
    return same, own, [params[k].requires_grad for k in sorted(params)]


def _ntk(lib):
    """The empirical NTK of the MLP between two sets of points: J(x1) J(x2)^T summed over the parameters."""
    net = mlp(lib)
    params = params_of(lib, net)

    def f(p, x):
        return F(lib).functional_call(net, p, (x.unsqueeze(0),)).squeeze(0)

    j1 = F(lib).vmap(F(lib).jacrev(f), (None, 0))(params, T(lib, X[:3]))
    j2 = F(lib).vmap(F(lib).jacrev(f), (None, 0))(params, T(lib, X[3:]))
    total = None
    for k in sorted(j1):
        a, b = j1[k].flatten(2), j2[k].flatten(2)
        term = lib.einsum("Naf,Mbf->NMab", a, b)
        total = term if total is None else total + term
    return total


def _ntk_jvp(lib):
    """The NTK-vector product through vjp and jvp (the 'NTK by vector products' recipe)."""
    net = mlp(lib)
    params = params_of(lib, net)
    x1, x2 = T(lib, X[:2]), T(lib, X[2:4])

    def f(p, x):
        return F(lib).functional_call(net, p, (x,))

    def ntk_row(vec):
        _, vjp_fn = F(lib).vjp(lambda p: f(p, x2), params)
        (v,) = vjp_fn(vec)
        return F(lib).jvp(lambda p: f(p, x1), (params,), (v,))[1]

    basis = lib.eye(6, dtype=lib.float64).view(6, 2, 3)
    return F(lib).vmap(ntk_row)(basis)


def _vmap_in_dims_pytree(lib):
    x, m = T(lib, X), T(lib, M)

    def f(d, scale):
        return (d["m"] @ d["x"]) * scale

    return F(lib).vmap(f, in_dims=({"x": 0, "m": None}, None))({"x": x, "m": m}, 2.0)


def _vmap_out_dims(lib):
    x = T(lib, X)
    return F(lib).vmap(lambda v: (v.sin(), v.sum(), lib.ones(2)), out_dims=(1, 0, None))(x[:, :3])


def _vmap_in_dim_negative(lib):
    return F(lib).vmap(lambda v: v.cumsum(0), in_dims=-1, out_dims=-1)(T(lib, X))


def _vmap_kwargs_not_mapped(lib):
    return F(lib).vmap(lambda v, *, shift: v + shift)(T(lib, X), shift=T(lib, V))


def _vmap_nested_3(lib):
    a = T(lib, A3)
    b = T(lib, B3)
    f = lambda x, y: (x * y).sum()  # noqa: E731
    inner = F(lib).vmap(f, in_dims=(0, 0))
    mid = F(lib).vmap(inner, in_dims=(0, 1))
    return F(lib).vmap(mid, in_dims=(0, None))(a, b)


def _vmap_nested_grad(lib):
    x = T(lib, A3)
    g = F(lib).grad(lambda v: v.sin().sum())
    return F(lib).vmap(F(lib).vmap(g))(x)


def _vmap_unbatched_output(lib):
    m = T(lib, M)
    return F(lib).vmap(lambda v: m.sum())(T(lib, X))


def _vmap_return_types(lib):
    """Outputs that are torch.return_types (structseqs) keep their type through vmap."""
    x = T(lib, A3)
    mx = F(lib).vmap(lambda v: v.max(0))(x)
    inv = F(lib).vmap(lib.linalg.inv_ex)(T(lib, A3[:, :3, :3]))
    return mx, mx.indices, inv, inv.info


def _vmap_randomness_same(lib):
    lib.manual_seed(0)
    out = F(lib).vmap(lambda v: lib.rand(3) + v * 0, randomness="same")(T(lib, X[:, :3]))
    return (out - out[0]).abs().max(), out.shape


def _vmap_randomness_different_shapes(lib):
    lib.manual_seed(0)
    out = F(lib).vmap(lambda v: lib.randn(2) + v.sum() * 0, randomness="different")(T(lib, X))
    return out.shape, (out[0] - out[1]).abs().sum() > 0


def _vmap_dropout_different(lib):
    """One dropout mask per sample (and per channel for dropout2d), drawn from torch's stream as torch's vmap does."""
    lib.manual_seed(0)
    x = lib.ones(3, 8, dtype=lib.float64)
    vm = F(lib).vmap
    return (vm(lambda v: lib.nn.functional.dropout(v, 0.5, True), randomness="different")(x),
            vm(lambda v: lib.nn.functional.dropout(v, 0.5, True), randomness="same")(x),
            vm(lambda v: lib.nn.functional.dropout1d(v.reshape(4, 2), 0.5, True), randomness="different")(x))


def _vmap_inplace_fills(lib):
    lib.manual_seed(1)
    x = lib.zeros(3, 5, dtype=lib.float64)
    vm = F(lib).vmap
    return (vm(lambda v: v.clone().uniform_(), randomness="different")(x),
            vm(lambda v: v.clone().normal_(), randomness="same")(x),
            vm(lambda v: v.clone().exponential_(), randomness="different")(x))


def _vmap_bernoulli_batched_p(lib):
    """bernoulli with a probability per sample (and with a number on batched input) draws per sample under
    "different", from torch's stream, at in_dims 0 and 1; an unbatched probability tensor is expanded first."""
    g = lib.Generator().manual_seed(1)
    p = lib.rand(3, 4, 2, generator=g, dtype=lib.float64)
    vm = F(lib).vmap
    lib.manual_seed(0)
    return (vm(lib.bernoulli, randomness="different")(p), vm(lib.bernoulli, randomness="different", in_dims=1)(p),
            vm(lambda v: lib.bernoulli(p[0]) + v, randomness="different")(lib.zeros(3, dtype=lib.float64)),
            vm(lambda v: lib.bernoulli(v, 0.3), randomness="different", in_dims=1)(p),
            vm(lambda v: v.clone().bernoulli_(0.3), randomness="different")(p),
            vm(lambda v, q: v.clone().bernoulli_(q), randomness="different")(p, p),
            vm(lambda v: v.clone().bernoulli_(p[0]), randomness="different")(p))


def _vmap_complex_fills(lib):
    """In-place fills of complex tensors draw per sample under "different" (torch's values)."""
    g = lib.Generator().manual_seed(1)
    x = lib.rand(3, 4, 2, generator=g, dtype=lib.float64)
    vm = F(lib).vmap
    lib.manual_seed(0)
    return (vm(lambda v: v.to(lib.complex128).normal_(), randomness="different")(x),
            vm(lambda v: v.to(lib.complex128).uniform_(), randomness="different")(x),
            vm(lambda v: v.to(lib.complex128).normal_(), randomness="same")(x))


def _vmap_autograd_outside(lib):
    x = lib.tensor(X, requires_grad=True)
    m = T(lib, M)
    out = F(lib).vmap(lambda v: (m @ v).sin(), in_dims=0)(x)
    (g,) = lib.autograd.grad(out.pow(2).sum(), x)
    return out, g


def _vmap_autograd_in_dim_1(lib):
    x = lib.tensor(X.T.copy(), requires_grad=True)
    out = F(lib).vmap(lambda v: v.exp() * v.sum(), in_dims=1)(x)
    out.backward(lib.ones_like(out))
    return out, x.grad


def _functional_call_multi_dicts(lib):
    net = mlp(lib)
    p = params_of(lib, net)
    first = {k: v * 2 for k, v in p.items() if k.startswith("0.")}
    rest = {k: v for k, v in p.items() if not k.startswith("0.")}
    return F(lib).functional_call(net, (first, rest), (T(lib, X),))


def _functional_call_kwargs(lib):
    net = lib.nn.Linear(4, 3).double()
    w = T(lib, M)
    return F(lib).functional_call(net, {"weight": w, "bias": T(lib, V[:3])}, args=(), kwargs={"input": T(lib, X)})


def _functional_call_tied(lib):
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(3, 3, bias=False).double()
            self.b = lib.nn.Linear(3, 3, bias=False).double()
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    net = Tied()
    with lib.no_grad():
        net.a.weight.copy_(T(lib, M[:, :3]))
    new = {"a.weight": T(lib, X[:3, :3])}
    tied = F(lib).functional_call(net, new, (T(lib, Y),))
    untied = F(lib).functional_call(net, new, (T(lib, Y),), tie_weights=False)
    return tied, untied


def _batch_norm_replaced(lib):
    net = lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(3)).double()
    F(lib).replace_all_batch_norm_modules_(net)
    return [net[1].running_mean is None, net[1].track_running_stats]


PROGRAMS = [
    _grad_simple, _grad_argnums_tuple, _grad_negative_argnum, _grad_has_aux, _grad_and_value, _grad_and_value_aux,
    _grad_pytree_arg, _grad_unused_input, _grad_of_grad, _grad_mlp, _per_sample_grads, _per_sample_grads_chunked,
    _vjp, _vjp_multi, _vjp_has_aux, _jvp, _jvp_two_inputs_aux, _linearize, _jacrev, _jacrev_argnums,
    _jacrev_multi_output_aux, _jacrev_chunked, _jacfwd, _jacfwd_argnums_aux, _hessian, _hessian_argnums,
    _jacrev_jacrev, _jacfwd_jacfwd, _vmap_jacfwd, _vmap_jacrev, _vmap_hessian, _jvp_of_grad, _grad_vmap_grad,
    _mlp_jacrev, _mlp_hessian, _pinn, _pinn_loss_grad, _ensemble, _ntk, _ntk_jvp, _vmap_in_dims_pytree,
    _vmap_out_dims, _vmap_in_dim_negative, _vmap_kwargs_not_mapped, _vmap_nested_3, _vmap_nested_grad,
    _vmap_unbatched_output, _vmap_return_types, _vmap_randomness_same, _vmap_randomness_different_shapes, _vmap_dropout_different,
    _vmap_inplace_fills, _vmap_bernoulli_batched_p, _vmap_complex_fills, _vmap_autograd_outside,
    _vmap_autograd_in_dim_1, _functional_call_multi_dicts, _functional_call_kwargs, _functional_call_tied,
    _batch_norm_replaced,
]


def compare_tree(d, t, path="result"):
    if isinstance(t, torch.Tensor):
        assert_same_tensor(d, t, what=path)
    elif isinstance(t, dict):
        assert sorted(d) == sorted(t), path
        for k in t:
            compare_tree(d[k], t[k], f"{path}[{k!r}]")
    elif isinstance(t, torch.Size):
        assert isinstance(d, dyngrad.Size) and tuple(d) == tuple(t), path
    elif isinstance(t, (tuple, list)):
        assert type(d).__name__ == type(t).__name__, f"{path}: {type(d)} != {type(t)}"  # return_types kept
        assert len(d) == len(t), path
        for i, (a, b) in enumerate(zip(d, t)):
            compare_tree(a, b, f"{path}[{i}]")
    else:
        assert d == t, f"{path}: {d!r} != {t!r}"


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__.lstrip("_") for p in PROGRAMS])
def test_transform_matches_torch(program) -> None:
    t = program(torch)
    d = program(dyngrad)
    compare_tree(d, t)


# ---------------------------------------------------------------------------------- errors
def _err_grad_non_scalar(lib):
    F(lib).grad(lambda v: v * 2)(T(lib, V))


def _err_grad_not_tensor(lib):
    F(lib).grad(lambda v: 3.0)(T(lib, V))


def _err_grad_aux_not_pair(lib):
    F(lib).grad(lambda v: v.sum(), has_aux=True)(T(lib, V))


def _err_argnums_range(lib):
    F(lib).grad(lambda v: v.sum(), argnums=2)(T(lib, V))


def _err_argnums_duplicate(lib):
    F(lib).grad(lambda a, b: a.sum(), argnums=(0, 0))(T(lib, V), T(lib, V))


def _err_argnums_empty(lib):
    F(lib).grad(lambda a: a.sum(), argnums=())(T(lib, V))


def _err_argnums_type(lib):
    F(lib).grad(lambda a: a.sum(), argnums=1.5)(T(lib, V))


def _err_grad_non_tensor_arg(lib):
    F(lib).grad(lambda a: a * 2)(3.0)


def _err_vmap_sizes(lib):
    F(lib).vmap(lambda a, b: a + b)(T(lib, X), T(lib, Y[:3]))


def _err_vmap_in_dim_range(lib):
    F(lib).vmap(lambda a: a, in_dims=2)(T(lib, X))


def _err_vmap_in_dims_structure(lib):
    F(lib).vmap(lambda a: a, in_dims=(0, 0))(T(lib, X))


def _err_vmap_in_dim_non_tensor(lib):
    F(lib).vmap(lambda a, s: a * s, in_dims=(0, 0))(T(lib, X), 2.0)


def _err_vmap_no_inputs(lib):
    F(lib).vmap(lambda: 1)()


def _err_vmap_no_batched(lib):
    F(lib).vmap(lambda a: a, in_dims=None)(T(lib, X))


def _err_vmap_bad_in_dims_type(lib):
    F(lib).vmap(lambda a: a, in_dims=[0])(T(lib, X))


def _err_vmap_output_not_tensor(lib):
    F(lib).vmap(lambda a: 3.0)(T(lib, X))


def _err_vmap_batched_out_dim_none(lib):
    F(lib).vmap(lambda a: a * 2, out_dims=None)(T(lib, X))


def _err_vmap_out_dims_structure(lib):
    F(lib).vmap(lambda a: (a, a), out_dims=(0, 0, 0))(T(lib, X))


def _err_vmap_out_dims_type(lib):
    F(lib).vmap(lambda a: a, out_dims="x")(T(lib, X))


def _err_vmap_bernoulli_same_batched(lib):
    F(lib).vmap(lib.bernoulli, randomness="same")(lib.rand(3, 2, dtype=lib.float64))


def _err_vmap_fill_unbatched_different(lib):
    F(lib).vmap(lambda v: lib.zeros(2, dtype=lib.complex128).normal_() + v, randomness="different")(lib.zeros(3))


def _err_vmap_bernoulli_inplace_unbatched_self(lib):
    F(lib).vmap(lambda q: lib.zeros(2, dtype=lib.float64).bernoulli_(q), randomness="different")(
        lib.rand(3, 2, dtype=lib.float64))


def _err_vmap_randomness_value(lib):
    F(lib).vmap(lambda a: a, randomness="sometimes")


def _err_vmap_chunk_size(lib):
    F(lib).vmap(lambda a: a, chunk_size=0)


def _err_vmap_item(lib):
    F(lib).vmap(lambda a: a.sum().item())(T(lib, X))


def _err_vmap_float(lib):
    F(lib).vmap(lambda a: float(a.sum()))(T(lib, X))


def _err_vmap_control_flow(lib):
    F(lib).vmap(lambda a: a if a.sum() > 0 else -a)(T(lib, X))


def _err_vmap_tolist(lib):
    F(lib).vmap(lambda a: a.tolist())(T(lib, X))


def _err_vmap_numpy(lib):
    F(lib).vmap(lambda a: a.numpy())(T(lib, X))


def _err_vmap_random_error_mode(lib):
    F(lib).vmap(lambda a: a + lib.randn(4, dtype=lib.float64))(T(lib, X))


def _err_vmap_dropout_error_mode(lib):
    F(lib).vmap(lambda a: lib.nn.functional.dropout(a, 0.5))(T(lib, X))


def _err_vmap_inplace_captured_add(lib):
    c = lib.zeros(4, dtype=lib.float64)
    F(lib).vmap(lambda a: c.add_(a))(T(lib, X))


def _err_vmap_inplace_captured_mul(lib):
    c = lib.ones(4, dtype=lib.float64)
    F(lib).vmap(lambda a: c.mul_(a))(T(lib, X))


def _err_vmap_inplace_captured_copy(lib):
    c = lib.ones(4, dtype=lib.float64)
    F(lib).vmap(lambda a: c.copy_(a))(T(lib, X))


def _err_vmap_inplace_captured_fill(lib):
    c = lib.ones(4, dtype=lib.float64)
    F(lib).vmap(lambda a: c.fill_(a[0]))(T(lib, X))


def _err_vmap_inplace_captured_setitem(lib):
    c = lib.ones(4, dtype=lib.float64)

    def f(a):
        c[0] = a[1]
        return c

    F(lib).vmap(f)(T(lib, X))


def _err_vmap_inplace_captured_clamp(lib):
    c = lib.ones(4, dtype=lib.float64)
    F(lib).vmap(lambda a: c.clamp_(a, a + 1))(T(lib, X))


def _err_vmap_nonzero(lib):
    F(lib).vmap(lambda a: a.nonzero())(T(lib, X))


def _err_vmap_unique(lib):
    F(lib).vmap(lambda a: lib.unique(a))(T(lib, X))


def _err_vmap_masked_select(lib):
    F(lib).vmap(lambda a: a[a > 0])(T(lib, X))


def _err_requires_grad_in_vmap(lib):
    F(lib).vmap(lambda a: a.detach().requires_grad_())(T(lib, X))


def _err_requires_grad_in_grad(lib):
    F(lib).grad(lambda a: a.detach().requires_grad_().sum())(T(lib, V))


def _err_vjp_cotangent_structure(lib):
    _, fn = F(lib).vjp(lambda a: (a, a * 2), T(lib, V))
    fn(T(lib, V))


def _err_vjp_aux_not_pair(lib):
    F(lib).vjp(lambda a: a, T(lib, V), has_aux=True)


def _err_jvp_primals_not_tuple(lib):
    F(lib).jvp(lambda a: a, T(lib, V), T(lib, V))


def _err_jvp_structure(lib):
    F(lib).jvp(lambda a, b: a, (T(lib, V), T(lib, V)), (T(lib, V),))


def _err_jvp_strict(lib):
    F(lib).jvp(lambda a: T(lib, V), (T(lib, V),), (T(lib, V),), strict=True)


def _err_jacrev_chunk(lib):
    F(lib).jacrev(lambda a: a, chunk_size=0)


def _err_linearize_shape(lib):
    _, fn = F(lib).linearize(lambda a: a.sin(), T(lib, V))
    fn(T(lib, X[:2]))


def _err_functional_call_repeated(lib):
    net = lib.nn.Linear(4, 3).double()
    p = params_of(lib, net)
    F(lib).functional_call(net, (p, p), (T(lib, X),))


def _err_functional_call_strict(lib):
    net = lib.nn.Linear(4, 3).double()
    F(lib).functional_call(net, {"weight": T(lib, M), "extra": T(lib, V)}, (T(lib, X),), strict=True)


def _err_functional_call_not_dict(lib):
    net = lib.nn.Linear(4, 3).double()
    F(lib).functional_call(net, 3, (T(lib, X),))


def _err_stack_module_state_empty(lib):
    F(lib).stack_module_state([])


def _err_stack_module_state_classes(lib):
    F(lib).stack_module_state([lib.nn.Linear(2, 2), lib.nn.Tanh()])


def _err_one_hot_in_vmap(lib):
    F(lib).vmap(lambda a: lib.nn.functional.one_hot(a))(lib.tensor([[1, 2], [0, 1]]))


ERRORS = [
    _err_grad_non_scalar, _err_grad_not_tensor, _err_grad_aux_not_pair, _err_argnums_range, _err_argnums_duplicate,
    _err_argnums_empty, _err_argnums_type, _err_grad_non_tensor_arg, _err_vmap_sizes, _err_vmap_in_dim_range,
    _err_vmap_in_dims_structure, _err_vmap_in_dim_non_tensor, _err_vmap_no_inputs, _err_vmap_no_batched,
    _err_vmap_bad_in_dims_type, _err_vmap_output_not_tensor, _err_vmap_batched_out_dim_none,
    _err_vmap_out_dims_structure, _err_vmap_out_dims_type, _err_vmap_randomness_value, _err_vmap_chunk_size,
    _err_vmap_bernoulli_same_batched, _err_vmap_fill_unbatched_different, _err_vmap_bernoulli_inplace_unbatched_self,
    _err_vmap_item, _err_vmap_float, _err_vmap_control_flow, _err_vmap_tolist, _err_vmap_numpy,
    _err_vmap_random_error_mode, _err_vmap_dropout_error_mode, _err_vmap_inplace_captured_add,
    _err_vmap_inplace_captured_mul, _err_vmap_inplace_captured_copy, _err_vmap_inplace_captured_fill,
    _err_vmap_inplace_captured_setitem, _err_vmap_inplace_captured_clamp, _err_vmap_nonzero, _err_vmap_unique,
    _err_vmap_masked_select, _err_requires_grad_in_vmap, _err_requires_grad_in_grad, _err_vjp_cotangent_structure,
    _err_vjp_aux_not_pair, _err_jvp_primals_not_tuple, _err_jvp_structure, _err_jvp_strict, _err_jacrev_chunk,
    _err_linearize_shape, _err_functional_call_repeated, _err_functional_call_strict, _err_functional_call_not_dict,
    _err_stack_module_state_empty, _err_stack_module_state_classes, _err_one_hot_in_vmap,
]


@pytest.mark.parametrize("program", ERRORS, ids=[p.__name__.removeprefix("_err_") for p in ERRORS])
def test_error_matches_torch(program) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as t_info:
            program(torch)
        with pytest.raises(Exception) as d_info:
            program(dyngrad)
    assert d_info.type is t_info.type, f"{d_info.type.__name__}: {d_info.value} / torch {t_info.type.__name__}"
    assert str(d_info.value) == str(t_info.value)
