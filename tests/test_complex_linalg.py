"""Complex numbers through the linear-algebra family and the nn kernels, against torch: what the op table
(tests/op_rows_linalg.py, op_rows_linalg_complex.py, op_rows_nn.py) does not check.

- the phase ("gauge") checks of svd, eigh and eig backward: a loss that depends on the phase of the
  singular vectors / eigenvectors is refused with torch's text, a phase-invariant one is not;
- torch's refusals of complex input (kernels without complex support, ops without a complex backward)
  and the dtype checks that meet complex tensors (mixed dtypes, complex alpha / beta for real tensors);
- the conjugate bit on torch's conjugate-view results, and the torch.return_types names.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from conftest import assert_same_tensor, both, same_error, torch

CDT = ("complex64", "complex128")


def _complex(shape, dtype="complex128", seed=0):
    """Standard normal values of ``dtype`` (both parts for a complex one)."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def _leaf(lib, array):
    return lib.from_numpy(array.copy()).requires_grad_()


def _grads(lib, array, loss):
    """The gradient of ``loss(lib, leaf)`` (a real 0-d tensor) for a leaf holding ``array``."""
    x = _leaf(lib, array)
    loss(lib, x).backward()
    return x.grad


def _same_grads(array, loss) -> None:
    d, t = same_error(lambda: _grads(dyngrad, array, loss), lambda: _grads(torch, array, loss))
    if t is not None:
        assert_same_tensor(d, t, what="grad")


# ------------------------------------------------------------------ phase checks (gauge)


def _hermitian(lib, x):
    n = x.shape[-1]
    return (x + x.mH) * 0.2 + lib.eye(n, dtype=x.dtype) * lib.tensor([0.0, 2.0, 4.0][:n], dtype=x.dtype)


def _rect(lib, x):
    m, n = x.shape[-2:]
    return x * 0.15 + lib.eye(m, n, dtype=x.dtype) * lib.tensor([1.0, 2.5, 4.0][:n], dtype=x.dtype)


def _spread(lib, x):
    n = x.shape[-1]
    return x * 0.3 + lib.eye(n, dtype=x.dtype) * lib.tensor([0.0, 3.0, 6.0][:n], dtype=x.dtype)


PHASE_DEPENDENT = {
    # svd: U alone, Vh alone, and both (U's and V's phases do not cancel in U^T V)
    "svd_u": lambda lib, x: lib.linalg.svd(_rect(lib, x)).U.real.sum(),
    "svd_vh": lambda lib, x: lib.linalg.svd(_rect(lib, x), full_matrices=False).Vh.imag.sum(),
    "svd_both": lambda lib, x: (lambda usv: (usv.U.mT @ usv.Vh.mT).real.sum())(
        lib.linalg.svd(_rect(lib, x), full_matrices=False)),
    "torch_svd_v": lambda lib, x: lib.svd(_rect(lib, x)).V.real.sum(),
    "eigh_vectors": lambda lib, x: lib.linalg.eigh(_hermitian(lib, x)).eigenvectors.real.sum(),
    "eig_vectors": lambda lib, x: lib.linalg.eig(_spread(lib, x)).eigenvectors.abs().sum()
    + lib.linalg.eig(_spread(lib, x)).eigenvectors.real.sum(),
}

PHASE_INVARIANT = {
    "svd_abs_u": lambda lib, x: lib.linalg.svd(_rect(lib, x)).U.abs().sum(),
    "svd_product": lambda lib, x: (lambda usv: ((usv.U * usv.S.unsqueeze(-2)) @ usv.Vh).real.sum())(
        lib.linalg.svd(_rect(lib, x), full_matrices=False)),
    "svd_projector": lambda lib, x: (lambda usv: (usv.U @ usv.U.mH).imag.sum())(
        lib.linalg.svd(_rect(lib, x), full_matrices=False)),
    "eigh_projector": lambda lib, x: (lambda lv: (lv[1][..., :1] @ lv[1][..., :1].mH).real.sum())(
        lib.linalg.eigh(_hermitian(lib, x))),
    "eigh_abs": lambda lib, x: lib.linalg.eigh(_hermitian(lib, x)).eigenvectors.abs().pow(2).sum(),
    "eig_function": lambda lib, x: (lambda lv: ((lv[1] * lv[0].unsqueeze(-2)) @ lib.linalg.inv(lv[1])).real.sum())(
        lib.linalg.eig(_spread(lib, x))),
    "eig_abs": lambda lib, x: lib.linalg.eig(_spread(lib, x)).eigenvectors.abs().sum(),
}


