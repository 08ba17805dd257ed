"""How an op is declared and run.

An op is a ``Node`` subclass named as torch's ``grad_fn`` (``MulBackward0``), with
- ``forward(*arrays, *params)``: a static function on plain arrays (through the
  backend namespace) returning one array;
- ``backward(self, grad)``: the vector-Jacobian product, written with dyngrad
  Tensor ops, returning one gradient (or None) per input. Under a plain
  ``backward()`` the engine runs it with grad mode off, so it records nothing;
  under ``create_graph=True`` it records, which gives higher derivatives;
- ``save_inputs`` / ``save_result``: what backward needs. Saved inputs keep their
  tensors (with the version they had); a saved result keeps only its array and
  version counter (see Note [No reference cycles] in autograd/graph.py).

``apply`` is the single path from a public function to an op: it runs the
forward and, when grad mode is on and an input requires grad, attaches a node.
Every op class is listed in ``REGISTRY`` by its torch name; the op test table
checks that each has a row.
"""

from __future__ import annotations

import sys
import threading
import weakref

from .._backend import xp
from .._dtype import FLOATING_OR_COMPLEX_KINDS, _limited_in_use
from .._tensor import Tensor, wrap
from ..autograd import anomaly_mode, saved_hooks
from ..autograd import forward_ad as _fw_ad
from ..autograd.grad_mode import _state
from ..autograd.graph import AccumulateGrad, Node, SavedResult, _sequence, new_node
from . import autocast_policy as _autocast
from . import bf16_compute as _bf16
from . import limited_dtypes as _limited

_new = object.__new__
_getframe = sys._getframe
_internal_code = anomaly_mode._INTERNAL  # code object -> is it dyngrad's own (filled by user_site)
_fw = _fw_ad.STATE
_ANOMALY, _ORIGINS, _INFERENCE = anomaly_mode.ANOMALY, anomaly_mode.ORIGINS, anomaly_mode.INFERENCE
_ndarray = xp.ndarray
_asarray = xp.asarray

REGISTRY: dict[str, type] = {}


def register(cls: type) -> type:
    """Class decorator: list the op under its grad_fn name."""
    REGISTRY[cls.__name__] = cls
    return cls


# Note [Backward on arrays]
# ``backward`` (Tensor ops) is every op's reference formula: it is what runs under
# ``create_graph=True`` and what gives higher derivatives. A plain ``backward()``
# records nothing, so for the hottest ops the same formula is also written on
# NumPy arrays as ``backward_arrays(self, grad_array)`` (returning tensors), which
# the engine calls when no graph is being recorded: it skips the dispatch of one
# Tensor op per term, about half of a small op's backward cost. Both paths are
# checked against torch by the op table.


# Note [Complex gradients]
# dyngrad follows torch's convention for complex numbers (PyTorch's "Autograd for Complex Numbers"):
# the gradient of a real loss L with respect to a complex z = x + iy is dL/dx + i dL/dy, the
# conjugate Wirtinger derivative scaled by 2, which is the direction steepest descent takes. So a
# backward formula is the vector-Jacobian product with the *conjugate* of the holomorphic
# derivative: mul's is grad * other.conj(), exp's grad * result.conj(), matmul's grad @ other.mH,
# as in derivatives.yaml. On real tensors conj() is the tensor itself, so real code pays nothing.
# Two rules live in one place each:
# - a real input of an op whose gradient comes back complex (real * complex, a cast to complex)
#   gets the real part of it: the engine's _validate does this for every edge (torch's
#   handle_r_to_c, which derivatives.yaml writes into each formula);
# - an op whose backward has not been written for complex refuses to record a complex graph, with
#   torch's text for the ops it has not implemented ("silu does not support automatic
#   differentiation for outputs with complex dtype."), instead of computing a wrong gradient.
#   Ops that save nothing for backward are linear with real coefficients, so their backward
#   holds for complex as it is: they are complex-capable by default. Ops that save values opt in
#   with ``complex_grad = True`` once their formula follows the convention.


