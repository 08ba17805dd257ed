"""The restricted unpickler behind ``dyngrad.load(weights_only=True)`` (the default): it never runs code.

A pickle is a program for a small stack machine; the dangerous instructions are the ones that look
up a global by name (``GLOBAL``) and call it (``REDUCE``, ``NEWOBJ``, ``BUILD``). This unpickler
executes the instructions torch 2.13's weights-only loader executes (protocol 2's, which
``torch.save`` writes), and for those four:

- ``GLOBAL`` resolves only the names on torch's allow-list (``_torch_pickle.weights_only_table``:
  tensors' rebuild functions, storage classes, dtypes, ``torch.Size``, ``torch.device``,
  ``OrderedDict``, ``Counter``, ``set``, ``complex``, ``bytearray``, ``_codecs.encode``) to dyngrad's
  objects, plus what the user allow-listed with ``add_safe_globals``; names from the modules
  ``sys``, ``os``, ``posix`` and ``nt`` are refused even then;
- ``REDUCE`` and ``NEWOBJ`` call only objects obtained that way;
- ``BUILD`` sets state only on tensors, Parameters, OrderedDicts and allow-listed types;
- ``APPEND``/``SETITEM`` only fill lists and dicts.

Anything else raises ``pickle.UnpicklingError`` with torch's text, which ``dyngrad.load`` wraps in
torch's explanation ("Weights only load failed. ..."). The rules and message texts are torch's
(torch/_weights_only_unpickler.py); this is dyngrad's own implementation of them.
"""

from __future__ import annotations

import pickle
import struct
import warnings
from collections import Counter, OrderedDict

from . import _torch_pickle
from ._tensor import Tensor

BLOCKED_MODULES = ("sys", "os", "posix", "nt")  # never allowed, even when a user allow-lists a name from them

