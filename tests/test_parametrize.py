"""torch.nn.utils parametrizations and helpers against torch: parametrize (register/remove/cached/is_parametrized,
right_inverse, state_dict keys, printed forms, error texts), parametrizations.weight_norm / spectral_norm, the
hook-based weight_norm / spectral_norm, stateless.functional_call, fusion, skip_init, clip_grads_with_norm_.
Same weights and buffers copied from torch; values and gradients compared."""

from __future__ import annotations

import warnings
from collections import OrderedDict

import pytest
import torch

import dyngrad
from conftest import assert_same_tensor


def _d(t):
    if isinstance(t, dyngrad.Tensor):  # a dyngrad tensor back to torch
        return torch.tensor(t.detach().numpy())
    out = dyngrad.tensor(t.detach().numpy())
    return out.requires_grad_(True) if t.requires_grad else out


def _load(tm, dm):
    sd = OrderedDict((k, _d(v)) for k, v in tm.state_dict().items())
    assert list(dm.state_dict()) == list(sd)
    assert repr(dm.load_state_dict(sd)) == "<All keys matched successfully>"


def _errors_match(fn_d, fn_t):
    with pytest.raises(Exception) as t_info:
        fn_t()
    with pytest.raises(type(t_info.value)) as d_info:
        fn_d()
    assert str(d_info.value) == str(t_info.value)


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(-1, -2)

        def right_inverse(self, a):
            return a.triu()

    return Symmetric


def _scale(lib):
    class Scale(lib.nn.Module):
        def __init__(self, s):
            super().__init__()
            self.s = s

        def forward(self, x):
            return x * self.s

    return Scale


def test_register_parametrization_values_grads_state_dict_and_repr():
    torch.manual_seed(0)
    mods = {}
    for lib in (torch, dyngrad):
        m = lib.nn.Linear(3, 3, dtype=lib.float64)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _symmetric(lib)())
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale(lib)(2.0))
        mods[lib] = m
    tm, dm = mods[torch], mods[dyngrad]
    _load(tm, dm)
    assert type(dm).__name__ == type(tm).__name__ == "ParametrizedLinear"
    assert repr(dm).replace("dyngrad", "torch") == repr(tm)
    assert dyngrad.nn.utils.parametrize.is_parametrized(dm, "weight")
    assert not dyngrad.nn.utils.parametrize.is_parametrized(dm, "bias")
    assert dyngrad.nn.utils.parametrize.type_before_parametrizations(dm) is dyngrad.nn.Linear
    assert_same_tensor(dm.weight, tm.weight)
    x = torch.randn(4, 3, dtype=torch.float64)
    t_out, d_out = tm(x), dm(_d(x))
    assert_same_tensor(d_out, t_out)
    t_out.pow(2).sum().backward()
    d_out.pow(2).sum().backward()
    assert_same_tensor(dm.parametrizations.weight.original.grad, tm.parametrizations.weight.original.grad)
    # assignment goes through right_inverse
    new = torch.randn(3, 3, dtype=torch.float64)
    with torch.no_grad():
        tm.parametrizations.weight[1].s = 1.0
    dm.parametrizations.weight[1].s = 1.0
    del tm.parametrizations.weight[1]
    del dm.parametrizations.weight[1]
    tm.weight = new
    dm.weight = _d(new)
    assert_same_tensor(dm.weight, tm.weight)
    assert_same_tensor(dm.parametrizations.weight.original, tm.parametrizations.weight.original)
    with torch.nn.utils.parametrize.cached(), dyngrad.nn.utils.parametrize.cached():
        assert dm.weight is dm.weight and tm.weight is tm.weight
    assert dm.weight is not dm.weight
    for leave in (True,):
        torch.nn.utils.parametrize.remove_parametrizations(tm, "weight", leave_parametrized=leave)
        dyngrad.nn.utils.parametrize.remove_parametrizations(dm, "weight", leave_parametrized=leave)
    assert type(dm) is dyngrad.nn.Linear and type(tm) is torch.nn.Linear
    assert list(dm.state_dict()) == list(tm.state_dict())
    assert_same_tensor(dm.weight, tm.weight)
    assert isinstance(dm.weight, dyngrad.nn.Parameter)