class Op(Node):
    """Base of registry ops; see the module docstring."""

    __slots__ = ()
    save_inputs = False
    save_result = False
    # Whether the backward follows Note [Complex gradients]; None: only if the op saves nothing.
    complex_grad = None
    _complex_ok = True  # complex_grad resolved per class (__init_subclass__)
    # Whether torch's backward of this node runs ops a profiler lists (AddmmBackward0's aten::mm): while a
    # profiler records, such a node takes its Tensor backward, not backward_arrays, so the same ops show up
    profiled_backward = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cg = cls.complex_grad
        cls._complex_ok = (not (cls.save_inputs or cls.save_result)) if cg is None else cg
    # With save_inputs: for each input, the indices of the inputs its gradient formula reads
    # (MulBackward0: ((1,), (0,))). Inputs no wanted gradient reads are not saved, so an
    # in-place change to them later is no error, as in torch. None saves every input, and so
    # does a call where every input needs its gradient (each op lists all inputs then).
    save_needs = None

    @staticmethod
    def forward(*args):  # pragma: no cover - overridden
        raise NotImplementedError

    # --- torch's names for the saved values (``y.grad_fn._saved_self`` ...); a node that saves no
    # such value has no such attribute, as in torch (so hasattr() answers as torch's does) ---
    @property
    def _saved_self(self):
        if not self.save_inputs:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '_saved_self'")
        return self.saved()[0]

    @property
    def _saved_other(self):
        if not self.save_inputs or len(self.next_functions) < 2:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '_saved_other'")
        return self.saved()[1]

    @property
    def _saved_result(self):
        if not self.save_result:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '_saved_result'")
        return self.saved_result()

    # --- helpers for backward ----------------------------------------------
    def saved_result(self) -> Tensor:
        """The op's output rebuilt as a tensor whose grad_fn is this node (see Note [No reference cycles])."""
        # a SavedResult, or a Tensor when saved_tensors_hooks unpacked it: either way, its array
        saved = self.saved()[-1]
        result = wrap(saved._data, True, self)
        if saved._fw_grad is not None:  # forward AD through a recorded backward (jvp of grad, hessian)
            _fw_ad._register(result, saved._fw_grad)
        return result


def edge(t):
    """The (node, input_nr) pair a gradient for input ``t`` flows to, or (None, 0)."""
    if type(t) is not Tensor and not isinstance(t, Tensor):
        return (None, 0)
    if not t._requires_grad:
        return (None, 0)
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    return (grad_accumulator(t), 0)


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad, shared by every op that uses the leaf while it lives."""
    ref = t._accumulator
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._accumulator = weakref.ref(acc)
    return acc


_NO_EDGE = (None, 0)


def apply(op: type, inputs: tuple, params: tuple = (), arrays: tuple | None = None) -> Tensor:
    """Run ``op`` on ``inputs`` (Tensors or Python scalars) and record it when needed.

    While a forward-AD dual level is active and an input carries a tangent, the result
    gets its tangent too (see autograd/forward_ad.py).

    ``arrays`` lets a caller pass the inputs' arrays already cast to the promoted dtype.
    This is the hot path of every op: it is written for speed (one pass over the inputs). One flag
    sends calls to the slow path while forward AD or vmap is active (``_special``).
    """
    if _fw.active:
        return _special(op, inputs, params, arrays)
    if arrays is None:
        arrays = [t._data if isinstance(t, Tensor) else t for t in inputs]
    try:
        out = op.forward(*arrays, *params) if params else op.forward(*arrays)
    except ValueError as e:
        raise _translate(e, arrays) from None
    if type(out) is not _ndarray:  # NumPy turns 0-d results into scalars
        out = _asarray(out)
    if not _state.enabled:
        t = _new(Tensor)  # wrap(), inlined on this hot path
        t._data = out
        t._requires_grad = False
        t._vc = [0]
        return t
    edges = []
    versions = []
    needed = 0  # how many inputs need a gradient
    for t in inputs:
        if isinstance(t, Tensor):
            versions.append(t._vc[0])
            if t._requires_grad:
                needed += 1
                fn = t._grad_fn
                edges.append((fn, t._output_nr) if fn is not None else (grad_accumulator(t), 0))
                continue
        else:
            versions.append(None)
        edges.append(_NO_EDGE)
    if not needed:
        return wrap(out)
    if not op._complex_ok:
        check_complex_grad(op, arrays, (out,))
    node = _new(op)
    node._seq = next(_sequence)
    node.next_functions = tuple(edges)
    if params:
        node._params = params
    node._meta = ((out.shape, out.dtype),)
    aids = anomaly_mode._any
    if aids:  # debugging aids, off by default
        if aids & _INFERENCE:  # an inference tensor is alive: it may not be saved (_inference.py)
            _inference.check_op_saves(op, inputs, edges, needed)
        if aids & _ANOMALY:
            node._anomaly_trace = anomaly_mode.forward_stack()
        # the user's line (user -> op function -> apply), inlined for speed; only nodes that save
        # values can raise the in-place error that reports it
        if aids & _ORIGINS and (op.save_inputs or op.save_result):
            f = _getframe(2)
            code = f.f_code
            if _internal_code.get(code, True):
                node._origin = anomaly_mode.user_site(2)
            else:  # (code, offset): the line is looked up only if an error reports it
                node._origin = (code, f.f_lasti)
    result = _new(Tensor)  # wrap(), inlined on this hot path
    result._data = out
    result._requires_grad = True
    result._vc = [0]
    result._grad_fn = node
    if op.save_inputs:
        saved = inputs
        needs = op.save_needs
        if needs is not None and needed < len(inputs):  # keep only what the wanted gradients read
            saved, versions = _saved_for_needs(op, inputs, edges, versions)
        if op.save_result:
            node._saved = saved + (SavedResult(out, result._vc),)
            versions.append(0)
        else:
            node._saved = saved
        node._versions = versions
    elif op.save_result:
        node._saved = (SavedResult(out, result._vc),)
        node._versions = (0,)
    if saved_hooks.STACK and node._saved:  # saved_tensors_hooks: store what pack returns
        node._saved = saved_hooks.pack_all(node._saved, result)
        node._versions = None
        node._packed = True
    return result


def check_complex_grad(op: type, arrays, outs) -> None:
    """Refuse to record ``op`` on complex values when its backward is real-only (Note [Complex gradients])."""
    for a in (*outs, *arrays):
        if type(a) is _ndarray and a.dtype.kind == "c":
            raise RuntimeError(f"{aten_name(op)} does not support automatic differentiation for outputs with complex dtype.")


def aten_name(op: type) -> str:
    """torch's operator name for a grad_fn class: ``ScatterReduceBackward0`` -> ``scatter_reduce``."""
    import re

    stem = re.sub(r"Backward\d*$", "", op.__name__)
    return re.sub(r"(?<!^)(?=[A-Z])", "_", stem).lower()


