"""AdamW: Adam with decoupled weight decay (``p *= 1 - lr * weight_decay`` before the Adam update)."""

from __future__ import annotations

from .adam import Adam


class AdamW(Adam):
    """AdamW: Adam with decoupled weight decay (Loshchilov & Hutter, 2019), as ``torch.optim.AdamW``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        p *= 1 - lr * weight_decay, then Adam's update (see ``Adam``) without the L2 term

    Formula source: the PyTorch documentation of ``torch.optim.AdamW``; Loshchilov & Hutter, *Decoupled Weight
    Decay Regularization*, ICLR 2019.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): learning rate. Default 1e-3.
        betas (tuple of float): decay rates of the moment estimates. Default (0.9, 0.999).
        eps (float): added to the denominator for numerical stability. Default 1e-8.
        weight_decay (float): decoupled weight decay coefficient. Default 1e-2.
        amsgrad (bool): use the maximum of past second moments (AMSGrad). Default False.
        maximize (bool): ascend the objective instead of descending it. Default False.
        foreach, capturable, differentiable, fused: accepted as torch accepts them; dyngrad always runs
            the single-tensor update on the CPU, which gives torch's numbers.

    Raises:
        ValueError: an invalid lr, eps, beta or weight_decay, with torch's texts.

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.AdamW([w], lr=0.1, weight_decay=0.1)
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 0.6751, -1.6444])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