def test_parametrize_errors():
    def no_param(lib):
        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "foo", _scale(lib)(1.0))

    def bad_shape(lib):
        class Flat(lib.nn.Module):
            def forward(self, x):
                return x.flatten()

        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight", Flat())

    def bad_dtype(lib):
        class ToLong(lib.nn.Module):
            def forward(self, x):
                return x.double()

        lib.nn.utils.parametrize.register_parametrization(lib.nn.Linear(2, 2), "weight", ToLong())

    def remove_missing(lib):
        lib.nn.utils.parametrize.remove_parametrizations(lib.nn.Linear(2, 2), "weight")

    def no_right_inverse(lib):
        m = lib.nn.Linear(2, 2)
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _scale(lib)(2.0))
        m.weight = lib.zeros(2, 2)

    for fn in (no_param, bad_shape, bad_dtype, remove_missing, no_right_inverse):
        _errors_match(lambda fn=fn: fn(dyngrad), lambda fn=fn: fn(torch))


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_parametrizations_weight_norm(dim):
    torch.manual_seed(1)
    tm = torch.nn.utils.parametrizations.weight_norm(torch.nn.Conv1d(2, 3, 2, dtype=torch.float64), dim=dim)
    dm = dyngrad.nn.utils.parametrizations.weight_norm(dyngrad.nn.Conv1d(2, 3, 2, dtype=dyngrad.float64), dim=dim)
    _load(tm, dm)
    assert repr(dm) == repr(tm)
    assert type(dm.weight.grad_fn).__name__ == type(tm.weight.grad_fn).__name__
    x = torch.randn(2, 2, 5, dtype=torch.float64)
    t_out, d_out = tm(x), dm(_d(x))
    assert_same_tensor(d_out, t_out)
    tp, dp = list(tm.parameters()), list(dm.parameters())
    t_g = torch.autograd.grad(t_out.pow(2).sum(), tp, create_graph=True)
    d_g = dyngrad.autograd.grad(d_out.pow(2).sum(), dp, create_graph=True)
    for a, b in zip(d_g, t_g):
        assert_same_tensor(a, b)
    if dim == 0:
        # torch's second derivative of the fused node (WeightNormInterfaceBackward0) fails its own
        # gradgradcheck in torch 2.13; dyngrad's is checked against finite differences instead
        v = dyngrad.tensor(x.numpy()[:, :, :2]).requires_grad_(True)
        g = dyngrad.tensor(x.numpy()[:, :1, :1]).requires_grad_(True)
        assert not torch.autograd.gradgradcheck(lambda a, b: torch._weight_norm(a, b, 0),
                                                (_d(v).requires_grad_(), _d(g).requires_grad_()), raise_exception=False)
        assert dyngrad.autograd.gradgradcheck(lambda a, b: dyngrad._weight_norm(a, b, 0), (v, g))
        return
    t_gg = torch.autograd.grad(sum(g.pow(2).sum() for g in t_g), tp)
    d_gg = dyngrad.autograd.grad(sum(g.pow(2).sum() for g in d_g), dp)
    for a, b in zip(d_gg, t_gg):
        assert_same_tensor(a, b)


@pytest.mark.parametrize("module", ["linear", "conv_transpose", "conv_dim1"])
def test_parametrizations_spectral_norm_train_and_eval(module):
    torch.manual_seed(2)

    def make(lib):
        if module == "linear":
            m = lib.nn.Linear(4, 3, dtype=lib.float64)
            return lib.nn.utils.parametrizations.spectral_norm(m, n_power_iterations=2)
        if module == "conv_transpose":
            m = lib.nn.ConvTranspose2d(2, 3, 2, dtype=lib.float64)
            return lib.nn.utils.parametrizations.spectral_norm(m)
        m = lib.nn.Conv2d(2, 3, 2, dtype=lib.float64)
        return lib.nn.utils.parametrizations.spectral_norm(m, dim=1)

    tm, dm = make(torch), make(dyngrad)
    _load(tm, dm)  # torch's _u/_v buffers: the power iteration starts from the same vectors
    x = torch.randn(2, 4, dtype=torch.float64) if module == "linear" else torch.randn(1, 2, 4, 4, dtype=torch.float64)
    for _ in range(3):  # training: each access runs the power iteration and updates the buffers
        t_out, d_out = tm(x), dm(_d(x))
        assert_same_tensor(d_out, t_out)
    assert_same_tensor(dm.parametrizations.weight[0]._u, tm.parametrizations.weight[0]._u)
    tp, dp = list(tm.parameters()), list(dm.parameters())
    for a, b in zip(dyngrad.autograd.grad(d_out.sum(), dp), torch.autograd.grad(t_out.sum(), tp)):
        assert_same_tensor(a, b)
    tm.eval()
    dm.eval()
    assert_same_tensor(dm(_d(x)), tm(x))
    assert_same_tensor(dm.parametrizations.weight[0]._v, tm.parametrizations.weight[0]._v)


