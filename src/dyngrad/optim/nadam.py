"""NAdam (torch.optim.NAdam's single-tensor update, Dozat's momentum schedule).

    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay));  mu_product *= mu_t (kept in the scalar dtype)
    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) g^2;  denom = sqrt(v / (1 - beta2^t)) + eps
    p -= lr (1 - mu_t) / (1 - mu_product) * g / denom + lr mu_{t+1} / (1 - mu_product mu_{t+1}) * m / denom
"""

from __future__ import annotations

from .._backend import xp
from .adam import _check_adam_args, _zeros_like
from .optimizer import Optimizer, _bump, _scalar_tensor, add_, addcmul_, lerp_, real_view


class NAdam(Optimizer):
    """NAdam, Adam with Nesterov momentum (Dozat, 2016), as ``torch.optim.NAdam``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        mu_t = beta1 * (1 - 0.5 * 0.96**(t * momentum_decay));  m, v as in Adam
        p -= lr * (1 - mu_t) / (1 - prod(mu)) * g / denom + lr * mu_{t+1} / (1 - prod(mu) * mu_{t+1}) * m / denom
        with denom = sqrt(v / (1 - beta2**t)) + eps

    Formula source: the PyTorch documentation of ``torch.optim.NAdam``; Dozat, *Incorporating Nesterov Momentum
    into Adam*, ICLR 2016 workshop.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): learning rate. Default 2e-3.
        betas (tuple of float): decay rates of the moment estimates. Default (0.9, 0.999).
        eps (float): added to the denominator for numerical stability. Default 1e-8.
        weight_decay (float): L2 penalty added to the gradient (``g += weight_decay * p``). Default 0.
        momentum_decay (float): the schedule's momentum decay. Default 4e-3.
        decoupled_weight_decay (bool): decay the weights directly (NAdamW). Default False.
        maximize (bool): ascend the objective instead of descending it. Default False.
        foreach: accepted as torch accepts it; dyngrad always runs the single-tensor update on the CPU,
            which gives torch's numbers.
        capturable: accepted, as ``foreach``.
        differentiable: accepted, as ``foreach``.

    Raises:
        ValueError: an invalid lr, eps, beta, weight_decay or momentum_decay, with torch's texts.

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.NAdam([w], lr=0.1)
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 0.7527, -1.7475])
    """

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
                    g = add_(g.copy(), pd, wd)  # rounded as torch's grad.add(param, alpha=wd)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mp = state["mu_product"]._data
            mp *= mu  # in the scalar dtype (float32 by default), as torch's state tensor
            mu_product = float(mp)
            m, v = real_view(state["exp_avg"]._data), real_view(state["exp_avg_sq"]._data)
            lerp_(m, g, 1 - beta1)
            v *= beta2
            addcmul_(v, g, g, 1 - beta2)
            denom = xp.sqrt(v / bias_correction2) + eps
            mu_product_next = mu_product * mu_next
            pd += (-lr * (1.0 - mu) / (1.0 - mu_product)) * g / denom
            pd += ((-lr * mu_next) / (1.0 - mu_product_next)) * m / denom
            for t in state.values():
                _bump(t)
            _bump(p)
