"""The margin, embedding, likelihood and CTC loss modules (torch.nn.*Loss) and their errors, against torch.

The functional forms are rows of tests/op_rows_losses.py (values, gradients, second gradients); here the
modules, their constructor checks, and the bad-input errors (type and text) are compared with torch's.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch  # noqa: F401 - the oracle, imported plainly

import dyngrad
from conftest import both

RNG = np.random.default_rng(12)
X = RNG.standard_normal((3, 4))
Y = RNG.standard_normal((3, 4))
Z = RNG.standard_normal((3, 4))
SIGNS = np.sign(RNG.standard_normal((3, 4)))
CLASSES = [0, 3, 1]
MULTILABEL = [[1, 2, -1, 0], [0, -1, 3, 3], [3, 2, 1, 0]]


def _train(lib, make, *inputs_fn):
    """Build the module, run it on float64 inputs, return the loss and the gradients of the float inputs."""
    mod = make(lib)
    tensors = inputs_fn[0](lib)
    out = mod(*tensors)
    grads = [t for t in tensors if isinstance(t, lib.Tensor) and t.requires_grad]
    g = lib.autograd.grad(out.sum(), grads) if grads else ()
    return (out, *g)


def _x(lib, a=X):
    return lib.tensor(a, requires_grad=True)


MODULES = {
    "PoissonNLLLoss": (lambda lib: lib.nn.PoissonNLLLoss(full=True), lambda lib: (_x(lib), lib.tensor(np.abs(Y) * 3))),
    "PoissonNLLLoss_rate": (lambda lib: lib.nn.PoissonNLLLoss(log_input=False, reduction="sum"),
                            lambda lib: (_x(lib, np.exp(X)), _x(lib, np.abs(Y)))),
    "GaussianNLLLoss": (lambda lib: lib.nn.GaussianNLLLoss(full=True, reduction="none"),
                        lambda lib: (_x(lib), _x(lib, Y), _x(lib, np.exp(Z)))),
    "GaussianNLLLoss_float_var": (lambda lib: lib.nn.GaussianNLLLoss(), lambda lib: (_x(lib), _x(lib, Y), 0.5)),
    "CosineEmbeddingLoss": (lambda lib: lib.nn.CosineEmbeddingLoss(margin=0.2),
                            lambda lib: (_x(lib), _x(lib, Y), lib.tensor([1.0, -1.0, -1.0]))),
    "HingeEmbeddingLoss": (lambda lib: lib.nn.HingeEmbeddingLoss(margin=0.5, reduction="sum"),
                           lambda lib: (_x(lib), lib.tensor(SIGNS))),
    "MarginRankingLoss": (lambda lib: lib.nn.MarginRankingLoss(margin=0.1),
                          lambda lib: (_x(lib), _x(lib, Y), lib.tensor(SIGNS))),
    "MultiMarginLoss": (lambda lib: lib.nn.MultiMarginLoss(p=2, margin=0.5,
                                                           weight=lib.tensor([1.0, 2.0, 0.5, 1.5], dtype=lib.float64)),
                        lambda lib: (_x(lib), lib.tensor(CLASSES))),
    "MultiLabelMarginLoss": (lambda lib: lib.nn.MultiLabelMarginLoss(reduction="none"),
                             lambda lib: (_x(lib), lib.tensor(MULTILABEL))),
    "MultiLabelSoftMarginLoss": (lambda lib: lib.nn.MultiLabelSoftMarginLoss(
                                     weight=lib.tensor([1.0, 2.0, 0.5, 1.5], dtype=lib.float64)),
                                 lambda lib: (_x(lib), lib.tensor((SIGNS > 0).astype(np.float64)))),
    "SoftMarginLoss": (lambda lib: lib.nn.SoftMarginLoss(), lambda lib: (_x(lib), lib.tensor(SIGNS))),
    "TripletMarginLoss": (lambda lib: lib.nn.TripletMarginLoss(margin=2.0, p=1.0, swap=True),
                          lambda lib: (_x(lib), _x(lib, Y), _x(lib, Z))),
    "TripletMarginWithDistanceLoss": (lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=1.5),
                                      lambda lib: (_x(lib), _x(lib, Y), _x(lib, Z))),
    "TripletMarginWithDistanceLoss_cosine": (
        lambda lib: lib.nn.TripletMarginWithDistanceLoss(
            distance_function=lambda a, b: 1.0 - lib.nn.functional.cosine_similarity(a, b), swap=True),
        lambda lib: (_x(lib), _x(lib, Y), _x(lib, Z))),
    "NLLLoss2d": (lambda lib: lib.nn.NLLLoss2d(), lambda lib: (_x(lib, X.reshape(1, 3, 2, 2)),
                                                                lib.tensor([[[0, 1], [2, 2]]]))),
    "CTCLoss": (lambda lib: lib.nn.CTCLoss(blank=4, zero_infinity=True),
                lambda lib: (_x(lib, np.log(np.random.default_rng(3).dirichlet(np.ones(5), size=(6, 2)))),
                             lib.tensor([[1, 2, 2], [3, 0, 0]]), lib.tensor([6, 2]), lib.tensor([3, 2]))),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_loss_module_matches_torch(name):
    make, inputs = MODULES[name]
    both(lambda lib: _train(lib, make, inputs))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_loss_modules_float32_and_reductions(reduction):
    both(lambda lib: _train(lib, lambda lib: lib.nn.SoftMarginLoss(reduction=reduction),
                            lambda lib: (lib.tensor(X, dtype=lib.float32, requires_grad=True),
                                         lib.tensor(SIGNS, dtype=lib.float32))))
    both(lambda lib: _train(lib, lambda lib: lib.nn.MultiMarginLoss(reduction=reduction),
                            lambda lib: (lib.tensor(X, dtype=lib.float32, requires_grad=True),
                                         lib.tensor(CLASSES))))


@pytest.mark.parametrize("name", ["SoftMarginLoss", "MultiLabelMarginLoss", "HingeEmbeddingLoss",
                                  "MarginRankingLoss"])
def test_loss_module_legacy_arguments(name):
    both(lambda lib: getattr(lib.nn, name)(size_average=False).reduction)


def test_loss_module_reprs():
    both(lambda lib: repr(lib.nn.TripletMarginLoss(margin=0.5)))
    both(lambda lib: repr(lib.nn.CTCLoss()))
    both(lambda lib: [type(lib.nn.NLLLoss2d()).__mro__[1].__name__])


CONSTRUCTOR_ERRORS = {
    "triplet_margin": lambda lib: lib.nn.TripletMarginLoss(margin=0.0),
    "triplet_distance_margin": lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=-1.0),
    "multi_margin_p": lambda lib: lib.nn.MultiMarginLoss(p=3),
    "multi_margin_weight": lambda lib: lib.nn.MultiMarginLoss(weight=lib.ones(2, 2)),
}


@pytest.mark.parametrize("name", list(CONSTRUCTOR_ERRORS))
def test_loss_constructor_errors(name):
    both(lambda lib: CONSTRUCTOR_ERRORS[name](lib) and None)


def _f(lib):
    return lib.nn.functional


def _ctc_args(lib):
    lp = lib.tensor(np.log(np.random.default_rng(0).dirichlet(np.ones(5), size=(6, 2))))
    return lp, lib.tensor([[1, 2], [3, 3]])


BAD_INPUTS = {
    # soft margin
    "soft_margin_broadcast": lambda lib: _f(lib).soft_margin_loss(lib.zeros(3, 4), lib.ones(3, 5)),
    "soft_margin_target_grad": lambda lib: _f(lib).soft_margin_loss(lib.zeros(3), lib.ones(3, requires_grad=True)),
    "soft_margin_int": lambda lib: _f(lib).soft_margin_loss(lib.zeros(3, dtype=lib.int32),
                                                            lib.ones(3, dtype=lib.int32)),
    "soft_margin_reduction": lambda lib: _f(lib).soft_margin_loss(lib.zeros(3), lib.ones(3), reduction="avg"),
    # multi margin
    "multi_margin_target_dtype": lambda lib: _f(lib).multi_margin_loss(lib.zeros(3, 4), lib.tensor([0.0, 1.0, 2.0])),
    "multi_margin_target_size": lambda lib: _f(lib).multi_margin_loss(lib.zeros(3, 4), lib.tensor([0, 1])),
    "multi_margin_target_2d": lambda lib: _f(lib).multi_margin_loss(lib.zeros(3, 4), lib.tensor([[0, 1, 3]])),
    "multi_margin_range": lambda lib: _f(lib).multi_margin_loss(lib.zeros(3, 4), lib.tensor([0, 1, 4])),
    "multi_margin_weight_size": lambda lib: _f(lib).multi_margin_loss(lib.zeros(3, 4), lib.tensor([0, 1, 3]),
                                                                      weight=lib.ones(3)),
    "multi_margin_weight_dtype": lambda lib: _f(lib).multi_margin_loss(lib.zeros(3, 4, dtype=lib.float64),
                                                                       lib.tensor([0, 1, 3]), weight=lib.ones(4)),
    "multi_margin_3d": lambda lib: _f(lib).multi_margin_loss(lib.zeros(2, 3, 4), lib.tensor([1, 1])),
    "multi_margin_empty_classes": lambda lib: _f(lib).multi_margin_loss(lib.zeros(3, 0), lib.tensor([0, 0, 0])),
    "multi_margin_int": lambda lib: _f(lib).multi_margin_loss(lib.zeros(3, 4, dtype=lib.int32), lib.tensor([0, 1, 3])),
    "multi_margin_p": lambda lib: _f(lib).multi_margin_loss(lib.zeros(3, 4), lib.tensor([0, 1, 3]), p=3),
    # multilabel margin
    "multilabel_target_size": lambda lib: _f(lib).multilabel_margin_loss(lib.zeros(3, 4), lib.tensor([0, 1, 2])),
    "multilabel_target_dtype": lambda lib: _f(lib).multilabel_margin_loss(lib.zeros(3, 4), lib.zeros(3, 4)),
    "multilabel_range": lambda lib: _f(lib).multilabel_margin_loss(lib.zeros(3, 4), lib.tensor([[0, 1, 2, 5]] * 3)),
    "multilabel_int": lambda lib: _f(lib).multilabel_margin_loss(lib.zeros(3, 4, dtype=lib.int32),
                                                                 lib.tensor([[0, 1, -1, 3]] * 3)),
    # composed losses
    "ranking_dims": lambda lib: _f(lib).margin_ranking_loss(lib.zeros(3), lib.zeros(3), lib.ones(1, 3)),
    "cosine_target_2d": lambda lib: _f(lib).cosine_embedding_loss(lib.zeros(3, 4), lib.zeros(3, 4), lib.ones(3, 1)),
    "cosine_1d_target_3d_inputs": lambda lib: _f(lib).cosine_embedding_loss(lib.zeros(2, 3, 4), lib.zeros(2, 3, 4),
                                                                            lib.ones(2)),
    "cosine_0d_target": lambda lib: _f(lib).cosine_embedding_loss(lib.zeros(3, 4), lib.zeros(3, 4), lib.tensor(1.0)),
    "triplet_margin": lambda lib: _f(lib).triplet_margin_loss(lib.zeros(3), lib.zeros(3), lib.zeros(3), margin=0),
    "triplet_dims": lambda lib: _f(lib).triplet_margin_loss(lib.zeros(3), lib.zeros(2, 3), lib.zeros(3)),
    "triplet_distance_reduction": lambda lib: _f(lib).triplet_margin_with_distance_loss(
        lib.zeros(3), lib.zeros(3), lib.zeros(3), reduction="avg"),
    "poisson_reduction": lambda lib: _f(lib).poisson_nll_loss(lib.zeros(3), lib.zeros(3), reduction="avg"),
    "gaussian_negative_var": lambda lib: _f(lib).gaussian_nll_loss(lib.zeros(3), lib.zeros(3), lib.tensor([1.0, -1, 1])),
    "gaussian_negative_float": lambda lib: _f(lib).gaussian_nll_loss(lib.zeros(3), lib.zeros(3), -1.0),
    "gaussian_var_size": lambda lib: _f(lib).gaussian_nll_loss(lib.zeros(3, 4), lib.zeros(3, 4), lib.ones(2, 2)),
    "gaussian_reduction": lambda lib: _f(lib).gaussian_nll_loss(lib.zeros(3), lib.zeros(3), lib.ones(3), reduction="x"),
    "multilabel_soft_reduction": lambda lib: _f(lib).multilabel_soft_margin_loss(lib.zeros(3, 2), lib.zeros(3, 2),
                                                                                 reduction="x"),
    "linear_ce_input_dims": lambda lib: _f(lib).linear_cross_entropy(lib.zeros(2, 3, 4), lib.zeros(5, 4),
                                                                     lib.tensor([0, 1])),
    "linear_ce_features": lambda lib: _f(lib).linear_cross_entropy(lib.zeros(2, 3), lib.zeros(5, 4),
                                                                   lib.tensor([0, 1])),
    "linear_ce_bias": lambda lib: _f(lib).linear_cross_entropy(lib.zeros(2, 4), lib.zeros(5, 4), lib.tensor([0, 1]),
                                                               linear_bias=lib.zeros(4)),
    "linear_ce_k_dim_unbatched": lambda lib: _f(lib).linear_cross_entropy(lib.zeros(4), lib.zeros(5, 2, 4),
                                                                          lib.tensor(0)),
    "linear_ce_probs_ignore": lambda lib: _f(lib).linear_cross_entropy(lib.zeros(2, 4), lib.zeros(5, 4),
                                                                       lib.zeros(2, 5), ignore_index=1),
    # CTC
    "ctc_input_length": lambda lib: _f(lib).ctc_loss(*_ctc_args(lib), lib.tensor([7, 5]), lib.tensor([2, 2])),
    "ctc_target_width": lambda lib: _f(lib).ctc_loss(*_ctc_args(lib), lib.tensor([6, 5]), lib.tensor([3, 2])),
    "ctc_lengths_integral": lambda lib: _f(lib).ctc_loss(*_ctc_args(lib), lib.tensor([6.0, 5.0]), lib.tensor([2, 2])),
    "ctc_target_lengths_integral": lambda lib: _f(lib).ctc_loss(*_ctc_args(lib), lib.tensor([6, 5]),
                                                                lib.tensor([2.0, 2.0])),
    "ctc_input_lengths_size": lambda lib: _f(lib).ctc_loss(*_ctc_args(lib), lib.tensor([6, 5, 3]), lib.tensor([2, 2])),
    "ctc_target_lengths_size": lambda lib: _f(lib).ctc_loss(*_ctc_args(lib), lib.tensor([6, 5]),
                                                            lib.tensor([2, 2, 1])),
    "ctc_blank": lambda lib: _f(lib).ctc_loss(*_ctc_args(lib), lib.tensor([6, 5]), lib.tensor([2, 2]), blank=5),
    "ctc_ints": lambda lib: _f(lib).ctc_loss(*_ctc_args(lib), 6, 2),
    "ctc_concat_size": lambda lib: _f(lib).ctc_loss(_ctc_args(lib)[0], lib.tensor([1, 2, 3]), lib.tensor([6, 5]),
                                                    lib.tensor([2, 2])),
    "ctc_reduction": lambda lib: _f(lib).ctc_loss(*_ctc_args(lib), lib.tensor([6, 5]), lib.tensor([2, 2]),
                                                  reduction="avg"),
    "ctc_targets_3d": lambda lib: _f(lib).ctc_loss(_ctc_args(lib)[0], lib.tensor([[[1, 2], [3, 3]]]),
                                                   lib.tensor([6, 5]), lib.tensor([2, 2])),
    "ctc_negative_target_length": lambda lib: _f(lib).ctc_loss(*_ctc_args(lib), lib.tensor([6, 5]),
                                                               lib.tensor([2, -1])),
    "ctc_float_targets": lambda lib: _f(lib).ctc_loss(_ctc_args(lib)[0], lib.tensor([[1.0, 2], [3, 3]]),
                                                      lib.tensor([6, 5]), lib.tensor([2, 2])),
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_loss_bad_inputs(name):
    both(BAD_INPUTS[name])


@pytest.mark.parametrize("which", ["ctc", "multi_margin", "multilabel_margin"])
def test_double_backward_is_not_implemented(which):
    """torch has no second derivative for these kernels: the first gradient's node is NotImplemented."""
    def program(lib):
        if which == "ctc":
            x = lib.tensor(np.log(np.random.default_rng(0).dirichlet(np.ones(5), size=(6, 2))), requires_grad=True)
            loss = _f(lib).ctc_loss(x, lib.tensor([[1, 2], [3, 3]]), lib.tensor([6, 5]), lib.tensor([2, 2]))
        elif which == "multi_margin":
            x = lib.tensor(X, requires_grad=True)
            loss = _f(lib).multi_margin_loss(x, lib.tensor(CLASSES))
        else:
            x = lib.tensor(X, requires_grad=True)
            loss = _f(lib).multilabel_margin_loss(x, lib.tensor(MULTILABEL))
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        name = type(g.grad_fn).__name__
        g.sum().backward()
        return name

    both(program)


