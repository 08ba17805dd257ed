"""Adam (torch.optim.Adam's single-tensor update; AdamW is Adam with decoupled weight decay).

    t += 1;  g = -grad if maximize else grad
    p *= 1 - lr * wd (decoupled) | g += wd * p
    m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g^2;  vmax = max(vmax, v) (amsgrad)
    p -= lr / (1 - beta1^t) * m / (sqrt(v or vmax) / sqrt(1 - beta2^t) + eps)
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor, wrap
from .optimizer import Optimizer, _bump, _scalar_tensor, add_, addcmul_, lerp_, real_view


def _check_adam_args(lr, eps, betas, weight_decay) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
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
    """Adam (Kingma & Ba, 2015), as ``torch.optim.Adam``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g**2
        p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)
        (amsgrad uses the running maximum of v; decoupled_weight_decay is AdamW's p *= 1 - lr * weight_decay)

    Formula source: the PyTorch documentation of ``torch.optim.Adam``; Kingma & Ba, *Adam: A Method for
    Stochastic Optimization*, ICLR 2015; AMSGrad after Reddi et al., ICLR 2018.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): learning rate. Default 1e-3.
        betas (tuple of float): decay rates of the first and second moment estimates. Default (0.9, 0.999).
        eps (float): added to the denominator for numerical stability. Default 1e-8.
        weight_decay (float): L2 penalty added to the gradient (``g += weight_decay * p``). Default 0.
        amsgrad (bool): use the maximum of past second moments (AMSGrad). Default False.
        maximize (bool): ascend the objective instead of descending it. Default False.
        decoupled_weight_decay (bool): decay the weights directly, as AdamW. Default False.
        foreach: accepted as torch accepts it; dyngrad always runs the single-tensor update on the CPU,
            which gives torch's numbers.
        capturable: accepted, as ``foreach``.
        differentiable: accepted, as ``foreach``.
        fused: accepted, as ``foreach``.

    Raises:
        ValueError: an invalid lr, eps, beta or weight_decay, with torch's texts.

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.Adam([w], lr=0.1)
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 0.7016, -1.7006])
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False) -> None:
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
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
                    g = add_(g.copy(), pd, wd)  # torch's grad.add(param, alpha=wd)
            lerp_(m, g, 1 - beta1)
            v *= beta2
            addcmul_(v, g, g, 1 - beta2)
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
