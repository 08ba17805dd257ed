"""Connectionist temporal classification loss: ``dyngrad.nn.functional.ctc_loss`` (torch.nn.CTCLoss).

Forward and backward are torch's CPU algorithm (aten/src/ATen/native/LossCTC.cpp, after Graves et al.,
"Connectionist Temporal Classification", ICML 2006): the targets are extended with blanks
(l' = blank, l1, blank, l2, ..., blank, length 2L + 1), log_alpha runs forward in time in log space,
log_beta backward, and the gradient with respect to the log-probabilities is, as torch's kernel writes it,

    grad[t, c] = exp(lp[t, c]) - exp(log(sum_{s: l'(s) = c} alpha[t, s] beta[t, s]) + nll - lp[t, c])

for t below the sample's input length (zero after it); with ``zero_infinity`` an infinite loss gives a zero
gradient. This is the gradient torch returns (it presumes log_probs come from log_softmax; it is not the
plain derivative of the loss with respect to arbitrary inputs). The recursions run over time in Python and
are vectorised over batch and target positions. torch has no second derivative (its NotImplemented node).
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_KINDS
from .._tensor import Tensor, wrap
from . import pointwise as pw
from . import reduction as red
from .nn_kernels import _type_name
from .random_ops import NotImplemented as _NoDerivative
from .registry import Op, apply, register

_WHERE = "ctc_loss_allocate_outputs"


def _logsumexp3(a, b, c):
    """log(exp(a) + exp(b) + exp(c)) elementwise, with torch's handling of all -inf (result -inf)."""
    m = xp.maximum(xp.maximum(a, b), c)
    m = xp.where(xp.isneginf(m), 0, m)
    with xp.errstate(divide="ignore"):
        return xp.log(xp.exp(a - m) + xp.exp(b - m) + xp.exp(c - m)) + m


def _extended(targets, target_lengths, blank, s_max):
    """l' (N, S) for every sample (blank at even s, the labels at odd s; blank beyond 2L + 1), and the mask of
    positions s where the skip from s - 2 is allowed (l'(s) is a label different from l'(s - 2))."""
    n = len(target_lengths)
    ext = xp.full((n, s_max), blank, dtype=xp.int64)
    skip = xp.zeros((n, s_max), dtype=bool)
    for b, labels in enumerate(targets):
        L = len(labels)
        if L:
            ext[b, 1:2 * L:2] = labels
            if L > 1:
                skip[b, 3:2 * L:2] = labels[1:] != labels[:-1]
    return ext, skip


def _alpha(lp, ext, skip, il, tl):
    """log_alpha (T, N, S) and the negative log-likelihood (N,), as aten's ctc_loss_cpu_template."""
    T, n, _ = lp.shape
    s_max = ext.shape[1]
    neg = -xp.inf
    rows = xp.arange(n)
    lp_ext = xp.take_along_axis(lp, xp.broadcast_to(ext[None], (T, n, s_max)), axis=2) if T else xp.zeros((0, n, s_max))
    la = xp.full((T, n, s_max), neg, dtype=lp.dtype)
    s_idx = xp.arange(s_max)[None, :]
    valid_s = s_idx < (2 * tl[:, None] + 1)
    if T:
        first = xp.where(s_idx < xp.minimum(2, 2 * tl[:, None] + 1), lp_ext[0], neg)
        la[0] = xp.where(il[:, None] > 0, first, neg)
    pad = xp.full((n, 1), neg, dtype=lp.dtype)
    for t in range(1, T):
        prev = la[t - 1]
        la2 = xp.concatenate([pad, prev[:, :-1]], axis=1)
        la3 = xp.where(skip, xp.concatenate([pad, pad, prev[:, :-2]], axis=1)[:, :s_max], neg)
        cur = _logsumexp3(prev, la2, la3) + lp_ext[t]
        la[t] = xp.where(valid_s & (t < il[:, None]), cur, neg)
    # nll = -log(alpha[T_b - 1, 2L] + alpha[T_b - 1, 2L - 1])
    last = xp.maximum(il - 1, 0)
    end = la[last, rows] if T else xp.full((n, s_max), neg, dtype=lp.dtype)
    l1 = end[rows, 2 * tl]
    l2 = xp.where(tl > 0, end[rows, xp.maximum(2 * tl - 1, 0)], neg)
    m = xp.maximum(l1, l2)
    m = xp.where(xp.isneginf(m), 0, m)
    with xp.errstate(divide="ignore"):
        nll = -(xp.log(xp.exp(l1 - m) + xp.exp(l2 - m)) + m)
    # aten: an empty input sequence has likelihood 1 for an empty target, 0 otherwise
    nll = xp.where(il == 0, xp.where(tl == 0, 0.0, xp.inf), nll).astype(lp.dtype)
    return la, nll, lp_ext