_KEEP: dict = {}  # (op, which inputs need a gradient) -> which inputs to save


def _saved_for_needs(op, inputs, edges, versions):
    """The inputs (and their versions) that the gradients of the inputs needing one read (op.save_needs).

    Runs on every recorded op with some input not requiring grad (``x @ W`` with data ``x``):
    the choice is cached per op and pattern, and two inputs get a path without loops.
    """
    if len(edges) == 2:
        key = (op, edges[0][0] is not None, edges[1][0] is not None)
    else:
        key = (op,) + tuple([fn is not None for fn, _ in edges])
    keep = _KEEP.get(key)
    if keep is None:
        wanted = {j for i, want in enumerate(key[1:]) if want for j in op.save_needs[i]}
        keep = _KEEP[key] = tuple([j in wanted for j in range(len(edges))])
    if len(keep) == 2:
        k0, k1 = keep
        a, b = inputs
        return (a if k0 else None, b if k1 else None), [versions[0] if k0 else None, versions[1] if k1 else None]
    return (
        tuple([t if k else None for t, k in zip(inputs, keep)]),
        [v if k else None for v, k in zip(versions, keep)],
    )


def _special(op, inputs, params, arrays) -> Tensor:
    """apply() while a forward-AD level or a vmap is active: batched values go to their batching rules
    (_batching/dispatch.py), dual inputs get their tangents, anything else takes the plain path."""
    if _fw.batching:
        return _batching_dispatch.batched_apply(op, inputs, params, arrays)
    if _fw.autocast:  # Note [CPU autocast]: the op's inputs cast by its policy (recorded ToCopyBackward0 nodes)
        cast = _autocast.cast_inputs(op, inputs)
        if cast is not None:
            inputs, arrays = cast, None
    if _fw.dual and _fw_ad.has_tangent(inputs):
        return _with_tangent(op, inputs, params, arrays)
    _fw.active = False
    try:
        run = _bf16_apply if _fw.bf16 else apply  # Note [bfloat16 compute]
        if _fw.profiling:
            result = _profiler.record_op(op, run, inputs, params, arrays)
        else:
            result = run(op, inputs, params, arrays)
    finally:
        _fw_ad._refresh()
    if _fw.inference:  # inside inference_mode() (this thread's state is checked there)
        _inference.mark(result)
    return result


def _special_multi(op, inputs, params) -> tuple:
    """apply_multi() while the profiler or inference mode is on (one flag, as in _special)."""
    _fw.active = False
    try:
        if _fw.profiling:
            results = _profiler.record_op(op, apply_multi, inputs, params)
        else:
            results = apply_multi(op, inputs, params)
    finally:
        _fw_ad._refresh()
    if _fw.inference:
        _inference.mark_all(results)
    return results


def _bf16_apply(op, inputs, params, arrays) -> Tensor:
    """apply() once bfloat16 is in use: an op with a bfloat16 input computes in float32 and rounds its result
    (Note [bfloat16 compute]); the node is ``op``'s own, so grad_fn names and backward are unchanged."""
    if arrays is None:
        arrays = [t._data if isinstance(t, Tensor) else t for t in inputs]
    if _limited_in_use[0]:  # uint16/32/64 or float8 have been used: refuse what torch has no kernel for
        out = _limited.check(op, arrays, params)  # (or a float8 cast's result, computed by torch's rules)
    else:
        out = None
    if out is not None:
        _bf16_box.out = out
    elif not _bf16.has_bf16(arrays):
        return apply(op, inputs, params, arrays)
    else:
        _bf16_box.out = _bf16.compute(op, arrays, params)
    try:
        return apply(_precomputed(op), inputs, params, arrays)
    finally:
        _bf16_box.out = None


