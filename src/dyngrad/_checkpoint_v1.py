"""Reading checkpoints written by dyngrad 0.1's own format (a zip with ``manifest.json``).

That format held the object as JSON with tags for what JSON lacks (``{"$tensor": 3}``,
``{"$tuple": [...]}``, ``{"$dict": [[key, value], ...]}``, ``{"$dtype": "float32"}``, ...), one
``.npy`` file per tensor (read with ``allow_pickle=False``) and the SHA-256 of each member. It
runs no code when read. dyngrad now writes torch's format; this module only reads the old one.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections import OrderedDict

import numpy as np

FORMAT = "dyngrad-checkpoint-1"


def _decode(node, tensors: list, built: dict):
    from . import _dtype
    from ._tensor import Size, wrap

    if not isinstance(node, dict):
        if isinstance(node, list):  # never written bare
            raise ValueError("unexpected bare list")
        return node
    if "$tensor" in node:
        idx = node["$tensor"]
        key = (idx, bool(node.get("parameter")), bool(node["requires_grad"]))
        if key not in built:
            if node.get("parameter"):
                from .nn.parameter import Parameter

                built[key] = Parameter(wrap(tensors[idx]), requires_grad=node["requires_grad"])
            else:
                built[key] = wrap(tensors[idx], node["requires_grad"])
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


def load(z: zipfile.ZipFile, name: str):
    """The object in an open archive of the old format; RuntimeError naming ``name`` when it is damaged."""

    def bad(why: str) -> RuntimeError:
        return RuntimeError(f"dyngrad.load: {name!s} is not a valid dyngrad checkpoint ({why})")

    try:
        names = set(z.namelist())
        manifest = json.loads(z.read("manifest.json"))
        if manifest.get("format") != FORMAT:
            raise bad(f"unknown format {manifest.get('format')!r}")
        members = {}
        for member, digest in manifest["sha256"].items():
            if member not in names:
                raise bad(f"member {member} is missing: the file is truncated or corrupted")
            data = z.read(member)
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
        tensors = [np.load(io.BytesIO(members[f"tensors/{i}.npy"]), allow_pickle=False) for i in range(n)]
        return _decode(structure, tensors, {})
    except (KeyError, ValueError, TypeError, AttributeError) as e:
        raise bad(f"malformed contents: {type(e).__name__}: {e}") from None
