"""DataLoader with worker processes (num_workers > 0) against torch: the same batches in the same order, worker
info and IterableDataset sharding, worker_init_fn and seeds, a worker's exception re-raised with torch's text,
timeouts, persistent workers, a killed worker; and no process left behind after any of them.

Every loader here has a timeout, so a broken worker fails a test instead of hanging it.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import re
import signal
import time

import pytest
import torch
import torch.utils.data as tdata

import dyngrad
import dyngrad.utils.data as ddata

LIBS = {"dyngrad": (dyngrad, ddata), "torch": (torch, tdata)}


def _no_children_left():
    gc.collect()  # an exception's traceback keeps the failed iterator (and torch's) alive until collected
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


@pytest.fixture(autouse=True)
def _check_children():
    yield
    _no_children_left()


def _both(program):
    """program(lib, data) on dyngrad and torch: equal results, or the same exception type and first/last line
    (the traceback between them names each library's own files)."""
    results = {}
    for name, (lib, data) in LIBS.items():
        try:
            results[name] = ("ok", program(lib, data))
        except Exception as e:  # noqa: BLE001 - compared below
            lines = str(e).splitlines()
            results[name] = ("error", type(e).__name__, lines[0], lines[-1])
    d, t = results["dyngrad"], results["torch"]
    assert d[0] == t[0], (d, t)
    assert _plain(d) == _plain(t)


def _plain(x):
    """Tensors as (dtype, shape, values), containers item by item: comparable across the two libraries."""
    if isinstance(x, (torch.Tensor, dyngrad.Tensor)):
        return (repr(x.dtype), tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    return x


def _map_dataset(data, lib):
    class Squares(data.Dataset):
        def __len__(self):
            return 11

        def __getitem__(self, i):
            info = data.get_worker_info()
            return {"x": lib.tensor([float(i * i)]), "worker": -1 if info is None else info.id,
                    "n": 0 if info is None else info.num_workers}

    return Squares()


@pytest.mark.parametrize("workers,batch_size,prefetch", [(1, 3, None), (2, 3, None), (3, 2, 1), (2, None, 4)])
def test_map_dataset_batches_in_torch_order(workers, batch_size, prefetch):
    def program(lib, data):
        dl = data.DataLoader(_map_dataset(data, lib), batch_size=batch_size, num_workers=workers,
                             prefetch_factor=prefetch, timeout=30)
        return [b for b in dl], len(dl)

    _both(program)


def test_iterable_dataset_sharded_by_worker_info():
    def program(lib, data):
        class Range(data.IterableDataset):
            def __iter__(self):
                info = data.get_worker_info()
                step, first = (1, 0) if info is None else (info.num_workers, info.id)
                return iter(range(first, 13, step))

        return [b for b in data.DataLoader(Range(), batch_size=2, num_workers=3, timeout=30)], \
            [b for b in data.DataLoader(Range(), batch_size=None, num_workers=2, timeout=30)]

    _both(program)


def test_iterable_dataset_unsharded_is_repeated_per_worker():
    def program(lib, data):
        class Three(data.IterableDataset):
            def __iter__(self):
                return iter([lib.tensor(1.0), lib.tensor(2.0), lib.tensor(3.0)])

        return [b for b in data.DataLoader(Three(), batch_size=2, num_workers=2, drop_last=True, timeout=30)]

    _both(program)


def _init_fn(worker_id):
    os.environ["DYNGRAD_TEST_WORKER"] = str(worker_id * 10)


def test_worker_init_fn_and_seeds():
    class Probe(ddata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = ddata.get_worker_info()
            return (info.id, info.seed, dyngrad.rand(3).tolist(), int(os.environ["DYNGRAD_TEST_WORKER"]), os.getpid())

    rows = list(ddata.DataLoader(Probe(), batch_size=None, num_workers=2, worker_init_fn=_init_fn, timeout=30))
    seeds = {r[0]: r[1] for r in rows}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker_id, as torch
    for r in rows[:2]:  # each worker's first draw: dyngrad's generator seeded with its seed
        dyngrad.manual_seed(r[1])
        assert r[2] == dyngrad.rand(3).tolist()
    assert [r[3] for r in rows] == [0, 10, 0, 10]
    assert len({r[4] for r in rows}) == 2 and os.getpid() not in {r[4] for r in rows}


def test_worker_exception_reraised_with_torchs_text():
    def program(lib, data):
        class Bad(data.Dataset):
            def __len__(self):
                return 6

            def __getitem__(self, i):
                if i == 3:
                    raise ValueError(f"bad item {i}")
                return i

        return list(data.DataLoader(Bad(), batch_size=2, num_workers=2, timeout=30))

    _both(program)


def test_worker_init_fn_exception():
    def program(lib, data):
        def init(worker_id):
            raise KeyError("no config")

        return list(data.DataLoader(list(range(4)), num_workers=1, worker_init_fn=init, timeout=30))

    _both(program)


def test_timeout():
    def program(lib, data):
        class Slow(data.Dataset):
            def __len__(self):
                return 3

            def __getitem__(self, i):
                time.sleep(1.5)
                return i

        return list(data.DataLoader(Slow(), num_workers=1, timeout=0.5))

    _both(program)


def test_persistent_workers_serve_every_epoch():
    class Pid(ddata.Dataset):
        def __len__(self):
            return 6

        def __getitem__(self, i):
            return i, os.getpid()

    dl = ddata.DataLoader(Pid(), batch_size=2, num_workers=2, persistent_workers=True, timeout=30)
    epochs = [list(dl) for _ in range(3)]
    assert [[b[0].tolist() for b in e] for e in epochs] == [[[0, 1], [2, 3], [4, 5]]] * 3
    pids = [{int(p) for b in e for p in b[1]} for e in epochs]
    assert pids[0] == pids[1] == pids[2] and len(pids[0]) == 2
    assert len(multiprocessing.active_children()) == 2
    dl._iterator._shutdown_now()


@pytest.mark.parametrize("how", ["exit", "sigkill"])
@pytest.mark.parametrize("timeout", [0, 20])
def test_a_killed_worker_is_reported(how, timeout):
    """A worker that exits or is killed mid-epoch: torch's text (its pid aside), promptly, with or without timeout."""
    texts = {}
    for name, (_, data) in LIBS.items():
        class Dies(data.Dataset):
            def __len__(self):
                return 4

            def __getitem__(self, i):
                if how == "exit":
                    os._exit(1)
                os.kill(os.getpid(), signal.SIGKILL)

        start = time.monotonic()
        with pytest.raises(RuntimeError) as info:
            list(data.DataLoader(Dies(), num_workers=1, timeout=timeout))
        texts[name] = (re.sub(r"\d+", "N", str(info.value)), time.monotonic() - start < 10)
    assert texts["dyngrad"] == texts["torch"] == ("DataLoader worker (pid(s) N) exited unexpectedly", True)


def test_an_abandoned_iterator_stops_its_workers():
    dl = ddata.DataLoader(list(range(100)), batch_size=2, num_workers=2, timeout=30)
    it = iter(dl)
    assert next(it).tolist() == [0, 1]
    assert len(multiprocessing.active_children()) == 2
    del it  # collected: the finalizer stops and joins the workers


OPTION_ERRORS = {
    "prefetch_without_workers": dict(prefetch_factor=2),
    "persistent_without_workers": dict(persistent_workers=True),
    "negative_prefetch": dict(num_workers=2, prefetch_factor=-1),
}


@pytest.mark.parametrize("name", list(OPTION_ERRORS))
def test_option_errors(name):
    _both(lambda lib, data: data.DataLoader(list(range(4)), **OPTION_ERRORS[name]) and None)
