"""RMSprop (torch.optim.RMSprop's single-tensor update).

    v = alpha * v + (1 - alpha) * g^2;  centered: ga = lerp(ga, g, 1 - alpha), avg = sqrt(v - ga^2) else sqrt(v)
    avg += eps;  momentum: buf = momentum * buf + g / avg, p -= lr * buf;  else p -= lr * g / avg
"""

from __future__ import annotations

from .._backend import xp
from .adam import _zeros_like
from .optimizer import Optimizer, _bump, _scalar_tensor, add_, addcmul_, lerp_, real_view


class RMSprop(Optimizer):
    """RMSprop (Hinton's lecture 6e; Graves, 2013 for the centered form), as ``torch.optim.RMSprop``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        v = alpha * v + (1 - alpha) * g**2;  avg = sqrt(v) (centered: sqrt(v - mean(g)**2)) + eps
        p -= lr * g / avg   (with momentum: buf = momentum * buf + g / avg;  p -= lr * buf)

    Formula source: the PyTorch documentation of ``torch.optim.RMSprop``; Graves, *Generating Sequences With
    Recurrent Neural Networks*, 2013.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): learning rate. Default 1e-2.
        alpha (float): smoothing constant of the squared-gradient average. Default 0.99.
        eps (float): added to the denominator for numerical stability. Default 1e-8.
        weight_decay (float): L2 penalty added to the gradient (``g += weight_decay * p``). Default 0.
        momentum (float): momentum factor. Default 0.
        centered (bool): normalise by the estimated variance of the gradient. Default False.
        maximize (bool): ascend the objective instead of descending it. Default False.
        foreach: accepted as torch accepts it; dyngrad always runs the single-tensor update on the CPU,
            which gives torch's numbers.
        capturable: accepted, as ``foreach``.
        differentiable: accepted, as ``foreach``.

    Raises:
        ValueError: an invalid lr, eps, momentum, weight_decay or alpha, with torch's texts.

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.RMSprop([w], lr=0.1)
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 3.0331e-12, -3.0969e-01])
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group, params) -> None:
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        wd, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
        for p in params:
            state = self.state[p]
            if not state:
                state["step"] = _scalar_tensor(0.0)
                state["square_avg"] = _zeros_like(p)
                if momentum > 0:
                    state["momentum_buffer"] = _zeros_like(p)
                if centered:
                    state["grad_avg"] = _zeros_like(p)
            g, pd = real_view(self._grad(p, group)), real_view(p._data)
            state["step"]._data += 1
            # rounded as torch's grad.add(param, alpha=wd), square_avg.mul_(alpha).addcmul_(grad, grad, 1 - alpha),
            # square_avg.addcmul(grad_avg, grad_avg, value=-1) and param.add_(buf, alpha=-lr)
            if wd != 0:
                g = add_(g.copy(), pd, wd)
            sq = real_view(state["square_avg"]._data)
            sq *= alpha
            addcmul_(sq, g, g, 1 - alpha)
            if centered:
                ga = real_view(state["grad_avg"]._data)
                lerp_(ga, g, 1 - alpha)
                avg = xp.sqrt(addcmul_(sq.copy(), ga, ga, -1))
            else:
                avg = xp.sqrt(sq)
            avg += eps
            if momentum > 0:
                buf = real_view(state["momentum_buffer"]._data)
                buf *= momentum
                buf += g / avg
                add_(pd, buf, -lr)
            else:
                pd += -lr * g / avg
            for t in state.values():
                _bump(t)
            _bump(p)
