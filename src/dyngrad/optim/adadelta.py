"""Adadelta (torch.optim.Adadelta's single-tensor update).

    v = rho * v + (1 - rho) * g^2;  delta = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * delta^2;  p -= lr * delta
"""

from __future__ import annotations

from .._backend import xp
from .adam import _zeros_like
from .optimizer import Optimizer, _bump, _scalar_tensor, add_, addcmul_, real_view


class Adadelta(Optimizer):
    """Adadelta (Zeiler, 2012), as ``torch.optim.Adadelta``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        v = rho * v + (1 - rho) * g**2;  delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta**2;  p -= lr * delta

    Formula source: the PyTorch documentation of ``torch.optim.Adadelta``; Zeiler, *ADADELTA: An Adaptive
    Learning Rate Method*, 2012.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): coefficient that scales delta before it is applied. Default 1.0.
        rho (float): decay rate of the running averages. Default 0.9.
        eps (float): added inside the square roots for numerical stability. Default 1e-6.
        weight_decay (float): L2 penalty added to the gradient (``g += weight_decay * p``). Default 0.
        maximize (bool): ascend the objective instead of descending it. Default False.
        foreach: accepted as torch accepts it; dyngrad always runs the single-tensor update on the CPU,
            which gives torch's numbers.
        capturable: accepted, as ``foreach``.
        differentiable: accepted, as ``foreach``.

    Raises:
        ValueError: an invalid lr, rho, eps or weight_decay, with torch's texts.

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.Adadelta([w])
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 0.9903, -1.9903])
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group, params) -> None:
        lr, rho, eps, wd = group["lr"], group["rho"], group["eps"], group["weight_decay"]
        for p in params:
            state = self.state[p]
            if not state:
                state["step"] = _scalar_tensor(0.0)
                state["square_avg"] = _zeros_like(p)
                state["acc_delta"] = _zeros_like(p)
            state["step"]._data += 1
            g, pd = real_view(self._grad(p, group)), real_view(p._data)
            if wd != 0:
                g = add_(g.copy(), pd, wd)  # rounded as torch's grad.add(param, alpha=wd)
            v, u = real_view(state["square_avg"]._data), real_view(state["acc_delta"]._data)
            v *= rho
            addcmul_(v, g, g, 1 - rho)
            std = xp.sqrt(v + eps)
            delta = xp.sqrt(u + eps)
            delta /= std
            delta *= g
            u *= rho
            addcmul_(u, delta, delta, 1 - rho)
            add_(pd, delta, -lr)
            for t in state.values():
                _bump(t)
            _bump(p)
