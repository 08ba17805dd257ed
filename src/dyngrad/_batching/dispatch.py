"""``registry.apply`` under vmap: run an op on batched inputs and record its physical autograd node.

Note [Batching at the array level]
Torch's functorch gives each of ~2000 aten ops a batching rule. dyngrad's ops are written on NumPy
arrays, and the batched tensor's ``_data`` is a ``BatchedArray`` (_batching/array.py): so an op's
own kernel, run once on batched arrays, *is* its batched kernel, each NumPy call inside it going to
the rule of that NumPy function (about 150 rules cover what the registry's kernels call: ufuncs,
reductions, shape functions, indexing, linear algebra, FFTs). The argument checks and parameter
computations of the public functions keep seeing logical shapes. What no rule covers raises
``BatchingFallback`` inside the kernel, and the op then runs once per sample and warns with torch's
text (``loop_forward``); ``docs/func.md`` lists the ops that still do.

A few op families are better served by a rule of their own (``OP_RULES``): elementwise ops whose
kernels branch on values (special functions) run on the physical arrays as they are.
"""

from __future__ import annotations

import numpy as np

from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from ..autograd import anomaly_mode, saved_hooks
from ..autograd import forward_ad as _fw_ad
from ..autograd.grad_mode import _state
from ..autograd.graph import SavedResult, _sequence
from . import context
from .array import (
    STATE,
    BatchedArray,
    BatchingFallback,
    batch_size_at,
    layout,
    levels,
    max_level,
    physical,
    sample,
    warn_fallback,
)
from .tensors import add_batch_level, share_identity, strip_level, to_logical, to_physical

_new = object.__new__
_ndarray = np.ndarray
_fw = _fw_ad.STATE

OP_RULES: dict = {}  # op class -> rule(op, arrays, params) returning the forward's result


def _aten(op) -> str:
    from .._ops.registry import aten_name
    from .array import TORCH_OVERLOADS

    if not isinstance(op, type):
        return str(op)
    return TORCH_OVERLOADS.get(op.__name__) or aten_name(op)


# ---------------------------------------------------------------------------------- forward
def batched_apply(op, inputs: tuple, params: tuple, arrays, multi: bool = False):
    """apply()/apply_multi() while batching: the forward on (possibly) batched arrays, then the node."""
    if arrays is None:
        arrays = [t._data if isinstance(t, Tensor) else t for t in inputs]
    try:
        outs = run_forward(op, arrays, params, multi)
    except ValueError as e:  # NumPy's, as apply() turns them into torch's errors
        from .._ops.registry import _translate

        raise _translate(e, arrays) from None
    results = record(op, inputs, params, arrays, outs, multi)
    if _fw.dual and _fw_ad.has_tangent(inputs):
        if multi:
            _fw_ad.attach(results, _fw_ad.tangents_of(op, inputs, params, None, tuple(results)))
        else:
            _fw_ad.attach(results, _fw_ad.tangents_of(op, inputs, params, arrays, results[0]))
            from .._ops.registry import keep_saved_tangent

            keep_saved_tangent(results[0])
    return tuple(results) if multi else results[0]


def run_forward(op, arrays, params, multi: bool):
    """The op's forward on batched arrays: its rule, its own kernel, or a loop over the samples."""
    prev_op = STATE.op
    STATE.kernel += 1
    STATE.op = op
    try:
        if not OP_RULES:
            from . import op_rules

            OP_RULES.update(op_rules.load())
        rule = OP_RULES.get(op)
        try:
            out = rule(op, arrays, params) if rule is not None else op.forward(*arrays, *params)
        except Exception as first:  # noqa: BLE001 - a kernel that could not batch: see below
            if getattr(first, "_vmap_refusal", False):
                raise
            out = _retry(op, arrays, params, first)
    finally:
        STATE.kernel -= 1
        STATE.op = prev_op
    if multi:
        return tuple(_as_array(o) for o in out)
    return (_as_array(out),)


def _as_array(o):
    t = type(o)
    if t is _ndarray or t is BatchedArray:
        return o
    return np.asarray(o)


