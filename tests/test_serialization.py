"""dyngrad.save / dyngrad.load against torch.save / torch.load: the same files, both ways.

Every test writes with one library and reads with the other (or both), and compares with what
torch itself gives for the same file: values, dtypes, shapes, strides, storage offsets, storage
sharing, Parameter-ness, requires_grad, error types and texts.
"""

from __future__ import annotations

import collections
import io
import json
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
import torch

import dyngrad
from conftest import assert_same_tensor

# ----------------------------------------------------------------------------- helpers


def assert_same_object(d, t, path: str = "obj") -> None:
    """A loaded dyngrad object equals torch's load of the same file, recursively."""
    if isinstance(t, torch.Tensor):
        assert isinstance(d, dyngrad.Tensor), path
        assert isinstance(d, dyngrad.nn.Parameter) == isinstance(t, torch.nn.Parameter), path
        assert_same_tensor(d, t, what=path, tol=dict(rtol=0, atol=0))
        assert d.requires_grad == t.requires_grad, path
        assert d.is_conj() == t.is_conj() and d.is_neg() == t.is_neg(), path
        if t.numel() > 0 and not (t.is_conj() or t.is_neg()):  # dyngrad materialises those (Note [Conjugate bit])
            assert d.stride() == t.stride() and d.storage_offset() == t.storage_offset(), path
    elif isinstance(t, dict):
        assert type(d).__name__ == type(t).__name__ and list(d) == list(t), path
        for k in t:
            assert_same_object(d[k], t[k], f"{path}[{k!r}]")
        if hasattr(t, "_metadata"):
            assert d._metadata == t._metadata, path
    elif isinstance(t, (list, tuple)) and not isinstance(t, torch.Size):
        assert type(d) is type(t) and len(d) == len(t), path
        for i, (a, b) in enumerate(zip(d, t)):
            assert_same_object(a, b, f"{path}[{i}]")
    elif isinstance(t, (torch.dtype, torch.Size, torch.device)):
        assert repr(d) == repr(t), path
    else:
        assert type(d) is type(t) and (d == t or (d != d and t != t)), f"{path}: {d!r} != {t!r}"


