"""dyngrad.save / dyngrad.load: checkpoints that never execute code when loaded.

A file is a zip archive holding
- ``structure.json``: the nested object, as JSON with tags for what JSON lacks (``{"$tensor": 3}``,
  ``{"$tuple": [...]}``, ``{"$dict": [[key, value], ...]}`` so keys may be ints, ``{"$dtype": "float32"}``,
  ``{"$float": "nan"}``, ...);
- ``tensors/<n>.npy``: one array per distinct tensor, written by NumPy with ``allow_pickle=False``;
- ``manifest.json``: the format version and the SHA-256 of every other member.

What can be saved: None, bool, int, float, complex, str, bytes, dtypes, ``Size``, tensors and
Parameters (with ``requires_grad``), and dicts (any of those keys; OrderedDict kept), lists and
tuples of them — e.g. a module's or an optimizer's ``state_dict()``. A tensor stored twice in one
object comes back as one tensor; distinct tensors that are views of the same memory come back as
independent copies. Anything else (a Module, a function, an arbitrary class) raises TypeError:
saving it would need pickle, which runs code on load.

Writing to a path is atomic: the archive goes to a temporary file in the same directory, then
``os.replace`` puts it in place, so a crash never leaves a half-written checkpoint under the name.
Loading checks the zip's CRCs and the manifest's hashes and raises RuntimeError naming the file
when it is truncated, corrupted or not a dyngrad checkpoint.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import tempfile
import zipfile
from collections import OrderedDict

from ._backend import xp
from ._tensor import Size, Tensor, wrap

FORMAT = "dyngrad-checkpoint-1"

__all__ = ["save", "load"]


class _Encoder:
    def __init__(self) -> None:
        self.arrays: list = []
        self.memo: dict = {}

    def encode(self, obj):
        from . import _dtype

        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return obj
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"$float": repr(obj)}
        if isinstance(obj, complex):
            return {"$complex": [self.encode(obj.real), self.encode(obj.imag)]}
        if isinstance(obj, bytes):
            return {"$bytes": obj.hex()}
        if isinstance(obj, Tensor):
            return self._tensor(obj)
        if isinstance(obj, _dtype.dtype):
            return {"$dtype": obj.name}
        if isinstance(obj, Size):
            return {"$size": list(obj)}
        if isinstance(obj, xp.generic):
            return self.encode(obj.item())
        if isinstance(obj, dict):
            out = {"$dict": [[self.encode(k), self.encode(v)] for k, v in obj.items()]}
            if isinstance(obj, OrderedDict):
                out["ordered"] = True
                meta = getattr(obj, "_metadata", None)
                if meta is not None:
                    out["metadata"] = self.encode(meta)
            return out
        if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
            return {"$tuple": [self.encode(v) for v in obj]}
        if isinstance(obj, list):
            return {"$list": [self.encode(v) for v in obj]}
        raise TypeError(
            f"dyngrad.save cannot store an object of type {type(obj).__module__}.{type(obj).__qualname__}: only "
            "tensors, numbers, strings, bytes, None, dtypes and dicts/lists/tuples of them are supported (save a "
            "module's or optimizer's state_dict(), not the object itself)"
        )

    def _tensor(self, t: Tensor):
        from .nn.parameter import Parameter

        key = id(t)
        if key not in self.memo:
            self.memo[key] = len(self.arrays)
            data = t._data  # (np.ascontiguousarray would make a 0-d array 1-d)
            self.arrays.append(data if data.flags.c_contiguous else data.copy())
        out = {"$tensor": self.memo[key], "requires_grad": t._requires_grad}
        if isinstance(t, Parameter):
            out["parameter"] = True
        return out


def _decode(node, tensors: list, built: dict):
    from . import _dtype

    if not isinstance(node, dict):
        if isinstance(node, list):  # never written bare; reject rather than guess
            raise ValueError("unexpected bare list")
        return node
    if "$tensor" in node:
        idx = node["$tensor"]
        key = (idx, bool(node.get("parameter")), bool(node["requires_grad"]))
        if key not in built:
            data = tensors[idx]
            if node.get("parameter"):
                from .nn.parameter import Parameter

                built[key] = Parameter(wrap(data), requires_grad=node["requires_grad"])
            else:
                built[key] = wrap(data, node["requires_grad"])
        return built[key]
    if "$dict" in node:
        items = [(_decode(k, tensors, built), _decode(v, tensors, built)) for k, v in node["$dict"]]
        if node.get("ordered"):
            out = OrderedDict(items)
            if "metadata" in node:
                out._metadata = _decode(node["metadata"], tensors, built)
            return out
        return dict(items)
    if "$list" in node:
        return [_decode(v, tensors, built) for v in node["$list"]]
    if "$tuple" in node:
        return tuple(_decode(v, tensors, built) for v in node["$tuple"])
    if "$float" in node:
        return float(node["$float"])
    if "$complex" in node:
        re, im = node["$complex"]
        return complex(_decode(re, tensors, built), _decode(im, tensors, built))
    if "$bytes" in node:
        return bytes.fromhex(node["$bytes"])
    if "$dtype" in node:
        return getattr(_dtype, node["$dtype"])
    if "$size" in node:
        return Size(node["$size"])
    raise ValueError(f"unknown tag {sorted(node)}")


def _archive_bytes(obj) -> bytes:
    enc = _Encoder()
    structure = json.dumps(enc.encode(obj), allow_nan=False).encode()
    members = {"structure.json": structure}
    for i, a in enumerate(enc.arrays):
        buf = io.BytesIO()
        xp.save(buf, a, allow_pickle=False)
        members[f"tensors/{i}.npy"] = buf.getvalue()
    manifest = {"format": FORMAT, "sha256": {k: hashlib.sha256(v).hexdigest() for k, v in members.items()}}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as z:
        z.writestr("manifest.json", json.dumps(manifest))
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True) -> None:
    """Write ``obj`` to ``f`` (a path or a writable binary file) in dyngrad's checkpoint format."""
    data = _archive_bytes(obj)
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        directory = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".dyngrad-save-", dir=directory)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    else:
        f.write(data)


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **pickle_load_args):
    """Read an object written by ``dyngrad.save`` from a path or a readable binary file.

    Raises RuntimeError when the file is truncated, corrupted or not a dyngrad checkpoint;
    ``map_location`` may only name the CPU.
    """
    if map_location is not None and str(map_location) not in ("cpu",) and not callable(map_location):
        from ._tensor import device

        device(map_location)  # refuses anything but the CPU, with dyngrad's message
    name = os.fspath(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", "<file>")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            raw = fh.read()
    else:
        raw = f.read()

    def bad(why: str) -> RuntimeError:
        return RuntimeError(f"dyngrad.load: {name!s} is not a valid dyngrad checkpoint ({why})")

    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            names = set(z.namelist())
            if "manifest.json" not in names:
                raise bad("no manifest.json: not written by dyngrad.save")
            manifest = json.loads(z.read("manifest.json"))
            if manifest.get("format") != FORMAT:
                raise bad(f"unknown format {manifest.get('format')!r}")
            members = {}
            for member, digest in manifest["sha256"].items():
                if member not in names:
                    raise bad(f"member {member} is missing: the file is truncated or corrupted")
                data = z.read(member)  # zipfile checks each member's CRC-32
                if hashlib.sha256(data).hexdigest() != digest:
                    raise bad(f"checksum mismatch in {member}: the file is corrupted")
                members[member] = data
    except zipfile.BadZipFile as e:
        raise bad(f"{e}; the file is truncated or corrupted") from None
    except (KeyError, ValueError, UnicodeDecodeError, EOFError, OSError) as e:
        raise bad(f"{type(e).__name__}: {e}") from None
    try:
        structure = json.loads(members["structure.json"])
        n = sum(1 for m in members if m.startswith("tensors/"))
        tensors = [xp.load(io.BytesIO(members[f"tensors/{i}.npy"]), allow_pickle=False) for i in range(n)]
        return _decode(structure, tensors, {})
    except (KeyError, ValueError, TypeError, AttributeError) as e:
        raise bad(f"malformed contents: {type(e).__name__}: {e}") from None