def test_ctc_finite_differences_through_log_softmax():
    """float64 central differences of the loss of log_softmax(x): torch's CTC gradient is the true one there."""
    rng = np.random.default_rng(5)
    x0 = rng.standard_normal((5, 2, 4))
    targets, il, tl = dyngrad.tensor([1, 2, 2, 3, 1]), dyngrad.tensor([5, 4]), dyngrad.tensor([3, 2])

    def loss(a, requires_grad=False):
        x = dyngrad.tensor(a, requires_grad=requires_grad)
        return x, dyngrad.nn.functional.ctc_loss(x.log_softmax(-1), targets, il, tl, blank=0, reduction="sum")

    x, out = loss(x0, True)
    out.backward()
    numeric = np.zeros_like(x0)
    eps = 1e-6
    for idx in np.ndindex(x0.shape):
        plus, minus = x0.copy(), x0.copy()
        plus[idx] += eps
        minus[idx] -= eps
        numeric[idx] = (loss(plus)[1].item() - loss(minus)[1].item()) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_ctc_long_sequence_matches_torch():
    """A 60-step, batch 4 sequence with repeated labels (the skip rule) in float32 and float64."""
    rng = np.random.default_rng(9)
    lp = np.log(rng.dirichlet(np.ones(6), size=(60, 4)))
    tg = rng.integers(1, 6, size=(4, 20))
    tg[:, 5] = tg[:, 4]  # a repeated label needs a blank between
    for dtype in ("float32", "float64"):
        def program(lib, dtype=dtype):
            x = lib.tensor(lp, dtype=getattr(lib, dtype), requires_grad=True)
            loss = _f(lib).ctc_loss(x, lib.tensor(tg), lib.tensor([60, 55, 41, 30]), lib.tensor([20, 18, 20, 7]),
                                    reduction="none")
            return loss, lib.autograd.grad(loss.sum(), x)[0]

        both(program)
