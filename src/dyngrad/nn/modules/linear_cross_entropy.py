"""linear_cross_entropy's chunked path (``F.linear_cross_entropy(..., options=LinearCrossEntropyOptions())``).

The reference path computes the full (N, C) logits and keeps them for backward. The chunked path
takes the batch ``batch_chunk_size`` rows at a time, so only one chunk of logits exists at once:
- 'mean' / 'sum': forward computes the loss and, in the same pass, the gradients of input, weight and
  bias (the gradient of a mean or sum is known up to the upstream scalar); backward scales them. As in
  torch, a second backward raises unless ``allow_retain_graph=True`` (the gradients are handed over,
  not kept), and higher-order gradients are not supported;
- 'none': forward computes per-row losses; backward recomputes each chunk's logits and scales by the
  upstream gradient of each row (not under ``create_graph=True``: torch's backward writes into buffers
  and raises its out= error, and so does this one).

Per row, with logits z = x W^T + b, log-sum-exp l, class weight w_t of the target t (0 when t is
``ignore_index``): loss = w_t (l - z_t), dloss/dz = w_t (softmax(z) - onehot(t)) (the cross-entropy
gradient of PyTorch's derivatives.yaml, nll_loss of log_softmax); 'mean' divides by the sum of w_t.
The grad_fn names are torch's (its custom ops' generated backward classes).
"""

from __future__ import annotations

from ..._backend import xp
from ..._tensor import wrap
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled

OUT_ERROR = ("div(): functions with out=... arguments don't support automatic differentiation, but one of the "
             "arguments requires grad.")
TWICE_ERROR = "linear_cross_entropy chunked backward called twice; retain_graph=True / double backward are not supported."


def _chunk_rows(x, w, b, target, class_weight, ignore_index):
    """Per-row loss and dloss/dlogits of one chunk (arrays)."""
    logits = x @ w.T
    if b is not None:
        logits = logits + b
    peak = logits.max(axis=1, keepdims=True)
    e = xp.exp(logits - peak)
    s = e.sum(axis=1, keepdims=True)
    lse = (peak + xp.log(s))[:, 0]
    keep = target != ignore_index
    t = xp.where(keep, target, 0)
    rows = xp.arange(len(t))
    wt = keep.astype(x.dtype) if class_weight is None else xp.where(keep, class_weight[t], 0).astype(x.dtype)
    loss = wt * (lse - logits[rows, t])
    dlogits = (e / s) * wt[:, None]
    dlogits[rows, t] -= wt
    return loss, dlogits, wt


def _chunks(n: int, size: int):
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default(Function):  # noqa: N801 - torch's name
    """'mean' / 'sum': the loss and its gradients in one chunked pass; backward scales them."""

    @staticmethod
    def forward(ctx, input, linear_weight, target, linear_bias, weight, reduction, ignore_index,  # noqa: A002
                chunk_size, allow_retain_graph):
        x, w = input._data, linear_weight._data
        b = None if linear_bias is None else linear_bias._data
        cw = None if weight is None else weight._data
        t = target._data
        want_x, want_w, want_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1], ctx.needs_input_grad[3]
        total = xp.zeros((), x.dtype)
        denom = xp.zeros((), x.dtype)
        gx = xp.zeros_like(x) if want_x else None
        gw = xp.zeros_like(w) if want_w else None
        gb = xp.zeros_like(b) if want_b else None
        for rows in _chunks(x.shape[0], chunk_size):
            loss, dlogits, wt = _chunk_rows(x[rows], w, b, t[rows], cw, ignore_index)
            total += loss.sum()
            denom += wt.sum()
            if want_x:
                gx[rows] = dlogits @ w
            if want_w:
                gw += dlogits.T @ x[rows]
            if want_b:
                gb += dlogits.sum(axis=0)
        if reduction == "mean":
            with xp.errstate(divide="ignore", invalid="ignore"):
                total = total / denom
                gx, gw, gb = [None if g is None else g / denom for g in (gx, gw, gb)]
        ctx.grads = [None if g is None else wrap(g) for g in (gx, gw, gb)]
        ctx.allow_retain_graph = allow_retain_graph
        return wrap(xp.asarray(total, dtype=x.dtype))

    @staticmethod
    def backward(ctx, grad_output):
        grads = ctx.grads
        if not ctx.allow_retain_graph:
            if grads is None:
                raise RuntimeError(TWICE_ERROR)
            ctx.grads = None
        gx, gw, gb = [None if g is None else g * grad_output for g in grads]
        return gx, gw, None, gb, None, None, None, None, None


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default(Function):  # noqa: N801
    """'none': per-row losses; backward recomputes each chunk's dloss/dlogits."""

    @staticmethod
    def forward(ctx, input, linear_weight, target, linear_bias, weight, ignore_index, chunk_size):  # noqa: A002
        x, w = input._data, linear_weight._data
        b = None if linear_bias is None else linear_bias._data
        cw = None if weight is None else weight._data
        out = xp.empty(x.shape[0], x.dtype)
        for rows in _chunks(x.shape[0], chunk_size):
            out[rows] = _chunk_rows(x[rows], w, b, target._data[rows], cw, ignore_index)[0]
        ctx.save_for_backward(input, linear_weight, target, linear_bias, weight)
        ctx.settings = (ignore_index, chunk_size)
        return wrap(out)

    @staticmethod
    def backward(ctx, grad_output):
        input, linear_weight, target, linear_bias, weight = ctx.saved_tensors  # noqa: A001
        if is_grad_enabled() and any(t is not None and t.requires_grad
                                     for t in (input, linear_weight, linear_bias, grad_output)):
            # create_graph=True: torch's backward writes into buffers (out=) and refuses to be recorded
            raise RuntimeError(OUT_ERROR)
        ignore_index, chunk_size = ctx.settings
        x, w, g = input._data, linear_weight._data, grad_output._data
        b = None if linear_bias is None else linear_bias._data
        cw = None if weight is None else weight._data
        want_x, want_w, want_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1], ctx.needs_input_grad[3]
        gx = xp.zeros_like(x) if want_x else None
        gw = xp.zeros_like(w) if want_w else None
        gb = xp.zeros_like(b) if want_b else None
        for rows in _chunks(x.shape[0], chunk_size):
            dlogits = _chunk_rows(x[rows], w, b, target._data[rows], cw, ignore_index)[1] * g[rows][:, None]
            if want_x:
                gx[rows] = dlogits @ w
            if want_w:
                gw += dlogits.T @ x[rows]
            if want_b:
                gb += dlogits.sum(axis=0)
        out = [None if a is None else wrap(a) for a in (gx, gw, gb)]
        return out[0], out[1], None, out[2], None, None, None


def chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options):  # noqa: A002
    """The chunked path for a 1-D or 2-D input (torch's dispatch in F.linear_cross_entropy)."""
    has_batches = input.dim() == 2
    if not has_batches:
        input, target = input.unsqueeze(0), target.unsqueeze(0)  # noqa: A001
    options = options._adjust(num_batches=input.shape[0], in_features=input.shape[-1],
                              num_classes=linear_weight.shape[0], dtype=input.dtype, device=input.device)
    if reduction == "none":
        result = GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default.apply(
            input, linear_weight, target, linear_bias, weight, ignore_index, options.batch_chunk_size)
    else:
        result = GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default.apply(
            input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options.batch_chunk_size,
            options.allow_retain_graph)
    return result if has_batches else result.squeeze(0)

