"""RAdam (torch.optim.RAdam's single-tensor update, Liu et al.'s rectified Adam).

    rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
    rho_t > 5: p -= lr * m_hat * sqrt(1 - beta2^t) / (sqrt(v) + eps) * rect;  else p -= lr * m_hat
"""

from __future__ import annotations

from .._backend import xp
from .adam import _check_adam_args, _zeros_like
from .optimizer import Optimizer, _bump, _scalar_tensor, add_, addcmul_, lerp_, real_view


class RAdam(Optimizer):
    """RAdam, rectified Adam (Liu et al., 2020), as ``torch.optim.RAdam``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
        rho_t > 5: p -= lr * m_hat * rect * sqrt(1 - beta2**t) / (sqrt(v) + eps);  otherwise p -= lr * m_hat

    Formula source: the PyTorch documentation of ``torch.optim.RAdam``; Liu et al., *On the Variance of the
    Adaptive Learning Rate and Beyond*, ICLR 2020.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): learning rate. Default 1e-3.
        betas (tuple of float): decay rates of the moment estimates. Default (0.9, 0.999).
        eps (float): added to the denominator for numerical stability. Default 1e-8.
        weight_decay (float): L2 penalty added to the gradient (``g += weight_decay * p``). Default 0.
        decoupled_weight_decay (bool): decay the weights directly, as AdamW. Default False.
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
            >>> opt = torch.optim.RAdam([w], lr=0.1)
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 0.4623, -0.9246])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False) -> None:
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group, params) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        wd, decoupled = group["weight_decay"], group["decoupled_weight_decay"]
        for p in params:
            state = self.state[p]
            if not state:
                state["step"] = _scalar_tensor(0.0)
                state["exp_avg"] = _zeros_like(p)
                state["exp_avg_sq"] = _zeros_like(p)
            g, pd = real_view(self._grad(p, group)), real_view(p._data)
            state["step"]._data += 1
            step = float(state["step"]._data)
            if wd != 0:
                if decoupled:
                    pd *= 1 - lr * wd
                else:
                    g = add_(g.copy(), pd, wd)  # rounded as torch's grad.add(param, alpha=wd)
            m, v = real_view(state["exp_avg"]._data), real_view(state["exp_avg_sq"]._data)
            lerp_(m, g, 1 - beta1)
            v *= beta2
            addcmul_(v, g, g, 1 - beta2)
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            m_hat = m / bias_correction1
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive_lr = (bias_correction2**0.5) / (xp.sqrt(v) + eps)
                pd += -1.0 * (m_hat * lr * adaptive_lr * rect)
            else:
                pd += -1.0 * (m_hat * lr)
            for t in state.values():
                _bump(t)
            _bump(p)