def test_spectral_norm_errors():
    _errors_match(lambda: dyngrad.nn.utils.parametrizations.spectral_norm(dyngrad.nn.Linear(2, 2), name="foo"),
                  lambda: torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(2, 2), name="foo"))
    _errors_match(lambda: dyngrad.nn.utils.parametrizations.spectral_norm(dyngrad.nn.Linear(2, 2),
                                                                          n_power_iterations=0),
                  lambda: torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(2, 2), n_power_iterations=0))
    _errors_match(lambda: dyngrad.nn.utils.parametrizations.spectral_norm(dyngrad.nn.Linear(2, 2), dim=3),
                  lambda: torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(2, 2), dim=3))


def test_hook_weight_norm_and_remove():
    torch.manual_seed(3)
    with warnings.catch_warnings(record=True) as t_warn:
        warnings.simplefilter("always")
        tm = torch.nn.utils.weight_norm(torch.nn.Linear(3, 2, dtype=torch.float64))
    with warnings.catch_warnings(record=True) as d_warn:
        warnings.simplefilter("always")
        dm = dyngrad.nn.utils.weight_norm(dyngrad.nn.Linear(3, 2, dtype=dyngrad.float64))
    assert [(w.category, str(w.message)) for w in d_warn] == [(w.category, str(w.message)) for w in t_warn]
    _load(tm, dm)
    x = torch.randn(4, 3, dtype=torch.float64)
    t_out, d_out = tm(x), dm(_d(x))
    assert_same_tensor(d_out, t_out)
    t_out.sum().backward()
    d_out.sum().backward()
    assert_same_tensor(dm.weight_g.grad, tm.weight_g.grad)
    assert_same_tensor(dm.weight_v.grad, tm.weight_v.grad)
    _errors_match(lambda: dyngrad.nn.utils.weight_norm(dm), lambda: torch.nn.utils.weight_norm(tm))
    torch.nn.utils.remove_weight_norm(tm)
    dyngrad.nn.utils.remove_weight_norm(dm)
    assert list(dm.state_dict()) == list(tm.state_dict())
    assert_same_tensor(dm.weight, tm.weight)
    _errors_match(lambda: dyngrad.nn.utils.remove_weight_norm(dm), lambda: torch.nn.utils.remove_weight_norm(tm))


def test_hook_spectral_norm_and_remove():
    torch.manual_seed(4)
    tm = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3, dtype=torch.float64))
    dm = dyngrad.nn.utils.spectral_norm(dyngrad.nn.Linear(4, 3, dtype=dyngrad.float64))
    _load(tm, dm)
    x = torch.randn(2, 4, dtype=torch.float64)
    for _ in range(2):
        t_out, d_out = tm(x), dm(_d(x))
        assert_same_tensor(d_out, t_out)
    assert_same_tensor(dm.weight_u, tm.weight_u)
    for a, b in zip(dyngrad.autograd.grad(d_out.sum(), list(dm.parameters())),
                    torch.autograd.grad(t_out.sum(), list(tm.parameters()))):
        assert_same_tensor(a, b)
    _errors_match(lambda: dyngrad.nn.utils.spectral_norm(dm), lambda: torch.nn.utils.spectral_norm(tm))
    torch.nn.utils.remove_spectral_norm(tm)
    dyngrad.nn.utils.remove_spectral_norm(dm)
    assert list(dm.state_dict()) == list(tm.state_dict())
    assert_same_tensor(dm.weight, tm.weight)


