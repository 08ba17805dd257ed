"""The Optimizer base class (torch.optim.Optimizer): param groups, state, zero_grad, state_dict.

Updates are written on the parameters' arrays in place (as torch's ``no_grad`` in-place ops),
bumping each tensor's version counter. State tensors (``step``, ``exp_avg``, ...) are dyngrad
tensors with torch's names, dtypes and shapes, so ``state_dict()`` has torch's layout:
``{"state": {0: {...}, ...}, "param_groups": [{<hyperparameters>..., "params": [0, 1]}]}``.
"""

from __future__ import annotations

import copy
import itertools
import warnings
from collections import OrderedDict, defaultdict

from .._backend import xp
from .._dtype import float32, float64, get_default_dtype
from .._ops.cpu_rounding import fma
from .._tensor import Tensor, wrap
from ..autograd import profiler as _profiler
from ..autograd.grad_mode import enable_grad
from ..autograd.hooks import RemovableHandle

_hook_ids = itertools.count()


class _RequiredParameter:
    """Singleton marking a hyperparameter without default (torch.optim.optimizer.required)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj) -> str:
    from ..nn.modules.module import typename

    return typename(obj)


def _scalar_dtype():
    """The dtype of ``step`` and similar scalar state: float64 when that is the default dtype, else float32."""
    return float64 if get_default_dtype() is float64 else float32


def _scalar_tensor(value: float) -> Tensor:
    return wrap(xp.array(value, dtype=_scalar_dtype().np))


def _bump(t: Tensor) -> None:
    t._vc[0] += 1


def real_view(a):
    """The array an update works on: a complex parameter (and its gradient and state) is updated as its real view,
    real and imaginary parts side by side, as torch's optimizers do (``torch.view_as_real`` in each single-tensor
    step; SGD and LBFGS's direction take complex values as they are). A real array is returned as it is."""
    if a.dtype.kind != "c":
        return a
    from .._ops.complex import _real_view

    return _real_view(a)


def _fusable(a) -> bool:
    return a.dtype == xp.float32 or a.dtype == xp.float64


def lerp_(a, end, weight: float):
    """``a.lerp_(end, weight)`` on arrays, with torch's two-branch formula (exact at both ends); for float32 and
    float64 each branch is one fused multiply-add, as in torch's vectorised CPU kernel (``1 - weight`` is
    computed in the dtype first)."""
    if _fusable(a):
        diff = end - a
        if weight < 0.5:
            a[...] = fma(diff, weight, a)
        else:
            a[...] = fma(diff, -(1 - a.dtype.type(weight)), end)
    elif weight < 0.5:
        a += weight * (end - a)
    else:
        a[...] = end - (end - a) * (1 - weight)
    return a


def add_(a, other, alpha: float):
    """``a.add_(other, alpha=alpha)`` on arrays: torch's CPU kernel computes ``fma(other, alpha, a)`` (alpha
    rounded to the dtype, one rounding), which differs from ``a + alpha * other`` in the last bit of about one
    value in five."""
    if alpha == 1:
        a += other
    elif _fusable(a):
        a[...] = fma(other, alpha, a)
    else:
        a += alpha * other
    return a


def addcmul_(a, t1, t2, value: float = 1):
    """``a.addcmul_(t1, t2, value=value)`` on arrays: torch's CPU kernel rounds ``value * t1``, then adds
    ``that * t2`` to ``a`` in one fused multiply-add."""
    if _fusable(a):
        a[...] = fma(t1 if value == 1 else value * t1, t2, a)
    else:
        a += value * t1 * t2
    return a


# hyperparameters torch accepts as 1-element tensors (lr, Adam's betas ...): the steps use their values
_TENSOR_HYPERPARAMETERS = ("lr", "betas", "weight_decay", "momentum")


def _holds_tensor(v) -> bool:
    return isinstance(v, Tensor) or (type(v) is tuple and any(isinstance(x, Tensor) for x in v))


def _with_scalar_hyperparameters(group: dict) -> dict:
    def value(v):
        if isinstance(v, Tensor):
            return v.item()
        if type(v) is tuple and any(isinstance(x, Tensor) for x in v):
            return tuple(x.item() if isinstance(x, Tensor) else x for x in v)
        return v

    return {k: (value(group[k]) if k in _TENSOR_HYPERPARAMETERS else group[k]) for k in group}


