"""DataLoader worker processes (torch.utils.data with ``num_workers > 0``), on the standard library's
multiprocessing.

The design is torch's (torch/utils/data/dataloader.py, _utils/worker.py): one index queue per worker and one
shared result queue; the main process keeps ``prefetch_factor * num_workers`` tasks in flight, hands them to the
workers in turn, and yields the results in task order. Each worker seeds dyngrad's generator with
``base_seed + worker_id`` (``base_seed`` drawn in the main process per iterator, as torch), sets the info that
``get_worker_info()`` returns, runs ``worker_init_fn(worker_id)``, then fetches and collates. A worker's exception
comes back to the main process and is raised there as torch raises it ("Caught ValueError in DataLoader worker
process 0.\\nOriginal Traceback ..."); ``timeout`` bounds each wait ("DataLoader timed out after N seconds").
Workers stop when the iterator is exhausted, closed or collected, or when the main process exits: each gets a
stop message, is joined, and is terminated if it does not stop in time, so no process is left behind.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import sys
import time
import traceback
import weakref

_worker_info = None
_MP_STATUS_CHECK_INTERVAL = 5.0  # seconds to wait for a worker to exit when shutting down
_LIVENESS_CHECK = 0.5  # seconds between checks, while the main process waits, that the workers are alive


class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: id, num_workers, seed, dataset (its own copy)."""

    def __init__(self, id: int, num_workers: int, seed: int, dataset) -> None:  # noqa: A002 - torch's name
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset
        self._initialized = True

    def __setattr__(self, key, value):
        if getattr(self, "_initialized", False):
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        super().__setattr__(key, value)

    def __repr__(self) -> str:
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={self.dataset!r})")


def get_worker_info():
    """The current worker's WorkerInfo in a DataLoader worker process, None in the main process."""
    return _worker_info


