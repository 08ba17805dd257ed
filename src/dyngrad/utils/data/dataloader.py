"""DataLoader (torch.utils.data.DataLoader): batches from a dataset via a sampler and a collate function.

With ``num_workers == 0`` loading runs in the calling process; with ``num_workers > 0`` it runs in worker
processes (see _worker.py), with torch's batches in torch's order.
"""

from __future__ import annotations

from ._collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler


class DataLoader:
    """Iterate over a dataset in batches (torch.utils.data.DataLoader).

    Each iteration draws indices from a sampler (in order, or shuffled when ``shuffle=True``),
    groups them into batches of ``batch_size``, fetches ``dataset[i]`` for each, and merges the
    samples with ``collate_fn``: the default stacks tensors (and numbers and NumPy arrays) along a
    new first dimension, recursing into tuples, lists and dicts, so a dataset of ``(x, y)`` pairs
    gives batches ``(xs, ys)`` with ``xs.shape == (batch_size, *x.shape)``. An
    ``IterableDataset`` is read in its own order.

    Args:
        dataset: a map-style ``Dataset`` (``__getitem__`` and ``__len__``), any sequence, or an
            ``IterableDataset``.
        batch_size: samples per batch; None yields the samples one by one, uncollated.
        shuffle: a new random order each epoch (drawn from ``generator``, else dyngrad's global
            generator seeded by ``manual_seed``).
        sampler: an iterable of indices, instead of ``shuffle``.
        batch_sampler: an iterable of lists of indices, instead of ``batch_size``/``shuffle``/
            ``sampler``/``drop_last``.
        num_workers: the number of worker processes loading batches (0: the calling process).
        collate_fn: merges a list of samples into a batch.
        pin_memory: accepted and ignored (CPU only).
        drop_last: drop a last, incomplete batch.
        generator: the ``dyngrad.Generator`` that shuffles (e.g. ``Generator().manual_seed(0)``).

    With workers: ``timeout`` (seconds per batch, then torch's RuntimeError), ``worker_init_fn(worker_id)``,
    ``multiprocessing_context`` (a start method name or context), ``prefetch_factor`` (batches in flight per
    worker, 2 by default), ``persistent_workers`` (keep the workers between epochs). ``pin_memory_device`` and
    ``in_order`` are accepted (batches always come in order).

    Raises:
        ValueError: options that exclude each other, with torch's texts (``sampler`` with
            ``shuffle``, ``batch_sampler`` with ``batch_size``, shuffling an ``IterableDataset``,
            a negative ``num_workers``, ``prefetch_factor`` or ``persistent_workers`` without workers).

    Example::

        >>> from dyngrad.utils.data import DataLoader, TensorDataset
        >>> ds = TensorDataset(dyngrad.arange(10.0).reshape(5, 2), dyngrad.arange(5))
        >>> for x, y in DataLoader(ds, batch_size=2):
        ...     print(x.shape, y)
        torch.Size([2, 2]) tensor([0, 1])
        torch.Size([2, 2]) tensor([2, 3])
        torch.Size([1, 2]) tensor([4])
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
                "multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = multiprocessing_context
        self._iterator = None
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                    f"batch_sampler={batch_sampler}"
                )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None:
            if drop_last:
                raise ValueError(
                    "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"
                )
        if sampler is None and not self._is_iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._is_iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation or self._is_iterable and batch_size else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    def _fetch(self, indices):
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems(indices)
        return [self.dataset[i] for i in indices]

    def __iter__(self):
        if self.num_workers > 0:
            from ._worker import _MultiProcessingIterator

            # persistent workers of a map-style dataset serve every epoch; an iterable dataset's copies in the
            # workers cannot be rewound, so it gets fresh workers
            if self.persistent_workers and not self._is_iterable:
                if self._iterator is None or self._iterator._shutdown:
                    self._iterator = _MultiProcessingIterator(self)
                else:
                    self._iterator._reset()
                return self._iterator
            return _MultiProcessingIterator(self)
        return self._single_process_iter()

    def _single_process_iter(self):
        # torch's _BaseDataLoaderIter draws a base seed (for worker seeds) from the loader's generator before
        # the sampler runs: one int64 random_(), which moves the stream as torch's does
        from ..._creation import empty
        from ..._dtype import int64

        self._base_seed = int(empty((), dtype=int64).random_(generator=self.generator).item())
        if self._is_iterable:
            it = iter(self.dataset)
            if self.batch_size is None:
                for sample in it:
                    yield self.collate_fn(sample)
                return
            batch = []
            for sample in it:
                batch.append(sample)
                if len(batch) == self.batch_size:
                    yield self.collate_fn(batch)
                    batch = []
            if batch and not self.drop_last:
                yield self.collate_fn(batch)
            return
        if self._auto_collation:
            for indices in self.batch_sampler:
                yield self.collate_fn(self._fetch(indices))
        else:
            for idx in self.sampler:
                yield self.collate_fn(self.dataset[idx])

    def __len__(self) -> int:
        if self._is_iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        if self._auto_collation:
            return len(self.batch_sampler)
        return len(self.sampler)
