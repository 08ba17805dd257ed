"""Adafactor (torch.optim.Adafactor's single-tensor update) and SparseAdam (which dyngrad, without sparse
tensors, can only refuse: its gradients are always dense).

Adafactor, per parameter p with gradient g at step t (Shazeer & Stern 2018, "Adafactor: Adaptive Learning
Rates with Sublinear Memory Cost", in the form of the PyTorch documentation of torch.optim.Adafactor)::

    beta2_t = 1 - t ** beta2_decay;  rho_t = min(lr, 1 / sqrt(t))
    alpha = max(eps2, RMS(p)) * rho_t;  p *= 1 - lr * weight_decay
    matrices (dim > 1): row_var = lerp(row_var, mean(g^2, dim=-1), 1 - beta2_t)
                        col_var = lerp(col_var, mean(g^2, dim=-2), 1 - beta2_t)
                        v = row_var @ col_var / max(mean(row_var, dim=-2), eps1)
    vectors:            v = lerp(v, g^2, 1 - beta2_t)
    u = g / sqrt(max(v, eps1^2));  p -= alpha / max(1, RMS(u) / d) * u

with eps1 defaulting to the dtype's machine epsilon. The row and column statistics keep O(m + n) memory
for an m x n matrix instead of Adam's O(m n).
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import wrap
from .optimizer import Optimizer, _bump, _scalar_tensor, lerp_


class Adafactor(Optimizer):
    """Adafactor, as ``torch.optim.Adafactor`` (the formulas are in this module's docstring).

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups with their own options.
        lr (float): the relative step size's cap. Default 1e-2.
        beta2_decay (float): exponent of the second-moment decay (1 - t ** beta2_decay). Default -0.8.
        eps (tuple): (eps1, eps2): eps1 floors the variance (None: the dtype's eps), eps2 the parameter RMS.
            Default (None, 1e-3).
        d (float): clipping threshold of the update's RMS. Default 1.0.
        weight_decay (float): decoupled weight decay. Default 0.
        foreach: accepted as torch accepts it (dyngrad runs the single-tensor update).
        maximize (bool): ascend the objective instead. Default False.

    Raises:
        ValueError: invalid settings (torch's texts); RuntimeError: a complex parameter (torch's text).
    """

    def __init__(self, params, lr=1e-2, beta2_decay: float = -0.8, eps=(None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach=None, maximize: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def _update_group(self, group, params) -> None:
        lr, beta2_decay, d, wd = group["lr"], group["beta2_decay"], group["d"], group["weight_decay"]
        eps1_setting, eps2 = group["eps"]
        for p in params:
            if p._data.dtype.kind == "c":
                raise RuntimeError("Adafactor does not support complex parameters")
            state = self.state[p]
            g = self._grad(p, group)
            pd = p._data
            if not state:
                state["step"] = _scalar_tensor(0.0)
                if g.ndim > 1:
                    state["row_var"] = wrap(xp.zeros(g.shape[:-1] + (1,), dtype=g.dtype))
                    state["col_var"] = wrap(xp.zeros(g.shape[:-2] + (1,) + g.shape[-1:], dtype=g.dtype))
                else:
                    state["variance"] = wrap(xp.zeros_like(g))
            eps1 = float(xp.finfo(pd.dtype).eps) if eps1_setting is None else eps1_setting
            step_t = state["step"]
            step_t._data += 1
            _bump(step_t)
            step = float(step_t._data)
            one_minus_beta2_t = step**beta2_decay
            rho_t = min(lr, 1 / step**0.5)
            alpha = max(eps2, float(xp.sqrt((pd * pd).sum())) / pd.size**0.5) * rho_t
            if wd != 0:
                pd *= 1 - lr * wd
            if g.ndim > 1:
                row_var, col_var = state["row_var"]._data, state["col_var"]._data
                lerp_(row_var, (g * g).sum(axis=-1, keepdims=True) / g.shape[-1], one_minus_beta2_t)
                lerp_(col_var, (g * g).sum(axis=-2, keepdims=True) / g.shape[-2], one_minus_beta2_t)
                estimate = row_var @ col_var
                estimate /= xp.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
                _bump(state["row_var"])
                _bump(state["col_var"])
            else:
                variance = state["variance"]._data
                lerp_(variance, g * g, one_minus_beta2_t)
                estimate = variance.copy()
                _bump(state["variance"])
            update = g / xp.sqrt(xp.maximum(estimate, eps1 * eps1))
            denom = max(1.0, float(xp.sqrt((update * update).sum())) / (update.size**0.5 * d))
            pd += (-alpha / denom) * update
            _bump(p)


class SparseAdam(Optimizer):
    """torch.optim.SparseAdam: Adam for sparse gradients. dyngrad has no sparse tensors, so every gradient is
    dense and ``step`` raises torch's RuntimeError for it; construction checks settings as torch does.

    Raises:
        ValueError: invalid lr / eps / betas (torch's texts), complex parameters (torch's text);
        RuntimeError: ``step`` with a gradient (dense, torch's text).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize: bool = False) -> None:
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p._data.dtype.kind == "c"]
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters")

    def _update_group(self, group, params) -> None:
        if params:
            raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
