"""Tensor hooks: ``register_hook`` and ``register_post_accumulate_grad_hook``."""

from __future__ import annotations

import itertools

_ids = itertools.count()


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, table: dict, key: int) -> None:
        self._table = table
        self.id = key

    def remove(self) -> None:
        self._table.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def register_tensor_hook(t, hook) -> RemovableHandle:
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    key = next(_ids)
    if t._grad_fn is None:
        if t._hooks is None:
            t._hooks = {}
        table = t._hooks
    else:
        node = t._grad_fn
        if node._pre_hooks is None:
            node._pre_hooks = {}
        table = node._pre_hooks.setdefault(t._output_nr, {})
    table[key] = hook
    return RemovableHandle(table, key)


def register_post_accumulate_hook(t, hook) -> RemovableHandle:
    if not t._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if t._post_acc_hooks is None:
        t._post_acc_hooks = {}
    key = next(_ids)
    t._post_acc_hooks[key] = hook
    return RemovableHandle(t._post_acc_hooks, key)