def _beta(lp_ext, ext, skip, il, tl):
    """log_beta (T, N, S), as aten's ctc_loss_backward_cpu_template."""
    T, n, s_max = lp_ext.shape
    neg = -xp.inf
    rows = xp.arange(n)
    lb = xp.full((T, n, s_max), neg, dtype=lp_ext.dtype)
    s_idx = xp.arange(s_max)[None, :]
    valid_s = s_idx < (2 * tl[:, None] + 1)
    # the skip into s + 2 is allowed where l'(s + 2) differs from l'(s): skip shifted left by two
    skip_from = xp.concatenate([skip[:, 2:], xp.zeros((n, 2), dtype=bool)], axis=1)[:, -s_max:]
    pad = xp.full((n, 1), neg, dtype=lp_ext.dtype)
    start = xp.full((n, s_max), neg, dtype=lp_ext.dtype)
    end_mask = (s_idx == 2 * tl[:, None]) | ((s_idx == 2 * tl[:, None] - 1) & (tl[:, None] > 0))
    for t in range(T - 1, -1, -1):
        nxt = lb[t + 1] if t + 1 < T else start
        lb2 = xp.concatenate([nxt[:, 1:], pad], axis=1)
        lb3 = xp.where(skip_from, xp.concatenate([nxt[:, 2:], pad, pad], axis=1)[:, -s_max:], neg)
        rec = _logsumexp3(nxt, lb2, lb3) + lp_ext[t]
        init = xp.where(end_mask, lp_ext[t], neg)
        at_end = (t == il - 1)[:, None]
        inside = (t < il - 1)[:, None]
        lb[t] = xp.where(valid_s & at_end, init, xp.where(valid_s & inside, rec, neg))
    del rows
    return lb


@register
class CtcLossBackward0(Op):
    """_ctc_loss(log_probs (T, N, C), targets, input_lengths, target_lengths, blank, zero_infinity) ->
    the negative log-likelihood per sample (N,). Backward: torch's gradient (module docstring), times
    the incoming gradient of each sample, under a NotImplemented node (no second derivative in torch).
    Params: (targets per sample, input lengths, target lengths, blank, zero_infinity).
    """

    save_inputs = True

    @staticmethod
    def forward(lp, targets, il, tl, blank, zero_infinity):
        s_max = 2 * int(tl.max(initial=0)) + 1
        ext, skip = _extended(targets, tl, blank, s_max)
        _, nll, _ = _alpha(lp, ext, skip, il, tl)
        return nll

    def backward(self, g):
        lp = self.saved()[0]._data
        targets, il, tl, blank, zero_infinity = self._params
        T, n, c = lp.shape
        s_max = 2 * int(tl.max(initial=0)) + 1
        ext, skip = _extended(targets, tl, blank, s_max)
        la, nll, lp_ext = _alpha(lp, ext, skip, il, tl)
        lb = _beta(lp_ext, ext, skip, il, tl)
        ab = la + lb  # (T, N, S)
        # lcab[t, b, c] = log sum_{s: l'(s) = c} exp(ab[t, b, s]), -inf for classes not in l'
        m = ab.max(axis=2, keepdims=True) if s_max else xp.zeros((T, n, 1), lp.dtype)
        m = xp.where(xp.isneginf(m), 0, m)
        onehot = (ext[:, :, None] == xp.arange(c)[None, None, :]).astype(lp.dtype)  # (N, S, C)
        summed = xp.einsum("tns,nsc->tnc", xp.exp(ab - m), onehot)
        with xp.errstate(divide="ignore", invalid="ignore", over="ignore"):
            lcab = xp.log(summed) + m
            grad = xp.exp(lp) - xp.exp(lcab + nll[None, :, None] - lp)
        grad = grad * g._data.astype(lp.dtype, copy=False)[None, :, None]
        grad = xp.where((xp.arange(T)[:, None] < il[None, :])[:, :, None], grad, 0)
        if zero_infinity:
            grad = xp.where(xp.isinf(nll)[None, :, None], 0, grad)
        return (apply(_NoDerivative, (g, self.saved()[0]), (grad.astype(lp.dtype, copy=False), "_ctc_loss_backward")),)


