"""Hooks on saved tensors: ``dyngrad.autograd.graph.saved_tensors_hooks(pack, unpack)``.

While the context is active, every tensor an op saves for backward is passed to
``pack`` and the result is kept instead; ``unpack`` turns it back into a tensor when
backward needs it (torch.autograd.graph.saved_tensors_hooks). Typical uses: moving
saved activations elsewhere, compressing them, or counting saved bytes.
"""

from __future__ import annotations

# The active (pack, unpack) pairs; the innermost applies. Read by _ops/registry.apply.
STACK: list = []


class Packed:
    """A saved value after ``pack``; ``unpack()`` gives the tensor back."""

    __slots__ = ("value", "unpack_hook")

    def __init__(self, value, unpack_hook) -> None:
        self.value = value
        self.unpack_hook = unpack_hook

    def unpack(self):
        from .._tensor import Tensor

        t = self.unpack_hook(self.value)
        if not isinstance(t, Tensor):
            raise TypeError(
                f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                f"{type(t).__name__}"
            )
        return t


class saved_tensors_hooks:
    """Context manager: ``pack(tensor) -> anything`` at save time, ``unpack(anything) -> tensor`` at use."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        STACK.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc) -> None:
        STACK.pop()


def pack_all(saved: tuple, result=None) -> tuple:
    """Apply the innermost pack hook to each tensor in ``saved`` (SavedResult entries use ``result``)."""
    from .._tensor import Tensor
    from .graph import SavedResult

    pack, unpack = STACK[-1]
    out = []
    for value in saved:
        if isinstance(value, Tensor):
            out.append(Packed(pack(value), unpack))
        elif isinstance(value, SavedResult):
            from .._tensor import wrap

            out.append(Packed(pack(result.detach() if result is not None else wrap(value._data)), unpack))
        else:
            out.append(value)
    return tuple(out)