_bf16_box = threading.local()  # the result _bf16_apply computed, handed to apply through _precomputed's forward
_precomputed_ops: dict = {}


def _take_precomputed(*args):
    return _bf16_box.out


def _precomputed(op: type) -> type:
    """A subclass of ``op`` with its name and backward whose forward returns the result already computed."""
    cls = _precomputed_ops.get(op)
    if cls is None:
        cls = _precomputed_ops[op] = type(op.__name__, (op,), {"__slots__": (), "forward": staticmethod(_take_precomputed),
                                                               "__qualname__": op.__qualname__,
                                                               "__module__": op.__module__})
    return cls


def _with_tangent(op, inputs, params, arrays) -> Tensor:
    """apply() for a dual input: the usual result, plus its tangent."""
    prev = _fw_ad.suspend_dual()
    try:
        result = apply(op, inputs, params, arrays)
    finally:
        _fw_ad.resume_dual(prev)
    _fw_ad.attach((result,), _fw_ad.tangents_of(op, inputs, params, arrays, result))
    keep_saved_tangent(result)
    return result


def keep_saved_tangent(result: Tensor) -> None:
    """A node that saved its own output keeps that output's tangent with it (see SavedResult)."""
    node = result._grad_fn
    if result._fw_grad is not None and node is not None and node.save_result and node._saved:
        saved = node._saved[-1]
        if type(saved) is SavedResult and saved._data is result._data:
            _fw_ad._register(saved, result._fw_grad)


def apply_multi(op: type, inputs: tuple, params: tuple = ()) -> tuple:
    """Like ``apply`` for an op whose forward returns several arrays (one node, several outputs)."""
    if _fw.active:
        if _fw.batching:
            return _batching_dispatch.batched_apply(op, inputs, params, None, multi=True)
        if _fw.dual and _fw_ad.has_tangent(inputs):
            prev = _fw_ad.suspend_dual()
            try:
                results = apply_multi(op, inputs, params)
            finally:
                _fw_ad.resume_dual(prev)
            _fw_ad.attach(results, _fw_ad.tangents_of(op, inputs, params, None, tuple(results)))
            return results
        if _fw.inference or _fw.profiling:
            return _special_multi(op, inputs, params)
    arrays = [t._data if isinstance(t, Tensor) else t for t in inputs]
    if _fw.bf16 and _limited_in_use[0]:  # Note [Limited dtypes]
        _limited.check(op, arrays, params)
    if _fw.bf16 and _bf16.has_bf16(arrays):  # Note [bfloat16 compute]
        outs = _bf16.compute(op, arrays, params)
    else:
        outs = op.forward(*arrays, *params)
    needs = False
    if _state.enabled:
        for t in inputs:
            if isinstance(t, Tensor) and t._requires_grad:
                needs = True
                break
    if not needs:
        return tuple([wrap(o) for o in outs])
    if not op._complex_ok:
        check_complex_grad(op, arrays, outs)
    if anomaly_mode._any & _INFERENCE and op.save_inputs:
        _inference.check_saved(inputs)
    node = new_node(op)
    node.next_functions = tuple([edge(t) for t in inputs])
    if params:
        node._params = params
    node._meta = tuple([(o.shape, o.dtype) for o in outs])
    if len(outs) == 2 and outs[1].dtype.kind in "iu":
        node._indices = outs[1]  # (values, indices) ops route their gradient through the indices
    node._saved = inputs if op.save_inputs else ()
    if op.save_inputs:
        node._versions = [t._vc[0] if isinstance(t, Tensor) else None for t in inputs]
    results = []
    for i, o in enumerate(outs):
        differentiable = o.dtype.kind in FLOATING_OR_COMPLEX_KINDS  # ("V": bfloat16, the one such dtype)
        r = wrap(o, differentiable, node if differentiable else None)
        r._output_nr = i
        results.append(r)
    return tuple(results)


def _translate(error: ValueError, arrays) -> Exception:
    """Turn NumPy's ValueErrors into torch's RuntimeErrors (broadcasting names the sizes)."""
    if "Integers to negative integer powers" in str(error):
        return RuntimeError("Integers to negative integer powers are not allowed.")
    if "broadcast" in str(error):
        from .broadcast import broadcast_shape

        shapes = [a.shape for a in arrays if hasattr(a, "shape")]
        try:
            s = shapes[0]
            for other in shapes[1:]:
                s = broadcast_shape(s, other)
        except RuntimeError as e:
            return e
    return error


from .. import _inference  # noqa: E402
from .._batching import dispatch as _batching_dispatch  # noqa: E402  (it uses this module)
from ..autograd import profiler as _profiler  # noqa: E402
