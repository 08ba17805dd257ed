"""torch's checkpoint pickle, both ways: dyngrad objects written under torch's names, and the names a
torch checkpoint may hold resolved to dyngrad's own objects.

A torch checkpoint's ``data.pkl`` is an ordinary pickle (protocol 2) in which

- a tensor is ``torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
  backward_hooks[, metadata])``, where ``storage`` is a *persistent id* ``("storage", torch.FloatStorage,
  key, location, numel)`` naming the member ``data/<key>`` of the zip that holds the storage's raw bytes;
- a Parameter is ``torch._utils._rebuild_parameter(tensor, requires_grad, backward_hooks)``;
- dtypes are globals (``torch.float32``), ``Size`` and ``device`` are reduced to calls of
  ``torch.Size((2, 3))`` and ``torch.device("cpu")``; a conjugated or negated view carries
  ``{"conj": True}`` / ``{"neg": True}`` as ``metadata`` over the unconjugated storage.

This module writes exactly that (``TorchPickler``), whatever the saving process has installed,
and provides the functions and classes those names stand for (``resolve``), built from dyngrad
objects. The names torch's weights-only loader allows are listed in ``WEIGHTS_ONLY_NAMES``
(torch/_weights_only_unpickler.py, ``_get_allowed_globals``, torch 2.13); the ones dyngrad cannot
honour (bfloat16 without the ml_dtypes extra, quantized, sparse, nested tensors, ...) resolve to stand-ins that raise a
RuntimeError naming what is missing when they are used.
"""

from __future__ import annotations

import codecs
import pickle
from collections import Counter, OrderedDict

import numpy as np

from . import _dtype
from ._tensor import CPU, Size, Tensor, device, strided, wrap

# torch's legacy storage classes and the dtype each holds (torch/storage.py, _dtype_to_storage_type_map).
STORAGE_DTYPES = {
    "DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16", "LongStorage": "int64",
    "IntStorage": "int32", "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
    "BoolStorage": "bool", "BFloat16Storage": "bfloat16", "ComplexDoubleStorage": "complex128",
    "ComplexFloatStorage": "complex64", "QUInt8Storage": "quint8", "QInt8Storage": "qint8",
    "QInt32Storage": "qint32", "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4",
}
_STORAGE_OF = {dtype: name for name, dtype in STORAGE_DTYPES.items()}

# torch dtypes dyngrad does not have (bfloat16: only without ml_dtypes); a checkpoint may name them (torch allows them) but not use them here.
MISSING_DTYPES = (
    "bfloat16", "complex32", "uint16", "uint32", "uint64", "bits16", "bits1x8", "bits2x4", "bits4x2", "bits8",
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2",
    "quint8", "qint8", "qint32", "quint4x2", "quint2x4",
    *(f"uint{n}" for n in range(1, 8)), *(f"int{n}" for n in range(1, 8)),
)
_TENSOR_TYPES = ("Double", "Float", "Half", "Long", "Int", "Short", "Char", "Byte", "Bool", "BFloat16")
_QSCHEMES = ("per_tensor_affine", "per_tensor_symmetric", "per_channel_affine", "per_channel_symmetric",
             "per_channel_affine_float_qparams")

# Python 2 names in protocol-2 pickles (torch._utils.IMPORT_MAPPING / NAME_MAPPING, from CPython's
# _compat_pickle): applied to every GLOBAL before it is looked up, as torch does.
IMPORT_MAPPING = {
    "__builtin__": "builtins", "copy_reg": "copyreg", "Queue": "queue", "repr": "reprlib",
    "_abcoll": "collections.abc", "UserDict": "collections", "UserList": "collections",
    "UserString": "collections", "whichdb": "dbm", "StringIO": "io", "cStringIO": "io",
}
NAME_MAPPING = {
    ("__builtin__", "xrange"): ("builtins", "range"), ("__builtin__", "reduce"): ("functools", "reduce"),
    ("__builtin__", "intern"): ("sys", "intern"), ("__builtin__", "unichr"): ("builtins", "chr"),
    ("__builtin__", "unicode"): ("builtins", "str"), ("__builtin__", "long"): ("builtins", "int"),
    ("itertools", "izip"): ("builtins", "zip"), ("itertools", "imap"): ("builtins", "map"),
    ("itertools", "ifilter"): ("builtins", "filter"), ("itertools", "ifilterfalse"): ("itertools", "filterfalse"),
    ("itertools", "izip_longest"): ("itertools", "zip_longest"),
    ("UserDict", "IterableUserDict"): ("collections", "UserDict"), ("UserList", "UserList"): ("collections", "UserList"),
    ("UserString", "UserString"): ("collections", "UserString"), ("__builtin__", "basestring"): ("builtins", "str"),
    ("exceptions", "StandardError"): ("builtins", "Exception"), ("UserDict", "UserDict"): ("collections", "UserDict"),
}