def shares_memory(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    return np.shares_memory(a._data, b._data)


def sample(lib):
    """An object with every kind of thing a checkpoint holds, built with ``lib`` (torch or dyngrad)."""
    base = lib.arange(12, dtype=lib.float64).reshape(3, 4)
    c = lib.tensor([1 + 2j, -3 + 0.5j], dtype=lib.complex64)
    model = lib.nn.Linear(3, 2)
    with lib.no_grad():
        model.weight.copy_(lib.tensor([[0.5, -1.0, 2.0], [0.25, 0.0, -0.75]]))
        model.bias.copy_(lib.tensor([0.1, -0.2]))
    dtypes = ["float16", "float32", "float64", "complex64", "complex128", "uint8", "int8", "int16", "int32",
              "int64", "bool"]
    return {
        "dtypes": {n: lib.tensor([[1, 0], [3, 1]]).to(getattr(lib, n)) for n in dtypes},
        "base": base,
        "column": base[:, 1],  # a strided view of base's storage
        "tail": base.reshape(-1)[5:],  # an offset view
        "scalar": lib.tensor(2.5),
        "empty": lib.zeros(0, 3),
        "complex": c,
        "conj": c.conj(),
        "neg": lib.tensor([1 + 2j, 3 - 1j]).conj().imag,  # (of c it would view c as another dtype: refused)
        "grad": lib.tensor([1.0, 2.0], requires_grad=True),
        "param": lib.nn.Parameter(lib.tensor([3.0, 4.0])),
        "frozen": lib.nn.Parameter(lib.tensor([1.0]), requires_grad=False),
        "state_dict": model.state_dict(),
        "size": lib.Size([2, 3]),
        "dtype": lib.float16,
        "device": lib.device("cpu"),
        "numbers": [1, -2**40, 2.5, float("inf"), float("nan"), 1 + 2j, True, None],
        "text": ("a", b"\x00\xff", bytearray(b"xy")),
        "set": {1, 2},
        "counter": collections.Counter("aab"),
        7: "int key",
    }


# ----------------------------------------------------------------------------- both directions


def test_torch_files_load_in_dyngrad(tmp_path) -> None:
    path = tmp_path / "from_torch.pt"
    torch.save(sample(torch), path)
    theirs = torch.load(path)
    ours = dyngrad.load(path)
    assert_same_object(ours, theirs)
    assert shares_memory(ours["column"], ours["base"]) and shares_memory(ours["tail"], ours["base"])
    ours["base"][0, 1] = 100.0  # the views see a write through the tensor they share a storage with
    assert ours["column"][0].item() == 100.0


def test_dyngrad_files_load_in_torch(tmp_path) -> None:
    path = tmp_path / "from_dyngrad.pt"
    dyngrad.save(sample(dyngrad), path)
    theirs = torch.load(path, weights_only=True)  # the restricted loader accepts it
    expected = sample(torch)
    assert_same_object(dyngrad.load(path), theirs)  # and both libraries read the same thing
    for key in expected:
        if key not in ("state_dict",):
            assert type(theirs[key]) is type(expected[key]), key
    torch.testing.assert_close(theirs["state_dict"]["weight"], expected["state_dict"]["weight"])
    assert theirs["state_dict"]._metadata == expected["state_dict"]._metadata
    assert shares_memory(theirs["column"], theirs["base"]) and shares_memory(theirs["tail"], theirs["base"])
    assert (theirs["column"].stride(), theirs["tail"].storage_offset()) == ((4,), 5)
    assert theirs["conj"].is_conj() and theirs["neg"].is_neg()
    torch.testing.assert_close(theirs["conj"], expected["conj"])
    torch.testing.assert_close(theirs["neg"], expected["neg"])


def test_checkpoint_pickle_is_byte_identical_to_torchs(tmp_path) -> None:
    """A model + optimizer checkpoint read by dyngrad and saved again has torch's data.pkl, byte for byte."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    opt = torch.optim.Adam(model.parameters())
    model(torch.ones(1, 3)).sum().backward()
    opt.step()
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3}, tmp_path / "a.pt")
    dyngrad.save(dyngrad.load(tmp_path / "a.pt"), tmp_path / "b.pt")
    with zipfile.ZipFile(tmp_path / "a.pt") as za, zipfile.ZipFile(tmp_path / "b.pt") as zb:
        assert za.read("a/data.pkl") == zb.read("b/data.pkl")
        assert [n[2:] for n in za.namelist()] == [n[2:] for n in zb.namelist()]
        for name in za.namelist():
            if name.startswith("a/data/"):
                assert za.read(name) == zb.read("b/" + name[2:])


def test_archive_layout_is_torchs(tmp_path) -> None:
    """Members named and ordered as torch's, stored uncompressed, each one's data 64-byte aligned."""
    dyngrad.save({"w": dyngrad.ones(3), "b": dyngrad.zeros(5, dtype=dyngrad.int64)}, tmp_path / "model.v1.pt")
    torch.save({"w": torch.ones(3), "b": torch.zeros(5, dtype=torch.int64)}, tmp_path / "torch.pt")
    raw = (tmp_path / "model.v1.pt").read_bytes()
    with zipfile.ZipFile(tmp_path / "model.v1.pt") as ours, zipfile.ZipFile(tmp_path / "torch.pt") as theirs:
        assert [n.split("/", 1)[1] for n in ours.namelist()] == [n.split("/", 1)[1] for n in theirs.namelist()]
        assert ours.namelist()[0] == "model.v1/data.pkl"  # torch's folder name: the file's name less its extension
        for info in ours.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            name_len, extra_len = np.frombuffer(raw[info.header_offset + 26: info.header_offset + 30], "<u2")
            assert (info.header_offset + 30 + int(name_len) + int(extra_len)) % 64 == 0, info.filename
        assert ours.read("model.v1/byteorder") == b"little" and ours.read("model.v1/version") == b"3\n"
    buf = io.BytesIO()
    dyngrad.save(dyngrad.ones(1), buf)
    assert zipfile.ZipFile(buf).namelist()[0] == "archive/data.pkl"


# ----------------------------------------------------------------------------- training resumed across libraries


def _model(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1)).to(lib.float64)
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.linspace(-1.0, 1.0, p.numel(), dtype=lib.float64).reshape(p.shape) * (0.5 + 0.1 * i))
    return model


def _train(lib, model, opt, steps: int) -> list[float]:
    x = lib.linspace(-2.0, 2.0, 40, dtype=lib.float64).reshape(10, 4)
    y = (x.sum(1, keepdim=True) * 0.3).sin()
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _resume(lib, path, steps: int, save_to):
    model = _model(lib)
    opt = lib.optim.Adam(model.parameters(), lr=0.5)  # the checkpoint's lr (0.01) must win
    ckpt = lib.load(path)
    model.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optim"])
    assert shares_memory(ckpt["first_row"], ckpt["model"]["0.weight"])
    losses = _train(lib, model, opt, steps)
    state = model.state_dict()
    lib.save({"model": state, "optim": opt.state_dict(), "epoch": ckpt["epoch"] + 1,
              "first_row": state["0.weight"][0]}, save_to)
    return losses


def test_training_resumes_across_libraries(tmp_path) -> None:
    """torch trains and saves; dyngrad resumes and saves; torch resumes: the same numbers as torch alone."""
    model = _model(torch)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    reference = _train(torch, model, opt, 9)

    model = _model(torch)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = _train(torch, model, opt, 3)
    state = model.state_dict()
    torch.save({"model": state, "optim": opt.state_dict(), "epoch": 1, "first_row": state["0.weight"][0]},
               tmp_path / "t1.pt")
    losses += _resume(dyngrad, tmp_path / "t1.pt", 3, tmp_path / "d2.pt")
    losses += _resume(torch, tmp_path / "d2.pt", 3, tmp_path / "t3.pt")
    np.testing.assert_allclose(losses, reference, rtol=1e-12)
    final = torch.load(tmp_path / "t3.pt")
    assert final["epoch"] == 3 and final["optim"]["state"][0]["step"].item() == 9.0
    torch.testing.assert_close(final["model"]["2.bias"], model.state_dict()["2.bias"] * 0 + final["model"]["2.bias"])


# ----------------------------------------------------------------------------- safety


class Boom:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class Evaluates:
    def __reduce__(self):
        return (eval, ("1 + 1",))


def _errors(fn, *args, **kwargs):
    """(type, text) of the exception ``fn(*args, **kwargs)`` raises, or None."""
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e), str(e)
    return None


@pytest.mark.parametrize("legacy", [False, True])
def test_malicious_pickle_is_refused_as_torch_refuses_it(tmp_path, legacy) -> None:
    marker = tmp_path / "pwned"
    for i, payload in enumerate([{"x": torch.ones(2), "boom": Boom(marker)}, [Evaluates()]]):
        path = tmp_path / f"evil{i}.pt"
        torch.save(payload, path, _use_new_zipfile_serialization=not legacy)
        theirs = _errors(torch.load, path)
        ours = _errors(dyngrad.load, path)
        assert theirs[0] is pickle.UnpicklingError
        assert ours == theirs  # same type, same text
    assert not marker.exists()


def test_a_bare_malicious_pickle_is_refused(tmp_path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "plain.pkl"
    path.write_bytes(pickle.dumps(Boom(marker), protocol=2))
    theirs = _errors(lambda: torch.load(path))  # weights_only refuses the global in the first pickle
    assert _errors(lambda: dyngrad.load(path)) == theirs
    assert theirs[0] is pickle.UnpicklingError and not marker.exists()


def test_whole_objects_need_weights_only_false(tmp_path) -> None:
    dyngrad.manual_seed(0)
    model = dyngrad.nn.Sequential(dyngrad.nn.Linear(2, 3), dyngrad.nn.ReLU())
    dyngrad.save(model, tmp_path / "model.pt")
    torch.save(torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU()), tmp_path / "torch_model.pt")
    theirs = _errors(lambda: torch.load(tmp_path / "torch_model.pt"))  # the classes named as torch names them
    assert _errors(lambda: dyngrad.load(tmp_path / "model.pt")) == theirs
    assert "GLOBAL torch.nn.modules.container.Sequential was not an allowed" in theirs[1]
    again = dyngrad.load(tmp_path / "model.pt", weights_only=False)
    x = dyngrad.tensor([[1.0, -2.0]])
    assert_same_tensor(again(x), torch.from_numpy(model(x).detach().numpy()), tol=dict(rtol=0, atol=0))


def test_torch_pickled_module_loads_with_weights_only_false(tmp_path) -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    torch.save(model, tmp_path / "torch_model.pt")
    ours = dyngrad.load(tmp_path / "torch_model.pt", weights_only=False)
    assert isinstance(ours[0], dyngrad.nn.Linear) and isinstance(ours[0].weight, dyngrad.nn.Parameter)
    assert_same_tensor(ours(dyngrad.tensor([[1.0, -2.0]])), model(torch.tensor([[1.0, -2.0]])))


class Point:
    def __init__(self, x):
        self.x = x


def test_add_safe_globals_allows_a_class(tmp_path) -> None:
    torch.save({"p": Point(3)}, tmp_path / "p.pt")
    theirs = _errors(lambda: torch.load(tmp_path / "p.pt"))
    assert _errors(lambda: dyngrad.load(tmp_path / "p.pt")) == theirs
    assert dyngrad.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "p.pt") == [f"{__name__}.Point"]
    with dyngrad.serialization.safe_globals([Point]):
        assert dyngrad.load(tmp_path / "p.pt")["p"].x == 3
    assert Point not in dyngrad.serialization.get_safe_globals()
    dyngrad.serialization.add_safe_globals([Point])
    try:
        assert dyngrad.load(tmp_path / "p.pt")["p"].x == 3
    finally:
        dyngrad.serialization.clear_safe_globals()


def test_allow_list_is_torchs() -> None:
    """Every name torch's weights-only loader allows is known to dyngrad (resolved, or a clear refusal)."""
    from torch._weights_only_unpickler import _get_allowed_globals

    from dyngrad._torch_pickle import weights_only_table

    assert set(weights_only_table()) == set(_get_allowed_globals())


# ----------------------------------------------------------------------------- damaged files and errors


def test_truncated_and_corrupted_files_raise(tmp_path) -> None:
    path = tmp_path / "c.pt"
    dyngrad.save({"w": dyngrad.arange(2500.0).reshape(50, 50)}, path)
    raw = path.read_bytes()
    for cut in (10, len(raw) // 2, len(raw) - 5):
        (tmp_path / "t.pt").write_bytes(raw[:cut])
        with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading zip archive"):
            dyngrad.load(tmp_path / "t.pt")
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("c/data/0")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 100
    (tmp_path / "b.pt").write_bytes(raw[:start] + bytes([raw[start] ^ 0xFF]) + raw[start + 1:])
    with pytest.raises(RuntimeError, match=r"b\.pt is corrupted \(data/0: Bad CRC-32"):
        dyngrad.load(tmp_path / "b.pt")  # torch would load the flipped byte silently
    (tmp_path / "e.pt").write_bytes(b"")
    (tmp_path / "g.pt").write_bytes(b"hello world")
    (tmp_path / "n.pt").write_bytes(pickle.dumps(1.5, protocol=2))
    for name in ("e.pt", "g.pt", "n.pt"):  # empty, not a pickle, a pickle that is not a checkpoint: torch's errors
        for weights_only in (True, False):
            kw = dict(weights_only=weights_only)
            theirs = _errors(torch.load, tmp_path / name, **kw)
            assert _errors(dyngrad.load, tmp_path / name, **kw) == theirs, (name, weights_only)
    assert _errors(lambda: dyngrad.load(tmp_path / "n.pt")) == (RuntimeError, "Invalid magic number; corrupt file?")


def test_unsupported_contents_are_named(tmp_path) -> None:
    # (bfloat16 checkpoints load with the bfloat16 extra: tests/test_bfloat16.py)
    torch.save({"q": torch.ones(2).to_sparse()}, tmp_path / "sparse.pt")
    with pytest.raises(RuntimeError, match="a tensor of layout torch.sparse_coo; dyngrad has only torch.strided"):
        dyngrad.load(tmp_path / "sparse.pt")
    torch.jit.save(torch.jit.script(torch.nn.Linear(1, 1)), tmp_path / "script.pt")
    with pytest.raises(RuntimeError, match="is a TorchScript archive"):
        dyngrad.load(tmp_path / "script.pt")


def test_argument_errors_as_torch(tmp_path) -> None:
    torch.save({"x": torch.ones(1)}, tmp_path / "x.pt")
    buf = io.BytesIO((tmp_path / "x.pt").read_bytes())
    for kwargs, f in [({"map_location": "cuda"}, tmp_path / "x.pt"), ({"map_location": "cuda:1"}, tmp_path / "x.pt"),
                      ({"pickle_module": pickle}, tmp_path / "x.pt"), ({"mmap": True}, buf)]:
        kwargs = dict(kwargs)
        if "pickle_module" in kwargs:
            kwargs["weights_only"] = True
        theirs = _errors(torch.load, f, **kwargs)
        buf.seek(0)
        assert theirs is not None and _errors(dyngrad.load, f, **kwargs) == theirs, kwargs
        buf.seek(0)
    a = dyngrad.tensor([1 + 1j])
    ours = _errors(lambda: dyngrad.save([a, dyngrad.view_as_real(a)], io.BytesIO()))
    b = torch.tensor([1 + 1j])
    assert ours == _errors(lambda: torch.save([b, torch.view_as_real(b)], io.BytesIO()))
    with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like object"):
        dyngrad.save(1, 3.5)


def test_map_location_forms(tmp_path) -> None:
    torch.save({"x": torch.arange(3.0)}, tmp_path / "x.pt")
    seen = []

    def to_cpu(storage, location):
        seen.append(location)
        return storage

    for where in ("cpu", dyngrad.device("cpu"), {"cpu": "cpu"}, to_cpu, lambda s, loc: None):
        assert dyngrad.load(tmp_path / "x.pt", map_location=where)["x"].tolist() == [0.0, 1.0, 2.0]
    assert seen == ["cpu"]


def test_mmap_maps_the_file_copy_on_write(tmp_path) -> None:
    path = tmp_path / "m.pt"
    torch.save({"a": torch.arange(6.0).reshape(2, 3), "b": torch.ones(2, dtype=torch.int32)}, path)
    ours = dyngrad.load(path, mmap=True)
    assert_same_object(ours, torch.load(path, mmap=True))
    ours["a"][0, 0] = 42.0  # private mapping: the tensor changes, the file does not
    assert ours["a"][0, 0].item() == 42.0 and dyngrad.load(path)["a"][0, 0].item() == 0.0


def test_legacy_format_both_ways(tmp_path) -> None:
    torch.save(sample(torch)["state_dict"], tmp_path / "t.pt", _use_new_zipfile_serialization=False)
    assert_same_object(dyngrad.load(tmp_path / "t.pt"), torch.load(tmp_path / "t.pt"))
    base = dyngrad.arange(4.0)
    dyngrad.save({"base": base, "view": base[1:]}, tmp_path / "d.pt", _use_new_zipfile_serialization=False)
    theirs = torch.load(tmp_path / "d.pt")
    assert theirs["view"].tolist() == [1.0, 2.0, 3.0] and shares_memory(theirs["view"], theirs["base"])
    with pytest.raises(RuntimeError, match="mmap can only be used with files saved with"):
        dyngrad.load(tmp_path / "d.pt", mmap=True)


def test_other_pickle_protocols_as_torch(tmp_path) -> None:
    """torch's weights-only loader warns on protocol 4 and then refuses its FRAME opcode; dyngrad too."""
    dyngrad.save({"x": dyngrad.ones(1)}, tmp_path / "p4.pt", pickle_protocol=4)
    with pytest.warns(UserWarning, match="Detected pickle protocol 4 in the checkpoint"):
        theirs = _errors(lambda: torch.load(tmp_path / "p4.pt"))
    with pytest.warns(UserWarning, match="Detected pickle protocol 4 in the checkpoint"):
        assert _errors(lambda: dyngrad.load(tmp_path / "p4.pt")) == theirs
    assert torch.load(tmp_path / "p4.pt", weights_only=False)["x"].tolist() == [1.0]
    assert dyngrad.load(tmp_path / "p4.pt", weights_only=False)["x"].tolist() == [1.0]


def test_reads_dyngrad_0_1_checkpoints(tmp_path) -> None:
    """The format dyngrad wrote before it wrote torch's (JSON structure + .npy members + SHA-256 manifest)."""
    import hashlib

    arrays = [np.arange(3.0), np.array([[1, 2]], dtype=np.int32)]
    structure = {"$dict": [["w", {"$tensor": 0, "requires_grad": False}],
                           ["p", {"$tensor": 1, "requires_grad": False, "parameter": True}],
                           ["t", {"$tuple": [1, {"$float": "nan"}, {"$dtype": "float16"}]}]]}
    members = {"structure.json": json.dumps(structure).encode()}
    for i, a in enumerate(arrays):
        buf = io.BytesIO()
        np.save(buf, a, allow_pickle=False)
        members[f"tensors/{i}.npy"] = buf.getvalue()
    manifest = {"format": "dyngrad-checkpoint-1", "sha256": {k: hashlib.sha256(v).hexdigest() for k, v in members.items()}}
    with zipfile.ZipFile(tmp_path / "old.pt", "w") as z:
        z.writestr("manifest.json", json.dumps(manifest))
        for name, data in members.items():
            z.writestr(name, data)
    got = dyngrad.load(tmp_path / "old.pt")
    assert got["w"].tolist() == [0.0, 1.0, 2.0] and isinstance(got["p"], dyngrad.nn.Parameter)
    assert got["t"][0] == 1 and got["t"][1] != got["t"][1] and got["t"][2] is dyngrad.float16


# ----------------------------------------------------------------------------- writing


def test_atomic_write(tmp_path, monkeypatch) -> None:
    path = tmp_path / "a.pt"
    dyngrad.save({"v": 1}, path)
    before = path.read_bytes()

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        dyngrad.save({"v": dyngrad.ones(1000)}, path)
    monkeypatch.undo()
    assert path.read_bytes() == before  # the old checkpoint is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.pt"]  # no temporary file left behind
    assert dyngrad.load(path) == {"v": 1}


def test_unpicklable_objects_raise_before_anything_is_written(tmp_path) -> None:
    with pytest.raises((pickle.PicklingError, AttributeError)):
        dyngrad.save({"f": lambda: 0}, tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()


@pytest.mark.parametrize("value", [3.0, 5, True, [[1.5]], [], [1 + 2j]])
def test_roundtrip_keeps_shape_and_dtype_as_torch(value) -> None:
    results = []
    for lib in (dyngrad, torch):
        buf = io.BytesIO()
        lib.save(lib.tensor(value), buf)
        buf.seek(0)
        results.append(lib.load(buf))
    assert_same_tensor(*results, tol=dict(rtol=0, atol=0))


def test_module_state_dict_roundtrip_keeps_metadata_and_parameters() -> None:
    m = dyngrad.nn.Sequential(dyngrad.nn.Linear(3, 4), dyngrad.nn.BatchNorm1d(4))
    buf = io.BytesIO()
    dyngrad.save({"m": m.state_dict(), "params": list(m.parameters())}, buf)
    buf.seek(0)
    ck = dyngrad.load(buf)
    assert isinstance(ck["m"], OrderedDict) and ck["m"]._metadata == m.state_dict()._metadata
    assert all(isinstance(p, dyngrad.nn.Parameter) and p.requires_grad for p in ck["params"])
    m2 = dyngrad.nn.Sequential(dyngrad.nn.Linear(3, 4), dyngrad.nn.BatchNorm1d(4))
    assert repr(m2.load_state_dict(ck["m"])) == "<All keys matched successfully>"
    assert ck["m"]["1.num_batches_tracked"].dtype == dyngrad.int64
