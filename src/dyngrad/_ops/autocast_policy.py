"""torch.autocast("cpu"): which ops run in the lower-precision dtype and which in float32.

Note [CPU autocast]
torch's AutocastCPU dispatch key (aten/src/ATen/autocast_mode.cpp, the ``TORCH_LIBRARY_IMPL(aten, AutocastCPU,
m)`` block, and the torch.amp docs, "CPU Ops that can autocast to bfloat16") gives each listed ATen op a cast
policy; every other op runs in its inputs' dtypes:

- lower_precision_fp: floating inputs other than float64 are cast to the autocast dtype (bfloat16 by default,
  float16 allowed) before the op: conv1d/2d/3d and the transposed ones, mm, bmm, addmm, baddbmm, addbmm,
  linear, matmul, prelu, scaled_dot_product_attention;
- fp32: lower-precision floating inputs are cast to float32: the losses (mse, nll, cross_entropy, l1, huber,
  smooth_l1, kl_div, the margin losses, binary_cross_entropy(_with_logits), ...), prod, trace, cdist, the fft
  and most linalg functions, polar, stft, quantile;
- promote: cat, stack, index_copy take the widest floating dtype of their inputs (dyngrad's own promotion).

dyngrad applies the policy at the op (registry's slow path, turned on while an autocast region is active: an
op class named in ``LOWER`` or ``FP32`` gets its inputs cast with ``Tensor.to``, which records ToCopyBackward0
as torch's casts do) and, for the functions made of several ops whose first op must already see float32 (the
losses written as a composite, matmul's matrix-vector paths), at the function (``cast_function_inputs``).
Casts are not cached across ops (torch caches the casts of leaf weights: same values, one more node each time).
"""

from __future__ import annotations

import functools

from .. import _dtype

# grad_fn names of dyngrad ops that are torch's lower_precision_fp ops (conv*/linear/matmul reach these)
LOWER = frozenset((
    "MmBackward0", "AddmmBackward0", "BmmBackward0", "BaddbmmBackward0", "AddbmmBackward0", "ConvolutionBackward0",
    "PreluKernelBackward0", "ConvolutionBackwardOverrideable",
))
# grad_fn names of dyngrad ops that are torch's fp32 ops
FP32 = frozenset((
    "MseLossBackward0", "NllLossBackward0", "NllLoss2DBackward0", "SmoothL1LossBackward0", "HuberLossBackward0",
    "SoftMarginLossBackward0", "MultiMarginLossBackward0", "MultilabelMarginLossBackward0",
    "BinaryCrossEntropyBackward0", "BinaryCrossEntropyWithLogitsBackward0", "KlDivBackward0",
    "ProdBackward0", "ProdBackward1", "TraceBackward0", "CdistBackward0", "PolarBackward0",
    "MaxPool3DWithIndicesBackward0", "AvgPool3DBackward0", "AdaptiveAvgPool3DBackward0",
    "AdaptiveMaxPool3DBackward0", "ReflectionPad1DBackward0", "ReflectionPad2DBackward0",
    "ReplicationPad1DBackward0", "ReplicationPad2DBackward0", "ReplicationPad3DBackward0",
    "GridSampler2DBackward0", "GridSampler3DBackward0", "CholeskyBackward0", "LinalgCholeskyExBackward0",
    "LinalgInvExBackward0", "LinalgSolveExBackward0", "LinalgEigBackward0", "LinalgEighBackward0",
    "LinalgSvdBackward0", "LinalgQrBackward0", "LinalgLstsqBackward0", "LinalgHouseholderProductBackward0",
    "CholeskySolveBackward0", "CholeskyInverseBackward0", "LuSolveBackward0", "TriangularSolveBackward0",
    "OrgqrBackward0", "OrmqrBackward0", "GeqrfBackward0", "FftR2CBackward0", "FftC2RBackward0", "FftC2CBackward0",
))
# dyngrad.nn.functional functions of several ops that torch autocasts to float32 as a whole
FP32_FUNCTIONS = (
    "cross_entropy", "l1_loss", "kl_div", "poisson_nll_loss", "hinge_embedding_loss", "cosine_embedding_loss",
    "margin_ranking_loss", "triplet_margin_loss", "multilabel_margin_loss", "ctc_loss", "nll_loss", "mse_loss",
    "smooth_l1_loss", "huber_loss", "soft_margin_loss", "multi_margin_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
)

_LOWER_FLOATS = ("float16", "bfloat16")
STATE = {"dtype": None}  # the active CPU autocast dtype (None: no enabled region), set by _runtime.autocast


def _cast(value, target, eligible):
    from .._tensor import Tensor

    if isinstance(value, Tensor):
        name = value._data.dtype.name if value._data.dtype.kind != "V" else "bfloat16"
        if name in eligible and name != target.name:
            return value.to(target)
        return value
    if type(value) in (list, tuple):
        return type(value)(_cast(v, target, eligible) for v in value)
    return value


def cast_inputs(op, inputs):
    """``inputs`` cast by the policy of ``op`` (Note [CPU autocast]); None when the op has none."""
    name = op.__name__
    low = STATE["dtype"]
    if low is None:
        return None
    if name in LOWER:
        return tuple(_cast(t, low, ("float32", "float16", "bfloat16")) for t in inputs)
    if name in FP32:
        return tuple(_cast(t, _dtype.float32, _LOWER_FLOATS) for t in inputs)
    return None


def lower_precision_args(*tensors):
    """matmul's operands under an active autocast region: cast to the autocast dtype (float64 stays)."""
    low = STATE["dtype"]
    if low is None:
        return tensors
    return tuple(_cast(t, low, ("float32", "float16", "bfloat16")) for t in tensors)


def fp32_function(fn):
    """``fn`` whose lower-precision floating arguments become float32 inside an autocast region."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if STATE["dtype"] is not None:
            args = tuple(_cast(a, _dtype.float32, _LOWER_FLOATS) for a in args)
            kwargs = {k: _cast(v, _dtype.float32, _LOWER_FLOATS) for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    wrapper._autocast_fp32 = True
    return wrapper


def install(functional_namespace: dict) -> None:
    """Wrap the FP32_FUNCTIONS of dyngrad.nn.functional (its globals) with ``fp32_function``."""
    for name in FP32_FUNCTIONS:
        fn = functional_namespace.get(name)
        if fn is not None and not getattr(fn, "_autocast_fp32", False):
            functional_namespace[name] = fp32_function(fn)