class Optimizer:
    """Base class for all optimizers, as ``torch.optim.Optimizer``.

    A subclass passes its hyper-parameters as ``defaults`` and implements the update; the base class
    keeps the parameter groups (``param_groups``: a list of dicts, each with ``"params"`` and every
    option, a group's own value overriding the default), the per-parameter ``state`` (a dict keyed
    by parameter), ``zero_grad``, ``step`` with its pre/post hooks, ``add_param_group``, and
    ``state_dict``/``load_state_dict`` in torch's layout (parameters numbered in group order), so an
    optimizer checkpoint moves between dyngrad and torch.

    Source: the PyTorch documentation of ``torch.optim.Optimizer``.

    Args:
        params: an iterable of tensors, or of dicts that define parameter groups.
        defaults (dict): the default value of each option, used where a group does not set it.

    Raises:
        TypeError: ``params`` is a single tensor, or an element is not a tensor (torch's texts).
        ValueError: ``params`` is empty ("optimizer got an empty parameter list"), or a parameter
            appears in more than one group.

    Example:
        With ``import dyngrad as torch``::

            >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
            >>> b = torch.tensor([0.5], requires_grad=True)
            >>> opt = torch.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
            >>> [g["lr"] for g in opt.param_groups]
            [0.1, 0.5]
            >>> (w.sum() + b.sum()).backward()
            >>> opt.step()
            >>> w.detach(), b.detach()
            (tensor([0.9000, 1.9000]), tensor([0.]))
    """

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + _typename(params)
            )
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(dict(param_group))

    def __getstate__(self) -> dict:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())

    def __repr__(self) -> str:
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {_typename(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors "
                "in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        names, tensors = [], []
        for p in param_group["params"]:
            if isinstance(p, tuple):
                names.append(p[0])
                tensors.append(p[1])
            else:
                tensors.append(p)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(tensors) != len(set(tensors)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this will cause an "
                "error; see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )
        param_set: set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {txt} to the optimizer"
                )
        if not param_set.isdisjoint(set(tensors)):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ grads and steps
    def zero_grad(self, set_to_none: bool = True) -> None:
        with _profiler.range_if_profiling(f"Optimizer.zero_grad#{type(self).__name__}.zero_grad"):
            self._zero_grad(set_to_none)

    def _zero_grad(self, set_to_none: bool) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    if set_to_none:
                        p._grad = None
                    else:
                        g = p._grad
                        if g.grad_fn is not None:
                            g.detach_()
                        else:
                            g.requires_grad_(False)
                        g.zero_()

    def step(self, closure=None):
        """Take one optimisation step; ``closure`` re-evaluates the loss (run with grad enabled)."""
        with _profiler.range_if_profiling(f"Optimizer.step#{type(self).__name__}.step"):
            return self._take_step(closure)

    def _take_step(self, closure):
        for hook in list(self._optimizer_step_pre_hooks.values()):
            hook(self, (), {})
        self._opt_called = True  # schedulers check that step() ran before theirs
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p._grad is not None]
            if any(_holds_tensor(group.get(k)) for k in _TENSOR_HYPERPARAMETERS):
                group = _with_scalar_hyperparameters(group)
            self._update_group(group, params)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, (), {})
        return loss

    def _update_group(self, group: dict, params: list) -> None:
        raise NotImplementedError

    @staticmethod
    def _grad(p: Tensor, group: dict):
        """The gradient array, negated when maximizing (a new array, so in-place math leaves p.grad alone)."""
        g = p._grad._data
        return -g if group.get("maximize", False) else g

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        key = next(_hook_ids)
        self._optimizer_step_pre_hooks[key] = hook
        return RemovableHandle(self._optimizer_step_pre_hooks, key)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        key = next(_hook_ids)
        self._optimizer_step_post_hooks[key] = hook
        return RemovableHandle(self._optimizer_step_post_hooks, key)

    # ------------------------------------------------------------------ state dict
    def state_dict(self) -> dict:
        """``{"state": {index: {...}}, "param_groups": [...]}``, parameters replaced by their index."""
        mappings: dict = {}
        start = 0

        def pack_group(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mappings.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mappings})
            packed["params"] = [mappings[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        id_map = dict(zip(itertools.chain.from_iterable(g["params"] for g in saved_groups),
                          itertools.chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                # as torch's: `step` is kept as it is and the rest go through `.to(param.dtype)`, which gives the
                # very tensor when its dtype already matches (optimizers loaded from one state dict share it)
                if key != "step" and param.is_floating_point() and value._data.dtype != param._data.dtype:
                    return wrap(value._data.astype(param._data.dtype))
                return value
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v, key) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state,
                           "param_groups": [update_group(g, ng) for g, ng in zip(groups, saved_groups)]})