class _ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its formatted traceback."""

    def __init__(self, exc_info, where: str) -> None:
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:  # KeyError's str() is the repr of its argument: keep the lines readable
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # noqa: BLE001 - an exception type that takes other arguments
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    """A message whose repr is itself (torch's KeyErrorMessage), for KeyError."""

    def __repr__(self):
        return self


class _IterableEnd:
    """A worker's IterableDataset is exhausted."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


def _worker_loop(dataset, index_queue, result_queue, collate_fn, auto_collation, batch_size, drop_last, is_iterable,
                 seed, init_fn, worker_id, num_workers):
    global _worker_info
    from ... import manual_seed

    try:
        import random

        random.seed(seed)
        manual_seed(seed)
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        init_error = None
        if init_fn is not None:
            try:
                init_fn(worker_id)
            except Exception:  # noqa: BLE001 - reported to the main process with the first task
                init_error = _ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
        iterator = None
        if is_iterable and init_error is None:
            iterator = iter(dataset)
        while True:
            task = index_queue.get()
            if task is None:  # stop
                break
            idx, indices = task
            if init_error is not None:
                result_queue.put((idx, init_error))
                init_error = None
                continue
            try:
                if is_iterable:
                    if batch_size is None:
                        data = collate_fn(next(iterator))
                    else:
                        batch = list(itertools.islice(iterator, batch_size))
                        if not batch or (drop_last and len(batch) < batch_size):
                            raise StopIteration
                        data = collate_fn(batch)
                elif auto_collation:
                    getitems = getattr(dataset, "__getitems__", None)
                    data = collate_fn(getitems(indices) if callable(getitems) else [dataset[i] for i in indices])
                else:
                    data = collate_fn(dataset[indices])
            except StopIteration:
                data = _IterableEnd(worker_id)
            except Exception:  # noqa: BLE001 - every error is re-raised in the main process
                data = _ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
            result_queue.put((idx, data))
    except KeyboardInterrupt:
        pass
    finally:
        result_queue.cancel_join_thread()


class _MultiProcessingIterator:
    """The iterator of a DataLoader with workers (one per ``iter(loader)``, or kept with persistent_workers)."""

    def __init__(self, loader) -> None:
        from ... import empty, int64

        self._loader = loader
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._prefetch = (loader.prefetch_factor if loader.prefetch_factor is not None else 2) * self._num_workers
        ctx = loader.multiprocessing_context
        if ctx is None or isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self._result_queue = ctx.Queue()
        self._index_queues, self._workers = [], []
        # torch draws the base seed from its generator (the loader's, or the default one) for every iterator
        base_seed = int(empty((), dtype=int64).random_(generator=loader.generator).item())
        self._base_seed = base_seed
        for wid in range(self._num_workers):
            iq = ctx.Queue()
            w = ctx.Process(target=_worker_loop, args=(
                loader.dataset, iq, self._result_queue, loader.collate_fn, loader._auto_collation, loader.batch_size,
                loader.drop_last, loader._is_iterable, base_seed + wid, loader.worker_init_fn, wid,
                self._num_workers), daemon=True)
            w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        self._shutdown = False
        self._finalizer = weakref.finalize(self, _shutdown_workers, self._workers, self._index_queues,
                                           self._result_queue)
        self._reset()

    def _reset(self) -> None:
        loader = self._loader
        if loader._is_iterable:
            self._indices = None
        elif loader._auto_collation:
            self._indices = iter(loader.batch_sampler)
        else:
            self._indices = iter(loader.sampler)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}  # task index -> worker id (and, once arrived, its data)
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        self._active = [True] * self._num_workers
        for _ in range(self._prefetch):
            self._try_put_index()

    def _try_put_index(self) -> None:
        if not any(self._active):
            return
        if self._indices is not None:
            try:
                index = next(self._indices)
            except StopIteration:
                return
        else:
            index = None
        for _ in range(self._num_workers):
            wid = next(self._worker_cycle)
            if self._active[wid]:
                break
        else:
            return
        self._index_queues[wid].put((self._send_idx, index))
        self._task_info[self._send_idx] = (wid,)
        self._send_idx += 1

    def __iter__(self):
        return self

    def _get(self):
        """The next result; a dead worker is reported within _LIVENESS_CHECK seconds, with or without ``timeout``
        (torch learns it at once from SIGCHLD and raises the same text), and ``timeout`` bounds the whole wait."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            wait = _LIVENESS_CHECK if deadline is None else max(0.0, min(_LIVENESS_CHECK, deadline - time.monotonic()))
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                dead = [w for w in self._workers if not w.is_alive()]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    self._shutdown_now()
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from None
                if deadline is not None and time.monotonic() >= deadline:
                    self._shutdown_now()
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") from None

    def __next__(self):
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._active[info[0]]):
                    break
                # a task of an exhausted iterable worker: skip it
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._loader.persistent_workers:
                    self._shutdown_now()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process(info[1])
            idx, data = self._get()
            if isinstance(data, _IterableEnd):
                self._active[data.worker_id] = False
                self._task_info.pop(idx, None)
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process(data)

    def _process(self, data):
        self._try_put_index()
        if isinstance(data, _ExceptionWrapper):
            self._shutdown_now()
            data.reraise()
        return data

    def __len__(self) -> int:
        return len(self._loader)

    def _shutdown_now(self) -> None:
        if not self._shutdown:
            self._shutdown = True
            self._finalizer()


def _shutdown_workers(workers, index_queues, result_queue) -> None:
    """Stop every worker: a stop message, a join, and terminate() for any that does not stop in time."""
    for q in index_queues:
        try:
            q.put(None)
        except (OSError, ValueError):
            pass
    for w in workers:
        w.join(timeout=_MP_STATUS_CHECK_INTERVAL)
        if w.is_alive():
            w.terminate()
            w.join()
    for q in (*index_queues, result_queue):
        q.cancel_join_thread()
        q.close()


del os
