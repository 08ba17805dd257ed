"""dyngrad.save / dyngrad.load in torch's checkpoint format: files torch writes load here, and the reverse.

**The format** (the one ``torch.save`` has written since PyTorch 1.6): an uncompressed zip archive
whose members sit under one folder named after the file (``model/`` for ``model.pt``, ``archive/``
for a buffer), each member's data aligned to 64 bytes so it can be memory-mapped:

- ``data.pkl``: the saved object as a pickle (protocol 2) in which each tensor refers to a storage
  (see ``_torch_pickle`` for how tensors, Parameters, dtypes and sizes are written);
- ``data/0``, ``data/1``, ...: the raw bytes of each storage, in the machine's byte order;
- ``byteorder`` (``little``), ``version`` (``3``), ``.format_version``, ``.storage_alignment``,
  ``.data/serialization_id``.

Tensors that view the same memory are written as views of one storage, so they share memory again
when loaded (by dyngrad or torch). ``_use_new_zipfile_serialization=False`` writes and ``load`` reads
torch's older non-zip format too.

**Safety**: ``load`` defaults to ``weights_only=True``, as torch 2.6+ does: the pickle is read by a
restricted unpickler (``_weights_only``) that builds only tensors, containers, numbers, strings and
the few torch types on torch's allow-list, and never imports or calls anything else. Loading whole
pickled objects (a ``Module``, a custom class) needs ``weights_only=False``, which runs the pickle's
code: do it only for files you trust.

**Integrity**: writing to a path goes to a temporary file in the same folder, renamed over the
target only once complete, so a crash never leaves a half-written file under the name. Reading
checks each member's CRC-32 (torch does not) and raises a RuntimeError naming the file when it is
truncated or corrupted.

Files written by dyngrad 0.1's own format (a zip with ``manifest.json``) still load.
"""

from __future__ import annotations

import io
import os
import pickle
import secrets
import struct
import sys
import tempfile
import warnings
import zipfile
import zlib

import numpy as np

from . import _dtype, _torch_pickle
from ._torch_pickle import StorageType, TorchPickler, TypedStorage, UntypedStorage
from ._weights_only import (
    UNSAFE_MESSAGE,
    WeightsOnlyUnpickler,
    add_safe_globals,
    clear_safe_globals,
    explain,
    get_safe_globals,
    safe_globals,
)

__all__ = [
    "save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
    "get_unsafe_globals_in_checkpoint", "DEFAULT_PROTOCOL",
]

DEFAULT_PROTOCOL = 2
STORAGE_ALIGNMENT = 64
# torch's non-zip format (torch/serialization.py): a magic number and a protocol version lead the file.
LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL_VERSION = 1001
_ZIP_MAGIC = b"PK\x03\x04"
_CORRUPT_ZIP = (
    "PytorchStreamReader failed reading zip archive: failed finding central directory. This is an internal "
    "miniz error. If you are seeing this error, there is a high likelihood that your checkpoint file is "
    "corrupted. This can happen if the checkpoint was not saved properly, was transferred incorrectly, or the "
    "file was modified after saving."
)