def _lengths(v, name: str):
    if isinstance(v, Tensor):
        a = v._data
        if a.dtype.kind not in "iu":
            raise RuntimeError(f"{name} must be integral")
        return a.reshape(-1).astype(xp.int64)
    return xp.asarray(list(v), dtype=xp.int64).reshape(-1)


def _invalid_call(args) -> TypeError:
    names = ", ".join(type(a).__name__ if not isinstance(a, Tensor) else "Tensor" for a in args)
    sig = "(Tensor log_probs, Tensor targets, {0} input_lengths, {0} target_lengths, int blank = 0, " \
          "int reduction = at::Reduction::Mean, bool zero_infinity = False)"
    marked = ", ".join(n if n == "Tensor" else f"!{n}!" for n in names.split(", "))
    return TypeError(
        f"ctc_loss() received an invalid combination of arguments - got ({names}), but expected one of:\n"
        f" * {sig.format('tuple of ints')}\n      didn't match because some of the arguments have invalid types: "
        f"({marked})\n * {sig.format('Tensor')}\n      didn't match because some of the arguments have invalid "
        f"types: ({marked})\n"
    )


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """The CTC loss (torch.nn.functional.ctc_loss).

    log_probs: (T, N, C) or unbatched (T, C), floating (log_softmax output); targets: (N, S) padded or the
    concatenated targets (sum(target_lengths),), any integer or float dtype (cast to int64 as aten does);
    input_lengths, target_lengths: (N,) integer tensors or sequences of ints. Output: (N,) (or () unbatched)
    for ``none``; ``mean`` divides each loss by its target length (at least 1) and averages; ``sum`` sums.
    Errors: torch's RuntimeError texts of ctc_loss_allocate_outputs (dimensions, blank range, lengths).
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    tensors = (isinstance(input_lengths, Tensor), isinstance(target_lengths, Tensor))
    if tensors[0] != tensors[1] or (not tensors[0] and not all(
            isinstance(v, (list, tuple)) for v in (input_lengths, target_lengths))):
        raise _invalid_call((log_probs, targets, input_lengths, target_lengths, blank, 1, zero_infinity))
    il = _lengths(input_lengths, "input_lengths")
    tl = _lengths(target_lengths, "target_lengths")
    batched = log_probs.dim() == 3
    lp_t = log_probs if batched else log_probs.unsqueeze(1)
    lp = lp_t._data
    t = targets._data
    if lp.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {lp.ndim}-dimensional tensor for argument #1 "
                           f"'log_probs' (while checking arguments for {_WHERE})")
    if not 1 <= t.ndim <= 2:
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {t.ndim}-dimensional tensor for argument #2 "
                           f"'targets' (while checking arguments for {_WHERE})")
    T, n, c = lp.shape
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    if il.size != n:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl.size != n:
        raise RuntimeError("target_lengths must be of size batch_size")
    for v in tl:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {int(v)} "
                               f"(while checking arguments for {_WHERE})")
    t64 = t.astype(xp.int64)
    if t.ndim == 1:
        total = int(tl.sum())
        if t.shape[0] != total:
            raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got size {t.shape[0]} for "
                               f"argument #2 'targets' (while checking arguments for {_WHERE})")
        offsets = xp.concatenate([[0], xp.cumsum(tl)])
        per = [t64[offsets[b]:offsets[b + 1]] for b in range(n)]
    else:
        if t.shape[0] != n:
            raise RuntimeError(f"Expected tensor to have size {n} at dimension 0, but got size {t.shape[0]} for "
                               f"argument #2 'targets' (while checking arguments for {_WHERE})")
        longest = int(tl.max(initial=0))
        if t.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                               f"{t.shape[1]} for argument #2 'targets' (while checking arguments for {_WHERE})")
        per = [t64[b, :tl[b]] for b in range(n)]
    for v in il:
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {int(v)} "
                               f"(while checking arguments for {_WHERE})")
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {int(v)} "
                               f"(while checking arguments for {_WHERE})")
    if lp.dtype.kind not in FLOATING_KINDS:
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for \'{_type_name(lp)}\'')
    res = apply(CtcLossBackward0, (lp_t,), (tuple(per), il, tl, blank, bool(zero_infinity)))
    if zero_infinity:
        res = pw.where_(wrap(res._data == xp.inf), wrap(xp.zeros((), dtype=lp.dtype)), res)
    if reduction == "mean":
        lengths = wrap(xp.maximum(tl, 1).astype(lp.dtype))
        return red.mean(res / lengths)
    if reduction == "sum":
        return red.sum(res)
    return res if batched else res.squeeze(0)


EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
FUNCTIONAL_EXPORTS: dict = {"ctc_loss": ctc_loss}
