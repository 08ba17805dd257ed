"""User-defined differentiable functions: ``dyngrad.autograd.Function`` (torch.autograd.Function).

A subclass gives a static ``forward(ctx, *args)`` (or ``forward(*args)`` plus
``setup_context(ctx, inputs, output)``) and a static ``backward(ctx, *grad_outputs)``
returning one gradient per forward argument (None for non-tensors). ``apply`` runs
forward without recording and attaches one node, an instance of the class
``<Name>Backward`` made for the subclass; that node is also the ``ctx``, as in torch.

Note [Saved outputs]: a tensor saved with ``ctx.save_for_backward`` that is one of
the outputs is kept as its array and version counter (a node must not hold its own
output, see Note [No reference cycles] in graph.py) and rebuilt on unpack.
"""

from __future__ import annotations

import functools
import warnings

from .._tensor import Tensor, wrap
from .grad_mode import _state
from .graph import FREED_MESSAGE, Node, SavedResult, _raise_modified, _sequence


class FunctionCtx:
    """What ``forward`` and ``backward`` of a custom Function see as ``ctx``."""

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self._to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self._to_save_forward = tensors

    def mark_dirty(self, *tensors) -> None:
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE)
        if self._packed:
            return tuple(v.unpack() if v is not None else None for v in saved)
        out = []
        for value, version in zip(saved, self._versions or ()):
            if value is None:
                out.append(None)
                continue
            if version is not None and value._vc[0] != version:
                _raise_modified(self, value, version)
            out.append(wrap(value._data, True, self) if isinstance(value, SavedResult) else value)
        return tuple(out)

    saved_variables = saved_tensors