@pytest.mark.parametrize("dtype", CDT)
@pytest.mark.parametrize("name", sorted(PHASE_DEPENDENT))
def test_phase_dependent_losses_are_refused_as_torch(name, dtype) -> None:
    """svd_backward / linalg_eigh_backward / linalg_eig_backward refuse a loss that depends on the phases
    of the vectors, with torch's RuntimeError and text."""
    with pytest.raises(RuntimeError, match="specified up to multiplication by e\\^\\{i phi\\}"):
        _grads(torch, _complex((3, 3), dtype), PHASE_DEPENDENT[name])
    _same_grads(_complex((3, 3), dtype), PHASE_DEPENDENT[name])


@pytest.mark.parametrize(
    "name,shape",
    [(name, shape) for name in sorted(PHASE_INVARIANT) for shape in [(3, 3), (2, 3, 3), (4, 2), (2, 4)]
     if shape[-1] == shape[-2] or not name.startswith("eig")],  # (eigen-decompositions take square matrices)
)
def test_phase_invariant_losses_match_torch(name, shape) -> None:
    _same_grads(_complex(shape, seed=1), PHASE_INVARIANT[name])


def test_real_input_of_eig_gets_the_real_part_of_the_gradient() -> None:
    """eig of a real matrix is complex; the real leaf gets the real part (torch's handle_r_to_c)."""
    a = np.random.default_rng(2).standard_normal((3, 3))
    _same_grads(a, PHASE_INVARIANT["eig_function"])
    _same_grads(a, lambda lib, x: lib.linalg.eigvals(_spread(lib, x)).imag.sum())
    _same_grads(a, PHASE_DEPENDENT["eig_vectors"])


# ------------------------------------------------------------------ refusals and dtype checks

X2, X3, X4 = _complex((2, 4), "complex64"), _complex((2, 3, 4), "complex64"), _complex((1, 2, 4, 4), "complex64")


def _t(lib, a, grad=False):
    t = lib.from_numpy(a.copy())
    return t.requires_grad_() if grad else t