# ============================================================================ save
def save(obj, f, pickle_module=None, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save an object to a file in torch's checkpoint format (torch.save).

    ``torch.load(f, weights_only=True)`` reads the result, and so does ``dyngrad.load``. Tensors,
    Parameters, dtypes, ``Size``, ``device``, numbers, strings, bytes and dicts/lists/tuples/sets of
    them load with ``weights_only=True``; any other picklable object (a whole ``Module``, a custom
    class) is pickled too, and loads only with ``weights_only=False``.

    Args:
        obj: what to save, typically ``{"model": model.state_dict(), "optim": opt.state_dict(), ...}``.
        f: a path (``str`` or ``os.PathLike``) or a binary file object with ``write``.
        pickle_module: only Python's ``pickle`` is supported (None means it).
        pickle_protocol: the pickle protocol of ``data.pkl`` (torch's default, 2, is what
            ``weights_only`` loaders read without a warning).
        _use_new_zipfile_serialization: False writes torch's older non-zip format.
        _disable_byteorder_record: leave out the ``byteorder`` member (as torch's flag does).

    Raises:
        AttributeError: ``f`` is neither a path nor has a ``write`` method.
        RuntimeError: two tensors view the same memory as different dtypes (torch's rule).
        pickle.PicklingError, TypeError, AttributeError: ``obj`` holds something pickle cannot save.

    Writing to a path is atomic: the data goes to a temporary file beside it, renamed over ``f``
    only when complete.

    Example::

        >>> model = dyngrad.nn.Linear(2, 1)
        >>> dyngrad.save({"model": model.state_dict(), "epoch": 3}, "checkpoint.pt")
        >>> dyngrad.load("checkpoint.pt")["epoch"]
        3
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("dyngrad.save supports only Python's pickle module as pickle_module")
    if not isinstance(f, (str, os.PathLike)) and not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    storages = _torch_pickle.Storages()
    data_pkl = io.BytesIO()
    TorchPickler(data_pkl, pickle_protocol, storages).dump(obj)

    def write(out) -> None:
        if _use_new_zipfile_serialization:
            prefix = _archive_name(f)
            _write_zip(out, prefix, data_pkl.getvalue(), storages.refs, _disable_byteorder_record)
        else:
            _write_legacy(out, obj, pickle_protocol)

    if isinstance(f, (str, os.PathLike)):
        _write_atomically(os.fspath(f), write)
    else:
        write(f)
        if hasattr(f, "flush"):
            f.flush()


def _archive_name(f) -> str:
    """torch's name for the archive's folder: the file's name without its extension, else 'archive'."""
    if not isinstance(f, (str, os.PathLike)):
        return "archive"
    base = os.path.basename(os.fspath(f))
    stem = base[: base.rfind(".")] if "." in base else base
    return stem or "archive"


def _write_atomically(path: str, write) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".dyngrad-save-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_zip(out, prefix: str, data_pkl: bytes, refs: list, no_byteorder: bool) -> None:
    """The archive as torch writes it: stored (uncompressed) members, each one's data 64-byte aligned."""
    records = [("data.pkl", data_pkl), (".format_version", b"1"), (".storage_alignment", b"64")]
    if not no_byteorder:
        records.append(("byteorder", sys.byteorder.encode()))
    records += [(f"data/{ref.key}", memoryview(ref.array)) for ref in refs]
    records += [("version", b"3\n"), (".data/serialization_id", "".join(secrets.choice("0123456789") for _ in range(40)).encode())]
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        for name, data in records:
            info = zipfile.ZipInfo(f"{prefix}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            nbytes = memoryview(data).nbytes
            zip64 = nbytes * 1.05 > zipfile.ZIP64_LIMIT  # zipfile's own rule for adding its zip64 field
            header = 30 + len(info.filename.encode("utf-8")) + (20 if zip64 else 0)
            # Pad with an extra field (id "FB", as torch's writer does) so the data starts on a 64-byte boundary.
            pad = (-(z.fp.tell() + header + 4)) % STORAGE_ALIGNMENT
            info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            with z.open(info, "w", force_zip64=zip64) as dst:
                dst.write(data)


def _write_legacy(out, obj, protocol: int) -> None:
    """torch's non-zip format: three small pickles, the object's pickle, the storage keys, then each storage."""
    storages = _torch_pickle.Storages(legacy=True)
    for header in (LEGACY_MAGIC_NUMBER, LEGACY_PROTOCOL_VERSION,
                   {"protocol_version": LEGACY_PROTOCOL_VERSION, "little_endian": sys.byteorder == "little",
                    "type_sizes": {"short": 2, "int": 4, "long": 4}}):
        pickle.dump(header, out, protocol=protocol)
    TorchPickler(out, protocol, storages).dump(obj)
    refs = sorted(storages.refs, key=lambda r: r.key)
    pickle.dump([r.key for r in refs], out, protocol=protocol)
    for ref in refs:
        out.write(struct.pack("<q", ref.numel))
        out.write(memoryview(ref.array))


# ============================================================================ load
def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args):
    """Load an object saved by ``torch.save`` or ``dyngrad.save`` (torch.load).

    Args:
        f: a path or a binary file object with ``read`` and ``seek``.
        map_location: where storages go: None, ``"cpu"``, ``dyngrad.device("cpu")``, a dict remapping
            the saved locations (``{"cuda:0": "cpu"}``), or a function ``(storage, location) ->
            storage or None``. dyngrad computes on the CPU, so any other device raises torch's
            CPU-only error; a file saved from a GPU loads with ``map_location="cpu"``.
        pickle_module: with ``weights_only=False``, the module whose ``Unpickler`` reads the file.
        weights_only: True (the default unless ``pickle_module`` is given) reads the file with the
            restricted unpickler, which builds only tensors, containers, numbers, strings and the
            torch types on torch's allow-list (more with ``add_safe_globals``) and never runs code
            from the file. False unpickles anything, which can run arbitrary code: only for
            trusted files. The environment variables ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` and
            ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` act as in torch.
        mmap: memory-map the file instead of reading the storages into memory (``f`` must be a
            path); tensors are then views of the file's pages, copied on write.
        **pickle_load_args: passed to the Unpickler when ``weights_only=False`` (e.g. ``encoding``).

    Returns:
        The saved object; tensors are dyngrad tensors (Parameters stay Parameters), on the CPU.
        Tensors that shared memory when saved share it again.

    Raises:
        pickle.UnpicklingError: with ``weights_only=True``, the file needs something outside the
            allow-list (torch's error text, which names the global and how to allow it).
        RuntimeError: the file is truncated or corrupted, uses a feature dyngrad lacks (bfloat16,
            quantized or sparse tensors, TorchScript archives), or names a device other than the CPU.
        EOFError: the file is empty.

    Example::

        >>> state = dyngrad.load("checkpoint.pt")          # weights_only=True: safe on any file
        >>> model.load_state_dict(state["model"])
        >>> whole = dyngrad.load("model.pt", weights_only=False)  # a pickled Module: trusted files only
    """
    weights_only_not_set = weights_only is None
    if weights_only_not_set:
        weights_only = pickle_module is None
    truthy = ("1", "y", "yes", "true")
    force_on = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in truthy
    force_off = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in truthy
    if force_on and force_off:
        raise RuntimeError(
            "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
            "should be set, but both were set."
        )
    if force_on:
        weights_only = True
    elif force_off and weights_only_not_set:
        warnings.warn(
            "Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
            "`weights_only` argument was not explicitly passed to `torch.load`, forcing weights_only=False.",
            UserWarning,
            stacklevel=2,
        )
        weights_only = False
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
        if pickle_load_args:
            warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    else:
        pickle_module = pickle_module or pickle
        pickle_load_args.setdefault("encoding", "utf-8")
    restore = _restorer(map_location)
    is_path = isinstance(f, (str, os.PathLike))
    name = os.fspath(f) if is_path else getattr(f, "name", "<buffer>")
    if mmap and not is_path:
        raise ValueError("f must be a file path in order to use the mmap argument")
    opened = open(f, "rb") if is_path else f  # noqa: SIM115 - closed below
    try:
        start = opened.tell()
        head = opened.read(4)
        opened.seek(start)
        if head == _ZIP_MAGIC:
            return _load_zip(opened, name, restore, weights_only, pickle_module, pickle_load_args,
                             mmap_path=os.fspath(f) if mmap else None)
        if mmap:
            f_name = f"{f}, " if isinstance(f, str) else ""
            raise RuntimeError(
                "mmap can only be used with files saved with "
                f"`torch.save({f_name}_use_new_zipfile_serialization=True), "
                "please torch.save your checkpoint with this option in order to use mmap."
            )
        return _load_legacy(opened, name, restore, weights_only, pickle_module, pickle_load_args)
    finally:
        if is_path:
            opened.close()


def _unpickle(data_file, persistent_load, weights_only: bool, pickle_module, pickle_load_args):
    if weights_only:
        try:
            return WeightsOnlyUnpickler(data_file, persistent_load).load()
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(explain(str(e))) from None
    unpickler = _full_unpickler_class(pickle_module)(data_file, **pickle_load_args)
    unpickler.persistent_load = persistent_load
    return unpickler.load()


def _full_unpickler_class(pickle_module):
    class TorchNamesUnpickler(pickle_module.Unpickler):
        """Any pickle (weights_only=False), with torch's names read as dyngrad's objects."""

        def find_class(self, module, name):
            if type(name) is str and name in _torch_pickle.STORAGE_DTYPES:
                return StorageType(name)  # torch reads any "...Storage" global as its storage type
            module = {"torch.tensor": "torch._tensor"}.get(module, module)
            table = _torch_pickle.weights_only_table()
            if f"{module}.{name}" in table:
                return table[f"{module}.{name}"]
            if module == "torch" or module.startswith("torch."):
                return _dyngrad_equivalent(module, name)
            return super().find_class(module, name)

    return TorchNamesUnpickler


def _dyngrad_equivalent(module: str, name: str):
    """``torch.nn.modules.linear.Linear`` as ``dyngrad.nn.modules.linear.Linear``, or a clear error."""
    import importlib

    target = "dyngrad" + module[len("torch"):]
    try:
        obj = importlib.import_module(target)
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            f"dyngrad.load: the checkpoint needs {module}.{name}, but dyngrad does not provide the module "
            f"{module} (as {target})"
        ) from None
    for part in name.split("."):
        if not hasattr(obj, part):
            raise AttributeError(
                f"dyngrad.load: the checkpoint needs {module}.{name}, which dyngrad does not provide"
            )
        obj = getattr(obj, part)
    return obj


# ---------------------------------------------------------------------------- locations
_ACCELERATORS = ("cuda", "xpu", "hpu", "mtia", "mps", "privateuseone")


def _default_restore(storage: UntypedStorage, location: str) -> UntypedStorage:
    """torch's default_restore_location on a CPU-only build: 'cpu' stays, an accelerator is an error."""
    if location == "cpu":
        return storage
    backend = location.split(":")[0]
    if backend in _ACCELERATORS:
        raise RuntimeError(
            f"Attempting to deserialize object on a {backend.upper()} "
            f"device but torch.{backend}.is_available() is False. "
            "If you are running on a CPU-only machine, "
            "please use torch.load with map_location=torch.device('cpu') "
            "to map your storages to the CPU."
        )
    raise RuntimeError(
        f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with {location})"
    )


def _restorer(map_location):
    from ._tensor import device

    if map_location is None:
        return _default_restore
    if isinstance(map_location, dict):
        return lambda storage, location: _default_restore(storage, str(map_location.get(location, location)))
    if isinstance(map_location, (str, bytes, device)):
        target = map_location.decode() if isinstance(map_location, bytes) else str(map_location)
        return lambda storage, location: _default_restore(storage, target)

    def call(storage, location):
        result = map_location(storage, location)
        if result is None:
            return _default_restore(storage, location)
        if not isinstance(result, UntypedStorage):
            raise RuntimeError(f"dyngrad.load: map_location returned {type(result).__name__}, not a storage")
        return result

    return call


# ---------------------------------------------------------------------------- the zip format
def _load_zip(opened, name, restore, weights_only, pickle_module, pickle_load_args, mmap_path=None):
    try:
        z = zipfile.ZipFile(opened)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        raise RuntimeError(f"{_CORRUPT_ZIP} (file: {name})") from None
    with z:
        names = z.namelist()
        if "manifest.json" in names:  # dyngrad 0.1's own format
            from . import _checkpoint_v1

            return _checkpoint_v1.load(z, name)
        prefix = names[0].split("/", 1)[0] if names and "/" in names[0] else ""
        records = {n[len(prefix) + 1:]: n for n in names if n.startswith(prefix + "/")}
        if "constants.pkl" in records:  # torch's test for a TorchScript archive
            raise RuntimeError(
                f"dyngrad.load: {name} is a TorchScript archive (torch.jit.save); dyngrad cannot run "
                "TorchScript. Save the model's state_dict() with torch.save instead."
            )
        if "data.pkl" not in records:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")

        def member(record: str) -> bytes:
            try:
                return z.read(records[record])
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as e:
                raise RuntimeError(f"dyngrad.load: {name} is corrupted ({record}: {e})") from None

        byteorder = member("byteorder").decode() if "byteorder" in records else "little"
        if byteorder not in ("little", "big"):
            raise ValueError("Unknown endianness type: " + byteorder)
        mapped = _map_file(mmap_path) if mmap_path else None
        loaded: dict[str, UntypedStorage] = {}

        def persistent_load(saved_id):
            if not isinstance(saved_id, tuple) or len(saved_id) != 5:
                raise RuntimeError(f"dyngrad.load: {name} is corrupted (bad storage reference {saved_id!r})")
            _, storage_type, key, location, numel = saved_id
            key = key.decode("ascii") if isinstance(key, bytes) else str(key)
            location = location.decode("ascii") if isinstance(location, bytes) else location
            dtype_name = getattr(storage_type, "dtype_name", None)
            if dtype_name is None:
                raise RuntimeError(f"dyngrad.load: {name} names an unsupported storage type {storage_type!r}")
            if key not in loaded:
                record = f"data/{key}"
                if record not in records:
                    raise RuntimeError(f"PytorchStreamReader failed locating file {record}: file not found")
                info = z.getinfo(records[record])
                if mapped is not None:
                    data = np.frombuffer(mapped, np.uint8, count=info.file_size, offset=_data_offset(opened, info))
                else:
                    data = np.frombuffer(bytearray(member(record)), np.uint8)
                if byteorder != sys.byteorder and dtype_name in _NUMPY_ITEMSIZED:
                    d = _torch_pickle.dtype_named(dtype_name)
                    data.view(d.np).byteswap(inplace=True)
                loaded[key] = restore(UntypedStorage(data), location)
            return TypedStorage(loaded[key], dtype_name)

        return _unpickle(io.BytesIO(member("data.pkl")), persistent_load, weights_only, pickle_module,
                         pickle_load_args)


_NUMPY_ITEMSIZED = {d.name for d in _dtype.ALL}


def _map_file(path: str):
    """The whole file mapped copy-on-write (torch's MAP_PRIVATE): writes to tensors never reach the file."""
    import mmap as _mmap

    with open(path, "rb") as fh:
        return _mmap.mmap(fh.fileno(), 0, access=_mmap.ACCESS_COPY)


def _data_offset(opened, info: zipfile.ZipInfo) -> int:
    """Where a stored member's bytes start: after its local header, whose extra field may differ from the
    central directory's."""
    opened.seek(info.header_offset)
    header = opened.read(30)
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    return info.header_offset + 30 + name_len + extra_len


# ---------------------------------------------------------------------------- the legacy format
def _load_legacy(opened, name, restore, weights_only, pickle_module, pickle_load_args):
    """torch's non-zip format (``_use_new_zipfile_serialization=False``)."""
    import tarfile

    start = opened.tell()
    try:
        is_tar = tarfile.is_tarfile(opened)
    except (OSError, ValueError):
        is_tar = False
    opened.seek(start)
    if is_tar:
        if weights_only:
            raise RuntimeError(
                "Cannot use ``weights_only=True`` with files saved in the legacy .tar format. " + UNSAFE_MESSAGE
            )
        raise RuntimeError(f"dyngrad.load: {name} is in torch's pre-1.0 .tar format, which dyngrad does not read")

    def small_pickle():
        if weights_only:
            return WeightsOnlyUnpickler(opened, lambda pid: pid).load()
        return pickle_module.load(opened, **pickle_load_args)

    try:
        magic = small_pickle()
    except EOFError:  # torch's texts: its weights-only unpickler's bare EOFError, pickle's own
        raise EOFError("" if weights_only else "Ran out of input") from None
    except pickle.UnpicklingError as e:
        if weights_only:  # torch's weights-only unpickler refuses the first pickle itself (an unknown opcode...)
            raise pickle.UnpicklingError(explain(str(e))) from None
        raise  # pickle's own error, as torch's (other errors, such as a memo miss's KeyError, pass as they are)
    if magic != LEGACY_MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol_version = small_pickle()
    if protocol_version != LEGACY_PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol_version}")
    small_pickle()  # sys_info: sizes of C types on the saving machine; storages are read little-endian below
    main_start = opened.tell()
    buffers: dict[str, np.ndarray] = {}

    def collect(saved_id):  # first pass: learn each storage's size without building anything from it
        if saved_id[0] == "storage":
            _, storage_type, key, _, numel, _ = saved_id
            if key not in buffers:
                buffers[key] = np.zeros(numel * _torch_pickle.dtype_named(storage_type.dtype_name).itemsize, np.uint8)
            return TypedStorage(UntypedStorage(buffers[key]), storage_type.dtype_name)
        return saved_id[1] if saved_id[0] == "module" else None

    _unpickle(opened, collect, weights_only, pickle_module, pickle_load_args)
    keys = small_pickle()
    for key in keys:
        (numel,) = struct.unpack("<q", opened.read(8))
        buf = buffers[key]
        chunk = opened.read(buf.nbytes)
        if len(chunk) != buf.nbytes:
            raise RuntimeError(f"dyngrad.load: {name} is truncated (storage {key})")
        buf[:] = np.frombuffer(chunk, np.uint8)
    end = opened.tell()
    opened.seek(main_start)
    views: dict = {}

    def persistent_load(saved_id):  # second pass: storages filled, tensors built over them
        typename = saved_id[0].decode("ascii") if isinstance(saved_id[0], bytes) else saved_id[0]
        if typename == "module":
            return saved_id[1]
        if typename != "storage":
            raise RuntimeError(f"Unknown saved id type: {saved_id[0]}")
        _, storage_type, key, location, _, view_metadata = saved_id
        storage = restore(UntypedStorage(buffers[key]), location)
        if view_metadata is not None:
            view_key, offset, size = view_metadata
            if view_key not in views:
                itemsize = _torch_pickle.dtype_named(storage_type.dtype_name).itemsize
                views[view_key] = UntypedStorage(storage.data[offset * itemsize:(offset + size) * itemsize])
            storage = views[view_key]
        return TypedStorage(storage, storage_type.dtype_name)

    result = _unpickle(opened, persistent_load, weights_only, pickle_module, pickle_load_args)
    opened.seek(end)
    return result


# ---------------------------------------------------------------------------- inspection
def get_unsafe_globals_in_checkpoint(f) -> list[str]:
    """The globals a checkpoint names that ``weights_only=True`` would refuse (torch's function of the name).

    Reads the pickle's instructions without executing any of them.
    """
    import pickletools

    from ._weights_only import user_table

    allowed = set(_torch_pickle.weights_only_table()) | set(user_table())
    opened = open(f, "rb") if isinstance(f, (str, os.PathLike)) else f  # noqa: SIM115
    try:
        with zipfile.ZipFile(opened) as z:
            pkl = next(n for n in z.namelist() if n.endswith("data.pkl"))
            data = z.read(pkl)
    except (zipfile.BadZipFile, StopIteration):
        raise ValueError("Expected input to be a checkpoint returned by torch.save") from None
    finally:
        if isinstance(f, (str, os.PathLike)):
            opened.close()
    found = set()
    for opcode, arg, _ in pickletools.genops(data):
        if opcode.name == "GLOBAL":
            module, name = arg.split(" ", 1)
            module, name = _torch_pickle.modern_name(module, name)
            found.add(f"{module}.{name}")
    return sorted(found - allowed)
