"""Forward-mode AD: ``dual_level``, ``make_dual``, ``unpack_dual`` (torch.autograd.forward_ad).

A dual tensor carries a tangent ``t`` next to its value; every op applied to it also
computes the tangent of its result, ``J t`` (a Jacobian-vector product), so one
forward pass gives a directional derivative.

Note [Tangents from the backward formulas]
dyngrad derives each op's tangent rule from its backward formula instead of writing
a second formula per op. A backward formula computes ``J^T g``, linearly in ``g``; so
with a dummy ``g`` that requires grad, ``s = <J^T g, t>`` is recorded and
``ds/dg = J t``. This costs about three forward computations per op (only while a
dual level is active and an input has a tangent), and gives every op whose backward
is differentiable a correct tangent, with no rule to keep in sync.
"""

from __future__ import annotations

from collections import namedtuple

from .._backend import xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


class _State:
    level = -1  # the innermost active level, -1 when none
    dual = False  # a dual level is entered (and tangents are not being computed right now)
    batching = False  # a vmap (or a backward through values batched by one) is running: _batching/context.py
    inference = False  # some thread is inside torch.inference_mode(): results get marked (_inference.py)
    profiling = False  # a profiler is recording ops (autograd/profiler.py)
    bf16 = False  # a bfloat16 dtype has been used: ops may meet bfloat16 arrays (Note [bfloat16 compute])
    autocast = False  # an enabled torch.autocast("cpu") region is active (Note [CPU autocast])
    active = False  # read by _ops/registry.apply: any of the above, so plain code checks one flag


STATE = _State()


def _refresh() -> None:
    STATE.active = STATE.dual or STATE.batching or STATE.inference or STATE.profiling or STATE.bf16 or STATE.autocast


def enable_bf16() -> None:
    """Send ops through registry's slow path from now on, where bfloat16 arrays are computed in float32."""
    STATE.bf16 = True
    _refresh()


def set_batching(on: bool) -> None:
    STATE.batching = on
    _refresh()


def suspend_dual():
    """Turn tangent propagation off (while tangents themselves are computed); returns the previous state."""
    prev = STATE.dual
    STATE.dual = False
    _refresh()
    return prev


def resume_dual(prev: bool) -> None:
    STATE.dual = prev
    _refresh()
_duals: list = []  # per level: the tensors given tangents at it (cleared on exit)


def enter_dual_level() -> int:
    STATE.level += 1
    STATE.dual = True
    _refresh()
    _duals.append([])
    return STATE.level


def exit_dual_level(*, level: int | None = None) -> None:
    if STATE.level < 0:
        raise RuntimeError("Trying to exit a forward AD level that was not entered.")
    for t in _duals.pop():
        t._fw_grad = None
    STATE.level -= 1
    STATE.dual = STATE.level >= 0
    _refresh()


