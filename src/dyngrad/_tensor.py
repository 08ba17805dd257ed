"""The Tensor: an array plus what autograd needs to know about it.

A tensor holds
- ``_data``: its NumPy array (views share memory with their base, as in torch);
- ``_requires_grad``, ``_grad_fn`` (None on leaves), ``_output_nr``;
- ``_vc``: the version counter, a one-element list, shared with every view of the same memory,
  bumped by each in-place op so saved tensors can detect modification;
- ``_grad``, and for leaves a weak reference to their ``AccumulateGrad``.

Attributes other than the first few are class-level defaults, so creating a
tensor (the hot path of every op) sets only five attributes.
"""

from __future__ import annotations

import warnings

from . import _dtype
from ._backend import xp
from ._dtype import FLOATING_OR_COMPLEX_KINDS


class Size(tuple):
    """A tensor shape; a tuple that prints as torch's ``torch.Size([2, 3])``.

    Slicing, ``+`` and ``*`` give a Size again, as in torch.
    """

    __slots__ = ()

    def __new__(cls, sizes=()):
        if type(sizes) is tuple and all(type(s) is int for s in sizes):
            return tuple.__new__(cls, sizes)
        items = []
        for i, s in enumerate(sizes):
            if isinstance(s, Tensor) and s._data.size == 1 and s._data.dtype.kind in "iu":
                s = int(s._data.reshape(()))
            elif isinstance(s, (bool, Tensor)) or not hasattr(type(s), "__index__"):
                raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{_tp_name(s)}')")
            items.append(s.__index__())
        return tuple.__new__(cls, items)

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(n) for n in self)}])"

    __str__ = __repr__

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return tuple.__new__(Size, out) if isinstance(key, slice) else out

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {_tp_name(other)}) to torch.Size")
        return tuple.__new__(Size, tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__new__(Size, tuple.__add__(other, self))

    def __mul__(self, n):
        return tuple.__new__(Size, tuple.__mul__(self, n))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n


# Python's own messages name a class by __name__ ("'Size' object is not callable"); torch's Size is a C
# type named "torch.Size". __qualname__ stays "Size", which is what pickle and reprs of the class use.
Size.__name__ = "torch.Size"


def _tp_name(obj) -> str:
    """The type name CPython's C API (and so torch's messages) prints: ``numpy.float32``, but ``list``, ``Tensor``."""
    tp = type(obj)
    if tp.__flags__ & (1 << 9) or tp.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE: classes defined in Python
        return tp.__name__
    return f"{tp.__module__}.{tp.__name__}"


_new_size = tuple.__new__  # Size from a NumPy shape, skipping the checks in Size.__new__


_DEVICE_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla", "lazy",
    "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)


class device:
    """A device, as torch.device: any of torch's device types can be named, but dyngrad computes on
    the CPU only, so placing a tensor anywhere else raises torch's own error (``require_cpu``)."""

    __slots__ = ("type", "index")

    def __init__(self, type: str = "cpu", index=None) -> None:  # noqa: A002 - torch's name
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int):  # an accelerator's index: a CPU-only build has none
            raise RuntimeError("Cannot access accelerator device when none is available.")
        elif isinstance(type, str) and ":" in type:
            name, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            type, index = name, int(idx)
        if type not in _DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: {type}"
            )
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


_Device = device  # for methods whose parameter is named ``device``, as torch's


class memory_format:
    """torch's memory formats (``dyngrad.channels_last`` ...): accepted where torch takes one; dyngrad
    keeps every tensor in NumPy's row-major layout."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


class layout:
    """torch's tensor layouts; every dyngrad tensor is dense and strided (``dyngrad.strided``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


strided = layout("strided")
# torch's other layouts: dyngrad makes no tensors of them (a factory given one raises NotImplementedError), but
# code may name them (``layout=torch.sparse_coo`` given to a function that refuses it with torch's error)
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
jagged = layout("jagged")
_mkldnn = layout("_mkldnn")

contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")


