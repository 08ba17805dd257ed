"""torch.nn.utils.stateless.functional_call: call a module with some parameters and buffers replaced.

The given tensors stand in for the module's own (looked up by their state_dict names) during the call
and the originals are put back afterwards, even if the call raises. With ``tie_weights`` a tensor given
for one of several names that share one parameter replaces all of them. ``strict`` demands exactly the
module's names.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager

__all__ = ["functional_call"]


def _tables(module, name: str):
    """(owning submodule, leaf name) of a dotted parameter/buffer name."""
    *path, leaf = name.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part)
    return owner, leaf


@contextmanager
def _reparametrize_module(module, replacements: dict, tie_weights: bool = True, strict: bool = False):
    own = dict(module.named_parameters(remove_duplicate=False))
    own.update(dict(module.named_buffers(remove_duplicate=False)))
    if tie_weights:  # names sharing one tensor all take a replacement given for any of them
        by_id: dict = {}
        for name, t in own.items():
            by_id.setdefault(id(t), []).append(name)
        for names in by_id.values():
            given = [n for n in names if n in replacements]
            for n in names:
                if given and n not in replacements:
                    replacements = {**replacements, n: replacements[given[0]]}
    if strict:
        missing = sorted(set(own) - set(replacements))
        unexpected = sorted(set(replacements) - set(own))
        msgs = []
        if unexpected:
            msgs.append("Unexpected key(s): {}.".format(", ".join(map(repr, unexpected))))
        if missing:
            msgs.append("Missing key(s): {}.".format(", ".join(map(repr, missing))))
        if msgs:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(msgs))
    saved = []
    try:
        for name, value in replacements.items():
            owner, leaf = _tables(module, name)
            for table in (owner._parameters, owner._buffers):
                if leaf in table:
                    saved.append((table, leaf, table[leaf]))
                    table[leaf] = value  # bypasses Parameter checks: a plain tensor may stand in
                    break
            else:
                saved.append((owner.__dict__, leaf, owner.__dict__.get(leaf, _ABSENT)))
                owner.__dict__[leaf] = value
        yield
    finally:
        for table, leaf, old in reversed(saved):
            if old is _ABSENT:
                table.pop(leaf, None)
            else:
                table[leaf] = old


_ABSENT = object()


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """``module(*args, **kwargs)`` with ``parameters_and_buffers`` (a dict: name -> tensor) in place of the
    module's own. Deprecated in torch 2.0 in favour of torch.func.functional_call (torch's
    FutureWarning)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in "
                  "a future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in "
                  "replacement.", FutureWarning, stacklevel=2)
    kwargs = {} if kwargs is None else kwargs
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, dict(parameters_and_buffers), tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