def modern_name(module: str, name: str) -> tuple[str, str]:
    """A GLOBAL's (module, name) with Python 2's names mapped to Python 3's, as torch reads them."""
    if (module, name) in NAME_MAPPING:
        return NAME_MAPPING[(module, name)]
    return IMPORT_MAPPING.get(module, module), name


# ----------------------------------------------------------------------------- storages (loading)
class UntypedStorage:
    """The bytes of one storage of a checkpoint (torch.UntypedStorage, on the CPU).

    ``data`` is a 1-D uint8 array; tensors rebuilt from the storage are views of it, so tensors
    that shared a storage when saved share memory when loaded. ``map_location`` callables receive
    these objects; ``cpu()`` returns the storage itself and ``cuda()`` raises torch's CPU-only error.
    """

    def __init__(self, data: np.ndarray) -> None:
        self.data = data

    @property
    def device(self) -> device:
        return CPU

    def nbytes(self) -> int:
        return self.data.nbytes

    def size(self) -> int:
        return self.data.nbytes

    def cpu(self) -> UntypedStorage:
        return self

    def cuda(self, device=None, non_blocking: bool = False):  # noqa: ARG002 - torch's signature
        raise AssertionError("Torch not compiled with CUDA enabled")

    def __len__(self) -> int:
        return self.data.nbytes

    def __repr__(self) -> str:
        return f"<dyngrad UntypedStorage of {self.data.nbytes} bytes on cpu>"


class TypedStorage:
    """A storage with the dtype a checkpoint declared for it (torch.storage.TypedStorage)."""

    def __init__(self, untyped: UntypedStorage, dtype_name: str) -> None:
        self._untyped_storage = untyped
        self.dtype_name = dtype_name

    @property
    def dtype(self):
        return dtype_named(self.dtype_name)


