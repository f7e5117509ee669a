"""A training sampler whose order depends only on (seed, epoch), identical on one process or many.

torch's `DistributedSampler` over `range(length)`: the permutation of epoch e is drawn from `seed + e`, padded
so every rank gets as many, and rank r takes every world-size-th index from r, so the union of the ranks' k-th
batches (per-rank batch B/W) is exactly the single-process k-th batch of size B, and a resumed run sees the same
data as an unbroken one. Lightning keeps a `DistributedSampler` it is given instead of substituting its own.
"""

from __future__ import annotations

import torch.distributed as dist
from torch.utils.data import DistributedSampler


class EpochShuffleSampler(DistributedSampler):
    """Made when the loader is (after the process group is up under DDP); one process is a world of one."""

    def __init__(self, length: int, seed: int = 0, shuffle: bool = True):
        rank, world = self._world()
        super().__init__(range(length), num_replicas=world, rank=rank, shuffle=shuffle, seed=seed)
        self.length = length

    @staticmethod
    def _world() -> tuple[int, int]:
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
        return 0, 1
