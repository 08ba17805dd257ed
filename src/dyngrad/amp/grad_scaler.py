"""torch.amp.GradScaler for dyngrad (see dyngrad/amp/__init__.py)."""

from __future__ import annotations

import warnings
from collections import abc

from .._backend import xp
from .._tensor import Tensor

_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    """Dynamic loss scaling (Micikevicius et al. 2018), torch.amp.GradScaler's interface and state_dict.

    ``scale(outputs)`` multiplies by the scale (MulBackward0); ``unscale_(optimizer)`` divides the gradients by it
    and records whether any is inf or NaN; ``step(optimizer)`` unscales if needed and skips the step when one was;
    ``update()`` multiplies the scale by ``backoff_factor`` after a skipped step, by ``growth_factor`` after
    ``growth_interval`` good steps in a row.

    Errors (torch's texts): unscale_ twice before update (RuntimeError), step with a closure (RuntimeError),
    update without a scale or without inf checks (AssertionError).
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale = None  # a float32 0-d array once scale() has run
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._per_optimizer = {}

    # --------------------------------------------------------------------------------- scaling
    def _lazy_init(self) -> None:
        self._scale = xp.asarray(self._init_scale, dtype=xp.float32)
        self._growth_tracker = self._init_growth_tracker

    def scale(self, outputs):
        """outputs (a tensor, or nested lists/tuples of them) times the current scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._lazy_init()
        from .._tensor import wrap

        def apply(v):
            if isinstance(v, Tensor):
                return v * wrap(self._scale.astype(xp.float32))
            if isinstance(v, abc.Iterable):
                items = [apply(x) for x in v]
                return type(v)(items) if isinstance(v, (list, tuple)) else items
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    def _state(self, optimizer) -> dict:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": None})

    def unscale_(self, optimizer) -> None:
        """Divide the gradients of ``optimizer``'s parameters by the scale, in place; record inf/NaN."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        if self._scale is None:
            raise AssertionError("Attempted unscale_ but _scale is None.  This may indicate your script did not use "
                                 "scaler.scale(loss or outputs) earlier in the iteration.")
        inv_scale = (xp.float64(1.0) / self._scale.astype(xp.float64)).astype(xp.float32)
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if g._data.dtype == xp.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                if not xp.isfinite(g._data).all():
                    found = True
                # torch's _amp_foreach_non_finite_check_and_unscale_ multiplies by the float32 reciprocal
                g._data *= inv_scale.astype(g._data.dtype)
                g._vc[0] += 1
        state["found_inf"] = found
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args, **kwargs) unless an inf/NaN gradient was found (then None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        if self._scale is None:
            raise AssertionError("Attempted step but _scale is None.  This may indicate your script did not use "
                                 "scaler.scale(loss or outputs) earlier in the iteration.")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return retval

    def update(self, new_scale=None) -> None:
        """Grow or back off the scale from the inf checks of this iteration (or set ``new_scale``)."""
        if not self._enabled:
            return
        if self._scale is None:
            raise AssertionError("Attempted update but _scale is None.  This may indicate your script did not use "
                                 "scaler.scale(loss or outputs) earlier in the iteration.")
        if new_scale is not None:
            value = new_scale.item() if isinstance(new_scale, Tensor) else new_scale
            self._scale = xp.asarray(value, dtype=xp.float32)
        else:
            checks = [s["found_inf"] for s in self._per_optimizer.values() if s["found_inf"] is not None]
            if not checks:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(checks):
                self._scale = (self._scale * xp.float32(self._backoff_factor)).astype(xp.float32)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale = (self._scale * xp.float32(self._growth_factor)).astype(xp.float32)
                    self._growth_tracker = 0
        self._per_optimizer = {}

    # --------------------------------------------------------------------------------- state
    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale)

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        tracker = self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": tracker}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = xp.asarray(state_dict["scale"], dtype=xp.float32)
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict["_growth_tracker"]