class StorageType:
    """A legacy storage class named in a checkpoint (``torch.FloatStorage``): only its dtype matters."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.dtype_name = STORAGE_DTYPES[name]

    def __repr__(self) -> str:
        return f"StorageType(dtype=torch.{self.dtype_name})"


class _UntypedStorageClass:
    """``torch.UntypedStorage`` as named by a checkpoint (the storage of ``_rebuild_tensor_v3``): bytes."""

    dtype_name = "uint8"


def dtype_named(name: str):
    """The dyngrad dtype called ``torch.<name>``; RuntimeError for torch dtypes dyngrad lacks."""
    d = getattr(_dtype, name, None)
    if isinstance(d, _dtype.dtype):
        return d
    have = ", ".join(d.name for d in _dtype.ALL)
    raise RuntimeError(
        f"dyngrad.load: the checkpoint holds a tensor of dtype torch.{name}, which dyngrad does not have "
        f"(it has {have}). Convert such tensors with torch before saving, e.g. t.float()."
    )


# ----------------------------------------------------------------------------- rebuilding tensors
def _check_bounds(size, stride, offset: int, itemsize: int, nbytes: int) -> None:
    """The strided view must lie inside its storage: NumPy would otherwise read past the buffer."""
    numel = 1
    for s in size:
        numel *= s
    if any(s < 0 for s in size) or any(s < 0 for s in stride) or offset < 0 or len(size) != len(stride):
        raise RuntimeError(
            f"dyngrad.load: invalid tensor geometry in the checkpoint: size {list(size)}, stride {list(stride)}, "
            f"storage offset {offset}"
        )
    needed = 0 if numel == 0 else (offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1) * itemsize
    if needed > nbytes:  # torch would grow the storage (uninitialised memory); a checkpoint that asks is broken
        raise RuntimeError(
            f"dyngrad.load: the checkpoint is corrupted: a tensor of size {list(size)}, stride {list(stride)} and "
            f"storage offset {offset} needs {needed} bytes of its storage, which holds {nbytes}"
        )


def _as_tensor(storage, storage_offset, size, stride, dtype_name: str, requires_grad=False, metadata=None):
    if not isinstance(storage, TypedStorage):
        raise RuntimeError(f"dyngrad.load: expected a storage to rebuild a tensor from, got {type(storage).__name__}")
    d = dtype_named(dtype_name)
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    offset = int(storage_offset)
    buf = storage._untyped_storage.data
    itemsize = d.itemsize
    _check_bounds(size, stride, offset, itemsize, buf.nbytes)
    if 0 in size:
        data = np.empty(size, dtype=d.np)
    else:
        # An ndarray over the storage's buffer: its .base is that buffer, so views of one storage share
        # memory, and dyngrad.save finds the storage again (storage_offset(), sharing across a round trip).
        data = np.ndarray(size, dtype=d.np, buffer=buf, offset=offset * itemsize,
                          strides=tuple(s * itemsize for s in stride))
    if metadata:
        if metadata.get("conj"):  # see Note [Conjugate bit] in _ops/complex.py: dyngrad holds the values
            data = np.conj(data)
        if metadata.get("neg"):
            data = np.negative(data)
    t = wrap(data)
    if metadata and metadata.get("conj"):
        t._is_conj = True
    if metadata and metadata.get("neg"):
        t._is_neg = True
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _as_tensor(storage, storage_offset, size, stride, storage.dtype_name)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    return _as_tensor(storage, storage_offset, size, stride, storage.dtype_name, requires_grad, metadata)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    name = dtype.name if isinstance(dtype, _dtype.dtype) else str(dtype).removeprefix("torch.")
    return _as_tensor(storage, storage_offset, size, stride, name, requires_grad, metadata)


def _set_obj_state(obj, state):
    """Restore Python attributes saved with a tensor (torch._utils._set_obj_state)."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for k, v in (dict_state or {}).items():
        setattr(obj, k, v)
    for k, v in (slots_state or {}).items():
        setattr(obj, k, v)
    return obj


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_obj_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """A tensor of a Tensor subclass, or one carrying Python attributes (torch._tensor._rebuild_from_type_v2)."""
    ret = func(*args)
    if type(ret) is not new_type and isinstance(new_type, type) and issubclass(new_type, Tensor):
        sub = object.__new__(new_type)
        sub.__dict__.update(ret.__dict__)
        ret = sub
    return _set_obj_state(ret, state)


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    from ._tensor import require_cpu

    require_cpu(device)
    t = data.to(dtype)
    t.requires_grad_(bool(requires_grad))
    return t


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    from ._creation import from_numpy

    return _rebuild_device_tensor_from_cpu_tensor(from_numpy(np.asarray(data)), dtype, device, requires_grad)


def _get_layout(name):
    if name == "torch.strided":
        return strided
    raise RuntimeError(f"dyngrad.load: the checkpoint holds a tensor of layout {name}; dyngrad has only torch.strided")


class Unsupported:
    """Stands for a name torch's loader allows but dyngrad cannot honour; using it raises RuntimeError."""

    def __init__(self, full_name: str, what: str) -> None:
        self.full_name = full_name
        self.what = what

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            f"dyngrad.load: the checkpoint uses {self.full_name} ({self.what}), which dyngrad does not provide"
        )

    def __repr__(self) -> str:
        return f"<dyngrad stand-in for {self.full_name}>"