def require_cpu(where) -> None:
    """Raise torch's error (a CPU-only build's) when ``where`` (a device or its name) is not the CPU."""
    d = where if isinstance(where, device) else device(where)
    if d.type == "cpu":
        return
    if d.type in ("cuda", "xpu"):
        raise AssertionError(f"Torch not compiled with {d.type.upper()} enabled")
    if d.type == "mps":
        raise RuntimeError("PyTorch is not linked with support for mps devices")
    raise RuntimeError(f"dyngrad runs on the CPU only; got device '{d}'")


CPU = device()

NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be "
    "populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf "
    "Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure "
    "you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information. "
    "(Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)


_LEAF_ONLY = "you can only change requires_grad flags of leaf variables."
_LEAF_ONLY_DETACH = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
    "subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)


class _Transforms:
    depth = 0  # how many dyngrad.func transforms (vmap, grad, vjp, jvp) are running: func/_transforms.py


_TRANSFORMS = _Transforms()
_REQUIRES_GRAD_IN_TRANSFORM = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using torch.autograd.functional.* APIs) inside of "
    "a function being transformed by a functorch transform. This is unsupported, please attempt to use the functorch "
    "transforms (e.g. grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function being "
    "transformed instead."
)


def _check_inference_requires_grad(t) -> None:
    from ._inference import REQUIRES_GRAD_ERROR, is_inference
    from .autograd.grad_mode import _state

    if is_inference(t) and not _state.inference:
        raise RuntimeError(REQUIRES_GRAD_ERROR)


def _called_by_user() -> bool:
    """Whether the caller of a Tensor method is outside dyngrad (torch.func's checks concern user code)."""
    import sys

    frame = sys._getframe(2)
    while frame.f_globals.get("__name__") == "dyngrad._argparse":  # the argument check's wrapper
        frame = frame.f_back
    name = frame.f_globals.get("__name__", "")
    return not (name == "dyngrad" or name.startswith("dyngrad."))


def _is_float_np(npd) -> bool:
    """Whether a tensor of NumPy dtype ``npd`` can require grad: floating point or complex."""
    return npd.kind in FLOATING_OR_COMPLEX_KINDS