REFUSED = {
    # kernels torch has only for real dtypes (NotImplementedError: "<kernel>" not implemented for 'ComplexFloat')
    "softmax_last": lambda lib, g: lib.nn.functional.softmax(_t(lib, X2, g), -1),
    "softmax_first": lambda lib, g: lib.softmax(_t(lib, X2, g), 0),
    "log_softmax": lambda lib, g: lib.nn.functional.log_softmax(_t(lib, X3, g), 1),
    "cross_entropy": lambda lib, g: lib.nn.functional.cross_entropy(_t(lib, X2, g), lib.tensor([1, 2])),
    "dropout": lambda lib, g: lib.nn.functional.dropout(_t(lib, X2, g), 0.5),
    "dropout1d": lambda lib, g: lib.nn.functional.dropout1d(_t(lib, X3, g), 0.5),
    "dropout2d": lambda lib, g: lib.nn.functional.dropout2d(_t(lib, X4, g), 0.3),
    "interpolate_nearest2d": lambda lib, g: lib.nn.functional.interpolate(_t(lib, X4, g), scale_factor=2),
    "interpolate_bilinear": lambda lib, g: lib.nn.functional.interpolate(_t(lib, X4, g), scale_factor=2,
                                                                         mode="bilinear"),
    "interpolate_linear": lambda lib, g: lib.nn.functional.interpolate(_t(lib, X3, g), size=6, mode="linear"),
    "layer_norm": lambda lib, g: lib.nn.functional.layer_norm(_t(lib, X2, g), (4,)),
    "group_norm": lambda lib, g: lib.nn.functional.group_norm(_t(lib, X3, g), 1),
    "batch_norm": lambda lib, g: lib.nn.functional.batch_norm(_t(lib, X3, g), None, None, training=True),
    "mse_loss": lambda lib, g: lib.nn.functional.mse_loss(_t(lib, X2, g), _t(lib, X2)),
    "smooth_l1_loss": lambda lib, g: lib.nn.functional.smooth_l1_loss(_t(lib, X2, g), _t(lib, X2)),
    "huber_loss": lambda lib, g: lib.nn.functional.huber_loss(_t(lib, X2, g), _t(lib, X2)),
    "max_pool1d": lambda lib, g: lib.nn.functional.max_pool1d(_t(lib, X3, g), 2),
    "max_pool2d": lambda lib, g: lib.nn.functional.max_pool2d(_t(lib, X4, g), 2),
    "avg_pool1d": lambda lib, g: lib.nn.functional.avg_pool1d(_t(lib, X3, g), 2),
    "avg_pool2d": lambda lib, g: lib.nn.functional.avg_pool2d(_t(lib, X4, g), 2),
    "adaptive_avg_pool2d": lambda lib, g: lib.nn.functional.adaptive_avg_pool2d(_t(lib, X4, g), 2),
    "adaptive_max_pool2d": lambda lib, g: lib.nn.functional.adaptive_max_pool2d(_t(lib, X4, g), 2),
    "prelu": lambda lib, g: lib.nn.functional.prelu(_t(lib, X2, g), lib.ones(1, dtype=lib.complex64)),
    "glu": lambda lib, g: lib.nn.functional.glu(_t(lib, X2, g)),
    "kl_div": lambda lib, g: lib.nn.functional.kl_div(_t(lib, X2, g), _t(lib, X2.real.copy()),
                                                      reduction="batchmean"),
    "cosine_similarity": lambda lib, g: lib.nn.functional.cosine_similarity(_t(lib, X2, g), _t(lib, X2)),
    "binary_cross_entropy": lambda lib, g: lib.nn.functional.binary_cross_entropy(_t(lib, X2, g), _t(lib, X2)),
    "cdist": lambda lib, g: lib.cdist(_t(lib, X2, g), _t(lib, X2)),
    # ops whose backward torch has not written for complex: refused only when a graph is recorded
    "embedding": lambda lib, g: lib.nn.functional.embedding(lib.tensor([0, 1, 1]), _t(lib, X2, g)),
    "bilinear": lambda lib, g: lib.nn.functional.bilinear(_t(lib, X2, g), _t(lib, X2),
                                                          lib.ones(3, 4, 4, dtype=lib.complex64)),
    # dtype checks
    "addmm_complex_alpha_real_tensors": lambda lib, g: lib.addmm(lib.ones(2, 2), lib.ones(2, 2), lib.ones(2, 2),
                                                                 alpha=1j),
    "addmv_complex_beta_half": lambda lib, g: lib.addmv(lib.ones(2, dtype=lib.float16),
                                                        lib.ones(2, 2, dtype=lib.float16),
                                                        lib.ones(2, dtype=lib.float16), beta=2j),
    "baddbmm_complex_alpha_double": lambda lib, g: lib.baddbmm(lib.ones(1, 2, 2, dtype=lib.float64),
                                                               lib.ones(1, 2, 2, dtype=lib.float64),
                                                               lib.ones(1, 2, 2, dtype=lib.float64), alpha=-1j),
    "addmm_self_mat2": lambda lib, g: lib.addmm(_t(lib, X2[:, :2], g), _t(lib, X2[:, :2]), lib.ones(2, 2)),
    "addmm_mat1_mat2": lambda lib, g: lib.addmm(_t(lib, X2[:, :2], g), lib.ones(2, 2), _t(lib, X2[:, :2])),
    "addmv_mixed": lambda lib, g: lib.addmv(_t(lib, X2[0, :2], g), lib.ones(2, 2), lib.ones(2)),
    "addbmm_mixed": lambda lib, g: lib.addbmm(_t(lib, X2[:, :2], g), lib.ones(1, 2, 2), lib.ones(1, 2, 2)),
    "baddbmm_input": lambda lib, g: lib.baddbmm(_t(lib, X2[None, :, :2], g), lib.ones(1, 2, 2), lib.ones(1, 2, 2)),
    "baddbmm_batch2": lambda lib, g: lib.baddbmm(_t(lib, X2[None, :, :2], g), _t(lib, X2[None, :, :2]),
                                                 lib.ones(1, 2, 2)),
    "cross_mixed": lambda lib, g: lib.linalg.cross(_t(lib, X3[0, :, :3], g), lib.ones(3, 3)),
    "tensordot_mixed": lambda lib, g: lib.tensordot(_t(lib, X2, g), lib.ones(4, 2), dims=1),
    "solve_mixed": lambda lib, g: lib.linalg.solve(_t(lib, X3[0, :, :3], g), lib.ones(3, 2)),
    "conv_weight_real": lambda lib, g: lib.nn.functional.conv1d(_t(lib, X3, g), lib.ones(2, 3, 2)),
    "conv_bias_real": lambda lib, g: lib.nn.functional.conv1d(_t(lib, X3, g), lib.ones(2, 3, 2, dtype=lib.complex64),
                                                              lib.ones(2)),
    "conv_weight_double": lambda lib, g: lib.nn.functional.conv1d(_t(lib, X3, g),
                                                                  lib.ones(2, 3, 2, dtype=lib.complex128)),
    "conv_real_input": lambda lib, g: lib.nn.functional.conv1d(_t(lib, X3.real.copy(), g),
                                                               lib.ones(2, 3, 2, dtype=lib.complex64)),
    "conv_transpose_weight_real": lambda lib, g: lib.nn.functional.conv_transpose1d(_t(lib, X3, g), lib.ones(3, 2, 2)),
    "eig_integer": lambda lib, g: lib.linalg.eig(lib.ones(2, 2, dtype=lib.int64)),
    "eigvals_vector": lambda lib, g: lib.linalg.eigvals(_t(lib, X2[0], g)),
    "eigvals_nan": lambda lib, g: lib.linalg.eigvals(_t(lib, np.full((2, 2), np.nan), g)),
    "eig_nan": lambda lib, g: lib.linalg.eig(lib.full((2, 2), float("nan"))),
    "eig_half": lambda lib, g: lib.linalg.eig(lib.ones(2, 2, dtype=lib.float16)),
}


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_match_torch(name, grad) -> None:
    """Each case raises torch's error (type and text), or, where torch accepts it, gives torch's values."""
    both(lambda lib: REFUSED[name](lib, grad))