# ----------------------------------------------------------------------------- the allowed names
def _weights_only_table() -> dict:
    """torch 2.13's weights-only allow-list, each name bound to dyngrad's object (or a stand-in)."""
    from .nn.parameter import Parameter

    table: dict = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": _get_layout,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": codecs.encode,  # how protocol 2 writes bytes
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch.storage.UntypedStorage": _UntypedStorageClass,
        "torch.storage.TypedStorage": Unsupported("torch.storage.TypedStorage", "a bare TypedStorage"),
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._utils._rebuild_device_tensor_from_cpu_tensor": _rebuild_device_tensor_from_cpu_tensor,
        "torch._utils._rebuild_device_tensor_from_numpy": _rebuild_device_tensor_from_numpy,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    }
    for name, what in (("_rebuild_qtensor", "quantized tensors"), ("_rebuild_sparse_tensor", "sparse tensors"),
                       ("_rebuild_meta_tensor_no_storage", "meta tensors"), ("_rebuild_nested_tensor", "nested tensors"),
                       ("_rebuild_wrapper_subclass", "wrapper tensor subclasses")):
        table[f"torch._utils.{name}"] = Unsupported(f"torch._utils.{name}", what)
    for d in _dtype.ALL:
        table[f"torch.{d.name}"] = d
    have = {d.name for d in _dtype.ALL}  # (bfloat16 is in it with the ml_dtypes extra)
    for name in MISSING_DTYPES:
        if name in have:
            continue
        table[f"torch.{name}"] = Unsupported(f"torch.{name}", "a dtype dyngrad does not have")
    for name in STORAGE_DTYPES:
        table[f"torch.{name}"] = StorageType(name)
    for kind in _TENSOR_TYPES:
        table[f"torch.{kind}Tensor"] = Unsupported(f"torch.{kind}Tensor", "a legacy tensor type")
        table[f"torch.sparse.{kind}Tensor"] = Unsupported(f"torch.sparse.{kind}Tensor", "sparse tensors")
        table[f"torch.cuda.{kind}Tensor"] = Unsupported(f"torch.cuda.{kind}Tensor", "CUDA tensors")
        table[f"torch.cuda.sparse.{kind}Tensor"] = Unsupported(f"torch.cuda.sparse.{kind}Tensor", "sparse tensors")
    for name in ("ComplexDouble", "ComplexFloat"):
        table[f"torch.cuda.{name}Storage"] = Unsupported(f"torch.cuda.{name}Storage", "CUDA storages")
    for kind in _TENSOR_TYPES:
        table[f"torch.cuda.{kind}Storage"] = Unsupported(f"torch.cuda.{kind}Storage", "CUDA storages")
    for name in ("sparse.BoolTensor", "cuda.sparse.BoolTensor"):  # torch has no sparse bool classes
        table.pop(f"torch.{name}")
    for name in _QSCHEMES:
        table[f"torch.{name}"] = Unsupported(f"torch.{name}", "quantized tensors")
    return table


_TABLE: dict | None = None


def weights_only_table() -> dict:
    global _TABLE
    if _TABLE is None:
        _TABLE = _weights_only_table()
    return _TABLE


# ----------------------------------------------------------------------------- writing
class Global:
    """A torch name to write as a pickle GLOBAL (``torch._utils`` ``_rebuild_tensor_v2``), whatever the
    saving process has installed: the pickler writes the name without importing it."""

    _interned: dict = {}

    def __new__(cls, module: str, name: str):
        key = (module, name)
        self = cls._interned.get(key)
        if self is None:
            self = object.__new__(cls)
            self.module, self.name = module, name
            cls._interned[key] = self
        return self

    def __call__(self, *args):  # pickle requires a reduce function to be callable; this one is only written
        raise TypeError(f"{self.module}.{self.name} is a name for pickling, not a function")


class StorageRef:
    """One storage being saved: the persistent id ``("storage", torch.FloatStorage, key, "cpu", numel)``."""

    __slots__ = ("key", "dtype_name", "numel", "array")

    def __init__(self, key: str, dtype_name: str, numel: int, array: np.ndarray) -> None:
        self.key, self.dtype_name, self.numel, self.array = key, dtype_name, numel, array

    def persistent_id(self, legacy: bool = False) -> tuple:
        if self.dtype_name not in _STORAGE_OF:  # no legacy storage class (uint16/32/64, float8): torch writes the
            # bytes as an UntypedStorage, its size in bytes, and names the dtype in _rebuild_tensor_v3
            return ("storage", Global("torch.storage", "UntypedStorage"), self.key, "cpu", self.array.nbytes)
        storage_type = Global("torch", _STORAGE_OF[self.dtype_name])
        if legacy:  # torch's non-zip format adds view metadata (None: dyngrad writes whole storages)
            return ("storage", storage_type, self.key, "cpu", self.numel, None)
        return ("storage", storage_type, self.key, "cpu", self.numel)


_TENSOR_INTERNALS = frozenset(Tensor.__dict__)


def python_state(t: Tensor) -> dict:
    """Attributes a user set on a tensor (dyngrad's own are underscored), saved as torch saves them."""
    return {k: v for k, v in vars(t).items() if not k.startswith("_") and k not in _TENSOR_INTERNALS}