def test_stateless_functional_call():
    torch.manual_seed(5)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    dm = dyngrad.nn.Sequential(dyngrad.nn.Linear(3, 4), dyngrad.nn.BatchNorm1d(4), dyngrad.nn.Linear(4, 2))
    _load(tm, dm)
    w = torch.randn(4, 3, requires_grad=True)
    x = torch.randn(5, 3)
    with warnings.catch_warnings(record=True) as t_warn:
        warnings.simplefilter("always")
        t_out = torch.nn.utils.stateless.functional_call(tm, {"0.weight": w, "1.running_mean": torch.ones(4)},
                                                         (x,))
    with warnings.catch_warnings(record=True) as d_warn:
        warnings.simplefilter("always")
        dw = _d(w)
        d_out = dyngrad.nn.utils.stateless.functional_call(dm, {"0.weight": dw, "1.running_mean": dyngrad.ones(4)},
                                                           (_d(x),))
    assert [str(m.message) for m in d_warn] == [str(m.message) for m in t_warn]
    assert_same_tensor(d_out, t_out)
    assert_same_tensor(dyngrad.autograd.grad(d_out.sum(), dw)[0], torch.autograd.grad(t_out.sum(), w)[0])
    _load(tm, dm)  # the module's own tensors are back (and equal torch's, running stats included)
    assert_same_tensor(dm[1].running_mean, tm[1].running_mean)
    _errors_match(
        lambda: dyngrad.nn.utils.stateless.functional_call(dm, {"0.weight": dw, "foo": dw}, (_d(x),), strict=True),
        lambda: torch.nn.utils.stateless.functional_call(tm, {"0.weight": w, "foo": w}, (x,), strict=True))


def test_fusion_conv_and_linear():
    torch.manual_seed(6)
    for transpose in (False, True):
        tconv = (torch.nn.ConvTranspose2d if transpose else torch.nn.Conv2d)(2, 3, 2, dtype=torch.float64).eval()
        dconv = (dyngrad.nn.ConvTranspose2d if transpose else dyngrad.nn.Conv2d)(2, 3, 2,
                                                                                dtype=dyngrad.float64).eval()
        tbn, dbn = torch.nn.BatchNorm2d(3, dtype=torch.float64), dyngrad.nn.BatchNorm2d(3, dtype=dyngrad.float64)
        with torch.no_grad():
            tbn.running_mean.uniform_(-1, 1)
            tbn.running_var.uniform_(0.5, 2)
            tbn.weight.uniform_(0.5, 2)
        tbn.eval()
        dbn.eval()
        _load(tconv, dconv)
        _load(tbn, dbn)
        tf = torch.nn.utils.fuse_conv_bn_eval(tconv, tbn, transpose=transpose)
        df = dyngrad.nn.utils.fuse_conv_bn_eval(dconv, dbn, transpose=transpose)
        x = torch.randn(1, 2, 4, 4, dtype=torch.float64)
        assert_same_tensor(df(_d(x)), tf(x))
        assert_same_tensor(df(_d(x)), dbn(dconv(_d(x))).detach())
    tlin, dlin = torch.nn.Linear(3, 4, dtype=torch.float64).eval(), dyngrad.nn.Linear(3, 4, dtype=dyngrad.float64).eval()
    tbn, dbn = torch.nn.BatchNorm1d(4, dtype=torch.float64).eval(), dyngrad.nn.BatchNorm1d(4, dtype=dyngrad.float64).eval()
    with torch.no_grad():
        tbn.running_mean.uniform_(-1, 1)
    _load(tlin, dlin)
    _load(tbn, dbn)
    x = torch.randn(2, 3, dtype=torch.float64)
    assert_same_tensor(dyngrad.nn.utils.fuse_linear_bn_eval(dlin, dbn)(_d(x)),
                       torch.nn.utils.fuse_linear_bn_eval(tlin, tbn)(x))
    _errors_match(lambda: dyngrad.nn.utils.fuse_linear_bn_eval(dlin.train(), dbn),
                  lambda: torch.nn.utils.fuse_linear_bn_eval(tlin.train(), tbn))