_user_globals: set = set()


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes or functions in ``weights_only`` loads (torch.serialization.add_safe_globals).

    Args:
        safe_globals: objects, or ``(object, "module.name")`` pairs for an object pickled under another name.
    """
    _user_globals.update(safe_globals)


def get_safe_globals() -> list:
    """The objects allowed with ``add_safe_globals`` (torch.serialization.get_safe_globals)."""
    return list(_user_globals)


def clear_safe_globals() -> None:
    """Forget every ``add_safe_globals`` entry (torch.serialization.clear_safe_globals)."""
    _user_globals.clear()


class safe_globals:
    """Context manager allowing ``safe_globals`` only inside the block (torch.serialization.safe_globals)."""

    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = list(safe_globals)

    def __enter__(self) -> None:
        self.added = [g for g in self.safe_globals if g not in _user_globals]
        _user_globals.update(self.added)

    def __exit__(self, *exc) -> None:
        _user_globals.difference_update(self.added)


def user_table() -> dict:
    """``"module.name" -> object`` for the user's allow-list, with torch's checks of the pair form."""
    table = {}
    for entry in _user_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(
                    f"Expected tuple of length 2 (global, str of callable full path), but got tuple of length: {len(entry)}"
                )
            if type(entry[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: {type(entry[1])}")
            table[entry[1]] = entry[0]
        else:
            table[f"{entry.__module__}.{entry.__qualname__}"] = entry
    return table


# Names torch recognises but loads only after an import (torch's texts).
_NEEDS_IMPORT = {
    "torch.nested._internal.nested_tensor.NestedTensor": "``torch.nested`` and ``torch._dynamo`` must be imported "
    "to load nested jagged tensors (NJTs)",
    "torch.nested._internal.nested_tensor._rebuild_njt": "``torch.nested`` and ``torch._dynamo`` must be imported "
    "to load nested jagged tensors (NJTs)",
    "torch._dynamo.decorators._DimRange": "``torch.nested`` and ``torch._dynamo`` must be imported to load nested "
    "jagged tensors (NJTs)",
}
for _name in ("torch.distributed.device_mesh.DeviceMesh", "torch.distributed.tensor._dtensor_spec.DTensorSpec",
              "torch.distributed.tensor._dtensor_spec.TensorMeta", "torch.distributed.tensor.DTensor",
              "torch.distributed.tensor.placement_types.Partial", "torch.distributed.tensor.placement_types.Replicate",
              "torch.distributed.tensor.placement_types.Shard"):
    _NEEDS_IMPORT[_name] = "``torch.distributed.tensor`` must be imported to load DTensors"


def _shown_name(full_path: str) -> str:
    """How torch names a refused global: ``builtins.eval`` as ``eval``; dyngrad's own classes (a whole module
    saved by dyngrad) by their torch names, which is what the user's ``torch`` (``import dyngrad as torch``)
    calls them in the add_safe_globals([...]) the message suggests."""
    if full_path.startswith("builtins."):
        return full_path[len("builtins."):]
    if full_path.startswith("dyngrad."):
        return "torch." + full_path[len("dyngrad."):]
    return full_path


class WeightsOnlyUnpickler:
    """Reads one pickle from ``file`` under the rules above; ``persistent_load`` supplies storages."""

    def __init__(self, file, persistent_load) -> None:
        self.read = file.read
        self.readline = file.readline
        self.persistent_load = persistent_load
        self.memo: dict = {}
        self.stack: list = []
        self.marks: list = []
        allowed = _torch_pickle.weights_only_table()
        self.user = user_table()
        self.allowed = allowed
        # identity sets: what REDUCE/NEWOBJ may call and BUILD may fill
        self.callable_ids = {id(v) for v in allowed.values()} | {id(v) for v in self.user.values()}
        self.buildable_types = {v for v in self.user.values() if isinstance(v, type)}
        self.handlers = {
            pickle.GLOBAL[0]: self._global, pickle.NEWOBJ[0]: self._newobj, pickle.REDUCE[0]: self._reduce,
            pickle.BUILD[0]: self._build, pickle.APPEND[0]: self._append, pickle.APPENDS[0]: self._appends,
            pickle.SETITEM[0]: self._setitem, pickle.SETITEMS[0]: self._setitems, pickle.MARK[0]: self._mark,
            pickle.TUPLE[0]: self._tuple, pickle.TUPLE1[0]: self._tuple_n(1), pickle.TUPLE2[0]: self._tuple_n(2),
            pickle.TUPLE3[0]: self._tuple_n(3), pickle.NONE[0]: self._push_const(None),
            pickle.NEWFALSE[0]: self._push_const(False), pickle.NEWTRUE[0]: self._push_const(True),
            pickle.EMPTY_TUPLE[0]: self._push_const(()), pickle.EMPTY_LIST[0]: self._push_new(list),
            pickle.EMPTY_DICT[0]: self._push_new(dict), pickle.EMPTY_SET[0]: self._push_new(set),
            pickle.BININT[0]: self._unpacked("<i", 4), pickle.BININT1[0]: self._unpacked("<B", 1),
            pickle.BININT2[0]: self._unpacked("<H", 2), pickle.BINFLOAT[0]: self._unpacked(">d", 8),
            pickle.BINUNICODE[0]: self._binunicode, pickle.SHORT_BINSTRING[0]: self._short_binstring,
            pickle.BINPERSID[0]: self._binpersid, pickle.BINGET[0]: self._get("<B", 1),
            pickle.LONG_BINGET[0]: self._get("<I", 4), pickle.BINPUT[0]: self._put("<B", 1),
            pickle.LONG_BINPUT[0]: self._put("<I", 4), pickle.LONG1[0]: self._long1, pickle.PROTO[0]: self._proto,
        }

    def load(self):
        handlers = self.handlers
        read = self.read
        while True:
            key = read(1)
            if not key:
                raise EOFError
            op = key[0]
            if op == pickle.STOP[0]:
                return self.stack.pop()
            handler = handlers.get(op)
            if handler is None:
                raise pickle.UnpicklingError(f"Unsupported operand {op}")
            handler()

    # ------------------------------------------------------------------ the risky instructions
    def _global(self) -> None:
        module = self.readline()[:-1].decode("utf-8")
        name = self.readline()[:-1].decode("utf-8")
        module, name = _torch_pickle.modern_name(module, name)
        full_path = f"{module}.{name}"
        if module in BLOCKED_MODULES:
            raise pickle.UnpicklingError(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked."
            )
        if full_path in self.allowed:
            self.stack.append(self.allowed[full_path])
        elif full_path in self.user:
            self.stack.append(self.user[full_path])
        elif full_path in _NEEDS_IMPORT:
            raise pickle.UnpicklingError(_NEEDS_IMPORT[full_path])
        else:
            shown = _shown_name(full_path)
            raise pickle.UnpicklingError(
                f"Unsupported global: GLOBAL {shown} was not an allowed global by default. "
                f"Please use `torch.serialization.add_safe_globals([{shown}])` or the "
                f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this global "
                "if you trust this class/function."
            )

    def _allowed_callable(self, obj) -> bool:
        return id(obj) in self.callable_ids

    def _newobj(self) -> None:
        from .nn.parameter import Parameter

        args = self.stack.pop()
        cls = self.stack.pop()
        if cls is Parameter:
            self.stack.append(Parameter(*args))
        elif self._allowed_callable(cls) and isinstance(cls, type):
            self.stack.append(cls.__new__(cls, *args))
        else:
            raise pickle.UnpicklingError(
                "Can only create new object for nn.Parameter or classes allowlisted "
                f"via `add_safe_globals` but got {cls}"
            )

    def _reduce(self) -> None:
        args = self.stack.pop()
        func = self.stack[-1]
        if not self._allowed_callable(func):
            message = f"Trying to call reduce for unrecognized function {func}"
            if hasattr(func, "__self__"):
                message += f" which belongs to {func.__self__}"
            raise pickle.UnpicklingError(message)
        self.stack[-1] = func(*args)

    def _build(self) -> None:
        from .nn.parameter import Parameter

        state = self.stack.pop()
        inst = self.stack[-1]
        kind = type(inst)
        if kind is Tensor or kind is Parameter:
            if not isinstance(state, dict):
                raise pickle.UnpicklingError(f"dyngrad cannot restore a tensor from legacy state of type {type(state)}")
            _torch_pickle._set_obj_state(inst, state)
        elif kind is OrderedDict:
            inst.__dict__.update(state)
        elif kind in self.buildable_types or (self._allowed_callable(kind)):
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            else:  # as pickle's own BUILD: a dict, or (dict, slots dict)
                slotstate = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slotstate = state
                if state:
                    inst.__dict__.update(state)
                for k, v in (slotstate or {}).items():
                    setattr(inst, k, v)
        else:
            raise pickle.UnpicklingError(
                "Can only build Tensor, Parameter, OrderedDict or types allowlisted "
                f"via `add_safe_globals`, but got {kind}"
            )

    def _binpersid(self) -> None:
        pid = self.stack.pop()
        if type(pid) is not tuple and type(pid) is not int:
            raise pickle.UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
        if type(pid) is tuple and len(pid) > 0:
            tag = pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]
            if tag != "storage":
                raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
        self.stack.append(self.persistent_load(pid))

    # ------------------------------------------------------------------ containers
    def _append(self) -> None:
        item = self.stack.pop()
        target = self.stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError(f"Can only append to lists, but got {type(target)}")
        target.append(item)

    def _appends(self) -> None:
        items = self._pop_mark()
        target = self.stack[-1]
        if type(target) is not list:
            raise pickle.UnpicklingError(f"Can only extend lists, but got {type(target)}")
        target.extend(items)

    def _dict_target(self, opcode: str):
        target = self.stack[-1]
        if type(target) not in (dict, OrderedDict, Counter):
            raise pickle.UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, but got {type(target)}"
            )
        return target

    def _setitem(self) -> None:
        value = self.stack.pop()
        key = self.stack.pop()
        self._dict_target("SETITEM")[key] = value

    def _setitems(self) -> None:
        items = self._pop_mark()
        target = self._dict_target("SETITEMS")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def _mark(self) -> None:
        self.marks.append(self.stack)
        self.stack = []

    def _pop_mark(self) -> list:
        items = self.stack
        self.stack = self.marks.pop()
        return items

    def _tuple(self) -> None:
        items = tuple(self._pop_mark())  # (before self.stack is read: popping the mark replaces it)
        self.stack.append(items)

    def _tuple_n(self, n: int):
        def build() -> None:
            items = tuple(self.stack[-n:])
            del self.stack[-n:]
            self.stack.append(items)

        return build

    # ------------------------------------------------------------------ values
    def _push_const(self, value):
        def push() -> None:
            self.stack.append(value)

        return push

    def _push_new(self, factory):
        def push() -> None:
            self.stack.append(factory())

        return push

    def _unpacked(self, fmt: str, size: int):
        def push() -> None:
            self.stack.append(struct.unpack(fmt, self.read(size))[0])

        return push

    def _binunicode(self) -> None:
        (n,) = struct.unpack("<I", self.read(4))
        self.stack.append(str(self.read(n), "utf-8", "surrogatepass"))

    def _short_binstring(self) -> None:
        n = self.read(1)[0]
        self.stack.append(self.read(n))  # kept as bytes (torch's encoding="bytes" for this opcode)

    def _long1(self) -> None:
        n = self.read(1)[0]
        self.stack.append(int.from_bytes(self.read(n), "little", signed=True))

    def _get(self, fmt: str, size: int):
        def push() -> None:
            self.stack.append(self.memo[struct.unpack(fmt, self.read(size))[0]])

        return push

    def _put(self, fmt: str, size: int):
        def store() -> None:
            self.memo[struct.unpack(fmt, self.read(size))[0]] = self.stack[-1]

        return store

    def _proto(self) -> None:
        proto = self.read(1)[0]
        if proto != 2:
            warnings.warn(
                f"Detected pickle protocol {proto} in the checkpoint, which was "
                "not the default pickle protocol used by `torch.load` (2). The weights_only "
                "Unpickler might not support all instructions implemented by this protocol, "
                "please file an issue for adding support if you encounter this.",
                stacklevel=4,
            )


# torch.load's explanation around an UnpicklingError (torch/serialization.py, load)
UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)
DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


def explain(message: str) -> str:
    """torch.load's full text for a weights-only failure whose unpickler said ``message``."""
    import re

    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
            "the recommended steps in the following error message.\n\tWeightsUnpickler error: " + message + DOCS_MESSAGE
        )
    if re.search(r"(\S+) must be (\S+) to load", message):
        return f"Weights only load failed. {message}\n {UNSAFE_MESSAGE}\n"
    text = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        text += (
            "Please file an issue with the following so that we can make "
            "`weights_only=True` compatible with your use case: WeightsUnpickler error: "
        )
    return text + "\n\n" + message + DOCS_MESSAGE
