"""nn.Module: the base class of layers, with torch's registration, traversal, state_dict and repr.

Assigning a Parameter, a Module or (via ``register_buffer``) a tensor to an attribute registers it
in ``_parameters`` / ``_modules`` / ``_buffers``; traversal, ``state_dict`` keys (``"0.weight"``,
``"encoder.bias"``), ``load_state_dict``'s error texts and the printed form follow torch.
"""

from __future__ import annotations

import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...autograd.hooks import RemovableHandle
from ..parameter import Buffer, Parameter

_hook_ids = itertools.count()

_TYPENAMES = {
    "float32": "torch.FloatTensor", "float64": "torch.DoubleTensor", "float16": "torch.HalfTensor",
    "bfloat16": "torch.BFloat16Tensor",
    "int64": "torch.LongTensor", "int32": "torch.IntTensor", "int16": "torch.ShortTensor",
    "int8": "torch.CharTensor", "uint8": "torch.ByteTensor", "bool": "torch.BoolTensor",
    "complex64": "torch.ComplexFloatTensor", "complex128": "torch.ComplexDoubleTensor",
}


def typename(obj) -> str:
    """torch.typename: ``torch.FloatTensor`` for a float32 tensor; an object with a qualified name of its own (a
    function, a class) by that name, as ``module.<lambda>``; any other object by its class's qualified name."""
    if isinstance(obj, Tensor):
        return _TYPENAMES.get(obj._data.dtype.name, "torch.Tensor")
    if hasattr(obj, "__qualname__") or hasattr(obj, "__name__"):
        module = getattr(obj, "__module__", "") or ""
        qualname = getattr(obj, "__qualname__", None) or obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


# torch's device types (the parser's list, in its order) and the errors of its CPU build
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                 "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_NOT_COMPILED = {
    "cuda": "Torch not compiled with CUDA enabled",
    "xpu": "Torch not compiled with XPU enabled",
    "mtia": "Torch not compiled with MTIA enabled. Ensure you have `import mtia.host_runtime.torch_mtia.dynamic_library` "
            "in your python src file and include `//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!",
}


def _device_type(device):
    """The device type named by ``device`` (a string such as 'cuda:0', a device, an index or None), with
    torch's errors for a malformed string. dyngrad's own ``device`` class holds only CPU devices, so
    strings are parsed here: ``Module.to('cuda')`` must fail as torch's CPU build fails."""
    if device is None:
        return None
    if isinstance(device, int) and not isinstance(device, bool):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if not isinstance(device, str):
        return getattr(device, "type", None)
    kind, sep, index = device.partition(":")
    if kind not in _DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: {device}"
        )
    if sep and not index.isdigit():
        raise RuntimeError(f"Invalid device string: '{device}'")
    return kind


def _addindent(s: str, num_spaces: int) -> str:
    """Indent every line but the first (torch.nn.modules.module._addindent)."""
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in lines)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; prints ``<All keys matched successfully>`` when both are empty."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"

    __str__ = __repr__


def _hook_handle(table: dict, hook, prepend: bool) -> RemovableHandle:
    key = next(_hook_ids)
    table[key] = hook
    if prepend:
        table.move_to_end(key, last=False)
    return RemovableHandle(table, key)


# ------------------------------------------------------------------ global module hooks
# torch.nn.modules.module.register_module_forward_pre_hook / register_module_forward_hook: hooks every
# module runs, before its own.
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: set = set()


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook common to all modules, run before each module's own: ``hook(module, args)`` may
    return new args (a tuple, or one value that becomes a 1-tuple). Returns a handle whose remove() drops it."""
    return _hook_handle(_global_forward_pre_hooks, hook, False)


def register_module_forward_hook(hook, *, with_kwargs: bool = False, always_call: bool = False) -> RemovableHandle:
    """A forward hook common to all modules, run before each module's own: ``hook(module, args, output)`` (or
    ``hook(module, args, kwargs, output)`` with ``with_kwargs``) may return a new output. ``always_call`` is
    accepted as torch's (dyngrad runs the hook after a forward that returned). Returns a removable handle."""
    handle = _hook_handle(_global_forward_hooks, hook, False)
    if with_kwargs:
        _global_forward_hooks_with_kwargs.add(handle.id)
    return handle