def _retry(op, arrays, params, first):
    """After a failed batched kernel: once more with the shared (unbatched) arrays broadcast over the batch
    (``plain[batched_index]`` then dispatches), then a loop; an error that every sample raises is the op's own."""
    level = max(max_level(arrays), max_level(params))
    if level < 0:  # nothing batched: the error is the op's own
        raise first
    size = batch_size_at(list(arrays) + list(params), level)
    lifted_a, lifted_p = _lift(arrays, level, size, True), _lift(params, level, size)
    if lifted_a is not None or lifted_p is not None:
        lifted_a = lifted_a if lifted_a is not None else list(arrays)
        lifted_p = lifted_p if lifted_p is not None else list(params)
        try:
            return op.forward(*lifted_a, *lifted_p)
        except Exception:  # noqa: BLE001
            pass
    else:
        lifted_a, lifted_p = arrays, params
    try:  # arrays the kernel makes for itself (zeros to scatter into) batched too: see context.allocating
        with context.allocating(level, size):
            return op.forward(*lifted_a, *lifted_p)
    except Exception:  # noqa: BLE001
        pass
    return loop_forward(op, arrays, params, level)


def _lift(items, level, size, scalars=False):
    """``items`` with every plain array broadcast over the batch of ``level``; None when there is none.
    0-d arrays too with ``scalars`` (the op's inputs; a 0-d parameter is a number the kernel reads)."""
    found = []

    def lift(x):
        t = type(x)
        if t is _ndarray and (scalars or x.ndim):
            found.append(x)
            return BatchedArray(np.broadcast_to(x, (size,) + x.shape), 0, level)
        if t is list:
            return [lift(y) for y in x]
        if t is tuple:
            return tuple(lift(y) for y in x)
        return x

    out = [lift(x) for x in items]
    return out if found else None


def loop_forward(op, arrays, params, level):
    """The op once per sample of ``level`` (torch's fallback), results stacked; warns with torch's text."""
    from .array import FALLBACK_LOG, stack_samples

    n = batch_size_at(list(arrays) + list(params), level)
    results = []
    with context.allocating(None):  # one sample's kernel allocates one sample's arrays
        for i in range(n):
            results.append(_forward_sample(op, arrays, params, i, level))
    # warned once the samples ran: an error a sample raises is the op's own (torch's kernel raises it for the
    # batch), not the sign of a missing rule
    if FALLBACK_LOG is not None:
        FALLBACK_LOG.append(_aten(op))
    warn_fallback(_aten(op))
    return stack_samples(results, level)


def _forward_sample(op, arrays, params, i, level):
    a, p = sample(list(arrays), i, level), sample(tuple(params), i, level)
    try:
        r = op.forward(*a, *p)
    except Exception as e:  # noqa: BLE001
        if max(max_level(a), max_level(p)) < 0 or getattr(e, "_vmap_refusal", False):
            raise
        r = _retry(op, a, p, e)
    return _own_copy(r)  # a kernel may return a view of a scratch buffer its next call reuses


def _own_copy(r):
    if type(r) in (tuple, list):
        return type(r)(_own_copy(x) for x in r)
    if type(r) is _ndarray:
        return r.copy()
    return _as_array(r) if type(r) is not BatchedArray else r


# ---------------------------------------------------------------------------------- the node
_CLASSES: dict = {}
# Ops whose array formula cannot batch (its kernels keep per-call caches of unbatched windows): batched nodes
# of these run the Tensor formula, whose ops have rules.
TENSOR_BACKWARD = {"ConvolutionBackward0"}
_registry = None  # dyngrad._ops.registry, which imports this module: bound at first use


def _load_registry():
    global _registry
    from .._ops import registry

    _registry = registry
    return registry


def batched_node_class(op: type) -> type:
    """The node class recorded for ``op`` on batched values: named as ``op`` (torch's ``grad_fn`` names
    are its physical ops' names), with physical gradients in and out (Note [Autograd under vmap is physical])."""
    cls = _CLASSES.get(op)
    if cls is None:
        ns = {
            "__module__": op.__module__,
            "__qualname__": op.__qualname__,
            "__doc__": op.__doc__,
            "_op": op,
            "backward": _batched_backward,
            "backward_arrays": _batched_backward_arrays if getattr(op, "backward_arrays", None) is not None
            and op.__name__ not in TENSOR_BACKWARD else None,
        }
        cls = _CLASSES[op] = type(op.__name__, (op,), ns)
    return cls


