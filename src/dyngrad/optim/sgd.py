"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch.optim.SGD's single-tensor update).

    g = -grad if maximize else grad;  g += weight_decay * p
    buf = g (first step) | momentum * buf + (1 - dampening) * g
    g = g + momentum * buf (nesterov) | buf;  p -= lr * g
"""

from __future__ import annotations

from .._tensor import wrap
from .optimizer import Optimizer, _bump


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None) -> None:
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
            if wd != 0:
                g = g + wd * p._data
            if momentum != 0:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = wrap(g.copy())
                else:
                    buf._data *= momentum
                    buf._data += (1 - dampening) * g
                    _bump(buf)
                state["momentum_buffer"] = buf
                g = g + momentum * buf._data if nesterov else buf._data
            p._data -= lr * g
            _bump(p)
