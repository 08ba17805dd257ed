"""Activation checkpointing: ``dyngrad.utils.checkpoint.checkpoint`` (torch.utils.checkpoint).

``checkpoint(fn, *args)`` runs ``fn`` without recording its graph, so none of its
intermediate results are kept; in backward it runs ``fn`` again with grad on and
backpropagates through that fresh graph. Same gradients, less memory held between
forward and backward, at the cost of a second forward. The random state is saved
and restored around the recomputation (``preserve_rng_state``), so dropout draws the
same mask twice.
"""

from __future__ import annotations

import warnings

from .. import _backend
from .._tensor import Tensor
from ..autograd import backward as _backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad


class CheckpointFunction(Function):
    """The node standing for a whole checkpointed segment."""

    @staticmethod
    def forward(ctx, fn, preserve_rng_state, *args):
        ctx.fn = fn
        ctx.rng_state = _backend.generator().to_bytes() if preserve_rng_state else None
        ctx.tensor_slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.args = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return fn(*args)

    @staticmethod
    def backward(ctx, *grads):
        tensors = ctx.saved_tensors
        args = list(ctx.args)
        inputs = []
        for slot, t in zip(ctx.tensor_slots, tensors):
            leaf = t.detach().requires_grad_(t.requires_grad)
            args[slot] = leaf
            inputs.append(leaf)
        if ctx.rng_state is not None:
            gen = _backend.generator()
            current = gen.to_bytes()
            gen.from_bytes(ctx.rng_state)
        try:
            with enable_grad():
                outputs = ctx.fn(*args)
        finally:
            if ctx.rng_state is not None:
                gen.from_bytes(current)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if pairs:
            # A nested backward, as torch's reentrant checkpoint: it also reaches tensors the segment
            # closed over (parameters), whose .grad it accumulates directly.
            _backward([o for o, _ in pairs], [g for _, g in pairs])
        result = []
        t_iter = iter(inputs)
        for a in ctx.args:
            if a is None:  # a tensor argument: its gradient sits on the detached copy
                result.append(next(t_iter).grad)
            else:
                result.append(None)
        return (None, None, *result)


def checkpoint(function, *args, use_reentrant: bool | None = None, preserve_rng_state: bool = True, **kwargs):
    """Run ``function(*args)`` keeping no intermediate results; recompute them in backward.

    Args:
        function: the segment to checkpoint; takes and returns tensors (and other values).
        args: its arguments.
        use_reentrant: accepted for compatibility with torch; both settings behave the same here.
        preserve_rng_state: restore the random state when recomputing (True by default).

    Returns:
        What ``function(*args)`` returns.
    """
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
            "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            UserWarning,
            stacklevel=2,
        )
    from .._backend import xp
    from .._tensor import wrap
    from ..autograd.grad_mode import is_grad_enabled

    if is_grad_enabled() and not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        # The segment may still use parameters it closes over (the first block of a network, whose
        # input needs no gradient): a dummy input that requires grad makes the node be recorded, so
        # backward reaches those parameters, as torch's non-reentrant checkpoint does.
        dummy = wrap(xp.zeros(()), True)
        return CheckpointFunction.apply(lambda _, *rest: function(*rest), preserve_rng_state, dummy, *args)
    return CheckpointFunction.apply(function, preserve_rng_state, *args)
