"""Stochastic weight averaging and EMA (torch.optim.swa_utils): AveragedModel, SWALR, update_bn and the
averaging functions.

Formulas (the PyTorch documentation of torch.optim.swa_utils; Izmailov et al. 2018, "Averaging Weights
Leads to Wider Optima and Better Generalization"):
- SWA: avg += (p - avg) / (n + 1) after n models averaged; the first update copies the model;
- EMA: avg = decay * avg + (1 - decay) * p (``get_ema_*``);
- SWALR anneals each group's lr from its value to ``swa_lr`` over ``anneal_epochs`` steps, by
  alpha = t ("linear") or (1 - cos(pi t)) / 2 ("cos"), t = step / anneal_epochs, as torch's
  (which recovers the un-annealed lr of the previous step before blending: ``_get_initial_lr``).
On the CPU torch averages parameter by parameter with the SWA formula (its multi-tensor path is for
accelerators); so does this module.
"""

from __future__ import annotations

import itertools
import math
from copy import deepcopy

from .. import _creation
from .._dtype import int64
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from ..nn.modules.normalization import _InstanceNorm, _NormBase
from .lr_scheduler import LRScheduler, _format_param, _warn_get_lr_called_within_step

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn", "update_bn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999):
    """EMA over lists of tensors, in place: avg.lerp_(p, 1 - decay) (integer tensors: the EMA formula, copied in)."""
    _check_decay(decay)

    def ema_update(ema_params, current_params, _num_averaged) -> None:
        with no_grad():
            for avg, p in zip(ema_params, current_params):
                if avg.is_floating_point() or avg.is_complex():
                    avg.lerp_(p, 1 - decay)
                else:
                    avg.copy_(avg * decay + p * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """SWA over lists of tensors, in place: avg.lerp_(p, 1 / (n + 1)) (integer tensors: avg += (p - avg) / (n + 1))."""

    def swa_update(averaged_params, current_params, num_averaged) -> None:
        with no_grad():
            for avg, p in zip(averaged_params, current_params):
                if avg.is_floating_point() or avg.is_complex():
                    avg.lerp_(p, float(1 / (num_averaged + 1)))
                else:
                    avg.copy_(avg + (p - avg) / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999):
    """EMA of one tensor: returns decay * avg + (1 - decay) * p."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """SWA of one tensor: returns avg + (p - avg) / (n + 1)."""

    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and, with ``use_buffers``, buffers) average the models passed to
    ``update_parameters``; ``forward`` runs the copy. ``n_averaged`` (int64 buffer) counts the updates.

    ``avg_fn(avg, p, n) -> new avg`` or ``multi_avg_fn(avgs, ps, n)`` (in place) replace the SWA average.
    Raises AssertionError (torch's text) when both are given.
    """

    def __init__(self, model: Module, device=None, avg_fn=None, multi_avg_fn=None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        self.register_buffer("n_averaged", _creation.tensor(0, dtype=int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Average ``model``'s parameters (and buffers with ``use_buffers``) into this copy; copy the rest of the
        buffers as they are."""
        if self.use_buffers:
            mine = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            theirs = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            mine, theirs = list(self.parameters()), list(model.parameters())
        mine = [p.detach() for p in mine]
        theirs = [p.detach() for p in theirs]
        n = int(self.n_averaged)
        with no_grad():
            if n == 0:
                for avg, p in zip(mine, theirs):
                    avg.copy_(p)
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(mine, theirs, self.n_averaged)
            else:
                avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                for avg, p in zip(mine, theirs):
                    avg.copy_(avg_fn(avg, p, self.n_averaged))
            if not self.use_buffers:
                for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                    b_avg.detach().copy_(b_model.detach())
            self.n_averaged += 1


def update_bn(loader, model: Module, device=None) -> None:
    """Recompute the batch-norm running statistics of ``model`` over ``loader`` (one pass, cumulative averages:
    momentum None), as torch.optim.swa_utils.update_bn; a batch that is a list or tuple gives its first item."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _NormBase) and not isinstance(module, _InstanceNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` steps, then hold it (torch's SWALR).

    Raises ValueError (torch's texts) for an unknown ``anneal_strategy`` or a negative / non-int ``anneal_epochs``.
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        for lr, group in zip(_format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
