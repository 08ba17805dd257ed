"""ASGD, averaged SGD (torch.optim.ASGD's single-tensor update).

    t += 1;  g = -grad if maximize else grad;  g += weight_decay * p
    p *= 1 - lambd * eta;  p -= eta * g
    ax = p (while mu == 1) | ax + mu * (p - ax)
    eta = lr / (1 + lambd * lr * t) ** alpha;  mu = 1 / max(1, t - t0)

State per parameter: ``step``, ``eta``, ``mu`` (scalars in the scalar dtype, float32 unless the default
dtype is float64, so ``eta`` is rounded there even for float64 parameters, as in torch) and ``ax``
(the running average, the parameter's shape and dtype). After ``load_state_dict`` eta and mu take the
parameter's dtype (torch's cast), but their updates are still rounded to the default dtype, as torch's.
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import get_default_dtype
from .._tensor import wrap
from .optimizer import Optimizer, _bump, _scalar_tensor, add_, real_view


class ASGD(Optimizer):
    """ASGD, averaged stochastic gradient descent (Polyak & Juditsky, 1992), as ``torch.optim.ASGD``.

    The update, per parameter ``p`` with gradient ``g`` at step ``t``::

        p *= 1 - lambd * eta;  p -= eta * g;  ax = ax + mu * (p - ax)
        eta = lr / (1 + lambd * lr * t)**alpha;  mu = 1 / max(1, t - t0)

    Formula source: the PyTorch documentation of ``torch.optim.ASGD``; Polyak & Juditsky, *Acceleration of
    Stochastic Approximation by Averaging*, 1992.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): learning rate. Default 1e-2.
        lambd (float): decay term. Default 1e-4.
        alpha (float): power of the eta update. Default 0.75.
        t0 (float): the step at which averaging starts. Default 1e6.
        weight_decay (float): L2 penalty added to the gradient (``g += weight_decay * p``). Default 0.
        maximize (bool): ascend the objective instead of descending it. Default False.
        foreach: accepted as torch accepts it; dyngrad always runs the single-tensor update on the CPU,
            which gives torch's numbers.
        capturable: accepted, as ``foreach``.
        differentiable: accepted, as ``foreach``.

    Raises:
        ValueError: an invalid lr or weight_decay, with torch's texts.

    Example:
        With ``import dyngrad as torch`` (the same lines give the same output on PyTorch)::

            >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
            >>> opt = torch.optim.ASGD([w], lr=0.1)
            >>> for _ in range(3):
            ...     opt.zero_grad()
            ...     (w ** 2).sum().backward()
            ...     opt.step()
            >>> w.detach()
            tensor([ 0.5120, -1.0240])
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group, params) -> None:
        lr, lambd, alpha, t0, wd = group["lr"], group["lambd"], group["alpha"], group["t0"], group["weight_decay"]
        for p in params:
            state = self.state[p]
            if not state:
                state["step"] = _scalar_tensor(0.0)
                state["eta"] = _scalar_tensor(lr)
                state["mu"] = _scalar_tensor(1.0)
                state["ax"] = wrap(xp.zeros_like(p._data))
            g, pd = real_view(self._grad(p, group)), real_view(p._data)
            step_t, eta_t, mu_t, ax = state["step"], state["eta"], state["mu"], real_view(state["ax"]._data)
            step_t._data += 1
            if wd != 0:
                g = add_(g.copy(), pd, wd)  # rounded as torch's grad.add(param, alpha=wd)
            eta = float(eta_t._data)
            pd *= 1 - lambd * eta
            add_(pd, g, -eta)  # torch's param.add_(grad, alpha=-eta)
            mu = float(mu_t._data)
            if mu != 1:
                ax += (pd - ax) * mu
            else:
                ax[...] = pd
            step = float(step_t._data)
            # torch goes through ``as_tensor(python float)``: the new values are rounded to the default dtype
            # first, even when eta and mu were loaded as float64
            default = get_default_dtype().np
            eta_t._data[...] = xp.asarray(lr / (1 + lambd * lr * step) ** alpha, dtype=default)
            mu_t._data[...] = xp.asarray(1 / max(1, step - t0), dtype=default)
            for t in (p, step_t, eta_t, mu_t, state["ax"]):
                _bump(t)
