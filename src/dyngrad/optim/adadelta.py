"""Adadelta (torch.optim.Adadelta's single-tensor update).

    v = rho * v + (1 - rho) * g^2;  delta = sqrt(u + eps) / sqrt(v + eps) * g
    u = rho * u + (1 - rho) * delta^2;  p -= lr * delta
"""

from __future__ import annotations

from .._backend import xp
from .adam import _zeros_like
from .optimizer import Optimizer, _bump, _scalar_tensor, real_view


class Adadelta(Optimizer):
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
                g = g + wd * pd
            v, u = real_view(state["square_avg"]._data), real_view(state["acc_delta"]._data)
            v *= rho
            v += (1 - rho) * g * g
            std = xp.sqrt(v + eps)
            delta = xp.sqrt(u + eps)
            delta /= std
            delta *= g
            u *= rho
            u += (1 - rho) * delta * delta
            pd += -lr * delta
            for t in state.values():
                _bump(t)
            _bump(p)
