"""Adamax (torch.optim.Adamax's single-tensor update).

    m = lerp(m, g, 1 - beta1);  u = max(beta2 * u, |g| + eps);  p -= lr / (1 - beta1^t) * m / u
"""

from __future__ import annotations

from .._backend import xp
from .adam import _check_adam_args, _zeros_like
from .optimizer import Optimizer, _bump, _scalar_tensor, lerp_, real_view


class Adamax(Optimizer):
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
                g = g + wd * pd
            m, u = real_view(state["exp_avg"]._data), real_view(state["exp_inf"]._data)
            lerp_(m, g, 1 - beta1)
            u *= beta2
            xp.maximum(u, xp.abs(g) + eps, out=u)
            clr = lr / (1 - beta1 ** float(state["step"]._data))
            pd += -clr * m / u
            for t in state.values():
                _bump(t)
            _bump(p)
