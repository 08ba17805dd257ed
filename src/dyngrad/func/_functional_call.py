"""Modules as functions of their parameters: functional_call, stack_module_state,
replace_all_batch_norm_modules_ (torch.func).

``functional_call(module, params, args)`` swaps the given tensors in for the module's parameters
and buffers (by dotted name), calls the module, and swaps the originals back, so the parameters
become ordinary arguments that ``grad`` and ``vmap`` can transform.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from .._tensor import Tensor


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """Call ``module(*args, **kwargs)`` with its parameters and buffers replaced (torch.func.functional_call).

    Args:
        module: an ``nn.Module``.
        parameter_and_buffer_dicts: a dict {dotted name: tensor}, or a list/tuple of such dicts (merged;
            a key may appear in one only). Names not given keep the module's own tensors.
        args: the positional argument(s): a tuple, or a single argument.
        kwargs: keyword arguments.
        tie_weights: tensors tied in the module (one Parameter under two names) stay tied: a value given
            for one name is used for all of them.
        strict: every parameter and buffer must be given, and nothing else.

    Raises:
        ValueError: dicts that repeat a key, a non-dict argument, two different values for tied names;
        RuntimeError: missing or unexpected keys with ``strict`` (torch's texts).
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        params = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        params = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, params, tie_weights, strict):
        return module(*args, **kwargs)


def _untie(module, params: dict) -> dict:
    """``params`` with the values given for tied tensors copied to every name of the tie."""
    named = {}
    named.update(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    names_of: dict = {}
    for name, t in named.items():
        names_of.setdefault(id(t), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    given = [n for n in params if n in tied]
    for name in given:
        names = tied[name]
        if len(names.intersection(given)) > 1 and len({id(params[n]) for n in names if n in params}) != 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, which are tied. Consider using "
                "tie_weights=False"
            )
    out = dict(params)
    for name in given:
        for other in tied[name]:
            out[other] = params[name]
    return out


def _owner(module, name: str):
    prefix, _, attr = name.rpartition(".")
    sub = module
    if prefix:
        for part in prefix.split("."):
            sub = sub._modules[part] if part in sub._modules else getattr(sub, part)
    return sub, attr


def _swap(module, name: str, value):
    """Put ``value`` under ``name`` (a parameter, buffer or plain attribute); return what was there."""
    sub, attr = _owner(module, name)
    if not isinstance(value, Tensor) and value is not None and value is not _MISSING:
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    if attr in sub._parameters:
        old = sub._parameters[attr]
        if value is _MISSING:
            del sub._parameters[attr]
        else:
            sub._parameters[attr] = value
    elif attr in sub._buffers:
        old = sub._buffers[attr]
        if value is _MISSING:
            del sub._buffers[attr]
        else:
            sub._buffers[attr] = value
    else:
        old = sub.__dict__.get(attr, _MISSING)
        if value is _MISSING:
            sub.__dict__.pop(attr, None)
        else:
            object.__setattr__(sub, attr, value)
    return old


_MISSING = object()


@contextlib.contextmanager
def _reparametrize(module, params: dict, tie_weights: bool, strict: bool):
    untied = _untie(module, params) if tie_weights else params
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing, unexpected = sorted(valid - set(untied)), sorted(set(untied) - valid)
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(), "\n\t".join(errors)))
    originals = {}
    try:
        for name, value in untied.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        for name, value in originals.items():
            _swap(module, name, value)


def stack_module_state(models):
    """(params, buffers): each parameter and buffer of ``models`` (modules of one class) stacked along a new
    dim 0, for ``vmap`` over an ensemble with ``functional_call`` (torch.func.stack_module_state).

    Stacked parameters that required grad are new leaves requiring grad.

    Raises:
        RuntimeError: no models, models of different classes or train/eval modes, a parameter that
            requires grad in some models only (torch's texts).
    """
    from .._ops.join_split import stack

    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(tensors, name):
        all_grad = all(t.requires_grad for t in tensors)
        if not all_grad and any(t.requires_grad for t in tensors):
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        result = stack(list(tensors))
        if all_grad:
            result = result.detach().requires_grad_()
        return result

    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: stacked(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: stacked(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """Turn off running statistics in every BatchNorm of ``root`` (in place; returns ``root``), so that it
    can run under ``vmap`` (torch.func.replace_all_batch_norm_modules_)."""
    from ..nn.modules import normalization

    batch_norms = tuple(getattr(normalization, n) for n in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d")
                        if hasattr(normalization, n))
    for m in [root, *root.modules()]:
        if isinstance(m, batch_norms) and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
