"""dyngrad.save / dyngrad.load: round trips, no code execution, atomic writes, corruption detection."""

from __future__ import annotations

import io
import math
import os
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import dyngrad
import dyngrad.nn as nn
import dyngrad.optim
from dyngrad.serialization import load, save


def test_roundtrip_nested_structure(tmp_path):
    t = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dyngrad.float64)
    obj = {
        "t": t, "same": t, "i": dyngrad.arange(3), "b": dyngrad.tensor([True, False]),
        "g": dyngrad.ones(2, requires_grad=True), "p": nn.Parameter(dyngrad.zeros(2)),
        1: "int key", (1, 2): None, "nums": [1, 2.5, float("inf"), float("nan"), -0.0, 1 + 2j, True],
        "tuple": (1, ("x", None)), "dtype": dyngrad.float16, "size": dyngrad.Size([2, 3]), "bytes": b"\x00\xff",
        "od": OrderedDict([("z", 1), ("a", 2)]), "empty": dyngrad.zeros(0, 3), "scalar": dyngrad.tensor(5.0),
        "strided": dyngrad.arange(10.0)[::3],
    }
    path = tmp_path / "ckpt.pt"
    save(obj, path)
    got = load(path)
    assert list(got) == list(obj)
    assert got["t"] is got["same"]
    np.testing.assert_array_equal(got["t"].numpy(), t.numpy())
    assert got["t"].dtype == dyngrad.float64 and got["i"].dtype == dyngrad.int64 and got["b"].dtype == dyngrad.bool
    assert got["g"].requires_grad and got["g"].is_leaf
    assert isinstance(got["p"], nn.Parameter) and got["p"].requires_grad
    assert got[1] == "int key" and got[(1, 2)] is None
    nums = got["nums"]
    assert nums[:3] == [1, 2.5, float("inf")] and math.isnan(nums[3]) and math.copysign(1, nums[4]) == -1
    assert nums[5] == 1 + 2j and nums[6] is True
    assert got["tuple"] == (1, ("x", None)) and got["dtype"] is dyngrad.float16
    assert isinstance(got["size"], dyngrad.Size) and got["size"] == (2, 3) and got["bytes"] == b"\x00\xff"
    assert isinstance(got["od"], OrderedDict) and list(got["od"]) == ["z", "a"]
    assert got["empty"].shape == (0, 3) and got["scalar"].item() == 5.0
    assert got["strided"].tolist() == [0.0, 3.0, 6.0, 9.0]


def test_module_and_optimizer_state_dicts(tmp_path):
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    opt = dyngrad.optim.Adam(m.parameters(), lr=0.01)
    m(dyngrad.randn(5, 3)).sum().backward()
    opt.step()
    buf = io.BytesIO()
    save({"model": m.state_dict(), "optim": opt.state_dict()}, buf)
    buf.seek(0)
    ck = load(buf)
    m2 = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    assert repr(m2.load_state_dict(ck["model"])) == "<All keys matched successfully>"
    for a, b in zip(m.parameters(), m2.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    opt2 = dyngrad.optim.Adam(m2.parameters(), lr=0.5)
    opt2.load_state_dict(ck["optim"])
    assert opt2.param_groups[0]["lr"] == 0.01 and opt2.state[m2[0].weight]["step"].item() == 1.0
    assert list(ck["optim"]["state"]) == [0, 1, 2, 3]


def test_refuses_objects_needing_pickle(tmp_path):
    with pytest.raises(TypeError, match="dyngrad.save cannot store an object of type .*Linear"):
        save(nn.Linear(2, 2), tmp_path / "x.pt")
    with pytest.raises(TypeError, match="cannot store an object of type builtins.function"):
        save({"f": lambda: 0}, tmp_path / "x.pt")
    assert not os.path.exists(tmp_path / "x.pt")


def test_never_unpickles(tmp_path):
    """A torch/pickle checkpoint is refused with a clear error instead of being executed."""
    import pickle

    class Boom:
        def __reduce__(self):
            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))

    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps(Boom()))
    with pytest.raises(RuntimeError, match="is not a valid dyngrad checkpoint"):
        load(path)
    # a zip with a pickled .npy (object array) inside is refused too
    evil = io.BytesIO()
    np.save(evil, np.array([Boom()], dtype=object), allow_pickle=True)
    good = io.BytesIO()
    save({"t": dyngrad.ones(2)}, good)
    with zipfile.ZipFile(io.BytesIO(good.getvalue())) as z:
        members = {n: z.read(n) for n in z.namelist()}
    members["tensors/0.npy"] = evil.getvalue()
    import hashlib
    import json

    manifest = json.loads(members["manifest.json"])
    manifest["sha256"]["tensors/0.npy"] = hashlib.sha256(evil.getvalue()).hexdigest()
    members["manifest.json"] = json.dumps(manifest).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for n, d in members.items():
            z.writestr(n, d)
    out.seek(0)
    with pytest.raises(RuntimeError, match="malformed contents"):
        load(out)
    assert not (tmp_path / "pwned").exists()