class dual_level:
    """Context manager for a forward-AD level: tangents made inside are cleared on exit."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()


def _register(t: Tensor, tangent: Tensor) -> None:
    t._fw_grad = tangent
    if _duals:
        _duals[-1].append(t)


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` carrying ``tangent`` (same shape) at the current level.

    Raises:
        RuntimeError: no dual level is active, or the tangent's shape differs (torch's messages).
    """
    if STATE.level < 0:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first."
        )
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
            f"not supported. Tensor is of size {list(tensor.shape)} while the given forward gradient is of size "
            f"{list(tangent.shape)}."
        )
    from .._ops.indexing import getitem

    dual = getitem(tensor, (Ellipsis,))  # an alias: gradients still reach `tensor`
    _register(dual, tangent.detach() if tangent._data.dtype == tensor._data.dtype else tangent.to(tensor.dtype))
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of a dual tensor; the tangent is None for a plain tensor."""
    tangent = getattr(tensor, "_fw_grad", None)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    primal = wrap(tensor._data, tensor._requires_grad, tensor._grad_fn)
    primal._vc = tensor._vc
    return UnpackedDualTensor(primal, tangent)


def has_tangent(inputs) -> bool:
    return any(isinstance(t, Tensor) and t._fw_grad is not None for t in inputs)


def tangents_of(op, inputs, params, arrays, outputs) -> list:
    """The tangents of ``outputs`` of ``op`` (see Note [Tangents from the backward formulas]).

    When grad mode is on and an input or a tangent has a graph (reverse mode over forward mode: a
    Hessian inside ``grad``), the tangents are computed from the inputs themselves and keep their graph;
    otherwise from detached copies, and they come out detached.
    """
    from .._ops import registry
    from . import grad
    from .grad_mode import _state

    prev_grad = _state.enabled
    differentiable = prev_grad and any(
        isinstance(t, Tensor) and (t._requires_grad or (t._fw_grad is not None and t._fw_grad._requires_grad))
        for t in inputs)
    if getattr(op, "linear_tangent", False) and not isinstance(outputs, tuple):
        # an op linear in its one tensor input (mean): the tangent is the op applied to the tangent, which keeps
        # torch's NaN for the mean of an empty tangent (the vjp route below would give 0)
        tangent = inputs[0]._fw_grad
        return [None if tangent is None else wrap(xp.asarray(op.forward(tangent._data, *params)))]
    leaves, tangents, new_inputs = [], [], []
    batched = None
    if STATE.batching:  # vmapped tangents (jacfwd): every sample's product is its own (_batching/tensors.py)
        from .._batching.tensors import expand_over, levels_of

        batched = levels_of(list(inputs) + [t._fw_grad for t in inputs if isinstance(t, Tensor)])
    _state.enabled = True
    prev_dual = suspend_dual()
    try:
        for t in inputs:
            if isinstance(t, Tensor) and t._data.dtype.kind in FLOATING_OR_COMPLEX_KINDS:
                keep = differentiable and t._requires_grad
                # an alias of each input that has a graph: the gradient captured there is the partial derivative,
                # not also what reaches that input through another one (``r / x`` with ``r = x.prod()``)
                leaf = t.view_as(t) if keep else wrap(t._data)
                if batched:
                    leaf = expand_over(leaf, batched)
                    if not keep:
                        leaf = leaf.detach()
                if not keep:
                    leaf._requires_grad = True
                    leaf._func_level = 0  # a scratch leaf: nothing outside differentiates with respect to it
                leaves.append(leaf)
                tangents.append(t._fw_grad)
                new_inputs.append(leaf)
            else:
                new_inputs.append(t)
        if isinstance(outputs, tuple):
            outs = registry.apply_multi(op, tuple(new_inputs), params)
        else:
            outs = (registry.apply(op, tuple(new_inputs), params, None if differentiable else arrays),)
        diff = [o for o in outs if o._requires_grad]
        dummies = [wrap(xp.zeros_like(o._data), True) for o in diff]
        if batched:
            dummies = [expand_over(d.detach(), batched).detach() for d in dummies]
        for d in dummies:
            d._requires_grad = True
            d._func_level = 0
        if not diff:
            return [None] * len(outs)
        grads = grad(diff, leaves, dummies, create_graph=True, retain_graph=True, allow_unused=True)
        # Re<J^H g, t> = Re<g, J t>: its gradient in g is J t, for real and complex tensors alike
        # (torch's convention, Note [Complex gradients] in _ops/registry.py)
        terms = [(g.conj() * t).sum().real for g, t in zip(grads, tangents) if g is not None and t is not None]
        if not terms:
            result = [wrap(xp.zeros_like(o._data)) for o in diff]
        else:
            total = terms[0]
            for term in terms[1:]:
                total = total + term
            if not total._requires_grad:
                found = [None] * len(dummies)
            else:
                found = grad(total, dummies, allow_unused=True, create_graph=differentiable)
            # (+ 0.0: a product that is zero comes out +0 as from torch's forward formulas, not -0)
            if differentiable:
                result = [f + 0.0 if f is not None else wrap(xp.zeros_like(d._data)) for f, d in zip(found, dummies)]
            else:
                result = [wrap(f._data + 0.0) if f is not None else wrap(xp.zeros_like(d._data))
                          for f, d in zip(found, dummies)]
    finally:
        _state.enabled = prev_grad
        resume_dual(prev_dual)
    it = iter(result)
    return [next(it) if o._requires_grad else None for o in outs]


def attach(outputs, tangents) -> None:
    for o, t in zip(outputs, tangents):
        if t is not None and o._data.dtype.kind in FLOATING_OR_COMPLEX_KINDS:
            _register(o, t)