# ------------------------------------------------------------------ module backward hooks
# Note [Module backward hooks]
# As torch (torch.utils.hooks.BackwardHook): when a module has full backward hooks or backward
# pre-hooks, its tensor arguments go through one identity node before forward and its tensor outputs
# through another after it (BackwardHookFunctionBackward, the grad_fn users see on the output). The
# output node's post-hook records grad_output (after the pre-hooks, which may replace it); the input
# node's post-hook then calls the full hooks with (module, grad_input, grad_output), and what they
# return replaces the gradients that flow on to the inputs.


class BackwardHookFunction(Function):
    """Identity on the given tensors (torch.nn.modules._functions.BackwardHookFunction); those that do
    not require grad stay outside the graph."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class _BackwardHook:
    """One module call's backward hooks (see Note [Module backward hooks])."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None  # positions of the tensors, or None when none needs grad

    @staticmethod
    def _spread(indices, values, size) -> tuple:
        out = [None] * size
        for i, v in zip(indices, values):
            out[i] = v
        return tuple(out)

    @staticmethod
    def _wrap_tensors(args, on_node):
        """Pass the tensors among ``args`` through one BackwardHookFunction node and give that node to
        ``on_node``; (new args, tensor positions), or (args, None) when no tensor requires grad."""
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        on_node(next(t.grad_fn for t in new if t.grad_fn is not None))
        out = list(args)
        for i, t in zip(index, new):
            out[i] = t
        return (tuple(out) if type(args) is tuple else type(args)(*out)), index

    def setup_input_hook(self, args):
        def on_node(node) -> None:
            def hook(grad_input, _):
                if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs
                    return None
                res = self._spread(self.input_index, grad_input, self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(res):
                        raise RuntimeError(
                            f"Backward hook returned an invalid number of grad_input, got {len(out)}, but expected "
                            f"{len(res)}"
                        )
                    res = out
                self.grad_outputs = None
                return tuple(res[i] for i in self.input_index)

            node.register_hook(hook)

        res, self.input_index = self._wrap_tensors(args, on_node)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, result):
        def on_node(node) -> None:
            # The engine gives a multi-output node zeros for outputs that got no gradient; torch's hooks
            # see None there (the zeros still flow on), so the gradients are taken before that step.
            incoming = []

            def record(grads):
                incoming.append(grads)

            def hook(grad_input, grad_output):
                if incoming:
                    grad_output = incoming.pop()
                self.grad_outputs = self._spread(self.output_index, grad_output, self.n_outputs)
                for user_pre_hook in self.user_pre_hooks:
                    new = user_pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError(
                            f"Backward pre hook returned an invalid number of grad_output, got {len(new)}, but "
                            f"expected {len(self.grad_outputs)}"
                        )
                    self.grad_outputs = new
                grad_outputs = self.grad_outputs
                if self.input_index is None:  # no input needs a gradient: the full hooks run now
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with respect to module outputs "
                        "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                        "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                        stacklevel=5,
                    )
                    grad_inputs = (None,) * self.n_inputs
                    for user_hook in self.user_hooks:
                        res = user_hook(self.module, grad_inputs, self.grad_outputs)
                        if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient should always return "
                                "None or None for all gradients."
                            )
                    self.grad_outputs = None
                return tuple(grad_outputs[i] if grad_outputs[i] is not None else g
                             for i, g in zip(self.output_index, grad_input))

            node.register_prehook(record)
            node.register_hook(hook)

        single = not isinstance(result, tuple)
        res, self.output_index = self._wrap_tensors((result,) if single else result, on_node)
        self.n_outputs = 1 if single else len(result)
        return res[0] if single else res


def _module_hook(hook, module_ref):
    """A grad_fn post-hook calling ``hook(module, grad_input, grad_output)`` (torch's _WrappedHook)."""

    def call(grad_input, grad_output):
        module = module_ref()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return hook(module, tuple(_sum_to_input(g, e) for g, e in zip(grad_input, node.next_functions)), grad_output)

    node = None

    def attach(grad_fn):
        nonlocal node
        node = grad_fn
        return grad_fn.register_hook(call)

    return attach


def _sum_to_input(g, edge):
    """A node's gradient for one input, summed to that input's shape (dyngrad's ops may return it in the
    broadcast shape and leave the sum to the engine; torch's hooks see the input's shape)."""
    fn, nr = edge
    if g is None or fn is None:
        return g
    shape = fn._meta[nr][0]
    if tuple(g.shape) == tuple(shape):
        return g
    lead = g.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    out = g.sum(dims, keepdim=True) if dims else g
    return out.reshape(shape)


