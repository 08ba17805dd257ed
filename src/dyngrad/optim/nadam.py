"""NAdam (torch.optim.NAdam's single-tensor update, Dozat's momentum schedule).

    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay));  mu_product *= mu_t (kept in the scalar dtype)
    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) g^2;  denom = sqrt(v / (1 - beta2^t)) + eps
    p -= lr (1 - mu_t) / (1 - mu_product) * g / denom + lr mu_{t+1} / (1 - mu_product mu_{t+1}) * m / denom
"""

from __future__ import annotations

from .._backend import xp
from .adam import _check_adam_args, _zeros_like
from .optimizer import Optimizer, _bump, _scalar_tensor, lerp_, real_view


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False) -> None:
        _check_adam_args(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group, params) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        wd, momentum_decay, decoupled = group["weight_decay"], group["momentum_decay"], group["decoupled_weight_decay"]
        for p in params:
            state = self.state[p]
            if not state:
                state["step"] = _scalar_tensor(0.0)
                state["mu_product"] = _scalar_tensor(1.0)
                state["exp_avg"] = _zeros_like(p)
                state["exp_avg_sq"] = _zeros_like(p)
            g, pd = real_view(self._grad(p, group)), real_view(p._data)
            state["step"]._data += 1
            step = float(state["step"]._data)
            bias_correction2 = 1 - beta2**step
            if wd != 0:
                if decoupled:
                    pd *= 1 - lr * wd
                else:
                    g = g + wd * pd
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mp = state["mu_product"]._data
            mp *= mu  # in the scalar dtype (float32 by default), as torch's state tensor
            mu_product = float(mp)
            m, v = real_view(state["exp_avg"]._data), real_view(state["exp_avg_sq"]._data)
            lerp_(m, g, 1 - beta1)
            v *= beta2
            v += (1 - beta2) * g * g
            denom = xp.sqrt(v / bias_correction2) + eps
            mu_product_next = mu_product * mu_next
            pd += (-lr * (1.0 - mu) / (1.0 - mu_product)) * g / denom
            pd += ((-lr * mu_next) / (1.0 - mu_product_next)) * m / denom
            for t in state.values():
                _bump(t)
            _bump(p)