def record(op, inputs, params, arrays, outs, multi: bool) -> list:
    """The result tensors of an op run on batched values, with their node when one is needed."""
    needs = _state.enabled and any(isinstance(t, Tensor) and t._requires_grad for t in inputs)
    if not needs:
        return [wrap(o) for o in outs]
    registry = _registry or _load_registry()
    _saved_for_needs, check_complex_grad, edge = registry._saved_for_needs, registry.check_complex_grad, registry.edge

    batched = any(type(o) is BatchedArray for o in outs) or any(
        isinstance(t, Tensor) and type(t._data) is BatchedArray for t in inputs)
    if not op._complex_ok:
        check_complex_grad(op, [physical(a) for a in arrays], tuple(physical(o) for o in outs))
    cls = batched_node_class(op) if batched else op
    node = _new(cls)
    node._seq = next(_sequence)
    edges, versions, needed = [], [], 0
    for t in inputs:
        if isinstance(t, Tensor):
            versions.append(t._vc[0])
            e = edge(t)
            needed += e[0] is not None
            edges.append(e)
        else:
            versions.append(None)
            edges.append((None, 0))
    node.next_functions = tuple(edges)
    if params:
        node._params = params
    node._meta = tuple((physical(o).shape, physical(o).dtype) for o in outs)
    if batched:
        node._lmeta = tuple((o.shape, o.dtype) for o in outs)
        node._in_layouts = tuple(layout(t._data) if isinstance(t, Tensor) else () for t in inputs)
        node._in_shapes = tuple(t._data.shape if isinstance(t, Tensor) else None for t in inputs)
        node._out_layouts = tuple(layout(o) for o in outs)
        own = {}
        for t in inputs:
            if isinstance(t, Tensor):
                own.update(levels(t._data))
        for o in outs:
            own.update(levels(o))
        node._own = own
    if multi and len(outs) == 2 and outs[1].dtype.kind in "iu":
        node._indices = outs[1]
    if anomaly_mode._any & anomaly_mode.ANOMALY:
        node._anomaly_trace = anomaly_mode.forward_stack()
    results = []
    for i, o in enumerate(outs):
        differentiable = not multi or o.dtype.kind in FLOATING_OR_COMPLEX_KINDS
        r = wrap(o, differentiable, node if differentiable else None)
        r._output_nr = i
        results.append(r)
    if op.save_inputs:
        saved = tuple(inputs)
        if op.save_needs is not None and needed < len(inputs) and not multi:
            saved, versions = _saved_for_needs(op, saved, edges, versions)
        if op.save_result and not multi:
            node._saved = tuple(saved) + (SavedResult(outs[0], results[0]._vc),)
            versions = list(versions) + [0]
        else:
            node._saved = tuple(saved)
        node._versions = versions
    elif op.save_result and not multi:
        node._saved = (SavedResult(outs[0], results[0]._vc),)
        node._versions = (0,)
    if saved_hooks.STACK and node._saved:
        node._saved = saved_hooks.pack_all(node._saved, results[0])
        node._versions = None
        node._packed = True
    return results


# ---------------------------------------------------------------------------------- backward
def _batched_backward(self, *grads):
    """The op's backward formula on the batched gradients (Note [Autograd under vmap is physical])."""
    op = self._op
    context.enter()
    STATE.kernel += 1
    try:
        own = self._own
        lgrads = [None if g is None else to_logical(g, lay) if len(lay) >= len(own) else _first_sample(
            to_logical(g, lay), lay, own) for g, lay in zip(grads, self._out_layouts)]
        try:
            with _scratch_batched(self, lgrads):
                outs = op.backward(self, *lgrads)
        except BatchingFallback:
            outs = loop_backward(self, op.backward, lgrads)
        return _physical_grads(self, outs)
    finally:
        STATE.kernel -= 1
        context.exit()


def _first_sample(g: Tensor, lay: tuple, own: dict) -> Tensor:
    """The gradient of an output that a batch level of its node does not batch (the clone of an unbatched
    input next to a batched result): its physical gradient is already the sum over that level's samples, and
    what it contributes to the inputs is the same for every sample, so it enters the formula as the gradient
    of the first sample only (zeros for the others), which the inputs' gradients then sum once."""
    have = {lv for lv, _ in lay}
    have.update(levels(g._data))  # (a level the gradient has already, a vmap over the backward, is per sample)
    for lv in sorted(own):
        if lv in have:
            continue
        n = own[lv]
        g = g.unsqueeze(0)
        if n > 1:
            from .._ops.join_split import cat

            zeros = np.zeros((n - 1,) + tuple(g.shape[1:]), dtype=g._data.dtype)
            g = cat([g, wrap(zeros)], 0)
        g = add_batch_level(g, 0, lv)
    return g


