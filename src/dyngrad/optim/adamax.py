"""Adamax (torch.optim.Adamax's single-tensor update).

    m = lerp(m, g, 1 - beta1);  u = max(beta2 * u, |g| + eps);  p -= lr / (1 - beta1^t) * m / u
"""

from __future__ import annotations

from .._backend import xp
from .adam import _check_adam_args, _zeros_like
from .optimizer import Optimizer, _bump, _scalar_tensor, add_, lerp_, real_view


class Adamax(Optimizer):
    """Adamax, Adam's infinity-norm variant (Kingma & Ba, 2015, section 7), as ``torch.optim.Adamax``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        m = beta1 * m + (1 - beta1) * g;  u = max(beta2 * u, |g| + eps);  p -= lr / (1 - beta1**t) * m / u

    Formula source: the PyTorch documentation of ``torch.optim.Adamax``; Kingma & Ba, ICLR 2015, section 7.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): learning rate. Default 2e-3.
        betas (tuple of float): decay rates of the moment and of the infinity norm. Default (0.9, 0.999).
        eps (float): added to the norm for numerical stability. Default 1e-8.
        weight_decay (float): L2 penalty added to the gradient (``g += weight_decay * p``). Default 0.
        maximize (bool): ascend the objective instead of descending it. Default False.
        foreach: accepted as torch accepts it; dyngrad always runs the single-tensor update on the CPU,
            which gives torch's numbers.
        capturable: accepted, as ``foreach``.
        differentiable: accepted, as ``foreach``.

    Raises:
        ValueError: an invalid lr, eps, beta or weight_decay, with torch's texts.

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.Adamax([w], lr=0.1)
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 0.7155, -1.7076])
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False) -> None:
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group, params) -> None:
        lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        for p in params:
            state = self.state[p]
            if not state:
                state["step"] = _scalar_tensor(0.0)
                state["exp_avg"] = _zeros_like(p)
                state["exp_inf"] = _zeros_like(p)
            g, pd = real_view(self._grad(p, group)), real_view(p._data)
            state["step"]._data += 1
            if wd != 0:
                g = add_(g.copy(), pd, wd)  # rounded as torch's grad.add(param, alpha=wd)
            m, u = real_view(state["exp_avg"]._data), real_view(state["exp_inf"]._data)
            lerp_(m, g, 1 - beta1)
            u *= beta2
            xp.maximum(u, xp.abs(g) + eps, out=u)
            clr = lr / (1 - beta1 ** float(state["step"]._data))
            pd += -clr * m / u
            for t in state.values():
                _bump(t)
            _bump(p)
