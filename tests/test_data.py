"""dyngrad.utils.data against torch.utils.data: collation, batching, samplers, splits."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import dyngrad
import dyngrad.utils.data as ddata
from conftest import assert_same_tensor


def _same(d, t, what="batch"):
    """Nested structure of dyngrad/torch objects is the same (types, keys, tensor values and dtypes)."""
    if isinstance(t, torch.Tensor):
        assert_same_tensor(d, t, what=what)
    elif isinstance(t, dict):
        assert type(d) is type(t) and list(d) == list(t), what
        for k in t:
            _same(d[k], t[k], f"{what}[{k!r}]")
    elif isinstance(t, (list, tuple)):
        assert type(d).__name__ == type(t).__name__ and len(d) == len(t), f"{what}: {type(d)} vs {type(t)}"
        for i, (a, b) in enumerate(zip(d, t)):
            _same(a, b, f"{what}[{i}]")
    else:
        assert d == t, what


Point = namedtuple("Point", "x y")


def _samples(lib):
    return [
        [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
        [1.5, 2.5, 3.0],
        [1, 2, 3],
        [True, False],
        ["a", "b"],
        [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
        [np.float32(1.5), np.float32(2.0)],
        [{"a": 1.0, "b": (1, 2)}, {"a": 2.0, "b": (3, 4)}],
        [(lib.tensor(1), 2.0), (lib.tensor(3), 4.0)],
        [[1, 2], [3, 4]],
        [Point(1, 2.0), Point(3, 4.0)],
    ]


@pytest.mark.parametrize("i", range(11))
def test_default_collate_matches_torch(i):
    _same(ddata.default_collate(_samples(dyngrad)[i]), tdata.default_collate(_samples(torch)[i]))


def test_default_collate_errors():
    for mod in (tdata, ddata):
        with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
            mod.default_collate([[1, 2], [3]])
        with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
            mod.default_collate([object(), object()])


def _xy(lib, n=10):
    x = lib.arange(n * 2, dtype=lib.float32).reshape(n, 2)
    y = lib.arange(n)
    return lib, x, y


@pytest.mark.parametrize("batch_size,drop_last", [(1, False), (3, False), (3, True), (10, False), (4, True)])
def test_sequential_batches_match_torch(batch_size, drop_last):
    out = []
    for lib, mod in ((torch, tdata), (dyngrad, ddata)):
        _, x, y = _xy(lib)
        loader = mod.DataLoader(mod.TensorDataset(x, y), batch_size=batch_size, drop_last=drop_last)
        out.append((len(loader), list(loader)))
    assert out[1][0] == out[0][0]
    _same(out[1][1], out[0][1])


def test_batch_size_none_and_custom_collate():
    ds_t, ds_d = tdata.TensorDataset(*_xy(torch, 4)[1:]), ddata.TensorDataset(*_xy(dyngrad, 4)[1:])
    _same(list(ddata.DataLoader(ds_d, batch_size=None)), list(tdata.DataLoader(ds_t, batch_size=None)))
    got = list(ddata.DataLoader(ds_d, batch_size=2, collate_fn=lambda b: len(b)))
    assert got == [2, 2]


def test_shuffle_is_a_permutation_and_reproducible():
    _, x, y = _xy(dyngrad, 23)
    ds = ddata.TensorDataset(x, y)

    def epoch(seed):
        loader = ddata.DataLoader(ds, batch_size=5, shuffle=True, generator=dyngrad.Generator().manual_seed(seed))
        return [b[1].tolist() for b in loader]

    a, b, c = epoch(0), epoch(0), epoch(1)
    assert a == b and a != c
    assert [len(v) for v in a] == [5, 5, 5, 5, 3]
    flat = sum(a, [])
    assert sorted(flat) == list(range(23)) and flat != list(range(23))
    for xb, yb in ddata.DataLoader(ds, batch_size=5, shuffle=True):
        np.testing.assert_array_equal(xb.numpy(), x.numpy()[yb.numpy()])  # samples stay paired
    # two epochs of one loader differ; manual_seed makes a loader without generator reproducible
    loader = ddata.DataLoader(ds, batch_size=23, shuffle=True, generator=dyngrad.Generator().manual_seed(3))
    assert next(iter(loader))[1].tolist() != next(iter(loader))[1].tolist()
    dyngrad.manual_seed(7)
    first = next(iter(ddata.DataLoader(ds, batch_size=23, shuffle=True)))[1].tolist()
    dyngrad.manual_seed(7)
    assert next(iter(ddata.DataLoader(ds, batch_size=23, shuffle=True)))[1].tolist() == first


def test_samplers():
    seq = ddata.SequentialSampler(range(5))
    assert list(seq) == [0, 1, 2, 3, 4] and len(seq) == 5
    bs = ddata.BatchSampler(seq, 2, drop_last=False)
    assert list(bs) == list(tdata.BatchSampler(tdata.SequentialSampler(range(5)), 2, False)) and len(bs) == 3
    assert len(ddata.BatchSampler(seq, 2, drop_last=True)) == 2
    r = ddata.RandomSampler(range(6), replacement=True, num_samples=40, generator=dyngrad.Generator().manual_seed(0))
    draws = list(r)
    assert len(draws) == 40 and set(draws) <= set(range(6))
    s = ddata.SubsetRandomSampler([10, 20, 30], generator=dyngrad.Generator().manual_seed(0))
    assert sorted(s) == [10, 20, 30]
    loader = ddata.DataLoader(list(range(8)), batch_sampler=ddata.BatchSampler(seq, 3, False))
    _same(list(loader), [torch.tensor([0, 1, 2]), torch.tensor([3, 4])])
    for mod in (tdata, ddata):
        with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
            mod.BatchSampler(seq, 0, False)


def test_loader_argument_errors():
    pairs = [
        lambda m: m.DataLoader([1, 2], sampler=m.SequentialSampler([1, 2]), shuffle=True),
        lambda m: m.DataLoader([1, 2], batch_sampler=m.BatchSampler(m.SequentialSampler([1, 2]), 1, False),
                               batch_size=2),
        lambda m: m.DataLoader([1, 2], batch_size=None, drop_last=True),
    ]
    for fn in pairs:
        with pytest.raises(ValueError) as te:
            fn(tdata)
        with pytest.raises(ValueError) as de:
            fn(ddata)
        assert str(de.value) == str(te.value)


def test_tensor_dataset_subset_concat():
    _, x, y = _xy(dyngrad, 6)
    ds = ddata.TensorDataset(x, y)
    assert len(ds) == 6 and ds[2][1].item() == 2
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        ddata.TensorDataset(x, dyngrad.arange(5))
    sub = ddata.Subset(ds, [4, 0])
    assert len(sub) == 2 and sub[0][1].item() == 4
    cat = ds + ddata.TensorDataset(x[:2], y[:2])
    assert len(cat) == 8 and cat[7][1].item() == 1 and cat[-1][1].item() == 1


def test_random_split():
    ds = list(range(10))
    a, b = ddata.random_split(ds, [7, 3], generator=dyngrad.Generator().manual_seed(0))
    assert len(a) == 7 and len(b) == 3 and sorted(list(a) + list(b)) == ds
    a2, _ = ddata.random_split(ds, [7, 3], generator=dyngrad.Generator().manual_seed(0))
    assert list(a) == list(a2)
    parts = ddata.random_split(list(range(11)), [0.5, 0.3, 0.2], generator=dyngrad.Generator().manual_seed(1))
    tparts = tdata.random_split(list(range(11)), [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [len(p) for p in tparts]
    for mod in (tdata, ddata):
        with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
            mod.random_split(ds, [3, 3])


def test_iterable_dataset():
    class Stream(ddata.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    class TStream(tdata.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    _same(list(ddata.DataLoader(Stream(), batch_size=3)), list(tdata.DataLoader(TStream(), batch_size=3)))
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        ddata.DataLoader(Stream(), shuffle=True)


def test_weighted_random_sampler():
    weights = [0.1, 0.0, 0.6, 0.3]
    s = ddata.WeightedRandomSampler(weights, 20000, generator=dyngrad.Generator().manual_seed(0))
    assert len(s) == 20000 and s.replacement is True
    assert repr(s.weights.dtype) == repr(tdata.WeightedRandomSampler(weights, 3).weights.dtype)  # float64
    draws = np.array(list(s))
    freq = np.bincount(draws, minlength=4) / len(draws)
    assert freq[1] == 0  # a zero weight is never drawn
    # frequencies within 5 standard errors of the weights
    np.testing.assert_allclose(freq, weights, atol=5 * np.sqrt(0.25 / len(draws)))
    again = list(ddata.WeightedRandomSampler(weights, 20000, generator=dyngrad.Generator().manual_seed(0)))
    assert again == draws.tolist()
    assert list(ddata.WeightedRandomSampler(weights, 50, generator=dyngrad.Generator().manual_seed(1))) != \
        draws[:50].tolist()
    # without replacement: distinct indices, positive weights before the zero one
    for seed in range(20):
        got = list(ddata.WeightedRandomSampler(weights, 4, replacement=False,
                                               generator=dyngrad.Generator().manual_seed(seed)))
        assert sorted(got) == [0, 1, 2, 3] and got[-1] == 1
    # without replacement the heaviest weight comes first most often
    firsts = [next(iter(ddata.WeightedRandomSampler(weights, 1, replacement=False,
                                                    generator=dyngrad.Generator().manual_seed(s))))
              for s in range(400)]
    assert abs(firsts.count(2) / 400 - 0.6) < 0.1
    # the default stream: manual_seed makes it reproducible
    dyngrad.manual_seed(5)
    a = list(ddata.WeightedRandomSampler(weights, 30))
    dyngrad.manual_seed(5)
    assert list(ddata.WeightedRandomSampler(weights, 30)) == a
    # in a DataLoader
    ds = ddata.TensorDataset(dyngrad.arange(4))
    batches = list(ddata.DataLoader(ds, batch_size=8, sampler=ddata.WeightedRandomSampler(weights, 20)))
    assert [len(b[0]) for b in batches] == [8, 8, 4] and 1 not in sum((b[0].tolist() for b in batches), [])


@pytest.mark.parametrize("args", [
    ([1.0, 2.0], 0), ([1.0, 2.0], 2.0), ([1.0, 2.0], True), ([1.0, 2.0], 2, 1), ([[1.0, 2.0]], 2),
])
def test_weighted_random_sampler_errors(args):
    with pytest.raises(ValueError) as te:
        tdata.WeightedRandomSampler(*args)
    with pytest.raises(ValueError) as de:
        ddata.WeightedRandomSampler(*args)
    assert str(de.value) == str(te.value)


def test_weighted_random_sampler_iteration_errors():
    for mod in (tdata, ddata):
        s = mod.WeightedRandomSampler([1.0, 2.0], 3, replacement=False)
        with pytest.raises(RuntimeError, match=r"cannot sample n_sample > prob_dist.size\(-1\) samples without"):
            list(s)


def test_chain_dataset_and_worker_info():
    def streams(mod):
        class Stream(mod.IterableDataset):
            def __init__(self, lo, hi):
                self.lo, self.hi = lo, hi

            def __iter__(self):
                return iter(range(self.lo, self.hi))

            def __len__(self):
                return self.hi - self.lo

        return Stream

    out = []
    for mod in (tdata, ddata):
        stream = streams(mod)
        chain = mod.ChainDataset([stream(0, 3), stream(10, 12)])
        added = stream(0, 2) + stream(5, 6)
        loader = mod.DataLoader(chain, batch_size=2)
        out.append((list(chain), len(chain), type(added).__name__, list(added), list(loader), len(loader)))
        bad = mod.ChainDataset([stream(0, 1), [1, 2]])
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            list(bad)
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            len(bad)
        assert mod.get_worker_info() is None
    (t_items, t_len, t_type, t_added, t_batches, t_nb), (d_items, d_len, d_type, d_added, d_batches, d_nb) = out
    assert (d_items, d_len, d_type, d_added, d_nb) == (t_items, t_len, t_type, t_added, t_nb)
    _same(d_batches, t_batches)


def test_iterable_dataset_loader_options():
    def stream(mod):
        class Stream(mod.IterableDataset):
            def __iter__(self):
                return iter([{"x": float(i), "y": (i, i * 2)} for i in range(5)])

            def __len__(self):
                return 5

        return Stream()

    for kwargs in (dict(batch_size=2), dict(batch_size=2, drop_last=True), dict(batch_size=None)):
        t = tdata.DataLoader(stream(tdata), **kwargs)
        d = ddata.DataLoader(stream(ddata), **kwargs)
        assert len(d) == len(t), kwargs
        _same(list(d), list(t))