def _scratch_batched(node, grads):
    """A backward formula of a batched node computes one sample's gradient: the arrays it makes for itself
    (a scatter target, a row-block buffer) are made batched at the top level from the start (Note [Batched
    scratch arrays] in context.py), where every sample needs its own anyway."""
    items = [g._data for g in grads if g is not None]
    level = max(max_level(items), max(node._own) if node._own else -1)
    return context.allocating(level, batch_size_at(items, level) if max_level(items) == level else node._own[level])


def _physical_grads(node, outs) -> tuple:
    """The logical gradients an op's formula returned, summed to their inputs' logical shapes (a formula may
    leave the broadcast shape to the engine, which can only undo broadcasting on physical arrays where the
    batch dim does not get in the way) and laid out as the inputs' physical arrays."""
    if type(outs) is not tuple:
        outs = (outs,)
    result = []
    for i, g in enumerate(outs):
        if g is None or i >= len(node._in_layouts):
            result.append(None)
            continue
        shape = node._in_shapes[i]
        if shape is not None and g._data.shape != shape:
            g = _sum_to(g, shape)
        result.append(to_physical(g, node._in_layouts[i], node._own))
    return tuple(result)


def _sum_to(g: Tensor, shape) -> Tensor:
    if _state.enabled:
        from .._ops.reduction import sum_to

        return sum_to(g, shape)
    from .._backend import sum_to_shape

    return wrap(sum_to_shape(g._data, shape))


def _batched_backward_arrays(self, g):
    op = self._op
    context.enter()
    STATE.kernel += 1
    try:
        lay = self._out_layouts[0]
        data = g
        from .array import add_level

        for level, bdim in reversed(lay):
            data = add_level(data, bdim, level)
        try:
            with _scratch_batched(self, [wrap(data)]):
                outs = op.backward_arrays(self, data)
        except Exception:  # noqa: BLE001 - the array formula is a shortcut: the Tensor formula batches more
            try:
                outs = op.backward(self, wrap(data))
            except BatchingFallback:
                outs = loop_backward(self, op.backward, [wrap(data)])
        return _physical_grads(self, outs)
    finally:
        STATE.kernel -= 1
        context.exit()


def loop_backward(node, backward, grads):
    """A backward formula that could not batch: once more with the arrays it makes for itself batched (Note
    [Batched scratch arrays] in context.py), else once per sample of the top batch level of its gradients,
    saved values and parameters, the results stacked (torch's fallback, with its warning)."""
    from .array import FALLBACK_LOG

    op = getattr(node, "_op", type(node))
    saved = node._saved if node._saved else ()
    params = node._params
    items = [g._data for g in grads if g is not None] + [
        v._data for v in saved if isinstance(v, (Tensor, SavedResult))]
    level = max(max_level(items), max_level(params))
    if level < 0:
        return backward(node, *grads)
    n = batch_size_at(items + list(params), level)
    try:
        with context.allocating(level, n):
            return backward(node, *grads)
    except Exception as e:  # noqa: BLE001 - then once per sample
        if getattr(e, "_vmap_refusal", False):
            raise
    name = _aten(op) + "_backward"
    if FALLBACK_LOG is not None:
        FALLBACK_LOG.append(name)
    warn_fallback(name)
    with context.allocating(None):  # one sample's formula allocates one sample's arrays
        return _backward_samples(node, op, backward, grads, saved, params, n, level)