# ------------------------------------------------------------------ conjugate bits, return types, _ex results


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_conjugate_views_and_return_types_match_torch(dtype) -> None:
    a, b = _complex((3, 3), dtype, 3) + 3 * np.eye(3, dtype=dtype), _complex((2, 3), dtype, 4)
    for fn in (
        lambda lib: lib.linalg.solve(lib.from_numpy(a), lib.from_numpy(b), left=False),
        lambda lib: lib.svd(lib.from_numpy(a)).V,
        lambda lib: lib.linalg.svd(lib.from_numpy(a)).Vh,
        lambda lib: lib.linalg.inv(lib.from_numpy(a)),
    ):
        both(fn)
        assert fn(dyngrad).is_conj() == fn(torch).is_conj()
    for fn in (
        lambda lib: lib.linalg.slogdet(lib.from_numpy(a)), lambda lib: lib.slogdet(lib.from_numpy(a)),
        lambda lib: lib.from_numpy(a).slogdet(), lambda lib: lib.linalg.qr(lib.from_numpy(a)),
        lambda lib: lib.linalg.eigh(lib.from_numpy(a)), lambda lib: lib.linalg.svd(lib.from_numpy(a)),
        lambda lib: lib.svd(lib.from_numpy(a)), lambda lib: lib.linalg.eig(lib.from_numpy(a)),
        lambda lib: lib.linalg.inv_ex(lib.from_numpy(a)), lambda lib: lib.linalg.cholesky_ex(lib.from_numpy(a)),
        lambda lib: lib.linalg.solve_ex(lib.from_numpy(a), lib.from_numpy(b.T.copy())),
    ):
        d, t = fn(dyngrad), fn(torch)
        assert type(d).__name__ == type(t).__name__
        assert repr(d).split("(")[0] == repr(t).split("(")[0]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_ex_variants_report_failures_as_torch(dtype) -> None:
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], dtype=dtype)
    indefinite = np.array([[4.0, 2, 1, 0], [2, 5, 3, 1], [1, 3, -5, 2], [0, 1, 2, 3]], dtype=dtype)
    ones = np.ones(2, dtype=dtype)
    cases = [
        lambda lib: tuple(lib.linalg.solve_ex(lib.from_numpy(singular), lib.from_numpy(ones))),
        lambda lib: tuple(lib.linalg.solve_ex(lib.from_numpy(np.zeros((2, 2), dtype)), lib.from_numpy(ones))),
        lambda lib: tuple(lib.linalg.inv_ex(lib.from_numpy(singular))),
        lambda lib: tuple(lib.linalg.cholesky_ex(lib.from_numpy(indefinite))),
        lambda lib: tuple(lib.linalg.cholesky_ex(lib.from_numpy(indefinite), upper=True)),
        lambda lib: lib.linalg.solve_ex(lib.from_numpy(singular), lib.from_numpy(ones), check_errors=True),
        lambda lib: lib.linalg.inv_ex(lib.from_numpy(singular), check_errors=True),
        lambda lib: lib.linalg.cholesky_ex(lib.from_numpy(indefinite), check_errors=True),
    ]
    for fn in cases:
        both(lambda lib, fn=fn: _named_linalg_error(lib, fn))


