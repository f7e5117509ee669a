"""A training sampler whose order depends only on (seed, epoch), identical on one process or many.

Under DDP each rank takes every world-size-th index of the same permutation, so the union of the
ranks' k-th batches (per-rank batch B/W) is exactly the single-process k-th batch of size B, and a
resumed run sees the same data as an unbroken one. It subclasses `DistributedSampler` only so that
Lightning keeps it instead of substituting its own.
"""

from __future__ import annotations

import math

import torch
import torch.distributed as dist
from torch.utils.data import DistributedSampler


class EpochShuffleSampler(DistributedSampler):
    def __init__(self, length: int, seed: int = 0, shuffle: bool = True):  # noqa: D107 - no super(): lazy world
        self.length, self.seed, self.shuffle, self.epoch = length, seed, shuffle, 0

    @staticmethod
    def _world() -> tuple[int, int]:
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank(), dist.get_world_size()
        return 0, 1

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __iter__(self):
        if self.shuffle:
            generator = torch.Generator().manual_seed(self.seed + self.epoch)
            order = torch.randperm(self.length, generator=generator).tolist()
        else:
            order = list(range(self.length))
        rank, world = self._world()
        order += order[: len(self) * world - self.length]  # pad so every rank gets as many
        return iter(order[rank::world])

    def __len__(self) -> int:
        return math.ceil(self.length / self._world()[1])
