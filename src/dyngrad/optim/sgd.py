"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch.optim.SGD's single-tensor update).

    g = -grad if maximize else grad;  g += weight_decay * p
    buf = g (first step) | momentum * buf + (1 - dampening) * g
    g = g + momentum * buf (nesterov) | buf;  p -= lr * g
"""

from __future__ import annotations

from .._tensor import Tensor, wrap
from .optimizer import Optimizer, _bump, add_


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, as ``torch.optim.SGD``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        g = grad (or -grad with maximize) + weight_decay * p
        buf = g on the first step, else momentum * buf + (1 - dampening) * g
        p -= lr * (g + momentum * buf if nesterov else buf)   (p -= lr * g without momentum)

    Formula source: the PyTorch documentation of ``torch.optim.SGD``; Nesterov momentum after Sutskever et al.,
    2013.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): learning rate. Default 1e-3.
        momentum (float): momentum factor. Default 0.
        dampening (float): dampening of the momentum. Default 0.
        weight_decay (float): L2 penalty added to the gradient (``g += weight_decay * p``). Default 0.
        nesterov (bool): Nesterov momentum (needs momentum > 0 and dampening 0). Default False.
        maximize (bool): ascend the objective instead of descending it. Default False.
        foreach: accepted as torch accepts it; dyngrad always runs the single-tensor update on the CPU,
            which gives torch's numbers.
        differentiable: accepted, as ``foreach``.
        fused: accepted, as ``foreach``.

    Raises:
        ValueError: a negative lr, momentum or weight_decay, or nesterov without momentum, with torch's texts.

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 0.0620, -0.1240])
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update_group(self, group, params) -> None:
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        wd, nesterov = group["weight_decay"], group["nesterov"]
        for p in params:
            g = self._grad(p, group)
            # torch's grad.add(param, alpha=wd), buf.mul_(momentum).add_(grad, alpha=1 - dampening),
            # grad.add(buf, alpha=momentum) and param.add_(grad, alpha=-lr), rounded as its kernels round them
            if wd != 0:
                g = add_(g.copy(), p._data, wd)
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = wrap(g.copy())
                else:
                    buf._data *= momentum
                    add_(buf._data, g, 1 - dampening)
                    _bump(buf)
                state["momentum_buffer"] = buf
                g = add_(g.copy(), buf._data, momentum) if nesterov else buf._data
            add_(p._data, g, -lr)
            _bump(p)