def test_truncated_and_corrupted_files_raise(tmp_path):
    path = tmp_path / "c.pt"
    save({"w": dyngrad.randn(50, 50)}, path)
    raw = path.read_bytes()
    for cut in (10, len(raw) // 2, len(raw) - 5):
        (tmp_path / "t.pt").write_bytes(raw[:cut])
        with pytest.raises(RuntimeError, match="is not a valid dyngrad checkpoint"):
            load(tmp_path / "t.pt")
    i = raw.index(b"\x93NUMPY") + 200  # inside the array bytes
    bad = raw[:i] + bytes([raw[i] ^ 0xFF]) + raw[i + 1:]
    (tmp_path / "b.pt").write_bytes(bad)
    with pytest.raises(RuntimeError, match="truncated or corrupted|checksum mismatch"):
        load(tmp_path / "b.pt")
    (tmp_path / "e.pt").write_bytes(b"")
    with pytest.raises(RuntimeError, match="is not a valid dyngrad checkpoint"):
        load(tmp_path / "e.pt")


def test_atomic_write(tmp_path, monkeypatch):
    path = tmp_path / "a.pt"
    save({"v": 1}, path)
    before = path.read_bytes()

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        save({"v": dyngrad.ones(1000)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before  # the old checkpoint is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.pt"]  # no temporary file left behind
    assert load(path) == {"v": 1}


@pytest.mark.parametrize("value", [3.0, 5, True, [[1.5]], []])
def test_roundtrip_keeps_shape_and_dtype_as_torch(value) -> None:
    import torch

    for lib in (dyngrad, torch):
        buf = io.BytesIO()
        lib.save(lib.tensor(value), buf)
        buf.seek(0)
        out = lib.load(buf)
        if lib is dyngrad:
            ours = out
        else:
            theirs = out
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert repr(ours.dtype) == repr(theirs.dtype)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_adam_resumes_from_a_saved_state_dict_as_torch() -> None:
    # Adam keeps its step count as a 0-d tensor: it must come back 0-d for the next step
    import torch

    results = []
    for lib in (dyngrad, torch):
        lib.manual_seed(0)
        w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        x = lib.tensor([[1.0, 2.0], [3.0, -1.0]])
        opt = lib.optim.Adam([w], lr=0.1)
        (x @ w).pow(2).sum().backward()
        opt.step()
        buf = io.BytesIO()
        lib.save({"opt": opt.state_dict(), "w": w.detach().clone()}, buf)
        buf.seek(0)
        ckpt = lib.load(buf)
        w2 = ckpt["w"].clone().requires_grad_(True)
        opt2 = lib.optim.Adam([w2], lr=0.1)
        opt2.load_state_dict(ckpt["opt"])
        (x @ w2).pow(2).sum().backward()
        opt2.step()
        results.append(w2.detach().numpy().copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