class Storages:
    """The storages of one save: tensors viewing the same memory share one storage, as in torch."""

    def __init__(self, legacy: bool = False) -> None:
        self.legacy = legacy  # for torch's non-zip format
        self.refs: list[StorageRef] = []
        self._by_root: dict[int, tuple[np.ndarray, StorageRef]] = {}

    def _new(self, dtype_name: str, flat: np.ndarray) -> StorageRef:
        """A new storage over ``flat`` (bytes); its numel counts elements of ``dtype_name``."""
        itemsize = _dtype.to_numpy(getattr(_dtype, dtype_name)).itemsize
        ref = StorageRef(str(len(self.refs)), dtype_name, flat.nbytes // itemsize, flat)
        self.refs.append(ref)
        return ref

    def locate(self, t: Tensor):
        """``(storage, storage_offset, stride, metadata)`` of ``t``, in elements of ``t``'s dtype."""
        a = t._data
        d = _dtype.from_numpy(a.dtype)
        metadata = {}
        if t._is_conj or t._is_neg:  # torch stores the unconjugated / unnegated memory and the bit
            if t._is_conj:
                a, metadata["conj"] = np.conj(a), True
            if t._is_neg:
                a, metadata["neg"] = np.negative(a), True
            return self._own(a, d), 0, _contiguous_strides(a.shape), metadata
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        itemsize = a.itemsize
        byte_offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        shareable = (
            a.size > 0 and root.flags.c_contiguous and root.nbytes % itemsize == 0
            and byte_offset % itemsize == 0 and all(s >= 0 and s % itemsize == 0 for s in a.strides)
        )
        if not shareable:  # no torch-expressible view of a storage (negative strides, ...): its own copy
            return self._own(a, d), 0, _contiguous_strides(a.shape), metadata
        entry = self._by_root.get(id(root))
        if entry is None:
            ref = self._new(d.name, root.reshape(-1).view(np.uint8))
            self._by_root[id(root)] = (root, ref)  # the root is kept alive, so its id is not reused
        else:
            ref = entry[1]
            if ref.dtype_name != d.name:
                raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        return ref, byte_offset // itemsize, tuple(s // itemsize for s in a.strides), metadata

    def _own(self, a: np.ndarray, d) -> StorageRef:
        return self._new(d.name, np.ascontiguousarray(a).reshape(-1).view(np.uint8))


def _contiguous_strides(shape) -> tuple:
    out, n = [], 1
    for s in reversed(shape):
        out.append(n)
        n *= max(s, 1)
    return tuple(reversed(out))


class TorchPickler(pickle._Pickler):
    """pickle's Python pickler, writing dyngrad's tensors, dtypes, Size and device under torch's names.

    The pure-Python pickler is used because only it lets a GLOBAL be written for a name that is
    not imported in this process (``Global``); ``data.pkl`` holds no tensor data (storages are
    persistent ids), so its speed does not matter.
    """

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol: int, storages: Storages) -> None:
        super().__init__(file, protocol)
        self.storages = storages

    def persistent_id(self, obj):
        if type(obj) is StorageRef:
            return obj.persistent_id(self.storages.legacy)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        kind = type(obj)
        if kind is Size:
            return (Global("torch", "Size"), (tuple(obj),))
        if kind is device:
            return (Global("torch", "device"), (obj.type,) if obj.index is None else (obj.type, obj.index))
        if obj is strided:
            return (Global("torch.serialization", "_get_layout"), ("torch.strided",))
        return NotImplemented

    def _reduce_tensor(self, t: Tensor):
        from .nn.parameter import Parameter

        if isinstance(t, Parameter):
            data = wrap(t._data)
            if t._is_conj:
                data._is_conj = True
            if t._is_neg:
                data._is_neg = True
            state = python_state(t)
            if state:
                return (Global("torch._utils", "_rebuild_parameter_with_state"),
                        (data, t._requires_grad, OrderedDict(), (state, None)))
            return (Global("torch._utils", "_rebuild_parameter"), (data, t._requires_grad, OrderedDict()))
        ref, offset, stride, metadata = self.storages.locate(t)
        args = (ref, offset, tuple(t._data.shape), stride, t._requires_grad, OrderedDict())
        if ref.dtype_name in _STORAGE_OF:
            rebuild = Global("torch._utils", "_rebuild_tensor_v2")
        else:  # (an UntypedStorage: the dtype follows the backward hooks, as torch writes it)
            rebuild = Global("torch._utils", "_rebuild_tensor_v3")
            args += (t.dtype,)
        if metadata:
            args += (metadata,)
        state = python_state(t)
        if type(t) is Tensor and not state:
            return (rebuild, args)
        return (Global("torch._tensor", "_rebuild_from_type_v2"), (rebuild, type(t), args, (state, None)))

    def save_torch_global(self, obj) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    dispatch[Global] = save_torch_global

    def save_dtype(self, obj) -> None:
        self.save(Global("torch", obj.name))  # through save(): a name written before is a memo lookup

    dispatch[_dtype.dtype] = save_dtype
    dispatch[_dtype._LimitedDtype] = save_dtype  # (pickle's dispatch goes by exact type)
