"""Pruning of module parameters (torch.nn.utils.prune).

Pruning ``name`` of a module moves the parameter to ``name + "_orig"``, adds a buffer
``name + "_mask"`` (ones where a value is kept, zeros where it is pruned) and makes ``name`` a plain
tensor attribute ``mask * orig``, recomputed before each forward by a forward pre-hook (the pruning
method itself). Pruning the same parameter again combines the methods in a ``PruningContainer``: the
new method only prunes among the values (or, for a structured method, the channels) still kept.
``remove`` makes the pruning permanent: the parameter ``name`` holds ``mask * orig`` again.

The masks are torch's: the same amounts (an int is a count, a float a fraction rounded half to even),
the same random draws (``rand_like`` / ``rand`` then ``topk`` / ``kthvalue``) and the same tie order,
so a seeded program prunes the same values on dyngrad and on torch.

Source: the PyTorch documentation of ``torch.nn.utils.prune`` (its functions and classes, their
arguments and errors).
"""

from __future__ import annotations

import numbers

from ... import _creation
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured", "RandomStructured",
    "LnStructured", "CustomFromMask", "identity", "random_unstructured", "l1_unstructured", "random_structured",
    "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned",
]


class BasePruningMethod:
    """A pruning method: ``compute_mask(t, default_mask)`` gives the new mask; applied, it is the module's forward
    pre-hook that recomputes ``module.<name> = mask * orig``."""

    PRUNING_TYPE = "unstructured"
    _tensor_name = None

    def __call__(self, module, inputs) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    def compute_mask(self, t, default_mask):
        raise NotImplementedError

    def apply_mask(self, module):
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with a new ``cls(*args, **kwargs)``, combined with any earlier pruning of it."""
        method = _combined_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of {module}, got "
                    f"{importance_scores.shape} vs {orig.shape}"
                )
        else:
            importance_scores = orig
        first = not isinstance(method, PruningContainer)
        if first:  # the parameter moves to <name>_orig
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _creation.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # put the parameter back as it was
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes from ``importance_scores`` (default ``t``)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(
                    "importance_scores should have the same shape as tensor t, got "
                    f"{importance_scores.shape} vs {t.shape}"
                )
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else _creation.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruning permanent: the parameter ``<name>`` holds the pruned values; _orig and _mask go."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        pruned = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = pruned.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _combined_method(cls, module, name, *args, **kwargs):
    """The new method, in a PruningContainer with the method already pruning ``name`` (its hook is taken off)."""
    previous = [(key, hook) for key, hook in module._forward_pre_hooks.items()
                if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(previous) > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. Use a PruningContainer."
        )
    for key, _ in previous:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if previous:
        old = previous[0][1]
        if isinstance(old, PruningContainer):
            old.add_pruning_method(method)
            return old
        container = PruningContainer(old)
        container.add_pruning_method(method)
        return container
    return method


class PruningContainer(BasePruningMethod):
    """The pruning methods applied in turn to one parameter; the last one prunes among what the others kept."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' to "
                f"PruningContainer {self}. Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The newest method's mask computed on the part still kept: the kept values (unstructured), the channels
        along its dim with any value kept (structured), everything (global)."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            part = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` '
                                     "defined.")
            ndim = t.dim()
            dim = method.dim + ndim if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
            keep = default_mask.sum(dim=[d for d in range(ndim) if d != dim]) != 0
            part = tuple(keep if d == dim else slice(None) for d in range(ndim))
        elif kind == "global":
            part = tuple(slice(None) for _ in range(t.dim()))
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        new_mask[part] = method.compute_mask(t[part], default_mask=default_mask[part]).to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (a reparametrisation only)."""

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` values (an int) or that fraction of them (a float), chosen at random."""

    def __init__(self, amount) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        n = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone()
        if n != 0:
            # torch's draw: uniform scores, the n largest pruned
            mask.view(-1)[_creation_rand_like(t).view(-1).topk(n).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` values (or fraction of values) of smallest absolute value."""

    def __init__(self, amount) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        n = _count_to_prune(self.amount, t.nelement())
        mask = default_mask.clone()
        if n != 0:
            mask.view(-1)[t.abs().view(-1).topk(n, largest=False).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels (slices along ``dim``), chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        n = _count_to_prune(self.amount, channels)
        if n == 0:
            return default_mask
        scores = _creation.rand(channels)
        keep = scores > scores.kthvalue(n).values  # torch's draw: the n lowest scores are pruned
        mask = _channel_mask(t, self.dim, keep)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest L``n`` norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        _check_structured(t, self.dim)
        channels = t.shape[self.dim]
        n = _count_to_prune(self.amount, channels)
        dims = list(range(t.dim()))
        dims.remove(dims[self.dim])
        kept = t.norm(p=self.n, dim=dims).topk(channels - n, largest=True).indices
        if n == 0:
            return default_mask
        mask = _channel_mask(t, self.dim, kept)
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask) -> None:
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match self.mask shape {self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _creation_rand_like(t):
    return _creation.rand_like(t)


def _channel_mask(t, dim, channels):
    """Zeros like ``t`` with ones in the given channels (a bool mask or indices) along ``dim``."""
    mask = _creation.zeros_like(t)
    mask[tuple(channels if d == (dim % t.dim()) else slice(None) for d in range(t.dim()))] = 1
    return mask


def _check_amount(amount) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (amount < 0) if isinstance(amount, numbers.Integral) else not 0.0 <= float(amount) <= 1.0:
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount, size: int) -> int:
    """An int amount is a count (at most ``size``); a float a fraction, rounded half to even (Python's round)."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")
        return amount
    return round(amount * size)


def _check_structured(t, dim) -> None:
    if t.dim() <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
            f"{t.shape} with {t.dim()} dims"
        )
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def identity(module, name):
    """Reparametrise ``module.<name>`` as ``<name>_orig * <name>_mask`` with a mask of ones; returns the module."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` (an int count or a float fraction) of ``module.<name>``'s values at random."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` values of ``module.<name>`` (or of ``importance_scores``) of smallest magnitude."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` channels of ``module.<name>`` along ``dim`` at random."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest L``n`` norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prune the ``(module, name)`` parameters together: one unstructured method on all their values at once.

    Raises:
        TypeError: ``parameters`` is not iterable, ``importance_scores`` not a dict, or the method not unstructured.
    """
    if not hasattr(parameters, "__iter__"):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n)) for m, n in parameters])
    default_mask = parameters_to_vector([getattr(m, n + "_mask", _creation.ones_like(getattr(m, n)))
                                         for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
            f"{pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        custom_from_mask(module, name, mask=final_mask[start:start + param.numel()].view_as(param))
        start += param.numel()


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is zero; returns the module."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent (see the module docstring); returns the module.

    Raises:
        ValueError: ``module.<name>`` is not pruned (torch's text).
    """
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module) -> bool:
    """Whether ``module`` or a submodule has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod) for _, sub in module.named_modules()
               for hook in sub._forward_pre_hooks.values())
