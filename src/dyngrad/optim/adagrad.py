"""Adagrad (torch.optim.Adagrad's single-tensor update).

    t += 1;  g += wd * p;  clr = lr / (1 + (t - 1) * lr_decay);  s += g^2;  p -= clr * g / (sqrt(s) + eps)
State is created in the constructor (``step`` = 0, ``sum`` = initial_accumulator_value), as torch does.
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import wrap
from .optimizer import Optimizer, _bump, _scalar_tensor, add_, addcmul_, real_view


class Adagrad(Optimizer):
    """Adagrad (Duchi et al., 2011), as ``torch.optim.Adagrad``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        clr = lr / (1 + (t - 1) * lr_decay);  s += g**2;  p -= clr * g / (sqrt(s) + eps)

    Formula source: the PyTorch documentation of ``torch.optim.Adagrad``; Duchi, Hazan & Singer, *Adaptive
    Subgradient Methods*, JMLR 2011.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): learning rate. Default 1e-2.
        lr_decay (float): learning-rate decay per step. Default 0.
        weight_decay (float): L2 penalty added to the gradient (``g += weight_decay * p``). Default 0.
        initial_accumulator_value (float): starting value of the sum of squares. Default 0.
        eps (float): added to the denominator for numerical stability. Default 1e-10.
        maximize (bool): ascend the objective instead of descending it. Default False.
        foreach: accepted as torch accepts it; dyngrad always runs the single-tensor update on the CPU,
            which gives torch's numbers.
        differentiable: accepted, as ``foreach``.
        fused: accepted, as ``foreach``.

    Raises:
        ValueError: an invalid lr, lr_decay, weight_decay, initial_accumulator_value or eps, with torch's texts.

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.Adagrad([w], lr=0.5)
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 0.1564, -0.9836])
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _scalar_tensor(0.0)
                init = group["initial_accumulator_value"]
                if p._data.dtype.kind == "c":  # both parts of a complex parameter start there, as torch's
                    init = complex(init, init)
                state["sum"] = wrap(xp.full_like(p._data, init))

    def _update_group(self, group, params) -> None:
        lr, lr_decay, wd, eps = group["lr"], group["lr_decay"], group["weight_decay"], group["eps"]
        for p in params:
            state = self.state[p]
            state["step"]._data += 1
            step = float(state["step"]._data)
            g, pd = real_view(self._grad(p, group)), real_view(p._data)
            if wd != 0:
                g = add_(g.copy(), pd, wd)  # rounded as torch's grad.add(param, alpha=wd)
            clr = lr / (1 + (step - 1) * lr_decay)
            s = real_view(state["sum"]._data)
            addcmul_(s, g, g)
            pd += -clr * g / (xp.sqrt(s) + eps)
            for t in (p, state["step"], state["sum"]):
                _bump(t)