def _warn_old_backward_hook(inputs, result, grad_fn) -> None:
    """torch's FutureWarnings for ``register_backward_hook`` when the node it hooks is not the whole module."""
    def warn(text):
        warnings.warn(text, FutureWarning, stacklevel=4)

    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        return warn(
            "Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of Tensors "
            "is deprecated and will be removed in future versions. This hook will be missing some of the "
            "grad_output. Please use register_full_backward_hook to get the documented behavior."
        )
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        return warn(
            "Using non-full backward hooks on a Module that does not take as input a single Tensor or a tuple of "
            "Tensors is deprecated and will be removed in future versions. This hook will be missing some of the "
            "grad_input. Please use register_full_backward_hook to get the documented behavior."
        )
    out_fns = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and grad_fn not in out_fns):
        warn(
            "Using a non-full backward hook when outputs are nested in python data structure is deprecated and "
            "will be removed in future versions. This hook will be missing some grad_output."
        )
    elif len(out_fns) > 1:
        warn(
            "Using a non-full backward hook when outputs are generated by different autograd Nodes is deprecated "
            "and will be removed in future versions. This hook will be missing some grad_output. Please use "
            "register_full_backward_hook to get the documented behavior."
        )
    elif {i.grad_fn for i in inputs if i.grad_fn is not None} != {n[0] for n in grad_fn.next_functions}:
        warn(
            "Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and "
            "will be removed in future versions. This hook will be missing some grad_input. Please use "
            "register_full_backward_hook to get the documented behavior."
        )
    return None


