"""Rprop (torch.optim.Rprop's single-tensor update): per-element step sizes adapted by the sign of
grad * previous grad.

    g = -grad if maximize else grad;  s = sign(g * prev)
    step_size *= etaplus (s > 0) | etaminus (s < 0) | 1 (s == 0);  clamp to step_sizes
    g[s < 0] = 0  (a sign change skips the update and resets prev)
    p -= sign(g) * step_size;  prev = g

State per parameter: ``step`` (scalar), ``prev`` and ``step_size`` (the parameter's shape and dtype,
``step_size`` starting at lr).
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import wrap
from .optimizer import Optimizer, _bump, _scalar_tensor, real_view


class Rprop(Optimizer):
    """Rprop, resilient backpropagation (Riedmiller & Braun, 1993), as ``torch.optim.Rprop``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        s = sign(g * previous g);  step_size *= etaplus (s > 0) or etaminus (s < 0), clamped to step_sizes
        where s < 0 the gradient is taken as 0;  p -= sign(g) * step_size

    Formula source: the PyTorch documentation of ``torch.optim.Rprop``; Riedmiller & Braun, *A Direct Adaptive
    Method for Faster Backpropagation Learning: The RPROP Algorithm*, 1993.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): initial step size of every element. Default 1e-2.
        etas (tuple of float): (etaminus, etaplus), the factors that shrink and grow the step. Default (0.5,
            1.2).
        step_sizes (tuple of float): (min, max) allowed step sizes. Default (1e-6, 50).
        maximize (bool): ascend the objective instead of descending it. Default False.
        foreach, capturable, differentiable, fused: accepted as torch accepts them; dyngrad always runs
            the single-tensor update on the CPU, which gives torch's numbers.

    Raises:
        ValueError: an invalid lr or etas, with torch's texts.

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.Rprop([w], lr=0.1)
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 0.6360, -1.6360])
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group, params) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p in params:
            state = self.state[p]
            if not state:
                state["step"] = _scalar_tensor(0.0)
                state["prev"] = wrap(xp.zeros_like(p._data))
                lr = group["lr"]
                if p._data.dtype.kind == "c":  # both parts of a complex parameter step, as torch's
                    lr = complex(lr, lr)
                state["step_size"] = wrap(xp.full_like(p._data, lr))
            g, pd = real_view(self._grad(p, group)), real_view(p._data)
            state["step"]._data += 1
            prev, step_size = real_view(state["prev"]._data), real_view(state["step_size"]._data)
            sign = xp.sign(g * prev)
            # the factors in the parameter's dtype, as torch's masked fill of ``sign``
            factor = xp.where(sign > 0, etaplus, xp.where(sign < 0, etaminus, 1)).astype(step_size.dtype)
            step_size *= factor
            xp.clip(step_size, step_size_min, step_size_max, out=step_size)
            g = xp.where(factor == step_size.dtype.type(etaminus), 0, g).astype(g.dtype)
            pd -= xp.sign(g) * step_size
            prev[...] = g
            for t in (p, state["step"], state["prev"], state["step_size"]):
                _bump(t)