class BackwardCFunction(Node, FunctionCtx):
    """Base of the ``<Name>Backward`` node classes made for each custom Function."""

    _forward_cls = None
    _output_is_tensor = None  # set when forward returned non-tensor outputs as well
    _to_save = ()
    _dirty = ()
    _non_differentiable = ()
    needs_input_grad = ()

    def __repr__(self) -> str:
        # torch shows custom nodes with their module path
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def backward(self, *grads):
        fn = self._forward_cls
        slots = self._output_is_tensor
        if slots is not None:  # forward returned non-tensors too: their "gradients" are None, as in torch
            it = iter(grads)
            grads = tuple(next(it) if is_tensor else None for is_tensor in slots)
        result = fn.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        for r in result:
            if r is not None and not isinstance(r, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
        n_inputs = len(self._arg_is_tensor)
        if len(result) != n_inputs:
            if len(result) > n_inputs and all(r is None for r in result[n_inputs:]):
                result = result[:n_inputs]
            else:
                raise RuntimeError(
                    f"function {type(self).__name__} returned an incorrect number of gradients "
                    f"(expected {n_inputs}, got {len(result)})"
                )
        # Keep only the gradients of tensor arguments: they line up with next_functions.
        out = []
        for is_tensor, g in zip(self._arg_is_tensor, result):
            if is_tensor:
                out.append(g)
            elif g is not None:
                raise RuntimeError(
                    f"function {type(self).__name__} returned a gradient different than None at position "
                    f"{len(out) + 1}, but the corresponding forward input was not a Variable"
                )
        return tuple(out)


class _FunctionMeta(type):
    """Makes the ``<Name>Backward`` node class when a Function subclass is defined."""

    def __init__(cls, name, bases, attrs) -> None:
        cls._backward_cls = type(f"{name}Backward", (BackwardCFunction,), {"_forward_cls": cls})
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=_FunctionMeta):
    """Base class for custom differentiable functions (torch.autograd.Function).

    Example::

        class MyCube(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 3 * x ** 2

        y = MyCube.apply(x)   # y.grad_fn is a MyCubeBackward node
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use it "
            "with backward mode AD."
        )

    vjp = backward

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all static, so you should "
            "invoke them on the class itself. Instantiating an autograd function will raise an error in a future "
            "version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd "
            "function with static forward method. (Example: https://pytorch.org/docs/stable/autograd.html#torch."
            "autograd.Function)"
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._ops.registry import edge

        node = object.__new__(cls._backward_cls)
        node._seq = next(_sequence)
        arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        node._arg_is_tensor = arg_is_tensor
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        record = _state.enabled and any(node.needs_input_grad)

        uses_setup_context = cls.setup_context is not Function.setup_context
        prev = _state.enabled
        _state.enabled = False
        try:
            if uses_setup_context:
                outputs = cls.forward(*args, **kwargs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        finally:
            _state.enabled = prev
        if uses_setup_context:
            cls.setup_context(node, args, outputs)

        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        if not record:
            return outputs

        node.next_functions = tuple(edge(a) for a in args if isinstance(a, Tensor))
        dirty = {id(t) for t in node._dirty}
        non_diff = {id(t) for t in node._non_differentiable}
        inputs = {id(a) for a in args if isinstance(a, Tensor)}
        results = []
        metas = []
        if not all(isinstance(o, Tensor) for o in outs):
            node._output_is_tensor = tuple(isinstance(o, Tensor) for o in outs)
        for o in outs:
            if not isinstance(o, Tensor):
                results.append(o)
                continue
            metas.append((o._data.shape, o._data.dtype))
            if id(o) in non_diff:
                o._requires_grad = False
                results.append(o)
                continue
            if id(o) in dirty:
                if o._requires_grad and o._grad_fn is None:
                    raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
                o._vc[0] += 1  # it was modified in place by forward
                t = o
            elif id(o) in inputs:
                t = wrap(o._data)  # an input returned as is becomes a new tensor of this node (a view)
                t._vc = o._vc
                t._custom_fn_view = True
            else:
                t = o
                if t._base is not None:  # a view made inside forward: in-place on it is refused (see inplace.py)
                    t._custom_fn_view = True
            t._grad_fn = node
            t._requires_grad = True
            t._output_nr = len(metas) - 1
            results.append(t)
        node._meta = tuple(metas)
        node._save(results)
        from . import anomaly_mode

        if anomaly_mode._enabled:  # torch records a custom Function's forward trace too ("Error detected in ...")
            node._anomaly_trace = anomaly_mode.forward_stack()
        return results[0] if single else tuple(results)

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )


def _save(self, outputs) -> None:
    """Store ``ctx.save_for_backward``'s tensors with their versions (see Note [Saved outputs])."""
    from .. import _inference

    if _inference._live:  # inference tensors may not be saved (torch's error)
        _inference.check_saved(self._to_save)
    out_ids = {id(o) for o in outputs if isinstance(o, Tensor)}
    saved, versions = [], []
    for t in self._to_save:
        if t is None:
            saved.append(None)
            versions.append(None)
        elif id(t) in out_ids:
            saved.append(SavedResult(t._data, t._vc))
            versions.append(t._vc[0])
        else:
            saved.append(t)
            versions.append(t._vc[0])
    self._saved = tuple(saved)
    self._versions = versions
    from . import saved_hooks

    if saved_hooks.STACK and self._saved:  # saved_tensors_hooks apply to custom Functions too
        self._saved = saved_hooks.pack_all(self._saved)
        self._versions = None
        self._packed = True


BackwardCFunction._save = _save


def once_differentiable(fn):
    """Mark a custom Function's backward as not differentiable again (torch's once_differentiable).

    The backward runs without recording; if a graph was requested through it, the
    gradients it returns get a node that raises torch's error when differentiated.
    """

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _state.enabled
        _state.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _state.enabled = prev
        if not prev:
            return outputs
        requires_grad = any(isinstance(a, Tensor) and a._requires_grad for a in args)
        if not requires_grad:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        grads_with_graph = tuple(a for a in args if isinstance(a, Tensor) and a._requires_grad)
        wrapped = tuple(_delayed_error(o, grads_with_graph) if isinstance(o, Tensor) else o for o in outs)
        return wrapped[0] if single else wrapped

    return wrapper


class DelayedError(Node):
    """Raises when differentiated: the gradient came from a once-differentiable backward."""

    def __init__(self, message: str, edges, meta) -> None:
        self._seq = next(_sequence)
        self._message = message
        self.next_functions = edges
        self._meta = meta

    def backward(self, *grads):
        raise RuntimeError(self._message)


def _delayed_error(t: Tensor, sources) -> Tensor:
    from .._ops.registry import edge

    node = DelayedError(
        "trying to differentiate twice a function that was marked with @once_differentiable",
        tuple(edge(s) for s in sources),
        ((t._data.shape, t._data.dtype),),
    )
    return wrap(t._data, True, node)