def _backward_samples(node, op, backward, grads, saved, params, n, level):
    per_sample = []
    for i in range(n):
        tmp = _new(op)
        tmp.__dict__.update(node.__dict__)
        if params:
            tmp._params = sample(tuple(params), i, level)
        tmp._saved = tuple(_sample_value(v, i, level) for v in saved) if saved else ()
        tmp._versions = None
        tmp._packed = False
        if getattr(node, "_indices", None) is not None:
            tmp._indices = sample(node._indices, i, level)
        gs = [None if g is None else _sample_tensor(g, i, level) for g in grads]
        try:
            out = backward(tmp, *gs)
        except BatchingFallback:
            out = loop_backward(tmp, backward, gs)
        out = out if type(out) is tuple else (out,)
        per_sample.append(tuple(wrap(o._data.copy()) if isinstance(o, Tensor) and type(o._data) is _ndarray
                                and not o._requires_grad else o for o in out))
    return tuple(_stack_grads([o[j] for o in per_sample], level) for j in range(len(per_sample[0])))


def _sample_value(v, i, level):
    if isinstance(v, SavedResult):
        return SavedResult(sample(v._data, i, level), v._vc)
    if isinstance(v, Tensor) and type(v._data) is BatchedArray and level in levels(v._data):
        return _sample_tensor(v, i, level)
    return v


def _sample_tensor(t: Tensor, i: int, level: int) -> Tensor:
    if type(t._data) is not BatchedArray or level not in levels(t._data):
        return t
    if _state.enabled and t._requires_grad:
        u, p = strip_level(t, level)
        return u.select(p, i)
    return wrap(sample(t._data, i, level) if t._data.level == level else _deep_sample(t._data, i, level))


def _deep_sample(data, i, level):
    from .array import remove_level

    d, p = remove_level(data, level)
    return d[(slice(None),) * p + (i,)]


def _stack_grads(gs, level):
    if all(g is None for g in gs):
        return None
    if any(g is None for g in gs):
        ref = next(g for g in gs if g is not None)
        gs = [g if g is not None else wrap(np.zeros_like(ref._data)) for g in gs]
    from .._ops.join_split import stack

    s = stack(list(gs), 0)
    from .tensors import add_batch_level

    return add_batch_level(s, 0, level)


# ---------------------------------------------------------------------------------- helpers for autograd.grad
def physical_grad_output(out: Tensor, g: Tensor) -> Tensor:
    """A gradient given for the batched output ``out`` (autograd.grad's grad_outputs), laid out as out's
    physical array (its batch levels broadcast where ``g`` lacks them)."""
    return to_physical(g, layout(out._data), levels(out._data))


def logical_grad(t: Tensor, g: Tensor) -> Tensor:
    """The physical gradient ``g`` of the batched tensor ``t``, read as ``t`` is."""
    return to_logical(g, layout(t._data))


def share(t: Tensor, data) -> Tensor:
    return share_identity(t, data)


# ---------------------------------------------------------------------------------- in-place on views
def sample_zero(data):
    """The first sample of every batch level of ``data``: a plain ndarray view of its memory."""
    while type(data) is BatchedArray:
        # the Ellipsis keeps a 0-d sample a view (a bare integer index would give a NumPy scalar, a copy)
        data = data.value[(slice(None),) * data.bdim + (0, Ellipsis)]
    return data


def logical_backward(node, *grads):
    """``node``'s backward formula on logical gradients: for a node recorded on batched values, its op's
    own formula (the node itself takes and gives physical gradients)."""
    op = getattr(node, "_op", None)
    if op is None:
        return node.backward(*grads)
    return op.backward(node, *grads)


def copy_slices_node(cls, base, old_base, fn, positions):
    """The CopySlices node of an in-place op on a view of the batched ``base`` (inplace.py, Note [In-place on
    a view]): recorded as a batched node, its formula runs on logical gradients."""
    from .._ops.registry import edge

    node = _new(batched_node_class(cls))
    node._seq = next(_sequence)
    node.next_functions = (edge(old_base),) + tuple(fn.next_functions[1:])
    node._params = (positions, base._data.shape, fn)
    node._meta = ((physical(base._data).shape, base._data.dtype),)
    node._lmeta = ((base._data.shape, base._data.dtype),)
    fn_layouts = getattr(fn, "_in_layouts", None) or ((),) * len(fn.next_functions)
    fn_shapes = getattr(fn, "_in_shapes", None) or (None,) * len(fn.next_functions)
    node._in_layouts = (layout(old_base._data),) + tuple(fn_layouts[1:])
    node._in_shapes = (old_base._data.shape,) + tuple(fn_shapes[1:])
    node._out_layouts = (layout(base._data),)
    own = dict(levels(base._data))
    own.update(getattr(fn, "_own", {}))
    node._own = own
    return node