def _named_linalg_error(lib, fn):
    """fn(lib), with LinAlgError (torch's class is torch._C._LinAlgError) turned into a RuntimeError naming it."""
    try:
        return fn(lib)
    except lib.linalg.LinAlgError as e:
        raise RuntimeError(f"{type(e).__name__}: {e}") from None


# ------------------------------------------------------------------ recurrent layers with complex parameters


def _recurrent(lib, cls, array):
    """A torch.nn recurrent layer of fixed parameters, cast to complex64, on ``array``; its output and the
    gradients of its parameters for a real loss."""
    import warnings

    layer = getattr(lib.nn, cls)(3, 4)
    with lib.no_grad():
        for i, p in enumerate(layer.parameters()):
            p.copy_(lib.from_numpy((np.random.default_rng(i).standard_normal(tuple(p.shape)) * 0.3).astype("float32")))
    with warnings.catch_warnings():  # torch's "Complex modules are a new feature" (checked elsewhere, if at all)
        warnings.simplefilter("ignore")
        layer = layer.to(lib.complex64)
    x = lib.from_numpy(array.copy())
    out = layer(x[0] if "Cell" in cls else x)
    out = out[0] if isinstance(out, tuple) else out
    out.abs().sum().backward()
    return (out.detach(),) + tuple(p.grad for p in layer.parameters())


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"])
def test_recurrent_layers_with_complex_parameters_match_torch(cls) -> None:
    array = _complex((2, 1, 3), "complex64", 5)
    for d, t in zip(_recurrent(dyngrad, cls, array), _recurrent(torch, cls, array)):
        assert_same_tensor(d, t)
