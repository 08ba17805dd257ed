"""DistributedSampler: each process of a distributed job reads its own share of a dataset."""

from __future__ import annotations

import math

from .sampler import Sampler


class DistributedSampler(Sampler):
    """The indices of ``dataset`` that belong to one process, as ``torch.utils.data.distributed.DistributedSampler``.

    The indices (shuffled with a generator seeded by ``seed + epoch``, or in order) are padded by
    repeating the first ones until every process gets the same number (or, with ``drop_last``, the
    tail is dropped), then process ``rank`` takes every ``num_replicas``-th index from ``rank`` on.

    Args:
        dataset: a dataset with ``len()``.
        num_replicas (int or None): the number of processes; the default group's world size if None.
        rank (int or None): this process's rank; the default group's if None.
        shuffle (bool): shuffle the indices each epoch (call ``set_epoch`` before each). Default True.
        seed (int): the shuffling seed, the same on every process. Default 0.
        drop_last (bool): drop the tail instead of padding. Default False.

    Raises:
        ValueError: ``rank`` not in ``[0, num_replicas - 1]``, or no process group to take the
            defaults from (torch's texts).
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False) -> None:
        from ... import distributed as dist

        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            from ... import randperm
            from ..._creation import Generator

            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        indices = indices[self.rank:self.total_size:self.num_replicas]
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch, which with ``seed`` fixes this epoch's shuffle (the same on every process)."""
        self.epoch = epoch