class Module:
    """Base class for all neural network modules (torch.nn.Module)."""

    training: bool
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs) -> None:
        if args or kwargs:
            if kwargs:
                raise TypeError(
                    f"{type(self).__name__}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
                )
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were given"
            )
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = {}
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_pre_hooks_with_kwargs"] = set()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = set()
        d["_forward_hooks_always_called"] = set()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_is_full_backward_hook"] = None  # True / False once a full / an old-style backward hook is registered
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()

    forward = None  # subclasses define it; see __call__

    # ------------------------------------------------------------------ registration
    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Add a tensor that is state but not a parameter (running stats); ``persistent=False`` keeps it
        out of ``state_dict``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                f"explicitly. To express '{name}' as a function of another Tensor, compute the value in the "
                "forward() method."
            )
        else:
            self._parameters[name] = param

    def add_module(self, name: str, module) -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    # ------------------------------------------------------------------ attribute protocol
    def __getattr__(self, name: str):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__

        def remove_from(*tables) -> None:
            for t in tables:
                if name in t:
                    if isinstance(t, dict):
                        del t[name]
                    else:
                        t.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' (torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{typename(value)}' as child module '{name}' "
                        "(torch.nn.Module or None expected)"
                    )
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            f"cannot assign '{typename(value)}' as buffer '{name}' "
                            "(torch.nn.Buffer, torch.Tensor or None expected)"
                        )
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                    else:
                        persistent = name not in self._non_persistent_buffers_set
                    remove_from(d, self._parameters, self._modules)
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        for table in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(table, {}):
                del self.__dict__[table][name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(object.__dir__(self)) + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)

    # ------------------------------------------------------------------ calling
    def _call_impl(self, *args, **kwargs):
        pre_hooks = self._forward_pre_hooks.items()
        if _global_forward_pre_hooks:  # register_module_forward_pre_hook's run first, as torch's
            pre_hooks = (*_global_forward_pre_hooks.items(), *pre_hooks)
        for key, hook in list(pre_hooks):
            if key in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got "
                            f"{result}."
                        )
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        if self.forward is None:
            raise NotImplementedError(
                f'Module [{type(self).__name__}] is missing the required "forward" function'
            )
        full_hooks = old_hooks = ()
        if self._backward_hooks:
            hooks = list(self._backward_hooks.values())
            full_hooks, old_hooks = (hooks, ()) if self._is_full_backward_hook else ((), hooks)
        bw_hook = None
        if full_hooks or self._backward_pre_hooks:
            bw_hook = _BackwardHook(self, full_hooks, list(self._backward_pre_hooks.values()))
            args = bw_hook.setup_input_hook(args)
        out = self.forward(*args, **kwargs)
        hooks = self._forward_hooks.items()
        if _global_forward_hooks:
            hooks = (*_global_forward_hooks.items(), *hooks)
        for key, hook in list(hooks):
            if key in self._forward_hooks_with_kwargs or key in _global_forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, out)
            else:
                result = hook(self, args, out)
            if result is not None:
                out = result
        if bw_hook is not None:
            if not isinstance(out, (Tensor, tuple)):
                warnings.warn(
                    "For backward hooks to be called, module output should be a Tensor or a tuple of Tensors but "
                    f"received {type(out)}",
                    stacklevel=2,
                )
            out = bw_hook.setup_output_hook(out)
        if old_hooks:
            self._attach_old_backward_hooks(old_hooks, args, out)
        return out

    def _attach_old_backward_hooks(self, hooks, args, out) -> None:
        """``register_backward_hook`` (deprecated): each hook becomes a post-hook of the grad_fn of the
        first tensor in the output, called as ``hook(module, grad_input, grad_output)`` with that node's
        gradients; torch's FutureWarnings say when those are not the module's."""
        var = out
        while not isinstance(var, Tensor):
            if isinstance(var, dict):
                var = next(v for v in var.values() if isinstance(v, Tensor))
            else:
                var = var[0]
        grad_fn = var.grad_fn
        if grad_fn is None:
            return
        ref = weakref.ref(self)
        for hook in hooks:
            _module_hook(hook, ref)(grad_fn)
        _warn_old_backward_hook(args, out, grad_fn)

    def register_full_backward_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_input, grad_output)`` once the gradients of the module's tensor inputs are
        computed: tuples with one entry per positional argument / output (None for non-tensors and for
        inputs that need no gradient); a returned tuple replaces grad_input. As torch, the inputs and
        outputs pass through ``BackwardHookFunctionBackward`` nodes that observe their gradients."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single Module. Please use "
                "only one of them."
            )
        self.__dict__["_is_full_backward_hook"] = True
        return _hook_handle(self._backward_hooks, hook, prepend)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False):
        """``hook(module, grad_output)`` when the gradients of the module's outputs are known, before the
        gradients of its inputs are computed; a returned tuple replaces grad_output."""
        return _hook_handle(self._backward_pre_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """Deprecated (torch's): the hook sees the gradients of the last node of forward only; see
        ``_attach_old_backward_hooks``."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single Module. Please use "
                "only one of them."
            )
        self.__dict__["_is_full_backward_hook"] = False
        return _hook_handle(self._backward_hooks, hook, False)

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` before this module's entries are put in a state_dict."""
        return _hook_handle(self._state_dict_pre_hooks, hook, False)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` after this module's entries are in; it may
        change the dict in place but must return None."""
        hook._from_public_api = True
        return _hook_handle(self._state_dict_hooks, hook, False)

    def _register_state_dict_hook(self, hook):
        """torch's older state_dict post-hook: a returned dict replaces the state_dict."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was previously registered "
                "via register_state_dict_post_hook"
            )
        return _hook_handle(self._state_dict_hooks, hook, False)

    __call__ = _call_impl

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
        """``hook(module, args)`` (or ``hook(module, args, kwargs)``) before forward; may return new args."""
        handle = _hook_handle(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """``hook(module, args, output)`` after forward; a non-None return replaces the output."""
        handle = _hook_handle(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            self._forward_hooks_always_called.add(handle.id)
        return handle

    def register_load_state_dict_post_hook(self, hook):
        return _hook_handle(self._load_state_dict_post_hooks, hook, False)

    # ------------------------------------------------------------------ traversal
    def _named_members(self, get_members, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                sub = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, sub, remove_duplicate)

    __hash__ = object.__hash__

    # ------------------------------------------------------------------ modes and grads
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p._grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    g = p._grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def apply(self, fn) -> Module:
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ conversion
    def _apply(self, fn) -> Module:
        """Apply ``fn`` to every parameter, its grad and every buffer, keeping the Parameter objects."""
        for module in self.children():
            module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                new = fn(param)
            param._data = new._data
            if param._grad is not None:
                with no_grad():
                    g = fn(param._grad)
                param._grad._data = g._data
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs) -> Module:
        """``to(dtype)`` / ``to(device)`` / ``to(device, dtype)`` / ``to(tensor)``: floating parameters and
        buffers change dtype; a device other than the CPU is refused with torch's CPU-build error."""
        from ..._dtype import dtype as _dtype_cls

        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        for a in args:
            if isinstance(a, _dtype_cls):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, int)) and not isinstance(a, bool) or type(a).__name__ == "device":
                device = a
        kind = _device_type(device)  # torch parses the device before it checks the dtype
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
            )
        if kind not in (None, "cpu"):
            self._refuse_device(kind)
        if dtype is None:
            return self

        def convert(t):
            return t.to(dtype) if t.is_floating_point() or t.is_complex() else t

        return self._apply(convert)

    def _has_tensors(self) -> bool:
        return any(True for _ in self.parameters()) or any(True for _ in self.buffers())

    def _refuse_device(self, kind: str, index=None) -> None:
        """Raise what torch's CPU build raises when this module's tensors are moved to ``kind``
        (nothing when the module holds no tensor, as torch's ``_apply`` then moves nothing)."""
        if not self._has_tensors():
            return
        if isinstance(index, int) and not isinstance(index, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if kind in _NOT_COMPILED:
            raise AssertionError(_NOT_COMPILED[kind])
        if kind == "meta":  # torch makes meta tensors, which dyngrad does not have: the CPU-only error
            raise RuntimeError("dyngrad runs on the CPU only; got device 'meta'")
        raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")

    def cuda(self, device=None) -> Module:
        """torch's CPU build: AssertionError once a parameter or buffer would move (dyngrad has no GPU)."""
        if device is not None and not isinstance(device, int) and _device_type(device) != "cuda":
            if self._has_tensors():
                raise RuntimeError("Invalid device, must be cuda device")
        self._refuse_device("cuda", device)
        return self

    def xpu(self, device=None) -> Module:
        self._refuse_device("xpu", device)
        return self

    def mtia(self, device=None) -> Module:
        self._refuse_device("mtia", device)
        return self

    def ipu(self, device=None) -> Module:
        self._refuse_device("ipu", device)
        return self

    def _float_cast(self, dtype) -> Module:
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def double(self) -> Module:
        from ..._dtype import float64

        return self._float_cast(float64)

    def float(self) -> Module:
        from ..._dtype import float32

        return self._float_cast(float32)

    def half(self) -> Module:
        from ..._dtype import float16

        return self._float_cast(float16)

    def bfloat16(self) -> Module:
        """Cast floating parameters and buffers to torch.bfloat16 (needs ml_dtypes: Note [bfloat16])."""
        from ..._dtype import bfloat16

        return self._float_cast(bfloat16)

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.to(dst_type))

    def cpu(self) -> Module:
        return self

    def share_memory(self) -> Module:
        return self

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An ordered dict of parameters and persistent buffers, detached unless ``keep_vars``."""
        if args:  # torch's deprecated positional form (destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items())
                       if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, Tensor):
                    error_msgs.append(
                        f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object '
                        f"from checkpoint but received {type(input_param)}"
                    )
                    continue
                if param.dim() == 0 and input_param.dim() == 1 and input_param.shape[0] == 1:
                    input_param = input_param[0]
                if input_param.shape != param.shape:
                    error_msgs.append(
                        f"size mismatch for {key}: copying a param with shape {input_param.shape} from checkpoint, "
                        f"the shape in current model is {param.shape}."
                    )
                    continue
                try:
                    with no_grad():
                        if local_metadata.get("assign_to_params_buffers", False):
                            if isinstance(param, Parameter) and not isinstance(input_param, Parameter):
                                input_param = Parameter(input_param, requires_grad=param.requires_grad)
                            setattr(self, name, input_param)
                        else:
                            param.copy_(input_param)
                except Exception as ex:  # noqa: BLE001 - reported as torch does
                    error_msgs.append(
                        f'While copying the parameter named "{key}", whose dimensions in the model are '
                        f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, "
                        f"an exception occurred : {ex.args}."
                    )
            elif strict:
                missing_keys.append(key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy parameters and buffers from ``state_dict``; errors and the returned keys follow torch."""
        from collections.abc import Mapping

        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list = []
        unexpected_keys: list = []
        error_msgs: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                hook(module, incompatible)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------ printing
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