class Tensor:
    """A multi-dimensional array that records the ops applied to it (torch.Tensor)."""

    # Class-level defaults: see the module docstring.
    _grad = None
    _grad_fn = None
    _output_nr = 0
    _accumulator = None
    _retains_grad = False
    _hooks = None
    _post_acc_hooks = None
    _base = None
    _fw_grad = None  # forward-AD tangent (autograd/forward_ad.py)
    _is_conj = False  # torch's conjugate bit, see Note [Conjugate bit] in _ops/complex.py
    _is_neg = False  # torch's negative bit (the imag of a conjugated tensor)
    __array_priority__ = 1000  # NumPy defers to Tensor's reflected operators

    def __init__(self, *args, dtype=None, requires_grad: bool = False) -> None:
        # torch.Tensor(data) or torch.Tensor(*sizes): the default float dtype, except that
        # torch.Tensor(tensor) keeps the tensor's dtype; torch.Tensor() is empty.
        if len(args) == 1 and not isinstance(args[0], int):
            arg = args[0]
            if isinstance(arg, Tensor) and dtype is None:
                data = arg._data
            elif isinstance(arg, (int, float, complex)):
                raise TypeError(f"new(): data must be a sequence (got {_tp_name(arg)})")
            else:
                data = _to_array(arg, dtype or _dtype.get_default_dtype())
        else:
            shape = tuple(args) if args else (0,)
            data = xp.empty(shape, dtype=_dtype.to_numpy(dtype or _dtype.get_default_dtype()))
        self._data = data
        self._requires_grad = False
        self._vc = [0]
        if _INFERENCE:
            _inference_mark(self)
        if requires_grad:
            self.requires_grad_(True)

    # ------------------------------------------------------------ attributes
    @property
    def data(self) -> Tensor:
        """The same memory as a detached tensor with its own version counter (torch's ``.data``)."""
        t = wrap(self._data)
        if type(self._vc) is not list and type(t._vc) is list:  # .data of an inference tensor is one too
            _inference_mark(t, force=True)
        t._detached_by = ".data"  # for dyngrad.viz.why_no_grad
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_tp_name(value)}")
        if self._requires_grad and not _is_float_np(value._data.dtype):
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex dtype")
        self._data = value._data

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        # torch's texts differ between the setter, requires_grad_() and the factories' argument.
        if not isinstance(value, bool):
            raise RuntimeError("requires_grad must be a bool")
        if self._grad_fn is not None:
            raise RuntimeError(_LEAF_ONLY if value else _LEAF_ONLY_DETACH)
        if value and not _is_float_np(self._data.dtype):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if value and type(self._vc) is not list:
            _check_inference_requires_grad(self)
        self._requires_grad = value

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if not isinstance(requires_grad, bool):
            raise TypeError(
                "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                f"{_tp_name(requires_grad)}"
            )
        if _TRANSFORMS.depth and _called_by_user():
            raise RuntimeError(_REQUIRES_GRAD_IN_TRANSFORM)
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(_LEAF_ONLY_DETACH)
            return self
        if requires_grad and not _is_float_np(self._data.dtype):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if requires_grad and type(self._vc) is not list:
            _check_inference_requires_grad(self)
        self._requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            # torch warns only while the non-leaf's .grad is undefined
            warnings.warn(NONLEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {_tp_name(value)}"
                )
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_C_TYPE_NAMES[value._data.dtype.name]}' to a "
                    f"tensor with grad_dtype '{_dtype.scalar_type_name(self._data.dtype)}'. The gradient must match "
                    "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype "
                    "attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. "
                    "Diverging the dtypes of a tensor and its gradient may break downstream systems that assume "
                    "they match."
                )
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor of size "
                    f"'{list(self._data.shape)}'. Please ensure that the gradient and the tensor are the same size"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor after backward (a no-op on leaves)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        import weakref

        node = self._grad_fn
        if node._retained is None:
            node._retained = {}
        node._retained[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    @property
    def _version(self) -> int:
        """How many in-place ops have changed this memory (shared with views), as torch's ``_version``."""
        if type(self._vc) is not list:
            from ._inference import VERSION_ERROR, is_inference

            if is_inference(self):
                raise RuntimeError(VERSION_ERROR)
        return self._vc[0]

    def is_inference(self) -> bool:
        """Whether this tensor was made inside ``inference_mode()`` (or is a view of one): see _inference.py."""
        from ._inference import is_inference

        return is_inference(self)

    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype.from_numpy(self._data.dtype)

    @property
    def device(self) -> device:
        return CPU

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def shape(self) -> Size:
        return _new_size(Size, self._data.shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return _new_size(Size, self._data.shape)
        return self._data.shape[_dim_of_size(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def is_floating_point(self) -> bool:
        return _dtype.is_float_np(self._data.dtype)

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    @property
    def layout(self):
        """Always ``dyngrad.strided``: dyngrad has no sparse layouts."""
        return strided

    def is_contiguous(self, memory_format=None) -> bool:
        if memory_format is not None and memory_format is not contiguous_format:
            return False  # dyngrad keeps tensors row-major only (channels_last is never the layout)
        return self._data.flags.c_contiguous

    def stride(self, dim: int | None = None):
        a = self._data
        if a.size == 0:  # torch gives empty tensors contiguous strides (NumPy gives zeros)
            st, n = [], 1
            for s in reversed(a.shape):
                st.append(n)
                n *= max(s, 1)
            st = tuple(reversed(st))
        else:
            st = tuple(s // a.itemsize for s in a.strides)
        return st if dim is None else st[_dim_of_size(dim, a.ndim)]

    def data_ptr(self) -> int:
        return self._data.__array_interface__["data"][0]

    def storage_offset(self) -> int:
        """Offset of the first element from the start of the memory shared with the base, in elements."""
        a = root = self._data
        if type(a) is not _ndarray:  # batched by vmap: every sample sits in its memory alike
            from ._batching.dispatch import sample_zero

            a = root = sample_zero(a)
        while isinstance(root.base, xp.ndarray):
            root = root.base
        if a is root:
            return 0
        return (a.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // a.itemsize

    def cuda(self, device=None, non_blocking: bool = False, memory_format=None):
        """dyngrad runs on the CPU only; torch's CPU build raises the same errors."""
        if isinstance(device, int):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if device is not None and _Device(device).type != "cuda":
            raise RuntimeError("Invalid device, must be cuda device")
        raise AssertionError("Torch not compiled with CUDA enabled")

    # ---------------------------------------------------------- conversions
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, *, force: bool = False):
        from .autograd.grad_mode import _state

        if type(self._data) is not _ndarray:  # batched by vmap: no one array to give
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        if self._requires_grad and _state.enabled and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        npd = self._data.dtype
        if npd.kind == "V" or npd.itemsize == 1 and npd.kind == "f":  # bfloat16, float8: torch has no NumPy dtype
            from ._dtype import scalar_type_name

            raise TypeError(f"Got unsupported ScalarType {scalar_type_name(npd)}")
        if not force:
            if self._is_conj:
                raise RuntimeError(
                    "Can't call numpy() on Tensor that has conjugate bit set. Use tensor.resolve_conj().numpy() instead."
                )
            if self._is_neg:
                raise RuntimeError(
                    "Can't call numpy() on Tensor that has negative bit set. Use tensor.resolve_neg().numpy() instead."
                )
        return self._data

    def __array__(self, dtype=None, copy=None):
        from .autograd.grad_mode import _state

        if self._requires_grad and _state.enabled:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        npd = self._data.dtype
        if npd.kind == "V" or npd.itemsize == 1 and npd.kind == "f":  # bfloat16, float8, as Tensor.numpy
            from ._dtype import scalar_type_name

            raise TypeError(f"Got unsupported ScalarType {scalar_type_name(npd)}")
        return self._data if dtype is None else self._data.astype(dtype)

    def __array_wrap__(self, array):  # (sic: no context/return_scalar, as torch's: NumPy 2 warns the same)
        """A NumPy function's result on tensors, as a tensor (``np.sin(t)``, ``t * array``: Note [NumPy
        operands]); a bool result becomes uint8, as torch's workaround has it."""
        from ._creation import from_numpy

        if array.dtype == bool:
            array = array.astype("uint8")
        return from_numpy(array)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        n = self._data.size
        if n == 1:
            return bool(self._data.reshape(()))
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")

    def _python_scalar(self, kind: str):
        """The single element as a Python number, for float()/int()/complex(), with torch's checks."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        value = self._data.reshape(()).item()
        if isinstance(value, complex) and kind != "complex":
            if value.imag != 0:
                raise RuntimeError(
                    f"value cannot be converted to type {'double' if kind == 'float' else 'int64_t'} without overflow"
                )
            value = value.real
        return value

    def __float__(self) -> float:
        if self._requires_grad:
            _warn_scalar_of_requires_grad()
        return float(self._python_scalar("float"))

    def __int__(self) -> int:
        return int(self._python_scalar("int"))

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __complex__(self) -> complex:
        if self._requires_grad:
            _warn_scalar_of_requires_grad()
        return complex(self._python_scalar("complex"))

    def __hash__(self) -> int:
        return id(self)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self._data.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __repr__(self) -> str:
        if self._fw_grad is not None:
            return self._repr_with_tangent()
        return self._plain_repr()

    def _plain_repr(self) -> str:
        from ._tensor_str import format_tensor

        d = self.dtype
        npd = self._data.dtype
        default = npd.kind != "V" and (  # ("V": bfloat16, never implicit)
            npd == _dtype.get_default_dtype().np
            or npd == _dtype.int64.np
            or npd == _dtype.bool.np
            or (npd == _dtype.complex64.np and _dtype.get_default_dtype() is _dtype.float32)
            or (npd == _dtype.complex128.np and _dtype.get_default_dtype() is _dtype.float64)
        )
        fn = self._grad_fn
        return format_tensor(
            self._data,
            dtype_name=d.name,
            is_default_dtype=default,
            requires_grad=self._requires_grad,
            grad_fn_name=type(fn).__name__ if fn is not None else None,  # torch prints the class name
        )

    def _repr_with_tangent(self) -> str:
        return self._plain_repr()[:-1] + f", tangent={self._fw_grad!r})"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (_rebuild, (self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the "
                "moment.  If you were attempting to deepcopy a module, this may be because of a torch.nn.utils."
                "weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001"
            )
        t = wrap(self._data.copy(), self._requires_grad)
        if self._grad is not None:
            t._grad = wrap(self._grad._data.copy())
        memo[id(self)] = t
        return t

    # ------------------------------------------------------------- graph
    def detach(self) -> Tensor:
        """A new leaf sharing memory and version counter, outside the graph."""
        t = wrap(self._data)
        t._vc = self._vc
        t._detached_by = ".detach()"  # for dyngrad.viz.why_no_grad
        if self._is_conj:
            t._is_conj = True
        if self._is_neg:
            t._is_neg = True
        return t

    def detach_(self) -> Tensor:
        self._grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
        """Run the chain rule back from this tensor and add d(self)/d(leaf) to each leaf's ``.grad`` (torch.Tensor.backward).

        The graph behind ``self`` (its ``grad_fn`` and everything it leads to) is walked once, in
        reverse order of creation; each leaf that requires grad gets the gradient added to its
        ``.grad`` (created on first use, with the leaf's shape and dtype), so calling ``backward``
        twice accumulates. Saved values are freed afterwards unless ``retain_graph=True``.

        Args:
            gradient: d(something)/d(self), the same shape as ``self``; may be omitted only when
                ``self`` has one element (it is then 1).
            retain_graph: keep the saved values so the graph can be walked again (defaults to
                ``create_graph``).
            create_graph: record the backward pass itself, so the gradients have a ``grad_fn``
                and can be differentiated again (second derivatives).
            inputs: accumulate only into these leaves (tensors or a sequence of tensors).

        Raises:
            RuntimeError: ``self`` does not require grad ("element 0 of tensors does not require grad
                and does not have a grad_fn"), ``gradient`` is missing for a tensor of several
                elements ("grad can be implicitly created only for scalar outputs") or has the wrong
                shape, the graph's saved values were already freed by an earlier backward, or a
                saved tensor was modified in place since (torch's texts).

        Example::

            >>> x = dyngrad.tensor([2.0, 3.0], requires_grad=True)
            >>> (x * x).sum().backward()
            >>> x.grad
            tensor([4., 6.])
        """
        from .autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a non-None return replaces it."""
        from .autograd.hooks import register_tensor_hook

        return register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        from .autograd.hooks import register_post_accumulate_hook

        return register_post_accumulate_hook(self, hook)


def wrap(array, requires_grad: bool = False, grad_fn=None) -> Tensor:
    """Make a tensor around ``array`` without copying (the hot path of every op)."""
    t = _new(Tensor)
    if type(array) is not _ndarray:  # NumPy ufuncs turn 0-d results into scalars
        array = xp.asarray(array)
    t._data = array
    t._requires_grad = requires_grad
    t._vc = [0]
    if grad_fn is not None:
        t._grad_fn = grad_fn
    if _INFERENCE:  # some thread is in inference_mode(): new tensors may be inference tensors (_inference.py)
        _inference_mark(t)
    return t


_INFERENCE = False  # set by _inference.py while an inference_mode() block is open
_inference_mark = None  # _inference.mark, set when that module loads


_new = object.__new__
_ndarray = xp.ndarray


def _rebuild(data, requires_grad):
    return wrap(data, requires_grad)


def _dim_of_size(dim: int, ndim: int) -> int:
    """_wrap_dim for size(d)/stride(d), which refuse any dim on a 0-d tensor."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, ndim)


_SCALAR_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)"
)
_warned_scalar = False


def _warn_scalar_of_requires_grad() -> None:
    """torch warns once per process (TORCH_WARN_ONCE) on float()/complex() of a tensor requiring grad,
    in grad mode only (optimizers read losses under no_grad without it)."""
    global _warned_scalar
    from .autograd.grad_mode import _state

    if not _warned_scalar and _state.enabled:
        _warned_scalar = True
        warnings.warn(_SCALAR_WARNING, UserWarning, stacklevel=3)


# the C++ type names torch prints for element types
_C_TYPE_NAMES = {
    "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
    "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
    "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


def _wrap_dim(dim: int, ndim: int) -> int:
    """Turn a possibly negative dim into an index, with torch's IndexError when out of range."""
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim + ndim if dim < 0 and ndim else (0 if dim < 0 else dim)


def _to_array(data, dtype=None):
    """Convert Python data / arrays / tensors to an array, inferring dtype as torch does."""
    from ._creation import to_array

    return to_array(data, dtype)
