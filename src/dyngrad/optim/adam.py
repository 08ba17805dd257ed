"""Adam (torch.optim.Adam's single-tensor update; AdamW is Adam with decoupled weight decay).

    t += 1;  g = -grad if maximize else grad
    p *= 1 - lr * wd (decoupled) | g += wd * p
    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g^2;  vmax = max(vmax, v) (amsgrad)
    p -= lr / (1 - beta1^t) * m / (sqrt(v or vmax) / sqrt(1 - beta2^t) + eps)
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import wrap
from .optimizer import Optimizer, _bump, _scalar_tensor, lerp_, real_view


def _check_adam_args(lr, eps, betas, weight_decay) -> None:
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _zeros_like(p):
    return wrap(xp.zeros_like(p._data))


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False) -> None:
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _update_group(self, group, params) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        wd, amsgrad, decoupled = group["weight_decay"], group["amsgrad"], group["decoupled_weight_decay"]
        for p in params:
            state = self.state[p]
            if not state:
                state["step"] = _scalar_tensor(0.0)
                state["exp_avg"] = _zeros_like(p)
                state["exp_avg_sq"] = _zeros_like(p)
                if amsgrad:
                    state["max_exp_avg_sq"] = _zeros_like(p)
            g, pd = self._grad(p, group), p._data
            m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
            if pd.dtype.kind == "c":  # a complex parameter steps as its real view, as torch's
                g, pd, m, v = real_view(g), real_view(pd), real_view(m), real_view(v)
            step_t = state["step"]
            step_t._data += 1
            _bump(step_t)
            if wd != 0:
                if decoupled:
                    pd *= 1 - lr * wd
                else:
                    g = g + wd * pd
            lerp_(m, g, 1 - beta1)
            v *= beta2
            v += (1 - beta2) * g * g
            step = float(step_t._data)
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2**0.5
            if amsgrad:
                vmax = real_view(state["max_exp_avg_sq"]._data)
                xp.maximum(vmax, v, out=vmax)
                denom = xp.sqrt(vmax) / bias_correction2_sqrt + eps
            else:
                denom = xp.sqrt(v) / bias_correction2_sqrt + eps
            pd += -step_size * m / denom
            for t in (p, state["exp_avg"], state["exp_avg_sq"]):
                _bump(t)
