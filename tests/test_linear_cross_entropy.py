"""linear_cross_entropy's chunked path, LinearCrossEntropyOptions and LinearCrossEntropyLoss against torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from conftest import both


def _options(lib, **kw):
    return lib.nn.LinearCrossEntropyOptions(**kw)


def _data(lib, n=7, d=3, c=5, dtype="float64", bias=True, class_weight=False, ignore=False, seed=0):
    rng = np.random.default_rng(seed)
    dt = getattr(lib, dtype)
    x = lib.tensor(rng.standard_normal((n, d)), dtype=dt, requires_grad=True)
    w = lib.tensor(rng.standard_normal((c, d)), dtype=dt, requires_grad=True)
    b = lib.tensor(rng.standard_normal(c), dtype=dt, requires_grad=True) if bias else None
    t = rng.integers(0, c, n)
    if ignore:
        t[::3] = -100
    cw = lib.tensor(rng.uniform(0.5, 2.0, c), dtype=dt) if class_weight else None
    return x, w, b, lib.tensor(t), cw


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("chunk", [None, 1, 3, 64])
@pytest.mark.parametrize("extras", ["plain", "weight_ignore", "no_bias", "float32"])
def test_chunked_values_and_gradients(reduction, chunk, extras) -> None:
    def program(lib):
        x, w, b, t, cw = _data(lib, bias=extras != "no_bias", class_weight=extras == "weight_ignore",
                               ignore=extras == "weight_ignore", dtype="float32" if extras == "float32" else "float64")
        opts = _options(lib, batch_chunk_size=chunk)
        loss = lib.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw, reduction=reduction,
                                                      options=opts)
        upstream = lib.linspace(0.5, 1.5, loss.numel(), dtype=loss.dtype).reshape(loss.shape)
        grads = lib.autograd.grad((loss * upstream).sum(), [x, w] + ([b] if b is not None else []))
        return loss, grads, type(loss.grad_fn).__name__

    both(program)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_chunked_unbatched_input(reduction) -> None:
    def program(lib):
        x, w, b, t, _ = _data(lib, n=1)
        loss = lib.nn.functional.linear_cross_entropy(x[0], w, t[0], linear_bias=b, reduction=reduction,
                                                      options=_options(lib))
        return loss, lib.autograd.grad(loss.sum(), [x, w, b])

    both(program)


def test_chunked_equals_reference_path() -> None:
    x, w, b, t, cw = _data(dyngrad, n=9, class_weight=True, ignore=True)
    F = dyngrad.nn.functional
    ref = F.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw)
    chunked = F.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw, options=_options(dyngrad, batch_chunk_size=2))
    np.testing.assert_allclose(chunked.item(), ref.item(), rtol=1e-12)
    g_ref = dyngrad.autograd.grad(ref, [x, w, b])
    g_chunked = dyngrad.autograd.grad(chunked, [x, w, b])
    for a, r in zip(g_chunked, g_ref):
        np.testing.assert_allclose(a.numpy(), r.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("allow", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_second_backward(allow, reduction) -> None:
    def program(lib):
        x, w, b, t, _ = _data(lib)
        loss = lib.nn.functional.linear_cross_entropy(
            x, w, t, linear_bias=b, reduction=reduction, options=_options(lib, allow_retain_graph=allow)).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        return x.grad, w.grad, b.grad

    both(program)


def test_unsupported_settings_warn_and_take_the_reference_path() -> None:
    texts = {}
    for lib in (dyngrad, torch):
        x, w, b, t, _ = _data(lib)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, label_smoothing=0.1,
                                                         options=_options(lib))
        texts[lib] = ([str(c.message) for c in caught], out.item(), type(out.grad_fn).__name__)
    assert texts[dyngrad][0] == texts[torch][0] and len(texts[torch][0]) == 1
    assert texts[dyngrad][1] == pytest.approx(texts[torch][1], rel=1e-12)
    assert texts[dyngrad][2] == texts[torch][2]


@pytest.mark.parametrize(
    "kw",
    [dict(acc_policy="fast"), dict(chunking_method="ratio"), dict(chunking_method="aspect_ratio:0"),
     dict(batch_chunk_size=0), dict(batch_chunk_size=2.5), dict(acc_dtype="int32"), dict(),
     dict(batch_chunk_size=4, chunking_method=None, acc_policy="compact", allow_retain_graph=True)],
)
def test_options_validation_and_repr(kw) -> None:
    def program(lib):
        args = dict(kw)
        if args.get("acc_dtype") == "int32":
            args["acc_dtype"] = lib.int32
        opts = lib.nn.LinearCrossEntropyOptions(**args)
        return repr(opts), opts == lib.nn.LinearCrossEntropyOptions(**args)

    both(program)


@pytest.mark.parametrize(
    "shape", [(7, 3, 5), (64, 8, 1000), (100, 16, 16), (1, 3, 5), (33, 4, 9)])
@pytest.mark.parametrize("kw", [dict(), dict(chunking_method="aspect_ratio"), dict(chunking_method="aspect_ratio:4"),
                                dict(batch_chunk_size=5), dict(batch_chunk_size=8, chunking_method="aspect_ratio")])
def test_options_adjust_matches_torch(shape, kw) -> None:
    def program(lib):
        n, d, c = shape
        return repr(lib.nn.LinearCrossEntropyOptions(**kw)._adjust(n, d, c, lib.float32, lib.device("cpu")))

    both(program)


def test_linear_cross_entropy_loss_module() -> None:
    def program(lib):
        rng = np.random.default_rng(3)
        module = lib.nn.LinearCrossEntropyLoss(4, 6, bias=True, ignore_index=1,
                                               options=lib.nn.LinearCrossEntropyOptions(batch_chunk_size=3)).double()
        with lib.no_grad():
            for p in module.parameters():
                p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
        x = lib.tensor(rng.standard_normal((5, 4)), requires_grad=True)
        t = lib.tensor(rng.integers(0, 6, 5))
        loss = module(x, t)
        grads = lib.autograd.grad(loss, [x, *module.parameters()])
        return repr(module), [k for k, _ in module.named_parameters()], loss, grads

    both(program)


def test_linear_cross_entropy_loss_k_dimensional() -> None:
    def program(lib):
        rng = np.random.default_rng(4)
        module = lib.nn.LinearCrossEntropyLoss(3, 4, out_features=(2,)).double()
        with lib.no_grad():
            module.linear.weight.copy_(lib.tensor(rng.standard_normal((8, 3))))
        x = lib.tensor(rng.standard_normal((5, 3)), requires_grad=True)
        t = lib.tensor(rng.integers(0, 4, (5, 2)))
        loss = module(x, t)
        return loss, lib.autograd.grad(loss, [x, module.linear.weight])

    both(program)


@pytest.mark.parametrize("case", ["weight_shape", "smoothing"])
def test_linear_cross_entropy_loss_errors(case) -> None:
    def program(lib):
        if case == "weight_shape":
            return lib.nn.LinearCrossEntropyLoss(3, 4, weight=lib.ones(3))
        return lib.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5)

    both(program)
