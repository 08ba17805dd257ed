"""Every function of the signature table called with wrong argument types: torch's TypeError, type and text.

Driven by dyngrad/_argparse/_signatures.py (torch's own signatures): each function of dyngrad, Tensor,
nn.functional and linalg with a row is called with a value of a wrong type first, then after one tensor,
on torch and on dyngrad. Wherever torch raises a TypeError, dyngrad must raise one with the same text.
The calls torch accepts are left to the op tests (values are not compared here).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import dyngrad
from conftest import assert_same_tensor, same_error
from dyngrad._argparse import explain, signatures
from dyngrad._argparse._signatures import SIGNATURES


class Foreign:  # a class neither library knows; torch names it by its bare name, as dyngrad does
    pass


def _wrong_values():
    return [2.5, [1.0, 2.0], "a", np.ones(2), Foreign(), None]


# functions that change process-wide state when a call gets through
_SKIP = ("set_", "use_", "manual_seed", "seed", "_set", "init_num_threads")

# Known differences (key, call index): where dyngrad's text is not torch's yet, and why.
KNOWN: set = set()


def _targets(key: str):
    """(torch callable, dyngrad callable) for a table key, or None where dyngrad has no such function."""
    space, _, name = key.rpartition(".")
    if space == "Tensor":
        t = torch.ones(2, 2)
        d = dyngrad.ones(2, 2)
        if not hasattr(d, name):
            return None
        return getattr(t, name), getattr(d, name)
    tmod, dmod = {"": (torch, dyngrad), "nn.functional": (F, dyngrad.nn.functional), "linalg": (torch.linalg, dyngrad.linalg)}[space]
    if not hasattr(dmod, name):
        return None
    return getattr(tmod, name), getattr(dmod, name)


def _calls(key: str):
    """Arguments for the (torch, dyngrad) sides, as (which, torch args, dyngrad args, keywords): a wrong value
    alone, then after a tensor; then a keyword no signature has, and a wrong value for each keyword-only
    parameter (after a tensor, for a function)."""
    method = key.startswith("Tensor.")
    for i, wrong in enumerate(_wrong_values()):
        yield (i, 0), (wrong,), (wrong,), {}
        if not method:
            yield (i, 1), (torch.ones(2, 2), wrong), (dyngrad.ones(2, 2), wrong), {}
    lead_t, lead_d = ((), ()) if method else ((torch.ones(2, 2),), (dyngrad.ones(2, 2),))
    yield ("keyword", "zz"), lead_t, lead_d, {"zz": 1}
    names = sorted({p.name for params in signatures(key) for p in params if p.kwonly})
    for name in names:
        yield ("keyword", name), lead_t, lead_d, {name: Foreign()}


def _outcome(fn, args, kwargs=None):
    try:
        fn(*args, **(kwargs or {}))
    except TypeError as e:
        return str(e)
    except Exception:  # noqa: BLE001 - not an argument-type error: not this test's business
        return None
    return None


KEYS = sorted(k for k in SIGNATURES if not k.rpartition(".")[2].startswith(_SKIP))


def test_table_covers_the_public_surface():
    # the generator found torch's signatures for hundreds of dyngrad's functions; a regression of
    # gen_signatures.py (or of a probe) would shrink it
    spaces = {k.rpartition(".")[0] for k in SIGNATURES}
    assert spaces == {"", "Tensor", "nn.functional", "linalg"}
    assert len(SIGNATURES) > 550


@pytest.mark.parametrize("key", KEYS)
def test_wrong_argument_types(key):
    targets = _targets(key)
    if targets is None:
        pytest.skip(f"dyngrad has no {key}")
    tfn, dfn = targets
    mismatches = []
    for which, targs, dargs, kwargs in _calls(key):
        expected = _outcome(tfn, targs, kwargs)
        if expected is None:
            continue
        got = _outcome(dfn, dargs, kwargs)
        if got != expected and (key, which) not in KNOWN:
            mismatches.append(f"{which}: torch {expected!r}\n        dyngrad {got!r}")
    assert not mismatches, f"{key}:\n  " + "\n  ".join(mismatches)


def test_known_differences_still_differ():
    for key, which in KNOWN:
        tfn, dfn = _targets(key)
        targs, dargs, kwargs = {w: (t, d, k) for w, t, d, k in _calls(key)}[which]
        assert _outcome(tfn, targs, kwargs) != _outcome(dfn, dargs, kwargs), f"{key} {which} matches torch now: drop it from KNOWN"


# ---------------------------------------------------------------------------- the examples


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.exp(2.0),
        lambda m: m.abs([1, 2]),
        lambda m: m.ones(2).add(np.ones(2)),
        lambda m: m.add(m.ones(2), np.ones(2)),
        lambda m: m.cat([m.ones(2), 1.0]),
        lambda m: m.cat(m.ones(2)),
        lambda m: m.sum(m.ones(2), dim="a"),
        lambda m: m.max(m.ones(2), "a"),
        lambda m: m.clamp(m.ones(2), [1]),
        lambda m: m.add(m.ones(2)),
        lambda m: m.exp(),
        lambda m: m.exp(m.ones(2), m.ones(2)),
        lambda m: m.exp(m.ones(2), input=m.ones(2)),
        lambda m: m.linalg.inv([1.0]),
        lambda m: m.nn.functional.linear(2.0, m.ones(2)),
        lambda m: m.exp(m.ones(2, requires_grad=True), out=m.empty(2)),
        lambda m: m.ones(2).type(3),
        lambda m: m.ones(2).type("torch.Foo"),
        lambda m: m.FloatTensor("a"),
        lambda m: m.FloatTensor(2.5),
        lambda m: m.LongTensor(m.ones(2)),
        # a module called on an array: the Parameters are named as such, and marked, in the listing
        lambda m: m.nn.Conv2d(1, 1, 3)(np.ones((1, 1, 4, 4), dtype=np.float32)),
        lambda m: m.add(m.nn.Parameter(m.ones(2)), "a"),
        # keywords that no signature takes without some positional argument (the op function would take them)
        lambda m: m.ones(2, 2).sum(keepdim=True),
        lambda m: m.sum(m.ones(2, 2), keepdim=True),
        lambda m: m.ones(2, 2).mean(keepdim=True),
        lambda m: m.ones(2, 2).prod(keepdim=True),
        lambda m: m.ones(2, 2).max(keepdim=True),
        lambda m: m.max(m.ones(2, 2), keepdim=True),
        lambda m: m.ones(2, 2).median(keepdim=True),
        lambda m: m.ones(2, 2).nanmedian(keepdim=True),
        lambda m: m.ones(2, 2).var(unbiased=False, keepdim=True),
        lambda m: m.sort(m.ones(3), 0, stable=True),
        lambda m: m.sort(m.ones(3), 0, True, stable=True),
        lambda m: m.ones(3).sort(0, stable=True),
        lambda m: m.argsort(m.ones(3), 0, stable=True),
        lambda m: m.arange(5, step=2),
        lambda m: m.arange(end=5, step=2),
        lambda m: m.ones(2, 2).max(1, dim=0),
        # the legacy constructors take a device only
        lambda m: m.ones(2, 2).new(2, dtype=m.float64),
        lambda m: m.ones(2, 2).new([1], dtype=m.float64),
        lambda m: m.ones(2, 2).new(dtype=m.float64),
        lambda m: m.ones(2, 2).new(2, requires_grad=True),
        lambda m: m.ones(2, 2).new(2, 3, zz=1),
        lambda m: m.FloatTensor(2, dtype=m.float64),
        lambda m: m.FloatTensor([1], device="cpu", zz=1),
        # a keyword of the wrong type in the listing: marked with its name, and a trailing ", " without positionals
        lambda m: m.ones(2, 2).squeeze(dim=None),
        lambda m: m.ones(2, 2).squeeze(dim=1.5),
        lambda m: m.ones(2, 2).unflatten(0, ()),
    ],
)
def test_examples_raise_as_torch(call):
    same_error(lambda: call(dyngrad), lambda: call(torch))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.add(1, 2),
        lambda m: m.add(1, 2.5),
        lambda m: m.add(m.ones(2), 2),
        lambda m: m.pow(2, m.arange(3.0)),
        lambda m: m.where(m.arange(3.0) > 0, 1.0, 0.0),
        lambda m: m.sum(m.ones(2, 3), axis=1, keepdims=True),
        lambda m: m.ones(2, 3).sum(axis=0),
        lambda m: m.FloatTensor([1, 2]),
        lambda m: m.LongTensor([[1, 2]]),
        lambda m: m.BoolTensor([1, 0]),
        lambda m: m.DoubleTensor(2, 3).zero_(),
        lambda m: m.IntTensor(m.Size([2])).zero_(),
        lambda m: m.ByteTensor(),
        lambda m: m.ones(2).type(m.DoubleTensor),
        lambda m: m.ones(2).type("torch.IntTensor"),
        lambda m: m.ones(2).type(dtype="torch.ByteTensor"),
        # a parameter the op reads as *size, given by its torch keyword
        lambda m: m.zeros(size=(2, 3)),
        lambda m: m.ones(size=[2], dtype=m.float64),
        lambda m: m.arange(6.0).view(size=(2, 3)),
        lambda m: m.arange(6.0).view(dtype=m.int32),
        lambda m: m.arange(6.0).reshape(shape=(3, 2)),
        lambda m: m.reshape(m.arange(6.0), shape=[3, 2]),
        lambda m: m.arange(6.0).reshape(2, 3).permute(dims=[1, 0]),
        lambda m: m.arange(3.0).expand(size=(2, 3)),
        lambda m: m.arange(6.0).view(m.tensor(3), 2),
        lambda m: m.arange(6.0).view(np.int64(6)),
        lambda m: m.ones(2, dtype=m.float64).new(2, 3).zero_(),
        lambda m: m.ones(2, dtype=m.float64).new([1, 2]),
        lambda m: m.ones(2, dtype=m.int64).new([1.5]),
        lambda m: m.ones(2).new(),
        lambda m: m.stack([p.sum() for p in m.arange(5.0).split(split_size=2)]),  # (the sums show the pieces)
        lambda m: m.stack([p.sum() for p in m.arange(5.0).split([2, 3], dim=0)]),
        lambda m: m.stack([p.sum() for p in m.arange(5.0).split(m.tensor(2))]),
        lambda m: m.stack(m.split(tensor=m.arange(4.0), split_size_or_sections=2)),
        lambda m: m.arange(end=5),
        lambda m: m.arange(end=2.5, dtype=m.float64),
        lambda m: m.arange(6.0).view(m.tensor(6)),
        # an int list's items: ints, NumPy ints, 0-d integer tensors; a bool after the first
        lambda m: m.ones(2, 2).reshape((4, True)),
        lambda m: m.ones(2, 2).view(4, True),
        lambda m: m.ones(2, 2).permute((0, True)),
        lambda m: m.ones(2, 2).reshape((np.int64(4), np.int32(1))),
        lambda m: m.ones(2, 2).reshape((m.tensor(4), m.tensor(1))),
        lambda m: m.ones(2, 2).reshape(m.Size([4, 1])),
        lambda m: m.ones(2, 2).permute((1, 0)),
        lambda m: m.ones(2, 2).flip(()),
        lambda m: m.arange(4.0).view(4),
        lambda m: m.arange(4.0).flip(0),
        lambda m: m.arange(4.0).permute(0),
        lambda m: m.arange(4.0).tile(2),
        lambda m: m.arange(4.0).repeat(2),
        lambda m: m.arange(4.0).new_zeros(2),
        lambda m: m.zeros(4),
        lambda m: m.arange(4.0).roll(1, 0),
        lambda m: m.arange(4.0).roll(shifts=1, dims=0),
        lambda m: m.arange(8.0).reshape(2, 4).sum(dim=0),
        lambda m: m.arange(8.0).reshape(2, 4).std(1),
        lambda m: m.arange(8.0).reshape(2, 4).amax(1),
        lambda m: m.arange(4.0).reshape(2, 2).unflatten(0, (1, -1)),
        lambda m: m.arange(4.0).reshape(2, 2).unflatten(-1, [2, 1]),
        lambda m: m.arange(4.0).reshape(2, 2).unflatten(dim=1, sizes=(2, 1)),
        # keywords with the positional arguments that make an overload match
        lambda m: m.arange(6.0).reshape(2, 3).sum(dim=1, keepdim=True),
        lambda m: m.arange(6.0).reshape(2, 3).max(dim=1, keepdim=True).values,
        lambda m: m.sort(m.tensor([3.0, 1.0, 2.0]), stable=True, dim=0).values,
        lambda m: m.arange(1, 5, step=2),
        lambda m: m.arange(start=1, end=5),
        lambda m: m.ones(2, 2).new(2, 3, device="cpu").zero_(),
        # a tensor given as dim= is a dim (by position it is max's other)
        lambda m: m.arange(6.0).reshape(2, 3).max(dim=m.tensor(1)).values,
        lambda m: m.arange(6.0).reshape(2, 3).min(dim=m.tensor(1), keepdim=True).indices,
        lambda m: m.max(m.arange(6.0).reshape(2, 3), dim=m.tensor(0)).values,
        lambda m: m.arange(6.0).reshape(2, 3).max(m.tensor(1.0)),
        # dim=None: every dim, kept or not
        lambda m: m.arange(6.0).reshape(2, 3).sum(None, True),
        lambda m: m.arange(6.0).reshape(2, 3).sum(dim=None, keepdim=True),
        lambda m: m.arange(6.0).reshape(2, 3).mean(None, True),
        lambda m: m.arange(6.0).reshape(2, 3).amax(None),
        lambda m: m.arange(6.0).reshape(2, 3).amin(None, True),
        lambda m: m.tensor(m.randint(high=5, size=(2,)).shape),
        lambda m: m.tensor(m.randint(5, size=(2, 3)).shape),
    ],
)
def test_calls_torch_accepts(call):
    assert_same_tensor(call(dyngrad), call(torch))


def test_type_names_and_isinstance():
    for name in ("FloatTensor", "DoubleTensor", "HalfTensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor",
                 "LongTensor", "BoolTensor"):
        d, t = getattr(dyngrad, name), getattr(torch, name)
        assert repr(d) == repr(t)
        assert repr(d.dtype) == repr(t.dtype)
        assert isinstance(dyngrad.ones(1, dtype=d.dtype), d)
        assert dyngrad.ones(1, dtype=d.dtype).type() == torch.ones(1, dtype=t.dtype).type()
    assert not isinstance(dyngrad.ones(1), dyngrad.DoubleTensor)


def test_legacy_constructor_of_a_tensor_is_an_alias():
    x = dyngrad.ones(2, requires_grad=True)
    y = dyngrad.FloatTensor(x)
    tx = torch.ones(2, requires_grad=True)
    ty = torch.FloatTensor(tx)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    with dyngrad.no_grad():
        x[0] = 5.0
    assert y[0].item() == 5.0


@pytest.mark.parametrize(
    "call",
    [
        lambda m, o: m.exp(m.arange(3.0), out=o),
        lambda m, o: m.sin(m.arange(3.0), out=o),
        lambda m, o: m.add(m.arange(3.0), 1, out=o),
    ],
)
def test_out_argument(call):
    o_d, o_t = dyngrad.empty(3), torch.empty(3)
    r_d, r_t = call(dyngrad, o_d), call(torch, o_t)
    assert r_d is o_d and r_t is o_t
    assert_same_tensor(o_d, o_t)


def test_out_argument_of_a_tuple_result():
    x = [[1.0, 3.0], [2.0, 0.0]]
    vd, id_ = dyngrad.empty(0), dyngrad.empty(0, dtype=dyngrad.long)
    vt, it = torch.empty(0), torch.empty(0, dtype=torch.long)
    dyngrad.max(dyngrad.tensor(x), 1, out=(vd, id_))
    torch.max(torch.tensor(x), 1, out=(vt, it))
    assert_same_tensor(vd, vt)
    assert_same_tensor(id_, it)


def test_unknown_function_is_not_checked():
    assert explain("no_such_function_anywhere", (2.0,), {}) is None


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.arange(6.0).view(3, 2.0),
        lambda m: m.arange(6.0).reshape(-1, 2.0),
        lambda m: m.zeros(2, 3.0),
        lambda m: m.arange(6.0).permute(0, "a"),
        # an int list's first item is checked with the signature, the others as the list is read
        lambda m: m.ones(2, 3).sum(dim=(0, 1.0)),
        lambda m: m.sum(m.ones(2, 3), (0, 1.0)),
        lambda m: m.ones(2, 3).amax(dim=(0, 1, 2.0)),
        lambda m: m.ones(2, 3).mean([0, "a"]),
        lambda m: m.ones(2, 3).amax((1.0, 0)),
        lambda m: m.ones(2, 3).amax(dim=(1.0, 0)),
        lambda m: m.ones(2, 3).permute(dims=(1.0, 0)),
        lambda m: m.zeros(size=(2.0, 3)),
        lambda m: m.zeros((2.0, 3)),
        # a tuple holding a float: parsed before the op runs (the op could take it)
        lambda m: m.ones(2, 2).permute((0, 1.0)),
        lambda m: m.ones(2, 2).permute([0, 1.0]),
        lambda m: m.permute(m.ones(2, 2), (0, 1.0)),
        lambda m: m.ones(2, 2).view((2, 1.5)),
        lambda m: m.ones(2, 2).flip((0.5,)),
        lambda m: m.ones(2, 2).repeat((2, 1.0)),
        lambda m: m.ones(2, 2).expand((2, 2.0)),
        lambda m: m.ones(2, 2).reshape((4, 1.0)),
        lambda m: m.reshape(m.ones(2, 2), (4, 1.0)),
        lambda m: m.ones(2, 2).reshape(shape=(4, 1.0)),
        lambda m: m.ones(2, 2).reshape((4, np.float64(1))),
        lambda m: m.ones(2, 2).reshape((4, m.tensor(1.0))),
        lambda m: m.ones(2, 2).reshape((4, None)),
        lambda m: m.ones(2, 2).sum((0, 1.0)),
        lambda m: m.ones(2, 2).tile((1, 1.0)),
        lambda m: m.ones(2, 2).roll((1, 1.0), (0, 1)),
        lambda m: m.ones(2, 2).movedim((0, 1.0), (1, 0)),
        lambda m: m.ones(2, 2).tensor_split((1, 1.0)),
        lambda m: m.ones(2, 2).as_strided((2, 2.0), (1, 1)),
        lambda m: m.ones(2, 2).broadcast_to((2, 2.0)),
        # an int where an int list of no size goes (int[], not int[1]): refused, save as the lone positional one
        lambda m: m.ones(4).flip(dims=0),
        lambda m: m.ones(4).view(size=4),
        lambda m: m.ones(4).expand(size=4),
        lambda m: m.ones(4).tile(dims=2),
        lambda m: m.ones(4).new_zeros(size=2),
        lambda m: m.zeros(size=2),
        lambda m: m.ones(4).permute(dims=0),
        lambda m: m.ones(4).reshape(shape=4),
        lambda m: m.ones(4).repeat(repeats=2),
        lambda m: m.reshape(m.ones(4), 4),
        lambda m: m.permute(m.ones(4), 0),
        lambda m: m.flip(m.ones(4), 0),
        lambda m: m.tile(m.ones(4), 2),
        lambda m: m.broadcast_to(m.ones(4), 4),
        lambda m: m.ones(4).as_strided(4, 1),
        lambda m: m.ones(4).as_strided((4,), 1),
        lambda m: m.ones(4).unflatten(0, 4),
        lambda m: m.empty_strided(4, 1),
        # Tensor.unflatten: torch's Python method passes its arguments by position to the builtin
        lambda m: m.ones(2, 2).unflatten(0, (1, 2.0)),
        lambda m: m.ones(2, 2).unflatten(0.5, (1, 2)),
        lambda m: m.ones(2, 2).unflatten(0, "a"),
        lambda m: m.ones(2, 2).unflatten(0, [(1.0, 2)]),
        lambda m: m.ones(2, 2).unflatten(dim=0, sizes=(1, 2.0)),
        lambda m: m.ones(2, 2).unflatten(0, sizes=(1.0, 2)),
        lambda m: m.ones(2, 2).unflatten(0, (1, 2), 3),
        # a bool: never the first item, an int after it (but a NumPy bool is none)
        lambda m: m.ones(2, 2).reshape((True, 4)),
        lambda m: m.ones(2, 2).permute((True, 0)),
        lambda m: m.ones(2, 2).reshape((4, np.bool_(True))),
        lambda m: m.ones(2, 2).reshape((np.float64(1), 4)),
        # Tensor.split is torch's Python function (split_size), torch.split's parameter is split_size_or_sections
        lambda m: m.arange(5.0).split(split_size_or_sections=2),
        lambda m: m.arange(5.0).split(),
        lambda m: m.arange(5.0).split(2.5),
        lambda m: m.arange(),
        lambda m: m.arange(end=None),
    ],
)
def test_unpacked_int_list_items_are_checked(call):
    """An int past the first of an unpacked size list is checked before the op runs (the op may take a float)."""
    same_error(lambda: call(dyngrad), lambda: call(torch))
    with pytest.raises(TypeError):
        call(torch)


class _Plain:  # a class written in Python: Python's message names it without its module
    pass


@pytest.mark.parametrize("name", ["__radd__", "__rmul__", "__rand__", "__ror__", "__rxor__"])
@pytest.mark.parametrize("self_value", [1, 2.5, True, "a", None, np.ones(2), _Plain()], ids=repr)
def test_reflected_operator_called_on_a_non_tensor(name, self_value):
    """``Tensor.__radd__(1, x)``: torch's method (of a C type) refuses a first argument that is no tensor."""
    call_t = lambda: getattr(torch.Tensor, name)(self_value, torch.ones(2, dtype=torch.long))  # noqa: E731
    with pytest.raises(TypeError):
        call_t()
    same_error(lambda: getattr(dyngrad.Tensor, name)(self_value, dyngrad.ones(2, dtype=dyngrad.long)), call_t)


@pytest.mark.parametrize("op", ["+", "*", "&", "|", "^"])
@pytest.mark.parametrize("number", [3, True])
def test_reflected_operators_of_a_number(op, number):
    code = f"number {op} x"
    got = eval(code, {"number": number, "x": dyngrad.tensor([1, 2])})
    want = eval(code, {"number": number, "x": torch.tensor([1, 2])})
    assert_same_tensor(got, want)