def test_skip_init_and_clip_grads_with_norm():
    m = dyngrad.nn.utils.skip_init(dyngrad.nn.Linear, 2, 3)
    assert repr(m) == repr(torch.nn.utils.skip_init(torch.nn.Linear, 2, 3))
    _errors_match(lambda: dyngrad.nn.utils.skip_init(dyngrad.nn.Identity),
                  lambda: torch.nn.utils.skip_init(torch.nn.Identity))
    torch.manual_seed(7)
    tp = [torch.randn(3, requires_grad=True), torch.randn(2, 2, requires_grad=True)]
    dp = [_d(p) for p in tp]
    for t, d in zip(tp, dp):
        g = torch.randn_like(t)
        t.grad, d.grad = g, _d(g)
    t_norm = torch.nn.utils.get_total_norm([p.grad for p in tp])
    d_norm = dyngrad.nn.utils.get_total_norm([p.grad for p in dp])
    assert_same_tensor(d_norm, t_norm)
    torch.nn.utils.clip_grads_with_norm_(tp, 0.5, t_norm)
    dyngrad.nn.utils.clip_grads_with_norm_(dp, 0.5, d_norm)
    for t, d in zip(tp, dp):
        assert_same_tensor(d.grad, t.grad)
    vec = torch.randn(7)
    torch.nn.utils.vector_to_parameters(vec, tp)
    dyngrad.nn.utils.vector_to_parameters(_d(vec), dp)
    for t, d in zip(tp, dp):
        assert_same_tensor(d, t)


@pytest.mark.parametrize("shape,omap", [((3, 3), None), ((2, 4), None), ((4, 2), "cayley"), ((3, 3), "cayley"),
                                        ((4, 2), "matrix_exp"), ((4, 4), "householder")])
def test_parametrizations_orthogonal(shape, omap):
    torch.manual_seed(8)
    tlin = torch.nn.Linear(shape[1], shape[0], dtype=torch.float64)
    dlin = dyngrad.nn.Linear(shape[1], shape[0], dtype=dyngrad.float64)
    _load(tlin, dlin)
    tm = torch.nn.utils.parametrizations.orthogonal(tlin, orthogonal_map=omap)
    dm = dyngrad.nn.utils.parametrizations.orthogonal(dlin, orthogonal_map=omap)
    assert repr(dm) == repr(tm)
    if shape[0] == shape[1]:  # the trivialization's base comes from the weight alone (QR): no randomness
        assert_same_tensor(dm.parametrizations.weight[0].base, tm.parametrizations.weight[0].base)
        assert_same_tensor(dm.weight, tm.weight)
    _load(tm, dm)
    with torch.no_grad():
        tm.parametrizations.weight.original.add_(torch.randn(shape, dtype=torch.float64) * 0.3)
    _load(tm, dm)
    x = torch.randn(2, shape[1], dtype=torch.float64)
    t_out, d_out = tm(x), dm(_d(x))
    assert_same_tensor(d_out, t_out)
    if dm.parametrizations.weight[0].orthogonal_map.name != "householder":  # (householder scales columns by
        w = dm.weight.detach().numpy()  # int(diag), which the perturbation may zero, as in torch)
        small = w @ w.T if shape[0] <= shape[1] else w.T @ w
        assert abs(small - __import__("numpy").eye(min(shape))).max() < 1e-12
    tp, dp = list(tm.parameters()), list(dm.parameters())
    for a, b in zip(dyngrad.autograd.grad(d_out.pow(2).sum(), dp), torch.autograd.grad(t_out.pow(2).sum(), tp)):
        assert_same_tensor(a, b)


def test_orthogonal_errors():
    for kw in ({"name": "foo"}, {"orthogonal_map": "qr"}):
        _errors_match(lambda kw=kw: dyngrad.nn.utils.parametrizations.orthogonal(dyngrad.nn.Linear(2, 2), **kw),
                      lambda kw=kw: torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(2, 2), **kw))
    _errors_match(lambda: dyngrad.nn.utils.parametrizations.orthogonal(dyngrad.nn.Linear(2, 2), name="bias"),
                  lambda: torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(2, 2), name="bias"))
